"""Cached calls into core.sskm for the SSKM_DP page.

Every wrapper is keyed on the dataset's fingerprint (the dataset itself is passed with a
leading underscore so Streamlit does not hash the frame again) and on the parameters and
seed. The fitted publisher is a setup job's result, shared read-only; wrappers that
publish work on a shallow copy, so one session's release never changes another's.
"""
from __future__ import annotations

import copy

import numpy as np
import pandas as pd
import streamlit as st

from core.audit_cases import AuditCase, sskm_paper_case, sskm_sound_case, sskm_sound_pipeline_cases
from core.claims.claim import Claim
from core.data import Dataset
from core.privacy.schema import PublicSchema
from core.privacy.ledger import PrivacyLedger
from core.runtime.progress import Progress, stage
from core.privacy.noise_source import NoiseSource
from core.sskm import claims, sweeps
from core.sskm.connection import mic_connections
from core.sskm.dp_kmeans import idp_kmeans
from core.sskm.microaggregation import mdav_dp, mdav_release
from core.sskm.paper_publisher import PaperSSKMDP
from core.sskm.publisher_base import SSKMPublisherBase
from core.sskm.sound import SSKMDP
from core.sskm.variants import sskm_variant
from core.sskm.references import RANDOM, RANDOM_WORDS, RAW, reference_scope, reference_sentences  # noqa: F401 - for the page
from core.sskm.paper import EPSILONS as PAPER_EPSILONS, M_VALUES as PAPER_M_VALUES
from dashboard.shared.serving.cache import TTL
from dashboard.shared.serving.sweeps import Sweep, warmed

#: rows above which the page works on a sample (the SOM and MIC stay interactive)
PAGE_MAX_ROWS = 50_000


def table(dataset: Dataset, columns: tuple[str, ...]) -> pd.DataFrame:
    """The attributes the page publishes (at most PAGE_MAX_ROWS rows)."""
    frame = dataset.frame[list(columns)]
    if len(frame) > PAGE_MAX_ROWS:
        frame = frame.sample(n=PAGE_MAX_ROWS, random_state=0)
    return frame.reset_index(drop=True)


def _fitted(progress: Progress, *, dataset: Dataset, columns: tuple[str, ...], sensitive: tuple[str, ...],
            params: dict, max_rows: int, seed: int, mode: str,
            bounds: tuple[tuple[str, float, float], ...], schema: PublicSchema | None = None,
            map_fit: str = "noisy", reference: pd.DataFrame | None = None) -> SSKMPublisherBase:
    publisher = sskm_variant(mode)
    frame = table(dataset, columns)
    # the sound publisher computes MIC itself (for information only); the paper's reads every row
    conn = None
    if publisher is PaperSSKMDP:
        conn = mic_connections(frame, sensitive, threshold=0.0, max_rows=max_rows, random_state=seed,
                               progress=stage(progress, 0.0, 0.2, "Measuring connections (MIC)"))
    sound_schema = schema if publisher is SSKMDP else None
    user_bounds = None if sound_schema is not None else ({c: (lo, hi) for c, lo, hi in bounds} or None)
    # the paper's publisher scales on the data (or the user's bounds) and reads the schema only to
    # leave its identifiers out
    common = dict(epsilon=1.0, sensitive=sensitive, cs_threshold=0.0, mic_max_rows=max_rows, bounds=user_bounds,
                  schema=schema, random_state=seed, **params)
    if publisher is PaperSSKMDP:
        return PaperSSKMDP(**common).fit(frame, connections=conn, progress=stage(progress, 0.2, 1.0))
    reference_map = map_fit == "reference" and reference is not None
    pub = SSKMDP(**common, map_fit="reference" if reference_map else "noisy")
    return pub.fit(frame, connections=conn, reference=reference if reference_map else None,
                   progress=stage(progress, 0.0, 1.0))


