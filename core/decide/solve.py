"""Solve for epsilon: the epsilon range over which a method meets a target, and how sure that is.

:func:`solve_epsilon` reads one method's curve (a measure at each epsilon, several
repetitions each) and answers with a :class:`Solution`, in the target's direction
(:attr:`core.decide.target.Target.direction`, from :func:`core.decide.target.direction_of`):

* ``"from"`` (utility, accuracy, an error, a fidelity score: more epsilon helps): the
  smallest epsilon from which the mean meets the target at every larger grid epsilon
  (interpolated on log-epsilon between the last failing and the first meeting grid point);
* ``"up_to"`` (an at-most target on a privacy risk: risk grows with epsilon): the largest
  epsilon up to which the mean meets the target at every smaller grid epsilon (interpolated
  between the last meeting and the first failing grid point), the same logic on the grid
  read from the largest epsilon down;

and its uncertainty, the epsilons where the optimistic and the pessimistic bound of each
mean's t interval cross the same way.
:func:`solve_summary` does it for every method of a comparison's runs
(:attr:`core.compare.result.ComparisonResult.runs`), which is what ``pux solve`` prints and
what the pages mark on their curves.

Choosing epsilon from results on the private data is itself a use of the private data
(:data:`core.decide.selection.PRIVATE_CHOICE_NOTE`): solve on a public reference table, or
pay for the choice with private selection.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd

from core.decide.curve import Crossing, CurvePoints, _check_confidence, crossing, curve_points
from core.decide.target import UP_TO, Target

__all__ = ["Solution", "solve_epsilon", "solve_summary"]


def _safe(value: Any) -> Any:
    """A JSON-safe number: None for a missing, NaN or infinite one."""
    if value is None:
        return None
    v = float(value)
    return v if math.isfinite(v) else None


@dataclass(frozen=True)
class Solution:
    """The answer for one method and one target.

    Attributes
    ----------
    method : str
    target : Target
    met : bool
        Whether some epsilon in range meets the target from there on, or up to there for an
        ``"up_to"`` target (for a method that takes no epsilon: whether its value meets it).
    epsilon : float or None
        ``"from"`` (:attr:`direction`): the smallest epsilon from which the mean meets the
        target at every larger grid epsilon (the smallest grid epsilon when the mean meets it
        there already: the answer is then at or below it). ``"up_to"``: the largest epsilon up
        to which the mean meets it at every smaller grid epsilon (the largest grid epsilon when
        the mean meets it there still: the answer is then at or above it). None when none does
        (for ``"up_to"``: the mean fails already at the smallest epsilon tried).
    epsilon_low, epsilon_high : float or None
        The lower and upper end of the uncertainty of ``epsilon``: where the optimistic and the
        pessimistic bound of the means' intervals cross. ``"from"``: ``epsilon_low`` from the
        optimistic bound, ``epsilon_high`` from the pessimistic one, ``math.inf`` when that
        meets the target nowhere in range. ``"up_to"``: ``epsilon_low`` where the pessimistic
        bound stops meeting it (the largest grid epsilon when it never stops), ``epsilon_high``
        where the optimistic bound stops, ``math.inf`` when that meets it at every epsilon in
        range. Either is None where unknown or below the range (a single repetition, an
        optimistic crossing at or below the smallest epsilon for ``"from"``, a pessimistic bound
        that fails already at the smallest epsilon for ``"up_to"``, no epsilon).
    grid : tuple of float
        The epsilons of the curve, ascending.
    means, lows, highs : tuple
        The mean and its interval at each grid epsilon (None where an epsilon had one repetition).
    repetitions : int
        The fewest repetitions at any grid epsilon (of a method without epsilon: its runs).
    confidence : float
        Coverage of each interval.
    reason : str
        The answer in one sentence of plain words.
    value : float or None
        The mean value of a method that takes no epsilon (None for the others).
    direction : {"from", "up_to"}
        A property: the target's :attr:`~core.decide.target.Target.direction`.
    """

    method: str
    target: Target
    met: bool
    epsilon: float | None
    epsilon_low: float | None
    epsilon_high: float | None
    grid: tuple[float, ...]
    means: tuple[float, ...]
    lows: tuple[float | None, ...]
    highs: tuple[float | None, ...]
    repetitions: int
    confidence: float
    reason: str
    value: float | None = None

    @property
    def direction(self) -> str:
        """``"from"`` (met from ``epsilon`` on) or ``"up_to"`` (met up to ``epsilon``: a risk)."""
        return self.target.direction

    def to_dict(self) -> dict[str, Any]:
        """Every field and ``direction``, JSON-safe: the target as :meth:`Target.to_dict`, None for
        what is missing or infinite; ``epsilon_high_beyond_range`` is True where ``epsilon_high``
        is None because the upper end lies beyond the range (not because it is unknown)."""
        return {
            "method": self.method, "target": self.target.to_dict(), "direction": self.direction,
            "met": bool(self.met),
            "epsilon": _safe(self.epsilon), "epsilon_low": _safe(self.epsilon_low),
            "epsilon_high": _safe(self.epsilon_high),
            "epsilon_high_beyond_range": self.epsilon_high is not None and math.isinf(self.epsilon_high),
            "grid": [float(g) for g in self.grid],
            "means": [_safe(m) for m in self.means], "lows": [_safe(v) for v in self.lows],
            "highs": [_safe(v) for v in self.highs], "repetitions": int(self.repetitions),
            "confidence": float(self.confidence), "reason": self.reason, "value": _safe(self.value),
        }


# ----------------------------------------------------------------------------- words
def _num(value: float) -> str:
    return f"{value:.4g}"


def _best(points: CurvePoints, target: Target) -> tuple[float, float]:
    """(value, epsilon) of the best mean on the grid for this target (on ties the largest epsilon,
    the smallest for an ``"up_to"`` target)."""
    order = np.asarray(points.means) * (1 if target.higher_is_better else -1)
    i = int(np.argmax(order)) if target.direction == UP_TO else int(len(order) - 1 - np.argmax(order[::-1]))
    return points.means[i], points.grid[i]


def _range_words(low: float | None, high: float | None, points: CurvePoints, confidence: float) -> str:
    if not points.intervals_known:
        return "with one repetition at some epsilon its uncertainty is unknown (run at least two repetitions)"
    start = f"epsilon {_num(low)}" if low is not None else f"the smallest epsilon tried ({_num(points.grid[0])}) or below"
    if high is None:
        end = "an unknown epsilon"
    elif math.isinf(high):
        end = f"beyond the largest epsilon tried ({_num(points.grid[-1])})"
    else:
        end = f"epsilon {_num(high)}"
    return f"with {confidence:.0%} confidence the answer lies between {start} and {end}"


def _head(point: Crossing, points: CurvePoints, target: Target) -> str:
    """The answer's first clause, in the target's direction."""
    if target.direction == UP_TO:
        if point.where == "below":
            return (f"The mean meets {target.describe()} at every epsilon tried, still at the largest epsilon "
                    f"tried ({_num(points.grid[-1])}), so the answer is at or above it")
        e_fail, e_meet = point.segment  # type: ignore[misc]
        return (f"The mean meets {target.describe()} up to epsilon {_num(point.epsilon)} (interpolated on "
                f"log-epsilon between {_num(e_meet)} and {_num(e_fail)})")
    if point.where == "below":
        return (f"The mean meets {target.describe()} already at the smallest epsilon tried "
                f"({_num(points.grid[0])}), so the answer is at or below it")
    e0, e1 = point.segment  # type: ignore[misc]
    return (f"The mean meets {target.describe()} from epsilon {_num(point.epsilon)} on (interpolated on "
            f"log-epsilon between {_num(e0)} and {_num(e1)})")


def _reason(point: Crossing, low: float | None, high: float | None, points: CurvePoints, target: Target,
            confidence: float) -> str:
    parts = [_head(point, points, target), _range_words(low, high, points, confidence)]
    if point.also_met:
        listed = ", ".join(_num(e) for e in sorted(point.also_met))
        parts.append(f"the mean crosses the target more than once (it meets it again at epsilon {listed}, above "
                     "an epsilon where it fails), so this is the largest epsilon up to which it meets it throughout"
                     if target.direction == UP_TO else
                     f"the mean crosses the target more than once (it also meets it at epsilon {listed} and "
                     "fails again above), so this is where it meets it for good")
    return "; ".join(parts) + "."


def _never_up_to(points: CurvePoints, met_at: list[float], high: float | None) -> str:
    """What a ``"up_to"`` answer with no epsilon adds: the smallest epsilon fails already."""
    text = (f"; a risk's target must hold at every smaller epsilon too, and the mean fails it already at the "
            f"smallest epsilon tried ({_num(points.grid[0])})")
    if met_at:
        text += (f"; the mean meets it at epsilon {', '.join(_num(e) for e in met_at)} but fails at a smaller "
                 "epsilon, so the curve crosses the target more than once")
    if high is not None:
        reach = "at every epsilon tried" if math.isinf(high) else f"up to epsilon {_num(high)}"
        text += (f"; the optimistic end of the means' intervals meets it {reach}, so more repetitions could "
                 "change this answer")
    return text


def _never_reason(points: CurvePoints, target: Target, low: float | None, high: float | None = None) -> str:
    value, eps = _best(points, target)
    text = (f"No epsilon in range meets {target.describe()} (best mean: {_num(value)} at epsilon {_num(eps)}; "
            f"range {_num(points.grid[0])} to {_num(points.grid[-1])})")
    met_at = [g for g, m in zip(points.grid, points.means) if target.met(m)]
    if target.direction == UP_TO:
        return text + _never_up_to(points, met_at, high) + "."
    if met_at:
        text += (f"; the mean meets it at epsilon {', '.join(_num(e) for e in met_at)} but fails again at a "
                 "larger epsilon, so the curve crosses the target more than once")
    if low is not None:
        text += (f"; the optimistic end of the means' intervals meets it from epsilon {_num(low)}, so more "
                 "repetitions could change this answer")
    return text + "."


# ----------------------------------------------------------------------------- solving
def _bounds(points: CurvePoints, target: Target) -> tuple[list, list]:
    """(optimistic, pessimistic) bound at each grid epsilon for this target's direction."""
    if target.higher_is_better:
        return list(points.highs), list(points.lows)
    return list(points.lows), list(points.highs)


