"""The Correlations page in a bundle (paper 000, Section 3): how strongly the attributes go
together, how correlated the records of a sample are, and what record correlation does to a
count query's sensitivity (CS against GS over every record).

The same core calls, data and seeds as the page (``dashboard/cdp/jobs.py`` ``run_association``
and ``run_sensitivity``, ``dashboard/cdp/cached.py`` ``record_heatmap``): every number is an
exact statistic of the private records, so the page releases no table.
"""
from __future__ import annotations

import numbers as _numbers
from typing import Any, Mapping

import numpy as np

from core.bundle.pages import BundleRelease
from core.cdp.sensitivity import record_matrix
from core.correlation import attribute_association, correlated_sensitivity, record_correlation
from core.data import Dataset
from core.privacy.noise_source import NoiseSource
from core.privacy.schema import PublicSchema
from core.runtime.progress import Progress, report, stage, Stop, watch
from core.runtime.randomness import check_random_state
from core.validation import check_choice, check_positive_int

__all__ = ["TITLE", "DEFAULTS", "ASSOCIATIONS", "MEASURES", "check_settings", "check_measure", "check_threshold",
           "check_known", "numbers", "releases", "describe", "association_numbers", "heatmap_numbers",
           "sensitivity_numbers"]

TITLE = "Correlations"
#: The attribute association measures of the page ("Association").
ASSOCIATIONS = ("pearson", "nmi", "mic")
#: The record correlation measures ("Record correlation").
MEASURES = ("pearson", "mahalanobis")
#: The page's defaults: association measure, MIC row cap, record correlation measure, delta0
#: and the number of records in the heatmap.
DEFAULTS: dict[str, Any] = {"association": "pearson", "mic_rows": 1000, "measure": "pearson", "threshold": 0.8,
                            "heatmap_records": 200}
#: What the association matrix is read against.
ASSOCIATION_SCALE = "0: the two attributes are unrelated; 1: one determines the other (the diagonal)."
#: The sensitivity of a count when the records are independent: what CS and GS are read against.
INDEPENDENT_COUNT = 1.0


def check_known(settings: Any, defaults: Mapping[str, Any]) -> dict[str, Any]:
    """``settings`` (a JSON object holding only keys of ``defaults``) with the missing ones filled."""
    if not isinstance(settings, Mapping):
        raise TypeError(f"settings must be a JSON object, got {type(settings).__name__}.")
    unknown = sorted(str(k) for k in settings if k not in defaults)
    if unknown:
        raise ValueError(f"settings has unknown key(s) {unknown}; the page's settings are {sorted(defaults)}.")
    return {**defaults, **settings}


def check_measure(value: Any) -> str:
    """The record correlation measure (pearson or mahalanobis)."""
    return check_choice(value, MEASURES, name="measure", kind=str)


def check_threshold(value: Any) -> float:
    """delta0, a number in (0, 1]: record correlations below it count as none."""
    if isinstance(value, bool) or not isinstance(value, _numbers.Real):
        raise TypeError(f"threshold must be a number, got {type(value).__name__}.")
    if not 0.0 < float(value) <= 1.0:
        raise ValueError(f"threshold (delta0) must lie in (0, 1], got {float(value):g}.")
    return float(value)


def check_settings(settings: Mapping[str, Any]) -> dict[str, Any]:
    """The page's settings with its defaults filled (:data:`DEFAULTS`).

    ``association`` (pearson, nmi or mic), ``mic_rows`` (the MIC row cap, 2 or more; read only
    for MIC), ``measure`` (pearson or mahalanobis), ``threshold`` (delta0 in (0, 1]; lower
    counts more records as correlated, so more noise) and ``heatmap_records`` (records drawn
    for the heatmap, 2 or more).
    """
    out = check_known(settings, DEFAULTS)
    out["association"] = check_choice(out["association"], ASSOCIATIONS, name="association", kind=str)
    out["mic_rows"] = check_positive_int(out["mic_rows"], name="mic_rows", minimum=2)
    out["measure"] = check_measure(out["measure"])
    out["threshold"] = check_threshold(out["threshold"])
    out["heatmap_records"] = check_positive_int(out["heatmap_records"], name="heatmap_records", minimum=2)
    return out


def association_numbers(dataset: Dataset, *, method: str, mic_rows: int, seed: int,
                        progress: Progress | None = None, stop: Stop | None = None) -> dict[str, Any]:
    """The attribute x attribute association of the features, one record per cell (as the
    heatmap's data lists them), the MIC row sample drawn from ``seed``."""
    progress = watch(progress, stop)  # a set stop ends the work at its next report
    max_rows = int(mic_rows) if method == "mic" else None
    matrix = attribute_association(dataset.frame[list(dataset.features)], method=method, max_rows=max_rows,
                                   random_state=int(seed), progress=progress)
    values = matrix.to_numpy(dtype=float)
    names = [str(c) for c in matrix.columns]
    cells = [{"attribute": str(a), "other attribute": names[j], "association": float(values[i, j])}
             for i, a in enumerate(matrix.index) for j in range(len(names))]
    return {"method": method, "rows": None if max_rows is None else min(max_rows, dataset.n_rows),
            "attributes": names, "cells": cells, "reference": ASSOCIATION_SCALE}


