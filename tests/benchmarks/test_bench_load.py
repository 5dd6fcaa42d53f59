"""The load benchmark's verdicts from its figures (benchmarks/bench_load.py; no server here)."""
from __future__ import annotations

from benchmarks.bench_load import _stats, _targets


def _figures(idle_p95: int, load_p95: int, trained: list[float], idle_training: float = 20.0) -> dict:
    return {"idle_training": {"press_to_finished_s": idle_training},
            "slider_idle": {"p95_ms": idle_p95},
            "slider_under_load": {"p95_ms": load_p95, "errors": 0, "trainings_press_to_finished_s": trained}}


def test_a_loaded_slider_within_300_ms_and_3x_idle_meets_both_targets():
    targets = _targets(_figures(80, 240, [30.0, 55.0]))
    assert targets["slider_p95_at_most_300_ms"] and targets["slider_p95_at_most_3x_idle"]
    assert targets["default_training_under_load_within_3x_idle"] and targets["the_training_that_waited_within_3x_idle"]


def test_a_slider_under_300_ms_but_over_3x_idle_fails_the_ratio():
    targets = _targets(_figures(60, 250, [30.0, 55.0]))
    assert targets["slider_p95_at_most_300_ms"] and not targets["slider_p95_at_most_3x_idle"]


def test_a_training_over_3x_its_idle_time_fails():
    assert not _targets(_figures(80, 200, [30.0, 61.0]))["the_training_that_waited_within_3x_idle"]


def test_the_stats_are_quantiles_of_the_moves_in_ms():
    stats = _stats([0.1] * 95 + [1.0] * 5)
    assert stats["moves"] == 100 and stats["median_ms"] == 100 and stats["max_ms"] == 1000
