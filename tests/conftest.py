"""Shared test setup: the real-data directory, a Dask cluster and small helpers.

``PUX_DATA_DIR`` is pointed at ``../shared/data`` (beside the repository) when it is not
set and that folder exists; tests that need Adult or NLTCS skip with the reason otherwise.
``PUX_SCHEDULER`` is cleared, so every test runs in this process unless it asks for the
``dask_cluster`` fixture (a real ``distributed.LocalCluster`` of 2 worker processes).
``PUX_JOBS_IN_THREAD`` is 1: a page's background jobs compute in a thread of the test process
(:func:`dashboard.shared.serving.jobs.run_in_child`), except in the tests of the child path.
"""
from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
_SHARED = ROOT.parent / "shared" / "data"
if not os.environ.get("PUX_DATA_DIR") and _SHARED.is_dir():
    os.environ["PUX_DATA_DIR"] = str(_SHARED)
os.environ.pop("PUX_SCHEDULER", None)
# page tests check a page's wiring: their jobs compute in a thread, not a fresh interpreter
# that imports the project for seconds (tests/dashboard/shared/serving/test_sweeps.py tests
# the child path itself; the browser tests' server runs it for every job)
os.environ.setdefault("PUX_JOBS_IN_THREAD", "1")
# no warm start (issue 41) unless a test asks: a page computes what it shows, and no test
# server spends its first minutes warming the samples (tests/dashboard/shared/serving/test_warmup.py)
os.environ.setdefault("PUX_WARMUP", "0")
# no spare child process started ahead (tests/dashboard/shared/serving/test_spare_child.py
# tests it; the browser tests' server keeps one, as a real server does)
os.environ.setdefault("PUX_SPARE_CHILD", "0")

NO_DATA = (
    "needs the public datasets: set PUX_DATA_DIR to a folder holding adult.data, "
    "adult.test and nltcs.csv (see README, Datasets)"
)


def _data_dir() -> Path | None:
    env = os.environ.get("PUX_DATA_DIR")
    return Path(env) if env and Path(env).is_dir() else None


@pytest.fixture(scope="session")
def data_dir() -> Path:
    """The public-data folder, or skip."""
    d = _data_dir()
    if d is None:
        pytest.skip(NO_DATA)
    return d


@pytest.fixture(scope="module")
def dask_cluster():
    """The address of a real LocalCluster of 2 worker processes (1 thread each), shared by
    a module's cluster tests and closed after them (an idle cluster's heartbeats cost a few
    percent of a core per process for the rest of the suite)."""
    from distributed import LocalCluster

    from core.runtime import compute

    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0")
    try:
        yield cluster.scheduler_address
    finally:
        compute.close_clients()
        cluster.close()


@pytest.fixture(scope="session")
def adult(data_dir):
    """UCI Adult (48,842 rows), or skip."""
    from core.data import load_adult

    if not ((data_dir / "adult.data").is_file() and (data_dir / "adult.test").is_file()):
        pytest.skip(NO_DATA)
    return load_adult(data_dir)


@pytest.fixture(scope="session")
def nltcs(data_dir):
    """NLTCS (21,574 rows), or skip."""
    from core.data import load_nltcs

    if not (data_dir / "nltcs.csv").is_file():
        pytest.skip(NO_DATA)
    return load_nltcs(data_dir)
