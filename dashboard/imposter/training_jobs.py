"""IMPOSTER's training on the page as a session-owned background job (paper 002).

Training runs as a job in the bounded pool of :mod:`dashboard.shared.serving.jobs`, in a spawned
child process, so the page can draw its curves live and stop it: :class:`TrainingJob` holds
the per-iteration events the child sends (each an entry of the synthesizer's ``events_``,
sent from its ``progress`` callback); Stop sets the ``stop`` event the training checks each
iteration. Running jobs are never shared between sessions; finished ones are kept by their
inputs in a bounded cache (:func:`finished_training`, :class:`dashboard.shared.serving.cache.BoundedCache`)
so the next session with the same inputs gets the model at once. A session keeps its
trainings, one per dataset, in its state (:func:`session_jobs`, :func:`keep_job`).
"""
from __future__ import annotations

from typing import Any

import pandas as pd

from core.data import Dataset
from core.imposter import ImposterSynthesizer
from dashboard.shared.serving.cache import BoundedCache
from dashboard.shared.serving.jobs import BackgroundJob, run_in_child

__all__ = ["TrainingJob", "training_job", "finished_training", "remember_training", "session_jobs",
           "keep_job", "JOBS_KEY"]

#: the session's trainings, one per dataset (fingerprint), the last few datasets
JOBS_KEY, _MAX_JOBS = "imposter_jobs", 3


def _train(*, send, stop, dataset, sensitive, implicit, params, seed, n_rows):
    """The training, run in a spawned child (:func:`dashboard.shared.serving.jobs.run_in_child`):
    each iteration's entry of the model's ``events_`` is sent to the job as it is appended."""
    model = ImposterSynthesizer(**params, random_state=seed)
    sent = [0]

    def progress(fraction: float, message: str) -> None:
        events = model.events_
        for event in events[sent[0]:]:
            send(event)
        sent[0] = len(events)

    model.fit(dataset, sensitive, implicit, progress=progress, stop=stop)
    return model, model.sample(n_rows)


class TrainingJob(BackgroundJob):
    """One IMPOSTER training in a background thread, observable and stoppable.

    The thread never touches streamlit: it appends the synthesizer's per-iteration events
    to a list under a lock; the page reads :meth:`history` and calls :meth:`stop`.
    """

    name = "imposter-training"

    def __init__(self, dataset: Dataset, sensitive: str, implicit: tuple[str, ...],
                 params: dict[str, Any], seed: int, n_rows: int) -> None:
        super().__init__()
        self.dataset = dataset
        self.sensitive = sensitive
        self.implicit = tuple(implicit)
        self.params = dict(params)
        self.seed = seed
        self.n_rows = n_rows
        # the pool learns seconds per epoch and row, so a 1,000-epoch training's wait is
        # forecast at ten times a 100-epoch one's
        self.work_units = float(max(int(self.params.get("epochs", 1)), 1) * max(dataset.n_rows, 1))
        self.total = 0
        self._events: list[dict] = []
        self.model: ImposterSynthesizer | None = None
        self.synthetic: pd.DataFrame | None = None

    def _callback(self, event: dict) -> None:
        self.mark_working()
        with self._lock:
            self._events.append(event)
            self.total = event["iterations"]

    def _work(self) -> None:
        """Train in a child process: the server's own threads keep the interpreter, so pages
        and sliders stay responsive while it trains. Events and the fitted model come back
        through a queue; Stop sets an event the child's training loop checks."""
        self.model, self.synthetic = run_in_child(
            _train, dict(dataset=self.dataset, sensitive=self.sensitive, implicit=self.implicit,
                         params=self.params, seed=self.seed, n_rows=self.n_rows),
            on_message=self._callback, stop=self._stop, name=self.name)

    @property
    def stopped(self) -> bool:
        return self._stop.is_set() or bool(self.model is not None and self.model.stopped_)

    def history(self) -> pd.DataFrame:
        """The events so far, one row per iteration."""
        with self._lock:
            return pd.DataFrame(list(self._events))

    def progress(self) -> tuple[int, int]:
        with self._lock:
            return len(self._events), self.total

    def fraction_done(self) -> float | None:
        """Iterations done over iterations planned (None before the first)."""
        done, total = self.progress()
        return done / total if total else None


#: finished trainings by their inputs, shared read-only between sessions (the last few)
_FINISHED = BoundedCache(max_entries=4)


def finished_training(key: tuple) -> TrainingJob | None:
    """A finished (never stopped, no error) training for these inputs, shared read-only."""
    return _FINISHED.get(key)


def remember_training(key: tuple, job: TrainingJob) -> None:
    """Keep a finished training so the next session with the same inputs gets it at once."""
    if job.running or job.error is not None or job.stopped or job.model is None:
        return
    _FINISHED.put(key, job)


def training_job(dataset: Dataset, sensitive: str, implicit: tuple[str, ...],
                 params: tuple[tuple[str, Any], ...], seed: int) -> TrainingJob:
    """A queued training job owned by the calling session (the page keeps it in its state).

    Running jobs are never shared between sessions: one viewer's Stop stops only their own.

    Raises
    ------
    dashboard.shared.serving.jobs.QueueFull
        When the session already has as many jobs waiting as the pool allows.
    """
    return TrainingJob(dataset, sensitive, implicit, dict(params), seed, dataset.n_rows).start()


def session_jobs(state: Any) -> dict:
    """The session's trainings by dataset fingerprint (a dict kept in ``state``)."""
    jobs = state.get(JOBS_KEY)
    if not isinstance(jobs, dict):
        jobs = state[JOBS_KEY] = {}
    return jobs


def keep_job(jobs: dict, dataset: Dataset, job: TrainingJob) -> None:
    """Keep ``job`` as the training of ``dataset`` (the oldest dataset's goes first)."""
    fp = dataset.fingerprint()
    jobs.pop(fp, None)
    jobs[fp] = job
    while len(jobs) > _MAX_JOBS:
        old = jobs.pop(next(iter(jobs)))
        if old.running:
            old.stop()
