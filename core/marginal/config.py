"""How MST and AIM are configured: the workload, the one-way marginals and the budget split.

Every choice is a function of the public schema (its columns and label), the number of
records and epsilon alone (:func:`marginal_config`), never of the rows: two tables with one
schema, one size and one budget get one configuration. Each column's cells come from the
schema too (:mod:`core.marginal.domain`: categories, public cuts, equal-width bins), so
every column is *keyed* for OpenDP and ``oneway="unkeyed"`` spends nothing on one-way
marginals that the fitted model does not need.

- **MST** (:data:`MST`): the label's star, measured with the whole budget. MST releases a
  spanning tree of 2-way marginals; OpenDP's MST chooses it with a tenth of the budget from a
  model of noisy one-way marginals of every column (half the budget). A release that a model
  is trained on needs each column's relation to the label: here the tree is the schema's
  label joined to every other released column (``dp.mbi.Fixed`` with one
  ``Count(by=(label, c))`` per column, equal weights), so no budget goes to choosing it nor to
  one-way marginals (each is the sum of its label pair). Without a label among the released
  columns, OpenDP's MST at its defaults.
- **AIM** (:data:`AIM`): OpenDP's AIM with that workload (``AIM(queries=[Count((label, c)),
  ...])``, which AIM widens to the one-way marginals it implies), at most :func:`aim_rounds`
  rounds so that a release ends in minutes; without a label, AIM's own workload (every
  marginal of up to three columns) under the same cap.
- **MST (OpenDP defaults)** (:data:`MST_DEFAULTS`): ``dp.mbi.MST()`` as OpenDP ships it (half
  the budget on one-way marginals of every column, then a tree chosen and measured), and
  rows drawn with Private-PGM's default rounding: the configuration before issue 37, kept as
  the benchmark's anchor.

Rows are drawn from the fitted model independently (:attr:`MarginalConfig.sampling`
``"sample"``): Private-PGM's default (``"round"``) gives every column with the same parents
the same within-group rank, so the columns of a star come out in lockstep (comonotone), a
structure no real table has, which misleads a classifier trained on the release (Adult,
epsilon 1: accuracy 0.74 against 0.83 with independent draws, same noisy marginals).
"""
from __future__ import annotations

import numbers
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from core.privacy.schema import PublicSchema
from core.validation import check_choice, check_epsilon

__all__ = ["AIM", "AIM_MAX_ROUNDS", "ALGORITHMS", "MST", "MST_DEFAULTS", "MarginalConfig", "aim_rounds",
           "marginal_config"]

#: The label's star, measured with the whole budget (the default DP synthesizer of Compare).
MST = "MST"
#: OpenDP's AIM over the label-including workload, its rounds capped.
AIM = "AIM"
#: OpenDP's MST as it ships (today's configuration before issue 37): the anchor.
MST_DEFAULTS = "MST (OpenDP defaults)"
#: The configurations a release can ask for.
ALGORITHMS = (MST, AIM, MST_DEFAULTS)
#: The most rounds an AIM release runs: each round fits the graphical model again (a few
#: seconds on two cores), so that a release stays within about three minutes.
AIM_MAX_ROUNDS = 20


def aim_rounds(columns: int) -> int:
    """AIM's rounds for ``columns`` released columns: one per column (OpenDP's default is 16
    per column), at most :data:`AIM_MAX_ROUNDS`. A function of the schema alone."""
    if isinstance(columns, bool) or not isinstance(columns, numbers.Integral) or columns < 1:
        raise ValueError(f"columns must be a positive int, got {columns!r}.")
    return int(min(columns, AIM_MAX_ROUNDS))


