"""The dataset object every method takes: a frame plus the roles of its columns."""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field, replace
from typing import Iterable

import pandas as pd

from core.validation import DataError

__all__ = ["Dataset", "MAX_LABEL_CLASSES", "infer_column_types", "is_quantity"]

#: A label with more classes than this is refused (the methods classify, not regress).
MAX_LABEL_CLASSES = 20


def is_quantity(column: pd.Series) -> bool:
    """A numeric column read as a quantity (bool is categorical here): the one test every
    measure and attack uses to choose between a numeric and a categorical treatment."""
    return pd.api.types.is_numeric_dtype(column) and not pd.api.types.is_bool_dtype(column)


def infer_column_types(frame: pd.DataFrame) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Split columns into numeric and categorical by dtype (bool counts as categorical)."""
    numeric, categorical = [], []
    for col in frame.columns:
        s = frame[col]
        if pd.api.types.is_bool_dtype(s) or not pd.api.types.is_numeric_dtype(s):
            categorical.append(col)
        else:
            numeric.append(col)
    return tuple(numeric), tuple(categorical)


@dataclass(frozen=True)
class Dataset:
    """A table and the privacy roles of its columns.

    Parameters
    ----------
    frame : pandas.DataFrame
        One row per individual (the unit that differential privacy protects).
    label : str or None
        Column a model predicts (the utility target), or None.
    sensitive : tuple of str
        Columns whose values must not be learnable from what is published.
    numeric, categorical : tuple of str
        Column types; together they cover every column of ``frame``.
    name : str
        Display name.
    notes : tuple of str
        What loading changed or noticed (dropped columns, delimiter used, ...), one
        sentence each, shown to the user.
    identifiers : tuple of str
        Columns that say which record a row is (a row number, an ID, a key: see
        :mod:`core.data.identifiers`): never a feature, never synthesized, attacked or
        published. :func:`core.data.load_csv` detects them; the Data page lets the user
        change them. They stay in ``frame`` (so the Data page can show them) and
        :meth:`without_identifiers` drops them: the dashboard hands every page that copy.
    declared : bool
        True when the table was read by its public schema
        (:func:`core.privacy.schema_read.read_csv_by_schema`): the columns' kinds and the roles
        were checked against the schema, so the checks that read the rows (a label with one
        class, a sensitive column with one value) are skipped. Under the relation one
        replaced record may not turn a file into a refused one.
    """

    frame: pd.DataFrame
    label: str | None
    sensitive: tuple[str, ...]
    numeric: tuple[str, ...]
    categorical: tuple[str, ...]
    name: str = "dataset"
    notes: tuple[str, ...] = field(default=())
    identifiers: tuple[str, ...] = field(default=())
    declared: bool = field(default=False, compare=False)

    def __post_init__(self) -> None:
        if not isinstance(self.frame, pd.DataFrame):
            raise TypeError(f"frame must be a pandas DataFrame, got {type(self.frame).__name__}.")
        if isinstance(self.identifiers, str):
            raise TypeError("identifiers must be a list of column names, not one string.")
        object.__setattr__(self, "sensitive", tuple(self.sensitive))
        object.__setattr__(self, "identifiers", tuple(self.identifiers))
        object.__setattr__(self, "numeric", tuple(self.numeric))
        object.__setattr__(self, "categorical", tuple(self.categorical))
        cols = list(self.frame.columns)
        typed = set(self.numeric) | set(self.categorical)
        if set(cols) != typed or len(typed) != len(self.numeric) + len(self.categorical):
            raise ValueError("numeric and categorical must list every column exactly once.")
        if self.label is not None and self.label not in cols:
            raise DataError(f"The label column '{self.label}' is not in the data.")
        for s in self.sensitive:
            if s not in cols:
                raise DataError(f"The sensitive column '{s}' is not in the data.")
        if self.label is not None and self.label in self.sensitive:
            raise DataError(
                f"'{self.label}' cannot be both the label and a sensitive attribute; "
                "pick it for one role only."
            )
        for i in self.identifiers:
            if i not in cols:
                raise DataError(f"The identifier column '{i}' is not in the data.")
            if i == self.label or i in self.sensitive:
                raise DataError(f"'{i}' cannot be both an identifier and the label or a sensitive "
                                "attribute; pick it for one role only.")
        if len(set(self.identifiers)) != len(self.identifiers):
            raise ValueError("each identifier column may be listed only once.")
        if self.declared:
            return  # kinds and roles were checked against the public schema, not the rows
        if self.label is not None:
            n_classes = self.frame[self.label].nunique(dropna=True)
            if n_classes < 2:
                raise DataError(
                    f"The label '{self.label}' has a single value; a classifier needs at "
                    "least two classes, so choose another label column."
                )
            if n_classes > MAX_LABEL_CLASSES:
                raise DataError(
                    f"The label '{self.label}' has {n_classes} distinct values; choose a "
                    f"column with at most {MAX_LABEL_CLASSES} classes (or bin this one)."
                )
        for s in self.sensitive:
            if self.frame[s].nunique(dropna=True) < 2:
                raise DataError(
                    f"The sensitive column '{s}' has a single value, so there is nothing to "
                    "protect or to leak; choose another column."
                )

    # ------------------------------------------------------------------ views
    @property
    def n_rows(self) -> int:
        return len(self.frame)

    @property
    def features(self) -> tuple[str, ...]:
        """Every column except the label and the identifiers."""
        ids = set(self.identifiers)
        return tuple(c for c in self.frame.columns if c != self.label and c not in ids)

    def with_roles(
        self, *, label: str | None = None, sensitive: Iterable[str] = (),
        identifiers: Iterable[str] | None = None,
    ) -> "Dataset":
        """A copy with other label / sensitive / identifier columns (validated).

        ``identifiers`` None keeps the current ones, less any column that now is the label
        or sensitive (a role given on purpose wins over a detected identifier).
        """
        sensitive = tuple(sensitive)
        if identifiers is None:
            identifiers = tuple(i for i in self.identifiers if i != label and i not in sensitive)
        return replace(self, label=label, sensitive=sensitive, identifiers=tuple(identifiers))

    def with_identifiers(self, identifiers: Iterable[str]) -> "Dataset":
        """A copy whose identifier columns are ``identifiers`` (validated; the Data page's
        override)."""
        if isinstance(identifiers, str):
            raise TypeError("identifiers must be a list of column names, not one string.")
        wanted = list(identifiers)
        unknown = [c for c in wanted if c not in set(self.frame.columns)]
        if unknown:
            raise DataError(f"The identifier column '{unknown[0]}' is not in the data.")
        return replace(self, identifiers=tuple(c for c in self.frame.columns if c in set(wanted)))

    def without_identifiers(self) -> "Dataset":
        """A copy without the identifier columns (itself when there are none).

        What every method and page works on: an identifier is never a feature, never
        synthesized, attacked or published. Made once per object (a Dataset is immutable),
        so its fingerprint is computed once too.
        """
        if not self.identifiers:
            return self
        cached = self.__dict__.get("_without_identifiers")
        if cached is None:
            ids = set(self.identifiers)
            cached = self.subset([c for c in self.frame.columns if c not in ids])
            object.__setattr__(self, "_without_identifiers", cached)
        return cached

    def subset(self, columns: Iterable[str]) -> "Dataset":
        """A copy with only ``columns`` (the label, sensitive and identifier columns are kept
        if listed)."""
        cols = [c for c in self.frame.columns if c in set(columns)]
        return replace(
            self,
            frame=self.frame[cols],
            label=self.label if self.label in cols else None,
            sensitive=tuple(s for s in self.sensitive if s in cols),
            numeric=tuple(c for c in self.numeric if c in cols),
            categorical=tuple(c for c in self.categorical if c in cols),
            identifiers=tuple(i for i in self.identifiers if i in cols),
        )

    def dropna(self) -> "Dataset":
        """A copy without the rows that have a missing value."""
        frame = self.frame.dropna().reset_index(drop=True)
        if len(frame) == 0:
            raise DataError("Every row has a missing value; nothing is left after dropping them.")
        return replace(self, frame=frame)

    def head(self, n: int) -> "Dataset":
        """A copy with the first ``n`` rows."""
        return replace(self, frame=self.frame.head(n).reset_index(drop=True))

    def sample(self, n: int, *, random_state: int = 0) -> "Dataset":
        """A copy with ``n`` rows drawn without replacement (all rows if n >= n_rows)."""
        if n >= len(self.frame):
            return self
        return replace(
            self, frame=self.frame.sample(n=n, random_state=random_state).reset_index(drop=True)
        )

    def fingerprint(self) -> str:
        """A short hash of the data and the roles, used as a cache key.

        Computed once per object (a Dataset is treated as immutable: derive a new one with
        :meth:`with_roles`, :meth:`subset` and friends rather than editing ``frame``).
        """
        cached = self.__dict__.get("_fingerprint")
        if cached is not None:
            return cached
        h = hashlib.sha1()
        h.update(pd.util.hash_pandas_object(self.frame, index=False).values.tobytes())
        h.update(repr((list(self.frame.columns), self.label, self.sensitive)).encode())
        if self.identifiers:  # (absent when none, so older fingerprints hold)
            h.update(repr(("identifiers", self.identifiers)).encode())
        value = h.hexdigest()[:16]
        object.__setattr__(self, "_fingerprint", value)
        return value

    def schema(self) -> pd.DataFrame:
        """One row per column: role, type, missing, distinct values, range or top value."""
        rows = []
        for col in self.frame.columns:
            s = self.frame[col]
            role = (
                "label" if col == self.label else "sensitive" if col in self.sensitive
                else "identifier" if col in self.identifiers else "feature"
            )
            kind = "numeric" if col in self.numeric else "categorical"
            if kind == "numeric" and s.notna().any():
                summary = f"{s.min():.4g} .. {s.max():.4g}"
            elif s.notna().any():
                top = s.value_counts().index[0]
                summary = f"most common: {top}"
            else:
                summary = "all missing"
            rows.append(
                {
                    "column": col,
                    "role": role,
                    "type": kind,
                    "missing": int(s.isna().sum()),
                    "distinct": int(s.nunique(dropna=True)),
                    "summary": summary,
                }
            )
        return pd.DataFrame(rows)

    def __repr__(self) -> str:
        return (
            f"Dataset(name={self.name!r}, rows={len(self.frame)}, cols={self.frame.shape[1]}, "
            f"label={self.label!r}, sensitive={self.sensitive!r}"
            + (f", identifiers={self.identifiers!r})" if self.identifiers else ")")
        )

    def __hash__(self) -> int:  # lets caching layers hash a Dataset by content
        return hash(self.fingerprint())

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Dataset):
            return NotImplemented
        return self.fingerprint() == other.fingerprint() and self.name == other.name


