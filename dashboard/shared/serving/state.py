"""Session state shared by all pages: the chosen dataset, its roles and results, the seed, error display.

The public schema of each table lives in :mod:`dashboard.shared.serving.schemas`, the session's
ledger in :mod:`dashboard.shared.serving.session_ledger`, the sidebar in :mod:`dashboard.shared.widgets.sidebar`.

Pages read the dataset with :func:`current_dataset` and the seed with :func:`current_seed`;
they never touch ``st.session_state`` keys of another page.
"""
from __future__ import annotations

from typing import Any

import streamlit as st

from core.data import Dataset
from core.validation import DataError
from dashboard.shared.safe import md

DATASET_KEY = "pux_dataset"
SEED_KEY = "pux_seed"
DEFAULT_SEED = 0
#: where the Data page's table comes from; the choice lives in ``pux_data_*`` keys (not
#: widget keys) so it survives navigation and a link can set it
SOURCES = ["Built-in sample", "Upload a CSV", "Adult (public data)", "NLTCS (public data)"]
PUBLIC = {SOURCES[2]: ("adult", "Adult"), SOURCES[3]: ("nltcs", "NLTCS")}
SOURCE_KEY, SAMPLE_KEY = "pux_data_source", "pux_data_sample"


def current_dataset(default: str = "supplier") -> Dataset:
    """The dataset chosen on the Data page without its identifier columns, or the built-in
    sample ``default``.

    Identifiers (row numbers, IDs, keys: :attr:`core.data.Dataset.identifiers`) are left
    out here, once for every page: no page uses them as a feature, synthesizes, attacks or
    publishes them. The Data page, which shows and changes them, reads
    :func:`chosen_dataset` instead.

    Parameters
    ----------
    default : str
        Sample to use while the user has not chosen a dataset ("supplier" for the
        paper-000 pages, "census" for the pages that need a sensitive attribute).
    """
    chosen = chosen_dataset()
    if chosen is not None:
        used = chosen.without_identifiers()
        if used is not chosen:
            _watch_if_uploaded(used)
        return used
    from dashboard.shared.serving.datasets import sample_dataset

    return sample_dataset(default).without_identifiers()


def builtin_sample_in_use() -> bool:
    """True while the session's table was loaded as a built-in sample of ``sample_data/``:
    nothing chosen yet (each page's default sample), or a sample picked on the Data page
    (or named by a link). False for an upload or public data, whatever its name or content;
    False outside a session. Decides whether the warm start's cache may be read."""
    from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

    if get_script_run_ctx(suppress_warning=True) is None:
        return False
    try:
        chosen = chosen_dataset()
        if chosen is None:
            return True
        from core.data import SAMPLES

        return st.session_state.get(SOURCE_KEY) == SOURCES[0] and chosen.name in SAMPLES
    except Exception:  # no session (a script outside streamlit): nothing to read for it
        return False


def chosen_dataset() -> Dataset | None:
    """The dataset chosen on the Data page as it was loaded (identifier columns included),
    or None while nothing is chosen."""
    chosen = st.session_state.get(DATASET_KEY)
    return chosen if isinstance(chosen, Dataset) else None


# ---------------------------------------------------------------- one dataset, one state
#: results kept in the session, by dataset fingerprint then by :func:`scoped_key`
RESULTS_KEY = "pux_results"
#: how many datasets' results a session keeps (the oldest dataset's go first)
_MAX_RESULT_DATASETS = 3


def dataset_token() -> str | None:
    """The fingerprint of the chosen dataset (its rows, columns and roles: label, sensitive,
    identifiers), or None while nothing is chosen. Settings and results belong to it."""
    chosen = chosen_dataset()
    return None if chosen is None else chosen.fingerprint()


def scoped_key(name: str, dataset: Dataset, **settings: Any) -> str:
    """A session key for a result of ``name`` on ``dataset`` with ``settings``.

    The key carries the dataset's fingerprint and a hash of the settings, so a result kept
    under it is never shown for another dataset (or other roles, or other settings)::

        key = scoped_key("imposter_job", dataset, sensitive=s, theta=theta)
        job = st.session_state.get(key)

    Raises
    ------
    TypeError
        ``name`` is not a str or ``dataset`` not a Dataset.
    """
    import hashlib

    if not isinstance(name, str):
        raise TypeError(f"name must be a str, got {type(name).__name__}.")
    if not isinstance(dataset, Dataset):
        raise TypeError(f"dataset must be a Dataset, got {type(dataset).__name__}.")
    digest = hashlib.sha1(repr(sorted(settings.items())).encode()).hexdigest()[:12]
    return f"{name}@{dataset.fingerprint()}#{digest}"


