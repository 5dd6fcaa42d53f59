"""Mironov's floating-point attack (2012, "On significance of the least significant bits for
differential privacy"), on the old sampler and on the new one.

The old noise, ``x + rng.laplace(0, b)``, is numpy's ``random_laplace``: a double
u = k 2^-53 (k from the generator's top 53 bits), then ``-b log(2 - u - u)`` for u >= 1/2 or
``b log(u + u)`` below, then a rounded addition. Only these doubles can come out, so an
output y is possible from the count x' exactly when some k gives fl(x' + noise(k)) == y.
The noise is non-decreasing in k and so is the rounded sum, so a binary search over k
decides it exactly. For most outputs from x = 0 no k works from x' = 1: those outputs tell
the two counts apart with certainty, and the audit's lower bound on epsilon grows with the
runs, far past the claimed 1.

The new sampler's outputs are exact multiples of its declared grid, and its integer noise
reaches every grid point, so every output from 0 is possible from 1 and the same attack
finds nothing.
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

from core.privacy.mechanisms import laplace

EPSILON = 1.0
SCALE = 1.0  # sensitivity 1 (a count), epsilon 1
RUNS = 1500
ALPHA = 0.01


# ---------------------------------------------------------------- numpy's float Laplace, modelled
def _numpy_noise(k: int, scale: float = SCALE) -> float:
    """numpy's random_laplace(0, scale) for the uniform double u = k 2^-53 (0 < k < 2^53)."""
    u = k * (1.0 / 9007199254740992.0)
    if u >= 0.5:
        return 0.0 - scale * math.log(2.0 - u - u)
    return 0.0 + scale * math.log(u + u)


def _float_reachable(y: float, x: float, scale: float = SCALE) -> bool:
    """Whether fl(x + noise) == y for some double noise numpy's sampler can return."""
    lo, hi = 1, (1 << 53) - 1
    while lo < hi:  # smallest k with x + noise(k) >= y
        mid = (lo + hi) // 2
        if x + _numpy_noise(mid, scale) >= y:
            hi = mid
        else:
            lo = mid + 1
    return x + _numpy_noise(lo, scale) == y


def _old_mechanism(x: float, runs: int, seed: int) -> np.ndarray:
    """The sampler before issue 23: numpy's floating-point Laplace added to the count."""
    return x + np.random.default_rng(seed).laplace(0.0, SCALE, size=runs)


# ---------------------------------------------------------------- the new sampler
def _new_mechanism(x: float, runs: int, seed: int) -> np.ndarray:
    """``core.privacy.mechanisms.laplace`` on a count (grid 1), as the pages call it."""
    return laplace(np.full(runs, x), sensitivity=1.0, epsilon=EPSILON, grid=1.0, on_grid=True,
                   random_state=seed)


def _new_mechanism_fine(x: float, runs: int, seed: int) -> np.ndarray:
    """``core.privacy.mechanisms.laplace`` on one real value (its default power-of-two grid)."""
    rng = np.random.default_rng(seed)
    return np.array([laplace(x, sensitivity=1.0, epsilon=EPSILON, random_state=rng)
                     for _ in range(runs)])


def _grid_reachable(grid: float):
    """Discrete Laplace noise reaches every integer: y is possible from x iff y - x is a grid
    multiple (exact rational arithmetic)."""
    g = Fraction(grid)

    def reachable(y: float, x: float) -> bool:
        return ((Fraction(y) - Fraction(x)) / g).denominator == 1

    return reachable


# ---------------------------------------------------------------- the attack and the audit
def _clopper_pearson(hits: int, n: int, alpha: float) -> tuple[float, float]:
    lo = 0.0 if hits == 0 else stats.beta.ppf(alpha / 2, hits, n - hits + 1)
    hi = 1.0 if hits == n else stats.beta.ppf(1 - alpha / 2, hits + 1, n - hits)
    return lo, hi


def _attack(mechanism, reachable) -> tuple[float, float]:
    """(share of outputs from count 0 impossible from count 1, 99% lower bound on epsilon).

    The test set S = {y : y is impossible from count 1} is fixed before sampling; the
    bound is log(P0[S] lower / P1[S] upper) from Clopper-Pearson intervals (each at
    1 - alpha / 2), and ``log(P0[S^c] lower / P1[S^c] upper)`` the other way round.
    """
    out0 = mechanism(0.0, RUNS, 1)
    out1 = mechanism(1.0, RUNS, 2)
    in_s0 = np.array([not reachable(float(y), 1.0) for y in out0])
    in_s1 = np.array([not reachable(float(y), 1.0) for y in out1])
    h0, h1 = int(in_s0.sum()), int(in_s1.sum())
    p0_lo, _ = _clopper_pearson(h0, RUNS, ALPHA)
    _, p1_hi = _clopper_pearson(h1, RUNS, ALPHA)
    bound = math.log(p0_lo / p1_hi) if p0_lo > 0 else 0.0
    return h0 / RUNS, bound


def test_the_model_reproduces_numpy_bit_for_bit():
    rng = np.random.default_rng(7)
    words = rng.bit_generator.random_raw(1000)
    expected = np.random.default_rng(7).laplace(0.0, SCALE, size=1000)
    model = [_numpy_noise(int(w) >> 11) for w in words]
    assert np.array_equal(np.array(model), expected)


def test_the_attack_detects_the_old_float_sampler():
    share, bound = _attack(_old_mechanism, _float_reachable)
    assert share > 0.5  # the issue measured 82 %
    assert bound > 2 * EPSILON


@pytest.mark.parametrize("mechanism,grid", [(_new_mechanism, 1.0), (_new_mechanism_fine, None)])
def test_the_attack_finds_nothing_on_the_exact_sampler(mechanism, grid):
    out0 = mechanism(0.0, RUNS, 1)
    if grid is None:  # the grid the mechanism declares for sensitivity 1
        from core.privacy.sampler import grid_for

        grid = grid_for(1.0)
    reachable = _grid_reachable(grid)
    assert all(reachable(float(y), 0.0) for y in out0)  # every output is on the grid
    share, bound = _attack(mechanism, reachable)
    assert share == 0.0
    assert bound <= EPSILON


def test_the_grid_check_also_flags_the_old_sampler():
    out0 = _old_mechanism(0.0, RUNS, 1)
    on_grid = _grid_reachable(2.0**-10)
    assert np.mean([not on_grid(float(y), 0.0) for y in out0]) > 0.99


def test_a_threshold_audit_of_the_exact_sampler_stays_within_epsilon():
    out0 = _new_mechanism(0.0, 5000, 3)
    out1 = _new_mechanism(1.0, 5000, 4)
    h0, h1 = int((out0 <= 0).sum()), int((out1 <= 0).sum())
    p0_lo, _ = _clopper_pearson(h0, 5000, ALPHA)
    _, p1_hi = _clopper_pearson(h1, 5000, ALPHA)
    assert math.log(p0_lo / p1_hi) <= EPSILON
