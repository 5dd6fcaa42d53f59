"""A job's child process started ahead, its imports done, so that the work begins at once.

A fresh interpreter that imports the methods (numpy, pandas, scikit-learn, torch and
``core``) takes about 3 s on an idle 2-core machine and 5-8 s on a busy one, before the job's
first step: the first points of a comparison and the first iteration of a training waited for
it. :class:`SpareChild` keeps one child started and waiting (at the lowest priority, its
modules of :data:`PRELOAD` imported, about 430 MB); a job takes it, and once the job has
ended a new one starts in the background (started while the job starts, its imports slowed
the job's own start). The server starts the first one on its first page run. The spare waits
on its pipe and ends with the server (the pipe's end).

``PUX_SPARE_CHILD=0`` keeps none (every job then starts its own child, as before).
A spare names itself ``pux-spare`` and a working child ``pux-job`` (``/proc/PID/comm``, Linux),
so that an operator (and the browser tests) can tell them apart.
"""
from __future__ import annotations

import os
import subprocess
import sys
import threading
from dataclasses import dataclass, field

__all__ = ["PRELOAD", "SPARE", "SpareChild", "Started", "start_child"]

#: what a spare imports while it waits: the modules of the jobs' functions (4 s and 430 MB
#: together, measured on an idle 2-core machine)
PRELOAD = ("dashboard.compare.cached", "dashboard.imposter.training_jobs", "dashboard.imposter.sweeps",
           "dashboard.cdp.jobs", "dashboard.sskm.cached")


@dataclass
class Started:
    """A child process and the server's ends of its two pipes (file descriptors)."""

    proc: subprocess.Popen
    to_child: int
    from_child: int
    env: dict = field(repr=False)

    def discard(self) -> None:
        """End it: its input closes, so it exits (a spare that never got a job)."""
        for fd in (self.to_child, self.from_child):
            try:
                os.close(fd)
            except OSError:
                pass
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def start_child(env: dict, *, preload: tuple[str, ...] = ()) -> Started:
    """Start ``python -m dashboard.shared.serving.child`` with ``env``; ``preload`` modules it
    imports before it reads its job."""
    child_in, to_child = os.pipe()  # (read end, write end)
    from_child, child_out = os.pipe()
    args = [sys.executable, "-m", "dashboard.shared.serving.child", str(child_in), str(child_out)]
    if preload:
        args.append(",".join(preload))
    try:
        proc = subprocess.Popen(args, pass_fds=(child_in, child_out), env=env, stdin=subprocess.DEVNULL)
    finally:
        os.close(child_in)
        os.close(child_out)
    return Started(proc, to_child, from_child, env)


class SpareChild:
    """At most one child started ahead (see the module).

    Parameters
    ----------
    enabled : bool
        Keep a spare (False: :meth:`take` starts a child each time).
    preload : tuple of str
        Modules a spare imports while it waits.
    """

    def __init__(self, *, enabled: bool = True, preload: tuple[str, ...] = PRELOAD) -> None:
        self.enabled, self.preload = bool(enabled), tuple(preload)
        self._spare: Started | None = None
        self._lock = threading.Lock()
        self._refilling = False

    def take(self, env: dict) -> Started:
        """A child for a job with ``env``: the spare when it is alive and was started with
        the same environment (even one still importing: it has a head start), else a new
        one. No new spare starts now: its imports would compete with this job's start
        (:meth:`prime` starts one once the job has ended)."""
        with self._lock:
            spare, self._spare = self._spare, None
        if spare is not None and (spare.proc.poll() is not None or spare.env != env):
            spare.discard()
            spare = None
        return spare if spare is not None else start_child(env)

    def prime(self, env: dict) -> None:
        """Start a spare for jobs with ``env`` in the background unless one waits (or starts)."""
        self._refill(env)

    def _refill(self, env: dict) -> None:
        with self._lock:
            if not self.enabled or self._refilling or self._spare is not None:
                return
            self._refilling = True

        def start() -> None:
            try:
                started = start_child(env, preload=self.preload)
            finally:
                with self._lock:
                    self._refilling = False
            with self._lock:
                if self._spare is None:
                    self._spare, started = started, None
            if started is not None:  # pragma: no cover - another refill won the race
                started.discard()

        threading.Thread(target=start, name="pux-spare-child", daemon=True).start()

    def ready(self) -> bool:
        """Whether a spare is started and waiting now."""
        with self._lock:
            return self._spare is not None and self._spare.proc.poll() is None

    def close(self) -> None:
        """End the spare (tests; the server's exit ends it anyway)."""
        with self._lock:
            spare, self._spare, self.enabled = self._spare, None, False
        if spare is not None:
            spare.discard()


#: the server's spare
SPARE = SpareChild(enabled=os.environ.get("PUX_SPARE_CHILD", "1") != "0")
