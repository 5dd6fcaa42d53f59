"""The exact sampler (core/privacy/sampler.py, discrete_noise.py, exact_thresholds.py,
threshold_tables.py): distributions, the exact tie paths, seeding, grids.

Statistical tests use fixed seeds; each checks that the right parameter passes and a wrong
one (1.3x, or a rational scale rounded up to whole steps) fails. The reference
distributions are the exact formulas, CKS's Algorithm 2 with the K-loop Bernoullis
(``_discrete_laplace_reference``, integer and rational scales) and OpenDP 0.16's exact
samplers.
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

from core.privacy import (
    discrete_noise,
    exact_thresholds,
    sampler,
    sampler_reference,
    threshold_tables,
)
from core.privacy.discrete_noise import (
    bernoulli_exp,
    discrete_gaussian,
    discrete_laplace,
)
from core.privacy.sampler import gaussian_on_grid, grid_sensitivity, laplace_on_grid

N = 200_000


# ---------------------------------------------------------------- helpers
def _laplace_pmf(y: np.ndarray, t: float) -> np.ndarray:
    p = math.exp(-1.0 / t)
    return (1 - p) / (1 + p) * p ** np.abs(y)


def _gauss_pmf(y: np.ndarray, sigma2: float) -> np.ndarray:
    support = np.arange(-int(40 * math.sqrt(sigma2)) - 40, int(40 * math.sqrt(sigma2)) + 41)
    z = np.exp(-support.astype(float) ** 2 / (2 * sigma2)).sum()
    return np.exp(-np.asarray(y, dtype=float) ** 2 / (2 * sigma2)) / z


def _chi2_pvalue(draws: np.ndarray, pmf, edges: np.ndarray) -> float:
    """Chi-square of ``draws`` binned on integer ``edges`` (plus two tails) against ``pmf``."""
    lo, hi = int(edges[0]), int(edges[-1])
    support = np.arange(lo - 200_000, hi + 200_000)
    mass = pmf(support)
    cuts = np.searchsorted(support, edges)
    probs = np.add.reduceat(mass, np.concatenate(([0], cuts)))
    probs[0] = mass[: cuts[0]].sum()
    probs = np.append(probs[: len(edges)], 0.0)
    probs[-1] = 1.0 - probs[:-1].sum()
    observed = np.bincount(np.searchsorted(edges, draws, side="right"), minlength=len(edges) + 1)
    expected = probs * draws.size
    keep = expected > 5
    obs, exp_ = observed[keep], expected[keep]
    return stats.chisquare(obs, exp_ * obs.sum() / exp_.sum()).pvalue


def _edges(scale: float, width: float = 8.0, bins: int = 60) -> np.ndarray:
    return np.unique(np.round(np.linspace(-width * scale, width * scale, bins)).astype(np.int64))


# ---------------------------------------------------------------- discrete Laplace
@pytest.mark.parametrize("t", [1, 3, 100, 1500, 150_000])
def test_discrete_laplace_matches_the_exact_pmf(t):
    draws = discrete_laplace(t, N, random_state=11)
    edges = np.arange(-12, 13) if t <= 3 else _edges(t)
    assert _chi2_pvalue(draws, lambda y: _laplace_pmf(y, t), edges) > 1e-3


@pytest.mark.parametrize("t", [3, 1500, 150_000])
def test_discrete_laplace_fails_a_wrong_scale(t):
    draws = discrete_laplace(t, N, random_state=11)
    edges = np.arange(-12, 13) if t <= 3 else _edges(t)
    assert _chi2_pvalue(draws, lambda y: _laplace_pmf(y, 1.3 * t), edges) < 1e-6


@pytest.mark.parametrize("t", [2**30 + 7, 2**40])
def test_discrete_laplace_with_several_digits_has_its_scale(t):
    draws = discrete_laplace(t, 50_000, random_state=12) / t  # discreteness negligible here
    assert stats.kstest(draws, "laplace").pvalue > 1e-3
    assert stats.kstest(draws, stats.laplace(scale=1.3).cdf).pvalue < 1e-6


def test_discrete_laplace_matches_the_reference_construction():
    ours = discrete_laplace(7, 100_000, random_state=3)
    ref = sampler_reference._discrete_laplace_reference(7, 100_000, random_state=4)
    table = np.array([np.bincount(np.clip(x, -40, 40) + 40, minlength=81) for x in (ours, ref)])
    table = table[:, table.sum(axis=0) > 20]
    assert stats.chi2_contingency(table).pvalue > 1e-3


def test_discrete_laplace_reference_detects_a_wrong_scale():
    ours = discrete_laplace(9, 100_000, random_state=3)
    ref = sampler_reference._discrete_laplace_reference(7, 100_000, random_state=4)
    table = np.array([np.bincount(np.clip(x, -40, 40) + 40, minlength=81) for x in (ours, ref)])
    table = table[:, table.sum(axis=0) > 20]
    assert stats.chi2_contingency(table).pvalue < 1e-6


def test_discrete_laplace_is_symmetric_and_integer():
    draws = discrete_laplace(50, N, random_state=5)
    assert draws.dtype == np.int64
    assert abs(draws.mean()) < 5 * 50 * math.sqrt(2) / math.sqrt(N)


# ---------------------------------------------------------------- discrete Laplace, rational scale
#: steps / epsilon as laplace_on_grid forms it: below 1, a few steps, several digits, and the
#: exact binary value of 1 / 0.7 (a 52-bit denominator)
RATIONAL = [Fraction(1, 3), Fraction(10, 7), Fraction(1) / Fraction(0.7), Fraction(1_500_003, 7)]


def _counts_table(a: np.ndarray, b: np.ndarray, clip: int = 40) -> np.ndarray:
    table = np.array([np.bincount(np.clip(x, -clip, clip) + clip, minlength=2 * clip + 1) for x in (a, b)])
    return table[:, table.sum(axis=0) > 20]


@pytest.mark.parametrize("t", RATIONAL, ids=str)
def test_discrete_laplace_rational_scale_matches_the_exact_pmf(t):
    draws = discrete_laplace(t, N, random_state=31)
    edges = np.arange(-12, 13) if t <= 3 else _edges(float(t))
    assert _chi2_pvalue(draws, lambda y: _laplace_pmf(y, float(t)), edges) > 1e-3


@pytest.mark.parametrize("t", RATIONAL, ids=str)
def test_discrete_laplace_rational_scale_fails_a_wrong_scale(t):
    draws = discrete_laplace(t, N, random_state=31)
    edges = np.arange(-12, 13) if t <= 3 else _edges(float(t))
    assert _chi2_pvalue(draws, lambda y: _laplace_pmf(y, 1.3 * float(t)), edges) < 1e-6


@pytest.mark.parametrize("t", RATIONAL[:3], ids=str)
def test_discrete_laplace_rational_scale_fails_the_rounded_up_scale(t):
    """The whole-step scale ceil(t), what laplace_on_grid drew before, is detected."""
    draws = discrete_laplace(t, N, random_state=31)
    edges = np.arange(-12, 13)
    assert _chi2_pvalue(draws, lambda y: _laplace_pmf(y, math.ceil(t)), edges) < 1e-6


def test_an_integer_scale_as_a_fraction_draws_what_the_int_draws():
    assert np.array_equal(discrete_laplace(Fraction(1500), 1000, random_state=5),
                          discrete_laplace(1500, 1000, random_state=5))


def test_a_tiny_rational_scale_is_almost_surely_zero():
    assert not discrete_laplace(Fraction(1, 10**30), 10_000, random_state=6).any()


@pytest.mark.parametrize("t", [Fraction(10, 7), Fraction(1, 3)], ids=str)
def test_rational_scale_matches_the_reference_algorithm_2(t):
    """CKS Algorithm 2 as written (U, V, X = U + p V, Y = floor(X / q)) against the tables."""
    ours = discrete_laplace(t, 100_000, random_state=3)
    ref = sampler_reference._discrete_laplace_reference(t, 100_000, random_state=4)
    assert stats.chi2_contingency(_counts_table(ours, ref)).pvalue > 1e-3


def test_rational_reference_detects_a_wrong_scale():
    ours = discrete_laplace(Fraction(13, 7), 100_000, random_state=3)
    ref = sampler_reference._discrete_laplace_reference(Fraction(10, 7), 100_000, random_state=4)
    assert stats.chi2_contingency(_counts_table(ours, ref)).pvalue < 1e-6


def test_rational_digit_tables_are_exact_and_guided():
    """A rational plan's tables hold the exact floors, and the guide counts as a plain search."""
    t = Fraction(1_500_003, 7)
    rng = np.random.default_rng(0)
    _, digits, top = discrete_noise._laplace_plan(t.numerator, t.denominator)
    for table in (*digits, top):
        floors = table.asc[::-1]
        for k in range(1, table.k + 1, 11):
            assert int(floors[k - 1]) == exact_thresholds._exact_floor(table.spec_of(k), 64)
        r = rng.integers(0, 1 << 64, 20_000, dtype=np.uint64)
        r = r[~np.isin(r, table.asc) & (r != 0)]
        assert np.array_equal(table.count(r, rng), table.k - np.searchsorted(table.asc, r, side="right"))


