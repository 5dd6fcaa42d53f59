"""Paper 000's claims checked on our numbers: one pure function per figure or table.

Each takes what the page (or ``pux reproduce``) computed and returns a
:class:`core.papers.claim.Claim`: the paper's words (from :mod:`core.cdp.paper`, the one
source), whether our numbers bear them out under a stated rule, and one sentence with the
numbers that decide it. No randomness, no streamlit.

The rules:

- **Fig. 1** (C(x) falls as features are added): Spearman's rho between the number of
  features k and C(x) is below -0.5, and C(x) with all p features is below C(x) at the
  first k where it is defined (k = 2 under Pearson). Needs 3 defined points.
- **Fig. 2** (DC and importance rank the features differently): the top feature by DC
  differs from the top by importance, or Kendall's tau between the two is below 0.5.
- **Fig. 3** (the traversals find redundant features): F_fb_del holds at least one
  feature and not all of them. With ``reference`` (the constant guess), when every
  accuracy of both traversals lies at or below the top of its interval the claim cannot
  be judged.
- **Table 1** (DC-FBFS deletes only what both criteria call removable): F_del, the
  intersection, holds at least one feature and keeps at least one; cannot be judged, as
  Fig. 3, when the traversals never beat the constant guess.
- **Table 2** (CS < GS at every stage): CS is strictly below GS at every stage computed.
- **Fig. 4** (Proposed at least as accurate as Group and Zhang): its mean test accuracy
  over the epsilon grid is >= theirs. When the summary has the spread of the runs
  (``accuracy_std``, ``accuracy_n``), a gap smaller than twice its standard error is too
  close to call with that many runs: the claim then cannot be judged (unless Proposed is
  clearly below the other scheme). With ``reference`` (the constant guess on the test part,
  :func:`core.cdp.sweeps.constant_guess`), when every one of the three schemes' grid means
  lies at or below the top of its 95% interval, the claim cannot be judged: nothing beyond
  the majority class was learned, so which scheme is ahead is noise.
- **Fig. 5** (method 1 best or near-best): its mean accuracy over the grid is within
  0.01 of the best of the paper's differentially private methods 1, 2, 3, 5, 6 (method 4
  noises only N: its weights are not private, so it is left out; 0 adds no noise; 7 is
  beyond the paper). With ``reference``, when every one of those methods is at or below the
  constant guess's interval, the claim cannot be judged (the same reason as Fig. 4).
- **Fig. 6** (Proposed below Group): Proposed's mean MAE over the grid is below Group's.
- **Fig. 7** (product columns lower the MAE): Proposed's mean MAE over the grid with the
  product columns is below its mean without them.
- **Fig. 8** (Mahalanobis below Pearson): for both Zhang and Proposed, the mean MAE over
  the grid under Mahalanobis is below that under Pearson.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats

from core.cdp.dc_fbfs import DCFBFSResult
from core.cdp.paper import (
    PAPER_FIG1,
    PAPER_FIG2,
    PAPER_FIG3,
    PAPER_FIG4,
    PAPER_FIG5,
    PAPER_FIG6,
    PAPER_FIG7,
    PAPER_FIG8,
    PAPER_TABLE1,
    PAPER_TABLE1_TEXT,
    PAPER_TABLE2_TEXT,
)
from core.cdp.sweeps import Reference
from core.papers.claim import Claim, check_table

__all__ = [
    "fig1_claim", "fig2_claim", "fig3_claim", "table1_claim", "table2_claim",
    "fig4_claim", "fig5_claim", "fig6_claim", "fig7_claim", "fig8_claim",
    "FIG1_RHO", "FIG2_TAU", "FIG5_MARGIN",
]

#: Fig. 1 holds when Spearman's rho(k, C(x)) is below this
FIG1_RHO = -0.5
#: Fig. 2 holds when the top features differ or Kendall's tau is below this
FIG2_TAU = 0.5
#: Fig. 5: method 1 is near-best within this much mean accuracy
FIG5_MARGIN = 0.01
#: the paper's differentially private methods (0 adds no noise, 4 noises only N, 7 is beyond the paper)
PAPER_NOISY_METHODS = (1, 2, 3, 5, 6)

_F = "Paper 000, "


def _frame(table, name: str, columns: tuple[str, ...]) -> pd.DataFrame:
    return check_table(table, columns, name=name)


def _result(result) -> DCFBFSResult:
    if not isinstance(result, DCFBFSResult):
        raise TypeError(f"result must be a DCFBFSResult, got {type(result).__name__}.")
    return result


def _g(v: float) -> str:
    """A number as a reader reads it: 12,345 or 0.734."""
    v = float(v)
    return f"{v:,.0f}" if abs(v) >= 100 else f"{v:.3g}"


def _names(items) -> str:
    items = [str(i) for i in items]
    return ", ".join(items) if items else "none"


def fig1_claim(table: pd.DataFrame) -> Claim:
    """Fig. 1: C(x) decreases as features are added (``table`` from
    :func:`core.cdp.feature_count.correlation_by_feature_count`)."""
    t = _frame(table, "table", ("features", "C(x)"))
    t = t[t["C(x)"].notna()].sort_values("features")
    label = _F + "Fig. 1"
    if len(t) < 3:
        return Claim(label, PAPER_FIG1, None,
                     f"C(x) is defined for {len(t)} feature count(s); a trend needs 3 or more.")
    k, c = t["features"].to_numpy(dtype=float), t["C(x)"].to_numpy(dtype=float)
    rho = float(stats.spearmanr(k, c).statistic) if np.ptp(c) > 0 else 0.0
    first, last = c[0], c[-1]
    holds = bool(rho < FIG1_RHO and last < first)
    return Claim(label, PAPER_FIG1, holds,
                 f"C(x) goes from {_g(first)} with {int(k[0])} feature{'s' if k[0] != 1 else ''} to {_g(last)} "
                 f"with all {int(k[-1])}, "
                 f"Spearman rho(k, C(x)) = {rho:.2f} (the rule: rho < {FIG1_RHO} and C(x) of all features "
                 f"below C(x) of the first {int(k[0])}).")


def fig2_claim(result: DCFBFSResult) -> Claim:
    """Fig. 2: the DC ranking and the importance ranking of the features differ."""
    r = _result(result)
    label = _F + "Fig. 2"
    if len(r.names) < 2:
        return Claim(label, PAPER_FIG2, None, "One feature: there is nothing to rank.")
    dc, imp = np.asarray(r.dc, dtype=float), np.asarray(r.importance, dtype=float)
    top_dc, top_imp = r.names[int(np.argmax(dc))], r.names[int(np.argmax(imp))]
    tau = stats.kendalltau(dc, imp).statistic
    tau = 0.0 if not np.isfinite(tau) else float(tau)
    holds = bool(top_dc != top_imp or tau < FIG2_TAU)
    return Claim(label, PAPER_FIG2, holds,
                 f"deleting '{top_dc}' changes C(x) most, '{top_imp}' is the most important; Kendall tau "
                 f"between the two rankings = {tau:.2f} (the rule: different top features or tau < {FIG2_TAU}).")


def _traversals_unlearned(r: DCFBFSResult, reference) -> str | None:
    """The finding when every accuracy of both traversals is within or below the constant
    guess's interval (the features predict nothing), else None."""
    accs = np.r_[np.asarray(r.forward_accuracy, dtype=float), np.asarray(r.backward_accuracy, dtype=float)]
    if reference is None or not len(accs) or not all(reference.covers(a) for a in accs):
        return None
    return (f"every accuracy of both traversals (at most {float(np.max(accs)):.3f}) is no better than always "
            f"guessing the majority class, {reference.describe().replace('test rows', 'rows')}: the features "
            "predict nothing here, so which of them are 'redundant' is noise.")


