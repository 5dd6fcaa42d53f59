"""The job pool: bounded slots shared fairly between sessions, a watchdog, and forecast waits.

:class:`JobPool` holds the line of :class:`dashboard.shared.serving.jobs.BackgroundJob` s. Its rules
(docs/serving.md says what they do under load):

- **One running job per session.** A session's second job waits while its first runs, even
  when a slot is free: jobs cannot be paused, so a slot lent to a session's second job could
  not be handed back to a session that arrives a moment later (it would wait for a whole
  job, minutes for a long training). A slot may stay idle while one session alone has
  several jobs; that is the price of the bound on everyone else's wait.
- **Sessions take turns (round robin).** When a slot frees, the next job is the oldest
  waiting job of the session that started a job least recently (a session that never
  started one goes first; ties by arrival). Within a session, jobs start in the order they
  were asked for.
- **A bounded line per session.** A pool may refuse a session's job when that session
  already has ``max_waiting`` jobs waiting (:class:`QueueFull`); the page says why.
- Jobs without a session (the command line, tests) are each their own session, unlimited.
- **Gone tabs let go.** A job whose session is gone for the grace period is abandoned
  (:mod:`dashboard.shared.serving.job_watch`), sooner while other jobs wait for a slot.

:func:`pick` chooses (pure, on plain records); :func:`forecast` replays the same rule
forward with each job's expected duration, so the wait a page shows follows the order the
jobs will really start in (as long as no new session arrives: a newcomer's first job goes
before the next job of a session that has had its turn, by design).
"""
from __future__ import annotations

import heapq
import itertools
import json
import os
import threading
import time
import weakref
from collections import Counter, deque
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Callable, Protocol

from dashboard.shared.serving.job_watch import CROWDED_GRACE_S, GRACE_S, GoneSessions, session_alive

__all__ = ["JobPool", "PoolJob", "Waiting", "Running", "QueueFull", "pick", "forecast", "log_event"]


class PoolJob(Protocol):
    """What the pool reads and sets on a job: :class:`dashboard.shared.serving.jobs.BackgroundJob`
    is one (named here by its shape: that module imports this one)."""

    session_id: str | None
    pool: Any
    work_units: float
    started_at: float | None
    working_at: float | None
    error: BaseException | None
    _ticket: int | None
    _stop: threading.Event
    _readings: deque

    @property
    def kind(self) -> str: ...

    @property
    def running(self) -> bool: ...

    def fraction_done(self) -> float | None: ...

    def seconds_left(self, fraction: float, *, record: bool = True,
                     since: tuple[float, float] | None = None) -> float | None: ...

    def stop(self, *, abandon: bool = False) -> None: ...


class QueueFull(ValueError):
    """A job refused because its session already has ``limit`` jobs waiting.

    A ValueError, so every page shows it as one readable sentence (the rule in words).

    Attributes
    ----------
    waiting : int
        How many jobs of the session wait now.
    limit : int
        The most jobs one session may have waiting in this pool.
    reason : str
        The first sentence of the message (without what to do next).
    """

    def __init__(self, waiting: int, limit: int) -> None:
        self.waiting, self.limit = int(waiting), int(limit)
        #: the refusal and its rule in one sentence (the message adds what to do)
        self.reason = (f"Not queued: this session already has {self.waiting} job(s) waiting for a worker, "
                       f"the most one session may have waiting ({self.limit}), so that other viewers get "
                       "their turn.")
        super().__init__(f"{self.reason} Ask again once one of them has started or been stopped.")


@dataclass(frozen=True)
class Waiting:
    """A waiting job as the rule sees it.

    Attributes
    ----------
    key : hashable
        The job (or any name for it).
    owner : hashable
        Its session.
    ticket : int
        Its place in the order of arrival (smaller came first).
    seconds : float or None
        How long it is expected to run once started (None: not known).
    """

    key: Hashable
    owner: Hashable
    ticket: int
    seconds: float | None = None


@dataclass(frozen=True)
class Running:
    """A running job: its session and the seconds it has left (None: not known)."""

    owner: Hashable
    left: float | None = None


def pick(waiting: Sequence[Waiting], busy: Mapping[Hashable, int], last_start: Mapping[Hashable, int],
         *, per_session: int = 1) -> Waiting | None:
    """The job to start now (None when every waiting job's session is at its limit).

    Parameters
    ----------
    waiting : sequence of Waiting
        The jobs in line.
    busy : mapping
        Running jobs per session.
    last_start : mapping
        Per session, the number of the last start it had (higher = more recent; a session
        absent from it never started a job and goes first).
    per_session : int
        The most jobs of one session that run at once.
    """
    best, best_rank = None, None
    for job in waiting:
        if busy.get(job.owner, 0) >= per_session:
            continue
        rank = (last_start.get(job.owner, -1), job.ticket)
        if best_rank is None or rank < best_rank:
            best, best_rank = job, rank
    return best