def test_laplace_on_grid_delivers_the_asked_epsilon_exactly():
    _, noise = laplace_on_grid(np.zeros(3), sensitivity=1.0, epsilon=0.7, grid=1.0, on_grid=True,
                               random_state=0)
    assert noise.exact_scale == Fraction(noise.steps) / Fraction(0.7)
    assert noise.epsilon == 0.7 and noise.scale == float(noise.exact_scale)


# ---------------------------------------------------------------- discrete Gaussian
@pytest.mark.parametrize("sigma2", [Fraction(1, 4), 4, Fraction(7, 3), 40_000])
def test_discrete_gaussian_matches_the_exact_pmf(sigma2):
    draws = discrete_gaussian(sigma2, N, random_state=7)
    s = math.sqrt(float(sigma2))
    edges = np.arange(-12, 13) if s < 3 else _edges(s, width=5)
    assert _chi2_pvalue(draws, lambda y: _gauss_pmf(y, float(sigma2)), edges) > 1e-3


@pytest.mark.parametrize("sigma2", [4, 40_000])
def test_discrete_gaussian_fails_a_wrong_sigma(sigma2):
    draws = discrete_gaussian(sigma2, N, random_state=7)
    s = math.sqrt(float(sigma2))
    edges = np.arange(-12, 13) if s < 3 else _edges(s, width=5)
    assert _chi2_pvalue(draws, lambda y: _gauss_pmf(y, 1.69 * float(sigma2)), edges) < 1e-6


