"""Paper 003's claims of Fig. 5, 6 and 7, judged on our numbers (:class:`core.claims.claim.Claim`).

Each function states its rule in the finding, with the numbers that decide it, and says in
which mode it was judged: the sound mode is epsilon-DP, the paper's mode is not. A claim of
two parts holds when both do, does not hold when either fails, and cannot be judged when
neither fails but one cannot be decided (one map size only, one epsilon only).

Rules:

- **Fig. 5** (:func:`fig5_claim`): for every m, the MSE averaged over the maps falls at every
  step of epsilon; and for every m and epsilon the range of the MSE over a (the maps) is
  within ``tolerance`` (20 %) of its mean over a.
- **Fig. 6** (:func:`fig6_claim`): at epsilon <= 0.1 the range of RL over every m and a is at
  most ``flat_share`` (a quarter) of its range at the largest epsilon (where the paper says
  it moves); and at the largest epsilon RL rises at every step of a (maps ordered by their
  mean a), for every m.
- **Fig. 7** (:func:`fig7_claim`): SSKM_DP's mean MSE is below MDAV's, MDAV_DP's and
  IDP-KMeans's at every a; and each baseline's MSE falls at every step of a.

References (:mod:`core.sskm.references`): a claim the reference already explains cannot be
judged, with the reason. Fig. 5 and 6 read the random release the sweep measured per m
(columns ``random_mse`` and ``random_rl`` / ``random_rl_hi`` of
:func:`core.sskm.sweeps.grid_summary`); Fig. 7 takes it as ``random_mse``:

- Fig. 5: every release's MSE at or above a random release's (the low end of its interval):
  the releases keep no utility, so how MSE moves with epsilon or a is the noise's, not the
  method's.
- Fig. 6: every release's RL at or below a random release's (the top of its interval):
  nothing links beyond chance, so flat or rising cannot be told from the floor.
- Fig. 7: SSKM_DP's MSE at or above a random release's: beating the baselines then says
  nothing about utility.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from core.claims.claim import Claim, check_table
from core.sskm.paper import PAPER

__all__ = ["fig5_claim", "fig6_claim", "fig7_claim", "BASELINES", "MODE_WORDS"]

#: the baselines of Fig. 7, as the sweeps name them
BASELINES = ("MDAV", "MDAV_DP", "IDP-KMeans")
#: how a finding names the mode it was judged in
MODE_WORDS = {"sound": "Sound mode (epsilon-DP)", "paper": "Paper mode (not DP)"}


def _check_table(table, columns: set[str], name: str = "table") -> pd.DataFrame:
    return check_table(table, sorted(columns), name=name)


def _mode(mode) -> str:
    if not isinstance(mode, str):
        raise TypeError(f"mode must be a str, got {type(mode).__name__}.")
    if mode not in MODE_WORDS:
        raise ValueError(f"mode must be 'sound' or 'paper', got {mode!r}.")
    return mode


def _share(value, name: str) -> float:
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        raise TypeError(f"{name} must be a number, got {type(value).__name__}.")
    if not 0 < float(value) < 10:
        raise ValueError(f"{name} must be a positive share (0.2 = 20 %), got {value}.")
    return float(value)


def _both(first: bool | None, second: bool | None) -> bool | None:
    """Two parts of one claim: False if either fails, None if either is undecided, else True."""
    if first is False or second is False:
        return False
    if first is None or second is None:
        return None
    return True


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def _g(x: float) -> str:
    return f"{x:.3g}"


def _eps(x: float) -> str:
    return f"{x:g}"


def _ref(table: pd.DataFrame, column: str, fallback: str | None = None) -> pd.Series | None:
    """Per row, the reference ``column`` of the table (``fallback`` where it is NaN), or None."""
    if column not in table.columns:
        return None
    values = table[column].astype(float)
    if fallback is not None and fallback in table.columns:
        values = values.where(np.isfinite(values), table[fallback].astype(float))
    return values if np.isfinite(values).all() else None


def _by_a(part: pd.DataFrame) -> pd.DataFrame:
    """One row per map (grid) of one m and epsilon, ordered by mean a."""
    return part.sort_values(["a_mean", "grid"], kind="stable")


def fig5_claim(table: pd.DataFrame, *, mode: str, tolerance: float = 0.2) -> Claim:
    """Fig. 5: SSKM_DP's MSE decreases as epsilon grows (each m) and changes little with a.

    Parameters
    ----------
    table : pandas.DataFrame
        One row per m, map (grid) and epsilon: ``m, grid, epsilon, a_mean, mse_mean``
        (:func:`core.sskm.sweeps.grid_summary`).
    mode : {"sound", "paper"}
        The mode the runs were made in (named in the finding).
    tolerance : float
        "Changes little with a": the range over a within this share of the mean over a.

    Returns
    -------
    Claim
    """
    table = _check_table(table, {"m", "grid", "epsilon", "a_mean", "mse_mean"})
    mode, tolerance = _mode(mode), _share(tolerance, "tolerance")
    words = MODE_WORDS[mode]
    paper = PAPER["sskm-fig5"]
    if table.empty:
        return Claim("Paper 003, Fig. 5", paper, None, f"{words}: no runs to judge.")
    floor = _ref(table, "random_mse_lo", "random_mse")
    if floor is not None and bool((table["mse_mean"].astype(float) >= floor).all()):
        return Claim("Paper 003, Fig. 5", paper, None, (
            f"{words}: cannot be judged. Every release's MSE ({_g(table['mse_mean'].min())} to "
            f"{_g(table['mse_mean'].max())}) is at or above a random release's ({_g(table['random_mse'].mean())}: "
            "rows drawn at random within the bounds): the releases keep no utility on this table, so how their "
            "MSE moves with epsilon or a is the noise's, not the method's."))
    # part 1: falls with epsilon, per m (MSE averaged over the maps)
    falls, steps = None, []
    epsilons = sorted(table["epsilon"].unique())
    if len(epsilons) >= 2:
        falls = True
        for m, part in table.groupby("m", sort=True):
            means = part.groupby("epsilon")["mse_mean"].mean().reindex(epsilons)
            ok = bool(np.all(np.diff(means.to_numpy()) < 0))
            falls = falls and ok
            steps.append(f"m = {m}: {' -> '.join(_g(v) for v in means)}" + ("" if ok else " (not falling)"))
    # part 2: flat in a, per m and epsilon
    flat, worst, cells = None, None, 0
    for (m, eps), part in table.groupby(["m", "epsilon"], sort=True):
        if part["grid"].nunique() < 2:
            continue
        cells += 1
        values = part["mse_mean"].to_numpy(dtype=float)
        mean = float(values.mean())
        spread = float(values.max() - values.min()) / mean if mean > 0 else 0.0
        if worst is None or spread > worst[0]:
            lo, hi = _by_a(part).iloc[[0, -1]]["a_mean"]
            worst = (spread, m, eps, float(values.min()), float(values.max()), lo, hi)
    if cells:
        flat = bool(worst[0] <= tolerance)
    first = (f"MSE by epsilon {', '.join(_eps(e) for e in epsilons)}, averaged over the maps: "
             + "; ".join(steps) if steps else "one epsilon only: whether MSE falls as epsilon grows cannot be judged")
    if flat is None:
        second = "one map size only: whether MSE changes with a cannot be judged"
    else:
        spread, m, eps, lo, hi, a_lo, a_hi = worst
        second = (f"the largest range over a (a = {a_lo:.0f} to {a_hi:.0f}) is {100 * spread:.0f} % of the mean "
                  f"(m = {m}, epsilon {_eps(eps)}: {_g(lo)} to {_g(hi)}); the rule allows {100 * tolerance:.0f} %")
    rule = ("rule: MSE falls at every step of epsilon for every m, and its range over a stays within "
            f"{100 * tolerance:.0f} % of its mean for every m and epsilon")
    return Claim("Paper 003, Fig. 5", paper, _both(falls, flat), f"{words}, {rule}. {_cap(first)}; {second}.")


def fig6_claim(table: pd.DataFrame, *, mode: str, flat_share: float = 0.25, low_epsilon: float = 0.1) -> Claim:
    """Fig. 6: at small epsilon RL hardly changes with m and a; at the largest epsilon RL rises with a.

    Parameters
    ----------
    table : pandas.DataFrame
        One row per m, map (grid) and epsilon: ``m, grid, epsilon, a_mean, rl_mean`` (RL
        as a fraction; :func:`core.sskm.sweeps.grid_summary`).
    mode : {"sound", "paper"}
        The mode the runs were made in (named in the finding).
    flat_share : float
        "Hardly changes": RL's range over m and a at each epsilon <= ``low_epsilon`` is at
        most this share of its range at the largest epsilon.
    low_epsilon : float
        The epsilons judged "small" (the paper: 0.05 and 0.1).

    Returns
    -------
    Claim
    """
    table = _check_table(table, {"m", "grid", "epsilon", "a_mean", "rl_mean"})
    mode, flat_share = _mode(mode), _share(flat_share, "flat_share")
    if not isinstance(low_epsilon, (int, float)) or isinstance(low_epsilon, bool):
        raise TypeError(f"low_epsilon must be a number, got {type(low_epsilon).__name__}.")
    words = MODE_WORDS[mode]
    paper = PAPER["sskm-fig6"]
    if table.empty:
        return Claim("Paper 003, Fig. 6", paper, None, f"{words}: no runs to judge.")
    chance = _ref(table, "random_rl_hi", "random_rl")
    if chance is not None and bool((table["rl_mean"].astype(float) <= chance).all()):
        return Claim("Paper 003, Fig. 6", paper, None, (
            f"{words}: cannot be judged. Every release's record linkage ({100 * table['rl_mean'].min():.3g} % to "
            f"{100 * table['rl_mean'].max():.3g} %) is at or below a random release's "
            f"({100 * table['random_rl'].mean():.3g} %): nothing links beyond chance, so whether it stays flat or "
            "rises with a cannot be told from that floor."))
    top = float(table["epsilon"].max())
    lows = sorted(e for e in table["epsilon"].unique() if e <= low_epsilon and e < top)
    cells = table.groupby(["m", "grid"]).ngroups

    def _range(eps: float) -> float:
        v = 100 * table.loc[table["epsilon"] == eps, "rl_mean"].to_numpy(dtype=float)
        return float(v.max() - v.min())

    # part 1: flat at small epsilon, relative to the largest epsilon
    if not lows or cells < 2:
        flat = None
        first = ("no epsilon at or below " + _eps(low_epsilon) + " below the largest" if not lows
                 else "one m and one map only") + ": whether RL stays flat at small epsilon cannot be judged"
    else:
        ref = _range(top)
        ranges = {e: _range(e) for e in lows}
        flat = bool(all(r <= flat_share * ref for r in ranges.values())) if ref > 0 else \
            bool(all(r == 0 for r in ranges.values()))
        first = (f"RL's range over m and a is {', '.join(f'{r:.3g} percentage points at epsilon {_eps(e)}' for e, r in ranges.items())}"
                 f" against {ref:.3g} at epsilon {_eps(top)} (the rule allows {100 * flat_share:.0f} % of it)")
    # part 2: rises with a at the largest epsilon, per m
    rises, parts = None, []
    for m, part in table[table["epsilon"] == top].groupby("m", sort=True):
        if part["grid"].nunique() < 2:
            continue
        ordered = _by_a(part)
        values = 100 * ordered["rl_mean"].to_numpy(dtype=float)
        ok = bool(np.all(np.diff(values) > 0))
        rises = ok if rises is None else (rises and ok)
        parts.append(f"m = {m}: {' -> '.join(f'{v:.3g} %' for v in values)} (a = "
                     f"{' -> '.join(f'{a:.0f}' for a in ordered['a_mean'])})" + ("" if ok else ", not rising"))
    second = (f"at epsilon {_eps(top)} RL by a: " + "; ".join(parts) if parts
              else "one map size only: whether RL rises with a cannot be judged")
    rule = (f"rule: at epsilon <= {_eps(low_epsilon)} RL's range over m and a is at most "
            f"{100 * flat_share:.0f} % of its range at the largest epsilon, and at the largest epsilon RL rises at "
            "every step of a for every m")
    return Claim("Paper 003, Fig. 6", paper, _both(flat, rises), f"{words}, {rule}. {_cap(first)}; {second}.")


def fig7_claim(table: pd.DataFrame, *, mode: str, epsilon: float, random_mse: float | None = None) -> Claim:
    """Fig. 7: SSKM_DP's MSE is below MDAV, MDAV_DP and IDP-KMeans at every a, and the
    baselines' MSE falls as a grows.

    Parameters
    ----------
    table : pandas.DataFrame
        ``method, a, mse_mean`` (:func:`core.sskm.sweeps.baselines_vs_clusters`): the
        baselines per a and SSKM_DP at its own cluster count(s), whose mean MSE is compared.
    mode : {"sound", "paper"}
        SSKM_DP's mode (named in the finding).
    epsilon : float
        The budget of the runs (the paper's: 1), named in the finding.
    random_mse : float, optional
        A random release's MSE on the same records (:mod:`core.sskm.references`): when
        SSKM_DP's MSE is at or above it, the claim cannot be judged.

    Returns
    -------
    Claim
    """
    table = _check_table(table, {"method", "a", "mse_mean"})
    if random_mse is not None and (not isinstance(random_mse, (int, float)) or isinstance(random_mse, bool)):
        raise TypeError(f"random_mse must be a number or None, got {type(random_mse).__name__}.")
    mode = _mode(mode)
    if not isinstance(epsilon, (int, float)) or isinstance(epsilon, bool):
        raise TypeError(f"epsilon must be a number, got {type(epsilon).__name__}.")
    words = f"{MODE_WORDS[mode]} at epsilon = {_eps(float(epsilon))}"
    paper = PAPER["sskm-fig7"]
    ours = table.loc[table["method"] == "SSKM_DP", "mse_mean"].to_numpy(dtype=float)
    base = table[table["method"].isin(BASELINES)]
    if not len(ours) or base.empty:
        return Claim("Paper 003, Fig. 7", paper, None,
                     f"{words}: SSKM_DP and at least one baseline are needed to judge (none "
                     f"{'for SSKM_DP' if not len(ours) else 'for the baselines'}).")
    sskm = float(ours.mean())
    if random_mse is not None and np.isfinite(random_mse) and sskm >= float(random_mse):
        return Claim("Paper 003, Fig. 7", paper, None, (
            f"{words}: cannot be judged. SSKM_DP's MSE {_g(sskm)} is at or above a random release's "
            f"({_g(float(random_mse))}: rows drawn at random within the bounds): it keeps no utility here, so "
            "being below the baselines or not says nothing about the method."))
    a_values = sorted(base["a"].unique())
    # part 1: below every baseline at every a
    misses = []
    for a in a_values:
        at = base[base["a"] == a]
        lower = [f"{r.method} {_g(r.mse_mean)}" for r in at.itertuples() if not r.mse_mean > sskm]
        if lower:
            misses.append(f"a = {a}: {', '.join(lower)}")
    below = not misses
    first = (f"SSKM_DP's MSE {_g(sskm)} is below all {len(base['method'].unique())} baselines at every a "
             f"({', '.join(str(a) for a in a_values)})" if below
             else f"SSKM_DP's MSE {_g(sskm)} is not below every baseline: " + "; ".join(misses))
    # part 2: the baselines fall as a grows
    if len(a_values) < 2:
        falls, second = None, "one a only: whether the baselines fall as a grows cannot be judged"
    else:
        trends = []
        falls = True
        for method, part in base.groupby("method", sort=False):
            values = part.sort_values("a")["mse_mean"].to_numpy(dtype=float)
            ok = bool(np.all(np.diff(values) < 0))
            falls = falls and ok
            trends.append(f"{method} {' -> '.join(_g(v) for v in values)}" + ("" if ok else " (not falling)"))
        second = "baselines by a: " + "; ".join(trends)
    rule = ("rule: SSKM_DP's mean MSE below MDAV's, MDAV_DP's and IDP-KMeans's at every a, and each "
            "baseline's MSE falling at every step of a")
    return Claim("Paper 003, Fig. 7", paper, _both(below, falls), f"{words}, {rule}. {_cap(first)}; {second}.")