def _cross(points: CurvePoints, values: Any, target: Target) -> Crossing:
    """:func:`~core.decide.curve.crossing` in the target's direction: on the ascending grid for
    ``"from"``; for ``"up_to"`` on the grid read from the largest epsilon down, so that "below"
    means "still met at the largest epsilon", ``segment`` is (failing, meeting) epsilon and
    ``also_met`` lists larger epsilons where the series meets the target again."""
    if target.direction == UP_TO:
        return crossing(points.grid[::-1], list(values)[::-1], target)
    return crossing(points.grid, values, target)


def _uncertainty(points: CurvePoints, target: Target) -> tuple[float | None, float | None]:
    """(epsilon_low, epsilon_high): where the optimistic and the pessimistic bound cross."""
    if not points.intervals_known:
        return None, None
    optimistic, pessimistic = _bounds(points, target)
    opt, pes = _cross(points, optimistic, target), _cross(points, pessimistic, target)
    if target.direction == UP_TO:
        low = pes.epsilon if pes.where != "never" else None  # None: it fails already at the smallest epsilon
        high = math.inf if opt.where == "below" else opt.epsilon  # inf: met at every epsilon in range
        return low, high
    low = opt.epsilon if opt.where == "inside" else None
    high = math.inf if pes.where == "never" else pes.epsilon
    return low, high


