"""Correlated / group sensitivity on a Dask cluster vs this process (issue 13), with a projection.

200,000 seeded synthetic records x 14 standard-normal attributes (``quick``: 20,000), both
measures at delta0 = 0.8. For each: the pass in this process (its threads: up to 4, one
per core) and on a :class:`distributed.LocalCluster` of 2 worker processes of 1 thread,
started here; seconds each, their ratio, and whether the results are identical
(``np.array_equal`` on the per-record sums and counts, CS and GS).

Memory: the peak resident set of this process during each local pass, and of every
worker process (``Client.run``) during each cluster pass, with the resident set it started
from (so the difference is what the pass added: the shared rows, a block and two length-n
vectors per task). On Linux the peak is ``VmHWM``, reset before each pass through
``/proc/self/clear_refs``; ``ru_maxrss`` cannot be used for the workers, as a process
started by another inherits its parent's peak. Elsewhere the peak is ``ru_maxrss``, never
reset.

Projection: the cost of one block pair (block x block records, measured on one thread
here over a spread of block rows) times the number of blocks, n_b (n_b + 1) / 2 with
n_b = ceil(n / block), divided by the workers (perfect scaling), plus the measured
overhead of a task round trip for each task a worker runs (2 per worker), plus the
measured broadcast of the shared rows scaled linearly with n. Blocks with more correlated
pairs (real data) cost more than these random ones. The machine's load average is
recorded: another process may share its cores.
"""
from __future__ import annotations

import logging
import math
import os
import pickle
import resource
import time

import numpy as np

from core.runtime import compute
from core.correlation import records
from core.correlation.kernel import _default_block, _prepare
from core.correlation.records import correlated_sensitivity

THRESHOLD = 0.8
COLUMNS = 14
PROJECT_ROWS = (1_000_000, 10_000_000)
PROJECT_WORKERS = (8, 32, 128)


def _status_mb(field: str) -> float | None:
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) / 1024.0  # kB
    except OSError:
        pass
    return None


def _reset_peak() -> float:
    """Start a new peak of the calling process's resident set; returns the current one in MB."""
    try:
        with open("/proc/self/clear_refs", "w") as refs:
            refs.write("5")  # Linux: VmHWM := VmRSS
    except OSError:
        pass
    current = _status_mb("VmRSS")
    return current if current is not None else _peak_rss_mb()


def _peak_rss_mb() -> float:
    """Peak resident set of the calling process since :func:`_reset_peak`, in MB."""
    peak = _status_mb("VmHWM")
    return peak if peak is not None else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def _noop(item, *shared):
    return item


def _blocks(n: int, block: int) -> int:
    rows = math.ceil(n / block)
    return rows * (rows + 1) // 2


def _per_block_seconds(X: np.ndarray, measure: str, block: int, samples: int) -> tuple[float, int]:
    """Seconds per block pair on one thread: :func:`records._stripe_sums` over ``samples``
    block rows spread over the triangle (long and short rows alike)."""
    kernel, n, block = _prepare(X, measure, THRESHOLD, block)
    n_rows = math.ceil(n / block)
    picked = sorted({int(r) for r in np.linspace(0, n_rows - 1, samples)})
    with records.blas_limit(1):
        t0 = time.perf_counter()
        records._stripe_sums(kernel, n, block, [r * block for r in picked])
        seconds = time.perf_counter() - t0
    done = sum(n_rows - r for r in picked)
    return seconds / done, done


def _same(a, b) -> bool:
    return bool(np.array_equal(a.per_record, b.per_record)
                and np.array_equal(a.per_record_count, b.per_record_count)
                and a.correlated == b.correlated and a.group == b.group)


