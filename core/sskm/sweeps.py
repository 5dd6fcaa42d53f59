"""Sweeps over a fitted SSKM_DP publisher: MSE and RL vs epsilon, and MSE vs the number of clusters.

Both sweeps publish on shallow copies of the fitted publisher (its SOM, MIC and bounds are
reused; only the noise is drawn again), so the publisher passed in is never changed. Every
release takes its own seed from one generator built from ``random_state``, so the same seed
gives the same frame.
"""
from __future__ import annotations

import copy

import numpy as np
import pandas as pd

from core.experiments import summarize
from core.progress import Progress
from core.sskm.baselines import idp_kmeans, mdav, mdav_dp, mdav_release
from core.sskm.publisher import SSKMDP
from core.validation import check_random_state, draw_seed

__all__ = ["epsilon_curve", "baselines_vs_clusters", "release_copy"]

def release_copy(pub: SSKMDP, *, epsilon: float, cs_threshold: float, random_state) -> SSKMDP:
    """A shallow copy of a fitted publisher with one release drawn on it.

    Parameters
    ----------
    pub : SSKMDP
        A fitted publisher; it is not changed.
    epsilon : float
        The release's privacy budget.
    cs_threshold : float
        The connection-strength threshold (CS_Tsh) of the paper mode.
    random_state : int, numpy.random.Generator or None
        The noise's seed.

    Returns
    -------
    SSKMDP
        The copy, with its release (``published_``, ``release_metrics()``, ``ledger_``).
    """
    mine = copy.copy(pub)
    mine.publish(epsilon=epsilon, cs_threshold=cs_threshold, random_state=random_state)
    return mine


def _summary(rows: list[dict], by, values, *, appearance: bool = False) -> pd.DataFrame:
    """:func:`core.experiments.summarize` without the counts and with a single run's std as 0;
    groups sorted, or in order of first appearance if ``appearance``."""
    runs = pd.DataFrame(rows)
    by = [by] if isinstance(by, str) else list(by)
    values = [values] if isinstance(values, str) else list(values)
    out = summarize(runs, by, values).drop(columns=[f"{v}_n" for v in values])
    if appearance:
        out = runs[by].drop_duplicates().merge(out, on=by, how="left").reset_index(drop=True)
    return out.fillna(0.0)


def epsilon_curve(pub: SSKMDP, *, epsilons, repetitions: int, cs_threshold: float, random_state=None,
                  progress: Progress | None = None) -> pd.DataFrame:
    """MSE and RL of SSKM_DP releases vs epsilon (repetitions are fresh noise draws).

    Parameters
    ----------
    pub : SSKMDP
        A fitted publisher; it is not changed (releases are drawn on copies).
    epsilons : sequence of float
        The budgets, in the order of the output rows.
    repetitions : int
        Releases per epsilon.
    cs_threshold : float
        The connection-strength threshold (CS_Tsh) of the paper mode.
    random_state : int, numpy.random.Generator or None
        Seeds every release's noise, in order.
    progress : callable(fraction, message) or None
        Called after each release, the last time with 1.0.

    Returns
    -------
    pandas.DataFrame
        One row per epsilon, in increasing order: ``epsilon, mse_mean, mse_std, rl_mean, rl_std`` (std 0 for one
        repetition).
    """
    rng = check_random_state(random_state)
    rows, total = [], len(epsilons) * repetitions
    for eps in epsilons:
        for _ in range(repetitions):
            mine = release_copy(pub, epsilon=eps, cs_threshold=cs_threshold, random_state=draw_seed(rng))
            mse_, rl_ = mine.release_metrics()
            rows.append({"epsilon": eps, "mse": mse_, "rl": rl_})
            if progress is not None:
                progress(len(rows) / total, f"release {len(rows)} of {total}")
    return _summary(rows, "epsilon", ["mse", "rl"])


def baselines_vs_clusters(pub: SSKMDP, *, epsilon: float, a_values, repetitions: int, cs_threshold: float,
                          random_state=None, progress: Progress | None = None) -> pd.DataFrame:
    """MSE of MDAV, MDAV_DP and IDP-KMeans vs the number of clusters a, and SSKM_DP's at its own.

    The baselines cluster the records SSKM_DP publishes (every row in the paper mode, the
    published part in the sound mode), scaled the same way; a above the number of records
    is skipped. MDAV's groups are computed once per a; MDAV_DP and IDP-KMeans draw their
    noise ``repetitions`` times with a shared seed per repetition, then SSKM_DP releases
    ``repetitions`` times; its a is the number of neurons that released rows.

    Parameters
    ----------
    pub : SSKMDP
        A fitted publisher; it is not changed (releases are drawn on copies).
    epsilon : float
        The budget of every DP method.
    a_values : sequence of int
        The numbers of clusters of the baselines (k = n // a for MDAV).
    repetitions : int
        Noise draws per method and a.
    cs_threshold : float
        The connection-strength threshold (CS_Tsh) of SSKM_DP's paper mode.
    random_state : int, numpy.random.Generator or None
        Seeds every noise draw, in order.
    progress : callable(fraction, message) or None
        Called after each a and once more, with 1.0, after SSKM_DP's releases.

    Returns
    -------
    pandas.DataFrame
        ``method, a, mse_mean, mse_std`` in order of computation (per a: MDAV, MDAV_DP,
        IDP-KMeans; SSKM_DP last), std 0 where there is one run.
    """
    X = pub.table_.X[pub.published_index_]  # the records SSKM_DP publishes (all rows in the paper mode)
    rng = check_random_state(random_state)
    rows = []
    fitted_a = [a for a in a_values if a <= len(X)]
    for i, a in enumerate(fitted_a):
        groups = mdav(X, n_clusters=a)
        k = len(X) // a
        rows.append({"method": "MDAV", "a": a, "mse": mdav_release(X, k, labels=groups).metrics(X)[0]})
        for _ in range(repetitions):
            s = draw_seed(rng)
            rows.append({"method": "MDAV_DP", "a": a,
                         "mse": mdav_dp(X, k, epsilon, labels=groups, random_state=s).metrics(X)[0]})
            rows.append({"method": "IDP-KMeans", "a": a,
                         "mse": idp_kmeans(X, a, epsilon, random_state=s).metrics(X)[0]})
        if progress is not None:
            progress((i + 1) / (len(fitted_a) + 1), f"a = {a} ({i + 1} of {len(fitted_a)})")
    for _ in range(repetitions):
        mine = release_copy(pub, epsilon=epsilon, cs_threshold=cs_threshold, random_state=draw_seed(rng))
        rows.append({"method": "SSKM_DP", "a": int(np.count_nonzero(mine.row_counts_)),
                     "mse": mine.release_metrics()[0]})
    if progress is not None:
        progress(1.0, "SSKM_DP releases done")
    return _summary(rows, ["method", "a"], "mse", appearance=True)
