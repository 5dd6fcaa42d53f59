"""Distance to closest record at 10^5 and 10^6 training records: every record scored.

Tables like Adult's (:func:`benchmarks.timing.adult_like`: Adult rows drawn with
replacement, integers moved a little; Adult has 48,842 rows), three independent draws:
the training records, the holdout (a quarter of their size) and a "release" (a noisy
copy of the training records: each integer moved again, one category in ten redrawn), so
the risk is above its baseline. Each size runs in a fresh process (its peak resident
memory is its own) and reports:

- ``auto``: :func:`core.evaluation.attacks.distance_to_closest_record` end to end with
  ``search="auto"`` (an HNSW index at these sizes): seconds, the search's measured recall
  and its interval, the risk, peak memory;
- ``exact_projected``: the exact blocked search timed on 2,000 queries and scaled to
  every record (what scoring every record exactly would take; quadratic);
- at 10^5 also ``exact``: the exact search on every record, and the risk it gives (the
  approximate risk's error);
- ``cluster``: the same measure with the query blocks as tasks on a LocalCluster of 2
  worker processes (``scheduler``), when ``PUX_SCHEDULER`` is not set to another cluster.

Growth: seconds(10^6) / seconds(10^5) against n log n's 12 and n^2's 100.
``quick``: 10^4 and 10^5 records.
"""
from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _tables(n: int):
    import numpy as np

    from benchmarks.timing import adult_like

    train, label = adult_like(n, seed=1)
    holdout, _ = adult_like(max(1, n // 4), seed=2)
    rng = np.random.default_rng(3)
    release = train.frame.copy()
    for col in release.columns:
        if release[col].dtype.kind in "iu":
            release[col] = release[col] + rng.integers(-1, 2, len(release))
        else:
            redraw = rng.random(len(release)) < 0.1
            values = release[col].to_numpy(dtype=object)
            values[redraw] = rng.choice(values, int(redraw.sum()))
            release[col] = values
    return train.frame, holdout.frame, release, label


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def measure(n: int, scheduler: str | None, exact: bool) -> dict:
    """One size, in this process (called in a fresh child by :func:`run`)."""
    from core.evaluation.attacks import distance_to_closest_record
    from core.evaluation.attacks.nearest import encode_for_distance, nearest_distances

    train, holdout, release, label = _tables(n)
    base = _peak_mb()
    t0 = time.perf_counter()
    auto = distance_to_closest_record(release, train, holdout, search="auto", scheduler=scheduler,
                                      random_state=0)
    seconds = time.perf_counter() - t0
    out = {"records": n, "data": label, "scheduler": scheduler or "this process",
           "auto": {"seconds": round(seconds, 1), "search": auto["search"], "recall": auto["search_recall"],
                    "note": auto["search_note"], "risk": round(auto["risk"], 4), "baseline": auto["baseline"],
                    "peak_mb_above_tables": round(_peak_mb() - base, 0), "peak_mb": round(_peak_mb(), 0)}}
    T, R = encode_for_distance(train, release)
    t0 = time.perf_counter()
    nearest_distances(T[:2000], R)
    out["exact_projected_seconds"] = round(2 * (time.perf_counter() - t0) * n / 2000, 1)  # two searches
    if exact:
        t0 = time.perf_counter()
        ex = distance_to_closest_record(release, train, holdout, search="exact")
        out["exact"] = {"seconds": round(time.perf_counter() - t0, 1), "risk": round(ex["risk"], 4),
                        "risk_error_of_auto": round(auto["risk"] - ex["risk"], 4)}
    return out


def _child(n: int, scheduler: str | None, exact: bool) -> dict:
    code = ("import json, sys; sys.path.insert(0, %r); from benchmarks.bench_dcr_scale import measure; "
            "print('RESULT ' + json.dumps(measure(%d, %r, %r)))" % (str(ROOT), n, scheduler, exact))
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=3600)
    for line in proc.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[len("RESULT "):])
    return {"records": n, "error": (proc.stderr or proc.stdout)[-2000:]}


def run(*, quick: bool = False) -> dict:
    small, large = (10_000, 100_000) if quick else (100_000, 1_000_000)
    out: dict = {"sizes": [_child(small, None, True), _child(large, None, False)]}
    cluster = os.environ.get("PUX_SCHEDULER") or None
    started = None
    if cluster is None:
        from distributed import LocalCluster

        started = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0",
                               memory_limit=0)
        cluster = started.scheduler_address
    try:
        out["cluster"] = _child(large, cluster, False)
    finally:
        if started is not None:
            started.close()
    a, b = out["sizes"]
    if "auto" in a and "auto" in b:
        import math

        out["growth"] = {"seconds_ratio": round(b["auto"]["seconds"] / max(a["auto"]["seconds"], 1e-9), 1),
                         "n_log_n_ratio": round(large * math.log(large) / (small * math.log(small)), 1),
                         "n_squared_ratio": (large / small) ** 2}
    return out
