"""Run a comparison: every method released from one split and measured the same way.

:func:`compare` checks its arguments, drops the identifier columns, splits the table once
(:func:`core.compare.context.split`), skips the methods that cannot run on it (with the
reason), computes the shared steps and the references, then runs one task per (method,
repetition) through :func:`core.runtime.compute.map_tasks` (here or on a cluster, the same
numbers anywhere): a task fits the method once, then releases and measures it at each
epsilon of the grid.

Seeds (docs/design.md section 1): one int seed (``random_state`` or, for a Generator or
None, one seed drawn from it) gives three draws in a fixed order (the row sample, the
split, a base seed); every other seed is derived from the base seed by
:func:`core.runtime.randomness.display_seed` with what it depends on as keys: the method (its
``seed_key``) and repetition, then "fit" or the release's epsilon, and the measurement
seed of a repetition (the same for every method: common random numbers). So adding or
removing a method, an epsilon or a repetition never changes another release's numbers, and
the same seed gives the same runs bit for bit on one machine. IMPOSTER and the plain
VAE-GAN share their seeds: they differ only by lambda.

Work that does not depend on epsilon happens once per (method, repetition) and is reused
across the epsilon grid: the IMPOSTER / VAE-GAN training, the SSKM_DP map, the MDAV groups
(deterministic: once per comparison). The references and the releases they equal share
their measures, computed once per split: the raw table's utility, attribute inference and DCR
(:meth:`~core.compare.context.RunContext.for_training`), and the non-private logistic
regression (:func:`~core.compare.methods.nonprivate_logistic`). The implicit attributes of the first sensitive
attribute (for IMPOSTER, the VAE-GAN and kRR) are detected once per comparison on the
training part, with the label excluded.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, replace
from functools import partial
from typing import Any, Callable, Sequence

import numpy as np
import pandas as pd

from core.compare.audits import AUDIT_ROWS, DEFAULT_AUDIT_RUNS, check_audit_runs, run_audits
from core.compare.context import RunContext, seed_of, split
from core.compare.measures import (
    FORMAL_COLUMNS,
    MEASURES,
    UTILITY_CLASSIFIER,
    formal,
    measure_model,
    measure_table,
)
from core.compare.methods import MAX_CLUSTERS, MICRO_K, mdav_groups
from core.compare.progressive import MethodCollector, PartialComparison, gather, run_order, task_weight
from core.compare.references import references
from core.compare.registry import METHODS, Method
from core.compare.result import TABLE_ROWS, ComparisonResult
from core.data import Dataset
from core.privacy.schema import PublicSchema
from core.privacy.schema_builtin import schema_for
from core.runtime import compute
from core.runtime.progress import Progress, Stop, check_stop, report, stage
from core.runtime.progress import watch as watch_progress
from core.runtime.randomness import (
    RandomState,
    check_random_state,
    display_rng,
    display_seed,
    draw_seed,
)
from core.validation import (
    DataError,
    check_epsilons,
    check_positive_int,
    check_probability,
)

__all__ = ["compare", "run_context"]


# ---------------------------------------------------------------------------- checks
def _check_names(methods: Any) -> list[str]:
    if isinstance(methods, str) or not isinstance(methods, Sequence):
        raise TypeError("methods must be a list of method names, "
                        f"got {type(methods).__name__}.")
    names = list(methods)
    if not names:
        raise ValueError(f"choose at least one method, from {list(METHODS)}.")
    for name in names:
        if not isinstance(name, str):
            raise TypeError(f"each method must be a name, got {type(name).__name__}.")
        if name not in METHODS:
            raise ValueError(f"unknown method {name!r}; choose from {list(METHODS)}.")
    if len(set(names)) != len(names):
        raise ValueError("each method may be listed only once.")
    return [n for n in METHODS if n in set(names)]  # registry order


def _check_options(test_size: Any, max_rows: Any, imposter_epochs: Any, progress: Any) -> float:
    share = check_probability(test_size, name="test_size", inclusive=False)
    if max_rows is not None:
        check_positive_int(max_rows, name="max_rows", minimum=10)
    if imposter_epochs is not None:
        check_positive_int(imposter_epochs, name="imposter_epochs")
    if progress is not None and not callable(progress):
        raise TypeError(f"progress must be callable or None, got {type(progress).__name__}.")
    return share


def _check_schema(schema: Any, dataset: Dataset) -> PublicSchema:
    """The comparison's schema: given or :func:`schema_for`, with the dataset's roles."""
    if schema is None:
        schema = schema_for(dataset)
    if not isinstance(schema, PublicSchema):
        raise TypeError(f"schema must be a PublicSchema or None, got {type(schema).__name__}.")
    for col in dataset.frame.columns:
        if col not in schema:
            raise DataError(f"The table's column '{col}' is not in the public schema: add it (with its "
                            "bounds or categories) or leave the column out.")
        if schema[col].kind == "numeric" and col not in dataset.numeric:
            raise DataError(f"The schema says '{col}' is numeric, but the table holds text in it.")
    kept = tuple(c for c in schema.columns if c.name in set(dataset.frame.columns) or _read_role(c))
    return replace(schema, columns=kept).with_roles(label=dataset.label, sensitive=dataset.sensitive)


def _read_role(entry) -> bool:
    """An identifier role read from the rows: kept in the schema although its column is left
    out, so every release's PublicSchema.charge sees the read and says not DP."""
    return entry.kind == "identifier" and not entry.public


