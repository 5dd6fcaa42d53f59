"""Long work (trainings, audits) as session-owned jobs in bounded pools, shared fairly.

- **Owned by a session.** A job is created by one browser session and kept in that
  session's state; another viewer never joins or stops it. Finished results may be shared
  (read-only) through a cache keyed by their inputs, never running jobs.
- **Bounded.** At most :data:`MAX_RUNNING` jobs run at once (by default one fewer than the
  machine's cores, at least one, or ``PUX_MAX_JOBS``: two slots on 2 cores made the slider
  worse when last measured, docs/serving.md); their child processes run at the lowest
  priority (nice 19), so the server's slider work always comes first; each uses at most
  :data:`JOB_THREADS` threads (the cores beside the server's one, shared by the slots: 1
  on 2 cores), so they do not oversubscribe the cores.
- **Fair.** One running job per session; when a slot frees, sessions take turns (the next
  job is the oldest waiting job of the session that started one least recently); a session
  may have at most :data:`MAX_WAITING` jobs waiting in :data:`POOL` (``PUX_MAX_WAITING``),
  a further one is refused with :class:`QueueFull`, which pages show as one sentence. The
  rules, and why, are in :mod:`dashboard.shared.serving.job_pool`; each waiting job knows its
  place and its wait, forecast by replaying those rules with the running jobs' time left.
- **Stopped with their session.** A watchdog abandons a job whose session has been gone
  (tab closed, page reloaded: Streamlit's runtime no longer lists the session as active)
  for :data:`dashboard.shared.serving.job_watch.GRACE_S` seconds: its child is killed at
  once and its slot is free (a blip of the same tab keeps the job).

A subclass implements :meth:`BackgroundJob._work`, which must check ``self._stop`` (a
``threading.Event``) now and then and never touch streamlit.

With ``PUX_JOB_LOG`` set to a file, each pool appends one JSON line per event (queued,
refused, shown, started, ended, left) with the job's kind and session: the load benchmark
(``benchmarks/bench_load.py``) reads the real order and waits from it.
"""
from __future__ import annotations

import copy
import os
import pickle
import subprocess
import sys
import threading
from collections import deque
from multiprocessing.connection import Connection
from typing import Any, Callable

from dashboard.shared.serving.job_pool import JobPool, QueueFull, log_event
from dashboard.shared.serving.spare_child import SPARE

__all__ = ["BackgroundJob", "JobPool", "POOL", "SETUP_POOL", "MAX_RUNNING", "MAX_WAITING", "JOB_THREADS",
           "QueueFull", "StopSignal", "current_session_id", "prime_spare", "run_in_child"]


def _env_count(name: str, default: int) -> int:
    env = os.environ.get(name)
    return int(env) if env and env.isdigit() and int(env) > 0 else default


