"""The DC-FBFS page in a bundle (paper 000, Algorithm 1): the features data-correlation based
forward-backward feature selection keeps, and why.

The same core calls, rows and seeds as the page (``dashboard/cdp/cached.py`` ``limit_rows``,
``dashboard/cdp/jobs.py`` ``run_selection``, ``run_feature_count`` and
``run_stage_sensitivities``): the selection at T_c (Fig. 2, Fig. 3, Table 1) with the
traversals read against the constant guess, C(x) of the first k features (Fig. 1), GS and CS
after each stage (Table 2) beside the paper's tables, and each claim's verdict. Every number
is an exact statistic of the private records, so the page releases no table.
"""
from __future__ import annotations

import numbers as _numbers
from typing import Any, Mapping

import numpy as np
import pandas as pd

from core.bundle.pages import BundleRelease
from core.bundle.pages.correlations import check_known, check_measure, check_threshold
from core.cdp import claims
from core.cdp.dc_fbfs import DCFBFSResult, dc_fbfs
from core.cdp.feature_count import correlation_by_feature_count
from core.cdp.paper import PAPER_TABLE1, PAPER_TABLE2
from core.cdp.sensitivity import record_matrix
from core.cdp.sweeps import Reference, constant_guess
from core.correlation import correlated_sensitivity
from core.data import Dataset
from core.privacy.noise_source import NoiseSource
from core.privacy.schema import PublicSchema
from core.runtime.progress import Progress, report, stage, Stop, watch
from core.validation import check_positive_int

__all__ = ["TITLE", "DEFAULTS", "PAGE_TC", "check_settings", "numbers", "releases", "describe", "page_rows",
           "select", "default_tc", "tc_range", "stage_sets", "selection_numbers", "stage_rows"]

TITLE = "DC-FBFS"
#: The T_c the page starts at when the largest DC is above it (the paper's, on its 1,160 records).
PAGE_TC = 40.0
#: The page's defaults: record correlation measure, delta0, the rows used (a random sample above
#: this) and T_c (None: the page's start, min(40, the largest DC)).
DEFAULTS: dict[str, Any] = {"measure": "pearson", "threshold": 0.8, "max_rows": 3000, "tc": None}


def _check_tc(value: Any) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, _numbers.Real):
        raise TypeError(f"tc must be a number or null, got {type(value).__name__}.")
    if not np.isfinite(float(value)) or float(value) < 0:
        raise ValueError(f"tc (T_c, in units of C(x)) must be a finite number of 0 or more, got {float(value):g}.")
    return float(value)


def check_settings(settings: Mapping[str, Any]) -> dict[str, Any]:
    """The page's settings with its defaults filled (:data:`DEFAULTS`).

    ``measure`` (pearson or mahalanobis), ``threshold`` (delta0 in (0, 1]), ``max_rows`` (the
    rows used: a random sample drawn from the seed when the table has more; 2 or more) and
    ``tc`` (T_c, 0 or more: features whose deletion changes C(x) by less are deletion
    candidates; null for the page's start, min(40, the largest DC)).
    """
    out = check_known(settings, DEFAULTS)
    out["measure"] = check_measure(out["measure"])
    out["threshold"] = check_threshold(out["threshold"])
    out["max_rows"] = check_positive_int(out["max_rows"], name="max_rows", minimum=2)
    out["tc"] = _check_tc(out["tc"])
    return out


def page_rows(dataset: Dataset, max_rows: int, seed: int) -> Dataset:
    """At most ``max_rows`` rows drawn from ``seed`` (every row when the table is smaller)."""
    return dataset.sample(int(max_rows), random_state=int(seed)) if dataset.n_rows > max_rows else dataset


def select(data: Dataset, *, measure: str, threshold: float, seed: int,
           progress: Progress | None = None, stop: Stop | None = None) -> DCFBFSResult:
    """DC-FBFS on ``data`` at T_c = 0 (T_c is applied afterwards with ``with_tc``)."""
    progress = watch(progress, stop)  # a set stop ends the work at its next report
    rm = record_matrix(data)
    y = data.frame[data.label].astype(str).to_numpy()
    return dc_fbfs(rm.X, y, rm.names, tc=0.0, threshold=threshold, measure=measure, random_state=int(seed),
                   progress=progress)


