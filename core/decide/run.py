"""Run a :class:`~core.decide.config.SolveConfig`: compute the page's curve, solve, answer in JSON.

:func:`run_solve` loads the dataset (and the public reference table, when the config names
one), computes the page's runs with :mod:`core.decide.pages` (or :func:`core.compare.run.compare`),
solves every method with :func:`core.decide.solve.solve_summary` and returns what
``pux solve`` prints: ``{"schema": "pux-solve/1", ...}``, per method the target, its
direction (met ``"from"`` an epsilon on, or ``"up_to"`` one for a risk), the epsilon range
(or null with the reason), its uncertainty, whether the method is seeded, and
the note on choosing epsilon on the private data (:data:`core.decide.selection.PRIVATE_CHOICE_NOTE`)
with what the sound alternative, private selection, would cost over the grid.
"""
from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import pandas as pd

from core.compare.registry import METHODS
from core.compare.run import compare
from core.data import Dataset, load_csv

from core.decide.config import SolveConfig
from core.decide.pages import cdp_lr_runs, publishing_runs
from core.decide.selection import PRIVATE_CHOICE_NOTE, selection_cost
from core.decide.solve import Solution, solve_summary
from core.decide.target import UP_TO
from core.privacy.schema import PublicSchema
from core.privacy.schema_builtin import schema_for
from core.privacy.schema_read import load_named_by_schema
from core.runtime.progress import Progress, Stop
from core.runtime.progress import watch as watch_progress
from core.validation import DataError

__all__ = ["OUTPUT_SCHEMA", "REFERENCE_NOTE", "UNSEEDED_NOTE", "load_solve_data", "solve_runs", "solution_entry",
           "run_solve"]

#: The ``schema`` field of what ``pux solve`` prints.
OUTPUT_SCHEMA = "pux-solve/1"
#: The note of an answer solved on a public reference table.
REFERENCE_NOTE = ("Solved on the public reference table, not on the private data: choosing epsilon this way costs "
                  "the private data nothing, provided the reference table is public and not derived from the "
                  "private rows.")
#: What an unseeded method's answer says.
UNSEEDED_NOTE = ("Its sampler cannot be seeded: the same config gives another curve, so another epsilon, on each "
                 "run; read the spread over repetitions (sd per epsilon) and the interval, not the point.")


# ----------------------------------------------------------------------------- data
def _raw(config: SolveConfig, data_dir: Any, csv: Any) -> Dataset:
    """The config's table, read by its declared schema when it has one (never by inference)."""
    schema = None if config.schema is None else _schema(config, None)
    return load_named_by_schema(config.dataset, schema=schema, csv_name=config.csv_name, data_dir=data_dir,
                                csv=csv, verb="solves on")


def _roles(dataset: Dataset, config: SolveConfig) -> Dataset:
    if config.label is None and config.sensitive is None:
        return dataset.without_identifiers()
    label = config.label if config.label is not None else dataset.label
    sensitive = config.sensitive if config.sensitive is not None else dataset.sensitive
    return dataset.with_roles(label=label, sensitive=sensitive).without_identifiers()


def _path(config: SolveConfig, text: str) -> Path:
    path = Path(text).expanduser()
    return path if path.is_absolute() else config.folder / path


def _schema(config: SolveConfig, dataset: Dataset | None) -> PublicSchema:
    if config.schema is None:
        return schema_for(dataset)
    if isinstance(config.schema, dict):
        return PublicSchema.from_dict(config.schema)
    path = _path(config, config.schema)
    try:
        return PublicSchema.from_json(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ValueError(f"there is no schema file at {path}; check the config's schema path.") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"the schema file {path} cannot be read ({type(exc).__name__}).") from None
    except (TypeError, ValueError) as exc:
        raise ValueError(f"the schema file {path} is not a valid schema: {exc}") from None


def _reference(config: SolveConfig, dataset: Dataset) -> Dataset | None:
    if config.reference is None:
        return None
    path = _path(config, config.reference)
    if not path.is_file():
        raise DataError(f"There is no reference table at {path}; check the config's reference path.")
    try:
        table = load_csv(path, name=f"public reference {path.name}")
    except DataError as exc:
        raise DataError(f"The reference table {path.name} cannot be used: {exc}") from None
    missing = [c for c in dataset.frame.columns if c not in table.frame.columns]
    if missing:
        raise DataError(f"The reference table lacks the column(s) {missing} of the data: it must have the "
                        "schema's shape (the same columns).")
    table = table.subset(list(dataset.frame.columns))
    return table.with_roles(label=dataset.label, sensitive=dataset.sensitive)


