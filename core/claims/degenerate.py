"""When a number cannot decide a paper's claim: tied, constant or degenerate statistics.

A claim's rule compares numbers ("CS is below GS", "C(x) falls as features are added",
"the two rankings differ"). Some numbers carry nothing for that comparison: two values
equal but for floating-point rounding, a series that does not move, a record correlation
that is +-1 for every pair whatever the records hold, a count that sits at the most it
can be. No rule in ``core/*/claims.py`` rates a claim as holding on such a number: the
claim says "Cannot be judged here", and its sentence names the definition below and why.

Each definition is a constant with its reason in words (``*_REASON``), and a small test of
it; the claims and the real-table sweep import both. No randomness, no streamlit.
"""
from __future__ import annotations

import math
import numbers
from typing import Any, Iterable

import numpy as np

__all__ = [
    "TIE_RTOL", "TIE_REASON", "CONSTANT_REASON", "MIN_PEARSON_FEATURES", "PEARSON_REASON",
    "CEILING_REASON", "tied", "below", "constant", "pair_ceiling", "at_ceiling", "pearson_degenerate",
]

#: Two numbers are tied when they differ by at most this share of the larger one's size.
TIE_RTOL = 1e-6
#: Why a tie decides nothing.
TIE_REASON = (f"equal within a relative {TIE_RTOL:g}: a difference that small is floating-point rounding of "
              "the same quantity, and no display tells the two apart, so neither is below the other")
#: Why a constant series decides nothing (every value tied with every other).
CONSTANT_REASON = ("constant across the series (every value equal within a relative "
                   f"{TIE_RTOL:g}): it ranks nothing and has no trend, so an order or a trend read from it "
                   "is the tie-break, not the data")
#: A Pearson record correlation needs at least this many features to say anything.
MIN_PEARSON_FEATURES = 3
#: Why a Pearson record correlation from fewer features decides nothing.
PEARSON_REASON = (f"a Pearson record correlation from fewer than {MIN_PEARSON_FEATURES} features: across one "
                  "feature it is undefined, and across two every pair of distinct records correlates at +-1, "
                  "whatever the records hold")
#: Why a count of record pairs at its ceiling decides nothing.
CEILING_REASON = ("a count at its N(N-1)/2 ceiling: every pair of records counts as fully correlated, which "
                  "says the measure saturated, not how the records relate")


def _real(value: Any, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a number, got {type(value).__name__}.")
    return float(value)


def _rtol(rtol: Any) -> float:
    rtol = _real(rtol, "rtol")
    if not (0.0 <= rtol < 1.0):  # false for NaN too
        raise ValueError(f"rtol must lie in [0, 1): a share of the larger value's size; got {rtol!r}.")
    return rtol


def tied(a: Any, b: Any, *, rtol: float = TIE_RTOL) -> bool:
    """Whether ``a`` and ``b`` are equal within a relative ``rtol`` (:data:`TIE_REASON`);
    False when either is NaN (an undefined number ties with nothing)."""
    a, b, rtol = _real(a, "a"), _real(b, "b"), _rtol(rtol)
    if math.isnan(a) or math.isnan(b):
        return False
    return math.isclose(a, b, rel_tol=rtol, abs_tol=0.0)


def below(a: Any, b: Any, *, rtol: float = TIE_RTOL) -> bool | None:
    """``a < b`` as a claim may read it: None when the two are :func:`tied` (or either is
    NaN), else whether ``a`` is below ``b``."""
    a, b = _real(a, "a"), _real(b, "b")
    if math.isnan(a) or math.isnan(b) or tied(a, b, rtol=rtol):
        return None
    return bool(a < b)


def constant(values: Iterable[Any], *, rtol: float = TIE_RTOL) -> bool:
    """Whether every finite value of ``values`` is :func:`tied` with the largest in size
    (:data:`CONSTANT_REASON`); True for fewer than two finite values (nothing moves)."""
    v = np.asarray(list(values), dtype=float)
    v = v[np.isfinite(v)]
    if len(v) < 2:
        return True
    return bool(np.ptp(v) <= _rtol(rtol) * float(np.max(np.abs(v))))


def pair_ceiling(n_records: Any) -> float:
    """N(N-1)/2, the most record pairs a count over pairs can reach (C(x) of paper 000)."""
    if isinstance(n_records, bool) or not isinstance(n_records, numbers.Integral):
        raise TypeError(f"n_records must be an int, got {type(n_records).__name__}.")
    if n_records < 0:
        raise ValueError(f"n_records counts records, so it is 0 or more; got {n_records}.")
    return float(n_records) * (float(n_records) - 1.0) / 2.0


def at_ceiling(value: Any, ceiling: Any, *, rtol: float = TIE_RTOL) -> bool:
    """Whether ``value`` sits at its ``ceiling`` (:func:`tied` with it; :data:`CEILING_REASON`)."""
    ceiling = _real(ceiling, "ceiling")
    return ceiling > 0 and tied(value, ceiling, rtol=rtol)


def pearson_degenerate(features: Any, measure: str) -> bool:
    """Whether a record correlation from ``features`` features under ``measure`` is
    degenerate (:data:`PEARSON_REASON`): Pearson from fewer than :data:`MIN_PEARSON_FEATURES`.
    Mahalanobis (a distance) is defined from one feature on."""
    if not isinstance(measure, str):
        raise TypeError(f"measure must be a str, got {type(measure).__name__}.")
    if isinstance(features, bool) or not isinstance(features, numbers.Integral):
        raise TypeError(f"features must be an int, got {type(features).__name__}.")
    return measure == "pearson" and int(features) < MIN_PEARSON_FEATURES
