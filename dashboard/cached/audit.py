"""Privacy audits as session-owned background jobs (a thread per audit, never shared).

An audit runs the mechanism thousands of times; :class:`AuditJob` runs
:func:`core.audit_cases.run_case` in a thread so the page can show a progress bar and a
Stop button. The job lives in the session that started it (``st.session_state``), not in
a shared cache: another viewer never joins or stops it.
"""
from __future__ import annotations

from typing import Any

from core.audit import AuditResult
from core.audit_cases import AuditCase, run_case
from dashboard.cached.jobs import BackgroundJob


class AuditJob(BackgroundJob):
    """One audit in a background thread, observable and stoppable."""

    name = "privacy-audit"

    def __init__(self, case: AuditCase, *, runs: int, seed: int, key: Any) -> None:
        super().__init__()
        self.case = case
        self.runs = int(runs)
        self.seed = int(seed)
        self.key = key
        self.result: AuditResult | None = None
        self._fraction = 0.0
        self._message = "starting"

    def _progress(self, fraction: float, message: str) -> None:
        with self._lock:
            self._fraction, self._message = float(fraction), str(message)

    def _work(self) -> None:
        self.result = run_case(self.case, runs=self.runs, random_state=self.seed,
                               progress=self._progress, stop=self._stop)

    def progress(self) -> tuple[float, str]:
        """(fraction done, 'run 300 of 1000, about 4 s left')."""
        with self._lock:
            fraction, message = self._fraction, self._message
        return fraction, message + self.time_left(fraction)


def start_audit(case: AuditCase, *, runs: int, seed: int, key: Any) -> AuditJob:
    """A started audit job (the page keeps it in its session state)."""
    return AuditJob(case, runs=runs, seed=seed, key=key).start()
