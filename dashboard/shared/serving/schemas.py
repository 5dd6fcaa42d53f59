"""The reviewed public schema of each table of the session, and the identifier columns marked on it.

A page builds its encoders, bounds and queries from :func:`current_schema`, never from the
rows. A draft is made once per table and kept; an estimate is drawn once and kept; the
roles every page starts from (:func:`role_defaults`) are read from the schema.
"""
from __future__ import annotations

from typing import Any

import streamlit as st

from core.data import Dataset
from core.privacy.schema import PublicSchema
from dashboard.shared.serving.cache import BoundedCache
from dashboard.shared.serving.state import DATASET_KEY, chosen_dataset, current_dataset, set_dataset


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
#: table keys by dataset fingerprint, hashed once (the 256 latest tables of the server)
_TABLE_KEYS = BoundedCache(256)


def schema_key(dataset: Dataset) -> str:
    """A key for ``dataset``'s table that ignores its roles (name, columns and values).

    Changing the label or the sensitive columns keeps the reviewed schema; another table
    (another upload, another sample) gets its own. Hashed once per dataset object's
    fingerprint (a Dataset is immutable).
    """
    import hashlib

    import pandas as pd

    fp = dataset.fingerprint()
    key = _TABLE_KEYS.get(fp)
    if key is None:
        h = hashlib.sha1()
        h.update(pd.util.hash_pandas_object(dataset.frame, index=False).values.tobytes())
        h.update(repr((dataset.name, list(dataset.frame.columns))).encode())
        key = h.hexdigest()[:16]
        _TABLE_KEYS.put(fp, key)
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

    from core.privacy.schema_draft import draft_schema
    from core.privacy.schema_columns import ColumnSchema

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
    built-in dataset or a draft read from the data (:func:`core.privacy.schema_builtin.schema_for`,
    made once per table and kept in the session), always with the dataset's roles. Every
    page builds its encoders, bounds and queries from it, never from the rows; a draft's
    entries say "read from data", so releases built on them say they are not DP.
    """
    from core.privacy.schema import PublicSchema
    from core.privacy.schema_builtin import schema_for

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
    # the chosen table's schema with its roles, as the Data page shows it: a column the user
    # marked as an identifier is one here too (the stored draft holds it as a feature), so a
    # page counts the entries the Data page counts
    parent = current_schema(chosen)
    if parent is None or not set(cols) <= set(parent.names):
        return None
    # The identifier entries stay (their columns are left out of ``ds``): which columns a
    # release leaves out is part of what it depends on, so a role read from the rows must
    # reach PublicSchema.charge, which marks the release not DP until it is confirmed.
    ids = [c.name for c in parent.columns if c.kind == "identifier" and c.name not in cols]
    kept = [c for c in parent.columns if c.name in set(cols) | set(ids)]
    return replace(parent, columns=tuple(kept), label=None, sensitive=())



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
