"""Audit case of the marginal-based synthesizers MST and AIM (OpenDP): their noisy marginal measurement.

What spends MST's and AIM's budget is OpenDP's measurement of marginals: the table mapped
into the schema's cells (:meth:`core.marginal.MarginalDomain.encode`), counted, and each
count given discrete Laplace noise whose scale OpenDP searches so that the measurement's
privacy map at :data:`core.marginal.CONTRIBUTIONS` (one record replaced) meets its share of
epsilon (``make_noise_marginal`` in ``opendp.extras.mbi``, one call per marginal). What
follows (choosing the next marginal aside, which has its own share; fitting the model;
sampling rows) is post-processing.

Running the whole release per audit run would take tens of seconds a run, hours a point.
:func:`mst_case` audits the measurement itself, built the same way as OpenDP builds it
(:func:`marginal_scale`: OpenDP's ``make_noise`` over an L1 vector of counts with
sensitivity ``CONTRIBUTIONS``, its scale found by OpenDP's binary search) but with the
point's whole epsilon on one 2-way marginal, so that the audit can see the loss MST and
AIM spread over many measurements: a few hundred runs take seconds. It catches a wrong
privacy unit or sensitivity, noise too small for the budget, and a domain read from the
rows (the pair brings a new category and an out-of-range value); it does not check how
OpenDP splits and composes the budget, which is OpenDP's accounting. OpenDP draws its noise
from the operating system's entropy, so the audit's numbers vary from run to run.
"""
from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np
import pandas as pd

from core.audit.cases.case import AuditCase
from core.audit.pairs import NeighbouringPair
from core.audit.pipeline_pairs import new_category_pair, out_of_range_pair
from core.marginal import synthesizer as marginal_synthesizer
from core.marginal.domain import DEFAULT_BINS, MarginalDomain, marginal_domain
from core.privacy.schema import PublicSchema
from core.validation import check_choice, check_epsilon

