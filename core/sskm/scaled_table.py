"""The [0, 1]-scaled table behind every SSKM_DP release and the DP baselines.

:class:`ScaledTable` turns a frame into a matrix in [0, 1]^m and back: with a public schema
(:class:`core.privacy.schema.PublicSchema`) each record is conformed on its own (numbers
clipped to the declared bounds, unknown categories to ``(other)``), so the scaling reads
nothing from the rows; without one the bounds and category lists are read from the data
and :meth:`ScaledTable.charge` marks a release built on it not differentially private.
"""
from __future__ import annotations

from typing import Mapping

import numpy as np
import pandas as pd

from core.data.encoding import ordinal_codes
from core.privacy.ledger import PrivacyLedger
from core.privacy.schema import PublicSchema
from core.validation import DataError

__all__ = ["ScaledTable", "scale_frame"]


class ScaledTable:
    """A frame as a [0, 1]-scaled matrix, with what it takes to go back.

    Parameters
    ----------
    frame : DataFrame
        The table (private rows).
    schema : PublicSchema, optional
        Where bounds and category lists come from (the only way to a DP release): each
        record is mapped into the schema's domain on its own (:meth:`PublicSchema.conform`:
        numbers clipped to the declared bounds, a missing number to the middle of the range,
        an unknown or missing category to :data:`core.privacy.schema_columns.OTHER`), numbers are
        scaled by the declared bounds, categories coded over :attr:`ColumnSchema.domain`
        (the declared list, then OTHER). Identifier columns are dropped. Nothing about the
        scaling depends on the rows, so one replaced record changes one row of ``X``.
        Entries the schema marks "read from data" are listed in :attr:`read_from_data`.
    reference : DataFrame, optional
        Without a schema: rows whose minima, maxima, medians and integer-ness give the
        numeric bounds and fills (default ``frame`` itself: min-max scaling on the data,
        the paper's way). Either way they are read from data (:attr:`read_from_data`).
    bounds : dict of str to (float, float), optional
        Without a schema: public (lo, hi) of numeric columns given by the user; they
        override ``reference``.

    Without a schema the category lists are always read from ``frame`` and numeric bounds
    from the data unless given: a release built on such a table is not differentially
    private, and :attr:`not_dp_reason` says why in one sentence.

    Values outside the bounds are clipped to them (scaled to 0 or 1).

    Attributes
    ----------
    X : ndarray of shape (n, m)
    columns : list of str
    lo, hi : ndarray of shape (m,)
        Column bounds before scaling (category codes 0..k-1 for categoricals).
    categories : dict of str to list
        The category list of each categorical column (with a schema: its domain, OTHER
        last; without: the sorted values found in ``frame``).
    integer : set of str
        Numeric columns of whole numbers (published values are rounded back).
    bounds_source : dict of str to str
        Where each column's bounds or categories came from: a schema source ("declared",
        "built-in", "private estimate", "read from data") or, without a schema, "user",
        "reference" or "data".
    read_from_data : list of str
        Columns whose bounds or categories were read from the private rows.
    schema : PublicSchema or None
    """

    def __init__(self, frame: pd.DataFrame, *, schema: PublicSchema | None = None,
                 reference: pd.DataFrame | None = None,
                 bounds: Mapping[str, tuple[float, float]] | None = None) -> None:
        if not isinstance(frame, pd.DataFrame):
            raise TypeError(f"frame must be a pandas DataFrame, got {type(frame).__name__}.")
        if frame.shape[1] == 0:
            raise DataError("The table has no columns to publish.")
        if len(frame) < 2:
            raise DataError("Publishing needs at least 2 rows; load more data.")
        self.schema = schema
        if schema is not None:
            if not isinstance(schema, PublicSchema):
                raise TypeError(f"schema must be a PublicSchema, got {type(schema).__name__}.")
            if reference is not None or bounds:
                raise ValueError("with a schema, bounds and categories come from it; do not pass "
                                 "reference or bounds as well (edit the schema instead).")
            self._from_schema(frame, schema)
        else:
            self._from_data(frame, reference, bounds)
        self._scale()

    # ------------------------------------------------------------------ building
    def _from_schema(self, frame: pd.DataFrame, schema: PublicSchema) -> None:
        unknown = [c for c in frame.columns if c not in schema]
        if unknown:
            raise DataError(f"The public schema does not list column(s) {unknown}; add them to the "
                            "schema (Data page) or leave them out.")
        self.columns = [c for c in frame.columns if schema[c].kind != "identifier"]
        if not self.columns:
            raise DataError("Every column is an identifier in the schema: nothing to publish.")
        conformed = schema.conform(frame, self.columns)
        self.dtypes = frame[self.columns].dtypes
        self.categories: dict[str, list] = {}
        self.integer: set[str] = set()
        self.bounds_source: dict[str, str] = {}
        raw, lo, hi = [], [], []
        for col in self.columns:
            spec = schema[col]
            self.bounds_source[col] = spec.source
            if spec.kind == "numeric":
                raw.append(conformed[col].to_numpy(dtype=np.float64))
                lo.append(spec.lower)
                hi.append(spec.upper)
                if spec.integer:
                    self.integer.add(col)
            else:
                domain = list(spec.domain)
                self.categories[col] = domain
                raw.append(schema.codes(conformed, col).astype(np.float64))
                lo.append(0.0)
                hi.append(float(len(domain) - 1))
        self._raw = np.column_stack(raw)
        self.lo = np.asarray(lo, dtype=np.float64)
        self.hi = np.asarray(hi, dtype=np.float64)
        self.read_from_data = schema.read_from_data(self.columns)

    def _from_data(self, frame: pd.DataFrame, reference: pd.DataFrame | None,
                   bounds: Mapping[str, tuple[float, float]] | None) -> None:
        ref = frame if reference is None else reference
        if not isinstance(ref, pd.DataFrame) or list(ref.columns) != list(frame.columns):
            raise TypeError("reference must be a DataFrame with the same columns as frame.")
        if len(ref) == 0:
            raise DataError("The reference rows are empty.")
        bounds = dict(bounds or {})
        unknown = [c for c in bounds if c not in frame.columns]
        if unknown:
            raise DataError(f"bounds name column(s) {unknown} that are not in the data.")
        self.columns = list(frame.columns)
        self.categories = {}
        self.integer = set()
        self.bounds_source = {}
        self.dtypes = frame.dtypes
        cols, lo, hi = [], [], []
        for col in self.columns:
            s = frame[col]
            if s.isna().all():
                raise DataError(f"Column '{col}' is empty (all values missing); drop it first.")
            if pd.api.types.is_numeric_dtype(s) and not pd.api.types.is_bool_dtype(s):
                v, b_lo, b_hi = self._numeric_from_data(col, s, ref[col], bounds,
                                                        "data" if reference is None else "reference")
            else:
                if col in bounds:
                    raise DataError(f"bounds apply to numeric columns; '{col}' is categorical.")
                v, b_lo, b_hi = self._categories_from_data(col, s, ref[col])
            cols.append(v)
            lo.append(b_lo)
            hi.append(b_hi)
        self._raw = np.column_stack(cols)
        self.lo = np.asarray(lo, dtype=np.float64)
        self.hi = np.asarray(hi, dtype=np.float64)
        self.read_from_data = [c for c in self.columns if self.bounds_source[c] in ("data", "reference")]

    def _numeric_from_data(self, col: str, s: pd.Series, r: pd.Series, bounds: dict,
                           source: str) -> tuple[np.ndarray, float, float]:
        """A numeric column's values (missing ones filled with the reference median) and
        bounds: the user's, else the reference rows' min and max (``source``)."""
        v = s.to_numpy(dtype=np.float64)
        rv = r.to_numpy(dtype=np.float64)
        if np.isnan(rv).all():
            raise DataError(f"Column '{col}' has no value in the reference rows.")
        fill = float(np.nanmedian(rv))
        v = np.where(np.isnan(v), fill, v)
        rv = np.where(np.isnan(rv), fill, rv)
        if not np.all(np.isfinite(v)) or np.abs(v).max() > 1e150:
            raise DataError(
                f"Column '{col}' holds infinite or astronomically large values; cap or remove them."
            )
        if pd.api.types.is_integer_dtype(s) or np.all(rv == np.round(rv)):
            self.integer.add(col)
        if col in bounds:
            b_lo, b_hi = _check_bound(col, bounds[col])
            self.bounds_source[col] = "user"
        else:
            b_lo, b_hi = float(rv.min()), float(rv.max())
            self.bounds_source[col] = source
        return v, b_lo, b_hi

    def _categories_from_data(self, col: str, s: pd.Series, r: pd.Series) -> tuple[np.ndarray, float, float]:
        """A categorical column's codes over the sorted values found in ``s`` (missing ones
        filled with the reference's most common value) and its code range."""
        if s.isna().any():
            fill = (r.mode() if r.notna().any() else s.mode()).iloc[0]
            s = s.fillna(fill)
        codes, cats = ordinal_codes(s.astype(object))
        self.categories[col] = cats
        self.bounds_source[col] = "data"
        return codes.astype(np.float64), 0.0, float(len(cats) - 1)

    def _scale(self) -> None:
        span = self.hi - self.lo
        self.span = np.where(span > 0, span, 1.0)
        self.X = np.clip(np.where(span > 0, (self._raw - self.lo) / self.span, 0.0), 0.0, 1.0)
        del self._raw
        #: range of each attribute in scaled units: 1, or 0 for a constant column
        self.unit_range = (span > 0).astype(float)

    # ------------------------------------------------------------------ privacy
    @property
    def is_public(self) -> bool:
        """True when no bound or category list was read from the rows."""
        return not self.read_from_data

    @property
    def not_dp_reason(self) -> str | None:
        """One sentence when a bound or category list was read from the rows, else None."""
        if not self.read_from_data:
            return None
        if self.schema is not None:
            return self.schema.not_dp_reason(self.columns)
        shown = ", ".join(f"'{c}'" for c in self.read_from_data[:6])
        more = f" and {len(self.read_from_data) - 6} more" if len(self.read_from_data) > 6 else ""
        return (f"Bounds or categories read from your data ({shown}{more}): no public schema was given, "
                "so the scaling depends on the records themselves.")

    def charge(self, ledger: PrivacyLedger) -> PrivacyLedger:
        """Put what this scaling means into ``ledger``: not DP when read from the rows,
        the schema's estimate spends and assumptions otherwise (returned, for chaining)."""
        if self.schema is not None:
            return self.schema.charge(ledger, self.columns)
        reason = self.not_dp_reason
        if reason:
            ledger.mark_not_dp(reason)
        user = [c for c, s in self.bounds_source.items() if s == "user"]
        if user:
            ledger.assume("Bounds of " + ", ".join(user) + " given by the user are public; records "
                          "outside them are clipped.")
        return ledger

    # ------------------------------------------------------------------ use
    def decode(self, Z: np.ndarray) -> pd.DataFrame:
        """A frame with the original columns from scaled values ``Z`` (clipped to [0, 1])."""
        Z = np.clip(np.asarray(Z, dtype=np.float64).reshape(-1, len(self.columns)), 0.0, 1.0)
        out = {}
        for j, col in enumerate(self.columns):
            raw = self.lo[j] + Z[:, j] * (self.hi[j] - self.lo[j])
            if col in self.categories:
                cats = self.categories[col]
                codes = np.clip(np.rint(raw), 0, len(cats) - 1).astype(np.int64)
                arr = np.empty(len(cats), dtype=object)
                arr[:] = cats
                out[col] = arr[codes]
            elif col in self.integer:
                out[col] = np.rint(raw).astype(np.int64)
            else:
                out[col] = raw
        return pd.DataFrame(out, columns=self.columns)

    def encode(self, frame: pd.DataFrame) -> np.ndarray:
        """Scale another frame with the same columns on this table's ranges and codes.

        With a schema the frame is conformed first (clipped, unknown categories to OTHER),
        so the result lies in [0, 1]; without one, values outside the ranges fall outside
        [0, 1] and unknown categories are NaN.
        """
        if self.schema is not None:
            conformed = self.schema.conform(frame, self.columns)
            cols = []
            for j, col in enumerate(self.columns):
                if col in self.categories:
                    v = self.schema.codes(conformed, col).astype(np.float64)
                else:
                    v = conformed[col].to_numpy(dtype=np.float64)
                cols.append((v - self.lo[j]) / self.span[j] * self.unit_range[j])
            return np.column_stack(cols)
        cols = []
        for j, col in enumerate(self.columns):
            s = frame[col]
            if col in self.categories:
                index = {c: i for i, c in enumerate(self.categories[col])}
                v = s.map(index).to_numpy(dtype=np.float64)
            else:
                v = s.to_numpy(dtype=np.float64)
            cols.append((v - self.lo[j]) / self.span[j])
        return np.column_stack(cols)


def _check_bound(col: str, bound) -> tuple[float, float]:
    try:
        b_lo, b_hi = (float(v) for v in bound)
    except (TypeError, ValueError) as exc:
        raise DataError(f"bounds['{col}'] must be a pair (lo, hi) of numbers.") from exc
    if not (np.isfinite(b_lo) and np.isfinite(b_hi)) or b_lo > b_hi:
        raise DataError(f"bounds['{col}'] must be finite with lo <= hi, got {bound!r}.")
    return b_lo, b_hi


def scale_frame(frame: pd.DataFrame) -> ScaledTable:
    """The [0, 1]-scaled matrix of ``frame`` (categoricals as codes) with its decoder."""
    return ScaledTable(frame)