def fitted(key: tuple, dataset: Dataset, columns: tuple[str, ...], sensitive: tuple[str, ...],
           rows: int, cols: int, topology: str, init: str, iterations: int, sigma: float,
           max_rows: int, seed: int, mode: str = "sound",
           bounds: tuple[tuple[str, float, float], ...] = (), schema: PublicSchema | None = None,
           map_fit: str = "noisy", reference: pd.DataFrame | None = None) -> Sweep:
    """An SSKM_DP publisher with its map and MIC ready (no release noise drawn yet), as a
    setup job (``key`` names every input: the page's fit key; put the schema's JSON in it).

    ``schema`` (the session's public schema, :func:`dashboard.shared.serving.schemas.current_schema`) gives the
    sound mode its bounds and category lists; entries read from the data make the release
    say it is not differentially private. ``bounds`` holds (column, lo, hi) bounds the user
    gave for the paper mode (which otherwise scales on the data). ``map_fit="reference"``
    with a ``reference`` frame (a public table the user uploaded; name its digest in ``key``)
    fits the sound mode's map on it instead of through noise.
    """
    params = dict(rows=int(rows), cols=int(cols), sigma=float(sigma), iterations=int(iterations), init=init,
                  topology=topology)
    return Sweep(("sskm-fit",) + tuple(key), _fitted,
                 dict(dataset=dataset, columns=tuple(columns), sensitive=tuple(sensitive), params=params, max_rows=int(max_rows),
                      seed=int(seed), mode=mode, bounds=tuple(bounds), schema=schema, map_fit=map_fit,
                      reference=reference),
                 "Clustering and measuring connections", in_process=True)


def read_reference(data: bytes) -> pd.DataFrame:
    """A public reference table from an uploaded CSV (its values are never rendered as text)."""
    import io

    try:
        frame = pd.read_csv(io.BytesIO(data))
    except (ValueError, UnicodeDecodeError, pd.errors.ParserError) as exc:
        raise ValueError(f"The reference table is not a readable CSV ({type(exc).__name__}).") from None
    if len(frame) < 2:
        raise ValueError("The reference table needs at least 2 rows.")
    return frame


def bound_rows(dataset: Dataset, columns: tuple[str, ...]) -> pd.DataFrame:
    """The numeric published columns with empty lo / hi cells, for the bounds editor."""
    numeric = [c for c in columns if c in dataset.numeric]
    return pd.DataFrame({"column": numeric, "lo": [None] * len(numeric), "hi": [None] * len(numeric)},
                        dtype=object)


def parse_bounds(edited: pd.DataFrame) -> tuple[tuple[str, float, float], ...]:
    """(column, lo, hi) for every row of the editor with both bounds filled in."""
    out = []
    for row in edited.itertuples(index=False):
        lo, hi = row.lo, row.hi
        if lo is None or hi is None or pd.isna(lo) or pd.isna(hi):
            continue
        try:
            lo, hi = float(lo), float(hi)
        except (TypeError, ValueError):
            raise ValueError(f"The bounds of '{row.column}' must be numbers.") from None
        if not (np.isfinite(lo) and np.isfinite(hi) and lo < hi):
            raise ValueError(f"The bounds of '{row.column}' must be finite with lo < hi.")
        out.append((str(row.column), lo, hi))
    return tuple(out)


def protected_key(pub: SSKMPublisherBase, cs_threshold: float) -> tuple[str, ...]:
    """What a release at ``cs_threshold`` depends on: the protected attributes.

    The paper mode noises the attributes protected at CS_Tsh; two thresholds that protect
    the same set give the same release (same noise, same rows). The sound mode noises every
    attribute whatever the threshold. The release caches are keyed on this, not on the
    threshold, so a CS_Tsh step that changes no protected attribute recomputes nothing.
    """
    if not isinstance(pub, PaperSSKMDP):
        return ("<all attributes>",) + tuple(pub.table_.columns)
    return tuple(pub.connections_.with_threshold(float(cs_threshold)).protected)


def release(fingerprint: str, pub: SSKMPublisherBase, key: tuple, epsilon: float, cs_threshold: float,
            seed: int) -> dict:
    """One release: the published frame, its CSV, MSE, RL, ledger and noise scales.

    ``key`` names the fitted publisher (its fit parameters), so the cache tells fits apart;
    the cache is keyed on the protected set (:func:`protected_key`), not on CS_Tsh.
    """
    return _release_cached(fingerprint, pub, key, float(epsilon), protected_key(pub, cs_threshold),
                           seed, float(cs_threshold))


