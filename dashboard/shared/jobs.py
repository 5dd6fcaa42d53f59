"""Long work (trainings, audits) as session-owned jobs in one bounded pool.

- **Owned by a session.** A job is created by one browser session and kept in that
  session's state; another viewer never joins or stops it. Finished results may be shared
  (read-only) through a cache keyed by their inputs, never running jobs.
- **Bounded.** At most :data:`MAX_RUNNING` jobs run at once (by default one fewer than the
  machine's cores, at least one, or ``PUX_MAX_JOBS``), so that sliders stay responsive; the
  others wait in line, first come first served, and know their place and a rough wait.
- **Stopped with their session.** A watchdog stops a job whose session has ended (tab
  closed, page reloaded: Streamlit's runtime no longer lists the session as active).

A subclass implements :meth:`BackgroundJob._work`, which must check ``self._stop`` (a
``threading.Event``) now and then and never touch streamlit.
"""
from __future__ import annotations

import os
import pickle
import subprocess
import sys
import threading
import time
import weakref
from collections import deque
from multiprocessing.connection import Connection
from typing import Any, Callable

__all__ = ["BackgroundJob", "JobPool", "POOL", "SETUP_POOL", "MAX_RUNNING", "current_session_id", "run_in_child"]


def _default_slots() -> int:
    env = os.environ.get("PUX_MAX_JOBS")
    if env and env.isdigit() and int(env) > 0:
        return int(env)
    return max(1, (os.cpu_count() or 2) - 1)


MAX_RUNNING = _default_slots()


def current_session_id() -> str | None:
    """The id of the Streamlit session running this script (None outside a server)."""
    try:
        from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

        ctx = get_script_run_ctx(suppress_warning=True)
    except Exception:  # pragma: no cover - streamlit internals moved
        return None
    return None if ctx is None else ctx.session_id


def _session_alive(session_id: str | None) -> bool:
    if session_id is None:
        return True
    try:
        from streamlit.runtime import Runtime

        if not Runtime.exists():
            return True  # bare mode and AppTest: no runtime to ask
        return Runtime.instance().is_active_session(session_id)
    except Exception:  # pragma: no cover - streamlit internals moved
        return True


class JobPool:
    """First-come-first-served slots for background jobs, with a session watchdog."""

    def __init__(self, slots: int, *, watch_every: float = 2.0) -> None:
        self.slots = int(slots)
        self._cond = threading.Condition()
        self._waiting: deque[BackgroundJob] = deque()
        self._running: set[BackgroundJob] = set()
        self._durations: dict[str, deque[float]] = {}
        self._watch_every = watch_every
        self._watcher: threading.Thread | None = None
        self._started: "weakref.WeakSet[BackgroundJob]" = weakref.WeakSet()

    # ------------------------------------------------------------ slots
    def acquire(self, job: "BackgroundJob") -> bool:
        """Wait for a slot; False when the job was stopped while it waited."""
        self._ensure_watcher()
        with self._cond:
            self._waiting.append(job)
            while True:
                if job._stop.is_set():
                    self._waiting.remove(job)
                    self._cond.notify_all()
                    return False
                if self._waiting[0] is job and len(self._running) < self.slots:
                    if not _session_alive(job.session_id):  # its viewer left while it waited
                        job._stop.set()
                        continue
                    self._waiting.popleft()
                    self._running.add(job)
                    self._cond.notify_all()
                    return True
                self._cond.wait(timeout=0.5)

    def release(self, job: "BackgroundJob", seconds: float) -> None:
        with self._cond:
            self._running.discard(job)
            if not job._stop.is_set():
                self._durations.setdefault(job.name, deque(maxlen=20)).append(seconds)
            self._cond.notify_all()

    def wake(self) -> None:
        with self._cond:
            self._cond.notify_all()

    def position(self, job: "BackgroundJob") -> int:
        """1 for the next job to start, 2 for the one after, ...; 0 when not waiting."""
        with self._cond:
            try:
                return self._waiting.index(job) + 1
            except ValueError:
                return 0

    def expected_wait(self, job: "BackgroundJob") -> float | None:
        """Rough seconds until ``job`` starts: what is left of the running jobs plus the jobs
        ahead of it in line, each at the mean duration of finished jobs of its kind (its
        ``name``; the mean over kinds for a kind not seen yet), shared among the slots.
        None while no job has finished (nothing to go on)."""
        now = time.monotonic()
        with self._cond:
            try:
                pos = self._waiting.index(job) + 1
            except ValueError:
                return 0.0
            means = {name: sum(d) / len(d) for name, d in self._durations.items() if d}
            running = [(j.name, j.started_at) for j in self._running]
            ahead = [j.name for j in list(self._waiting)[:pos - 1]]
        if not means:
            return None
        default = sum(means.values()) / len(means)
        work = 0.0
        for name, started in running:
            expected = means.get(name, default)
            spent = 0.0 if started is None else now - started
            work += max(expected - spent, 0.1 * expected)  # a job past its mean still needs a while
        work += sum(means.get(name, default) for name in ahead)
        return work / max(1, self.slots)

    def counts(self) -> tuple[int, int]:
        """(running, waiting)."""
        with self._cond:
            return len(self._running), len(self._waiting)

    def stop_all(self, timeout: float = 30.0) -> None:
        """Stop every job started on this pool that has not ended, and wait for them (server
        shutdown, tests); a job whose thread has not reached the queue yet is included."""
        with self._cond:
            jobs = [job for job in self._started if job.running]
        for job in jobs:
            job.stop()
        for job in jobs:
            job.wait(timeout)

    # ------------------------------------------------------------ watchdog
    def _ensure_watcher(self) -> None:
        with self._cond:
            if self._watcher is None or not self._watcher.is_alive():
                self._watcher = threading.Thread(target=self._watch, name="pux-job-watchdog", daemon=True)
                self._watcher.start()

    def _watch(self) -> None:
        while True:
            time.sleep(self._watch_every)
            with self._cond:
                jobs = list(self._running) + list(self._waiting)
            for job in jobs:
                if not _session_alive(job.session_id):
                    job.stop()
            if jobs:
                self.wake()


