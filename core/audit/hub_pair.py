"""The hub pair: one record replaced by a profile correlated with as many records as possible.

Paper 000's correlated sensitivity CS = max_i sum_j delta_ij
(:func:`core.correlation.records.correlated_sensitivity`) is read from the records, so a
release that computes it from the rows has a noise scale one record can move.
:func:`hub_record_pair` builds the pair that moves it most: hubs are grown from the most
correlated records (a copy of a record, or the mean of its nearest records), scored against
every record, and the best few are checked with the mechanism's own CS.
"""
from __future__ import annotations

from functools import partial
from typing import Any, Callable

import numpy as np
import pandas as pd

from core.audit.pairs import NeighbouringPair, _check_index, _is_numeric, _n_records, replace_record
from core.validation import check_positive_int

__all__ = ["VERIFIED_HUBS", "hub_record_pair"]


def _hub_profiles(Z: np.ndarray, measure: str) -> tuple[np.ndarray, Callable[[np.ndarray], np.ndarray]]:
    """Rows in the space where the record correlation is a dot product or a distance, and the
    map that puts a new row in that space (the whitening uses ``Z``'s covariance)."""
    if measure == "pearson":
        def to_space(R: np.ndarray) -> np.ndarray:
            rows = R - R.mean(axis=1, keepdims=True)
            norm = np.sqrt(np.einsum("ij,ij->i", rows, rows))
            ok = norm > 1e-12 * max(1.0, float(np.abs(R).max(initial=0.0)))
            rows[ok] /= norm[ok, None]
            rows[~ok] = 0.0
            return rows
    else:
        mean = Z.mean(axis=0)
        cov = np.atleast_2d(np.cov(Z - mean, rowvar=False)) if len(Z) > 1 else np.zeros((Z.shape[1],) * 2)
        var, axes = np.linalg.eigh(cov)
        keep = var > max(var.max(initial=0.0), 0.0) * 1e-10
        W = axes[:, keep] / np.sqrt(var[keep]) if keep.any() else np.zeros((Z.shape[1], 0))

        def to_space(R: np.ndarray) -> np.ndarray:
            return (R - mean) @ W
    return to_space(Z), to_space


def _hub_delta(P: np.ndarray, C: np.ndarray, measure: str) -> np.ndarray:
    """Unthresholded record correlation of each candidate (rows of ``C``) with each record."""
    if measure == "pearson":
        return np.abs(C @ P.T)
    d2 = (C ** 2).sum(1)[:, None] + (P ** 2).sum(1)[None, :] - 2.0 * C @ P.T
    return 1.0 / (1.0 + np.sqrt(np.maximum(d2, 0.0)))


#: how many of the best-scored hub candidates are checked with the mechanism's own CS (the
#: score of a candidate is an approximation: the mean of its records in feature space)
VERIFIED_HUBS = 32


