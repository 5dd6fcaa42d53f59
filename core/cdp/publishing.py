"""Count-query publishing under correlated DP (Section 6.3 of paper 000, Fig. 6-8).

Random conjunctive range queries over the original attributes are answered on the
feature-selected data (conditions on removed attributes are dropped) with exact discrete
Laplace noise (:mod:`core.privacy.sampler`, counts on the integer grid) of scale at least
sensitivity / epsilon; the error is Eq. 22 (:func:`core.evaluation.metrics.count_query_mae`).

What the queries and the sensitivity read. The queries (:mod:`core.cdp.queries`) are drawn
from the public schema (:func:`~core.cdp.queries.schema_range_queries`: ranges from the
declared bounds, categories from the declared lists, records coded over the schema's domain),
never from the values: a query whose range ends at a value only one record has would reveal
that record (``query_source="values"``, the paper's reading of "random queries", is kept for
the audit's mutant and marks the release not DP). The faithful schemes (Group, Zhang, Proposed) compute GS / CS and choose their
attributes on the records, as the paper does: their releases are **not differentially
private** and the ledger says why. :data:`DP_SCHEME` is the DP reading: every schema
attribute, and the sensitivity the schema's declared bound on the correlated group size (one
record without one; :mod:`core.cdp.dp_reading`).

Budget: under the project's neighbouring relation one record (with its correlated ones)
moves every count by at most the sensitivity, so Q answered queries compose sequentially.
``budget="per_query"`` is the paper's reading (each query gets epsilon, the release costs
Q x epsilon, and the ledger says so); ``budget="total"`` splits epsilon over the Q queries
so that the whole release costs epsilon.
"""
from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Callable, Iterable, Sequence

import numpy as np
import pandas as pd

from core.cdp.baselines import epsilon_runs
from core.cdp.dc_fbfs import DCFBFSResult, dc_fbfs
from core.cdp.dp_reading import GroupBound, charge_reading, group_bound, reading_columns
from core.cdp.queries import (
    QUERY_SOURCES,
    Query,
    answer_counts,
    random_range_queries,
    schema_coded,
    schema_range_queries,
    values_coded,
)
from core.cdp.sensitivity import record_matrix
from core.correlation.records import correlated_sensitivity
from core.data import Dataset
from core.evaluation.metrics import count_query_mae
from core.privacy.ledger import PrivacyLedger
from core.privacy.mechanisms import laplace_noise
from core.privacy.schema import PublicSchema
from core.privacy.schema_builtin import schema_for
from core.runtime.experiments import summarize
from core.runtime.progress import Progress, check_stop, report, stage
from core.runtime.randomness import RandomState, check_random_state
from core.validation import DataError, check_choice

__all__ = [
    "PUBLISH_SCHEMES",
    "DP_SCHEME",
    "ALL_PUBLISH_SCHEMES",
    "NOT_DP_REASONS",
    "PublishingSetup",
    "prepare_publishing",
    "BUDGETS",
    "CountRelease",
    "dp_count_release",
    "noisy_counts",
    "release_counts",
    "publish_mae",
    "mae_curve",
    "mean_true_count",
    "zero_noise_mae",
]

#: Paper 000's publishing schemes (faithful: sensitivity and attributes from the records).
PUBLISH_SCHEMES = ("Group", "Zhang", "Proposed")
#: The DP reading beside them: every schema attribute, the declared group bound.
DP_SCHEME = "DP reading"
ALL_PUBLISH_SCHEMES = PUBLISH_SCHEMES + (DP_SCHEME,)
#: Why each faithful scheme is not differentially private.
NOT_DP_REASONS = {
    "Group": "The group sensitivity GS is computed from your records.",
    "Zhang": "The correlated sensitivity CS is computed from your records, and the attributes are chosen "
             "by random-forest importance on them.",
    "Proposed": "The correlated sensitivity CS is computed from your records, and the attributes are chosen "
                "by DC-FBFS on them.",
}
#: The reason a release whose queries were drawn from the values is not DP.
VALUES_REASON = "The query ranges are drawn from your records' values."
#: How epsilon is read: per query (the paper; total Q x epsilon) or for all Q queries together.
BUDGETS = ("per_query", "total")


