"""The public schema: what a release may know about a table without reading its rows.

A differentially private release may depend on the private records only through noisy
measurements its ledger pays for (docs/design.md section 2.1). Everything else it needs --
the category list of a column, the bounds that clip and scale a number, which columns are
the label, the sensitive attribute or an identifier, a bound on paper 000's correlated
group -- must come from somewhere else. :class:`PublicSchema` holds those facts, one
:class:`ColumnSchema` per column, each with its ``source``:

* ``"declared"`` -- the user said it is public knowledge (a codebook, a questionnaire);
* ``"built-in"`` -- shipped with a built-in dataset, from its generator or its published
  documentation, never from its rows;
* ``"private estimate"`` -- estimated from the rows with part of the budget (private
  quantiles, thresholded category discovery); the schema's :attr:`PublicSchema.estimate`
  ledger says what it cost;
* ``"read from data"`` -- drafted from the rows for exploration (:func:`draft_schema`). A
  release that uses such an entry is **not differentially private**, and
  :meth:`PublicSchema.charge` says so in its ledger, in one sentence.

Encoders, scalers, bins and query ranges are built from the schema
(:meth:`PublicSchema.conform` maps any record into the declared domain, record by record:
numbers clipped to their bounds, missing numbers to a declared fill, categories outside the
list to :data:`OTHER`), so that a record can never add a category or stretch a range.
"""
from __future__ import annotations

import json
import math
import numbers
from dataclasses import dataclass, field, replace
from typing import Any, Iterable, Mapping, Sequence

import numpy as np
import pandas as pd

from core.data.dataset import Dataset
from core.privacy.mechanisms import PrivacyLedger
from core.validation import DataError

__all__ = [
    "KINDS",
    "SOURCES",
    "OTHER",
    "ColumnSchema",
    "PublicSchema",
    "draft_schema",
    "schema_for",
    "BUILT_IN_SCHEMAS",
    "TABLE_COLUMNS",
]

#: What a column is: a number with bounds, a category from a list, or an identifier
#: (a row number, a name, an ID: never a feature, never published).
KINDS = ("numeric", "categorical", "identifier")
#: Where an entry came from; only "read from data" breaks a DP guarantee.
SOURCES = ("declared", "built-in", "private estimate", "read from data")
#: The category that every value outside a declared list (and a missing one) becomes.
OTHER = "(other)"
SCHEMA_VERSION = 1
#: The columns of :meth:`PublicSchema.to_frame`, the table the Data page edits.
TABLE_COLUMNS = ("column", "kind", "lower", "upper", "categories", "source", "note")


def _check_str(value: Any, name: str) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a str, got {type(value).__name__}.")
    return value


def _check_choice(value: Any, name: str, options: Sequence[str]) -> str:
    _check_str(value, name)
    if value not in options:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, options))}; got {value!r}.")
    return value


