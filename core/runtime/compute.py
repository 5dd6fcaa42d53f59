"""Where the work runs: in this process, or on a Dask cluster.

This module alone decides. Every sweep, audit, comparison, reproduction and blocked
correlation sum that can run in parallel hands its independent tasks to
:func:`map_tasks`, which runs them

- in this process, one after another, when no scheduler is configured (the default: no
  setup, and progress reports from inside each task);
- on a Dask cluster of worker processes on this machine for ``"local"`` or
  ``"local:N"`` (N workers, default one per core), started once per process and reused;
- on a running Dask cluster for an address such as ``"tcp://host:8786"``.

The scheduler comes from the ``scheduler`` argument (the ``--scheduler`` option of every
``pux`` command that computes), else the environment variable ``PUX_SCHEDULER``.

Results never depend on where they ran: callers draw every seed up front (one per task,
from the run's one generator) and every task is a pure function of its inputs, so a run
gives the same numbers bit for bit in this process and on any cluster. Large inputs that
every task reads (a data matrix) go in ``shared``: they are sent to the workers once
(``Client.scatter(..., broadcast=True)``), not once per task. Workers need this project
installed (``pip install -e .``): tasks are functions of :mod:`core`, pickled by
reference.
"""
from __future__ import annotations

import itertools
import logging
import math
import os
import re
import sys
import threading
import uuid
from typing import Any, Callable, Iterable, Sequence

from core.runtime.progress import Progress, Stop, report, stage, watch

__all__ = [
    "SCHEDULER_ENV",
    "CONNECT_TIMEOUT",
    "ComputeError",
    "resolve_scheduler",
    "scheduler_for",
    "describe_scheduler",
    "get_client",
    "close_clients",
    "in_dask_task",
    "default_workers",
    "map_tasks",
]

#: The environment variable naming the scheduler ("local", "local:N" or an address).
SCHEDULER_ENV = "PUX_SCHEDULER"
#: Seconds to wait for a scheduler to answer (and for it to have a worker) before giving up.
CONNECT_TIMEOUT = 10.0
_LOCAL = re.compile(r"^local(?::(\d+))?$")
_CLIENTS: dict[str, Any] = {}
_LOCK = threading.Lock()


class ComputeError(RuntimeError):
    """The configured cluster cannot be used; the message says why and what to do, in one sentence."""


def resolve_scheduler(scheduler: str | None = None) -> str | None:
    """The scheduler to use: ``scheduler`` if given, else ``$PUX_SCHEDULER``; None for this process.

    Parameters
    ----------
    scheduler : str, optional
        ``""`` or ``"none"`` (this process), ``"local"``, ``"local:N"`` or a Dask scheduler
        address (``tcp://host:8786``, ``tls://...``). None reads ``PUX_SCHEDULER``.

    Returns
    -------
    str or None
        ``"local:N"`` with N filled in, an address, or None.

    Raises
    ------
    TypeError
        ``scheduler`` is not a str or None.
    ValueError
        It is none of the forms above.
    """
    if scheduler is None:
        scheduler = os.environ.get(SCHEDULER_ENV, "")
    elif not isinstance(scheduler, str):
        raise TypeError(f"scheduler must be a str or None, got {type(scheduler).__name__}.")
    value = scheduler.strip()
    if value.lower() in ("", "none"):
        return None
    match = _LOCAL.match(value)
    if match:
        workers = int(match.group(1)) if match.group(1) else (os.cpu_count() or 1)
        if workers < 1:
            raise ValueError(f"'local:N' needs N >= 1 workers, got {value!r}.")
        return f"local:{workers}"
    if "://" not in value:
        raise ValueError(
            f"The scheduler must be 'local', 'local:N' or a Dask scheduler address such as "
            f"tcp://host:8786, got {value!r} (from {'the argument' if scheduler else SCHEDULER_ENV})."
        )
    return value


def scheduler_for(scheduler: str | None = None, *, n_jobs: int = 1) -> str:
    """The scheduler of a run that takes both ``scheduler`` and ``n_jobs``.

    A configured scheduler (the argument, else ``$PUX_SCHEDULER``) wins; otherwise
    ``n_jobs`` local worker processes (``"local:N"``; negative counts back from all
    cores: -1 is every core), or ``""`` (this process) for 1.
    """
    configured = resolve_scheduler(scheduler)
    if configured is not None:
        return configured
    jobs = int(n_jobs)
    if jobs < 0:
        jobs = max(1, (os.cpu_count() or 1) + 1 + jobs)
    return "" if jobs <= 1 else f"local:{jobs}"