@dataclass
class PublishingSetup:
    """Queries, exact answers and sensitivities of each publishing scheme on one dataset.

    ``schema`` and ``bound`` are the DP reading's public facts; ``query_source`` says where
    the query ranges came from ("schema", or "values": not DP)."""

    queries: list[Query]
    columns: dict[str, list[str]]
    sensitivity: dict[str, float]
    true_original: np.ndarray
    true_reduced: dict[str, np.ndarray]
    selection: DCFBFSResult
    measure: str
    threshold: float
    schema: PublicSchema | None = None
    bound: GroupBound | None = None
    query_source: str = "schema"
    label: str | None = None

    def covers(self, scheme: str) -> str:
        """What ``scheme``'s sensitivity is, for a table."""
        if scheme == DP_SCHEME:
            b = self.bound
            return (f"{b.value:g} (declared group bound, {b.source})" if b.covers_group
                    else "1 (one record: no group bound declared)")
        return f"{self.sensitivity[scheme]:.4g} ({'GS' if scheme == 'Group' else 'CS'} read from the records)"


def prepare_publishing(
    dataset: Dataset,
    *,
    schema: PublicSchema | None = None,
    query_source: str = "schema",
    measure: str = "pearson",
    threshold: float = 0.8,
    tc: float = 40.0,
    n_queries: int = 200,
    selection: DCFBFSResult | None = None,
    random_state: RandomState = None,
    progress: Progress | None = None,
    stop: threading.Event | None = None,
) -> PublishingSetup:
    """Select features (DC-FBFS; needs the dataset's label), draw queries, compute answers.

    Group publishes every attribute with GS; Zhang the importance-selected attributes with
    CS; Proposed the DC-FBFS attributes with CS (all three read from the records: not DP).
    The DP reading publishes every schema attribute with the schema's declared group bound.
    ``measure`` sets the record correlation of CS (GS always counts Pearson-correlated
    records: the Group scheme involves no similarity measure beyond deciding who is
    correlated). ``progress`` (:mod:`core.runtime.progress`) is told each step.

    Parameters
    ----------
    schema : PublicSchema, optional
        Bounds, categories and the group bound; default
        :func:`core.privacy.schema_builtin.schema_for` (a draft read from the data for an upload, which
        the DP reading's ledger marks not DP).
    query_source : {"schema", "values"}
        "schema" (default): the query ranges come from the schema. "values": from the
        records' values (the paper's reading, kept as the audit's mutant; not DP).
    stop : threading.Event, optional
        Checked between the steps: once set, raises :class:`core.runtime.progress.Stopped`.
    """
    if dataset.label is None:
        raise DataError("Choose a label column: DC-FBFS selects attributes for a classifier.")
    check_choice(query_source, QUERY_SOURCES, name="query_source")
    schema = schema_for(dataset) if schema is None else schema
    if not isinstance(schema, PublicSchema):
        raise TypeError(f"schema must be a PublicSchema, got {type(schema).__name__}.")
    rng = check_random_state(random_state)
    rm = record_matrix(dataset)
    y = dataset.frame[dataset.label].astype(str).to_numpy()
    check_stop(stop, "Preparing the publishing schemes")
    sel = selection if selection is not None else dc_fbfs(
        rm.X, y, rm.names, tc=tc, threshold=threshold, measure=measure, random_state=rng,
        progress=stage(progress, 0.0, 0.85, "Feature selection"),
    )
    columns = {"Group": list(rm.names), "Zhang": sel.importance_selected, "Proposed": sel.selected}
    public_cols = reading_columns(schema, dataset.label, None)

    def sens(scheme: str, meas: str, kind: str, step: int) -> float:
        check_stop(stop, "Preparing the publishing schemes")
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
    bound = group_bound(schema)
    columns[DP_SCHEME] = public_cols
    sensitivity[DP_SCHEME] = bound.value
    report(progress, 0.97, "Answering the queries", stop=stop)
    if query_source == "schema":
        queries = schema_range_queries(schema, public_cols, n_queries=n_queries, random_state=rng)
        coded = schema_coded(dataset, schema, public_cols)
    else:  # the mutant: ranges between observed values (coded as the data's sorted categories)
        queries = random_range_queries(dataset, n_queries=n_queries, random_state=rng)
        coded = values_coded(dataset)
    true_original = answer_counts(coded, queries, coded.columns)
    true_reduced = {s: answer_counts(coded, queries, cols) for s, cols in columns.items()}
    report(progress, 1.0, "Queries answered")
    return PublishingSetup(
        queries, columns, sensitivity, true_original, true_reduced, sel, measure, threshold,
        schema=schema, bound=bound, query_source=query_source, label=dataset.label,
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
    queries: list | None = None


def noisy_counts(true: np.ndarray, *, sensitivity: float, epsilon_per_query: float,
                 random_state: RandomState = None, with_noise: bool = False):
    """Exact discrete Laplace answers on the integers, scale at least
    ``sensitivity / epsilon_per_query`` (each query epsilon-DP; :mod:`core.privacy.sampler`).

    With ``with_noise`` also returns the :class:`~core.privacy.sampler.GridNoise` for the ledger.
    """
    noisy, noise = laplace_noise(np.asarray(true, dtype=float), sensitivity=sensitivity,
                                 epsilon=epsilon_per_query, random_state=random_state, grid=1.0, on_grid=True)
    noisy = np.asarray(noisy)
    return (noisy, noise) if with_noise else noisy


def _per_query(epsilon: float, n_queries: int, budget: str) -> float:
    check_choice(budget, BUDGETS, name="budget")
    return float(epsilon) if budget == "per_query" else float(epsilon) / n_queries


def release_counts(
    setup: PublishingSetup, scheme: str, *, epsilon: float, budget: str = "per_query",
    random_state: RandomState = None,
) -> CountRelease:
    """Answer every query of ``setup`` under ``scheme`` with exact discrete Laplace noise.

    The ledger has one spend per query; a faithful scheme's (and any release whose queries
    came from the values) is marked not DP with its reasons; the DP reading's carries the
    schema's charges and what its group bound covers.

    Parameters
    ----------
    setup : PublishingSetup
    scheme : {"Group", "Zhang", "Proposed", "DP reading"}
    epsilon : float
        The budget, read as ``budget`` says.
    budget : {"per_query", "total"}
        "per_query": each query spends epsilon, the release Q x epsilon (the paper's Fig. 6-8).
        "total": the Q queries share epsilon (each gets epsilon / Q).
    random_state : int, Generator or None
        Source of the noise.
    """
    check_choice(scheme, setup.sensitivity, name="scheme")
    true = setup.true_reduced[scheme]
    eps_q = _per_query(epsilon, len(true), budget)
    noisy, noise = noisy_counts(true, sensitivity=setup.sensitivity[scheme], epsilon_per_query=eps_q,
                                random_state=random_state, with_noise=True)
    ledger = PrivacyLedger()
    for i in range(len(true)):
        ledger.spend(eps_q, label=f"count query {i + 1}", noise=noise)
    if setup.query_source != "schema":
        ledger.mark_not_dp(VALUES_REASON)
    if scheme == DP_SCHEME:
        charge_reading(ledger, setup.schema, setup.columns[scheme], setup.bound)
        if setup.bound.covers_group:
            ledger.assume(setup.bound.sentence)
    else:
        ledger.mark_not_dp(NOT_DP_REASONS[scheme])
    return CountRelease(np.asarray(noisy), scheme, eps_q, ledger, setup.queries)


def publish_mae(
    setup: PublishingSetup, scheme: str, *, epsilon: float, budget: str = "per_query",
    random_state: RandomState = None,
) -> float:
    """Eq. 22 MAE of one noisy release of every query under ``scheme``."""
    rel = release_counts(setup, scheme, epsilon=epsilon, budget=budget, random_state=random_state)
    return count_query_mae(rel.noisy, setup.true_reduced[scheme], setup.true_original)


def mean_true_count(setup: PublishingSetup) -> float:
    """The mean exact answer of the setup's queries on the original table: the scale an MAE
    is read against (an MAE equal to it is as large as the answers themselves)."""
    return float(np.mean(setup.true_original))


def zero_noise_mae(setup: PublishingSetup, scheme: str) -> float:
    """Eq. 22 MAE of ``scheme``'s release without noise: its reduced-table answers as they
    are. What is left is the error feature selection adds (0 for a scheme that keeps every
    attribute); no noise level can bring the MAE below it."""
    check_choice(scheme, setup.true_reduced, name="scheme")
    reduced = setup.true_reduced[scheme]
    return count_query_mae(reduced, reduced, setup.true_original)


def mae_curve(
    setup: PublishingSetup,
    *,
    epsilons: Iterable[float],
    schemes: Sequence[str] = PUBLISH_SCHEMES,
    repetitions: int = 10,
    budget: str = "per_query",
    random_state: RandomState = None,
    progress: Callable[[float, str], None] | None = None,
    stop: threading.Event | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """MAE of each scheme at each epsilon over ``repetitions`` noise draws (Fig. 6-8).

    ``budget`` says how epsilon is read (see :func:`release_counts`). ``progress`` is told
    each run; ``stop`` (a ``threading.Event``), once set, ends the sweep with
    :class:`core.runtime.progress.Stopped`.
    """
    _per_query(1.0, 1, budget)

    def one(*, epsilon: float, random_state: int) -> dict:
        # common random numbers: the same Laplace draws, scaled by each scheme's sensitivity
        return {
            scheme: publish_mae(setup, scheme, epsilon=epsilon, budget=budget, random_state=random_state)
            for scheme in schemes
        }

    runs = epsilon_runs(one, schemes, "scheme", "mae", epsilons=epsilons, repetitions=repetitions,
                        random_state=random_state, progress=progress, sort=False, stop=stop)
    return summarize(runs, ["scheme", "epsilon"], "mae"), runs


def dp_count_release(
    dataset: Dataset, schema: PublicSchema | None = None, *, epsilon: float, n_queries: int = 200,
    budget: str = "per_query", query_source: str = "schema", random_state: RandomState = None,
) -> CountRelease:
    """The DP reading of count publishing on its own (no feature selection, nothing read
    from the records but the noisy counts): queries from the schema, every schema attribute,
    sensitivity the declared group bound (1 without one).

    ``query_source="values"`` draws the ranges from the records' values instead (the paper's
    reading, the audit's mutant): the ledger is then marked not DP. The release holds its
    ``queries`` (they are published with the answers).
    """
    check_choice(query_source, QUERY_SOURCES, name="query_source")
    schema = schema_for(dataset) if schema is None else schema
    rng = check_random_state(random_state)
    cols = reading_columns(schema, dataset.label, None)
    if query_source == "schema":
        queries = schema_range_queries(schema, cols, n_queries=n_queries, random_state=rng)
        coded = schema_coded(dataset, schema, cols)
    else:
        queries = random_range_queries(dataset.subset([*cols, *([dataset.label] if dataset.label else [])]),
                                       n_queries=n_queries, random_state=rng)
        coded = values_coded(dataset)
    true = answer_counts(coded, queries, cols)
    bound = group_bound(schema)
    eps_q = _per_query(epsilon, len(true), budget)
    noisy, noise = noisy_counts(true, sensitivity=bound.value, epsilon_per_query=eps_q, random_state=rng,
                                with_noise=True)
    ledger = PrivacyLedger()
    for i in range(len(true)):
        ledger.spend(eps_q, label=f"count query {i + 1}", noise=noise)
    if query_source != "schema":
        ledger.mark_not_dp(VALUES_REASON)
    charge_reading(ledger, schema, cols, bound)
    if bound.covers_group:
        ledger.assume(bound.sentence)
    return CountRelease(np.asarray(noisy), DP_SCHEME, eps_q, ledger, queries)
