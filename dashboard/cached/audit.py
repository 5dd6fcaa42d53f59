"""Privacy audits as session-owned background jobs (a thread per audit, never shared).

An audit runs the mechanism thousands of times; :class:`AuditJob` runs
:func:`core.audit_cases.run_case` in a thread so the page can show a progress bar and a
Stop button. The job lives in the session that started it (``st.session_state``), not in
a shared cache: another viewer never joins or stops it.
"""
from __future__ import annotations

import threading
from typing import Any

from core.audit import AuditResult
from core.audit_cases import AuditCase, run_case


class AuditJob:
    """One audit in a background thread, observable and stoppable."""

    def __init__(self, case: AuditCase, *, runs: int, seed: int, key: Any) -> None:
        self.case = case
        self.runs = int(runs)
        self.seed = int(seed)
        self.key = key
        self.result: AuditResult | None = None
        self.error: BaseException | None = None
        self._fraction = 0.0
        self._message = "starting"
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._run, name="privacy-audit", daemon=True)

    def start(self) -> "AuditJob":
        self._thread.start()
        return self

    def _progress(self, fraction: float, message: str) -> None:
        with self._lock:
            self._fraction, self._message = float(fraction), str(message)

    def _run(self) -> None:
        try:
            self.result = run_case(self.case, runs=self.runs, random_state=self.seed,
                                   progress=self._progress, stop=self._stop)
        except BaseException as exc:  # shown on the page as one sentence
            self.error = exc
        finally:
            self._done.set()

    def stop(self) -> None:
        """Stop after the current chunk of runs; the bound then uses the runs done."""
        self._stop.set()

    @property
    def running(self) -> bool:
        return not self._done.is_set()

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the audit ends (tests); True when it ended."""
        return self._done.wait(timeout)

    def progress(self) -> tuple[float, str]:
        with self._lock:
            return self._fraction, self._message


def start_audit(case: AuditCase, *, runs: int, seed: int, key: Any) -> AuditJob:
    """A started audit job (the page keeps it in its session state)."""
    return AuditJob(case, runs=runs, seed=seed, key=key).start()
