"""The Publishing page in a bundle (paper 000, Section 6.3): random count queries answered with
discrete Laplace noise scaled to each scheme's sensitivity, and their error against epsilon.

The same core calls, rows and seeds as the page (``dashboard/cdp/cached.py``
``publishing_data`` and ``schema_subset``, ``dashboard/cdp/jobs.py`` ``run_publishing`` and
``run_mae``; the curve's runs are :func:`core.decide.pages.publishing_runs`'s, which ``pux
solve`` reads): the count-query MAE (Eq. 22) of every scheme over the epsilon grid (Fig. 6;
Fig. 8 with both similarity measures; Fig. 7 with and without the product columns on
request) with each claim's verdict; the chosen scheme's MAE at the chosen epsilon beside the
queries' mean true count and its zero-noise release; each scheme's sensitivity; and the
guarantee of one release of every query. The page shows the guarantee of a release but offers
no release to download, so the bundle holds no released table.
"""
from __future__ import annotations

from typing import Any, Mapping

import numpy as np
import pandas as pd

from core.bundle.pages import BundleRelease
from core.bundle.pages.cdp_lr import check_flag, claim_numbers, guarantee_numbers, summary_records
from core.bundle.pages.correlations import check_known, check_threshold
from core.cdp import claims
from core.cdp.publishing import (BUDGETS, DP_SCHEME, PublishingSetup, mean_true_count, prepare_publishing,
                                 release_counts, zero_noise_mae)
from core.data import Dataset
from core.decide.pages import MEASURE_FREE, mae_curves, publishing_data, schema_subset
from core.decide.selection import apply_epsilon_choice, check_epsilon_choice
from core.privacy.noise_source import NoiseSource
from core.privacy.schema import PublicSchema
from core.runtime.progress import Progress, report, stage, Stop, watch
from core.validation import check_choice, check_epsilon, check_epsilons, check_positive_int

__all__ = ["TITLE", "EPS_GRID", "DEFAULTS", "SCHEMES", "MEASURES", "TC", "check_settings", "numbers",
           "releases", "describe", "measures_of", "setups", "mae_runs", "mae_at", "reading_numbers",
           "sensitivity_numbers", "fig7_numbers"]

TITLE = "Publishing"
#: The curves' epsilons: the page's grid (every point a value of its epsilon slider).
EPS_GRID = (0.1, 0.25, 0.5, 1.0, 2.0, 4.0, 6.0, 8.0, 10.0)
#: The schemes the page reads at its epsilon (its "Scheme" radio).
SCHEMES = (DP_SCHEME, "Proposed", "Zhang", "Group")
#: The page's similarity measures ("both": Zhang's and the proposed scheme under each, Fig. 8).
MEASURES = ("pearson", "mahalanobis", "both")
#: T_c of the schemes' DC-FBFS (the paper's; the page has no control for it).
TC = 40.0
#: The page's defaults: the epsilon read, the scheme, the similarity measure, delta0, the number
#: of queries, the repetitions per point, how epsilon is read (per query or for the whole
#: release), whether the product columns are queried, whether Fig. 7's other curve is computed,
#: and the curves' epsilons.
DEFAULTS: dict[str, Any] = {"epsilon": 1.0, "scheme": DP_SCHEME, "measure": "pearson", "threshold": 0.8,
                            "n_queries": 200, "repetitions": 10, "budget": "per_query", "use_products": True,
                            "fig7_compare": False, "epsilons": list(EPS_GRID),
                            "epsilon_choice": None}


