"""Auditing a mechanism's privacy claim on a pair of neighbouring datasets.

Differential privacy bounds how well *any* test can tell two neighbouring datasets apart
from one output: for a test that says "D1" or "D0", its false-positive rate
FP = P(says D1 | D0) and false-negative rate FN = P(says D0 | D1) must satisfy
``FP + e^eps FN >= 1 - delta`` and ``FN + e^eps FP >= 1 - delta``, so

    eps >= max( ln((1 - delta - FN) / FP), ln((1 - delta - FP) / FN) ).

The auditor runs the mechanism many times on each dataset of one pair and measures such a
test (Jagielski, Ullman & Oprea, "Auditing Differentially Private Machine Learning: How
Private is Private SGD?", NeurIPS 2020; Nasr, Song, Thakurta, Papernot & Carlini,
"Adversary Instantiation: Lower Bounds for Differentially Private Machine Learning",
IEEE S&P 2021):

1. ``runs`` independent runs on each side, each with its own seed, all seeds drawn up
   front from one generator (so one ``random_state`` fixes the audit bit for bit, however
   many workers run it). A ``statistic`` reduces each output to one number.
2. The runs are split in halves. On the first half the threshold tests are tried
   ("statistic >= t" and its complement "statistic < t", each pointing to D1 and to D0,
   with t at 100 quantiles of that half's statistics, observed values at full precision)
   and the one whose empirical epsilon is largest is
   chosen. The empirical epsilon of a test here is its Clopper-Pearson lower bound on that
   half: a raw ratio of rates would favour thresholds in the tails, where a handful of runs
   give an infinite ratio.
3. On the second half, independent of the choice, the chosen test's FP and FN get one-sided
   Clopper-Pearson upper bounds, each at level ``1 - alpha / 2`` with
   ``alpha = 1 - confidence`` (Bonferroni: both hold together with probability at least
   ``confidence``). Put into the inequality above they give ``epsilon_lower``, a lower
   bound on the mechanism's true epsilon that holds with probability ``confidence``. The
   same half's plain rates give a point estimate.

Statistics are kept at full precision (float64, never rounded): two outputs that differ
in their last bit are two outputs, and a test may tell them apart, exactly as an attacker
would (Mironov 2012). Thresholds are observed values, not midpoints (a midpoint may round
onto a neighbour), so even adjacent doubles are separable. ``audit(..., grid=g)`` also
counts the runs whose output has a value off the declared grid
(:func:`core.audit.grid.off_grid_share`): an exact sampler's outputs lie on it.

The bound cannot exceed the **ceiling** (:func:`core.audit.bounds.audit_ceiling`): the bound of a test that
tells every evaluation run apart, which depends only on the runs, the confidence and delta.
With 1,000 runs per side at 95% it is 4.9; with 200, 3.3; with 5,000, 6.5. A bound that
reaches the ceiling means the audit saturated: more runs could show more (a mechanism with
an output possible on one dataset only has no finite epsilon at all).

A lower bound above the claimed epsilon is evidence of a bug (noise too small, a wrong
sensitivity, a leak outside the noise). A lower bound below the claim proves nothing: the
audit can only find violations. It tries one pair of datasets and one family of tests on
one statistic, with finitely many runs; another pair, statistic or test may reveal more,
and privacy is a promise about all of them.

The pair must be neighbours under the project's one relation
(:data:`core.privacy.ledger.NEIGHBOURING_RELATION`: one record replaced by any other, ``n``
public); :func:`core.audit.pairs.replace_pair` builds one, by default with the record replaced by the
extreme record, the usual worst case for sums and gradients.
"""
from __future__ import annotations

import math
import numbers
import threading
import time
from functools import partial
from typing import Any, Callable

import numpy as np

from core.audit.bounds import (
    MIN_RUNS, audit_ceiling, check_claimed_delta, check_confidence, measure_epsilon,
)
from core.audit.grid import check_grid, has_off_grid
from core.audit.pairs import NeighbouringPair
from core.audit.result import AuditResult
from core.runtime.experiments import map_seeds
from core.runtime.progress import stop_requested
from core.runtime.randomness import RandomState, check_random_state, draw_seeds
from core.validation import check_epsilon, check_positive_int

__all__ = ["audit"]


