"""The watchdog's grace: a job outlives its tab for a few seconds, then is abandoned.

A tab that loses its connection for a moment (a network blip) comes back as the same
session and keeps its job. A tab closed or reloaded does not: once its session has been
gone for :data:`GRACE_S` seconds, its jobs are abandoned (a child process is killed at once,
nothing is kept) and their slots go to the viewers still there.
"""
from __future__ import annotations

from typing import Any, Callable, Iterable

__all__ = ["CROWDED_GRACE_S", "GRACE_S", "GoneSessions", "session_alive"]

#: seconds a job outlives its tab (with the watchdog's look every 2 s: gone within 8 s); a
#: reload of the same browser within it reattaches (:mod:`dashboard.shared.serving.reattach`)
GRACE_S = 6.0
#: the grace while other jobs wait for a slot: a gone tab's job is the first to give way
CROWDED_GRACE_S = 3.0


class GoneSessions:
    """Which jobs' sessions have been gone for ``grace_s`` seconds.

    Parameters
    ----------
    grace_s : float
        Seconds a session may be gone before its jobs are due.
    clock : callable
        Monotonic seconds.
    alive : callable(session_id) -> bool
        Whether a session is connected.
    """

    def __init__(self, grace_s: float, *, clock: Callable[[], float], alive: Callable[[Any], bool]) -> None:
        if not grace_s >= 0:
            raise ValueError(f"grace_s must be 0 or more seconds, got {grace_s!r}.")
        self.grace_s, self.clock, self.alive = float(grace_s), clock, alive
        self._since: dict[int, float] = {}  # id(job) -> when its session was first seen gone

    def due(self, jobs: Iterable[Any], *, grace_s: float | None = None) -> list:
        """The jobs (of ``jobs``, every job the pool holds) whose session has been gone for
        :attr:`grace_s` seconds (or ``grace_s`` when shorter: others wait); a job whose
        session came back starts its count again."""
        grace = self.grace_s if grace_s is None else min(self.grace_s, float(grace_s))
        now, held, out = self.clock(), set(), []
        for job in jobs:
            key = id(job)
            held.add(key)
            if self.alive(job.session_id):
                self._since.pop(key, None)
            elif now - self._since.setdefault(key, now) >= grace:
                self._since.pop(key, None)
                out.append(job)
        for key in [k for k in self._since if k not in held]:  # ended otherwise
            del self._since[key]
        return out


def session_alive(session_id: str | None) -> bool:
    """Whether a Streamlit session is connected (True for no session, or no runtime to ask)."""
    if session_id is None:
        return True
    try:
        from streamlit.runtime import Runtime

        if not Runtime.exists():
            return True  # bare mode and AppTest: no runtime to ask
        return Runtime.instance().is_active_session(session_id)
    except Exception:  # pragma: no cover - streamlit internals moved
        return True
