"""The protection sections of the IMPOSTER page (paper 002, Algorithm 2): the training
settings, the Train button, and the live and stoppable training with its curves. Each
function draws one part of the page where the page calls it (the sweeps are in
:mod:`dashboard.imposter.sweeps`).
"""
from __future__ import annotations

import streamlit as st

from dashboard.imposter import cached
from dashboard.imposter import training_jobs
from dashboard.imposter import wording
from dashboard.imposter import charts_training
from dashboard.shared.widgets.chart_data import show_chart
from dashboard.shared.widgets.errors import page_errors
from dashboard.shared.widgets.job_view import live_job
from dashboard.shared.serving import reattach
from dashboard.shared.serving.jobs import QueueFull
from dashboard.shared.widgets.present import control_hint, is_presenting
from dashboard.shared.serving.state import show_error


def batch_warning(dataset) -> int:
    """The batch size for ``dataset``, with a warning when the table is too small for four
    batches of 500."""
    batch = cached.batch_size(dataset.n_rows)
    if batch < 500:
        st.warning(f"This table has only {dataset.n_rows:,} rows, fewer than four batches of 500: the batch is "
                   f"reduced to {batch} so each epoch sees several batches. With so few rows the generator can "
                   "collapse to a few typical records; compare the synthetic table's spread with the real one "
                   "below before using it.", icon=":material/warning:")
    return batch


def training_controls(t_left, dataset, batch: int):
    """lambda in ``t_left`` and the other training settings folded below: the training's
    parameters."""
    small = dataset.n_rows <= 5000
    lam = t_left.slider("lambda (weight of D2, Eq. 10)", 0.0, 10.0, 1.0, 0.1, key="imposter_lambda",
                        help="0 = VAE-CGAN, keeps every correlation. About 1 removes the leak; much "
                        "larger values trade utility for little more protection.")
    with st.expander("Training settings: epochs, latent size, G's V2 term"):
        k1, k2, k3 = st.columns(3)
        epochs = int(k1.number_input("Epochs", 1, 1000, 100 if small else 15, key="imposter_epochs",
                                     help=f"Passes over the data (batch size {batch})."))
        latent = int(k2.selectbox("Latent size", [8, 16, 32, 64], index=2, key="imposter_latent"))
        v2_loss = k3.radio(
            "G's V2 term", ["minimax", "capped", "confusion"], horizontal=True,
            key="imposter_v2_loss",
            help="minimax: Eq. 12 as in the paper (the default; samples come from averaged "
            "generator weights, which keeps it from ending on a reversed relation). capped: no "
            "reward for pushing D2 below chance (less utility in our runs). confusion: pull "
            "D2's output to uniform.")
    return cached.training_params(lam, epochs, latent, batch, v2_loss)


def start_training(t_left, dataset, sensitive: str, implicit: list[str], params, seed, det):
    """The Train button in ``t_left``: this dataset's training job (started, reused or
    kept), or None; and the key of the settings on screen."""
    job_key = (dataset.fingerprint(), sensitive, tuple(implicit), params, seed)
    train = t_left.button("Train", type="primary", key="imposter_train", disabled=not implicit)
    jobs = training_jobs.session_jobs(st.session_state)
    job = jobs.get(dataset.fingerprint())  # never another dataset's training
    identity = ("imposter-training", dataset.fingerprint())
    if job is None:  # a reload of this browser finds the training its tab left running
        job = reattach.claim(identity)
        if job is not None:
            training_jobs.keep_job(jobs, dataset, job)
    if not implicit:
        with t_left:
            st.info(wording.nothing_to_protect(det, presenting=is_presenting()), icon=":material/info:")
    if train:
        if job is not None and job.running:
            job.stop()
        new = training_jobs.finished_training(job_key)  # the same inputs trained before: reuse at once
        if new is None:
            with page_errors(stop=True):
                try:
                    new = training_jobs.training_job(dataset, sensitive, tuple(implicit), params, seed)
                    new.key = job_key
                    reattach.keep(identity, new)
                except QueueFull as exc:  # this session has its share of the line already
                    t_left.warning(str(exc), icon=":material/block:")
        if new is not None:
            job = new
            training_jobs.keep_job(jobs, dataset, job)
    return job, job_key


def _progress_drawer(job, n_classes: int, dataset):
    """A function that draws ``job``'s progress bar (while it runs) and training curves."""
    def draw() -> None:
        done, total = job.progress()
        if job.running:
            text = (f"Training: iteration {done:,} of {total:,}{job.time_left(done / total)}" if total
                    else "Starting...")
            st.progress(min(done / total, 1.0) if total else 0.0, text=text)
        history = job.history()
        show_chart(charts_training.training_curves(history, n_classes=n_classes, data=dataset.name),
                   charts_training.training_data(history, n_classes=n_classes),
                   name="imposter-training", key="imposter_curves", width="stretch")
        st.caption("How to read: left, the discriminators' and the generator's adversarial losses; "
                   "middle, reconstruction error and KL of the VAE; right, D2's accuracy at telling "
                   "s from the implicit columns of generated records: at the dotted line, no leak left. Its batch "
                   "holds each value of s equally often, so always guessing one value scores 1 / (number of "
                   "values) there, not the table's majority share the other sections read accuracies against.")
    return draw


def training_view(t_right, job, job_key, dataset, sensitive: str, implicit: list[str]) -> bool:
    """The training in ``t_right``: live while it runs, its curves and outcome once done.
    True when a finished model is there for the sections after the sweeps."""
    draw_progress = _progress_drawer(job, cached.class_count(dataset, sensitive), dataset)
    with t_right:
        if job is not None and job.running:
            live_job(job, stop_key="imposter_stop", draw_progress=draw_progress)
        elif job is None:
            if implicit:
                control_hint("Press **Train** to fit the synthesizer; the curves grow live and **Stop** keeps "
                             "what was learned so far.")
        elif job.cancelled:
            control_hint("The training was stopped before it started; press **Train** to queue it again.")
        else:
            draw_progress()
            if job.error is not None:
                show_error(job.error)
                return False
            training_jobs.remember_training(job.key, job)
            model, synthetic = job.model, job.synthetic
            if job.key != job_key:
                st.info("The settings above changed since this model was trained"
                        + ("" if is_presenting() else "; press **Train** to train with them")
                        + ". The results below are for the last model.")
            state = "stopped early" if model.stopped_ else "finished"
            st.success(f"Training {state} after {model.iterations_:,} iterations; "
                       f"{len(synthetic):,} synthetic rows generated.")
            return True
    return False