def _finite(value: Any, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a number, got {type(value).__name__}.")
    out = float(value)
    if not math.isfinite(out):
        raise ValueError(f"{name} must be a finite number, got {value!r}.")
    return out


def _plain(value: Any) -> Any:
    """A JSON-friendly scalar (numpy numbers to Python ones)."""
    if isinstance(value, np.generic):
        return value.item()
    return value


@dataclass(frozen=True)
class ColumnSchema:
    """What is public about one column.

    Parameters
    ----------
    name : str
        The column's name in the table.
    kind : {"numeric", "categorical", "identifier"}
        An identifier is never used as a feature nor published.
    lower, upper : float or None
        For a numeric column: the public range. Values outside it are clipped to it
        before any computation, so one record cannot stretch a scale or a sensitivity.
    categories : tuple or None
        For a categorical column: the public list of values. A value outside it (and a
        missing one) becomes :data:`OTHER`, so one record cannot bring a new category.
    integer : bool
        A numeric column of whole numbers (releases round back to integers).
    source : {"declared", "built-in", "private estimate", "read from data"}
        Where the entry came from. "read from data" makes every release that uses it not
        differentially private.
    note : str
        Where a declared or built-in entry comes from, in words (a codebook, a top-code).
    """

    name: str
    kind: str
    lower: float | None = None
    upper: float | None = None
    categories: tuple | None = None
    integer: bool = False
    source: str = "declared"
    note: str = ""

    def __post_init__(self) -> None:
        _check_str(self.name, "name")
        _check_choice(self.kind, "kind", KINDS)
        _check_choice(self.source, "source", SOURCES)
        _check_str(self.note, "note")
        if self.kind == "numeric":
            if self.lower is None or self.upper is None:
                raise ValueError(f"numeric column '{self.name}' needs a lower and an upper bound.")
            lo = _finite(self.lower, f"lower bound of '{self.name}'")
            hi = _finite(self.upper, f"upper bound of '{self.name}'")
            if not lo < hi:
                raise ValueError(
                    f"the lower bound of '{self.name}' must be below its upper bound "
                    f"(got {lo:g} and {hi:g})."
                )
            object.__setattr__(self, "lower", lo)
            object.__setattr__(self, "upper", hi)
            if self.categories is not None:
                raise ValueError(f"numeric column '{self.name}' cannot have categories.")
        elif self.kind == "categorical":
            if self.categories is None:
                raise ValueError(f"categorical column '{self.name}' needs its list of categories.")
            cats = tuple(_plain(c) for c in self.categories)
            if len(cats) < 1:
                raise ValueError(f"categorical column '{self.name}' needs at least one category.")
            if len(set(map(str, cats))) != len(cats):
                raise ValueError(f"the categories of '{self.name}' must be distinct.")
            if any(isinstance(c, float) and math.isnan(c) for c in cats):
                raise ValueError(f"the categories of '{self.name}' cannot include a missing value.")
            object.__setattr__(self, "categories", cats)
            if self.lower is not None or self.upper is not None:
                raise ValueError(f"categorical column '{self.name}' cannot have bounds.")
        else:
            if self.lower is not None or self.upper is not None or self.categories is not None:
                raise ValueError(f"identifier column '{self.name}' has no bounds or categories.")
        object.__setattr__(self, "integer", bool(self.integer))

    @property
    def public(self) -> bool:
        """True unless the entry was read from the private rows."""
        return self.source != "read from data"

    @property
    def fill(self) -> float:
        """The value a missing number takes: the middle of the public range (never a median)."""
        if self.kind != "numeric":
            raise ValueError(f"'{self.name}' is not numeric.")
        mid = 0.5 * (self.lower + self.upper)
        return float(round(mid)) if self.integer else mid

    @property
    def domain(self) -> tuple:
        """The categories a release can contain: the declared list, then :data:`OTHER`."""
        if self.kind != "categorical":
            raise ValueError(f"'{self.name}' is not categorical.")
        return self.categories if OTHER in self.categories else self.categories + (OTHER,)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "kind": self.kind, "source": self.source}
        if self.kind == "numeric":
            out.update(lower=self.lower, upper=self.upper, integer=self.integer)
        if self.kind == "categorical":
            out["categories"] = list(self.categories)
        if self.note:
            out["note"] = self.note
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "ColumnSchema":
        if not isinstance(data, Mapping):
            raise TypeError(f"a column entry must be a JSON object, got {type(data).__name__}.")
        allowed = {"name", "kind", "lower", "upper", "categories", "integer", "source", "note"}
        extra = sorted(set(data) - allowed)
        if extra:
            raise ValueError(f"unknown key(s) {extra} in the entry of column {data.get('name')!r}; "
                             f"allowed: {sorted(allowed)}.")
        if "name" not in data or "kind" not in data:
            raise ValueError("every column entry needs 'name' and 'kind'.")
        cats = data.get("categories")
        if cats is not None and not isinstance(cats, (list, tuple)):
            raise TypeError(f"categories of {data['name']!r} must be a list.")
        return cls(
            name=data["name"], kind=data["kind"], lower=data.get("lower"), upper=data.get("upper"),
            categories=None if cats is None else tuple(cats), integer=data.get("integer", False),
            source=data.get("source", "declared"), note=data.get("note", ""),
        )


