"""Sweeps of SSKM_DP: MSE and RL vs epsilon, MSE vs the number of clusters, and Fig. 5-6 over maps.

:func:`epsilon_curve` and :func:`baselines_vs_clusters` publish on shallow copies of a
fitted publisher (its SOM, MIC and bounds are reused; only the noise is drawn again), so the
publisher passed in is never changed. :func:`grid_runs` and :func:`clusters_sweep` fit a new
map per SOM grid and repetition (the number of clusters a of SSKM_DP is the number of
neurons that released rows, so a is varied through the map's size): the runs of paper
003's Fig. 5 and Fig. 6, shared by ``pux reproduce sskm-fig5`` / ``sskm-fig6`` and the page.
Every release takes its own seed from one generator built from ``random_state``, so the
same seed gives the same frame.
"""
from __future__ import annotations

import copy

import numpy as np
import pandas as pd

from core.evaluation.metrics import mean_interval
from core.runtime.experiments import summarize
from core.runtime.progress import Progress, Stop, report, stage, watch
from core.runtime.randomness import check_random_state, draw_seed
from core.sskm.connection import mic_connections
from core.sskm.dp_kmeans import idp_kmeans
from core.sskm.microaggregation import mdav, mdav_dp, mdav_release
from core.sskm.publisher_base import SSKMPublisherBase
from core.sskm.references import RANDOM, table_references
from core.sskm.scaled_table import ScaledTable
from core.sskm.variants import SSKM_VARIANTS, sskm_variant
from core.validation import check_positive_int

__all__ = [
    "FIGURE_RELEASE",
    "attributes_for_m",
    "baselines_vs_clusters",
    "clusters_sweep",
    "epsilon_curve",
    "grid_runs",
    "grid_summary",
    "parse_grid",
    "release_copy",
    "release_references",
]

#: what each mode releases in the paper's figures (Fig. 5-7: MSE and RL over the map's size):
#: the sound mode's rows at the noisy centres of the given grid, as the paper measures them;
#: its default release (cells) sizes its own map from n, m and epsilon, so a grid would not
#: set its number of clusters
FIGURE_RELEASE: dict[str, dict] = {"sound": {"release": "centres"}}


def release_copy(pub: SSKMPublisherBase, *, epsilon: float, cs_threshold: float, random_state) -> SSKMPublisherBase:
    """A shallow copy of a fitted publisher with one release drawn on it.

    Parameters
    ----------
    pub : SSKMDP or PaperSSKMDP
        A fitted publisher; it is not changed.
    epsilon : float
        The release's privacy budget.
    cs_threshold : float
        The connection-strength threshold (CS_Tsh) of the paper mode.
    random_state : int, numpy.random.Generator or None
        The noise's seed.

    Returns
    -------
    SSKMDP or PaperSSKMDP
        The copy, with its release (``published_``, ``release_metrics()``, ``ledger_``).
    """
    mine = copy.copy(pub)
    mine.publish(epsilon=epsilon, cs_threshold=cs_threshold, random_state=random_state)
    return mine


def _summary(rows: list[dict], by, values, *, appearance: bool = False) -> pd.DataFrame:
    """:func:`core.runtime.experiments.summarize` without the counts and with a single run's std as 0;
    groups sorted, or in order of first appearance if ``appearance``."""
    runs = pd.DataFrame(rows)
    by = [by] if isinstance(by, str) else list(by)
    values = [values] if isinstance(values, str) else list(values)
    out = summarize(runs, by, values).drop(columns=[f"{v}_n" for v in values])
    if appearance:
        out = runs[by].drop_duplicates().merge(out, on=by, how="left").reset_index(drop=True)
    return out.fillna(0.0)