def load_solve_data(config: SolveConfig, *, data_dir: str | os.PathLike | None = None,
                    csv: str | os.PathLike | None = None) -> tuple[Dataset, PublicSchema, Dataset | None]:
    """(private dataset with its roles, public schema, public reference table or None).

    Raises
    ------
    DataError
        A public dataset that is not there, a CSV config without ``csv``, data that differs
        from the config's fingerprint, a reference table that is missing or lacks columns.
    ValueError
        A schema file that is missing or not valid.
    """
    if not isinstance(config, SolveConfig):
        raise TypeError(f"config must be a SolveConfig, got {type(config).__name__}.")
    dataset = _roles(_raw(config, data_dir, csv), config)
    if config.fingerprint is not None and dataset.fingerprint() != config.fingerprint:
        raise DataError(f"The data differs from the data this config was saved from (fingerprint "
                        f"{dataset.fingerprint()}, the config expects {config.fingerprint}).")
    return dataset, _schema(config, dataset), _reference(config, dataset)


# ----------------------------------------------------------------------------- runs
def solve_runs(config: SolveConfig, data: Dataset, schema: PublicSchema, *,
               progress: Progress | None = None, stop: Stop | None = None) -> pd.DataFrame:
    """The page's runs on ``data`` (the private table or the public reference), one row per
    (method, epsilon, repetition), with the page's seeds and settings (a set ``stop`` ends
    them at the next report: :class:`core.runtime.progress.Stopped`)."""
    progress = watch_progress(progress, stop)
    s, common = config.settings, dict(epsilons=config.epsilons, repetitions=config.repetitions, seed=config.seed,
                                      progress=progress)
    if config.page == "cdp_lr":
        if data.label is None:
            raise DataError("CDP-LR trains a classifier: the data needs a label (set the config's label).")
        return cdp_lr_runs(data, schema, noise_method=s["noise_method"], preset=s["preset"], measure=s["measure"],
                           threshold=s["threshold"], tc=s["tc"], max_rows=s["max_rows"], **common)
    if config.page == "publishing":
        if data.label is None:
            raise DataError("Publishing selects its attributes with the label: the data needs one (set the "
                            "config's label).")
        measures = ("pearson", "mahalanobis") if s["measure"] == "both" else (s["measure"],)
        return publishing_runs(data, schema, measures=measures, threshold=s["threshold"], n_queries=s["n_queries"],
                               budget=s["budget"], use_products=s["use_products"], max_rows=s["max_rows"], **common)
    result = compare(data, methods=list(config.methods), epsilons=list(config.epsilons),
                     repetitions=config.repetitions, test_size=s["test_size"], max_rows=s["max_rows"],
                     imposter_epochs=s["imposter_epochs"], random_state=config.seed, progress=progress,
                     schema=schema, audit_runs=s["audit_runs"], dcr_records=s["dcr_records"])
    return result.runs


def _pick(runs: pd.DataFrame, methods: tuple[str, ...] | None) -> pd.DataFrame:
    if methods is None:
        return runs
    have = list(dict.fromkeys(runs["method"].astype(str)))
    unknown = [m for m in methods if m not in have]
    if unknown:
        raise ValueError(f"methods has name(s) {unknown} that this page does not run; it runs {have}.")
    return runs[runs["method"].isin(methods)]


# ----------------------------------------------------------------------------- answer
def _seeded(method: str) -> bool:
    """Whether the method's noise can be seeded (the registry says so; the paper pages' schemes are)."""
    record = METHODS.get(method)
    return bool(getattr(record, "seeded", True)) if record is not None else True


def _spread(runs: pd.DataFrame, method: str, measure: str) -> list[dict[str, Any]]:
    rows = runs[runs["method"] == method]
    eps = pd.to_numeric(rows["epsilon"], errors="coerce")
    values = pd.to_numeric(rows[measure], errors="coerce")
    frame = pd.DataFrame({"epsilon": eps, "value": values}).dropna()
    out = []
    for e, g in frame.groupby("epsilon", sort=True):
        sd = float(g["value"].std(ddof=1)) if len(g) > 1 else None
        out.append({"epsilon": float(e), "sd": sd, "min": float(g["value"].min()), "max": float(g["value"].max()),
                    "n": int(len(g))})
    return out


