"""DCR (core.evaluation.attacks) speed and memory, as a ratio to scikit-learn in the same run.

On Adult without missing rows (45,222; quick: the first 5,000), split train / holdout
50/50 with a seeded permutation; the release is a noisy copy of train (every number
plus Gaussian noise of 0.1 column standard deviations, one category in ten redrawn from
its column). Timed:

- ours: ``distance_to_closest_record(release, train, holdout)`` end to end (encoding,
  two blocked nearest-neighbour searches, exact-copy hashing);
- ours_search: the two ``nearest_distances`` searches alone, on the encoded matrices;
- sklearn: ``NearestNeighbors(n_neighbors=1, algorithm="brute")`` fit + kneighbors for
  the same two searches on the same encoded matrices (encoding not timed: it favours
  sklearn).

Targets: ours / sklearn <= 0.5, peak memory of ours (tracemalloc, a separate untimed
run) < 1 GB. The two searches must agree (largest absolute difference reported).
"""
from __future__ import annotations

import time
import tracemalloc

import numpy as np
import pandas as pd
from sklearn.neighbors import NearestNeighbors

from benchmarks.timing import adult_or_supplier, best_of
from core.evaluation.attacks.distance import distance_to_closest_record
from core.evaluation.attacks.nearest import encode_for_distance, nearest_distances


def _noisy_copy(frame: pd.DataFrame, rng: np.random.Generator) -> pd.DataFrame:
    out = frame.copy()
    for c in out.columns:
        s = out[c]
        if pd.api.types.is_numeric_dtype(s) and not pd.api.types.is_bool_dtype(s):
            out[c] = s.astype(float) + rng.normal(scale=0.1 * float(s.std() or 1.0), size=len(s))
        else:
            redraw = rng.random(len(s)) < 0.1
            values = s.to_numpy(dtype=object).copy()
            values[redraw] = rng.choice(s.to_numpy(dtype=object), size=int(redraw.sum()))
            out[c] = values
    return out


def _sklearn_nearest(queries: np.ndarray, reference: np.ndarray) -> np.ndarray:
    nn = NearestNeighbors(n_neighbors=1, algorithm="brute").fit(reference)
    return nn.kneighbors(queries)[0][:, 0]


def run(*, quick: bool = False) -> dict:
    ds, source = adult_or_supplier(quick_rows=5000 if quick else None)
    frame = ds.frame.reset_index(drop=True)
    rng = np.random.default_rng(0)
    order = rng.permutation(len(frame))
    half = len(frame) // 2
    train = frame.iloc[order[:half]].reset_index(drop=True)
    holdout = frame.iloc[order[half:]].reset_index(drop=True)
    release = _noisy_copy(train, rng)
    repeats = 3 if quick else 2

    T, R, H = encode_for_distance(train, release, holdout)
    t_ours = best_of(lambda: distance_to_closest_record(release, train, holdout), repeats)
    t_search = best_of(lambda: (nearest_distances(T, R), nearest_distances(T, H)), repeats)
    t_sk = best_of(lambda: (_sklearn_nearest(T, R), _sklearn_nearest(T, H)), repeats)
    diff = max(float(np.abs(nearest_distances(T, R) - _sklearn_nearest(T, R)).max()),
               float(np.abs(nearest_distances(T, H) - _sklearn_nearest(T, H)).max()))

    tracemalloc.start()
    t0 = time.perf_counter()
    result = distance_to_closest_record(release, train, holdout)
    t_traced = time.perf_counter() - t0
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return {
        "data": source, "train_rows": len(train), "holdout_rows": len(holdout),
        "release_rows": len(release), "encoded_columns": int(T.shape[1]), "repeats": repeats,
        "ours_seconds": t_ours, "ours_search_seconds": t_search, "sklearn_brute_seconds": t_sk,
        "time_ratio_vs_sklearn": t_ours / t_sk, "search_ratio_vs_sklearn": t_search / t_sk,
        "target_ratio": 0.5,
        "peak_memory_mb": peak / 1e6, "target_peak_memory_mb": 1000, "traced_run_seconds": t_traced,
        "max_abs_distance_difference": diff,
        "dcr": {k: v for k, v in result.items() if k != "columns"},
    }


if __name__ == "__main__":  # pragma: no cover
    import json

    print(json.dumps(run(quick=True), indent=2, default=str))
