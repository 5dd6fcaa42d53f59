"""The audit scenarios of every mechanism that claims epsilon: the right noise passes, a
mutant with too little noise (half the noise, or the old add/remove calibration) is flagged;
and the pipeline pairs catch releases that read a step before the noise from the rows (toy
mutants, and IDP-KMeans scaled by its rows) while their schema-based fixes pass.

Fixed seeds make every audit deterministic; the margins were measured when the run counts
were chosen (the pass cases sit well below their claim, the mutants well above).
"""
from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

import core.cdp.dpsgd as dpsgd  # the DP-SGD mutant patches its calibration
import core.cdp.noise_placement as placement  # the CDP-LR mutants patch its noise scales
import core.cdp.publishing as publishing
import core.privacy.mechanisms as mechanisms
from core.audit.hub_pair import hub_record_pair
from core.audit.power import best_runs, gaussian_shift_rates
from core.audit.pipeline_pairs import held_out_pair, new_category_pair, out_of_range_pair
from core.audit_cases import (
    AuditCase,
    cdp_lr_case,
    count_query_case,
    dpsgd_case,
    krr_case,
    pipeline_cases,
    run_case,
    run_cases,
    sskm_paper_case,
    sskm_sound_case,
    worst_result,
)
from core.correlation.records import correlated_sensitivity
from core.privacy.schema import PublicSchema
from core.privacy.schema_columns import OTHER, ColumnSchema
from core.privacy.mechanisms import laplace

RUNS = 2000


def _gaussian_runs(shift: float) -> int:
    """Runs per side that flag a Gaussian mechanism shifted by ``shift`` standard deviations
    against a claim of epsilon 1 at delta 1e-2, with power 0.999 (core.audit.power)."""
    return best_runs(lambda fp: gaussian_shift_rates(shift, false_positive=fp), claimed_epsilon=1.0, delta=1e-2)


#: Method 7 at epsilon 1, delta 1e-2 adds N(0, (z B)^2) to a sum a replaced group moves by
#: 2 B: one release is a Gaussian shifted by mu = 2 / z = 0.53 standard deviations, and ten
#: epochs at their own z are again mu = 0.53 in all.
PLD_MU = 2.0 / placement.pld_gaussian_calibration(1.0, 1e-2, 1)[0]
#: The weakest method-7 mutant doubles the shift (half the noise multiplier, or the add/remove
#: sensitivity): mu = 1.06 needs about 2,460 runs; the pass cases run as many.
PLD_RUNS = _gaussian_runs(2.0 * PLD_MU)
#: One epoch's z on each of ten: the ten releases add up to a shift of sqrt(10) mu = 1.68, but
#: the statistic (the weight after ten steps of gradient descent) sees a shift of 0.86 standard
#: deviations (measured on 600 runs per side), which 5,000 runs flag with power 0.98
#: (EPOCH_POWER; tests/core/audit/test_power.py recomputes it). The pass case runs as many.
EPOCH_SHIFT, EPOCH_RUNS, EPOCH_POWER = 0.86, 5000, 0.98


@pytest.fixture(scope="module")
def xy():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    y = (X[:, 0] > 0).astype(int)
    return X, y


def _half(fn):
    return lambda **kw: fn(**kw) / 2


def _old_calibration(fn):
    """The add/remove-one scale: half of the replacement sensitivity."""
    return lambda *, sensitivity, **kw: fn(sensitivity=sensitivity / 2, **kw)


@pytest.mark.parametrize("method", [1, 3])
def test_cdp_lr_laplace_methods_pass_their_audit(xy, method):
    res = run_case(cdp_lr_case(*xy, sensitivity=1.0, epsilon=1.0, noise_method=method),
                   runs=RUNS, random_state=0)
    assert not res.violation and res.epsilon_lower > 0.5  # tight: the pair is near worst case