@dataclass(frozen=True)
class PublicSchema:
    """The public facts about a table that every release may use for free.

    Parameters
    ----------
    columns : tuple of ColumnSchema
        One entry per column of the table, in its order.
    label : str or None
        The column a model predicts.
    sensitive : tuple of str
        The columns whose values must not be learnable.
    max_group_size : int or None
        Paper 000: a declared bound on how many records one record is correlated with
        (itself included). The DP readings of CDP-LR and count publishing take the
        correlated sensitivity from it instead of from the rows. None: not declared.
    max_group_source : str
        Where ``max_group_size`` came from (one of :data:`SOURCES`).
    name : str
        Which table the schema describes (display only).
    estimate : PrivacyLedger or None
        What estimating the "private estimate" entries cost; charged to every release that
        uses them.
    """

    columns: tuple[ColumnSchema, ...]
    label: str | None = None
    sensitive: tuple[str, ...] = ()
    max_group_size: int | None = None
    max_group_source: str = "declared"
    name: str = ""
    estimate: PrivacyLedger | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        cols = tuple(self.columns)
        for c in cols:
            if not isinstance(c, ColumnSchema):
                raise TypeError(f"columns must hold ColumnSchema entries, got {type(c).__name__}.")
        names = [c.name for c in cols]
        if len(set(names)) != len(names):
            raise ValueError("each column may appear only once in a schema.")
        object.__setattr__(self, "columns", cols)
        object.__setattr__(self, "sensitive", tuple(self.sensitive))
        kinds = {c.name: c.kind for c in cols}
        for role, col in [("label", self.label), *[("sensitive", s) for s in self.sensitive]]:
            if col is None:
                continue
            if col not in kinds:
                raise ValueError(f"the {role} column '{col}' is not in the schema.")
            if kinds[col] == "identifier":
                raise ValueError(f"the {role} column '{col}' cannot be an identifier.")
        if self.label is not None and self.label in self.sensitive:
            raise ValueError(f"'{self.label}' cannot be both the label and sensitive.")
        if self.max_group_size is not None:
            if isinstance(self.max_group_size, bool) or not isinstance(self.max_group_size, numbers.Integral):
                raise TypeError("max_group_size must be an int (records per correlated group).")
            if self.max_group_size < 1:
                raise ValueError("max_group_size must be at least 1 (a record is in its own group).")
        _check_choice(self.max_group_source, "max_group_source", SOURCES)
        if self.estimate is not None and not isinstance(self.estimate, PrivacyLedger):
            raise TypeError("estimate must be a PrivacyLedger or None.")

    # ------------------------------------------------------------------ lookups
    @property
    def names(self) -> list[str]:
        return [c.name for c in self.columns]

    def __contains__(self, name: object) -> bool:
        return name in self.names

    def __getitem__(self, name: str) -> ColumnSchema:
        for c in self.columns:
            if c.name == name:
                return c
        raise KeyError(f"'{name}' is not in the schema.")

    @property
    def features(self) -> list[str]:
        """Every column a model or a release may use: not the label, not an identifier."""
        return [c.name for c in self.columns if c.kind != "identifier" and c.name != self.label]

    @property
    def identifiers(self) -> list[str]:
        return [c.name for c in self.columns if c.kind == "identifier"]

    @property
    def numeric(self) -> list[str]:
        return [c.name for c in self.columns if c.kind == "numeric"]

    @property
    def categorical(self) -> list[str]:
        return [c.name for c in self.columns if c.kind == "categorical"]

    def bounds(self, columns: Iterable[str] | None = None) -> dict[str, tuple[float, float]]:
        """Public (lower, upper) of the numeric columns among ``columns`` (default all)."""
        wanted = self.names if columns is None else list(columns)
        return {c: (self[c].lower, self[c].upper) for c in wanted if self[c].kind == "numeric"}

    def read_from_data(self, columns: Iterable[str] | None = None) -> list[str]:
        """The columns among ``columns`` (default all) whose entry was read from the rows."""
        wanted = self.names if columns is None else list(columns)
        return [c for c in wanted if c in self and not self[c].public]

    def is_public(self, columns: Iterable[str] | None = None) -> bool:
        """True when no entry among ``columns`` (default all) was read from the rows."""
        return not self.read_from_data(columns)

    # ------------------------------------------------------------------ privacy
    def not_dp_reason(self, columns: Iterable[str] | None = None) -> str | None:
        """One sentence when an entry among ``columns`` was read from the rows, else None."""
        read = self.read_from_data(columns)
        if not read:
            return None
        shown = ", ".join(f"'{c}'" for c in read[:6]) + (f" and {len(read) - 6} more" if len(read) > 6 else "")
        return (f"Bounds or categories read from your data ({shown}): confirm them as public "
                "knowledge or let the app estimate them with part of epsilon.")

    def charge(self, ledger: PrivacyLedger, columns: Iterable[str] | None = None, *,
               group_size: bool = False) -> PrivacyLedger:
        """Put what using this schema means into ``ledger`` (returned, for chaining).

        Entries read from the rows mark the release not DP; private estimates add the
        estimate's spends; declared and built-in entries are listed as assumptions (what the
        user vouches for). ``group_size=True`` does the same for ``max_group_size``.
        """
        cols = self.names if columns is None else [c for c in columns if c in self]
        reason = self.not_dp_reason(cols)
        if reason:
            ledger.mark_not_dp(reason)
        # Which columns a release leaves out as identifiers decides what it holds: a role
        # found by reading the rows (every value distinct) is itself a read of the data.
        found = [c for c in self.identifiers if c not in cols and not self[c].public]
        if found:
            ledger.mark_not_dp(
                "Which columns are identifiers (left out: " + ", ".join(f"'{c}'" for c in found[:6])
                + ") was read from your data: confirm it on the Data page.")
        if any(self[c].source == "private estimate" for c in cols) and self.estimate is not None:
            ledger.extend(self.estimate, prefix="public schema estimate")
        declared = [c for c in cols if self[c].source in ("declared", "built-in")]
        if declared:
            where = "shipped with the dataset" if all(self[c].source == "built-in" for c in declared) \
                else "declared public by the user"
            ledger.assume(f"The bounds and category lists of {len(declared)} column(s) are {where}, "
                          "not read from the records.")
        if group_size:
            if self.max_group_size is None:
                ledger.mark_not_dp("No bound on the correlated group size is declared, so the "
                                   "correlated sensitivity would have to be read from the records.")
            elif self.max_group_source == "read from data":
                ledger.mark_not_dp("The correlated group size bound was read from your data.")
            else:
                ledger.assume(f"One record is correlated with at most {self.max_group_size} records "
                              "(itself included), as declared.")
        return ledger

    # ------------------------------------------------------------------ records into the domain
    def conform(self, frame: pd.DataFrame, columns: Iterable[str] | None = None) -> pd.DataFrame:
        """``frame``'s ``columns`` mapped into the public domain, one record at a time.

        Numbers are clipped to their bounds and a missing number becomes the middle of the
        range; a category outside the list (or missing) becomes :data:`OTHER`. Nothing
        depends on other records, so one replaced record changes one row of the result.
        Identifier columns are dropped.
        """
        if not isinstance(frame, pd.DataFrame):
            raise TypeError(f"frame must be a DataFrame, got {type(frame).__name__}.")
        wanted = [c for c in (self.names if columns is None else list(columns))
                  if self[c].kind != "identifier"]
        missing = [c for c in wanted if c not in frame.columns]
        if missing:
            raise DataError(f"The table has no column {missing[0]!r}, which the schema lists.")
        out = {}
        for name in wanted:
            spec = self[name]
            s = frame[name]
            if spec.kind == "numeric":
                v = pd.to_numeric(s, errors="coerce").to_numpy(dtype=np.float64)
                v = np.where(np.isnan(v), spec.fill, v)
                out[name] = np.clip(v, spec.lower, spec.upper)
            else:
                allowed = {str(c): c for c in spec.categories}
                values = s.astype(object).to_numpy()
                out[name] = np.array(
                    [allowed.get(str(v), OTHER) if not _missing(v) else OTHER for v in values],
                    dtype=object,
                )
        return pd.DataFrame(out, index=frame.index)

    def codes(self, frame: pd.DataFrame, column: str) -> np.ndarray:
        """Integer codes of a categorical column over :attr:`ColumnSchema.domain`."""
        spec = self[column]
        domain = spec.domain
        index = {str(c): i for i, c in enumerate(domain)}
        other = index[OTHER]
        values = frame[column].astype(object).to_numpy()
        return np.fromiter((other if _missing(v) else index.get(str(v), other) for v in values),
                           dtype=np.int64, count=len(values))

    # ------------------------------------------------------------------ checks and edits
    def check(self, dataset: Dataset) -> list[str]:
        """Problems matching ``dataset`` against this schema, one sentence each (empty: fits).

        Only the column names and types are compared (values never: a value outside the
        schema is clipped or becomes :data:`OTHER`, it is not an error).
        """
        if not isinstance(dataset, Dataset):
            raise TypeError(f"dataset must be a Dataset, got {type(dataset).__name__}.")
        problems = []
        cols = list(dataset.frame.columns)
        for c in self.names:
            if c not in cols:
                problems.append(f"The schema lists '{c}', which the table does not have.")
        for c in cols:
            if c not in self:
                problems.append(f"The table's column '{c}' is not in the schema.")
            elif self[c].kind == "numeric" and c not in dataset.numeric:
                problems.append(f"The schema says '{c}' is numeric, but the table holds text in it.")
        return problems

    def replace_column(self, column: ColumnSchema) -> "PublicSchema":
        """A copy with ``column`` in place of the entry of the same name."""
        if not isinstance(column, ColumnSchema):
            raise TypeError(f"column must be a ColumnSchema, got {type(column).__name__}.")
        if column.name not in self:
            raise ValueError(f"'{column.name}' is not in the schema.")
        return replace(self, columns=tuple(column if c.name == column.name else c for c in self.columns))

    def confirm(self, columns: Iterable[str] | None = None) -> "PublicSchema":
        """A copy where the entries of ``columns`` (default: all read from data) are declared public.

        The user vouches that the listed bounds and categories are public knowledge (a
        codebook, a published range): a statement about the world, not about the rows.
        """
        names = set(self.read_from_data() if columns is None else columns)
        cols = tuple(replace(c, source="declared") if c.name in names else c for c in self.columns)
        return replace(self, columns=cols)

    def with_roles(self, *, label: str | None, sensitive: Iterable[str]) -> "PublicSchema":
        return replace(self, label=label, sensitive=tuple(sensitive))

    # ------------------------------------------------------------------ JSON
    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "version": SCHEMA_VERSION,
            "name": self.name,
            "label": self.label,
            "sensitive": list(self.sensitive),
            "columns": [c.to_dict() for c in self.columns],
        }
        if self.max_group_size is not None:
            out["max_group_size"] = int(self.max_group_size)
            out["max_group_source"] = self.max_group_source
        if self.estimate is not None and len(self.estimate):
            eps, dlt = self.estimate.nominal()
            out["estimate"] = {"epsilon": eps, "delta": dlt,
                               "entries": [e.label for e in self.estimate.entries]}
        return out

    def to_json(self, **kwargs: Any) -> str:
        return json.dumps(self.to_dict(), indent=kwargs.pop("indent", 2), **kwargs)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "PublicSchema":
        if not isinstance(data, Mapping):
            raise TypeError(f"a schema must be a JSON object, got {type(data).__name__}.")
        version = data.get("version", SCHEMA_VERSION)
        if version != SCHEMA_VERSION:
            raise ValueError(f"schema version {version!r} is not supported (this app reads {SCHEMA_VERSION}).")
        allowed = {"version", "name", "label", "sensitive", "columns", "max_group_size",
                   "max_group_source", "estimate"}
        extra = sorted(set(data) - allowed)
        if extra:
            raise ValueError(f"unknown key(s) {extra} in the schema; allowed: {sorted(allowed)}.")
        if not isinstance(data.get("columns"), list):
            raise ValueError("a schema needs 'columns', a list of column entries.")
        if data.get("label") is not None and not isinstance(data.get("label"), str):
            raise ValueError("the schema's 'label' must be a column name or null.")
        sensitive = data.get("sensitive", [])
        if not isinstance(sensitive, list) or not all(isinstance(c, str) for c in sensitive):
            raise ValueError("the schema's 'sensitive' must be a list of column names.")
        estimate = None
        if data.get("estimate"):
            est = data["estimate"]
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
        return cls(
            columns=tuple(ColumnSchema.from_dict(c) for c in data["columns"]),
            label=data.get("label"),
            sensitive=tuple(data.get("sensitive", ())),
            max_group_size=data.get("max_group_size"),
            max_group_source=data.get("max_group_source", "declared"),
            name=str(data.get("name", "")),
            estimate=estimate,
        )

    @classmethod
    def from_json(cls, text: str | bytes) -> "PublicSchema":
        try:
            data = json.loads(text)
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise ValueError(f"the schema is not valid JSON ({exc.msg if hasattr(exc, 'msg') else exc}).") from None
        return cls.from_dict(data)

    # ------------------------------------------------------------------ a table to edit
    def to_frame(self) -> pd.DataFrame:
        """One row per column, for review and editing: column, kind, lower, upper,
        categories (joined by ", "), source, note."""
        rows = []
        for c in self.columns:
            rows.append({
                "column": c.name,
                "kind": c.kind,
                "lower": c.lower if c.kind == "numeric" else None,
                "upper": c.upper if c.kind == "numeric" else None,
                "categories": ", ".join(str(v) for v in c.categories) if c.kind == "categorical" else "",
                "source": c.source,
                "note": c.note,
            })
        frame = pd.DataFrame(rows, columns=list(TABLE_COLUMNS))
        frame["lower"] = frame["lower"].astype(float)
        frame["upper"] = frame["upper"].astype(float)
        return frame

    def with_edits(self, frame: pd.DataFrame) -> "PublicSchema":
        """A copy with the entries the user changed in :meth:`to_frame`'s table, declared.

        A row whose kind, bounds or categories differ from this schema's becomes a new
        entry with source "declared" (the user typed it and vouches that it is public
        knowledge); unchanged rows keep their entry and source. Categories are split on
        commas; a text that names an existing category keeps that category's value (so 0/1
        flags stay numbers). Rows are matched by the "column" cell, which cannot change.

        Raises
        ------
        TypeError
            ``frame`` is not a DataFrame.
        ValueError
            A row names no column of the schema, or an edited entry breaks a rule (bounds
            not ordered, no categories...), in one sentence naming the column.
        """
        if not isinstance(frame, pd.DataFrame):
            raise TypeError(f"frame must be a DataFrame, got {type(frame).__name__}.")
        missing = [c for c in ("column", "kind", "lower", "upper", "categories") if c not in frame.columns]
        if missing:
            raise ValueError(f"the schema table needs the column(s) {missing}.")
        current = self.to_frame().set_index("column")
        changed: dict[str, ColumnSchema] = {}
        for _, row in frame.iterrows():
            name = row["column"]
            if name not in self:
                raise ValueError(f"the schema table lists {name!r}, which is not a column of the table.")
            old = current.loc[name]
            kind = self[name].kind
            if _same_cell(row["kind"], kind) and (
                (kind == "numeric" and _same_cell(row["lower"], old["lower"])
                 and _same_cell(row["upper"], old["upper"]))
                or (kind == "categorical" and _same_cell(row["categories"] or "", old["categories"] or ""))
                or kind == "identifier"
            ):
                continue  # nothing that matters for its kind changed
            changed[name] = _edited_entry(self[name], row)
        if not changed:
            return self
        cols = tuple(changed.get(c.name, c) for c in self.columns)
        return replace(self, columns=cols)

    def describe(self) -> str:
        """One sentence: how much of the schema is public."""
        read = self.read_from_data()
        if not read:
            return f"All {len(self.columns)} columns have public bounds or categories."
        return (f"{len(read)} of {len(self.columns)} columns have bounds or categories read from your "
                "data: releases that use them are not differentially private until you confirm "
                "them or let the app estimate them with part of epsilon.")