@st.cache_data(max_entries=16, ttl=TTL, show_spinner=False)
def _release_cached(fingerprint: str, _pub: SSKMPublisherBase, key: tuple, epsilon: float,
                    protected: tuple[str, ...], seed: int, _cs_threshold: float) -> dict:
    mine = copy.copy(_pub)
    frame = mine.publish(epsilon=epsilon, cs_threshold=_cs_threshold, random_state=seed)
    mse_, rl_ = mine.release_metrics()
    return {
        "frame": frame,
        "mse": mse_,
        "rl": rl_,
        "protected": mine.protected_,
        "ledger": mine.ledger_.to_frame(),
        "ledger_obj": mine.ledger_,
        "total_epsilon": mine.ledger_.total()[0],
        "nominal_epsilon": mine.ledger_.nominal()[0],
        "is_dp": mine.ledger_.is_dp,
        "guarantee": mine.ledger_.describe(),
        "assumptions": list(mine.ledger_.assumptions),
        "clusters": int(np.count_nonzero(mine.row_counts_)),
        # the release's map (sound mode, noisy map: drawn for this release; else the fitted one)
        "som": getattr(mine, "release_som_", None) if isinstance(mine, SSKMDP) else None,
        "row_counts": np.asarray(mine.row_counts_).copy(),
        "neurons": np.asarray(mine.clusters_).copy(),
        "noise": pd.DataFrame({"neuron": mine.clusters_, "rows released": mine.row_counts_,
                               "noise scale (scaled units)": [mine.noise_scale_[int(c)] for c in mine.clusters_]}),
    }


def _epsilon_curve(progress, *, pub: SSKMPublisherBase, epsilons: tuple[float, ...], repetitions: int,
                   cs_threshold: float, seed: int) -> pd.DataFrame:
    """The epsilon curve's releases (in a worker process)."""
    return sweeps.epsilon_curve(pub, epsilons=epsilons, repetitions=repetitions, cs_threshold=cs_threshold,
                                random_state=seed, progress=progress)


@warmed  # the warm start's result on a built-in sample
def epsilon_curve(fingerprint: str, pub: SSKMPublisherBase, key: tuple, cs_threshold: float, epsilons: tuple[float, ...],
                  repetitions: int, seed: int) -> Sweep:
    """MSE and RL vs epsilon for the fitted clustering (repetitions = fresh noise draws), as
    a sweep job. Keyed on the protected set (:func:`protected_key`), not on CS_Tsh."""
    epsilons, repetitions, cs_threshold = tuple(epsilons), int(repetitions), float(cs_threshold)
    sweep_key = ("sskm-epsilon", fingerprint, key, protected_key(pub, cs_threshold), epsilons, repetitions, seed)
    return Sweep(sweep_key, _epsilon_curve, dict(pub=pub, epsilons=epsilons, repetitions=repetitions,
                                                 cs_threshold=cs_threshold, seed=int(seed)),
                 "Measuring MSE and linkage over epsilon")


def _baselines(progress, *, pub: SSKMPublisherBase, epsilon: float, a_values: tuple[int, ...], repetitions: int,
               cs_threshold: float, seed: int) -> pd.DataFrame:
    """MDAV, MDAV_DP, IDP-KMeans and SSKM_DP's MSE (in a worker process)."""
    return sweeps.baselines_vs_clusters(pub, epsilon=epsilon, a_values=a_values, repetitions=repetitions,
                                        cs_threshold=cs_threshold, random_state=seed, progress=progress)


@warmed  # the warm start's result on a built-in sample
def baselines(fingerprint: str, pub: SSKMPublisherBase, key: tuple, cs_threshold: float, epsilon: float,
              a_values: tuple[int, ...], repetitions: int, seed: int) -> Sweep:
    """MSE vs a for MDAV, MDAV_DP, IDP-KMeans, with SSKM_DP at its own cluster count, as a
    sweep job. Keyed on the protected set (:func:`protected_key`), not on CS_Tsh."""
    epsilon, a_values, repetitions, cs_threshold = float(epsilon), tuple(a_values), int(repetitions), float(cs_threshold)
    sweep_key = ("sskm-baselines", fingerprint, key, protected_key(pub, cs_threshold), epsilon, a_values,
                 repetitions, seed)
    return Sweep(sweep_key, _baselines, dict(pub=pub, epsilon=epsilon, a_values=a_values, repetitions=repetitions,
                                             cs_threshold=cs_threshold, seed=int(seed)),
                 "Clustering with the baselines")