@pytest.mark.parametrize("method", [1, 3])
def test_cdp_lr_old_calibration_is_flagged(xy, method, monkeypatch):
    monkeypatch.setattr(placement, "laplace_scale", _old_calibration(placement.laplace_scale))
    res = run_case(cdp_lr_case(*xy, sensitivity=1.0, epsilon=1.0, noise_method=method),
                   runs=RUNS, random_state=0)
    assert res.violation


def test_cdp_lr_correlated_group_passes_at_its_cs(xy):
    res = run_case(cdp_lr_case(*xy, sensitivity=3.0, epsilon=1.0, noise_method=1),
                   runs=RUNS, random_state=0)
    assert not res.violation and res.epsilon_lower > 0.5


def test_cdp_lr_noise_for_one_record_instead_of_cs_is_flagged(xy, monkeypatch):
    real = placement.laplace_scale
    monkeypatch.setattr(placement, "laplace_scale",
                        lambda *, sensitivity, epsilon: real(sensitivity=sensitivity / 3.0, epsilon=epsilon))
    res = run_case(cdp_lr_case(*xy, sensitivity=3.0, epsilon=1.0, noise_method=1),
                   runs=RUNS, random_state=0)
    assert res.violation


def test_cdp_lr_gaussian_method_passes_with_its_delta(xy):
    res = run_case(cdp_lr_case(*xy, sensitivity=1.0, epsilon=1.0, noise_method=2, delta=1e-2),
                   runs=5000, random_state=0)
    assert res.claimed_delta == pytest.approx(1e-2)
    assert not res.violation


def test_cdp_lr_gaussian_half_sigma_is_flagged(xy, monkeypatch):
    monkeypatch.setattr(placement, "gaussian_sigma", _half(placement.gaussian_sigma))
    res = run_case(cdp_lr_case(*xy, sensitivity=1.0, epsilon=1.0, noise_method=2, delta=1e-2),
                   runs=5000, random_state=0)
    assert res.violation


def test_cdp_lr_pld_method_passes_with_its_delta(xy):
    """Method 7 (beyond the paper): its sigma is the PLD accountant's, its claim the ledger's."""
    case = cdp_lr_case(*xy, sensitivity=1.0, epsilon=1.0, noise_method=7, delta=1e-2)
    assert case.claimed_epsilon == pytest.approx(1.0, rel=1e-4) and case.claimed_epsilon <= 1.0
    res = run_case(case, runs=PLD_RUNS, random_state=0)
    assert res.claimed_delta == pytest.approx(1e-2)
    assert not res.violation


def test_cdp_lr_pld_method_passes_for_a_correlated_group(xy):
    res = run_case(cdp_lr_case(*xy, sensitivity=3.0, epsilon=1.0, noise_method=7, delta=1e-2),
                   runs=PLD_RUNS, random_state=0)
    assert not res.violation


def test_cdp_lr_pld_method_passes_over_ten_epochs(xy):
    """Ten epochs, plain gradient descent: the trained weight sums the ten noisy releases."""
    res = run_case(cdp_lr_case(*xy, sensitivity=1.0, epsilon=1.0, noise_method=7, delta=1e-2, epochs=10),
                   runs=EPOCH_RUNS, random_state=0)
    assert not res.violation


def test_cdp_lr_pld_accounting_one_epoch_for_ten_is_flagged(xy, monkeypatch):
    """Composition forgotten: the sigma of one release used on each of ten."""
    real = placement.pld_gaussian_calibration
    monkeypatch.setattr(placement, "pld_gaussian_calibration", lambda eps, delta, epochs: real(eps, delta, 1))
    res = run_case(cdp_lr_case(*xy, sensitivity=1.0, epsilon=1.0, noise_method=7, delta=1e-2, epochs=10),
                   runs=EPOCH_RUNS, random_state=0)
    assert res.violation


