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
    "dpsgd_case",
    "krr_case",
    "run_case",
    "sskm_paper_case",
    "sskm_sound_case",
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
    from core.cdp.logistic import DP_METHODS, CDPLogisticRegression

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


# ---------------------------------------------------------------------- SSKM_DP
def _llr_statistic(mu0: np.ndarray, mu1: np.ndarray) -> Callable[[np.ndarray], float]:
    """Log-likelihood ratio of two Laplace vectors with one scale (up to 1 / scale): the most
    powerful test. Rounded to 1e-6: at the ratio's atoms the raw float sums differ in their
    last bits between the datasets (textbook Laplace sampling, Mironov 2012)."""
    mu0, mu1 = np.asarray(mu0, dtype=float), np.asarray(mu1, dtype=float)
    return partial(_llr, mu0=mu0, mu1=mu1)


def _llr(y: np.ndarray, *, mu0: np.ndarray, mu1: np.ndarray) -> float:
    return round(float(np.sum(np.abs(y - mu0) - np.abs(y - mu1))), 6)


def _sskm_aggregates(side: int, random_state: int, *, pubs: tuple, epsilon: float) -> np.ndarray:
    counts, sums = pubs[side].release_aggregates(epsilon=epsilon, random_state=random_state)
    return np.concatenate([counts, sums.ravel()])


def _sskm_params(pub: Any) -> dict:
    import inspect

    names = [p for p in inspect.signature(type(pub).__init__).parameters if p != "self"]
    return {p: getattr(pub, p) for p in names}


def sskm_sound_case(pub: Any, frame: Any, *, epsilon: float) -> AuditCase:
    """The sound SSKM_DP fitted on ``frame``: one published record moves to another neuron.

    The record of the published part with the largest scaled values is replaced by the one
    with the largest values among the records of another neuron, so counts and sums move
    far (near the sensitivity 2(m + 1)). The held-out part, which alone trains the map, is
    the same in both datasets (a held-out record is outside the guarantee by design), so
    the second publisher is fitted once with the same held-out rows and seed. The mechanism
    is the release's DP vector (noisy counts and sums), from which every emitted row is
    computed; the statistic is its log-likelihood ratio.
    """
    from core.sskm.publisher import SSKMDP

    if not isinstance(pub, SSKMDP) or getattr(pub, "mode_", None) != "sound":
        raise ValueError("the sound SSKM_DP audit needs a publisher fitted with mode='sound'.")
    if not isinstance(pub.random_state, (int, np.integer)):
        raise ValueError("the sound SSKM_DP audit needs a publisher seeded with an int (to refit the same map).")
    eps = check_epsilon(epsilon)
    published = np.asarray(pub.published_index_)
    X = pub.table_.X[published]
    labels = np.asarray(pub.labels_)
    r = int(np.argmax(X.sum(axis=1)))
    other = np.flatnonzero(labels != labels[r])
    if len(other) == 0:
        raise ValueError("every published record sits in one neuron: the audit needs two; use a larger map.")
    s = int(other[np.argmax(X[other].sum(axis=1))])
    row_r, row_s = int(published[r]), int(published[s])
    d1 = frame.copy()
    d1.iloc[row_r] = frame.iloc[row_s].to_numpy()
    # both sides fitted with the same explicit held-out rows and seed: the same map
    params = _sskm_params(pub)
    pub = SSKMDP(**params).fit(frame, holdout_index=pub.holdout_index_)
    pub1 = SSKMDP(**params).fit(d1, holdout_index=pub.holdout_index_)
    mu0 = np.concatenate([pub._counts, pub._sums.ravel()])
    mu1 = np.concatenate([pub1._counts, pub1._sums.ravel()])
    pair = NeighbouringPair(0, 1, f"published record {row_r} replaced by a copy of record {row_s} "
                                  "(another neuron, the largest values)")
    moved = float(np.abs(mu0 - mu1).sum())
    note = (f"SSKM_DP (sound): one published record moves to another neuron; the released counts and sums "
            f"move by {moved:.3g} in L1 (the noise is calibrated to {2 * (X.shape[1] + 1)}). Statistic: the "
            "log-likelihood ratio of the released vector.")
    return AuditCase("SSKM_DP (sound)", partial(_sskm_aggregates, pubs=(pub, pub1), epsilon=eps), pair,
                     _llr_statistic(mu0, mu1), eps, 0.0, note)


def _sskm_paper_run(data: Any, random_state: int, *, params: dict) -> float:
    from core.sskm.publisher import SSKMDP

    pub = SSKMDP(**params, random_state=random_state)
    pub.fit(data).publish()
    exact = [j for j, c in enumerate(pub.table_.columns) if c not in set(pub.protected_)]
    return float(pub.published_scaled_[0, exact or slice(None)].sum())


def sskm_paper_case(frame: Any, *, sensitive: Sequence[str], epsilon: float, cs_threshold: float,
                    n_rows: int = 40, rows: int = 2, cols: int = 2, iterations: int = 400,
                    random_state: RandomState = 0) -> AuditCase:
    """The paper's SSKM_DP, run whole (map, MIC and noise) on a sample of ``n_rows`` records.

    Record 0 is replaced by an extreme record (every attribute at its largest value). The
    paper publishes record 0's row in place as its cluster centre, whose unprotected
    attributes are exact means and whose cluster the map chose from the raw records; the
    statistic is the sum of that row's unprotected attributes (scaled; all attributes when
    every one is protected). The claim checked is the paper's nominal
    epsilon. A small map and sample keep each run fast; the leak does not depend on them.
    """
    from core.audit import extreme_record
    from core.sskm.publisher import SSKMDP

    eps = check_epsilon(epsilon)
    rng = np.random.default_rng(random_state if isinstance(random_state, (int, np.integer)) else None)
    sample = frame.iloc[np.sort(rng.choice(len(frame), size=min(n_rows, len(frame)), replace=False))]
    sample = sample.reset_index(drop=True)
    d1 = sample.copy()
    d1.iloc[0] = _pd_row(extreme_record(sample), sample.columns)
    params = dict(mode="paper", epsilon=eps, sensitive=tuple(sensitive), cs_threshold=cs_threshold,
                  rows=rows, cols=cols, iterations=iterations, mic_max_rows=None,
                  sfla_params={"iterations": 3, "n_frogs": 6})
    nominal = SSKMDP(**params, random_state=0).fit(sample)
    nominal.publish()
    pair = NeighbouringPair(sample, d1, "record 0 replaced by an extreme record (every attribute at its "
                                        f"largest value), {len(sample)} records")
    note = (f"SSKM_DP (paper), run whole on a sample of {len(sample)} records with a {rows} x {cols} map: "
            "record 0 replaced by an extreme record. Statistic: the sum of the unprotected attributes of its "
            "published row (exact in the paper). The claim "
            "checked is the paper's nominal epsilon.")
    return AuditCase("SSKM_DP (paper)", partial(_sskm_paper_run, params=params), pair, None,
                     nominal.ledger_.nominal()[0], 0.0, note)


def _pd_row(record: Any, columns: Sequence[str]) -> list:
    """A record (dict, Series or sequence) as a list in ``columns`` order."""
    if isinstance(record, dict):
        return [record[c] for c in columns]
    if hasattr(record, "reindex"):
        return list(record.reindex(columns))
    return list(record)
