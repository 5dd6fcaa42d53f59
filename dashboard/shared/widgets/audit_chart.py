"""Chart of a privacy audit: the claimed epsilon against what the audit measured."""
from __future__ import annotations

import math

import pandas as pd
import plotly.graph_objects as go

from core.audit.result import UNBOUNDED_TEXT

__all__ = ["audit_interval", "audit_data", "point_words", "UNBOUNDED_SHORT"]

#: The chart's label for an infinite point estimate (the full sentence: core.audit.result.UNBOUNDED_TEXT).
UNBOUNDED_SHORT = "point estimate unbounded: an output seen on one dataset, never on the other"


def point_words(point: float) -> str:
    """The point estimate in words: '0.7', or what 'inf' means (core.audit.result.UNBOUNDED_TEXT)."""
    return UNBOUNDED_TEXT if math.isinf(point) else f"{point:.3g}"


def _saturated(lower: float, ceiling: float | None) -> bool:
    return ceiling is not None and math.isfinite(ceiling) and lower >= ceiling - 1e-9


def audit_data(*, claimed: float, lower: float, point: float, confidence: float = 0.95,
               ceiling: float | None = None, runs: int | None = None) -> pd.DataFrame:
    """What :func:`audit_interval` draws, as one row: the claimed epsilon (inf when none is
    claimed), the audit's lower bound and point estimate (inf when the test made no error),
    the bound's confidence, the point estimate in words (what an infinite one means), and
    whether the bound exceeds the claim. With ``ceiling``, also
    the largest bound the audit's runs could show and whether the bound reached it."""
    row = {
        "claimed epsilon": [float(claimed)],
        "audited lower bound on epsilon": [float(lower)],
        "audited point estimate of epsilon": [float(point)],
        "point estimate in words": [point_words(float(point))],
        "confidence of the lower bound": [float(confidence)],
        "violation (lower bound above the claim)": [bool(math.isfinite(claimed) and lower > claimed)],
    }
    if ceiling is not None:
        if runs is not None:
            row["runs per side"] = [int(runs)]
        row["ceiling (largest lower bound these runs can show)"] = [float(ceiling)]
        row["saturated (bound at the ceiling: more runs could show more)"] = [_saturated(lower, ceiling)]
    return pd.DataFrame(row)


def audit_interval(*, claimed: float, lower: float, point: float, confidence: float = 0.95,
                   ceiling: float | None = None, runs: int | None = None) -> go.Figure:
    """One horizontal band from the audit's lower bound to its point estimate, and the claim.

    Parameters
    ----------
    claimed : float
        The epsilon the mechanism's ledger reports (inf when it claims none).
    lower : float
        The audit's lower bound on epsilon (holds with probability ``confidence``).
    point : float
        The point estimate on the evaluation half; inf when the test made no error (an
        output seen on one dataset and never on the other: unbounded, limited only by the
        number of runs). Then the band runs to the axis end and a note says so in words.
    ceiling : float, optional
        The largest lower bound an audit with these runs could show
        (:func:`core.audit.bounds.audit_ceiling`), drawn as a dotted line: a bound on it means the
        audit saturated and more runs could show more.
    runs : int, optional
        The runs per side, named in the ceiling's label.
    """
    finite = [v for v in (claimed, lower, point, ceiling) if v is not None and math.isfinite(v)]
    top = max(finite + [1.0]) * 1.25
    shown_point = point if math.isfinite(point) else top
    violation = math.isfinite(claimed) and lower > claimed
    colour = "#d62728" if violation else "#2ca02c"
    fig = go.Figure()
    fig.add_trace(go.Scatter(
        x=[lower, shown_point], y=["audit", "audit"], mode="lines+markers",
        line=dict(color=colour, width=10), marker=dict(size=14, color=colour),
        name=f"measured: {confidence:.0%} lower bound to point estimate",
        customdata=[f"{confidence:.0%} lower bound: epsilon {lower:.3f}",
                    f"point estimate: epsilon {point:.3f}" if math.isfinite(point) else UNBOUNDED_SHORT],
        hovertemplate="%{customdata}<extra></extra>",
    ))
    shapes, notes = [], []
    if math.isfinite(claimed):
        shapes.append(dict(type="line", xref="x", yref="paper", x0=claimed, x1=claimed, y0=0, y1=1,
                           line=dict(color="black", dash="dash", width=2)))
        notes.append(dict(x=claimed, y=1, xref="x", yref="paper", showarrow=False, yanchor="bottom",
                          text=f"claimed epsilon = {claimed:.3g}"))
    else:
        notes.append(dict(x=top, y=1, xref="x", yref="paper", showarrow=False, yanchor="bottom",
                          xanchor="right", text="no epsilon claimed (not differentially private)"))
    if ceiling is not None and math.isfinite(ceiling):
        with_runs = f" with {runs:,} runs" if runs is not None else ""
        label = f"most this audit can show{with_runs} = {ceiling:.3g}"
        if _saturated(lower, ceiling):
            label += " (reached: saturated)"
        shapes.append(dict(type="line", xref="x", yref="paper", x0=ceiling, x1=ceiling, y0=0, y1=1,
                           line=dict(color="grey", dash="dot", width=2)))
        notes.append(dict(x=ceiling, y=0, xref="x", yref="paper", showarrow=False, yanchor="top",
                          xanchor="right", text=label, font=dict(color="grey")))
    if not math.isfinite(point):
        notes.append(dict(x=top, y=0.5, xref="x", yref="paper", showarrow=False, xanchor="right",
                          yanchor="bottom", text=UNBOUNDED_SHORT, font=dict(size=11)))
    fig.update_layout(
        height=190, title="Privacy audit: claimed vs measured epsilon",
        xaxis=dict(title="epsilon (privacy loss)", range=[0, top]),
        yaxis=dict(visible=False), showlegend=True,  # one band: no y quantity
        legend=dict(orientation="h", y=-0.6), shapes=shapes, annotations=notes,
        margin=dict(l=10, r=10, t=50, b=10),
    )
    return fig
