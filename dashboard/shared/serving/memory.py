"""Memory that comes back: a closed tab's upload is released, and the server returns the
freed memory to the system.

Streamlit keeps a disconnected session for ``server.disconnectedSessionTTL`` (2 minutes) so
a tab that lost its connection can resume it, but it never shuts such a session down: when
the session leaves its store, the uploaded file stays in the uploaded-file manager and the
download data in the media-file manager for the life of the server; and its event loop
keeps the last session it served (a local of ``Runtime._loop_coroutine``). Measured
(``benchmarks/bench_upload_cycle.py``): eight uploads of a 47 MB table, each tab closed,
took the server from 0.47 to 1.96 GB after the first and the last. Here:

- :data:`REAPER` ends every session whose tab has been gone for :data:`GRACE_S` seconds
  (:func:`release_delay_s`): Streamlit's own shutdown (uploaded files, media files, session
  caches), its session state emptied, the entries of the bounded caches keyed by the
  fingerprints of its uploaded tables (:func:`dashboard.shared.serving.cache.forget_dataset`), then
  :func:`trim_memory`. The sidebar registers each session (:func:`watch_session`), the
  session state each uploaded table (:func:`watch_dataset`).
- :func:`trim_memory` runs the garbage collector, asks Arrow's allocator and glibc
  (``malloc_trim(0)``) to hand freed pages back; a no-op where glibc is absent (macOS,
  musl, Windows).
- :data:`SERVER_ENV` (``MALLOC_ARENA_MAX=2``) is the environment the server starts with:
  glibc keeps the free top of every thread arena's heap, which ``malloc_trim`` cannot reach.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import functools
import gc
import logging
import sys
import threading
import time
import weakref
from typing import Any, Callable

__all__ = ["GRACE_S", "REAPER", "SERVER_ENV", "SessionReaper", "release_delay_s", "server_env",
           "trim_memory", "watch_dataset", "watch_session"]

_LOG = logging.getLogger(__name__)

#: seconds a session whose tab is gone is kept for the tab to reconnect (a network blip)
#: before it is ended and its memory released; below Streamlit's own 120 s, after which the
#: session could not resume anyway
GRACE_S = 30.0
#: seconds between two looks at the sessions
CHECK_EVERY_S = 2.0


# ----------------------------------------------------------------------------- the allocator
class _NoLibc:
    """Stands in for a C library that cannot be loaded: it has no functions."""

    def __getattr__(self, name: str) -> Any:
        raise AttributeError(name)


@functools.lru_cache(maxsize=1)
def _libc() -> Any:
    """This process's C library (a stand-in without functions where it cannot be loaded)."""
    try:
        return ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
    except (OSError, TypeError):
        return _NoLibc()


@functools.lru_cache(maxsize=1)
def _malloc_trim() -> Callable[[int], int] | None:
    """glibc's ``malloc_trim``, or None where this process's C library has none."""
    try:
        trim = _libc().malloc_trim
    except AttributeError:
        return None
    trim.argtypes, trim.restype = [ctypes.c_size_t], ctypes.c_int
    return trim


#: the environment a server starts with (``make run``, ``pux dashboard``, the benchmarks):
#: at most 2 allocator arenas. glibc gives threads up to 8 arenas per core, and the top of
#: each one's heap is never given back (``malloc_trim`` reaches the main arena's only):
#: measured with eight 47 MB uploads, the server after the last was 1.65x its size after
#: the first with glibc's default and 1.12x with 2, at the same speed (Python allocates
#: under its GIL). It must be set before the process starts: glibc reads it once, and by
#: the first page run Streamlit's threads have made their arenas (``mallopt`` then is too late)
SERVER_ENV = {"MALLOC_ARENA_MAX": "2"}


def server_env(base: dict[str, str] | None = None) -> dict[str, str]:
    """``base`` (default this process's environment) with :data:`SERVER_ENV` where it
    sets none of its own (an operator's ``MALLOC_ARENA_MAX`` wins)."""
    import os

    env = dict(os.environ if base is None else base)
    for key, value in SERVER_ENV.items():
        env.setdefault(key, value)
    return env


def _release_arrow() -> None:
    """Ask Arrow's allocator (mimalloc or jemalloc: Streamlit turns tables into Arrow) to
    return what it holds; nothing when pyarrow was never imported."""
    pa = sys.modules.get("pyarrow")
    try:
        if pa is not None:
            pa.default_memory_pool().release_unused()
    except Exception:  # noqa: BLE001 - an old pyarrow without release_unused
        pass


