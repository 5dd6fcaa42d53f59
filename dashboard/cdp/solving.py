"""Solve for epsilon on the CDP pages: what the shared solve panel
(:mod:`dashboard.shared.solve.solve_panel`) needs from CDP-LR (Fig. 4's accuracy) and Publishing
(Fig. 6's MAE): the measure, the runs to solve on, how a solved epsilon becomes a value of the
page's epsilon widget, the page's sweep on a public reference table, and one fresh DP run of
the DP reading for private selection.

A private-selection run must be epsilon-DP as a whole, its score included:

* CDP-LR: the DP reading trained at (1 - :data:`SCORE_SHARE`) epsilon, its test accuracy
  released with discrete Laplace noise at :data:`SCORE_SHARE` epsilon (sensitivity: the
  declared group bound over the test rows, the most that replacing one record and its
  correlated group can move it).
* Publishing: the DP reading's release at that epsilon; its MAE is the mean size of the noise
  it added (it keeps every attribute, so its exact answers are the true counts), a function of
  the release alone. The candidates are what the whole release spends (Q x epsilon under the
  paper's per-query reading).
"""
from __future__ import annotations

import math
from typing import Callable, Sequence

import pandas as pd

from core.cdp.baselines import fit_scheme
from core.cdp.publishing import publish_mae
from core.data import Dataset
from core.decide.pages import scheme_runs
from core.privacy.mechanisms import laplace
from core.runtime.randomness import check_random_state, draw_seeds
from dashboard.cdp import cached
from dashboard.shared.widgets.job_view import setup_view, sweep_view
from dashboard.shared.solve.solve_charts import mark_solutions
from dashboard.shared.solve.solve_panel import ReferenceOffer, SelectionOffer, Solved, SolveMeasure, snap_up

__all__ = ["SCORE_SHARE", "LR_MEASURE", "PUB_MEASURE", "solvable", "lr_snap", "marked", "lr_measure",
           "lr_selection", "lr_reference", "pub_measure", "pub_selection", "pub_reference", "pub_snap"]

#: the share of a CDP-LR selection run's epsilon that pays for its noisy test accuracy
SCORE_SHARE = 0.2
#: CDP-LR's target: test accuracy at least X
LR_MEASURE = SolveMeasure("accuracy", "test accuracy", True, low=0.0, high=1.0, step=0.01)
#: Publishing's target: count-query MAE at most Y
PUB_MEASURE = SolveMeasure("mae", "count-query MAE", False, low=0.0, step=1.0, name="MAE")


def solvable(runs: pd.DataFrame) -> pd.DataFrame:
    """The page's runs as the solver reads them (:func:`core.decide.pages.scheme_runs`, the
    same as ``pux solve``'s): ``scheme`` named ``method``, and ``is_dp`` True for the DP reading
    only (the paper's schemes read the records outside the budget: their epsilon is nominal,
    and the answer says so)."""
    return scheme_runs(runs)


def lr_snap(epsilon: float) -> float:
    """A solved epsilon as a value of CDP-LR's slider (0.1 to 10, step 0.1), rounded up."""
    return min(10.0, max(0.1, math.ceil(round(float(epsilon) * 10, 9)) / 10))


def marked(fig, solved: Solved | None, *, labels: dict | None = None):
    """``fig`` with the target and each solved epsilon marked (itself when nothing is solved)."""
    if solved is None:
        return fig
    return mark_solutions(fig, solved.solutions, target_value=solved.target.threshold,
                          target_text=solved.target.describe(), labels=labels)


# ----------------------------------------------------------------------------- CDP-LR
def lr_measure(setup, mats: dict, *, noise_method: int, preset: str) -> Callable[[float, int], float]:
    """One private-selection run of the DP reading: trained at (1 - SCORE_SHARE) epsilon, its
    test accuracy released with discrete Laplace noise at SCORE_SHARE epsilon (sensitivity:
    the group bound over the test rows). Epsilon-DP as a whole (sequential composition)."""
    matrices = mats[cached.DP_READING]
    sensitivity = float(setup.sensitivity[cached.DP_READING]) / len(matrices[3])

    def measure(epsilon: float, random_state: int) -> float:
        train_seed, score_seed = (int(s) for s in draw_seeds(check_random_state(random_state), 2))
        _, accuracy = fit_scheme(setup, cached.DP_READING, epsilon=(1 - SCORE_SHARE) * float(epsilon),
                                 noise_method=int(noise_method), preset=preset, random_state=train_seed,
                                 matrices=matrices)
        return float(laplace(float(accuracy), sensitivity=sensitivity, epsilon=SCORE_SHARE * float(epsilon),
                             random_state=score_seed))

    return measure


