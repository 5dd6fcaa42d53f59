"""dashboard.tour.cached: a story computed once per server, followed by who waits, prefetched."""
from __future__ import annotations

import threading
import time

import pytest

from dashboard.tour import cached as tour


@pytest.fixture
def slow_story(monkeypatch):
    """The 'cdp' story replaced by a slow fake that counts its calls and reports progress."""
    calls = []

    def fake(*, random_state, progress):
        calls.append(random_state)
        for i in range(5):
            progress(i / 5, f"part {i}")
            time.sleep(0.1)
        return object()

    monkeypatch.setitem(tour.STORIES, "cdp", (fake, "fake"))
    monkeypatch.setattr(tour, "_RESULTS", type(tour._RESULTS)(max_entries=8))
    return calls


def test_a_story_is_computed_once_with_the_tour_seed(slow_story):
    first = tour.story("cdp")
    assert tour.story("cdp") is first and slow_story == [tour.TOUR_SEED]
    assert tour.story_ready("cdp")


def test_a_session_waiting_on_another_follows_its_progress(slow_story):
    results, seen = {}, []
    other = threading.Thread(target=lambda: results.setdefault("other", tour.story("cdp")))
    other.start()
    time.sleep(0.15)
    mine = tour.story("cdp", lambda f, m: seen.append(m))
    other.join()
    assert mine is results["other"] and len(slow_story) == 1
    assert seen and all(m.startswith("part") for m in seen)


def test_prefetch_computes_every_story_once_per_cache_lifetime(monkeypatch):
    started = []
    monkeypatch.setattr(tour, "_PREFETCH", {"started": -float("inf")})
    monkeypatch.setattr(tour, "story", lambda key, progress=None: started.append(key))
    tour.prefetch()
    tour.prefetch()
    for _ in range(50):
        if len(started) == len(tour.STORIES):
            break
        time.sleep(0.05)
    assert started == list(tour.STORIES)  # once, in the order of the steps


def test_an_unknown_story_is_refused():
    with pytest.raises(ValueError, match="no story called"):
        tour.story("nope")
