"""The Compare page's default comparison on Adult, timed per method, with its frontier at epsilon 1.

Runs :func:`core.compare.run.compare` with :data:`core.compare.registry.DEFAULT_METHODS` on Adult
(45,222 rows without missing values; ``adult_or_census`` falls back to the census sample),
sex sensitive, income the label, epsilons (0.5, 1, 2, 5), 3 repetitions, seed 0, progress
lines to stderr. Issue 12's target is under 3 minutes on 2 cores once the first IMPOSTER
training is cached: the comparison trains IMPOSTER once per repetition, so the JSON gives
the total, the seconds per method, and the total without IMPOSTER's trainings. The
frontier's numbers at epsilon 1 (and the methods without an epsilon) are written out.
``quick``: 3,000 rows, epsilon 1, one repetition, 2 IMPOSTER epochs.

The tasks (one per method and repetition) run where ``PUX_SCHEDULER`` says
(:mod:`core.runtime.compute`: this process when unset, ``local:2`` for two worker processes on
this machine); the JSON records where.
"""
from __future__ import annotations

import math
import os
import sys
import time

from benchmarks.timing import adult_or_census
from core.compare.run import compare  # noqa: I001
from core.compare.registry import DEFAULT_METHODS
from core.runtime.compute import describe_scheduler, resolve_scheduler

EPSILONS = (0.5, 1.0, 2.0, 5.0)
MEASURES = ("utility", "tv_one_way", "ai_advantage", "dcr_excess", "mia_auc", "ledger_epsilon")


def run(*, quick: bool = False) -> dict:
    ds, name = adult_or_census()
    ds = ds.dropna() if name == "adult" else ds
    ds = ds.with_roles(label=ds.label or "income", sensitive=("sex",))
    start = time.perf_counter()
    last = [0.0]

    def progress(fraction: float, message: str) -> None:
        now = time.perf_counter() - start
        if now - last[0] >= 5.0:
            last[0] = now
            print(f"[{now:7.1f}s] {100 * fraction:3.0f}% {message}", file=sys.stderr, flush=True)

    result = compare(ds, methods=DEFAULT_METHODS, epsilons=(1.0,) if quick else EPSILONS,
                     repetitions=1 if quick else 3, max_rows=3000 if quick else None,
                     imposter_epochs=2 if quick else None, random_state=0, progress=progress)
    total = time.perf_counter() - start
    summary = result.summary()
    at_one = summary[summary["epsilon"].isna() | (summary["epsilon"] == 1.0)]
    frontier = {
        (row["method"] if row["epsilon"] != row["epsilon"] else f"{row['method']} (epsilon 1)"): {
            m: (round(float(row[f"{m}_mean"]), 4) if math.isfinite(float(row[f"{m}_mean"])) else None)
            for m in MEASURES}
        for _, row in at_one.iterrows()}
    imposter = result.seconds.get("IMPOSTER", 0.0)
    return {
        "dataset": name, "rows": ds.n_rows, "scheduler": resolve_scheduler(), "runs_on": describe_scheduler(), "load_average": list(os.getloadavg()),
        "parameters": result.parameters, "seconds_total": round(total, 1),
        "seconds_per_method": {k: round(v, 1) for k, v in result.seconds.items()},
        "seconds_without_imposter": round(total - imposter, 1),
        "target_seconds_without_imposter": 180,
        "skipped": result.skipped,
        "frontier_at_epsilon_1": frontier,
        "takeaway_attribute_inference": result.takeaway(risk="ai_advantage"),
        "takeaway_dcr": result.takeaway(risk="dcr_excess"),
        "pareto_attribute_inference": [
            f"{r['method']}" + ("" if r["epsilon"] != r["epsilon"] else f" at epsilon {r['epsilon']:g}")
            for _, r in result.pareto_front(risk="ai_advantage").iterrows()],
    }