def _same_cell(a: Any, b: Any) -> bool:
    """Two table cells hold the same thing (missing equals missing, numbers compared as floats)."""
    if _missing(a) and _missing(b):
        return True
    if _missing(a) or _missing(b):
        return False
    if isinstance(a, numbers.Real) and isinstance(b, numbers.Real):
        return float(a) == float(b)
    return str(a).strip() == str(b).strip()


def _parse_categories(text: Any, old: tuple | None) -> tuple:
    if _missing(text) or not str(text).strip():
        return ()
    known = {str(c): c for c in (old or ())}
    numeric_list = bool(old) and all(isinstance(c, numbers.Real) and not isinstance(c, bool) for c in old)
    out = []
    for token in (t.strip() for t in str(text).split(",")):
        if not token:
            continue
        if token in known:
            out.append(known[token])
        elif numeric_list:
            try:
                value = float(token)
            except ValueError:
                out.append(token)
            else:
                out.append(int(value) if value.is_integer() else value)
        else:
            out.append(token)
    return tuple(out)


def _edited_entry(old: ColumnSchema, row: Mapping[str, Any]) -> ColumnSchema:
    """The entry a user's edited table row describes (source "declared")."""
    kind = str(row["kind"]).strip() if not _missing(row["kind"]) else ""
    note = "edited by the user on the Data page"
    try:
        if kind == "numeric":
            lo, hi = row["lower"], row["upper"]
            if _missing(lo) or _missing(hi):
                raise ValueError(f"numeric column '{old.name}' needs a lower and an upper bound.")
            return ColumnSchema(old.name, "numeric", lower=float(lo), upper=float(hi),
                                integer=old.integer if old.kind == "numeric" else False,
                                source="declared", note=note)
        if kind == "categorical":
            cats = _parse_categories(row["categories"], old.categories)
            if not cats:
                raise ValueError(f"categorical column '{old.name}' needs its list of categories "
                                 "(separated by commas).")
            return ColumnSchema(old.name, "categorical", categories=cats, source="declared", note=note)
        return ColumnSchema(old.name, kind, source="declared", note=note)
    except TypeError as exc:
        raise ValueError(f"the entry of '{old.name}' is not valid: {exc}") from None


