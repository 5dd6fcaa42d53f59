"""The neighbouring-dataset auditor: right mechanisms pass, mutants with too little noise
are flagged; the result, the ceiling and the grid check say what was measured (the pair
builders are tested in test_pairs.py, test_pipeline_pairs.py and test_hub_pair.py).

Every audit has a fixed ``random_state``, so its bound is a fixed number; the margins below
(measured, noted beside each test) are far from the claim in both directions.
"""
from __future__ import annotations

import math
import threading

import numpy as np
import pytest

from core.audit.auditor import audit
from core.audit.grid import off_grid_share
from core.audit.bounds import audit_ceiling
from core.audit.power import best_runs, gaussian_shift_rates
from core.audit.result import AuditResult
from core.audit.pairs import NeighbouringPair, replace_pair
from core.runtime.experiments import map_seeds
from core.privacy.mechanisms import gaussian, gaussian_sigma, krr, laplace

EPS = 1.0
GAUSS_DELTA = 0.01  # a large delta gives the audit power against a half-sigma Gaussian
CATEGORIES = ["a", "b", "c"]

# the sum of 50 values in [0, 1]: record 0 goes from 0 to 1, the sum moves by 1
SUM_PAIR = replace_pair(np.zeros(50), 0, 1.0, description="record 0 replaced by 1")
# local DP: a dataset of one record whose value changes from "a" to "b"
KRR_PAIR = NeighbouringPair(np.array(["a"]), np.array(["b"]), "the record's value a replaced by b")


def laplace_sum(data, random_state):
    return laplace(data.sum(), sensitivity=1.0, epsilon=EPS, random_state=random_state)


def laplace_sum_half_noise(data, random_state):
    # the bug: sensitivity taken as 0.5, half the noise, true epsilon 2
    return laplace(data.sum(), sensitivity=0.5, epsilon=EPS, random_state=random_state)


def gaussian_sum(data, random_state):
    return gaussian(data.sum(), sensitivity=1.0, epsilon=EPS, delta=GAUSS_DELTA,
                    calibration="analytic", random_state=random_state)


def gaussian_sum_half_sigma(data, random_state):
    # analytic sigma is linear in the sensitivity: half the sensitivity, half the sigma
    return gaussian(data.sum(), sensitivity=0.5, epsilon=EPS, delta=GAUSS_DELTA,
                    calibration="analytic", random_state=random_state)


def krr_report(data, random_state):
    return krr(data, categories=CATEGORIES, epsilon=EPS, random_state=random_state)


def krr_report_keeps_too_often(data, random_state):
    # keep-probability e^2 / (k - 1 + e^2): that of 2 * epsilon
    return krr(data, categories=CATEGORIES, epsilon=2 * EPS, random_state=random_state)


def reported_b_minus_a(out) -> float:
    return float(out[0] == "b") - float(out[0] == "a")


#: The half-sigma mutant shifts its Gaussian by 2 / sigma = 1.07 standard deviations (sigma the
#: analytic one at epsilon 1, delta 1e-2): the runs that flag it with power 0.999
#: (core.audit.power, about 2,400); the pass case runs as many.
GAUSS_SIGMA = gaussian_sigma(sensitivity=1.0, epsilon=EPS, delta=GAUSS_DELTA, calibration="analytic")
GAUSS_RUNS = best_runs(lambda fp: gaussian_shift_rates(2.0 / GAUSS_SIGMA, false_positive=fp),
                       claimed_epsilon=EPS, delta=GAUSS_DELTA)


def _laplace_audit(**kw) -> AuditResult:
    base = dict(claimed_epsilon=EPS, runs=200, chunk=25, random_state=7)
    return audit(laplace_sum, SUM_PAIR, **{**base, **kw})


# --------------------------------------------------------------------------- power


def test_laplace_with_the_right_scale_passes():
    r = audit(laplace_sum, SUM_PAIR, claimed_epsilon=EPS, runs=2000, random_state=0)
    assert not r.violation
    assert 0.3 < r.epsilon_lower < 0.9  # measured 0.79 (0.63 to 0.86 over seeds 0-7)


def test_laplace_with_half_the_noise_is_flagged():
    r = audit(laplace_sum_half_noise, SUM_PAIR, claimed_epsilon=EPS, runs=2000, random_state=0)
    assert r.violation
    assert r.epsilon_lower > 1.3  # measured 1.45, true epsilon 2 (1.45 to 1.95 over seeds 0-7)