def test_cdp_lr_pld_half_noise_multiplier_is_flagged(xy, monkeypatch):
    """A calibration that returns half the accountant's noise multiplier (same claim)."""
    real = placement.pld_gaussian_calibration
    monkeypatch.setattr(placement, "pld_gaussian_calibration",
                        lambda *a: (real(*a)[0] / 2, real(*a)[1]))
    res = run_case(cdp_lr_case(*xy, sensitivity=1.0, epsilon=1.0, noise_method=7, delta=1e-2),
                   runs=PLD_RUNS, random_state=0)
    assert res.violation


def test_cdp_lr_pld_add_remove_sensitivity_is_flagged(xy, monkeypatch):
    """Modelling the replaced group as added or removed (CS clip, not 2 CS clip): half the noise."""
    monkeypatch.setattr(placement.Calibration, "sum_sensitivity", property(lambda c: c.cs * c.clip))
    res = run_case(cdp_lr_case(*xy, sensitivity=1.0, epsilon=1.0, noise_method=7, delta=1e-2),
                   runs=PLD_RUNS, random_state=0)
    assert res.violation


def test_cdp_lr_pld_noise_for_one_record_instead_of_cs_is_flagged(xy, monkeypatch):
    real = placement._pld_gaussian_scales
    monkeypatch.setitem(placement.NOISE_PLACEMENTS, 7, replace(
        placement.NOISE_PLACEMENTS[7], scales=lambda c: real(replace(c, cs=c.cs / 3.0))))
    res = run_case(cdp_lr_case(*xy, sensitivity=3.0, epsilon=1.0, noise_method=7, delta=1e-2),
                   runs=PLD_RUNS, random_state=0)
    assert res.violation


def test_cdp_lr_method_five_passes_at_half_the_budget(xy):
    case = cdp_lr_case(*xy, sensitivity=1.0, epsilon=1.0, noise_method=5)
    assert case.claimed_epsilon == pytest.approx(0.5)
    assert not run_case(case, runs=RUNS, random_state=0).violation


def test_cdp_lr_method_five_counting_the_n_half_is_flagged(xy, monkeypatch):
    monkeypatch.setattr(placement, "laplace_scale", _half(placement.laplace_scale))
    res = run_case(cdp_lr_case(*xy, sensitivity=1.0, epsilon=1.0, noise_method=5),
                   runs=RUNS, random_state=0)
    assert res.violation


def test_cdp_lr_output_perturbation_passes(xy):
    X1 = xy[0][:, 2:]  # one feature unrelated to the label: the tight case
    res = run_case(cdp_lr_case(X1, xy[1], sensitivity=1.0, epsilon=1.0, noise_method=6, l2=5.0,
                               fit_intercept=False), runs=1000, random_state=0)
    assert not res.violation and res.epsilon_lower > 0.4


def test_cdp_lr_output_perturbation_with_half_the_sensitivity_is_flagged(xy):
    X1 = xy[0][:, 2:]
    case = cdp_lr_case(X1, xy[1], sensitivity=0.5, epsilon=1.0, noise_method=6, l2=5.0,
                       fit_intercept=False)  # calibrated to 0.5 while one record moves as 1
    assert run_case(case, runs=1000, random_state=0).violation


def test_cdp_lr_method_four_leaks_far_beyond_its_nominal_epsilon(xy):
    case = cdp_lr_case(*xy, sensitivity=1.0, epsilon=1.0, noise_method=4)
    assert math.isinf(case.claimed_epsilon)
    res = run_case(case, runs=1000, random_state=0)
    assert res.epsilon_lower > 2.0 and not res.violation  # no claim to violate, but a large leak


def test_dpsgd_full_batch_passes_its_ledger_claim(xy):
    """DP-SGD (ordinary DP, beyond the paper), one full-batch step: the tight case."""
    case = dpsgd_case(*xy, epsilon=1.0, delta=1e-2)
    assert case.claimed_epsilon == pytest.approx(1.0, rel=1e-4) and case.claimed_epsilon <= 1.0
    res = run_case(case, runs=5000, random_state=0)
    assert res.claimed_delta == pytest.approx(1e-2)
    assert not res.violation and res.epsilon_lower > 0.5