def record_heatmap(dataset: Dataset, *, records: int, measure: str, threshold: float,
                   seed: int) -> tuple[np.ndarray, np.ndarray]:
    """The page's record heatmap: ``records`` rows drawn from ``seed``, their thresholded
    correlation (standardised on the whole table: the pairs come from the sample), sorted
    most correlated first; returns (matrix, the drawn rows in that order)."""
    rm = record_matrix(dataset)
    rng = check_random_state(int(seed))
    idx = np.sort(rng.choice(len(rm.X), size=min(int(records), len(rm.X)), replace=False))
    M = record_correlation(rm.X[idx], measure=measure, threshold=threshold).toarray()
    order = np.argsort(-M.sum(axis=1), kind="stable")
    return M[np.ix_(order, order)], idx[order]


def heatmap_numbers(dataset: Dataset, *, records: int, measure: str, threshold: float, seed: int) -> dict[str, Any]:
    """The record heatmap (:func:`record_heatmap`): its rows, and the off-diagonal cells at
    delta0 or above, numbered as drawn (the diagonal is 1, every other cell 0)."""
    M, rows = record_heatmap(dataset, records=records, measure=measure, threshold=threshold, seed=seed)
    i, j = np.nonzero(np.triu(M, k=1))
    n = len(M)
    return {"records": n, "rows": [int(r) for r in rows], "pairs": n * (n - 1) // 2,
            "correlated pairs": int(len(i)),
            "cells": [{"record": int(a), "other record": int(b), "correlation (delta)": float(M[a, b])}
                      for a, b in zip(i, j)]}


def sensitivity_numbers(dataset: Dataset, *, measure: str, threshold: float,
                        progress: Progress | None = None, stop: Stop | None = None) -> dict[str, Any]:
    """CS, GS and C(x) over every record, each also as the share the page shows (of N records,
    of the N(N-1)/2 record pairs), beside a count's sensitivity on independent records (1)."""
    progress = watch(progress, stop)  # a set stop ends the work at its next report
    rm = record_matrix(dataset)
    rep = correlated_sensitivity(rm.X, measure=measure, threshold=threshold, progress=progress)
    n = dataset.n_rows
    pairs = float(n) * (float(n) - 1.0) / 2.0
    cs, gs, cx = float(rep.correlated), float(rep.group), float(rep.data_correlation)
    return {"correlated sensitivity CS": cs, "group sensitivity GS": gs, "data correlation C(x)": cx,
            "N": n, "record pairs": pairs, "CS share of N": cs / n if n else float("nan"),
            "GS share of N": gs / n if n else float("nan"), "C(x) share of the pairs": cx / pairs if pairs else
            float("nan"), "CS below GS": bool(cs < gs),
            "independent records (the sensitivity of a count without correlation)": INDEPENDENT_COUNT}


def numbers(dataset: Dataset, schema: PublicSchema, *, seed: int, settings: Mapping[str, Any],
            progress: Progress | None = None, stop: Stop | None = None) -> dict[str, Any]:
    """The association matrix, the record heatmap's sample and cells, and CS against GS over
    every record (the schema is not read: the page measures the records themselves)."""
    progress = watch(progress, stop)  # a set stop ends the work at its next report
    s = check_settings(settings)
    report(progress, 0.0, "Attribute association")
    assoc = association_numbers(dataset, method=s["association"], mic_rows=s["mic_rows"], seed=seed,
                                progress=stage(progress, 0.0, 0.4))
    report(progress, 0.4, "Record heatmap")
    heatmap = heatmap_numbers(dataset, records=s["heatmap_records"], measure=s["measure"],
                              threshold=s["threshold"], seed=seed)
    report(progress, 0.5, "CS and GS over every record")
    sens = sensitivity_numbers(dataset, measure=s["measure"], threshold=s["threshold"],
                               progress=stage(progress, 0.5, 1.0))
    return {"dataset": dataset.name, "N": dataset.n_rows, "measure": s["measure"], "delta0": s["threshold"],
            "association": assoc, "record heatmap": heatmap, "sensitivity": sens}


def releases(dataset: Dataset, schema: PublicSchema, *, noise: NoiseSource,
             settings: Mapping[str, Any]) -> list[BundleRelease]:
    """None: the page measures the private records and releases no table."""
    return []


def describe(settings: Mapping[str, Any]) -> str:
    """One sentence on the page's numbers."""
    s = check_settings(settings)
    return (f"The {s['association']} association of every pair of attributes, the {s['measure']} record "
            f"correlation (delta0 = {s['threshold']:g}) of {s['heatmap_records']} records drawn for the heatmap, "
            "and the correlated (CS) against the group (GS) sensitivity of a count over every record, with "
            "C(x): exact statistics of the private records.")
