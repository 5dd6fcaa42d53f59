"""Charts of the paper-000 pages: pure functions from results to plotly figures."""
from __future__ import annotations


import numpy as np
import pandas as pd
import plotly.express as px
import plotly.graph_objects as go

from plotly.subplots import make_subplots

from core.cdp.dc_fbfs import DCFBFSResult
from dashboard.shared.widgets.charts import number, plotly_text
from dashboard.shared.widgets.layout import from_dict, wrap
from dashboard.shared.widgets.palette import color, colors, log_ticks

__all__ = [
    "association_heatmap",
    "association_data",
    "record_heatmap",
    "record_heatmap_data",
    "sensitivity_bars",
    "sensitivity_data",
    "feature_count_curve",
    "feature_count_data",
    "importance_dc_bars",
    "importance_dc_data",
    "traversal_curves",
    "traversal_data",
    "accuracy_bars",
    "accuracy_data",
    "curve_with_spread",
    "curve_with_baseline",
    "curve_dict",
    "with_marker",
    "curve_data",
]

_LAYOUT = dict(margin=dict(l=10, r=10, t=60, b=10))
_DC_BLUE, _IMPORTANCE_RED = "#1f77b4", "#d62728"


def association_data(matrix: pd.DataFrame) -> pd.DataFrame:
    """The cells of :func:`association_heatmap`, one row per pair of attributes (row
    attribute first, in the matrix's order): 'attribute', 'other attribute', 'association'."""
    rows, cols = np.meshgrid(np.arange(len(matrix.index)), np.arange(len(matrix.columns)), indexing="ij")
    return pd.DataFrame({
        "attribute": np.asarray([str(v) for v in matrix.index], dtype=object)[rows.ravel()],
        "other attribute": np.asarray([str(v) for v in matrix.columns], dtype=object)[cols.ravel()],
        "association": matrix.to_numpy(dtype=float).ravel(),
    })


def association_heatmap(matrix: pd.DataFrame, *, title: str) -> go.Figure:
    """Attribute x attribute association, 0 (white) to 1 (dark) (:func:`association_data`
    lists the cells)."""
    fig = px.imshow(matrix, zmin=0, zmax=1, color_continuous_scale="Blues", text_auto=".2f",
                    aspect="auto", title=title,
                    labels=dict(x="attribute", y="attribute", color="association"))
    # the attributes' names stand upright under their cells, each in its cell's width: tilted,
    # they ran into each other once the heatmap shared its row with the measure beside it
    fig.update_xaxes(tickangle=-90)
    fig.update_layout(height=480, **_LAYOUT)
    return fig


def record_heatmap_data(matrix: np.ndarray) -> pd.DataFrame:
    """The cells of :func:`record_heatmap`, one row per pair of records (numbered as drawn,
    from 0): 'record', 'other record', 'correlation (delta)'."""
    m = np.asarray(matrix, dtype=float)
    rows, cols = np.indices(m.shape)
    return pd.DataFrame({"record": rows.ravel(), "other record": cols.ravel(),
                         "correlation (delta)": m.ravel()})


def record_heatmap(matrix: np.ndarray, *, threshold: float, measure: str) -> go.Figure:
    """Thresholded record-correlation matrix of a sample (rows sorted by how correlated they
    are; :func:`record_heatmap_data` lists the cells)."""
    fig = px.imshow(np.asarray(matrix), zmin=0, zmax=1, color_continuous_scale="Viridis",
                    title=f"Record correlation ({measure}, delta0 = {threshold:g}) of {len(matrix)} records",
                    labels=dict(x="record", y="record", color="delta"))
    fig.update_layout(height=480, **_LAYOUT)
    return fig


def sensitivity_data(correlated: float, group: float) -> pd.DataFrame:
    """The bars of :func:`sensitivity_bars`: 'sensitivity' (its name) and 'value'."""
    return pd.DataFrame({"sensitivity": ["Correlated (CS)", "Group (GS)"],
                         "value": [float(correlated), float(group)]})


