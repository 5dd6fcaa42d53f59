"""The CDP-LR page's slider path on the supplier sample: cached setup, refit, figures built.

Target (issue 3): median < 150 ms per slider move. One move = the four schemes retrained
(5 repetitions each, the page's default) at the new epsilon, the accuracy bar chart and the
Fig. 4 curve chart (from the cached sweep) rebuilt with the new marker.
"""
from __future__ import annotations

import time

import numpy as np

from core.cdp.baselines import prepare_schemes, scheme_curve
from core.data import load_sample
from dashboard.cdp.cached import live_accuracy
from dashboard.cdp.charts import accuracy_bars, curve_with_spread


def run(*, quick: bool = False) -> dict:
    ds = load_sample("supplier")
    t0 = time.perf_counter()
    setup = prepare_schemes(ds, threshold=0.8, measure="pearson", tc=40.0, random_state=0)
    mats = {s: setup.matrices(s) for s in setup.columns}
    t_setup = time.perf_counter() - t0
    summary, _ = scheme_curve(setup, epsilons=[float(e) for e in range(1, 11)], repetitions=5,
                              noise_method=1, random_state=0)
    moves = np.round(np.linspace(0.1, 10.0, 10 if quick else 40), 1)
    times = []
    for eps in moves:
        t0 = time.perf_counter()
        runs, _ = live_accuracy(setup, mats, epsilon=float(eps), noise_method=1, preset="sensible",
                                repetitions=5, seed=0)
        accuracy_bars(runs, epsilon=float(eps)).to_json()
        curve_with_spread(summary, group="scheme", value="accuracy", marker_x=float(eps),
                          title="t", y_title="a").to_json()
        times.append(time.perf_counter() - t0)
    return {
        "dataset": "supplier",
        "setup_seconds_cached_once": t_setup,
        "moves": len(moves),
        "median_ms": float(np.median(times) * 1000),
        "p90_ms": float(np.percentile(times, 90) * 1000),
        "target_median_ms": 150.0,
    }