def test_gaussian_with_the_analytic_sigma_passes():
    r = audit(gaussian_sum, SUM_PAIR, claimed_epsilon=EPS, claimed_delta=GAUSS_DELTA,
              runs=GAUSS_RUNS, chunk=500, random_state=2)
    assert not r.violation
    assert r.epsilon_lower < 0.9  # measured 0.54 (0.11 to 0.54 over seeds 0-7)


def test_gaussian_with_half_the_sigma_is_flagged():
    r = audit(gaussian_sum_half_sigma, SUM_PAIR, claimed_epsilon=EPS,
              claimed_delta=GAUSS_DELTA, runs=GAUSS_RUNS, chunk=500, random_state=2)
    assert r.violation
    assert r.epsilon_lower > 1.1  # measured 1.58 (1.16 to 1.58 over seeds 0-7)


def test_krr_on_one_value_passes():
    r = audit(krr_report, KRR_PAIR, claimed_epsilon=EPS, statistic=reported_b_minus_a,
              runs=2000, random_state=0)
    assert not r.violation
    assert r.epsilon_lower < 0.9  # measured 0.73 (0.73 to 0.96 over seeds 0-7)


def test_krr_keeping_the_truth_too_often_is_flagged():
    r = audit(krr_report_keeps_too_often, KRR_PAIR, claimed_epsilon=EPS,
              statistic=reported_b_minus_a, runs=2000, random_state=0)
    assert r.violation
    assert r.epsilon_lower > 1.5  # measured 1.69, true epsilon 2 (1.69 to 1.95 over seeds 0-7)


def test_a_mechanism_without_noise_is_flagged_with_an_infinite_point_estimate():
    r = audit(lambda d, random_state: float(d.sum()), SUM_PAIR, claimed_epsilon=EPS,
              runs=100, random_state=0)
    assert r.violation
    assert r.epsilon_point == math.inf


# --------------------------------------------------------------------------- result


def test_claimed_infinity_is_never_a_violation_and_says_there_is_no_claim():
    r = audit(laplace_sum_half_noise, SUM_PAIR, claimed_epsilon=math.inf, runs=200,
              random_state=7)
    assert not r.violation
    assert r.verdict.startswith("No claim to check")
    assert f"{r.epsilon_lower:.3g}" in r.verdict


def test_verdicts_name_the_bound_and_the_claim():
    ok = _laplace_audit(claimed_epsilon=5.0)
    bad = _laplace_audit(claimed_epsilon=0.01)
    assert ok.verdict.startswith("No violation") and "<= claimed 5" in ok.verdict
    assert bad.verdict.startswith("VIOLATION") and "claimed epsilon 0.01" in bad.verdict


def test_to_dict_holds_every_field_and_the_verdict():
    r = _laplace_audit()
    d = r.to_dict()
    assert d["runs"] == 200 and d["description"] == "record 0 replaced by 1"
    assert d["verdict"] == r.verdict and d["runs_per_second"] == r.runs_per_second
    assert set(d) >= {"epsilon_lower", "epsilon_point", "threshold", "direction", "stopped"}


def test_same_seed_gives_the_same_result():
    a, b = _laplace_audit().to_dict(), _laplace_audit().to_dict()
    for d in (a, b):
        d.pop("seconds"), d.pop("runs_per_second")
    assert a == b


def test_chunk_size_does_not_change_the_result():
    a, b = _laplace_audit(chunk=7), _laplace_audit(chunk=200)
    assert (a.epsilon_lower, a.threshold) == (b.epsilon_lower, b.threshold)


def test_two_workers_give_the_same_result_as_one():
    a = _laplace_audit(n_jobs=1)
    b = _laplace_audit(n_jobs=2)
    assert (a.epsilon_lower, a.epsilon_point, a.threshold, a.direction) == (
        b.epsilon_lower, b.epsilon_point, b.threshold, b.direction)


def test_an_audit_on_a_cluster_gives_the_same_result(dask_cluster):
    a = _laplace_audit().to_dict()
    b = _laplace_audit(scheduler=dask_cluster).to_dict()
    for d in (a, b):
        d.pop("seconds"), d.pop("runs_per_second")
    assert a == b


def test_stopping_an_audit_on_a_cluster_keeps_the_finished_chunks(dask_cluster):
    stop = threading.Event()
    r = _laplace_audit(runs=400, chunk=20, scheduler=dask_cluster, stop=stop,
                       progress=lambda f, m: stop.set() if f >= 0.25 else None)
    assert r.stopped and 20 <= r.runs < 400


