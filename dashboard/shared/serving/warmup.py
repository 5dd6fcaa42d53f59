"""Warm start: each page's default results on the built-in samples, computed once per server.

:func:`start_warmup` (called once by ``dashboard/app.py``; idempotent and thread-safe) starts
``python -m dashboard.shared.serving.warmup``: a child process at the lowest priority
(nice 19) with one BLAS/OpenMP thread, which the server pauses (SIGSTOP, then SIGCONT) while
any user's job runs or waits (:func:`pause_while_busy`), so it never delays a user's job; the
kernel kills it with its server (``PR_SET_PDEATHSIG``), paused or not. The child opens each
page of :data:`PAGES` as a first visitor would (Streamlit's ``AppTest`` on the app, no
dataset chosen: the page's built-in sample, loaded by
:func:`dashboard.shared.serving.datasets.sample_dataset`), lets its setup steps and sweeps
finish, and writes every finished result to the :class:`~dashboard.shared.serving.warm_cache.WarmCache`
under the sweep's own key. It reads nothing else: no public data, no upload.

The signal: ``status.json`` in the cache's key folder, written whole::

    {"state": "running" | "done" | "partial" | "failed", "started": <unix time>, "finished": ...,
     "seconds": ..., "pages": {page: seconds}, "pid": ...}

The server prints ``pux warm-up done in N s (dir)`` to stderr when the child ends with
it done; :func:`warmup_status` returns it for operators. A key folder whose status already
says done (a restart with the same version, core sources and seed) is not computed again.

Off when ``PUX_WARMUP=0`` (the tests set it); then the pages read no warm cache either.
"""
from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from dashboard.shared.serving.warm_cache import WarmCache, default_root, enabled, server_cache

__all__ = ["PAGES", "BUDGET_S", "enabled", "server_cache", "start_warmup", "warmup_status", "run_warmup"]

ROOT = Path(__file__).resolve().parents[3]
#: the pages warmed, the slowest first renders first (Compare last: its default
#: comparison is the longest, and a page that is not done by the budget is left out)
PAGES = ("publishing", "sskm", "correlations", "cdp_lr", "dc_fbfs", "imposter", "tour", "compare")
#: seconds the warm-up may take; pages not started by then are skipped (the issue: 5 minutes)
BUDGET_S = 280.0
#: the thread counts of the child (one each: it must not crowd the server's work)
_ONE_THREAD = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMEXPR_NUM_THREADS",
               "VECLIB_MAXIMUM_THREADS")
_LOCK = threading.Lock()
#: the warm-up child of this server ("proc"), once started
_STARTED: dict[str, Any] = {}


def warmup_status() -> dict:
    """The warm-up's status for operators: ``status.json`` of the key folder plus ``dir``
    (``{"state": "off"}`` when warm start is off or its folder was refused)."""
    cache = server_cache()
    if cache is None:
        return {"state": "off"}
    return {"state": "not started", **cache.read_status(), "dir": str(cache.folder)}


def _alive(pid: Any) -> bool:
    try:
        os.kill(int(pid), 0)
    except (OSError, TypeError, ValueError):
        return False
    return True


def start_warmup() -> subprocess.Popen | None:
    """Start the warm-up child once per server process (later calls return the same one).

    Returns None when warm start is off, its folder was refused, its status already says
    done (nothing to compute), or another live process is warming the same key folder.
    """
    with _LOCK:
        if "proc" in _STARTED:
            return _STARTED["proc"]
        _STARTED["proc"] = None
    cache = server_cache()
    if cache is None:
        return None
    threading.Thread(target=_import_pages, daemon=True, name="pux-warmup-imports").start()
    status = cache.read_status()
    if status.get("state") == "done" or (status.get("state") == "running" and _alive(status.get("pid"))):
        return None
    env = {**os.environ, "PUX_WARMUP": "0", "PUX_JOBS_IN_THREAD": "1", "PUX_SETUP_WAIT": "600",
           "PUX_WARM_DIR": str(cache.root), **{name: "1" for name in _ONE_THREAD}}
    env.pop("PUX_DATA_DIR", None)  # the built-in samples only
    started = threading.Event()
    # the thread that starts the child stays until it ends: the child is killed by the kernel
    # when its starter is gone (PR_SET_PDEATHSIG), which must mean the server, not a script run
    threading.Thread(target=_keep, args=(env, cache, started), daemon=True, name="pux-warmup-watch").start()
    started.wait(30)
    return _STARTED.get("proc")


