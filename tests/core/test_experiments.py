from __future__ import annotations

import numpy as np
import pytest

from core.experiments import summarize, sweep


def _noisy(x, random_state):
    return {"value": x + np.random.default_rng(random_state).normal()}


def test_sweep_runs_every_point_and_repetition():
    runs = sweep(_noisy, {"x": [0, 10]}, repetitions=4, random_state=0)
    assert len(runs) == 8
    assert set(runs.columns) >= {"x", "repetition", "seed", "value"}


def test_sweep_is_reproducible_and_seeds_differ():
    a = sweep(_noisy, {"x": [1]}, repetitions=3, random_state=5)
    b = sweep(_noisy, {"x": [1]}, repetitions=3, random_state=5)
    assert a.equals(b)
    assert a["seed"].nunique() == 3


def test_sweep_accepts_plain_numbers_and_reports_progress():
    seen = []
    runs = sweep(lambda x, random_state: x * 2, {"x": [1, 2]}, repetitions=1,
                 random_state=0, progress=lambda f, m: seen.append(f))
    assert list(runs["value"]) == [2.0, 4.0]
    assert seen == [0.5, 1.0]


def test_sweep_parallel_equals_serial():
    a = sweep(_noisy, {"x": [0, 1]}, repetitions=2, random_state=3)
    b = sweep(_noisy, {"x": [0, 1]}, repetitions=2, random_state=3, n_jobs=2)
    assert np.allclose(a["value"], b["value"])


def test_summarize_mean_and_spread():
    runs = sweep(_noisy, {"x": [0, 100]}, repetitions=50, random_state=1)
    s = summarize(runs, "x", "value")
    assert list(s.columns) == ["x", "value_mean", "value_std", "value_n"]
    assert s["value_mean"].iloc[1] == pytest.approx(100, abs=0.5)
    assert (s["value_n"] == 50).all()


def test_sweep_rejects_zero_repetitions():
    with pytest.raises(ValueError):
        sweep(_noisy, {"x": [0]}, repetitions=0)
