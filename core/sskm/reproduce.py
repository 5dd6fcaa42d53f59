"""Reproductions of paper 003's Fig. 5, 6 and 7: ``pux reproduce sskm-fig5|sskm-fig6|sskm-fig7``.

Setting (section 6 of the paper): epsilon in {0.05, 0.1, 1, 5}, m in {5, 10} attributes,
20 repetitions, Adult and NLTCS. The paper does not list which m attributes it used, which
attribute of NLTCS is sensitive, its SOM size or its range of a; the choices here are in
:data:`ATTRIBUTES`, :data:`SENSITIVE`, :data:`GRIDS` and :data:`A_VALUES` and in the notes
of each result. MSE and RL are computed on the min-max scaled attributes (categoricals as
codes), on the clipped release before categories are decoded, the same way for every method.

SSKM_DP runs as both publishers (:data:`core.sskm.variants.SSKM_VARIANTS`, named "sound" and
"paper" in the runs' ``mode`` column): :class:`core.sskm.paper_publisher.PaperSSKMDP` (the
paper's algorithm, not DP; what its figures show) and :class:`core.sskm.sound.SSKMDP`
(epsilon-DP under the project's relation: a map fitted through noise, noisy counts and sums of
every neuron, rows emitted at the noisy centres: ``release="centres"``, :data:`core.sskm.sweeps.FIGURE_RELEASE`,
since the figures vary the map's size, which the default cell release sets itself). The sound MSE and RL are over every record,
to the released centre of its neuron (:meth:`core.sskm.sound.SSKMDP.release_metrics`). Fig. 7 compares
the methods at one total budget, epsilon = 1 for the whole release: SSKM_DP's ledger total,
IDP-KMeans's budget summed over its iterations, MDAV_DP's noise for the whole record (its
epsilon is nominal: MDAV's partition reads the raw data).

Each reproduction takes ``progress`` (a ``progress(message)`` callable, as ``pux reproduce``
passes) and ``stop`` (a ``threading.Event``: once set, the work ends at its next report with
:class:`core.runtime.progress.Stopped`, keeping nothing).
"""
from __future__ import annotations

import time
from collections.abc import Callable

import cachetools
import numpy as np
import pandas as pd

from core.data import load_adult, load_nltcs
from core.privacy.schema_builtin import BUILT_IN_SCHEMAS
from core.runtime.experiments import Reproduction, summarize
from core.runtime.progress import Stop, watch_lines
from core.runtime.randomness import check_random_state, draw_seed
from core.sskm.claims import fig5_claim, fig6_claim, fig7_claim
from core.sskm.connection import mic_connections
from core.sskm.dp_kmeans import idp_kmeans
from core.sskm.microaggregation import mdav, mdav_dp, mdav_release
from core.sskm.paper import EPSILONS, M_VALUES, PAPER, REPETITIONS
from core.sskm.scaled_table import ScaledTable
from core.sskm.sweeps import FIGURE_RELEASE, grid_runs
from core.sskm.variants import SSKM_VARIANTS

__all__ = ["ATTRIBUTES", "A_VALUES", "GRIDS", "MODES", "REPRODUCTIONS", "SENSITIVE", "load_table"]
#: SOM grids for Fig. 5-6 (the number of clusters a of SSKM_DP is the non-empty neurons)
GRIDS = ((4, 4), (6, 6), (8, 8), (10, 10), (14, 14))
#: numbers of clusters a for the baselines of Fig. 7 (k = n // a)
A_VALUES = (10, 25, 50, 100, 250, 500)
ATTRIBUTES = {
    "adult": {
        5: ["age", "education_num", "relationship", "hours_per_week", "sex"],
        10: ["age", "workclass", "education_num", "marital_status", "occupation", "relationship",
             "race", "sex", "capital_gain", "hours_per_week"],
    },
    "nltcs": {5: [f"x{i}" for i in range(1, 6)], 10: [f"x{i}" for i in range(1, 11)]},
}
SENSITIVE = {"adult": "sex", "nltcs": "x1"}
SOM_ITERATIONS = 50_000
#: SSKM_DP publishers run by the reproductions, by name: the sound mechanism and the paper's (not DP)
MODES = tuple(SSKM_VARIANTS)

