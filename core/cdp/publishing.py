"""Count-query publishing under correlated DP (Section 6.3 of paper 000, Fig. 6-8).

Random conjunctive range queries over the original attributes are answered on the
feature-selected data (conditions on removed attributes are dropped) with Laplace noise
of scale sensitivity / epsilon; the error is Eq. 22 (:func:`core.metrics.count_query_mae`).

Budget: under the project's neighbouring relation one record (with its correlated ones)
moves every count by at most the sensitivity, so Q answered queries compose sequentially.
``budget="per_query"`` is the paper's reading (each query gets epsilon, the release costs
Q x epsilon, and the ledger says so); ``budget="total"`` splits epsilon over the Q queries
so that the whole release costs epsilon.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable, Sequence

import numpy as np
import pandas as pd

from core.cdp.baselines import epsilon_runs
from core.cdp.dc_fbfs import DCFBFSResult, dc_fbfs
from core.cdp.sensitivity import record_matrix
from core.correlation.records import correlated_sensitivity
from core.data import Dataset, ordinal_codes
from core.experiments import summarize
from core.mechanisms import PrivacyLedger, laplace
from core.metrics import count_query_mae
from core.progress import Progress, report, stage
from core.validation import DataError, RandomState, check_positive_int, check_random_state

__all__ = [
    "PUBLISH_SCHEMES",
    "Query",
    "random_range_queries",
    "answer_counts",
    "query_matches",
    "PublishingSetup",
    "prepare_publishing",
    "BUDGETS",
    "CountRelease",
    "noisy_counts",
    "release_counts",
    "publish_mae",
    "mae_curve",
]

PUBLISH_SCHEMES = ("Group", "Zhang", "Proposed")
#: How epsilon is read: per query (the paper; total Q x epsilon) or for all Q queries together.
BUDGETS = ("per_query", "total")


@dataclass(frozen=True)
class Query:
    """A conjunction of range conditions lo <= value <= hi (categoricals as sorted codes)."""

    conditions: tuple[tuple[str, float, float], ...]

    def describe(self) -> str:
        return " AND ".join(f"{lo:g} <= {c} <= {hi:g}" for c, lo, hi in self.conditions)


def _coded(dataset: Dataset) -> pd.DataFrame:
    out = {}
    for col in dataset.features:
        s = dataset.frame[col]
        if col in dataset.categorical:
            out[col] = ordinal_codes(s)[0].astype(float)
        else:
            out[col] = s.to_numpy(dtype=float)
    return pd.DataFrame(out)


def random_range_queries(
    dataset: Dataset,
    *,
    n_queries: int = 200,
    max_conditions: int = 3,
    random_state: RandomState = None,
) -> list[Query]:
    """Random conjunctive range queries over the attributes of ``dataset``.

    Each query picks 1..``max_conditions`` attributes and, for each, a range between two
    values drawn from the attribute's observed values (so ranges follow the data).
    """
    n_queries = check_positive_int(n_queries, name="n_queries")
    max_conditions = check_positive_int(max_conditions, name="max_conditions")
    rng = check_random_state(random_state)
    coded = _coded(dataset)
    cols = list(coded.columns)
    if not cols:
        raise DataError("The data has no attributes to query.")
    values = {c: np.unique(coded[c].to_numpy()) for c in cols}
    out = []
    for _ in range(n_queries):
        k = int(rng.integers(1, min(max_conditions, len(cols)) + 1))
        chosen = rng.choice(len(cols), size=k, replace=False)
        conds = []
        for j in sorted(chosen):
            v = values[cols[j]]
            a, b = np.sort(rng.choice(v, size=2, replace=True))
            conds.append((cols[j], float(a), float(b)))
        out.append(Query(tuple(conds)))
    return out


def _mask(arrays: dict[str, np.ndarray], n: int, query: Query, keep: set[str]) -> np.ndarray:
    mask = np.ones(n, dtype=bool)
    for c, lo, hi in query.conditions:
        if c in keep:
            v = arrays[c]
            mask &= (v >= lo) & (v <= hi)
    return mask


def answer_counts(coded: pd.DataFrame, queries: Sequence[Query], columns: Iterable[str]) -> np.ndarray:
    """Exact counts, with conditions on attributes outside ``columns`` dropped."""
    keep = set(columns)
    arrays = {c: coded[c].to_numpy() for c in coded.columns}
    return np.array([_mask(arrays, len(coded), q, keep).sum() for q in queries], dtype=float)


def query_matches(dataset: Dataset, query: Query, columns: Iterable[str]) -> np.ndarray:
    """Which records satisfy ``query`` once conditions outside ``columns`` are dropped."""
    coded = _coded(dataset)
    return _mask({c: coded[c].to_numpy() for c in coded.columns}, len(coded), query, set(columns))


@dataclass
class PublishingSetup:
    """Queries, exact answers and sensitivities of each publishing scheme on one dataset."""

    queries: list[Query]
    columns: dict[str, list[str]]
    sensitivity: dict[str, float]
    true_original: np.ndarray
    true_reduced: dict[str, np.ndarray]
    selection: DCFBFSResult
    measure: str
    threshold: float


def prepare_publishing(
    dataset: Dataset,
    *,
    measure: str = "pearson",
    threshold: float = 0.8,
    tc: float = 40.0,
    n_queries: int = 200,
    selection: DCFBFSResult | None = None,
    random_state: RandomState = None,
    progress: Progress | None = None,
) -> PublishingSetup:
    """Select features (DC-FBFS; needs the dataset's label), draw queries, compute answers.

    Group publishes every attribute with GS; Zhang the importance-selected attributes with
    CS; Proposed the DC-FBFS attributes with CS. ``measure`` sets the record correlation
    of CS (GS always counts Pearson-correlated records: the Group scheme involves no
    similarity measure beyond deciding who is correlated). ``progress`` (:mod:`core.progress`)
    is told each step.
    """
    if dataset.label is None:
        raise DataError("Choose a label column: DC-FBFS selects attributes for a classifier.")
    rng = check_random_state(random_state)
    rm = record_matrix(dataset)
    y = dataset.frame[dataset.label].astype(str).to_numpy()
    sel = selection if selection is not None else dc_fbfs(
        rm.X, y, rm.names, tc=tc, threshold=threshold, measure=measure, random_state=rng,
        progress=stage(progress, 0.0, 0.85, "Feature selection"),
    )
    columns = {"Group": list(rm.names), "Zhang": sel.importance_selected, "Proposed": sel.selected}

    def sens(scheme: str, meas: str, kind: str, step: int) -> float:
        pos = [rm.names.index(c) for c in columns[scheme]]
        rep = correlated_sensitivity(rm.X[:, pos], measure=meas, threshold=threshold,
                                     progress=stage(progress, 0.85 + 0.04 * step, 0.89 + 0.04 * step,
                                                    f"Sensitivity of {scheme}"))
        return rep.correlated if kind == "CS" else rep.group

    sensitivity = {
        "Group": sens("Group", "pearson", "GS", 0),
        "Zhang": sens("Zhang", measure, "CS", 1),
        "Proposed": sens("Proposed", measure, "CS", 2),
    }
    report(progress, 0.97, "Answering the queries")
    queries = random_range_queries(dataset, n_queries=n_queries, random_state=rng)
    coded = _coded(dataset)
    true_original = answer_counts(coded, queries, coded.columns)
    true_reduced = {s: answer_counts(coded, queries, cols) for s, cols in columns.items()}
    report(progress, 1.0, "Queries answered")
    return PublishingSetup(
        queries, columns, sensitivity, true_original, true_reduced, sel, measure, threshold
    )


@dataclass
class CountRelease:
    """One noisy answer to every query of a setup, with what it cost.

    Attributes
    ----------
    noisy : ndarray of shape (Q,)
    scheme : str
    epsilon_per_query : float
    ledger : PrivacyLedger
        One sequential spend per query; ``ledger.total()`` is the whole release's budget.
    """

    noisy: np.ndarray
    scheme: str
    epsilon_per_query: float
    ledger: PrivacyLedger


def noisy_counts(true: np.ndarray, *, sensitivity: float, epsilon_per_query: float,
                 random_state: RandomState = None) -> np.ndarray:
    """Laplace answers of scale ``sensitivity / epsilon_per_query`` (each query epsilon-DP)."""
    return np.asarray(laplace(np.asarray(true, dtype=float), sensitivity=sensitivity,
                              epsilon=epsilon_per_query, random_state=random_state))


def _per_query(epsilon: float, n_queries: int, budget: str) -> float:
    if budget not in BUDGETS:
        raise ValueError(f"budget must be one of {BUDGETS}, got {budget!r}.")
    return float(epsilon) if budget == "per_query" else float(epsilon) / n_queries


def release_counts(
    setup: PublishingSetup, scheme: str, *, epsilon: float, budget: str = "per_query",
    random_state: RandomState = None,
) -> CountRelease:
    """Answer every query of ``setup`` under ``scheme`` with Laplace noise.

    Parameters
    ----------
    setup : PublishingSetup
    scheme : {"Group", "Zhang", "Proposed"}
    epsilon : float
        The budget, read as ``budget`` says.
    budget : {"per_query", "total"}
        "per_query": each query spends epsilon, the release Q x epsilon (the paper's Fig. 6-8).
        "total": the Q queries share epsilon (each gets epsilon / Q).
    random_state : int, Generator or None
        Source of the noise.
    """
    if scheme not in setup.sensitivity:
        raise ValueError(f"scheme must be one of {tuple(setup.sensitivity)}, got {scheme!r}.")
    true = setup.true_reduced[scheme]
    eps_q = _per_query(epsilon, len(true), budget)
    noisy = noisy_counts(true, sensitivity=setup.sensitivity[scheme], epsilon_per_query=eps_q,
                         random_state=random_state)
    ledger = PrivacyLedger()
    for i in range(len(true)):
        ledger.spend(eps_q, label=f"count query {i + 1}")
    kind = "GS" if scheme == "Group" else "CS"
    ledger.assume(f"The sensitivity ({kind} = {setup.sensitivity[scheme]:.4g}) and the feature selection "
                  "are computed from the raw records, as paper 000 does.")
    return CountRelease(np.asarray(noisy), scheme, eps_q, ledger)


def publish_mae(
    setup: PublishingSetup, scheme: str, *, epsilon: float, budget: str = "per_query",
    random_state: RandomState = None,
) -> float:
    """Eq. 22 MAE of one noisy release of every query under ``scheme``."""
    rel = release_counts(setup, scheme, epsilon=epsilon, budget=budget, random_state=random_state)
    return count_query_mae(rel.noisy, setup.true_reduced[scheme], setup.true_original)


def mae_curve(
    setup: PublishingSetup,
    *,
    epsilons: Iterable[float],
    schemes: Sequence[str] = PUBLISH_SCHEMES,
    repetitions: int = 10,
    budget: str = "per_query",
    random_state: RandomState = None,
    progress: Callable[[float, str], None] | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """MAE of each scheme at each epsilon over ``repetitions`` noise draws (Fig. 6-8).

    ``budget`` says how epsilon is read (see :func:`release_counts`).
    """
    _per_query(1.0, 1, budget)

    def one(*, epsilon: float, random_state: int) -> dict:
        # common random numbers: the same Laplace draws, scaled by each scheme's sensitivity
        return {
            scheme: publish_mae(setup, scheme, epsilon=epsilon, budget=budget, random_state=random_state)
            for scheme in schemes
        }

    runs = epsilon_runs(one, schemes, "scheme", "mae", epsilons=epsilons, repetitions=repetitions,
                        random_state=random_state, progress=progress, sort=False)
    return summarize(runs, ["scheme", "epsilon"], "mae"), runs