def test_dpsgd_subsampled_passes_its_ledger_claim(xy):
    res = run_case(dpsgd_case(*xy, epsilon=1.0, delta=1e-2, sampling_rate=0.5), runs=5000, random_state=0)
    assert not res.violation


def test_dpsgd_half_noise_multiplier_is_flagged(xy, monkeypatch):
    """A calibration that returns half the accountant's noise multiplier (same claim)."""
    real = dpsgd.dpsgd_calibration
    monkeypatch.setattr(dpsgd, "dpsgd_calibration", lambda *a: (real(*a)[0] / 2, *real(*a)[1:]))
    res = run_case(dpsgd_case(*xy, epsilon=1.0, delta=1e-2), runs=5000, random_state=0)
    assert res.violation


def test_count_query_passes_at_its_sensitivity():
    matches = np.random.default_rng(1).random(100) < 0.5
    res = run_case(count_query_case(matches, sensitivity=3.0, epsilon=1.0), runs=RUNS, random_state=0)
    assert not res.violation and res.epsilon_lower > 0.5


def test_count_query_with_half_the_noise_is_flagged(monkeypatch):
    monkeypatch.setattr(publishing, "laplace_noise", lambda v, *, sensitivity, **kw: mechanisms.laplace_noise(
        v, sensitivity=sensitivity / 2, **kw))
    matches = np.random.default_rng(1).random(100) < 0.5
    res = run_case(count_query_case(matches, sensitivity=3.0, epsilon=1.0), runs=RUNS, random_state=0)
    assert res.violation


def test_krr_passes_its_local_claim():
    res = run_case(krr_case(["a", "b", "c"], epsilon=1.0), runs=RUNS, random_state=0)
    assert not res.violation and res.epsilon_lower > 0.5


def test_krr_keeping_the_truth_too_often_is_flagged(monkeypatch):
    real = mechanisms._krr_codes  # the exact sampler, fed twice the budget
    monkeypatch.setattr(mechanisms, "_krr_codes",
                        lambda codes, k, epsilon, rng: real(codes, k, 2 * epsilon, rng))
    res = run_case(krr_case(["a", "b", "c"], epsilon=1.0), runs=RUNS, random_state=0)
    assert res.violation


def test_cdp_lr_case_refuses_a_one_class_label(xy):
    with pytest.raises(ValueError, match="two classes"):
        cdp_lr_case(xy[0], np.zeros(60), sensitivity=1.0, epsilon=1.0)


@pytest.fixture(scope="module")
def census_frame():
    from core.data import load_sample

    cols = ["age", "education_num", "sex", "marital_status", "hours_per_week", "relationship"]
    return load_sample("census").frame[cols].head(1000).reset_index(drop=True)


def test_sound_sskm_case_moves_the_release_near_its_sensitivity_and_passes(census_frame):
    """The page's scenario on real columns (its mutant has low power here: the privacy loss
    spreads over 2(m + 1) coordinates; the tight one-attribute pass and mutant audits are in
    tests/core/sskm/test_audit_sskm.py)."""
    from core.sskm.sound import SSKMDP

    pub = SSKMDP(sensitive="sex", rows=4, cols=4, random_state=0).fit(census_frame)
    case = sskm_sound_case(pub, census_frame, epsilon=1.0)
    assert "calibrated to 14" in case.note
    res = run_case(case, runs=1000, random_state=0)
    assert not res.violation


def test_paper_sskm_violates_its_nominal_epsilon(census_frame):
    case = sskm_paper_case(census_frame, sensitive=["sex"], epsilon=1.0, cs_threshold=0.3)
    assert case.claimed_epsilon == pytest.approx(1.0)
    res = run_case(case, runs=200, random_state=0)
    assert res.violation and res.epsilon_lower > 2.0