def test_discrete_gaussian_variance_is_sigma2_for_large_sigma():
    sigma2 = 1500**2
    draws = discrete_gaussian(sigma2, N, random_state=8)
    assert abs(draws.var() / sigma2 - 1) < 0.02  # sd of the ratio ~ 0.003


@pytest.mark.parametrize("sigma2", [Fraction(7, 3), 4, 40_000])
def test_discrete_gaussian_split_acceptance_matches_the_exact_pmf(sigma2, monkeypatch):
    # the acceptance used beyond the |y| table (t > 4096), forced at small sigma
    monkeypatch.setattr(discrete_noise, "_GAUSS_TABLE_T", 0)
    draws = discrete_gaussian(sigma2, N, random_state=17)
    s = math.sqrt(float(sigma2))
    edges = np.arange(-12, 13) if s < 3 else _edges(s, width=5)
    assert _chi2_pvalue(draws, lambda y: _gauss_pmf(y, float(sigma2)), edges) > 1e-3
    assert _chi2_pvalue(draws, lambda y: _gauss_pmf(y, 1.69 * float(sigma2)), edges) < 1e-6


def test_discrete_gaussian_beyond_the_table_is_exact():
    # t > 4096: the acceptance goes through bernoulli_exp's digit tables
    sigma2 = 6000**2
    draws = discrete_gaussian(sigma2, 50_000, random_state=9)
    assert stats.kstest(draws / 6000, "norm").pvalue > 1e-3
    assert stats.kstest(draws / 6000 / 1.3, "norm").pvalue < 1e-6