def fig3_claim(result: DCFBFSResult, *, reference=None) -> Claim:
    """Fig. 3: the forward and backward traversals find redundant features. ``reference``
    (the constant guess on the labels): when every accuracy of both traversals is within or
    below its interval, the features predict nothing and the claim cannot be judged."""
    reference = _check_reference(reference)
    r = _result(result)
    n = len(r.names)
    unlearned = _traversals_unlearned(r, reference)
    if unlearned is not None:
        return Claim(_F + "Fig. 3", PAPER_FIG3, None, unlearned)
    holds = bool(0 < len(r.F_fb_del) < n)
    return Claim(_F + "Fig. 3", PAPER_FIG3, holds,
                 f"the forward accuracy peaks at k1 = {r.k1} of {n} features ({n - r.k1} redundant), the "
                 f"backward at step k2 = {r.k2} ({r.k2 - 1} removed); F_fb_del holds {len(r.F_fb_del)}: "
                 f"{_names(r.F_fb_del)} (the rule: at least one feature, not all).")


def table1_claim(result: DCFBFSResult, *, reference=None) -> Claim:
    """Table 1: DC-FBFS deletes the features both criteria call removable, and keeps some.
    ``reference`` (the constant guess): when the traversals never beat it, F_fb_del (one of
    the two criteria) is noise and the claim cannot be judged."""
    reference = _check_reference(reference)
    r = _result(result)
    n = len(r.names)
    unlearned = _traversals_unlearned(r, reference)
    if unlearned is not None:
        return Claim(_F + "Table 1", PAPER_TABLE1_TEXT, None, unlearned)
    holds = bool(0 < len(r.F_del) < n)
    paper = "/".join(str(PAPER_TABLE1[k][0]) for k in ("F_fb_del", "F_c_del", "F_del"))
    return Claim(_F + "Table 1", PAPER_TABLE1_TEXT, holds,
                 f"here F_fb_del / F_c_del / F_del delete {len(r.F_fb_del)} / {len(r.F_c_del)} / {len(r.F_del)} "
                 f"of {n} features at T_c = {_g(r.tc)} (the paper: {paper} of 6); F_del: {_names(r.F_del)} "
                 "(the rule: F_del deletes at least one feature and keeps at least one).")


