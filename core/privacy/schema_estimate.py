"""Paid schema entries: bounds and category lists estimated from the rows with part of epsilon.

A drafted schema (:func:`core.privacy.schema_draft.draft_schema`) reads its bounds and categories
from the private rows, so every release that uses it is not differentially private. When
the user cannot vouch for an entry as public knowledge, :func:`estimate_schema` replaces it
by a differentially private estimate and records the spend in the schema's
:attr:`~core.privacy.schema.PublicSchema.estimate` ledger, which
:meth:`~core.privacy.schema.PublicSchema.charge` adds to every release that uses the entry.

* **Numeric bounds** -- two private quantiles (by default the 1 % and the 99 % one) from
  OpenDP 0.16's ``make_private_quantile`` (the exponential mechanism over a list of
  candidates, Smith 2011, with OpenDP's exact noise). The candidates never come from the
  rows: a coarse public range the user gives (``ranges``), or a wide default grid from
  -1e9 to 1e9, log-spaced. OpenDP draws its own randomness and **cannot be seeded**: the
  bounds of one estimate cannot be regenerated, so the app draws them once and keeps the
  estimate in the session.
* **Categories** -- thresholded private category discovery: a noisy count of every value
  seen in the column (exact discrete Laplace from :mod:`core.privacy.sampler`, never numpy's
  floats) and only the values whose noisy count passes a threshold are kept. The threshold
  is chosen so that a value held by one record is released with probability at most
  ``delta_col / 2``; the estimate then costs ``(epsilon_col, delta_col)``.

Budget: ``epsilon`` is split evenly over the estimated columns and ``delta`` evenly over
the estimated categorical ones; the pieces add up by sequential composition, so the whole
estimate costs ``(epsilon, delta)`` (two quantiles of one column share that column's epsilon
half and half).
"""
from __future__ import annotations

import functools
import math
from dataclasses import replace
from typing import Any, Iterable, Mapping, Sequence

import numpy as np
import pandas as pd

from core.data.dataset import Dataset
from core.privacy.schema import PublicSchema
from core.privacy.schema_builtin import schema_for
from core.privacy.schema_columns import OTHER, ColumnSchema
from core.privacy.ledger import PrivacyLedger
from core.runtime.progress import Progress, Stop, report, watch
from core.privacy.sampler import laplace_on_grid
from core.validation import check_delta, check_epsilon
from core.runtime.randomness import RandomState, check_random_state

__all__ = [
    "DEFAULT_DELTA",
    "DEFAULT_QUANTILES",
    "DEFAULT_RANGE",
    "category_threshold",
    "default_candidates",
    "estimate_schema",
    "private_bounds",
    "private_categories",
    "range_candidates",
    "single_record_release_probability",
]

#: delta of a whole estimate, shared by its categorical columns
DEFAULT_DELTA = 1e-6
#: the quantiles that become a column's lower and upper bound
DEFAULT_QUANTILES = (0.01, 0.99)
#: the default public range the bound candidates cover (no range given)
DEFAULT_RANGE = 1e9
#: candidates per public range the user gives
RANGE_CANDIDATES = 1001
#: a replaced record is one deletion and one insertion: symmetric distance 2
_REPLACE_ONE = 2
_MANTISSAS = (1.0, 1.2, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 7.5)


# --------------------------------------------------------------------------- candidates


def default_candidates(*, integer: bool = False) -> np.ndarray:
    """The wide default grid of bound candidates, fixed in code (never read from the rows).

    Every integer from -1,000 to 1,000 (ages, hours, counts, years of schooling land exactly
    on a candidate: a quantile that sits on a heavy value -- the many ages at a top-code --
    needs that value among the candidates, or every candidate outside the data scores as
    well as the nearest one), then about 10 log-spaced candidates per decade out to +-1e9.
    A column that is not whole numbers also gets +-m 10^k for k = -3 to -1.
    """
    mags = [m * 10.0**k for k in range(3, 9) for m in _MANTISSAS] + [DEFAULT_RANGE]
    if not integer:
        mags += [m * 10.0**k for k in range(-3, 0) for m in _MANTISSAS]
    pos = np.array(sorted(set(mags)), dtype=float)
    return np.unique(np.concatenate([-pos, pos, np.arange(-1000, 1001, dtype=float)]))


