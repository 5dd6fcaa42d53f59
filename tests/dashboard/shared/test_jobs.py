"""The bounded, session-owned job pool (dashboard.shared.jobs)."""
from __future__ import annotations

import threading

import pytest

import dashboard.shared.jobs as jobs
from dashboard.shared.jobs import BackgroundJob, JobPool


class _Sleeper(BackgroundJob):
    name = "sleeper"

    def __init__(self, pool: JobPool) -> None:
        super().__init__(pool=pool)
        self.release = threading.Event()
        self.ran = False

    def _work(self) -> None:
        self.ran = True
        while not (self.release.is_set() or self._stop.is_set()):
            self.release.wait(0.02)


def test_only_as_many_jobs_run_as_the_pool_has_slots():
    pool = JobPool(1, watch_every=0.05)
    a, b = _Sleeper(pool).start(), _Sleeper(pool).start()
    for _ in range(100):
        if pool.counts() == (1, 1):
            break
        threading.Event().wait(0.02)
    assert pool.counts() == (1, 1)
    assert b.queued and pool.position(b) == 1
    assert b.queue_text().startswith("Waiting for a free worker: 1st in line")
    a.release.set()
    assert a.wait(5)
    b.release.set()
    assert b.wait(5) and b.ran


def test_a_job_stopped_in_the_queue_never_runs():
    pool = JobPool(1, watch_every=0.05)
    a, b = _Sleeper(pool).start(), _Sleeper(pool).start()
    threading.Event().wait(0.2)
    b.stop()
    assert b.wait(5) and b.cancelled and not b.ran
    a.stop()
    assert a.wait(5)


def test_the_watchdog_stops_a_job_whose_session_ended(monkeypatch):
    monkeypatch.setattr(jobs, "_session_alive", lambda session_id: session_id != "gone")
    pool = JobPool(1, watch_every=0.05)
    job = _Sleeper(pool)
    job.session_id = "gone"
    job.start()
    assert job.wait(5)  # stopped without anyone pressing Stop
    assert job._stop.is_set()


def test_expected_wait_comes_from_finished_jobs():
    pool = JobPool(1, watch_every=0.05)
    first = _Sleeper(pool).start()
    first.release.set()
    assert first.wait(5)
    a, b = _Sleeper(pool).start(), _Sleeper(pool).start()
    threading.Event().wait(0.2)
    assert pool.expected_wait(b) is not None
    a.stop(), b.stop()
    assert a.wait(5) and b.wait(5)


def test_a_queued_job_whose_session_ended_never_starts(monkeypatch):
    alive = {"a": True, "b": True}
    monkeypatch.setattr(jobs, "_session_alive", lambda sid: alive.get(sid, True))
    pool = JobPool(1, watch_every=60)  # the watchdog stays out of it: the slot check must do it
    first = _Sleeper(pool)
    first.session_id = "a"
    first.start()
    queued = _Sleeper(pool)
    queued.session_id = "b"
    queued.start()
    threading.Event().wait(0.2)
    alive["b"] = False
    first.release.set()
    assert queued.wait(5) and queued.cancelled and not queued.ran


def test_stop_all_stops_running_and_waiting_jobs():
    pool = JobPool(1, watch_every=0.05)
    a, b = _Sleeper(pool).start(), _Sleeper(pool).start()
    pool.stop_all(timeout=5)
    assert not a.running and not b.running
    assert pool.counts() == (0, 0)


def test_time_left_extrapolates_the_time_spent():
    import time

    job = _Sleeper(JobPool(1))
    assert job.time_left(0.5) == ""  # not started: no estimate
    job.started_at = time.monotonic() - 10.0  # ten seconds in
    assert job.time_left(0.25) == ", about 30 s left"
    assert job.time_left(0.0) == job.time_left(1.0) == ""
    assert job.time_left(0.999) == ""  # under a second left


def test_time_left_leaves_out_the_start_up_of_the_job():
    import time

    job = _Sleeper(JobPool(1))
    job.started_at = time.monotonic() - 20.0  # twenty seconds of start-up before any progress
    job.time_left(0.01)  # the page first asks at 1 %
    job._first_seen = (time.monotonic() - 1.0, 0.01)  # one second later it is at 11 %
    left = job.seconds_left(0.11)
    assert 8.0 <= left <= 10.0  # 10 % per second: about 9 s left, not the 160 s the start-up implies


def test_expected_wait_uses_the_duration_of_each_kind_of_job():
    import time

    pool = JobPool(1)
    pool._durations = {"long": jobs.deque([100.0]), "short": jobs.deque([1.0])}
    running, queued = _Sleeper(pool), _Sleeper(pool)
    running.name, queued.name = "short", "long"
    running.started_at = time.monotonic() - 0.5
    pool._running.add(running)
    pool._waiting.extend([queued])
    assert pool.expected_wait(queued) == pytest.approx(0.5, abs=0.2)  # what is left of the short job
    pool._running.clear()
    long_running = _Sleeper(pool)
    long_running.name, long_running.started_at = "long", time.monotonic() - 10.0
    pool._running.add(long_running)
    assert pool.expected_wait(queued) == pytest.approx(90.0, abs=1.0)


def test_time_left_adds_what_jobs_of_its_kind_took_after_their_last_progress(monkeypatch):
    import time

    monkeypatch.setattr(jobs, "_TAILS", {"sleeper": jobs.deque([4.0])})
    job = _Sleeper(JobPool(1))
    job.started_at = time.monotonic() - 10.0
    job.working_at = job.started_at
    assert job.seconds_left(0.5) == pytest.approx(10.0 + 4.0, abs=0.1)


def test_time_left_before_any_job_finished_counts_half_the_start_up(monkeypatch):
    import time

    monkeypatch.setattr(jobs, "_TAILS", {})
    job = _Sleeper(JobPool(1))
    job.started_at = time.monotonic() - 10.0
    job.working_at = job.started_at + 6.0  # six seconds of start-up, four of work for 50 %
    assert job.seconds_left(0.5) == pytest.approx(4.0 + 3.0, abs=0.1)
