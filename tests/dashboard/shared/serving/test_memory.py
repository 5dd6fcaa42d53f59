"""Memory that comes back (dashboard.shared.serving.memory): a closed session's upload and its cache
entries are released, and the allocator trim is harmless where there is no glibc."""
from __future__ import annotations

import ctypes
import gc
import weakref

import pandas as pd
import pytest

import dashboard.shared.serving.memory as memory
from core.data import frame_to_dataset
from dashboard.shared.serving.cache import BoundedCache, forget_dataset
from dashboard.shared.serving.memory import SessionReaper, server_env, trim_memory


class _Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def _upload(n: int = 40):
    frame = pd.DataFrame({"age": [20 + i % 30 for i in range(n)], "city": ["AB"[i % 2] for i in range(n)]})
    return frame_to_dataset(frame, name="upload", identifiers=[])


@pytest.fixture
def no_trim(monkeypatch):
    """Sweeps without a full collection each time (the release test collects itself)."""
    monkeypatch.setattr(memory, "trim_memory", lambda **_: False)


@pytest.fixture
def fresh_libc():
    """The C library looked up again in the test, and again after it."""
    memory._libc.cache_clear()
    memory._malloc_trim.cache_clear()
    yield
    memory._libc.cache_clear()
    memory._malloc_trim.cache_clear()


def test_trim_is_harmless_without_a_c_library(monkeypatch, fresh_libc):
    def missing(*_a, **_k):
        raise OSError("no libc here")

    monkeypatch.setattr(ctypes, "CDLL", missing)
    assert trim_memory() is False
    assert trim_memory(collect=False) is False


def test_trim_is_harmless_with_a_c_library_that_has_no_malloc_trim(monkeypatch, fresh_libc):
    class NoTrim:  # musl, macOS: a C library without glibc's malloc_trim
        def __init__(self, *_a, **_k):
            pass

        def __getattr__(self, name):
            raise AttributeError(name)

    monkeypatch.setattr(ctypes, "CDLL", NoTrim)
    assert trim_memory() is False


def test_trim_answers_a_bool_here():
    assert isinstance(trim_memory(), bool)


def test_a_closed_sessions_upload_and_cache_entries_are_released():
    """Simulated session end: the tab goes, the grace passes, the reaper ends the session
    (Streamlit's shutdown drops its state: here the dict that held the upload)."""
    clock, active = _Clock(), {"s1": True, "s2": True}
    sessions = {"s1": {"upload": _upload()}, "s2": {"upload": _upload(60)}}
    cache = BoundedCache(16)
    mine, other = sessions["s1"]["upload"], sessions["s2"]["upload"]
    cache.put(("selection", mine.fingerprint(), 0.5), "mine")
    cache.put(f"audit@{mine.fingerprint()}#abc", "mine too")
    cache.put(("selection", other.fingerprint(), 0.5), "another session's")
    reaper = SessionReaper(grace_s=30, is_active=lambda sid: active[sid],
                           close=lambda sid: sessions.pop(sid), clock=clock)
    for sid, state in sessions.items():
        reaper.watch(sid, state["upload"])
    released = weakref.ref(mine)
    del mine
    active["s1"] = False  # its tab closed
    assert reaper.sweep() == []  # first seen gone
    clock.now = 29.0
    assert reaper.sweep() == [] and "s1" in sessions  # still within the grace
    clock.now = 31.0
    assert reaper.sweep() == ["s1"]
    gc.collect()
    assert released() is None  # the upload is gone with the session
    assert len(cache) == 1 and ("selection", other.fingerprint(), 0.5) in cache
    assert not reaper.watching("s1") and reaper.watching("s2")


def test_a_tab_that_comes_back_within_the_grace_keeps_its_session(no_trim):
    clock, active, closed = _Clock(), {"s": False}, []
    reaper = SessionReaper(grace_s=30, is_active=lambda sid: active[sid], close=closed.append,
                           clock=clock)
    reaper.watch("s")
    reaper.sweep()
    clock.now = 20.0
    active["s"] = True  # a network blip: the tab reconnected
    reaper.sweep()
    active["s"] = False
    clock.now = 45.0
    assert reaper.sweep() == []  # the grace starts again from here
    clock.now = 76.0
    assert reaper.sweep() == ["s"] and closed == ["s"]


