"""Audit case of the marginal-based synthesizers MST and AIM (OpenDP): their real noisy marginal measurement.

What spends MST's and AIM's budget is OpenDP's measurement of marginals: the table mapped
into the schema's cells (:meth:`core.marginal.MarginalDomain.encode`), the marginals of its
configuration measured (:func:`core.marginal.config.marginal_config`: the label's 2-way
marginals for MST, chosen round by round among them for AIM), each count given discrete
Laplace noise, the whole composed by OpenDP so that its privacy map at
:data:`core.marginal.CONTRIBUTIONS` (one record replaced) meets epsilon. Fitting the
graphical model (Private-PGM) and sampling rows are post-processing.

:func:`mst_case` audits **the release's own measurement**: its mechanism
(:class:`MarginalRelease`) calls :func:`core.marginal.synthesizer.measure_marginals`, the one
function the release (:meth:`core.marginal.MarginalSynthesizer.fit`) calls to build and run
OpenDP's measurement, with the same domain from the schema, the same budget and split and
the same privacy unit. Only the model fit differs (:func:`no_fit`: none of Private-PGM's
iterations; post-processing, so the noisy marginals and the budget split are unchanged). The
statistic reads the released noisy marginals. A mutant of the release step (a measurement
that raises, or one with too little noise) is therefore the audit's mechanism too.

The real measurement is slow: OpenDP searches a noise scale for every choice of a marginal
inside each run (about 10 s a run for the census sample's ten columns, about 1 s for three;
AIM far more). :meth:`MarginalRelease.seconds_per_run` times one run, so that Compare can say
"not audited" (:mod:`core.compare.audits`) where the audit would not fit its budget, instead
of reporting a bound from a stand-in. OpenDP draws its noise from the operating system's
entropy, so the audit's numbers vary from run to run.
"""
from __future__ import annotations

import time
from typing import Any, Sequence

import numpy as np
import pandas as pd

from core.audit_cases.case import AuditCase
from core.audit.pairs import NeighbouringPair
from core.audit.pipeline_pairs import new_category_pair, out_of_range_pair
from core.marginal import synthesizer as marginal_synthesizer
from core.marginal.domain import DEFAULT_BINS, MarginalDomain, marginal_domain
from core.privacy.schema import PublicSchema
from core.validation import check_choice, check_epsilon

__all__ = ["MarginalRelease", "MarginalStatistic", "marginal_scale", "mst_case", "no_fit"]


def _opendp() -> Any:
    import opendp.prelude as dp

    dp.enable_features("contrib")
    return dp


def _noise(scale: float) -> Any:
    """OpenDP's noise on a vector of counts as ``make_noise_marginal`` adds it (i32 counts, L1
    sensitivity, pure DP: the discrete Laplace)."""
    dp = _opendp()
    return dp.m.make_noise(dp.vector_domain(dp.atom_domain(T="i32")), dp.l1_distance(T="u32"), dp.max_divergence(),
                           scale=scale)


def marginal_scale(epsilon: float, *, contributions: int | None = None) -> float:
    """OpenDP's noise scale of one marginal measured with budget ``epsilon``.

    The scale OpenDP's binary search finds for its discrete Laplace over an L1 vector of
    counts with input distance ``contributions`` (default :data:`core.marginal.CONTRIBUTIONS`:
    the histogram of a table with one record replaced moves by 2 in L1). A test checks MST's
    release against it; the audit does not use it (it runs the release's own measurement).
    """
    eps = check_epsilon(epsilon)
    d_in = marginal_synthesizer.CONTRIBUTIONS if contributions is None else int(contributions)
    dp = _opendp()
    scale = float(dp.binary_search_param(_noise, d_in=d_in, d_out=eps, T=float))
    if not float(_noise(scale).map(d_in)) <= eps:
        raise RuntimeError(f"OpenDP's noise at scale {scale!r} spends more than epsilon = {eps!r}.")
    return scale


