"""The neighbouring-dataset auditor: right mechanisms pass, mutants with too little noise
are flagged, the pair helpers build neighbours without touching the original.

Every audit has a fixed ``random_state``, so its bound is a fixed number; the margins below
(measured, noted beside each test) are far from the claim in both directions.
"""
from __future__ import annotations

import math
import threading

import numpy as np
import pandas as pd
import pytest

from core.audit import (
    AuditResult,
    NeighbouringPair,
    audit,
    extreme_record,
    flip_value,
    replace_pair,
    replace_record,
)
from core.experiments import map_seeds
from core.mechanisms import gaussian, krr, laplace

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
              runs=6000, chunk=500, random_state=2)
    assert not r.violation
    assert r.epsilon_lower < 0.9  # measured 0.68 (0.39 to 0.87 over seeds 0-7)


def test_gaussian_with_half_the_sigma_is_flagged():
    r = audit(gaussian_sum_half_sigma, SUM_PAIR, claimed_epsilon=EPS,
              claimed_delta=GAUSS_DELTA, runs=6000, chunk=500, random_state=2)
    assert r.violation
    assert r.epsilon_lower > 1.3  # measured 1.91 (1.52 to 2.17 over seeds 0-7)


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


# --------------------------------------------------------------------------- pairs


def test_replace_record_in_an_array_copies():
    X = np.arange(6).reshape(3, 2)
    out = replace_record(X, 1, [0.5, 9])
    assert out[1].tolist() == [0.5, 9.0] and out[0].tolist() == [0, 1]
    assert X[1].tolist() == [2, 3]  # original untouched (and its int dtype kept)


def test_replace_record_in_a_frame_from_dict_series_or_sequence():
    df = pd.DataFrame({"age": [30, 40, 50], "job": ["x", "y", "x"]})
    before = df.copy()
    for record in ({"age": 99.5, "job": "z"}, pd.Series({"job": "z", "age": 99.5}), [99.5, "z"]):
        out = replace_record(df, 2, record)
        assert out.iloc[2].tolist() == [99.5, "z"]
        assert out.iloc[:2].equals(df.iloc[:2].astype({"age": float}))
    pd.testing.assert_frame_equal(df, before)


def test_replace_record_in_a_frame_needs_every_column():
    df = pd.DataFrame({"age": [30, 40], "job": ["x", "y"]})
    with pytest.raises(ValueError, match="every column"):
        replace_record(df, 0, {"age": 1})


def test_replace_record_in_x_y_replaces_features_and_label():
    X, y = np.zeros((4, 2)), np.array([0, 1, 0, 0])
    X2, y2 = replace_record((X, y), 3, ([1.0, 2.0], 1))
    assert X2[3].tolist() == [1.0, 2.0] and y2.tolist() == [0, 1, 0, 1]
    assert not X.any() and y.tolist() == [0, 1, 0, 0]


def test_replace_record_refuses_an_index_outside_the_data():
    with pytest.raises(ValueError, match="between 0 and n - 1"):
        replace_record(np.zeros((3, 2)), 3, [0, 0])


def test_extreme_record_of_an_array_is_the_column_max_or_the_given_bound():
    X = np.array([[1.0, -5.0], [3.0, 2.0]])
    assert extreme_record(X).tolist() == [3.0, 2.0]
    assert extreme_record(X, towards="lower").tolist() == [1.0, -5.0]
    assert extreme_record(X, bounds=(0.0, [10.0, 20.0])).tolist() == [10.0, 20.0]


def test_extreme_record_of_a_frame_takes_the_rarest_category():
    df = pd.DataFrame({"age": [30, 40, 50, 20], "job": ["x", "y", "x", "x"]})
    assert extreme_record(df) == {"age": 50, "job": "y"}
    assert extreme_record(df, bounds={"age": (17, 90)}, towards="lower") == {"age": 17.0, "job": "y"}


def test_extreme_record_of_x_y_takes_the_rarest_label():
    X, y = np.array([[0.0], [4.0], [2.0]]), np.array(["no", "yes", "no"])
    x_row, label = extreme_record((X, y))
    assert x_row.tolist() == [4.0] and label == "yes"


def test_flip_value_defaults_to_the_rarest_other_value():
    df = pd.DataFrame({"job": ["x", "y", "x", "z", "z"], "age": [1, 2, 3, 4, 5]})
    out = flip_value(df, 0, "job")
    assert out["job"].tolist() == ["y", "y", "x", "z", "z"]
    assert flip_value(df, 1, "age", 99)["age"].tolist() == [1, 99, 3, 4, 5]
    assert df["job"].tolist() == ["x", "y", "x", "z", "z"]


def test_flip_value_needs_another_value():
    with pytest.raises(ValueError, match="no value other"):
        flip_value(pd.DataFrame({"c": ["a", "a"]}), 0, "c")


def test_replace_pair_defaults_to_the_extreme_record():
    X = np.array([[1.0, 0.0], [3.0, 2.0], [2.0, 1.0]])
    pair = replace_pair(X, 0)
    assert pair.d0 is X and pair.d1[0].tolist() == [3.0, 2.0]
    assert np.array_equal(pair.d1[1:], X[1:])
    assert pair.description.startswith("record 0 replaced by the extreme record")


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
