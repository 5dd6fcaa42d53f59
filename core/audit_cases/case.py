"""An audit case (a mechanism, its neighbouring pair, its statistic and its claim) and how cases run.

:func:`run_case` audits one :class:`AuditCase` (:func:`core.audit.auditor.audit`),
:func:`run_cases` several one after the other with one progress bar and one stop event, and
:func:`worst_result` picks the worst of their results, the one the audit panel shows.
:func:`pipeline_cases` turns the pipeline pairs of :mod:`core.audit.pipeline_pairs` into
cases of one release. The per-mechanism builders are in the sibling modules of
:mod:`core.audit_cases`.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from core.audit.auditor import audit
from core.audit.pairs import NeighbouringPair
from core.audit.pipeline_pairs import held_out_pair, new_category_pair, out_of_range_pair
from core.audit.result import AuditResult
from core.runtime.progress import stop_requested
from core.runtime.randomness import RandomState, check_random_state, draw_seeds
from core.validation import check_epsilon

__all__ = ["AuditCase", "as_cases", "pipeline_cases", "run_case", "run_cases", "worst_result"]


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
        off it (:func:`core.audit.grid.off_grid_share`). None: not checked.
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
    todo = as_cases(cases)
    seeds = draw_seeds(check_random_state(random_state), len(todo))
    results: list[AuditResult] = []
    for k, (case, seed) in enumerate(zip(todo, seeds)):
        if stop_requested(stop) and results:
            break

        def part(fraction: float, message: str, k: int = k, name: str = case.name) -> None:
            if progress is not None:
                progress((k + fraction) / len(todo), f"{name} ({k + 1} of {len(todo)}): {message}")

        try:
            results.append(run_case(case, runs=runs, random_state=int(seed), n_jobs=n_jobs,
                                    progress=part, stop=stop))
        except ValueError:
            if stop_requested(stop) and results:
                break  # stopped before this case had enough runs: keep the ones done
            raise
    return results


def pipeline_cases(name: str, mechanism: Callable[[Any, int], Any], frame: Any, *, claimed_epsilon: float,
                   claimed_delta: float = 0.0, statistic: Callable[[Any], float] | None = None,
                   categorical: Sequence[str] = (), numeric: Sequence[str] = (), holdout_index: Any = None,
                   schema: Any = None, index: int = 0, factor: float = 10, grid: float | None = None,
                   note: str = "") -> list[AuditCase]:
    """The pipeline pairs of a release that takes a table: one case per data-dependent step.

    One :func:`core.audit.pipeline_pairs.new_category_pair` per column of ``categorical``, one
    :func:`core.audit.pipeline_pairs.out_of_range_pair` per column of ``numeric``, and, with
    ``holdout_index``, one :func:`core.audit.pipeline_pairs.held_out_pair`. Run them with
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