# ------------------------------------------------------------------ real against release
#: the baselines of Fig. 7 whose released table the real-against-release section offers
BASELINE_TABLES = ("MDAV", "MDAV_DP", "IDP-KMeans")


def baseline_table(fingerprint: str, pub: SSKMPublisherBase, key: tuple, method: str, clusters: int,
                   epsilon: float, seed: int) -> pd.DataFrame:
    """The table a baseline of Fig. 7 releases from the records behind SSKM_DP's release, with
    ``clusters`` clusters (a; k = n // a for MDAV) and budget ``epsilon``, decoded to the
    attributes' units (drawn with the page's seed for display)."""
    return _baseline_table(fingerprint, pub, key, method, int(clusters), float(epsilon), int(seed))


@st.cache_data(max_entries=6, ttl=TTL, show_spinner="Releasing the baseline...")
def _baseline_table(fingerprint: str, _pub: SSKMPublisherBase, key: tuple, method: str, clusters: int,
                    epsilon: float, seed: int) -> pd.DataFrame:
    X = _pub.table_.X[_pub.published_index_]
    a = min(max(clusters, 1), len(X))
    if method == "MDAV":
        res = mdav_release(X, n_clusters=a)
    elif method == "MDAV_DP":
        res = mdav_dp(X, epsilon=epsilon, n_clusters=a, random_state=seed)
    else:
        res = idp_kmeans(X, a, epsilon, random_state=seed)
    return _pub.table_.decode(res.published)


# ------------------------------------------------------------------ Fig. 5-6: across a and m
#: the SOM grids the sweep offers; a (the number of clusters) is each map's non-empty neurons
SWEEP_GRIDS = ("3x3", "4x4", "6x6", "8x8", "10x10", "12x12", "14x14")
#: the grids the sweep starts with
SWEEP_DEFAULT_GRIDS = ("4x4", "6x6", "8x8", "10x10")
#: repetitions and SOM training draws per map the sweep starts with: about 20 s in the sound
#: mode and 35 s in the paper mode on the census sample (3,000 rows, m = 5 and 9, 4 grids), measured
#: on the shared 2-core machine under load
SWEEP_REPETITIONS = 5
SWEEP_ITERATIONS = 10_000
#: the paper's epsilons (section 6), which the sweep runs
SWEEP_EPSILONS = tuple(float(e) for e in PAPER_EPSILONS)


def sweep_m_options(n_columns: int, n_sensitive: int) -> list[int]:
    """The m a user can choose: from max(2, number of sensitive attributes) to the number of
    chosen attributes."""
    return list(range(max(2, int(n_sensitive)), int(n_columns) + 1))


def sweep_default_m(n_columns: int, n_sensitive: int) -> list[int]:
    """The paper's m (5 and 10), each clipped to :func:`sweep_m_options` (all chosen if fewer)."""
    options = sweep_m_options(n_columns, n_sensitive)
    if not options:
        return []
    return sorted({min(max(m, options[0]), options[-1]) for m in PAPER_M_VALUES})


def _clusters_sweep(progress, *, frame: pd.DataFrame, sensitive: tuple[str, ...], m_values: tuple[int, ...],
                    grids: tuple[str, ...], epsilons: tuple[float, ...], repetitions: int, iterations: int,
                    mode: str, seed: int, schema: PublicSchema | None = None) -> pd.DataFrame:
    """Fig. 5-6's runs, summarised per m, grid and epsilon (in a worker process)."""
    runs = sweeps.clusters_sweep(frame, sensitive=sensitive, m_values=m_values, grids=grids, epsilons=epsilons,
                                 repetitions=repetitions, mode=mode, iterations=iterations, random_state=seed,
                                 progress=progress, schema=schema)
    return sweeps.grid_summary(runs)


