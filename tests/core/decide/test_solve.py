"""solve_epsilon on a case with a known answer, its uncertainty, "no epsilon", and solve_summary."""
from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

from core.decide.solve import solve_epsilon, solve_summary
from core.decide.target import Target
from core.runtime.randomness import check_random_state

#: epsilons 0.25 to 16, a factor sqrt(2) apart (2 is on the grid)
GRID = tuple(0.25 * math.sqrt(2) ** k for k in range(13))


def laplace_mae_curve(repetitions: int, *, queries: int = 200, seed: int = 0) -> pd.DataFrame:
    """The MAE of the Laplace mechanism on ``queries`` counts (sensitivity 1, scale 1/epsilon) at
    each epsilon and repetition: E|Lap(b)| = b, so the MAE's mean is exactly 1/epsilon."""
    rng = check_random_state(seed)
    rows = [{"epsilon": eps, "value": float(np.mean(np.abs(rng.laplace(0.0, 1.0 / eps, queries))))}
            for eps in GRID for _ in range(repetitions)]
    return pd.DataFrame(rows)


def test_laplace_mae_of_one_half_is_met_from_epsilon_two():
    sol = solve_epsilon(laplace_mae_curve(10), Target.parse("mae<=0.5"), method="Laplace")
    assert sol.met and sol.epsilon == pytest.approx(2.0, abs=0.15)
    assert sol.epsilon_low <= 2.0 <= sol.epsilon_high
    assert sol.repetitions == 10 and sol.method == "Laplace"
    assert "from epsilon" in sol.reason and "95% confidence" in sol.reason


def test_the_interval_shrinks_with_more_repetitions():
    target = Target.parse("mae<=0.5")
    few, many = (solve_epsilon(laplace_mae_curve(r, seed=3), target) for r in (4, 64))
    assert few.epsilon_low <= 2.0 <= few.epsilon_high and many.epsilon_low <= 2.0 <= many.epsilon_high
    assert many.epsilon_high - many.epsilon_low < (few.epsilon_high - few.epsilon_low) / 2


def test_a_target_out_of_reach_has_no_epsilon():
    sol = solve_epsilon(laplace_mae_curve(5), Target.parse("mae<=0.01"))
    assert not sol.met and sol.epsilon is None
    assert sol.reason.startswith("No epsilon in range meets MAE at most 0.01")
    assert sol.to_dict()["epsilon"] is None


def test_higher_is_better_target_between_grid_points():
    curve = pd.DataFrame({"epsilon": [1, 1, 2, 2, 4, 4], "value": [0.49, 0.51, 0.69, 0.71, 0.89, 0.91]})
    sol = solve_epsilon(curve, Target.parse("accuracy>=0.8"))
    assert sol.epsilon == pytest.approx(2 * math.sqrt(2))
    assert sol.epsilon_low < sol.epsilon < sol.epsilon_high


def test_one_repetition_says_its_uncertainty_is_unknown():
    sol = solve_epsilon(laplace_mae_curve(1), Target.parse("mae<=0.5"))
    assert sol.epsilon is not None and sol.epsilon_low is None and sol.epsilon_high is None
    assert "uncertainty is unknown" in sol.reason


def test_pessimistic_bound_beyond_the_range_is_said():
    curve = pd.DataFrame({"epsilon": [1, 1, 2, 2], "value": [0.9, 0.7, 0.45, 0.3]})
    sol = solve_epsilon(curve, Target.parse("mae<=0.5"))
    assert sol.met and math.isinf(sol.epsilon_high)
    d = sol.to_dict()
    assert d["epsilon_high"] is None and d["epsilon_high_beyond_range"] is True
    assert "beyond the largest epsilon tried" in sol.reason


def test_to_dict_is_strict_json():
    d = solve_epsilon(laplace_mae_curve(3), Target.parse("mae<=0.5"), method="m").to_dict()
    json.dumps(d, allow_nan=False)
    assert d["target"] == {"measure": "mae", "at_most": 0.5} and len(d["grid"]) == len(GRID)


def test_solve_epsilon_checks_its_arguments():
    with pytest.raises(TypeError, match="Target"):
        solve_epsilon(laplace_mae_curve(2), "mae<=0.5")
    with pytest.raises(TypeError, match="DataFrame"):
        solve_epsilon([1, 2], Target.parse("mae<=0.5"))


def _runs() -> pd.DataFrame:
    curve = laplace_mae_curve(3)
    rows = [{"method": "Laplace", "epsilon": e, "repetition": 0, "mae": v, "is_dp": True}
            for e, v in zip(curve["epsilon"], curve["value"])]
    rows += [{"method": "Raw", "epsilon": math.nan, "repetition": r, "mae": 0.0, "is_dp": False} for r in range(3)]
    rows += [{"method": "Model", "epsilon": e, "repetition": 0, "mae": math.nan, "is_dp": True} for e in (1, 2)]
    rows += [{"method": "Nominal", "epsilon": e, "repetition": r, "mae": 1 / e, "is_dp": False}
             for e in (1, 2, 4) for r in range(2)]
    return pd.DataFrame(rows)


def test_solve_summary_answers_every_method_in_order():
    sols = solve_summary(_runs(), Target.parse("mae<=0.5"))
    assert [s.method for s in sols] == ["Laplace", "Raw", "Model", "Nominal"]
    laplace, raw, model, nominal = sols
    assert laplace.epsilon == pytest.approx(2.0, abs=0.2)
    assert raw.met and raw.value == 0.0 and "takes no epsilon" in raw.reason
    assert not model.met and "does not apply" in model.reason
    assert nominal.epsilon == pytest.approx(2.0) and "nominal" in nominal.reason


def test_solve_summary_refuses_an_unknown_measure_in_words():
    with pytest.raises(ValueError, match="no measure 'accuracy'"):
        solve_summary(_runs(), Target.parse("accuracy>=0.5"))
