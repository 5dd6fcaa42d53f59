"""The SSKM_DP page in a bundle (paper 003): SOM clusters whose centres are published with
Laplace noise, measured against the raw table, a random release and the clustering baselines.

The same core calls, rows and seeds as the page (``dashboard/sskm/cached.py``, its setup and
sweep jobs, and ``sections.py``): the published attributes (no label, no identifier; at most
50,000 rows, sampled with seed 0 above), the publisher fitted with the page's seed (sound mode:
the schema's bounds and categories, a map drawn through noise for each release; paper mode:
MIC on at most ``mic_rows`` rows and the paper's SOM), one release at the slider's epsilon
drawn with the seed (MSE and record linkage beside the raw table's and a random release's,
the guarantee, the released rows per neuron), the map's quality, the MIC connections, MSE and
linkage against epsilon (5 noise draws each), and, as the page shows them, the baselines of
Fig. 7 (MDAV, MDAV_DP, IDP-KMeans against a) and the Fig. 5-6 sweep across a and m with their
claims. The release is SSKM_DP's table at the page's epsilon, with its ledger.
"""
from __future__ import annotations

import copy
import math
from typing import Any, Mapping, Sequence

import numpy as np
import pandas as pd

from core.bundle.pages import BundleRelease, check_number, records
from core.bundle.pages.cdp_lr import check_flag, claim_numbers, guarantee_numbers
from core.bundle.pages.correlations import check_known
from core.data import Dataset
from core.privacy.noise_source import NoiseSource
from core.privacy.schema import PublicSchema
from core.runtime.progress import Progress, report, stage, Stop, watch
from core.runtime.randomness import draw_seed
from core.sskm import claims, sweeps
from core.sskm.connection import mic_connections
from core.sskm.paper import EPSILONS as PAPER_EPSILONS, M_VALUES as PAPER_M_VALUES
from core.sskm.paper_publisher import PaperSSKMDP
from core.sskm.publisher_base import SSKMPublisherBase
from core.sskm.references import RANDOM, reference_sentences
from core.sskm.sound import SSKMDP
from core.validation import check_choice, check_epsilon, check_positive_int, check_probability

__all__ = ["TITLE", "DEFAULTS", "EPSILONS", "check_settings", "numbers", "releases", "describe", "page_columns",
           "page_frame", "fit_publisher", "release_numbers"]

TITLE = "SSKM_DP"
#: The budgets of the page's slider and of its MSE and linkage curve.
EPSILONS = (0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0)
#: Rows above which the page works on a sample (drawn with seed 0).
PAGE_MAX_ROWS = 50_000
#: The page's defaults: the budget, the published and sensitive attributes (null: the first
#: 10 publishable and the data's sensitive ones among them), the mechanism, CS_Tsh, the map
#: (rows, columns, grid, initial weights, draws T (null: 2 per row, 10,000 to 50,000), sigma
#: (null: half the larger side), MIC rows), the paper mode's bounds ([column, lo, hi] each),
#: the map's fit (noisy only: a reference table is not in a bundle), the baselines (null: on
#: up to 20,000 rows) and their a, and the Fig. 5-6 sweep (off unless asked) with its m
#: (null: the paper's 5 and 10, clipped), grids, repetitions and draws per map.
DEFAULTS: dict[str, Any] = {
    "epsilon": 1.0, "columns": None, "sensitive": None, "mode": "sound", "cs_threshold": 0.3,
    "rows": 8, "cols": 8, "topology": "rectangular", "init": "sfla", "iterations": None, "sigma": None,
    "mic_rows": 4000, "bounds": [], "map_fit": "noisy", "baselines": None, "a_values": [10, 25, 50, 100, 250],
    "sweep": False, "sweep_m": None, "sweep_grids": ["4x4", "6x6", "8x8", "10x10"], "sweep_repetitions": 5,
    "sweep_iterations": 10_000}
_A_VALUES = (10, 25, 50, 100, 250, 500)
_GRIDS = ("3x3", "4x4", "6x6", "8x8", "10x10", "12x12", "14x14")


def _int(value: Any, *, name: str, lo: int, hi: int) -> int:
    out = check_positive_int(value, name=name, minimum=lo)
    if out > hi:
        raise ValueError(f"{name} must be at most {hi}, got {out}.")
    return out


def _names(value: Any, *, name: str) -> list[str] | None:
    if value is None:
        return None
    if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
        raise TypeError(f"{name} must be a list of column names or null, got {type(value).__name__}.")
    return list(value)