def _missing(value: Any) -> bool:
    try:
        return bool(pd.isna(value))
    except (TypeError, ValueError):
        return False


def draft_schema(dataset: Dataset, *, detect: bool = True) -> PublicSchema:
    """A schema drafted from the rows: every entry marked "read from data".

    Numbers get their observed min and max, categories their observed values (sorted by
    text). The dataset's identifier columns (:attr:`Dataset.identifiers`) are drafted as
    identifiers and, with ``detect``, so is every column the rule of
    :func:`core.data.identifiers.detect_identifiers` finds (row numbers, also unsorted or
    with gaps, IDs, text keys; never a number with decimals), unless it is the label or
    sensitive. Nothing here is private: the draft is for the user to review, confirm or
    replace by an estimate.
    """
    from core.data.identifiers import detect_identifiers

    if not isinstance(dataset, Dataset):
        raise TypeError(f"dataset must be a Dataset, got {type(dataset).__name__}.")
    cols = []
    frame = dataset.frame
    roles = {dataset.label, *dataset.sensitive} - {None}
    ids = {c: "marked as an identifier" for c in dataset.identifiers}
    if detect:
        found = detect_identifiers(frame, exclude=roles)
        ids.update({c: f"{why}: an identifier" for c, why in found.items() if c not in ids})
    for name in frame.columns:
        s = frame[name]
        if name in ids and name not in roles:
            cols.append(ColumnSchema(name, "identifier", source="read from data", note=ids[name]))
            continue
        if name in dataset.numeric:
            v = pd.to_numeric(s, errors="coerce").dropna()
            integer = bool(len(v)) and bool(np.all(v.to_numpy() == np.round(v.to_numpy())))
            lo = float(v.min()) if len(v) else 0.0
            hi = float(v.max()) if len(v) else 1.0
            if not lo < hi:
                hi = lo + 1.0
            cols.append(ColumnSchema(name, "numeric", lower=lo, upper=hi, integer=integer,
                                     source="read from data"))
        else:
            values = s.dropna()
            cats = sorted(values.unique(), key=str) or [OTHER]
            cols.append(ColumnSchema(name, "categorical", categories=tuple(cats), source="read from data"))
    return PublicSchema(tuple(cols), label=dataset.label, sensitive=dataset.sensitive,
                        name=dataset.name)


