"""Compare's default comparison at 5,000, 30,000 and 100,000 rows: every record scored.

:func:`core.compare.run.compare` with :data:`core.compare.registry.DEFAULT_METHODS`, sex
sensitive, income the label, epsilon 1, one repetition, seed 0, no audit (its cost does
not grow with the table: it runs on a fixed sample, ``AUDIT_ROWS``), ``dcr_records`` and
``max_rows`` left at every row. 5,000 and 30,000 rows are Adult's own (a seeded sample
of its 45,222 complete rows); 100,000 rows are Adult's rows drawn with replacement,
integers moved a little (:func:`benchmarks.timing.adult_like`: Adult has 48,842 rows).
Each size runs in a fresh process, which reports its seconds (in all and per method),
its peak resident memory, the records DCR scored and how (the search's recall), and the
machine's one-minute load average before and after (other work on the cores slows every
figure; faiss's threads most).
``seconds_per_stage``: the time spent inside each of :data:`STAGES` wherever it was called
(the references' and every release's share; they overlap the per-method times):
``shared steps`` is the steps prepared once per comparison (the DCR reference, the model
matrices, MDAV's groups: ``mdav groups``) and the ``references``. ``seconds_without_stated``:
the comparison less the methods of :data:`STATED` and their groups (what must grow at most
as n log n).

Growth: per method and per stage, the exponent b of seconds ~ n^b between 30,000 and
100,000 rows (n log n is b = 1.09 there, n^2 is b = 2); a method above 1.3 must say why
(``states_cost``). The DCR search is exact by blocked products while queries x reference
rows stay under :data:`core.evaluation.attacks.search.EXACT_PAIRS` (quadratic, but at most
that many pairs: about 10 s per search) and an HNSW index above (about n log n), so its
exponent between 30,000 rows (products) and 100,000 rows (the index) mixes the two paths.
``quick``: 2,000, 5,000 and 10,000 rows.
"""
from __future__ import annotations

import json
import math
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: methods that state a cost above n log n (and where): MDAV's groups scan the records left
STATED = {"MDAV": "n^2 / k (core.compare.methods.MDAV_COST)", "MDAV_DP": "n^2 / k (core.compare.methods.MDAV_COST)"}
#: Seconds at the largest size below which a method's exponent is not read (load noise).
MIN_SECONDS = 1.0
#: Stages timed inside a comparison: (module, function, name in the JSON).
STAGES = (
    ("core.compare.run", "_shared_steps", "shared steps"),
    ("core.compare.run", "references", "references"),
    ("core.compare.methods", "mdav", "mdav groups"),
    ("core.evaluation.attacks.distance", "nearest_search", "dcr search"),
    ("core.evaluation.attacks.distance", "encode_for_distance", "dcr encoding"),
    ("core.evaluation.attacks", "attribute_inference", "attribute inference"),
    ("core.compare.measures", "score_task", "utility classifier"),
    ("core.compare.measures", "fidelity_means", "fidelity scores"),
    ("core.compare.measures", "marginal_tv", "marginal tv"),
    ("core.compare.measures", "_aligned_mse", "mse"),
)


def _time_stages() -> dict[str, float]:
    """Wrap each of :data:`STAGES` so that its seconds add up in the dict returned."""
    import functools
    import importlib

    spent: dict[str, float] = {}
    for module, name, key in STAGES:
        mod = importlib.import_module(module)
        fn = getattr(mod, name)

        def timed(*args, __fn=fn, __key=key, **kwargs):
            t0 = time.perf_counter()
            try:
                return __fn(*args, **kwargs)
            finally:
                spent[__key] = spent.get(__key, 0.0) + time.perf_counter() - t0

        setattr(mod, name, functools.wraps(fn)(timed))
    return spent


