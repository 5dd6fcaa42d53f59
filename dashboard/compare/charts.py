"""Charts of the Compare page: pure functions from a comparison summary to plotly figures."""
from __future__ import annotations

import html
from typing import Mapping

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from dashboard.shared.widgets.charts import number
from dashboard.shared.widgets.palette import color

__all__ = ["MEASURE_WORDS", "frontier_chart", "utility_lines", "MAJORITY_LINE", "NONPRIVATE_LINE", "RAW_LINE", "CONTROL_LINE",
           "VIOLATION_MARKER", "audit_hover"]

#: Axis words of the measures a user can put on the frontier (core.compare.run's column names).
MEASURE_WORDS: dict[str, str] = {
    "utility": "utility: accuracy on real held-out records",
    "utility_auc": "utility: ROC AUC on real held-out records",
    "utility_balanced": "utility: balanced accuracy on real held-out records",
    "tv_one_way": "one-way marginal TV (lower is more faithful)",
    "tv_two_way": "two-way marginal TV (lower is more faithful)",
    "ai_advantage": "attribute-inference advantage over the majority guess",
    "ai_member": "attribute-inference advantage on the people in the release (over the control)",
    "dcr_excess": "distance-to-closest-record risk above the holdout baseline",
    "dcr_risk": "distance-to-closest-record risk",
    "mia_auc": "membership-inference AUC (0.5 = guessing)",
    "mia_advantage": "membership-inference advantage (TPR - FPR)",
}
_HOVER = ("utility", "utility_auc", "utility_balanced", "tv_one_way", "tv_two_way", "mse", "ai_advantage", "ai_member", "dcr_risk", "dcr_excess",
          "mia_auc", "ledger_epsilon")
#: The names of the reference lines (the legend's words; shared with the other accuracy charts).
MAJORITY_LINE = "majority class (constant guess)"
NONPRIVATE_LINE = "non-private model"
RAW_LINE = "raw table (no protection)"
CONTROL_LINE = "control (no more than without the release)"
#: The legend's words of the points whose audited lower bound exceeds their claimed epsilon.
VIOLATION_MARKER = "audit violation (lower bound above the claim)"
_LAYOUT = dict(margin=dict(l=10, r=10, t=60, b=10))


def _value(row: pd.Series, measure: str, stat: str = "mean") -> float:
    v = row.get(f"{measure}_{stat}", np.nan)
    return float(v) if pd.notna(v) else np.nan


def _reason(row: pd.Series) -> str:
    """Why a release is not DP (the ledger's sentence after its first colon), escaped and wrapped."""
    text = str(row.get("guarantee", "") or "")
    reason = text.split(": ", 1)[1] if ": " in text else ""
    words, lines, line = html.escape(reason).split(), [], ""
    for w in words:
        if len(line) + len(w) > 70 and line:
            lines.append(line)
            line = ""
        line = f"{line} {w}".strip()
    if line:
        lines.append(line)
    return "<br>".join(lines[:4]) + (" ..." if len(lines) > 4 else "")


def _hover(row: pd.Series) -> str:
    eps = row.get("epsilon", np.nan)
    dp = bool(row.get("is_dp", False))
    setting = "" if pd.isna(eps) else (f", epsilon {float(eps):g}" if dp else f", nominal epsilon {float(eps):g}")
    lines = [html.escape(str(row["method"])) + setting,
             "differentially private" if dp else "NOT differentially private"]
    if not dp and _reason(row):
        lines.append(_reason(row))
    audit = audit_hover(row)
    if audit:
        lines.append(audit)
    for m in _HOVER:
        mean = _value(row, m)
        if np.isfinite(mean):
            sd = _value(row, m, "std")
            lines.append(f"{m}: {number(mean, decimals=3)}" + (f" ± {number(sd, decimals=3)}" if sd > 0 else ""))
    return "<br>".join(lines)


def _violated(row: pd.Series) -> bool:
    v = row.get("audit_violation", None)
    return isinstance(v, (bool, np.bool_)) and bool(v)


