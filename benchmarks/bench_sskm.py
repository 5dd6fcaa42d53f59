"""Paper 003 speed and quality, as ratios to references measured in the same run.

(a) SOM on Adult one-hot (about 48,842 x 105), 10x10 and 20x20, 50,000 training draws,
    against MiniSom 2.3.6 ``train_batch`` with the same map, sigma, learning rate and draws
    (time ratio; quantisation and topographic error of both on all rows). Ours runs with
    MiniSom's decay schedule (like for like) and, for reference, with the paper's
    (exponential decay, SFLA start).
(b) MIC connections on Adult (sex vs the 13 other attributes) with the default row cap:
    seconds, and the largest difference from MIC on all rows.
(c) MDAV on Adult (10 attributes, k = 10) against a plain numpy MDAV written here
    (time ratio; both must give the same groups).

Needs the public data (PUX_DATA_DIR) and, for (a), ``pip install minisom==2.3.6``.
"""
from __future__ import annotations

import time

import numpy as np

from core.data import encode, load_adult
from core.sskm.microaggregation import mdav
from core.sskm.connection import DEFAULT_MAX_ROWS, mic_connections
from core.sskm.scaled_table import ScaledTable
from core.sskm.reproduce import ATTRIBUTES
from core.sskm.som import SelfOrganizingMap


def _timed(fn):
    t0 = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t0


def plain_mdav(X: np.ndarray, k: int) -> np.ndarray:
    """MDAV written the obvious way in numpy: index arrays, full distance scans, deletes."""
    labels = np.full(len(X), -1)
    remaining = np.arange(len(X))
    group = 0

    def nearest(point, pool):
        d = ((X[pool] - point) ** 2).sum(axis=1)
        return pool[np.argsort(d, kind="stable")[:k]]

    def farthest(point, pool):
        d = ((X[pool] - point) ** 2).sum(axis=1)
        return pool[np.argmax(d)]

    while len(remaining) >= 3 * k:
        c = X[remaining].mean(axis=0)
        r = farthest(c, remaining)
        s = farthest(X[r], remaining)
        g = nearest(X[r], remaining)
        labels[g] = group
        group += 1
        remaining = np.setdiff1d(remaining, g)
        g = nearest(X[s], remaining)
        labels[g] = group
        group += 1
        remaining = np.setdiff1d(remaining, g)
    if len(remaining) >= 2 * k:
        c = X[remaining].mean(axis=0)
        r = farthest(c, remaining)
        g = nearest(X[r], remaining)
        labels[g] = group
        group += 1
        remaining = np.setdiff1d(remaining, g)
    labels[remaining] = group
    return labels


def _same_partition(a: np.ndarray, b: np.ndarray) -> bool:
    pairs = np.unique(np.column_stack([a, b]), axis=0)
    return len(pairs) == len(np.unique(a)) == len(np.unique(b))


def bench_som(X: np.ndarray, quick: bool) -> dict:
    from minisom import MiniSom  # bench-only extra

    draws = 10_000 if quick else 50_000
    out = {"rows": int(X.shape[0]), "columns": int(X.shape[1]), "draws": draws, "sigma": 1.0, "learning_rate": 0.5}
    for side in ((10,) if quick else (10, 20)):
        ref = MiniSom(side, side, X.shape[1], sigma=1.0, learning_rate=0.5, random_seed=0)
        _, t_ref = _timed(lambda: ref.train_batch(X, draws))
        ours = SelfOrganizingMap(side, side, sigma=1.0, learning_rate=0.5, iterations=draws, init="random",
                                 decay="asymptotic", batch_size=32, track_every=None, random_state=0)
        _, t_ours = _timed(lambda: ours.fit(X))
        paper = SelfOrganizingMap(side, side, sigma=1.0, learning_rate=0.5, iterations=draws, init="sfla",
                                  decay="exponential", batch_size=32, track_every=None, random_state=0)
        _, t_paper = _timed(lambda: paper.fit(X))
        qe_ref, te_ref = float(ref.quantization_error(X)), float(ref.topographic_error(X))
        qe, te = ours.quantization_error(X), ours.topographic_error(X)
        out[f"{side}x{side}"] = {
            "minisom_seconds": t_ref, "ours_seconds": t_ours, "time_ratio_vs_minisom": t_ours / t_ref,
            "minisom_qe": qe_ref, "minisom_te": te_ref, "ours_qe": qe, "ours_te": te,
            "qe_ratio": qe / qe_ref, "te_difference": te - te_ref,
            "paper_settings": {"seconds": t_paper, "time_ratio_vs_minisom": t_paper / t_ref,
                               "qe": paper.quantization_error(X), "te": paper.topographic_error(X)},
        }
    return out


def bench_mic(frame, quick: bool) -> dict:
    others = [c for c in frame.columns if c != "sex"]
    capped, t_capped = _timed(lambda: mic_connections(frame, "sex", max_rows=DEFAULT_MAX_ROWS, random_state=0))
    full_rows = 10_000 if quick else None
    full, t_full = _timed(lambda: mic_connections(frame, "sex", max_rows=full_rows, random_state=0))
    diff = (capped.strengths.loc["sex", others] - full.strengths.loc["sex", others]).abs()
    return {
        "pairs": len(others), "row_cap": DEFAULT_MAX_ROWS, "seconds": t_capped,
        "full_rows": full_rows or len(frame), "full_seconds": t_full,
        "max_abs_difference": float(diff.max()), "worst_attribute": str(diff.idxmax()),
        "capped": capped.strengths.loc["sex", others].round(4).to_dict(),
        "full": full.strengths.loc["sex", others].round(4).to_dict(),
    }


def bench_mdav(X: np.ndarray, quick: bool) -> dict:
    if quick:
        X = X[:8000]
    k = 10
    ref, t_ref = _timed(lambda: plain_mdav(X, k))
    ours, t_ours = _timed(lambda: mdav(X, k))
    return {"rows": int(X.shape[0]), "columns": int(X.shape[1]), "k": k, "plain_numpy_seconds": t_ref,
            "ours_seconds": t_ours, "time_ratio_vs_plain": t_ours / t_ref, "same_groups": _same_partition(ref, ours)}


def run(*, quick: bool = False) -> dict:
    ds = load_adult()
    out = {}
    try:
        import minisom  # noqa: F401
        out["som"] = bench_som(encode(ds).X, quick)
    except ImportError:
        out["som"] = {"skipped": "minisom is not installed: pip install minisom==2.3.6"}
    out["mic"] = bench_mic(ds.frame.drop(columns=[ds.label]), quick)
    frame = ds.frame[ATTRIBUTES["adult"][10]].dropna().reset_index(drop=True)
    out["mdav"] = bench_mdav(ScaledTable(frame).X, quick)
    return out


if __name__ == "__main__":  # pragma: no cover
    import json

    print(json.dumps(run(quick=True), indent=2, default=str))