# ---------------------------------------------------------------- Bernoulli(exp(-gamma))
@pytest.mark.parametrize("num,den", [(1, 3), (5, 7), (5, 2), (7, 1), (0, 5)])
def test_bernoulli_exp_rate(num, den):
    n = 200_000
    hits = int(bernoulli_exp(np.full(n, num), den, random_state=13).sum())
    p = math.exp(-num / den)
    assert stats.binomtest(hits, n, p).pvalue > 1e-3
    if num:  # a wrong gamma (1.3x) is detected
        assert stats.binomtest(hits, n, math.exp(-1.3 * num / den)).pvalue < 1e-6


def test_bernoulli_exp_mixed_gammas_in_one_call():
    nums = np.tile(np.array([0, 1, 4, 9, 100, 10**12]), 50_000)
    out = bernoulli_exp(nums, 4, random_state=14).reshape(-1, 6).mean(axis=0)
    expect = np.exp(-np.array([0, 1, 4, 9, 100, 10**12]) / 4)
    assert np.all(np.abs(out - expect) < 5 * np.sqrt(expect * (1 - expect) / 50_000) + 1e-12)


def test_bernoulli_exp_matches_the_reference_algorithm():
    nums = np.arange(0, 40)
    ours = bernoulli_exp(np.repeat(nums, 5000), 9, random_state=1).reshape(40, -1).sum(axis=1)
    ref = sampler_reference._bernoulli_exp_reference(np.repeat(nums, 5000), 9,
                                           random_state=2).reshape(40, -1).sum(axis=1)
    table = np.array([ours, 5000 - ours, ref, 5000 - ref]).reshape(2, 2, 40)
    for j in range(40):
        sub = table[:, :, j]
        if sub.min() > 5:
            assert stats.chi2_contingency(sub).pvalue > 1e-4


def test_bernoulli_exp_keeps_the_shape():
    assert bernoulli_exp(np.zeros((3, 4), dtype=int), 2, random_state=0).shape == (3, 4)


# ---------------------------------------------------------------- the exact tie paths
def test_threshold_is_the_exact_floor():
    # floor(exp(-1/3) 2^64) from a 200-digit decimal computation
    import decimal

    decimal.getcontext().prec = 200
    value = (decimal.Decimal(-1) / 3).exp() * (2**64)
    assert exact_thresholds._exact_floor(("exp", 1, 3), 64) == int(value)
    value = (decimal.Decimal(-1) / 3).exp() * (2**192)
    assert exact_thresholds._exact_floor(("exp", 1, 3), 192) == int(value)


def test_truncated_geometric_threshold_is_exact():
    import decimal

    decimal.getcontext().prec = 200
    r = (decimal.Decimal(-5) / 17).exp()
    s = (r**3 - r**8) / (1 - r**8)
    assert exact_thresholds._exact_floor(("trunc", 5, 17, 3, 8), 128) == int(s * 2**128)


def test_digit_table_floors_are_exact():
    """Tables built by products of interval bounds hold the exact floors (one by one)."""
    _, digits, top = discrete_noise._laplace_plan(150_000)
    for table in (*digits, top):
        floors = table.asc[::-1]
        for k in range(1, table.k + 1, 7):
            assert int(floors[k - 1]) == exact_thresholds._exact_floor(table.spec_of(k), 64)


def test_gauss_table_floors_are_exact():
    a, b, t = 40_000, 1, 201
    table = threshold_tables._gauss_table(a, b, t)
    for y in range(0, table.t.shape[0], 97):
        assert int(table.t[y]) == min(exact_thresholds._exact_floor(table.spec_of(y), 64), (1 << 64) - 1)


