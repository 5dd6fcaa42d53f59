"""Risk targets (an attack's advantage at most Z): met UP TO an epsilon, not from one.

Risk grows with epsilon, so the answer is the largest epsilon up to which the mean meets the
target at every smaller epsilon (:func:`core.decide.target.direction_of`).
"""
from __future__ import annotations

import json
import math

import pandas as pd
import pytest

from core.decide.run import solution_entry
from core.decide.solve import solve_epsilon, solve_summary
from core.decide.target import FROM, UP_TO, Target, direction_of

#: MST's ai_advantage means on Adult (comparison runs) at epsilon 0.5, 1, 2, 4
MST_MEANS = {0.5: 0.0276, 1.0: 0.0216, 2.0: 0.0356, 4.0: 0.0366}
SPREAD = (-0.002, 0.0, 0.002)  # three repetitions around each mean


def _curve(means: dict[float, float], spread: tuple[float, ...] = SPREAD) -> pd.DataFrame:
    return pd.DataFrame([{"epsilon": e, "value": m + d} for e, m in means.items() for d in spread])


def _mst_solution():
    return solve_epsilon(_curve(MST_MEANS), Target.parse("ai_advantage<=0.03"), method="MST")


@pytest.mark.parametrize("measure", ["ai_advantage", "ai_advantage_sex", "ai_member", "ai_member_race", "dcr_risk",
                                     "dcr_excess", "normalised_excess", "mia_auc", "mia_advantage", "ledger_epsilon"])
def test_every_risk_measure_is_met_up_to_an_epsilon(measure):
    assert direction_of(measure) == UP_TO


@pytest.mark.parametrize("measure", ["utility", "accuracy", "mae", "mse", "column_shape", "pair_trend",
                                     "tv_one_way", "tv_two_way", "pearson"])
def test_every_utility_error_and_fidelity_measure_is_met_from_an_epsilon(measure):
    assert direction_of(measure) == FROM


def test_direction_of_refuses_a_non_string():
    with pytest.raises(TypeError, match="string"):
        direction_of(3)


def test_an_at_most_target_on_a_risk_reads_up_to():
    assert Target.parse("ai_advantage<=0.03").direction == UP_TO


def test_an_at_least_target_on_a_risk_reads_from():
    assert Target.parse("mia_auc>=0.6").direction == FROM


def test_mst_example_meets_the_target_up_to_an_epsilon_between_one_and_two():
    sol = _mst_solution()
    assert sol.met and sol.direction == UP_TO and 1.0 < sol.epsilon < 2.0
    assert "up to epsilon" in sol.reason and "between 1 and 2" in sol.reason


def test_mst_example_interval_holds_the_answer():
    sol = _mst_solution()
    low = sol.epsilon_low if sol.epsilon_low is not None else sol.grid[0]
    assert low <= sol.epsilon <= sol.epsilon_high


def test_a_risk_linear_in_epsilon_is_met_up_to_its_closed_form():
    # r(eps) = 0.01 eps: linear on log-epsilon between grid points a factor sqrt(2) apart, so
    # r <= 0.02 holds up to eps = 2 exactly (2 is on the grid), interpolation or not.
    grid = [0.25 * math.sqrt(2) ** k for k in range(11)]
    curve = pd.DataFrame([{"epsilon": e, "value": 0.01 * e * (1 + d)} for e in grid for d in (-0.05, 0.0, 0.05)])
    sol = solve_epsilon(curve, Target.parse("dcr_excess<=0.02"))
    assert sol.epsilon == pytest.approx(2.0, rel=0.05)
    assert sol.epsilon_low <= sol.epsilon <= sol.epsilon_high


def test_a_risk_between_grid_points_is_interpolated_on_log_epsilon():
    curve = _curve({1.0: 0.01, 2.0: 0.02, 4.0: 0.03}, spread=(0.0, 0.0))
    sol = solve_epsilon(curve, Target.parse("ai_advantage<=0.025"))
    assert sol.epsilon == pytest.approx(2 * math.sqrt(2))


