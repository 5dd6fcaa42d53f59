"""Audit scenarios: each method's mechanism, a near-worst-case neighbouring pair and a statistic.

One scenario per mechanism that claims epsilon, used both by the tests (an audit at a
modest run count finds no violation, and a mutant with too little noise is flagged) and by
the dashboard's "Privacy audit" panels, so the app audits exactly what CI audits.

A release is more than its noise step: :func:`pipeline_cases` builds one case per step
before the noise that a careless pipeline reads from the rows (a category list, a range, a
held-out part; :mod:`core.audit.auditor`'s pipeline pairs), :func:`run_cases` runs several cases and
:func:`worst_result` picks the worst, which the audit panel shows.

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

from core.audit.auditor import AuditResult, NeighbouringPair, audit
from core.privacy.mechanisms import krr
from core.validation import check_epsilon, check_positive_int
from core.runtime.randomness import RandomState

__all__ = [
    "AuditCase",
    "as_cases",
    "cdp_lr_case",
    "count_query_case",
    "dpsgd_case",
    "krr_case",
    "pipeline_cases",
    "run_case",
    "run_cases",
    "worst_result",
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
    grid : float or None
        The output grid the mechanism's ledger states; the audit then also counts outputs
        off it (:func:`core.audit.auditor.off_grid_share`). None: not checked.
    """

    name: str
    mechanism: Callable[[Any, int], Any]
    pair: NeighbouringPair
    statistic: Callable[[Any], float] | None
    claimed_epsilon: float
    claimed_delta: float
    note: str
    grid: float | None = None


def run_case(case: AuditCase, *, runs: int = 1000, random_state: RandomState = None,
             n_jobs: int = 1, progress=None, stop=None) -> AuditResult:
    """:func:`core.audit.auditor.audit` on a scenario."""
    return audit(case.mechanism, case.pair, claimed_epsilon=case.claimed_epsilon,
                 claimed_delta=case.claimed_delta, statistic=case.statistic, runs=runs,
                 random_state=random_state, n_jobs=n_jobs, progress=progress, stop=stop,
                 grid=case.grid)


def _excess(result: AuditResult) -> tuple[bool, float]:
    claim = 0.0 if math.isinf(result.claimed_epsilon) else result.claimed_epsilon
    return bool(result.violation), float(result.epsilon_lower - claim)


def worst_result(results: Sequence[AuditResult]) -> int:
    """Position of the worst of several audits of one release: a violation before none, then
    the largest lower bound minus its claim (minus 0 where nothing is claimed); the first
    on ties."""
    if len(results) == 0:
        raise ValueError("no audit results to choose from.")
    keys = [_excess(r) for r in results]
    return max(range(len(keys)), key=lambda k: (keys[k], -k))


def as_cases(cases: Any) -> list[AuditCase]:
    """``cases`` as a non-empty list of :class:`AuditCase` (one case, or a sequence of them)."""
    if isinstance(cases, AuditCase):
        return [cases]
    if isinstance(cases, (str, bytes)) or not isinstance(cases, Sequence):
        raise TypeError(f"cases must be an AuditCase or a sequence of them, got {type(cases).__name__}.")
    out = list(cases)
    if not out:
        raise ValueError("cases is empty: give at least one audit case.")
    for c in out:
        if not isinstance(c, AuditCase):
            raise TypeError(f"cases must hold AuditCase objects, got {type(c).__name__}.")
    return out