MAX_RUNNING = _env_count("PUX_MAX_JOBS", max(1, (os.cpu_count() or 2) - 1))
#: the most jobs one session may have waiting in :data:`POOL` (its running job not counted)
MAX_WAITING = _env_count("PUX_MAX_WAITING", 3)
#: CPU threads a job's child process may use (BLAS, OpenMP, torch; ``PUX_JOB_THREADS``): the
#: cores left beside the server's one, shared by the running jobs, so that the jobs and the
#: server never ask for more cores than there are (1 on 2 cores)
def _job_threads(cores: int | None, slots: int) -> int:
    """The cores beside the server's one (``cores`` None: 2), shared by ``slots`` jobs; at least 1."""
    return max(1, ((cores or 2) - 1) // max(int(slots), 1))


JOB_THREADS = _env_count("PUX_JOB_THREADS", _job_threads(os.cpu_count(), MAX_RUNNING))
#: what the numeric libraries read their thread counts from (torch reads OMP_NUM_THREADS)
_THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMEXPR_NUM_THREADS")


def current_session_id() -> str | None:
    """The id of the Streamlit session running this script (None outside a server)."""
    try:
        from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

        ctx = get_script_run_ctx(suppress_warning=True)
    except Exception:  # pragma: no cover - streamlit internals moved
        return None
    return None if ctx is None else ctx.session_id


class StopSignal(threading.Event):
    """A job's stop event, with a second, harder request: ``abandon()`` also says that what the
    work did so far is not wanted, so a child process is killed at once instead of being
    asked to stop and send back what it learned (a closed tab, server shutdown, tests)."""

    def __init__(self) -> None:
        super().__init__()
        self.abandoned = False

    def abandon(self) -> None:
        """Stop, and keep nothing: :func:`run_in_child` kills the child at its next poll."""
        self.abandoned = True
        self.set()


#: seconds from the last progress a page saw to the end, per kind of job (see seconds_left)
_TAILS: dict[str, deque[float]] = {}
_TAILS_LOCK = threading.Lock()

POOL = JobPool(MAX_RUNNING, max_waiting=MAX_WAITING)
#: setup steps (feature selection, sensitivities, the SSKM_DP map, detection): short, needed
#: before a page can draw, so they never wait behind trainings; a few at once at most. The
#: same turns between sessions, no limit on a session's line (a page needs its setup steps).
SETUP_POOL = JobPool(max(2, MAX_RUNNING + 1), name="setup")


class BackgroundJob:
    """A thread that waits for its turn in a pool, runs :meth:`_work`, and can be stopped.

    Attributes
    ----------
    session_id : str or None
        The session that started the job; the pool stops the job when it ends, and gives
        each session one running job at a time (None: a job of its own, see
        :mod:`dashboard.shared.serving.job_pool`).
    error : BaseException or None
        What the work raised (the page shows it as one sentence).
    work_units : float
        How much work the job is beside others of its kind (a training: epochs times
        rows); the pool learns the seconds per unit and forecasts waits with it.
    """

    name = "pux-job"
    work_units: float = 1.0

    def __init__(self, *, pool: JobPool | None = None) -> None:
        self.error: BaseException | None = None
        self.session_id = current_session_id()
        self.pool = POOL if pool is None else pool
        self.started_at: float | None = None
        self._first_seen: tuple[float, float] | None = None  # (time, fraction) of the first estimate
        self._last_seen: float | None = None  # the last estimate asked for
        self.working_at: float | None = None  # the first progress of the work proper
        self.cancelled = False
        self._fraction = 0.0
        self._ticket: int | None = None
        self._readings: deque[tuple[float, float]] = deque(maxlen=120)  # (time, fraction), the pool's
        self._shown = False
        self._lock = threading.Lock()
        self._stop = StopSignal()
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._run, name=self.name, daemon=True)

    @property
    def kind(self) -> str:
        """What the pool learns durations by (jobs of one kind take alike per unit of work)."""
        return self.name

    def start(self):
        """Queue the job (it starts when the pool's rules give it a slot); returns the job.

        Raises
        ------
        QueueFull
            When its session already has as many jobs waiting as the pool allows (the job
            is not queued; :meth:`refuse` turns it into an ended job carrying the refusal).
        """
        self.pool.enqueue(self)
        self._thread.start()
        return self

    def refuse(self, error: QueueFull) -> "BackgroundJob":
        """End a job that was never queued, with ``error`` as what it raised (for a page
        that shows a job's error where its result would be); returns the job."""
        self.error = error
        self._done.set()
        return self

    def _work(self) -> None:  # pragma: no cover - subclasses implement it
        raise NotImplementedError

    def _run(self) -> None:
        try:
            if not self.pool.acquire(self):
                self.cancelled = True
                return
            try:
                self._work()
            except BaseException as exc:  # shown on the page as one sentence
                self.error = exc
            finally:
                ended = self.pool.clock()
                self.pool.release(self, ended - self.started_at)
                if self._last_seen is not None and not self._stop.is_set():
                    with _TAILS_LOCK:  # the time after the last progress, for the next estimate
                        _TAILS.setdefault(self.name, deque(maxlen=10)).append(ended - self._last_seen)
        except BaseException as exc:  # pragma: no cover - the pool itself failed
            self.error = exc
        finally:
            self._done.set()

    def stop(self, *, abandon: bool = False) -> None:
        """Ask the work to stop at its next check (what it did so far is kept); a waiting
        job leaves the line. ``abandon`` True keeps nothing: a child process is killed at
        once (nobody will read the result)."""
        if abandon:
            self._stop.abandon()
        else:
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

    def fraction_done(self) -> float | None:
        """The share of its work done (0 to 1) as its progress last said."""
        with self._lock:
            return self._fraction

    def queue_text(self) -> str:
        """'Waiting for a free worker: 2nd in line, about 40 s. ...' (or '' once started)."""
        pos, wait = self.pool.place(self)
        if pos == 0:
            return ""
        if not self._shown:
            self._shown = True
            log_event("shown", self, place=pos, wait=None if wait is None else round(wait, 2),
                      pool_state=self.pool.explain() if os.environ.get("PUX_JOB_LOG") else None)
        suffix = {1: "st", 2: "nd", 3: "rd"}.get(pos if pos < 20 else pos % 10, "th")
        about = f", about {wait:.0f} s" if wait is not None else ""
        own = self.pool.session_counts(self.session_id)[0] if self.session_id is not None else 0
        why = ("Your session's running job goes first: each session runs one job at a time, and sessions "
               "take turns." if own else "Sessions take turns, one running job each.")
        return (f"Waiting for a free worker: {pos}{suffix} in line{about}. {why} "
                f"({self.pool.slots} job(s) run at once on this server.)")

    def mark_working(self) -> None:
        """Say that the work proper has begun (its first progress): the time before it
        (starting a process, importing torch) is left out of the pace."""
        with self._lock:
            if self.working_at is None:
                self.working_at = self.pool.clock()

    def seconds_left(self, fraction: float, *, record: bool = True,
                     since: tuple[float, float] | None = None) -> float | None:
        """Seconds until the job ends, from the pace of its progress (None before it starts
        or at 0 or 1).

        The pace is measured from the first time the page asked (``fraction`` then) to now;
        until the progress has moved by 1 % it is the pace since the work began
        (:meth:`mark_working`, else the job's start). A pace taken from the job's start
        made a training's first estimates up to 20 times too long (its process starts for
        seconds before the first iteration). What jobs of this kind took after their last
        progress (drawing the sample, sending the model back) is added; before any has
        finished, half the start-up of this one. ``record`` False (the pool's forecast)
        asks without counting as the page's reading; ``since`` (time, fraction) of an
        earlier reading measures the pace from there instead (the pool's recent pace).
        ``benchmarks/bench_estimates.py`` measures each estimate against the real time left.
        """
        if self.started_at is None or not 0 < fraction < 1:
            return None
        now = self.pool.clock()
        with self._lock:
            first = self._first_seen
            if record:
                if first is None or fraction < first[1]:
                    self._first_seen = first = (now, fraction)
                self._last_seen = now
            began = self.working_at if self.working_at is not None else self.started_at
        if since is not None and fraction > since[1] and now > since[0]:
            pace = (now - since[0]) / (fraction - since[1])
        elif first is not None and fraction - first[1] >= 0.01 and now - first[0] >= 0.5:
            pace = (now - first[0]) / (fraction - first[1])
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