def range_candidates(lower: float, upper: float, *, integer: bool = False,
                     size: int = RANGE_CANDIDATES) -> np.ndarray:
    """Evenly spaced candidates over a coarse public range ``[lower, upper]`` the user gives.

    For a whole-number column with at most ``size`` integers in the range, every integer.
    """
    lo, hi = float(lower), float(upper)
    if not (math.isfinite(lo) and math.isfinite(hi) and lo < hi):
        raise ValueError(f"a public range needs two finite numbers, the lower below the upper; got {lower!r} and {upper!r}.")
    if integer:
        lo_i, hi_i = math.floor(lo), math.ceil(hi)
        if hi_i - lo_i + 1 <= size:
            return np.arange(lo_i, hi_i + 1, dtype=float)
    out = np.linspace(lo, hi, size)
    return np.unique(np.round(out)) if integer else out


# --------------------------------------------------------------------------- quantiles


def _opendp():
    try:
        import opendp.prelude as dp
    except ImportError as exc:  # pragma: no cover - opendp is a dependency
        raise RuntimeError("Private bounds need OpenDP 0.16 (pip install opendp==0.16.0).") from exc
    dp.enable_features("contrib")
    return dp


@functools.lru_cache(maxsize=64)
def _quantile_measurement(candidates: tuple[float, ...], alpha: float, epsilon: float, size: int):
    """OpenDP's private quantile over ``candidates`` for ``size`` records (n is public under
    the project's relation, so OpenDP's sized scoring, half the sensitivity, applies):
    epsilon-DP for one replaced record, symmetric distance 2."""
    dp = _opendp()
    space = (dp.vector_domain(dp.atom_domain(T=float, nan=False), size=size), dp.symmetric_distance())
    cands = [float(c) for c in candidates]

    def make(scale: float):
        return dp.m.make_private_quantile(*space, dp.max_divergence(), cands, alpha, scale)

    scale = dp.binary_search_param(make, d_in=_REPLACE_ONE, d_out=epsilon)
    measurement = make(scale)
    if not measurement.map(_REPLACE_ONE) <= epsilon:  # pragma: no cover - OpenDP's promise
        raise RuntimeError("OpenDP's private quantile does not meet its epsilon.")
    return measurement


def private_bounds(values: Any, *, epsilon: float, candidates: Sequence[float] | None = None,
                   quantiles: tuple[float, float] = DEFAULT_QUANTILES,
                   integer: bool = False) -> tuple[float, float]:
    """Private (lower, upper) bounds of one numeric column: two private quantiles.

    Parameters
    ----------
    values : array_like of float
        The column's private values, one per record (``n`` is public). A missing value
        counts as 0 (a fixed public stand-in, record by record), which widens the bounds
        towards 0 when many are missing.
    epsilon : float
        What the two quantiles cost together (each spends half; epsilon-DP for one record
        replaced, symmetric distance 2 in OpenDP's terms).
    candidates : sequence of float or None
        The public values a bound can take (:func:`range_candidates` of a coarse range the
        user knows); None: :func:`default_candidates`. Never derive them from the rows.
    quantiles : (float, float)
        Which quantiles become the lower and the upper bound (0 < q_low < q_high < 1).
    integer : bool
        A whole-number column: the bounds are rounded outwards.

    Returns
    -------
    (float, float)
        Bounds with lower < upper (when both quantiles land on one candidate, the upper bound
        is the next candidate up: post-processing, no extra cost). OpenDP draws its own
        randomness: there is no seed.
    """
    eps = check_epsilon(epsilon)
    q_lo, q_hi = (float(q) for q in quantiles)
    if not 0.0 < q_lo < q_hi < 1.0:
        raise ValueError(f"quantiles must satisfy 0 < low < high < 1, got {quantiles!r}.")
    cands = default_candidates(integer=integer) if candidates is None else np.asarray(candidates, dtype=float)
    cands = np.unique(cands)
    if cands.size < 2 or not np.all(np.isfinite(cands)):
        raise ValueError("the bound candidates must be at least two finite numbers.")
    arr = pd.to_numeric(pd.Series(np.asarray(values).ravel()), errors="coerce").to_numpy(dtype=float)
    data = np.where(np.isfinite(arr), arr, 0.0).tolist()
    if not data:
        raise ValueError("a column needs at least one record to estimate its bounds.")
    key = tuple(float(c) for c in cands)
    lower = float(_quantile_measurement(key, q_lo, eps / 2, len(data))(data))
    upper = float(_quantile_measurement(key, q_hi, eps / 2, len(data))(data))
    if lower > upper:
        lower, upper = upper, lower
    if not lower < upper:
        above = cands[cands > lower]
        if above.size:
            upper = float(above[0])
        else:
            lower = float(cands[cands < upper][-1])
    if integer:
        lower, upper = float(math.floor(lower)), float(math.ceil(upper))
    return lower, upper


