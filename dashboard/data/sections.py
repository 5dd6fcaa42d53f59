"""The Data page's sections: the source, the table, its roles, preview, types and distributions.

The public data directory is the operator's (``PUX_DATA_DIR`` or ``pux dashboard
--data-dir``): the page says which public datasets are available, never a path. The
choices (source, sample, roles) live in ``pux_data_*`` session keys, so coming back from
another page restores them (widget keys are dropped by Streamlit when their page is not
shown). The one parsed upload of a session lives in ``st.session_state`` (parsed once,
freed with the session or when another file replaces it).
"""
from __future__ import annotations

from functools import partial

import streamlit as st

from core.data import MAX_UPLOAD_MB, SAMPLES, Dataset
from core.validation import DataError
from dashboard.shared.serving import datasets as cached
from dashboard.data.charts import column_distribution, column_distribution_data, missing_by_column, missing_data
from dashboard.shared.widgets.chart_data import show_chart
from dashboard.shared.widgets.job_view import with_estimate
from dashboard.shared.safe import md
from dashboard.shared.serving.state import (
    DATASET_KEY, PUBLIC, SAMPLE_KEY, SOURCE_KEY, SOURCES, roles_text, set_dataset,
)
from dashboard.shared.serving.schemas import (
    IDENTIFIERS_KEY, identifiers_widget_key, marked_identifiers, schema_key, set_schema,
)

#: Session keys that survive navigation (not widget keys).
MAX_ROWS_KEY = "pux_data_max_rows"
UPLOAD_KEY, DOWNLOAD_KEY = "pux_data_upload", "pux_data_download"


def _error(exc: BaseException) -> None:
    """One sentence, user text escaped; an unexpected failure never shows its message."""
    if isinstance(exc, (DataError, ValueError, TypeError)):
        st.error(md(exc), icon=":material/error:")
    else:
        st.error(
            f"The data could not be read ({type(exc).__name__}); the dataset in use is kept.",
            icon=":material/error:",
        )


def _restore(widget_key: str, store_key: str, options: list) -> None:
    """Give a widget its stored value back when the page is shown again."""
    if widget_key not in st.session_state and st.session_state.get(store_key) in options:
        st.session_state[widget_key] = st.session_state[store_key]


def _upload_dataset() -> Dataset | None:
    upload = st.file_uploader(
        f"CSV file (comma, semicolon, tab or | separated; first row = column names; at most "
        f"{MAX_UPLOAD_MB} MB)",
        type=["csv", "txt", "tsv"],
        key="data_upload",
    )
    if isinstance(st.session_state.get(MAX_ROWS_KEY), int):
        _restore("data_max_rows", MAX_ROWS_KEY, [st.session_state[MAX_ROWS_KEY]])
    max_rows = st.number_input(
        "Read at most this many rows (0 = all)", min_value=0, step=1000, key="data_max_rows",
    )
    st.session_state[MAX_ROWS_KEY] = int(max_rows)
    stored = st.session_state.get(UPLOAD_KEY)
    if upload is None:
        if stored and stored.get("dataset") is not None:
            st.caption(
                f"Using the file uploaded before: **{md(stored['dataset'].name)}**. Upload "
                "another file to replace it."
            )
            return stored["dataset"]
        st.info("Choose a file to upload. Only this app's server reads it: your own machine when you "
                "started it with `make run` (and the compute workers, if an operator set up a cluster); "
                "it is sent nowhere else.")
        return None
    key = (upload.file_id, int(max_rows))
    if not stored or stored.get("key") != key:
        # Parse once per file and row cap; the previous upload is dropped first.
        st.session_state.pop(UPLOAD_KEY, None)
        st.session_state.pop(DOWNLOAD_KEY, None)
        try:
            content = upload.getvalue()
            dataset = with_estimate(lambda: cached.parse_upload(content, upload.name, int(max_rows) or None),
                                    expected_s=cached.expected_read_seconds(len(content)),
                                    text=f"Reading {len(content) / 1e6:.0f} MB")
            stored = {"key": key, "dataset": dataset, "draft": dataset, "content": content,
                      "max_rows": int(max_rows) or None}
        except DataError as exc:
            stored = {"key": key, "dataset": None, "error": DataError(str(exc))}
        st.session_state[UPLOAD_KEY] = stored
    if stored.get("error") is not None:
        raise stored["error"]
    return stored["dataset"]