def sensitivity_bars(correlated: float, group: float) -> go.Figure:
    """CS beside GS: the noise of a count query scales with the bar."""
    data = sensitivity_data(correlated, group)
    bar = go.Bar(x=list(data["sensitivity"]), y=list(data["value"]),
                 marker_color=[color("Proposed"), color("Group")],
                 text=[number(v) for v in data["value"]], textposition="auto")
    fig = go.Figure(data=[bar])
    fig.update_layout(height=320, showlegend=False, title="Count-query sensitivity: CS vs GS",
                      xaxis_title="sensitivity", yaxis=dict(title="value", tickformat=",~r"), **_LAYOUT)
    return fig


_CX = "data correlation C(x)"


def _on(data_name: str | None) -> str:
    """' on adult' for a chart title, or '' when no data is named."""
    return f" on {plotly_text(data_name)}" if data_name else ""


def feature_count_data(table: pd.DataFrame) -> pd.DataFrame:
    """The points of :func:`feature_count_curve`, one row per number of features k: k, the
    feature added at k, and C(x) of the first k features (empty where undefined: Pearson
    across one feature)."""
    return pd.DataFrame({"number of features": table["features"].to_numpy(dtype=int),
                         "feature added": [str(n) for n in table["added feature"]],
                         _CX: table["C(x)"].to_numpy(dtype=float)})


def feature_count_curve(table: pd.DataFrame, *, measure: str, threshold: float,
                        data_name: str | None = None) -> go.Figure:
    """Fig. 1: C(x) of the first k features against k (a table of
    :func:`core.cdp.feature_count.correlation_by_feature_count`; drawn from
    :func:`feature_count_data`). The y axis is logarithmic when C(x) spans more than two
    decades, as it does when few features make most records alike."""
    data = feature_count_data(table)
    y = data[_CX].to_numpy()
    fig = go.Figure(go.Scatter(
        x=data["number of features"].to_numpy(), y=y, mode="lines+markers", line=dict(color=_DC_BLUE),
        customdata=np.asarray(data["feature added"], dtype=object),
        hovertemplate="%{x} features (added %{customdata}): C(x) %{y:,.0f}<extra></extra>", name="C(x)"))
    finite = y[np.isfinite(y) & (y > 0)]
    log_y = len(finite) > 1 and finite.max() / finite.min() > 100
    fig.update_layout(
        height=380, showlegend=False,
        title=f"Data correlation C(x) vs number of features{_on(data_name)} ({measure}, delta0 = {threshold:g}; Fig. 1)",
        xaxis=dict(title="number of features (added by descending importance)", dtick=1),
        yaxis=dict(title="C(x)" + (" (log scale)" if log_y else ""), type="log" if log_y else "linear",
                   tickformat=",~r"),
        **_LAYOUT)
    return fig


_DC = "DC (change of C(x) when deleted)"
_IMPORTANCE = "random-forest importance"


def importance_dc_data(result: DCFBFSResult) -> pd.DataFrame:
    """The bars of :func:`importance_dc_bars`, one row per attribute: its DC, its importance,
    and T_c (the dashed line; the same on every row)."""
    return pd.DataFrame({"attribute": [str(n) for n in result.names],
                         _DC: np.asarray(result.dc, dtype=float),
                         _IMPORTANCE: np.asarray(result.importance, dtype=float),
                         "T_c": float(result.tc)})