#: seconds from the last progress a page saw to the end, per kind of job (see seconds_left)
_TAILS: dict[str, deque[float]] = {}
_TAILS_LOCK = threading.Lock()

POOL = JobPool(MAX_RUNNING)
#: setup steps (feature selection, sensitivities, the SSKM_DP map, detection): short, needed
#: before a page can draw, so they never wait behind trainings; a few at once at most
SETUP_POOL = JobPool(max(2, MAX_RUNNING + 1))


class BackgroundJob:
    """A thread that waits for a pool slot, runs :meth:`_work`, and can be stopped.

    Attributes
    ----------
    session_id : str or None
        The session that started the job; the pool stops the job when it ends.
    error : BaseException or None
        What the work raised (the page shows it as one sentence).
    """

    name = "pux-job"

    def __init__(self, *, pool: JobPool | None = None) -> None:
        self.error: BaseException | None = None
        self.session_id = current_session_id()
        self.pool = POOL if pool is None else pool
        self.started_at: float | None = None
        self._first_seen: tuple[float, float] | None = None  # (time, fraction) of the first estimate
        self._last_seen: float | None = None  # the last estimate asked for
        self.working_at: float | None = None  # the first progress of the work proper
        self.cancelled = False
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._run, name=self.name, daemon=True)

    def start(self):
        """Queue the job (it starts when a slot is free); returns the job."""
        with self.pool._cond:
            self.pool._started.add(self)
        self._thread.start()
        return self

    def _work(self) -> None:  # pragma: no cover - subclasses implement it
        raise NotImplementedError

    def _run(self) -> None:
        try:
            if not self.pool.acquire(self):
                self.cancelled = True
                return
            self.started_at = time.monotonic()
            try:
                self._work()
            finally:
                ended = time.monotonic()
                self.pool.release(self, ended - self.started_at)
                if self._last_seen is not None and not self._stop.is_set():
                    with _TAILS_LOCK:  # the time after the last progress, for the next estimate
                        _TAILS.setdefault(self.name, deque(maxlen=10)).append(ended - self._last_seen)
        except BaseException as exc:  # shown on the page as one sentence
            self.error = exc
        finally:
            self._done.set()

    def stop(self) -> None:
        """Ask the work to stop at its next check (what it did so far is kept)."""
        self._stop.set()
        self.pool.wake()

    @property
    def running(self) -> bool:
        """True while the job waits for a slot or works."""
        return not self._done.is_set()

    @property
    def queued(self) -> bool:
        """True while the job waits for a slot."""
        return self.running and self.started_at is None

    def queue_text(self) -> str:
        """'2nd in line, about 40 s' (or '' once started)."""
        pos = self.pool.position(self)
        if pos == 0:
            return ""
        suffix = {1: "st", 2: "nd", 3: "rd"}.get(pos if pos < 20 else pos % 10, "th")
        wait = self.pool.expected_wait(self)
        about = f", about {wait:.0f} s" if wait is not None else ""
        return (f"Waiting for a free worker: {pos}{suffix} in line{about} "
                f"({self.pool.slots} job(s) run at once on this server).")

    def mark_working(self) -> None:
        """Say that the work proper has begun (its first progress): the time before it
        (starting a process, importing torch) is left out of the pace."""
        with self._lock:
            if self.working_at is None:
                self.working_at = time.monotonic()

    def seconds_left(self, fraction: float) -> float | None:
        """Seconds until the job ends, from the pace of its progress (None before it starts
        or at 0 or 1).

        The pace is measured from the first time the page asked (``fraction`` then) to now;
        until the progress has moved by 1 % it is the pace since the work began
        (:meth:`mark_working`, else the job's start). A pace taken from the job's start
        made a training's first estimates up to 20 times too long (its process starts for
        seconds before the first iteration). What jobs of this kind took after their last
        progress (drawing the sample, sending the model back) is added; before any has
        finished, half the start-up of this one.
        ``benchmarks/bench_estimates.py`` measures each estimate against the real time left.
        """
        if self.started_at is None or not 0 < fraction < 1:
            return None
        now = time.monotonic()
        with self._lock:
            if self._first_seen is None or fraction < self._first_seen[1]:
                self._first_seen = (now, fraction)
            t0, f0 = self._first_seen
            self._last_seen = now
            began = self.working_at if self.working_at is not None else self.started_at
        if fraction - f0 >= 0.01 and now - t0 >= 0.5:
            pace = (now - t0) / (fraction - f0)
        else:
            pace = (now - began) / fraction
        with _TAILS_LOCK:
            tails = _TAILS.get(self.name)
            tail = sum(tails) / len(tails) if tails else None
        if tail is None:  # no job of this kind finished yet: half its start-up (measured: a
            # training's 12 s start-up and 6 s after its last iteration on a loaded server)
            tail = 0.5 * (began - self.started_at)
        return pace * (1 - fraction) + tail

    def time_left(self, fraction: float) -> str:
        """', about 12 s left' (:meth:`seconds_left`; '' before the job starts, at 0 or 1,
        or under a second): one estimate for every progress bar."""
        left = self.seconds_left(fraction)
        return f", about {left:.0f} s left" if left is not None and left >= 1 else ""

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the job ends (tests and the CLI); True when it ended."""
        return self._done.wait(timeout)


def run_in_child(fn: Callable[..., Any], kwargs: dict, *, on_message: Callable[[Any], None],
                 stop: threading.Event, name: str = "pux-child") -> Any:
    """``fn(send, stop, **kwargs)`` in a child process; returns what it returns.

    CPU-heavy work runs there, not in a thread of the server: Python threads share one
    interpreter lock with the server's event loop, and a busy thread delays every page
    of every viewer. ``fn`` must be a module-level function and ``kwargs`` picklable.
    ``on_message`` receives what the child sends (progress); setting ``stop`` sets the
    event the child checks, and the child is killed if it does not end soon after.
    The child is a fresh interpreter (:mod:`dashboard.shared.child`) at lower priority.
    """
    child_in, to_child = os.pipe()  # (read end, write end)
    from_child, child_out = os.pipe()
    path = [os.path.abspath(p) if p else os.getcwd() for p in sys.path]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(path))
    try:
        proc = subprocess.Popen([sys.executable, "-m", "dashboard.shared.child", str(child_in), str(child_out)],
                                pass_fds=(child_in, child_out), env=env, stdin=subprocess.DEVNULL)
    finally:
        os.close(child_in)
        os.close(child_out)
    outbox, inbox = Connection(to_child, readable=False), Connection(from_child, writable=False)
    try:
        try:
            outbox.send_bytes(pickle.dumps((fn, kwargs)))
        except (BrokenPipeError, OSError):
            raise RuntimeError("the worker process ended without a result") from None
        told = False
        while True:
            if stop.is_set() and not told:
                told = True
                try:
                    outbox.send_bytes(b"stop")
                except OSError:  # it has ended already: what it sent is read below
                    pass
            try:
                ready = inbox.poll(0.2)
                message = pickle.loads(inbox.recv_bytes()) if ready else None  # from our own child
            except (EOFError, OSError):
                raise RuntimeError("the worker process ended without a result") from None
            if not ready:
                if proc.poll() is not None and not inbox.poll(0):
                    raise RuntimeError("the worker process ended without a result")
                continue
            kind, payload = message
            if kind == "message":
                on_message(payload)
            elif kind == "done":
                return payload
            else:  # "error": the child's exception, re-raised here for the page
                raise payload
    finally:
        outbox.close()  # the child's stop is set when its input ends
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=5)
        inbox.close()
