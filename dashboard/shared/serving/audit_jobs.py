"""Privacy audits as session-owned background jobs (a thread per audit, never shared).

An audit runs the mechanism thousands of times; :class:`AuditJob` runs
:func:`core.audit_cases.run_cases` in a thread so the page can show a progress bar and a
Stop button. A page may give one case or several (the pipeline pairs of one release: a new
category, a value far out of range, a hub record, a held-out record); the job runs each
and keeps the worst (:func:`core.audit_cases.worst_result`). The job lives in the session
that started it (``st.session_state``), not in a shared cache: another viewer never joins
or stops it.
"""
from __future__ import annotations

from typing import Any, Sequence

from core.audit.result import AuditResult
from core.audit_cases import AuditCase, as_cases, run_cases, worst_result
from dashboard.shared.serving.jobs import BackgroundJob, QueueFull


class AuditJob(BackgroundJob):
    """One audit (of one case or several) in a background thread, observable and stoppable.

    Attributes
    ----------
    cases : list of AuditCase
        What the job audits, in order.
    results : list of AuditResult
        One per case done (fewer when stopped).
    result : AuditResult or None
        The worst of ``results`` (None until done).
    case : AuditCase
        The case of ``result`` once done (the first case before).
    """

    name = "privacy-audit"

    def __init__(self, case: AuditCase | Sequence[AuditCase], *, runs: int, seed: int, key: Any) -> None:
        super().__init__()
        self.cases = as_cases(case)
        self.case = self.cases[0]
        self.runs = int(runs)
        self.seed = int(seed)
        self.key = key
        self.results: list[AuditResult] = []
        self.result: AuditResult | None = None
        self._fraction = 0.0
        self._message = "starting"

    def _progress(self, fraction: float, message: str) -> None:
        with self._lock:
            self._fraction, self._message = float(fraction), str(message)

    def _work(self) -> None:
        results = run_cases(self.cases, runs=self.runs, random_state=self.seed,
                            progress=self._progress, stop=self._stop)
        worst = worst_result(results)
        self.results = results
        self.case = self.cases[worst]
        self.result = results[worst]

    def progress(self) -> tuple[float, str]:
        """(fraction done, 'run 300 of 1000, about 4 s left')."""
        with self._lock:
            fraction, message = self._fraction, self._message
        return fraction, message + self.time_left(fraction)


def start_audit(case: AuditCase | Sequence[AuditCase], *, runs: int, seed: int, key: Any) -> AuditJob:
    """A started audit job (the page keeps it in its session state).

    When the session already has as many jobs waiting as the pool allows, the job is not
    queued: it comes back ended, its ``error`` the refusal
    (:class:`dashboard.shared.serving.jobs.QueueFull`, a ValueError the page shows as one sentence
    where the audit's result would be)."""
    job = AuditJob(case, runs=runs, seed=seed, key=key)
    try:
        return job.start()
    except QueueFull as exc:
        return job.refuse(exc)
