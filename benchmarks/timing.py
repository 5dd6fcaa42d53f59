"""Helpers shared by the benchmarks: timing and the dataset they run on."""
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


def adult_or_supplier(*, quick_rows: int | None = None):
    """Adult without missing rows, or the supplier sample where Adult is not available.

    Returns the dataset and a label saying which one it is (written into the JSON).
    """
    from core.data import load_adult, load_sample
    from core.validation import DataError

    try:
        ds, source = load_adult().dropna(), "adult"
    except DataError:
        ds, source = load_sample("supplier"), "supplier (Adult not available)"
    if quick_rows is not None:
        ds = ds.head(quick_rows)
    return ds, source


def adult_or_census():
    """Adult (with its missing cells), or the census sample where Adult is not available
    (the IMPOSTER benchmarks: sex sensitive in both). Returns the dataset and its label."""
    from core.data import load_adult, load_sample
    from core.validation import DataError

    try:
        return load_adult(), "adult"
    except DataError:
        return load_sample("census"), "census (Adult not available: set PUX_DATA_DIR)"
