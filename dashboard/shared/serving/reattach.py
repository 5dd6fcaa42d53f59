"""A reload comes back to its job: jobs kept per browser, found again by an unguessable token.

A reload of a tab opens a new Streamlit session, which by itself knows nothing of the old
session's running job: without this module it would start the same work again while the
old job ran on until the watchdog abandoned it (:mod:`dashboard.shared.serving.job_watch`).

- **The browser's token.** On its first visit a browser gets a random token
  (:func:`secrets.token_urlsafe`, 256 bits) in a cookie, ``pux_browser``, set by a script the
  app draws once per session (``SameSite=Strict``, ``Path=/``, one day, ``Secure`` over
  HTTPS). The token is never in a URL, so a link shared or shown while presenting carries
  none. The server keeps only its SHA-256 digest.
- **Reattach, never take over.** :meth:`BrowserJobs.keep` files a job under its browser's
  digest and an identity (what the page computes: a slot and its inputs' key).
  :meth:`BrowserJobs.claim` hands it to a new session of the *same* browser only when the
  job's own session is gone (a reload, not a second tab still open) and the job was not
  abandoned: the job's ``session_id`` becomes the new session, so the watchdog keeps it.
  Another browser has another token and so another digest: it never finds the job.
- **Bounded.** At most :data:`MAX_BROWSERS` browsers and :data:`MAX_JOBS` jobs each
  (the oldest go first); an ended job is dropped once its session has been gone a minute.

The cookie is readable by the page's scripts (it is set by one): the app renders no markup
from users, so no script but the app's own runs there.
"""
from __future__ import annotations

import hashlib
import re
import secrets
import threading
import time
from collections import OrderedDict
from typing import Any, Callable, Hashable

__all__ = ["COOKIE", "MAX_BROWSERS", "MAX_JOBS", "BrowserJobs", "BROWSER_JOBS", "browser_token",
           "remember_browser", "keep", "claim", "cookie_script"]

#: the cookie that holds a browser's token
COOKIE = "pux_browser"
#: browsers the registry remembers at most (the least recently active go first)
MAX_BROWSERS = 512
#: jobs per browser at most (the oldest go first)
MAX_JOBS = 16
#: seconds an ended job stays claimable (its result may still be unread) after it was filed
ENDED_KEEP_S = 60.0
_TOKEN = re.compile(r"[A-Za-z0-9_-]{43}")
_STATE_KEY = "pux_browser_token"
_SENT_KEY = "pux_browser_cookie_sent"


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode("ascii")).hexdigest()


def valid_token(value: Any) -> bool:
    """True for a token this module makes: 43 URL-safe characters (256 random bits)."""
    return isinstance(value, str) and _TOKEN.fullmatch(value) is not None


class BrowserJobs:
    """Jobs filed by browser (token digest) and identity, for a reload to reattach to.

    Parameters
    ----------
    alive : callable(session_id) -> bool
        Whether a session is connected; a job whose session is alive is never handed over
        (two tabs of one browser each keep their own job).
    clock : callable
        Monotonic seconds.
    """

    def __init__(self, *, alive: Callable[[Any], bool], clock: Callable[[], float] = time.monotonic,
                 max_browsers: int = MAX_BROWSERS, max_jobs: int = MAX_JOBS) -> None:
        self.alive, self.clock = alive, clock
        self.max_browsers, self.max_jobs = int(max_browsers), int(max_jobs)
        self._jobs: OrderedDict[str, OrderedDict[Hashable, tuple[Any, float]]] = OrderedDict()
        self._lock = threading.Lock()

    def keep(self, token: str | None, identity: Hashable, job: Any) -> None:
        """File ``job`` under the browser of ``token`` (None or malformed: nothing is kept)."""
        if not valid_token(token):
            return
        digest = _digest(token)
        with self._lock:
            mine = self._jobs.setdefault(digest, OrderedDict())
            self._jobs.move_to_end(digest)
            mine[identity] = (job, self.clock())
            mine.move_to_end(identity)
            while len(mine) > self.max_jobs:
                mine.popitem(last=False)
            while len(self._jobs) > self.max_browsers:
                self._jobs.popitem(last=False)

    def claim(self, token: str | None, identity: Hashable, *, session_id: str | None) -> Any | None:
        """The job this browser filed under ``identity``, now owned by ``session_id``; None
        when there is none, its session is still connected, or it was abandoned."""
        if not valid_token(token) or session_id is None:
            return None
        digest = _digest(token)
        with self._lock:
            mine = self._jobs.get(digest)
            entry = None if mine is None else mine.get(identity)
            if entry is None:
                return None
            job, filed = entry
            stop = getattr(job, "_stop", None)
            if getattr(stop, "abandoned", False) or (
                    not job.running and self.clock() - filed > ENDED_KEEP_S):
                del mine[identity]
                return None
            if job.session_id == session_id or self.alive(job.session_id):
                return job if job.session_id == session_id else None
            job.session_id = session_id  # the pool and the watchdog now count it as this session's
            mine[identity] = (job, self.clock())
            return job

    def __len__(self) -> int:
        with self._lock:
            return sum(len(m) for m in self._jobs.values())


def _alive(session_id: Any) -> bool:
    from dashboard.shared.serving.job_watch import session_alive

    return session_alive(session_id)


#: the server's registry
BROWSER_JOBS = BrowserJobs(alive=_alive)


def browser_token() -> str | None:
    """This session's browser token: the cookie's when it holds a valid one, else a new one
    (kept in the session; :func:`remember_browser` puts it in the cookie). None outside a
    server session."""
    import streamlit as st

    try:
        token = st.session_state.get(_STATE_KEY)
    except Exception:  # no session (bare mode)
        return None
    if valid_token(token):
        return token
    try:
        cookie = st.context.cookies.get(COOKIE)
    except Exception:  # no request behind this session (AppTest)
        cookie = None
    token = cookie if valid_token(cookie) else secrets.token_urlsafe(32)
    st.session_state[_STATE_KEY] = token
    st.session_state[_SENT_KEY] = token == cookie
    return token


def cookie_script(token: str) -> str:
    """The script that stores ``token`` in the browser's cookie (``token`` must be valid:
    it is written into the script, so nothing else may be)."""
    if not valid_token(token):
        raise ValueError("token must be 43 URL-safe characters (from browser_token()).")
    return ("<script>(function(){var s=location.protocol==='https:'?'; Secure':'';"
            f"document.cookie='{COOKIE}={token}; Path=/; Max-Age=86400; SameSite=Strict'+s;}})();</script>")


def remember_browser() -> None:
    """Put this session's token in the browser's cookie, once per session (from the app's
    shell, in the sidebar, where it takes no room on the page)."""
    import streamlit as st

    token = browser_token()
    if token is None or st.session_state.get(_SENT_KEY):
        return
    with st.sidebar:
        st.html(cookie_script(token), unsafe_allow_javascript=True)
    st.session_state[_SENT_KEY] = True


def _session() -> str | None:
    from dashboard.shared.serving.jobs import current_session_id

    return current_session_id()


def keep(identity: Hashable, job: Any) -> None:
    """File ``job`` (just started by this session) under this browser and ``identity``."""
    BROWSER_JOBS.keep(browser_token(), identity, job)


def claim(identity: Hashable) -> Any | None:
    """This browser's job under ``identity`` whose tab is gone (a reload), now this session's."""
    return BROWSER_JOBS.claim(browser_token(), identity, session_id=_session())