__all__ = ["MarginalMeasurement", "marginal_scale", "mst_case"]


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

    The scale OpenDP's binary search finds for :func:`_noise` with input distance
    ``contributions`` (default :data:`core.marginal.CONTRIBUTIONS`: the histogram of a table
    with one record replaced moves by 2 in L1). MST measures each of its ``k - 1`` 2-way
    marginals at ``marginal_scale(share / (k - 1))``; a test checks this against a release.
    """
    eps = check_epsilon(epsilon)
    d_in = marginal_synthesizer.CONTRIBUTIONS if contributions is None else int(contributions)
    dp = _opendp()
    scale = float(dp.binary_search_param(_noise, d_in=d_in, d_out=eps, T=float))
    if not float(_noise(scale).map(d_in)) <= eps:
        raise RuntimeError(f"OpenDP's noise at scale {scale!r} spends more than epsilon = {eps!r}.")
    return scale


class MarginalMeasurement:
    """The noisy marginal of ``clique`` over ``domain``'s cells, as an audit mechanism (picklable).

    ``domain`` holds the clique's columns (its cells are the same as in the whole table's).

    Each dataset is encoded and counted once (a deterministic function of its records, so
    the same as once per run); every call draws OpenDP's noise afresh (not seeded: the
    ``random_state`` of the audit cannot reach OpenDP's sampler).
    """

    def __init__(self, domain: MarginalDomain, clique: tuple[str, ...], scale: float) -> None:
        self.domain, self.clique, self.scale = domain, tuple(clique), float(scale)
        self._counts: dict = {}
        self._measurement: Any = None

    def counts(self, frame: pd.DataFrame) -> np.ndarray:
        """The exact marginal of ``frame`` (flattened, int)."""
        got = self._counts.get(id(frame))
        if got is None:
            codes = self.domain.encode(frame)
            sizes = [self.domain.sizes[c] for c in self.clique]
            flat = np.ravel_multi_index([codes[c] for c in self.clique], sizes)
            got = (np.bincount(flat, minlength=int(np.prod(sizes))).astype(np.int64), frame)
            self._counts[id(frame)] = got  # the frame is kept: its id stays its own
        return got[0]

    def __call__(self, frame: pd.DataFrame, random_state: int) -> np.ndarray:
        if self._measurement is None:
            self._measurement = _noise(self.scale)
        return np.asarray(self._measurement(self.counts(frame).tolist()), dtype=np.float64)

    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        state["_counts"], state["_measurement"] = {}, None  # ids and OpenDP handles mean nothing elsewhere
        return state


def _llr(y: np.ndarray, *, mu0: np.ndarray, mu1: np.ndarray) -> float:
    """Log-likelihood ratio of two discrete Laplace vectors with one scale (up to 1 / scale)."""
    return float(np.sum(np.abs(y - mu0) - np.abs(y - mu1)))


def _clique(domain: MarginalDomain) -> tuple[str, ...]:
    """A categorical and a numeric column (each has a data-dependent step a careless pipeline
    reads from the rows), else the first two columns, else the one column."""
    cat = [c.name for c in domain.columns if c.kind == "categorical"]
    num = [c.name for c in domain.columns if c.kind == "numeric"]
    if cat and num:
        return cat[0], num[0]
    return tuple(domain.names[:2])


def _pair(frame: pd.DataFrame, schema: PublicSchema, clique: tuple[str, ...], index: int) -> NeighbouringPair:
    """Record ``index`` brings a new category (categorical) and a value far out of range (numeric)."""
    d1, told = frame, []
    for col in clique:
        categorical = schema[col].kind == "categorical" or not pd.api.types.is_numeric_dtype(frame[col])
        step = (new_category_pair(d1, col, index=index, schema=schema) if categorical
                else out_of_range_pair(d1, col, index=index))
        d1 = step.d1
        told.append(step.description)
    return NeighbouringPair(frame, d1, "; ".join(told))


def _moving_pair(run: MarginalMeasurement, frame: pd.DataFrame, schema: PublicSchema) -> NeighbouringPair:
    """The pair of the first record whose change moves the marginal (the cells differ)."""
    mu0 = run.counts(frame)
    for index in range(len(frame)):
        pair = _pair(frame, schema, run.clique, index)
        if not np.array_equal(run.counts(pair.d1), mu0):
            return pair
    raise ValueError("no record's change moves the audited marginal: every record already sits in the cell "
                     "a new category and an out-of-range value map to.")


def mst_case(frame: pd.DataFrame, schema: PublicSchema, *, epsilon: float, bins: int = DEFAULT_BINS,
             algorithm: str = "MST") -> AuditCase:
    """MST's (and AIM's) noisy marginal measurement on ``frame``, with the whole ``epsilon``.

    The marginal of a categorical and a numeric column over the schema's cells
    (:func:`core.marginal.marginal_domain` with ``bins``), its discrete Laplace noise at
    :func:`marginal_scale` of ``epsilon`` (OpenDP's construction; see the module's
    docstring for why the whole budget goes to one marginal). The pair: one record brings a
    category the data lacks and a value ten ranges above the maximum, so a domain read from
    the rows would show a cell on one side only; from the schema the record moves one count
    out of its cell and one into another (2 in L1, the sensitivity). The statistic is the
    log-likelihood ratio of the released counts. The claim is ``epsilon``, what the
    release's ledger reports. ``algorithm`` ("MST" or "AIM", whose measurements are built
    the same way) names the case.

    Raises
    ------
    TypeError, ValueError
        A wrong ``frame``, ``schema`` or ``epsilon``; a frame with no record whose change
        moves the marginal.
    """
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"frame must be a pandas DataFrame, got {type(frame).__name__}.")
    if not isinstance(schema, PublicSchema):
        raise TypeError(f"schema must be a PublicSchema, got {type(schema).__name__}.")
    eps = check_epsilon(epsilon)
    name = check_choice(algorithm, marginal_synthesizer.ALGORITHMS, name="algorithm", kind=str)
    present = [c for c in schema.names if c in frame.columns and schema[c].kind != "identifier"]
    clique = _clique(marginal_domain(schema, columns=present, bins=bins))
    domain = marginal_domain(schema, columns=clique, bins=bins)
    run = MarginalMeasurement(domain, clique, marginal_scale(eps))
    pair = _moving_pair(run, frame.reset_index(drop=True), schema)
    mu0, mu1 = run.counts(pair.d0), run.counts(pair.d1)
    cells = int(np.prod([domain.sizes[c] for c in run.clique]))
    note = (f"{name}: the noisy marginal of {' x '.join(map(repr, run.clique))} ({cells} cells from the schema) "
            f"on {len(frame)} records, OpenDP's discrete Laplace at scale {run.scale:.4g} (the whole epsilon on "
            f"one marginal; MST and AIM split it over theirs); the pair moves it by {int(np.abs(mu0 - mu1).sum())} "
            "in L1. Statistic: the log-likelihood ratio of the released counts. OpenDP's noise is not seeded.")
    return AuditCase(f"{name} marginals", run, pair, partial(_llr, mu0=mu0.astype(float), mu1=mu1.astype(float)),
                     eps, 0.0, note)
