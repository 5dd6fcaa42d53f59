"""The curves the pages show, as runs to solve on: CDP-LR's accuracy, Publishing's MAE, Compare's measures.

Each function computes a page's runs with the same core functions, the same data
preparation and the same seeds as that page (:mod:`dashboard.cdp.jobs` ``run_curves`` and
``run_mae``, :mod:`dashboard.compare.cached`), so ``pux solve`` and the page give the same
epsilon for the same target and seed. Each returns one row per (method, epsilon,
repetition) with the page's measure and ``is_dp``: what :func:`core.decide.solve.solve_summary`
reads. :func:`scheme_runs` turns a paper page's own runs (column ``scheme``) into that form,
for a page that already holds them.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Sequence

import pandas as pd

from core.cdp.baselines import DP_SCHEME, prepare_schemes
from core.cdp.publishing import ALL_PUBLISH_SCHEMES, PublishingSetup, mae_curve, prepare_publishing
from core.cdp.sweeps import runs_at
from core.data import Dataset
from core.privacy.schema import PublicSchema
from core.runtime.progress import Progress, Stop, report, stage
from core.runtime.progress import watch as watch_progress

__all__ = ["PAGES", "PAGE_MEASURE", "MEASURE_FREE", "scheme_runs", "limit_rows", "publishing_data", "mae_curves",
           "schema_subset", "cdp_lr_runs", "publishing_runs"]

#: The pages whose curves can be solved on.
PAGES = ("cdp_lr", "publishing", "compare")
#: The measure of each paper page's curve (Compare's are its runs' columns).
PAGE_MEASURE = {"cdp_lr": "accuracy", "publishing": "mae"}
#: Publishing's schemes that do not depend on the record-correlation measure (named once with two measures).
MEASURE_FREE = ("Group", DP_SCHEME)


def scheme_runs(runs: pd.DataFrame) -> pd.DataFrame:
    """A paper page's runs (``scheme``, ``epsilon``, ``repetition``, the measure) as a solver's
    runs: ``scheme`` renamed ``method`` and ``is_dp`` True for the DP reading only (the
    paper's schemes read the records outside the budget; their epsilon is nominal)."""
    if not isinstance(runs, pd.DataFrame):
        raise TypeError(f"runs must be a pandas DataFrame, got {type(runs).__name__}.")
    if "scheme" not in runs.columns:
        raise ValueError("runs must have a scheme column (a CDP-LR or Publishing page's runs).")
    out = runs.rename(columns={"scheme": "method"})
    return out.assign(is_dp=[str(m).split(" (")[0] == DP_SCHEME for m in out["method"]])


def limit_rows(dataset: Dataset, max_rows: int, seed: int) -> Dataset:
    """At most ``max_rows`` rows drawn with ``seed`` (all rows when the data is smaller): the pages' sample."""
    return dataset.sample(int(max_rows), random_state=int(seed)) if dataset.n_rows > max_rows else dataset


def publishing_data(dataset: Dataset, use_products: bool, seed: int, max_rows: int = 5000) -> Dataset:
    """The table the Publishing page queries: without the ``product_*`` columns unless
    ``use_products``, at most ``max_rows`` rows drawn with ``seed``."""
    data = dataset
    if not use_products:
        products = {c for c in dataset.features if c.startswith("product_")}
        data = dataset.subset([c for c in dataset.frame.columns if c not in products])
    return limit_rows(data, max_rows, seed)


def schema_subset(schema: PublicSchema, dataset: Dataset) -> PublicSchema:
    """``schema`` restricted to ``dataset``'s columns, with the dataset's roles (as the Publishing page)."""
    cols = list(dataset.frame.columns)
    kept = tuple(c for c in schema.columns if c.name in cols)
    label = dataset.label if dataset.label in cols else None
    return replace(schema, columns=kept, label=label, sensitive=tuple(s for s in dataset.sensitive if s in cols))


def cdp_lr_runs(dataset: Dataset, schema: PublicSchema, *, epsilons: Sequence[float], repetitions: int, seed: int,
                noise_method: int = 1, preset: str = "sensible", measure: str = "pearson", threshold: float = 0.8,
                tc: float = 40.0, max_rows: int = 5000, progress: Progress | None = None,
                stop: Stop | None = None) -> pd.DataFrame:
    """The CDP-LR page's Fig. 4 runs: every scheme's accuracy at each epsilon and repetition.

    The page's steps with its seeds: ``max_rows`` rows drawn with ``seed``, the schemes
    prepared with ``seed`` (:func:`core.cdp.baselines.prepare_schemes`), each epsilon's runs
    from :func:`core.cdp.sweeps.runs_at` (noise seeds from the viewer's seed, epsilon,
    method and preset). ``schema`` is the public schema of the whole table.
    """
    progress = watch_progress(progress, stop)  # a set ``stop`` ends the runs at the next report
    data = limit_rows(dataset, int(max_rows), int(seed))
    setup = prepare_schemes(data, schema=schema, threshold=float(threshold), measure=measure, tc=float(tc),
                            random_state=int(seed), progress=stage(progress, 0.0, 0.2, "preparing the schemes"))
    mats = {s: setup.matrices(s) for s in setup.columns}
    rows: list[dict] = []
    for i, eps in enumerate(epsilons):
        rows += runs_at(setup, mats, epsilon=float(eps), noise_method=int(noise_method), preset=preset,
                        repetitions=int(repetitions), seed=int(seed))[0]
        report(progress, 0.2 + 0.8 * (i + 1) / len(epsilons), f"epsilon {float(eps):g} done")
    return scheme_runs(pd.DataFrame(rows))


def _by_measure(frame: pd.DataFrame, measure: str, *, first: bool) -> pd.DataFrame:
    """``frame``'s schemes named "Proposed (pearson)" and so on; the measure-free ones (Group,
    the DP reading) kept for the first measure only."""
    frame = frame[~frame["scheme"].isin(MEASURE_FREE) | first]
    return frame.assign(scheme=[f"{x} ({measure})" if x not in MEASURE_FREE else x for x in frame["scheme"]])


def mae_curves(setups: Sequence[tuple[str, PublishingSetup]], *, epsilons: Sequence[float], repetitions: int,
               budget: str, seed: int, progress: Progress | None = None,
               stop: Stop | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Fig. 6's (summary, runs) for prepared setups, one MAE curve per (measure, setup): every
    scheme at each epsilon and repetition, the noise drawn from ``seed``; with two measures the
    schemes are named by measure and Group and the DP reading appear once. The Publishing
    page's job and its bundle both call this."""
    progress = watch_progress(progress, stop)  # a set stop ends the work at its next report
    summaries, runs = [], []
    for i, (m, setup) in enumerate(setups):
        summary, part = mae_curve(setup, epsilons=tuple(float(e) for e in epsilons), schemes=ALL_PUBLISH_SCHEMES,
                                  repetitions=int(repetitions), budget=budget, random_state=int(seed),
                                  progress=stage(progress, i / len(setups), (i + 1) / len(setups)))
        if len(setups) > 1:
            summary, part = (_by_measure(f, m, first=i == 0) for f in (summary, part))
        summaries.append(summary)
        runs.append(part)
    return pd.concat(summaries, ignore_index=True), pd.concat(runs, ignore_index=True)


def publishing_runs(dataset: Dataset, schema: PublicSchema, *, epsilons: Sequence[float], repetitions: int,
                    seed: int, measures: Sequence[str] = ("pearson",), threshold: float = 0.8, n_queries: int = 200,
                    budget: str = "per_query", use_products: bool = True, max_rows: int = 5000,
                    progress: Progress | None = None, stop: Stop | None = None) -> pd.DataFrame:
    """The Publishing page's Fig. 6 runs: every scheme's count-query MAE at each epsilon and repetition.

    The page's steps with its seeds: :func:`publishing_data`, the schema restricted to it,
    :func:`core.cdp.publishing.prepare_publishing` per record-correlation measure (T_c 40)
    and :func:`core.cdp.publishing.mae_curve` with ``seed``; with two measures the schemes
    are named "Proposed (pearson)" and so on, and Group and the DP reading appear once.
    Epsilon is read as ``budget`` says (per query, or for the whole release).
    """
    progress = watch_progress(progress, stop)  # a set ``stop`` ends the runs at the next report
    data = publishing_data(dataset, bool(use_products), int(seed), int(max_rows))
    sub = schema_subset(schema, data)
    parts = []
    for i, m in enumerate(measures):
        part = stage(progress, i / len(measures), (i + 1) / len(measures), f"measure {m}")
        setup = prepare_publishing(data, schema=sub, measure=m, threshold=float(threshold), tc=40.0,
                                   n_queries=int(n_queries), random_state=int(seed),
                                   progress=stage(part, 0.0, 0.3))
        runs = mae_curve(setup, epsilons=tuple(float(e) for e in epsilons), schemes=ALL_PUBLISH_SCHEMES,
                         repetitions=int(repetitions), budget=budget, random_state=int(seed),
                         progress=stage(part, 0.3, 1.0))[1]
        parts.append(_by_measure(runs, m, first=i == 0) if len(measures) > 1 else runs)
    return scheme_runs(pd.concat(parts, ignore_index=True))
