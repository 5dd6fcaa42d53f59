"""MST and AIM in the comparison: OpenDP's marginal-based synthesizers as the practitioner's peer.

The same shape as :mod:`core.compare.methods`: :func:`marginal_fit` is the work that does
not depend on epsilon (the training part mapped into the schema's cells, once per
repetition), :func:`marginal_table` one release at one epsilon
(:class:`core.marginal.MarginalSynthesizer`: OpenDP measures the noisy marginals, fits the
model, and as many rows as the training part are sampled from it). Every category, bin and
marginal comes from the public schema (:func:`core.marginal.config.marginal_config`: MST
measures the label's 2-way marginal with every other column, AIM chooses among them round
by round). OpenDP's noise cannot be seeded: two runs with one seed give two releases (the
rows drawn from a fitted model are seeded). :func:`marginal_settings` lays the workload and
the bins out for the Compare page.

A release at one epsilon takes tens of seconds for MST (Private-PGM's fit and JAX's
compilations: roughly the same at 2,000 rows as at 10,000) and a few minutes for AIM; the
release step reports no progress of its own, the fit reports before and after.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import pandas as pd

from core.compare.context import RunContext
from core.compare.methods import Release, like_training
from core.marginal.config import marginal_config
from core.marginal.domain import DEFAULT_BINS, marginal_domain
from core.marginal.synthesizer import MarginalSynthesizer
from core.privacy.schema import PublicSchema
from core.runtime.progress import Progress, Stop, check_stop, report
from core.validation import DataError

__all__ = ["MARGINAL_BINS", "MarginalFit", "marginal_columns", "marginal_fit", "marginal_settings", "marginal_table",
           "needs_columns"]

#: Bins of a numeric column's declared range in the comparison, where the schema gives no cuts.
MARGINAL_BINS = DEFAULT_BINS


@dataclass(frozen=True)
class MarginalFit:
    """What a release needs besides epsilon: the algorithm and the released columns."""

    algorithm: str
    columns: tuple[str, ...]


def marginal_columns(ctx: RunContext) -> list[str]:
    """The released columns: every schema column of the training part but identifiers."""
    present = set(ctx.train.frame.columns)
    return [c for c in ctx.schema.names if c in present and ctx.schema[c].kind != "identifier"]


def needs_columns(ctx: RunContext) -> str | None:
    """Why MST or AIM cannot run (no schema column to release), or None."""
    if not marginal_columns(ctx):
        return "the schema lists none of the training part's columns, so there is no marginal to measure."
    return None


def marginal_fit(algorithm: str) -> Callable[..., MarginalFit]:
    """The fit of MST or AIM: the training part mapped into the schema's cells (a check that
    it can be: nothing is spent, nothing depends on epsilon)."""
    def fit(ctx: RunContext, seed: int, progress: Progress | None, *, stop: Stop | None = None) -> MarginalFit:
        check_stop(stop)
        report(progress, 0.0, f"{algorithm}: mapping the training part into the schema's cells")
        columns = tuple(marginal_columns(ctx))
        if not columns:
            raise DataError(needs_columns(ctx))
        domain = marginal_domain(ctx.schema, columns=columns, bins=MARGINAL_BINS)
        domain.encode(ctx.train.frame)
        report(progress, 1.0, f"{algorithm}: {len(columns)} columns, {sum(domain.sizes.values())} cells; each "
                              "release runs OpenDP (tens of seconds for MST, many minutes for AIM)")
        return MarginalFit(algorithm, columns)

    return fit


def marginal_table(ctx: RunContext, fitted: MarginalFit, epsilon: float | None, seed: int) -> Release:
    """One MST or AIM release at ``epsilon``: OpenDP's noisy marginals and model, and as many
    rows as the training part sampled from it (seeded by ``seed``; the noise is not)."""
    syn = MarginalSynthesizer(algorithm=fitted.algorithm, epsilon=epsilon, bins=MARGINAL_BINS, schema=ctx.schema,
                              columns=list(fitted.columns)).fit(ctx.train.frame)
    table = syn.sample(len(ctx.train.frame), random_state=seed)
    return Release(syn.ledger_, table=like_training(ctx, table))


def marginal_settings(schema: PublicSchema, columns: Sequence[str], *, algorithm: str, n: int,
                      epsilon: float) -> tuple[pd.DataFrame, pd.DataFrame]:
    """What an MST or AIM release of ``columns`` measures, as two tables for the Compare page.

    Both come from the public schema, ``n`` and ``epsilon`` alone (what the release itself
    uses: :func:`core.marginal.config.marginal_config` and
    :func:`core.marginal.domain.marginal_domain` with :data:`MARGINAL_BINS`).

    Returns
    -------
    workload : DataFrame
        One row per marginal measured (or targeted, for AIM): ``marginal``, ``columns``,
        ``share of epsilon``.
    bins : DataFrame
        One row per released column: ``column``, ``cells``, ``from`` (where the cells come
        from) and ``cells`` in words (:meth:`core.marginal.domain.MarginalDomain.cell_rows`).
    """
    config = marginal_config(schema, algorithm=algorithm, columns=list(columns), n=n, epsilon=epsilon)
    domain = marginal_domain(schema, columns=list(columns), bins=MARGINAL_BINS)
    return pd.DataFrame(config.workload_rows()), pd.DataFrame(domain.cell_rows())
