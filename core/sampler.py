"""The project's one exact noise sampler: discrete Laplace and discrete Gaussian on a grid.

Why not ``numpy``'s ``rng.laplace`` or ``rng.normal``? A floating-point sampler does not
draw from the distribution its formula names: it computes ``scale * log(u)`` on a float
``u``, and the set of doubles it can return depends on the value the noise is added to.
Mironov (2012, "On significance of the least significant bits for differential privacy")
showed that for most outputs ``x + noise`` one of two neighbouring inputs is simply
impossible, so the privacy loss is unbounded however large the scale. Rounding the float
draw afterwards, or differencing ``rng.geometric`` (a float logarithm inside), keeps holes of
the same kind.

This module draws noise with integer arithmetic only (Canonne, Kamath & Steinke 2020,
"The Discrete Gaussian for Differential Privacy", Algorithms 1-3):

* :func:`bernoulli_exp` -- Bernoulli(exp(-gamma)) for a rational gamma, from uniform
  integers and comparisons only;
* :func:`discrete_laplace` -- P(y) proportional to exp(-|y| / t) on the integers, for an
  integer scale t;
* :func:`discrete_gaussian` -- P(y) proportional to exp(-y^2 / (2 sigma^2)) on the integers,
  for a rational sigma^2.

Every draw comes from a :class:`numpy.random.Generator` through ``Generator.integers``
(Lemire's exact bounded integers): one seed gives the same noise everywhere (the pages'
pictures), a generator from fresh entropy gives noise nobody can regenerate (releases).
Every loop is vectorised over the values still undecided, so 10^6 values cost a few times
``rng.laplace`` (``python -m benchmarks --only sampler``).

The mechanisms in :mod:`core.mechanisms` put values on a grid of spacing ``g`` (a power of
two, so ``k * g`` is an exact double) and add ``g`` times integer noise: outputs are exact
grid points, and the rounding of the true value is paid for in the sensitivity (see
:func:`grid_sensitivity`).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from core.validation import RandomState, check_random_state

__all__ = [
    "GRID_STEPS",
    "GridNoise",
    "bernoulli_exp",
    "discrete_gaussian",
    "discrete_laplace",
    "grid_for",
    "grid_sensitivity",
    "laplace_on_grid",
    "gaussian_on_grid",
]

#: The sensitivity spans at least this many grid steps (the rounding then costs < 0.1 %).
GRID_STEPS = 1024
#: Integers stay below this in every product the samplers form (int64 with headroom).
_INT_LIMIT = 2**62


def _check_rng(random_state: RandomState) -> np.random.Generator:
    return check_random_state(random_state)


def _check_size(size: Any) -> int:
    if isinstance(size, bool) or not isinstance(size, (int, np.integer)):
        raise TypeError(f"size must be an int, got {type(size).__name__}.")
    if size < 0:
        raise ValueError(f"size must be 0 or more, got {size}.")
    return int(size)


# --------------------------------------------------------------------------- Bernoulli


def _bern_exp_unit(num: np.ndarray, den: int, rng: np.random.Generator) -> np.ndarray:
    """Bernoulli(exp(-num / den)) for integers 0 <= num <= den (CKS Algorithm 1, gamma <= 1).

    K = 1, 2, ...: draw A ~ Bernoulli(gamma / K) as ``integers(0, den K) < num``; stop at
    the first A = 0 and return whether K is odd. All values still running share K, so each
    round is one call with a scalar bound.
    """
    n = num.shape[0]
    out = np.empty(n, dtype=bool)
    todo = np.arange(n)
    k = 1
    while todo.size:
        a = rng.integers(0, den * k, size=todo.size, dtype=np.int64) < num[todo]
        stop = ~a
        out[todo[stop]] = (k % 2) == 1
        todo = todo[a]
        k += 1
    return out


def _bern_exp_one(n: int, rng: np.random.Generator) -> np.ndarray:
    """n draws of Bernoulli(exp(-1)) (Algorithm 1 with gamma = 1: its first step always continues)."""
    out = np.empty(n, dtype=bool)
    todo = np.arange(n)
    k = 2
    while todo.size:
        a = rng.integers(0, k, size=todo.size, dtype=np.int64) == 0  # Bernoulli(1 / k)
        out[todo[~a]] = (k % 2) == 1
        todo = todo[a]
        k += 1
    return out


def bernoulli_exp(
    numerator: Any, denominator: int, *, random_state: RandomState = None
) -> np.ndarray:
    """Exact Bernoulli(exp(-numerator / denominator)) draws, one per numerator.

    Parameters
    ----------
    numerator : array_like of int
        Non-negative integers; gamma = numerator / denominator may exceed 1.
    denominator : int
        Positive integer shared by every draw.
    random_state : int, Generator or None
        Source of the uniform integers.

    Returns
    -------
    ndarray of bool
        True with probability exactly exp(-gamma), up to the generator's own uniformity.
    """
    num = np.asarray(numerator)
    if num.dtype.kind not in "iu":
        raise TypeError("numerator must hold integers (exact arithmetic, no floats).")
    if isinstance(denominator, bool) or not isinstance(denominator, (int, np.integer)):
        raise TypeError(f"denominator must be an int, got {type(denominator).__name__}.")
    den = int(denominator)
    if den <= 0:
        raise ValueError(f"denominator must be positive, got {den}.")
    if num.size and int(num.min()) < 0:
        raise ValueError("numerator must be 0 or more (gamma >= 0).")
    rng = _check_rng(random_state)
    flat = num.astype(np.int64).ravel()
    whole, frac = np.divmod(flat, den)
    out = _bern_exp_unit(frac, den, rng)
    # gamma > 1: exp(-gamma) = exp(-1)^floor(gamma) * exp(-frac); every factor must say yes
    todo = np.flatnonzero(out & (whole > 0))
    left = whole[todo]
    while todo.size:
        ok = _bern_exp_one(todo.size, rng)
        out[todo[~ok]] = False
        left = left[ok] - 1
        todo = todo[ok]
        keep = left > 0
        todo, left = todo[keep], left[keep]
    return out.reshape(num.shape)


# --------------------------------------------------------------------------- discrete Laplace


def _geometric_e(n: int, rng: np.random.Generator) -> np.ndarray:
    """Number of Bernoulli(exp(-1)) successes before the first failure, for n values."""
    v = np.zeros(n, dtype=np.int64)
    todo = np.arange(n)
    while todo.size:
        ok = _bern_exp_one(todo.size, rng)
        todo = todo[ok]
        v[todo] += 1
    return v


def _check_scale(scale: Any) -> int:
    if isinstance(scale, bool) or not isinstance(scale, (int, np.integer)):
        raise TypeError(
            f"scale must be an int number of grid steps, got {type(scale).__name__}; "
            "round it up (a larger scale only adds privacy)."
        )
    t = int(scale)
    if t < 1:
        raise ValueError(f"scale must be at least 1 grid step, got {t}.")
    if t > 2**40:
        raise ValueError(f"scale must be at most 2^40 grid steps (got {t}); choose a coarser grid.")
    return t


def discrete_laplace(scale: int, size: int, *, random_state: RandomState = None) -> np.ndarray:
    """Exact discrete Laplace noise: P(y) = (e^(1/t) - 1) / (e^(1/t) + 1) e^(-|y| / t), y integer.

    Canonne, Kamath & Steinke (2020), Algorithm 2 with s = 1: U uniform on {0..t-1} kept
    with probability exp(-U / t), V geometric with ratio exp(-1), X = U + t V, a random
    sign, and (negative, 0) rejected so that 0 is not counted twice.

    Parameters
    ----------
    scale : int
        t, in grid steps. Adding this noise to an integer query of sensitivity S steps is
        (S / t)-differentially private.
    size : int
        Number of independent values.
    random_state : int, Generator or None
        Source of the uniform integers (seeded for what a page shows, fresh entropy for a
        release).

    Returns
    -------
    ndarray of int64
    """
    t = _check_scale(scale)
    n = _check_size(size)
    rng = _check_rng(random_state)
    out = np.empty(n, dtype=np.int64)
    todo = np.arange(n)
    while todo.size:
        m = todo.size
        u = rng.integers(0, t, size=m, dtype=np.int64)
        d = _bern_exp_unit(u, t, rng)
        idx = todo[d]
        x = u[d] + t * _geometric_e(idx.size, rng)
        negative = rng.integers(0, 2, size=idx.size, dtype=np.int8).astype(bool)
        good = ~(negative & (x == 0))
        out[idx[good]] = np.where(negative[good], -x[good], x[good])
        done = np.zeros(m, dtype=bool)
        done[np.flatnonzero(d)[good]] = True
        todo = todo[~done]
    return out


# --------------------------------------------------------------------------- discrete Gaussian


def _as_fraction(value: Any, name: str) -> Fraction:
    if isinstance(value, bool):
        raise TypeError(f"{name} must be a number, got bool.")
    if isinstance(value, Fraction):
        frac = value
    elif isinstance(value, (int, np.integer)):
        frac = Fraction(int(value))
    elif isinstance(value, (float, np.floating)):
        if not math.isfinite(value):
            raise ValueError(f"{name} must be finite, got {value}.")
        frac = Fraction(float(value))
    else:
        raise TypeError(f"{name} must be an int, float or Fraction, got {type(value).__name__}.")
    if frac <= 0:
        raise ValueError(f"{name} must be positive, got {value}.")
    return frac


def discrete_gaussian(sigma2: Any, size: int, *, random_state: RandomState = None) -> np.ndarray:
    """Exact discrete Gaussian noise: P(y) proportional to exp(-y^2 / (2 sigma^2)), y integer.

    Canonne, Kamath & Steinke (2020), Algorithm 3: Y from the discrete Laplace of scale
    t = floor(sigma) + 1, kept with probability exp(-(|Y| - sigma^2 / t)^2 / (2 sigma^2)),
    decided by :func:`bernoulli_exp` on the exact rational exponent.

    Parameters
    ----------
    sigma2 : int, Fraction or float
        sigma^2 in grid steps squared (a float is taken at its exact binary value).
    size : int
        Number of independent values.
    random_state : int, Generator or None
        Source of the uniform integers.

    Returns
    -------
    ndarray of int64
    """
    s2 = _as_fraction(sigma2, "sigma2")
    n = _check_size(size)
    rng = _check_rng(random_state)
    a, b = s2.numerator, s2.denominator
    t = math.isqrt(a // b) + 1  # floor(sigma) + 1
    while (t - 1) ** 2 * b > a:  # isqrt of the floor can overshoot by one for non-integers
        t -= 1
    den = 2 * a * b * t * t
    limit_y = 60 * t + 60  # |Y| beyond this is kept with probability < e^-1700
    use_int64 = den * 16 < _INT_LIMIT and (limit_y * t * b + a) ** 2 < _INT_LIMIT
    out = np.empty(n, dtype=np.int64)
    todo = np.arange(n)
    while todo.size:
        y = discrete_laplace(t, todo.size, random_state=rng)
        ay = np.abs(y)
        if use_int64:
            far = ay > limit_y
            ay_c = np.minimum(ay, limit_y)
            num = (ay_c * (t * b) - a) ** 2
            keep = bernoulli_exp(num, den, random_state=rng) & ~far
        else:  # exact Python integers: slower, for very fine grids
            num = [(int(v) * t * b - a) ** 2 for v in ay]
            keep = np.fromiter((_bern_exp_big(q, den, rng) for q in num), dtype=bool,
                               count=len(num))
        out[todo[keep]] = y[keep]
        todo = todo[~keep]
    return out


def _bern_exp_big(num: int, den: int, rng: np.random.Generator) -> bool:
    """Bernoulli(exp(-num / den)) with Python integers (no size limit), one draw."""
    whole, frac = divmod(num, den)
    for _ in range(whole):
        k = 2
        while int(rng.integers(0, k)) == 0:
            k += 1
        if k % 2 == 0:
            return False
    k = 1
    while True:
        draw = _uniform_big(den * k, rng)
        if not draw < frac:
            return k % 2 == 1
        k += 1


def _uniform_big(high: int, rng: np.random.Generator) -> int:
    """A uniform integer in [0, high) for any Python int ``high`` (rejection on 62-bit limbs)."""
    if high < _INT_LIMIT:
        return int(rng.integers(0, high))
    bits = high.bit_length()
    while True:
        value = 0
        got = 0
        while got < bits:
            take = min(62, bits - got)
            value = (value << take) | int(rng.integers(0, 1 << take))
            got += take
        if value < high:
            return value


# --------------------------------------------------------------------------- grids


def grid_for(sensitivity: float, *, coordinates: int = 1) -> float:
    """The grid spacing for a query: the largest power of two g with
    ``sensitivity / g >= GRID_STEPS * coordinates``.

    A power of two makes every grid point ``k g`` an exact double, so the output is exactly
    on the declared grid; ``coordinates`` is how many coordinates one replaced record can
    move (each one's rounding can add one step, see :func:`grid_sensitivity`).
    """
    if not (isinstance(sensitivity, (int, float, np.floating, np.integer))
            and math.isfinite(sensitivity) and sensitivity > 0):
        raise ValueError(f"sensitivity must be a finite number above 0, got {sensitivity!r}.")
    exponent = math.floor(math.log2(float(sensitivity) / (GRID_STEPS * max(1, coordinates))))
    g = math.ldexp(1.0, exponent)
    while float(sensitivity) / g < GRID_STEPS * max(1, coordinates):  # log2 rounding
        g /= 2.0
    return g


def grid_sensitivity(sensitivity: float, grid: float, *, coordinates: int = 1,
                     on_grid: bool = False) -> int:
    """The query's sensitivity in grid steps after rounding to the grid.

    Rounding ``round(x / g)`` is monotone and commutes with integer shifts, so a scalar
    that moves by at most ``sensitivity`` moves by at most ``ceil(sensitivity / g)`` steps.
    A vector rounded coordinate by coordinate can gain one more step in each coordinate
    that moves: ``ceil(sensitivity / g) + coordinates - 1`` at most... bounded here by
    ``ceil(sensitivity / g) + coordinates`` (one spare step), unless ``on_grid``: values
    already on the grid (counts on the grid 1) are not rounded and gain nothing.
    """
    steps = math.ceil(Fraction(float(sensitivity)) / Fraction(float(grid)))
    if on_grid or coordinates <= 1:
        return max(1, steps)
    return steps + coordinates


@dataclass(frozen=True)
class GridNoise:
    """What one noise draw was: the sampler, its grid and its scale, for the ledger.

    Attributes
    ----------
    kind : {"discrete Laplace", "discrete Gaussian"}
    grid : float
        Spacing of the output grid (a power of two, or 1 for counts).
    scale : float
        The Laplace scale t or the Gaussian sigma, in grid steps.
    steps : int
        The query's sensitivity in grid steps, rounding included.
    epsilon : float
        The epsilon this noise delivers at that sensitivity (never above the one asked for:
        scales are rounded up).
    """

    kind: str
    grid: float
    scale: float
    steps: int
    epsilon: float

    def describe(self) -> str:
        """One sentence for a ledger entry: sampler, grid, scale."""
        what = "scale" if self.kind == "discrete Laplace" else "sigma"
        return (f"exact {self.kind} noise (integer arithmetic, no floating-point draws) on the "
                f"grid {self.grid:.6g}, {what} {self.scale:.6g} grid steps for a sensitivity "
                f"of {self.steps} steps")


def _round_to_grid(values: np.ndarray, grid: float, on_grid: bool) -> np.ndarray:
    scaled = values / grid
    units = np.floor(scaled + 0.5)
    if on_grid and not np.array_equal(units, scaled):
        raise ValueError("on_grid=True, but some values are not multiples of the grid.")
    if units.size and np.max(np.abs(units)) > 2**52:
        raise ValueError("the values are too large for this grid (more than 2^52 steps); "
                         "choose a coarser grid.")
    return units.astype(np.int64)


def laplace_on_grid(values: Any, *, sensitivity: float, epsilon: float, grid: float | None = None,
                    on_grid: bool = False, coordinates: int | None = None,
                    random_state: RandomState = None) -> tuple[np.ndarray, GridNoise]:
    """``values`` rounded to the grid plus exact discrete Laplace noise: epsilon-DP.

    Parameters
    ----------
    values : ndarray of float
        The exact answers (finite).
    sensitivity : float
        L1 sensitivity of the whole vector under the project's relation.
    epsilon : float
        The budget this release spends.
    grid : float or None
        Output spacing; None picks :func:`grid_for`. Give 1.0 with ``on_grid=True`` for
        integer counts.
    on_grid : bool
        The values are already grid multiples (declared, checked): no rounding slack.
    coordinates : int or None
        How many coordinates one replaced record can move; None means all of them.
    random_state : int, Generator or None

    Returns
    -------
    noisy : ndarray of float, exact multiples of the grid
    noise : GridNoise, for the ledger
    """
    arr = np.asarray(values, dtype=float)
    coords = arr.size if coordinates is None else int(coordinates)
    g = grid_for(sensitivity, coordinates=1 if on_grid else coords) if grid is None else float(grid)
    steps = grid_sensitivity(sensitivity, g, coordinates=coords, on_grid=on_grid)
    t = math.ceil(Fraction(steps) / Fraction(float(epsilon)))
    units = _round_to_grid(arr.ravel(), g, on_grid)
    noise = discrete_laplace(t, units.size, random_state=random_state)
    noisy = ((units + noise).astype(float) * g).reshape(arr.shape)
    return noisy, GridNoise("discrete Laplace", g, float(t), steps, steps / t)


def gaussian_on_grid(values: Any, *, sigma: float, l2_sensitivity: float, grid: float | None = None,
                     coordinates: int | None = None,
                     random_state: RandomState = None) -> tuple[np.ndarray, GridNoise]:
    """``values`` rounded to the grid plus exact discrete Gaussian noise of at least ``sigma``.

    Rounding each coordinate to the grid moves it by at most g / 2, so two neighbouring
    answers at L2 distance ``l2_sensitivity`` end at most ``l2_sensitivity + sqrt(k) g``
    apart, k the number of coordinates one replaced record can move (``coordinates``,
    default all). sigma is enlarged by that ratio, so the caller's calibration of sigma to
    ``l2_sensitivity`` still holds. The grid is a power of two with at least 1,024 steps per
    sigma and per ``l2_sensitivity / sqrt(k)`` (the enlargement is then under 0.1 %), and
    sigma^2 in steps is rounded up to an integer. The discrete Gaussian with sigma of a
    thousand steps or more has the privacy curve of the continuous one for integer shifts,
    up to terms far below 1e-100 (Canonne, Kamath & Steinke 2020, section 4).

    Returns
    -------
    noisy : ndarray of float on the grid
    noise : GridNoise (``scale`` = sigma in steps; ``epsilon`` = nan: the caller's (eps, delta))
    """
    arr = np.asarray(values, dtype=float)
    if not (math.isfinite(sigma) and sigma > 0):
        raise ValueError(f"sigma must be a finite number above 0, got {sigma!r}.")
    if not (math.isfinite(l2_sensitivity) and l2_sensitivity > 0):
        raise ValueError(f"l2_sensitivity must be a finite number above 0, got {l2_sensitivity!r}.")
    k = max(1, arr.size if coordinates is None else int(coordinates))
    g = grid_for(min(sigma, l2_sensitivity / math.sqrt(k))) if grid is None else float(grid)
    inflate = (float(l2_sensitivity) + math.sqrt(k) * g) / float(l2_sensitivity)
    sigma_steps = sigma * inflate / g
    sigma2 = Fraction(math.ceil(sigma_steps * sigma_steps * (1 + 1e-12)))  # rounded up
    units = _round_to_grid(arr.ravel(), g, False)
    noise = discrete_gaussian(sigma2, units.size, random_state=random_state)
    noisy = ((units + noise).astype(float) * g).reshape(arr.shape)
    steps = math.ceil(Fraction(float(l2_sensitivity)) / Fraction(g))
    return noisy, GridNoise("discrete Gaussian", g, math.sqrt(sigma2), steps, float("nan"))