# --------------------------------------------------------------------------- built-in schemas


def _num(name: str, lo: float, hi: float, note: str, *, integer: bool = True) -> ColumnSchema:
    return ColumnSchema(name, "numeric", lower=lo, upper=hi, integer=integer, source="built-in", note=note)


def _cat(name: str, cats: Sequence[Any], note: str) -> ColumnSchema:
    return ColumnSchema(name, "categorical", categories=tuple(cats), source="built-in", note=note)


def _supplier_schema(with_products: bool = True) -> PublicSchema:
    from core.data import samples as S

    gen = "the generator core.data.samples.make_supplier"
    cols = [
        _num("established_year", 1980, 2022, f"{gen} clips years to 1980-2022"),
        _cat("region", S._REGIONS, f"the region list of {gen}"),
        _num("insured_persons", 1, 100_000, "a public size class: at most 100,000 insured staff"),
        _cat("enterprise_type", S._TYPES, f"the enterprise types of {gen}"),
        _cat("investment_entity", S._ENTITIES, f"the investor kinds of {gen}"),
        _num("registered_capital", 0, 1_000_000, "a public size class: capital up to 1,000,000",
             integer=False),
    ]
    if with_products:
        cols += [_cat(p, (0, 1), "a 0/1 product-line flag") for p in S.PRODUCT_COLUMNS]
    cols.append(_cat("listed", (0, 1), "the 0/1 label 'listed'"))
    return PublicSchema(tuple(cols), label="listed", sensitive=(), max_group_size=45,
                        max_group_source="built-in", name="supplier")