def epsilon_curve(pub: SSKMPublisherBase, *, epsilons, repetitions: int, cs_threshold: float, random_state=None,
                  progress: Progress | None = None, stop: Stop | None = None) -> pd.DataFrame:
    """MSE and RL of SSKM_DP releases vs epsilon (repetitions are fresh noise draws).

    Parameters
    ----------
    pub : SSKMDP or PaperSSKMDP
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
    stop : threading.Event, optional
        When set, the work ends at its next progress report and raises
        :class:`core.runtime.progress.Stopped`.

    Returns
    -------
    pandas.DataFrame
        One row per epsilon, in increasing order: ``epsilon, mse_mean, mse_std, rl_mean, rl_std`` (std 0 for one
        repetition) and the 95% t-interval of each mean over the repetitions, ``mse_lo, mse_hi, rl_lo, rl_hi``
        (:func:`core.evaluation.metrics.mean_interval`; NaN for one repetition).
    """
    progress = watch(progress, stop)
    rng = check_random_state(random_state)
    rows, total = [], len(epsilons) * repetitions
    for eps in epsilons:
        for _ in range(repetitions):
            mine = release_copy(pub, epsilon=eps, cs_threshold=cs_threshold, random_state=draw_seed(rng))
            mse_, rl_ = mine.release_metrics()
            rows.append({"epsilon": eps, "mse": mse_, "rl": rl_})
            if progress is not None:
                progress(len(rows) / total, f"release {len(rows)} of {total}")
    out = _summary(rows, "epsilon", ["mse", "rl"])
    runs = pd.DataFrame(rows)
    for metric, top in (("mse", np.inf), ("rl", 1.0)):  # an interval stays within what the measure can be
        spans = {e: mean_interval(part[metric]) for e, part in runs.groupby("epsilon")}
        out[f"{metric}_lo"] = [max(spans[e][1], 0.0) if np.isfinite(spans[e][1]) else np.nan for e in out["epsilon"]]
        out[f"{metric}_hi"] = [min(spans[e][2], top) if np.isfinite(spans[e][2]) else np.nan for e in out["epsilon"]]
    return out


def release_references(pub: SSKMPublisherBase, *, repetitions: int = 5, max_rows: int = 2000,
                       random_state=None) -> pd.DataFrame:
    """The raw table's and a random release's MSE and RL for a fitted publisher's records
    (:func:`core.sskm.references.table_references` on ``pub.table_``: the same scaled units
    and bounds as its releases; the random rows lie within the public schema's bounds and
    categories in the sound mode, the data's in the paper mode).

    Returns
    -------
    pandas.DataFrame
        ``reference, mse_mean, mse_lo, mse_hi, rl_mean, rl_lo, rl_hi, repetitions``.
    """
    return table_references(pub.table_, repetitions=repetitions, max_rows=max_rows, random_state=random_state)


def baselines_vs_clusters(pub: SSKMPublisherBase, *, epsilon: float, a_values, repetitions: int, cs_threshold: float,
                          random_state=None, progress: Progress | None = None,
                          stop: Stop | None = None) -> pd.DataFrame:
    """MSE of MDAV, MDAV_DP and IDP-KMeans vs the number of clusters a, and SSKM_DP's at its own.

    The baselines cluster the records SSKM_DP publishes (every row in the paper mode, the
    published part in the sound mode), scaled the same way; a above the number of records
    is skipped. MDAV's groups are computed once per a; MDAV_DP and IDP-KMeans draw their
    noise ``repetitions`` times with a shared seed per repetition, then SSKM_DP releases
    ``repetitions`` times; its a is the number of neurons that released rows.

    Parameters
    ----------
    pub : SSKMDP or PaperSSKMDP
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
    stop : threading.Event, optional
        When set, the work ends at its next progress report and raises
        :class:`core.runtime.progress.Stopped`.

    Returns
    -------
    pandas.DataFrame
        ``method, a, mse_mean, mse_std`` in order of computation (per a: MDAV, MDAV_DP,
        IDP-KMeans; SSKM_DP last), std 0 where there is one run.
    """
    progress = watch(progress, stop)
    X = pub.table_.X[pub.published_index_]  # the records behind SSKM_DP's release (every row)
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


# ---------------------------------------------------------------- Fig. 5-6: across a (map sizes) and m
def parse_grid(text: str) -> tuple[int, int]:
    """``"8x8"`` -> ``(8, 8)``: a SOM grid written rows x columns.

    Raises
    ------
    TypeError
        When ``text`` is not a str.
    ValueError
        When it is not two whole numbers of at least 1 joined by 'x'.
    """
    if not isinstance(text, str):
        raise TypeError(f"a grid must be a str like '8x8', got {type(text).__name__}.")
    parts = text.lower().replace(" ", "").split("x")
    if len(parts) != 2 or not all(p.isdigit() and int(p) >= 1 for p in parts):
        raise ValueError(f"A grid is written rows x columns with whole numbers of at least 1 ('8x8'), got {text!r}.")
    return int(parts[0]), int(parts[1])


