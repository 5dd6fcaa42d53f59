"""Charts of the SSKM_DP page (paper 003): SOM grids, training curves, MIC, release metrics,
Fig. 5-6 across a and m, Fig. 7's baselines.

Every builder is pure (no streamlit) and draws from its ``*_data`` frame, the CSV the page
offers under the chart. Titles name what is drawn and, given ``dataset``, on which table.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.colors import sample_colorscale
from plotly.subplots import make_subplots

from dashboard.shared.widgets.charts import plotly_text
from dashboard.shared.widgets.palette import color, log_ticks

__all__ = [
    "som_grid",
    "som_grid_data",
    "sfla_convergence",
    "sfla_data",
    "som_training",
    "som_training_data",
    "mic_heatmap",
    "mic_data",
    "epsilon_curves",
    "epsilon_data",
    "baselines_vs_a",
    "baselines_data",
    "mse_vs_clusters",
    "mse_vs_clusters_data",
    "rl_vs_clusters",
    "rl_vs_clusters_data",
]

_MARGIN = dict(l=10, r=10, t=40, b=10)


def _on(dataset: str) -> str:
    """' on <dataset>' for a title (angle brackets shown as typed, not as plotly's tags)."""
    if not isinstance(dataset, str):
        raise TypeError(f"dataset must be a str, got {type(dataset).__name__}.")
    name = plotly_text(dataset)
    return f" on {name}" if name.strip() else ""


def som_grid_data(values: np.ndarray, *, value_name: str = "") -> pd.DataFrame:
    """The neurons of :func:`som_grid`, one row per neuron (row by row): its grid row and
    column and its value (named ``value_name``; empty for a neuron drawn grey)."""
    values = np.asarray(values, dtype=float)
    if values.ndim != 2:
        raise ValueError("values must be a rows x cols array.")
    r, c = np.indices(values.shape)
    name = value_name or "value"
    if name in ("neuron row", "neuron column"):
        name = f"value ({name})"
    return pd.DataFrame({"neuron row": r.ravel(), "neuron column": c.ravel(), name: values.ravel()})


def som_grid(
    values: np.ndarray,
    *,
    topology: str = "rectangular",
    title: str = "",
    colorbar: str = "",
    colorscale: str = "Viridis",
    hover: np.ndarray | None = None,
    cell_px: int | None = None,
    dataset: str = "",
) -> go.Figure:
    """The SOM's neurons as squares or hexagons coloured by ``values`` (rows x cols).

    Neurons with a NaN value (e.g. no rows won) are drawn grey. The axes are the map's
    columns and rows (no ticks: a neuron's place is its hover text).
    """
    values = np.asarray(values, dtype=float)
    if values.ndim != 2:
        raise ValueError("values must be a rows x cols array.")
    rows, cols = values.shape
    r, c = np.divmod(np.arange(rows * cols), cols)
    hexagonal = topology == "hexagonal"
    x = c + (0.5 * (r % 2) if hexagonal else 0.0)
    y = -(r * (np.sqrt(3) / 2 if hexagonal else 1.0))
    flat = values.ravel()
    text = hover.ravel() if hover is not None else np.array(
        [f"neuron ({i}, {j}): {v:.4g}" if np.isfinite(v) else f"neuron ({i}, {j}): empty"
         for i, j, v in zip(r, c, flat)]
    )
    width = 520
    cell = cell_px or max(8, int((width - 120) / (cols + 0.5) * (1.12 if hexagonal else 0.95)))
    height = int(cell * rows * (0.9 if hexagonal else 1.0) + 90)
    symbol = "hexagon" if hexagonal else "square"
    fig = go.Figure()
    ok = np.isfinite(flat)
    fig.add_trace(go.Scatter(
        x=x[ok], y=y[ok], mode="markers", text=text[ok], hoverinfo="text", showlegend=False,
        marker=dict(symbol=symbol, size=cell, color=flat[ok], colorscale=colorscale,
                    showscale=True, colorbar=dict(title=plotly_text(colorbar)),  # it may name a column
                    line=dict(width=0.5, color="white")),
    ))
    if (~ok).any():
        fig.add_trace(go.Scatter(
            x=x[~ok], y=y[~ok], mode="markers", text=text[~ok], hoverinfo="text", showlegend=False,
            marker=dict(symbol=symbol, size=cell, color="#d9d9d9", line=dict(width=0.5, color="white")),
        ))
    bare = dict(showticklabels=False, showgrid=False, zeroline=False, ticks="")
    fig.update_xaxes(title_text="map column", range=[-0.7, cols - 0.3 + (0.5 if hexagonal else 0)], **bare)
    fig.update_yaxes(title_text="map row", scaleanchor="x", scaleratio=1, **bare)
    fig.update_layout(title=(title or "SOM grid") + _on(dataset), width=width, height=height + 30,
                      margin=_MARGIN, plot_bgcolor="white")
    return fig


def sfla_data(best: np.ndarray, mean: np.ndarray) -> pd.DataFrame:
    """The curves of :func:`sfla_convergence`, one row per shuffle: the best frog's and the
    population's mean fitness (Eq. 9)."""
    return pd.DataFrame({"shuffle": np.arange(len(best)), "best frog fitness": np.asarray(best, dtype=float),
                         "population mean fitness": np.asarray(mean, dtype=float)})


def sfla_convergence(best: np.ndarray, mean: np.ndarray, *, dataset: str = "") -> go.Figure:
    """Best and mean frog fitness after each shuffle of the SFLA search (drawn from
    :func:`sfla_data`)."""
    data = sfla_data(best, mean)
    steps = data["shuffle"].to_numpy()
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=steps, y=data["best frog fitness"].to_numpy(), mode="lines+markers",
                             name="best frog"))
    fig.add_trace(go.Scatter(x=steps, y=data["population mean fitness"].to_numpy(), mode="lines",
                             name="population mean"))
    fig.update_layout(title="SFLA search for the initial weights: fitness per shuffle" + _on(dataset),
                      xaxis_title="shuffle", yaxis_title="fitness (Eq. 9)",
                      height=320, margin=_MARGIN, legend=dict(orientation="h", y=-0.25))
    return fig