def default_tc(result: DCFBFSResult) -> float:
    """The page's first T_c: 40 (the paper's), or the largest DC when that is smaller."""
    return float(min(PAGE_TC, float(np.max(result.dc))))


def tc_range(result: DCFBFSResult) -> float:
    """The top of the page's T_c slider: 1.1 x the largest DC (at least 1)."""
    return float(max(float(np.max(result.dc)) * 1.1, 1.0)) if len(result.dc) else 1.0


def stage_sets(result: DCFBFSResult) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """Table 2's feature sets (none, F_fb_del, F_c_del, F_del), without one that deletes every feature."""
    sets = (("none", ()), ("F_fb_del", tuple(result.F_fb_del)), ("F_c_del", tuple(result.F_c_del)),
            ("F_del", tuple(result.F_del)))
    return tuple((k, v) for k, v in sets if len(v) < len(result.names))


def stage_rows(data: Dataset, sets: tuple[tuple[str, tuple[str, ...]], ...], *, measure: str, threshold: float,
               progress: Progress | None = None, stop: Stop | None = None) -> pd.DataFrame:
    """Table 2: GS and CS over every row of ``data`` after deleting each named feature set."""
    progress = watch(progress, stop)  # a set stop ends the work at its next report
    rows = []
    for i, (label, deleted) in enumerate(sets):
        cols = tuple(c for c in data.features if c not in set(deleted))
        rm = record_matrix(data, columns=cols)
        rep = correlated_sensitivity(rm.X, measure=measure, threshold=threshold,
                                     progress=stage(progress, i / len(sets), (i + 1) / len(sets)))
        rows.append({"features deleted": label, "deleted": ", ".join(deleted) or "none",
                     "GS": rep.group, "CS": rep.correlated})
    return pd.DataFrame(rows)


def _reference(ref: Reference) -> dict[str, Any]:
    return {"name": ref.name, "value": float(ref.value), "low": float(ref.low), "high": float(ref.high), "n": ref.n}


def selection_numbers(result: DCFBFSResult, guess: Reference, *, n_rows: int) -> dict[str, Any]:
    """Fig. 2, Fig. 3 and Table 1 at ``result``'s T_c: each feature's DC and importance, the
    traversals beside the constant guess, the deleted sets beside the paper's counts."""
    top, cx = tc_range(result), float(result.data_correlation)
    features = [{"feature": n, "DC (change of C(x))": float(d), "importance": float(imp),
                 "C(x) without it": float(w), "deletion candidate (DC < T_c)": n in result.F_c_del,
                 "redundant by the traversals": n in result.F_fb_del, "deleted": n in result.F_del}
                for n, d, imp, w in zip(result.names, result.dc, result.importance, result.correlation_without)]
    steps = [{"step k": k + 1, "forward accuracy (top-k)": float(f), "backward accuracy (top n+1-k)": float(b)}
             for k, (f, b) in enumerate(zip(result.forward_accuracy, result.backward_accuracy))]
    sets = {k: {"n": len(v), "features": list(v)} for k, v in
            (("F_fb_del", result.F_fb_del), ("F_c_del", result.F_c_del), ("F_del", result.F_del),
             ("selected", result.selected))}
    return {
        "T_c": float(result.tc), "T_c range": top, "T_c share of its range": float(result.tc) / top,
        "largest DC": float(np.max(result.dc)), "T_c share of C(x)": float(result.tc) / cx if cx else float("nan"),
        "data correlation C(x)": cx, "record pairs": float(n_rows) * (float(n_rows) - 1.0) / 2.0,
        "features": features, "importance order": list(result.order),
        "traversals": steps, "k1": int(result.k1), "k2": int(result.k2),
        "best forward accuracy": float(result.forward_accuracy[result.k1 - 1]),
        "accuracy with every feature": float(result.forward_accuracy[-1]),
        "constant guess": _reference(guess), "sets": sets,
        "paper Table 1 (their supplier data, 6 attributes, T_c = 40)": {k: list(v) for k, v in PAPER_TABLE1.items()},
    }


