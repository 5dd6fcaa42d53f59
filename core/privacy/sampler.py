"""The project's one exact noise sampler: discrete Laplace and discrete Gaussian on a grid.

Why not ``numpy``'s ``rng.laplace`` or ``rng.normal``? A floating-point sampler does not
draw from the distribution its formula names: it computes ``scale * log(u)`` on a float
``u``, and the set of doubles it can return depends on the value the noise is added to.
Mironov (2012, "On significance of the least significant bits for differential privacy")
showed that for most outputs ``x + noise`` one of two neighbouring inputs is simply
impossible, so the privacy loss is unbounded however large the scale. Rounding the float
draw afterwards, or differencing ``rng.geometric`` (a float logarithm inside), keeps holes of
the same kind.

This module draws noise with integer arithmetic only (the distributions of Canonne, Kamath
& Steinke 2020, "The Discrete Gaussian for Differential Privacy"):

* :func:`bernoulli_exp` -- Bernoulli(exp(-gamma)) for a rational gamma;
* :func:`discrete_laplace` -- P(y) proportional to exp(-|y| / t) on the integers, for an
  integer scale t;
* :func:`discrete_gaussian` -- P(y) proportional to exp(-y^2 / (2 sigma^2)) on the integers,
  for a rational sigma^2 (CKS Algorithm 3: discrete Laplace proposals, exact acceptance).

How a draw stays exact and fast. Every random decision is "is R < S?" for a uniform real
R and a probability S defined exactly (exp(-p/q), or a ratio of such). R is read as 64-bit
words from ``Generator.integers(0, 2**64, dtype=uint64)``; floor(S 2^64) is computed once
with Python integers (interval arithmetic: Taylor series with rounding bounds, precision
raised until the floor is certain) and cached in a table. One vectorised compare decides
every value whose word differs from the threshold; a word equal to it (probability 2^-64)
is settled by the next word against the next 64 bits of S, and so on (a scalar path). The
geometric magnitude of the discrete Laplace is split into base-2^b digits, which are
independent truncated geometrics (exp(-g / t) factorises over them): each digit is one word
and an inverse-CDF lookup through a guide table on the word's top 16 bits. A Bernoulli with
exponent num / den is the AND of independent Bernoullis: exp(-w) for the whole part w, and
one per base-2^b digit of the remainder.

Every word comes from the one :class:`numpy.random.Generator` passed in: one seed gives the
same noise everywhere (the pages' pictures), a generator from fresh entropy gives noise
nobody can regenerate (releases). 10^6 discrete Laplace values cost about 2-3 times
``rng.laplace`` (``python -m benchmarks --only sampler``).

Where the parts live: :mod:`core.privacy.exact_thresholds` (exact floors of S 2^64 and the
tie-breaking comparison), :mod:`core.privacy.threshold_tables` (the cached tables),
:mod:`core.privacy.discrete_noise` (:func:`~core.privacy.discrete_noise.bernoulli_exp`,
:func:`~core.privacy.discrete_noise.discrete_laplace`,
:func:`~core.privacy.discrete_noise.discrete_gaussian`) and
:mod:`core.privacy.sampler_reference` (CKS's Algorithms 1-2, the K-loop, a different exact
construction, for the tests). This module puts the noise on a grid.

The mechanisms in :mod:`core.privacy.mechanisms` put values on a grid of spacing ``g`` (a power of
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

from core.privacy.discrete_noise import discrete_gaussian, discrete_laplace
from core.runtime.randomness import RandomState

__all__ = [
    "GRID_STEPS",
    "GridNoise",
    "grid_for",
    "grid_sensitivity",
    "laplace_on_grid",
    "gaussian_on_grid",
]

#: The sensitivity spans at least this many grid steps (the rounding then costs < 0.1 %).
GRID_STEPS = 1024


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
