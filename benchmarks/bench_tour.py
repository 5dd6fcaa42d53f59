"""The Tour's stories on the built-in samples: seconds of each on its first visit.

Each story runs in a fresh Python process: ``import_s`` is importing every library a story
needs (torch, xgboost, scikit-learn: paid once per server), ``compute_s`` the story itself
(what a visitor waits for on a server that has them loaded), ``process_wall_s`` both and the
start of Python. The issue's bar is 10 seconds per step on 2 cores; the ratio column
divides by a bare 2,000 x 2,000 float64 matmul timed in this process (the machine's
speed), so runs on other machines compare.
"""
from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from benchmarks.timing import best_of

ROOT = Path(__file__).resolve().parents[1]
_CHILD = """
import json, sys, time
t0 = time.perf_counter()
from core.papers.stories import STORIES
import core.audit_cases, core.cdp.baselines, core.compare.run, core.imposter.synthesizer, core.sskm.sweeps  # noqa
fn, _ = STORIES[sys.argv[1]]
t1 = time.perf_counter()
fn(random_state=0)
t2 = time.perf_counter()
print(json.dumps({"import_s": t1 - t0, "compute_s": t2 - t1}))
"""


def run(*, quick: bool = False) -> dict:
    from core.papers.stories import STORIES

    a = np.random.default_rng(0).standard_normal((2000, 2000))
    matmul = best_of(lambda: a @ a, 3)
    out = {"reference_matmul_s": matmul, "limit_s": 10.0, "stories": {}}
    for key in STORIES:
        t0 = time.perf_counter()
        done = subprocess.run([sys.executable, "-c", _CHILD, key], cwd=ROOT, capture_output=True, text=True,
                              check=True)
        wall = time.perf_counter() - t0
        inner = json.loads(done.stdout.strip().splitlines()[-1])
        out["stories"][key] = {"process_wall_s": wall, **inner, "ratio_to_matmul": wall / matmul,
                               "under_limit": wall < 10.0}
        print(f"{key}: {wall:.1f} s in a fresh process ({inner['compute_s']:.1f} s computing)", flush=True)
    return out
