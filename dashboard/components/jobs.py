"""The live view of a running job: its place in the queue or its progress, and Stop."""
from __future__ import annotations

from typing import Any, Callable

import streamlit as st


def live_job(job: Any, *, stop_key: str, draw_progress: Callable[[], None], every: float = 1.0) -> None:
    """Redraw every ``every`` seconds while ``job`` runs; rerun the page when it ends.

    Parameters
    ----------
    job : dashboard.cached.jobs.BackgroundJob
    stop_key : str
        Widget key of the Stop button (one per page).
    draw_progress : callable
        Draws the job's progress once it has left the queue.
    """
    @st.fragment(run_every=every)
    def _live() -> None:
        if not job.running:
            st.rerun()
        if job.queued:
            st.info(job.queue_text() or "Starting...", icon=":material/hourglass_top:")
        else:
            draw_progress()
        if st.button("Stop" if not job.queued else "Leave the queue", key=stop_key):
            job.stop()
            job.wait(timeout=30)
            st.rerun()

    _live()