def test_guided_count_equals_a_plain_search():
    """The guide table's count equals #{k : T_k > R} on random words and words next to
    every threshold (ties excluded: they take the exact path)."""
    rng = np.random.default_rng(0)
    for t in (1, 10, 1500, 150_000):
        _, digits, top = discrete_noise._laplace_plan(t)
        for table in (*digits, top):
            asc = table.asc
            near = np.concatenate([asc - np.uint64(1), asc + np.uint64(1)])
            r = np.concatenate([rng.integers(0, 1 << 64, 20_000, dtype=np.uint64), near])
            r = r[~np.isin(r, asc)]
            if table.infinite:
                r = r[r != 0]
            got = table.count(r, rng)
            assert np.array_equal(got, table.k - np.searchsorted(asc, r, side="right"))


def test_tiny_probabilities_have_zero_thresholds_without_big_powers():
    assert exact_thresholds._exact_floor(("exp", 10**9, 1), 64) == 0
    out = discrete_noise._bern_exp_scaled(np.array([0, 1, 2**40]), 10**6, 1, np.random.default_rng(0))
    assert out.tolist() == [True, False, False]


class _ScriptedWords:
    """A stand-in generator that returns scripted 64-bit words (for the tie paths)."""

    def __init__(self, words):
        self.words = list(words)

    def integers(self, low, high, size=None, dtype=None):
        assert size is None
        return np.uint64(self.words.pop(0))


@pytest.mark.parametrize("second,expected", [(0, True), ((1 << 64) - 1, False)])
def test_a_tie_is_settled_by_the_next_word(second, expected):
    spec = ("exp", 1, 3)
    first = exact_thresholds._exact_floor(spec, 64)
    assert exact_thresholds._less_than(spec, [first], _ScriptedWords([second])) is expected


def test_a_tie_on_the_next_word_goes_one_word_further():
    spec = ("exp", 2, 5)
    w1 = exact_thresholds._exact_floor(spec, 64)
    w2 = exact_thresholds._exact_floor(spec, 128) - (w1 << 64)
    rng = _ScriptedWords([w2, 0])
    assert exact_thresholds._less_than(spec, [w1], rng) is True
    assert rng.words == []


def test_forced_ties_follow_the_next_bits(monkeypatch):
    """With every first word equal to the threshold, yes comes at the rate of the next bits."""
    num, den = 1, 3
    first = exact_thresholds._exact_floor(("exp", num, den), 64)
    frac = (exact_thresholds._exact_floor(("exp", num, den), 128) - (first << 64)) / 2.0**64
    real = discrete_noise._words
    calls = []

    def forced(rng, n):
        calls.append(n)
        return np.full(n, first, dtype=np.uint64)

    monkeypatch.setattr(discrete_noise, "_words", forced)
    n = 20_000
    hits = int(bernoulli_exp(np.full(n, num), den, random_state=3).sum())
    monkeypatch.setattr(discrete_noise, "_words", real)
    assert calls
    assert stats.binomtest(hits, n, frac).pvalue > 1e-3


def test_count_table_ties_use_the_next_word():
    table = discrete_noise._laplace_plan(10)[1][0]
    k = 3
    tk = int(table.asc[::-1][k - 1])
    r = np.array([tk], dtype=np.uint64)
    assert table.count(r, _ScriptedWords([0])) == [k]
    assert table.count(r, _ScriptedWords([(1 << 64) - 1])) == [k - 1]


def test_geometric_zero_word_continues_past_the_table():
    table = discrete_noise._laplace_plan(10)[2]
    r = np.zeros(1, dtype=np.uint64)
    got = int(table.count(r, np.random.default_rng(0))[0])
    assert got >= table.k


