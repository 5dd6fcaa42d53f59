"""Timing helper shared by the benchmarks."""
from __future__ import annotations

import time
from typing import Callable


def best_of(fn: Callable[[], object], repeats: int) -> float:
    """Fastest of ``repeats`` wall-clock timings of ``fn()`` in seconds (least disturbed run)."""
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)
