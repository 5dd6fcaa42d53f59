"""Fig. 1 of paper 000: the data correlation C(x) as features are added one by one.

The paper adds the features "consecutively" without saying in which order. Here they are
added by descending random-forest importance by default, the order in which DC-FBFS's
forward traversal adds them (:func:`core.cdp.dc_fbfs.feature_importance`, the same forest
and seed as :func:`core.cdp.dc_fbfs.dc_fbfs`), or in any order the caller gives.

C(x) is the one of Algorithm 1 (:attr:`core.correlation.SensitivityReport.data_correlation`,
the sum over record pairs of the thresholded record correlation), computed on the first k
columns of the record matrix (:func:`core.cdp.sensitivity.record_matrix`), k = 1 .. p.
The Pearson correlation of two records across ONE attribute is undefined (each record
centred across its single value is 0), so with ``measure="pearson"`` the first point is
NaN; with two attributes every pair of distinct records has |r| = 1, the largest C(x) can be.
"""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np
import pandas as pd

from core.cdp.dc_fbfs import feature_importance
from core.correlation.kernel import _check_measure, _check_threshold
from core.correlation.records import correlated_sensitivity
from core.runtime.progress import Progress, Stop, report, stage, watch
from core.validation import check_matrix, check_positive_int
from core.runtime.randomness import RandomState, check_random_state

__all__ = ["correlation_by_feature_count", "COLUMNS"]

#: the columns of the table :func:`correlation_by_feature_count` returns
COLUMNS = ("features", "added feature", "C(x)")


def _check_names(names: Any, width: int) -> list[str]:
    if isinstance(names, (str, bytes)) or not isinstance(names, Sequence):
        raise TypeError(f"names must be a sequence of str, got {type(names).__name__}.")
    if not all(isinstance(n, str) for n in names):
        raise TypeError("names must be a sequence of str (one per column of X).")
    if len(names) != width:
        raise ValueError(f"names must name every column of X once: got {len(names)} names for {width} columns.")
    if len(set(names)) != len(names):
        raise ValueError("names must be distinct: a feature is added once.")
    return list(names)


def _check_order(order: Any, names: list[str]) -> list[str]:
    if isinstance(order, (str, bytes)) or not isinstance(order, Sequence):
        raise TypeError(f"order must be a sequence of feature names, got {type(order).__name__}.")
    order = list(order)
    if not all(isinstance(n, str) for n in order):
        raise TypeError("order must be a sequence of feature names (str).")
    if sorted(order) != sorted(names):
        raise ValueError("order must list every feature of names exactly once (it is the order they are added in).")
    return order


def correlation_by_feature_count(
    X: Any,
    names: Sequence[str],
    *,
    y: Any = None,
    order: Sequence[str] | None = None,
    measure: str = "pearson",
    threshold: float = 0.8,
    n_estimators: int = 100,
    random_state: RandomState = None,
    progress: Progress | None = None,
    stop: Stop | None = None,
) -> pd.DataFrame:
    """C(x) of the first k features, k = 1 .. p, the features added in a stated order (Fig. 1).

    Parameters
    ----------
    X : array_like of shape (n, p)
        Record matrix, one standardised column per attribute
        (:func:`core.cdp.sensitivity.record_matrix`).
    names : sequence of str
        The attributes, one per column of ``X``.
    y : array_like of shape (n,), optional
        Class labels; needed when ``order`` is None (the importance forest learns them).
    order : sequence of str, optional
        Every name once, in the order the features are added. Default: descending
        random-forest importance (DC-FBFS's forward order; ties keep the input order).
    measure : {"pearson", "mahalanobis"}
        Record correlation measure.
    threshold : float
        delta0 in (0, 1]: record correlations below it count as 0.
    n_estimators : int
        Trees of the importance forest (when ``order`` is None).
    random_state : int, Generator or None
        Seeds the importance forest (the only random step; with ``order`` given the result
        does not depend on it).
    progress : callable(fraction, message), optional
        Told each C(x) pass (:mod:`core.runtime.progress`); raising from it stops the sweep.
    stop : threading.Event, optional
        When set, the work ends at its next progress report and raises
        :class:`core.runtime.progress.Stopped`.

    Returns
    -------
    pandas.DataFrame
        One row per k: ``features`` (k), ``added feature`` (the k-th in the order) and
        ``C(x)`` (the data correlation of the first k features; NaN for k = 1 with
        Pearson, where the correlation of two records across one attribute is undefined).
        ``attrs`` hold ``measure``, ``n_records`` (N) and ``threshold``.

    Raises
    ------
    TypeError
        ``names`` or ``order`` are not sequences of str.
    ValueError
        ``names`` do not name every column once, ``order`` is not a permutation of
        ``names``, ``order`` is None without ``y``, or ``y`` does not have one label per row.
    """
    progress = watch(progress, stop)
    X = check_matrix(X)
    names = _check_names(names, X.shape[1])
    measure, threshold = _check_measure(measure), _check_threshold(threshold)
    n_estimators = check_positive_int(n_estimators, name="n_estimators")
    rng = check_random_state(random_state)
    if order is None:
        if y is None:
            raise ValueError("Adding features by importance needs the labels y (or pass order).")
        y = np.asarray(y)
        if y.ndim != 1 or len(y) != len(X):
            raise ValueError(f"y must hold one label per row of X: got {y.shape} for {len(X)} rows.")
        report(progress, 0.0, "Forest importance")
        importance = feature_importance(X, y, n_estimators=n_estimators, random_state=rng)
        order = [names[i] for i in np.argsort(-importance, kind="stable")]
        start = 0.2
    else:
        order = _check_order(order, names)
        start = 0.0
    index = [names.index(n) for n in order]
    p = len(index)
    values = np.full(p, np.nan)
    for k in range(1, p + 1):
        if measure == "pearson" and k == 1:
            continue  # Pearson across one attribute: undefined
        values[k - 1] = correlated_sensitivity(
            X[:, index[:k]], measure=measure, threshold=threshold,
            progress=stage(progress, start + (1 - start) * (k - 1) / p, start + (1 - start) * k / p,
                           f"C(x) of the first {k} of {p} features"),
        ).data_correlation
    report(progress, 1.0, "C(x) of every prefix done")
    out = pd.DataFrame({"features": np.arange(1, p + 1), "added feature": order, "C(x)": values})
    # what Fig. 1's claim needs to tell a degenerate point (core.claims.degenerate)
    out.attrs.update(measure=measure, n_records=int(X.shape[0]), threshold=threshold)
    return out
