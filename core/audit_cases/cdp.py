"""Audit cases of paper 000's releases: CDP-LR, its ordinary DP-SGD baseline, one count query.

Under paper 000's correlated relation a record moves with its correlated records (at most
CS of them, docs/design.md section 2.1). The CDP-LR and count-query scenarios therefore
change ``k = floor(CS)`` records together (at least one), the largest group the claim
covers: with CS = 1 that is the plain replace-one relation. DP-SGD's guarantee covers one
record, so its scenario changes one.
"""
from __future__ import annotations

import math
from functools import partial
from typing import Any, Callable, Sequence

import numpy as np

from core.audit_cases.case import AuditCase
from core.audit.pairs import NeighbouringPair
from core.validation import check_epsilon

__all__ = ["cdp_lr_case", "count_query_case", "dpsgd_case"]


def _group_size(sensitivity: float, n: int) -> int:
    return int(max(1, min(math.floor(sensitivity + 1e-9), n // 4)))


# ---------------------------------------------------------------------- CDP-LR
def _extreme_records(X: Any, y: Any, feature: int | None, group: Callable[[int], int], who: str
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray, int, int]:
    """The two training sets of a logistic-regression audit: rows 0..k-1 (k = ``group(n)``)
    become an extreme record (0 everywhere, a large value on ``feature``) labelled with the
    first class in ``y0`` and the second in ``y1``. ``feature`` defaults to the column least
    correlated with the label (its weight stays near 0, where the extreme records' gradient
    terms stay clipped). Returns (X, y0, y1, feature, k)."""
    X = np.array(X, dtype=np.float64, copy=True)
    y = np.asarray(y)
    classes = np.sort(np.unique(y))
    if X.ndim != 2 or len(classes) != 2:
        raise ValueError(f"the {who} audit needs a 2-D X and a label with two classes.")
    n, d = X.shape
    if feature is None:
        yb = (y == classes[1]).astype(float)
        with np.errstate(invalid="ignore", divide="ignore"):
            corr = np.array([abs(np.corrcoef(X[:, j], yb)[0, 1]) if X[:, j].std() > 0 else 0.0
                             for j in range(d)])
        feature = int(np.argmin(np.nan_to_num(corr, nan=0.0)))
    if not 0 <= feature < d:
        raise ValueError(f"feature must be a column index between 0 and {d - 1}, got {feature}.")
    k = group(n)
    big = 100.0 * max(1.0, float(np.abs(X[:, feature]).max()))
    X[:k] = 0.0
    X[:k, feature] = big
    y0, y1 = y.copy(), y.copy()
    y0[:k], y1[:k] = classes[0], classes[1]
    return X, y0, y1, feature, k


def _trained_weight(data: tuple, random_state: int, *, model: type, params: dict, feature: int) -> float:
    """The statistic of the logistic audits: ``feature``'s weight after ``model(**params)``
    (CDP-LR or DP-SGD) is trained on ``data``."""
    X, y = data
    return float(model(**params, random_state=random_state).fit(X, y).coef_[0, feature])


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
    from core.cdp.logistic import CDPLogisticRegression
    from core.cdp.schedule import DP_METHODS

    X, y0, y1, feature, k = _extreme_records(X, y, feature, lambda n: _group_size(sensitivity, n), "CDP-LR")
    params = dict(epsilon=epsilon, noise_method=noise_method, sensitivity=float(sensitivity),
                  epochs=epochs, learning_rate=learning_rate, clip_norm=clip_norm, delta=delta, l2=l2,
                  fit_intercept=fit_intercept)
    claimed = CDPLogisticRegression(**params, random_state=0).fit(X, y0)
    eps, dlt = claimed.ledger_.total()
    if math.isinf(eps):  # no claim: the audit only reports what it finds
        dlt = 0.0
    pair = NeighbouringPair(
        (X, y0), (X, y1),
        f"{k} record(s) (k = floor(CS), the correlated group) at an extreme point, label flipped",
    )
    note = (f"CDP-LR, noise method {noise_method}: {k} correlated record(s) far out on one feature change "
            f"label; statistic: that feature's trained weight over {claimed.epochs_} epoch(s).")
    if noise_method not in DP_METHODS:
        note += " This method claims no guarantee: the audit shows what it leaks."
    return AuditCase("CDP-LR", partial(_trained_weight, model=CDPLogisticRegression, params=params,
                                       feature=feature), pair, None, eps, dlt, note)


# ---------------------------------------------------------------------- DP-SGD (ordinary DP)
def dpsgd_case(
    X: Any,
    y: Any,
    *,
    epsilon: float,
    delta: float = 1e-5,
    sampling_rate: float = 1.0,
    epochs: int = 1,
    learning_rate: float = 1.0,
    clip_norm: float = 1.0,
    fit_intercept: bool = True,
    feature: int | None = None,
) -> AuditCase:
    """DP-SGD (the CDP-LR page's ordinary-DP baseline) with one record at an extreme point, label flipped.

    As :func:`cdp_lr_case` with k = 1 (DP-SGD's guarantee covers one record, not a correlated
    group): row 0 is 0 everywhere but a large value on ``feature``; D0 gives it the first
    class, D1 the second, so its clipped gradient term swings from about +clip to -clip on
    ``feature``. The statistic is that feature's trained weight; the claim is the ledger's.
    The default full batch (``sampling_rate=1``) and one epoch are the tight case: one
    Gaussian release whose accounting is exact. With ``q < 1`` the claim comes through group
    privacy and sampling hides the record, so the audit is looser.
    """
    from core.cdp.dpsgd import DPSGDLogisticRegression

    X, y0, y1, feature, _ = _extreme_records(X, y, feature, lambda n: 1, "DP-SGD")
    params = dict(epsilon=epsilon, delta=delta, sampling_rate=sampling_rate, epochs=epochs,
                  learning_rate=learning_rate, clip_norm=clip_norm, fit_intercept=fit_intercept)
    claimed = DPSGDLogisticRegression(**params, random_state=0).fit(X, y0)
    eps, dlt = claimed.ledger_.total()
    pair = NeighbouringPair((X, y0), (X, y1), "one record at an extreme point, label flipped")
    note = (f"DP-SGD (ordinary DP, beyond the paper): one record far out on one feature changes label; "
            f"statistic: that feature's trained weight after {claimed.steps_} step(s) at sampling rate "
            f"{claimed.sampling_rate_:.3g}. Its guarantee covers one record, not the correlated group.")
    return AuditCase("DP-SGD", partial(_trained_weight, model=DPSGDLogisticRegression, params=params,
                                       feature=feature), pair, None, eps, dlt, note)


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