def solution_entry(solution: Solution, *, seeded: bool = True, is_dp: bool | None = None,
                   spread: list | None = None) -> dict[str, Any]:
    """One method's answer as ``pux solve`` prints it: the target, its ``direction`` (``"from"``
    or ``"up_to"``, :attr:`core.decide.target.Target.direction`), the epsilon range (``"from"``:
    ``epsilon`` to the largest epsilon tried; ``"up_to"``, a risk: the smallest epsilon tried to
    ``epsilon``; None with the reason where no epsilon meets the target), its uncertainty,
    whether the method is seeded (an unseeded one with its spread) and the whole solution."""
    d = solution.to_dict()
    reached = solution.met and solution.epsilon is not None
    span = ([float(solution.grid[0]), d["epsilon"]] if solution.direction == UP_TO
            else [d["epsilon"], float(solution.grid[-1])]) if reached else None
    return {
        "method": solution.method, "target": d["target"], "direction": d["direction"], "met": d["met"],
        "epsilon": d["epsilon"], "epsilon_range": span,
        "reason": solution.reason,
        "uncertainty": {"epsilon_low": d["epsilon_low"], "epsilon_high": d["epsilon_high"],
                        "epsilon_high_beyond_range": d["epsilon_high_beyond_range"],
                        "repetitions": d["repetitions"], "confidence": d["confidence"]},
        "seeded": bool(seeded), "seeded_note": None if seeded else UNSEEDED_NOTE,
        "spread": None if seeded else spread, "is_dp": is_dp,
        "curve": {k: d[k] for k in ("grid", "means", "lows", "highs")}, "value": d["value"],
    }


def _entries(runs: pd.DataFrame, config: SolveConfig) -> list[dict[str, Any]]:
    out = []
    for sol in solve_summary(runs, config.target, confidence=config.confidence):
        rows = runs[runs["method"] == sol.method]
        is_dp = bool(rows["is_dp"].astype(bool).any()) if "is_dp" in rows.columns else None
        seeded = _seeded(sol.method)
        out.append(solution_entry(sol, seeded=seeded, is_dp=is_dp,
                                  spread=None if seeded else _spread(runs, sol.method, config.target.measure)))
    return out


def _epsilon_reads(config: SolveConfig) -> str:
    if config.page == "publishing" and config.settings["budget"] == "per_query":
        return (f"epsilon per query (the paper's reading: a release of {config.settings['n_queries']} queries "
                "costs that many times epsilon)")
    if config.page == "publishing":
        return "epsilon of the whole release (split evenly over the queries)"
    return "epsilon of one release (one training, one table)"


def _private_choice(config: SolveConfig, on_reference: bool) -> dict[str, Any]:
    top = max(config.epsilons)
    return {
        "chosen_on_private_data": not on_reference,
        "note": REFERENCE_NOTE if on_reference else PRIVATE_CHOICE_NOTE,
        "private_selection_cost": {
            "largest_candidate": top,
            "liu_talwar_2019": selection_cost(top, eta=1.0),
            "papernot_steinke_2022_eta0": selection_cost(top, eta=0.0),
            "reading": "the pure-DP cost of choosing among the grid's epsilons by private selection, each run "
                       "DP at its own epsilon (core.decide.selection)",
        },
    }


def run_solve(config: SolveConfig, *, data_dir: str | os.PathLike | None = None,
              csv: str | os.PathLike | None = None, progress: Progress | None = None,
              stop: Stop | None = None) -> dict[str, Any]:
    """The answer ``pux solve`` prints (JSON-safe): ``schema`` ``"pux-solve/1"``, what was
    solved on, the target, the grid, and per method its :func:`solution_entry` (``progress``
    and ``stop`` as in :func:`solve_runs`)."""
    start = time.perf_counter()
    dataset, schema, reference = load_solve_data(config, data_dir=data_dir, csv=csv)
    data = reference if reference is not None else dataset
    runs = _pick(solve_runs(config, data, schema, progress=progress, stop=stop), config.methods)
    return {
        "schema": OUTPUT_SCHEMA, "page": config.page, "dataset": dataset.name,
        "solved_on": "public reference table" if reference is not None else "private data",
        "reference": None if reference is None else reference.name, "rows": int(data.n_rows),
        "target": config.target.to_dict(), "target_words": config.target.describe(),
        "epsilons": list(config.epsilons), "epsilon_reads": _epsilon_reads(config),
        "repetitions": config.repetitions, "confidence": config.confidence, "seed": config.seed,
        "settings": dict(config.settings), "methods": _entries(runs, config),
        "private_choice": _private_choice(config, reference is not None),
        "seconds": round(time.perf_counter() - start, 2),
    }