def table2_claim(stages: pd.DataFrame) -> Claim:
    """Table 2: CS < GS at every stage (``stages``: one row per stage with 'GS' and 'CS',
    named in 'features deleted' or 'stage')."""
    t = _frame(stages, "stages", ("GS", "CS"))
    label = _F + "Table 2"
    if t.empty:
        return Claim(label, PAPER_TABLE2_TEXT, None, "No stage was computed.")
    name = "features deleted" if "features deleted" in t.columns else ("stage" if "stage" in t.columns else None)
    names = t[name].astype(str).tolist() if name else [str(i) for i in range(len(t))]
    below = (t["CS"].to_numpy(dtype=float) < t["GS"].to_numpy(dtype=float))
    parts = "; ".join(f"{s}: CS {_g(cs)} vs GS {_g(gs)}" for s, cs, gs in zip(names, t["CS"], t["GS"]))
    return Claim(label, PAPER_TABLE2_TEXT, bool(below.all()),
                 f"CS is below GS at {int(below.sum())} of {len(t)} stages ({parts}).")


def _means(summary: pd.DataFrame, group: str, value: str) -> dict:
    t = _frame(summary, "summary", (group, f"{value}_mean"))
    return {k: float(v) for k, v in t.groupby(group, sort=False)[f"{value}_mean"].mean().items()}


def _grid_mean_se(summary: pd.DataFrame, group: str, value: str) -> dict | None:
    """Standard error of each group's mean over the grid (the points' own standard errors
    combined), or None when the summary has no spread."""
    std, n = f"{value}_std", f"{value}_n"
    if std not in summary.columns or n not in summary.columns:
        return None
    t = summary.assign(_v=summary[std].astype(float) ** 2 / summary[n].clip(lower=1).astype(float))
    return {k: float(np.sqrt(g["_v"].sum()) / len(g)) for k, g in t.groupby(group, sort=False)}


def _check_reference(reference):
    if reference is not None and not isinstance(reference, Reference):
        raise TypeError(f"reference must be a core.cdp.sweeps.Reference or None, got {type(reference).__name__}.")
    return reference


