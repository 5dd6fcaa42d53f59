"""The correlated / group sensitivity pass on a Dask cluster (issue 13): the same result
bit for bit as in this process, in several tasks, with progress and stopping."""
from __future__ import annotations

import numpy as np
import pytest

import core.correlation.records as records
from core.runtime import compute
from core.correlation.records import correlated_sensitivity, data_correlation

MEASURES = ["pearson", "mahalanobis"]


@pytest.fixture(scope="module")
def X():
    # rounded values: many exactly-equal and strongly correlated record pairs
    return np.round(np.random.default_rng(7).normal(size=(3000, 4)), 1)


def _same(a, b) -> bool:
    return (np.array_equal(a.per_record, b.per_record)
            and np.array_equal(a.per_record_count, b.per_record_count)
            and a.correlated == b.correlated and a.group == b.group)


@pytest.mark.parametrize("measure", MEASURES)
def test_cluster_result_is_identical_to_this_process(dask_cluster, X, measure):
    here = correlated_sensitivity(X, measure=measure, threshold=0.5, block_rows=128, scheduler="")
    there = correlated_sensitivity(X, measure=measure, threshold=0.5, block_rows=128, scheduler=dask_cluster)
    assert here.group > 1 and here.correlated > 1  # correlated pairs exist
    assert _same(here, there)


@pytest.mark.parametrize("measure", MEASURES)
def test_cluster_result_does_not_depend_on_the_task_count(dask_cluster, X, measure, monkeypatch):
    few = correlated_sensitivity(X, measure=measure, threshold=0.5, block_rows=128, scheduler=dask_cluster)
    monkeypatch.setattr(records, "_TASKS_PER_WORKER", 7)
    many = correlated_sensitivity(X, measure=measure, threshold=0.5, block_rows=128, scheduler=dask_cluster)
    assert _same(few, many)


def _spied_tasks(monkeypatch, X, scheduler) -> tuple[list, dict]:
    """The items and keyword arguments of the one map_tasks call of a pass on the cluster."""
    calls = []
    real = compute.map_tasks

    def spy(fn, items, **kwargs):
        calls.append((list(items), kwargs))
        return real(fn, calls[-1][0], **kwargs)

    monkeypatch.setattr(compute, "map_tasks", spy)
    correlated_sensitivity(X, threshold=0.5, block_rows=128, scheduler=scheduler)
    (stripes, kwargs), = calls
    return stripes, kwargs


def test_the_pass_is_split_into_several_tasks_of_block_rows(dask_cluster, X, monkeypatch):
    stripes, kwargs = _spied_tasks(monkeypatch, X, dask_cluster)
    assert len(stripes) > 1
    assert sorted(r for rows in stripes for r in rows) == list(range(len(range(0, len(X), 128))))
    assert kwargs["scheduler"] == dask_cluster


def test_the_records_are_sent_once_as_shared_input(dask_cluster, X, monkeypatch):
    stripes, kwargs = _spied_tasks(monkeypatch, X, dask_cluster)
    kernel, = kwargs["shared"]
    assert kernel.n == len(X)
    assert all(isinstance(r, int) for rows in stripes for r in rows)  # tasks carry indices only


def test_cluster_progress_is_told_after_each_task(dask_cluster, X):
    seen = []
    correlated_sensitivity(X, threshold=0.5, block_rows=128, scheduler=dask_cluster,
                           progress=lambda f, m: seen.append(f))
    assert len(seen) > 1
    assert seen == sorted(seen) and seen[-1] == pytest.approx(1.0)


def test_raising_from_progress_stops_the_cluster_pass(dask_cluster, X):
    class Stop(Exception):
        pass

    def stop(fraction, message):
        raise Stop

    with pytest.raises(Stop):
        correlated_sensitivity(X, threshold=0.5, block_rows=128, scheduler=dask_cluster, progress=stop)


def test_data_correlation_on_a_cluster_is_identical(dask_cluster, X):
    assert data_correlation(X, threshold=0.5, block_rows=128, scheduler=dask_cluster) == \
        data_correlation(X, threshold=0.5, block_rows=128, scheduler="")


def test_a_pass_inside_a_dask_task_runs_in_that_worker(dask_cluster, X):
    # no scheduler answers at this address: the pass must not try to reach it from a task
    client = compute.get_client(dask_cluster)
    inside = client.submit(correlated_sensitivity, X, threshold=0.5, block_rows=128,
                           scheduler="tcp://127.0.0.1:9", pure=False).result()
    assert _same(inside, correlated_sensitivity(X, threshold=0.5, block_rows=128, scheduler=""))
