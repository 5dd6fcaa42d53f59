"""Charts of the paper-000 pages: pure functions from results to plotly figures."""
from __future__ import annotations


import numpy as np
import pandas as pd
import plotly.express as px
import plotly.graph_objects as go

from core.cdp.dc_fbfs import DCFBFSResult

__all__ = [
    "association_heatmap",
    "record_heatmap",
    "sensitivity_bars",
    "importance_dc_bars",
    "traversal_curves",
    "accuracy_bars",
    "curve_with_spread",
]

_LAYOUT = dict(margin=dict(l=10, r=10, t=40, b=10))


def association_heatmap(matrix: pd.DataFrame, *, title: str) -> go.Figure:
    """Attribute x attribute association, 0 (white) to 1 (dark)."""
    fig = px.imshow(matrix, zmin=0, zmax=1, color_continuous_scale="Blues", text_auto=".2f",
                    aspect="auto", title=title)
    fig.update_layout(height=480, **_LAYOUT)
    return fig


def record_heatmap(matrix: np.ndarray, *, threshold: float, measure: str) -> go.Figure:
    """Thresholded record-correlation matrix of a sample (rows sorted by how correlated they are)."""
    fig = px.imshow(np.asarray(matrix), zmin=0, zmax=1, color_continuous_scale="Viridis",
                    title=f"Record correlation ({measure}, delta0 = {threshold:g}) of {len(matrix)} records",
                    labels=dict(x="record", y="record", color="delta"))
    fig.update_layout(height=480, **_LAYOUT)
    return fig


def sensitivity_bars(correlated: float, group: float) -> go.Figure:
    """CS beside GS: the noise of a count query scales with the bar."""
    frame = pd.DataFrame({"sensitivity": ["Correlated (CS)", "Group (GS)"], "value": [correlated, group]})
    fig = px.bar(frame, x="sensitivity", y="value", text_auto=".2f", color="sensitivity",
                 title="Count-query sensitivity")
    fig.update_layout(height=320, showlegend=False, **_LAYOUT)
    return fig


def importance_dc_bars(result: DCFBFSResult) -> go.Figure:
    """Fig. 2: change of data correlation when each feature is deleted, and its importance."""
    fig = go.Figure()
    fig.add_bar(x=result.names, y=result.dc, name="DC (change of C(x))", marker_color="#1f77b4",
                yaxis="y")
    fig.add_bar(x=result.names, y=result.importance, name="importance", marker_color="#d62728",
                yaxis="y2", opacity=0.7)
    fig.add_hline(y=result.tc, line_dash="dash", annotation_text=f"T_c = {result.tc:g}")
    fig.update_layout(
        barmode="group", height=420, title="DC and feature importance per attribute",
        yaxis=dict(title="DC"), yaxis2=dict(title="importance", overlaying="y", side="right"),
        legend=dict(orientation="h", y=-0.25), **_LAYOUT,
    )
    return fig


def traversal_curves(result: DCFBFSResult) -> go.Figure:
    """Fig. 3: accuracy of the forward and backward traversals, best positions marked."""
    k = np.arange(1, len(result.names) + 1)
    fig = go.Figure()
    fig.add_scatter(x=k, y=result.forward_accuracy, mode="lines+markers", name="forward (top-k)")
    fig.add_scatter(x=k, y=result.backward_accuracy, mode="lines+markers",
                    name="backward (top n+1-k)")
    fig.add_scatter(x=[result.k1], y=[result.forward_accuracy[result.k1 - 1]], mode="markers",
                    marker=dict(size=14, symbol="star"), name=f"k1 = {result.k1}")
    fig.add_scatter(x=[result.k2], y=[result.backward_accuracy[result.k2 - 1]], mode="markers",
                    marker=dict(size=14, symbol="diamond"), name=f"k2 = {result.k2}")
    fig.update_layout(height=380, title="Forward and backward traversal", xaxis_title="step k",
                      yaxis_title="cross-validated accuracy", **_LAYOUT)
    return fig


def accuracy_bars(runs: pd.DataFrame, *, epsilon: float) -> go.Figure:
    """Test accuracy of each scheme at one epsilon (mean of the runs, error bar = std).

    Built from graph objects, not plotly express: it is redrawn on every slider move.
    """
    g = runs.groupby("scheme", sort=False)["accuracy"].agg(["mean", "std"])
    palette = px.colors.qualitative.Plotly
    bar = go.Bar(
        x=list(g.index), y=g["mean"].to_numpy(),
        error_y=dict(type="data", array=g["std"].fillna(0.0).to_numpy()),
        text=[f"{v:.3f}" for v in g["mean"]], textposition="auto",
        marker_color=[palette[i % len(palette)] for i in range(len(g))],
    )
    return go.Figure(
        data=[bar],
        layout=dict(height=360, title=f"Accuracy at epsilon = {epsilon:g}", showlegend=False,
                    yaxis=dict(title="test accuracy", range=[0, 1]), **_LAYOUT),
    )


def curve_with_spread(
    summary: pd.DataFrame,
    *,
    group: str,
    value: str,
    title: str,
    y_title: str,
    marker_x: float | None = None,
    log_y: bool = False,
    labels: dict | None = None,
) -> go.Figure:
    """Mean of ``value`` over epsilon per ``group``, with a band of one standard deviation."""
    traces = []
    palette = px.colors.qualitative.Plotly
    for i, (name, g) in enumerate(summary.groupby(group, sort=False)):
        g = g.sort_values("epsilon")
        x = g["epsilon"].to_numpy()
        mean, std = g[f"{value}_mean"].to_numpy(), g[f"{value}_std"].fillna(0.0).to_numpy()
        color = palette[i % len(palette)]
        label = str(labels.get(name, name)) if labels else str(name)
        lower = np.maximum(mean - std, 1e-9) if log_y else mean - std
        traces.append(go.Scatter(x=np.r_[x, x[::-1]], y=np.r_[mean + std, lower[::-1]],
                                 fill="toself", fillcolor=color, opacity=0.15, line=dict(width=0),
                                 hoverinfo="skip", showlegend=False, legendgroup=label))
        traces.append(go.Scatter(x=x, y=mean, mode="lines+markers", name=label,
                                 line=dict(color=color), legendgroup=label))
    layout = dict(height=400, title=title, xaxis=dict(title="epsilon"),
                  yaxis=dict(title=y_title, type="log" if log_y else "linear"), **_LAYOUT)
    if marker_x is not None:  # a layout shape: add_vline is slow on the slider path
        layout["shapes"] = [dict(type="line", xref="x", yref="paper", x0=marker_x, x1=marker_x,
                                 y0=0, y1=1, line=dict(dash="dot", color="grey"))]
        layout["annotations"] = [dict(x=marker_x, y=1, xref="x", yref="paper", showarrow=False,
                                      yanchor="bottom", text=f"epsilon = {marker_x:g}")]
    return go.Figure(data=traces, layout=layout)
