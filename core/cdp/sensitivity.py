"""Record-level inputs of paper 000: the record matrix and the sensitivities of a dataset.

docs/design.md section 3: record correlation uses one column per original attribute
(categoricals as ordinal codes, never one-hot), each column standardised. The supplier
sample's product flags are 0/1 attributes of their own, so each enters as one column.
"""
from __future__ import annotations

from typing import Iterable, NamedTuple

import numpy as np

from core.correlation.records import SensitivityReport, correlated_sensitivity
from core.data import Dataset, encode
from core.runtime.progress import Progress, Stop, stage, watch
from core.validation import DataError

__all__ = ["RecordMatrix", "record_matrix", "dataset_sensitivity", "drop_one_correlations"]


class RecordMatrix(NamedTuple):
    """Standardised record matrix: one column per original attribute, in ``names`` order."""

    X: np.ndarray
    names: list[str]


def record_matrix(dataset: Dataset, *, columns: Iterable[str] | None = None) -> RecordMatrix:
    """The matrix that record correlation is computed on.

    Parameters
    ----------
    dataset : Dataset
        The data; the label is left out unless ``columns`` names it.
    columns : iterable of str, optional
        Attributes to keep (a feature subset after selection); default every feature.

    Returns
    -------
    RecordMatrix
        ``X`` (n x m, float64, columns standardised to mean 0 and variance 1, categoricals
        as sorted-category codes) and the attribute ``names``.
    """
    if not isinstance(dataset, Dataset):
        raise TypeError(f"dataset must be a Dataset, got {type(dataset).__name__}.")
    cols = list(dataset.features if columns is None else columns)
    if not cols:
        raise DataError("Record correlation needs at least one attribute; keep one or more columns.")
    enc = encode(dataset, scale="standard", one_hot=False, columns=cols)
    return RecordMatrix(enc.X, list(enc.names))


def dataset_sensitivity(
    dataset: Dataset,
    *,
    columns: Iterable[str] | None = None,
    measure: str = "pearson",
    threshold: float = 0.8,
) -> SensitivityReport:
    """CS and GS of a count query on ``dataset`` restricted to ``columns``.

    Fewer attributes make records look more alike, so removing features usually raises
    the correlation and with it the sensitivity (paper 000, Fig. 1).
    """
    rm = record_matrix(dataset, columns=columns)
    return correlated_sensitivity(rm.X, measure=measure, threshold=threshold)


def drop_one_correlations(
    X: np.ndarray, *, measure: str = "pearson", threshold: float = 0.8,
    progress: Progress | None = None, stop: Stop | None = None,
) -> tuple[float, np.ndarray]:
    """C(x) and C(x without attribute k) for every attribute k (step 1 of Algorithm 1).

    ``progress`` (:mod:`core.runtime.progress`) is told each pass over the records (one per
    attribute, plus the full table's); ``stop`` (a ``threading.Event``), once set, ends the
    work at its next report with :class:`core.runtime.progress.Stopped`.

    Returns
    -------
    (float, ndarray)
        The data correlation of ``X`` and, per column k, that of ``X`` without column k
        (0 when no column would be left).
    """
    progress = watch(progress, stop)
    X = np.asarray(X, dtype=np.float64)
    m = X.shape[1]
    passes = 1 + (m if m > 1 else 0)
    full = correlated_sensitivity(X, measure=measure, threshold=threshold,
                                  progress=stage(progress, 0.0, 1.0 / passes, "C(x)")).data_correlation
    without = np.zeros(m)
    if m > 1:
        for k in range(m):
            rest = np.delete(X, k, axis=1)
            without[k] = correlated_sensitivity(
                rest, measure=measure, threshold=threshold,
                progress=stage(progress, (k + 1) / passes, (k + 2) / passes,
                               f"C(x) without attribute {k + 1} of {m}"),
            ).data_correlation
    return full, without