# ---------------------------------------------------------------------- pipeline mutants
#
# Toy releases that claim epsilon = 1. Each mutant reads a step from the rows (its category
# list, its upper bound, its correlated sensitivity, bounds from a held-out part); its fix
# takes that step from what is declared public. The pipeline pairs of core.audit.pipeline_pairs must catch
# every mutant and pass every fix, in well under a second each (200-300 runs per side).

TOY_RUNS = 200
TOY = pd.DataFrame({
    "age": np.random.default_rng(3).integers(17, 91, 60),
    "job": np.random.default_rng(4).choice(["a", "b", "c"], 60),
})
TOY_SCHEMA = PublicSchema((ColumnSchema("age", "numeric", lower=0, upper=100, integer=True),
                           ColumnSchema("job", "categorical", categories=("a", "b", "c"))))
AGE_MAX = TOY_SCHEMA["age"].upper


def _histogram(values: pd.Series, categories, random_state) -> pd.Series:
    counts = np.array([(values == c).sum() for c in categories], dtype=float)
    noisy = laplace(counts, sensitivity=2.0, epsilon=1.0, grid=1.0, on_grid=True, random_state=random_state)
    return pd.Series(noisy, index=list(categories))


def histogram_categories_from_rows(frame, random_state):
    """The mutant: the histogram's categories are the values seen in the rows."""
    return _histogram(frame["job"], sorted(set(frame["job"])), random_state)


def histogram_categories_declared(frame, random_state):
    """The fix: the declared list and "(other)"."""
    conformed = TOY_SCHEMA.conform(frame, ["job"])["job"]
    return _histogram(conformed, TOY_SCHEMA["job"].domain, random_state)


def _released_categories(out: pd.Series) -> float:
    return float(len(out))


def sum_clipped_to_the_rows_max(frame, random_state):
    """The mutant: the clipping bound (and so the sensitivity) is the largest value seen."""
    top = float(frame["age"].max())
    return laplace(float(np.clip(frame["age"], 0, top).sum()), sensitivity=top, epsilon=1.0,
                   random_state=random_state)


def sum_clipped_to_the_declared_max(frame, random_state):
    """The fix: clipped to the declared bound, noise for that bound."""
    return laplace(float(np.clip(frame["age"], 0, AGE_MAX).sum()), sensitivity=AGE_MAX, epsilon=1.0,
                   random_state=random_state)


def _toy_audit(mechanism, pair, statistic=None, runs=TOY_RUNS):
    return run_case(AuditCase("toy", mechanism, pair, statistic, 1.0, 0.0, "toy"), runs=runs, random_state=1)


def test_categories_read_from_the_rows_are_caught_by_a_new_category():
    res = _toy_audit(histogram_categories_from_rows, new_category_pair(TOY, "job"), _released_categories)
    assert res.violation and res.saturated  # the new category shows on one side only


def test_categories_from_the_declared_list_pass_a_new_category():
    res = _toy_audit(histogram_categories_declared, new_category_pair(TOY, "job", schema=TOY_SCHEMA),
                     _released_categories)
    assert not res.violation


def test_the_declared_histogram_passes_on_its_noisy_other_count():
    res = _toy_audit(histogram_categories_declared, new_category_pair(TOY, "job"), lambda out: out[OTHER])
    assert not res.violation


def test_a_clipping_bound_read_from_the_rows_is_caught_far_out_of_range():
    res = _toy_audit(sum_clipped_to_the_rows_max, out_of_range_pair(TOY, "age"))
    assert res.violation and res.epsilon_lower > 2.0  # measured 2.79 (ceiling 3.28)


def test_a_declared_clipping_bound_passes_far_out_of_range():
    assert not _toy_audit(sum_clipped_to_the_declared_max, out_of_range_pair(TOY, "age")).violation


# correlated sensitivity: 15 records near one profile among 45 independent ones
def _correlated_records() -> np.ndarray:
    rng = np.random.default_rng(0)
    u = rng.normal(size=20)
    u = (u - u.mean()) / u.std()
    return np.vstack([u + rng.normal(scale=0.7, size=(15, 20)), rng.normal(size=(45, 20))])