def _bounds(value: Any) -> list[list]:
    """The paper mode's public bounds: [column, lo, hi] each, lo < hi, both finite."""
    if not isinstance(value, (list, tuple)):
        raise TypeError(f"bounds must be a list of [column, lo, hi], got {type(value).__name__}.")
    out = []
    for entry in value:
        if not isinstance(entry, (list, tuple)) or len(entry) != 3 or not isinstance(entry[0], str):
            raise TypeError(f"each of bounds must be [column, lo, hi], got {entry!r}.")
        lo, hi = (check_number(v, name=f"the bounds of {entry[0]}", lo=-math.inf, hi=math.inf) for v in entry[1:])
        if not lo < hi:
            raise ValueError(f"the bounds of {entry[0]} must have lo < hi, got {lo:g} and {hi:g}.")
        out.append([entry[0], lo, hi])
    return out


def _sweep_settings(out: dict[str, Any]) -> None:
    out["sweep"] = check_flag(out["sweep"], name="sweep")
    if out["sweep_m"] is not None:
        if not isinstance(out["sweep_m"], (list, tuple)):
            raise TypeError(f"sweep_m must be a list of integers or null, got {type(out['sweep_m']).__name__}.")
        out["sweep_m"] = sorted(check_positive_int(m, name="sweep_m", minimum=2) for m in out["sweep_m"])
    if not isinstance(out["sweep_grids"], (list, tuple)):
        raise TypeError(f"sweep_grids must be a list, got {type(out['sweep_grids']).__name__}.")
    grids = [check_choice(g, _GRIDS, name="sweep_grids", kind=str) for g in out["sweep_grids"]]
    out["sweep_grids"] = sorted(grids, key=lambda g: [int(v) for v in g.split("x")])
    out["sweep_repetitions"] = _int(out["sweep_repetitions"], name="sweep_repetitions", lo=1, hi=20)
    out["sweep_iterations"] = _int(out["sweep_iterations"], name="sweep_iterations", lo=1000, hi=100_000)


def check_settings(settings: Mapping[str, Any]) -> dict[str, Any]:
    """The page's settings with its defaults filled (:data:`DEFAULTS`).

    ``epsilon`` (the release's budget, above 0: smaller is more private), ``columns`` and
    ``sensitive`` (column names, or null for the page's start), ``mode`` (sound, the DP
    mechanism, or paper, not DP), ``cs_threshold`` (CS_Tsh in [0, 1]), ``rows`` and ``cols``
    (2 to 20), ``topology`` (rectangular or hexagonal), ``init`` (sfla, random or pca),
    ``iterations`` (1,000 to 200,000 or null), ``sigma`` (0.5 to 10 or null), ``mic_rows``
    (200 to 50,000), ``bounds`` (the paper mode's public ranges), ``map_fit`` (noisy),
    ``baselines`` (true, false or null), ``a_values`` (of 10, 25, 50, 100, 250, 500),
    ``sweep`` (true or false), ``sweep_m`` (null or integers of 2 or more), ``sweep_grids``
    (of 3x3 to 14x14), ``sweep_repetitions`` (1 to 20) and ``sweep_iterations`` (1,000 to 100,000).
    """
    out = check_known(settings, DEFAULTS)
    out["epsilon"] = check_epsilon(out["epsilon"])
    out["columns"], out["sensitive"] = _names(out["columns"], name="columns"), _names(out["sensitive"],
                                                                                   name="sensitive")
    out["mode"] = check_choice(out["mode"], ("sound", "paper"), name="mode", kind=str)
    out["cs_threshold"] = check_probability(out["cs_threshold"], name="cs_threshold")
    out["rows"], out["cols"] = (_int(out[k], name=k, lo=2, hi=20) for k in ("rows", "cols"))
    out["topology"] = check_choice(out["topology"], ("rectangular", "hexagonal"), name="topology", kind=str)
    out["init"] = check_choice(out["init"], ("sfla", "random", "pca"), name="init", kind=str)
    if out["iterations"] is not None:
        out["iterations"] = _int(out["iterations"], name="iterations", lo=1000, hi=200_000)
    if out["sigma"] is not None:
        out["sigma"] = check_number(out["sigma"], name="sigma", lo=0.5, hi=10.0)
    out["mic_rows"] = _int(out["mic_rows"], name="mic_rows", lo=200, hi=50_000)
    out["bounds"] = _bounds(out["bounds"])
    if out["map_fit"] == "reference":
        raise ValueError("A map fitted on an uploaded reference table cannot be rerun from a bundle (the table is "
                         "not in it): fit the map through noise (map_fit noisy).")
    out["map_fit"] = check_choice(out["map_fit"], ("noisy",), name="map_fit", kind=str)
    if out["baselines"] is not None:
        out["baselines"] = check_flag(out["baselines"], name="baselines")
    if not isinstance(out["a_values"], (list, tuple)):
        raise TypeError(f"a_values must be a list of integers, got {type(out['a_values']).__name__}.")
    out["a_values"] = sorted(check_choice(a, _A_VALUES, name="a_values", kind=int) for a in out["a_values"])
    _sweep_settings(out)
    return out


