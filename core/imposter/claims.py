"""Paper 002's claims, checked on our numbers: one :class:`core.claims.claim.Claim` per figure and table.

Each function takes what the page (or a reproduction) computed and states its rule with
the numbers that decide it. The paper's words come from
:data:`core.imposter.paper.PAPER_CLAIMS`.

- :func:`fig6_claim`: some attributes reach theta; which one leaks most (the NMI ranking).
  Cannot be judged when the scores carry the default rule's verdict (``flagged``) and no
  attribute that reaches theta is flagged: an NMI that no classifier turns into a better
  guess than the constant one is sampling noise, so "Holds here" beside "no implicit
  attribute found" would rest on it.
- :func:`table1_claim`: in setting B the attacker's accuracy on s is within ``tolerance``
  (0.03) of the majority share for every classifier, while the label's accuracy stays
  within ``utility_drop`` (0.05) of setting A; "cannot be judged" when on the real table
  the attacker (or the label's model) does no better than the constant guess.
- :func:`fig7_claim`: at kRR's budget where its s-accuracy matches IMPOSTER's (the kRR
  curve interpolated), kRR's label accuracy is lower than IMPOSTER's.
- :func:`table2_claim`: a lower theta protects more attributes; setting-B s-accuracy is
  near the floor for every theta; the label accuracy in B falls as theta grows.
- :func:`fig8_claim`: setting-B s-accuracy falls as lambda grows from its smallest value,
  is near the floor for every lambda >= 1, and the label accuracy stays roughly level.
"""
from __future__ import annotations

import math
from typing import Sequence

import numpy as np
import pandas as pd

from core.claims.claim import Claim, check_table
from core.imposter.paper import PAPER_CLAIMS

__all__ = ["fig6_claim", "table1_claim", "fig7_claim", "table2_claim", "fig8_claim"]

_PAPER = "Paper 002"


