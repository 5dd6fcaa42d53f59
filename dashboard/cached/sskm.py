"""Cached calls into core.sskm for the SSKM_DP page.

Every wrapper is keyed on the dataset's fingerprint (the dataset itself is passed with a
leading underscore so Streamlit does not hash the frame again) and on the parameters and
seed. The fitted publisher is a shared resource; wrappers that publish work on a shallow
copy, so one session's release never changes another's.
"""
from __future__ import annotations

import copy

import numpy as np
import pandas as pd
import streamlit as st

from core.data import Dataset
from core.metrics import mse, record_linkage
from core.sskm.baselines import idp_kmeans, mdav, mdav_dp, microaggregate
from core.sskm.connection import ConnectionResult, mic_connections
from core.export import to_csv_bytes
from core.sskm.publisher import SSKMDP
from core.validation import check_random_state

_TTL = 3600
#: rows above which the page works on a sample (the SOM and MIC stay interactive)
PAGE_MAX_ROWS = 50_000


def census() -> Dataset:
    """The census sample (sex sensitive), the page's default table."""
    from dashboard.cached.data import sample_dataset

    return sample_dataset("census")


def table(dataset: Dataset, columns: tuple[str, ...]) -> pd.DataFrame:
    """The attributes the page publishes (at most PAGE_MAX_ROWS rows)."""
    frame = dataset.frame[list(columns)]
    if len(frame) > PAGE_MAX_ROWS:
        frame = frame.sample(n=PAGE_MAX_ROWS, random_state=0)
    return frame.reset_index(drop=True)


@st.cache_data(max_entries=8, ttl=_TTL, show_spinner=False)
def connections(fingerprint: str, _dataset: Dataset, columns: tuple[str, ...], sensitive: tuple[str, ...],
                max_rows: int, seed: int) -> ConnectionResult:
    """MIC strengths between the sensitive attributes and the others (threshold applied later)."""
    return mic_connections(table(_dataset, columns), sensitive, threshold=0.0, max_rows=max_rows,
                           random_state=seed)


@st.cache_resource(max_entries=6, ttl=_TTL, show_spinner=False)
def fitted(fingerprint: str, _dataset: Dataset, columns: tuple[str, ...], sensitive: tuple[str, ...],
           rows: int, cols: int, topology: str, init: str, iterations: int, sigma: float,
           max_rows: int, seed: int) -> SSKMDP:
    """An SSKM_DP publisher with its SOM trained and MIC computed (no noise drawn yet)."""
    conn = connections(fingerprint, _dataset, columns, sensitive, max_rows, seed)
    pub = SSKMDP(epsilon=1.0, sensitive=sensitive, cs_threshold=0.0, rows=rows, cols=cols, sigma=sigma,
                 iterations=iterations, init=init, topology=topology, random_state=seed)
    return pub.fit(table(_dataset, columns), connections=conn)


def _release(pub: SSKMDP, epsilon: float, cs_threshold: float, seed: int) -> SSKMDP:
    mine = copy.copy(pub)
    mine.publish(epsilon=epsilon, cs_threshold=cs_threshold, random_state=seed)
    return mine


@st.cache_data(max_entries=16, ttl=_TTL, show_spinner=False)
def release(fingerprint: str, _pub: SSKMDP, key: tuple, epsilon: float, cs_threshold: float,
            seed: int) -> dict:
    """One release: the published frame, its CSV, MSE, RL, ledger and noise scales.

    ``key`` names the fitted publisher (its fit parameters), so the cache tells fits apart.
    """
    mine = copy.copy(_pub)
    frame = mine.publish(epsilon=epsilon, cs_threshold=cs_threshold, random_state=seed)
    X = mine.table_.X
    sizes = pd.Series(mine.cluster_sizes_, name="rows")
    return {
        "frame": frame,
        "csv": to_csv_bytes(frame),
        "mse": mse(X, mine.published_scaled_),
        "rl": record_linkage(X, mine.published_scaled_),
        "protected": mine.protected_,
        "ledger": mine.ledger_.to_frame(),
        "total_epsilon": mine.ledger_.total()[0],
        "clusters": len(mine.clusters_),
        "noise": pd.DataFrame({"neuron": sizes.index, "rows": sizes.values,
                               "noise scale (scaled units)": [mine.noise_scale_[c] for c in sizes.index]}),
    }


@st.cache_data(max_entries=8, ttl=_TTL, show_spinner=False)
def epsilon_curve(fingerprint: str, _pub: SSKMDP, key: tuple, cs_threshold: float, epsilons: tuple[float, ...],
                  repetitions: int, seed: int) -> pd.DataFrame:
    """MSE and RL vs epsilon for the fitted clustering (repetitions = fresh noise draws)."""
    rng = check_random_state(seed)
    rows = []
    X = _pub.table_.X
    for eps in epsilons:
        for _ in range(repetitions):
            mine = _release(_pub, eps, cs_threshold, int(rng.integers(0, 2**31 - 1)))
            rows.append({"epsilon": eps, "mse": mse(X, mine.published_scaled_),
                         "rl": record_linkage(X, mine.published_scaled_)})
    df = pd.DataFrame(rows)
    out = df.groupby("epsilon")[["mse", "rl"]].agg(["mean", "std"])
    out.columns = [f"{a}_{b}" for a, b in out.columns]
    return out.reset_index().fillna(0.0)


@st.cache_data(max_entries=8, ttl=_TTL, show_spinner=False)
def baselines(fingerprint: str, _pub: SSKMDP, key: tuple, cs_threshold: float, epsilon: float,
              a_values: tuple[int, ...], repetitions: int, seed: int) -> pd.DataFrame:
    """MSE vs a for MDAV, MDAV_DP, IDP-KMeans, with SSKM_DP at its own cluster count."""
    X = _pub.table_.X
    rng = check_random_state(seed)
    rows = []
    for a in a_values:
        if a > len(X):
            continue
        groups = mdav(X, n_clusters=a)
        _, plain = microaggregate(X, groups)
        rows.append({"method": "MDAV", "a": a, "mse": mse(X, plain)})
        k = len(X) // a
        for _ in range(repetitions):
            s = int(rng.integers(0, 2**31 - 1))
            rows.append({"method": "MDAV_DP", "a": a,
                         "mse": mse(X, mdav_dp(X, k, epsilon, labels=groups, random_state=s).published)})
            rows.append({"method": "IDP-KMeans", "a": a,
                         "mse": mse(X, idp_kmeans(X, a, epsilon, random_state=s).published)})
    for _ in range(repetitions):
        mine = _release(_pub, epsilon, cs_threshold, int(rng.integers(0, 2**31 - 1)))
        rows.append({"method": "SSKM_DP", "a": len(mine.clusters_), "mse": mse(X, mine.published_scaled_)})
    df = pd.DataFrame(rows)
    out = df.groupby(["method", "a"], sort=False)["mse"].agg(["mean", "std"]).reset_index()
    out.columns = ["method", "a", "mse_mean", "mse_std"]
    return out.fillna(0.0)


def sensitive_indicator(frame: pd.DataFrame, column: str) -> tuple[np.ndarray, str]:
    """0/1 per row for the share map: the most common value of a categorical, or above the median."""
    s = frame[column]
    if pd.api.types.is_numeric_dtype(s) and s.nunique() > 2:
        med = float(s.median())
        return (s > med).to_numpy(dtype=float), f"{column} > {med:g}"
    top = s.value_counts().index[0]
    return (s == top).to_numpy(dtype=float), f"{column} = {top}"