# --------------------------------------------------------------------------- categories


def category_threshold(scale: float, delta: float) -> int:
    """The smallest integer threshold tau at which a value held by ONE record passes
    (noisy count >= tau) with probability at most ``delta / 2``.

    The noise Y is discrete Laplace of scale t in counts, P(Y = y) = (1-q)/(1+q) q^|y| with
    q = exp(-1/t), so P(1 + Y >= tau) = q^(tau-1) / (1+q).
    """
    t = float(scale)
    q = math.exp(-1.0 / t)
    tau = 1 + max(0, math.ceil(math.log(delta * (1 + q) / 2) / math.log(q)))
    while q ** (tau - 1) / (1 + q) > delta / 2:  # float rounding in the logarithms
        tau += 1
    return tau


def single_record_release_probability(scale: float, tau: int) -> float:
    """P(a value held by one record passes the threshold ``tau``) at discrete Laplace ``scale``."""
    q = math.exp(-1.0 / float(scale))
    return q ** (tau - 1) / (1 + q) if tau >= 1 else 1.0


def private_categories(values: Any, *, epsilon: float, delta: float,
                       random_state: RandomState = None) -> tuple[tuple, dict[str, Any]]:
    """Thresholded private category discovery: the values of one column that many records hold.

    Every value seen in the column gets a count plus exact discrete Laplace noise (grid 1,
    :func:`core.privacy.sampler.laplace_on_grid`); values whose noisy count reaches
    :func:`category_threshold` are released, sorted by text. Neither the counts nor the
    values below the threshold are released.

    Privacy (one record replaced by any other): the replaced record lowers the count of its
    old value by one and raises the count of its new value by one -- two counts move, the
    count vector has L1 sensitivity 2, so the scale is ``2 / epsilon`` counts (exactly, a
    rational). A value that only the replaced record holds exists on one dataset of the pair
    only; it passes the threshold with probability at most ``delta / 2``, and at most two
    such values (the old and the new) exist, so the release is ``(epsilon, delta)``-DP.

    Parameters
    ----------
    values : array_like
        The column's private values; missing ones are not categories (they become OTHER).
    epsilon, delta : float
        What this column's discovery costs.
    random_state : int, Generator or None
        Drives the noise: a seed reproduces the picture, None draws fresh entropy.

    Returns
    -------
    categories : tuple
        The released values (``(OTHER,)`` when none passes).
    info : dict
        ``threshold``, ``scale`` (in counts), ``p_single`` (the probability that a value
        held by one record is released) and ``noise`` (a GridNoise for the ledger).
    """
    eps = check_epsilon(epsilon)
    dlt = check_delta(delta)
    rng = check_random_state(random_state)
    s = pd.Series(np.asarray(values, dtype=object).ravel())
    s = s[~s.isna()]
    counts = s.value_counts(sort=False)
    noisy, noise = laplace_on_grid(counts.to_numpy(dtype=float) if len(counts) else np.zeros(1),
                                   sensitivity=2.0, epsilon=eps, grid=1.0, on_grid=True,
                                   coordinates=2, random_state=rng)
    tau = category_threshold(noise.scale, dlt)
    kept = [v for v, c in zip(counts.index, noisy[:len(counts)]) if c >= tau]
    cats = tuple(sorted((v.item() if isinstance(v, np.generic) else v for v in kept), key=str))
    info = {"threshold": tau, "scale": noise.scale, "noise": noise,
            "p_single": single_record_release_probability(noise.scale, tau)}
    return (cats or (OTHER,)), info


