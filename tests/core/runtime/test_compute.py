"""Tests of core.runtime.compute: where tasks run, in this process and on a real Dask cluster."""
from __future__ import annotations

import os
import time
from functools import partial
from pathlib import Path

import numpy as np
import pytest

from core.runtime import compute
from core.runtime.compute import ComputeError, map_tasks, resolve_scheduler


def _draw(seed: int, scale: float = 1.0) -> float:
    return float(np.random.default_rng(seed).normal(scale=scale, size=100).sum())


def _needs_shared(item: int, table: np.ndarray) -> float:
    return float(table[item].sum())


def _fails_on_three(item: int) -> int:
    if item == 3:
        raise ValueError("three is not allowed")
    return item


def _dies_once(item: int, marker: str) -> float:
    """Kills the worker process the first time item 5 runs (a lost worker mid-sweep)."""
    if item == 5 and not Path(marker).exists():
        Path(marker).write_text("killed once")
        os._exit(1)
    time.sleep(0.05)
    return _draw(item)


# ------------------------------------------------------------------ choosing the scheduler
def test_no_scheduler_runs_here(monkeypatch):
    monkeypatch.delenv("PUX_SCHEDULER", raising=False)
    assert resolve_scheduler() is None
    assert compute.get_client() is None


def test_scheduler_from_the_environment(monkeypatch):
    monkeypatch.setenv("PUX_SCHEDULER", "tcp://10.0.0.1:8786")
    assert resolve_scheduler() == "tcp://10.0.0.1:8786"


def test_argument_overrides_the_environment(monkeypatch):
    monkeypatch.setenv("PUX_SCHEDULER", "tcp://10.0.0.1:8786")
    assert resolve_scheduler("") is None
    assert resolve_scheduler("local:3") == "local:3"


def test_local_without_a_count_uses_every_core():
    assert resolve_scheduler("local") == f"local:{os.cpu_count() or 1}"


def test_scheduler_that_is_no_address():
    with pytest.raises(ValueError, match="tcp://host:8786"):
        resolve_scheduler("my-cluster")


def test_scheduler_local_zero_workers():
    with pytest.raises(ValueError, match="N >= 1"):
        resolve_scheduler("local:0")


def test_scheduler_of_wrong_type():
    with pytest.raises(TypeError, match="scheduler"):
        resolve_scheduler(8786)


@pytest.mark.timeout(60)
def test_scheduler_that_does_not_answer_gives_one_sentence(monkeypatch):
    monkeypatch.setattr(compute, "CONNECT_TIMEOUT", 2.0)
    start = time.perf_counter()
    with pytest.raises(ComputeError, match="No Dask scheduler answered at tcp://127.0.0.1:9"):
        map_tasks(_draw, [1, 2], scheduler="tcp://127.0.0.1:9")
    assert time.perf_counter() - start < 30


# ------------------------------------------------------------------ in this process
def test_map_here_keeps_order_and_passes_shared():
    table = np.arange(12.0).reshape(4, 3)
    assert map_tasks(_needs_shared, [3, 0, 2], shared=(table,)) == [30.0, 3.0, 21.0]


def test_map_here_reports_weighted_progress():
    seen = []
    map_tasks(_draw, [1, 2, 3], weights=[1, 1, 2], progress=lambda f, m: seen.append(round(f, 3)))
    assert seen == [0.25, 0.5, 1.0]


def test_map_here_hands_each_task_its_stage():
    seen = []

    def task(item, *, progress):
        progress(0.5, "half")
        return item

    map_tasks(task, [1, 2], task_progress=True, describe=str, progress=lambda f, m: seen.append((f, m)))
    assert seen[0] == (0.25, "1: half") and seen[2] == (0.75, "2: half")


def test_raising_from_progress_stops_the_work():
    calls = []

    def stop(fraction, message):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        map_tasks(lambda i: calls.append(i), [1, 2, 3], progress=stop)
    assert calls == [1]


def test_weights_of_the_wrong_length():
    with pytest.raises(ValueError, match="one finite cost"):
        map_tasks(_draw, [1, 2], weights=[1.0])


# ------------------------------------------------------------------ on a cluster
def test_cluster_gives_the_same_results(dask_cluster):
    seeds = list(range(20))
    here = map_tasks(partial(_draw, scale=2.0), seeds)
    there = map_tasks(partial(_draw, scale=2.0), seeds, scheduler=dask_cluster)
    assert there == here


def test_cluster_scatters_shared_inputs(dask_cluster):
    table = np.arange(12.0).reshape(4, 3)
    assert map_tasks(_needs_shared, [3, 0], shared=(table,), scheduler=dask_cluster) == [30.0, 3.0]


def test_cluster_raises_the_tasks_exception(dask_cluster):
    with pytest.raises(ValueError, match="three is not allowed"):
        map_tasks(_fails_on_three, range(6), scheduler=dask_cluster)


def test_cluster_reports_progress_to_the_end(dask_cluster):
    seen = []
    map_tasks(_draw, range(8), scheduler=dask_cluster, progress=lambda f, m: seen.append(f))
    assert len(seen) == 8 and seen[-1] == 1.0 and seen == sorted(seen)


def test_stop_cancels_the_cluster_tasks(dask_cluster):
    def stop(fraction, message):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        map_tasks(partial(time.sleep), [0.01] + [2.0] * 10, scheduler=dask_cluster, progress=stop)
    client = compute.get_client(dask_cluster)
    deadline = time.time() + 10
    while time.time() < deadline and any(k.startswith("pux-task") for k in client.who_has()):
        time.sleep(0.2)
    assert not [k for k in client.who_has() if k.startswith("pux-task")]


@pytest.mark.timeout(180)
def test_a_lost_worker_does_not_change_the_results(dask_cluster, tmp_path):
    seeds = list(range(12))
    fn = partial(_dies_once, marker=str(tmp_path / "killed"))
    there = map_tasks(fn, seeds, scheduler=dask_cluster)
    assert (tmp_path / "killed").exists()  # a worker did die in the middle
    assert there == [_draw(s) for s in seeds]
