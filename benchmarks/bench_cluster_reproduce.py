"""The cdp-fig5 reproduction in this process and on a Dask cluster, and the Compare
page's default comparison on Adult on a 2-worker local cluster (issues 12 and 13).

- ``cdp_fig5``: ``pux reproduce cdp-fig5`` (``quick``: its --quick) run in this process,
  then with ``PUX_SCHEDULER=local:2`` (a LocalCluster of 2 single-threaded worker
  processes, started and warmed before the timing); seconds each, the ratio, and whether
  the two JSON results are identical (they must be: every seed is drawn up front).
- ``compare``: not here (``bench_compare`` times the comparison where ``PUX_SCHEDULER``
  says: run it with ``PUX_SCHEDULER=local:2`` for the cluster figure).

The machine has 2 cores: a 2-worker cluster can at best halve the time of work that runs
on one core in this process; the load average is recorded.
"""
from __future__ import annotations

import os
import time

from core.runtime import compute
from core.cdp.reproduce import fig5

WORKERS = 2


def _fig5(quick: bool) -> tuple[dict, float]:
    start = time.perf_counter()
    result = fig5(quick=quick, random_state=0, progress=lambda message: None).to_dict()
    return result, time.perf_counter() - start


def run(*, quick: bool = False) -> dict:
    saved = os.environ.get(compute.SCHEDULER_ENV)
    try:
        os.environ[compute.SCHEDULER_ENV] = ""
        here, here_s = _fig5(quick)
        os.environ[compute.SCHEDULER_ENV] = f"local:{WORKERS}"
        start = time.perf_counter()
        client = compute.get_client()
        client.run(lambda: __import__("core.cdp.reproduce"))  # workers import core before the timing
        startup = time.perf_counter() - start
        there, there_s = _fig5(quick)
    finally:
        compute.close_clients()
        if saved is None:
            os.environ.pop(compute.SCHEDULER_ENV, None)
        else:
            os.environ[compute.SCHEDULER_ENV] = saved
    return {
        "reproduction": "cdp-fig5", "quick": quick, "load_average": list(os.getloadavg()),
        "cpu_count": os.cpu_count(), "workers": WORKERS,
        "seconds_this_process": round(here_s, 1), "seconds_cluster": round(there_s, 1),
        "cluster_startup_seconds": round(startup, 1),
        "cluster_over_this_process": round(there_s / here_s, 3),
        "identical_results": here == there,
    }
