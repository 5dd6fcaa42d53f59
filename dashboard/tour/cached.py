"""The Tour's stories, computed once per server and shared read-only by every session.

A story (:data:`core.papers.stories.STORIES`) takes a few seconds on the built-in samples. The
Tour page starts :func:`prefetch` on its first visit, so the later stories are ready while
a presenter reads the first steps; a step whose story is not ready computes it (or follows
the computation under way) with a progress bar, and every later visit of any session gets
it at once. The Tour's numbers do not depend on the session: it
always runs with :data:`TOUR_SEED` (display measurements of seeded runs, never a release).
"""
from __future__ import annotations

import threading
import time
from typing import Any

from core.runtime.progress import Progress
from core.papers.stories import STORIES
from dashboard.shared.serving.cache import TTL
from dashboard.shared.serving.sweeps import FinishedResults
from dashboard.tour.steps import STEPS, StepView, TourStep

__all__ = ["TOUR_SEED", "story", "story_ready", "step_view", "all_views", "export_html", "prefetch"]

TOUR_SEED = 0
#: the stories (also in the warm start's cache: they run on the built-in samples only)
_RESULTS = FinishedResults(max_entries=len(STORIES), ttl=TTL, disk_name="tour")
_LOCKS = {key: threading.Lock() for key in STORIES}
#: the latest progress of each story being computed, for a session that waits on it
_PROGRESS: dict[str, tuple[float, str]] = {}
_PREFETCH = {"started": -float("inf")}
_PREFETCH_LOCK = threading.Lock()


def story_ready(key: str) -> bool:
    """Whether the story ``key`` is computed (a step of it shows at once)."""
    return key in _RESULTS or _from_warm(key)


def story(key: str, progress: Progress | None = None) -> Any:
    """The result of the story ``key`` (:data:`core.papers.stories.STORIES`), computed on first use.

    One computation per story at a time: a second session asking meanwhile waits for it.
    """
    if key not in STORIES:
        raise ValueError(f"there is no story called {key!r}; choose one of {sorted(STORIES)}.")
    done = _RESULTS.get(key)
    if done is not None or _from_warm(key):
        return done if done is not None else _RESULTS.get(key)
    lock = _LOCKS[key]
    while not lock.acquire(timeout=0.25):  # another session or the prefetch computes it: follow its progress
        if progress is not None and key in _PROGRESS:
            progress(*_PROGRESS[key])
    try:
        done = _RESULTS.get(key)
        if done is None:
            def report(fraction: float, message: str) -> None:
                _PROGRESS[key] = (float(fraction), str(message))
                if progress is not None:
                    progress(fraction, message)

            fn, _ = STORIES[key]
            done = fn(random_state=TOUR_SEED, progress=report)
            _RESULTS.put(key, done)
    finally:
        _PROGRESS.pop(key, None)
        lock.release()
    return done


def _from_warm(key: str) -> bool:
    """Whether the warm start computed story ``key`` (it is then kept here)."""
    from dashboard.shared.serving.warm_cache import server_cache

    cache = server_cache()
    return cache is not None and _RESULTS.load_warm(key, cache)


def prefetch() -> None:
    """Compute every story not yet computed, in the order of the steps, in one background
    thread of the server (once per cache lifetime): a presenter reading the first steps
    finds the later ones ready. Each story is the same for everyone (seed 0, built-in
    samples), so the thread belongs to no session; a session that reaches a story first
    computes it itself and the thread skips it."""
    now = time.monotonic()
    with _PREFETCH_LOCK:
        if now - _PREFETCH["started"] < TTL:
            return
        _PREFETCH["started"] = now

    def work() -> None:
        for key in dict.fromkeys(s.story for s in STEPS if s.story is not None):
            try:
                story(key)
            except Exception:  # noqa: BLE001 - the step that needs it computes it again and shows the error
                _PREFETCH["started"] = -float("inf")
                return

    threading.Thread(target=work, name="tour-prefetch", daemon=True).start()


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
    """The Tour as one offline HTML page (:func:`dashboard.tour.report.build_tour_report`)."""
    from dashboard.tour.report import build_tour_report

    return build_tour_report(all_views(progress)).encode("utf-8")