def _without_identifiers(dataset: Dataset, schema: PublicSchema) -> Dataset:
    """The dataset without its identifier columns, the schema's and the dataset's own
    (:attr:`Dataset.identifiers`): never a feature, never released, never attacked. Dropped
    before the split, so no release, attack, reference (raw table, control) or model sees them."""
    ids = set(schema.identifiers) | set(dataset.identifiers)
    if not ids:
        return dataset
    return dataset.subset([c for c in dataset.frame.columns if c not in ids])


def _kept_schema(schema: PublicSchema, dataset: Dataset) -> PublicSchema:
    """``schema`` less the columns :func:`_without_identifiers` dropped (roles kept)."""
    kept = set(dataset.frame.columns)
    if all(c.name in kept or _read_role(c) for c in schema.columns):
        return schema
    return replace(schema, columns=tuple(c for c in schema.columns if c.name in kept or _read_role(c)))


@dataclass(frozen=True)
class _Plan:
    """:func:`compare`'s arguments, checked: what the run does and what reruns it."""

    source: Dataset  # as given (its name, fingerprint and roles are recorded)
    dataset: Dataset  # without its identifier columns
    schema: PublicSchema
    names: list[str]
    grid: tuple[float, ...]
    repetitions: int
    share: float
    max_rows: int | None
    imposter_epochs: int | None
    seed: int
    audit_runs: int
    dcr_records: int | None


def _plan(dataset: Any, *, methods: Any, epsilons: Any, repetitions: Any, test_size: Any, max_rows: Any,
          imposter_epochs: Any, random_state: RandomState, progress: Any, schema: Any, stop: Any,
          audit_runs: Any = 0, dcr_records: Any = None) -> _Plan:
    """Check every argument of :func:`compare` (in a fixed order: the first wrong one is named)."""
    if not isinstance(dataset, Dataset):
        raise TypeError(f"dataset must be a Dataset, got {type(dataset).__name__}.")
    names = _check_names(methods)
    schema = _check_schema(schema, dataset)
    kept = _without_identifiers(dataset, schema)
    schema = _kept_schema(schema, kept)
    grid = check_epsilons(epsilons)
    repetitions = check_positive_int(repetitions, name="repetitions")
    share = _check_options(test_size, max_rows, imposter_epochs, progress)
    audit_runs = check_audit_runs(audit_runs)
    if dcr_records is not None:
        check_positive_int(dcr_records, name="dcr_records", minimum=10)
    check_stop(stop, "The comparison")  # a wrong type is a TypeError; a set event stops before any work
    return _Plan(dataset, kept, schema, names, grid, repetitions, share, max_rows, imposter_epochs,
                 seed_of(random_state), audit_runs, dcr_records)