# --------------------------------------------------------------------------- the schema


def _check_columns(base: PublicSchema, columns: Iterable[str] | None) -> list[str]:
    if columns is None:
        wanted = [c.name for c in base.columns if c.kind != "identifier" and not c.public]
        if not wanted:
            raise ValueError("Every column's bounds or categories are already public; there is "
                             "nothing to estimate (name the columns to re-estimate them).")
        return wanted
    if isinstance(columns, str):
        raise TypeError("columns must be a list of column names, not one str.")
    wanted = list(columns)
    if not wanted:
        raise ValueError("name at least one column to estimate.")
    for c in wanted:
        if not isinstance(c, str):
            raise TypeError(f"column names must be str, got {type(c).__name__}.")
        if c not in base:
            raise ValueError(f"'{c}' is not a column of the table.")
        if base[c].kind == "identifier":
            raise ValueError(f"'{c}' is an identifier: it is never used, so it has no bounds "
                             "or categories to estimate.")
    if len(set(wanted)) != len(wanted):
        raise ValueError("each column may be named only once.")
    return wanted


def _base_schema(dataset: Dataset, schema: PublicSchema | None) -> PublicSchema:
    """The schema an estimate starts from: ``schema``, or the dataset's own; it must fit."""
    base = schema_for(dataset) if schema is None else schema
    if not isinstance(base, PublicSchema):
        raise TypeError(f"schema must be a PublicSchema, got {type(base).__name__}.")
    if base.names != list(dataset.frame.columns):
        raise ValueError("the schema does not describe this table (its columns differ).")
    return base


def _check_ranges(base: PublicSchema, wanted: list[str],
                  ranges: Mapping[str, tuple[float, float]] | None) -> dict[str, tuple[float, float]]:
    """The public ranges, each for a numeric column being estimated, as a dict."""
    ranges = dict(ranges or {})
    for c, rng_ in ranges.items():
        if c not in wanted or base[c].kind != "numeric":
            raise ValueError(f"a public range is given for '{c}', which is not a numeric column being estimated.")
        if not isinstance(rng_, (tuple, list)) or len(rng_) != 2:
            raise TypeError(f"the public range of '{c}' must be a pair (lower, upper).")
    return ranges


def _estimate_bounds(spec: ColumnSchema, values: np.ndarray, eps_col: float,
                     public_range: tuple[float, float] | None, quantiles: tuple[float, float],
                     ledger: PrivacyLedger) -> ColumnSchema:
    """The entry of a numeric column with private quantiles as bounds; the spend goes to ``ledger``."""
    if public_range is not None:
        cands = range_candidates(*public_range, integer=spec.integer)
        where = f"candidates over the public range {public_range[0]:g} to {public_range[1]:g}"
    else:
        cands = default_candidates(integer=spec.integer)
        where = "candidates on the default grid from -1e9 to 1e9"
    lo, hi = private_bounds(values, epsilon=eps_col, candidates=cands, quantiles=quantiles,
                            integer=spec.integer)
    pct = f"{quantiles[0]:.0%} and {quantiles[1]:.0%}"
    note = f"private {pct} quantiles (OpenDP, epsilon = {eps_col:.4g}, {where})"
    entry = replace(spec, lower=lo, upper=hi, source="private estimate", note=note)
    ledger.spend(eps_col, label=f"private {pct} quantiles of '{spec.name}' (its bounds)",
                 noise=f"OpenDP 0.16 make_private_quantile over {len(cands)} public "
                       "candidates (its own exact sampler, not seeded)")
    return entry


def _estimate_categories(spec: ColumnSchema, values: np.ndarray, eps_col: float, dlt_col: float,
                         rng: np.random.Generator, ledger: PrivacyLedger) -> ColumnSchema:
    """The entry of a categorical column with privately discovered categories; the spend
    goes to ``ledger``."""
    cats, info = private_categories(values, epsilon=eps_col, delta=dlt_col, random_state=rng)
    note = (f"thresholded private category discovery (epsilon = {eps_col:.4g}, delta = "
            f"{dlt_col:.2g}): values with a noisy count of at least {info['threshold']}")
    entry = replace(spec, categories=cats, source="private estimate", note=note)
    ledger.spend(eps_col, dlt_col, label=f"private category discovery of '{spec.name}'",
                 noise=info["noise"])
    return entry