def describe_scheduler(scheduler: str | None = None) -> str:
    """Where :func:`map_tasks` would run now, in words (for pages and command lines)."""
    address = resolve_scheduler(scheduler)
    if address is None:
        return "this process (set PUX_SCHEDULER to use a Dask cluster)"
    if address.startswith("local:"):
        return f"a Dask cluster of {address.split(':')[1]} worker processes on this machine"
    return f"the Dask cluster at {address}"


def _connect(address: str):
    from distributed import Client, LocalCluster

    if address.startswith("local:"):
        cluster = LocalCluster(n_workers=int(address.split(":")[1]), threads_per_worker=1, processes=True,
                               dashboard_address=":0", silence_logs=logging.ERROR)
        return Client(cluster, set_as_default=False)
    try:
        client = Client(address, timeout=CONNECT_TIMEOUT, set_as_default=False)
    except (OSError, TimeoutError) as exc:
        raise ComputeError(
            f"No Dask scheduler answered at {address} within {CONNECT_TIMEOUT:g} s: start one with "
            f"`dask scheduler` and workers with `dask worker {address}`, or leave the scheduler unset "
            f"(no --scheduler, no {SCHEDULER_ENV}) to run in this process."
        ) from exc
    try:
        client.wait_for_workers(1, timeout=CONNECT_TIMEOUT)
    except (OSError, TimeoutError) as exc:
        client.close()
        raise ComputeError(
            f"The Dask scheduler at {address} has no workers after {CONNECT_TIMEOUT:g} s: start some "
            f"with `dask worker {address}`."
        ) from exc
    return client


def in_dask_task() -> bool:
    """True inside a task on a Dask worker: work started there runs in that worker (sending
    it to the cluster again could wait forever for the worker it occupies)."""
    if "distributed" not in sys.modules:
        return False
    try:
        sys.modules["distributed"].get_worker()
    except (ValueError, AttributeError):
        return False
    return True


def get_client(scheduler: str | None = None):
    """The Dask client of ``scheduler`` (see :func:`resolve_scheduler`), connected once per
    process and reused; None when the work runs in this process (no scheduler, or inside a
    task on a Dask worker: see :func:`in_dask_task`).

    Raises
    ------
    ComputeError
        No scheduler answers at the address, or it has no workers, within
        :data:`CONNECT_TIMEOUT` seconds.
    """
    address = resolve_scheduler(scheduler)
    if address is None or in_dask_task():
        return None
    with _LOCK:
        client = _CLIENTS.get(address)
        if client is None or client.status not in ("running", "connecting"):
            client = _CLIENTS[address] = _connect(address)
        return client


def close_clients() -> None:
    """Close every client (and local cluster) this process opened."""
    with _LOCK:
        for client in _CLIENTS.values():
            cluster = getattr(client, "cluster", None)
            client.close()
            if cluster is not None:
                cluster.close()
        _CLIENTS.clear()


_RESUBMITS = 2  # times the unfinished tasks are resubmitted after their inputs were lost


