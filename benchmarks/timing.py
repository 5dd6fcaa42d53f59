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


def adult_like(n: int, *, seed: int):
    """``n`` rows like Adult's (census where Adult is absent), for sizes Adult does not have:
    rows drawn with replacement, then every integer column moved by up to +-3 % of its range
    (rounded), so that a drawn row is seldom an exact copy of another. Returns the Dataset
    and a label that says so (written into the JSON)."""
    from dataclasses import replace

    import numpy as np

    ds, source = adult_or_census()
    ds = ds.dropna() if source == "adult" else ds
    rng = np.random.default_rng(seed)
    frame = ds.frame.iloc[rng.integers(0, len(ds.frame), n)].reset_index(drop=True)
    for col in frame.columns:
        if frame[col].dtype.kind in "iu":
            span = int(frame[col].max() - frame[col].min())
            step = max(1, int(0.03 * span))
            moved = frame[col].to_numpy() + rng.integers(-step, step + 1, n)
            frame[col] = np.clip(moved, ds.frame[col].min(), ds.frame[col].max())
    label = f"{source} rows drawn with replacement to {n:,}, integers moved by up to 3 % of their range"
    return replace(ds, frame=frame), label
