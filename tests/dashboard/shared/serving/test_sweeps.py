"""The pages' curves as session-owned jobs (dashboard.shared.serving.sweeps)."""
from __future__ import annotations

import os
import pickle
import sys
import threading
import types

import pandas as pd
import pytest

from dashboard.shared.serving.jobs import JobPool, run_in_child
from dashboard.shared.serving.sweeps import FinishedResults, Sweep, SweepJob, sweep_or_job


def _counting_sweep(key, calls: list, *, gate: threading.Event | None = None, steps: int = 4) -> Sweep:
    def compute(progress):
        calls.append(key)
        for i in range(steps):
            if gate is not None:
                gate.wait(5)
            progress((i + 1) / steps, f"run {i + 1} of {steps}")
        return pd.DataFrame({"x": [1.0, 2.0]})

    return Sweep(key, compute, title="Testing", in_process=True)


def _wait(job: SweepJob) -> None:
    # A spawned child imports pandas and the project before its first step: on a loaded
    # two-core CI machine that alone took over ten seconds. The wait returns as soon as the
    # job ends, so a generous limit costs nothing when it passes.
    assert job.wait(120), "the sweep did not end"


def test_a_finished_sweep_is_served_to_another_session_without_running_again():
    results, calls = FinishedResults(), []
    mine, theirs = {}, {}
    result, job = sweep_or_job(mine, "curve", _counting_sweep("k", calls), results=results)
    assert result is None and job is not None
    _wait(job)
    result, job = sweep_or_job(theirs, "curve", _counting_sweep("k", calls), results=results)
    assert job is None and result["x"].tolist() == [1.0, 2.0]
    assert calls == ["k"] and theirs == {}


def test_a_reload_of_the_same_browser_reattaches_to_the_running_sweep(monkeypatch):
    import secrets

    from dashboard.shared.serving import reattach

    registry = reattach.BrowserJobs(alive=lambda sid: sid == "reloaded")  # the first tab is gone
    token = {"value": secrets.token_urlsafe(32)}
    session = {"id": "first tab"}
    monkeypatch.setattr(reattach, "BROWSER_JOBS", registry)
    monkeypatch.setattr(reattach, "browser_token", lambda: token["value"])
    monkeypatch.setattr(reattach, "_session", lambda: session["id"])
    results, calls, gate = FinishedResults(), [], threading.Event()
    _, job = sweep_or_job({}, "curve", _counting_sweep("k", calls, gate=gate), results=results)
    job.session_id = "first tab"
    session["id"] = "reloaded"  # a new session of the same browser, with an empty state
    again = {}
    _, same = sweep_or_job(again, "curve", _counting_sweep("k", calls, gate=gate), results=results)
    token["value"] = secrets.token_urlsafe(32)  # another browser
    session["id"] = "someone else"
    _, other = sweep_or_job({}, "curve", _counting_sweep("k", calls, gate=gate), results=results)
    gate.set()
    _wait(job), _wait(other)
    assert same is job and again == {"curve": job} and job.session_id == "reloaded"
    assert other is not job  # the other browser has a job of its own


def test_new_inputs_stop_the_slots_old_job():
    results, calls, gate = FinishedResults(), [], threading.Event()
    jobs = {}
    _, old = sweep_or_job(jobs, "curve", _counting_sweep("a", calls, gate=gate), results=results)
    _, new = sweep_or_job(jobs, "curve", _counting_sweep("b", calls, gate=gate), results=results)
    gate.set()
    _wait(old), _wait(new)
    assert old.cancelled and old.result is None and results.get("a") is None
    assert new.result is not None and jobs["curve"] is new


def test_stop_keeps_nothing_and_restart_runs_again():
    results, calls, gate = FinishedResults(), [], threading.Event()
    jobs = {}
    _, job = sweep_or_job(jobs, "curve", _counting_sweep("k", calls, gate=gate), results=results)
    job.stop()
    gate.set()
    _wait(job)
    assert job.cancelled and results.get("k") is None
    again = sweep_or_job(jobs, "curve", _counting_sweep("k", calls, gate=gate), results=results)[1]
    assert again is job  # a stopped job stays stopped until the user asks again
    again = sweep_or_job(jobs, "curve", _counting_sweep("k", calls), restart=True, results=results)[1]
    assert again is not job
    _wait(again)
    assert again.result is not None


def test_progress_says_what_runs_and_the_time_left():
    gate = threading.Event()
    pool = JobPool(1, watch_every=0.05)

    def compute(progress):
        progress(0.25, "run 1 of 4")
        gate.wait(5)
        return pd.DataFrame()

    job = SweepJob(Sweep("k", compute, title="Sweeping epsilon", in_process=True), results=FinishedResults(),
                   pool=pool)
    job.start()
    for _ in range(200):
        if job.progress()[0] > 0:
            break
        threading.Event().wait(0.01)
    job.started_at -= 3.0  # pretend the first quarter took three seconds
    fraction, text = job.progress()
    assert fraction == 0.25
    assert text.startswith("Sweeping epsilon: run 1 of 4, about ") and text.endswith(" s left")
    gate.set()
    _wait(job)


def test_an_error_in_the_sweep_reaches_the_page():
    def compute(progress):
        raise ValueError("Choose a label column.")

    _, job = sweep_or_job({}, "curve", Sweep("bad", compute, in_process=True), results=FinishedResults())
    _wait(job)
    assert isinstance(job.error, ValueError) and job.result is None


def test_a_queued_sweep_takes_the_result_another_session_finished_meanwhile():
    results, calls = FinishedResults(), []
    pool = JobPool(1, watch_every=0.05)
    gate = threading.Event()
    first = SweepJob(_counting_sweep("k", calls, gate=gate), results=results, pool=pool).start()
    second = SweepJob(_counting_sweep("k", calls), results=results, pool=pool).start()
    gate.set()
    _wait(first), _wait(second)
    assert calls == ["k"] and second.result is not None


