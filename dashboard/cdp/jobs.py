"""The work of the paper-000 pages' setup steps and sweeps, one function per job.

Each function is the ``fn(progress, **kwargs)`` of a :class:`~dashboard.shared.serving.sweeps.Sweep`
that :mod:`dashboard.cdp.cached` describes (with its key and title): it calls core with the
job's progress callback and returns what the page shows. The setup steps run in a thread of
the server, the curves in a child process, which imports this module alone (core, no
streamlit).
"""
from __future__ import annotations

import pandas as pd

from core.bundle.pages import dc_fbfs as dc_fbfs_page
from core.decide.pages import mae_curves
from core.cdp.baselines import DP_SCHEME, SchemeSetup, method_curve, prepare_schemes
from core.cdp.dc_fbfs import DCFBFSResult
from core.cdp.feature_count import correlation_by_feature_count
from core.cdp.publishing import (
    PublishingSetup,
    prepare_publishing,
)
from core.cdp.schedule import NOISE_METHODS
from core.cdp.sensitivity import record_matrix
from core.cdp.sweeps import dpsgd_curve, runs_at
from core.correlation import (
    SensitivityReport,
    attribute_association,
    correlated_sensitivity,
)
from core.data import Dataset
from core.privacy.schema import PublicSchema
from core.runtime.experiments import summarize
from core.runtime.progress import Progress, report, stage

__all__ = [
    "MEASURE_FREE", "run_association", "run_sensitivity", "run_selection", "run_feature_count",
    "run_stage_sensitivities", "run_schemes", "run_curves", "run_dpsgd_curves", "run_method_curves",
    "run_publishing", "run_mae",
]

#: schemes whose release does not depend on the record-correlation measure
MEASURE_FREE = ("Group", DP_SCHEME)


def run_association(progress: Progress, *, dataset: Dataset, method: str, max_rows: int | None,
                    seed: int) -> pd.DataFrame:
    """Attribute x attribute association of the features."""
    return attribute_association(dataset.frame[list(dataset.features)], method=method, max_rows=max_rows,
                                 random_state=seed, progress=progress)


def run_sensitivity(progress: Progress, *, dataset: Dataset, columns: tuple[str, ...] | None, measure: str,
                    threshold: float) -> SensitivityReport:
    """CS and GS over all records of ``columns`` (every feature when None)."""
    rm = record_matrix(dataset, columns=columns)
    return correlated_sensitivity(rm.X, measure=measure, threshold=threshold, progress=progress)


def run_selection(progress: Progress, *, dataset: Dataset, threshold: float, measure: str,
                  seed: int) -> DCFBFSResult:
    """DC-FBFS on the whole dataset at T_c = 0 (the page applies T_c afterwards):
    :func:`core.bundle.pages.dc_fbfs.select`, what the page's bundle reruns."""
    return dc_fbfs_page.select(dataset, measure=measure, threshold=threshold, seed=seed, progress=progress)


def run_feature_count(progress: Progress, *, dataset: Dataset, order: tuple[str, ...], measure: str,
                      threshold: float) -> pd.DataFrame:
    """Fig. 1: C(x) of the first k features in ``order``."""
    rm = record_matrix(dataset)
    return correlation_by_feature_count(rm.X, rm.names, order=list(order), measure=measure, threshold=threshold,
                                        progress=progress)


def run_stage_sensitivities(progress: Progress, *, dataset: Dataset,
                            sets: tuple[tuple[str, tuple[str, ...]], ...], threshold: float,
                            measure: str) -> pd.DataFrame:
    """Table 2: GS and CS after deleting each named feature set."""
    rows = []
    for i, (label, deleted) in enumerate(sets):
        cols = tuple(c for c in dataset.features if c not in set(deleted))
        rep = run_sensitivity(stage(progress, i / len(sets), (i + 1) / len(sets), f"deleting {label}"),
                              dataset=dataset, columns=cols, measure=measure, threshold=threshold)
        rows.append({"features deleted": label, "deleted": ", ".join(deleted) or "none",
                     "GS": rep.group, "CS": rep.correlated})
    return pd.DataFrame(rows)