def som_training_data(history: dict) -> pd.DataFrame:
    """The curves of :func:`som_training`, one row per probe: rows drawn so far, and the
    quantisation and topographic error."""
    return pd.DataFrame({"rows drawn": np.asarray(history["step"]),
                         "quantisation error": np.asarray(history["quantization_error"], dtype=float),
                         "topographic error": np.asarray(history["topographic_error"], dtype=float)})


def som_training(history: dict, *, dataset: str = "") -> go.Figure:
    """Quantisation and topographic error of the map during training (drawn from
    :func:`som_training_data`)."""
    data = som_training_data(history)
    fig = make_subplots(specs=[[{"secondary_y": True}]])
    fig.add_trace(go.Scatter(x=data["rows drawn"].to_numpy(), y=data["quantisation error"].to_numpy(),
                             name="quantisation error", mode="lines+markers"), secondary_y=False)
    fig.add_trace(go.Scatter(x=data["rows drawn"].to_numpy(), y=data["topographic error"].to_numpy(),
                             name="topographic error", mode="lines+markers"), secondary_y=True)
    fig.update_xaxes(title_text="rows drawn")
    fig.update_yaxes(title_text="quantisation error", secondary_y=False)
    fig.update_yaxes(title_text="topographic error", secondary_y=True, rangemode="tozero")
    fig.update_layout(title="SOM training: quantisation and topographic error" + _on(dataset), height=320, margin=_MARGIN, legend=dict(orientation="h", y=-0.25))
    return fig


def mic_data(strengths: pd.DataFrame, threshold: float, protected) -> pd.DataFrame:
    """The cells of :func:`mic_heatmap`, one row per sensitive attribute and attribute: the
    MIC (empty where none was computed), whether the attribute is protected, and the
    threshold CS_Tsh."""
    protected = {str(p) for p in protected}
    rows, cols = np.indices(strengths.shape)
    names = np.asarray([str(c) for c in strengths.columns], dtype=object)
    return pd.DataFrame({
        "sensitive attribute": np.asarray([str(i) for i in strengths.index], dtype=object)[rows.ravel()],
        "attribute": names[cols.ravel()],
        "MIC": strengths.to_numpy(dtype=float).ravel(),
        "protected": np.isin(names[cols.ravel()], list(protected)),
        "threshold CS_Tsh": float(threshold),
    })