def _explained(means: dict, names, reference) -> str | None:
    """The finding when the constant guess already explains every one of ``names``' means
    (each at or below the top of its interval), else None."""
    if reference is None or not all(reference.covers(means[n]) for n in names):
        return None
    parts = ", ".join(f"{n} {means[n]:.3f}" for n in names)
    return (f"mean test accuracy over the epsilon grid ({parts}) is no better than always guessing the "
            f"majority class, {reference.describe()}: nothing beyond the majority class was learned, "
            "so which one is ahead is noise, not the paper's effect.")


def fig4_claim(summary: pd.DataFrame, *, reference=None) -> Claim:
    """Fig. 4: Proposed at least as accurate as Group and Zhang, on average over the grid
    (``summary``: scheme, epsilon, accuracy_mean, and optionally accuracy_std and
    accuracy_n: then a gap within two standard errors is too close to call).

    ``reference`` (a :class:`core.cdp.sweeps.Reference`, the constant guess): when the three
    schemes all sit within or below it, the claim cannot be judged."""
    reference = _check_reference(reference)
    m = _means(summary, "scheme", "accuracy")
    label = _F + "Fig. 4"
    need = [s for s in ("Proposed", "Group", "Zhang") if s not in m]
    if need:
        return Claim(label, PAPER_FIG4, None, f"The curves lack {', '.join(need)}.")
    explained = _explained(m, ("Proposed", "Group", "Zhang"), reference)
    if explained is not None:
        return Claim(label, PAPER_FIG4, None, explained)
    se = _grid_mean_se(summary, "scheme", "accuracy")
    verdicts, close = [], []
    for other in ("Group", "Zhang"):
        gap = m["Proposed"] - m[other]
        band = 2 * float(np.hypot(se["Proposed"], se[other])) if se else 0.0
        verdicts.append(True if gap >= band else (False if gap < -band else None))
        if verdicts[-1] is None or (se and abs(gap) < band):
            close.append(f"{other} (gap {gap:+.3f}, two standard errors {band:.3f})")
    holds = False if False in verdicts else (None if None in verdicts else True)
    if se is None:
        holds = bool(m["Proposed"] >= m["Group"] and m["Proposed"] >= m["Zhang"])
    extra = f", Non-private {m['Non-private']:.3f}" if "Non-private" in m else ""
    tie = f"; too close to call against {' and '.join(close)}" if close and holds is None else ""
    return Claim(label, PAPER_FIG4, holds,
                 f"mean test accuracy over the epsilon grid: Proposed {m['Proposed']:.3f}, Group "
                 f"{m['Group']:.3f}, Zhang {m['Zhang']:.3f}{extra}{tie} (the rule: Proposed >= Group and >= Zhang, "
                 "by more than two standard errors of the runs' spread when it is known).")


def fig5_claim(summary: pd.DataFrame, *, reference=None) -> Claim:
    """Fig. 5: noise method 1 best or within 0.01 of the best of the paper's differentially
    private methods 1, 2, 3, 5, 6 on average over the grid (``summary``: method, epsilon,
    accuracy_mean). ``reference`` (the constant guess): when every one of those methods sits
    within or below it, the claim cannot be judged."""
    reference = _check_reference(reference)
    m = {int(k): v for k, v in _means(summary, "method", "accuracy").items()}
    label = _F + "Fig. 5"
    noisy = {k: v for k, v in m.items() if k in PAPER_NOISY_METHODS}
    if 1 not in noisy or len(noisy) < 2:
        return Claim(label, PAPER_FIG5, None,
                     "The curves need method 1 and another of the paper's private methods 2, 3, 5, 6.")
    explained = _explained({f"method {k}": v for k, v in noisy.items()},
                           [f"method {k}" for k in sorted(noisy)], reference)
    if explained is not None:
        return Claim(label, PAPER_FIG5, None, explained)
    best = max(noisy, key=lambda k: (noisy[k], -k))
    holds = bool(noisy[1] >= noisy[best] - FIG5_MARGIN)
    others = ", ".join(f"{k}: {v:.3f}" for k, v in sorted(noisy.items()))
    return Claim(label, PAPER_FIG5, holds,
                 f"mean test accuracy over the epsilon grid by method ({others}); the best is method {best} "
                 f"(the rule: method 1 within {FIG5_MARGIN} of the best of the private methods 1, 2, 3, 5, 6; "
                 "method 4 noises only N).")