def _tolerance(value, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{name} must be a number, got {type(value).__name__}.")
    value = float(value)
    if not (math.isfinite(value) and 0 <= value < 1):
        raise ValueError(f"{name} must lie in [0, 1), got {value!r}.")
    return value


def _g(x: float) -> str:
    return f"{x:.3f}"


# ---------------------------------------------------------------------------- Fig. 6
def fig6_claim(scores: pd.DataFrame, *, theta: float, sensitive: str = "s") -> Claim:
    """Fig. 6: the attributes whose NMI with ``sensitive`` reaches ``theta``, and the strongest.

    Parameters
    ----------
    scores : DataFrame
        :attr:`core.imposter.DetectionResult.scores`: ``attribute`` and ``nmi``.
    theta : float
        The NMI threshold.
    sensitive : str
        The sensitive attribute's name, for the sentence.

    Returns
    -------
    Claim
        Holds when at least one attribute reaches theta (and, when ``scores`` has the default
        rule's ``flagged`` column, at least one of those beats the constant guess); cannot be
        judged without attributes, or when none that reaches theta beats the constant guess.
    """
    scores = check_table(scores, ["attribute", "nmi"], name="scores")
    theta = _tolerance(theta, "theta")
    paper = PAPER_CLAIMS["Fig. 6"]
    nmi = scores.dropna(subset=["nmi"]).sort_values("nmi", ascending=False, kind="stable")
    if nmi.empty:
        return Claim(f"{_PAPER}, Fig. 6", paper, None,
                     f"There is no attribute beside {sensitive} to score.")
    top = nmi.iloc[0]
    reach = nmi[nmi["nmi"] >= theta]
    ranking = ", ".join(f"{a} {v:.3f}" for a, v in zip(nmi["attribute"].head(3), nmi["nmi"].head(3)))
    finding = (f"{len(reach)} of {len(nmi)} attributes reach theta = {theta:g} in NMI with {sensitive}; "
               f"{top['attribute']} leaks most (NMI {top['nmi']:.3f}; top three: {ranking}).")
    if len(reach) and "flagged" in reach.columns and not reach["flagged"].fillna(False).astype(bool).any():
        return Claim(f"{_PAPER}, Fig. 6", paper, None,
                     finding[:-1] + f"; but none of them predicts {sensitive} better than always guessing its "
                     "commonest value, by a margin its held-out interval supports (no implicit attribute "
                     "found): an NMI that small is what sampling noise gives, so the reach is not a leak.")
    return Claim(f"{_PAPER}, Fig. 6", paper, bool(len(reach) > 0), finding)


# ---------------------------------------------------------------------------- Table 1
def table1_claim(table: pd.DataFrame, *, tolerance: float = 0.03, utility_drop: float = 0.05) -> Claim:
    """Table 1: setting-B accuracy on s within ``tolerance`` of the majority share for
    every classifier, and setting-B label accuracy within ``utility_drop`` of setting A.

    Parameters
    ----------
    table : DataFrame
        :func:`core.imposter.evaluate_settings` with settings A and B (its ``attrs`` hold
        ``majority_synthetic``).
    tolerance, utility_drop : float
        The two margins of the rule.

    Returns
    -------
    Claim
        Cannot be judged when the table lacks setting A or B, or the majority share, and
        when the reference already explains the result: on the real table (setting A) the
        best classifier's accuracy on s is within its Wilson interval of the majority share
        (no leak to remove: B at the floor proves nothing), or its label accuracy within
        that of the label's majority share (no utility to keep).
    """
    table = check_table(table, [], name="table")
    tolerance = _tolerance(tolerance, "tolerance")
    utility_drop = _tolerance(utility_drop, "utility_drop")
    paper = PAPER_CLAIMS["Table 1"]
    need = [(s, t, "accuracy") for s in "AB" for t in ("sensitive", "label")]
    if not all(c in table.columns for c in need) or "majority_synthetic" not in table.attrs or table.empty:
        return Claim(f"{_PAPER}, Table 1", paper, None,
                     "The table lacks setting A or B (or the majority share), so there is nothing to compare.")
    floor = float(table.attrs["majority_synthetic"])
    no_leak = _no_leak_on_real(table)
    if no_leak is not None:
        return Claim(f"{_PAPER}, Table 1", paper, None, no_leak)
    b_s = table[("B", "sensitive", "accuracy")].astype(float)
    drop = (table[("A", "label", "accuracy")] - table[("B", "label", "accuracy")]).astype(float)
    gap = (b_s - floor).abs()
    leak_ok, util_ok = bool(gap.max() <= tolerance), bool(drop.max() <= utility_drop)
    n = len(table)
    finding = (f"Setting-B accuracy on {table.attrs.get('sensitive', 's')} is {_g(b_s.min())}-{_g(b_s.max())} "
               f"against the majority share {_g(floor)} (largest gap {_g(gap.max())}, "
               f"{'within' if leak_ok else 'beyond'} {tolerance:g}, worst {gap.idxmax()}); "
               f"{table.attrs.get('label', 'label')} accuracy falls from A to B by at most {_g(drop.max())} "
               f"({'within' if util_ok else 'beyond'} {utility_drop:g}, worst {drop.idxmax()}), "
               f"over {n} classifier{'s' if n != 1 else ''}.")
    return Claim(f"{_PAPER}, Table 1", paper, leak_ok and util_ok, finding)


def _no_leak_on_real(table: pd.DataFrame) -> str | None:
    """Why Table 1 cannot be judged, or None: on the real table (setting A) no classifier
    predicts s better than the majority share by more than its Wilson interval (so there
    was no leak to remove), or none predicts the label better than its majority share (so
    there is no utility to keep)."""
    from core.evaluation.metrics import proportion_interval

    n = table.attrs.get("n_test_real")
    sens = table.attrs.get("sensitive", "s")
    lab = table.attrs.get("label", "the label")

    def explained(values: pd.Series, reference: float) -> tuple[bool, float]:
        best = float(values.astype(float).max())
        if n:  # the best accuracy's Wilson interval reaches down to the reference
            return bool(proportion_interval(best * int(n), int(n))[0] <= reference), best
        return bool(best <= reference), best

    reasons = []
    s_ref = float(table.attrs.get("majority_real", float("nan")))
    if math.isfinite(s_ref):
        flat, best = explained(table[("A", "sensitive", "accuracy")], s_ref)
        if flat:
            reasons.append(f"on the real table the best attacker predicts {sens} with {_g(best)}, within the "
                           f"interval of the constant guess (majority share {_g(s_ref)}): there is no leak "
                           "to remove")
    l_ref = float(table.attrs.get("label_majority_real", float("nan")))
    if math.isfinite(l_ref):
        flat, best = explained(table[("A", "label", "accuracy")], l_ref)
        if flat:
            reasons.append(f"the best model predicts {lab} on the real table with {_g(best)}, within the "
                           f"interval of the constant guess ({_g(l_ref)}): there is no utility to keep")
    if not reasons:
        return None
    return "Cannot be judged: " + "; ".join(reasons) + "."


# ---------------------------------------------------------------------------- Fig. 7
def fig7_claim(curve: pd.DataFrame, *, imposter: tuple[float, float]) -> Claim:
    """Fig. 7: kRR's label accuracy where its s-accuracy matches IMPOSTER's, against IMPOSTER's.

    Parameters
    ----------
    curve : DataFrame
        :func:`core.imposter.krr_sweep` averaged per budget: ``epsilon``,
        ``sensitive_accuracy``, ``label_accuracy``.
    imposter : (float, float)
        IMPOSTER's setting-B accuracy on s and on the label (same classifier).

    Returns
    -------
    Claim
        Within the range of kRR's s-accuracies, kRR's label accuracy is read off the curve
        (linear interpolation in s-accuracy). Outside it no budget matches: the claim holds
        when the nearest budget leaks at least as much and is less useful (kRR is beaten
        on both), and cannot be judged otherwise.
    """
    curve = check_table(curve, ["epsilon", "sensitive_accuracy", "label_accuracy"], name="curve")
    if not isinstance(imposter, (tuple, list)) or len(imposter) != 2:
        raise TypeError("imposter must be a pair (accuracy on s, accuracy on the label).")
    s_imp, l_imp = (float(v) for v in imposter)
    paper = PAPER_CLAIMS["Fig. 7"]
    fig = f"{_PAPER}, Fig. 7"
    c = curve.dropna(subset=["sensitive_accuracy", "label_accuracy"])
    c = c.groupby("epsilon", as_index=False)[["sensitive_accuracy", "label_accuracy"]].mean()
    if c.empty:
        return Claim(fig, paper, None, "The kRR curve has no points.")
    order = np.argsort(c["sensitive_accuracy"].to_numpy(), kind="stable")
    xs = c["sensitive_accuracy"].to_numpy()[order]
    ys = c["label_accuracy"].to_numpy()[order]
    eps = c["epsilon"].to_numpy()[order]
    if xs[0] <= s_imp <= xs[-1]:
        matched = float(np.interp(s_imp, xs, ys))
        near = int(np.argmin(np.abs(xs - s_imp)))
        holds = bool(matched < l_imp)
        finding = (f"At IMPOSTER's accuracy on s ({_g(s_imp)}) kRR's label accuracy is {_g(matched)} "
                   f"(interpolated; nearest budget epsilon = {eps[near]:g}), "
                   f"{'below' if holds else 'not below'} IMPOSTER's {_g(l_imp)}.")
        return Claim(fig, paper, holds, finding)
    end = 0 if s_imp < xs[0] else len(xs) - 1
    side = "below" if end == 0 else "above"
    dominated = bool(xs[end] >= s_imp and ys[end] < l_imp)
    finding = (f"No kRR budget matches IMPOSTER's accuracy on s ({_g(s_imp)}, {side} kRR's range "
               f"{_g(xs[0])}-{_g(xs[-1])}); at the nearest budget epsilon = {eps[end]:g} kRR has "
               f"{_g(xs[end])} on s and {_g(ys[end])} on the label against IMPOSTER's {_g(l_imp)}"
               + (": kRR leaks more and is less useful." if dominated else
                  ": that does not decide the comparison."))
    return Claim(fig, paper, True if dominated else None, finding)


# ---------------------------------------------------------------------------- Table 2
def _sweep_runs(runs: pd.DataFrame, key: str, columns: Sequence[str]) -> pd.DataFrame:
    runs = check_table(runs, [key, *columns], name="runs")
    done = runs.dropna(subset=list(columns))
    return done.groupby(key, as_index=False)[list(columns)].mean().sort_values(key)


def table2_claim(runs: pd.DataFrame, *, tolerance: float = 0.03) -> Claim:
    """Table 2: a lower theta protects more attributes, setting-B s-accuracy is within
    ``tolerance`` of the majority share for every theta, and the setting-B label accuracy
    at the largest theta is below that at the smallest.

    Parameters
    ----------
    runs : DataFrame
        :func:`core.imposter.theta_sweep`: ``theta``, ``implicit``, ``B_sensitive_accuracy``,
        ``B_label_accuracy``, ``A_label_accuracy``, ``majority_synthetic``.
    tolerance : float
        How near the floor "near" is.

    Returns
    -------
    Claim
        Cannot be judged with fewer than two thetas that trained a model.
    """
    runs = check_table(runs, ["theta", "implicit"], name="runs")
    tolerance = _tolerance(tolerance, "tolerance")
    paper = PAPER_CLAIMS["Table 2"]
    fig = f"{_PAPER}, Table 2"
    cols = ["B_sensitive_accuracy", "B_label_accuracy", "A_label_accuracy", "majority_synthetic"]
    trained = runs.dropna(subset=[c for c in cols if c in runs.columns]) if all(
        c in runs.columns for c in cols) else runs.iloc[:0]
    if trained["theta"].nunique() < 2:
        return Claim(fig, paper, None,
                     f"Only {trained['theta'].nunique()} theta trained a model; the claim compares thetas "
                     "(add a second one to the grid).")
    counts = runs.assign(n=runs["implicit"].map(lambda v: len(v) if isinstance(v, (list, tuple)) else 0))
    counts = counts.groupby("theta")["n"].max().sort_index()
    more = bool(counts.is_monotonic_decreasing and counts.iloc[0] > counts.iloc[-1])
    t = trained.groupby("theta")[cols].mean().sort_index()
    gap = (t["B_sensitive_accuracy"] - t["majority_synthetic"]).abs()
    near = bool(gap.max() <= tolerance)
    lo, hi = t.index[0], t.index[-1]
    b_lo, b_hi = t.loc[lo, "B_label_accuracy"], t.loc[hi, "B_label_accuracy"]
    falls = bool(b_hi < b_lo)
    count_text = ", ".join(f"{n} at {th:g}" for th, n in counts.items())
    finding = (f"Protected attributes: {count_text} ({'more' if more else 'not more'} at lower theta); "
               f"setting-B accuracy on s is at most {_g(gap.max())} from the majority share "
               f"({'within' if near else 'not within'} {tolerance:g} for every theta; worst at theta = "
               f"{gap.idxmax():g}); label accuracy in B is {_g(b_lo)} at theta = {lo:g} and {_g(b_hi)} "
               f"at {hi:g} ({'falls' if falls else 'does not fall'}; A: {_g(t.loc[lo, 'A_label_accuracy'])} "
               f"and {_g(t.loc[hi, 'A_label_accuracy'])}).")
    return Claim(fig, paper, more and near and falls, finding)


# ---------------------------------------------------------------------------- Fig. 8
def fig8_claim(runs: pd.DataFrame, *, tolerance: float = 0.03, level: float = 0.05) -> Claim:
    """Fig. 8: setting-B s-accuracy at the smallest lambda (below 1) exceeds its value at
    every lambda >= 1, where it is within ``tolerance`` of the majority share; the
    setting-B label accuracy spans at most ``level`` over the grid.

    Parameters
    ----------
    runs : DataFrame
        :func:`core.imposter.lambda_sweep`: ``lambda``, ``B_sensitive_accuracy``,
        ``B_label_accuracy``, ``majority_synthetic`` (repetitions are averaged).
    tolerance, level : float
        How near the floor "near" is; how much the label accuracy may move.

    Returns
    -------
    Claim
        Cannot be judged without a lambda below 1 and one at 1 or more.
    """
    tolerance = _tolerance(tolerance, "tolerance")
    level = _tolerance(level, "level")
    t = _sweep_runs(runs, "lambda", ["B_sensitive_accuracy", "B_label_accuracy", "majority_synthetic"])
    t = t.set_index("lambda")
    paper = PAPER_CLAIMS["Fig. 8"]
    fig = f"{_PAPER}, Fig. 8"
    small, large = t[t.index < 1], t[t.index >= 1]
    if small.empty or large.empty:
        return Claim(fig, paper, None,
                     "The grid needs a lambda below 1 (0 is the paper's start) and one of 1 or more "
                     f"to judge the fall; it has {', '.join(f'{v:g}' for v in t.index) or 'none'}.")
    lam0 = small.index[0]
    s0 = float(t.loc[lam0, "B_sensitive_accuracy"])
    s_large = large["B_sensitive_accuracy"]
    falls = bool(s0 > s_large.max())
    gap = (s_large - large["majority_synthetic"]).abs()
    near = bool(gap.max() <= tolerance)
    span = float(t["B_label_accuracy"].max() - t["B_label_accuracy"].min())
    flat = bool(span <= level)
    finding = (f"Setting-B accuracy on s is {_g(s0)} at lambda = {lam0:g} and {_g(s_large.min())}-"
               f"{_g(s_large.max())} for lambda >= 1 ({'falls' if falls else 'does not fall'}; at most "
               f"{_g(gap.max())} from the majority share, {'within' if near else 'beyond'} {tolerance:g}); "
               f"label accuracy spans {_g(span)} over the grid ({'level' if flat else 'not level'}: "
               f"{level:g} allowed).")
    return Claim(fig, paper, falls and near and flat, finding)