CS_X = _correlated_records()
DECLARED_GROUP = 16
CS_PAIR = hub_record_pair(CS_X, threshold=0.8, max_group_size=DECLARED_GROUP)
CS_COUNT = float((CS_X[:, 0] > 0).sum())


def _count_distance(out: float) -> float:
    return abs(out - CS_COUNT)


def count_with_cs_from_the_rows(X, random_state):
    """The mutant: CS computed on the records, under a DP label."""
    cs = correlated_sensitivity(X, threshold=0.8, scheduler="").correlated
    return laplace(float((X[:, 0] > 0).sum()), sensitivity=cs, epsilon=1.0, random_state=random_state)


def count_with_the_declared_group_bound(X, random_state):
    """The fix: CS from the declared bound on the group size."""
    return laplace(float((X[:, 0] > 0).sum()), sensitivity=float(DECLARED_GROUP), epsilon=1.0,
                   random_state=random_state)


def test_cs_read_from_the_rows_is_caught_by_a_hub_record():
    res = _toy_audit(count_with_cs_from_the_rows, CS_PAIR, _count_distance, runs=300)
    assert res.violation  # CS 2.7 -> 11.2: measured 2.13


def test_cs_from_the_declared_group_bound_passes_a_hub_record():
    assert not _toy_audit(count_with_the_declared_group_bound, CS_PAIR, _count_distance, runs=300).violation


HOLDOUT = np.arange(0, 60, 5)  # 12 of 60 rows held out
PUBLISHED = np.setdiff1d(np.arange(60), HOLDOUT)
PUBLISHED_SUM = float(TOY["age"].iloc[PUBLISHED].sum())


def published_sum_with_bounds_from_the_held_out_rows(frame, random_state):
    """The mutant: the held-out part sets the bound un-noised (as SSKM_DP's held-out 20% did)."""
    top = float(frame["age"].iloc[HOLDOUT].max())
    published = np.clip(frame["age"].iloc[PUBLISHED], 0, top)
    return laplace(float(published.sum()), sensitivity=top, epsilon=1.0, random_state=random_state)


def published_sum_with_declared_bounds(frame, random_state):
    published = np.clip(frame["age"].iloc[PUBLISHED], 0, AGE_MAX)
    return laplace(float(published.sum()), sensitivity=AGE_MAX, epsilon=1.0, random_state=random_state)


def _published_distance(out: float) -> float:
    return abs(out - PUBLISHED_SUM)


def test_bounds_from_a_held_out_part_are_caught_by_a_held_out_record():
    res = _toy_audit(published_sum_with_bounds_from_the_held_out_rows, held_out_pair(TOY, HOLDOUT),
                     _published_distance)
    assert res.violation


def test_declared_bounds_pass_a_held_out_record():
    assert not _toy_audit(published_sum_with_declared_bounds, held_out_pair(TOY, HOLDOUT),
                          _published_distance).violation


# ---------------------------------------------------------------------- several pairs, the worst


def test_pipeline_cases_build_one_case_per_step():
    cases = pipeline_cases("toy", sum_clipped_to_the_declared_max, TOY, claimed_epsilon=1.0,
                           categorical=["job"], numeric=["age"], holdout_index=HOLDOUT, schema=TOY_SCHEMA)
    assert len(cases) == 3 and all(c.claimed_epsilon == 1.0 and c.name == "toy" for c in cases)
    assert ["new category" in cases[0].note, "above its maximum" in cases[1].note,
            "held-out record" in cases[2].note] == [True, True, True]


@pytest.mark.parametrize("kw, error", [(dict(), ValueError), (dict(numeric="age"), TypeError),
                                       (dict(numeric=["job"]), ValueError), (dict(claimed_epsilon=0), ValueError)])
def test_pipeline_cases_refuse_bad_arguments(kw, error):
    with pytest.raises(error):
        pipeline_cases("toy", sum_clipped_to_the_declared_max, TOY, **{"claimed_epsilon": 1.0, **kw})


