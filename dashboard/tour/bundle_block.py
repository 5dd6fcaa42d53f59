"""The Tour's "Download bundle" block: the chosen stories as a zip a colleague can rerun.

The bundle's numbers are the page's own: the stories this server computed for the Tour (seed
:data:`dashboard.tour.cached.TOUR_SEED`, the stories' defaults), turned into JSON by
:func:`core.bundle.pages.tour.tour_numbers`, which is what the bundle's script recomputes. With
every story chosen, the bundle's report is the Tour's own HTML page (its numbers are exactly the
bundle's); with fewer, the bundle's generic report of its numbers. Layout and session state only.
"""
from __future__ import annotations

from typing import Any, Sequence

import streamlit as st

from core.bundle.pages import tour as tour_bundle
from core.runtime.progress import stage
from dashboard.shared.widgets.bundle_view import bundle_download
from dashboard.tour import cached

__all__ = ["STORIES_KEY", "uses_tour_report", "tour_extra", "bundle_block"]

#: The session-state key of the stories chosen for the bundle.
STORIES_KEY = "tour_bundle_stories"


def uses_tour_report(stories: Sequence[str]) -> bool:
    """Whether a bundle of ``stories`` takes the Tour's own HTML report: only when it holds every
    story (the report shows them all; with fewer it would show numbers the bundle does not hold)."""
    return set(stories) == set(tour_bundle.STORY_KEYS)


def tour_extra(stories: Sequence[str]) -> dict[str, Any]:
    """The page's numbers of ``stories`` (computed first where this server has not yet, with a
    progress bar) and, for the whole Tour, its HTML report."""
    bar = st.progress(0.0, text="Computing the stories...")

    def told(fraction: float, message: str) -> None:
        bar.progress(min(max(float(fraction), 0.0), 1.0), text=str(message))

    results = {key: cached.story(key, stage(told, i / len(stories), (i + 1) / len(stories)))
               for i, key in enumerate(stories)}
    bar.empty()
    out: dict[str, Any] = {"numbers": tour_bundle.tour_numbers(results)}
    if uses_tour_report(stories):
        out["report_html"] = cached.export_html().decode("utf-8")
    return out


def bundle_block() -> None:
    """The expander with the stories to bundle and :func:`dashboard.shared.widgets.bundle_view.bundle_download`."""
    with st.expander("Download bundle: the Tour's numbers with a script and notebook that rerun them",
                     icon=":material/folder_zip:"):
        chosen = st.multiselect("Stories in the bundle", tour_bundle.STORY_KEYS, default=list(tour_bundle.STORY_KEYS),
                                format_func=lambda key: cached.STORIES[key][1], key=STORIES_KEY,
                                help="Each story's numbers, references, claim and audits, seeded as the Tour "
                                     "shows them. Every story: the Tour's own HTML page is the report.")
        if not chosen:
            st.caption("Choose at least one story to bundle.")
            return
        config = tour_bundle.tour_config(seed=cached.TOUR_SEED, settings={"stories": list(chosen)})
        stories = config.settings["stories"]  # in the Tour's order
        bundle_download("tour", config=config, dataset=tour_bundle.tour_dataset(), releases_table=False,
                        extra=lambda: tour_extra(stories))