def importance_dc_bars(result: DCFBFSResult, *, data_name: str | None = None,
                       tc_range: float | None = None) -> go.Figure:
    """Fig. 2: change of data correlation when each feature is deleted, and its importance.

    Two panels sharing the features (DC above, with the T_c line; importance below), so the
    bars never overlap and each has its own axis. With ``tc_range`` (the top of the T_c
    slider) the line's label gives T_c as a share of it. Drawn from :func:`importance_dc_data`.
    """
    data = importance_dc_data(result)
    names = list(data["attribute"])
    fig = make_subplots(rows=2, cols=1, shared_xaxes=True, vertical_spacing=0.12,
                        subplot_titles=("DC: change of C(x) when the feature is deleted",
                                        "Random-forest importance"))
    fig.add_trace(go.Bar(x=names, y=data[_DC].to_numpy(), name="DC (change of C(x))",
                         marker_color=_DC_BLUE, hovertemplate="%{x}: DC %{y:,.2f}<extra></extra>"),
                  row=1, col=1)
    fig.add_trace(go.Bar(x=names, y=data[_IMPORTANCE].to_numpy(), name="importance",
                         marker_color=_IMPORTANCE_RED,
                         hovertemplate="%{x}: importance %{y:.3f}<extra></extra>"), row=2, col=1)
    fig.add_hline(y=result.tc, line_dash="dash", line_color="black", row=1, col=1,
                  annotation_text=f"T_c = {number(result.tc)}" + (
                      f" ({100 * result.tc / tc_range:.2g}% of its range 0 to {number(tc_range)})"
                      if tc_range else ""), annotation_position="top left",
                  annotation=dict(font=dict(size=13), bgcolor="rgba(255,255,255,0.85)"))
    fig.update_yaxes(title_text="DC", tickformat=",~r", row=1, col=1)
    fig.update_yaxes(title_text="importance", row=2, col=1)
    fig.update_xaxes(title_text="attribute", row=2, col=1)
    fig.update_layout(height=560, title=f"DC and feature importance per attribute (Fig. 2){_on(data_name)}",
                      showlegend=False, margin=dict(l=10, r=10, t=70, b=10))
    return fig


_FORWARD, _BACKWARD = "forward accuracy (top-k)", "backward accuracy (top n+1-k)"


def traversal_data(result: DCFBFSResult) -> pd.DataFrame:
    """The curves of :func:`traversal_curves`, one row per step k: both traversals'
    cross-validated accuracy, and whether k is the best forward (k1) or backward (k2) step."""
    k = np.arange(1, len(result.names) + 1)
    return pd.DataFrame({"step k": k,
                         _FORWARD: np.asarray(result.forward_accuracy, dtype=float),
                         _BACKWARD: np.asarray(result.backward_accuracy, dtype=float),
                         "best forward step (k1)": k == result.k1,
                         "best backward step (k2)": k == result.k2})


def traversal_curves(result: DCFBFSResult, *, data_name: str | None = None, references=()) -> go.Figure:
    """Fig. 3: accuracy of the forward and backward traversals, best positions marked
    (drawn from :func:`traversal_data`); ``references`` (the constant guess on the labels,
    :func:`core.cdp.sweeps.constant_guess`) as flat dashed lines with their 95% band."""
    data = traversal_data(result)
    k = data["step k"].to_numpy()
    forward, backward = data[_FORWARD].to_numpy(), data[_BACKWARD].to_numpy()
    fig = go.Figure()
    fig.add_scatter(x=k, y=forward, mode="lines+markers", name="forward (top-k)",
                    line=dict(color=_DC_BLUE))
    fig.add_scatter(x=k, y=backward, mode="lines+markers",
                    name="backward (top n+1-k)", line=dict(color=_IMPORTANCE_RED))
    fig.add_scatter(x=[result.k1], y=[forward[result.k1 - 1]], mode="markers",
                    marker=dict(size=14, symbol="star", color=_DC_BLUE), name=f"k1 = {result.k1}")
    fig.add_scatter(x=[result.k2], y=[backward[result.k2 - 1]], mode="markers",
                    marker=dict(size=14, symbol="diamond", color=_IMPORTANCE_RED), name=f"k2 = {result.k2}")
    for r in references:
        style = _reference_style(r.name)
        if _finite(r.low) and _finite(r.high):
            fig.add_scatter(x=[k[0], k[-1], k[-1], k[0]], y=[r.high, r.high, r.low, r.low], fill="toself",
                            fillcolor=style["color"], opacity=0.12, line=dict(width=0), hoverinfo="skip",
                            showlegend=False, legendgroup=r.name)
        fig.add_scatter(x=[k[0], k[-1]], y=[float(r.value)] * 2, mode="lines", name=r.name, legendgroup=r.name,
                        line=dict(color=style["color"], dash=style["dash"], width=2))
    fig.update_layout(height=380, title=f"Forward and backward traversal (Fig. 3){_on(data_name)}",
                      xaxis_title="step k",
                      yaxis_title="cross-validated accuracy", **_LAYOUT)
    return fig