@warmed  # the warm start's result on a built-in sample
def clusters_sweep(fingerprint: str, dataset: Dataset, columns: tuple[str, ...], sensitive: tuple[str, ...],
                   m_values: tuple[int, ...], grids: tuple[str, ...], repetitions: int, iterations: int,
                   mode: str, seed: int, schema: PublicSchema | None = None) -> Sweep:
    """Paper 003's Fig. 5 and 6 on the page's table: a new map per m, grid and repetition,
    released at the paper's epsilons in ``mode``, as a sweep job; its result is
    :func:`core.sskm.sweeps.grid_summary` (one row per m, grid and epsilon)."""
    columns, sensitive = tuple(columns), tuple(sensitive)
    m_values, grids = tuple(int(m) for m in m_values), tuple(str(g) for g in grids)
    for g in grids:
        sweeps.parse_grid(g)  # a wrong grid is said here, before a job starts
    for m in m_values:
        sweeps.attributes_for_m(columns, sensitive, m)
    key = ("sskm-clusters", fingerprint, columns, sensitive, m_values, grids, SWEEP_EPSILONS, int(repetitions),
           int(iterations), mode, int(seed), None if schema is None else schema.to_json())
    return Sweep(key, _clusters_sweep,
                 dict(frame=table(dataset, columns), sensitive=sensitive, m_values=m_values, grids=grids,
                      epsilons=SWEEP_EPSILONS, repetitions=int(repetitions), iterations=int(iterations), mode=mode,
                      seed=int(seed), schema=schema),
                 "Fitting maps across a and m")


def fig5_claim(summary: pd.DataFrame, mode: str) -> Claim:
    """Fig. 5's claim on a finished sweep (:func:`core.sskm.claims.fig5_claim`)."""
    return claims.fig5_claim(summary, mode=mode)


def fig6_claim(summary: pd.DataFrame, mode: str) -> Claim:
    """Fig. 6's claim on a finished sweep (:func:`core.sskm.claims.fig6_claim`)."""
    return claims.fig6_claim(summary, mode=mode)


def fig7_claim(table: pd.DataFrame, mode: str, epsilon: float, random_mse: float | None = None) -> Claim:
    """Fig. 7's claim on the baselines' table (:func:`core.sskm.claims.fig7_claim`), read
    against a random release's MSE when given."""
    return claims.fig7_claim(table, mode=mode, epsilon=float(epsilon),
                             random_mse=None if random_mse is None else float(random_mse))


def sensitive_indicator(frame: pd.DataFrame, column: str) -> tuple[np.ndarray, str]:
    """0/1 per row for the share map: the most common value of a categorical, or above the median."""
    s = frame[column]
    if pd.api.types.is_numeric_dtype(s) and s.nunique() > 2:
        med = float(s.median())
        return (s > med).to_numpy(dtype=float), f"{column} > {med:g}"
    top = s.value_counts().index[0]
    return (s == top).to_numpy(dtype=float), f"{column} = {top}"


def download_release(pub: SSKMPublisherBase, epsilon: float, cs_threshold: float,
                     noise: NoiseSource) -> tuple[pd.DataFrame, PrivacyLedger]:
    """A release for download: noise from ``noise`` (fresh entropy unless reproducible)."""
    mine = copy.copy(pub)
    frame = mine.publish(epsilon=epsilon, cs_threshold=cs_threshold, random_state=noise.generator())
    return frame, mine.ledger_


def audit_case(pub: SSKMPublisherBase, dataset: Dataset, columns: tuple[str, ...], sensitive: tuple[str, ...],
               epsilon: float, cs_threshold: float, seed: int) -> AuditCase | list[AuditCase]:
    """The page's audit. Sound mode: the noise step's pair and the pipeline pair that moves
    every step before the noise at once (one record far out of range on every numeric column
    and with a new category on every categorical one: what a release reading its bounds,
    categories, map or a held-out part from the rows would show); the panel shows the worst.
    Each sound case runs the whole release per run (noisy map included). Paper mode: the
    paper's mechanism run whole."""
    frame = table(dataset, columns)
    if isinstance(pub, SSKMDP):
        return [sskm_sound_case(pub, frame, epsilon=epsilon)] + sskm_sound_pipeline_cases(
            pub, frame, epsilon=epsilon, columns=())
    return sskm_paper_case(frame, sensitive=sensitive, epsilon=epsilon, cs_threshold=cs_threshold,
                           random_state=seed)