@dataclass(frozen=True)
class MarginalConfig:
    """One release's configuration of OpenDP's marginal synthesizers (hashable: it keys the
    cache of built measurements).

    Attributes
    ----------
    algorithm : str
        One of :data:`ALGORITHMS`.
    columns : tuple of str
        The released columns, in order.
    label : str or None
        The schema's label when it is released (the workload is built around it), else None.
    workload : tuple of tuple of str
        The marginals the configuration targets: measured as they are (MST: ``dp.mbi.Fixed``),
        or AIM's workload. Empty for OpenDP's own choice (MST's tree, AIM's 3-way workload).
    oneway : {"unkeyed", "all"}
        OpenDP's one-way marginals: "unkeyed" measures none here (every column is keyed from
        the schema); "all" spends half the budget on one per column (OpenDP's default).
    rounds : int or None
        AIM's rounds (None: not AIM).
    sampling : {"sample", "round"}
        How rows are drawn from the fitted model (post-processing): independently, or with
        Private-PGM's randomized rounding (see the module's docstring).
    """

    algorithm: str
    columns: tuple[str, ...]
    label: str | None
    workload: tuple[tuple[str, ...], ...]
    oneway: str
    rounds: int | None
    sampling: str

    def opendp_algorithm(self, estimator: Callable[..., Any]) -> Any:
        """The ``dp.mbi`` algorithm object of this configuration, fitting its model with ``estimator``."""
        import opendp.prelude as dp

        queries = [dp.mbi.Count(by=tuple(q)) for q in self.workload]
        if self.algorithm == MST and queries:
            return dp.mbi.Fixed(queries=queries, oneway=self.oneway, estimator=estimator)
        if self.algorithm == AIM:
            return dp.mbi.AIM(queries=queries or 3, rounds=self.rounds, oneway=self.oneway, estimator=estimator)
        return dp.mbi.MST(oneway=self.oneway, estimator=estimator)

    def describe(self) -> str:
        """What the release measures, in words (the ledger's label and the page's caption)."""
        pairs = len(self.workload)
        if self.algorithm == MST and pairs:
            return (f"the {pairs} noisy 2-way marginals of the label '{self.label}' with each other column (a "
                    "spanning tree fixed by the schema: the label's star), epsilon split equally among them; "
                    "no one-way marginals (every column's cells come from the schema)")
        if self.algorithm == AIM:
            what = (f"a workload of the {pairs} 2-way marginals of the label '{self.label}' with each other column "
                    "(and the one-way marginals they imply)" if pairs
                    else "a workload of every marginal of up to three columns")
            return (f"AIM over {what}: up to {self.rounds} rounds that each choose the worst-fitted marginal with "
                    "a noisy score and measure it; no one-way marginals measured up front"
                    if self.oneway == "unkeyed" else f"AIM over {what}, up to {self.rounds} rounds")
        return ("noisy one-way marginals of every column (half of epsilon), then a spanning tree of 2-way "
                "marginals chosen (a tenth of the rest) and measured (OpenDP's MST at its defaults)")

    def workload_rows(self) -> list[dict[str, Any]]:
        """The workload as table rows (the Compare page's expander): one per marginal."""
        if not self.workload:
            return [{"marginal": "chosen by OpenDP from the data (noisy selection)", "columns": "",
                     "share of epsilon": ""}]
        share = (f"1/{len(self.workload)}" if self.algorithm == MST
                 else "chosen round by round (AIM)")
        return [{"marginal": " x ".join(q), "columns": len(q), "share of epsilon": share} for q in self.workload]


def _check_columns(schema: PublicSchema, columns: Sequence[str] | None) -> tuple[str, ...]:
    if not isinstance(schema, PublicSchema):
        raise TypeError(f"schema must be a PublicSchema, got {type(schema).__name__}.")
    names = [c for c in schema.names if schema[c].kind != "identifier"] if columns is None else columns
    if isinstance(names, str) or not isinstance(names, Sequence):
        raise TypeError("columns must be a sequence of column names.")
    out = tuple(names)
    for name in out:
        if not isinstance(name, str):
            raise TypeError(f"columns must hold str names, got {type(name).__name__}.")
        if name not in schema:
            raise ValueError(f"column {name!r} is not in the schema.")
    if not out:
        raise ValueError("a marginal release needs at least one column.")
    return out


def marginal_config(schema: PublicSchema, *, algorithm: str = MST, columns: Sequence[str] | None = None,
                    n: int, epsilon: float) -> MarginalConfig:
    """The configuration of one release: a function of the public schema, ``n`` and ``epsilon`` only.

    Parameters
    ----------
    schema : PublicSchema
        Its columns and label decide the workload (the label's 2-way marginals); nothing is
        read from the rows, so two tables with the same schema get the same configuration.
    algorithm : str
        One of :data:`ALGORITHMS` (see the module's docstring).
    columns : sequence of str, optional
        The released columns (default every column of the schema but its identifiers).
    n : int
        Records in the release's table (public under the project's relation: one record
        replaced). No choice depends on it today; it is part of the signature so that one may,
        and so that nothing else can.
    epsilon : float
        The release's budget. No choice depends on it today, likewise.

    Raises
    ------
    TypeError, ValueError
        A wrong schema, algorithm, columns, ``n`` or ``epsilon``.
    """
    algorithm = check_choice(algorithm, ALGORITHMS, name="algorithm", kind=str)
    cols = _check_columns(schema, columns)
    if isinstance(n, bool) or not isinstance(n, numbers.Integral):
        raise TypeError(f"n must be an int, got {type(n).__name__}.")
    if n < 1:
        raise ValueError(f"n must be at least 1 record, got {n}.")
    check_epsilon(epsilon)
    if algorithm == MST_DEFAULTS:
        return MarginalConfig(MST_DEFAULTS, cols, None, (), "all", None, "round")
    label = schema.label if schema.label in cols and len(cols) > 1 else None
    workload = tuple((label, c) for c in cols if c != label) if label is not None else ()
    if algorithm == AIM:
        return MarginalConfig(AIM, cols, label, workload, "unkeyed", aim_rounds(len(cols)), "sample")
    if label is None:  # no label: OpenDP's MST chooses the tree from its noisy one-way marginals
        return MarginalConfig(MST, cols, None, (), "all", None, "sample")
    return MarginalConfig(MST, cols, label, workload, "unkeyed", None, "sample")
