"""Laplace and Gaussian draws per second, as a ratio to numpy's Generator called directly."""
from __future__ import annotations


import numpy as np

from core.privacy.mechanisms import gaussian, laplace
from benchmarks.timing import best_of


def run(*, quick: bool = False) -> dict:
    n = 100_000 if quick else 2_000_000
    repeats = 3 if quick else 7
    values = np.zeros(n)
    out = {"draws": n, "repeats": repeats}
    for name, ours, ref in (
        (
            "laplace",
            lambda: laplace(values, sensitivity=1.0, epsilon=0.5, random_state=1),
            lambda: values + np.random.default_rng(1).laplace(0.0, 2.0, size=n),
        ),
        (
            "gaussian",
            lambda: gaussian(values, sensitivity=1.0, epsilon=0.5, delta=1e-5, random_state=1),
            lambda: values + np.random.default_rng(1).normal(0.0, 9.7, size=n),
        ),
    ):
        t_ours = best_of(ours, repeats)
        t_ref = best_of(ref, repeats)
        out[name] = {
            "draws_per_second": n / t_ours,
            "numpy_draws_per_second": n / t_ref,
            "time_ratio_vs_numpy": t_ours / t_ref,
        }
    return out
