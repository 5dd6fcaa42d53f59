"""The bounded, session-owned job pool (dashboard.shared.serving.jobs)."""
from __future__ import annotations

import threading

import pytest

import dashboard.shared.serving.job_pool as job_pool
import dashboard.shared.serving.jobs as jobs
from dashboard.shared.serving.jobs import BackgroundJob, JobPool


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


def test_the_watchdog_abandons_a_job_whose_session_ended_after_the_grace(monkeypatch):
    alive = {"tab": True}
    monkeypatch.setattr(job_pool, "session_alive", lambda session_id: alive.get(session_id, True))
    pool = JobPool(1, watch_every=0.05, grace_s=0.3)
    job = _Sleeper(pool)
    job.session_id = "tab"
    job.start()
    for _ in range(250):
        if job.ran:
            break
        threading.Event().wait(0.02)
    alive["tab"] = False  # the tab closes while its job runs
    assert not job.wait(0.15)  # within the grace: a blip of the same tab keeps its job
    assert job.wait(5)  # then abandoned without anyone pressing Stop
    assert job._stop.is_set() and job._stop.abandoned


def test_a_gone_tabs_job_gives_way_sooner_when_another_waits(monkeypatch):
    monkeypatch.setattr(job_pool, "CROWDED_GRACE_S", 0.2)
    alive = {"gone": True, "here": True}
    monkeypatch.setattr(job_pool, "session_alive", lambda session_id: alive.get(session_id, True))
    pool = JobPool(1, watch_every=0.05, grace_s=30.0)  # alone, it would keep its slot 30 s
    job, other = _Sleeper(pool), _Sleeper(pool)
    job.session_id, other.session_id = "gone", "here"
    job.start()
    for _ in range(250):
        if job.ran:
            break
        threading.Event().wait(0.02)
    other.start()  # waits for the one slot
    alive["gone"] = False
    assert job.wait(5) and job._stop.abandoned  # evicted after the crowded grace, not 30 s
    for _ in range(250):
        if other.ran:
            break
        threading.Event().wait(0.02)
    assert other.ran
    other.stop()
    assert other.wait(5)


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
    monkeypatch.setattr(job_pool, "session_alive", lambda sid: alive.get(sid, True))
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
    pool.learn("long", 100.0)
    pool.learn("short", 1.0)
    running, queued = _Sleeper(pool), _Sleeper(pool)
    running.name, queued.name = "short", "long"
    running.started_at = time.monotonic() - 0.5
    pool._running.add(running)
    queued._ticket = 0
    pool._waiting.append(queued)
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


# ---------------------------------------------------------------- fairness between sessions
def _eventually(predicate, timeout: float = 5.0) -> bool:
    import time

    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.01)
    return predicate()


def _job(pool: JobPool, session: str | None, name: str = "sleeper") -> _Sleeper:
    job = _Sleeper(pool)
    job.session_id, job.name = session, name
    return job


def _run_one_at_a_time(pool: JobPool, queued: list) -> list:
    """Release the running job of a one-slot pool until every job in ``queued`` ran: the
    order they started in."""
    order = []
    while len(order) < len(queued):
        assert _eventually(lambda: any(j.started_at is not None and j not in order for j in queued))
        running = next(j for j in queued if j.started_at is not None and j not in order)
        order.append(running)
        running.release.set()
        assert running.wait(5)
    return order


def test_sessions_take_turns_and_a_sessions_own_jobs_keep_their_order():
    pool = JobPool(1, watch_every=60)
    blocker = _job(pool, "z").start()
    assert _eventually(lambda: blocker.started_at is not None)
    a1, a2, a3 = (_job(pool, "a").start() for _ in range(3))
    b1 = _job(pool, "b").start()
    c1, c2 = _job(pool, "c").start(), _job(pool, "c").start()
    assert [j for j, _ in pool.forecast()] == [a1, b1, c1, a2, c2, a3]  # the page's places
    blocker.release.set()
    assert _run_one_at_a_time(pool, [a1, a2, a3, b1, c1, c2]) == [a1, b1, c1, a2, c2, a3]