def map_tasks(
    fn: Callable[..., Any],
    items: Iterable[Any],
    *,
    shared: Sequence[Any] = (),
    scheduler: str | None = None,
    progress: Progress | None = None,
    stop: Stop | None = None,
    task_progress: bool = False,
    weights: Sequence[float] | None = None,
    label: str = "task",
    describe: Callable[[Any], str] | None = None,
    on_result: Callable[[int, Any], None] | None = None,
    keep_results: bool = True,
) -> list:
    """``[fn(item, *shared) for item in items]``, here or on the cluster, in the order of ``items``.

    Parameters
    ----------
    fn : callable
        A pure function of its arguments (every seed it draws with is in ``item``). On a
        cluster it is pickled (cloudpickle): module-level functions of :mod:`core` travel
        by reference.
    items : iterable
        One task each.
    shared : sequence
        Inputs every task reads, passed after ``item``: scattered to every worker once.
    scheduler : str, optional
        See :func:`resolve_scheduler` (default ``$PUX_SCHEDULER``, else this process).
    progress : callable(fraction, message), optional
        Called after each task; raising from it stops the work (on a cluster, the tasks
        not finished are cancelled) and the exception propagates.
    stop : threading.Event, optional
        When set, the work ends at its next progress report and raises
        :class:`core.runtime.progress.Stopped`.
    task_progress : bool
        Pass ``progress=`` to ``fn``: in this process a stage of ``progress`` (each task
        reports from inside), on a cluster None.
    weights : sequence of float, optional
        Relative cost of each task (default equal), so progress moves evenly.
    label : str
        What a task is, in progress messages ("release 3 of 12 done").
    describe : callable(item) -> str, optional
        The prefix of a task's own progress messages (with ``task_progress``).
    on_result : callable(index, result), optional
        Told each result as its task finishes (before ``progress``), so a caller that stops
        the work keeps what was done, or reduces results as they come.
    keep_results : bool
        False: results are only handed to ``on_result`` and then dropped (the list returned
        holds None), so a caller that reduces them holds one at a time, not all of them.

    Returns
    -------
    list
        ``fn``'s results, in the order of ``items``.

    Raises
    ------
    ComputeError
        The cluster cannot be reached (see :func:`get_client`).
    Exception
        The first exception a task raised, as it was raised.
    """
    progress = watch(progress, stop)
    todo = list(items)
    cost = [1.0] * len(todo) if weights is None else [float(w) for w in weights]
    if len(cost) != len(todo) or any(not math.isfinite(w) or w < 0 for w in cost):
        raise ValueError("weights must give one finite cost >= 0 per item.")
    running = list(itertools.accumulate(cost))
    ends = [c / (running[-1] or 1.0) for c in running]
    client = get_client(scheduler)
    if client is None:
        out = []
        for i, item in enumerate(todo):
            kwargs = {}
            if task_progress:
                kwargs["progress"] = stage(progress, ends[i - 1] if i else 0.0, ends[i],
                                           describe(item) if describe is not None else "")
            result = fn(item, *shared, **kwargs)
            if on_result is not None:
                on_result(i, result)
            out.append(result if keep_results else None)
            report(progress, ends[i], f"{label} {i + 1} of {len(todo)} done")
        return out
    return _map_on_cluster(client, fn, todo, shared, progress, task_progress, label, cost, on_result,
                           keep_results)


def _map_on_cluster(client, fn, todo, shared, progress, task_progress, label, cost, on_result,
                    keep_results) -> list:
    from distributed import as_completed
    from distributed.client import FutureCancelledError

    run = uuid.uuid4().hex[:8]
    kwargs = {"progress": None} if task_progress else {}
    out: list = [None] * len(todo)
    total, finished, seen = math.fsum(cost) or 1.0, 0.0, set()
    for attempt in range(_RESUBMITS + 1):
        # When every worker holding the scattered inputs is lost, the cluster cannot
        # recompute them and cancels the tasks that read them: scatter again and resubmit
        # what has not finished (a task is pure, so running it again gives the same result).
        scattered = [client.scatter(value, broadcast=True, hash=False) for value in shared]
        futures = {i: client.submit(fn, todo[i], *scattered, key=f"pux-{label}-{run}-{attempt}-{i}",
                                    pure=False, **kwargs)
                   for i in range(len(todo)) if i not in seen}
        index = {future.key: i for i, future in futures.items()}
        lost = False
        try:
            for future in as_completed(list(futures.values()), loop=client.loop):
                i = index[future.key]
                if i in seen:  # after a lost worker a finished task can be reported twice: count it once
                    continue
                try:
                    result = future.result()  # raises the task's exception as it was raised
                except FutureCancelledError:
                    if attempt == _RESUBMITS:
                        raise
                    lost = True
                    break
                seen.add(i)
                if on_result is not None:
                    on_result(i, result)
                if keep_results:
                    out[i] = result
                future.release()  # the cluster may drop it now
                del result
                finished += cost[i]
                report(progress, finished / total, f"{label} {len(seen)} of {len(todo)} done")
        except BaseException:
            client.cancel(list(futures.values()))
            raise
        finally:
            client.cancel(scattered)
        if not lost:
            return out
        client.cancel(list(futures.values()))
    raise AssertionError("unreachable")  # pragma: no cover - the last attempt returns or raises


def default_workers(scheduler: str | None = None) -> int:
    """How many tasks can run at once where :func:`map_tasks` runs: 1 in this process,
    else the cluster's worker threads (to size the tasks of a run)."""
    client = get_client(scheduler)
    if client is None:
        return 1
    return max(1, sum(client.nthreads().values()))