def test_progress_is_reported_after_every_chunk():
    seen = []
    _laplace_audit(progress=lambda f, m: seen.append(f))
    assert seen == pytest.approx([k / 8 for k in range(1, 9)])  # 200 runs in chunks of 25


def test_stop_event_ends_the_audit_after_the_current_chunk():
    stop = threading.Event()
    r = _laplace_audit(progress=lambda f, m: stop.set() if f >= 0.25 else None, stop=stop)
    assert r.stopped and r.runs == 50
    assert "stopped early" in r.verdict


def test_stop_before_twenty_runs_per_side_is_an_error():
    stop = threading.Event()
    stop.set()
    with pytest.raises(ValueError, match="at least 20"):
        _laplace_audit(stop=stop)


@pytest.mark.parametrize("runs", [0, 19])
def test_fewer_than_twenty_runs_are_refused(runs):
    with pytest.raises(ValueError, match="at least 20"):
        _laplace_audit(runs=runs)


@pytest.mark.parametrize("eps, error", [(0.0, ValueError), (-1.0, ValueError),
                                        (math.nan, ValueError), (-math.inf, ValueError),
                                        ("1", TypeError)])
def test_bad_claimed_epsilon_is_refused(eps, error):
    with pytest.raises(error):
        _laplace_audit(claimed_epsilon=eps)


@pytest.mark.parametrize("kw", [{"claimed_delta": 1.0}, {"confidence": 1.0},
                                {"confidence": 0.0}])
def test_bad_delta_or_confidence_is_refused(kw):
    with pytest.raises(ValueError):
        _laplace_audit(**kw)


def test_non_callable_mechanism_is_a_type_error():
    with pytest.raises(TypeError, match="mechanism must be callable"):
        audit(42, SUM_PAIR, claimed_epsilon=EPS, runs=50, random_state=0)


def test_a_pair_must_be_a_neighbouring_pair():
    with pytest.raises(TypeError, match="NeighbouringPair"):
        audit(laplace_sum, (np.zeros(3), np.ones(3)), claimed_epsilon=EPS, random_state=0)


def test_an_output_that_is_not_a_number_needs_a_statistic():
    with pytest.raises(TypeError, match="statistic"):
        audit(krr_report, KRR_PAIR, claimed_epsilon=EPS, runs=20, random_state=0)


def test_pairs_of_different_sizes_are_not_neighbours():
    pair = NeighbouringPair(np.zeros(3), np.zeros(4), "a record added")
    with pytest.raises(ValueError, match="same number of records"):
        audit(laplace_sum, pair, claimed_epsilon=EPS, random_state=0)


# --------------------------------------------------------------------------- map_seeds


def test_map_seeds_keeps_order_in_chunks():
    seen = []
    out = map_seeds(lambda s: s * 2, list(range(10)), chunk=4,
                    progress=lambda f, m: seen.append(f))
    assert out == [2 * s for s in range(10)]
    assert seen == [0.4, 0.8, 1.0]


def test_map_seeds_stops_after_the_current_chunk():
    stop = threading.Event()
    out = map_seeds(lambda s: s, list(range(10)), chunk=3,
                    progress=lambda f, m: stop.set(), stop=stop)
    assert out == [0, 1, 2]


# --------------------------------------------------------------------------- full precision


def _constant(values):
    """A mechanism without noise: ``values[dataset]`` whatever the seed."""
    def mechanism(data, random_state):
        return values[int(data)]
    return mechanism


@pytest.mark.parametrize("gap", [1e-12, "ulp"])
def test_statistics_one_ulp_apart_are_told_apart(gap):
    x0 = 1.0
    x1 = np.nextafter(x0, 2.0) if gap == "ulp" else x0 + gap
    r = audit(_constant([x0, x1]), NeighbouringPair(0, 1, "x0 vs x1"), claimed_epsilon=1.0,
              runs=100, random_state=0)
    assert r.epsilon_lower == pytest.approx(r.ceiling) and r.violation and r.saturated


def test_a_threshold_is_reported_at_full_precision():
    r = audit(_constant([1.0, 1.0 + 1e-12]), NeighbouringPair(0, 1, "x0 vs x1"), claimed_epsilon=1.0,
              runs=100, random_state=0)
    assert repr(r.threshold) in r.direction and r.direction.endswith(("on D0", "on D1"))


# --------------------------------------------------------------------------- ceiling