def test_a_session_runs_one_job_at_a_time_even_with_free_slots():
    pool = JobPool(3, watch_every=60)
    a1, a2 = _job(pool, "a").start(), _job(pool, "a").start()
    b1 = _job(pool, "b").start()
    assert _eventually(lambda: pool.counts() == (2, 1))
    assert a1.started_at is not None and b1.started_at is not None and a2.queued
    assert pool.session_counts("a") == (1, 1)
    assert "Your session's running job goes first" in a2.queue_text()
    a1.release.set()
    assert _eventually(lambda: a2.started_at is not None)
    a2.release.set(), b1.release.set()
    assert a2.wait(5) and b1.wait(5)


def test_waiting_jobs_wait_without_spending_the_cpu():
    """Threads in line sleep until something changes (they once woke each other in turn: a
    core busy doing nothing, which slowed the trainings and the sliders)."""
    import time

    pool = JobPool(1, watch_every=60)
    running = _job(pool, "a").start()
    waiting = [_job(pool, session).start() for session in ("b", "c", "d")]
    assert _eventually(lambda: pool.counts() == (1, 3))
    # the CPU clocks of the waiting threads themselves (the process's clock would count
    # whatever else this test process runs)
    clocks = [time.pthread_getcpuclockid(j._thread.ident) for j in waiting]
    before = sum(time.clock_gettime(c) for c in clocks)
    time.sleep(1.0)
    assert sum(time.clock_gettime(c) for c in clocks) - before < 0.25  # CPU seconds in one second of waiting
    pool.stop_all(timeout=5)
    assert not any(j.running for j in [running, *waiting])


def test_jobs_without_a_session_are_each_their_own_session():
    pool = JobPool(2, watch_every=60)
    first, second = _job(pool, None).start(), _job(pool, None).start()
    assert _eventually(lambda: pool.counts() == (2, 0))  # not held back as one session's second job
    first.release.set(), second.release.set()
    assert first.wait(5) and second.wait(5)


def test_a_session_with_a_full_line_is_refused_in_words():
    pool = JobPool(1, watch_every=60, max_waiting=2)
    running = _job(pool, "a").start()
    assert _eventually(lambda: running.started_at is not None)
    waiting = [_job(pool, "a").start(), _job(pool, "a").start()]
    refused = _job(pool, "a")
    with pytest.raises(jobs.QueueFull, match="already has 2 job.s. waiting for a worker") as caught:
        refused.start()
    assert isinstance(caught.value, ValueError)  # pages show it as one sentence
    assert not pool.has_room("a") and pool.has_room("b")
    other, no_session = _job(pool, "b").start(), _job(pool, None).start()  # others are not refused
    assert pool.session_counts("a") == (1, 2)
    waiting[0].stop()  # a stopped job leaves the line: room again
    assert waiting[0].wait(5) and waiting[0].cancelled
    assert pool.has_room("a")
    again = _job(pool, "a").start()
    pool.stop_all(timeout=5)
    assert not any(j.running for j in [running, *waiting, other, no_session, again])


def test_a_refused_job_ends_at_once_carrying_the_refusal():
    pool = JobPool(1, watch_every=60, max_waiting=0)
    job = _job(pool, "a")
    with pytest.raises(jobs.QueueFull) as caught:
        job.start()
    job.refuse(caught.value)
    assert not job.running and isinstance(job.error, jobs.QueueFull) and not job.ran


def test_a_job_stopped_while_waiting_leaves_the_line_and_the_forecast():
    pool = JobPool(1, watch_every=60)
    running = _job(pool, "a").start()
    assert _eventually(lambda: running.started_at is not None)
    b, c = _job(pool, "b").start(), _job(pool, "c").start()
    assert pool.position(c) == 2
    b.stop()
    assert b.wait(5) and b.cancelled and not b.ran
    assert pool.position(c) == 1 and pool.counts() == (1, 1)
    assert [j for j, _ in pool.forecast()] == [c]
    running.release.set()
    assert _eventually(lambda: c.started_at is not None)
    c.release.set()
    assert c.wait(5)