def _parameters(plan: _Plan) -> dict[str, Any]:
    """What reruns the comparison (:attr:`ComparisonResult.parameters`)."""
    source = plan.source
    return {
        "dataset": source.name, "fingerprint": source.fingerprint(), "label": source.label,
        "sensitive": list(source.sensitive), "methods": list(plan.names), "epsilons": list(plan.grid),
        "repetitions": plan.repetitions, "seed": plan.seed, "test_size": plan.share, "max_rows": plan.max_rows,
        "imposter_epochs": plan.imposter_epochs, "utility_classifier": UTILITY_CLASSIFIER,
        "dcr_records": plan.dcr_records, "micro_k": MICRO_K, "max_clusters": MAX_CLUSTERS,
        "audit_runs": plan.audit_runs, "audit_rows": AUDIT_ROWS, "table_rows": TABLE_ROWS,
        "schema": plan.schema.to_dict(),
        "identifiers_dropped": sorted(set(source.frame.columns) - set(plan.dataset.frame.columns)),
    }


# ---------------------------------------------------------------------------- the steps
def _context(plan: _Plan) -> RunContext:
    """The split and the base seed: the first three draws of the run's one seed."""
    rng = check_random_state(plan.seed)
    train, holdout = split(plan.dataset, test_size=plan.share, max_rows=plan.max_rows, rng=rng)
    return RunContext(train, holdout, plan.imposter_epochs, draw_seed(rng), plan.schema, plan.dcr_records)


def run_context(dataset: Dataset, *, schema: PublicSchema | None = None, test_size: float = 0.25,
                max_rows: int | None = None, random_state: RandomState = 0) -> RunContext:
    """What :func:`compare` builds before any method runs: the schema checked, the identifiers
    left out and the split, with the same seeds (the file-level audit's view of Compare)."""
    schema = _check_schema(schema, dataset)
    kept = _without_identifiers(dataset, schema)
    share = _check_options(test_size, max_rows, None, None)
    return _context(_Plan(dataset, kept, _kept_schema(schema, kept), [], (), 1, share, max_rows, None,
                          seed_of(random_state), 0, None))


def _runnable(ctx: RunContext, names: Sequence[str], skipped: dict[str, str]) -> list[Method]:
    """The methods that can run on this dataset; the others go to ``skipped`` with the reason."""
    out = []
    for name in names:
        method = METHODS[name]
        try:
            reason = method.requires(ctx) if method.requires is not None else None
        except (DataError, ValueError) as exc:
            reason = f"its preparation failed: {exc}"
        if reason is None:
            out.append(method)
        else:
            skipped[name] = reason
    return out


def _prepare(ctx: RunContext, methods: Sequence[Method]) -> None:
    """Compute once, before the tasks are sent out, what several tasks read: every task
    then gets it with the context instead of computing it again."""
    if any(m.kind == "table" for m in methods):
        ctx.dcr_reference()
    if any(m.kind == "model" for m in methods):
        ctx.model_data()
    if any(m.fit is mdav_groups for m in methods):
        mdav_groups(ctx, 0, None)


def _shared_steps(ctx: RunContext, todo: Sequence[Method], progress: Progress | None) -> dict[str, Any]:
    """The steps every task reads (:func:`_prepare`), then the references."""
    report(progress, 0.0, "Preparing the split, the DCR reference and the shared steps")
    _prepare(ctx, todo)
    report(progress, 0.0, "Measuring the references: the raw table, the control, the constant guess")
    return references(ctx, display_seed(ctx.base_seed, "measure", 0), models=any(m.kind == "model" for m in todo))


def _capped(frame: pd.DataFrame, seed: int) -> pd.DataFrame:
    """``frame`` with at most :data:`~core.compare.result.TABLE_ROWS` rows: a seeded sample
    (in the table's order) when it has more."""
    if len(frame) <= TABLE_ROWS:
        return frame.reset_index(drop=True)
    rows = np.sort(display_rng(seed).choice(len(frame), TABLE_ROWS, replace=False))
    return frame.iloc[rows].reset_index(drop=True)