# --- the page's steps -------------------------------------------------------------------------

def page_columns(dataset: Dataset, schema: PublicSchema | None, s: Mapping[str, Any]) -> tuple[list[str], list[str]]:
    """The published attributes (never the label or an identifier of the data or the schema;
    the first 10 by default) and the sensitive ones among them (the data's by default);
    ValueError in one sentence for fewer than two attributes or no sensitive one."""
    ids = set(dataset.identifiers) | (set(schema.identifiers) if schema is not None else set())
    features = [c for c in dataset.frame.columns if c != dataset.label and c not in ids]
    columns = s["columns"] if s["columns"] is not None else features[:10]
    bad = [c for c in columns if c not in features]
    if bad:
        raise ValueError(f"columns names {bad}, which SSKM_DP may not publish (the label, an identifier or no column).")
    if len(columns) < 2:
        raise ValueError("SSKM_DP needs at least two attributes to publish.")
    sensitive = s["sensitive"] if s["sensitive"] is not None else [c for c in dataset.sensitive if c in columns]
    if not sensitive or any(c not in columns for c in sensitive):
        raise ValueError("SSKM_DP needs at least one sensitive attribute among the published ones (set 'sensitive').")
    return list(columns), list(sensitive)


def page_frame(dataset: Dataset, columns: Sequence[str]) -> pd.DataFrame:
    """The published attributes, at most :data:`PAGE_MAX_ROWS` rows (sampled with seed 0)."""
    frame = dataset.frame[list(columns)]
    if len(frame) > PAGE_MAX_ROWS:
        frame = frame.sample(n=PAGE_MAX_ROWS, random_state=0)
    return frame.reset_index(drop=True)


def _map_params(s: Mapping[str, Any], n_rows: int) -> dict[str, Any]:
    iterations = s["iterations"] if s["iterations"] is not None else int(min(max(10_000, 2 * n_rows), 50_000))
    sigma = s["sigma"] if s["sigma"] is not None else float(max(s["rows"], s["cols"]) / 2)
    return dict(rows=int(s["rows"]), cols=int(s["cols"]), sigma=float(sigma), iterations=int(iterations),
                init=s["init"], topology=s["topology"])


def fit_publisher(frame: pd.DataFrame, sensitive: Sequence[str], s: Mapping[str, Any], *, schema: PublicSchema,
                  random_state: Any, progress: Progress | None = None, stop: Stop | None = None) -> SSKMPublisherBase:
    """The page's fitted publisher (its map and MIC, no release yet): the sound mode with the
    schema's bounds, the paper mode with MIC on at most ``mic_rows`` rows and the given bounds."""
    progress = watch(progress, stop)  # a set stop ends the work at its next report
    params = _map_params(s, len(frame))
    sensitive = tuple(sensitive)
    if s["mode"] == "paper":
        conn = mic_connections(frame, sensitive, threshold=0.0, max_rows=s["mic_rows"], random_state=random_state,
                               progress=stage(progress, 0.0, 0.2, "Measuring connections (MIC)"))
        bounds = {c: (lo, hi) for c, lo, hi in s["bounds"]} or None
        return PaperSSKMDP(epsilon=1.0, sensitive=sensitive, cs_threshold=0.0, mic_max_rows=s["mic_rows"],
                           bounds=bounds, schema=schema, random_state=random_state, **params).fit(
            frame, connections=conn, progress=stage(progress, 0.2, 1.0))
    pub = SSKMDP(epsilon=1.0, sensitive=sensitive, cs_threshold=0.0, mic_max_rows=s["mic_rows"], bounds=None,
                 schema=schema, random_state=random_state, map_fit="noisy", **params)
    return pub.fit(frame, connections=None, progress=progress)


