"""The DP reading of paper 000: CDP-LR and count publishing from the public schema only.

Paper 000's schemes (Group, Zhang CR-FS, Proposed) read the private records before any noise:
the sensitivity GS / CS is computed from them, DC-FBFS or the forest importance chooses the
features on them, and the features are standardised with their mean and spread. One record
can move each of those, so the faithful schemes are not differentially private, and their
ledgers say so (:mod:`core.cdp.baselines`). This module is the reading that is, under the
project's rule (docs/design.md section 2.1: a release depends on the private rows only through
noisy measurements its ledger pays for):

* **features** -- every feature of the public schema, or a list the user declares (never
  DC-FBFS or an importance ranking on the rows);
* **scaling** -- from the schema's declared bounds: each record is first mapped into the
  declared domain (:meth:`~core.privacy.schema.PublicSchema.conform`: numbers clipped to their
  bounds, unknown categories to "(other)"), then numbers are scaled to [-1, 1] by their
  bounds (on a log scale when the bounds span three orders of magnitude or more, decided from
  the bounds, never the values) and categories one-hot over
  :attr:`~core.privacy.schema_columns.ColumnSchema.domain`, centred on the uniform share 1 / k of the k
  declared categories (a public constant). One record changes one row of the matrix;
* **sensitivity** -- the schema's declared bound on the correlated group size
  (``max_group_size``, itself included; the supplier sample ships 45). Without a declared
  bound the reading protects one record (sensitivity 1), and its ledger says so: the
  guarantee does not cover a correlated group;
* **split** -- a seeded permutation of the row numbers (N is public), not stratified on the
  labels: which records train the model never depends on the records.

Test accuracy is evaluated on the private held-out records; it is shown, not released.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Iterable, Sequence

import numpy as np
import pandas as pd

from core.cdp.logistic import CDPLogisticRegression
from core.cdp.schedule import PRESETS
from core.data import Dataset
from core.privacy.ledger import PrivacyLedger
from core.privacy.schema import PublicSchema
from core.privacy.schema_builtin import schema_for
from core.runtime.randomness import RandomState, check_random_state
from core.validation import DataError

__all__ = [
    "LOG_SCALE_RATIO",
    "GroupBound",
    "SchemaMatrix",
    "DPReading",
    "group_bound",
    "reading_columns",
    "schema_matrix",
    "schema_labels",
    "public_split",
    "charge_reading",
    "dp_reading",
]

#: A numeric column whose declared bounds satisfy lower >= 0 and
#: (upper + 1) / (lower + 1) >= this is scaled on a log scale (log1p), so that a wide public
#: range (capital up to 1,000,000) does not squeeze typical values into one corner. The rule
#: reads the bounds only.
LOG_SCALE_RATIO = 1000.0


@dataclass(frozen=True)
class GroupBound:
    """The sensitivity of the DP reading and where it comes from.

    Attributes
    ----------
    value : float
        ``max_group_size`` when the schema declares it publicly, else 1 (one record).
    source : str
        The schema source of the bound ("declared", "built-in", "private estimate"), or
        "declared" for the default of one record (ordinary DP needs no declaration).
    covers_group : bool
        False when the guarantee covers one record only.
    sentence : str
        What the guarantee covers, in one sentence (written to the ledger).
    """

    value: float
    source: str
    covers_group: bool
    sentence: str


def group_bound(schema: PublicSchema) -> GroupBound:
    """The DP reading's sensitivity from ``schema`` (never from the records).

    A ``max_group_size`` that is declared, built in or privately estimated is used as CS (and
    GS: a group of that many records moves a count by at most that many). One read from the
    data, or none, gives sensitivity 1: the guarantee then covers one record, not a group.
    """
    if not isinstance(schema, PublicSchema):
        raise TypeError(f"schema must be a PublicSchema, got {type(schema).__name__}.")
    size = schema.max_group_size
    if size is not None and schema.max_group_source != "read from data":
        return GroupBound(float(size), schema.max_group_source, size > 1,
                          f"The noise covers a correlated group of up to {size} records (itself included), "
                          f"the {schema.max_group_source} bound of the public schema; CS is not read from "
                          "the records.")
    why = ("No bound on the correlated group size is declared" if size is None
           else "The schema's bound on the correlated group size was read from the data")
    return GroupBound(1.0, "declared", False,
                      f"{why}, so the guarantee covers one record (sensitivity 1), not a correlated group.")


def reading_columns(schema: PublicSchema, label: str | None, features: Iterable[str] | None = None) -> list[str]:
    """The DP reading's features: ``features`` (a declared list) or every schema feature
    other than ``label`` (identifiers never)."""
    allowed = [c.name for c in schema.columns if c.kind != "identifier" and c.name != label]
    if features is None:
        cols = allowed
    else:
        if isinstance(features, str):
            raise TypeError("features must be a list of column names, not one string.")
        cols = list(features)
        bad = [c for c in cols if c not in allowed]
        if bad:
            raise ValueError(f"features must be schema features (not the label, not an identifier); "
                             f"{bad[0]!r} is not one.")
    if not cols:
        raise DataError("The DP reading needs at least one feature in the public schema.")
    return cols


def _log_scaled(lower: float, upper: float) -> bool:
    return lower >= 0 and (upper + 1.0) / (lower + 1.0) >= LOG_SCALE_RATIO


@dataclass(frozen=True)
class SchemaMatrix:
    """A design matrix built from the public schema: ``X`` (n x p) and its column ``names``."""

    X: np.ndarray
    names: list[str]


def schema_matrix(data: Dataset | pd.DataFrame, schema: PublicSchema,
                  columns: Sequence[str] | None = None) -> SchemaMatrix:
    """The model matrix of ``columns`` from the public schema alone.

    Parameters
    ----------
    data : Dataset or DataFrame
        The records (each one is encoded on its own: no mean, spread, range or category list
        is read from the others).
    schema : PublicSchema
        Bounds and category lists of ``columns``.
    columns : sequence of str, optional
        Default every schema feature other than the label.

    Returns
    -------
    SchemaMatrix
        Numbers in [-1, 1] by their declared bounds (log scale for wide bounds, see
        :data:`LOG_SCALE_RATIO`), categories one-hot over ``ColumnSchema.domain`` minus
        1 / k for the k declared categories.
    """
    frame = data.frame if isinstance(data, Dataset) else data
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"data must be a Dataset or a DataFrame, got {type(data).__name__}.")
    if not isinstance(schema, PublicSchema):
        raise TypeError(f"schema must be a PublicSchema, got {type(schema).__name__}.")
    cols = reading_columns(schema, schema.label, None) if columns is None else list(columns)
    conformed = schema.conform(frame, cols)
    blocks, names = [], []
    for name in cols:
        spec = schema[name]
        if spec.kind == "numeric":
            v = conformed[name].to_numpy(dtype=np.float64)
            lo, hi = float(spec.lower), float(spec.upper)
            if _log_scaled(lo, hi):
                v, lo, hi = np.log1p(v), math.log1p(lo), math.log1p(hi)
            blocks.append((2.0 * (v - lo) / (hi - lo) - 1.0)[:, None])
            names.append(name)
        elif spec.kind == "categorical":
            codes = schema.codes(conformed, name)
            if len(spec.categories) == 2:  # one column: -1, +1 for the two declared values, 0 for "(other)"
                blocks.append(np.select([codes == 0, codes == 1], [-1.0, 1.0], 0.0)[:, None])
                names.append(f"{name}={spec.categories[1]}")
                continue
            onehot = np.zeros((len(codes), len(spec.domain)))
            onehot[np.arange(len(codes)), codes] = 1.0
            # centred on the uniform distribution over the declared categories (a public
            # constant, 1 / k), so that one gradient step from 0 is not dominated by the
            # columns' offsets; "(other)" stays 0 / 1
            k = len(spec.categories)
            onehot[:, [i for i, c in enumerate(spec.domain) if c in spec.categories]] -= 1.0 / k
            blocks.append(onehot)
            names += [f"{name}={c}" for c in spec.domain]
    X = np.hstack(blocks) if blocks else np.zeros((len(frame), 0))
    return SchemaMatrix(X, names)


def schema_labels(data: Dataset | pd.DataFrame, schema: PublicSchema, label: str) -> np.ndarray:
    """0/1 labels: 1 where the record's ``label`` is the second declared category.

    The label must be categorical with exactly two declared categories; a value outside the
    list counts as 0 (record by record, nothing read from the others).
    """
    frame = data.frame if isinstance(data, Dataset) else data
    if label is None or label not in schema:
        raise DataError("Choose a label column that the public schema describes: CDP-LR trains a classifier.")
    spec = schema[label]
    if spec.kind != "categorical" or len(spec.categories) != 2:
        raise DataError(f"The DP reading needs a label with two declared categories; '{label}' has "
                        + (f"{len(spec.categories)}." if spec.kind == "categorical" else "none (it is not categorical)."))
    return (schema.codes(schema.conform(frame, [label]), label) == 1).astype(np.int64)


def public_split(n: int, *, test_size: float = 0.2, random_state: RandomState = None) -> tuple[np.ndarray, np.ndarray]:
    """Train and test row numbers from a seeded permutation of ``range(n)`` (sorted).

    Depends on ``n`` (public) and the generator only: no label or value decides which
    records train the model.
    """
    if not 0.0 < float(test_size) < 1.0:
        raise ValueError(f"test_size must be strictly between 0 and 1, got {test_size}.")
    rng = check_random_state(random_state)
    idx = rng.permutation(int(n))
    n_test = max(1, int(round(float(test_size) * n)))
    if n - n_test < 2:
        raise DataError("Too few records to hold some out for testing.")
    return np.sort(idx[n_test:]), np.sort(idx[:n_test])


def charge_reading(ledger: PrivacyLedger, schema: PublicSchema, columns: Iterable[str], bound: GroupBound
                   ) -> PrivacyLedger:
    """Write what the DP reading took from the schema into ``ledger`` (returned).

    Entries read from the data mark it not DP (:meth:`PublicSchema.charge`); a public group
    bound is stated as what the guarantee covers; without one, that it covers one record.
    """
    schema.charge(ledger, list(columns))  # the group bound: CDPLogisticRegression states it
    if not bound.covers_group:
        ledger.assume(bound.sentence)
    return ledger


@dataclass
class DPReading:
    """One CDP-LR training of the DP reading.

    Attributes
    ----------
    model : CDPLogisticRegression
    accuracy : float
        On the held-out private records (evaluated on your private data, not released).
    ledger : PrivacyLedger
        The model's ledger with the schema's charges: the sentence shown beside epsilon.
    columns : list of str
    bound : GroupBound
    """

    model: Any
    accuracy: float
    ledger: PrivacyLedger
    columns: list[str]
    bound: GroupBound


def dp_reading(dataset: Dataset, schema: PublicSchema | None = None, *, epsilon: float,
               noise_method: int | str = "auto", features: Iterable[str] | None = None,
               preset: str = "sensible", test_size: float = 0.2, random_state: RandomState = None,
               **params: Any) -> DPReading:
    """Train CDP-LR the DP way: schema features and scaling, the declared group bound as CS.

    Parameters
    ----------
    dataset : Dataset
        With a label of two declared categories.
    schema : PublicSchema, optional
        Default :func:`core.privacy.schema_builtin.schema_for` (the shipped schema of a built-in
        dataset; a draft read from the data otherwise, which the ledger marks not DP).
    epsilon : float
        Training budget.
    noise_method : int or "auto"
        Table 3 method (see :class:`~core.cdp.logistic.CDPLogisticRegression`).
    features : iterable of str, optional
        A user-declared feature list; default every schema feature.
    preset : {"sensible", "paper"}
        Training settings (:data:`core.cdp.schedule.PRESETS`); ``params`` override them.
    test_size : float
        Share of rows held out (a public permutation split).
    random_state : int, Generator or None
        One generator: the split, then the noise.
    """
    if not isinstance(dataset, Dataset):
        raise TypeError(f"dataset must be a Dataset, got {type(dataset).__name__}.")
    schema = schema_for(dataset) if schema is None else schema
    label = dataset.label
    cols = reading_columns(schema, label, features)
    y = schema_labels(dataset, schema, label)
    X = schema_matrix(dataset, schema, cols).X
    rng = check_random_state(random_state)
    train, test = public_split(dataset.n_rows, test_size=test_size, random_state=rng)
    bound = group_bound(schema)
    kw = {**PRESETS[preset], **params}
    model = CDPLogisticRegression(epsilon=epsilon, noise_method=noise_method, sensitivity=bound.value,
                                  sensitivity_source=bound.source, random_state=rng, **kw).fit(X[train], y[train])
    charge_reading(model.ledger_, schema, [*cols, label], bound)
    return DPReading(model, float(model.score(X[test], y[test])), model.ledger_, cols, bound)
