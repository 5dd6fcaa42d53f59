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
* :func:`discrete_laplace` -- P(y) proportional to exp(-|y| / t) on the integers, for any
  positive rational scale t (an int or a Fraction: steps / epsilon exactly, never rounded);
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
``rng.laplace``, at a rational scale as at an integer one (``python -m benchmarks --only
sampler``).

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
:func:`grid_sensitivity`): one step for the rounding itself and one spare step for every
rounded value, because the value and the sensitivity were computed in floating point and a
rounding error smaller than a step can still carry a value across a half-step boundary.
Values declared on the grid (``on_grid=True``: counts on the grid 1) are not rounded and pay
no spare step.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from core.privacy.discrete_noise import (
    _as_fraction,
    discrete_gaussian,
    discrete_laplace,
)
from core.runtime.randomness import RandomState, check_random_state

__all__ = [
    "GRID_STEPS",
    "ROUNDED_LIMIT",
    "GridNoise",
    "RoundDraws",
    "check_grid",
    "gaussian_grid_steps",
    "gaussian_on_grid",
    "grid_for",
    "grid_sensitivity",
    "laplace_on_grid",
]

#: The sensitivity spans at least this many grid steps (the rounding then costs < 0.2 %).
GRID_STEPS = 1024

#: A value rounded to the grid stays below this many steps: one ulp of it is then at most
#: 2^-12 steps, so its floating-point error stays far below the spare step it is paid.
ROUNDED_LIMIT = 2**40


def grid_for(sensitivity: float, *, coordinates: int = 1) -> float:
    """The grid spacing for a query: the largest power of two g with
    ``sensitivity / g >= GRID_STEPS * coordinates``.

    Parameters
    ----------
    sensitivity : float
        How far one replaced record can move the answer (L1 for Laplace; for the Gaussian,
        the smaller of sigma and the L2 sensitivity per coordinate). A finer grid costs
        nothing in privacy; it only makes the rounding slack a smaller share of the noise.
    coordinates : int
        How many coordinates one replaced record can move; each one's rounding costs up to
        two steps (:func:`grid_sensitivity`), so the grid has GRID_STEPS steps per coordinate.

    Returns
    -------
    float
        A power of two, so every grid point ``k g`` is an exact double and the output lies
        exactly on the declared grid.
    """
    if not (isinstance(sensitivity, (int, float, np.floating, np.integer))
            and math.isfinite(sensitivity) and sensitivity > 0):
        raise ValueError(f"sensitivity must be a finite number above 0, got {sensitivity!r}.")
    exponent = math.floor(math.log2(float(sensitivity) / (GRID_STEPS * max(1, coordinates))))
    g = math.ldexp(1.0, exponent)
    while float(sensitivity) / g < GRID_STEPS * max(1, coordinates):  # log2 rounding
        g /= 2.0
    return g


def check_grid(grid: Any) -> float:
    """``grid`` as a float, refused unless it is a positive power of two.

    A power of two makes ``value / grid`` and ``k * grid`` exact, so rounding to the grid adds
    no error of its own and every output is exactly the grid point it names.
    """
    g = float(grid)
    if not (math.isfinite(g) and g > 0 and math.frexp(g)[0] == 0.5):
        raise ValueError(f"grid must be a positive power of two (so k * grid is exact), got {grid!r}.")
    return g


def grid_sensitivity(sensitivity: float, grid: float, *, coordinates: int = 1,
                     on_grid: bool = False) -> int:
    """The query's L1 sensitivity in grid steps after rounding to the grid: what is paid.

    In exact arithmetic, rounding ``floor(x / g + 1/2)`` is monotone and commutes with
    integer shifts, so k coordinates that move by ``d_1 + ... + d_k <= sensitivity`` move by
    at most ``ceil(sensitivity / g) + k - 1`` steps. But the values (and often the
    sensitivity, e.g. ``(hi - lo) / n``) are computed in floating point: an error far below
    one step can carry a value across a half-step boundary, one step further than the real
    difference allows (two reals ``sensitivity`` apart, rounded, land
    ``ceil(sensitivity / g) + 1`` steps apart). So every rounded value pays ONE SPARE STEP:
    ``ceil(sensitivity / g) + 2k - 1`` steps, ``ceil(sensitivity / g) + 1`` for a scalar. This
    holds while each value's floating-point error plus the sensitivity's stays below one
    step (values under :data:`ROUNDED_LIMIT` steps: an ulp is at most 2^-12 steps there).

    Parameters
    ----------
    sensitivity : float
        How far one replaced record moves the answer in L1 (the caller's bound, possibly
        rounded to the nearest double: the spare step covers that rounding).
    grid : float
        The grid spacing g (a power of two).
    coordinates : int
        k, how many coordinates one replaced record can move (the others are computed from
        the same records and stay bitwise equal). At least 1.
    on_grid : bool
        The values are exact multiples of the grid by construction of the query (counts on
        the grid 1), declared by the caller, never read from the records: nothing is
        rounded, so no step is added, ``max(1, ceil(sensitivity / g))``.

    Returns
    -------
    int
        The sensitivity in steps that the noise's scale is calibrated to.
    """
    steps = math.ceil(Fraction(float(sensitivity)) / Fraction(float(grid)))
    if on_grid:
        return max(1, steps)
    return steps + 2 * max(1, int(coordinates)) - 1