def mic_heatmap(strengths: pd.DataFrame, threshold: float, protected, *, dataset: str = "") -> go.Figure:
    """MIC between each sensitive attribute (rows) and every attribute; protected ones marked."""
    protected = set(protected)
    cols = [f"{c} *" if c in protected else c for c in strengths.columns]
    z = strengths.to_numpy(dtype=float)
    text = np.vectorize(lambda v: "" if np.isnan(v) else f"{v:.2f}")(z)
    fig = go.Figure(go.Heatmap(
        z=z, x=cols, y=list(strengths.index), zmin=0, zmax=1, colorscale="Reds",
        text=text, texttemplate="%{text}", colorbar=dict(title="MIC"),
        hovertemplate="%{y} vs %{x}: MIC %{z:.3f}<extra></extra>",
    ))
    fig.update_xaxes(title_text="attribute (* = protected)")
    fig.update_yaxes(title_text="sensitive attribute")
    fig.update_layout(title=f"Connection strength (MIC) to the sensitive attributes{_on(dataset)}; "
                            f"* = protected at CS_Tsh = {threshold:.2f}",
                      height=200 + 40 * len(strengths.index), margin=dict(l=10, r=10, t=60, b=10))
    return fig


_MSE, _MSE_SD = "mean MSE", "standard deviation of MSE"
_RL, _RL_SD = "mean record linkage (%)", "standard deviation of record linkage (%)"


#: the references' legend names and line styles (:mod:`core.sskm.references`)
_REF_STYLE = {"raw table (no protection)": dict(dash="dot", color="#555555"),
              "random release (no information)": dict(dash="dash", color="#999999")}


def _ref_value(references: pd.DataFrame | None, name: str, column: str) -> float:
    if references is None:
        return float("nan")
    hit = references.loc[references["reference"] == name, column]
    return float(hit.iloc[0]) if len(hit) else float("nan")


def epsilon_data(curve: pd.DataFrame, references: pd.DataFrame | None = None) -> pd.DataFrame:
    """The points of :func:`epsilon_curves`, one row per epsilon: the mean and standard
    deviation of the MSE and of the record linkage (in percent, as drawn), their 95%
    intervals over the repetitions when the curve has them, and each reference's MSE and
    linkage (the same on every row) when ``references`` are given."""
    out = pd.DataFrame({"epsilon": curve["epsilon"].to_numpy(dtype=float),
                        _MSE: curve["mse_mean"].to_numpy(dtype=float),
                        _MSE_SD: curve["mse_std"].to_numpy(dtype=float),
                        _RL: 100 * curve["rl_mean"].to_numpy(dtype=float),
                        _RL_SD: 100 * curve["rl_std"].to_numpy(dtype=float)})
    for metric, scale, name in (("mse", 1.0, "MSE"), ("rl", 100.0, "record linkage (%)")):
        if f"{metric}_lo" in curve.columns and f"{metric}_hi" in curve.columns:
            out[f"{name} 95% interval low"] = scale * curve[f"{metric}_lo"].to_numpy(dtype=float)
            out[f"{name} 95% interval high"] = scale * curve[f"{metric}_hi"].to_numpy(dtype=float)
    if references is not None:
        for ref in _REF_STYLE:
            out[f"{ref}: MSE"] = _ref_value(references, ref, "mse_mean")
            out[f"{ref}: record linkage (%)"] = 100 * _ref_value(references, ref, "rl_mean")
    return out


def _bars(data: pd.DataFrame, mean: str, sd: str, name: str) -> dict:
    """Error bars: the 95% interval when the data has it (finite), else one standard deviation."""
    lo, hi = f"{name} 95% interval low", f"{name} 95% interval high"
    if lo in data.columns and np.isfinite(data[lo]).all() and np.isfinite(data[hi]).all():
        return dict(type="data", symmetric=False, array=(data[hi] - data[mean]).clip(lower=0),
                    arrayminus=(data[mean] - data[lo]).clip(lower=0))
    return dict(type="data", array=data[sd])