_MEAN_ACC, _STD_ACC = "mean test accuracy", "standard deviation of test accuracy"


#: how each reference line is drawn (a dashed grey constant guess, a dotted non-private
#: model, dash-dot for the rest: the publishing page's true count and zero-noise release)
_REFERENCE_STYLE = {"majority class (constant guess)": dict(dash="dash", color="#7f7f7f"),
                    "non-private model": dict(dash="dot", color="#333333")}
_OTHER_REFERENCE = dict(dash="longdashdot", color="#555555")
_LOW, _HIGH = "95% interval low", "95% interval high"


def _reference_style(name: str) -> dict:
    return _REFERENCE_STYLE.get(str(name), _OTHER_REFERENCE)


def _finite(v) -> bool:
    return v is not None and bool(np.isfinite(float(v)))


def _bar_stats(runs: pd.DataFrame) -> pd.DataFrame:
    """Per scheme (in the order of the runs): the mean, the standard deviation (0 for one
    run) and the number of the runs' test accuracies; what the bars draw."""
    g = runs.groupby("scheme", sort=False)["accuracy"].agg(["mean", "std", "size"])
    return pd.DataFrame({"scheme": [str(s) for s in g.index], _MEAN_ACC: g["mean"].to_numpy(dtype=float),
                         _STD_ACC: g["std"].fillna(0.0).to_numpy(dtype=float),
                         "runs": g["size"].to_numpy(dtype=int)})


def accuracy_data(runs: pd.DataFrame, *, epsilon: float, references=()) -> pd.DataFrame:
    """The bars of :func:`accuracy_bars`, one row per scheme (in the order of the runs):
    epsilon, the mean and standard deviation (0 for one run) of the test accuracy, the
    t-interval of the mean over the runs (:func:`core.evaluation.metrics.mean_interval`), and the
    number of runs; then one row per reference (:class:`core.cdp.sweeps.Reference`: the
    constant guess, the non-private model) with its Wilson interval on the test rows."""
    from core.evaluation.metrics import mean_interval

    g = _bar_stats(runs)
    intervals = [mean_interval(runs.loc[runs["scheme"].astype(str) == s, "accuracy"])[1:] for s in g["scheme"]]
    out = pd.DataFrame({"scheme": g["scheme"], "epsilon": float(epsilon), _MEAN_ACC: g[_MEAN_ACC],
                        _STD_ACC: g[_STD_ACC], _LOW: [lo for lo, _ in intervals],
                        _HIGH: [hi for _, hi in intervals], "runs": g["runs"]})
    if references:
        out = pd.concat([out, pd.DataFrame([
            {"scheme": f"reference: {r.name}", "epsilon": float(epsilon), _MEAN_ACC: float(r.value),
             _STD_ACC: np.nan, _LOW: float(r.low), _HIGH: float(r.high), "runs": 0}
            for r in references])], ignore_index=True)
    return out


#: a reference's legend entry is wrapped to lines of at most this many characters, so the
#: legend beside the bars stays narrow ("majority class" / "(constant guess) 0.634")
_REFERENCE_LEGEND_CHARS = 22


