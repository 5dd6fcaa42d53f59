from __future__ import annotations

import os
from functools import partial
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from core.runtime.experiments import summarize, sweep


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


def _noisy_dies_once(x, random_state, marker):
    """Kills its worker process the first two times the point x = 3 runs: both workers of
    the test cluster are lost mid-sweep, and with them the inputs scattered to them."""
    path = Path(marker)
    kills = len(path.read_text()) if path.exists() else 0
    if x == 3 and kills < 2:
        path.write_text("k" * (kills + 1))
        os._exit(1)
    return _noisy(x, random_state)


def test_sweep_on_a_cluster_equals_this_process(dask_cluster):
    a = sweep(_noisy, {"x": [0, 1, 2]}, repetitions=4, random_state=3)
    b = sweep(_noisy, {"x": [0, 1, 2]}, repetitions=4, random_state=3, scheduler=dask_cluster)
    pd.testing.assert_frame_equal(a, b)


@pytest.mark.timeout(180)
def test_a_sweep_survives_a_worker_lost_in_the_middle(dask_cluster, tmp_path):
    grid = {"x": [0, 1, 2, 3, 4, 5]}
    fn = partial(_noisy_dies_once, marker=str(tmp_path / "killed"))
    there = sweep(fn, grid, repetitions=3, random_state=8, scheduler=dask_cluster)
    assert (tmp_path / "killed").read_text() == "kk"
    pd.testing.assert_frame_equal(there, sweep(_noisy, grid, repetitions=3, random_state=8))


def test_summarize_mean_and_spread():
    runs = sweep(_noisy, {"x": [0, 100]}, repetitions=50, random_state=1)
    s = summarize(runs, "x", "value")
    assert list(s.columns) == ["x", "value_mean", "value_std", "value_n"]
    assert s["value_mean"].iloc[1] == pytest.approx(100, abs=0.5)
    assert (s["value_n"] == 50).all()


def test_sweep_rejects_zero_repetitions():
    with pytest.raises(ValueError):
        sweep(_noisy, {"x": [0]}, repetitions=0)


# --- Reproduction -------------------------------------------------------------------------

def _reproduction(**kw):
    from core.runtime.experiments import Reproduction

    base = dict(
        name="demo-fig1",
        parameters={"epsilons": (1.0, 2.0)},
        seeds={"random_state": 0},
        runs=[{"epsilon": 1.0, "value": 0.5}, {"epsilon": 2.0, "value": 0.75}],
        summary={"curve": [{"epsilon": 1.0, "ok": True}],
                 "checks": {"a/b": {"mean": 0.6, "ours_ge_theirs": True}, "c": {"falls": np.bool_(False)}},
                 "target_met": False},
        paper={"fig1": "ours above theirs"},
        notes=["a note"],
    )
    return Reproduction(**{**base, **kw})


def test_reproduction_to_dict_writes_the_cli_keys_in_order():
    rep = _reproduction()
    out = rep.to_dict()
    assert list(out) == ["name", "parameters", "seeds", "repetitions", "summary", "paper", "notes"]
    assert out["repetitions"] is rep.runs and out["summary"] is rep.summary
    timed = _reproduction(seconds=1.5, setup={"detection": {"tau": 0.1}},
                          diagnostics={"history_tail": [{"iteration": 3}]})
    assert list(timed.to_dict()) == ["name", "seconds", "parameters", "seeds", "detection", "repetitions",
                                     "history_tail", "summary", "paper", "notes"]


def test_reproduction_checks_index_every_bool_of_the_summary_by_its_keys():
    rep = _reproduction()
    assert rep.checks == {"checks: a/b: ours_ge_theirs": True, "checks: c: falls": False, "target_met": False}
    assert all(type(v) is bool for v in rep.checks.values())
    # bools inside lists of records are data, not checks
    assert "curve: 0: ok" not in rep.checks


def test_reproduction_takes_a_frame_of_runs_as_records():
    frame = pd.DataFrame({"epsilon": [1.0, 2.0], "value": [0.5, 0.75]})
    rep = _reproduction(runs=frame)
    assert rep.runs == frame.to_dict(orient="records")
    pd.testing.assert_frame_equal(rep.runs_frame(), frame)


def test_reproduction_refuses_setup_keys_that_repeat_the_result_keys():
    with pytest.raises(ValueError, match="setup and diagnostics"):
        _reproduction(setup={"summary": 1})
    with pytest.raises(ValueError, match="setup and diagnostics"):
        _reproduction(setup={"x": 1}, diagnostics={"x": 2})
    with pytest.raises(TypeError, match="name"):
        _reproduction(name="")