_NOTES = [
    "The paper gives its results only as plots: its claims are quoted in 'paper', ours are in 'summary'.",
    "Attributes used: " + "; ".join(f"{d} m={m}: {', '.join(c)}" for d, v in ATTRIBUTES.items() for m, c in v.items()),
    "Sensitive attribute: sex on Adult; x1 on NLTCS (the paper names none for NLTCS).",
    (f"SSKM_DP: SFLA-initialised SOM, batch training with {SOM_ITERATIONS:,} row draws, CS_Tsh = 0.3, "
    "MIC on a 4,000-row sample computed once per dataset and m."),
    "MSE and RL are on min-max scaled attributes (categoricals as codes), releases clipped to [0, 1].",
    ("SSKM_DP mode 'paper' is the paper's algorithm and is not differentially private (map fitted on raw "
    "records, row order, cluster sizes and unprotected attributes published exactly); mode 'sound' is "
    "epsilon-DP: map and MIC on a random held-out 20 % that is never published, noisy counts and sums of "
    "every attribute for every neuron (Laplace scale 2(m + 1) / epsilon), shuffled rows from the noisy "
    "counts. Its MSE and RL are over the published 80 %, scaled by the held-out part's bounds."),
]


def load_table(name: str, m: int, data_dir=None) -> tuple[pd.DataFrame, str]:
    """The first-m-attribute table of Adult or NLTCS used here, and its sensitive column."""
    ds = load_adult(data_dir) if name == "adult" else load_nltcs(data_dir)
    frame = ds.frame[ATTRIBUTES[name][m]].dropna().reset_index(drop=True)
    return frame, SENSITIVE[name]


def _summary(rows: list[dict], by: list[str], values: list[str]) -> list[dict]:
    """Mean and std of ``values`` per group of ``by`` (:func:`core.runtime.experiments.summarize`
    without the counts), as JSON records."""
    out = summarize(pd.DataFrame(rows), by, values)
    return out.drop(columns=[f"{v}_n" for v in values]).to_dict(orient="records")


#: the runs behind Fig. 5 and 6, kept for the few latest argument sets (bounded)
_SWEEPS: cachetools.LRUCache = cachetools.LRUCache(maxsize=4)


def _sskm_sweep(*, data_dir, quick, random_state, progress, datasets=("adult",)) -> dict:
    # Fig. 5 and Fig. 6 read the same runs (MSE and RL of each release): when both are
    # made in one process with the same arguments, the runs are made once.
    key = (str(data_dir), bool(quick), random_state if isinstance(random_state, int) else None, datasets)
    if key[2] is not None and key in _SWEEPS:
        return _SWEEPS[key]
    out = _run_sskm_sweep(data_dir=data_dir, quick=quick, random_state=random_state,
                          progress=progress, datasets=datasets)
    if key[2] is not None:
        _SWEEPS[key] = out
    return out


def _shipped_schema(name: str, frame: pd.DataFrame):
    """The public schema shipped with ``name`` (bounds and categories from its codebook): the
    sound mode's scaling. None when ``frame`` has columns it does not list (another table
    put in its place): the sound releases then say they are not DP."""
    make = BUILT_IN_SCHEMAS.get(name)
    schema = None if make is None else make()
    if schema is None or not set(frame.columns) <= set(schema.names):
        return None
    return schema