def reread_upload(schema, dataset: Dataset) -> Dataset:
    """``dataset`` read again from the upload's bytes by its reviewed ``schema`` once every entry
    is public, when it is this session's upload (else ``dataset`` itself, or the upload as first
    read while the schema still has entries read from the data).

    Under the project's relation a release depends on the file: once the schema is public,
    each data line is one record and each cell is read by its column's declared kind
    (:func:`core.privacy.schema_read.read_csv_by_schema`), so nothing inferred across rows
    (a column's type, an identifier found by its values) reaches a release. While entries
    are still read from the data the releases are not DP anyway and the draft's reading is
    kept (``pux compare`` and ``pux solve`` read a config the same way:
    :func:`core.privacy.schema_read.load_named_by_schema`). The schema is kept for the new
    table too, and it becomes the chosen dataset.
    """
    from core.privacy.schema_read import read_csv_by_schema

    stored = st.session_state.get(UPLOAD_KEY)
    if (st.session_state.get(SOURCE_KEY) != SOURCES[1] or not isinstance(stored, dict)
            or stored.get("content") is None or stored.get("dataset") is None
            or stored["dataset"].name != dataset.name):
        return dataset
    if schema.is_public():
        new = read_csv_by_schema(stored["content"], schema, label=dataset.label, sensitive=dataset.sensitive,
                                 name=dataset.name, max_rows=stored.get("max_rows"))
    else:
        new = stored.get("draft", stored["dataset"]).with_roles(label=dataset.label, sensitive=dataset.sensitive)
    stored["dataset"] = new
    set_schema(schema, new)
    set_dataset(new)
    return new


def _public(source: str) -> Dataset:
    key, title = PUBLIC[source]
    if not cached.public_available()[key]:
        raise DataError(
            f"{title} is not available on this server: its files have not been provided "
            "(the operator sets PUX_DATA_DIR or starts the app with pux dashboard --data-dir)."
        )
    return cached.public_dataset(key)


def _download_bytes(dataset: Dataset, from_upload: bool) -> bytes:
    """CSV bytes: uploads in this session only (freed with it), the rest from the cache."""
    if not from_upload:
        return cached.csv_download(dataset)
    stored = st.session_state.get(DOWNLOAD_KEY)
    if not stored or stored[0] != dataset.fingerprint():
        stored = (dataset.fingerprint(), cached.csv_bytes(dataset))
        st.session_state[DOWNLOAD_KEY] = stored
    return stored[1]


def _identifier_picker(where, loaded: Dataset, label: str | None, sensitive: list[str]) -> tuple[str, ...]:
    """The identifier columns of ``loaded``'s table: what loading found, or what the user
    marked for this table (kept per table for the session); a column with a role is none."""
    roles = {label, *sensitive} - {None}
    marked = marked_identifiers(loaded)
    start = list(loaded.identifiers if marked is None else marked)
    key = identifiers_widget_key(loaded)
    now = st.session_state.get(key)
    if isinstance(now, list) and any(c in roles for c in now):  # a role given wins
        st.session_state[key] = [c for c in now if c not in roles]
    default = None if key in st.session_state else [c for c in start if c not in roles]
    picked = where.multiselect(
        "Identifiers (left out)", list(loaded.frame.columns), default=default,
        key=key, placeholder="none",
        help="Columns that say which record a row is (a row number, an ID, a key): no page uses "
        "them as a feature, synthesizes, attacks or publishes them. Found on loading: a different "
        "value in every row, text or whole numbers (never a number with decimals). Remove a "
        "column to use it as data; add one the rule missed.",
    )
    ids = tuple(c for c in loaded.frame.columns if c in set(picked) and c not in roles)
    if marked is None and ids == tuple(c for c in loaded.identifiers if c not in roles):
        return ids  # what loading found: nothing to keep
    if marked != ids:
        store = st.session_state.setdefault(IDENTIFIERS_KEY, {})
        store[schema_key(loaded)] = ids
    return ids


