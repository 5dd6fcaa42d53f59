"""Paper 000's claims checked on our numbers: one pure function per figure or table.

Each takes what the page (or ``pux reproduce``) computed and returns a
:class:`core.claims.claim.Claim`: the paper's words (from :mod:`core.cdp.paper`, the one
source), whether our numbers bear them out under a stated rule, and one sentence with the
numbers that decide it. No randomness, no streamlit.

The rules:

Degenerate statistics (:mod:`core.claims.degenerate`) never make a claim hold: a tie
(equal within a relative 1e-6), a constant series, a Pearson record correlation from fewer
than 3 features, a count at its N(N-1)/2 ceiling. The claim then cannot be judged and says
which one and why.

- **Fig. 1** (C(x) falls as features are added): Spearman's rho between the number of
  features k and C(x) is below -0.5, and C(x) with all p features is below C(x) at the
  first k where it is defined. Points from a degenerate record correlation (k < 3 under
  Pearson) or at the N(N-1)/2 ceiling are left out (the table's ``attrs`` name the measure
  and N); needs 3 points left that are not constant.
- **Fig. 2** (DC and importance rank the features differently): the top feature by DC
  differs from the top by importance (a top tied with the next decides nothing), or
  Kendall's tau between the two is below 0.5; cannot be judged when DC or importance is
  constant across the features.
- **Fig. 3** (the traversals find redundant features): F_fb_del holds at least one
  feature and not all of them. With ``reference`` (the constant guess), when every
  accuracy of both traversals lies at or below the top of its interval the claim cannot
  be judged.
- **Table 1** (DC-FBFS deletes only what both criteria call removable): F_del, the
  intersection, holds at least one feature and keeps at least one; cannot be judged, as
  Fig. 3, when the traversals never beat the constant guess.
- **Table 2** (CS < GS at every stage): CS is below GS at every stage computed; a stage
  where the two are tied cannot be judged.
- **Fig. 4** (Proposed at least as accurate as Group and Zhang): its mean test accuracy
  over the epsilon grid is >= theirs (a tie cannot be judged). When the summary has the spread of the runs
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
- In Fig. 6, 7 and 8, two means tied cannot be judged.
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
from core.claims import degenerate as dg
from core.claims.claim import Claim, check_table

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


def _fig1_degenerate(t: pd.DataFrame, measure: str | None, n_records: int | None) -> tuple[np.ndarray, list[str]]:
    """Which points of a Fig. 1 table are degenerate, and why in words (one phrase per kind)."""
    k = t["features"].to_numpy()
    few = np.array([measure is not None and dg.pearson_degenerate(int(v), measure) for v in k], dtype=bool)
    ceiling = dg.pair_ceiling(int(n_records)) if n_records else None
    full = np.array([ceiling is not None and dg.at_ceiling(v, ceiling) for v in t["C(x)"]], dtype=bool)
    why = []
    if few.any():
        why.append(f"k = {_names(int(v) for v in k[few])} ({dg.PEARSON_REASON})")
    if (full & ~few).any():
        why.append(f"k = {_names(int(v) for v in k[full & ~few])}, where C(x) = N(N-1)/2 = {_g(ceiling)} for "
                   f"N = {int(n_records):,} ({dg.CEILING_REASON})")
    return few | full, why


def fig1_claim(table: pd.DataFrame, *, measure: str | None = None, n_records: int | None = None) -> Claim:
    """Fig. 1: C(x) decreases as features are added (``table`` from
    :func:`core.cdp.feature_count.correlation_by_feature_count`).

    ``measure`` (the record correlation) and ``n_records`` (N) default to the table's
    ``attrs``; with them, points from a degenerate record correlation or at C(x)'s
    N(N-1)/2 ceiling are left out of the rule (:mod:`core.claims.degenerate`)."""
    t = _frame(table, "table", ("features", "C(x)"))
    measure = measure if measure is not None else t.attrs.get("measure")
    n_records = n_records if n_records is not None else t.attrs.get("n_records")
    t = t[t["C(x)"].notna()].sort_values("features")
    label = _F + "Fig. 1"
    bad, why = _fig1_degenerate(t, measure, n_records)
    left_out = f" Left out as degenerate: {'; '.join(why)}." if why else ""
    t = t[~bad]
    if len(t) < 3:
        return Claim(label, PAPER_FIG1, None,
                     f"C(x) is defined and not degenerate for {len(t)} feature count(s); a trend needs 3 or more."
                     + left_out)
    k, c = t["features"].to_numpy(dtype=float), t["C(x)"].to_numpy(dtype=float)
    if dg.constant(c):
        return Claim(label, PAPER_FIG1, None,
                     f"C(x) is {_g(c[0])} from {int(k[0])} to {int(k[-1])} features: {dg.CONSTANT_REASON}."
                     + left_out)
    rho = float(stats.spearmanr(k, c).statistic)
    first, last = c[0], c[-1]
    falls = dg.below(last, first)
    holds = None if falls is None and rho < FIG1_RHO else bool(rho < FIG1_RHO and falls)
    tie = f"; the first and the last are {dg.TIE_REASON}" if holds is None else ""
    return Claim(label, PAPER_FIG1, holds,
                 f"C(x) goes from {_g(first)} with {int(k[0])} feature{'s' if k[0] != 1 else ''} to {_g(last)} "
                 f"with all {int(k[-1])}, "
                 f"Spearman rho(k, C(x)) = {rho:.2f}{tie} (the rule: rho < {FIG1_RHO} and C(x) of all features "
                 f"below C(x) of the first {int(k[0])}).{left_out}")


def fig2_claim(result: DCFBFSResult) -> Claim:
    """Fig. 2: the DC ranking and the importance ranking of the features differ."""
    r = _result(result)
    label = _F + "Fig. 2"
    if len(r.names) < 2:
        return Claim(label, PAPER_FIG2, None, "One feature: there is nothing to rank.")
    dc, imp = np.asarray(r.dc, dtype=float), np.asarray(r.importance, dtype=float)
    for values, what in ((dc, "DC (the change in C(x) when a feature is deleted)"), (imp, "the importance")):
        if dg.constant(values):
            return Claim(label, PAPER_FIG2, None,
                         f"{what} is {_g(values[0])} for every one of the {len(values)} features: "
                         f"{dg.CONSTANT_REASON}.")
    top_dc, top_imp = r.names[int(np.argmax(dc))], r.names[int(np.argmax(imp))]
    tops_tied = [w for v, w in ((dc, "DC"), (imp, "importance")) if dg.tied(*np.sort(v)[-2:][::-1])]
    tau = float(stats.kendalltau(dc, imp).statistic)
    differ = top_dc != top_imp and not tops_tied
    holds = bool(differ or tau < FIG2_TAU)
    tie = (f"; the top by {' and by '.join(tops_tied)} is tied with the next ({dg.TIE_REASON}), so which "
           "feature is on top decides nothing" if tops_tied else "")
    return Claim(label, PAPER_FIG2, holds,
                 f"deleting '{top_dc}' changes C(x) most, '{top_imp}' is the most important; Kendall tau "
                 f"between the two rankings = {tau:.2f}{tie} (the rule: different top features or tau < {FIG2_TAU}).")


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
    cs, gs = t["CS"].to_numpy(dtype=float), t["GS"].to_numpy(dtype=float)
    verdicts = [dg.below(a, b) for a, b in zip(cs, gs)]
    parts = "; ".join(f"{s}: CS {a} vs GS {b}" for s, (a, b) in zip(names, (_apart(x, y) for x, y in zip(cs, gs))))
    n_below = sum(v is True for v in verdicts)
    finding = f"CS is below GS at {n_below} of {len(t)} stages ({parts})"
    if False in verdicts:
        return Claim(label, PAPER_TABLE2_TEXT, False, finding + ".")
    if None in verdicts:
        tied = [s for s, v in zip(names, verdicts) if v is None]
        return Claim(label, PAPER_TABLE2_TEXT, None,
                     f"{finding}; at {_names(tied)} CS and GS are {dg.TIE_REASON}.")
    return Claim(label, PAPER_TABLE2_TEXT, True, finding + ".")


def _apart(a: float, b: float) -> tuple[str, str]:
    """``a`` and ``b`` as :func:`_g` writes them, with more decimals (up to 6) when they
    differ but would read the same."""
    x, y = _g(a), _g(b)
    for digits in range(1, 7):
        if x != y or a == b:
            break
        x, y = f"{a:,.{digits}f}", f"{b:,.{digits}f}"
    return x, y


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
        ties = [o for o in ("Group", "Zhang") if dg.tied(m["Proposed"], m[o])]
        holds = bool(m["Proposed"] >= m["Group"] and m["Proposed"] >= m["Zhang"])
        if ties and holds:
            holds = None
            close = [f"{o} ({dg.TIE_REASON})" for o in ties]
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
    holds = dg.below(m[p], m[g])
    tie = f"; Proposed and Group are {dg.TIE_REASON}" if holds is None else ""
    return Claim(label, PAPER_FIG6, holds,
                 f"mean MAE over the epsilon grid: Proposed {_g(m[p])}{share(m[p])}, Group {_g(m[g])}{share(m[g])}"
                 f"{zhang}{scale}{tie} (the rule: Proposed below Group).")


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
    holds = dg.below(a[pa], b[pb])
    tie = f"; the two are {dg.TIE_REASON}" if holds is None else ""
    return Claim(label, PAPER_FIG7, holds,
                 f"Proposed's mean MAE over the epsilon grid is {_g(a[pa])} with the product columns and "
                 f"{_g(b[pb])} without{tie} (the rule: lower with them).")


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
    verdicts = {s: dg.below(q, p) for s, (p, q) in pairs.items()}
    holds = False if False in verdicts.values() else (None if None in verdicts.values() else True)
    parts = "; ".join(f"{s} {_g(p)} (Pearson) vs {_g(q)} (Mahalanobis)" for s, (p, q) in pairs.items())
    tied = [s for s, v in verdicts.items() if v is None]
    tie = f"; for {' and '.join(tied)} the two are {dg.TIE_REASON}" if holds is None else ""
    return Claim(label, PAPER_FIG8, holds,
                 f"mean MAE over the epsilon grid: {parts}{tie} (the rule: Mahalanobis below Pearson for both).")
