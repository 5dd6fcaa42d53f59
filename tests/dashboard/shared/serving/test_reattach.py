"""A reload comes back to its job; another browser never does (dashboard.shared.serving.reattach)."""
from __future__ import annotations

import secrets
from types import SimpleNamespace

import pytest

from dashboard.shared.serving import reattach
from dashboard.shared.serving.jobs import StopSignal
from dashboard.shared.serving.reattach import BrowserJobs, cookie_script, valid_token


class _Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def _job(session: str, *, running: bool = True):
    return SimpleNamespace(session_id=session, running=running, _stop=StopSignal())


def _registry(alive: dict, **kw):
    clock = _Clock()
    return BrowserJobs(alive=lambda sid: alive.get(sid, False), clock=clock, **kw), clock


TOKEN, OTHER = secrets.token_urlsafe(32), secrets.token_urlsafe(32)


def test_a_reload_of_the_same_browser_takes_over_its_job():
    jobs, _ = _registry({"old": False})
    job = _job("old")
    jobs.keep(TOKEN, ("sweep", "slot", 1), job)
    assert jobs.claim(TOKEN, ("sweep", "slot", 1), session_id="new") is job
    assert job.session_id == "new"  # the pool and the watchdog now count it as the new tab's


def test_another_browser_never_finds_the_job():
    jobs, _ = _registry({"old": False})
    job = _job("old")
    jobs.keep(TOKEN, "training", job)
    assert jobs.claim(OTHER, "training", session_id="intruder") is None
    assert jobs.claim(None, "training", session_id="intruder") is None
    assert job.session_id == "old"


def test_a_second_open_tab_of_the_same_browser_does_not_take_the_first_tabs_job():
    jobs, _ = _registry({"first": True})
    job = _job("first")
    jobs.keep(TOKEN, "training", job)
    assert jobs.claim(TOKEN, "training", session_id="second") is None
    assert job.session_id == "first"


def test_another_identity_is_another_job():
    jobs, _ = _registry({"old": False})
    jobs.keep(TOKEN, ("sweep", "slot", 1), _job("old"))
    assert jobs.claim(TOKEN, ("sweep", "slot", 2), session_id="new") is None


def test_an_abandoned_job_is_never_handed_over():
    jobs, _ = _registry({"old": False})
    job = _job("old")
    jobs.keep(TOKEN, "training", job)
    job._stop.abandon()  # the watchdog gave up on it
    assert jobs.claim(TOKEN, "training", session_id="new") is None
    assert len(jobs) == 0


def test_an_ended_job_is_claimable_for_a_minute_then_forgotten():
    jobs, clock = _registry({"old": False})
    job = _job("old", running=False)
    jobs.keep(TOKEN, "audit", job)
    clock.now = reattach.ENDED_KEEP_S
    assert jobs.claim(TOKEN, "audit", session_id="new") is job
    clock.now += reattach.ENDED_KEEP_S + 1
    job.session_id = "gone again"
    assert jobs.claim(TOKEN, "audit", session_id="newer") is None


def test_only_the_tokens_digest_is_kept():
    jobs, _ = _registry({})
    jobs.keep(TOKEN, "training", _job("old"))
    assert TOKEN not in repr(jobs._jobs)


@pytest.mark.parametrize("bad", [None, "", "short", "x" * 44, "a" * 42 + "'", 43])
def test_a_malformed_token_keeps_nothing(bad):
    jobs, _ = _registry({})
    jobs.keep(bad, "training", _job("old"))
    assert len(jobs) == 0 and not valid_token(bad)


def test_browsers_and_their_jobs_are_bounded_oldest_first():
    jobs, _ = _registry({}, max_browsers=2, max_jobs=2)
    tokens = [secrets.token_urlsafe(32) for _ in range(3)]
    for token in tokens:
        for name in ("a", "b", "c"):
            jobs.keep(token, name, _job("old"))
    assert len(jobs) == 4  # two browsers of two jobs
    assert jobs.claim(tokens[0], "c", session_id="new") is None  # its browser went first
    assert jobs.claim(tokens[2], "a", session_id="new") is None  # its oldest job went first
    assert jobs.claim(tokens[2], "c", session_id="new") is not None


def test_the_cookie_script_holds_the_token_and_refuses_anything_else():
    script = cookie_script(TOKEN)
    assert f"pux_browser={TOKEN}; Path=/; Max-Age=86400; SameSite=Strict" in script
    with pytest.raises(ValueError, match="43 URL-safe"):
        cookie_script("'; alert(1); '")