def _release_rows(ctx: RunContext, method: Method, rep: int, rep_seed: int, grid: list, fitted: Any,
                  repetitions: int, progress: Progress | None, kept: dict | None = None) -> list[dict[str, Any]]:
    """One measured release of a fitted method per epsilon of ``grid`` (one row each), with
    the release seeds derived from the repetition's ``rep_seed``. With ``kept`` (a dict),
    each released table goes into it, capped (:func:`_capped`), by (method, epsilon or None)."""
    measure = measure_table if method.kind == "table" else measure_model
    rows = []
    for done, eps in enumerate(grid, start=1):
        release_seed = display_seed(rep_seed, "release", "none" if eps is None else repr(float(eps)))
        rel = method.release(ctx, fitted, eps, release_seed)
        if kept is not None and rel.table is not None:
            key = (method.name, None if eps is None else float(eps))
            # an aligned release (as many rows as the training part) keeps the rows ``real`` keeps
            seed_key = ("real",) if len(rel.table) == len(ctx.train.frame) else key
            kept[key] = _capped(rel.table, display_seed(ctx.base_seed, "kept rows", *seed_key))
        measures = measure(ctx, rel, display_seed(ctx.base_seed, "measure", rep))
        rows.append({"method": method.name, "kind": method.kind,
                     "epsilon": math.nan if eps is None else float(eps), "repetition": rep,
                     "seed": release_seed, **measures, **formal(rel.ledger, rel.reading)})
        where = "" if eps is None else f", epsilon {eps:g}"
        report(progress, done / len(grid), f"repetition {rep + 1} of {repetitions}{where}")
    return rows


def _run_repetition(unit: tuple[str, int], ctx: RunContext, epsilons: Sequence[float], repetitions: int, *,
                    progress: Progress | None = None) -> dict[str, Any]:
    """One repetition of one method: its fit, then a measured release per epsilon.

    A task of :func:`core.runtime.compute.map_tasks`: ``unit`` is (method name, repetition) and
    every seed comes from the context's seed, so it gives the same rows wherever it runs.
    Returns ``{"method", "rows", "seconds", "error", "tables"}`` (``error`` the reason it failed
    on this dataset, or None; ``tables`` the first repetition's released tables, capped).
    """
    name, rep = unit
    method = METHODS[name]
    start = time.perf_counter()
    grid = list(epsilons) if method.takes_epsilon else [None]
    rep_seed = display_seed(ctx.base_seed, method.seed_key or method.name, rep)
    kept: dict = {}
    try:
        fitted = None
        if method.fit is not None:
            fit_progress = stage(progress, 0.0, 0.9 / len(grid), f"repetition {rep + 1}")
            report(fit_progress, 0.0, "fitting")
            fitted = method.fit(ctx, display_seed(rep_seed, "fit"), fit_progress)
        rows = _release_rows(ctx, method, rep, rep_seed, grid, fitted, repetitions, progress,
                             kept if rep == 0 and method.kind == "table" else None)
    except (DataError, ValueError, np.linalg.LinAlgError) as exc:
        return {"method": name, "rows": [], "seconds": time.perf_counter() - start,
                "error": f"it failed on this dataset: {exc}", "tables": {}}
    return {"method": name, "rows": rows, "seconds": time.perf_counter() - start, "error": None, "tables": kept}


def _run_tasks(ctx: RunContext, todo: Sequence[Method], plan: _Plan, skipped: dict[str, str], *,
               scheduler: str | None, progress: Progress | None,
               collector: Callable[..., MethodCollector] | None = None,
               ) -> tuple[list[dict[str, Any]], dict[str, float], dict]:
    """Every (method, repetition) task, the long methods last (:func:`core.compare.progressive.run_order`);
    returns the rows of the methods that did not fail, in the registry's order, the seconds per
    method (a method that failed goes to ``skipped`` with the reason) and the first repetition's
    released tables by (method, epsilon). ``collector(units)`` makes the tasks' ``on_result``."""
    ordered = [(m.name, rep) for m in todo for rep in range(plan.repetitions)]
    order = run_order([name for name, _ in ordered])
    units = [ordered[i] for i in order]
    weights = [task_weight(name, releases=len(plan.grid) if METHODS[name].takes_epsilon else 1,
                           epochs=plan.imposter_epochs) for name, _ in units]
    done = compute.map_tasks(partial(_run_repetition, epsilons=plan.grid, repetitions=plan.repetitions), units,
                             shared=(ctx,), scheduler=scheduler, progress=progress, task_progress=True,
                             weights=weights, label="method repetition",
                             describe=lambda unit: unit[0], on_result=None if collector is None else collector(units))
    by_unit = dict(zip(units, done))
    return gather([by_unit[u] for u in ordered], skipped)


