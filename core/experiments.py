"""Sweeps over a privacy parameter with repetitions, summarised as mean and spread.

Each repetition gets its own seed drawn from one generator, so a sweep is reproducible
from one ``random_state`` and repetitions are independent. ``n_jobs`` runs points in
local worker processes through joblib (set ``backend`` to "dask" or "ray" where those are
configured to scale out).
"""
from __future__ import annotations

import itertools
from typing import Any, Callable, Mapping, Sequence

import pandas as pd
from joblib import Parallel, delayed

from core.validation import RandomState, check_positive_int, check_random_state

__all__ = ["sweep", "summarize"]


def _call(fn: Callable[..., Any], params: dict, seed: int) -> dict:
    out = fn(**params, random_state=seed)
    if isinstance(out, Mapping):
        return dict(out)
    return {"value": float(out)}


def sweep(
    fn: Callable[..., Any],
    grid: Mapping[str, Sequence[Any]],
    *,
    repetitions: int = 10,
    random_state: RandomState = None,
    n_jobs: int = 1,
    backend: str | None = None,
    progress: Callable[[float, str], None] | None = None,
) -> pd.DataFrame:
    """Run ``fn(**point, random_state=seed)`` for every grid point and repetition.

    Parameters
    ----------
    fn : callable
        Returns a number or a mapping of named numbers (for example
        ``{"accuracy": 0.8, "f1": 0.7}``) for one run.
    grid : mapping of str to sequence
        Parameter values; the sweep runs their Cartesian product.
    repetitions : int
        Independent runs per point (different noise draws; privacy results are random
        variables, so one run says little).
    random_state : int, Generator or None
        Seeds every run.
    n_jobs : int
        Parallel workers (joblib); 1 runs in this process and reports progress.
    backend : str, optional
        joblib backend ("loky" by default; "dask" or "ray" when configured).
    progress : callable(fraction, message), optional
        Called after each run when ``n_jobs == 1``.

    Returns
    -------
    DataFrame
        One row per run: the parameters, ``repetition``, ``seed`` and the returned values.
    """
    reps = check_positive_int(repetitions, name="repetitions")
    rng = check_random_state(random_state)
    keys = list(grid)
    points = [dict(zip(keys, values)) for values in itertools.product(*(grid[k] for k in keys))]
    seeds = rng.integers(0, 2**31 - 1, size=(len(points), reps))
    jobs = [(p, r, int(seeds[i, r])) for i, p in enumerate(points) for r in range(reps)]
    if n_jobs == 1:
        results = []
        for done, (p, r, s) in enumerate(jobs, start=1):
            results.append(_call(fn, p, s))
            if progress is not None:
                progress(done / len(jobs), f"run {done} of {len(jobs)}")
    else:
        results = Parallel(n_jobs=n_jobs, backend=backend)(
            delayed(_call)(fn, p, s) for p, _, s in jobs
        )
    rows = [{**p, "repetition": r, "seed": s, **res} for (p, r, s), res in zip(jobs, results)]
    return pd.DataFrame(rows)


def summarize(runs: pd.DataFrame, by: Sequence[str] | str, values: Sequence[str] | str) -> pd.DataFrame:
    """Mean, standard deviation and count of ``values`` per group of ``by``.

    Columns come out as ``<value>_mean``, ``<value>_std``, ``<value>_n``.
    """
    by = [by] if isinstance(by, str) else list(by)
    values = [values] if isinstance(values, str) else list(values)
    agg = runs.groupby(by, sort=True)[values].agg(["mean", "std", "count"])
    agg.columns = [f"{v}_{'n' if s == 'count' else s}" for v, s in agg.columns]
    return agg.reset_index()
