"""Correlated / group sensitivity on Adult vs one bare float32 X @ X.T pass over the same rows.

Target (issue 3): CS in <= 2x the time of the bare product, peak memory < 1 GB. Adult:
45,222 rows after dropping missing values, 14 standardised columns (one per attribute).
Peak memory is numpy's allocations traced by tracemalloc during the call.
"""
from __future__ import annotations

import time
import tracemalloc

import numpy as np

from core.cdp.sensitivity import record_matrix
from benchmarks.timing import adult_or_supplier
from core.correlation.records import correlated_sensitivity


def _bare_pass(A: np.ndarray, block: int = 1024) -> float:
    t0 = time.perf_counter()
    for i in range(0, len(A), block):
        A[i:i + block] @ A.T
    return time.perf_counter() - t0


def run(*, quick: bool = False) -> dict:
    ds, source = adult_or_supplier(quick_rows=8000 if quick else None)
    X = record_matrix(ds).X
    A = np.ascontiguousarray(X, dtype=np.float32)
    out = {"dataset": source, "rows": len(X), "columns": X.shape[1]}
    repeats = 1 if quick else 2
    t_ref = min(_bare_pass(A) for _ in range(repeats))
    out["bare_float32_xxt_seconds"] = t_ref
    for measure in ("pearson", "mahalanobis"):
        times = []
        for _ in range(repeats):
            tracemalloc.start()
            t0 = time.perf_counter()
            rep = correlated_sensitivity(X, measure=measure, threshold=0.8)
            times.append(time.perf_counter() - t0)
            peak = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
        out[measure] = {
            "seconds": min(times),
            "time_ratio_vs_bare_xxt": min(times) / t_ref,
            "peak_memory_mb": peak / 2**20,
            "CS": rep.correlated,
            "GS": rep.group,
            "target_ratio": 2.0,
        }
    return out