def _delivered_dp(todo: Sequence[Method], rows: list[dict[str, Any]], skipped: dict[str, str]) -> list[str]:
    """The methods that ran and whose every release is DP (a release whose schema entries were
    read from the rows is not: its epsilon is nominal, so there is no claim to audit)."""
    return [m.name for m in todo if m.name not in skipped and m.dp
            and all(r["is_dp"] for r in rows if r["method"] == m.name)]


def _runs_frame(rows: list[dict[str, Any]], sensitive: Sequence[str]) -> pd.DataFrame:
    columns = ["method", "kind", "epsilon", "repetition", "seed", *MEASURES,
               *(f"ai_advantage_{s}" for s in sensitive), *(f"ai_member_{s}" for s in sensitive),
               *FORMAL_COLUMNS]
    runs = pd.DataFrame(rows, columns=columns)
    return runs.astype({"repetition": "int64", "seed": "int64", "is_dp": bool}) if len(runs) else runs


# ---------------------------------------------------------------------------- compare
def compare(
    dataset: Dataset,
    *,
    methods: Sequence[str],
    epsilons: Sequence[float],
    repetitions: int = 3,
    test_size: float = 0.25,
    max_rows: int | None = None,
    imposter_epochs: int | None = None,
    random_state: RandomState = None,
    progress: Progress | None = None,
    scheduler: str | None = None,
    schema: PublicSchema | None = None,
    stop: Stop | None = None,
    audit_runs: int = DEFAULT_AUDIT_RUNS,
    dcr_records: int | None = None,
    on_partial: Callable[[PartialComparison], None] | None = None,
    audit_seconds: float | None = None,
) -> ComparisonResult:
    """Release the dataset with every method and measure every release the same way.

    Parameters
    ----------
    dataset : Dataset
        The table and its roles: the label is the utility target, each sensitive attribute
        is attacked by attribute inference (and the first is the one IMPOSTER, kRR and
        SSKM_DP protect).
    methods : sequence of str
        Names from :data:`core.compare.registry.METHODS`; they run in the registry's order. A
        method that cannot run on this dataset is skipped with its reason
        (``ComparisonResult.skipped``).
    epsilons : sequence of float
        The privacy budgets of the methods that take one (each > 0, each once:
        :func:`core.validation.check_epsilons`). A smaller epsilon means more noise; for a
        method that is not DP it is only nominal.
    repetitions : int
        Releases per (method, epsilon): releases are random, so each point gets a spread.
    test_size : float in (0, 1)
        Share of the rows held out: never released, the test set of every utility measure
        and attack, and the DCR baseline (stratified on the label when there is one).
    max_rows : int, optional
        Sample this many rows first (seeded), to bound the time (default every row). A
        sample of n of N rows widens every interval by about sqrt(N / n).
    imposter_epochs : int, optional
        Training epochs of IMPOSTER and the VAE-GAN (default the synthesizer's).
    random_state : int, Generator or None
        The run's seed; ``parameters["seed"]`` records the int seed that reproduces it.
    progress : callable(fraction, message), optional
        A stage per method, the fraction of all releases done (:mod:`core.runtime.progress`); it
        never draws randomness, and raising from it stops the comparison. With audits, two
        steps each go from 0 to 1, their messages starting "Step 1 of 2, releases" and "Step 2
        of 2, privacy audits" (the audits' time is not known before the releases end).
    scheduler : str, optional
        Where the (method, repetition) tasks run (:func:`core.runtime.compute.resolve_scheduler`:
        default ``$PUX_SCHEDULER``, else this process); the numbers are the same anywhere.
    schema : PublicSchema, optional
        The public facts every method may use without reading the rows (default
        :func:`core.privacy.schema_builtin.schema_for` of the dataset: the shipped schema of a built-in
        dataset, else a draft read from the data, which makes every release that uses it
        not DP). It must list every column of the dataset; the dataset's label and
        sensitive columns are the roles. Identifier columns are dropped before the split.
        Recorded in ``parameters["schema"]``.
    stop : threading.Event, optional
        Set it to end the comparison at its next progress report (a partial comparison
        keeps nothing): :class:`core.runtime.progress.Stopped` is raised.
    audit_runs : int
        Runs per side of the privacy audit beside every DP point
        (:func:`core.compare.audits.run_audits`: once per DP method and epsilon, not per
        repetition, for the methods whose releases are DP here (a schema entry read from the
        rows makes a release's epsilon nominal: nothing to audit), on a seeded sample of the training part, seeded from the comparison's
        seed): 0 for no audit, else at least 20. The audited lower bound can never exceed
        :func:`core.audit.bounds.audit_ceiling` of it (2.6 at 100 runs, 4.2 at 500, 4.9 at
        1,000): a claim above the ceiling cannot be tested with that many runs.
    dcr_records : int, optional
        Measure DCR on a seeded sample of this many training records (10 or more) instead
        of every one: faster on large tables, and the risk gains a sampling error of at
        most 0.5 / sqrt(dcr_records). Recorded in ``parameters["dcr_records"]``.
    on_partial : callable(PartialComparison), optional
        Told what is measured so far each time a method's last repetition is in (the last
        time before the audits; :mod:`core.compare.progressive`): a page draws those points
        while the rest runs. The cheap methods run first, the long trainings last; the numbers
        are the same with or without it.
    audit_seconds : float, optional
        The audits' time cap (None: none; the page's, never the command line's): points not
        started by then are not audited and say so (:func:`core.compare.audits.run_audits`).

    Returns
    -------
    ComparisonResult
        Its ``audits`` hold one row per audited point; its ``tables`` the first repetition's
        released table per (table method, epsilon or None) and ``real`` the training part,
        each capped at :data:`~core.compare.result.TABLE_ROWS` rows (in memory, not in
        :meth:`~core.compare.result.ComparisonResult.to_dict`).

    Raises
    ------
    TypeError, ValueError
        An argument of the wrong type or value, named in one sentence.
    DataError
        A table too small to split, or a column the schema does not list.
    Stopped
        ``stop`` was set before the comparison finished.
    """
    plan = _plan(dataset, methods=methods, epsilons=epsilons, repetitions=repetitions, test_size=test_size,
                 max_rows=max_rows, imposter_epochs=imposter_epochs, random_state=random_state,
                 progress=progress, schema=schema, stop=stop, audit_runs=audit_runs, dcr_records=dcr_records)
    watch = watch_progress(progress, stop)
    ctx = _context(plan)
    skipped: dict[str, str] = {}
    todo = _runnable(ctx, plan.names, skipped)
    refs = _shared_steps(ctx, todo, watch)
    audited = plan.audit_runs > 0 and any(m.dp for m in todo)
    # two steps when audited, each filling the bar (the audits' time is not known before the
    # releases: a shared bar stood at 86 % with most of the time still to come)
    steps = ("Step 1 of 2, releases", "Step 2 of 2, privacy audits") if audited else ("", "")
    real = _capped(ctx.train.frame, display_seed(ctx.base_seed, "kept rows", "real"))

    def snapshot(rows, seconds, tables, skip) -> ComparisonResult:
        return ComparisonResult(_runs_frame(rows, ctx.train.sensitive), skip, _parameters(plan), seconds, refs,
                                tables=tables, real=real)

    collect = None if on_partial is None else partial(
        MethodCollector, [m.name for m in todo], skipped=skipped, make_result=snapshot, on_partial=on_partial,
        audits=audited)
    rows, seconds, tables = _run_tasks(ctx, todo, plan, skipped, scheduler=scheduler,
                                       progress=stage(watch, 0.0, 1.0, steps[0]), collector=collect)
    audits = run_audits(ctx, _delivered_dp(todo, rows, skipped), plan.grid, runs=plan.audit_runs,
                        progress=stage(watch, 0.0, 1.0, steps[1]), stop=stop, seconds=audit_seconds)
    report(watch, 1.0, "Comparison done")
    return ComparisonResult(_runs_frame(rows, ctx.train.sensitive), skipped, _parameters(plan), seconds, refs,
                            audits=audits, tables=tables, real=real)