def run_cases(cases: AuditCase | Sequence[AuditCase], *, runs: int = 1000, random_state: RandomState = None,
              n_jobs: int = 1, progress=None, stop=None) -> list[AuditResult]:
    """:func:`run_case` on each case, one after the other, each with its own seed drawn from
    ``random_state``. ``progress`` sees the share of all the cases' runs done; a stop ends
    the running case and skips the rest (the results done so far are returned).
    """
    from core.runtime.randomness import check_random_state, draw_seeds

    todo = as_cases(cases)
    seeds = draw_seeds(check_random_state(random_state), len(todo))
    results: list[AuditResult] = []
    for k, (case, seed) in enumerate(zip(todo, seeds)):
        if stop is not None and stop.is_set() and results:
            break

        def part(fraction: float, message: str, k: int = k, name: str = case.name) -> None:
            if progress is not None:
                progress((k + fraction) / len(todo), f"{name} ({k + 1} of {len(todo)}): {message}")

        try:
            results.append(run_case(case, runs=runs, random_state=int(seed), n_jobs=n_jobs,
                                    progress=part, stop=stop))
        except ValueError:
            if stop is not None and stop.is_set() and results:
                break  # stopped before this case had enough runs: keep the ones done
            raise
    return results


def pipeline_cases(name: str, mechanism: Callable[[Any, int], Any], frame: Any, *, claimed_epsilon: float,
                   claimed_delta: float = 0.0, statistic: Callable[[Any], float] | None = None,
                   categorical: Sequence[str] = (), numeric: Sequence[str] = (), holdout_index: Any = None,
                   schema: Any = None, index: int = 0, factor: float = 10, grid: float | None = None,
                   note: str = "") -> list[AuditCase]:
    """The pipeline pairs of a release that takes a table: one case per data-dependent step.

    One :func:`core.audit.auditor.new_category_pair` per column of ``categorical``, one
    :func:`core.audit.auditor.out_of_range_pair` per column of ``numeric``, and, with
    ``holdout_index``, one :func:`core.audit.auditor.held_out_pair`. Run them with
    :func:`run_cases` and show the worst (:func:`worst_result`); the audit panel does both.

    Parameters
    ----------
    name : str
        The release, for the page ("SSKM_DP (sound)").
    mechanism : callable(frame, random_state) -> output
        The whole release, run on each dataset (its schema, if any, bound inside: the
        declared lists are the same for both datasets).
    frame : DataFrame
        The private table.
    claimed_epsilon, claimed_delta, statistic, grid
        As in :class:`AuditCase`.
    categorical, numeric : sequence of str
        The columns whose category list / range the release might read.
    holdout_index : array_like of int, optional
        Rows the release holds out (then a pair moves one of them).
    schema : PublicSchema, optional
        What is declared public (a declared category absent from the data is the new one).
    index, factor
        The record replaced and how far out of range (see the builders).
    note : str
        A sentence added to each case's note.
    """
    from core.audit.auditor import held_out_pair, new_category_pair, out_of_range_pair

    if not isinstance(name, str):
        raise TypeError(f"name must be a str, got {type(name).__name__}.")
    for what, cols in (("categorical", categorical), ("numeric", numeric)):
        if isinstance(cols, str) or not isinstance(cols, Sequence):
            raise TypeError(f"{what} must be a sequence of column names.")
    eps = claimed_epsilon if isinstance(claimed_epsilon, float) and math.isinf(claimed_epsilon) \
        else check_epsilon(claimed_epsilon, name="claimed_epsilon")
    pairs = [new_category_pair(frame, c, index=index, schema=schema) for c in categorical]
    pairs += [out_of_range_pair(frame, c, factor=factor, index=index) for c in numeric]
    if holdout_index is not None:
        pairs.append(held_out_pair(frame, holdout_index, factor=factor, schema=schema))
    if not pairs:
        raise ValueError("no pipeline pair to build: name categorical or numeric columns, or a holdout_index.")
    tail = f" {note}" if note else ""
    return [AuditCase(name, mechanism, pair, statistic, eps, float(claimed_delta),
                      f"{name}: {pair.description}.{tail}", grid) for pair in pairs]


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
    powerful test. Kept at full precision: a statistic is a function of the output, so it
    cannot make two datasets more distinguishable than the output does; rounding it would
    only hide low bits that do differ (floating-point noise, Mironov 2012)."""
    mu0, mu1 = np.asarray(mu0, dtype=float), np.asarray(mu1, dtype=float)
    return partial(_llr, mu0=mu0, mu1=mu1)


def _llr(y: np.ndarray, *, mu0: np.ndarray, mu1: np.ndarray) -> float:
    return float(np.sum(np.abs(y - mu0) - np.abs(y - mu1)))


def _sskm_aggregates(side: int, random_state: int, *, pubs: tuple, epsilon: float) -> np.ndarray:
    counts, sums = pubs[side].release_aggregates(epsilon=epsilon, random_state=random_state)
    return np.concatenate([counts, sums.ravel()])


def _sskm_params(pub: Any) -> dict:
    import inspect

    names = [p for p in inspect.signature(type(pub).__init__).parameters if p != "self"]
    return {p: getattr(pub, p) for p in names}


class _SSKMRelease:
    """The sound SSKM_DP's whole release on a dataset, as an audit mechanism (picklable).

    Each dataset is scaled once (the schema's scaling is a deterministic function of the
    records, so computing it once per dataset is the same as computing it per run); every
    run then draws the noisy map and the noisy counts and sums afresh from its seed.
    ``output="aggregates"`` returns the release's noisy vector, else the published frame.
    """

    def __init__(self, params: dict, connections: Any, epsilon: float, reference: Any = None,
                 output: str = "frame") -> None:
        self.params, self.connections, self.epsilon = params, connections, epsilon
        self.reference, self.output = reference, output
        self._fitted: dict = {}

    def fitted(self, data: Any) -> Any:
        from core.sskm.publisher import SSKMDP

        pub = self._fitted.get(id(data))
        if pub is None:
            pub = SSKMDP(**self.params).fit(data, connections=self.connections, reference=self.reference)
            self._fitted[id(data)] = pub
        return pub

    def __call__(self, data: Any, random_state: int) -> Any:
        import copy

        mine = copy.copy(self.fitted(data))
        if self.output == "aggregates":
            counts, sums = mine.release_aggregates(epsilon=self.epsilon, random_state=random_state)
            return np.concatenate([counts, sums.ravel()])
        return mine.publish(epsilon=self.epsilon, random_state=random_state)

    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        state["_fitted"] = {}  # ids mean nothing in another process
        return state


def _sskm_check_sound(pub: Any) -> None:
    from core.sskm.publisher import SSKMDP

    if not isinstance(pub, SSKMDP) or getattr(pub, "mode_", None) != "sound":
        raise ValueError("the sound SSKM_DP audit needs a publisher fitted with mode='sound'.")
    if not isinstance(pub.random_state, (int, np.integer)):
        raise ValueError("the sound SSKM_DP audit needs a publisher seeded with an int (to refit the same map).")


def sskm_sound_case(pub: Any, frame: Any, *, epsilon: float) -> AuditCase:
    """The sound SSKM_DP fitted on ``frame``: one record moves to another neuron.

    The record with the largest scaled values is replaced by the one with the largest
    values among the records of another neuron (under the fitted map), so counts and sums
    move far (near the sensitivity 2(m + 1)). Both datasets are scaled with the same public
    schema; every run draws the noisy map (or uses the public reference map) and the
    release's noisy counts and sums, the mechanism's output. The statistic is the
    log-likelihood ratio of the released vector under the fitted map's assignment (exact
    with a reference map; a valid, weaker test when each run draws its own noisy map). The
    steps before the noise are audited by :func:`sskm_sound_pipeline_cases`.
    """
    _sskm_check_sound(pub)
    eps = check_epsilon(epsilon)
    X = pub.table_.X
    labels = np.asarray(pub.som_.predict(X))
    r = int(np.argmax(X.sum(axis=1)))
    other = np.flatnonzero(labels != labels[r])
    if len(other) == 0:
        raise ValueError("every record sits in one neuron: the audit needs two; use a larger map.")
    s = int(other[np.argmax(X[other].sum(axis=1))])
    d1 = frame.copy()
    d1.iloc[r] = frame.iloc[s].to_numpy()
    params = _sskm_params(pub)
    reference = getattr(pub, "reference_frame_", None)
    run = _SSKMRelease(params, pub.connections_, eps, reference, output="aggregates")
    p0, p1 = run.fitted(frame), run.fitted(d1)
    mu0 = np.concatenate([p0._counts, p0._sums.ravel()])
    mu1 = np.concatenate([p1._counts, p1._sums.ravel()])
    pair = NeighbouringPair(frame, d1, f"record {r} replaced by a copy of record {s} "
                                       "(another neuron, the largest values)")
    moved = float(np.abs(mu0 - mu1).sum())
    note = (f"SSKM_DP (sound): one record moves to another neuron; the released counts and sums move by "
            f"{moved:.3g} in L1 (the noise is calibrated to {2 * (X.shape[1] + 1)}). Statistic: the "
            "log-likelihood ratio of the released vector.")
    return AuditCase("SSKM_DP (sound)", run, pair, _llr_statistic(mu0, mu1), eps, 0.0, note)


def _sskm_outside(out: Any, *, seen: dict) -> float:
    """How many released cells lie outside what ``d0`` holds: a category it does not have, a
    number beyond its observed range (full precision)."""
    total = 0.0
    for col, allowed in seen.items():
        if col not in out.columns:
            continue
        values = out[col]
        if isinstance(allowed, tuple):
            v = _sskm_numbers(values)
            total += float(np.sum((v > allowed[1]) | (v < allowed[0])))
        else:
            total += float((~values.astype(str).isin(allowed)).sum())
    return total


def _sskm_numbers(values: Any) -> np.ndarray:
    import pandas as pd

    return pd.to_numeric(values, errors="coerce").to_numpy(dtype=float)


def sskm_sound_pipeline_cases(pub: Any, frame: Any, *, epsilon: float, index: int = 0,
                              columns: Sequence[str] | None = None) -> list[AuditCase]:
    """The sound SSKM_DP's steps before the noise: one case per data-dependent step.

    :func:`pipeline_cases` with the whole release (scaling, noisy map, noisy counts and
    sums) as the mechanism: record ``index`` brings a category outside the declared list
    (each categorical column), a value ten ranges above the maximum (each numeric column),
    and one record changed on every column at once (what the old held-out part read). The
    statistic counts released cells outside what ``d0`` holds (a new category, a number
    beyond ``d0``'s range): a release that read its categories or bounds from the rows shows
    them on one side only; with a public schema both sides are clipped alike. ``columns``
    limits the one-column pairs to those columns (default every published column; each case
    costs 2 x runs releases; ``()`` keeps only the pair that changes every column at once).
    """
    _sskm_check_sound(pub)
    eps = check_epsilon(epsilon)
    table = pub.table_
    cols = list(table.columns)
    frame = frame[cols] if all(c in frame.columns for c in cols) else frame
    categorical = [c for c in cols if c in table.categories]
    numeric = [c for c in cols if c not in table.categories]
    seen = {}
    for c in cols:
        if c in table.categories:
            seen[c] = frozenset(str(v) for v in frame[c].dropna().unique())
        else:
            v = _sskm_numbers(frame[c])
            seen[c] = (float(np.nanmin(v)), float(np.nanmax(v)))
    run = _SSKMRelease(_sskm_params(pub), pub.connections_, eps, getattr(pub, "reference_frame_", None))
    if columns is not None:
        categorical = [c for c in categorical if c in columns]
        numeric = [c for c in numeric if c in columns]
    cases = []
    if categorical or numeric:
        cases = pipeline_cases("SSKM_DP (sound)", run, frame, claimed_epsilon=eps,
                               statistic=partial(_sskm_outside, seen=seen), categorical=categorical,
                               numeric=numeric, schema=pub.schema, index=index,
                               note="Statistic: released cells outside what the first dataset holds.")
    from core.audit.auditor import held_out_pair

    whole = held_out_pair(frame, [index], index=index, schema=pub.schema)
    cases.append(AuditCase("SSKM_DP (sound)", run, whole, partial(_sskm_outside, seen=seen), eps, 0.0,
                           f"SSKM_DP (sound): record {index} changed on every column (out of range, new "
                           "categories): what the old held-out part read without noise."))
    return cases


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
    from core.audit.auditor import extreme_record
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
