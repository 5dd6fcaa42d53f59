"""The privacy issue's table, measured by the auditor: each mechanism before and after the fix.

"Before" rebuilds the old calibration in the same process (the add/remove-one scale for
CDP-LR, MDAV_DP's per-attribute scale range / (k epsilon)); "after" is the code as it is.
For each row: the epsilon the ledger claims, the auditor's 95% lower bound and the verdict.
A lower bound above the claim proves a violation; below it proves nothing.
"""
from __future__ import annotations

import math
from contextlib import contextmanager
from functools import partial

import numpy as np

import core.cdp.logistic as logistic
from core.audit.auditor import audit
from core.audit.pairs import NeighbouringPair
from core.audit_cases import cdp_lr_case, count_query_case, run_case, sskm_paper_case, sskm_sound_case
from core.sskm import microaggregation


@contextmanager
def _patched(module, name, value):
    old = getattr(module, name)
    setattr(module, name, value)
    try:
        yield
    finally:
        setattr(module, name, old)


def _old_lr_scale(fn):
    return lambda *, sensitivity, **kw: fn(sensitivity=sensitivity / 2, **kw)


def _row(name: str, before, after, note: str = "") -> dict:
    def part(res):
        if res is None:
            return None
        return {"claimed": res.claimed_epsilon, "lower_bound": round(res.epsilon_lower, 3),
                "ceiling": round(res.ceiling, 3), "saturated": res.saturated,
                "violation": res.violation, "runs_per_side": res.runs,
                "runs_per_second": round(res.runs_per_second)}
    return {"mechanism": name, "before": part(before), "after": part(after), "note": note}


def _mdav_dp_row(runs: int, old: bool) -> object:
    """MDAV_DP run whole (the partition is recomputed): record 0 replaced by the all-ones record."""
    rng = np.random.default_rng(0)
    X = rng.uniform(size=(50, 5))
    d1 = X.copy()
    d1[0] = 1.0
    pair = NeighbouringPair(X, d1, "record 0 replaced by the all-ones record (m = 5, k = 5)")

    def mech(data, random_state, *, eps):
        k = 5
        if old:  # the old per-attribute scale range / (k eps): m x eps in all
            labels = microaggregation.mdav(data, k)
            centers, _ = microaggregation.microaggregate(data, labels)
            noisy = centers + np.random.default_rng(random_state).laplace(0.0, 1.0 / (k * eps), size=centers.shape)
            return float(noisy[labels[0]].sum())
        res = microaggregation.mdav_dp(data, k, eps, bounds=np.array([[0.0, 1.0]] * 5), random_state=random_state)
        return float(res.published[0].sum())

    return audit(partial(mech, eps=0.5), pair, claimed_epsilon=0.5, runs=runs, random_state=0)


def run(*, quick: bool) -> dict:
    runs = 1000 if quick else 5000
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    y = (X[:, 0] > 0).astype(int)
    rows = []

    for method in (1, 3):
        case = partial(cdp_lr_case, X, y, sensitivity=1.0, epsilon=0.5, noise_method=method)
        with _patched(logistic, "laplace_scale", _old_lr_scale(logistic.laplace_scale)):
            before = run_case(case(), runs=runs, random_state=0)
        rows.append(_row(f"CDP-LR method {method}, epsilon 0.5", before, run_case(case(), runs=runs, random_state=0)))

    case = partial(cdp_lr_case, X, y, sensitivity=1.0, epsilon=1.0, noise_method=2, delta=1e-2)
    with _patched(logistic, "gaussian_sigma", _old_lr_scale(logistic.gaussian_sigma)):
        before = run_case(case(), runs=runs, random_state=0)
    rows.append(_row("CDP-LR method 2 (Gaussian), epsilon 1, delta 0.01", before,
                     run_case(case(), runs=runs, random_state=0),
                     "delta 0.01 so that the audit has power; the calibration is the same at any delta"))

    rows.append(_row("CDP-LR method 4, nominal epsilon 0.5", None,
                     run_case(cdp_lr_case(X, y, sensitivity=1.0, epsilon=0.5, noise_method=4), runs=runs,
                              random_state=0),
                     "claims nothing now (not DP); the bound shows what it leaks"))

    matches = np.random.default_rng(1).random(200) < 0.5
    rows.append(_row("Count query (one of Q), epsilon 1 per query, CS 3", None,
                     run_case(count_query_case(matches, sensitivity=3.0, epsilon=1.0), runs=runs, random_state=0),
                     "unchanged mechanism; the page now shows Q x epsilon for a release of Q queries"))

    mdav_runs = min(runs, 1000)
    rows.append(_row("MDAV_DP, epsilon 0.5, m = 5 (partition recomputed)", _mdav_dp_row(mdav_runs, True),
                     _mdav_dp_row(mdav_runs, False),
                     "after: scale range x m / (k epsilon); still labelled not DP (the partition reads raw records)"))

    from core.data import load_sample
    from core.privacy.schema_builtin import schema_for
    from core.sskm.sound import SSKMDP

    cols = ["age", "education_num", "sex", "marital_status", "hours_per_week", "relationship"]
    frame = load_sample("census").frame[cols].head(1000).reset_index(drop=True)
    paper = run_case(sskm_paper_case(frame, sensitive=["sex"], epsilon=1.0, cs_threshold=0.3),
                     runs=200 if quick else 500, random_state=0)
    census = load_sample("census")
    schema = schema_for(census.subset(cols))
    pub = SSKMDP(sensitive="sex", rows=4, cols=4, schema=schema, random_state=0).fit(frame)
    sound = run_case(sskm_sound_case(pub, frame, epsilon=1.0), runs=runs, random_state=0)
    rows.append(_row("SSKM_DP epsilon 1: paper mode (before) vs sound mode (after)", paper, sound,
                     "census sample; paper mode run whole on 40 records, sound mode on 1,000"))
    return {"runs_per_side": runs, "rows": rows,
            "violations_after": sum(bool(r["after"] and r["after"]["violation"]
                                         and math.isfinite(r["after"]["claimed"])) for r in rows)}