def _run_in_thread(fn: Callable[..., Any], kwargs: dict, *, on_message: Callable[[Any], None],
                   stop: threading.Event) -> Any:
    """The child's protocol in the caller's thread (``PUX_JOBS_IN_THREAD=1``, the test suite's
    page tests, which check a page's wiring, not the process it computes in): ``fn`` and its
    arguments, every message and the result are still pickled (what a child could not
    receive or send fails here too) and handed over as copies, as a child's would be. The child path has its own tests and the browser
    tests run it."""
    pickle.dumps((fn, kwargs))  # what a child could not receive fails here too
    fn_kwargs = copy.deepcopy(kwargs)  # a child works on copies: so does the thread

    def send(message: Any) -> None:
        pickle.dumps(message)
        on_message(copy.deepcopy(message))

    result = fn(send=send, stop=stop, **fn_kwargs)
    pickle.dumps(result)
    return copy.deepcopy(result)


def _kill_if_abandoned(stop: threading.Event, proc: subprocess.Popen) -> None:
    """Kill the child at once when its job was abandoned (:class:`StopSignal`): no result."""
    if getattr(stop, "abandoned", False):
        proc.kill()
        raise RuntimeError("the work was abandoned: its process was stopped")


def run_in_child(fn: Callable[..., Any], kwargs: dict, *, on_message: Callable[[Any], None],
                 stop: threading.Event, name: str = "pux-child") -> Any:
    """``fn(send, stop, **kwargs)`` in a child process; returns what it returns.

    CPU-heavy work runs there, not in a thread of the server: Python threads share one
    interpreter lock with the server's event loop, and a busy thread delays every page
    of every viewer. ``fn`` must be a module-level function and ``kwargs`` picklable.
    ``on_message`` receives what the child sends (progress); setting ``stop`` sets the
    event the child checks, and the child is killed if it does not end soon after; a
    :class:`StopSignal` that is abandoned kills it at once (``RuntimeError``: no result).
    The child is a fresh interpreter (:mod:`dashboard.shared.serving.child`) at the lowest priority, its
    numeric libraries limited to :data:`JOB_THREADS` threads, started ahead with its imports done
    when one is waiting (:mod:`dashboard.shared.serving.spare_child`).
    """
    if os.environ.get("PUX_JOBS_IN_THREAD") == "1":
        return _run_in_thread(fn, kwargs, on_message=on_message, stop=stop)
    return _run_in_process(fn, kwargs, on_message=on_message, stop=stop)


def _child_env() -> dict:
    """A job child's environment: this one, the server's import path, :data:`JOB_THREADS` threads."""
    path = [os.path.abspath(p) if p else os.getcwd() for p in sys.path]
    return dict(os.environ, PYTHONPATH=os.pathsep.join(path), **{v: str(JOB_THREADS) for v in _THREAD_VARS})


def prime_spare() -> None:
    """Have a job child started ahead (:mod:`dashboard.shared.serving.spare_child`), so that
    even the server's first job starts at once (the app calls it on every run; it does
    nothing while a spare waits, or when jobs run in threads)."""
    if os.environ.get("PUX_JOBS_IN_THREAD") != "1":
        SPARE.prime(_child_env())


def _run_in_process(fn: Callable[..., Any], kwargs: dict, *, on_message: Callable[[Any], None],
                    stop: threading.Event) -> Any:
    """:func:`run_in_child`'s child process: the pipes, the messages, Stop and the end."""
    child = SPARE.take(_child_env())  # started ahead when it can be: its imports are done
    proc = child.proc
    outbox, inbox = Connection(child.to_child, readable=False), Connection(child.from_child, writable=False)
    try:
        try:
            outbox.send_bytes(pickle.dumps((fn, kwargs)))
        except (BrokenPipeError, OSError):
            raise RuntimeError("the worker process ended without a result") from None
        told = False
        while True:
            _kill_if_abandoned(stop, proc)
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
        prime_spare()  # the next job's child, started now that this one's start is long past