def _scheme(m: dict, scheme: str, measure: str = "pearson") -> str | None:
    for name in (scheme, f"{scheme} ({measure})"):
        if name in m:
            return name
    return None


def fig6_claim(summary: pd.DataFrame, *, mean_true: float | None = None) -> Claim:
    """Fig. 6: Proposed's count-query MAE below Group's on average over the grid
    (``summary``: scheme, epsilon, mae_mean; "Proposed (pearson)" is read when both
    measures were run). ``mean_true``, the queries' mean true count: the finding gives each
    MAE as a share of it."""
    m = _means(summary, "scheme", "mae")
    label = _F + "Fig. 6"
    p, g, z = _scheme(m, "Proposed"), _scheme(m, "Group"), _scheme(m, "Zhang")
    if p is None or g is None:
        return Claim(label, PAPER_FIG6, None, "The curves need Proposed and Group.")
    def share(v: float) -> str:
        return f" ({100 * v / mean_true:.3g}% of the mean true count)" if mean_true else ""

    zhang = f", Zhang {_g(m[z])}{share(m[z])}" if z else ""
    scale = f"; the queries' mean true count is {_g(mean_true)}" if mean_true else ""
    return Claim(label, PAPER_FIG6, bool(m[p] < m[g]),
                 f"mean MAE over the epsilon grid: Proposed {_g(m[p])}{share(m[p])}, Group {_g(m[g])}{share(m[g])}"
                 f"{zhang}{scale} (the rule: Proposed below Group).")


def fig7_claim(with_products: pd.DataFrame | None, without_products: pd.DataFrame | None, *,
               reason: str = "") -> Claim:
    """Fig. 7: Proposed's MAE is lower with the product columns than without, on average
    over the grid. Either summary None: cannot be judged, ``reason`` says why."""
    label = _F + "Fig. 7"
    if with_products is None or without_products is None:
        return Claim(label, PAPER_FIG7, None, reason or "Both curves, with and without the product columns, are needed.")
    a, b = _means(with_products, "scheme", "mae"), _means(without_products, "scheme", "mae")
    pa, pb = _scheme(a, "Proposed"), _scheme(b, "Proposed")
    if pa is None or pb is None:
        return Claim(label, PAPER_FIG7, None, "Both curves need the Proposed scheme.")
    return Claim(label, PAPER_FIG7, bool(a[pa] < b[pb]),
                 f"Proposed's mean MAE over the epsilon grid is {_g(a[pa])} with the product columns and "
                 f"{_g(b[pb])} without (the rule: lower with them).")


def fig8_claim(summary: pd.DataFrame | None, *, reason: str = "") -> Claim:
    """Fig. 8: Mahalanobis below Pearson for Zhang and Proposed, on average over the grid
    (``summary``: schemes named "Proposed (pearson)", "Proposed (mahalanobis)", ...).
    None, or a summary without both measures: cannot be judged, ``reason`` says why."""
    label = _F + "Fig. 8"
    if summary is None:
        return Claim(label, PAPER_FIG8, None, reason or "The curves of both measures are needed.")
    m = _means(summary, "scheme", "mae")
    pairs = {s: (m.get(f"{s} (pearson)"), m.get(f"{s} (mahalanobis)")) for s in ("Zhang", "Proposed")}
    if any(p is None or q is None for p, q in pairs.values()):
        return Claim(label, PAPER_FIG8, None,
                     reason or "The curves need Zhang and Proposed under both Pearson and Mahalanobis.")
    holds = all(q < p for p, q in pairs.values())
    parts = "; ".join(f"{s} {_g(p)} (Pearson) vs {_g(q)} (Mahalanobis)" for s, (p, q) in pairs.items())
    return Claim(label, PAPER_FIG8, bool(holds),
                 f"mean MAE over the epsilon grid: {parts} (the rule: Mahalanobis below Pearson for both).")