def _reference_shapes(references) -> tuple[list, list]:
    """Layout shapes of horizontal reference lines across the plot (a band for each 95%
    interval), and one legend entry per reference naming it with its value: layout items and
    an empty line trace, not add_hline, which is slow on the slider path. The names sit in the
    legend beside the plot, never over a bar (a label drawn at the line crossed the bar under it)."""
    shapes, entries = [], []
    for r in references:
        style = _reference_style(r.name)
        if _finite(r.low) and _finite(r.high):
            shapes.append(dict(type="rect", xref="paper", yref="y", x0=0, x1=1, y0=float(r.low), y1=float(r.high),
                               fillcolor=style["color"], opacity=0.12, line=dict(width=0), layer="below",
                               name=f"{r.name}: 95% interval"))
        shapes.append(dict(type="line", xref="paper", yref="y", x0=0, x1=1, y0=float(r.value), y1=float(r.value),
                           line=dict(dash=style["dash"], color=style["color"], width=2), name=r.name))
        entries.append(dict(type="scatter", x=[None], y=[None], mode="lines", hoverinfo="skip",
                            name=wrap(f"{plotly_text(r.name)} {float(r.value):.3f}", _REFERENCE_LEGEND_CHARS),
                            line=dict(dash=style["dash"], color=style["color"], width=2)))
    return shapes, entries


def accuracy_bars(runs: pd.DataFrame, *, epsilon: float, data_name: str | None = None,
                  references=()) -> go.Figure:
    """Test accuracy of each scheme at one epsilon (mean of the runs, error bar = std).

    ``references`` (:class:`core.cdp.sweeps.Reference`, e.g. from
    :func:`core.cdp.sweeps.accuracy_references`) are drawn across the bars: a dashed grey
    line for the majority class (constant guess), a dotted one for the non-private model,
    each with a band for its 95% interval, named with its value in the legend beside the plot.
    The value labels sit inside the base of each bar, clear of the whiskers at the top.
    Built from plain dicts without plotly's validation
    (:func:`dashboard.shared.widgets.layout.from_dict`): it is redrawn on every slider move.
    Draws the means and spreads :func:`accuracy_data` lists.
    """
    g = _bar_stats(runs)
    bar = dict(
        type="bar", x=list(g["scheme"]), y=g[_MEAN_ACC].to_numpy(),
        error_y=dict(type="data", array=g[_STD_ACC].to_numpy(), color="#333333"),
        text=[f"{v:.3f}" for v in g[_MEAN_ACC]], textposition="inside", insidetextanchor="start",
        textfont=dict(color="white"), marker=dict(color=colors(g["scheme"])), name="test accuracy",
        showlegend=False,
    )
    shapes, entries = _reference_shapes(references)
    # the title text is what the browser tests and the load benchmark wait for
    title = dict(text=f"Accuracy at epsilon = {epsilon:g}",
                 subtitle=dict(text=f"mean of the runs{_on(data_name)}; whisker = one std"))
    return from_dict(dict(data=[bar, *entries], layout=dict(
        height=380, title=title, showlegend=bool(entries), xaxis=dict(title=dict(text="scheme")), shapes=shapes,
        yaxis=dict(title=dict(text="test accuracy"), range=[0, 1]), **_LAYOUT)))


#: how a summarised value is named in a chart's CSV
_VALUE_WORDS = {"accuracy": "test accuracy", "mae": "MAE"}


def _curves(summary: pd.DataFrame, *, group: str, value: str):
    """(group, epsilon, mean, std, runs or None) of each group of ``summary`` in order of
    appearance, sorted by epsilon; a missing std (one run) is 0. What the curves draw."""
    for name, g in summary.groupby(group, sort=False):
        g = g.sort_values("epsilon")
        runs = g[f"{value}_n"].to_numpy() if f"{value}_n" in g.columns else None
        yield (name, g["epsilon"].to_numpy(dtype=float), g[f"{value}_mean"].to_numpy(dtype=float),
               g[f"{value}_std"].fillna(0.0).to_numpy(dtype=float), runs)


