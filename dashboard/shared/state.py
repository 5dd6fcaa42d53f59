"""Session state shared by all pages: the chosen dataset, the seed, error display.

Pages read the dataset with :func:`current_dataset` and the seed with :func:`current_seed`;
they never touch ``st.session_state`` keys of another page.
"""
from __future__ import annotations

from typing import Any

import streamlit as st

from core.data import Dataset
from core.privacy.mechanisms import NEIGHBOURING_RELATION, PrivacyLedger
from core.validation import DataError
from dashboard.shared import cluster
from dashboard.shared.present import present_toggle
from dashboard.shared.safe import md

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
        return chosen.without_identifiers()
    from dashboard.data.cached import sample_dataset

    return sample_dataset(default).without_identifiers()


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


def role_defaults(dataset: Dataset | None = None) -> dict[str, Any]:
    """The Data page's roles for ``dataset`` (default the chosen one, else None for every
    role): ``{"label": str | None, "sensitive": [..], "identifiers": [..]}``, read from its
    reviewed public schema (:func:`current_schema`). Every page starts from them."""
    ds = chosen_dataset() if dataset is None else dataset
    if ds is None:
        return {"label": None, "sensitive": [], "identifiers": []}
    schema = current_schema(ds)
    return {"label": schema.label, "sensitive": list(schema.sensitive),
            "identifiers": list(schema.identifiers)}


#: the reviewed public schemas of this session, by :func:`schema_key` of their table (a
#: draft is made once per table and kept, an estimate drawn once and kept)
SCHEMAS_KEY = "pux_schemas"
#: bumped by :func:`set_schema`, so widgets that show a schema (the Data page's editor) start
#: afresh from the new one
SCHEMA_VERSION_KEY = "pux_schema_version"
_MAX_SCHEMAS = 8
_DATA_KEYS: dict[str, str] = {}


def schema_key(dataset: Dataset) -> str:
    """A key for ``dataset``'s table that ignores its roles (name, columns and values).

    Changing the label or the sensitive columns keeps the reviewed schema; another table
    (another upload, another sample) gets its own. Hashed once per dataset object's
    fingerprint (a Dataset is immutable).
    """
    import hashlib

    import pandas as pd

    fp = dataset.fingerprint()
    key = _DATA_KEYS.get(fp)
    if key is None:
        h = hashlib.sha1()
        h.update(pd.util.hash_pandas_object(dataset.frame, index=False).values.tobytes())
        h.update(repr((dataset.name, list(dataset.frame.columns))).encode())
        key = h.hexdigest()[:16]
        if len(_DATA_KEYS) > 256:
            _DATA_KEYS.clear()
        _DATA_KEYS[fp] = key
    return key


def _schemas() -> dict:
    store = st.session_state.get(SCHEMAS_KEY)
    if not isinstance(store, dict):
        store = st.session_state[SCHEMAS_KEY] = {}
    return store


def _fit_roles(schema: "PublicSchema", dataset: Dataset) -> "PublicSchema":
    """``schema`` with ``dataset``'s label, sensitive and identifier columns.

    The dataset's roles are the Data page's marks, the one source: a column the schema
    holds as an identifier that the dataset does not (given a role, or marked "not an
    identifier") is drafted again as a feature (read from data); a column the dataset marks
    as an identifier becomes one (declared: the user marked it)."""
    from dataclasses import replace

    from core.privacy.schema import ColumnSchema, draft_schema

    ids = [c for c in dataset.identifiers if c in schema]
    if (schema.label == dataset.label and tuple(schema.sensitive) == tuple(dataset.sensitive)
            and set(schema.identifiers) == set(ids)):
        return schema
    cols = []
    for entry in schema.columns:
        if entry.kind == "identifier" and entry.name not in ids and entry.name in dataset.frame.columns:
            entry = draft_schema(dataset.subset([entry.name]), detect=False)[entry.name]
        elif entry.kind != "identifier" and entry.name in ids:
            entry = ColumnSchema(entry.name, "identifier", source="declared",
                                 note="marked as an identifier on the Data page")
        cols.append(entry)
    return replace(schema, columns=tuple(cols), label=dataset.label, sensitive=tuple(dataset.sensitive))


def current_schema(dataset: Dataset | None = None) -> "PublicSchema":
    """The public schema of ``dataset`` (default :func:`current_dataset`).

    The one the user reviewed on the Data page for this table, else the shipped schema of a
    built-in dataset or a draft read from the data (:func:`core.privacy.schema.schema_for`,
    made once per table and kept in the session), always with the dataset's roles. Every
    page builds its encoders, bounds and queries from it, never from the rows; a draft's
    entries say "read from data", so releases built on them say they are not DP.
    """
    from core.privacy.schema import PublicSchema, schema_for

    ds = current_dataset() if dataset is None else dataset
    store = _schemas()
    key = schema_key(ds)
    kept = store.get(key)
    if not isinstance(kept, PublicSchema) or kept.names != list(ds.frame.columns):
        derived = _from_chosen(ds, store)
        if derived is not None:  # rows or columns of the reviewed table: its entries hold
            return _fit_roles(derived, ds)
        kept = schema_for(ds)
        _remember(store, key, kept)
    return _fit_roles(kept, ds)