def _keep(env: dict, cache: WarmCache, started: threading.Event) -> None:
    """Start the child, pause it while users' jobs run, then say how it went."""
    try:
        proc = subprocess.Popen([sys.executable, "-m", "dashboard.shared.serving.warmup"], cwd=str(ROOT),
                                env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        with _LOCK:
            _STARTED["proc"] = proc
    finally:
        started.set()
    pause_while_busy(proc, busy=_users_busy)
    _announce(proc, cache)


def _users_busy() -> bool:
    """Whether a user's job runs or waits (trainings, sweeps, audits, setup steps)."""
    from dashboard.shared.serving.jobs import POOL, SETUP_POOL

    return POOL.counts() != (0, 0) or SETUP_POOL.counts() != (0, 0)


def pause_while_busy(proc: subprocess.Popen, *, busy, every: float = 0.25) -> float:
    """Stop ``proc`` (SIGSTOP) while ``busy()`` and let it go on (SIGCONT) when not, until it
    ends: the warm-up never takes CPU from a user's job, whatever the scheduler would give a
    nice-19 process. Returns the seconds it was paused."""
    import signal

    paused_at, paused = None, 0.0
    while proc.poll() is None:
        now_busy = bool(busy())
        if now_busy and paused_at is None:
            proc.send_signal(signal.SIGSTOP)
            paused_at = time.monotonic()
        elif not now_busy and paused_at is not None:
            proc.send_signal(signal.SIGCONT)
            paused += time.monotonic() - paused_at
            paused_at = None
        try:
            proc.wait(every)
        except subprocess.TimeoutExpired:
            pass
    return paused


def _import_pages() -> None:
    """Import the pages' modules (not the page scripts) in this server, so that a page's
    first visit does not pay for them (about 2 s of a first visit on 2 cores)."""
    import importlib

    from dashboard.navigation import PAGES as SPECS

    scripts = {spec.file for spec in SPECS.values()}
    for folder in sorted({spec.file.split("/")[0] for spec in SPECS.values()}):
        for path in sorted((ROOT / "dashboard" / folder).glob("*.py")):
            if f"{folder}/{path.name}" not in scripts and path.stem != "__init__":
                try:
                    importlib.import_module(f"dashboard.{folder}.{path.stem}")
                except Exception:  # noqa: BLE001 - the page imports it again and shows the error
                    pass


def _announce(proc: subprocess.Popen, cache: WarmCache) -> None:
    """When the child ends: one line on stderr saying how the warm-up went."""
    proc.wait()
    status = cache.read_status()
    if status.get("state") == "done":
        print(f"pux warm-up done in {status.get('seconds', 0):.0f} s ({cache.folder})", file=sys.stderr, flush=True)
    elif status.get("state") == "partial":
        left = ", ".join(k for k, v in status.get("pages", {}).items() if not isinstance(v, float))
        print(f"pux warm-up ended in {status.get('seconds', 0):.0f} s without {left} ({cache.folder})",
              file=sys.stderr, flush=True)
    else:
        print(f"pux warm-up did not finish (exit code {proc.returncode}; {cache.folder})", file=sys.stderr,
              flush=True)


# ------------------------------------------------------------------------- the child


def _warm_page(name: str, *, timeout: float) -> None:
    """Open page ``name`` as a first visitor would and let its jobs finish."""
    from streamlit.testing.v1 import AppTest

    from dashboard.navigation import page_file

    at = AppTest.from_file(str(ROOT / "dashboard" / "app.py"), default_timeout=timeout)
    at.run()
    if name != "data":
        at.switch_page(page_file(name))
        at.run()
    for thread in threading.enumerate():  # the Tour computes its stories in the background
        if thread.name == "tour-prefetch":
            thread.join(timeout)
    for _ in range(8):  # a page's later sections start once its first jobs are done
        jobs = at.session_state["pux_sweep_jobs"] if "pux_sweep_jobs" in at.session_state else {}
        running = [job for job in jobs.values() if job.running]
        if not running:
            return
        for job in running:
            job.wait(timeout)
        at.run()


def run_warmup(cache: WarmCache, *, pages: tuple[str, ...] = PAGES, budget: float = BUDGET_S) -> dict:
    """Compute ``pages``' default results into ``cache``; returns (and writes) the status.

    A page not started within ``budget`` seconds is skipped (its entry in ``pages`` says
    ``"skipped"``); a page that fails is recorded with ``"failed"`` and the others go on.
    """
    from dashboard.shared.serving.sweeps import write_through

    started = time.time()
    status: dict[str, Any] = {"state": "running", "started": started, "pid": os.getpid(), "pages": {}}
    cache.write_status(status)
    write_through(cache)  # each result as it finishes
    try:
        for name in pages:
            begin = time.time()
            if begin - started > budget:
                status["pages"][name] = "skipped"
                continue
            try:
                _warm_page(name, timeout=max(budget - (begin - started), 10.0))
                status["pages"][name] = round(time.time() - begin, 1)
            except Exception as exc:  # one page's failure must not lose the others
                status["pages"][name] = f"failed: {type(exc).__name__}"
            cache.write_status(status)
    finally:
        write_through(None)
    finished = time.time()
    whole = all(isinstance(v, float) for v in status["pages"].values())
    # "partial" (a page skipped or failed): the next server start warms again
    status.update(state="done" if whole else "partial", finished=finished, seconds=round(finished - started, 1))
    cache.write_status(status)
    return status


def _exit_with_parent(parent: int) -> None:
    """End this process when the server that started it is gone (even after ``kill -9``)."""
    while os.getppid() == parent:
        time.sleep(1.0)
    os._exit(0)


def _die_with_starter() -> None:
    """Be killed by the kernel when the thread that started this process ends (Linux
    ``PR_SET_PDEATHSIG``): a warm-up the server paused (SIGSTOP) cannot watch its parent."""
    try:
        import ctypes
        import signal

        ctypes.CDLL(None).prctl(1, int(signal.SIGKILL), 0, 0, 0)  # PR_SET_PDEATHSIG
    except Exception:  # pragma: no cover - not Linux: the parent watch below remains
        pass


def main() -> int:
    """The child: nice 19, then :func:`run_warmup` into the server's warm cache."""
    _die_with_starter()
    try:
        os.nice(19)
    except (AttributeError, OSError):  # pragma: no cover - not on this platform
        pass
    threading.Thread(target=_exit_with_parent, args=(os.getppid(),), daemon=True, name="pux-warmup-parent").start()
    os.environ["PUX_WARMUP"] = "0"  # the pages it opens must not start another warm-up
    from dashboard.shared.serving.state import DEFAULT_SEED

    cache = WarmCache(default_root(), seed=DEFAULT_SEED)
    if not cache.usable:
        return 1
    cache.prune()  # older versions' and core sources' folders
    try:
        run_warmup(cache)
    except BaseException as exc:
        cache.write_status({**cache.read_status(), "state": "failed", "finished": time.time(),
                            "error": type(exc).__name__})
        raise
    return 0


if __name__ == "__main__":
    sys.exit(main())