def test_a_table_another_live_session_uses_keeps_its_cache_entries(no_trim):
    clock, active = _Clock(), {"a": False, "b": True}
    shared = _upload()  # both uploaded the same file: one fingerprint
    forgotten = []
    reaper = SessionReaper(grace_s=0, is_active=lambda sid: active[sid], close=lambda sid: None,
                           forget=forgotten.append, clock=clock)
    reaper.watch("a", shared)
    reaper.watch("b", shared)
    shared.fingerprint()
    reaper.sweep()
    clock.now = 1.0
    assert reaper.sweep() == ["a"] and forgotten == []
    active["b"] = False
    reaper.sweep()
    clock.now = 2.0
    assert reaper.sweep() == ["b"] and forgotten == [shared.fingerprint()]


def test_an_ended_sessions_state_is_emptied(no_trim):
    """Streamlit's event loop keeps the last session it served: its state is emptied, so
    the upload it holds goes all the same."""
    clock, state = _Clock(), {"pux_dataset": _upload()}
    released = weakref.ref(state["pux_dataset"])
    reaper = SessionReaper(grace_s=0, is_active=lambda sid: False, close=lambda sid: None, clock=clock)
    reaper.watch("s", state=state)
    reaper.sweep()
    clock.now = 1.0
    assert reaper.sweep() == ["s"]
    assert state == {} and released() is None


def test_forget_dataset_drops_the_entries_that_name_the_fingerprint():
    cache = BoundedCache(8)
    cache.put("0123abcd", 1)
    cache.put(("sweep", "0123abcd", 3), 2)
    cache.put(("sweep", ("nested", "0123abcd")), 3)
    cache.put(("sweep", "ffff0000", 3), 4)
    assert forget_dataset("0123abcd") >= 3
    assert len(cache) == 1 and ("sweep", "ffff0000", 3) in cache
    with pytest.raises(ValueError, match="non-empty"):
        forget_dataset("")


def test_closing_a_session_runs_on_the_servers_loop_and_removes_its_files(monkeypatch):
    calls = []

    class Loop:
        def call_soon_threadsafe(self, fn):
            fn()

    class Files:
        def remove_session_files(self, sid):
            calls.append(("files", sid))

    class Media:
        def clear_session_refs(self, sid):
            calls.append(("media", sid))

        def remove_orphaned_files(self):
            calls.append(("orphans",))

    class Runtime:
        uploaded_file_mgr, media_file_mgr = Files(), Media()
        active = False

        def _get_async_objs(self):
            return type("Objs", (), {"eventloop": Loop()})()

        def is_active_session(self, sid):
            return self.active

        def close_session(self, sid):
            calls.append(("close", sid))

    rt = Runtime()
    monkeypatch.setattr(memory, "_runtime", lambda: rt)
    assert memory._close_session("gone")
    assert calls == [("close", "gone"), ("files", "gone"), ("media", "gone"), ("orphans",)]
    calls.clear()
    rt.active = True  # the tab came back before the loop ran the close
    assert memory._close_session("gone") and calls == []


def test_without_a_server_every_session_counts_as_connected():
    assert memory._runtime() is None  # bare mode: nothing is ever reaped
    assert memory._session_active("anything") is True
    assert memory._close_session("anything") is False


def test_a_server_starts_with_two_allocator_arenas_unless_the_operator_says_otherwise():
    assert server_env({"PATH": "/bin"}) == {"PATH": "/bin", "MALLOC_ARENA_MAX": "2"}
    assert server_env({"MALLOC_ARENA_MAX": "8"})["MALLOC_ARENA_MAX"] == "8"


def test_the_reaper_checks_its_settings():
    with pytest.raises(ValueError, match="grace_s"):
        SessionReaper(grace_s=-1)
    with pytest.raises(ValueError, match="check_every_s"):
        SessionReaper(check_every_s=0)