def curve_data(summary: pd.DataFrame, baseline: pd.DataFrame | None = None, *, group: str, value: str,
               labels: dict | None = None, x_name: str = "epsilon", references=()) -> pd.DataFrame:
    """The lines of :func:`curve_with_spread` (and of :func:`curve_with_baseline` with
    ``baseline``), one row per group and epsilon: the group (named as in the legend),
    ``x_name``, the mean and the standard deviation (the band) of ``value``, and the number
    of runs when the summary has it; then the ``references`` (one row each, named
    "reference: ...", flat over the same epsilons, with their 95% interval where they have one)."""
    out = _curve_rows(summary, baseline, group=group, value=value, labels=labels, x_name=x_name)
    if not references:
        return out
    words = _VALUE_WORDS.get(value, value)
    xs = np.unique(summary["epsilon"].to_numpy(dtype=float))
    rows = pd.DataFrame([{group: f"reference: {r.name}", x_name: x, f"mean {words}": float(r.value),
                          _LOW: float(r.low), _HIGH: float(r.high)} for r in references for x in xs])
    return pd.concat([out, rows], ignore_index=True)


def _curve_rows(summary: pd.DataFrame, baseline: pd.DataFrame | None, *, group: str, value: str,
                labels: dict | None, x_name: str) -> pd.DataFrame:
    if baseline is not None and not baseline.empty:
        summary = pd.concat([summary, baseline], ignore_index=True)
    words = _VALUE_WORDS.get(value, value)
    mean_col, std_col = f"mean {words}", f"standard deviation of {words}"
    parts = []
    for name, x, mean, std, runs in _curves(summary, group=group, value=value):
        part = pd.DataFrame({group: str(labels.get(name, name)) if labels else str(name), x_name: x,
                             mean_col: mean, std_col: std})
        if runs is not None:
            part["runs"] = runs
        parts.append(part)
    if not parts:
        return pd.DataFrame(columns=[group, x_name, mean_col, std_col])
    return pd.concat(parts, ignore_index=True)


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
    references=(),
) -> go.Figure:
    """Mean of ``value`` over epsilon per ``group``, with a band of one standard deviation.

    ``references`` (each with ``name``, ``value``, ``low``, ``high``: a
    :class:`core.cdp.sweeps.Reference`) are drawn as flat lines across the grid, in the
    legend under their names (a dashed grey majority class, a dotted non-private model),
    with a band for a finite 95% interval.

    Colours come from :mod:`dashboard.shared.widgets.palette` (one per scheme or noise method on every
    chart); a group named '... (mahalanobis)' is dashed beside its Pearson twin. ``log_x``
    draws epsilon on a log axis with 1-2-5 ticks (0.1, 0.2, 0.5, 1, ...); ``marker_x`` (the
    slider's epsilon) is a dotted vertical line (:func:`with_marker`). :func:`curve_data`
    lists the points drawn. Built from plain dicts without plotly's validation
    (:func:`curve_dict`, :func:`dashboard.shared.widgets.layout.from_dict`).
    """
    figure = curve_dict(summary, group=group, value=value, title=title, y_title=y_title, log_y=log_y,
                        log_x=log_x, x_title=x_title, labels=labels, references=references)
    return with_marker(figure, marker_x, log_x=log_x)


def curve_dict(summary: pd.DataFrame, baseline: pd.DataFrame | None = None, *, group: str, value: str,
               title: str, y_title: str, log_y: bool = False, log_x: bool = False, x_title: str = "epsilon",
               labels: dict | None = None, references=()) -> dict:
    """The figure of :func:`curve_with_spread` (with ``baseline``'s groups drawn dash-dot after
    the others, as :func:`curve_with_baseline`) without the slider's marker, as plain dicts
    (``data`` and ``layout``): what a page caches, since only the marker moves with the
    slider (:func:`with_marker` draws it)."""
    extra: set[str] = set()
    if baseline is not None and not baseline.empty:
        names = baseline[group].unique()
        extra = {str(n) for n in names} | {str((labels or {}).get(n, n)) for n in names}
        summary = pd.concat([summary, baseline], ignore_index=True)
    traces = _group_traces(summary, group=group, value=value, log_y=log_y, labels=labels, dashdot=extra)
    traces += _reference_traces(summary["epsilon"].to_numpy(dtype=float), references, log_y=log_y)
    xaxis = dict(title=dict(text=x_title))
    if log_x:
        xaxis.update(type="log", **log_ticks(summary["epsilon"]))
    layout = dict(height=400, title=dict(text=title), xaxis=xaxis,
                  yaxis=dict(title=dict(text=y_title), type="log" if log_y else "linear"), **_LAYOUT)
    return dict(data=traces, layout=layout)