def _check_grids(grids) -> tuple[tuple[int, int], ...]:
    out = []
    for g in grids:
        g = parse_grid(g) if isinstance(g, str) else g
        if (not isinstance(g, tuple) or len(g) != 2
                or not all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in g)):
            raise TypeError(f"each grid must be (rows, cols) of ints or a str like '8x8', got {g!r}.")
        if min(g) < 1:
            raise ValueError(f"A grid needs at least 1 row and 1 column, got {g!r}.")
        out.append((int(g[0]), int(g[1])))
    if not out:
        raise ValueError("Give at least one SOM grid.")
    return tuple(out)


def grid_runs(frame: pd.DataFrame, *, sensitive, grids, epsilons, repetitions: int, modes=("sound",),
              iterations: int | None = None, cs_threshold: float = 0.3, connections=None,
              random_state=None, progress: Progress | None = None, stop: Stop | None = None,
              schema=None) -> list[dict]:
    """MSE and RL of SSKM_DP on one table for every SOM grid, repetition, mode and epsilon.

    For each grid and repetition one seed is drawn; with it a map is fitted in each mode and
    released at every epsilon (the releases of one fit differ only in their noise). The
    number of clusters a of a release is the number of neurons that released rows.

    Parameters
    ----------
    frame : pandas.DataFrame
        The table; every column is published.
    sensitive : str or sequence of str
        The sensitive attribute(s), columns of ``frame``.
    grids : sequence of (int, int) or str
        SOM grids, rows x columns (``(8, 8)`` or ``"8x8"``), in the order of the rows.
    epsilons : sequence of float
        The budgets of the releases.
    repetitions : int
        Maps fitted per grid (each with its own seed).
    modes : sequence of {"sound", "paper"}
        The mechanisms; the sound one is epsilon-DP, the paper's is not.
    iterations : int or None
        Row draws of the SOM's training (None: the publisher's default).
    cs_threshold : float
        The connection-strength threshold CS_Tsh of the paper mode.
    connections : core.sskm.connection.ConnectionResult or None
        MIC strengths computed on ``frame`` before (the paper mode's protected set); None
        computes them in each fit.
    random_state : int, numpy.random.Generator or None
        Seeds every map and its noise, in order; a Generator is drawn from and advanced.
    progress : callable(fraction, message) or None
        Called after each grid and repetition.
    stop : threading.Event, optional
        When set, the work ends at its next progress report and raises
        :class:`core.runtime.progress.Stopped`.
    schema : PublicSchema, optional
        The sound mode's public bounds and categories; without it the sound releases read
        them from the data and are not DP (``is_dp`` False). Both modes leave its
        identifier columns out.

    Returns
    -------
    list of dict
        One per release: ``mode, grid, a, epsilon, repetition, seed, mse, rl, released_rows,
        protected, is_dp`` (RL as a fraction; MSE on the min-max scaled attributes).
    """
    progress = watch(progress, stop)
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"frame must be a pandas DataFrame, got {type(frame).__name__}.")
    grids = _check_grids(grids)
    repetitions = check_positive_int(repetitions, name="repetitions")
    modes = tuple(modes)
    if not modes:
        raise ValueError(f"modes must be some of {tuple(SSKM_VARIANTS)}, got {modes!r}.")
    publishers = {mode: sskm_variant(mode, argument="modes") for mode in modes}
    epsilons = tuple(float(e) for e in epsilons)
    if not epsilons:
        raise ValueError("Give at least one epsilon.")
    rng = check_random_state(random_state)
    rows, total, done = [], len(grids) * repetitions, 0
    for rows_, cols_ in grids:
        for rep in range(repetitions):
            seed = draw_seed(rng)
            for mode in modes:
                # MIC once per table: the paper's protected set; the sound mode's release does
                # not read it (every attribute is noised)
                pub = publishers[mode](epsilon=1.0, sensitive=sensitive, cs_threshold=cs_threshold, rows=rows_,
                                       cols=cols_, iterations=iterations, random_state=seed, schema=schema,
                                       **FIGURE_RELEASE.get(mode, {}))
                pub.fit(frame, connections=connections)
                for eps in epsilons:
                    pub.publish(epsilon=eps)
                    mse_, rl_ = pub.release_metrics()
                    rows.append({
                        "mode": mode, "grid": f"{rows_}x{cols_}", "a": int(np.count_nonzero(pub.row_counts_)),
                        "epsilon": eps, "repetition": rep, "seed": seed, "mse": mse_, "rl": rl_,
                        "released_rows": len(pub.published_scaled_),
                        "protected": ",".join(pub.protected_), "is_dp": pub.ledger_.is_dp,
                    })
            done += 1
            report(progress, done / total, f"map {rows_}x{cols_}, repetition {rep + 1} of {repetitions}")
    return rows