def lr_selection(live, *, noise_method: int, preset: str, grid: Sequence[float]) -> SelectionOffer | str:
    """Private selection of the DP reading's epsilon, or why it is not offered (its runs must
    be pure epsilon-DP)."""
    ledger = live.models[cached.DP_READING].ledger_
    if not ledger.is_dp or ledger.total()[1] > 0:
        return ("Private selection needs runs that are pure epsilon-DP; the DP reading under this noise method "
                "is not, so it is not offered here (choose noise method 1, 2, 3, 5 or 6).")
    bound, n_test = float(live.setup.sensitivity[cached.DP_READING]), len(live.mats[cached.DP_READING][3])
    words = (f"Each run trains the DP reading at {1 - SCORE_SHARE:.0%} of a candidate epsilon e and releases its "
             f"test accuracy with Laplace noise paid by the other {SCORE_SHARE:.0%}, so one run is e-DP as a whole; "
             "the selection keeps the smallest candidate whose run met the target. That noise has scale "
             f"{bound / n_test / SCORE_SHARE:.3g} / e (the group bound {bound:g} over {n_test:,} test rows): "
             "where it is large against the gap to the target, a run meets it by chance.")
    return SelectionOffer(cached.DP_READING, lr_measure(live.setup, live.mats, noise_method=noise_method,
                                                        preset=preset), tuple(grid), words)


def lr_reference(c, seed: int, schema, grid: Sequence[float]) -> ReferenceOffer:
    """CDP-LR's own Fig. 4 sweep on a public reference table (same settings, same seeds)."""

    def runs(reference: Dataset) -> pd.DataFrame | None:
        data = cached.limit_rows(reference, int(c.max_rows), seed)
        step = cached.schemes(data, float(c.threshold), c.measure, float(c.tc), seed, schema)
        ready = setup_view("lr_ref_setup", step, stop=False)
        if ready is None:
            return None
        result = sweep_view("lr_ref_curve", cached.curves(step, ready, epsilons=tuple(grid),
                                                          noise_method=int(c.method), preset=c.preset,
                                                          repetitions=int(c.reps), seed=seed))
        return None if result is None else solvable(result[1])

    return ReferenceOffer(schema, schema.label, runs)


# ----------------------------------------------------------------------------- Publishing
def _per_release(budget: str, n_queries: int) -> int:
    """What the whole release spends per unit of the page's epsilon."""
    return int(n_queries) if budget == "per_query" else 1


def pub_measure(setup, *, budget: str, n_queries: int) -> Callable[[float, int], float]:
    """One private-selection run: the DP reading's release spending ``total`` in all, and its
    MAE (the mean size of its noise: a function of the release alone)."""
    per = _per_release(budget, n_queries)

    def measure(total: float, random_state: int) -> float:
        return float(publish_mae(setup, cached.DP_READING, epsilon=float(total) / per, budget=budget,
                                 random_state=random_state))

    return measure


def pub_selection(setup, *, epsilon: float, budget: str, n_queries: int, seed: int,
                  grid: Sequence[float]) -> SelectionOffer | str:
    """Private selection of the DP reading's epsilon (candidates in what the whole release
    spends), or why it is not offered."""
    ledger = cached.count_release(setup, cached.DP_READING, epsilon=float(epsilon), budget=budget, seed=seed).ledger
    if not ledger.is_dp:
        return ("Private selection needs runs that are differentially private; the DP reading is not here "
                "(its schema has entries read from your data), so it is not offered.")
    per = _per_release(budget, n_queries)
    words = ("Each run releases every query by the DP reading at a candidate and measures its MAE, the mean size "
             "of the noise it added (it keeps every attribute), so one run costs what the release costs"
             + (f": {per} x the per-query epsilon. The candidates below are those totals." if per > 1 else ".")
             + " The selection keeps the smallest candidate whose run met the target.")
    return SelectionOffer(cached.DP_READING, pub_measure(setup, budget=budget, n_queries=n_queries),
                          tuple(float(g) * per for g in grid), words, to_page=lambda total: total / per)


def pub_reference(c, seed: int, schema, grid: Sequence[float]) -> ReferenceOffer:
    """Publishing's own Fig. 6 sweep on a public reference table (same settings, same seeds)."""

    def runs(reference: Dataset) -> pd.DataFrame | None:
        data = cached.publishing_data(reference, c.use_products, seed)
        sub = cached.schema_subset(schema, data)
        setups = {}
        for m in c.measures:
            step = cached.publishing(data, m, float(c.threshold), 40.0, int(c.n_queries), seed, sub)
            ready = setup_view(f"pub_ref_setup_{m}", step, stop=False)
            if ready is None:
                return None
            setups[m] = (step, ready)
        result = sweep_view("pub_ref_curve", cached.mae(setups, epsilons=tuple(grid), repetitions=int(c.reps),
                                                        budget=c.budget, seed=seed))
        return None if result is None else solvable(result[1])

    return ReferenceOffer(schema, schema.label, runs)


def pub_snap(grid: Sequence[float]) -> Callable[[float], float]:
    """A solved epsilon as the smallest grid value of Publishing's slider at or above it."""
    return lambda epsilon: snap_up(epsilon, grid)