def solve_epsilon(curve: pd.DataFrame, target: Target, *, method: str = "",
                  confidence: float = 0.95) -> Solution:
    """The epsilon of the curve's range from which (or, for a risk, up to which) the mean meets
    ``target``, with its uncertainty.

    Parameters
    ----------
    curve : DataFrame
        Columns ``epsilon`` and ``value``, one row per (epsilon, repetition): the repetitions
        at one epsilon give the uncertainty of its mean.
    target : Target
    method : str
        The method's name, carried into the Solution.
    confidence : float in (0, 1)
        Coverage of each mean's two-sided t interval.

    Returns
    -------
    Solution
        For a ``"from"`` target (:attr:`Target.direction <core.decide.target.Target.direction>`),
        ``epsilon`` is where the mean meets the target at that point and at every larger grid
        epsilon (the start of the last run of meeting points, interpolated linearly on
        log-epsilon between the last failing and the first meeting grid point). For an
        ``"up_to"`` target (a risk at most Z), where it meets it at that point and at every
        smaller grid epsilon (the end of the first run of meeting points, interpolated between
        the last meeting and the first failing grid point): more epsilon there would give the
        attack more. ``epsilon_low`` and ``epsilon_high`` are found the same way from the
        optimistic and the pessimistic bound. Privacy: when the curve comes from the private data, the
        choice it supports is itself a use of the private data
        (:data:`core.decide.selection.PRIVATE_CHOICE_NOTE`).
    """
    if not isinstance(target, Target):
        raise TypeError(f"target must be a Target, got {type(target).__name__}.")
    if not isinstance(method, str):
        raise TypeError(f"method must be a string, got {type(method).__name__}.")
    confidence = _check_confidence(confidence)
    points = curve_points(curve, confidence=confidence)
    point = _cross(points, points.means, target)
    low, high = _uncertainty(points, target)
    common = dict(method=method, target=target, grid=points.grid, means=points.means, lows=points.lows,
                  highs=points.highs, repetitions=min(points.counts), confidence=confidence)
    if point.where == "never":
        return Solution(met=False, epsilon=None, epsilon_low=low, epsilon_high=high if points.intervals_known
                        else None, reason=_never_reason(points, target, low, high), **common)
    return Solution(met=True, epsilon=point.epsilon, epsilon_low=low, epsilon_high=high,
                    reason=_reason(point, low, high, points, target, confidence), **common)


