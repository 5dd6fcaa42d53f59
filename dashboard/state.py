"""Session state shared by all pages: the chosen dataset, the seed, error display.

Pages read the dataset with :func:`current_dataset` and the seed with :func:`current_seed`;
they never touch ``st.session_state`` keys of another page.
"""
from __future__ import annotations

from typing import Any

import streamlit as st

from core.data import Dataset
from core.mechanisms import NEIGHBOURING_RELATION, PrivacyLedger
from core.validation import DataError
from dashboard.cached import cluster
from dashboard.components.present import present_toggle
from dashboard.safe import md

DATASET_KEY = "pux_dataset"
SEED_KEY = "pux_seed"
SESSION_LEDGER_KEY = "pux_session_ledger"
RELEASES_KEY = "pux_releases"
DEFAULT_SEED = 0
#: where the Data page's table comes from; the choice lives in ``pux_data_*`` keys (not
#: widget keys) so it survives navigation and a link can set it
SOURCES = ["Built-in sample", "Upload a CSV", "Adult (public data)", "NLTCS (public data)"]
PUBLIC = {SOURCES[2]: ("adult", "Adult"), SOURCES[3]: ("nltcs", "NLTCS")}
SOURCE_KEY, SAMPLE_KEY = "pux_data_source", "pux_data_sample"


def current_dataset(default: str = "supplier") -> Dataset:
    """The dataset chosen on the Data page, or the built-in sample ``default``.

    Parameters
    ----------
    default : str
        Sample to use while the user has not chosen a dataset ("supplier" for the
        paper-000 pages, "census" for the pages that need a sensitive attribute).
    """
    chosen = st.session_state.get(DATASET_KEY)
    if isinstance(chosen, Dataset):
        return chosen
    from dashboard.cached.data import sample_dataset

    return sample_dataset(default)


def user_chose_dataset() -> bool:
    """True once the user picked a dataset on the Data page."""
    return isinstance(st.session_state.get(DATASET_KEY), Dataset)


def set_dataset(dataset: Dataset) -> None:
    """Make ``dataset`` the one every page uses."""
    st.session_state[DATASET_KEY] = dataset


def linked_dataset() -> tuple[str, str | None, tuple[str, ...]] | None:
    """(name, label, sensitive) of the chosen dataset when a link can name it (a built-in
    sample or a public dataset); None for an upload or when nothing was chosen."""
    chosen = st.session_state.get(DATASET_KEY)
    source = st.session_state.get(SOURCE_KEY)
    if not isinstance(chosen, Dataset) or source not in SOURCES or source == SOURCES[1]:
        return None
    name = st.session_state.get(SAMPLE_KEY) if source == SOURCES[0] else PUBLIC[source][0]
    if name is None:
        return None
    return str(name), chosen.label, tuple(chosen.sensitive)


def choose_linked_dataset(name: str, *, label: Any, sensitive: Any) -> bool:
    """Choose the sample or public dataset a link names, with its roles where they fit
    (``...`` for either role keeps the dataset's own); False when this server cannot
    provide it (the dataset in use is kept)."""
    from core.data import SAMPLES
    from dashboard.cached.data import public_available, public_dataset, sample_dataset

    try:
        if name in SAMPLES:
            dataset, source = sample_dataset(name), SOURCES[0]
        elif public_available().get(name):
            dataset = public_dataset(name)
            source = next(s for s, (key, _) in PUBLIC.items() if key == name)
        else:
            return False
        cols = set(dataset.frame.columns)
        label = dataset.label if label is ... else (label if label in cols else None)
        sensitive = dataset.sensitive if sensitive is ... else sensitive
        dataset = dataset.with_roles(label=label, sensitive=[s for s in sensitive if s in cols and s != label])
    except (DataError, ValueError):
        return False
    st.session_state[SOURCE_KEY] = source
    if name in SAMPLES:
        st.session_state[SAMPLE_KEY] = name
    set_dataset(dataset)
    return True


def current_seed() -> int:
    """The seed from the sidebar: the same seed gives the same results."""
    return int(st.session_state.get(SEED_KEY, DEFAULT_SEED))


