"""A public schema as JSON: what :meth:`PublicSchema.to_dict` writes and ``from_dict`` reads.

The JSON object holds ``version`` (:data:`SCHEMA_VERSION`), the table's ``name``, its
``label`` and ``sensitive`` columns, one entry per column (:meth:`ColumnSchema.to_dict`),
the declared ``max_group_size`` and, for an estimated schema, what the estimate cost
(``estimate``: epsilon, delta and the spends' labels, read back as a one-entry ledger).
Reading checks every key and type and says in one sentence what is wrong.
"""
from __future__ import annotations

import numbers
from typing import Any, Mapping

from core.privacy.ledger import PrivacyLedger
from core.privacy.schema_columns import ColumnSchema

__all__ = ["SCHEMA_VERSION", "schema_to_dict", "schema_fields"]

#: The ``version`` of the schema JSON this app writes and reads.
SCHEMA_VERSION = 1
_KEYS = {"version", "name", "label", "sensitive", "columns", "max_group_size",
         "max_group_source", "estimate"}


def schema_to_dict(schema: Any) -> dict[str, Any]:
    """The JSON object of a :class:`~core.privacy.schema.PublicSchema`."""
    out: dict[str, Any] = {
        "version": SCHEMA_VERSION,
        "name": schema.name,
        "label": schema.label,
        "sensitive": list(schema.sensitive),
        "columns": [c.to_dict() for c in schema.columns],
    }
    if schema.max_group_size is not None:
        out["max_group_size"] = int(schema.max_group_size)
        out["max_group_source"] = schema.max_group_source
    if schema.estimate is not None and len(schema.estimate):
        eps, dlt = schema.estimate.nominal()
        out["estimate"] = {"epsilon": eps, "delta": dlt,
                           "entries": [e.label for e in schema.estimate.entries]}
    return out


def _check_layout(data: Any) -> None:
    """The keys and the types of the schema's top-level entries, or a ValueError."""
    if not isinstance(data, Mapping):
        raise TypeError(f"a schema must be a JSON object, got {type(data).__name__}.")
    version = data.get("version", SCHEMA_VERSION)
    if version != SCHEMA_VERSION:
        newer = isinstance(version, int) and not isinstance(version, bool) and version > SCHEMA_VERSION
        todo = ("upgrade the project (git pull, make setup) to read it" if newer
                else f'save the schema again from the Data page, or set "version": {SCHEMA_VERSION}')
        raise ValueError(f"schema version {version!r} is not read by this version of the app (it reads "
                         f"{SCHEMA_VERSION}): {todo}.")
    extra = sorted(set(data) - _KEYS)
    if extra:
        raise ValueError(f"unknown key(s) {extra} in the schema; allowed: {sorted(_KEYS)}.")
    if not isinstance(data.get("columns"), list):
        raise ValueError("a schema needs 'columns', a list of column entries.")
    if data.get("label") is not None and not isinstance(data.get("label"), str):
        raise ValueError("the schema's 'label' must be a column name or null.")
    sensitive = data.get("sensitive", [])
    if not isinstance(sensitive, list) or not all(isinstance(c, str) for c in sensitive):
        raise ValueError("the schema's 'sensitive' must be a list of column names.")


def _estimate_ledger(est: Any) -> PrivacyLedger:
    """The one-entry ledger of a schema's ``estimate`` object (what the estimate cost)."""
    entries = est.get("entries", []) if isinstance(est, Mapping) else None
    if (not isinstance(est, Mapping) or isinstance(est.get("epsilon"), bool)
            or not isinstance(est.get("epsilon"), numbers.Real)
            or not isinstance(est.get("delta", 0.0), numbers.Real)
            or not isinstance(entries, list)):
        raise ValueError("the schema's 'estimate' must be an object with a number "
                         "'epsilon', an optional number 'delta' and a list 'entries'.")
    estimate = PrivacyLedger()
    estimate.spend(float(est["epsilon"]), float(est.get("delta", 0.0)),
                   label="public schema estimate (" + "; ".join(map(str, entries)) + ")")
    return estimate


def schema_fields(data: Mapping[str, Any]) -> dict[str, Any]:
    """The arguments of :class:`~core.privacy.schema.PublicSchema` that ``data`` (its JSON
    object) describes; raises TypeError or ValueError, in one sentence, for a bad object."""
    _check_layout(data)
    estimate = _estimate_ledger(data["estimate"]) if data.get("estimate") else None
    return dict(
        columns=tuple(ColumnSchema.from_dict(c) for c in data["columns"]),
        label=data.get("label"),
        sensitive=tuple(data.get("sensitive", ())),
        max_group_size=data.get("max_group_size"),
        max_group_source=data.get("max_group_source", "declared"),
        name=str(data.get("name", "")),
        estimate=estimate,
    )
