"""The pages' curves (repeated experiments) as session-owned jobs in the bounded pool.

A sweep is described by a :class:`Sweep`: a key naming its inputs, a module-level
function ``fn(progress, **kwargs)`` and its (picklable) keyword arguments. The job runs it
in a spawned child process (:func:`dashboard.shared.serving.jobs.run_in_child`), so a long curve
never holds the server's interpreter. :func:`sweep_or_job` returns the finished
result at once when any session computed the same inputs before (finished results are
immutable and shared through :data:`FINISHED`), and otherwise a :class:`SweepJob` that
this session owns: it waits for a slot in :data:`dashboard.shared.serving.jobs.POOL`, stops when
the session ends or the user presses Stop, and is replaced when the inputs change.

Setup steps (once per dataset and settings: feature selection and sensitivities, the
SSKM_DP map, IMPOSTER's detection) take the same path with their own store
(:data:`SETUPS`) and pool (:data:`dashboard.shared.serving.jobs.SETUP_POOL`), run in a thread of the
server (``in_process``: their results are large and they were computed in the script
thread before), and report progress with time left through :mod:`core.runtime.progress`.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any, Callable, Hashable

from core.runtime.progress import Progress
from dashboard.shared.serving import reattach
from dashboard.shared.serving.cache import BoundedCache
from dashboard.shared.serving.jobs import BackgroundJob, JobPool, run_in_child

__all__ = ["Sweep", "SweepJob", "FinishedResults", "FINISHED", "SETUPS", "sweep_or_job", "from_warm", "warmed",
           "write_through"]


@dataclass(frozen=True)
class Sweep:
    """One repeated experiment or setup step: ``fn(progress, **kwargs)`` returns its result
    (a summary table for the curves), which is shared read-only once finished.

    ``in_process`` runs it in a thread of the server instead of a child process (setup
    steps, tests, and work too short to pay for starting a process: about 2.5 s).
    ``partials`` passes ``partial=`` to ``fn``: a callable it hands what it has so far
    (results as they come, :attr:`SweepJob.partial`)."""

    key: Hashable
    fn: Callable[..., Any]
    kwargs: dict = field(default_factory=dict)
    title: str = "Sweeping"
    in_process: bool = False
    partials: bool = False

    def compute(self, progress: Progress, partial: Callable[[Any], None] | None = None) -> Any:
        if self.partials:
            return self.fn(progress, partial=partial or (lambda value: None), **self.kwargs)
        return self.fn(progress, **self.kwargs)


class FinishedResults:
    """Finished sweep results (``max_entries``, ``ttl`` seconds), shared read-only by every
    session: callers get a copy. A :class:`dashboard.shared.serving.cache.BoundedCache`.

    The optional disk layer is the warm start's cache
    (:class:`dashboard.shared.serving.warm_cache.WarmCache`), where this store's entries are
    named ``disk_name``: :meth:`load_warm` fills an entry from it (the server, for a built-in
    sample only: :func:`from_warm`), and while :func:`write_through` names a cache (in the
    warm-up process only) every finished result is written to it as well."""

    def __init__(self, max_entries: int = 32, ttl: float = 3600.0, *, disk_name: str | None = None) -> None:
        self.max_entries, self.ttl = int(max_entries), float(ttl)
        self._items = BoundedCache(self.max_entries, ttl=self.ttl)
        self.disk_name = disk_name

    def get(self, key: Hashable) -> Any | None:
        value = self._items.get(key)
        return None if value is None else _copy(value)

    def put(self, key: Hashable, value: Any) -> None:
        self._items.put(key, value)
        cache = _WRITE_THROUGH[0]
        if cache is not None and self.disk_name is not None:
            cache.put(self.disk_name, key, value)

    def load_warm(self, key: Hashable, cache: Any) -> bool:
        """Whether ``key`` is here, after filling it from the warm cache ``cache`` when it
        was not (and ``cache`` holds it under this store's ``disk_name``)."""
        if key in self._items:
            return True
        if cache is None or self.disk_name is None:
            return False
        value = cache.get(self.disk_name, key)
        if value is None:
            return False
        self._items.put(key, value)
        return True

    def items(self) -> list[tuple[Hashable, Any]]:
        """A snapshot of the (key, result) pairs (shared: not to be changed)."""
        return self._items.items()

    def __contains__(self, key: Hashable) -> bool:
        return key in self._items

    def clear(self) -> None:
        self._items.clear()


#: the warm cache every store with a ``disk_name`` also writes to (:func:`write_through`)
_WRITE_THROUGH: list[Any] = [None]


def write_through(cache: Any) -> None:
    """Make every :class:`FinishedResults` with a ``disk_name`` also write its finished
    results to ``cache`` (a :class:`~dashboard.shared.serving.warm_cache.WarmCache`; None
    stops it). Only the warm-up process calls it: the server never writes the warm cache."""
    _WRITE_THROUGH[0] = cache


def _copy(value: Any) -> Any:
    """A copy of a table (callers may change it); other results are shared read-only."""
    return value.copy() if hasattr(value, "copy") else value


FINISHED = FinishedResults(disk_name="finished")
#: finished setup steps (large: few entries)
SETUPS = FinishedResults(max_entries=8, disk_name="setups")


def from_warm(sweep: Sweep, *, builtin: bool) -> Sweep:
    """``sweep``, after its finished result was brought from the warm start's disk cache
    into :data:`SETUPS` or :data:`FINISHED` (where :func:`sweep_or_job` finds it) when the
    warm-up computed it. Only for a table loaded as a built-in sample (``builtin``: decided
    from how the session loaded it, never from its content); never for an upload."""
    if not builtin:
        return sweep
    from dashboard.shared.serving.warm_cache import server_cache

    cache = server_cache()
    if cache is not None and sweep.key not in SETUPS and sweep.key not in FINISHED:
        SETUPS.load_warm(sweep.key, cache) or FINISHED.load_warm(sweep.key, cache)
    return sweep


def warmed(builder: Callable[..., Sweep]) -> Callable[..., Sweep]:
    """Decorator for a cached layer's function that describes a :class:`Sweep`: the sweep
    it returns is first looked up in the warm start's cache (:func:`from_warm`) when the
    session's table is a built-in sample (:func:`dashboard.shared.serving.state.builtin_sample_in_use`)."""

    @functools.wraps(builder)
    def wrapper(*args: Any, **kwargs: Any) -> Sweep:
        sweep = builder(*args, **kwargs)
        from dashboard.shared.serving.warm_cache import enabled

        if not enabled():
            return sweep
        from dashboard.shared.serving.state import builtin_sample_in_use

        return from_warm(sweep, builtin=builtin_sample_in_use())

    return wrapper


class _Stopped(Exception):
    """Raised from the progress callback when the job was asked to stop."""


#: the first item of a message that carries a partial result (progress messages are (fraction, text))
PARTIAL = "partial"


def _in_child(*, send, stop, fn, kwargs, partials: bool = False):
    """The sweep in the child process: progress (and partial results) go back as messages,
    Stop ends it."""

    def progress(fraction: float, message: str) -> None:
        if stop.is_set():
            raise _Stopped
        send((float(fraction), str(message)))

    if partials:
        return fn(progress, partial=lambda value: send((PARTIAL, value)), **kwargs)
    return fn(progress, **kwargs)


class SweepJob(BackgroundJob):
    """A sweep in the pool: progress with time left, Stop between runs."""

    name = "sweep"

    def __init__(self, sweep: Sweep, *, results: FinishedResults | None = None,
                 pool: JobPool | None = None) -> None:
        super().__init__(pool=pool)
        self.sweep = sweep
        self.key = sweep.key
        self.result: Any = None
        self._results = FINISHED if results is None else results
        self._fraction, self._message = 0.0, "starting"
        #: what the sweep has handed over so far (``Sweep.partials``), None before
        self.partial: Any = None

    @property
    def kind(self) -> str:
        """Sweeps of one title take alike: the pool learns their durations apart from other
        sweeps' (a CDP-LR curve takes seconds, IMPOSTER's Table 1 a minute)."""
        return f"{self.name}: {self.sweep.title}"

    def _report(self, fraction: float, message: str) -> None:
        if self._stop.is_set():
            raise _Stopped
        with self._lock:
            self._fraction, self._message = float(fraction), str(message)

    def _message_in(self, message: tuple) -> None:
        """A message from the work: a partial result, or (fraction, text) of progress."""
        if message and message[0] == PARTIAL:
            with self._lock:
                self.partial = message[1]
        else:
            self._report(*message)

    def _work(self) -> None:
        done = self._results.get(self.key)  # another session finished it while this one waited
        if done is not None:
            self.result = done
            return
        try:
            if self.sweep.in_process:
                result = self.sweep.compute(self._report, partial=lambda v: self._message_in((PARTIAL, v)))
            else:
                result = run_in_child(_in_child, dict(fn=self.sweep.fn, kwargs=self.sweep.kwargs,
                                                      partials=self.sweep.partials),
                                      on_message=self._message_in, stop=self._stop, name=self.name)
        except _Stopped:
            self.cancelled = True
            return
        if self._stop.is_set():
            self.cancelled = True
            return
        self._results.put(self.key, result)
        self.result = result

    def progress(self) -> tuple[float, str]:
        """(fraction done, 'title: run 3 of 50, about 12 s left')."""
        with self._lock:
            fraction, message = self._fraction, self._message
        text = f"{self.sweep.title}: {message}{self.time_left(fraction)}"
        return fraction, text


def sweep_or_job(jobs: dict, slot: str, sweep: Sweep, *, restart: bool = False,
                 results: FinishedResults | None = None,
                 pool: JobPool | None = None) -> tuple[Any, SweepJob | None]:
    """The finished result of ``sweep``, or the session's job that computes it (after a
    reload, the job this browser's closed tab left running: :mod:`dashboard.shared.serving.reattach`).

    Parameters
    ----------
    jobs : dict
        The session's jobs by slot (kept in ``st.session_state``): never shared.
    slot : str
        One slot per curve on a page; a new key stops the slot's old job.
    restart : bool
        Start again after the user stopped the job.
    results, pool : optional
        Where finished results are kept (default :data:`FINISHED`) and the pool the job
        waits in (default :data:`dashboard.shared.serving.jobs.POOL`).

    Returns
    -------
    (result, None) when finished (now or before), else (None, job).

    Raises
    ------
    dashboard.shared.serving.jobs.QueueFull
        When a new job is needed and the session already has as many jobs waiting in the
        pool as it allows (:func:`dashboard.shared.widgets.job_view.refused_view` says so on the page).
    """
    results = FINISHED if results is None else results
    job = jobs.get(slot)
    if job is not None and job.key != sweep.key:  # the inputs changed: its work is not wanted
        job.stop(abandon=True)
        jobs.pop(slot)
        job = None
    hit = results.get(sweep.key)
    if hit is not None:
        return hit, None
    if job is None:  # a reload of this browser finds the job its tab left running
        job = reattach.claim(("sweep", slot, sweep.key))
        if job is not None:
            jobs[slot] = job
    if job is not None and job.result is not None:
        return _copy(job.result), None  # finished but evicted from the shared cache
    if job is None or (restart and not job.running):
        job = jobs[slot] = SweepJob(sweep, results=results, pool=pool).start()
        reattach.keep(("sweep", slot, sweep.key), job)
    return None, job