def _identifier_line(dataset: Dataset, loaded: Dataset) -> None:
    """One line naming the identifier columns in use (and whether loading found them)."""
    ids = dataset.identifiers
    found = set(loaded.identifiers) - {dataset.label, *dataset.sensitive}
    if ids:
        names = ", ".join(f"'{md(c)}'" for c in ids)
        how = "found on loading" if set(ids) <= found else "marked by you"
        st.info(f"Identifier column{'s' if len(ids) > 1 else ''} {how}: {names}. Left out of features, "
                "synthesis, attacks and releases on every page; change it with 'Identifiers (left out)'.",
                icon=":material/badge:")
    elif found:
        st.caption("No identifier column: you marked " + ", ".join(f"'{md(c)}'" for c in sorted(found))
                   + " as data.")
    else:
        st.caption("No identifier column found (a row number, an ID or a key would be left out of "
                   "every method); mark one with 'Identifiers (left out)' if the rule missed it.")


def choose_source() -> str:
    """The source radio (sample, upload, public), restored when the page is shown again."""
    _restore("data_source", SOURCE_KEY, SOURCES)
    source = st.radio("Source", SOURCES, horizontal=True, key="data_source")
    st.session_state[SOURCE_KEY] = source
    return source


def _sample() -> Dataset:
    _restore("data_sample", SAMPLE_KEY, list(SAMPLES))
    # the name only in the box (a column beside the chart is narrow), what it is under it
    name = st.selectbox("Sample", list(SAMPLES), key="data_sample")
    st.caption(md(SAMPLES[name]["description"]))
    st.session_state[SAMPLE_KEY] = name
    return cached.sample_dataset(name)


def _public_choice(source: str) -> Dataset:
    avail = cached.public_available()
    shown = [f"{title} ({'available' if avail[k] else 'not provided'})" for k, title in PUBLIC.values()]
    st.caption(
        "Public datasets on this server: " + ", ".join(shown) + ". The server's operator "
        "provides them; choosing one loads it."
    )
    return _public(source)


def load_table(source: str) -> Dataset | None:
    """The table of ``source`` as loaded (no roles yet); None when there is none, and one
    sentence instead of a traceback when it cannot be read (the dataset in use is kept)."""
    try:
        if source == SOURCES[0]:
            return _sample()
        if source == SOURCES[1]:
            return _upload_dataset()
        return _public_choice(source)
    except Exception as exc:  # noqa: BLE001 - one sentence, the page stays alive
        _error(exc)
        previous = st.session_state.get(DATASET_KEY)
        if isinstance(previous, Dataset):
            st.info(f"Still using the dataset loaded before: **{md(previous.name)}**.")
        return None


def _same_data(current, loaded: Dataset) -> bool:
    return (isinstance(current, Dataset) and current.name == loaded.name
            and (current.frame is loaded.frame or current.frame.equals(loaded.frame)))


def role_options(columns: list[str], identifiers, *, keep=()) -> list[str]:
    """The columns a label can be: every column but the identifiers (a row number or an ID is
    nothing to predict; take it out of 'Identifiers (left out)' first to use it), keeping
    ``keep`` (the label already given) where it is one."""
    keep = {keep} if isinstance(keep, str) else set(keep or ())
    ids = set(identifiers) - keep
    return [c for c in columns if c not in ids]


def _current_identifiers(loaded: Dataset) -> tuple[str, ...]:
    """The identifiers of ``loaded``'s table as last chosen (or as loading found them)."""
    key = identifiers_widget_key(loaded)
    now = st.session_state.get(key)
    if isinstance(now, list):
        return tuple(now)
    marked = marked_identifiers(loaded)
    return tuple(loaded.identifiers if marked is None else marked)


