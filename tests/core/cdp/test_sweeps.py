"""core.cdp.sweeps: the live bars and the Fig. 4 curve share their runs."""
from __future__ import annotations

import pytest

from core.cdp.baselines import prepare_schemes
from core.cdp.sweeps import DPSGD_SCHEME, accuracy_at, accuracy_curve, dpsgd_curve, point_seeds
from core.data import load_sample


@pytest.fixture(scope="module")
def prepared():
    setup = prepare_schemes(load_sample("supplier"), random_state=0)
    return setup, {s: setup.matrices(s) for s in setup.columns}


def test_point_seeds_depend_on_epsilon_not_on_its_float_noise():
    assert point_seeds(0, 0.3, 1, "sensible", 3) == point_seeds(0, 0.1 + 0.2, 1, "sensible", 3)
    assert point_seeds(0, 0.3, 1, "sensible", 3) != point_seeds(0, 0.4, 1, "sensible", 3)
    assert point_seeds(0, 0.3, 1, "sensible", 3) != point_seeds(1, 0.3, 1, "sensible", 3)


def test_the_bars_at_a_grid_epsilon_are_the_curves_point(prepared):
    setup, mats = prepared
    runs, models = accuracy_at(setup, mats, epsilon=1.0, noise_method=1, preset="sensible", repetitions=2, seed=5)
    curve = accuracy_curve(setup, mats, epsilons=(0.5, 1.0), noise_method=1, preset="sensible",
                           repetitions=2, seed=5)
    at_one = curve[curve["epsilon"] == 1.0].set_index("scheme")["accuracy_mean"]
    means = runs.groupby("scheme")["accuracy"].mean()
    assert at_one.to_dict() == pytest.approx(means.to_dict())
    assert set(models) == set(setup.columns)


def test_the_curve_lists_the_schemes_in_the_setups_order_and_reports_each_run(prepared):
    setup, mats = prepared
    seen = []
    curve = accuracy_curve(setup, mats, epsilons=(0.5, 2.0), noise_method=1, preset="sensible", repetitions=2,
                           seed=0, progress=lambda f, m: seen.append((f, m)))
    assert list(dict.fromkeys(curve["scheme"])) == list(setup.columns)
    assert [m for _, m in seen] == [f"run {k} of 4" for k in range(1, 5)] and seen[-1][0] == 1.0


def test_dpsgd_curve_is_one_summarised_scheme_seeded_by_the_viewer(prepared):
    setup, mats = prepared
    seen = []
    curve = dpsgd_curve(setup, mats, epsilons=(0.5, 2.0), repetitions=2, seed=0,
                        progress=lambda f, m: seen.append((f, m)))
    assert list(curve["scheme"].unique()) == [DPSGD_SCHEME] == ["DP-SGD (ordinary DP)"]
    assert list(curve["epsilon"]) == [0.5, 2.0] and curve["accuracy_mean"].between(0, 1).all()
    assert [m for _, m in seen] == [f"run {k} of 4" for k in range(1, 5)] and seen[-1][0] == 1.0
    again = dpsgd_curve(setup, mats, epsilons=(0.5, 2.0), repetitions=2, seed=0)
    assert again.equals(curve)


# --- references: the constant guess and the non-private model ------------------------------

def _skewed_labels(n=200):
    """A test part with a 0.9 majority class."""
    import numpy as np

    return np.array([0] * (n * 9 // 10) + [1] * (n - n * 9 // 10))


def test_constant_guess_is_the_majority_share_with_its_wilson_interval():
    from core.cdp.sweeps import CONSTANT_GUESS, constant_guess
    from core.evaluation.metrics import proportion_interval

    ref = constant_guess(_skewed_labels())
    assert ref.name == CONSTANT_GUESS == "majority class (constant guess)"
    assert ref.value == pytest.approx(0.9) and ref.n == 200
    assert (ref.low, ref.high) == pytest.approx(proportion_interval(180, 200))
    assert ref.low < 0.9 < ref.high


def test_constant_guess_refuses_an_empty_test_part():
    from core.cdp.sweeps import constant_guess

    with pytest.raises(ValueError, match="non-empty"):
        constant_guess([])


def test_model_reference_refuses_an_accuracy_outside_zero_one():
    from core.cdp.sweeps import model_reference

    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        model_reference(1.2, 100)


def _runs(**accuracies):
    import pandas as pd

    return pd.DataFrame([{"scheme": s, "accuracy": a} for s, accs in accuracies.items() for a in accs])


def test_a_scheme_below_the_constant_guess_is_said_in_words():
    from core.cdp.sweeps import constant_guess, reference_sentences

    said = reference_sentences(_runs(Proposed=[0.40, 0.45, 0.50]), constant_guess(_skewed_labels()))
    assert len(said) == 1
    assert said[0].startswith("Proposed") and "below the constant guess (0.9)" in said[0]


def test_a_scheme_inside_the_constant_guess_interval_is_not_distinguishable():
    from core.cdp.sweeps import constant_guess, reference_sentences

    ref = constant_guess(_skewed_labels())
    (said,) = reference_sentences(_runs(Zhang=[0.91, 0.91]), ref)
    assert "inside the constant guess's 95% interval" in said


def test_a_scheme_clearly_above_the_constant_guess_is_not_mentioned():
    from core.cdp.sweeps import constant_guess, reference_sentences

    assert reference_sentences(_runs(Proposed=[0.99, 0.98]), constant_guess(_skewed_labels())) == []


def test_the_references_come_from_the_shared_test_part_and_the_non_private_runs(prepared):
    from core.cdp.sweeps import NON_PRIVATE, accuracy_references
    from core.evaluation.metrics import majority_share

    setup, mats = prepared
    runs, _ = accuracy_at(setup, mats, epsilon=1.0, noise_method=1, preset="sensible", repetitions=2, seed=5)
    guess, model = accuracy_references(mats, runs)
    assert guess.value == pytest.approx(majority_share(mats["Non-private"][3])) and guess.n == len(setup.test)
    assert model.name == NON_PRIVATE
    assert model.value == pytest.approx(runs.loc[runs["scheme"] == "Non-private", "accuracy"].mean())