def test_forced_zero_words_still_give_a_valid_laplace(monkeypatch):
    monkeypatch.setattr(discrete_noise, "_words", lambda rng, n: np.zeros(n, dtype=np.uint64))
    out = discrete_laplace(5, 20, random_state=1)
    assert out.dtype == np.int64 and out.shape == (20,)


# ---------------------------------------------------------------- seeding
@pytest.mark.parametrize("draw", [
    lambda rs: discrete_laplace(1500, 1000, random_state=rs),
    lambda rs: discrete_gaussian(300**2, 1000, random_state=rs),
    lambda rs: bernoulli_exp(np.arange(1000), 100, random_state=rs),
])
def test_same_seed_same_values(draw):
    assert np.array_equal(draw(42), draw(42))
    assert np.array_equal(draw(np.random.default_rng(42)), draw(np.random.default_rng(42)))


def test_fresh_entropy_differs():
    assert not np.array_equal(discrete_laplace(1500, 1000), discrete_laplace(1500, 1000))


def test_one_generator_is_threaded():
    rng = np.random.default_rng(5)
    assert not np.array_equal(discrete_laplace(1500, 1000, random_state=rng),
                              discrete_laplace(1500, 1000, random_state=rng))


# ---------------------------------------------------------------- grids
def test_laplace_outputs_are_exact_grid_multiples():
    values = np.random.default_rng(0).normal(size=1000) * 37.1
    noisy, noise = laplace_on_grid(values, sensitivity=3.0, epsilon=0.7, coordinates=1,
                                   random_state=1)
    k = noisy / noise.grid
    assert np.array_equal(k, np.round(k))
    assert math.log2(noise.grid).is_integer()
    assert noise.epsilon <= 0.7


def test_gaussian_outputs_are_exact_grid_multiples():
    values = np.random.default_rng(0).normal(size=1000)
    noisy, noise = gaussian_on_grid(values, sigma=2.0, l2_sensitivity=1.0, random_state=1)
    k = noisy / noise.grid
    assert np.array_equal(k, np.round(k))


def test_counts_stay_integers():
    noisy, noise = laplace_on_grid(np.arange(10.0), sensitivity=1.0, epsilon=1.0, grid=1.0,
                                   on_grid=True, random_state=2)
    assert noise.grid == 1.0 and noise.steps == 1
    assert np.array_equal(noisy, np.round(noisy))


def test_grid_rounding_moves_a_scalar_by_at_most_the_rounded_sensitivity():
    """|round(a/g) - round(b/g)| <= grid_sensitivity(|a - b|, g), exhaustively on a fine grid."""
    values = np.arange(-64, 65) / 16.0
    for g in (0.125, 0.25, 0.5, 1.0, 2.0):
        units = sampler._round_to_grid(values, g, False)
        for i in range(values.size):
            diff = np.abs(values - values[i])
            moved = np.abs(units - units[i])
            for j in np.flatnonzero(diff > 0):
                assert moved[j] <= grid_sensitivity(diff[j], g)


def test_grid_rounding_of_vectors_stays_within_the_bound():
    rng = np.random.default_rng(3)
    g = 0.25
    for _ in range(2000):
        k = int(rng.integers(1, 5))
        a = rng.normal(size=k) * 3
        b = a + rng.normal(size=k) * rng.uniform(0, 2)
        l1 = float(np.abs(a - b).sum())
        if l1 == 0:
            continue
        ra, rb = sampler._round_to_grid(a, g, False), sampler._round_to_grid(b, g, False)
        moved = np.abs(ra - rb).sum()
        assert moved <= grid_sensitivity(l1, g, coordinates=k)