def run_schemes(progress: Progress, *, dataset: Dataset, threshold: float, measure: str, tc: float,
                seed: int, schema: PublicSchema | None = None) -> tuple[SchemeSetup, dict]:
    """The prepared schemes and each scheme's (X_train, X_test, y_train, y_test)."""
    setup = prepare_schemes(dataset, schema=schema, threshold=threshold, measure=measure, tc=tc, random_state=seed,
                            progress=progress)
    return setup, {s: setup.matrices(s) for s in setup.columns}


def run_curves(progress, *, setup: SchemeSetup, mats: dict, epsilons: tuple[float, ...], noise_method: int,
               preset: str, repetitions: int, seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Fig. 4: every scheme's accuracy over the epsilon grid: (summary, runs), the runs one
    row per (scheme, epsilon, repetition) with its accuracy (what an epsilon is solved on)."""
    rows: list[dict] = []
    total = len(epsilons) * int(repetitions)
    for i, eps in enumerate(epsilons):
        first = i * int(repetitions)
        rows += runs_at(setup, mats, epsilon=eps, noise_method=noise_method, preset=preset, repetitions=repetitions,
                        seed=seed, on_repetition=lambda r, first=first: report(
                            progress, (first + r) / total, f"run {first + r} of {total}"))[0]
    runs = pd.DataFrame(rows)
    summary = summarize(runs, ["scheme", "epsilon"], "accuracy")
    order = {s: i for i, s in enumerate(setup.columns)}  # legend in the schemes' order (as accuracy_curve)
    summary = summary.sort_values(["scheme", "epsilon"], key=lambda c: c.map(order) if c.name == "scheme" else c)
    return summary.reset_index(drop=True), runs


def run_dpsgd_curves(progress, *, setup: SchemeSetup, mats: dict, epsilons: tuple[float, ...], repetitions: int,
                     seed: int) -> pd.DataFrame:
    """DP-SGD's accuracy over the epsilon grid (beyond the paper)."""
    return dpsgd_curve(setup, mats, epsilons=epsilons, repetitions=repetitions, seed=seed, progress=progress)


def run_method_curves(progress, *, setup: SchemeSetup, epsilons: tuple[float, ...], preset: str,
                      repetitions: int, seed: int) -> pd.DataFrame:
    """Fig. 5: each noise method's accuracy over the epsilon grid (Proposed scheme)."""
    # the paper's methods 0-6 and method 7 (beyond the paper), so a user sees where it stands
    return method_curve(setup, epsilons=epsilons, methods=tuple(NOISE_METHODS), preset=preset,
                        repetitions=repetitions, random_state=seed, progress=progress)[0]


def run_publishing(progress: Progress, *, dataset: Dataset, measure: str, threshold: float, tc: float,
                   n_queries: int, seed: int, schema: PublicSchema | None = None) -> PublishingSetup:
    """Queries, answers, selection and sensitivities of the publishing schemes."""
    return prepare_publishing(dataset, schema=schema, measure=measure, threshold=threshold, tc=tc,
                              n_queries=n_queries, random_state=seed, progress=progress)


def run_mae(progress, *, setups: tuple[tuple[str, PublishingSetup], ...], epsilons: tuple[float, ...],
            repetitions: int, budget: str, seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Fig. 6's runs (in a worker process), one MAE curve per measure: (summary, runs), the
    runs one row per (scheme, epsilon, repetition) with its MAE (what an epsilon is solved on):
    :func:`core.decide.pages.mae_curves`, which the page's bundle reruns."""
    return mae_curves(setups, epsilons=epsilons, repetitions=repetitions, budget=budget, seed=seed,
                      progress=progress)
