"""The dashboard on a Dask cluster (dashboard.shared.serving.cluster): where work runs, said in the
sidebar; a comparison sent to a real LocalCluster gives the numbers of this process."""
from __future__ import annotations

import pandas as pd
import pytest

from core.runtime import compute
from core.compare.run import compare
from core.data import load_sample
from dashboard.shared.serving import cluster
from tests.dashboard.conftest import assert_clean, finish_sweeps

FAST = ["Raw table", "kRR", "MDAV", "CDP-LR"]


@pytest.fixture
def fresh_state(monkeypatch):
    monkeypatch.setattr(cluster, "_STATE", {})
    yield


@pytest.mark.timeout(120)
def test_a_cluster_that_does_not_answer_is_one_sentence_in_the_sidebar(open_page, monkeypatch, fresh_state):
    monkeypatch.setenv("PUX_SCHEDULER", "tcp://127.0.0.1:9")
    monkeypatch.setattr(compute, "CONNECT_TIMEOUT", 1.0)
    at = open_page("data")
    assert not at.exception
    errors = [e.value for e in at.sidebar.error]
    assert len(errors) == 1 and errors[0].startswith("No Dask scheduler answered at tcp://127.0.0.1:9")


def test_without_a_scheduler_the_sidebar_says_nothing_of_clusters(open_page, monkeypatch, fresh_state):
    monkeypatch.delenv("PUX_SCHEDULER", raising=False)
    at = open_page("data")
    assert not at.sidebar.error
    assert not any("Dask" in c.value for c in at.sidebar.caption)


@pytest.mark.timeout(600)
def test_a_comparison_from_the_page_runs_on_the_cluster_with_the_same_numbers(
        open_page, monkeypatch, fresh_state, dask_cluster):
    monkeypatch.setenv("PUX_SCHEDULER", dask_cluster)
    at = open_page("compare", timeout=300)
    assert any(c.value == f"Heavy work runs on the Dask cluster at {dask_cluster}." for c in at.sidebar.caption)
    at.multiselect(key="cmp_methods").set_value(FAST).run()
    at.multiselect(key="cmp_eps").set_value(["1"]).run()
    at.number_input(key="cmp_reps").set_value(1).run()
    at.selectbox(key="cmp_rows").set_value("500").run()
    at = finish_sweeps(at)
    assert_clean(at)
    job = next(iter(at.session_state["pux_sweep_jobs"].values()))
    here = compare(load_sample("census"), methods=FAST, epsilons=[1.0], repetitions=1, max_rows=500,
                   random_state=at.session_state["pux_seed"], scheduler="")
    pd.testing.assert_frame_equal(job.result.runs, here.runs)
