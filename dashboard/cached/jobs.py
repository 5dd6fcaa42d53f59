"""Long work in a background thread that a page can watch and stop.

A subclass implements :meth:`BackgroundJob._work`, which must check ``self._stop`` (a
``threading.Event``) now and then and never touch streamlit. The page keeps the job (in
its session state), draws :meth:`progress`-like state it exposes, and calls :meth:`stop`.
"""
from __future__ import annotations

import threading


class BackgroundJob:
    """A thread with a stop flag, a done flag and the error it ended with (if any)."""

    name = "pux-job"

    def __init__(self) -> None:
        self.error: BaseException | None = None
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._run, name=self.name, daemon=True)

    def start(self):
        """Start the thread; returns the job."""
        self._thread.start()
        return self

    def _work(self) -> None:  # pragma: no cover - subclasses implement it
        raise NotImplementedError

    def _run(self) -> None:
        try:
            self._work()
        except BaseException as exc:  # shown on the page as one sentence
            self.error = exc
        finally:
            self._done.set()

    def stop(self) -> None:
        """Ask the work to stop at its next check (what it did so far is kept)."""
        self._stop.set()

    @property
    def running(self) -> bool:
        return not self._done.is_set()

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the job ends (tests and the CLI); True when it ended."""
        return self._done.wait(timeout)