def gaussian_grid_steps(l2_sensitivity: float, grid: float, coordinates: int) -> int:
    """The L2 sensitivity in grid steps after rounding, spare steps included (rounded up).

    Each rounded coordinate moves by its real difference plus less than two steps (one for
    the rounding, one spare for the floating-point error of the value, as in
    :func:`grid_sensitivity`), so two neighbouring answers end at most
    ``l2_sensitivity / g + 2 sqrt(k)`` steps apart in L2; this is the smallest integer above
    that (decided exactly with fractions).

    Parameters
    ----------
    l2_sensitivity : float
        How far one replaced record moves the answer in L2.
    grid : float
        The grid spacing g (a power of two).
    coordinates : int
        k, how many coordinates one replaced record can move.
    """
    real = Fraction(float(l2_sensitivity)) / Fraction(float(grid))
    k = max(1, int(coordinates))
    steps = math.ceil(real + 2 * math.sqrt(k))
    while (steps - real) ** 2 < 4 * k:  # steps - real >= 2 sqrt(k), exactly
        steps += 1
    return steps


@dataclass(frozen=True)
class GridNoise:
    """What one noise draw was: the sampler, its grid and its scale, for the ledger.

    Attributes
    ----------
    kind : {"discrete Laplace", "discrete Gaussian"}
    grid : float
        Spacing of the output grid (a power of two; 1 for counts).
    scale : float
        The Laplace scale t or the Gaussian sigma, in grid steps (for the Laplace, the exact
        rational ``exact_scale`` as the nearest double).
    steps : int
        The query's sensitivity in grid steps that the scale is calibrated to, rounding to
        the grid and its spare steps included (L1 for Laplace, :func:`grid_sensitivity`;
        L2 for the Gaussian, :func:`gaussian_grid_steps`).
    epsilon : float
        The epsilon this noise delivers at that sensitivity: for the Laplace exactly the one
        asked for (steps / exact_scale); nan for the Gaussian (the caller's (eps, delta)).
    exact_scale : Fraction or None
        The Laplace scale the sampler drew with, exactly: steps / epsilon, epsilon read at
        its exact binary value (None for the Gaussian).
    """

    kind: str
    grid: float
    scale: float
    steps: int
    epsilon: float
    exact_scale: Fraction | None = None

    def describe(self) -> str:
        """One sentence for a ledger entry: sampler, grid, scale."""
        what = "scale" if self.kind == "discrete Laplace" else "sigma"
        return (f"exact {self.kind} noise (integer arithmetic, no floating-point draws) on the "
                f"grid {self.grid:.6g}, {what} {self.scale:.6g} grid steps for a sensitivity "
                f"of {self.steps} steps")


