"""Audit scenarios: each method's mechanism, a near-worst-case neighbouring pair and a statistic.

One scenario per mechanism that claims epsilon, used both by the tests (an audit at a
modest run count finds no violation, and a mutant with too little noise is flagged) and by
the dashboard's "Privacy audit" panels, so the app audits exactly what CI audits.

Under paper 000's correlated relation a record moves with its correlated records (at most
CS of them, docs/design.md section 2.1). The CDP-LR and count-query scenarios therefore
change ``k = floor(CS)`` records together (at least one), the largest group the claim
covers: with CS = 1 that is the plain replace-one relation.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import partial
from typing import Any, Callable, Sequence

import numpy as np

from core.audit import AuditResult, NeighbouringPair, audit
from core.mechanisms import krr
from core.validation import RandomState, check_epsilon, check_positive_int

__all__ = [
    "AuditCase",
    "cdp_lr_case",
    "count_query_case",
    "krr_case",
    "run_case",
]


@dataclass(frozen=True)
class AuditCase:
    """A mechanism, the pair of neighbouring datasets it is run on, and what it claims.

    Attributes
    ----------
    name : str
    mechanism : callable(dataset, random_state: int) -> output
    pair : NeighbouringPair
    statistic : callable(output) -> float, or None for a scalar output
    claimed_epsilon, claimed_delta : float
        What the mechanism's ledger reports for the output the statistic reads.
    note : str
        One sentence on the pair and what it tests, for the page.
    """

    name: str
    mechanism: Callable[[Any, int], Any]
    pair: NeighbouringPair
    statistic: Callable[[Any], float] | None
    claimed_epsilon: float
    claimed_delta: float
    note: str


def run_case(case: AuditCase, *, runs: int = 1000, random_state: RandomState = None,
             n_jobs: int = 1, progress=None, stop=None) -> AuditResult:
    """:func:`core.audit.audit` on a scenario."""
    return audit(case.mechanism, case.pair, claimed_epsilon=case.claimed_epsilon,
                 claimed_delta=case.claimed_delta, statistic=case.statistic, runs=runs,
                 random_state=random_state, n_jobs=n_jobs, progress=progress, stop=stop)


def _group_size(sensitivity: float, n: int) -> int:
    return int(max(1, min(math.floor(sensitivity + 1e-9), n // 4)))


# ---------------------------------------------------------------------- CDP-LR
def _cdp_fit(data: tuple, random_state: int, *, params: dict, feature: int) -> float:
    from core.cdp.logistic import CDPLogisticRegression

    X, y = data
    model = CDPLogisticRegression(**params, random_state=random_state).fit(X, y)
    return float(model.coef_[0, feature])


def cdp_lr_case(
    X: Any,
    y: Any,
    *,
    sensitivity: float,
    epsilon: float,
    noise_method: int = 1,
    epochs: int = 1,
    learning_rate: float = 1.0,
    clip_norm: float = 1.0,
    delta: float = 1e-5,
    l2: float = 0.1,
    fit_intercept: bool = True,
    feature: int | None = None,
) -> AuditCase:
    """CDP-LR on (X, y) with k = floor(CS) records at an extreme point, labels flipped.

    In both datasets rows 0..k-1 are the extreme record (0 everywhere, a large value M on
    ``feature``); D0 gives them the first class, D1 the second. Each of those records'
    clipped gradient term then swings from about +clip to -clip on ``feature``: together
    2 k clip, the sensitivity the noise is calibrated to. The statistic is the trained
    weight of ``feature``, by default the column least correlated with the label (its weight
    stays near 0, where the extreme records' gradient terms stay clipped: the tight case
    for output perturbation too). With several epochs the one weight sees only part of the
    privacy loss, so the audit's bound is looser; one epoch is the tight case.
    """
    from core.cdp.logistic import DP_METHODS, CDPLogisticRegression

    X = np.array(X, dtype=np.float64, copy=True)
    y = np.asarray(y)
    classes = np.sort(np.unique(y))
    if X.ndim != 2 or len(classes) != 2:
        raise ValueError("the CDP-LR audit needs a 2-D X and a label with two classes.")
    n, d = X.shape
    if feature is None:
        yb = (y == classes[1]).astype(float)
        with np.errstate(invalid="ignore", divide="ignore"):
            corr = np.array([abs(np.corrcoef(X[:, j], yb)[0, 1]) if X[:, j].std() > 0 else 0.0
                             for j in range(d)])
        feature = int(np.argmin(np.nan_to_num(corr, nan=0.0)))
    if not 0 <= feature < d:
        raise ValueError(f"feature must be a column index between 0 and {d - 1}, got {feature}.")
    k = _group_size(sensitivity, n)
    big = 100.0 * max(1.0, float(np.abs(X[:, feature]).max()))
    X[:k] = 0.0
    X[:k, feature] = big
    y0, y1 = y.copy(), y.copy()
    y0[:k], y1[:k] = classes[0], classes[1]
    params = dict(epsilon=epsilon, noise_method=noise_method, sensitivity=float(sensitivity),
                  epochs=epochs, learning_rate=learning_rate, clip_norm=clip_norm, delta=delta, l2=l2,
                  fit_intercept=fit_intercept)
    ledger = CDPLogisticRegression(**params, random_state=0).fit(X, y0).ledger_
    eps, dlt = ledger.total()
    if math.isinf(eps):  # no claim: the audit only reports what it finds
        dlt = 0.0
    pair = NeighbouringPair(
        (X, y0), (X, y1),
        f"{k} record(s) (k = floor(CS), the correlated group) at an extreme point, label flipped",
    )
    note = (f"CDP-LR, noise method {noise_method}: {k} correlated record(s) far out on one feature change "
            f"label; statistic: that feature's trained weight over {epochs} epoch(s).")
    if noise_method not in DP_METHODS:
        note += " This method claims no guarantee: the audit shows what it leaks."
    return AuditCase("CDP-LR", partial(_cdp_fit, params=params, feature=feature), pair, None,
                     eps, dlt, note)


# ---------------------------------------------------------------------- counts
def _noisy_count(data: np.ndarray, random_state: int, *, sensitivity: float, epsilon: float) -> float:
    from core.cdp.publishing import noisy_counts  # the publishing page's own noise step

    return float(noisy_counts(np.array([np.sum(data)]), sensitivity=sensitivity,
                              epsilon_per_query=epsilon, random_state=random_state)[0])


def count_query_case(matches: Sequence[bool], *, sensitivity: float, epsilon: float) -> AuditCase:
    """One count query: k = floor(CS) records that match it stop matching.

    Parameters
    ----------
    matches : sequence of bool
        Whether each record satisfies the query (the exact count is their sum).
    sensitivity : float
        The scheme's sensitivity (CS, or GS for the Group scheme).
    epsilon : float
        The budget of this one query (epsilon per query).
    """
    eps = check_epsilon(epsilon)
    m0 = np.asarray(matches, dtype=bool).copy()
    n = len(m0)
    if n < 4:
        raise ValueError("the count-query audit needs at least 4 records.")
    k = _group_size(sensitivity, n)
    m0[:k] = True
    m1 = m0.copy()
    m1[:k] = False
    pair = NeighbouringPair(m0, m1, f"{k} record(s) (k = floor(sensitivity)) leave the query's range")
    note = (f"One count query answered with Laplace noise of scale {sensitivity:.4g} / {eps:.4g}; "
            f"{k} correlated record(s) leave its range. Statistic: the noisy count.")
    return AuditCase("count query", partial(_noisy_count, sensitivity=float(sensitivity), epsilon=eps),
                     pair, None, eps, 0.0, note)


# ---------------------------------------------------------------------- kRR
def _krr_report(value: np.ndarray, random_state: int, *, categories: tuple, epsilon: float) -> float:
    out = krr(value, categories=list(categories), epsilon=epsilon, random_state=random_state)
    return float(out[0] == categories[0])


def krr_case(categories: Sequence[Any], *, epsilon: float) -> AuditCase:
    """kRR on one value: the record's true category is the first one in D0, another in D1.

    kRR is local DP: each reported value on its own is epsilon-DP, so the pair is a
    one-record dataset and the statistic whether the report is the first category.
    """
    eps = check_epsilon(epsilon)
    cats = tuple(dict.fromkeys(categories))
    check_positive_int(len(cats), name="number of categories", minimum=2)
    pair = NeighbouringPair(np.array([cats[0]], dtype=object), np.array([cats[1]], dtype=object),
                            f"one value: {cats[0]!s} vs {cats[1]!s}")
    note = (f"k-ary randomized response over {len(cats)} categories on one value; statistic: whether "
            "the report is the first category.")
    return AuditCase("kRR", partial(_krr_report, categories=cats, epsilon=eps), pair, None, eps, 0.0, note)
