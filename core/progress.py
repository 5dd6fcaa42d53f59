"""Progress reports of long core functions: one callable type and a way to nest stages.

A function that can take more than a second or two takes ``progress=None``, a callable
``progress(fraction, message)`` with ``fraction`` in [0, 1]; it calls it now and then and
never draws from a random generator because of it, so results do not depend on whether
anyone watches. A caller that wants to stop the work raises from the callback (the
dashboard's jobs do): the exception leaves the function at its next report.

A function made of stages hands each stage a :func:`stage` of its own callback, so the
stage's 0..1 fills its share of the whole.
"""
from __future__ import annotations

from typing import Callable

__all__ = ["Progress", "report", "stage"]

#: ``progress(fraction, message)``: fraction done in [0, 1] and a short message
Progress = Callable[[float, str], None]


def report(progress: Progress | None, fraction: float, message: str) -> None:
    """Call ``progress(fraction, message)`` when there is a callback (fraction clipped to [0, 1])."""
    if progress is not None:
        progress(min(max(float(fraction), 0.0), 1.0), message)


def stage(progress: Progress | None, start: float, end: float, label: str = "") -> Progress | None:
    """The callback of one stage that fills ``[start, end]`` of the whole.

    Parameters
    ----------
    progress : callable or None
        The whole function's callback; None gives None (nothing to report).
    start, end : float
        The stage's share of the whole, 0 <= start <= end <= 1.
    label : str
        Prefixed to the stage's messages ("Feature selection: run 3 of 9").
    """
    if progress is None:
        return None
    if not 0.0 <= start <= end <= 1.0:
        raise ValueError(f"A stage needs 0 <= start <= end <= 1, got {start} and {end}.")

    def _stage(fraction: float, message: str) -> None:
        text = f"{label}: {message}" if label and message else (label or message)
        report(progress, start + (end - start) * min(max(float(fraction), 0.0), 1.0), text)

    return _stage