class RoundDraws:
    """Every round's noise of an iterative mechanism, drawn in a few sampler calls.

    A mechanism that adds noise of one distribution and size in each of ``rounds`` rounds
    (CDP-LR's epochs, DP-SGD's steps) may draw all of it at once: the noise never depends
    on the data, and the values of one batch are independent draws from the same exact
    distribution, so round r taking the r-th row of a batch is the same mechanism. A call
    of the exact sampler costs about as much for 3 values as for 300, so this makes such
    a training several times faster. Pass it as the ``random_state`` of
    :func:`laplace_on_grid` or :func:`gaussian_on_grid`; every distinct (kind, scale, size)
    gets its own batches. Same generator state, same noise.

    Parameters
    ----------
    random_state : int, Generator or None
        The one source of the words (seeded for what a page shows, fresh for a release).
    rounds : int
        How many rounds the mechanism will draw (a batch is at most this many rows; a round
        beyond them is drawn on its own, still exactly).
    max_values : int
        The most values one batch holds (memory bound; the remaining rounds draw later).
    """

    def __init__(self, random_state: RandomState, *, rounds: int, max_values: int = 1 << 20) -> None:
        if isinstance(rounds, bool) or not isinstance(rounds, (int, np.integer)):
            raise TypeError(f"rounds must be an int, got {type(rounds).__name__}.")
        if rounds < 1:
            raise ValueError(f"rounds must be at least 1, got {rounds}.")
        self.rng = check_random_state(random_state)
        self.rounds = int(rounds)
        self.max_values = int(max_values)
        self._batches: dict[tuple, list] = {}  # key -> [rows, next row, rounds served]

    def draw(self, kind: str, param: Fraction, size: int) -> np.ndarray:
        """One round's ``size`` values of the discrete ``kind`` ("laplace": scale ``param``;
        "gaussian": sigma^2 ``param``), from the current batch or a new one."""
        key = (kind, param, size)
        batch = self._batches.setdefault(key, [np.empty((0, size), dtype=np.int64), 0, 0])
        rows, at, served = batch
        if at == rows.shape[0]:
            take = max(1, min(self.rounds - served, self.max_values // max(size, 1)))
            rows = _draw(kind, param, take * size, self.rng).reshape(take, size)
            at = 0
        batch[:] = [rows, at + 1, served + 1]
        return rows[at].copy()


def _draw(kind: str, param: Fraction, size: int, random_state: Any) -> np.ndarray:
    """``size`` exact integer noise values of ``kind``; from the batches of a :class:`RoundDraws`."""
    if isinstance(random_state, RoundDraws):
        return random_state.draw(kind, param, size)
    sampler = discrete_laplace if kind == "laplace" else discrete_gaussian
    return sampler(param, size, random_state=random_state)


def _round_to_grid(values: np.ndarray, grid: float, on_grid: bool) -> np.ndarray:
    """``floor(values / grid + 1/2)`` as int64, exactly (no rounded ``+ 0.5``).

    ``values / grid`` is exact for a power-of-two grid; ``floor(x + 1/2)`` equals
    ``floor((floor(2x) + 1) / 2)``, whose every step is exact in doubles (a rounded
    ``x + 0.5`` would send 0.49999999999999994 to 1).
    """
    scaled = values / grid
    if not np.all(np.isfinite(scaled)):
        raise ValueError("the values must be finite (and not overflow on this grid).")
    if on_grid:
        units = scaled
        if not np.array_equal(np.floor(units), units):
            raise ValueError("on_grid=True, but some values are not multiples of the grid.")
    else:
        units = np.floor((np.floor(scaled * 2.0) + 1.0) / 2.0)
    limit = 2**52 if on_grid else ROUNDED_LIMIT
    if units.size and np.max(np.abs(units)) > limit:
        raise ValueError(f"the values are too large for this grid (more than 2^{limit.bit_length() - 1} "
                         "steps, where floating-point error could pass the spare step); choose a "
                         "coarser grid.")
    return units.astype(np.int64)


def laplace_on_grid(values: Any, *, sensitivity: float, epsilon: float, grid: float | None = None,
                    on_grid: bool = False, coordinates: int | None = None,
                    random_state: RandomState | RoundDraws = None) -> tuple[np.ndarray, GridNoise]:
    """``values`` rounded to the grid plus exact discrete Laplace noise: epsilon-DP.

    The noise's scale is the exact rational ``t = steps / epsilon`` grid steps (epsilon
    read at its exact binary value), ``steps`` the sensitivity after rounding
    (:func:`grid_sensitivity`: one spare step per rounded coordinate), drawn by the exact
    rational-scale discrete Laplace (a scale below one step included): the epsilon
    delivered, ``steps / t``, is exactly the one asked for.

    Parameters
    ----------
    values : ndarray of float
        The exact answers (finite).
    sensitivity : float
        L1 sensitivity of the whole vector under the project's relation: how far one
        replaced record moves it.
    epsilon : float or Fraction
        The budget this release spends, delivered exactly (a float at its exact binary value).
    grid : float or None
        Output spacing, a power of two; None picks :func:`grid_for`. Give 1.0 with
        ``on_grid=True`` for integer counts.
    on_grid : bool
        The values are grid multiples by construction of the query (a count), declared by
        the caller and checked: they are not rounded and pay no spare step. Never decide it
        from the records' values (that choice would itself leak).
    coordinates : int or None
        How many coordinates one replaced record can move; None means all of them. Each
        rounded one costs up to two steps.
    random_state : int, Generator, RoundDraws or None
        Source of the noise: a seed for what a page shows, fresh entropy for a release; a
        :class:`RoundDraws` when every round of an iterative mechanism draws alike.

    Returns
    -------
    noisy : ndarray of float, exact multiples of the grid
    noise : GridNoise, for the ledger (grid, scale t and its exact value, steps paid,
        epsilon delivered)
    """
    arr = np.asarray(values, dtype=float)
    coords = arr.size if coordinates is None else int(coordinates)
    g = grid_for(sensitivity, coordinates=1 if on_grid else coords) if grid is None else check_grid(grid)
    steps = grid_sensitivity(sensitivity, g, coordinates=coords, on_grid=on_grid)
    t = Fraction(steps) / _as_fraction(epsilon, "epsilon")  # exact: no rounding, no float
    units = _round_to_grid(arr.ravel(), g, on_grid)
    noise = _draw("laplace", t, units.size, random_state)
    noisy = ((units + noise).astype(float) * g).reshape(arr.shape)
    return noisy, GridNoise("discrete Laplace", g, float(t), steps, float(steps / t), t)


def gaussian_on_grid(values: Any, *, sigma: float, l2_sensitivity: float, grid: float | None = None,
                     coordinates: int | None = None,
                     random_state: RandomState | RoundDraws = None) -> tuple[np.ndarray, GridNoise]:
    """``values`` rounded to the grid plus exact discrete Gaussian noise of at least ``sigma``.

    Two neighbouring answers at L2 distance ``l2_sensitivity`` end, once rounded, at most
    ``steps`` grid steps apart (:func:`gaussian_grid_steps`: the real distance plus two
    steps per coordinate one record can move, one for the rounding and one spare for the
    floating-point error of the value). sigma in steps is ``sigma / l2_sensitivity * steps``,
    so the caller's calibration of sigma to ``l2_sensitivity`` still holds for the rounded
    answers; sigma^2 in steps is rounded up to an integer (exactly). The grid is a power of
    two with at least 1,024 steps per sigma and per ``l2_sensitivity / sqrt(k)`` (the
    enlargement is then under 0.2 %). The discrete Gaussian with sigma of a thousand steps
    or more has the privacy curve of the continuous one for integer shifts, up to terms far
    below 1e-100 (Canonne, Kamath & Steinke 2020, section 4).

    Parameters
    ----------
    values : ndarray of float
        The exact answers (finite).
    sigma : float
        The noise's standard deviation the caller calibrated to ``l2_sensitivity`` for its
        (epsilon, delta): the noise drawn is at least this, in the values' units.
    l2_sensitivity : float
        How far one replaced record moves the answer in L2.
    grid : float or None
        Output spacing, a power of two; None picks one with :func:`grid_for`.
    coordinates : int or None
        How many coordinates one replaced record can move; None means all of them.
    random_state : int, Generator, RoundDraws or None
        Source of the noise; a :class:`RoundDraws` when every round draws alike.

    Returns
    -------
    noisy : ndarray of float on the grid
    noise : GridNoise (``scale`` = sigma in steps; ``steps`` = the L2 sensitivity in steps
        after rounding; ``epsilon`` = nan: the caller's (eps, delta))
    """
    arr = np.asarray(values, dtype=float)
    if not (math.isfinite(sigma) and sigma > 0):
        raise ValueError(f"sigma must be a finite number above 0, got {sigma!r}.")
    if not (math.isfinite(l2_sensitivity) and l2_sensitivity > 0):
        raise ValueError(f"l2_sensitivity must be a finite number above 0, got {l2_sensitivity!r}.")
    k = max(1, arr.size if coordinates is None else int(coordinates))
    g = grid_for(min(sigma, l2_sensitivity / math.sqrt(k))) if grid is None else check_grid(grid)
    steps = gaussian_grid_steps(l2_sensitivity, g, k)
    ratio = Fraction(float(sigma)) / Fraction(float(l2_sensitivity))
    sigma2 = Fraction(math.ceil((ratio * steps) ** 2))  # sigma^2 in steps, rounded up
    units = _round_to_grid(arr.ravel(), g, False)
    noise = _draw("gaussian", sigma2, units.size, random_state)
    noisy = ((units + noise).astype(float) * g).reshape(arr.shape)
    return noisy, GridNoise("discrete Gaussian", g, math.sqrt(sigma2), steps, float("nan"))