# ----------------------------------------------------------------------------- a comparison's runs
def _no_epsilon(method: str, values: np.ndarray, target: Target, confidence: float) -> Solution:
    value = float(np.mean(values))
    verdict = "meets" if target.met(value) else "does not meet"
    return Solution(method=method, target=target, met=target.met(value), epsilon=None, epsilon_low=None,
                    epsilon_high=None, grid=(), means=(), lows=(), highs=(), repetitions=int(len(values)),
                    confidence=confidence, value=value,
                    reason=f"{method} takes no epsilon: its value is {_num(value)}, which {verdict} the "
                           f"target ({target.describe()}).")


def _not_applicable(method: str, target: Target, confidence: float) -> Solution:
    return Solution(method=method, target=target, met=False, epsilon=None, epsilon_low=None, epsilon_high=None,
                    grid=(), means=(), lows=(), highs=(), repetitions=0, confidence=confidence,
                    reason=f"The measure {target.measure} does not apply to {method}: its runs have no value "
                           "of it, so no epsilon can be solved for.")


def _check_runs(runs: pd.DataFrame, target: Target) -> None:
    if not isinstance(runs, pd.DataFrame):
        raise TypeError(f"runs must be a pandas DataFrame, got {type(runs).__name__}.")
    if not isinstance(target, Target):
        raise TypeError(f"target must be a Target, got {type(target).__name__}.")
    missing = [c for c in ("method", "epsilon") if c not in runs.columns]
    if missing:
        raise ValueError(f"runs must have the columns method and epsilon (a comparison's runs); it lacks {missing}.")
    if target.measure not in runs.columns:
        raise ValueError(f"the runs have no measure {target.measure!r}; they have "
                         f"{[c for c in runs.columns if c not in ('method', 'kind', 'epsilon', 'repetition', 'seed')]}.")


def _solve_method(method: str, rows: pd.DataFrame, target: Target, confidence: float) -> Solution:
    eps = pd.to_numeric(rows["epsilon"], errors="coerce").to_numpy(dtype=float)
    values = pd.to_numeric(rows[target.measure], errors="coerce").to_numpy(dtype=float)
    has_eps = np.isfinite(eps)
    if not np.isfinite(values).any():
        return _not_applicable(method, target, confidence)
    if not has_eps.any():
        return _no_epsilon(method, values[np.isfinite(values)], target, confidence)
    keep = has_eps & np.isfinite(values)
    if not keep.any():
        return _not_applicable(method, target, confidence)
    curve = pd.DataFrame({"epsilon": eps[keep], "value": values[keep]})
    solution = solve_epsilon(curve, target, method=method, confidence=confidence)
    if "is_dp" in rows.columns and not rows["is_dp"].astype(bool).any():
        solution = replace(solution, reason=solution.reason[:-1] + "; its epsilon is nominal: the release is not "
                                                                   "differentially private.")
    return solution


def solve_summary(runs: pd.DataFrame, target: Target, *, confidence: float = 0.95) -> list[Solution]:
    """One :class:`Solution` per method of a comparison's runs, in the order the methods ran.

    Parameters
    ----------
    runs : DataFrame
        :attr:`core.compare.result.ComparisonResult.runs`: columns ``method``, ``epsilon``,
        ``repetition`` and the target's measure (``is_dp`` too, when present: a method whose
        releases are not DP gets a Solution that says its epsilon is nominal).
    target : Target
    confidence : float in (0, 1)

    Returns
    -------
    list of Solution
        A method that takes no epsilon (epsilon NaN) gets one that says whether its value
        meets the target; a method without any value of the measure, one that says it does
        not apply. ``pux solve`` prints these; the pages mark them on their curves, so the
        same runs give the same answer in both.
    """
    _check_runs(runs, target)
    confidence = _check_confidence(confidence)
    methods = list(dict.fromkeys(runs["method"].tolist()))
    return [_solve_method(str(m), runs[runs["method"] == m], target, confidence) for m in methods]