def estimate_schema(dataset: Dataset, *, epsilon: float, columns: Iterable[str] | None = None,
                    delta: float = DEFAULT_DELTA, schema: PublicSchema | None = None,
                    ranges: Mapping[str, tuple[float, float]] | None = None,
                    quantiles: tuple[float, float] = DEFAULT_QUANTILES,
                    random_state: RandomState = None,
                    progress: Progress | None = None, stop: Stop | None = None) -> PublicSchema:
    """A schema whose entries for ``columns`` are private estimates, with the cost recorded.

    Parameters
    ----------
    dataset : Dataset
        The private table.
    epsilon : float
        The whole estimate's budget, split evenly over the estimated columns (sequential
        composition). Every release that uses an estimated entry is charged this spend on
        top of its own (:meth:`PublicSchema.charge`).
    columns : iterable of str or None
        The columns to estimate; None: every non-identifier entry read from the data.
    delta : float
        The estimate's delta, split evenly over the estimated categorical columns (a value
        held by one record is released with probability at most ``delta_col / 2``). Unused
        when only numeric columns are estimated.
    schema : PublicSchema or None
        The schema to start from (its other entries are kept); None:
        :func:`core.privacy.schema_builtin.schema_for`. Its layout -- column names, which columns are
        numbers, whole numbers, categories or identifiers -- is taken as public: the
        neighbouring relation fixes the table's layout.
    ranges : mapping column -> (lower, upper), optional
        Coarse public ranges the bound candidates cover (a value the user knows without the
        rows, e.g. ages 0-150); a column without one gets the default grid +-1e9.
    quantiles : (float, float)
        The quantiles that become the bounds (default 1 % and 99 %): values outside them are
        clipped by every release.
    random_state : int, Generator or None
        Drives the category noise only. The numeric bounds come from OpenDP, which cannot
        be seeded: the same seed gives the same categories but possibly other bounds, so the
        app draws an estimate once and keeps it in the session.
    progress : callable(fraction, message), optional
        Told each column estimated (:mod:`core.runtime.progress`).
    stop : threading.Event, optional
        When set, the work ends at its next progress report and raises
        :class:`core.runtime.progress.Stopped`.

    Returns
    -------
    PublicSchema
        The estimated entries have source "private estimate" and a note saying how; the
        ``estimate`` ledger holds every spend (an earlier estimate's included).
    """
    progress = watch(progress, stop)
    if not isinstance(dataset, Dataset):
        raise TypeError(f"dataset must be a Dataset, got {type(dataset).__name__}.")
    eps = check_epsilon(epsilon)
    dlt = check_delta(delta)
    base = _base_schema(dataset, schema)
    wanted = _check_columns(base, columns)
    ranges = _check_ranges(base, wanted, ranges)
    rng = check_random_state(random_state)
    n_cat = sum(base[c].kind == "categorical" for c in wanted)
    eps_col = eps / len(wanted)
    dlt_col = dlt / n_cat if n_cat else 0.0
    ledger = PrivacyLedger()
    if base.estimate is not None:  # an earlier estimate was released too: it stays charged
        ledger.entries.extend(base.estimate.entries)
    new = {}
    for i, name in enumerate(wanted):
        report(progress, i / len(wanted), f"Estimating '{name}' ({i + 1} of {len(wanted)})")
        values = dataset.frame[name].to_numpy()
        if base[name].kind == "numeric":
            new[name] = _estimate_bounds(base[name], values, eps_col, ranges.get(name), quantiles,
                                         ledger)
        else:
            new[name] = _estimate_categories(base[name], values, eps_col, dlt_col, rng, ledger)
    report(progress, 1.0, "Estimate done")
    # a kind drafted from the rows (type inference) is a read of the data: estimating it
    # is the user's declaration that the kind is public (the Data page's button says so)
    ledger.assume(f"The kinds of the {len(wanted)} estimated column(s) (number, whole number or "
                  "category) are declared public by whoever estimated them.")
    cols = tuple(new.get(c.name, c) for c in base.columns)
    return replace(base, columns=cols, estimate=ledger)