def run(*, quick: bool = False) -> dict:
    from distributed import LocalCluster

    n = 20_000 if quick else 200_000
    X = np.random.default_rng(0).normal(size=(n, COLUMNS))
    block = _default_block(n)
    out: dict = {
        "rows": n, "columns": COLUMNS, "threshold": THRESHOLD, "block_rows": block,
        "blocks": _blocks(n, block), "cpu_count": os.cpu_count(),
        "local_threads": 1 if n <= records._SMALL_N else min(os.cpu_count() or 1, records._MAX_THREADS),
        "loadavg_start": os.getloadavg(),
    }
    local = {}
    for measure in ("pearson", "mahalanobis"):
        start_mb = _reset_peak()
        t0 = time.perf_counter()
        local[measure] = correlated_sensitivity(X, measure=measure, threshold=THRESHOLD, scheduler="")
        out[measure] = {"local_seconds": time.perf_counter() - t0, "local_rss_start_mb": start_mb,
                        "local_peak_rss_mb": _peak_rss_mb()}

    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0",
                           silence_logs=logging.ERROR)
    address = cluster.scheduler_address
    try:
        client = compute.get_client(address)
        workers = compute.default_workers(address)
        out["cluster"] = {"workers": workers, "threads_per_worker": 1,
                          "tasks": records._cluster_parts(n, math.ceil(n / block), address)}
        for measure in ("pearson", "mahalanobis"):
            starts = client.run(_reset_peak)
            t0 = time.perf_counter()
            there = correlated_sensitivity(X, measure=measure, threshold=THRESHOLD, scheduler=address)
            seconds = time.perf_counter() - t0
            peaks = client.run(_peak_rss_mb)
            here = local[measure]
            out[measure].update({
                "cluster_seconds": seconds,
                "cluster_over_local": seconds / out[measure]["local_seconds"],
                "worker_rss_start_mb": [starts[w] for w in sorted(starts)],
                "worker_peak_rss_mb": [peaks[w] for w in sorted(peaks)],
                "identical": _same(here, there),
                "CS": here.correlated, "GS": here.group,
                "cluster_worker_seconds_per_block": seconds * workers / out["blocks"],
            })
        # a task round trip (submit, run nothing, gather), and the broadcast of the rows
        tasks = 16
        t0 = time.perf_counter()
        compute.map_tasks(_noop, range(tasks), scheduler=address)
        out["task_overhead_seconds"] = (time.perf_counter() - t0) / tasks
        kernel, _, _ = _prepare(X, "mahalanobis", THRESHOLD, block)
        t0 = time.perf_counter()
        future = client.scatter(kernel, broadcast=True, hash=False)
        out["broadcast_seconds"] = time.perf_counter() - t0
        client.cancel(future)
        out["shared_bytes_per_row"] = len(pickle.dumps(kernel, protocol=5)) / n
    finally:
        compute.close_clients()
        cluster.close()

    per_block, sampled = _per_block_seconds(X, "pearson", block, samples=4 if quick else 8)
    out["per_block_seconds"] = per_block
    out["per_block_sampled_blocks"] = sampled
    out["per_block_seconds_mahalanobis"] = _per_block_seconds(X, "mahalanobis", block, 4 if quick else 8)[0]
    out["projection"] = _projection(out, per_block, block)
    out["loadavg_end"] = os.getloadavg()
    return out


def _projection(out: dict, per_block: float, block: int) -> dict:
    """Expected seconds of the pearson pass for PROJECT_ROWS on PROJECT_WORKERS workers."""
    table = {
        "assumption": (
            "seconds = blocks * per_block_seconds / workers (perfect scaling over workers) "
            f"+ {records._TASKS_PER_WORKER} tasks per worker * task_overhead_seconds "
            "+ broadcast_seconds * n / rows (the shared rows' broadcast, linear in n); "
            "per-worker memory ~ shared_bytes_per_row * n + 16 n bytes + a few block^2 "
            "float32 buffers; the client adds each task's 16 n bytes of sums as it arrives, so it "
            "holds about 32 n bytes"
        ),
        "rows": {},
    }
    for n in PROJECT_ROWS:
        blocks = _blocks(n, block)
        row = {"blocks": blocks, "single_thread_hours": blocks * per_block / 3600.0}
        for w in PROJECT_WORKERS:
            tasks = min(math.ceil(n / block), records._TASKS_PER_WORKER * w)
            seconds = (blocks * per_block / w + math.ceil(tasks / w) * out["task_overhead_seconds"]
                       + out["broadcast_seconds"] * n / out["rows"])
            row[f"{w}_workers"] = {
                "seconds": seconds, "hours": seconds / 3600.0, "tasks": tasks,
                "worker_memory_gb": (out["shared_bytes_per_row"] + 16) * n / 1e9,
                "client_results_gb": 2 * 16 * n / 1e9,
            }
        table["rows"][str(n)] = row
    return table
