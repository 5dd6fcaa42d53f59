"""The Tour's stories, computed once per server and shared read-only by every session.

A story (:data:`core.stories.STORIES`) takes a few seconds on the built-in samples; the
first visitor of a step computes its story (the page shows a progress bar), every later
visit of any session gets it at once. The Tour's numbers do not depend on the session: it
always runs with :data:`TOUR_SEED` (display measurements of seeded runs, never a release).
"""
from __future__ import annotations

import threading
from typing import Any

from core.progress import Progress
from core.stories import STORIES
from dashboard.cached import TTL
from dashboard.cached.sweeps import FinishedResults
from dashboard.tour import STEPS, StepView, TourStep

__all__ = ["TOUR_SEED", "story", "story_ready", "step_view", "all_views", "export_html"]

TOUR_SEED = 0
_RESULTS = FinishedResults(max_entries=len(STORIES), ttl=TTL)
_LOCKS = {key: threading.Lock() for key in STORIES}


def story_ready(key: str) -> bool:
    """Whether the story ``key`` is computed (a step of it shows at once)."""
    return _RESULTS.get(key) is not None


def story(key: str, progress: Progress | None = None) -> Any:
    """The result of the story ``key`` (:data:`core.stories.STORIES`), computed on first use.

    One computation per story at a time: a second session asking meanwhile waits for it.
    """
    if key not in STORIES:
        raise ValueError(f"there is no story called {key!r}; choose one of {sorted(STORIES)}.")
    done = _RESULTS.get(key)
    if done is not None:
        return done
    with _LOCKS[key]:
        done = _RESULTS.get(key)
        if done is None:
            fn, _ = STORIES[key]
            done = fn(random_state=TOUR_SEED, progress=progress)
            _RESULTS.put(key, done)
    return done


def step_view(step: TourStep, progress: Progress | None = None) -> StepView:
    """What ``step`` shows (its story computed first when needed)."""
    return step.view(None if step.story is None else story(step.story, progress))


def all_views(progress: Progress | None = None) -> list[tuple[TourStep, StepView]]:
    """Every step with what it shows, for the export; ``progress`` gets the share of stories done."""
    keys = [k for k in dict.fromkeys(s.story for s in STEPS) if k is not None]
    for i, key in enumerate(keys):
        if progress is not None:
            progress(i / len(keys), f"Story {i + 1} of {len(keys)}: {STORIES[key][1]}")
        story(key)
    return [(step, step_view(step)) for step in STEPS]


def clear() -> None:
    """Forget every computed story (tests)."""
    _RESULTS.clear()


def export_html(progress: Progress | None = None) -> bytes:
    """The Tour as one offline HTML page (:func:`dashboard.tour_report.build_tour_report`)."""
    from dashboard.tour_report import build_tour_report

    return build_tour_report(all_views(progress)).encode("utf-8")