def no_fit(domain: Any, loss_fn: Any, *, potentials: Any = None) -> Any:
    """OpenDP's model estimator with no iteration: the uniform model over the measured cliques.

    Same signature as ``opendp.extras.mbi.mirror_descent``. What OpenDP does with the model
    (MST's and AIM's choices of the next marginal) is post-processing of noisy marginals
    already paid for, so any estimator leaves the guarantee and the noise as they are; this
    one skips Private-PGM's thousand iterations.
    """
    from mbi.estimation import mirror_descent

    return mirror_descent(domain, loss_fn, potentials=potentials, iters=0)


Output = tuple[tuple[tuple[str, ...], np.ndarray, float], ...]


class MarginalRelease:
    """The release's measurement (:func:`core.marginal.synthesizer.measure_marginals`) as an
    audit mechanism (picklable): ``(clique, noisy counts, stddev)`` per measured marginal.

    Every call runs OpenDP's real measurement afresh (not seeded: the audit's
    ``random_state`` cannot reach OpenDP's sampler), without Private-PGM's fit (:func:`no_fit`).
    """

    def __init__(self, domain: MarginalDomain, epsilon: float, algorithm: str) -> None:
        self.domain, self.epsilon, self.algorithm = domain, float(epsilon), algorithm

    def __call__(self, frame: pd.DataFrame, random_state: int) -> Output:
        table = marginal_synthesizer.measure_marginals(self.domain, frame, self.epsilon, self.algorithm,
                                                       estimator=no_fit)
        return tuple((tuple(m.clique), np.asarray(m.noisy_measurement, dtype=np.float64), float(m.stddev))
                     for m in table.marginals.flatten())

    def seconds_per_run(self, frame: pd.DataFrame, *, limit: float | None = None) -> float:
        """Seconds of one run on ``frame``: the second of two runs (the first builds OpenDP's
        measurement and compiles JAX's code), or the first where it alone took more than ``limit``
        (then that run's time, setup included, is the answer: no second run is spent)."""
        start = time.perf_counter()
        self(frame, 0)
        first = time.perf_counter() - start
        if limit is not None and first > limit:
            return first
        start = time.perf_counter()
        self(frame, 0)
        return time.perf_counter() - start