def test_the_pessimistic_bound_gives_the_lower_end_and_the_optimistic_the_upper():
    curve = _curve({1.0: 0.01, 2.0: 0.02, 4.0: 0.03}, spread=(-0.001, 0.0, 0.001))
    sol = solve_epsilon(curve, Target.parse("ai_advantage<=0.025"))
    assert 2.0 < sol.epsilon_low < sol.epsilon < sol.epsilon_high < 4.0


def test_zero_risk_everywhere_is_met_at_or_above_the_largest_epsilon():
    sol = solve_epsilon(_curve({0.5: 0.0, 1.0: 0.0, 2.0: 0.0, 4.0: 0.0}, spread=(0.0, 0.0, 0.0)),
                        Target.parse("ai_advantage<=0.03"), method="IDP-KMeans")
    assert sol.met and sol.epsilon == 4.0 and math.isinf(sol.epsilon_high)
    assert "at the largest epsilon tried (4), so the answer is at or above it" in sol.reason


def test_zero_risk_everywhere_is_beyond_the_range_in_json():
    sol = solve_epsilon(_curve({0.5: 0.0, 4.0: 0.0}, spread=(0.0, 0.0)), Target.parse("ai_advantage<=0.03"))
    d = sol.to_dict()
    json.dumps(d, allow_nan=False)
    assert d["direction"] == "up_to" and d["epsilon_high"] is None and d["epsilon_high_beyond_range"] is True


def test_a_risk_above_the_target_everywhere_has_no_epsilon():
    sol = solve_epsilon(_curve({0.5: 0.1, 1.0: 0.2, 2.0: 0.3}), Target.parse("mia_advantage<=0.05"))
    assert not sol.met and sol.epsilon is None
    assert sol.reason.startswith("No epsilon in range meets membership-inference advantage at most 0.05")
    assert "fails it already at the smallest epsilon tried (0.5)" in sol.reason


def test_a_risk_met_only_above_a_failing_smallest_epsilon_has_no_epsilon():
    sol = solve_epsilon(_curve({0.5: 0.05, 1.0: 0.01, 2.0: 0.01}), Target.parse("ai_advantage<=0.03"))
    assert not sol.met and "crosses the target more than once" in sol.reason


def test_a_risk_that_meets_again_above_a_failure_says_it_crosses_more_than_once():
    sol = solve_epsilon(_curve({0.5: 0.01, 1.0: 0.05, 2.0: 0.01}), Target.parse("ai_advantage<=0.03"))
    assert sol.met and 0.5 < sol.epsilon < 1.0
    assert "meets it again at epsilon 2" in sol.reason


def test_a_utility_target_keeps_reading_from():
    curve = _curve({1.0: 0.5, 2.0: 0.7, 4.0: 0.9}, spread=(0.0, 0.0))
    sol = solve_epsilon(curve, Target.parse("utility>=0.8"))
    assert sol.direction == FROM and sol.to_dict()["direction"] == "from"
    assert sol.epsilon == pytest.approx(2 * math.sqrt(2)) and "from epsilon" in sol.reason


def test_solve_summary_answers_a_risk_per_method_up_to():
    rows = [{"method": m, "epsilon": e, "repetition": r, "ai_advantage": v + d}
            for m, means in (("MST", MST_MEANS), ("IDP-KMeans", dict.fromkeys(MST_MEANS, 0.0)))
            for e, v in means.items() for r, d in enumerate(SPREAD if m == "MST" else (0.0, 0.0, 0.0))]
    mst, kmeans = solve_summary(pd.DataFrame(rows), Target.parse("ai_advantage<=0.03"))
    assert 1.0 < mst.epsilon < 2.0 and kmeans.epsilon == 4.0


def test_the_entry_of_a_risk_spans_the_smallest_epsilon_to_the_answer():
    entry = solution_entry(_mst_solution())
    assert entry["direction"] == "up_to"
    assert entry["epsilon_range"] == [0.5, pytest.approx(entry["epsilon"])]


def test_private_selection_prefers_the_largest_epsilon_that_keeps_a_risk_target():
    from core.decide.selection import target_runner

    run = target_runner(lambda eps, seed: 0.01 * eps, Target.parse("ai_advantage<=0.02"))
    assert run(1.0, 0) < run(2.0, 0) and run(3.0, 0) == float("-inf")