def hub_record_pair(data: Any, *, index: int | None = None, measure: str = "pearson", threshold: float = 0.8,
                    max_group_size: int | None = None, features: Callable[[Any], Any] | None = None,
                    seeds: int = 32) -> NeighbouringPair:
    """A pair whose replaced record becomes a hub: correlated with many records, moving CS.

    Paper 000's correlated sensitivity CS = max_i sum_j delta_ij
    (:func:`core.correlation.records.correlated_sensitivity`) is read from the records. A
    release that computes it from the rows and calibrates its noise to it has a noise scale
    that one record can move: here record ``index`` is replaced by the profile that is
    correlated (above ``threshold``) with as many records as possible -- the mean of a
    record's nearest records, or a copy of a record -- so CS (and GS) grow on ``d1``. A
    release whose CS comes from a declared bound on the group size keeps its scale.

    Parameters
    ----------
    data : ndarray, DataFrame or tuple (X, y)
        The records (as in :func:`core.audit.pairs.replace_record`). A DataFrame's numeric columns form the
        profile; its other columns, and ``y``, take the values of the record the hub was
        grown from.
    index : int, optional
        Position replaced; default the record with the smallest correlated sum (its leaving
        lowers CS the least).
    measure, threshold
        The record correlation of :func:`~core.correlation.records.correlated_sensitivity`
        (``"pearson"`` or ``"mahalanobis"``, delta0 in (0, 1]); use the mechanism's own.
    max_group_size : int, optional
        A declared bound on the correlated group size (itself included). It is public, so
        both datasets keep it: the hub is correlated with at most this many records, and a
        table that already breaks the bound is refused.
    features : callable, optional
        ``features(dataset) -> 2-D array``: the matrix the mechanism computes CS on
        (default: the numbers of ``data`` as they are). CS is measured on it for both
        datasets.
    seeds : int
        How many of the most correlated records the search grows hubs from (more: slower,
        sometimes a larger CS).

    Returns
    -------
    NeighbouringPair
        Its description gives CS and GS on both datasets.

    Raises
    ------
    ValueError
        No replacement raises CS (for example when every record is already correlated with
        every other), or the table breaks the declared ``max_group_size``.

    Notes
    -----
    Cost: one pass of ``correlated_sensitivity`` on ``data`` and up to
    :data:`VERIFIED_HUBS` on candidate neighbours (O(n^2 m) each; well under a second in
    all for a few thousand records), plus up to ``10 * seeds`` candidate profiles scored
    against every record.
    """
    from core.correlation.kernel import _check_measure, _check_threshold

    measure = _check_measure(measure)
    thr = _check_threshold(threshold)
    n_seeds = check_positive_int(seeds, name="seeds")
    if max_group_size is not None:
        max_group_size = check_positive_int(max_group_size, name="max_group_size")
    n = _check_hub_data(data, features)
    report = partial(_cs_report, features=features, measure=measure, threshold=thr)
    F = _feature_matrix(data, features)
    if F.ndim != 2 or len(F) != n:
        raise ValueError(f"features(data) must be a 2-D array with one row per record ({n}), got shape {F.shape}.")
    r0 = report(data)
    if max_group_size is not None and r0.group > max_group_size:
        raise ValueError(f"the table already has a record correlated with {int(r0.group)} records, more than "
                         f"the declared bound {max_group_size}: the declaration does not hold for this table.")
    fixed_i = None if index is None else _check_index(index, n)
    P, to_space = _hub_profiles(F, measure)
    candidates = _grow_candidates(F, P, to_space, r0.per_record, fixed_i=fixed_i, n_seeds=n_seeds,
                                  measure=measure, thr=thr)
    places, sums, ok = _place_candidates(F, P, to_space, candidates, r0.per_record, fixed_i=fixed_i,
                                         measure=measure, thr=thr, max_group_size=max_group_size)
    best = _best_hub(data, candidates, places, sums, ok, report, max_group_size)
    if best is None or best[1].correlated <= r0.correlated + 1e-9:
        raise ValueError("no replacement of one record raises the correlated sensitivity CS = "
                         f"{r0.correlated:.4g} ({measure}, delta0 = {thr:g}).")
    d1, r1, h, i = best
    return NeighbouringPair(data, d1, f"record {i} replaced by a hub grown from record {h} ({measure}, delta0 = "
                                      f"{thr:g}): CS {r0.correlated:.4g} -> {r1.correlated:.4g}, GS "
                                      f"{int(r0.group)} -> {int(r1.group)}")


def _check_hub_data(data: Any, features: Any) -> int:
    """The number of records of ``data``, once it is known to hold a hub (at least 3 records,
    numbers to correlate on) and ``features`` is None or callable."""
    n = _n_records(data)
    if n < 3:
        raise ValueError("a hub needs at least 3 records.")
    X = data[0] if isinstance(data, tuple) else data
    if isinstance(X, pd.DataFrame):
        if features is None and not any(_is_numeric(X[c]) for c in X.columns):
            raise ValueError("the frame has no numeric column to correlate records on; give features.")
    elif np.asarray(X).ndim != 2:
        raise ValueError("a hub needs a 2-D array of records (one row per record).")
    if features is not None and not callable(features):
        raise TypeError(f"features must be callable, got {type(features).__name__}.")
    return n


def _feature_matrix(data: Any, features: Callable[[Any], Any] | None) -> np.ndarray:
    """The matrix CS is computed on: ``features(data)``, or the numbers of ``data``."""
    return np.asarray(features(data), dtype=float) if features is not None else _raw_numbers(data)


def _cs_report(data: Any, *, features: Callable[[Any], Any] | None, measure: str, threshold: float) -> Any:
    """The correlated-sensitivity report of ``data`` (CS, GS, per-record sums)."""
    from core.correlation.records import correlated_sensitivity

    return correlated_sensitivity(_feature_matrix(data, features), measure=measure, threshold=threshold,
                                  scheduler="")


def _grow_candidates(F: np.ndarray, P: np.ndarray, to_space: Callable[[np.ndarray], np.ndarray],
                     per_record: np.ndarray, *, fixed_i: int | None, n_seeds: int, measure: str,
                     thr: float) -> list[tuple[np.ndarray, int]]:
    """Hubs as (rows the hub is the mean of, the record it was grown from).

    They are grown, in the space CS is computed in, from the records with the largest
    correlated sums: a copy of the record, and the mean of its nearest records at three
    levels of correlation (the mean of records that are each correlated with a profile but
    not with each other is correlated with all of them), moved by up to three mean shifts.
    """
    order = np.argsort(-per_record, kind="stable")
    grown = [h for h in order if h != fixed_i][:n_seeds]
    delta = _hub_delta(P, P[grown], measure)
    candidates: list[tuple[np.ndarray, int]] = []
    for row, h in zip(delta, grown):
        candidates.append((np.array([h]), int(h)))
        sign = np.sign(P @ P[h]) if measure == "pearson" else np.ones(len(F))
        for level in (thr, thr ** 2, thr ** 3):
            near = (row >= level) & (sign >= 0)
            if fixed_i is not None:
                near[fixed_i] = False
            for _ in range(3):  # mean shift: the records near the mean of the near records
                if near.sum() < 2:
                    break
                candidates.append((np.flatnonzero(near), int(h)))
                centre = to_space(F[near].mean(axis=0)[None, :])
                near = _hub_delta(P, centre, measure)[0] >= level
                if measure == "pearson":
                    near &= (P @ centre[0]) >= 0
                if fixed_i is not None:
                    near[fixed_i] = False
    return candidates