def epsilon_curves(curve: pd.DataFrame, *, current: float | None = None, mode: str = "sound",
                   dataset: str = "", references: pd.DataFrame | None = None) -> go.Figure:
    """MSE and RL of the release vs epsilon (mean over repetitions; bars: the 95% interval
    when the curve has ``*_lo`` / ``*_hi``, else one standard deviation).

    Both y axes start at 0, so a curve that barely moves with epsilon looks flat (a zoomed
    axis made small changes look large); the log epsilon axis has 1-2-5 ticks. With
    ``references`` (:func:`core.sskm.references.references`) each panel draws the raw
    table (dotted) and a random release (dashed grey) as horizontal lines named in the
    legend. Drawn from :func:`epsilon_data`.
    """
    data = epsilon_data(curve, references)
    eps = data["epsilon"]
    fig = make_subplots(rows=1, cols=2, subplot_titles=("Information loss (MSE)", "Record linkage (RL, %)"))
    c = color(mode)
    fig.add_trace(go.Scatter(x=eps, y=data[_MSE], mode="lines+markers", name="MSE", showlegend=False,
                             line=dict(color=c), error_y=_bars(data, _MSE, _MSE_SD, "MSE")),
                  row=1, col=1)
    fig.add_trace(go.Scatter(x=eps, y=data[_RL], mode="lines+markers", name="RL", showlegend=False,
                             line=dict(color=c), error_y=_bars(data, _RL, _RL_SD, "record linkage (%)")),
                  row=1, col=2)
    tops = {1: [float(np.nanmax(data[_MSE] + data[_MSE_SD]))] if len(data) else [1.0],
            2: [float(np.nanmax(data[_RL] + data[_RL_SD]))] if len(data) else [1.0]}
    if references is not None and len(eps):
        span = [float(eps.min()), float(eps.max())]
        for ref, style in _REF_STYLE.items():
            for col, column in ((1, f"{ref}: MSE"), (2, f"{ref}: record linkage (%)")):
                value = float(data[column].iloc[0])
                if not np.isfinite(value):
                    continue
                tops[col].append(value)
                fig.add_trace(go.Scatter(x=span, y=[value, value], mode="lines", name=ref, legendgroup=ref,
                                         showlegend=col == 1, line=dict(width=2, **style),
                                         hovertemplate=f"{ref}: %{{y:.4g}}<extra></extra>"), row=1, col=col)
    fig.update_xaxes(type="log", title_text="epsilon (log scale)", **log_ticks(eps))
    top_mse, top_rl = max(tops[1]), max(tops[2])
    fig.update_yaxes(title_text="MSE (scaled attributes)", range=[0, 1.1 * top_mse if top_mse > 0 else 1],
                     row=1, col=1)
    fig.update_yaxes(title_text="record linkage (%)", range=[0, 1.1 * top_rl if top_rl > 0 else 1],
                     row=1, col=2)
    if current is not None:
        for col in (1, 2):
            fig.add_vline(x=current, line_dash="dot", line_color="grey", row=1, col=col)
    fig.update_layout(title=f"SSKM_DP ({mode} mode): MSE and record linkage vs epsilon{_on(dataset)}",
                      height=360 if references is None else 420,
                      margin=dict(l=10, r=10, t=70, b=10), showlegend=references is not None,
                      legend=dict(orientation="h", y=-0.3, x=0))
    return fig


_A = "number of clusters a"


def baselines_data(table: pd.DataFrame) -> pd.DataFrame:
    """The lines of :func:`baselines_vs_a`, one row per method and a (methods in order of
    appearance, a sorted): the mean and standard deviation of the MSE."""
    parts = [part.sort_values("a", kind="stable") for _, part in table.groupby("method", sort=False)]
    t = pd.concat(parts) if parts else table.iloc[:0]
    return pd.DataFrame({"method": t["method"].astype(str).to_numpy(), _A: t["a"].to_numpy(),
                         _MSE: t["mse_mean"].to_numpy(dtype=float), _MSE_SD: t["mse_std"].to_numpy(dtype=float)})