def _stage_numbers(stages: pd.DataFrame, n_rows: int) -> dict[str, Any]:
    rows = [{"features deleted": str(r["features deleted"]), "deleted": str(r["deleted"]), "GS": float(r["GS"]),
             "CS": float(r["CS"]), "CS share of N": float(r["CS"]) / n_rows} for _, r in stages.iterrows()]
    paper = [{"features deleted": k, **{m: float(v) for m, v in values.items()}} for k, values in PAPER_TABLE2.items()]
    return {"ours": rows, "paper (their supplier data: 1,160 records, 6 attributes)": paper}


def _curve_numbers(curve: pd.DataFrame) -> list[dict[str, Any]]:
    return [{"number of features": int(k), "feature added": str(a), "C(x)": float(c)}
            for k, a, c in zip(curve["features"], curve["added feature"], curve["C(x)"])]


def numbers(dataset: Dataset, schema: PublicSchema, *, seed: int, settings: Mapping[str, Any],
            progress: Progress | None = None, stop: Stop | None = None) -> dict[str, Any]:
    """The selection at T_c (with the constant guess), Fig. 1's curve, Table 2 and every claim's
    verdict, on the rows the page uses (the schema is not read: the page selects on the records)."""
    progress = watch(progress, stop)  # a set stop ends the work at its next report
    s = check_settings(settings)
    if dataset.label is None:
        raise ValueError("DC-FBFS selects features for a classifier: the data needs a label column.")
    data = page_rows(dataset, s["max_rows"], seed)
    measure, threshold = s["measure"], s["threshold"]
    report(progress, 0.0, "Running DC-FBFS")
    base = select(data, measure=measure, threshold=threshold, seed=seed, progress=stage(progress, 0.0, 0.7))
    result = base.with_tc(default_tc(base) if s["tc"] is None else s["tc"])
    guess = constant_guess(data.frame[data.label].astype(str).to_numpy())
    report(progress, 0.7, "C(x) of the first k features")
    rm = record_matrix(data)
    curve = correlation_by_feature_count(rm.X, rm.names, order=list(base.order), measure=measure,
                                         threshold=threshold, progress=stage(progress, 0.7, 0.85))
    report(progress, 0.85, "CS and GS of each feature set")
    stages = stage_rows(data, stage_sets(result), measure=measure, threshold=threshold,
                        progress=stage(progress, 0.85, 1.0))
    verdicts = [claims.fig1_claim(curve), claims.fig2_claim(result), claims.fig3_claim(result, reference=guess),
                claims.table1_claim(result, reference=guess), claims.table2_claim(stages)]
    return {"dataset": dataset.name, "rows in the table": dataset.n_rows, "rows used": data.n_rows,
            "measure": measure, "delta0": threshold,
            "selection": selection_numbers(result, guess, n_rows=data.n_rows),
            "C(x) by number of features (Fig. 1)": _curve_numbers(curve),
            "sensitivity after each stage (Table 2)": _stage_numbers(stages, data.n_rows),
            "claims": [{k: v for k, v in c.to_dict().items() if k != "paper"} for c in verdicts]}


def releases(dataset: Dataset, schema: PublicSchema, *, noise: NoiseSource,
             settings: Mapping[str, Any]) -> list[BundleRelease]:
    """None: the page selects features on the private records and releases no table."""
    return []


def describe(settings: Mapping[str, Any]) -> str:
    """One sentence on the page's numbers."""
    s = check_settings(settings)
    tc = "min(40, the largest DC)" if s["tc"] is None else f"{s['tc']:g}"
    return (f"DC-FBFS ({s['measure']} record correlation, delta0 = {s['threshold']:g}, T_c = {tc}) on at most "
            f"{s['max_rows']:,} rows: each feature's DC and importance, the traversals' accuracies beside the "
            "constant guess, the deleted sets, C(x) of the first k features, GS and CS after each stage beside "
            "the paper's tables, and each claim's verdict: exact statistics of the private records.")
