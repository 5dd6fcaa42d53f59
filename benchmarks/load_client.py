"""A viewer without a browser: Streamlit's own websocket protocol, for the load benchmark.

:class:`Viewer` opens ``/_stcore/stream`` on a running app the way the browser does (the
``streamlit`` subprotocol, one ``BackMsg`` per rerun, one ``ForwardMsg`` per frame back),
asks for a page, learns the ids of its widgets from the elements the server sends, sets
widget values or presses buttons, and reruns the page's auto-refreshing fragments (a live
job's view) as the browser does: at their interval, never while a run of the page is asked
for or running (a fragment's run would interrupt it and drop a button's press). It records
every element's text as it arrives, so a benchmark can wait for "Accuracy at epsilon = 2.1"
in a chart or read the wait a queued job shows.

Nothing is drawn: what it times is the server (its script run and its messages), which is
what 8 sessions on a 2-core machine can measure without 8 browsers competing for the
cores. ``benchmarks/bench_load.py`` keeps Chromium for the page-load figure.
"""
from __future__ import annotations

import re
import threading
import time
from typing import Any, Callable

# imported once here: importing streamlit from two threads at once deadlocks
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.WidgetStates_pb2 import WidgetState
from websockets.sync.client import connect

__all__ = ["Viewer"]

_TEXT_FIELDS = ("body", "label", "text", "spec")


def _element_text(element: Any) -> tuple[str, str, Any]:
    """(kind, text, the element's proto) of one new element (text: the fields a reader sees)."""
    kind = element.WhichOneof("type") or ""
    inner = getattr(element, kind, None) if kind else None
    parts = []
    for name in _TEXT_FIELDS:
        value = getattr(inner, name, None)
        if isinstance(value, str) and value:
            parts.append(value)
    if kind == "progress":
        parts.append(inner.text)
    return kind, " ".join(parts), inner