def forecast(waiting: Sequence[Waiting], running: Sequence[Running], last_start: Mapping[Hashable, int],
             *, slots: int, per_session: int = 1) -> list[tuple[Hashable, float | None]]:
    """Every waiting job in the order it will start, with the seconds until it starts.

    The rule of :func:`pick` replayed forward: each running job ends after its ``left``
    seconds, each started job after its ``seconds``; when a slot frees the next job is
    picked as the pool will pick it. Assumes no new job arrives and none is stopped.

    Returns
    -------
    list of (key, seconds or None)
        In start order. The seconds are None from the first point where an unknown duration
        decides them (the order is still the pool's, taking unknown durations as zero).
    """
    ends: list[tuple[float, int, Hashable, bool]] = []  # (time, tie-break, owner, uncertain)
    busy: dict[Hashable, int] = {}
    for i, job in enumerate(running):
        heapq.heappush(ends, (0.0 if job.left is None else max(float(job.left), 0.0), i, job.owner,
                              job.left is None))
        busy[job.owner] = busy.get(job.owner, 0) + 1
    line, last, counter = list(waiting), dict(last_start), max(last_start.values(), default=0)
    order: list[tuple[Hashable, float | None]] = []
    now, unsure, tie = 0.0, False, len(running)
    while line:
        while len(ends) < slots:
            nxt = pick(line, busy, last, per_session=per_session)
            if nxt is None:
                break
            line.remove(nxt)
            counter += 1
            last[nxt.owner] = counter
            busy[nxt.owner] = busy.get(nxt.owner, 0) + 1
            order.append((nxt.key, None if unsure else now))
            tie += 1
            heapq.heappush(ends, (now + (nxt.seconds or 0.0), tie, nxt.owner, unsure or nxt.seconds is None))
        if not line or not ends:
            break
        now, _, owner, uncertain = heapq.heappop(ends)
        unsure = unsure or uncertain
        busy[owner] -= 1
    return order


def _owner(job: PoolJob) -> Hashable:
    """The session a job counts against; a job without one is its own."""
    return ("no session", id(job)) if job.session_id is None else job.session_id


_LOG_LOCK = threading.Lock()


def log_event(event: str, job: PoolJob, **extra: Any) -> None:
    """One line in ``PUX_JOB_LOG`` when it is set (the load benchmark reads it)."""
    path = os.environ.get("PUX_JOB_LOG")
    if not path:
        return
    line = json.dumps({"t": time.time(), "event": event, "job": id(job), "kind": job.kind,
                       "pool": job.pool.name, "session": job.session_id, **extra})
    with _LOG_LOCK, open(path, "a", encoding="utf-8") as out:
        out.write(line + "\n")


#: seconds of a running job's progress readings its recent pace is taken over
_WINDOW_S = 30.0


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 1)


def _mean(values) -> float:
    return sum(values) / len(values)