class MarginalStatistic:
    """Log-likelihood ratio of the released noisy marginals between the pair's two datasets.

    Each measured marginal is a vector of discrete Laplace counts around the exact marginal;
    its term is ``sum(|y - mu0| - |y - mu1|) / stddev`` (the scale is proportional to the
    standard deviation), summed over whatever marginals the run chose and measured. The exact
    marginals of both datasets are counted from the domain's cells (OpenDP's cell order:
    row-major over the cliques' columns, each column's codes in order).
    """

    def __init__(self, domain: MarginalDomain, d0: pd.DataFrame, d1: pd.DataFrame) -> None:
        self.domain = domain
        self.codes = (domain.encode(d0), domain.encode(d1))
        self._exact: dict[tuple[str, ...], tuple[np.ndarray, np.ndarray]] = {}

    def exact(self, clique: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """The exact marginal of ``clique`` on each dataset (flattened)."""
        clique = tuple(clique)
        if clique not in self._exact:
            sizes = [self.domain.sizes[c] for c in clique]
            pair = []
            for codes in self.codes:
                n = len(next(iter(codes.values())))
                flat = np.ravel_multi_index([codes[c] for c in clique], sizes) if clique else np.zeros(n, int)
                pair.append(np.bincount(flat, minlength=int(np.prod(sizes))).astype(np.float64))
            self._exact[clique] = (pair[0], pair[1])
        return self._exact[clique]

    def __call__(self, output: Output) -> float:
        total = 0.0
        for clique, y, stddev in output:
            mu0, mu1 = self.exact(clique)
            total += float(np.sum(np.abs(y - mu0) - np.abs(y - mu1))) / stddev
        return total


def _changed(frame: pd.DataFrame, schema: PublicSchema, columns: Sequence[str], index: int) -> NeighbouringPair:
    """Record ``index`` brings a new category (categorical columns) and a value far out of range (numeric)."""
    d1, told = frame, []
    for col in columns:
        categorical = schema[col].kind == "categorical" or not pd.api.types.is_numeric_dtype(frame[col])
        step = (new_category_pair(d1, col, index=index, schema=schema) if categorical
                else out_of_range_pair(d1, col, index=index))
        d1 = step.d1
        told.append(step.description)
    return NeighbouringPair(frame, d1, "; ".join(told))


def _moving_pair(frame: pd.DataFrame, schema: PublicSchema, domain: MarginalDomain, *,
                 candidates: int = 20) -> NeighbouringPair:
    """Of the first ``candidates`` records, the one whose change moves the most columns' cells."""
    codes0 = domain.encode(frame)
    best, moved = None, 0
    for index in range(min(candidates, len(frame))):
        pair = _changed(frame, schema, domain.names, index)
        codes1 = domain.encode(pair.d1)
        k = sum(int(codes0[c][index] != codes1[c][index]) for c in domain.names)
        if k > moved:
            best, moved = pair, k
        if moved == len(domain.names):
            break
    if best is None:
        raise ValueError("no record's change moves a marginal: every record already sits in the cells a new "
                         "category and an out-of-range value map to.")
    return best


def mst_case(frame: pd.DataFrame, schema: PublicSchema, *, epsilon: float, bins: int = DEFAULT_BINS,
             algorithm: str = "MST", columns: Sequence[str] | None = None) -> AuditCase:
    """MST's (or AIM's) real measurement of ``frame``'s noisy marginals at ``epsilon``.

    The domain is the release's (:func:`core.marginal.marginal_domain` of ``columns``, default
    every schema column of ``frame`` but identifiers, with ``bins``); the mechanism is
    :class:`MarginalRelease` (the release's :func:`~core.marginal.synthesizer.measure_marginals`
    without the model fit). The pair: one record brings a category the data lacks and a value
    ten ranges above the maximum on every column, so a domain read from the rows would show a
    cell on one side only, and from the schema every one-way marginal moves. The statistic is
    :class:`MarginalStatistic`. The claim is ``epsilon``, what the release's ledger reports.

    Raises
    ------
    TypeError, ValueError
        A wrong ``frame``, ``schema``, ``epsilon`` or ``algorithm``; a frame with no record
        whose change moves a marginal.
    """
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"frame must be a pandas DataFrame, got {type(frame).__name__}.")
    if not isinstance(schema, PublicSchema):
        raise TypeError(f"schema must be a PublicSchema, got {type(schema).__name__}.")
    eps = check_epsilon(epsilon)
    name = check_choice(algorithm, marginal_synthesizer.ALGORITHMS, name="algorithm", kind=str)
    if columns is None:
        columns = [c for c in schema.names if c in frame.columns and schema[c].kind != "identifier"]
    domain = marginal_domain(schema, columns=list(columns), bins=bins)
    pair = _moving_pair(frame.reset_index(drop=True), schema, domain)
    note = (f"{name}: the release's own OpenDP measurement (core.marginal.synthesizer.measure_marginals: the "
            f"marginals of its configuration, core.marginal.config, over {sum(domain.sizes.values())} cells of "
            f"{len(domain.names)} columns from the schema, the release's budget split) on {len(frame)} records, "
            "without the Private-PGM fit (post-processing). Statistic: the log-likelihood ratio of the measured "
            "noisy marginals. OpenDP's noise is not seeded.")
    return AuditCase(f"{name} marginals", MarginalRelease(domain, eps, name), pair,
                     MarginalStatistic(domain, pair.d0, pair.d1), eps, 0.0, note)
