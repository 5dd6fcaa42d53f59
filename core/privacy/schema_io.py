"""A public schema as JSON: what :meth:`PublicSchema.to_dict` writes and ``from_dict`` reads.

The JSON object holds ``version`` (:data:`SCHEMA_VERSION`), the table's ``name``, its
``label`` and ``sensitive`` columns, one entry per column (:meth:`ColumnSchema.to_dict`),
the declared ``max_group_size`` and, for an estimated schema, what the estimate cost
(``estimate``: its epsilon and delta, the spends' labels in ``entries`` and every spend in
``spends``, read back as the same ledger; a file written before ``spends`` existed is read as a
one-entry ledger of the same cost). Reading checks every key and type and says in one sentence
what is wrong; entries marked "private estimate" without the cost of estimating them (no
``estimate``, or no spend naming the column) are refused: a hand-edited source must not turn a
read of the rows into a paid one.
"""
from __future__ import annotations

import math
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
                           "entries": [e.label for e in schema.estimate.entries],
                           "spends": [{"label": e.label, "epsilon": e.epsilon, "delta": e.delta,
                                       "parallel_group": e.parallel_group, "noise": e.noise}
                                      for e in schema.estimate.entries]}
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


def _real(value: Any) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def _spends_ledger(spends: Any, eps: float, dlt: float) -> PrivacyLedger:
    """The ledger of an ``estimate``'s ``spends``; it must add up to the estimate's epsilon and delta."""
    if not isinstance(spends, list) or not spends or not all(
            isinstance(s, Mapping) and isinstance(s.get("label"), str) and _real(s.get("epsilon"))
            and _real(s.get("delta", 0.0)) for s in spends):
        raise ValueError("the schema's 'estimate' 'spends' must be a list of objects with a 'label' and a "
                         "number 'epsilon' (and 'delta').")
    ledger = PrivacyLedger()
    for s in spends:
        group = s.get("parallel_group")
        ledger.spend(float(s["epsilon"]), float(s.get("delta", 0.0)), label=s["label"],
                     parallel_group=None if group is None else str(group), noise=str(s.get("noise") or ""))
    total = ledger.nominal()
    if not (math.isclose(total[0], eps, rel_tol=1e-9) and math.isclose(total[1], dlt, rel_tol=1e-9, abs_tol=1e-15)):
        raise ValueError(f"the schema's 'estimate' says it cost epsilon = {eps:g}, delta = {dlt:g}, but its "
                         f"spends add up to epsilon = {total[0]:g}, delta = {total[1]:g}: save the schema "
                         "again from the Data page.")
    return ledger


def _estimate_ledger(est: Any) -> PrivacyLedger:
    """The ledger of a schema's ``estimate`` object (what the estimate cost): its spends, or one
    entry of its epsilon and delta for a file without ``spends``."""
    entries = est.get("entries", []) if isinstance(est, Mapping) else None
    if (not isinstance(est, Mapping) or not _real(est.get("epsilon")) or not _real(est.get("delta", 0.0))
            or not isinstance(entries, list)):
        raise ValueError("the schema's 'estimate' must be an object with a number "
                         "'epsilon', an optional number 'delta' and a list 'entries'.")
    eps, dlt = float(est["epsilon"]), float(est.get("delta", 0.0))
    if "spends" in est:
        return _spends_ledger(est["spends"], eps, dlt)
    estimate = PrivacyLedger()
    estimate.spend(eps, dlt, label="public schema estimate (" + "; ".join(map(str, entries)) + ")")
    return estimate


def _unpaid(data: Mapping[str, Any], columns: tuple[ColumnSchema, ...]) -> list[str]:
    """The entries marked "private estimate" whose cost the schema does not hold: all of them
    without an ``estimate`` of positive epsilon, else those no spend label names (``'col'``)."""
    estimated = [c.name for c in columns if c.source == "private estimate"]
    group = data.get("max_group_size") is not None and data.get("max_group_source") == "private estimate"
    if not estimated and not group:
        return []
    est = data.get("estimate")
    eps = est.get("epsilon") if isinstance(est, Mapping) else None
    if not _real(eps) or not math.isfinite(eps) or eps <= 0:
        return estimated + (["max_group_size"] if group else [])
    spends = est.get("spends") if isinstance(est.get("spends"), list) else []
    labels = " ".join([str(e) for e in est.get("entries") or [] if isinstance(est.get("entries"), list)]
                      + [str(s.get("label")) for s in spends if isinstance(s, Mapping)])
    return [c for c in estimated if f"'{c}'" not in labels]


def _check_paid(data: Mapping[str, Any], columns: tuple[ColumnSchema, ...]) -> None:
    """Refuse, in one sentence, entries marked "private estimate" whose cost is missing."""
    unpaid = _unpaid(data, columns)
    if unpaid:
        shown = ", ".join(f"'{c}'" for c in unpaid[:6]) + (f" and {len(unpaid) - 6} more" if len(unpaid) > 6 else "")
        raise ValueError(f"entries marked 'private estimate' need the estimate's cost (the schema's 'estimate': "
                         f"its epsilon and a spend naming each column), which this schema lacks for {shown}: "
                         "estimate them again on the Data page and save that schema, or mark them 'declared' "
                         "only if they are public knowledge.")


def schema_fields(data: Mapping[str, Any]) -> dict[str, Any]:
    """The arguments of :class:`~core.privacy.schema.PublicSchema` that ``data`` (its JSON
    object) describes; raises TypeError or ValueError, in one sentence, for a bad object."""
    _check_layout(data)
    columns = tuple(ColumnSchema.from_dict(c) for c in data["columns"])
    _check_paid(data, columns)
    estimate = _estimate_ledger(data["estimate"]) if data.get("estimate") else None
    return dict(
        columns=columns,
        label=data.get("label"),
        sensitive=tuple(data.get("sensitive", ())),
        max_group_size=data.get("max_group_size"),
        max_group_source=data.get("max_group_source", "declared"),
        name=str(data.get("name", "")),
        estimate=estimate,
    )