class JobPool:
    """Slots for background jobs, shared fairly between sessions, with a session watchdog.

    Parameters
    ----------
    slots : int
        How many jobs run at once.
    watch_every : float
        Seconds between the watchdog's looks at the sessions.
    max_waiting : int or None
        The most jobs one session may have waiting (None: no limit). A further job is
        refused with :class:`QueueFull` (jobs without a session are never refused).
    clock : callable
        Monotonic seconds (tests pass a fake one).
    name : str
        What the job log calls the pool.
    grace_s : float
        Seconds a job's session may be gone (a blip) before the job is abandoned (killed).
    """

    def __init__(self, slots: int, *, watch_every: float = 2.0, max_waiting: int | None = None,
                 clock: Callable[[], float] = time.monotonic, name: str = "jobs", grace_s: float = GRACE_S) -> None:
        self.slots = int(slots)
        self._gone = GoneSessions(grace_s, clock=clock, alive=lambda sid: session_alive(sid))
        self.name = str(name)
        self.max_waiting = None if max_waiting is None else int(max_waiting)
        self.clock = clock
        self._cond = threading.Condition()
        self._waiting: list[PoolJob] = []
        self._running: set[PoolJob] = set()
        self._last_start: dict[Hashable, int] = {}  # per session, the number of its last start
        self._starts = 0
        self._tickets = itertools.count()
        self._durations: dict[str, deque[float]] = {}  # seconds of finished jobs, per kind
        self._paces: dict[str, deque[tuple[float, float]]] = {}  # (start-up s, s per unit of work)
        self._watch_every = watch_every
        self._watcher: threading.Thread | None = None
        self._started: "weakref.WeakSet[PoolJob]" = weakref.WeakSet()

    # ------------------------------------------------------------ the line
    def enqueue(self, job: PoolJob) -> None:
        """Put ``job`` in line (:meth:`BackgroundJob.start` does).

        Raises
        ------
        QueueFull
            When its session already has ``max_waiting`` jobs waiting here.
        """
        with self._cond:
            if self.max_waiting is not None and job.session_id is not None:
                mine = self._waiting_of(job.session_id)
                if mine >= self.max_waiting:
                    log_event("refused", job, waiting=mine)
                    raise QueueFull(mine, self.max_waiting)
            self._admit(job)
        self._ensure_watcher()

    def _admit(self, job: PoolJob) -> None:
        job._ticket = next(self._tickets)
        self._waiting.append(job)
        self._started.add(job)
        log_event("queued", job, units=job.work_units)
        self._dispatch()

    def _waiting_of(self, session_id: Hashable) -> int:
        return sum(1 for j in self._waiting if _owner(j) == session_id and not j._stop.is_set())

    def _dispatch(self) -> None:
        """Start every job the rules allow now (under the lock, at each arrival, end and
        stop): a job that waits is one that really has to wait. The waiting threads are
        woken only when a job started or was stopped here: waking them on every look made
        them wake each other in turn, a core busy doing nothing (measured under load)."""
        changed = False
        while len(self._running) < self.slots:
            job = self._next()
            if job is None:
                break
            changed = True
            if not session_alive(job.session_id):  # its viewer left while it waited
                job._stop.set()
                continue
            self._begin(job)
        if changed:
            self._cond.notify_all()

    def acquire(self, job: PoolJob) -> bool:
        """Wait for the job's turn; False when it was stopped while it waited."""
        self._ensure_watcher()
        with self._cond:
            if job._ticket is None:  # not queued through start()
                self._admit(job)
            while job not in self._running:
                if job._stop.is_set():
                    self._waiting.remove(job)
                    log_event("left", job)
                    self._dispatch()
                    return False
                self._cond.wait(timeout=0.5)
                self._dispatch()
            return True

    def _next(self) -> PoolJob | None:
        busy = Counter(_owner(j) for j in self._running)
        chosen = pick(self._line(known=False), busy, self._last_start)
        return None if chosen is None else chosen.key

    def _line(self, *, known: bool) -> list[Waiting]:
        """The waiting jobs as the rule sees them (``known``: with their expected seconds)."""
        return [Waiting(j, _owner(j), j._ticket, self._expected_seconds(j) if known else None)
                for j in self._waiting if not j._stop.is_set()]

    def _begin(self, job: PoolJob) -> None:
        self._waiting.remove(job)
        self._running.add(job)
        self._starts += 1
        self._last_start[_owner(job)] = self._starts
        if len(self._last_start) > 1024:  # forget the sessions that had their turn longest ago
            present = {_owner(j) for j in self._waiting} | {_owner(j) for j in self._running}
            for owner, _ in sorted(self._last_start.items(), key=lambda kv: kv[1])[:512]:
                if owner not in present:
                    del self._last_start[owner]
        job.started_at = self.clock()
        log_event("started", job)

    def release(self, job: PoolJob, seconds: float) -> None:
        """The job ended after ``seconds``; what it took teaches the next estimates."""
        with self._cond:
            self._running.discard(job)
            log_event("ended", job, seconds=round(seconds, 3), stopped=job._stop.is_set())  # before the next starts
            if not job._stop.is_set() and job.error is None:
                startup = 0.0 if job.working_at is None else max(job.working_at - job.started_at, 0.0)
                self.learn(job.kind, seconds, startup=startup, units=job.work_units)
            self._dispatch()

    def learn(self, kind: str, seconds: float, *, startup: float = 0.0, units: float = 1.0) -> None:
        """Remember that a job of ``kind`` with ``units`` of work took ``seconds``, the first
        ``startup`` of them before its work proper began (the last 20 per kind are kept)."""
        with self._cond:
            self._durations.setdefault(kind, deque(maxlen=20)).append(float(seconds))
            rate = max(float(seconds) - startup, 0.0) / max(float(units), 1e-9)
            self._paces.setdefault(kind, deque(maxlen=20)).append((float(startup), rate))

    def wake(self) -> None:
        """Look at the line again (a job was stopped, a session may have ended): a stopped
        waiting job's thread wakes and leaves the line."""
        with self._cond:
            self._dispatch()
            self._cond.notify_all()

    # ------------------------------------------------------------ place and wait
    def _expected_seconds(self, job: PoolJob) -> float | None:
        """How long ``job`` should run: start-up plus seconds per unit of work times its
        units, from the last three finished jobs of its kind; for a kind not seen yet, the
        mean duration over the kinds seen; None when no job has finished."""
        paces = list(self._paces.get(job.kind, ()))[-3:]  # the latest: the machine's pace now
        if paces:
            return _mean([p[0] for p in paces]) + _mean([p[1] for p in paces]) * float(job.work_units)
        means = [_mean(d) for d in self._durations.values() if d]
        return _mean(means) if means else None

    def _left(self, job: PoolJob, now: float) -> float | None:
        """Seconds a running job has left: from the pace of its progress over the last
        half minute of this pool's readings (a machine that got busier or quieter shows at
        once), else from its pace since the page first asked once it has done 2 %
        (:meth:`BackgroundJob.seconds_left`), else from its expected duration less the time
        spent; a job near or past its expected duration is given a fifth of the time it
        has spent (it still needs a while, and more the longer it overruns)."""
        fraction = job.fraction_done()
        if fraction is not None and 0 < fraction < 1:
            readings = job._readings
            if not readings or readings[-1][1] != fraction:
                readings.append((now, fraction))
            recent = next((r for r in readings if now - r[0] <= _WINDOW_S), None)
            if recent is not None and fraction - recent[1] >= 0.005 and now - recent[0] >= 2.0:
                return job.seconds_left(fraction, record=False, since=recent)
            if fraction >= 0.02:
                left = job.seconds_left(fraction, record=False)
                if left is not None:
                    return left
        expected = self._expected_seconds(job)
        if expected is None or job.started_at is None:
            return None
        spent = now - job.started_at
        return max(expected - spent, 0.2 * spent, 0.1 * expected)

    def forecast(self) -> list[tuple[PoolJob, float | None]]:
        """Every waiting job in the order the pool will start it, with the seconds until it
        starts (:func:`forecast`; None where no estimate)."""
        with self._cond:
            now = self.clock()
            running = [Running(_owner(j), self._left(j, now)) for j in self._running]
            return forecast(self._line(known=True), running, self._last_start, slots=self.slots)

    def explain(self) -> dict:
        """What the forecast goes on now: each running job's kind and seconds left, each
        waiting job's kind and expected seconds (None: not known); for the job log."""
        with self._cond:
            now = self.clock()
            return {"running": [(j.kind, _round(self._left(j, now))) for j in self._running],
                    "waiting": [(j.kind, _round(self._expected_seconds(j))) for j in self._waiting]}

    def place(self, job: PoolJob) -> tuple[int, float | None]:
        """(place, seconds): 1 for the next job to start, 2 for the one after...; 0 and 0.0
        when ``job`` is not waiting; seconds None when there is nothing to go on."""
        for i, (key, wait) in enumerate(self.forecast()):
            if key is job:
                return i + 1, wait
        return 0, 0.0

    def position(self, job: PoolJob) -> int:
        """1 for the next job to start, 2 for the one after, ...; 0 when not waiting."""
        return self.place(job)[0]

    def expected_wait(self, job: PoolJob) -> float | None:
        """Seconds until ``job`` starts, the rules replayed forward (:meth:`forecast`): the
        running jobs' time left and the jobs that will really start before it, each at its
        expected duration. 0.0 when it is not waiting; None with nothing to go on."""
        return self.place(job)[1]

    def counts(self) -> tuple[int, int]:
        """(running, waiting)."""
        with self._cond:
            return len(self._running), len(self._waiting)

    def session_counts(self, session_id: str | None) -> tuple[int, int]:
        """(running, waiting) jobs of one session (stopped ones leaving the line not counted)."""
        with self._cond:
            return (sum(1 for j in self._running if j.session_id == session_id),
                    sum(1 for j in self._waiting if j.session_id == session_id and not j._stop.is_set()))

    def has_room(self, session_id: str | None) -> bool:
        """True when a job of this session would be queued (not refused) now."""
        if self.max_waiting is None or session_id is None:
            return True
        return self.session_counts(session_id)[1] < self.max_waiting

    def stop_all(self, timeout: float = 30.0, *, abandon: bool = False) -> None:
        """Stop every job started on this pool that has not ended, and wait for them (server
        shutdown, tests); a job whose thread has not reached the queue yet is included.
        ``abandon`` True keeps nothing of their work (child processes are killed at once)."""
        with self._cond:
            jobs = [job for job in self._started if job.running]
        for job in jobs:
            job.stop(abandon=abandon)
        for job in jobs:
            job.wait(timeout)

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
                crowded = bool(self._waiting) and len(self._running) >= self.slots
            # gone past the grace period: abandoned (sooner while others wait for a slot)
            for job in self._gone.due(jobs, grace_s=CROWDED_GRACE_S if crowded else None):
                job.stop(abandon=True)
            if jobs:
                self.wake()