def _place_candidates(F: np.ndarray, P: np.ndarray, to_space: Callable[[np.ndarray], np.ndarray],
                      candidates: list[tuple[np.ndarray, int]], per_record: np.ndarray, *,
                      fixed_i: int | None, measure: str, thr: float,
                      max_group_size: int | None) -> tuple[list[int], np.ndarray, np.ndarray]:
    """Where each hub goes, its approximate correlated sum there, and whether it keeps the
    declared group bound: ``(places, sums, ok)``."""
    C = np.array([F[rows].mean(axis=0) for rows, _ in candidates])
    scores = _hub_delta(P, to_space(C), measure)
    if fixed_i is None:
        # per hub, the record replaced: the least correlated sum, then the least like the hub
        places = [int(np.lexsort((row, per_record))[0]) for row in scores]
    else:
        places = [fixed_i] * len(C)
    for k, i in enumerate(places):
        scores[k, i] = 0.0  # the replaced record is gone
    counts = (scores >= thr).sum(axis=1) + 1
    sums = np.where(scores >= thr, scores, 0.0).sum(axis=1) + 1.0
    ok = np.ones(len(C), bool) if max_group_size is None else counts <= max_group_size
    if not ok.any():
        raise ValueError("no hub stays within the declared max_group_size.")
    return places, sums, ok


def _best_hub(data: Any, candidates: list[tuple[np.ndarray, int]], places: list[int], sums: np.ndarray,
              ok: np.ndarray, report: Callable[[Any], Any], max_group_size: int | None) -> tuple | None:
    """Of the :data:`VERIFIED_HUBS` best-scored hubs, the one whose dataset has the largest CS
    by the mechanism's own measure: ``(d1, its report, seed record, place)``, or None."""
    best = None
    for k in np.argsort(-np.where(ok, sums, -np.inf), kind="stable")[:VERIFIED_HUBS]:
        if not ok[k]:
            break
        record = _hub_record(data, candidates[k][0])
        d1 = replace_record(data, places[k], record)
        r1 = report(d1)
        if max_group_size is not None and r1.group > max_group_size:
            continue
        if best is None or r1.correlated > best[1].correlated:
            best = (d1, r1, candidates[k][1], places[k])
    return best


def _raw_numbers(data: Any) -> np.ndarray:
    X = data[0] if isinstance(data, tuple) else data
    if isinstance(X, pd.DataFrame):
        return X[[c for c in X.columns if _is_numeric(X[c])]].to_numpy(dtype=float)
    return np.asarray(X, dtype=float)


def _plain_value(v: Any) -> Any:
    return v.item() if isinstance(v, np.generic) else v


def _hub_record(data: Any, rows: np.ndarray) -> Any:
    """The hub as a record of ``data``: a copy of record ``rows[0]`` when it is alone, else
    the mean of ``rows`` on the numbers (rounded in an integer column) and their most
    frequent value elsewhere (the label too)."""
    X = data[0] if isinstance(data, tuple) else data
    first = int(rows[0])
    if isinstance(X, pd.DataFrame):
        rec = {}
        for c in X.columns:
            col = X[c].iloc[rows]
            if len(rows) == 1:
                rec[c] = _plain_value(col.iloc[0])
            elif _is_numeric(X[c]):
                v = float(col.mean())
                rec[c] = int(round(v)) if pd.api.types.is_integer_dtype(X[c].dtype) else v
            else:
                mode = col.mode(dropna=True)
                rec[c] = _plain_value(mode.iloc[0] if len(mode) else X[c].iloc[first])
        x: Any = rec
    else:
        arr = np.asarray(X)
        x = arr[first].copy() if len(rows) == 1 else arr[rows].astype(float).mean(axis=0)
    if isinstance(data, tuple):
        y = data[1]
        ys = pd.Series(y.to_numpy() if isinstance(y, pd.Series) else np.asarray(y)).iloc[rows]
        mode = ys.mode(dropna=True)
        return (x, _plain_value(mode.iloc[0] if len(mode) else ys.iloc[0]))
    return x
