"""The live view of a running job: its place in the queue or its progress, and Stop."""
from __future__ import annotations

import os
import threading
import time
from typing import Any, Callable

import streamlit as st


def live_job(job: Any, *, stop_key: str, draw_progress: Callable[[], None], every: float = 1.0,
             draw_after: Callable[[], None] | None = None) -> None:
    """Redraw every ``every`` seconds while ``job`` runs; rerun the page when it ends.

    Parameters
    ----------
    job : dashboard.shared.serving.jobs.BackgroundJob
    stop_key : str
        Widget key of the Stop button (one per page).
    draw_progress : callable
        Draws the job's progress once it has left the queue.
    draw_after : callable, optional
        Draws what the job has so far, under the bar, with Stop beside the bar.
    """
    @st.fragment(run_every=every)
    def _live() -> None:
        if not job.running:
            st.rerun()
        # with something drawn under it, Stop sits beside the bar: both stay in the first screen
        bar, button = (st.columns([6, 1], vertical_alignment="bottom") if draw_after is not None
                       else (st.container(), st.container()))
        with bar:
            if job.queued:
                st.info(job.queue_text() or "Starting...", icon=":material/hourglass_top:")
            else:
                draw_progress()
        if button.button("Stop" if not job.queued else "Leave the queue", key=stop_key):
            job.stop()
            job.wait(timeout=30)
            st.rerun()
        if draw_after is not None and not job.queued:
            draw_after()

    _live()


def sweep_view(slot: str, sweep: Any, *, draw_partial: Callable[[Any], None] | None = None):
    """The finished table of ``sweep`` (a :class:`dashboard.shared.serving.sweeps.Sweep`), or None
    while this session's job computes it (its queue place or progress bar with time left,
    and Stop, are drawn here; the page reruns when it ends). ``draw_partial`` draws what a
    sweep with ``partials`` has handed over so far, under the bar and Stop.

    Raises what the sweep raised, for the page's error box.
    """
    return _job_view(slot, sweep, results=None, pool=None, wait=0.0, draw_partial=draw_partial)


def sweep_on_request(slot: str, sweep: Any, *, button: str, key: str, waiting: str, icon: str | None = None):
    """A sweep that runs only when asked (trainings nobody wants are never started).

    Its finished result (this or any session's) is returned at once. Otherwise a button
    (``button``, widget key ``key``) starts it, and from then on its progress, time left and
    Stop show here (:func:`sweep_view`) until it ends. Settings changed after the button
    was pressed need it again: this session's job for the old inputs is stopped, and
    ``waiting`` (markdown of our own) says what a press would run. Returns the result or None.
    """
    from dashboard.shared.serving.sweeps import FINISHED

    done = FINISHED.get(sweep.key)
    if done is not None:
        return done
    if st.button(button, key=key, type="primary", icon=icon):
        st.session_state[f"{slot}_asked"] = sweep.key
    if st.session_state.get(f"{slot}_asked") != sweep.key:
        old = st.session_state.get("pux_sweep_jobs", {}).get(slot)
        if old is not None and old.key != sweep.key and old.running:
            old.stop()
        st.caption(waiting)
        return None
    return sweep_view(slot, sweep)


def setup_view(slot: str, sweep: Any, *, wait: float | None = None, stop: bool = True):
    """The result of a setup step that the rest of the page needs (feature selection, a
    fitted map, detection), computed once per input by a job of this session.

    A step that ends within ``wait`` seconds (default 2, 1 with ``stop`` False, or
    ``PUX_SETUP_WAIT``) is simply returned. A longer one draws its progress bar with the
    time left and a Stop button, and the page stops here until it ends (then it reruns and
    goes on); stopped, it offers "Run it again". With ``stop`` False the page goes on
    without it (None is returned), for a section that nothing below needs.

    Raises what the step raised, for the page's error box.
    """
    from dashboard.shared.serving.jobs import SETUP_POOL
    from dashboard.shared.serving.sweeps import SETUPS

    if wait is None:  # a section the page can draw without waits less, so the rest comes sooner
        wait = _setup_wait(2.0 if stop else 1.0)
    result = _job_view(slot, sweep, results=SETUPS, pool=SETUP_POOL, wait=wait)
    if result is None and stop:
        st.stop()
    return result