def audit_hover(row: pd.Series) -> str:
    """One point's privacy audit in one hover line ("" where no audit applies; "not audited" for a DP
    point whose audit could not run, with no bound from a stand-in): the audited
    lower bound against the claimed epsilon and the ceiling its runs allow, and whether the
    bound exceeds the claim or the claim is above what the audit can test."""
    lower, claim, ceiling = (_value(row, "audit", part) for part in ("lower", "claim", "ceiling"))  # audit_lower ...
    if not np.isfinite(lower):
        verdict = str(row.get("audit_verdict", "") or "")
        return "audit: not audited (the audit table says why)" if verdict.startswith("not audited") else ""
    text = f"audit: lower bound {lower:.3g} for the claim {claim:.3g} (ceiling {ceiling:.3g})"
    if _violated(row):
        return "<b>" + text + ": VIOLATION</b>"
    if np.isfinite(claim) and claim > ceiling:
        return text + ": the audit cannot test this claim"
    return text


def _violation_trace(summary: pd.DataFrame, *, utility: str, risk: str) -> go.Scatter | None:
    """A large red circled cross over every point whose audit found a lower bound above its claim."""
    if "audit_violation" not in summary:
        return None
    bad = summary[[_violated(r) for _, r in summary.iterrows()]]
    x = [_value(r, risk) for _, r in bad.iterrows()]
    y = [_value(r, utility) for _, r in bad.iterrows()]
    keep = [np.isfinite(a) and np.isfinite(b) for a, b in zip(x, y)]
    if not any(keep):
        return None
    hover = [_hover(r) for (_, r), k in zip(bad.iterrows(), keep) if k]
    return go.Scatter(x=[a for a, k in zip(x, keep) if k], y=[b for b, k in zip(y, keep) if k],
                      name=VIOLATION_MARKER, mode="markers", hovertext=hover, hoverinfo="text",
                      marker=dict(symbol="circle-x-open", size=22, color="#b00020", line=dict(width=2.5)))


def _span(values: list[float]) -> tuple[float, float]:
    v = [x for x in values if np.isfinite(x)]
    if not v:
        return 0.0, 1.0
    lo, hi = min(v), max(v)
    pad = 0.05 * (hi - lo) if hi > lo else 0.05
    return lo - pad, hi + pad


def utility_lines(references: Mapping, utility: str) -> tuple[float, float] | None:
    """The constant guess's and the non-private model's values on the utility measure
    ``utility`` (accuracy, ROC AUC or balanced accuracy), or None where there are none."""
    util = references.get("utility") or {}
    by = util.get("by_measure")
    if by is not None and utility in by:
        return float(by[utility]["guess"]), float(by[utility]["nonprivate"])
    if util and utility == "utility":  # a result saved before AUC: accuracy only
        return float(util["majority"]), float(util["nonprivate"])
    return None


def _reference_lines(traces: list, references: Mapping, *, utility: str, risk: str) -> list[go.Scatter]:
    """Horizontal utility references and vertical risk references spanning the points."""
    xs = [float(x) for t in traces for x in t.x if x is not None]
    ys = [float(y) for t in traces for y in t.y if y is not None]
    util = utility_lines(references, utility)
    entry = (references.get("risks") or {}).get(risk)
    hlines = [] if not util else [(MAJORITY_LINE, util[0], "dash", "#888888"),
                                  (NONPRIVATE_LINE, util[1], "dot", "#333333")]
    vlines = [] if not entry else [(RAW_LINE, entry["raw"], "dashdot", "#b00020"),
                                   (CONTROL_LINE, entry["control"], "longdash", "#2e7d32")]
    x0, x1 = _span(xs + [v for _, v, _, _ in vlines])
    y0, y1 = _span(ys + [v for _, v, _, _ in hlines])
    out = []
    for name, v, dash, c in hlines:
        if np.isfinite(v):
            out.append(go.Scatter(x=[x0, x1], y=[v, v], name=name, mode="lines", hoverinfo="name+y",
                                  line=dict(color=c, dash=dash, width=1.5)))
    for name, v, dash, c in vlines:
        if np.isfinite(v):
            out.append(go.Scatter(x=[v, v], y=[y0, y1], name=name, mode="lines", hoverinfo="name+x",
                                  line=dict(color=c, dash=dash, width=1.5)))
    return out