def baselines_vs_a(table: pd.DataFrame, *, dataset: str = "", epsilon: float | None = None,
                   random_mse: float | None = None) -> go.Figure:
    """MSE vs number of clusters a for each method (SSKM_DP's a is its own cluster count;
    drawn from :func:`baselines_data`); ``random_mse`` (a random release's MSE on the same
    records) is drawn as a dashed grey line named in the legend."""
    data = baselines_data(table)
    fig = go.Figure()
    if random_mse is not None and np.isfinite(random_mse) and len(data):
        a_span = [float(data[_A].min()), float(data[_A].max())]
        name = "random release (no information)"
        fig.add_trace(go.Scatter(x=a_span, y=[float(random_mse)] * 2, mode="lines", name=name,
                                 line=dict(width=2, **_REF_STYLE[name]),
                                 hovertemplate=name + ": %{y:.4g}<extra></extra>"))
    for method, part in data.groupby("method", sort=False):
        c = color(method)
        fig.add_trace(go.Scatter(x=part[_A], y=part[_MSE], mode="lines+markers", name=method,
                                 line=dict(color=c), marker=dict(color=c),
                                 error_y=dict(type="data", array=part[_MSE_SD])))
    a_values = sorted({int(a) for a in data[_A]}) if len(data) else []
    ticks = dict(tickmode="array", tickvals=a_values, ticktext=[f"{a:,}" for a in a_values]) if a_values else {}
    fig.update_xaxes(type="log", title_text="number of clusters a (log scale)", **ticks)
    fig.update_yaxes(title_text="MSE (scaled attributes)", rangemode="tozero")
    at = f" at epsilon = {epsilon:g}" if epsilon is not None else ""
    fig.update_layout(title=f"Information loss (MSE) vs number of clusters a{at}: MDAV, MDAV_DP, IDP-KMeans and "
                            f"SSKM_DP{_on(dataset)}", height=380, margin=dict(l=10, r=10, t=60, b=10),
                      legend=dict(orientation="h", y=-0.25))
    return fig


# ---------------------------------------------------------------- Fig. 5-6: across a and m
_ACOL, _ALO, _AHI = "number of clusters a (mean)", "least a", "largest a"
_RANDOM = "random release (no information)"
_WHAT = {"mse": (_MSE, _MSE_SD, 1.0, "MSE (scaled attributes)", "Information loss (MSE)", "Fig. 5"),
         "rl": (_RL, _RL_SD, 100.0, "record linkage (%)", "Record linkage (RL, %)", "Fig. 6")}


def _clusters_data(summary: pd.DataFrame, metric: str) -> pd.DataFrame:
    need = {"m", "grid", "epsilon", "a_mean", "a_min", "a_max", f"{metric}_mean", f"{metric}_std"}
    if not isinstance(summary, pd.DataFrame):
        raise TypeError(f"summary must be a pandas DataFrame, got {type(summary).__name__}.")
    missing = need - set(summary.columns)
    if missing:
        raise ValueError(f"summary lacks the column(s) {sorted(missing)}.")
    mean, sd, scale = _WHAT[metric][:3]
    t = summary.sort_values(["m", "epsilon", "a_mean"], kind="stable")
    out = pd.DataFrame({"m": t["m"].to_numpy(), "epsilon": t["epsilon"].to_numpy(dtype=float),
                        "SOM grid": t["grid"].astype(str).to_numpy(), _ACOL: t["a_mean"].to_numpy(dtype=float),
                        _ALO: t["a_min"].to_numpy(), _AHI: t["a_max"].to_numpy(),
                        mean: scale * t[f"{metric}_mean"].to_numpy(dtype=float),
                        sd: scale * t[f"{metric}_std"].to_numpy(dtype=float)})
    if f"random_{metric}" in t.columns:  # the sweep measured a random release per m
        out[_RANDOM] = scale * t[f"random_{metric}"].to_numpy(dtype=float)
    return out