def _from_chosen(ds: Dataset, store: dict) -> "PublicSchema | None":
    """The reviewed schema of the chosen table restricted to ``ds``'s columns, when ``ds`` is
    derived from it (same name, a subset of its columns: fewer rows, a column subset).

    Entries say what is public about a column, whatever rows a page keeps, so a page that
    works on part of the chosen table uses the schema the user reviewed for it. Not stored:
    a later change on the Data page shows at once.
    """
    from dataclasses import replace

    chosen = st.session_state.get(DATASET_KEY)
    if (not isinstance(chosen, Dataset) or chosen is ds or chosen.name != ds.name
            or ds.n_rows > chosen.n_rows):
        return None
    cols = list(ds.frame.columns)
    if not set(cols) <= set(chosen.frame.columns):
        return None
    parent = store.get(schema_key(chosen))
    if parent is None:  # the Data page has not drawn it yet (a link): the chosen table's schema
        parent = current_schema(chosen)
    if parent is None or not set(cols) <= set(parent.names):
        return None
    return replace(parent, columns=tuple(parent[c] for c in cols), label=None, sensitive=())


def _remember(store: dict, key: str, schema: "PublicSchema") -> None:
    store.pop(key, None)
    store[key] = schema
    while len(store) > _MAX_SCHEMAS:  # the oldest table's schema goes first
        store.pop(next(iter(store)))


def set_schema(schema: "PublicSchema", dataset: Dataset | None = None) -> None:
    """Keep ``schema`` (reviewed on the Data page) for ``dataset`` (default the current one).

    Raises
    ------
    TypeError
        ``schema`` is not a PublicSchema.
    ValueError
        Its columns are not the table's.
    """
    from core.privacy.schema import PublicSchema

    if not isinstance(schema, PublicSchema):
        raise TypeError(f"schema must be a PublicSchema, got {type(schema).__name__}.")
    ds = current_dataset() if dataset is None else dataset
    if schema.names != list(ds.frame.columns):
        raise ValueError("The schema's columns are not the table's: it describes another table.")
    _remember(_schemas(), schema_key(ds), schema)
    st.session_state[SCHEMA_VERSION_KEY] = schema_version() + 1


def schema_version() -> int:
    """How many times this session's schemas were set (widgets key on it)."""
    return int(st.session_state.get(SCHEMA_VERSION_KEY, 0))


#: the Data page's identifier marks, by :func:`schema_key` of the table (kept per dataset)
IDENTIFIERS_KEY = "pux_identifiers"


def identifiers_widget_key(dataset: Dataset) -> str:
    """The key of the Data page's identifier picker for ``dataset``'s table."""
    return f"data_identifiers_{schema_key(dataset)}"


def marked_identifiers(dataset: Dataset) -> tuple[str, ...] | None:
    """The identifier columns the user marked on the Data page for ``dataset``'s table, or
    None when the user has not changed what loading found."""
    store = st.session_state.get(IDENTIFIERS_KEY)
    kept = store.get(schema_key(dataset)) if isinstance(store, dict) else None
    return None if kept is None else tuple(c for c in kept if c in dataset.frame.columns)


def set_identifiers(dataset: Dataset, identifiers: Any) -> Dataset:
    """Mark ``identifiers`` as the identifier columns of ``dataset``'s table (the Data page's
    override, kept for this table for the session); returns the dataset with them, which
    becomes the chosen one when ``dataset`` is (or is the same table as) the chosen one.

    Raises
    ------
    DataError
        A column is not in the table, or has another role (label, sensitive).
    """
    new = dataset.with_identifiers(identifiers)
    store = st.session_state.get(IDENTIFIERS_KEY)
    if not isinstance(store, dict):
        store = st.session_state[IDENTIFIERS_KEY] = {}
    store[schema_key(dataset)] = tuple(new.identifiers)
    st.session_state.pop(identifiers_widget_key(dataset), None)  # the picker starts from the marks
    chosen = chosen_dataset()
    if chosen is not None and schema_key(chosen) == schema_key(dataset):
        set_dataset(new)
    return new


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
    from dashboard.data.cached import public_available, public_dataset, sample_dataset

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
    """'1,160 rows · label listed · sensitive none' for captions (names escaped for markdown),
    with ' · identifiers id (left out)' when the dataset marks any."""
    label = md(dataset.label) if dataset.label else "none"
    sensitive = ", ".join(md(s) for s in dataset.sensitive) or "none"
    text = f"{dataset.n_rows:,} rows · label {label} · sensitive {sensitive}"
    if dataset.identifiers:
        text += " · identifiers " + ", ".join(md(i) for i in dataset.identifiers) + " (left out)"
    return text


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