def trim_memory(*, collect: bool = True) -> bool:
    """Give the memory freed by Python back to the system.

    Runs the garbage collector (objects in reference cycles: a closed session's state
    holds some), asks Arrow's allocator to return its unused memory, then runs glibc's
    ``malloc_trim(0)``: glibc keeps freed memory in its arenas for reuse, so without it a
    server's size only grows.

    Parameters
    ----------
    collect : bool
        Run a full garbage collection first (0.19 s measured with torch, pandas, plotly
        and the app's modules loaded; False after freeing plain buffers, which need none;
        the trim itself took 5 ms).

    Returns
    -------
    bool
        True when glibc returned memory to the system; False where there is nothing to
        return or no glibc (then only the collection ran).
    """
    if collect:
        gc.collect()
    _release_arrow()
    trim = _malloc_trim()
    if trim is None:
        return False
    try:
        return bool(trim(0))
    except Exception:  # noqa: BLE001 - a C library that lies about its symbol
        return False


# ----------------------------------------------------------------------------- the sessions
def _run_context():
    try:
        from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

        return get_script_run_ctx(suppress_warning=True)
    except Exception:  # pragma: no cover - streamlit internals moved
        return None


def current_session_id() -> str | None:
    """The id of the Streamlit session running this script (None outside a server)."""
    ctx = _run_context()
    return None if ctx is None else ctx.session_id


def _current_session_state() -> Any:
    """The session state object behind ``st.session_state`` of this run (None outside a
    server), for :class:`SessionReaper` to empty once the session has ended."""
    ctx = _run_context()
    try:
        return None if ctx is None else object.__getattribute__(ctx.session_state, "_state")
    except Exception:  # pragma: no cover - streamlit internals moved
        return None


def _runtime():
    """Streamlit's runtime, or None (bare mode has none, AppTest a stand-in)."""
    try:
        from streamlit.runtime import Runtime

        rt = Runtime.instance() if Runtime.exists() else None
    except Exception:  # pragma: no cover - streamlit internals moved
        return None
    return rt if isinstance(rt, Runtime) else None


def _session_active(session_id: str) -> bool:
    """Whether the session's tab is connected (True where there is no runtime to ask)."""
    rt = _runtime()
    if rt is None:
        return True
    try:
        return bool(rt.is_active_session(session_id))
    except Exception:  # pragma: no cover - streamlit internals moved
        return True


def _close_session(session_id: str, timeout: float = 10.0) -> bool:
    """End a disconnected session the way Streamlit ends a closed one, on its event loop:
    shut down (its state, uploaded files, media files, session caches) unless its tab came
    back meanwhile; its uploaded and media files go even when Streamlit's store already
    dropped the session. False when it could not be done (no runtime, loop gone)."""
    rt = _runtime()
    if rt is None:
        return False
    done = threading.Event()

    def close_if_gone() -> None:
        try:
            if not rt.is_active_session(session_id):
                rt.close_session(session_id)
                rt.uploaded_file_mgr.remove_session_files(session_id)
                rt.media_file_mgr.clear_session_refs(session_id)
                rt.media_file_mgr.remove_orphaned_files()
        except Exception:  # noqa: BLE001 - never break the server's loop
            _LOG.warning("Could not end session %s", session_id, exc_info=True)
        finally:
            done.set()

    try:
        loop = rt._get_async_objs().eventloop  # close_session must run on the loop
        loop.call_soon_threadsafe(close_if_gone)
    except Exception:  # noqa: BLE001 - another Streamlit: its public close for a stored session
        try:
            rt.clear_user_info_for_session(session_id)
        except Exception:  # noqa: BLE001
            return False
        return True
    return done.wait(timeout)


class _Watched:
    """A watched session: since when its tab is gone, its uploaded tables (weakly) and its
    session state (Streamlit's cannot be referred to weakly; dropped when the session
    ends)."""

    __slots__ = ("gone_since", "datasets", "state")

    def __init__(self) -> None:
        self.gone_since: float | None = None
        self.datasets: list[weakref.ref] = []
        self.state: Any = None

    def fingerprints(self) -> set[str]:
        """The fingerprints computed so far of its tables still alive (a table whose
        fingerprint was never computed keyed no cache entry)."""
        out = set()
        for ref in self.datasets:
            ds = ref()
            fp = None if ds is None else ds.__dict__.get("_fingerprint")
            if fp is not None:
                out.add(fp)
        return out