def _one_run(mechanism: Callable, statistic: Callable | None, datasets: tuple, job: tuple,
             grid: float | None = None) -> float | tuple[float, int]:
    side, seed = job
    output = mechanism(datasets[side], random_state=seed)
    off = None if grid is None else int(has_off_grid(output, grid))
    try:
        value = float(output) if statistic is None else float(statistic(output))
    except (TypeError, ValueError) as exc:
        what = "the mechanism's output" if statistic is None else "statistic(output)"
        raise TypeError(
            f"{what} must be one number (give a statistic that reduces the output, "
            f"e.g. lambda out: out[0]); got {type(output).__name__}."
        ) from exc
    if math.isnan(value):
        raise ValueError("the statistic returned NaN; it must be a number for every output.")
    return value if off is None else (value, off)


def _check_claimed_epsilon(value: Any) -> float:
    if isinstance(value, numbers.Real) and not isinstance(value, bool) and math.isinf(value) and value > 0:
        return math.inf
    return check_epsilon(value, name="claimed_epsilon")


def _check_audit_args(
    mechanism, statistic, pair, claimed_epsilon, claimed_delta, runs, confidence, chunk, stop
) -> tuple[float, float, int, float, int]:
    """Check :func:`audit`'s arguments (its Raises section).

    Returns the claimed epsilon and delta, the runs per side, the confidence and the chunk.
    """
    if not callable(mechanism):
        raise TypeError(f"mechanism must be callable, got {type(mechanism).__name__}.")
    if statistic is not None and not callable(statistic):
        raise TypeError(f"statistic must be callable, got {type(statistic).__name__}.")
    if not isinstance(pair, NeighbouringPair):
        raise TypeError(
            f"pair must be a NeighbouringPair (see replace_pair), got {type(pair).__name__}."
        )
    eps_claim = _check_claimed_epsilon(claimed_epsilon)
    delta = check_claimed_delta(claimed_delta, name="claimed_delta")
    n_runs = check_positive_int(runs, name="runs", minimum=MIN_RUNS)
    conf = check_confidence(confidence)
    size = check_positive_int(chunk, name="chunk")
    stop_requested(stop)  # the one stop protocol: None or an event, else a TypeError
    if hasattr(pair.d0, "__len__") and hasattr(pair.d1, "__len__"):
        if len(pair.d0) != len(pair.d1):
            raise ValueError(
                "neighbouring datasets have the same number of records (one is replaced, "
                f"n is public); got {len(pair.d0)} and {len(pair.d1)}."
            )
    return eps_claim, delta, n_runs, conf, size


def _run_both_sides(mechanism, statistic, pair, *, n_runs, chunk, random_state, n_jobs, scheduler,
                    progress, stop, grid=None) -> np.ndarray | tuple[np.ndarray, int]:
    """Run the mechanism ``n_runs`` times on each dataset of ``pair`` (fewer when stopped).

    Every run's seed is drawn up front from ``random_state``. Returns the statistics, shape
    (runs per side done, 2): column 0 on ``pair.d0``, column 1 on ``pair.d1``; with a
    ``grid``, also the number of runs whose output had a value off it.
    """
    rng = check_random_state(random_state)
    seeds = draw_seeds(rng, (2, n_runs))
    # interleaved, so that any prefix (a stopped audit) has as many runs on each side
    jobs = [(side, int(seeds[side, r])) for r in range(n_runs) for side in (0, 1)]
    fn = partial(_one_run, mechanism, statistic, (pair.d0, pair.d1), grid=grid)
    values = map_seeds(fn, jobs, chunk=2 * chunk, n_jobs=n_jobs, scheduler=scheduler,
                       progress=progress, stop=stop)
    done = len(values) // 2
    if done < MIN_RUNS:
        raise ValueError(
            f"only {done} runs per side were done before the stop; an audit needs at least "
            f"{MIN_RUNS} per side."
        )
    values = values[: 2 * done]
    if grid is not None:
        off = sum(int(v[1]) for v in values)
        return np.asarray([v[0] for v in values], dtype=np.float64).reshape(done, 2), off
    return np.asarray(values, dtype=np.float64).reshape(done, 2)