def check_settings(settings: Mapping[str, Any]) -> dict[str, Any]:
    """The page's settings with its defaults filled (:data:`DEFAULTS`).

    ``epsilon`` (above 0, read as ``budget`` says: ``per_query``, each query spends it, or
    ``total``, the queries share it), ``scheme`` (DP reading, Proposed, Zhang or Group),
    ``measure`` (pearson, mahalanobis or both), ``threshold`` (delta0 in (0, 1]), ``n_queries``
    and ``repetitions`` (1 or more), ``use_products`` and ``fig7_compare`` (true or false; read
    only for a table with ``product_*`` columns) and ``epsilons`` (the curves' grid).
    ``epsilon_choice`` says how ``epsilon`` was chosen (null: by hand or on a public reference;
    ``{"source": "private"}``: solved on the private rows, so the guarantee shown is none;
    ``{"source": "selection", "cost": [epsilon, delta]}``: paid by private selection, added to it).
    """
    out = check_known(settings, DEFAULTS)
    out["epsilon"] = check_epsilon(out["epsilon"])
    out["scheme"] = check_choice(out["scheme"], SCHEMES, name="scheme", kind=str)
    out["measure"] = check_choice(out["measure"], MEASURES, name="measure", kind=str)
    out["threshold"] = check_threshold(out["threshold"])
    out["n_queries"] = check_positive_int(out["n_queries"], name="n_queries")
    out["repetitions"] = check_positive_int(out["repetitions"], name="repetitions")
    out["budget"] = check_choice(out["budget"], BUDGETS, name="budget", kind=str)
    out["use_products"] = check_flag(out["use_products"], name="use_products")
    out["fig7_compare"] = check_flag(out["fig7_compare"], name="fig7_compare")
    out["epsilons"] = list(check_epsilons(out["epsilons"]))
    out["epsilon_choice"] = check_epsilon_choice(out["epsilon_choice"])
    return out


def measures_of(measure: str) -> list[str]:
    """The similarity measures drawn: both for "both", else the one chosen."""
    return ["pearson", "mahalanobis"] if measure == "both" else [measure]


def _setup(data: Dataset, schema: PublicSchema, measure: str, s: Mapping[str, Any], *, seed: int,
           progress: Progress | None = None) -> PublishingSetup:
    """One publishing setup as the page makes it (T_c 40, the schema restricted to ``data``)."""
    return prepare_publishing(data, schema=schema_subset(schema, data), measure=measure, threshold=s["threshold"],
                              tc=TC, n_queries=s["n_queries"], random_state=int(seed), progress=progress)


def setups(data: Dataset, schema: PublicSchema, s: Mapping[str, Any], measures: list[str], *, seed: int,
           progress: Progress | None = None, stop: Stop | None = None) -> dict[str, PublishingSetup]:
    """Each measure's setup: queries from the public schema, answers, selection, sensitivities."""
    progress = watch(progress, stop)  # a set stop ends the work at its next report
    return {m: _setup(data, schema, m, s, seed=seed, progress=stage(progress, i / len(measures),
                                                                     (i + 1) / len(measures)))
            for i, m in enumerate(measures)}