def _census_schema() -> PublicSchema:
    from core.data import samples as S

    gen = "the generator core.data.samples.make_census"
    cols = (
        _num("age", 17, 90, f"{gen} clips ages to 17-90"),
        _cat("workclass", ("Private", "Self-emp", "Gov"), f"the workclass list of {gen}"),
        _cat("education", S._EDU, f"the education list of {gen}"),
        _num("education_num", 1, 16, "years of education, 1-16 as in the UCI Adult codebook"),
        _cat("marital_status", ("Married", "Never-married", "Divorced", "Widowed"), f"{gen}"),
        _cat("occupation", tuple(S._OCCUPATIONS), f"the occupation list of {gen}"),
        _cat("relationship", ("Husband", "Wife", "Not-in-family", "Own-child", "Unmarried"), f"{gen}"),
        _num("hours_per_week", 5, 90, f"{gen} clips hours to 5-90"),
        _cat("sex", ("Male", "Female"), f"{gen}"),
        _cat("income", ("<=50K", ">50K"), f"{gen}"),
    )
    return PublicSchema(cols, label="income", sensitive=("sex",), name="census")


#: UCI Adult's categories as its codebook (adult.names) lists them.
ADULT_CATEGORIES = {
    "workclass": ("Private", "Self-emp-not-inc", "Self-emp-inc", "Federal-gov", "Local-gov",
                  "State-gov", "Without-pay", "Never-worked"),
    "education": ("Bachelors", "Some-college", "11th", "HS-grad", "Prof-school", "Assoc-acdm",
                  "Assoc-voc", "9th", "7th-8th", "12th", "Masters", "1st-4th", "10th", "Doctorate",
                  "5th-6th", "Preschool"),
    "marital_status": ("Married-civ-spouse", "Divorced", "Never-married", "Separated", "Widowed",
                       "Married-spouse-absent", "Married-AF-spouse"),
    "occupation": ("Tech-support", "Craft-repair", "Other-service", "Sales", "Exec-managerial",
                   "Prof-specialty", "Handlers-cleaners", "Machine-op-inspct", "Adm-clerical",
                   "Farming-fishing", "Transport-moving", "Priv-house-serv", "Protective-serv",
                   "Armed-Forces"),
    "relationship": ("Wife", "Own-child", "Husband", "Not-in-family", "Other-relative", "Unmarried"),
    "race": ("White", "Asian-Pac-Islander", "Amer-Indian-Eskimo", "Other", "Black"),
    "sex": ("Female", "Male"),
    "native_country": (
        "United-States", "Cambodia", "England", "Puerto-Rico", "Canada", "Germany",
        "Outlying-US(Guam-USVI-etc)", "India", "Japan", "Greece", "South", "China", "Cuba", "Iran",
        "Honduras", "Philippines", "Italy", "Poland", "Jamaica", "Vietnam", "Mexico", "Portugal",
        "Ireland", "France", "Dominican-Republic", "Laos", "Ecuador", "Taiwan", "Haiti", "Columbia",
        "Hungary", "Guatemala", "Nicaragua", "Scotland", "Thailand", "Yugoslavia", "El-Salvador",
        "Trinadad&Tobago", "Peru", "Hong", "Holand-Netherlands"),
    "income": ("<=50K", ">50K"),
}