def frontier_chart(summary: pd.DataFrame, front: pd.DataFrame | None = None, *, utility: str = "utility",
                   risk: str = "ai_advantage", title: str = "Privacy-utility frontier",
                   words: Mapping[str, str] | None = None,
                   references: Mapping | None = None) -> go.Figure:
    """Utility (up is better) against an empirical risk (left is better), one series per method.

    Parameters
    ----------
    summary : DataFrame
        :func:`core.compare.result.summarize_runs`: one row per (method, epsilon), ``<measure>_mean``
        and ``<measure>_std`` columns.
    front : DataFrame, optional
        :func:`core.compare.result.pareto_front` of the same summary, drawn as a dashed step line.
    utility, risk : str
        The measures on the y and x axes.
    words : mapping, optional
        Axis titles by measure (default :data:`MEASURE_WORDS`).
    references : mapping, optional
        :attr:`core.compare.result.ComparisonResult.references`: drawn as reference lines, named in
        the legend: for the utility a dashed grey "majority class (constant guess)" and a
        dotted "non-private model"; for the risk a vertical line at the raw table and one at
        its control (where the two coincide, the attack has no power on this table).

    Notes
    -----
    A method that takes epsilon is a line through its epsilons (in increasing order, each
    point labelled with its epsilon); one without is a single point. Whiskers are one
    standard deviation over repetitions on both axes. Filled markers are differentially
    private releases, crosses are not. Points missing either measure are left out (e.g. a
    model under a table-only risk). With the audit columns of
    :func:`core.compare.result.summarize_runs` (``audit_lower``, ``audit_claim``,
    ``audit_ceiling``, ``audit_violation``), each DP point's hover says its audit
    (:func:`audit_hover`), and a point whose audited lower bound exceeds its claim gets a large
    red circled cross, named :data:`VIOLATION_MARKER` in the legend.
    """
    words = {**MEASURE_WORDS, **(words or {})}
    traces = []
    for method, g in summary.groupby("method", sort=False):
        g = g.sort_values("epsilon", na_position="first")
        x = np.array([_value(r, risk) for _, r in g.iterrows()])
        y = np.array([_value(r, utility) for _, r in g.iterrows()])
        keep = np.isfinite(x) & np.isfinite(y)
        if not keep.any():
            continue
        g = g[keep]
        dp = bool(g["is_dp"].iloc[0]) if "is_dp" in g else False
        c = color(method)
        eps = g["epsilon"].to_numpy(float)
        text = [f"{e:g}" if np.isfinite(e) else "" for e in eps]
        traces.append(go.Scatter(
            x=x[keep], y=y[keep], name=str(method), mode="lines+markers+text" if len(g) > 1 else "markers",
            text=text, textposition="top center", textfont=dict(size=10, color=c),
            line=dict(color=c, width=1.5), hovertext=[_hover(r) for _, r in g.iterrows()], hoverinfo="text",
            marker=dict(color=c, size=10, symbol="circle" if dp else "x", line=dict(width=1, color="white")),
            error_x=dict(type="data", array=[_value(r, risk, "std") for _, r in g.iterrows()], thickness=1,
                         width=0, color=c),
            error_y=dict(type="data", array=[_value(r, utility, "std") for _, r in g.iterrows()], thickness=1,
                         width=0, color=c),
        ))
    violations = _violation_trace(summary, utility=utility, risk=risk)
    traces += _reference_lines(traces, references or {}, utility=utility, risk=risk)
    if violations is not None:
        traces.append(violations)
    if front is not None and len(front):
        fx = [_value(r, risk) for _, r in front.iterrows()]
        fy = [_value(r, utility) for _, r in front.iterrows()]
        traces.append(go.Scatter(x=fx, y=fy, name="Pareto front", mode="lines", hoverinfo="skip",
                                 line=dict(color="#555555", dash="dash", width=1.5, shape="hv")))
    layout = dict(height=480, title=title, xaxis=dict(title=words.get(risk, risk), zeroline=True),
                  yaxis=dict(title=words.get(utility, utility)), legend=dict(title="method (x: not DP)"),
                  annotations=[dict(xref="paper", yref="paper", x=0.0, y=1.0, xanchor="left", yanchor="bottom",
                                    showarrow=False, text="better: up and to the left",
                                    font=dict(size=11, color="#555555"))],
                  **_LAYOUT)
    return go.Figure(data=traces, layout=layout)
