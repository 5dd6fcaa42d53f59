"""Charts of the paper-000 pages: pure functions from results to plotly figures."""
from __future__ import annotations


import numpy as np
import pandas as pd
import plotly.express as px
import plotly.graph_objects as go

from plotly.subplots import make_subplots

from core.cdp.dc_fbfs import DCFBFSResult
from dashboard.charts import number
from dashboard.palette import color, colors, log_ticks

__all__ = [
    "association_heatmap",
    "record_heatmap",
    "sensitivity_bars",
    "importance_dc_bars",
    "traversal_curves",
    "accuracy_bars",
    "curve_with_spread",
    "curve_with_baseline",
]

_LAYOUT = dict(margin=dict(l=10, r=10, t=60, b=10))
_DC_BLUE, _IMPORTANCE_RED = "#1f77b4", "#d62728"


def association_heatmap(matrix: pd.DataFrame, *, title: str) -> go.Figure:
    """Attribute x attribute association, 0 (white) to 1 (dark)."""
    fig = px.imshow(matrix, zmin=0, zmax=1, color_continuous_scale="Blues", text_auto=".2f",
                    aspect="auto", title=title,
                    labels=dict(x="attribute", y="attribute", color="association"))
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
    names = ["Correlated (CS)", "Group (GS)"]
    bar = go.Bar(x=names, y=[correlated, group], marker_color=[color("Proposed"), color("Group")],
                 text=[number(correlated), number(group)], textposition="auto")
    fig = go.Figure(data=[bar])
    fig.update_layout(height=320, showlegend=False, title="Count-query sensitivity: CS vs GS",
                      xaxis_title="sensitivity", yaxis=dict(title="value", tickformat=",~r"), **_LAYOUT)
    return fig


def importance_dc_bars(result: DCFBFSResult) -> go.Figure:
    """Fig. 2: change of data correlation when each feature is deleted, and its importance.

    Two panels sharing the features (DC above, with the T_c line; importance below), so the
    bars never overlap and each has its own axis.
    """
    fig = make_subplots(rows=2, cols=1, shared_xaxes=True, vertical_spacing=0.12,
                        subplot_titles=("DC: change of C(x) when the feature is deleted",
                                        "Random-forest importance"))
    fig.add_trace(go.Bar(x=list(result.names), y=result.dc, name="DC (change of C(x))",
                         marker_color=_DC_BLUE, hovertemplate="%{x}: DC %{y:,.2f}<extra></extra>"),
                  row=1, col=1)
    fig.add_trace(go.Bar(x=list(result.names), y=result.importance, name="importance",
                         marker_color=_IMPORTANCE_RED,
                         hovertemplate="%{x}: importance %{y:.3f}<extra></extra>"), row=2, col=1)
    fig.add_hline(y=result.tc, line_dash="dash", line_color="black", row=1, col=1,
                  annotation_text=f"T_c = {number(result.tc)}", annotation_position="top left",
                  annotation=dict(font=dict(size=13), bgcolor="rgba(255,255,255,0.85)"))
    fig.update_yaxes(title_text="DC", tickformat=",~r", row=1, col=1)
    fig.update_yaxes(title_text="importance", row=2, col=1)
    fig.update_xaxes(title_text="attribute", row=2, col=1)
    fig.update_layout(height=560, title="DC and feature importance per attribute (Fig. 2)",
                      showlegend=False, margin=dict(l=10, r=10, t=70, b=10))
    return fig


def traversal_curves(result: DCFBFSResult) -> go.Figure:
    """Fig. 3: accuracy of the forward and backward traversals, best positions marked."""
    k = np.arange(1, len(result.names) + 1)
    fig = go.Figure()
    fig.add_scatter(x=k, y=result.forward_accuracy, mode="lines+markers", name="forward (top-k)",
                    line=dict(color=_DC_BLUE))
    fig.add_scatter(x=k, y=result.backward_accuracy, mode="lines+markers",
                    name="backward (top n+1-k)", line=dict(color=_IMPORTANCE_RED))
    fig.add_scatter(x=[result.k1], y=[result.forward_accuracy[result.k1 - 1]], mode="markers",
                    marker=dict(size=14, symbol="star", color=_DC_BLUE), name=f"k1 = {result.k1}")
    fig.add_scatter(x=[result.k2], y=[result.backward_accuracy[result.k2 - 1]], mode="markers",
                    marker=dict(size=14, symbol="diamond", color=_IMPORTANCE_RED), name=f"k2 = {result.k2}")
    fig.update_layout(height=380, title="Forward and backward traversal (Fig. 3)", xaxis_title="step k",
                      yaxis_title="cross-validated accuracy", **_LAYOUT)
    return fig