@pytest.mark.parametrize("runs, expected", [(200, 3.28), (1000, 4.91), (5000, 6.52)])
def test_ceiling_is_the_bound_of_a_test_without_errors(runs, expected):
    m = runs - runs // 2
    u = 1.0 - 0.025 ** (1.0 / m)  # Clopper-Pearson upper bound of 0 errors in m, at 97.5%
    assert audit_ceiling(runs) == pytest.approx(math.log((1.0 - u) / u), rel=1e-9)
    assert audit_ceiling(runs) == pytest.approx(expected, abs=0.01)


def test_ceiling_falls_with_confidence_and_delta():
    assert audit_ceiling(1000, confidence=0.99) < audit_ceiling(1000)
    assert audit_ceiling(1000, delta=0.1) < audit_ceiling(1000)


@pytest.mark.parametrize("kw, error", [(dict(runs=10), ValueError), (dict(runs=1.5), TypeError),
                                       (dict(runs=100, confidence=1.0), ValueError),
                                       (dict(runs=100, confidence="0.9"), TypeError)])
def test_ceiling_refuses_bad_arguments(kw, error):
    with pytest.raises(error):
        audit_ceiling(**kw)


def test_result_carries_the_ceiling_and_says_it():
    r = _laplace_audit()
    assert r.ceiling == pytest.approx(audit_ceiling(200)) and not r.saturated
    assert "With 200 runs per side this audit cannot show more than 3.28." in r.verdict
    d = r.to_dict()
    assert d["ceiling"] == r.ceiling and d["saturated"] is False and "cannot show more" in d["ceiling_text"]


def test_a_bound_at_the_ceiling_says_the_audit_saturates():
    r = audit(_constant([0.0, 1.0]), NeighbouringPair(0, 1, "0 vs 1"), claimed_epsilon=1.0, runs=1000,
              random_state=0)
    assert r.saturated and r.epsilon_lower == pytest.approx(4.9, abs=0.01)
    assert "with 1,000 runs per side this audit cannot show more than 4.91" in r.ceiling_text
    assert "saturates" in r.verdict and "more runs could show more" in r.verdict


# --------------------------------------------------------------------------- grid


def float_laplace_sum(data, random_state):
    # numpy's floating-point sampler: what the exact sampler replaced
    return data.sum() + np.random.default_rng(random_state).laplace(scale=1.0 / EPS)


def grid_laplace_sum(data, random_state):
    return laplace(data.sum(), sensitivity=1.0, epsilon=EPS, grid=2.0 ** -10, random_state=random_state)


def test_exact_sampler_outputs_are_all_on_the_declared_grid():
    r = audit(grid_laplace_sum, SUM_PAIR, claimed_epsilon=EPS, runs=100, random_state=0, grid=2.0 ** -10)
    assert r.off_grid == 0 and r.grid == 2.0 ** -10 and "Every output lies on the declared grid" in r.verdict


def test_floating_point_noise_is_flagged_off_the_grid():
    r = audit(float_laplace_sum, SUM_PAIR, claimed_epsilon=EPS, runs=100, random_state=0, grid=2.0 ** -10)
    assert r.off_grid == 200 and "outputs lie off the declared grid" in r.verdict


def test_without_a_grid_nothing_is_checked():
    r = _laplace_audit()
    assert r.grid is None and r.off_grid is None and "grid" not in r.verdict


def test_off_grid_share_is_exact():
    g = 2.0 ** -3
    assert off_grid_share([0.0, g, -5 * g, 1e6 * g], g) == 0.0
    assert off_grid_share([g, g + 1e-12], g) == 0.5
    assert off_grid_share(np.array([[3 * 0.1, 0.3]]), 0.1) == 0.5  # 3 * 0.1 != 0.3: grids are powers of two
    assert off_grid_share([], g) == 0.0


@pytest.mark.parametrize("grid, error", [(0.0, ValueError), (-1.0, ValueError), (math.inf, ValueError),
                                         ("0.1", TypeError), (True, TypeError)])
def test_off_grid_share_refuses_a_bad_grid(grid, error):
    with pytest.raises(error):
        off_grid_share([1.0], grid)


def test_a_grid_check_needs_numeric_outputs():
    with pytest.raises(TypeError, match="numbers"):
        audit(lambda d, random_state: {"x": 1.0}, SUM_PAIR, claimed_epsilon=EPS, statistic=lambda o: o["x"],
              runs=20, random_state=0, grid=1.0)