def _run_sskm_sweep(*, data_dir, quick, random_state, progress, datasets) -> dict:
    rng = check_random_state(random_state)
    reps = 2 if quick else REPETITIONS
    grids = GRIDS[1:4:2] if quick else GRIDS
    rows, seeds = [], []
    for name in datasets:
        for m in M_VALUES:
            frame, sens = load_table(name, m, data_dir)
            if quick:
                frame = frame.sample(n=min(len(frame), 8000), random_state=0).reset_index(drop=True)
            conn = mic_connections(frame, sens, threshold=0.3, max_rows=4000, random_state=rng)
            runs = grid_runs(frame, sensitive=sens, grids=grids, epsilons=EPSILONS, repetitions=reps, modes=MODES,
                             iterations=SOM_ITERATIONS, cs_threshold=0.3, connections=conn, random_state=rng,
                             progress=lambda _, msg, name=name, m=m: progress(f"{name} m={m} {msg}"),
                             schema=_shipped_schema(name, frame))
            rows.extend({"dataset": name, "mode": r["mode"], "m": m, **r} for r in runs)
            seeds.extend(r["seed"] for r in runs if r["mode"] == MODES[0] and r["epsilon"] == EPSILONS[0])
    return {"rows": rows, "seeds": seeds, "reps": reps, "grids": grids}


def _fig56(metric: str, key: str, **kw) -> Reproduction:
    claim = fig5_claim if metric == "mse" else fig6_claim
    out = _sskm_sweep(**kw)
    summary = _summary(out["rows"], ["dataset", "mode", "m", "grid", "epsilon"], ["a", metric])
    by_eps = _summary(out["rows"], ["dataset", "mode", "m", "epsilon"], [metric])
    checks = {}
    for mode in MODES:
        for m in M_VALUES:
            vals = [r[f"{metric}_mean"] for r in by_eps if r["m"] == m and r["mode"] == mode]
            checks[f"{mode} m={m}"] = {
                f"{metric}_by_epsilon": dict(zip(map(str, EPSILONS), vals)),
                ("decreasing_as_epsilon_grows" if metric == "mse" else "increasing_as_epsilon_grows"):
                    bool(all(np.diff(vals) < 0) if metric == "mse" else all(np.diff(vals) >= 0)),
            }
    return Reproduction(
        name=key,
        parameters={"epsilons": EPSILONS, "m": M_VALUES, "grids": out["grids"], "dataset": "adult",
                    "som_iterations": SOM_ITERATIONS, "cs_threshold": 0.3, "modes": MODES},
        seeds=out["seeds"],
        runs=out["rows"],
        summary={"by_grid": summary, "by_epsilon": by_eps, "checks": checks,
                 "claim": {mode: claim(pd.DataFrame(summary).query("mode == @mode"), mode=mode).to_dict()
                           for mode in MODES}},
        paper=PAPER[key],
        notes=_NOTES,
    )


def fig5(*, data_dir=None, quick=False, random_state=0,
         progress: Callable[[str], None] = print, stop: Stop | None = None) -> Reproduction:
    """Fig. 5: information loss (MSE) of SSKM_DP on Adult vs epsilon, m and a."""
    progress = watch_lines(progress, stop)
    return _fig56("mse", "sskm-fig5", data_dir=data_dir, quick=quick, random_state=random_state, progress=progress)


def fig6(*, data_dir=None, quick=False, random_state=0,
         progress: Callable[[str], None] = print, stop: Stop | None = None) -> Reproduction:
    """Fig. 6: record linkage (RL) of SSKM_DP on Adult vs epsilon, m and a."""
    progress = watch_lines(progress, stop)
    return _fig56("rl", "sskm-fig6", data_dir=data_dir, quick=quick, random_state=random_state, progress=progress)