class SessionReaper:
    """Ends the sessions whose tab has been gone for ``grace_s`` seconds, and releases what
    they held: the session (:func:`_close_session`), the bounded-cache entries of their
    uploaded tables that no other session uses, then :func:`trim_memory`.

    Parameters
    ----------
    grace_s : float
        Seconds a session whose tab is gone is kept for the tab to come back.
    check_every_s : float
        Seconds between two looks (a daemon thread, started by the first :meth:`watch`
        on a server).
    is_active, close : callable, optional
        Whether a session's tab is connected, and how to end a session (tests pass
        their own; the defaults ask Streamlit's runtime).
    forget : callable, optional
        Drops the cache entries of a table's fingerprint (default
        :func:`dashboard.shared.serving.cache.forget_dataset`).
    clock : callable
        Seconds, monotonic.
    """

    def __init__(self, *, grace_s: float = GRACE_S, check_every_s: float = CHECK_EVERY_S,
                 is_active: Callable[[str], bool] | None = None,
                 close: Callable[[str], Any] | None = None,
                 forget: Callable[[str], Any] | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        if grace_s < 0 or check_every_s <= 0:
            raise ValueError("grace_s must be 0 or more and check_every_s more than 0.")
        self.grace_s, self.check_every_s = float(grace_s), float(check_every_s)
        self._is_active = is_active or _session_active
        self._close = close or _close_session
        self._forget = forget
        self._clock = clock
        self._sessions: dict[str, _Watched] = {}
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def watch(self, session_id: str | None, dataset: Any = None, *, state: Any = None) -> None:
        """Watch ``session_id`` (None: nothing to do), and remember ``dataset`` (an uploaded
        table) as one of its tables (weakly) and ``state`` as its session state."""
        if session_id is None:
            return
        with self._lock:
            entry = self._sessions.get(session_id)
            if entry is None:
                entry = self._sessions[session_id] = _Watched()
            if state is not None:
                entry.state = state
            if dataset is not None and not any(ref() is dataset for ref in entry.datasets):
                entry.datasets = [r for r in entry.datasets if r() is not None]
                entry.datasets.append(weakref.ref(dataset))
        if self._is_active is _session_active and _runtime() is not None:
            self._start()

    def watching(self, session_id: str) -> bool:
        """Whether ``session_id`` is watched (not ended yet)."""
        with self._lock:
            return session_id in self._sessions

    def sweep(self) -> list[str]:
        """One look: sessions gone for ``grace_s`` seconds are ended; returns their ids."""
        now = self._clock()
        due = []
        with self._lock:
            ids = list(self._sessions)
        for sid in ids:
            active = self._is_active(sid)
            with self._lock:
                entry = self._sessions.get(sid)
                if entry is None:
                    continue
                if active:
                    entry.gone_since = None
                elif entry.gone_since is None:
                    entry.gone_since = now
                elif now - entry.gone_since >= self.grace_s:
                    due.append((sid, entry))
        for sid, entry in due:
            self._end(sid, entry)
        if due:
            trim_memory()
        return [sid for sid, _ in due]

    def _end(self, sid: str, entry: _Watched) -> None:
        fingerprints = entry.fingerprints()
        self._close(sid)
        # Emptied too: Streamlit's event loop keeps the last session it sent messages to
        # (a local of Runtime._loop_coroutine) until another session sends some, and with it
        # the whole state (measured: the last upload's table and CSV, 110 MB for 47 MB)
        state, entry.state = entry.state, None
        if state is not None:
            try:
                state.clear()
            except Exception:  # noqa: BLE001 - a state that cannot be emptied is left to gc
                _LOG.warning("Could not empty the state of session %s", sid, exc_info=True)
        with self._lock:
            self._sessions.pop(sid, None)
            others = set().union(*(e.fingerprints() for e in self._sessions.values()))
        forget = self._forget
        if forget is None:
            from dashboard.shared.serving.cache import forget_dataset as forget
        for fp in fingerprints - others:
            forget(fp)

    def _start(self) -> None:
        with self._lock:
            if self._thread is not None and self._thread.is_alive():
                return
            self._thread = threading.Thread(target=self._loop, name="pux-session-reaper", daemon=True)
            self._thread.start()

    def _loop(self) -> None:
        while True:
            time.sleep(self.check_every_s)
            try:
                self.sweep()
            except Exception:  # noqa: BLE001 - the reaper outlives one bad look
                _LOG.warning("Session reaper failed", exc_info=True)


#: the server's one reaper
REAPER = SessionReaper()


def watch_session() -> None:
    """Watch the session running this script (the sidebar calls it on every run)."""
    REAPER.watch(current_session_id(), state=_current_session_state())


def watch_dataset(dataset: Any) -> None:
    """Remember ``dataset`` (an uploaded table) as one of this session's tables: when the
    session ends, cache entries keyed by its fingerprint go too."""
    REAPER.watch(current_session_id(), dataset)


def release_delay_s() -> float:
    """Seconds from a tab's close to its session's memory being released, at most."""
    return REAPER.grace_s + 2 * REAPER.check_every_s