def attributes_for_m(columns, sensitive, m: int) -> list[str]:
    """The m attributes of one panel: the sensitive ones and the first others in the order
    of ``columns`` (so the sensitive attributes are always published), in that order.

    Raises
    ------
    ValueError
        When m is below the number of sensitive attributes (or 1) or above the number of columns,
        or a sensitive attribute is not among ``columns``.
    """
    columns = [str(c) for c in columns]
    sens = [sensitive] if isinstance(sensitive, str) else [str(s) for s in sensitive]
    m = check_positive_int(m, name="m")
    missing = [s for s in sens if s not in columns]
    if missing:
        raise ValueError(f"The sensitive attribute(s) {missing} must be among the chosen attributes.")
    if not max(len(sens), 1) <= m <= len(columns):
        raise ValueError(f"m must be between the number of sensitive attributes ({len(sens)}) and the number of "
                         f"chosen attributes ({len(columns)}), got {m}.")
    others = [c for c in columns if c not in sens][: m - len(sens)]
    keep = set(sens) | set(others)
    return [c for c in columns if c in keep]


def clusters_sweep(frame: pd.DataFrame, *, sensitive, m_values, grids, epsilons, repetitions: int,
                   mode: str = "sound", iterations: int | None = None, cs_threshold: float = 0.3,
                   mic_max_rows: int = 4000, random_state=None,
                   progress: Progress | None = None, stop: Stop | None = None, schema=None) -> pd.DataFrame:
    """Paper 003's Fig. 5 and Fig. 6 on one table: MSE and RL of SSKM_DP for every m, SOM
    grid (number of clusters a), epsilon and repetition, in one mode.

    The m attributes of a panel are :func:`attributes_for_m` of the table's columns. In the
    paper mode MIC is computed once per m (on at most ``mic_max_rows`` rows); the sound mode
    computes it in each fit, for information only. The runs are :func:`grid_runs`.

    Parameters
    ----------
    frame : pandas.DataFrame
        The chosen attributes, in the user's order.
    sensitive : str or sequence of str
        The sensitive attribute(s), columns of ``frame``.
    m_values : sequence of int
        Numbers of attributes published, one panel each.
    grids : sequence of (int, int) or str
        SOM grids, rows x columns.
    epsilons : sequence of float
        The budgets.
    repetitions : int
        Maps fitted per m and grid.
    mode : {"sound", "paper"}
        The sound mechanism (epsilon-DP) or the paper's (not DP).
    iterations : int or None
        Row draws of each SOM's training (None: the publisher's default).
    cs_threshold : float
        CS_Tsh of the paper mode.
    mic_max_rows : int
        Row cap of the paper mode's MIC.
    random_state : int, numpy.random.Generator or None
        Seeds every map, MIC sample and noise draw, in order.
    progress : callable(fraction, message) or None
        Called after each map, the last time with 1.0.
    stop : threading.Event, optional
        When set, the work ends at its next progress report and raises
        :class:`core.runtime.progress.Stopped`.
    schema : PublicSchema, optional
        Public bounds and categories of the sound mode (see :func:`grid_runs`).

    Returns
    -------
    pandas.DataFrame
        One row per release: ``m, attributes`` (comma-joined), the columns of
        :func:`grid_runs`, and the panel's random release (:mod:`core.sskm.references`):
        ``random_mse, random_mse_lo, random_rl, random_rl_hi``.
    """
    progress = watch(progress, stop)
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"frame must be a pandas DataFrame, got {type(frame).__name__}.")
    sskm_variant(mode)
    m_values = [check_positive_int(m, name="m") for m in m_values]
    if not m_values:
        raise ValueError("Give at least one m.")
    if len(set(m_values)) != len(m_values):
        raise ValueError(f"Each m is given once, got {m_values}.")
    grids = _check_grids(grids)
    panels = [attributes_for_m(frame.columns, sensitive, m) for m in m_values]
    sens = (sensitive,) if isinstance(sensitive, str) else tuple(sensitive)
    rng = check_random_state(random_state)
    rows = []
    for i, (m, columns) in enumerate(zip(m_values, panels)):
        table = frame[columns]
        conn = None
        if mode == "paper":
            conn = mic_connections(table, sens, threshold=cs_threshold, max_rows=mic_max_rows, random_state=rng)
        part = stage(progress, i / len(m_values), (i + 1) / len(m_values), f"m = {m}")
        # its own stream (spawned: the maps' and releases' seeds stay those drawn before)
        ref = _random_reference(table, mode=mode, schema=schema, random_state=rng.spawn(1)[0])
        for run in grid_runs(table, sensitive=sens, grids=grids, epsilons=epsilons, repetitions=repetitions,
                             modes=(mode,), iterations=iterations, cs_threshold=cs_threshold, connections=conn,
                             random_state=rng, progress=part, schema=schema):
            rows.append({"m": m, "attributes": ", ".join(columns), **run, **ref})
    return pd.DataFrame(rows)