def _fig7_sskm(frame, sens, conn, *, name: str, epsilon: float, seed: int) -> dict:
    """Both SSKM_DP publishers fitted and released once with ``seed``: per variant name,
    (MSE, number of neurons that released rows)."""
    out = {}
    for mode in MODES:
        schema = _shipped_schema(name, frame) if mode == "sound" else None
        pub = SSKM_VARIANTS[mode](epsilon=epsilon, sensitive=sens, cs_threshold=0.3, iterations=SOM_ITERATIONS,
                                  random_state=seed, schema=schema,
                                  **FIGURE_RELEASE.get(mode, {})).fit(frame, connections=conn)
        pub.publish()
        out[mode] = (pub.release_metrics()[0], int(np.count_nonzero(pub.row_counts_)))
    return out


def _fig7_table(name: str, m: int, *, data_dir, quick, reps, a_values, eps, rng, progress,
                seeds: list) -> list[dict]:
    """Fig. 7's runs on one dataset and m: MDAV's groups once per a, then per repetition both
    SSKM_DP publishers and the baselines' noise (the drawn seeds are appended to ``seeds``)."""
    frame, sens = load_table(name, m, data_dir)
    if quick:
        frame = frame.sample(n=min(len(frame), 8000), random_state=0).reset_index(drop=True)
    X = ScaledTable(frame).X
    conn = mic_connections(frame, sens, threshold=0.3, max_rows=4000, random_state=rng)
    groups = {}
    for a in a_values:
        t0 = time.perf_counter()
        groups[a] = mdav(X, n_clusters=a)
        progress(f"{name} m={m}: MDAV a={a} ({time.perf_counter() - t0:.1f}s)")
    rows = []
    for rep in range(reps):
        seed = draw_seed(rng)
        seeds.append(seed)
        t0 = time.perf_counter()
        sskm = _fig7_sskm(frame, sens, conn, name=name, epsilon=eps, seed=seed)
        for a in a_values:
            k = len(X) // a
            plain = mdav_release(X, k, labels=groups[a])
            dp = mdav_dp(X, k, eps, labels=groups[a], random_state=seed + a)
            km = idp_kmeans(X, a, eps, random_state=seed + 7 * a)
            rows.append({
                "dataset": name, "m": m, "a": a, "k": k, "repetition": rep, "seed": seed,
                "mse_mdav": plain.metrics(X)[0], "mse_mdav_dp": dp.metrics(X)[0],
                "mse_idp_kmeans": km.metrics(X)[0], "mse_sskm_dp": sskm["sound"][0],
                "mse_sskm_dp_paper": sskm["paper"][0],
                "sskm_clusters": sskm["sound"][1], "sskm_paper_clusters": sskm["paper"][1],
            })
        progress(f"{name} m={m} rep {rep + 1}/{reps} ({time.perf_counter() - t0:.1f}s)")
    return rows


def _fig7_checks(summary: list[dict]) -> dict:
    """Per dataset, m and a: is each SSKM_DP publisher's mean MSE below each baseline's."""
    checks = {}
    for r in summary:
        key = f"{r['dataset']} m={r['m']} a={r['a']}"
        checks[key] = {
            "sskm_below_mdav_dp": bool(r["mse_sskm_dp_mean"] < r["mse_mdav_dp_mean"]),
            "sskm_below_idp_kmeans": bool(r["mse_sskm_dp_mean"] < r["mse_idp_kmeans_mean"]),
            "sskm_below_mdav": bool(r["mse_sskm_dp_mean"] < r["mse_mdav_mean"]),
            "sskm_paper_below_mdav_dp": bool(r["mse_sskm_dp_paper_mean"] < r["mse_mdav_dp_mean"]),
            "sskm_paper_below_idp_kmeans": bool(r["mse_sskm_dp_paper_mean"] < r["mse_idp_kmeans_mean"]),
            "sskm_paper_below_mdav": bool(r["mse_sskm_dp_paper_mean"] < r["mse_mdav_mean"]),
        }
    return checks


