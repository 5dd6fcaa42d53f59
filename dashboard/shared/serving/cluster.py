"""Where the dashboard's heavy work runs: this server, or the Dask cluster of ``PUX_SCHEDULER``.

Sweeps, comparisons and trainings run in spawned child processes of the server
(:func:`dashboard.shared.serving.jobs.run_in_child`), audits in jobs; all of them hand their tasks
to :func:`core.runtime.compute.map_tasks`, which reads ``PUX_SCHEDULER``. A ``local:N`` cluster
is started here, once, in the server process, and its address is put in
``PUX_SCHEDULER`` so that every child connects to that one cluster instead of starting its
own (a child is a daemon process and may not start worker processes). The progress bars
follow the tasks as they finish, and Stop cancels the tasks still on the cluster.
"""
from __future__ import annotations

import os
import threading

from core.runtime import compute

__all__ = ["prepare", "where"]

_LOCK = threading.Lock()
#: the sentence (or None) of each PUX_SCHEDULER value already prepared, and the address a
#: local cluster was given
_STATE: dict[str, str | None] = {}


def prepare() -> str | None:
    """Start a ``local:N`` cluster once and point ``PUX_SCHEDULER`` at it; the sentence to
    show when the configured cluster cannot be used (the work then fails with it), else None."""
    configured = os.environ.get(compute.SCHEDULER_ENV, "")
    with _LOCK:
        if configured in _STATE:
            return _STATE[configured]
        problem = None
        try:
            address = compute.resolve_scheduler()
            client = compute.get_client(address)  # connect now: a dead address is said at once
            if address is not None and address.startswith("local:"):
                os.environ[compute.SCHEDULER_ENV] = client.scheduler.address
                _STATE[client.scheduler.address] = None
        except (ValueError, compute.ComputeError) as exc:
            problem = str(exc)
        _STATE[configured] = problem
        return problem


def where() -> str | None:
    """'Heavy work runs on the Dask cluster at tcp://...' when a scheduler is configured, else None."""
    try:
        address = compute.resolve_scheduler()
    except ValueError:
        return None
    if address is None:
        return None
    return f"Heavy work runs on {compute.describe_scheduler()}."