def audit(
    mechanism: Callable[..., Any],
    pair: NeighbouringPair,
    *,
    claimed_epsilon: float,
    claimed_delta: float = 0.0,
    statistic: Callable[[Any], float] | None = None,
    runs: int = 1000,
    confidence: float = 0.95,
    random_state: RandomState = None,
    n_jobs: int = 1,
    chunk: int = 50,
    progress: Callable[[float, str], None] | None = None,
    stop: threading.Event | None = None,
    scheduler: str | None = None,
    grid: float | None = None,
) -> AuditResult:
    """Measure a lower bound on a mechanism's epsilon and check it against the claim.

    Parameters
    ----------
    mechanism : callable
        ``mechanism(dataset, random_state=seed) -> output``, run on ``pair.d0`` and
        ``pair.d1``; it must draw all its randomness from ``seed`` (an int).
    pair : NeighbouringPair
        Two neighbouring datasets (see :func:`core.audit.pairs.replace_pair`).
    claimed_epsilon : float
        The epsilon the mechanism claims, > 0; ``math.inf`` when it claims none (then
        the audit only reports the bound it finds).
    claimed_delta : float
        The claimed delta, 0 (pure DP) or in (0, 1); it enters the bound.
    statistic : callable, optional
        ``statistic(output) -> float``, the number the tests threshold. Default
        ``float(output)`` (scalar outputs).
    runs : int
        Runs per side (``2 * runs`` mechanism calls), at least 20. The bound can never
        exceed :func:`core.audit.bounds.audit_ceiling` of the runs (returned as ``ceiling``): with 1,000 per
        side at 95%, 4.9, even for a mechanism with no privacy at all; a bound at the
        ceiling means more runs could show more.
    confidence : float
        Probability, strictly between 0 and 1, with which ``epsilon_lower`` is a valid
        lower bound (shared between the FP and FN bounds by Bonferroni).
    random_state : int, Generator or None
        Draws every run's seed up front; the same int gives the same result bit for bit,
        whatever ``n_jobs``, ``chunk`` and ``scheduler``.
    n_jobs : int
        Local worker processes when no scheduler is configured (see
        :func:`core.runtime.experiments.map_seeds`); off this process the mechanism and statistic
        are pickled (cloudpickle) and sent to each worker once.
    chunk : int
        Runs per side in one task (one task makes ``2 * chunk`` mechanism calls); larger
        chunks amortise the per-task overhead, smaller ones report progress and stop
        sooner.
    progress : callable(fraction, message), optional
        Called after every chunk with the share of runs done.
    stop : threading.Event, optional
        When set, the running chunk finishes and the audit returns what it measured from
        the runs done (``stopped=True``).
    scheduler : str, optional
        A Dask scheduler to run the chunks on (:func:`core.runtime.compute.resolve_scheduler`;
        default ``$PUX_SCHEDULER``, else this process or ``n_jobs`` local workers).
    grid : float, optional
        The grid the mechanism's ledger says its outputs lie on (> 0). Each run's whole
        output (a number or an array of numbers) is checked, exactly, for values that are
        not multiples of it (:func:`core.audit.grid.off_grid_share`); ``off_grid`` counts those runs. An
        exact sampler gives 0; floating-point noise or a step after the noise that leaves
        the grid gives many.

    Returns
    -------
    AuditResult

    Raises
    ------
    TypeError
        ``mechanism`` or ``statistic`` not callable, ``pair`` not a NeighbouringPair, an
        output the statistic cannot turn into a number, or (with ``grid``) an output that
        is not numbers.
    ValueError
        Fewer than 20 runs per side (asked for, or done before a stop), a bad epsilon,
        delta or confidence.
    """
    start = time.perf_counter()
    eps_claim, delta, n_runs, conf, size = _check_audit_args(
        mechanism, statistic, pair, claimed_epsilon, claimed_delta, runs, confidence, chunk, stop
    )
    g = None if grid is None else check_grid(grid)
    stats = _run_both_sides(mechanism, statistic, pair, n_runs=n_runs, chunk=size,
                            random_state=random_state, n_jobs=n_jobs, scheduler=scheduler,
                            progress=progress, stop=stop, grid=g)
    off = None
    if g is not None:
        stats, off = stats
    threshold, op, says, lower, point = measure_epsilon(stats, delta, conf)
    return AuditResult(
        claimed_epsilon=eps_claim, claimed_delta=delta, epsilon_lower=lower, epsilon_point=point,
        runs=len(stats), threshold=threshold, direction=f"statistic {op} {threshold!r} on D{says}",
        confidence=conf, violation=bool((not math.isinf(eps_claim)) and lower > eps_claim + 1e-12),
        seconds=time.perf_counter() - start, description=pair.description, stopped=len(stats) < n_runs,
        ceiling=audit_ceiling(len(stats), confidence=conf, delta=delta), grid=g, off_grid=off,
    )