def _random_reference(table: pd.DataFrame, *, mode: str, schema, random_state) -> dict:
    """A random release's MSE and RL (mean and interval top) on the panel's table, scaled as
    the mode scales it (the schema's bounds in the sound mode, the data's in the paper's)."""
    if mode == "sound" and schema is not None:
        scaled = ScaledTable(table, schema=schema)
    else:
        ids = [c for c in table.columns if schema is not None and c in set(schema.identifiers)]
        scaled = ScaledTable(table.drop(columns=ids))
    refs = table_references(scaled, repetitions=5, random_state=random_state)
    rand = refs[refs["reference"] == RANDOM].iloc[0]
    return {"random_mse": float(rand["mse_mean"]), "random_mse_lo": float(rand["mse_lo"]),
            "random_rl": float(rand["rl_mean"]), "random_rl_hi": float(rand["rl_hi"])}


def grid_summary(runs: pd.DataFrame) -> pd.DataFrame:
    """Fig. 5-6's points: per m, grid and epsilon (in order of appearance) the mean, least and
    largest a and the mean and std of MSE and RL over repetitions.

    Parameters
    ----------
    runs : pandas.DataFrame
        :func:`clusters_sweep`'s runs (columns m, grid, epsilon, a, mse, rl; ``mode`` and
        ``dataset`` are kept as groups when present).

    Returns
    -------
    pandas.DataFrame
        ``[dataset, mode,] m, grid, epsilon, a_mean, a_std, a_min, a_max, mse_mean, mse_std,
        rl_mean, rl_std`` (std 0 for one repetition), and the random release's
        ``random_mse, random_mse_lo, random_rl, random_rl_hi`` when the runs carry them.
    """
    if not isinstance(runs, pd.DataFrame):
        raise TypeError(f"runs must be a pandas DataFrame, got {type(runs).__name__}.")
    missing = {"m", "grid", "epsilon", "a", "mse", "rl"} - set(runs.columns)
    if missing:
        raise ValueError(f"runs lack the column(s) {sorted(missing)}.")
    by = [c for c in ("dataset", "mode") if c in runs.columns] + ["m", "grid", "epsilon"]
    out = _summary(runs.to_dict(orient="records"), by, ["a", "mse", "rl"], appearance=True)
    span = runs.groupby(by, sort=False)["a"].agg(["min", "max"]).rename(columns={"min": "a_min", "max": "a_max"})
    out = out.merge(span.reset_index(), on=by, how="left")
    refs = [c for c in ("random_mse", "random_mse_lo", "random_rl", "random_rl_hi") if c in runs.columns]
    if refs:
        first = runs.groupby(by, sort=False)[refs].first().reset_index()
        out = out.merge(first, on=by, how="left")
    return out[by + ["a_mean", "a_std", "a_min", "a_max", "mse_mean", "mse_std", "rl_mean", "rl_std"] + refs]
