"""A measure against epsilon: per-epsilon means with their intervals, and where a series crosses a target.

:func:`curve_points` reduces a curve (one row per epsilon and repetition) to its grid, the
mean at each epsilon and a two-sided t interval of that mean over the repetitions.
:func:`crossing` finds where a series of values over the grid meets a
:class:`~core.decide.target.Target` for good: the start of its last run of meeting points,
interpolated linearly on log-epsilon between the last failing and the first meeting grid
point. :func:`core.decide.solve.solve_epsilon` applies it to the means and to both bounds.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np
import pandas as pd
from scipy import stats

from core.decide.target import Target

__all__ = ["CurvePoints", "Crossing", "curve_points", "crossing"]


@dataclass(frozen=True)
class CurvePoints:
    """A curve reduced to one point per epsilon.

    Attributes
    ----------
    grid : tuple of float
        The epsilons, ascending.
    means : tuple of float
        The mean of the measure at each epsilon.
    lows, highs : tuple of (float or None)
        The two-sided t interval of each mean over its repetitions; None where an epsilon
        has a single repetition (its uncertainty is unknown).
    counts : tuple of int
        The repetitions at each epsilon (values that are NaN are left out).
    """

    grid: tuple[float, ...]
    means: tuple[float, ...]
    lows: tuple[float | None, ...]
    highs: tuple[float | None, ...]
    counts: tuple[int, ...]

    @property
    def intervals_known(self) -> bool:
        """True when every epsilon has at least two repetitions (so every interval is known)."""
        return all(c >= 2 for c in self.counts)


@dataclass(frozen=True)
class Crossing:
    """Where a series over the grid meets a target for good.

    Attributes
    ----------
    where : {"inside", "below", "never"}
        ``inside``: between two grid points; ``below``: already at the smallest epsilon (the
        crossing is at or below it); ``never``: the largest epsilon fails.
    epsilon : float or None
        The interpolated epsilon (``inside``), the smallest epsilon (``below``), None (``never``).
    segment : tuple of float or None
        The grid points the interpolation ran between (``inside`` only).
    also_met : tuple of float
        Grid epsilons below the crossing where the series meets the target and then fails
        again (the series crosses the target more than once).
    """

    where: str
    epsilon: float | None
    segment: tuple[float, float] | None = None
    also_met: tuple[float, ...] = ()


def _check_curve(curve: pd.DataFrame) -> pd.DataFrame:
    if not isinstance(curve, pd.DataFrame):
        raise TypeError(f"curve must be a pandas DataFrame, got {type(curve).__name__}.")
    missing = [c for c in ("epsilon", "value") if c not in curve.columns]
    if missing:
        raise ValueError(f"curve must have the columns epsilon and value (one row per epsilon and repetition); "
                         f"it lacks {missing}.")
    frame = pd.DataFrame({"epsilon": pd.to_numeric(curve["epsilon"], errors="coerce"),
                          "value": pd.to_numeric(curve["value"], errors="coerce")})
    eps = frame["epsilon"].to_numpy(dtype=float)
    if not np.all(np.isfinite(eps) & (eps > 0)):
        raise ValueError("every epsilon of the curve must be a finite number above 0.")
    frame = frame[np.isfinite(frame["value"].to_numpy(dtype=float))]
    if frame.empty:
        raise ValueError("the curve has no value to solve on (every value is missing).")
    return frame


def _check_confidence(confidence: float) -> float:
    if isinstance(confidence, bool) or not isinstance(confidence, (int, float, np.floating)):
        raise TypeError(f"confidence must be a number, got {type(confidence).__name__}.")
    if not 0 < float(confidence) < 1:
        raise ValueError(f"confidence must lie strictly between 0 and 1 (such as 0.95), got {confidence!r}.")
    return float(confidence)


def curve_points(curve: pd.DataFrame, *, confidence: float = 0.95) -> CurvePoints:
    """The mean and its two-sided ``confidence`` t interval at each epsilon of ``curve``.

    Parameters
    ----------
    curve : DataFrame
        Columns ``epsilon`` (finite, above 0) and ``value``, one row per (epsilon, repetition);
        rows whose value is missing are left out.
    confidence : float in (0, 1)
        Coverage of each interval: mean +- t_{(1 + confidence) / 2, n - 1} s / sqrt(n) over the
        n repetitions at that epsilon (unknown, None, where n is 1).
    """
    confidence = _check_confidence(confidence)
    frame = _check_curve(curve)
    grouped = frame.groupby("epsilon", sort=True)["value"]
    means, counts, sds = grouped.mean(), grouped.count(), grouped.std(ddof=1)
    lows: list[float | None] = []
    highs: list[float | None] = []
    for eps in means.index:
        n = int(counts[eps])
        if n < 2:
            lows.append(None)
            highs.append(None)
            continue
        half = float(stats.t.ppf((1 + confidence) / 2, n - 1)) * float(sds[eps]) / math.sqrt(n)
        lows.append(float(means[eps]) - half)
        highs.append(float(means[eps]) + half)
    return CurvePoints(tuple(float(e) for e in means.index), tuple(float(m) for m in means), tuple(lows),
                       tuple(highs), tuple(int(counts[e]) for e in means.index))


def _interpolate(e0: float, e1: float, y0: float, y1: float, threshold: float) -> float:
    """The epsilon between e0 and e1 where the line through (log e0, y0), (log e1, y1) reaches threshold."""
    share = (threshold - y0) / (y1 - y0)
    share = min(1.0, max(0.0, share))
    return float(math.exp(math.log(e0) + share * (math.log(e1) - math.log(e0))))


def crossing(grid: Sequence[float], values: Sequence[float], target: Target) -> Crossing:
    """Where ``values`` (one per grid epsilon, ascending) meet ``target`` at that point and at every
    larger grid epsilon: the start of the last run of meeting points, interpolated on log-epsilon
    between the last failing and the first meeting grid point.

    Raises
    ------
    ValueError
        ``grid`` and ``values`` of different lengths, or an empty grid.
    """
    grid, values = list(grid), list(values)
    if len(grid) != len(values) or not grid:
        raise ValueError("grid and values must have the same, non-zero length.")
    meets = [target.met(v) for v in values]
    if not meets[-1]:
        return Crossing("never", None)
    start = len(meets)
    while start > 0 and meets[start - 1]:
        start -= 1
    also = tuple(g for g, ok in zip(grid[:start], meets[:start]) if ok)
    if start == 0:
        return Crossing("below", float(grid[0]), None, also)
    e0, e1 = float(grid[start - 1]), float(grid[start])
    eps = _interpolate(e0, e1, float(values[start - 1]), float(values[start]), target.threshold)
    return Crossing("inside", eps, (e0, e1), also)