def _role_widgets(loaded: Dataset, base: Dataset) -> tuple[str | None, list[str], tuple[str, ...]]:
    """Label, sensitive attributes and identifiers, one above the other (in the column beside
    the distribution chart)."""
    cols = list(loaded.frame.columns)
    c1 = c2 = c3 = st.container()
    label_options = ["(none)"] + role_options(cols, _current_identifiers(loaded), keep=base.label)
    label = c1.selectbox(
        "Label (predicted)",
        label_options,
        index=label_options.index(base.label) if base.label in label_options else 0,
        key=f"data_label_{loaded.name}",
    )
    sensitive = c2.multiselect(
        "Sensitive attributes",
        cols,
        default=[s for s in base.sensitive if s in cols],
        key=f"data_sensitive_{loaded.name}",
    )
    label = None if label == "(none)" else label
    return label, sensitive, _identifier_picker(c3, loaded, label, sensitive)


def set_roles(loaded: Dataset) -> Dataset:
    """The roles section: the dataset every page now uses (the one before when the roles break a rule)."""
    current = st.session_state.get(DATASET_KEY)
    same_data = _same_data(current, loaded)
    base = current if same_data else loaded
    label, sensitive, identifiers = _role_widgets(loaded, base)
    try:
        if (same_data and current.label == label and current.sensitive == tuple(sensitive)
                and current.identifiers == identifiers):
            dataset = current  # unchanged: keep the object (and its cached fingerprint)
        else:
            dataset = loaded.with_roles(label=label, sensitive=sensitive, identifiers=identifiers)
            set_dataset(dataset)
        st.success(
            f"Using **{md(dataset.name)}**: {dataset.frame.shape[1]} columns · "
            f"{roles_text(dataset)}."
        )
    except (DataError, ValueError) as exc:
        _error(exc)
        dataset = base
        if not same_data:
            set_dataset(base)
        st.info(f"Roles kept as before: {roles_text(base)}.")
    _identifier_line(dataset, loaded)
    for note in dataset.notes:
        if not (note.startswith("Column '") and "marked as an identifier" in note):  # said above
            st.info(md(note), icon=":material/info:")
    return dataset


def preview(dataset: Dataset) -> None:
    """The first rows."""
    st.subheader("Preview")
    st.dataframe(dataset.frame.head(200), width="stretch", hide_index=True)


def column_types(dataset: Dataset, *, from_upload: bool) -> None:
    """The column types and the download of the table as read."""
    st.subheader("Column types")
    st.dataframe(dataset.schema(), width="stretch", hide_index=True)
    st.download_button(
        "Download the table as read (CSV)",
        data=_download_bytes(dataset, from_upload),
        file_name=f"{dataset.name}.csv",
        mime="text/csv",
        help="The table as the methods see it, after the repairs listed above; cells that "
        "a spreadsheet would run as formulas get a leading quote.",
        key="data_download",
    )


def distribution(dataset: Dataset) -> None:
    """One column's distribution (the page's first chart, beside the table's roles), and the
    share of empty cells when there are any."""
    cols = list(dataset.frame.columns)
    # identifiers last: a row number's distribution says nothing (every value once)
    dist_cols = [c for c in cols if c not in dataset.identifiers] + [c for c in cols if c in dataset.identifiers]
    col = st.selectbox("Distribution of", dist_cols, key=f"data_dist_col_{dataset.name}")
    show_chart(column_distribution(dataset, col), partial(column_distribution_data, dataset, col),
               name=f"data-distribution-{col}", key="data_dist_chart", width="stretch")
    st.caption("Bars count rows per value (coloured by the label): look for rare values and skew.")
    if dataset.frame.isna().any().any():
        show_chart(missing_by_column(dataset), partial(missing_data, dataset), name="data-missing-share",
                   key="data_missing_chart", width="stretch")
        st.caption("Share of empty cells per column; the methods fill them (median / most common value) or drop those rows.")