# ------------------------------------------------------------------ what the page shows of a fitted map
def feature_columns(dataset: Dataset, schema: PublicSchema | None = None) -> list[str]:
    """The attributes the page can publish: every column but the label and the identifiers
    (those the dataset marks and those the public schema marks: a row number, an ID or a
    key is never clustered nor published; the Data page changes a column's role)."""
    ids = set(getattr(dataset, "identifiers", ()) or ())
    if schema is not None:
        ids |= set(schema.identifiers)
    return [c for c in dataset.frame.columns if c != dataset.label and c not in ids]


def _som(pub: SSKMPublisherBase, som=None):
    return pub.som_ if som is None else som


def u_matrix(pub: SSKMPublisherBase, som=None) -> tuple[np.ndarray, str]:
    """The U-matrix (mean distance of each neuron to its neighbours) and its colour-bar title;
    ``som`` (a release's map) replaces the fitted one."""
    return _som(pub, som).u_matrix(), "mean distance"


def hit_map(pub: SSKMPublisherBase, som=None) -> tuple[np.ndarray, str]:
    """Rows won by each neuron (NaN for a neuron that won none, drawn grey) and the colour-bar title."""
    hits = _som(pub, som).hit_map().astype(float)
    return np.where(hits > 0, hits, np.nan), "rows"


def component_plane(pub: SSKMPublisherBase, columns: tuple[str, ...] | list[str], attribute: str,
                    som=None) -> tuple[np.ndarray, str]:
    """The (min-max scaled) weight of ``attribute`` at each neuron and the colour-bar title;
    ``columns`` are the published attributes in the order the map was fitted on."""
    return _som(pub, som).component_plane(list(columns).index(attribute)), f"{attribute} (scaled)"


def sensitive_share(pub: SSKMPublisherBase, column: str, som=None) -> tuple[np.ndarray, str, str]:
    """Per neuron, the share of the rows it wins that have the indicator of ``column``
    (:func:`sensitive_indicator`); with the colour-bar title and the indicator's text."""
    frame = pub.table_.decode(pub.table_.X)
    indicator, label = sensitive_indicator(frame, column)
    return _som(pub, som).share_per_neuron(indicator[pub.som_index_]), "share", label


def released_rows(result: dict, rows: int, cols: int) -> tuple[np.ndarray, str]:
    """Rows the release emits per neuron (what is published: noisy in the sound mode),
    NaN where none, and the colour-bar title."""
    grid = np.full(int(rows) * int(cols), np.nan)
    counts = np.asarray(result["row_counts"], dtype=float)
    neurons = np.asarray(result["neurons"], dtype=np.int64)
    grid[neurons] = np.where(counts > 0, counts, np.nan)
    return grid.reshape(int(rows), int(cols)), "rows released"


def references(fingerprint: str, pub: SSKMPublisherBase, key: tuple, seed: int, repetitions: int = 5) -> pd.DataFrame:
    """The raw table's and a random release's MSE and RL on the fitted records
    (:func:`core.sskm.sweeps.release_references`), cached per fit."""
    return _references_cached(fingerprint, pub, key, int(seed), int(repetitions))


@st.cache_data(max_entries=16, ttl=TTL, show_spinner=False)
def _references_cached(fingerprint: str, _pub: SSKMPublisherBase, key: tuple, seed: int, repetitions: int) -> pd.DataFrame:
    return sweeps.release_references(_pub, repetitions=repetitions, max_rows=1500, random_state=seed)


def map_quality(pub: SSKMPublisherBase) -> dict[str, float | int]:
    """Quantisation and topographic error on the rows the map was fitted on, and the
    number of clusters (non-empty neurons)."""
    som = pub.som_
    X = pub.table_.X[pub.som_index_]
    return {"quantization_error": float(som.quantization_error(X)),
            "topographic_error": float(som.topographic_error(X)),
            "clusters": int(np.count_nonzero(som.hit_map()))}