def _setup_wait(default: float) -> float:
    """Seconds a page waits for a setup step before it shows the step's progress
    (``PUX_SETUP_WAIT`` when set, else ``default``)."""
    try:
        return max(0.0, float(os.environ.get("PUX_SETUP_WAIT", default)))
    except ValueError:
        return default


def _job_view(slot: str, sweep: Any, *, results, pool, wait: float,
              draw_partial: Callable[[Any], None] | None = None):
    from dashboard.shared.serving.sweeps import sweep_or_job

    from dashboard.shared.serving.jobs import QueueFull

    jobs = st.session_state.setdefault("pux_sweep_jobs", {})
    restart = bool(st.session_state.get(f"{slot}_again"))
    try:
        result, job = sweep_or_job(jobs, slot, sweep, restart=restart, results=results, pool=pool)
    except QueueFull as exc:
        refused_view(exc, pool=pool)
        return None
    if result is not None:
        return result
    if wait > 0 and job.wait(wait) and job.result is not None:
        return job.result
    if job.error is not None:
        raise job.error
    if not job.running:  # stopped by the user
        st.info(f"{sweep.title} was stopped; nothing is drawn until it runs to the end.",
                icon=":material/stop_circle:")
        st.button("Run it again", key=f"{slot}_again")
        return None
    def so_far() -> None:
        partial = getattr(job, "partial", None)
        if draw_partial is not None and partial is not None:
            draw_partial(partial)

    live_job(job, stop_key=f"{slot}_stop", draw_progress=lambda: _bar(job), draw_after=so_far)
    return None


def refused_view(error: Exception, *, pool: Any = None, every: float = 2.0) -> None:
    """Why a job was not queued (:class:`dashboard.shared.serving.jobs.QueueFull`: the session has
    its share of the line already), and a check every ``every`` seconds that reruns the page
    once the session has room again, so the job is queued then without a click."""
    from dashboard.shared.serving.jobs import POOL, current_session_id

    reason = getattr(error, "reason", str(error))
    st.warning(f"{reason} This one is queued by itself as soon as there is room.", icon=":material/block:")
    pool = POOL if pool is None else pool
    session = current_session_id()

    @st.fragment(run_every=every)
    def _watch() -> None:
        if pool.has_room(session):
            st.rerun()

    _watch()


def with_estimate(fn: Callable[[], Any], *, expected_s: float, text: str) -> Any:
    """``fn()`` for a step that cannot report its own progress (reading an upload): over a
    second expected, a bar fills by the time spent against ``expected_s`` (never past 95 %)
    and says about how long is left; returns what ``fn`` returns, raises what it raises."""
    if expected_s < 1.0:
        with st.spinner(f"{text}..."):
            return fn()
    out: dict[str, Any] = {}

    def _run() -> None:
        try:
            out["value"] = fn()
        except BaseException as exc:  # re-raised in the script thread
            out["error"] = exc

    worker = threading.Thread(target=_run, name="pux-estimated-step", daemon=True)
    start = time.monotonic()
    worker.start()
    bar = st.progress(0.0, text=f"{text}: about {expected_s:.0f} s")
    while worker.is_alive():
        worker.join(0.25)
        spent = time.monotonic() - start
        left = max(expected_s - spent, 1.0)
        bar.progress(min(spent / expected_s, 0.95), text=f"{text}: about {left:.0f} s left")
    bar.empty()
    if "error" in out:
        raise out["error"]
    return out["value"]


def _bar(job: Any) -> None:
    fraction, text = job.progress()
    st.progress(min(max(fraction, 0.0), 1.0), text=text)
