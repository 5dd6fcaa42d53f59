"""The solved epsilon on a curve: the target as a flat line, each method's answer as a band
and a marker (no streamlit: the pages' chart builders call it, the tests too).

A *solution* here is anything with the fields of :class:`core.decide.solve.Solution` that the
mark reads: ``method``, ``epsilon`` (None when no epsilon meets the target), ``epsilon_low``
and ``epsilon_high`` (its uncertainty interval, None where unknown), and, where it has one,
``direction`` (``"from"``: met from epsilon on; ``"up_to"``: a risk, met up to it; the mark
stands at ``epsilon`` either way). :func:`solution_curve`
draws the curves the solutions were solved on (their ``grid``, ``means``, ``lows`` and
``highs``), for a page that has no curve of that measure of its own (Compare).
"""
from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from dashboard.shared.widgets.charts import plotly_text
from dashboard.shared.widgets.palette import color, log_ticks

__all__ = ["mark_solutions", "marked_points", "solution_curve", "solution_curve_data", "TARGET_COLOR"]

#: the target line's colour (the curves take the palette's)
TARGET_COLOR = "#444444"


def _finite(value: Any) -> bool:
    return value is not None and isinstance(value, (int, float, np.floating, np.integer)) and math.isfinite(value)


def _is_log(axis: Any) -> bool:
    return getattr(axis, "type", None) == "log"


def marked_points(solutions: Sequence[Any]) -> list[dict]:
    """What :func:`mark_solutions` draws for each solution that has an epsilon: its method,
    epsilon, the band's ends (the epsilon itself where an end is unknown) and its direction
    (``"from"`` where the solution has none, as a chosen :class:`~dashboard.shared.solve.solve_offers.Mark`)."""
    out = []
    for s in solutions:
        if not _finite(s.epsilon):
            continue
        eps = float(s.epsilon)
        low = float(s.epsilon_low) if _finite(s.epsilon_low) else eps
        high = float(s.epsilon_high) if _finite(s.epsilon_high) else eps
        out.append({"method": str(s.method), "epsilon": eps, "low": min(low, eps), "high": max(high, eps),
                    "direction": str(getattr(s, "direction", "from"))})
    return out


def mark_solutions(fig: go.Figure, solutions: Sequence[Any], *, target_value: float, target_text: str,
                   labels: dict | None = None) -> go.Figure:
    """Add the target and the solved epsilons to ``fig`` (an epsilon-on-x curve) and return it.

    Parameters
    ----------
    fig : plotly Figure
        The curve; its axes' types (log or linear) are kept and read here.
    solutions : sequence
        One answer per method (see the module docstring); a method with no epsilon that meets
        the target gets no mark (the table beside the chart says so).
    target_value : float
        The target's threshold, drawn as a flat dashed line across the chart.
    target_text : str
        The target in words ("accuracy at least 0.8"), the line's label.
    labels : dict, optional
        A method's name on the curve when it differs from ``solution.method``.

    Returns
    -------
    The same figure: a dashed horizontal line at the target, and per answer a vertical band
    from ``epsilon_low`` to ``epsilon_high`` (the answer's uncertainty) in the method's colour
    with a diamond at (epsilon, target).
    """
    y = float(target_value)
    log_y = _is_log(fig.layout.yaxis)  # shapes take data values on a log axis, annotations log10
    if not (log_y and y <= 0):  # a target of 0 has no place on a log axis
        fig.add_shape(type="line", xref="paper", x0=0, x1=1, yref="y", y0=y, y1=y,
                      line=dict(color=TARGET_COLOR, dash="dash", width=1.5))
        fig.add_annotation(x=1, xref="paper", y=math.log10(y) if log_y else y, yref="y", xanchor="right",
                           yanchor="bottom", showarrow=False, text=f"target: {plotly_text(target_text)}",
                           font=dict(color=TARGET_COLOR))
    for p in marked_points(solutions):
        name = str((labels or {}).get(p["method"], p["method"]))
        c = color(p["method"])
        if p["high"] > p["low"]:
            fig.add_shape(type="rect", xref="x", yref="paper", x0=p["low"], x1=p["high"], y0=0, y1=1,
                          fillcolor=c, opacity=0.12, line=dict(width=0), layer="below")
        reach = "up to" if p["direction"] == "up_to" else "from"
        fig.add_trace(go.Scatter(
            x=[p["epsilon"]], y=[y], mode="markers", name=f"{name}: solved epsilon {p['epsilon']:.3g}",
            marker=dict(symbol="diamond", size=12, color=c, line=dict(color="white", width=1)),
            hovertemplate=(f"{plotly_text(name)}: meets the target {reach} epsilon {p['epsilon']:.3g} "
                           f"(interval {p['low']:.3g} to {p['high']:.3g})<extra></extra>")))
    return fig