def _adult_schema() -> PublicSchema:
    book = "the UCI Adult codebook (adult.names)"
    cols = []
    numeric = {
        "age": (16, 100, "the census universe: persons aged 16 and over; 100 as a public cap"),
        "fnlwgt": (0, 1_500_000, "census sampling weights, capped at 1.5 million as a public bound"),
        "education_num": (1, 16, f"{book}: 16 education levels"),
        "capital_gain": (0, 99_999, "the Census Bureau's top-code of 99,999"),
        "capital_loss": (0, 4_999, "capital losses, a public cap of 4,999"),
        "hours_per_week": (1, 99, "the census top-code of 99 hours"),
    }
    from core.data.public import ADULT_COLUMNS

    for name in ADULT_COLUMNS:
        if name in numeric:
            lo, hi, note = numeric[name]
            cols.append(_num(name, lo, hi, note))
        else:
            cols.append(_cat(name, ADULT_CATEGORIES[name], book))
    return PublicSchema(tuple(cols), label="income", sensitive=("sex",), name="adult")


def _nltcs_schema() -> PublicSchema:
    cols = tuple(_cat(f"x{i}", (0, 1), "a 0/1 disability indicator (NLTCS codebook)") for i in range(1, 17))
    return PublicSchema(cols, label=None, sensitive=(), name="nltcs")


#: The schemas shipped with the built-in datasets, by Dataset.name.
BUILT_IN_SCHEMAS = {
    "supplier": _supplier_schema,
    "census": _census_schema,
    "adult": _adult_schema,
    "nltcs": _nltcs_schema,
}


def schema_for(dataset: Dataset) -> PublicSchema:
    """The public schema of ``dataset``: the shipped one for a built-in dataset, else a draft.

    A built-in schema is restricted to the dataset's columns (a subset keeps its entries) and
    takes the dataset's roles. Anything else gets :func:`draft_schema` (every entry "read
    from data", so a release from it says it is not differentially private until the user
    confirms the entries or estimates them).
    """
    if not isinstance(dataset, Dataset):
        raise TypeError(f"dataset must be a Dataset, got {type(dataset).__name__}.")
    make = BUILT_IN_SCHEMAS.get(dataset.name)
    if make is None:
        return draft_schema(dataset)
    full = make()
    cols = list(dataset.frame.columns)
    if not set(cols) <= set(full.names):
        return draft_schema(dataset)
    kept = tuple(c for c in full.columns if c.name in cols)
    ordered = tuple(sorted(kept, key=lambda c: cols.index(c.name)))
    return replace(full, columns=ordered, label=dataset.label, sensitive=tuple(dataset.sensitive))