def results_for(dataset: Dataset) -> dict:
    """The session's store of results for ``dataset`` (a dict a page reads and writes,
    keyed as it likes, e.g. by :func:`scoped_key`).

    Each dataset (fingerprint: rows, columns and roles) has its own store, so switching
    dataset never shows another dataset's result; switching back finds its results again
    while the session keeps them (the last three datasets').
    """
    if not isinstance(dataset, Dataset):
        raise TypeError(f"dataset must be a Dataset, got {type(dataset).__name__}.")
    stores = st.session_state.get(RESULTS_KEY)
    if not isinstance(stores, dict):
        stores = st.session_state[RESULTS_KEY] = {}
    fp = dataset.fingerprint()
    store = stores.pop(fp, None)
    if not isinstance(store, dict):
        store = {}
    stores[fp] = store  # most recent last
    while len(stores) > _MAX_RESULT_DATASETS:
        stores.pop(next(iter(stores)))
    return store


def forget_results(dataset: Dataset | None = None) -> None:
    """Drop the results kept for ``dataset`` (default: for every dataset)."""
    stores = st.session_state.get(RESULTS_KEY)
    if not isinstance(stores, dict):
        return
    if dataset is None:
        stores.clear()
    else:
        stores.pop(dataset.fingerprint(), None)


def role_override_text(dataset: Dataset, *, label: Any = ..., sensitive: Any = ...) -> str | None:
    """One sentence when a page's own choice differs from the Data page's marks, else None.

    A page may override a role for itself (its own widget); it says so with this sentence
    (``st.caption``), so the override is visible. ``...`` for a role: the page does not
    choose it. Names are escaped for markdown.
    """
    if not isinstance(dataset, Dataset):
        raise TypeError(f"dataset must be a Dataset, got {type(dataset).__name__}.")

    def names(values) -> str:
        return ", ".join(f"'{md(v)}'" for v in values) or "none"

    parts = []
    if label is not ... and label != dataset.label:
        parts.append(f"label {names([label] if label else [])} (the Data page marks "
                     f"{names([dataset.label] if dataset.label else [])})")
    if sensitive is not ...:
        chosen = [sensitive] if isinstance(sensitive, str) else list(sensitive or [])
        if chosen != list(dataset.sensitive):
            parts.append(f"sensitive {names(chosen)} (the Data page marks {names(dataset.sensitive)})")
    if not parts:
        return None
    return ("This page uses " + " and ".join(parts) + "; the other pages keep the Data page's marks, "
            "and this choice is dropped when the dataset or its marks change.")


def user_chose_dataset() -> bool:
    """True once the user picked a dataset on the Data page."""
    return isinstance(st.session_state.get(DATASET_KEY), Dataset)


def set_dataset(dataset: Dataset) -> None:
    """Make ``dataset`` the one every page uses."""
    st.session_state[DATASET_KEY] = dataset
    _watch_if_uploaded(dataset)


def _watch_if_uploaded(dataset: Dataset) -> None:
    """Tell :mod:`dashboard.shared.serving.memory` about a table of this session's upload, so the
    cache entries keyed by it go when the session ends (samples and public tables are
    shared by every session: their entries stay)."""
    if st.session_state.get(SOURCE_KEY) == SOURCES[1]:
        from dashboard.shared.serving.memory import watch_dataset

        watch_dataset(dataset)


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
    from dashboard.shared.serving.datasets import public_available, public_dataset, sample_dataset

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


def show_error(exc: BaseException) -> None:
    """Show one sentence for a problem with the user's data or settings, never a traceback.

    Our own messages are shown escaped (they may quote a column name): a DataError (what this
    table cannot give here, and the user's step: a rare class, a one-class label, no column to
    protect) as a warning, a ValueError or TypeError as an error; anything else gets a fixed
    sentence, with the escaped detail below it.
    """
    if isinstance(exc, DataError):
        st.warning(md(str(exc)), icon=":material/info:")
    elif isinstance(exc, (ValueError, TypeError)):
        st.error(md(str(exc)), icon=":material/error:")
    else:  # an unexpected failure: say so plainly, keep the page alive
        st.error("Something went wrong on our side. The data you loaded is kept; try other settings.",
                 icon=":material/error:")
        st.caption(f"Detail ({type(exc).__name__}): {md(str(exc)[:300])}")


def roles_text(dataset: Dataset) -> str:
    """'1,160 rows · label listed · sensitive none' for captions (names escaped for markdown),
    with ' · identifiers id (left out)' when the dataset marks any."""
    label = md(dataset.label) if dataset.label else "none"
    sensitive = ", ".join(md(s) for s in dataset.sensitive) or "none"
    text = f"{dataset.n_rows:,} rows · label {label} · sensitive {sensitive}"
    if dataset.identifiers:
        text += " · identifiers " + ", ".join(md(i) for i in dataset.identifiers) + " (left out)"
    return text


