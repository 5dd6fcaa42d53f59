"""Cluster releases on Adult: utility over epsilon, before and after the cell release (issue 37).

SSKM_DP (sound) and IDP-KMeans as the Compare page runs them (:func:`core.compare.methods.sskm_table`,
:func:`core.compare.methods.idp_kmeans_table`: rows drawn from each cluster's noisy cell
counts, clusters split by the schema's label and sized from n, m and epsilon), and each
with its former release (``release="centres"``: every row at its cluster's noisy centre),
at epsilon 0.5, 1, 2 and 4. Utility is Compare's (:func:`core.compare.measures.utility_of`:
the boosted model trained on the release, tested on the held-out real rows): accuracy,
ROC AUC and balanced accuracy, mean and standard error over the repetitions, with the
constant guess and the non-private model (trained on the real training part) of the same
split. Adult is read with its missing cells dropped, as the Compare benchmark does (45,222
rows), split 75 / 25 as Compare splits it (seed 0). ``quick``: 3,000 rows, one repetition.
The full version of the census test (``tests/core/sskm/test_cluster_utility.py``) runs too:
the built-in census sample, SSKM_DP (sound) and IDP-KMeans at epsilon 0.5, 2 and 8 over 10
seeds (``quick``: 2). Map sizes follow the publisher's epsilon (1 in Compare).

The JSON gives per method and epsilon the scores, ``above_guess`` (the mean accuracy minus
two standard errors above the guess), and per method ``falls`` (the epsilons where the mean
accuracy falls by more than two standard errors of the difference from the epsilon before).
"""
from __future__ import annotations

import math
import time
from itertools import pairwise

import numpy as np

from benchmarks.timing import adult_or_census
from core.compare.measures import utility_of
from core.compare.methods import (
    MAX_CLUSTERS,
    MICRO_K,
    idp_fit,
    idp_kmeans_table,
    like_training,
    sskm_fit,
    sskm_table,
)
from core.compare.run import run_context
from core.data import load_sample
from core.evaluation.classification import guess_scores
from core.sskm.dp_kmeans import idp_kmeans
from core.sskm.sound import SSKMDP

EPSILONS = (0.5, 1.0, 2.0, 4.0)
CENSUS_EPSILONS = (0.5, 2.0, 8.0)
SCORES = ("accuracy", "auc", "balanced_accuracy")


def _scores(ctx, table, seed: int) -> dict:
    res = utility_of(ctx, table, seed)
    if not isinstance(res, dict):  # an accuracy alone
        res = {"accuracy": res}
    return {k: float(res.get(k, math.nan)) for k in SCORES}


def _sskm_centres(ctx, seed: int):
    return SSKMDP(sensitive=ctx.train.sensitive, schema=ctx.schema, random_state=seed, release="centres").fit(
        ctx.train.frame)


def _sskm_centres_table(ctx, pub, eps: float, seed: int):
    out = pub.publish(epsilon=eps, random_state=seed)
    return like_training(ctx, out)


def _idp_centres_table(ctx, table, eps: float, seed: int):
    clusters = max(1, min(MAX_CLUSTERS, len(table.X) // MICRO_K))
    res = idp_kmeans(table, n_clusters=clusters, epsilon=eps, random_state=seed)
    return like_training(ctx, table.decode(res.published))


def _methods():
    """name -> (fit(ctx, seed), table(ctx, fitted, epsilon, seed))."""
    return {
        "SSKM_DP (sound)": (lambda ctx, s: sskm_fit("sound")(ctx, s, None),
                            lambda ctx, f, e, s: sskm_table(ctx, f, e, s).table),
        "SSKM_DP (sound), former centres release": (_sskm_centres, _sskm_centres_table),
        "IDP-KMeans": (lambda ctx, s: idp_fit(ctx, s, None),
                       lambda ctx, f, e, s: idp_kmeans_table(ctx, f, e, s).table),
        "IDP-KMeans, former centres release": (lambda ctx, s: idp_fit(ctx, s, None), _idp_centres_table),
    }


def _summary(values: list[dict]) -> dict:
    out = {}
    for k in SCORES:
        a = np.array([v[k] for v in values], dtype=float)
        out[k] = round(float(np.mean(a)), 4)
        out[f"{k}_se"] = round(float(np.std(a, ddof=1) / np.sqrt(len(a))), 4) if len(a) > 1 else None
    return out


def _falls(rows: dict) -> list[str]:
    out = []
    eps = sorted(rows)
    for lo, hi in pairwise(eps):
        a, b = rows[lo], rows[hi]
        se = math.hypot(a["accuracy_se"] or 0.0, b["accuracy_se"] or 0.0)
        if b["accuracy"] < a["accuracy"] - 2 * se:
            out.append(f"{lo:g} -> {hi:g}: {a['accuracy']:.4f} -> {b['accuracy']:.4f}")
    return out


def _curves(ctx, name: str, methods: dict, epsilons, reps: int) -> dict:
    """Each method's scores at each epsilon over ``reps`` fits, with the references."""
    label = ctx.train.label
    guess = guess_scores(ctx.holdout[label].dropna().astype(str).to_numpy())
    out: dict = {
        "dataset": name, "training_rows": len(ctx.train.frame), "holdout_rows": len(ctx.holdout),
        "repetitions": reps, "epsilons": list(epsilons),
        "constant_guess": {k: round(float(guess[k]), 4) for k in SCORES},
        "nonprivate": {k: round(v, 4) for k, v in _scores(ctx, ctx.train.frame, 0).items()},
        "methods": {},
    }
    for method, (fit, table) in methods.items():
        start = time.perf_counter()
        values: dict[float, list[dict]] = {e: [] for e in epsilons}
        rows: dict[float, list[int]] = {e: [] for e in epsilons}
        for rep in range(reps):
            fitted = fit(ctx, 1000 + rep)
            for eps in epsilons:
                released = table(ctx, fitted, eps, 7 + 31 * rep + int(100 * eps))
                values[eps].append(_scores(ctx, released, rep))
                rows[eps].append(len(released))
        summary = {e: {**_summary(values[e]), "released_rows": int(np.mean(rows[e]))} for e in epsilons}
        for e in epsilons:
            s = summary[e]
            s["above_guess"] = bool(s["accuracy"] - 2 * (s["accuracy_se"] or 0.0) > guess["accuracy"])
        out["methods"][method] = {"by_epsilon": {f"{e:g}": s for e, s in summary.items()},
                                  "falls": _falls(summary), "seconds": round(time.perf_counter() - start, 1)}
    return out


def run(*, quick: bool = False) -> dict:
    ds, name = adult_or_census()
    ds = ds.dropna() if name == "adult" else ds
    ctx = run_context(ds, random_state=0, max_rows=3000 if quick else None)
    out = _curves(ctx, name, _methods(), (1.0,) if quick else EPSILONS, 1 if quick else 3)
    census = run_context(load_sample("census"), random_state=0)
    current = {k: v for k, v in _methods().items() if "former" not in k}
    out["census"] = _curves(census, "census sample", current, CENSUS_EPSILONS, 2 if quick else 10)
    return out


if __name__ == "__main__":  # pragma: no cover
    import json

    print(json.dumps(run(quick=True), indent=2, default=str))