def release_numbers(pub: SSKMPublisherBase, s: Mapping[str, Any], refs: pd.DataFrame, *,
                    seed: int) -> dict[str, Any]:
    """The page's release at the slider's epsilon (drawn with ``seed``): MSE and linkage
    beside the raw table's and a random release's, the reading against them, the clusters,
    the guarantee, and the rows and noise scale of each neuron."""
    mine = copy.copy(pub)
    mine.publish(epsilon=s["epsilon"], cs_threshold=s["cs_threshold"], random_state=int(seed))
    mse, rl = mine.release_metrics()
    per_neuron = [{"neuron": int(c), "rows released": int(n), "noise scale (scaled units)":
                   float(mine.noise_scale_[int(c)])} for c, n in zip(mine.clusters_, mine.row_counts_)]
    return {"epsilon": s["epsilon"], "MSE": float(mse), "record linkage": float(rl),
            "references (raw table, random release)": records(refs),
            "reading": reference_sentences(mse, rl, refs, what=f"At epsilon {s['epsilon']:g} this release"),
            "clusters (neurons that released rows)": int(np.count_nonzero(mine.row_counts_)),
            "protected attributes": [str(c) for c in mine.protected_], "guarantee": guarantee_numbers(mine.ledger_),
            "rows released": int(np.sum(mine.row_counts_)), "per neuron": per_neuron}


def _map_numbers(pub: SSKMPublisherBase, s: Mapping[str, Any]) -> dict[str, Any]:
    """The map's quantisation and topographic errors and clusters, and the MIC connections."""
    som, X = pub.som_, pub.table_.X[pub.som_index_]
    conn = pub.connections_.with_threshold(float(s["cs_threshold"]))
    strengths = {str(r): {str(c): float(v) for c, v in row.items()} for r, row in conn.strengths.iterrows()}
    return {"quantization error": float(som.quantization_error(X)),
            "topographic error": float(som.topographic_error(X)),
            "clusters (non-empty neurons)": int(np.count_nonzero(som.hit_map())), "neurons": s["rows"] * s["cols"],
            "MIC connections": {"strengths": strengths, "CS_Tsh": float(conn.threshold),
                                "protected": list(conn.protected), "rows used": int(conn.rows_used)}}


def _baselines(pub: SSKMPublisherBase, s: Mapping[str, Any], refs: pd.DataFrame, *, seed: int,
               progress: Progress | None) -> dict[str, Any]:
    """Fig. 7: MDAV, MDAV_DP and IDP-KMeans against a, SSKM_DP at its own a (3 draws), and the claim
    read against a random release's MSE."""
    table = sweeps.baselines_vs_clusters(pub, epsilon=s["epsilon"], a_values=tuple(s["a_values"]), repetitions=3,
                                         cs_threshold=s["cs_threshold"], random_state=int(seed), progress=progress)
    random_mse = float(refs.loc[refs["reference"] == RANDOM, "mse_mean"].iloc[0])
    claim = claims.fig7_claim(table, mode=s["mode"], epsilon=float(s["epsilon"]), random_mse=random_mse)
    return {"rows": records(table), "random release's MSE": random_mse, "claim": claim_numbers(claim)}


def _sweep_m(s: Mapping[str, Any], columns: Sequence[str], sensitive: Sequence[str]) -> list[int]:
    """The sweep's m: the settings', else the paper's 5 and 10 clipped to what the attributes allow."""
    if s["sweep_m"] is not None:
        return list(s["sweep_m"])
    options = list(range(max(2, len(sensitive)), len(columns) + 1))
    return sorted({min(max(m, options[0]), options[-1]) for m in PAPER_M_VALUES}) if options else []


def _fig56(frame: pd.DataFrame, columns: Sequence[str], sensitive: Sequence[str], s: Mapping[str, Any],
           schema: PublicSchema, *, seed: int, progress: Progress | None) -> dict[str, Any]:
    """Fig. 5 and 6: a map per m, grid and repetition released at the paper's epsilons, summarised."""
    runs = sweeps.clusters_sweep(frame, sensitive=tuple(sensitive), m_values=tuple(_sweep_m(s, columns, sensitive)),
                                 grids=tuple(s["sweep_grids"]), epsilons=tuple(float(e) for e in PAPER_EPSILONS),
                                 repetitions=s["sweep_repetitions"], mode=s["mode"], iterations=s["sweep_iterations"],
                                 random_state=int(seed), progress=progress, schema=schema)
    summary = sweeps.grid_summary(runs)
    return {"summary": records(summary), "claims": [claim_numbers(claims.fig5_claim(summary, mode=s["mode"])),
                                                     claim_numbers(claims.fig6_claim(summary, mode=s["mode"]))]}


