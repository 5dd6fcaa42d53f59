"""The watchdog's grace: jobs of a session gone for GRACE_S seconds are due (job_watch)."""
from __future__ import annotations

from types import SimpleNamespace

import pytest

from dashboard.shared.serving.job_watch import GRACE_S, GoneSessions


class _Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def _watch(alive: dict, grace: float = 6.0):
    clock = _Clock()
    return GoneSessions(grace, clock=clock, alive=lambda sid: alive.get(sid, True)), clock


def test_a_job_is_due_once_its_session_is_gone_for_the_grace():
    alive = {"a": False}
    gone, clock = _watch(alive)
    job = SimpleNamespace(session_id="a")
    assert gone.due([job]) == []  # first seen gone
    clock.now = 5.9
    assert gone.due([job]) == []
    clock.now = 6.0
    assert gone.due([job]) == [job]


def test_a_session_that_comes_back_starts_its_count_again():
    alive = {"a": False}
    gone, clock = _watch(alive)
    job = SimpleNamespace(session_id="a")
    gone.due([job])
    clock.now, alive["a"] = 4.0, True
    assert gone.due([job]) == []  # a blip: the same tab reconnected
    clock.now, alive["a"] = 5.0, False
    assert gone.due([job]) == []
    clock.now = 10.9
    assert gone.due([job]) == []
    clock.now = 11.0
    assert gone.due([job]) == [job]


def test_live_sessions_are_never_due_and_ended_jobs_are_forgotten():
    alive = {"a": True, "b": False}
    gone, clock = _watch(alive)
    a, b = SimpleNamespace(session_id="a"), SimpleNamespace(session_id="b")
    gone.due([a, b])
    assert gone.due([a]) == [] and not gone._since  # b ended otherwise: nothing kept of it
    clock.now = 100.0
    assert gone.due([a]) == []


def test_the_grace_lets_a_closed_tabs_job_go_within_ten_seconds():
    assert 0 < GRACE_S and GRACE_S + 2.0 <= 10.0  # the watchdog looks every 2 s


def test_a_negative_grace_is_refused():
    with pytest.raises(ValueError, match="grace_s"):
        GoneSessions(-1.0, clock=_Clock(), alive=lambda sid: True)


def test_while_others_wait_a_gone_tabs_job_is_due_after_the_shorter_grace():
    from dashboard.shared.serving.job_watch import CROWDED_GRACE_S

    alive = {"a": False}
    gone, clock = _watch(alive)
    job = SimpleNamespace(session_id="a")
    gone.due([job], grace_s=CROWDED_GRACE_S)
    clock.now = CROWDED_GRACE_S - 0.1
    assert gone.due([job], grace_s=CROWDED_GRACE_S) == []
    clock.now = CROWDED_GRACE_S
    assert gone.due([job], grace_s=CROWDED_GRACE_S) == [job]
    assert CROWDED_GRACE_S < GRACE_S