def _clusters_chart(summary: pd.DataFrame, metric: str, *, mode: str, dataset: str) -> go.Figure:
    data = _clusters_data(summary, metric)
    mean, sd, _, y_title, what, fig_no = _WHAT[metric]
    ms = list(dict.fromkeys(data["m"]))
    epsilons = sorted(set(data["epsilon"]))
    shades = sample_colorscale("Viridis", [0.9 * i / max(len(epsilons) - 1, 1) for i in range(len(epsilons))])
    fig = make_subplots(rows=1, cols=max(len(ms), 1), subplot_titles=[f"m = {m} attributes" for m in ms])
    for col, m in enumerate(ms, start=1):
        for eps, shade in zip(epsilons, shades):
            part = data[(data["m"] == m) & (data["epsilon"] == eps)]
            fig.add_trace(go.Scatter(
                x=part[_ACOL], y=part[mean], mode="lines+markers", name=f"epsilon {eps:g}",
                legendgroup=f"{eps:g}", showlegend=col == 1, line=dict(color=shade), marker=dict(color=shade),
                error_y=dict(type="data", array=part[sd]), customdata=part[["SOM grid", _ALO, _AHI]].to_numpy(),
                hovertemplate=("epsilon " + f"{eps:g}" + "<br>map %{customdata[0]}: a = %{x:.0f} "
                               "(%{customdata[1]} to %{customdata[2]})<br>%{y:.4g}<extra></extra>"),
            ), row=1, col=col)
        ref = data.loc[data["m"] == m, _RANDOM] if _RANDOM in data.columns else pd.Series(dtype=float)
        if len(ref) and np.isfinite(ref.iloc[0]):
            a_span = data.loc[data["m"] == m, _ACOL]
            fig.add_trace(go.Scatter(
                x=[float(a_span.min()), float(a_span.max())], y=[float(ref.iloc[0])] * 2, mode="lines", name=_RANDOM,
                legendgroup=_RANDOM, showlegend=col == 1, line=dict(width=2, **_REF_STYLE[_RANDOM]),
                hovertemplate=_RANDOM + ": %{y:.4g}<extra></extra>"), row=1, col=col)
        fig.update_xaxes(title_text="number of clusters a", row=1, col=col)
        fig.update_yaxes(title_text=y_title, rangemode="tozero", row=1, col=col)
    fig.update_layout(title=f"{fig_no}: {what} of SSKM_DP ({mode} mode) vs number of clusters a, per epsilon"
                            f"{_on(dataset)}",
                      height=400, margin=dict(l=10, r=10, t=80, b=10), legend=dict(orientation="h", y=-0.2))
    return fig


def mse_vs_clusters_data(summary: pd.DataFrame) -> pd.DataFrame:
    """The points of :func:`mse_vs_clusters`, one row per m, epsilon and SOM grid (sorted by m,
    epsilon and a): the grid, its mean, least and largest number of clusters a, and the mean
    and standard deviation of the MSE.

    Parameters
    ----------
    summary : pandas.DataFrame
        :func:`core.sskm.sweeps.grid_summary` of a sweep.
    """
    return _clusters_data(summary, "mse")


def mse_vs_clusters(summary: pd.DataFrame, *, mode: str = "sound", dataset: str = "") -> go.Figure:
    """Paper 003's Fig. 5: SSKM_DP's MSE vs the number of clusters a, one line per epsilon, one
    panel per m (bars = 1 std over repetitions; drawn from :func:`mse_vs_clusters_data`)."""
    return _clusters_chart(summary, "mse", mode=mode, dataset=dataset)


def rl_vs_clusters_data(summary: pd.DataFrame) -> pd.DataFrame:
    """The points of :func:`rl_vs_clusters`, one row per m, epsilon and SOM grid (sorted by m,
    epsilon and a): the grid, its mean, least and largest a, and the mean and standard
    deviation of the record linkage in percent.

    Parameters
    ----------
    summary : pandas.DataFrame
        :func:`core.sskm.sweeps.grid_summary` of a sweep (RL as a fraction).
    """
    return _clusters_data(summary, "rl")


def rl_vs_clusters(summary: pd.DataFrame, *, mode: str = "sound", dataset: str = "") -> go.Figure:
    """Paper 003's Fig. 6: SSKM_DP's record linkage (%) vs the number of clusters a, one line
    per epsilon, one panel per m (drawn from :func:`rl_vs_clusters_data`)."""
    return _clusters_chart(summary, "rl", mode=mode, dataset=dataset)