_FIG7_NOTES = [
    ("MDAV groups are deterministic and computed once per (dataset, m, a); only the noise "
    "of MDAV_DP and IDP-KMeans (5 iterations, uniform data-independent start) changes between "
    "repetitions."),
    ("Equal total budget: epsilon = 1 for each whole release. SSKM_DP sound: one vector release "
    "(counts eps/(m+1), sums eps m/(m+1)). IDP-KMeans: 1/5 per iteration, noise calibrated to "
    "replacement (scale 2(m+1)/eps_t). MDAV_DP: scale range x m / (k eps) per attribute (the whole "
    "record costs eps), nominal only (MDAV's partition reads the raw data). 'mse_sskm_dp' is the "
    "sound mode, 'mse_sskm_dp_paper' the paper's (not DP)."),
    ("SSKM_DP does not take a: its clusters are the SOM's neurons that released rows (10x10 grid); the "
    "sound mode's MSE is over its published 80 %, scaled by the held-out part's bounds, the baselines' "
    "over every record scaled by the data's min and max."),
]


def fig7(*, data_dir=None, quick=False, random_state=0,
         progress: Callable[[str], None] = print, stop: Stop | None = None) -> Reproduction:
    """Fig. 7: MSE vs a at epsilon = 1 for MDAV, IDP-KMeans, MDAV_DP and SSKM_DP."""
    progress = watch_lines(progress, stop)
    rng = check_random_state(random_state)
    reps = 2 if quick else REPETITIONS
    a_values = A_VALUES[::2] if quick else A_VALUES
    eps = 1.0
    rows, seeds = [], []
    for name in ("adult", "nltcs"):
        for m in M_VALUES:
            rows.extend(_fig7_table(name, m, data_dir=data_dir, quick=quick, reps=reps, a_values=a_values, eps=eps,
                                    rng=rng, progress=progress, seeds=seeds))
    values = ["mse_mdav", "mse_mdav_dp", "mse_idp_kmeans", "mse_sskm_dp", "mse_sskm_dp_paper", "sskm_clusters",
              "sskm_paper_clusters"]
    summary = _summary(rows, ["dataset", "m", "a"], values)
    return Reproduction(
        name="sskm-fig7",
        parameters={"epsilon": eps, "m": M_VALUES, "a": a_values, "datasets": ["adult", "nltcs"],
                    "som_grid": "10x10", "som_iterations": SOM_ITERATIONS, "cs_threshold": 0.3},
        seeds=seeds,
        runs=rows,
        summary={"by_a": summary, "checks": _fig7_checks(summary), "claim": _fig7_claims(summary, eps)},
        paper=PAPER["sskm-fig7"],
        notes=_NOTES + _FIG7_NOTES,
    )


def _fig7_claims(summary: list[dict], epsilon: float) -> dict:
    """The Fig. 7 claim per mode, dataset and m, on the summary's means (SSKM_DP at its mean
    cluster count)."""
    methods = {"MDAV": "mse_mdav_mean", "MDAV_DP": "mse_mdav_dp_mean", "IDP-KMeans": "mse_idp_kmeans_mean"}
    out = {}
    for mode, (sskm, clusters) in {"sound": ("mse_sskm_dp_mean", "sskm_clusters_mean"),
                                   "paper": ("mse_sskm_dp_paper_mean", "sskm_paper_clusters_mean")}.items():
        for (name, m), part in pd.DataFrame(summary).groupby(["dataset", "m"], sort=False):
            long = [{"method": meth, "a": int(r["a"]), "mse_mean": float(r[col])}
                    for _, r in part.iterrows() for meth, col in methods.items()]
            long.append({"method": "SSKM_DP", "a": round(float(part[clusters].mean())),
                         "mse_mean": float(part[sskm].mean())})
            out[f"{mode} {name} m={m}"] = fig7_claim(pd.DataFrame(long), mode=mode, epsilon=epsilon).to_dict()
    return out


REPRODUCTIONS = {"sskm-fig5": fig5, "sskm-fig6": fig6, "sskm-fig7": fig7}