def _group_traces(summary: pd.DataFrame, *, group: str, value: str, log_y: bool, labels: dict | None,
                  dashdot: set[str]) -> list[dict]:
    """Per group, its band (one std) and its line; a group in ``dashdot`` dash-dot."""
    traces = []
    for name, x, mean, std, _ in _curves(summary, group=group, value=value):
        c = color(name)
        label = str(labels.get(name, name)) if labels else str(name)
        dash = "dashdot" if label in dashdot else "dash" if "mahalanobis" in str(name) else "solid"
        lower = np.maximum(mean - std, 1e-9) if log_y else mean - std
        traces.append(dict(type="scatter", x=np.r_[x, x[::-1]], y=np.r_[mean + std, lower[::-1]],
                           fill="toself", fillcolor=c, opacity=0.15, line=dict(width=0),
                           hoverinfo="skip", showlegend=False, legendgroup=label))
        traces.append(dict(type="scatter", x=x, y=mean, mode="lines+markers", name=label,
                           line=dict(color=c, dash=dash), marker=dict(color=c), legendgroup=label))
    return traces


def _reference_traces(xs: np.ndarray, references, *, log_y: bool) -> list[dict]:
    """Each reference as a flat line across ``xs`` with a band for a finite 95% interval (a
    value of 0 or less is left off a log axis: the page says it in words)."""
    traces = []
    x0, x1 = (float(np.min(xs)), float(np.max(xs))) if len(xs) else (0.0, 0.0)
    for r in references:
        style = _reference_style(r.name)
        if _finite(r.low) and _finite(r.high) and not (log_y and float(r.low) <= 0):
            traces.append(dict(type="scatter", x=[x0, x1, x1, x0], y=[r.high, r.high, r.low, r.low],
                               fill="toself", fillcolor=style["color"], opacity=0.12, line=dict(width=0),
                               hoverinfo="skip", showlegend=False, legendgroup=r.name))
        if log_y and float(r.value) <= 0:
            continue
        traces.append(dict(type="scatter", x=[x0, x1], y=[float(r.value)] * 2, mode="lines", name=r.name,
                           line=dict(color=style["color"], dash=style["dash"], width=2), legendgroup=r.name,
                           hovertemplate=f"{plotly_text(r.name)}: {float(r.value):.4g}<extra></extra>"))
    return traces


def with_marker(figure: dict, marker_x: float | None, *, log_x: bool = False) -> go.Figure:
    """A Figure of ``figure`` (a :func:`curve_dict`, left as it is) with the slider's value
    ``marker_x`` as a dotted vertical line labelled "epsilon = ..." (layout items, not
    add_vline, which is slow on the slider path); nothing added when it is None."""
    if marker_x is None:
        return from_dict(figure)
    layout = dict(figure["layout"])
    layout["shapes"] = [*layout.get("shapes", ()), dict(type="line", xref="x", yref="paper", x0=marker_x,
                                                          x1=marker_x, y0=0, y1=1, line=dict(dash="dot", color="grey"))]
    layout["annotations"] = [*layout.get("annotations", ()),
                             dict(x=float(np.log10(marker_x)) if log_x else marker_x, y=1, xref="x", yref="paper",
                                  showarrow=False, yanchor="bottom", text=f"epsilon = {marker_x:g}")]
    return from_dict(dict(figure, layout=layout))


def curve_with_baseline(summary: pd.DataFrame, baseline: pd.DataFrame | None, *, group: str, value: str,
                        marker_x: float | None = None, **kwargs) -> go.Figure:
    """:func:`curve_with_spread` of ``summary`` with the groups of ``baseline`` (a summary of
    the same columns, e.g. DP-SGD beside the schemes) drawn dash-dot after them."""
    figure = curve_dict(summary, baseline, group=group, value=value, **kwargs)
    return with_marker(figure, marker_x, log_x=kwargs.get("log_x", False))