def accuracy_bars(runs: pd.DataFrame, *, epsilon: float) -> go.Figure:
    """Test accuracy of each scheme at one epsilon (mean of the runs, error bar = std).

    The value labels sit inside the base of each bar, clear of the whiskers at the top.
    Built from graph objects, not plotly express: it is redrawn on every slider move.
    """
    g = runs.groupby("scheme", sort=False)["accuracy"].agg(["mean", "std"])
    bar = go.Bar(
        x=list(g.index), y=g["mean"].to_numpy(),
        error_y=dict(type="data", array=g["std"].fillna(0.0).to_numpy(), color="#333333"),
        text=[f"{v:.3f}" for v in g["mean"]], textposition="inside", insidetextanchor="start",
        textfont=dict(color="white"), marker_color=colors(g.index),
    )
    return go.Figure(
        data=[bar],
        # the title text is what the browser tests and the load benchmark wait for
        layout=dict(height=380, title=dict(text=f"Accuracy at epsilon = {epsilon:g}",
                                           subtitle=dict(text="test accuracy of each scheme: mean of the "
                                                              "runs, whisker = one standard deviation")),
                    showlegend=False, xaxis=dict(title="scheme"),
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
    log_x: bool = False,
    x_title: str = "epsilon",
    labels: dict | None = None,
) -> go.Figure:
    """Mean of ``value`` over epsilon per ``group``, with a band of one standard deviation.

    Colours come from :mod:`dashboard.palette` (one per scheme or noise method on every
    chart); a group named '... (mahalanobis)' is dashed beside its Pearson twin. ``log_x``
    draws epsilon on a log axis with 1-2-5 ticks (0.1, 0.2, 0.5, 1, ...).
    """
    traces = []
    for name, g in summary.groupby(group, sort=False):
        g = g.sort_values("epsilon")
        x = g["epsilon"].to_numpy()
        mean, std = g[f"{value}_mean"].to_numpy(), g[f"{value}_std"].fillna(0.0).to_numpy()
        c = color(name)
        label = str(labels.get(name, name)) if labels else str(name)
        dash = "dash" if "mahalanobis" in str(name) else "solid"
        lower = np.maximum(mean - std, 1e-9) if log_y else mean - std
        traces.append(go.Scatter(x=np.r_[x, x[::-1]], y=np.r_[mean + std, lower[::-1]],
                                 fill="toself", fillcolor=c, opacity=0.15, line=dict(width=0),
                                 hoverinfo="skip", showlegend=False, legendgroup=label))
        traces.append(go.Scatter(x=x, y=mean, mode="lines+markers", name=label,
                                 line=dict(color=c, dash=dash), marker=dict(color=c), legendgroup=label))
    xaxis = dict(title=x_title)
    if log_x:
        xaxis.update(type="log", **log_ticks(summary["epsilon"]))
    layout = dict(height=400, title=title, xaxis=xaxis,
                  yaxis=dict(title=y_title, type="log" if log_y else "linear"), **_LAYOUT)
    if marker_x is not None:  # a layout shape: add_vline is slow on the slider path
        layout["shapes"] = [dict(type="line", xref="x", yref="paper", x0=marker_x, x1=marker_x,
                                 y0=0, y1=1, line=dict(dash="dot", color="grey"))]
        layout["annotations"] = [dict(x=np.log10(marker_x) if log_x else marker_x, y=1, xref="x",
                                      yref="paper", showarrow=False, yanchor="bottom",
                                      text=f"epsilon = {marker_x:g}")]
    return go.Figure(data=traces, layout=layout)


def curve_with_baseline(summary: pd.DataFrame, baseline: pd.DataFrame | None, *, group: str, value: str,
                        **kwargs) -> go.Figure:
    """:func:`curve_with_spread` of ``summary`` with the groups of ``baseline`` (a summary of
    the same columns, e.g. DP-SGD beside the schemes) drawn dash-dot after them."""
    if baseline is None or baseline.empty:
        return curve_with_spread(summary, group=group, value=value, **kwargs)
    extra = {str(n) for n in baseline[group].unique()}
    fig = curve_with_spread(pd.concat([summary, baseline], ignore_index=True), group=group, value=value, **kwargs)
    labels = kwargs.get("labels") or {}
    names = {str(labels.get(n, n)) for n in baseline[group].unique()} | extra
    for trace in fig.data:
        if trace.mode == "lines+markers" and trace.name in names:
            trace.line.dash = "dashdot"
    return fig
