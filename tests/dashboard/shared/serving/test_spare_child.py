"""A job's child started ahead (dashboard.shared.serving.spare_child): its imports done while it
waits, it runs the next job, a new spare follows, and a spare ends with its server."""
from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest

from dashboard.shared.serving import jobs
from dashboard.shared.serving.spare_child import SpareChild


def _loaded(*, send, stop):
    import os
    import sys

    return os.getpid(), "colorsys" in sys.modules


def _ready(spare: SpareChild, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not spare.ready() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert spare.ready(), "no spare started"


def _comm(pid: int) -> bytes:
    return Path(f"/proc/{pid}/comm").read_bytes().strip()


@pytest.fixture
def spare(monkeypatch):
    monkeypatch.setenv("PUX_JOBS_IN_THREAD", "0")
    spare = SpareChild(preload=("colorsys",))  # a light module: the test times nothing
    monkeypatch.setattr(jobs, "SPARE", spare)
    yield spare
    spare.close()


def _run(fn):
    return jobs.run_in_child(fn, {}, on_message=lambda m: None, stop=threading.Event())


def test_the_next_job_runs_in_the_spare_with_its_imports_done(spare):
    first_pid, _ = _run(_loaded)  # no spare yet: a child of its own, and a spare starts
    _ready(spare)
    waiting = spare._spare.proc.pid
    if Path("/proc/self/comm").exists():  # Linux: it names itself once its interpreter is up
        deadline = time.monotonic() + 30
        while _comm(waiting) != b"pux-spare" and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _comm(waiting) == b"pux-spare"
    pid, preloaded = _run(_loaded)
    assert pid == waiting != first_pid and preloaded
    _ready(spare)  # once the job ended, another spare follows
    assert spare._spare.proc.pid not in (pid, first_pid)


def test_a_spare_started_for_another_environment_is_not_used(spare):
    _run(_loaded)
    _ready(spare)
    old = spare._spare.proc
    os.environ["PUX_SPARE_TEST"] = "changed"  # what a job's child sees differs now
    try:
        pid, _ = _run(_loaded)
    finally:
        del os.environ["PUX_SPARE_TEST"]
    assert pid != old.pid and old.wait(10) == 0  # it was ended, not handed the job


def test_a_spare_ends_when_its_server_drops_it():
    spare = SpareChild(preload=("colorsys",))
    spare.prime(dict(os.environ))
    _ready(spare)
    proc = spare._spare.proc
    spare.close()  # the pipe's end, as when the server goes away
    assert proc.wait(10) == 0


def test_no_spare_is_kept_when_it_is_off():
    spare = SpareChild(enabled=False)
    spare.prime(dict(os.environ))
    time.sleep(0.2)
    assert not spare.ready()


def test_prime_spare_starts_none_while_jobs_run_in_threads(monkeypatch):
    spare = SpareChild(preload=("colorsys",))
    monkeypatch.setattr(jobs, "SPARE", spare)
    monkeypatch.setenv("PUX_JOBS_IN_THREAD", "1")
    jobs.prime_spare()
    time.sleep(0.2)
    assert not spare.ready()
    monkeypatch.setenv("PUX_JOBS_IN_THREAD", "0")
    jobs.prime_spare()  # a real server: one starts, so its first job starts at once
    _ready(spare)
    spare.close()