def session_ledger() -> PrivacyLedger:
    """Everything this session has released (downloaded), composed sequentially."""
    ledger = st.session_state.get(SESSION_LEDGER_KEY)
    if not isinstance(ledger, PrivacyLedger):
        ledger = st.session_state[SESSION_LEDGER_KEY] = PrivacyLedger()
    return ledger


def record_release(ledger: PrivacyLedger, label: str) -> PrivacyLedger:
    """Add one release that leaves the app to the session's ledger; returns the session's."""
    session = session_ledger()
    n = st.session_state.get(RELEASES_KEY, 0) + 1
    st.session_state[RELEASES_KEY] = n
    session.extend(ledger, prefix=f"release {n} ({label})")
    return session


def released_count() -> int:
    """How many releases this session has prepared for download."""
    return int(st.session_state.get(RELEASES_KEY, 0))


def session_total_text() -> str:
    """'Released this session: epsilon = 3 over 2 releases' for the sidebar."""
    n = released_count()
    if n == 0:
        return "Released this session: nothing yet (epsilon = 0)."
    ledger = session_ledger()
    if not ledger.is_dp:
        return (f"Released this session: {n} release(s), at least one not differentially private, "
                "so the session has no overall guarantee.")
    eps, dlt = ledger.total()
    return (f"Released this session: epsilon = {eps:.4g}" + (f", delta = {dlt:.2g}" if dlt else "")
            + f" over {n} release(s) (sequential composition).")


def show_error(exc: BaseException) -> None:
    """Show one sentence for a problem with the user's data or settings, never a traceback.

    Our own messages (DataError, ValueError, TypeError) are shown escaped (they may quote a
    column name); anything else gets a fixed sentence, with the escaped detail below it.
    """
    if isinstance(exc, (DataError, ValueError, TypeError)):
        st.error(md(str(exc)), icon=":material/error:")
    else:  # an unexpected failure: say so plainly, keep the page alive
        st.error("Something went wrong on our side. The data you loaded is kept; try other settings.",
                 icon=":material/error:")
        st.caption(f"Detail ({type(exc).__name__}): {md(str(exc)[:300])}")


def _describe(dataset: Dataset | None) -> str:
    if not isinstance(dataset, Dataset):
        return "Chosen dataset: none yet, each page uses its built-in sample (choose one on the Data page)."
    return f"Chosen dataset: **{md(dataset.name)}** · {roles_text(dataset)}"


def roles_text(dataset: Dataset) -> str:
    """'1,160 rows · label listed · sensitive none' for captions (names escaped for markdown)."""
    label = md(dataset.label) if dataset.label else "none"
    sensitive = ", ".join(md(s) for s in dataset.sensitive) or "none"
    return f"{dataset.n_rows:,} rows · label {label} · sensitive {sensitive}"


def render_sidebar():
    """The sidebar shown on every page: the seed, and a slot for the dataset in use.

    Returns a callable that fills the dataset slot; the app calls it after the page ran,
    so the slot shows the dataset the page just chose.
    """
    with st.sidebar:
        slot = st.empty()
        st.number_input(
            "Seed",
            min_value=0,
            max_value=2**31 - 1,
            value=DEFAULT_SEED,
            step=1,
            key=SEED_KEY,
            help="Every random draw shown on the pages (noise, splits, training) follows this seed: "
            "the same seed gives the same picture. Releases you download draw fresh noise instead, "
            "unless you tick 'reproducible (not private)'.",
        )
        present_toggle()
        problem = cluster.prepare()
        if problem is not None:
            st.error(problem, icon=":material/cloud_off:")
        elif cluster.where() is not None:
            st.caption(cluster.where())
        with st.expander("Privacy model", icon=":material/policy:"):
            st.caption("**Neighbouring relation.** " + NEIGHBOURING_RELATION)
            st.caption("Every epsilon on the pages is the total a method's privacy ledger reports under "
                       "this relation; methods without a guarantee say 'not differentially private'. "
                       "Each method page has a privacy audit that measures a lower bound on epsilon.")

    def fill() -> None:
        with slot.container():
            st.caption(_describe(st.session_state.get(DATASET_KEY)))
            st.caption(session_total_text())

    return fill