# ---------------------------------------------------------------- bad inputs
@pytest.mark.parametrize("call,error", [
    (lambda: discrete_laplace(1.5, 10), TypeError),
    (lambda: discrete_laplace(np.float64(2.0), 10), TypeError),
    (lambda: discrete_laplace(Fraction(0), 10), ValueError),
    (lambda: discrete_laplace(Fraction(-1, 2), 10), ValueError),
    (lambda: discrete_laplace(Fraction(2**40 + 1, 1), 10), ValueError),
    (lambda: discrete_laplace(True, 10), TypeError),
    (lambda: discrete_laplace(0, 10), ValueError),
    (lambda: discrete_laplace(2**41, 10), ValueError),
    (lambda: discrete_laplace(3, -1), ValueError),
    (lambda: discrete_laplace(3, "4"), TypeError),
    (lambda: discrete_gaussian(-1, 10), ValueError),
    (lambda: discrete_gaussian(float("nan"), 10), ValueError),
    (lambda: discrete_gaussian("4", 10), TypeError),
    (lambda: bernoulli_exp(np.array([0.5]), 2), TypeError),
    (lambda: bernoulli_exp(np.array([-1]), 2), ValueError),
    (lambda: bernoulli_exp(np.array([1]), 0), ValueError),
    (lambda: bernoulli_exp(np.array([1]), 2.0), TypeError),
    (lambda: laplace_on_grid([0.5], sensitivity=1.0, epsilon=1.0, grid=1.0, on_grid=True),
     ValueError),
])
def test_rejects_bad_inputs(call, error):
    with pytest.raises(error):
        call()


def test_zero_size_is_empty():
    assert discrete_laplace(3, 0, random_state=0).shape == (0,)
    assert discrete_gaussian(4, 0, random_state=0).shape == (0,)


# ---------------------------------------------------------------- OpenDP 0.16 as the reference
def _opendp():
    dp = pytest.importorskip("opendp.prelude")
    dp.enable_features("contrib")
    return dp


def _opendp_laplace(t: float, n: int) -> np.ndarray:
    dp = _opendp()
    domain = dp.vector_domain(dp.atom_domain(T=int))
    meas = dp.m.make_laplace(domain, dp.l1_distance(T=int), scale=float(t))
    return np.asarray(meas([0] * n), dtype=np.int64)


def _opendp_gaussian(sigma: float, n: int) -> np.ndarray:
    dp = _opendp()
    domain = dp.vector_domain(dp.atom_domain(T=int))
    meas = dp.m.make_gaussian(domain, dp.l2_distance(T=int), scale=float(sigma))
    return np.asarray(meas([0] * n), dtype=np.int64)


def test_discrete_laplace_matches_opendp():
    ref = _opendp_laplace(1500, 20_000)
    assert stats.ks_2samp(discrete_laplace(1500, 20_000, random_state=21), ref).pvalue > 1e-3


def test_opendp_comparison_detects_a_wrong_scale():
    ref = _opendp_laplace(1500, 20_000)
    assert stats.ks_2samp(discrete_laplace(1950, 20_000, random_state=21), ref).pvalue < 1e-6


@pytest.mark.parametrize("t", [0.5, 10 / 7], ids=str)
def test_rational_discrete_laplace_matches_opendp(t):
    """OpenDP's discrete Laplace at a float scale (taken exactly) against ours at its Fraction."""
    ref = _opendp_laplace(t, 10_000)
    ours = discrete_laplace(Fraction(t), 100_000, random_state=23)
    assert stats.chi2_contingency(_counts_table(ours, ref)).pvalue > 1e-3


def test_opendp_rational_comparison_detects_the_rounded_up_scale():
    ref = _opendp_laplace(10 / 7, 10_000)
    ours = discrete_laplace(2, 100_000, random_state=23)  # ceil(10 / 7)
    assert stats.chi2_contingency(_counts_table(ours, ref)).pvalue < 1e-6


def test_discrete_gaussian_matches_opendp():
    ref = _opendp_gaussian(1500, 20_000)
    assert stats.ks_2samp(discrete_gaussian(1500**2, 20_000, random_state=22), ref).pvalue > 1e-3


def test_opendp_gaussian_comparison_detects_a_wrong_sigma():
    ref = _opendp_gaussian(1500, 20_000)
    assert stats.ks_2samp(discrete_gaussian(1950**2, 20_000, random_state=22), ref).pvalue < 1e-6