class Viewer:
    """One session on the app at ``url`` (``http://127.0.0.1:PORT``), on ``page``.

    Parameters
    ----------
    url : str
        The app's address.
    page : str
        The page's URL path (``cdp_lr``, ``imposter``).
    query : str
        The page link's query string (``seed=3``).
    """

    def __init__(self, url: str, page: str, *, query: str = "") -> None:
        self.page, self.query = page, query
        self._ws = connect(url.replace("http", "ws", 1) + "/_stcore/stream", subprotocols=["streamlit"],
                           max_size=None, open_timeout=60, close_timeout=5)
        self._cond = threading.Condition()
        self.widgets: dict[str, tuple[str, str]] = {}  # label -> (id, kind)
        self.texts: list[tuple[float, str, str]] = []  # (time, kind, text) of every element
        self.runs_finished = 0
        self.errors: list[str] = []
        self._states: dict[str, Any] = {}  # widget id -> WidgetState kept for every rerun
        self._fragments: dict[str, tuple[float, str]] = {}  # auto-rerun fragment id -> (interval, page)
        self._page_hash = ""  # the page's script hash, once the server named it
        self._run_hash = ""  # the page of the script run whose messages arrive now
        self._left_hash = ""  # the page this viewer left (goto)
        self._busy = False  # a run is asked for or running: no fragment rerun now (as the browser)
        self._closed = threading.Event()
        self._send_lock = threading.Lock()
        threading.Thread(target=self._read, name="viewer-read", daemon=True).start()
        threading.Thread(target=self._auto, name="viewer-auto", daemon=True).start()

    # ------------------------------------------------------------ sending
    def rerun(self, *, press: str | None = None, fragment: str = "") -> float:
        """Ask for a run of the page (``press``: with the button of that label pressed);
        returns the time it was sent."""
        msg = BackMsg()
        state = msg.rerun_script
        state.query_string = self.query
        with self._cond:
            if self._page_hash:  # as the browser: the page by its hash (a fragment's rerun keeps it)
                state.page_script_hash = self._page_hash
            else:
                state.page_name = self.page
        if fragment:
            state.fragment_id = fragment
            state.is_auto_rerun = True
        with self._cond:
            kept = list(self._states.values())
            button = self.widgets.get(press) if press else None
        for widget in kept:
            state.widget_states.widgets.append(widget)
        if press is not None:
            if button is None:
                raise KeyError(f"no button {press!r} on the page yet")
            state.widget_states.widgets.append(WidgetState(id=button[0], trigger_value=True))
        sent = time.monotonic()
        with self._send_lock:
            with self._cond:
                self._busy = True
            self._ws.send(msg.SerializeToString())
        return sent

    def goto(self, page: str) -> float:
        """Open another page of the app in this session (as the sidebar's link does)."""
        with self._cond:
            # late messages of the page left (its run may still be ending) must not bring it back
            self._left_hash = self._page_hash
            self.page, self._page_hash = page, ""
            self._fragments.clear()  # the old page's live views are gone
        return self.rerun()

    def set_value(self, label: str, value: float | list[float]) -> None:
        """Keep ``value`` for the widget with this label (sent with every later rerun): a
        list for a slider, an int for an integer number input, a float for a float one."""
        with self._cond:
            wid, kind = self.widgets[label]
        state = WidgetState(id=wid)
        if kind == "slider":
            state.double_array_value.data.extend([float(v) for v in value])
        elif isinstance(value, int):  # an integer number input (Epochs) reads int_value only
            state.int_value = int(value)
        else:
            state.double_value = float(value)
        with self._cond:
            self._states[wid] = state

    # ------------------------------------------------------------ receiving
    def _read(self) -> None:
        try:
            for frame in self._ws:
                msg = ForwardMsg()
                msg.ParseFromString(frame)
                self._handle(msg)
        except Exception as exc:  # the connection ended
            if not self._closed.is_set():
                with self._cond:
                    self.errors.append(f"connection: {type(exc).__name__}: {exc}")
        finally:
            with self._cond:
                self._closed.set()
                self._cond.notify_all()

    def _handle(self, msg: Any) -> None:
        kind = msg.WhichOneof("type")
        now = time.monotonic()
        with self._cond:
            if kind == "delta" and msg.delta.WhichOneof("type") == "new_element":
                element_kind, text, inner = _element_text(msg.delta.new_element)
                if hasattr(inner, "id") and getattr(inner, "label", ""):
                    self.widgets[inner.label] = (inner.id, element_kind)
                if element_kind == "exception":
                    self.errors.append(f"exception: {inner.message}")
                self.texts.append((now, element_kind, text))
            elif kind == "navigation" and msg.navigation.page_script_hash not in ("", self._left_hash):
                self._page_hash = msg.navigation.page_script_hash
            elif kind == "new_session":  # each script run starts with one
                self._run_hash = msg.new_session.page_script_hash
            elif kind == "auto_rerun":  # kept with its page: a late one of the page left is never rerun
                self._fragments[msg.auto_rerun.fragment_id] = (msg.auto_rerun.interval, self._run_hash)
            elif kind == "stop_auto_rerun":
                for fid in msg.stop_auto_rerun.fragment_ids:
                    self._fragments.pop(fid, None)
            elif kind == "script_finished":
                self.runs_finished += 1
                if msg.script_finished != ForwardMsg.FINISHED_EARLY_FOR_RERUN:
                    self._busy = False
            self._cond.notify_all()

    def _auto(self) -> None:
        """Rerun each auto-refreshing fragment at its interval, as the browser does."""
        due: dict[str, float] = {}
        while not self._closed.wait(0.1):
            with self._cond:
                if self._busy:  # the browser sends no fragment rerun while the page runs
                    continue
                fragments = {fid: every for fid, (every, page) in self._fragments.items()
                             if page and page == self._page_hash}
            now = time.monotonic()
            for fid, every in fragments.items():
                if now >= due.setdefault(fid, now + every):
                    due[fid] = now + every
                    try:
                        self.rerun(fragment=fid)
                    except Exception:  # closing
                        return

    # ------------------------------------------------------------ waiting
    def wait_for(self, predicate: Callable[[str], bool], *, since: float = 0.0, timeout: float = 60.0,
                 kinds: tuple[str, ...] | None = None) -> tuple[float, str] | None:
        """(time, text) of the first element after ``since`` whose text satisfies
        ``predicate`` (of the given element kinds), or None after ``timeout`` seconds."""
        end = time.monotonic() + timeout
        seen = 0
        with self._cond:
            while True:
                for t, kind, text in self.texts[seen:]:
                    if t >= since and (kinds is None or kind in kinds) and predicate(text):
                        return t, text
                seen = len(self.texts)
                left = end - time.monotonic()
                if left <= 0 or self._closed.is_set():
                    return None
                self._cond.wait(min(left, 0.5))

    def wait_text(self, text: str, **kw) -> tuple[float, str] | None:
        """:meth:`wait_for` an element that contains ``text``."""
        return self.wait_for(lambda t: text in t, **kw)

    def wait_widget(self, label: str, timeout: float = 120.0) -> bool:
        """True once a widget with this label has arrived."""
        end = time.monotonic() + timeout
        with self._cond:
            while label not in self.widgets:
                left = end - time.monotonic()
                if left <= 0 or self._closed.is_set():
                    return False
                self._cond.wait(min(left, 0.5))
        return True

    def settle(self, timeout: float = 60.0) -> bool:
        """True once no run of the page is asked for or running (False after ``timeout``)."""
        end = time.monotonic() + timeout
        with self._cond:
            while self._busy:
                left = end - time.monotonic()
                if left <= 0 or self._closed.is_set():
                    return False
                self._cond.wait(min(left, 0.5))
        return True

    def last_text(self, pattern: str) -> str | None:
        """The latest element text matching the regular expression ``pattern``."""
        rx = re.compile(pattern)
        with self._cond:
            for _, _, text in reversed(self.texts):
                if rx.search(text):
                    return text
        return None

    def forget(self) -> None:
        """Drop the texts seen so far (keeps memory flat over many runs)."""
        with self._cond:
            self.texts.clear()

    def close(self) -> None:
        self._closed.set()
        try:
            self._ws.close()
        except Exception:  # already gone
            pass