def _label(method: str, labels: dict | None) -> str:
    return str((labels or {}).get(method, method))


def _band(values: Sequence[Any], means: Sequence[float]) -> list[float]:
    """An interval's ends, the mean where an end is unknown (one repetition)."""
    return [float(v) if _finite(v) else float(m) for v, m in zip(values, means)]


def solution_curve(solutions: Sequence[Any], *, title: str, y_title: str, x_title: str = "epsilon (log scale)",
                   labels: dict | None = None) -> go.Figure:
    """The curves the solutions were solved on: per method with a grid, the mean at each epsilon
    (line and markers) and its interval (a band), epsilon on a log axis with 1-2-5 ticks.

    Parameters
    ----------
    solutions : sequence of Solution
        A method that takes no epsilon, or to which the measure does not apply, has an empty
        grid and is left out (the table beside the chart says so).
    title, y_title, x_title : str
        The chart's title and axis titles (our own words; a user's names through
        :func:`dashboard.shared.widgets.charts.plotly_text`).
    labels : dict, optional
        A method's name in the legend when it differs from ``solution.method``.

    Returns
    -------
    plotly Figure, to be marked by :func:`mark_solutions`; :func:`solution_curve_data` lists its points.
    """
    traces = []
    xs: list[float] = []
    for s in solutions:
        if not s.grid:
            continue
        name, c = _label(s.method, labels), color(s.method)
        x, mean = [float(g) for g in s.grid], [float(m) for m in s.means]
        low, high = _band(s.lows, mean), _band(s.highs, mean)
        xs += x
        traces.append(go.Scatter(x=x + x[::-1], y=high + low[::-1], fill="toself", fillcolor=c, opacity=0.15,
                                 line=dict(width=0), hoverinfo="skip", showlegend=False, legendgroup=name))
        traces.append(go.Scatter(x=x, y=mean, mode="lines+markers", name=name, legendgroup=name,
                                 line=dict(color=c), marker=dict(color=c)))
    xaxis = dict(title=x_title, type="log", **log_ticks(xs)) if xs else dict(title=x_title)
    return go.Figure(data=traces, layout=dict(height=400, title=title, xaxis=xaxis, yaxis=dict(title=y_title),
                                              legend=dict(orientation="h", y=-0.25)))


def solution_curve_data(solutions: Sequence[Any], *, labels: dict | None = None) -> pd.DataFrame:
    """The points of :func:`solution_curve`, one row per method and epsilon: the mean, its
    interval's ends (empty where unknown), then one row per solved epsilon (its interval, and
    whether the target is met from it on or, for a risk, up to it)."""
    rows = []
    for s in solutions:
        conf = f"{float(s.confidence):.0%}"
        for g, m, lo, hi in zip(s.grid, s.means, s.lows, s.highs):
            rows.append({"method": _label(s.method, labels), "epsilon": float(g), "mean": float(m),
                         f"{conf} interval low": float(lo) if _finite(lo) else math.nan,
                         f"{conf} interval high": float(hi) if _finite(hi) else math.nan, "point": "curve"})
    for p in marked_points(solutions):
        rows.append({"method": _label(p["method"], labels), "epsilon": p["epsilon"], "point": "solved epsilon",
                     "solved interval low": p["low"], "solved interval high": p["high"],
                     "meets the target": "up to this epsilon" if p["direction"] == "up_to" else "from this epsilon on"})
    return pd.DataFrame(rows)
