"""Progress and stopping of long core functions: the one protocol, a callback and a stop event.

A function that can take more than a second or two takes two keyword arguments:

- ``progress=None``: a callable ``progress(fraction, message)`` with ``fraction`` in
  [0, 1], called now and then through :func:`report`;
- ``stop=None``: a ``threading.Event``. When it is set the function ends at its next
  check (:func:`check_stop`, or :func:`report` with ``stop=``): work that can keep what
  it did (a training, an audit, a sweep) returns it and says it stopped early; other work
  raises :class:`Stopped`.

Neither draws from a random generator, so results do not depend on whether anyone watches
or could have stopped them. A callback may also raise to stop the work (the exception
leaves the function at its next report); the stop event is the way that keeps results.

A function made of stages hands each stage a :func:`stage` of its own callback, so the
stage's 0..1 fills its share of the whole.
"""
from __future__ import annotations

import threading
from typing import Callable

__all__ = ["Progress", "Stop", "Stopped", "check_stop", "report", "stage", "stop_requested", "watch", "watch_lines"]

#: ``progress(fraction, message)``: fraction done in [0, 1] and a short message
Progress = Callable[[float, str], None]
#: the stop event a caller sets to end the work early
Stop = threading.Event


class Stopped(RuntimeError):
    """Raised by a long function whose ``stop`` event was set and that has nothing to keep."""


def stop_requested(stop: Stop | None) -> bool:
    """True when ``stop`` is an event that is set.

    Raises
    ------
    TypeError
        ``stop`` is neither None nor an event (anything with ``is_set``).
    """
    if stop is None:
        return False
    if not callable(getattr(stop, "is_set", None)):
        raise TypeError(f"stop must be a threading.Event or None, got {type(stop).__name__}.")
    return bool(stop.is_set())


def check_stop(stop: Stop | None, what: str = "The work") -> None:
    """Raise :class:`Stopped` when ``stop`` is set (for work that keeps nothing when stopped)."""
    if stop_requested(stop):
        raise Stopped(f"{what} was stopped before it finished.")


def report(progress: Progress | None, fraction: float, message: str, *, stop: Stop | None = None) -> None:
    """Call ``progress(fraction, message)`` when there is a callback (fraction clipped to [0, 1]),
    then raise :class:`Stopped` if ``stop`` is set."""
    if progress is not None:
        progress(min(max(float(fraction), 0.0), 1.0), message)
    check_stop(stop)


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


def watch(progress: Progress | None, stop: Stop | None) -> Progress | None:
    """``progress`` that also honours ``stop``: each report first raises :class:`Stopped` when
    ``stop`` is set.

    A long function that hands its ``progress`` down to its steps starts with
    ``progress = watch(progress, stop)``: every step's report then checks the event, so the
    work ends at the next report without threading ``stop`` through every step. Without a
    ``stop`` it returns ``progress`` unchanged (None stays None: nothing to report).
    """
    stop_requested(stop)  # a wrong type fails here, before any work
    if stop is None:
        return progress

    def _watched(fraction: float, message: str) -> None:
        check_stop(stop)
        if progress is not None:
            progress(fraction, message)

    return _watched


def watch_lines(progress: Callable[[str], None], stop: Stop | None) -> Callable[[str], None]:
    """:func:`watch` for a callback of lines, ``progress(message)`` (what the reproductions
    print): each line first raises :class:`Stopped` once ``stop`` is set."""
    stop_requested(stop)  # a wrong type fails here, before any work
    if stop is None:
        return progress

    def _told(message: str) -> None:
        check_stop(stop)
        progress(message)

    return _told