def _squares(progress, *, n: int) -> pd.DataFrame:
    for i in range(n):
        progress((i + 1) / n, f"square {i + 1}")
    return pd.DataFrame({"x": [i * i for i in range(n)]})


def _squares_in_parts(progress, *, n: int, partial) -> pd.DataFrame:
    for i in range(n):
        partial(pd.DataFrame({"x": [j * j for j in range(i + 1)]}))  # what is known so far
        progress((i + 1) / n, f"square {i + 1}")
    return pd.DataFrame({"x": [i * i for i in range(n)]})


def _never_ends(progress, *, seconds: float) -> pd.DataFrame:
    import time

    start = time.monotonic()
    while time.monotonic() - start < seconds:
        progress(0.5, "waiting")
        time.sleep(0.05)
    return pd.DataFrame()


@pytest.fixture(autouse=True)
def _in_a_child(monkeypatch):
    """These tests are about the child process: the suite's thread mode is off here."""
    monkeypatch.setenv("PUX_JOBS_IN_THREAD", "0")


def test_the_thread_mode_still_pickles_what_crosses(monkeypatch):
    monkeypatch.setenv("PUX_JOBS_IN_THREAD", "1")
    got = []
    assert run_in_child(_echo, {"value": 21}, on_message=got.append, stop=threading.Event()) == 42
    assert got == [("half", 21)]
    with pytest.raises((pickle.PicklingError, AttributeError, TypeError)):
        run_in_child(_echo, {"value": lambda: 1}, on_message=got.append, stop=threading.Event())


def test_a_sweep_runs_in_a_child_process_and_reports_progress():
    results = FinishedResults()
    _, job = sweep_or_job({}, "curve", Sweep("sq", _squares, {"n": 4}, "Squaring"), results=results)
    _wait(job)
    assert job.error is None and job.result["x"].tolist() == [0, 1, 4, 9]
    assert job.progress()[1].startswith("Squaring: square 4")
    assert results.get("sq") is not None


@pytest.mark.parametrize("in_process", [False, True])
def test_a_sweep_hands_over_what_it_has_so_far(in_process):
    """Results as they come: the partials cross from the child (or the thread) beside the progress."""
    sweep = Sweep("sq-parts", _squares_in_parts, {"n": 3}, "Squaring", in_process=in_process, partials=True)
    _, job = sweep_or_job({}, "curve", sweep, results=FinishedResults())
    _wait(job)
    assert job.error is None and job.result["x"].tolist() == [0, 1, 4]
    assert job.partial["x"].tolist() == [0, 1, 4] and job.progress()[1].startswith("Squaring: square 3")


def test_stop_ends_the_child_process():
    _, job = sweep_or_job({}, "curve", Sweep("slow", _never_ends, {"seconds": 60}), results=FinishedResults())
    for _ in range(2400):
        if job.progress()[0] > 0:
            break
        threading.Event().wait(0.05)
    job.stop()
    assert job.wait(60) and job.cancelled and job.result is None


def _echo(*, send, stop, value):
    send(("half", value))
    return value * 2


def test_a_child_starts_when_main_is_a_script_that_cannot_run_again(tmp_path, monkeypatch):
    # Inside a Streamlit script run (and under AppTest), __main__ is the page script or a
    # temporary file; multiprocessing's spawn re-ran it in the child and the child died.
    script = tmp_path / "page.py"
    script.write_text("raise SystemExit('a page script must not run in the child')\n")
    main = types.ModuleType("__main__")
    main.__file__ = str(script)
    monkeypatch.setitem(sys.modules, "__main__", main)
    got = []
    assert run_in_child(_echo, {"value": 21}, on_message=got.append, stop=threading.Event()) == 42
    assert got == [("half", 21)]


def _dies(*, send, stop):
    os._exit(3)


def test_a_child_that_dies_is_reported_not_waited_for():
    with pytest.raises(RuntimeError, match="ended without a result"):
        run_in_child(_dies, {}, on_message=lambda m: None, stop=threading.Event())


def _stubborn(*, send, stop, pid_file):
    """A long step that never checks ``stop`` (a training step, a large fit)."""
    import time

    with open(pid_file, "w") as out:
        out.write(str(os.getpid()))
    time.sleep(120)


def _gone(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] in ("Z", "X")  # a zombie has ended
    except FileNotFoundError:
        return True


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_a_child_ends_within_two_seconds_after_its_server_is_killed_with_kill_9(tmp_path):
    import signal
    import subprocess
    import time
    from pathlib import Path

    root = Path(__file__).resolve().parents[4]
    pid_file = tmp_path / "child.pid"
    server = subprocess.Popen(
        [sys.executable, "-c",
         "import threading\nfrom dashboard.shared.serving.jobs import run_in_child\n"
         "from tests.dashboard.shared.serving.test_sweeps import _stubborn\n"
         f"run_in_child(_stubborn, {{'pid_file': {str(pid_file)!r}}}, on_message=print, stop=threading.Event())\n"],
        cwd=root, env=dict(os.environ, PUX_JOBS_IN_THREAD="0", PYTHONPATH=str(root)))
    try:
        deadline = time.monotonic() + 120
        while not (pid_file.exists() and pid_file.read_text()) and time.monotonic() < deadline:
            time.sleep(0.05)
        child = int(pid_file.read_text())
        server.send_signal(signal.SIGKILL)
        killed = time.monotonic()
        while not _gone(child) and time.monotonic() - killed < 10:
            time.sleep(0.05)
        assert _gone(child) and time.monotonic() - killed <= 2.0
    finally:
        server.kill()
        server.wait()