def measure(n: int) -> dict:
    """One size, in this process (called in a fresh child by :func:`run`)."""
    from benchmarks.timing import adult_like, adult_or_census
    from core.compare.registry import DEFAULT_METHODS
    from core.compare.run import compare

    ds, source = adult_or_census()
    ds = ds.dropna() if source == "adult" else ds
    if n <= len(ds.frame):
        ds, data = ds.sample(n, random_state=0), f"{source}, a seeded sample of {n:,} rows"
    else:
        ds, data = adult_like(n, seed=0)
    ds = ds.with_roles(label=ds.label or "income", sensitive=("sex",))
    spent = _time_stages()
    load = os.getloadavg()[0]
    t0 = time.perf_counter()
    result = compare(ds, methods=DEFAULT_METHODS, epsilons=(1.0,), repetitions=1, random_state=0, audit_runs=0)
    seconds = time.perf_counter() - t0
    runs = result.runs
    stated = sum(result.seconds.get(m, 0.0) for m in STATED) + spent.get("mdav groups", 0.0)
    recall = runs["dcr_recall"].dropna()
    return {"rows": n, "data": data, "seconds": round(seconds, 1),
            "seconds_per_method": {k: round(v, 2) for k, v in result.seconds.items()},
            "seconds_per_stage": {k: round(v, 2) for k, v in spent.items()},
            "seconds_without_stated": round(seconds - stated, 1),
            "skipped": result.skipped,
            "load_average_1min": [round(load, 2), round(os.getloadavg()[0], 2)], "cores": os.cpu_count(),
            "peak_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
            "train_records": int(round(n * 0.75)), "dcr_records": result.parameters["dcr_records"] or "every one",
            "dcr_recall_min": None if recall.empty else round(float(recall.min()), 4)}


def _child(n: int) -> dict:
    code = ("import json, sys; sys.path.insert(0, %r); from benchmarks.bench_compare_sizes import measure; "
            "print('RESULT ' + json.dumps(measure(%d)))" % (str(ROOT), n))
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=3600)
    for line in proc.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[len("RESULT "):])
    return {"rows": n, "error": (proc.stderr or proc.stdout)[-2000:]}


def _exponent(a: dict, b: dict, key: str, field: str = "seconds_per_method") -> float | None:
    ta, tb = a.get(field, {}).get(key), b.get(field, {}).get(key)
    if not ta or not tb or ta < 0.05:
        return None
    return round(math.log(tb / ta) / math.log(b["rows"] / a["rows"]), 2)


def growth(mid: dict, big: dict) -> dict:
    """The exponents between two sizes (see the module's description). A method or stage is
    listed above n log n only when it takes at least :data:`MIN_SECONDS` at the larger size:
    the exponent of sub-second times is the load's, not the algorithm's."""
    n_log_n = math.log(big["rows"] * math.log(big["rows"]) / (mid["rows"] * math.log(mid["rows"]))) / \
        math.log(big["rows"] / mid["rows"])
    per_method = {m: _exponent(mid, big, m) for m in big["seconds_per_method"]}
    total = round(math.log(big["seconds"] / mid["seconds"]) / math.log(big["rows"] / mid["rows"]), 2)
    rest = round(math.log(big["seconds_without_stated"] / mid["seconds_without_stated"])
                 / math.log(big["rows"] / mid["rows"]), 2)
    return {"exponent_total": total, "exponent_without_stated": rest, "exponent_n_log_n": round(n_log_n, 2),
            "exponent_per_method": per_method,
            "exponent_per_stage": {k: _exponent(mid, big, k, "seconds_per_stage")
                                   for k in big.get("seconds_per_stage", {})},
            "above_n_log_n": {m: STATED.get(m, "not stated") for m, b in per_method.items()
                              if b is not None and b > 1.3 and big["seconds_per_method"][m] >= MIN_SECONDS},
            "largest_under_2_gb": big.get("peak_mb", 1e9) < 2048}


def run(*, quick: bool = False) -> dict:
    sizes = (2_000, 5_000, 10_000) if quick else (5_000, 30_000, 100_000)
    out: dict = {"sizes": [_child(n) for n in sizes]}
    mid, big = out["sizes"][1], out["sizes"][2]
    if "error" not in mid and "error" not in big:
        out["growth"] = growth(mid, big)
    return out