def numbers(dataset: Dataset, schema: PublicSchema, *, seed: int, settings: Mapping[str, Any],
            progress: Progress | None = None, stop: Stop | None = None) -> dict[str, Any]:
    """The release at the slider's epsilon beside the raw table and a random release, the map
    and its connections, MSE and linkage against epsilon, and (as the page shows them) the
    baselines of Fig. 7 and the sweep of Fig. 5-6 with their claims."""
    progress = watch(progress, stop)  # a set stop ends the work at its next report
    s = check_settings(settings)
    columns, sensitive = page_columns(dataset, schema, s)
    frame = page_frame(dataset, columns)
    report(progress, 0.0, "Clustering and measuring connections")
    pub = fit_publisher(frame, sensitive, s, schema=schema, random_state=int(seed), progress=stage(progress, 0, 0.2))
    refs = sweeps.release_references(pub, repetitions=5, max_rows=1500, random_state=int(seed))
    report(progress, 0.2, "MSE and linkage over epsilon")
    curve = sweeps.epsilon_curve(pub, epsilons=EPSILONS, repetitions=5, cs_threshold=s["cs_threshold"],
                                 random_state=int(seed))
    out: dict[str, Any] = {
        "dataset": dataset.name, "rows used": int(len(frame)), "columns": columns, "sensitive": sensitive,
        "mode": s["mode"], "map": _map_numbers(pub, s),
        "release": release_numbers(pub, s, refs, seed=seed),
        "MSE and linkage vs epsilon (5 noise draws each)": records(curve)}
    shown = s["baselines"] if s["baselines"] is not None else len(pub.table_.X) <= 20_000  # the page's toggle
    if shown and s["a_values"]:
        report(progress, 0.4, "Clustering with the baselines")
        out["baselines (Fig. 7)"] = _baselines(pub, s, refs, seed=seed, progress=stage(progress, 0.4, 0.6))
    if s["sweep"]:
        report(progress, 0.6, "Fitting maps across a and m")
        out["across a and m (Fig. 5-6)"] = _fig56(frame, columns, sensitive, s, schema, seed=seed,
                                                  progress=stage(progress, 0.6, 1.0))
    report(progress, 1.0, "Done")
    return out


def releases(dataset: Dataset, schema: PublicSchema, *, noise: NoiseSource,
             settings: Mapping[str, Any]) -> list[BundleRelease]:
    """SSKM_DP's table at the page's epsilon, as the page's "Prepare a release" draws it, from a
    publisher fitted here with a seed drawn from ``noise`` (the sound mode's map is drawn again
    through noise for each release), its noise from ``noise``; with its ledger (DP in the sound
    mode with a reviewed schema; the paper mode's is not)."""
    s = check_settings(settings)
    columns, sensitive = page_columns(dataset, schema, s)
    rng = noise.generator()
    pub = fit_publisher(page_frame(dataset, columns), sensitive, s, schema=schema, random_state=draw_seed(rng))
    mine = copy.copy(pub)
    frame = mine.publish(epsilon=s["epsilon"], cs_threshold=s["cs_threshold"], random_state=rng)
    return [BundleRelease(name="sskm_dp_release", method=f"SSKM_DP ({s['mode']} mode, paper 003) at epsilon "
                          f"{s['epsilon']:g}", frame=frame, ledger=mine.ledger_,
                          rows_drawn=s["mode"] == "sound")]


def describe(settings: Mapping[str, Any]) -> str:
    """One sentence on the page's numbers."""
    s = check_settings(settings)
    extra = [w for w, on in (("the baselines of Fig. 7", s["baselines"] is not False and s["a_values"]),
                             ("the Fig. 5-6 sweep across a and m", s["sweep"])) if on]
    return (f"SSKM_DP ({s['mode']} mode, {s['rows']} x {s['cols']} {s['topology']} map, CS_Tsh = "
            f"{s['cs_threshold']:g}) at epsilon = {s['epsilon']:g}: the release's MSE and record linkage beside the "
            "raw table's and a random release's, its guarantee, the map's quality and MIC connections and MSE and "
            "linkage against epsilon" + (", with " + " and ".join(extra) if extra else "")
            + ": measured on the private rows, which the release does not publish.")