def _settled(pool: JobPool) -> bool:
    """True when the pool has started every job its rules allow now."""
    with pool._cond:
        return len(pool._running) >= pool.slots or pool._next() is None


class _Clock:
    """A fake monotonic clock the test moves."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_the_forecast_order_and_waits_are_the_real_ones():
    """Two slots, four sessions, jobs of 1 s and 10 s: the forecast made at time 0 gives the
    order and the start times the pool then really gives (on a fake clock)."""
    clock = _Clock()
    pool = JobPool(2, watch_every=60, clock=clock)
    seconds = {"short": 1.0, "long": 10.0, "mid": 4.0}
    for kind, took in seconds.items():
        pool.learn(kind, took)
    running = [_job(pool, "z1", "long").start(), _job(pool, "z2", "mid").start()]
    assert _eventually(lambda: pool.counts() == (2, 0))
    clock.now = 1.0  # one second into both
    plan = [("a", "long"), ("a", "short"), ("b", "short"), ("b", "short"), ("b", "mid"), ("c", "mid"),
            ("z1", "short"), ("d", "long")]
    queued = [_job(pool, session, kind).start() for session, kind in plan]
    assert _eventually(lambda: pool.counts() == (2, len(plan)))
    predicted = pool.forecast()
    assert all(wait is not None for _, wait in predicted)

    started: dict = {}
    live = list(running)
    while len(started) < len(queued):  # end the job due first, see whom the pool starts
        ends = {job: job.started_at + seconds[job.name] for job in live}
        first = min(ends, key=ends.get)
        clock.now = ends[first]
        first.release.set()
        assert first.wait(5)
        live.remove(first)
        assert _eventually(lambda: _settled(pool))
        for job in queued:
            if job.started_at is not None and job not in started:
                started[job] = job.started_at - 1.0  # waited since time 1
                live.append(job)
    real_order = sorted(started, key=lambda j: (started[j], queued.index(j)))
    assert [j for j, _ in predicted] == real_order
    for job, wait in predicted:
        assert wait == pytest.approx(started[job], abs=1e-6)


def test_a_running_jobs_progress_sets_the_wait_behind_it():
    import time

    pool = JobPool(1, watch_every=60)
    running, waiting = _job(pool, "a"), _job(pool, "b")
    running.started_at = running.working_at = time.monotonic() - 30.0  # 30 s for the first quarter
    running._fraction = 0.25
    pool._running.add(running)
    waiting._ticket = 0
    pool._waiting.append(waiting)
    assert pool.expected_wait(waiting) == pytest.approx(90.0, rel=0.05)  # three more quarters


def test_the_wait_behind_a_bigger_job_of_a_known_kind_scales_with_its_work():
    import time

    pool = JobPool(1, watch_every=60)
    pool.learn("training", 14.0, startup=4.0, units=100.0)  # 4 s to start, 0.1 s per unit
    running, waiting = _job(pool, "a", "training"), _job(pool, "b", "training")
    running.work_units = 1000.0
    running.started_at = time.monotonic()
    pool._running.add(running)
    waiting._ticket = 0
    pool._waiting.append(waiting)
    assert pool.expected_wait(waiting) == pytest.approx(4.0 + 100.0, rel=0.02)


def test_the_forecast_gives_no_wait_past_an_unknown_duration():
    from dashboard.shared.serving.job_pool import Running, Waiting, forecast

    line = [Waiting("b1", "b", 0, 5.0), Waiting("c1", "c", 1, 5.0), Waiting("a1", "a", 2, None),
            Waiting("d1", "d", 3, 5.0)]
    plan = forecast(line, [Running("z", 2.0)], {}, slots=2)
    # d1 starts when a1 (length unknown) or c1 ends, whichever is first: no figure for it
    assert plan == [("b1", 0.0), ("c1", 2.0), ("a1", 5.0), ("d1", None)]


# ---------------------------------------------------------------- the refusal on a page
def _hold(progress):
    """A sweep that runs until it is stopped (its progress call raises then)."""
    import time

    for _ in range(3000):
        progress(0.01, "holding")
        time.sleep(0.01)
    raise TimeoutError("never stopped")


def _three_sweeps_page():
    import uuid

    import streamlit as st

    from dashboard.shared.widgets.job_view import sweep_view
    from dashboard.shared.serving.sweeps import Sweep
    from tests.dashboard.shared.serving.test_jobs import _hold

    key = st.session_state.setdefault("sweeps_key", str(uuid.uuid4()))
    for slot in ("one", "two", "three"):
        sweep_view(slot, Sweep((slot, key), _hold, {}, f"Sweep {slot}", in_process=True))


def test_a_sweep_the_pool_refuses_says_why_on_the_page(monkeypatch):
    from streamlit.testing.v1 import AppTest

    pool = JobPool(1, watch_every=60, max_waiting=1)
    monkeypatch.setattr(jobs, "POOL", pool)
    at = AppTest.from_function(_three_sweeps_page, default_timeout=30).run()
    try:
        assert not at.exception
        warnings = [w.value for w in at.warning]
        assert len(warnings) == 1 and warnings[0].startswith("Not queued: this session already has 1 job(s) waiting")
        assert "queued by itself as soon as there is room" in warnings[0]
        assert pool.counts() == (1, 1)  # "one" runs, "two" waits, "three" was never queued
    finally:
        pool.stop_all(timeout=5)


def test_the_wait_behind_a_running_job_follows_its_recent_pace(monkeypatch):
    """A training that crawled while the machine was busy and runs fast now: the wait behind
    it comes from the last half minute, not from its whole run."""
    monkeypatch.setattr(jobs, "_TAILS", {})
    clock = _Clock()
    pool = JobPool(1, watch_every=60, clock=clock)
    running, waiting = _job(pool, "a"), _job(pool, "b")
    running.started_at = running.working_at = 0.0
    pool._running.add(running)
    waiting._ticket = 0
    pool._waiting.append(waiting)
    clock.now, running._fraction = 40.0, 0.01  # 40 s for the first 1 %
    pool.expected_wait(waiting)  # a page in line reads the pool every second
    clock.now, running._fraction = 50.0, 0.21  # then 20 % in 10 s
    assert pool.expected_wait(waiting) == pytest.approx(0.79 * 50.0, rel=0.01)  # not 0.79 * 238


def _thread_settings(*, send, stop):
    import os

    return {v: os.environ.get(v) for v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")}


def test_a_child_process_uses_the_cores_beside_the_server_shared_by_the_slots(monkeypatch):
    """Two jobs and the server on 2 cores: each job's child gets one thread for its numeric
    libraries (torch reads OMP_NUM_THREADS), not one per core, so nobody oversubscribes."""
    monkeypatch.setenv("OMP_NUM_THREADS", "64")  # the server's own setting does not leak into jobs
    monkeypatch.setenv("PUX_JOBS_IN_THREAD", "0")  # a real child (the suite runs jobs in threads)
    monkeypatch.setattr(jobs, "JOB_THREADS", 1)
    got = jobs.run_in_child(_thread_settings, {}, on_message=lambda m: None, stop=threading.Event())
    assert got == {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


def test_the_default_thread_count_leaves_the_server_a_core():
    assert jobs._job_threads(2, 1) == 1  # the project's machine: one job slot, one thread
    assert jobs._job_threads(4, 3) == 1 and jobs._job_threads(1, 1) == 1 and jobs._job_threads(None, 1) == 1
    assert jobs._job_threads(16, 2) == 7  # PUX_MAX_JOBS=2 on 16 cores: 15 beside the server, two slots
