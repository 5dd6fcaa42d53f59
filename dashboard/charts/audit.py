"""Chart of a privacy audit: the claimed epsilon against what the audit measured."""
from __future__ import annotations

import math

import pandas as pd
import plotly.graph_objects as go

__all__ = ["audit_interval", "audit_data"]


def audit_data(*, claimed: float, lower: float, point: float, confidence: float = 0.95) -> pd.DataFrame:
    """What :func:`audit_interval` draws, as one row: the claimed epsilon (inf when none is
    claimed), the audit's lower bound and point estimate (inf when the test made no error),
    the bound's confidence, and whether the bound exceeds the claim."""
    return pd.DataFrame({
        "claimed epsilon": [float(claimed)],
        "audited lower bound on epsilon": [float(lower)],
        "audited point estimate of epsilon": [float(point)],
        "confidence of the lower bound": [float(confidence)],
        "violation (lower bound above the claim)": [bool(math.isfinite(claimed) and lower > claimed)],
    })


def audit_interval(*, claimed: float, lower: float, point: float, confidence: float = 0.95) -> go.Figure:
    """One horizontal band from the audit's lower bound to its point estimate, and the claim.

    Parameters
    ----------
    claimed : float
        The epsilon the mechanism's ledger reports (inf when it claims none).
    lower : float
        The audit's lower bound on epsilon (holds with probability ``confidence``).
    point : float
        The point estimate on the evaluation half (may be inf when the test made no error).
    """
    finite = [v for v in (claimed, lower, point) if math.isfinite(v)]
    top = max(finite + [1.0]) * 1.25
    shown_point = point if math.isfinite(point) else top
    violation = math.isfinite(claimed) and lower > claimed
    colour = "#d62728" if violation else "#2ca02c"
    fig = go.Figure()
    fig.add_trace(go.Scatter(
        x=[lower, shown_point], y=["audit", "audit"], mode="lines+markers",
        line=dict(color=colour, width=10), marker=dict(size=14, color=colour),
        name=f"measured: {confidence:.0%} lower bound to point estimate",
        hovertemplate="epsilon %{x:.3f}<extra></extra>",
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
    fig.update_layout(
        height=190, title="Privacy audit: claimed vs measured epsilon",
        xaxis=dict(title="epsilon (privacy loss)", range=[0, top]),
        yaxis=dict(visible=False), showlegend=True,  # one band: no y quantity
        legend=dict(orientation="h", y=-0.6), shapes=shapes, annotations=notes,
        margin=dict(l=10, r=10, t=50, b=10),
    )
    return fig