def test_run_cases_keeps_the_worst_pair_of_a_mutant():
    cases = pipeline_cases("toy", sum_clipped_to_the_rows_max, TOY, claimed_epsilon=1.0, categorical=["job"],
                           numeric=["age"])
    results = run_cases(cases, runs=TOY_RUNS, random_state=0)
    assert len(results) == 2 and not results[0].violation and results[1].violation
    assert worst_result(results) == 1


def test_run_cases_reports_progress_over_all_the_cases():
    seen = []
    cases = pipeline_cases("toy", sum_clipped_to_the_declared_max, TOY, claimed_epsilon=1.0, numeric=["age"],
                           holdout_index=HOLDOUT)
    run_cases(cases, runs=40, random_state=0, progress=lambda f, m: seen.append((f, m)))
    assert seen[-1][0] == pytest.approx(1.0) and "(2 of 2)" in seen[-1][1]
    assert max(f for f, m in seen if "(1 of 2)" in m) <= 0.5 + 1e-9


def test_worst_result_puts_a_violation_first_then_the_largest_excess():
    def result(lower, claimed, violation):
        return type("R", (), dict(epsilon_lower=lower, claimed_epsilon=claimed, violation=violation))()
    assert worst_result([result(0.9, 1.0, False), result(1.2, 1.0, True), result(3.0, math.inf, False)]) == 1
    assert worst_result([result(0.2, 1.0, False), result(0.5, 0.5, False)]) == 1
    with pytest.raises(ValueError):
        worst_result([])


@pytest.mark.parametrize("cases, error", [([], ValueError), ("case", TypeError), ([1], TypeError)])
def test_run_cases_refuses_what_is_not_a_case(cases, error):
    with pytest.raises(error):
        run_cases(cases, runs=20)


# ---------------------------------------------------------------------- a real release: IDP-KMeans


def _idp_kmeans_release(frame, random_state, *, schema):
    """Compare's IDP-KMeans: the table scaled (by ``schema``, or by the rows when None), noisy
    k-means, the centres decoded back to records."""
    from core.sskm.dp_kmeans import idp_kmeans
    from core.sskm.scaled_table import ScaledTable

    table = ScaledTable(frame, schema=schema)
    return table.decode(idp_kmeans(table.X, n_clusters=4, epsilon=1.0, random_state=random_state).published)


@pytest.fixture(scope="module")
def census_120():
    from core.data.samples import load_sample
    from core.privacy.schema_builtin import schema_for

    ds = load_sample("census")
    return ds.frame.iloc[:120].reset_index(drop=True), schema_for(ds)


def _outside_the_declared_domain(out, *, schema) -> float:
    """Released values outside the declared domain: a category not in the list, an age above its bound."""
    cats = {str(c) for c in schema["workclass"].domain}
    return float((~out["workclass"].astype(str).isin(cats)).sum()
                 + (pd.to_numeric(out["age"]) > schema["age"].upper).sum())


def _idp_cases(census_120, scaled_by):
    from functools import partial

    frame, schema = census_120
    return pipeline_cases("IDP-KMeans", partial(_idp_kmeans_release, schema=scaled_by), frame,
                          claimed_epsilon=1.0, categorical=["workclass"], numeric=["age"],
                          statistic=partial(_outside_the_declared_domain, schema=schema))


def test_idp_kmeans_scaled_by_the_rows_is_caught_by_the_pipeline_pairs(census_120):
    results = run_cases(_idp_cases(census_120, None), runs=100, random_state=0)
    assert all(r.violation for r in results)  # measured 2.33 and 1.85 (ceiling 2.57)


def test_idp_kmeans_scaled_by_the_schema_passes_the_pipeline_pairs(census_120):
    results = run_cases(_idp_cases(census_120, census_120[1]), runs=100, random_state=0)
    assert not any(r.violation for r in results)
