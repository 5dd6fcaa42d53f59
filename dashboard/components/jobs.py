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


def sweep_view(slot: str, sweep: Any):
    """The finished table of ``sweep`` (a :class:`dashboard.cached.sweeps.Sweep`), or None
    while this session's job computes it (its queue place or progress bar with time left,
    and Stop, are drawn here; the page reruns when it ends).

    Raises what the sweep raised, for the page's error box.
    """
    from dashboard.cached.sweeps import sweep_or_job

    jobs = st.session_state.setdefault("pux_sweep_jobs", {})
    restart = bool(st.session_state.get(f"{slot}_again"))
    result, job = sweep_or_job(jobs, slot, sweep, restart=restart)
    if result is not None:
        return result
    if job.error is not None:
        raise job.error
    if not job.running:  # stopped by the user
        st.info(f"{sweep.title} was stopped; nothing is drawn until it runs to the end.",
                icon=":material/stop_circle:")
        st.button("Run it again", key=f"{slot}_again")
        return None
    live_job(job, stop_key=f"{slot}_stop",
             draw_progress=lambda: _bar(job))
    return None


def _bar(job: Any) -> None:
    fraction, text = job.progress()
    st.progress(min(max(fraction, 0.0), 1.0), text=text)