def mae_runs(found: Mapping[str, PublishingSetup], s: Mapping[str, Any], *, seed: int,
             progress: Progress | None = None, stop: Stop | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Fig. 6's (summary, runs), as the page's job makes them (:func:`core.decide.pages.mae_curves`):
    one MAE curve per measure, every scheme at each epsilon and repetition, noise from ``seed``."""
    progress = watch(progress, stop)  # a set stop ends the work at its next report
    return mae_curves(tuple(found.items()), epsilons=s["epsilons"], repetitions=s["repetitions"], budget=s["budget"],
                      seed=int(seed), progress=progress)


def mae_at(summary: pd.DataFrame, scheme: str, epsilon: float, *, measure: str = "pearson") -> float:
    """The mean MAE of ``scheme`` at ``epsilon`` in a summary (named "Proposed (pearson)" and so on
    with both measures); NaN when absent (an epsilon off the grid)."""
    names = {scheme, f"{scheme} ({measure})"}
    rows = summary[summary["scheme"].isin(names) & np.isclose(summary["epsilon"].astype(float), float(epsilon))]
    return float(rows["mae_mean"].iloc[0]) if len(rows) else float("nan")


def reading_numbers(summary: pd.DataFrame, setup: PublishingSetup, first: PublishingSetup, s: Mapping[str, Any],
                    *, shown: str, seed: int) -> dict[str, Any]:
    """The chosen scheme at the chosen epsilon: its MAE beside the mean true count and its
    zero-noise release, the schemes whose error is as large as the answers, and the guarantee
    of one release of every query (its noise drawn from ``seed``, as the page draws it)."""
    scheme, eps = s["scheme"], s["epsilon"]
    true_mean = mean_true_count(first)
    at_eps = mae_at(summary, scheme, eps, measure=shown)
    rows = summary[np.isclose(summary["epsilon"].astype(float), float(eps))]
    release = release_counts(setup, scheme, epsilon=eps, budget=s["budget"], random_state=int(seed))
    return {"scheme": scheme, "measure": shown, "epsilon": eps, "budget": s["budget"],
            "MAE at epsilon": at_eps, "MAE share of the mean true count": at_eps / true_mean if true_mean else None,
            "mean true count": true_mean, "queries": len(first.true_original),
            "zero-noise release MAE": float(zero_noise_mae(setup, scheme)),
            "MAE at least the mean true count": [{"scheme": str(n), "MAE": float(v)} for n, v in
                                                 zip(rows["scheme"], rows["mae_mean"]) if float(v) >= true_mean],
            "guarantee of one release": {**guarantee_numbers(apply_epsilon_choice(release.ledger,
                                                                                  s["epsilon_choice"])),
                                         "epsilon per query": float(release.epsilon_per_query)}}


def sensitivity_numbers(found: Mapping[str, PublishingSetup], n_rows: int) -> list[dict[str, Any]]:
    """Each scheme's sensitivity (also as a share of the N records queried), its attributes and
    whether it is DP; with two measures Group and the DP reading appear once (as the page)."""
    both = len(found) > 1
    rows = []
    for m, setup in found.items():
        for scheme, value in setup.sensitivity.items():
            if both and scheme in MEASURE_FREE and m != "pearson":
                continue
            rows.append({"scheme": scheme if not both or scheme in MEASURE_FREE else f"{scheme} ({m})",
                         "sensitivity": float(value), "share of N records": float(value) / n_rows,
                         "covers": setup.covers(scheme), "attributes": len(setup.columns[scheme]),
                         "differentially private": scheme == DP_SCHEME})
    return rows


#: The names of Fig. 7's two curves (as the page's legend).
FIG7_NAMES = ("Proposed with the product columns", "Proposed without them")


def fig7_numbers(dataset: Dataset, schema: PublicSchema, summary: pd.DataFrame, s: Mapping[str, Any],
                 *, seed: int, progress: Progress | None = None, stop: Stop | None = None) -> dict[str, Any]:
    """Fig. 7: the Proposed scheme's MAE with and without the product columns (the other
    choice's own rows, selection and sensitivities, the first measure), and the claim."""
    progress = watch(progress, stop)  # a set stop ends the work at its next report
    m0 = measures_of(s["measure"])[0]
    other_data = publishing_data(dataset, not s["use_products"], int(seed))
    other_setup = _setup(other_data, schema, m0, s, seed=seed, progress=stage(progress, 0.0, 0.5))
    other = mae_runs({m0: other_setup}, s, seed=seed, progress=stage(progress, 0.5, 1.0))[0]
    with_p, without_p = (summary, other) if s["use_products"] else (other, summary)
    parts = []
    for name, part in zip(FIG7_NAMES, (with_p, without_p)):
        pick = "Proposed" if "Proposed" in set(part["scheme"]) else "Proposed (pearson)"
        parts.append(part[part["scheme"] == pick].assign(scheme=name))
    return {"curves": summary_records(pd.concat(parts, ignore_index=True)),
            "claim": claim_numbers(claims.fig7_claim(with_p, without_p))}


def _claims(summary: pd.DataFrame, true_mean: float, s: Mapping[str, Any], has_products: bool) -> list[dict]:
    """Fig. 6's and Fig. 8's verdicts, and Fig. 7's when it is not computed (with the reason)."""
    out = [claim_numbers(claims.fig6_claim(summary, mean_true=true_mean)),
           claim_numbers(claims.fig8_claim(
               summary if s["measure"] == "both" else None,
               reason="Fig. 8 needs both similarity measures, Pearson and Mahalanobis, side by side; these "
                      "settings have one."))]
    if not (s["fig7_compare"] and has_products):
        out.append(claim_numbers(claims.fig7_claim(None, None, reason=(
            "This table has no product columns (the supplier sample has them): Fig. 7 cannot be checked on it."
            if not has_products else "Fig. 7 needs the curve without the product columns too; these settings "
            "do not compute it (fig7_compare)."))))
    return out


def numbers(dataset: Dataset, schema: PublicSchema, *, seed: int, settings: Mapping[str, Any],
            progress: Progress | None = None, stop: Stop | None = None) -> dict[str, Any]:
    """The MAE curves with their references and claims, the chosen scheme's reading at the
    chosen epsilon, each scheme's sensitivity and the guarantee of one release."""
    progress = watch(progress, stop)  # a set stop ends the work at its next report
    s = check_settings(settings)
    if dataset.label is None:
        raise ValueError("Publishing selects the attributes of its count queries with the label: the data needs "
                         "a label column.")
    measures = measures_of(s["measure"])
    has_products = any(c.startswith("product_") for c in dataset.features)
    data = publishing_data(dataset, s["use_products"], int(seed))
    report(progress, 0.0, "Selecting features and drawing queries")
    found = setups(data, schema, s, measures, seed=seed, progress=stage(progress, 0.0, 0.3))
    report(progress, 0.3, "Answering the queries")
    fig7 = s["fig7_compare"] and has_products
    summary = mae_runs(found, s, seed=seed, progress=stage(progress, 0.3, 0.7 if fig7 else 1.0))[0]
    first = found[measures[0]]
    shown = measures[0] if s["scheme"] not in ("Group", DP_SCHEME) else "pearson"
    setup = found[shown] if shown in found else _setup(data, schema, shown, s, seed=seed)
    true_mean = mean_true_count(first)
    out = {"dataset": dataset.name, "rows in the table": dataset.n_rows, "rows queried": data.n_rows,
           "product columns queried": bool(s["use_products"] and has_products), "measures": measures,
           "delta0": s["threshold"], "T_c": TC, "queries": len(first.true_original),
           "references": {"mean true count": true_mean, "zero-noise release (Proposed)":
                          float(zero_noise_mae(first, "Proposed"))},
           "reading": reading_numbers(summary, setup, first, s, shown=shown, seed=seed),
           "MAE vs epsilon (Fig. 6)": summary_records(summary),
           "sensitivities": sensitivity_numbers(found, data.n_rows),
           "claims": _claims(summary, true_mean, s, has_products)}
    if fig7:
        fig = fig7_numbers(dataset, schema, summary, s, seed=seed, progress=stage(progress, 0.7, 1.0))
        out["with and without the product columns (Fig. 7)"] = fig["curves"]
        out["claims"].append(fig["claim"])
    return out


def releases(dataset: Dataset, schema: PublicSchema, *, noise: NoiseSource,
             settings: Mapping[str, Any]) -> list[BundleRelease]:
    """None: the page shows the guarantee of one release of the queries but offers no release
    to download (its answers are measured against the true counts, not published)."""
    return []


def describe(settings: Mapping[str, Any]) -> str:
    """One sentence on the page's numbers."""
    s = check_settings(settings)
    read = "per query" if s["budget"] == "per_query" else "for the whole release"
    return (f"Count-query MAE (Eq. 22) of Group, Zhang, Proposed and the DP reading on {s['n_queries']} random "
            f"queries ({s['measure']} similarity, delta0 = {s['threshold']:g}, {s['repetitions']} run(s) per point, "
            f"epsilon {read}) over {len(s['epsilons'])} epsilons from {min(s['epsilons']):g} to "
            f"{max(s['epsilons']):g}, the {s['scheme']} scheme read at epsilon = {s['epsilon']:g} beside the "
            "queries' mean true count and its zero-noise release, each scheme's sensitivity, the guarantee of one "
            "release and each claim's verdict: errors measured against the private true counts.")
