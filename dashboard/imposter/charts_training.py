"""Charts of IMPOSTER's training and sweeps (paper 002): the live training curves (losses
and D2's accuracy probe), Table 2 over theta and Fig. 8 over lambda; pure functions,
results in, plotly figures out. They share the names and colours of
:mod:`dashboard.imposter.charts`.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from dashboard.imposter.charts import _LABEL_COLOR, _SENS_COLOR, _SETTING_NAMES, PAPER_NAME, _on
from dashboard.shared.widgets.charts import plotly_text
from dashboard.shared.widgets.palette import log_ticks

__all__ = ["training_curves", "training_data", "table2_chart", "table2_data", "fig8_chart", "fig8_data"]


#: the training history's columns, as the chart's CSV names them
_HISTORY_WORDS = {"iteration": "iteration", "d1": "D1 loss", "d2": "D2 loss", "g": "G loss (V1 + lambda V2)",
                  "recon": "reconstruction loss", "kl": "KL divergence",
                  "d2_accuracy": "D2 accuracy on generated records"}
#: D2's reference: the probe scores D2 on a class-balanced batch of generated records (each
#: value of s equally often: core.imposter.training's ``probe_d2``), where always guessing one
#: value, the table's commonest included, scores exactly 1 / classes. The table's majority
#: share (what the other sections read accuracies against) is no reference here: a D2 at it
#: would be telling s from the generated columns.
_CHANCE = "constant guess on the class-balanced probe batch (1 / classes)"
#: how the chart names that line
_CHANCE_NOTE = "constant guess<br>(balanced batch)"


def training_data(history: pd.DataFrame, *, n_classes: int = 2) -> pd.DataFrame:
    """The curves of :func:`training_curves`, one row per iteration: each loss, D2's
    accuracy probe (empty where it was not probed), and the constant guess's accuracy on the
    probe's class-balanced batch, 1 / classes (:data:`_CHANCE`)."""
    cols = [c for c in _HISTORY_WORDS if c in history.columns]
    out = history[cols].rename(columns=_HISTORY_WORDS).reset_index(drop=True)
    out[_CHANCE] = 1.0 / n_classes
    return out


def training_curves(history: pd.DataFrame, *, n_classes: int = 2, data: str | None = None) -> go.Figure:
    """Losses per iteration (adversarial, reconstruction/KL) and D2's accuracy probe
    (drawn from :func:`training_data`), read against the constant guess on the probe's
    class-balanced batch, 1 / ``n_classes`` (not the table's majority share: :data:`_CHANCE`)."""
    on_data = data
    data = training_data(history, n_classes=n_classes)
    w = _HISTORY_WORDS
    fig = make_subplots(rows=1, cols=3, subplot_titles=(
        "Adversarial losses", "VAE terms (Eq. 8)", "D2 accuracy on generated records"))
    if len(data):
        it = data[w["iteration"]]
        for key, name in (("d1", "D1"), ("d2", "D2"), ("g", "G (V1 + lambda V2)")):
            fig.add_trace(go.Scatter(x=it, y=data[w[key]], name=name, mode="lines"), row=1, col=1)
        for key, name in (("recon", "reconstruction"), ("kl", "KL")):
            fig.add_trace(go.Scatter(x=it, y=data[w[key]], name=name, mode="lines"), row=1, col=2)
        acc = w["d2_accuracy"]
        probe = data.dropna(subset=[acc]) if acc in data else data.iloc[:0]
        fig.add_trace(go.Scatter(x=probe[w["iteration"]], y=probe[acc] if acc in probe else [],
                                 name="D2 probe", mode="lines+markers"), row=1, col=3)
    fig.add_hline(y=1.0 / n_classes, line_dash="dot", row=1, col=3,
                  annotation_text=_CHANCE_NOTE, annotation_position="bottom right")
    fig.update_yaxes(range=[0, 1], row=1, col=3)
    fig.update_yaxes(title_text="loss", row=1, col=1)
    fig.update_yaxes(title_text="loss term", row=1, col=2)
    fig.update_yaxes(title_text="accuracy", row=1, col=3)
    fig.update_xaxes(title_text="iteration")
    fig.update_layout(title=_on("IMPOSTER training: losses and D2's accuracy per iteration", on_data),
                      height=380, margin=dict(l=10, r=10, t=80, b=10),
                      legend=dict(orientation="h", y=-0.25))
    return fig


# ---------------------------------------------------------------- Table 2 and Fig. 8 (the sweeps)
_SETTING_COLORS = {"A: real": "#2ca02c", "B: synthetic": "#d62728"}
_FLOOR_COLOR = "#7f7f7f"
_METRICS = {"accuracy": "accuracy", "f1": "F1 (macro)"}


def _floor_name(sensitive: str) -> str:
    return f"majority share of {sensitive} (synthetic)"


def table2_data(runs: pd.DataFrame, *, paper: dict | None = None, sensitive: str = "s",
                label: str = "label") -> pd.DataFrame:
    """The points of :func:`table2_chart`, one row per theta, source, setting, task and
    metric: ours from :func:`core.imposter.theta_sweep` (a theta no attribute reaches has
    no row), then the paper's (``paper``: PAPER_TABLE2, "paper (Adult)"); our rows carry
    the majority share of s in the synthetic table (the no-leak floor)."""
    tasks = {"sensitive": f"predict {sensitive}", "label": f"predict {label}"}
    floor = _floor_name(sensitive)
    rows = []
    for _, run in runs.iterrows():
        for setting in ("A", "B"):
            for task, task_name in tasks.items():
                for metric, metric_name in _METRICS.items():
                    value = run.get(f"{setting}_{task}_{metric}")
                    if value is None or pd.isna(value):
                        continue
                    rows.append({"theta": float(run["theta"]), "source": "ours",
                                 "setting": _SETTING_NAMES[setting], "task": task_name,
                                 "metric": metric_name, "value": float(value),
                                 floor: float(run.get("majority_synthetic", np.nan))})
    for theta, cells in (paper or {}).items():
        for cell, values in cells.items():
            setting, task = cell.split("_")
            for metric_name, value in zip(_METRICS.values(), values):
                rows.append({"theta": float(theta), "source": PAPER_NAME, "setting": _SETTING_NAMES[setting],
                             "task": tasks[task], "metric": metric_name, "value": float(value), floor: np.nan})
    columns = ["theta", "source", "setting", "task", "metric", "value", floor]
    return pd.DataFrame(rows, columns=columns)


def table2_chart(runs: pd.DataFrame, *, paper: dict | None = None, sensitive: str = "s",
                 label: str = "label", classifier: str = "XGBoost", data: str | None = None) -> go.Figure:
    """Table 2 as curves over theta (log scale): accuracy (top) and F1 (bottom) predicting
    s (left) and the label (right) in settings A and B; ours solid, the paper's
    (``paper``) dashed with hollow markers; the majority share of s in the synthetic
    table dotted in the s-accuracy panel. Drawn from :func:`table2_data`."""
    df = table2_data(runs, paper=paper, sensitive=sensitive, label=label)
    tasks = [f"predict {sensitive}", f"predict {label}"]
    fig = make_subplots(rows=2, cols=2, shared_xaxes=True, vertical_spacing=0.12, subplot_titles=[
        f"{m} {plotly_text(t)}" for m in ("Accuracy", "F1") for t in tasks])  # titles read a link
    for (r, metric), (c, task) in ((rm, ct) for rm in enumerate(_METRICS.values(), 1) for ct in enumerate(tasks, 1)):
        panel = df[(df["metric"] == metric) & (df["task"] == task)]
        first = r == 1 and c == 1
        for setting, colour in _SETTING_COLORS.items():
            for source in ("ours", PAPER_NAME):
                pts = panel[(panel["setting"] == setting) & (panel["source"] == source)].sort_values("theta")
                if pts.empty:
                    continue
                ours = source == "ours"
                name = setting if ours else f"{setting} ({PAPER_NAME})"
                fig.add_trace(go.Scatter(
                    x=pts["theta"], y=pts["value"], mode="lines+markers", name=name, legendgroup=name,
                    showlegend=first, line=dict(color=colour, dash="solid" if ours else "dash"),
                    marker=dict(color=colour, size=9, symbol="circle" if ours else "circle-open",
                                line=dict(width=2))), row=r, col=c)
        if metric == "accuracy" and task == tasks[0]:
            floor = df[df["source"] == "ours"].drop_duplicates("theta").sort_values("theta")
            floor = floor.dropna(subset=[_floor_name(sensitive)])
            if len(floor):
                fig.add_trace(go.Scatter(x=floor["theta"], y=floor[_floor_name(sensitive)], mode="lines",
                                         name="majority share (no leak)",
                                         line=dict(color=_FLOOR_COLOR, dash="dot")), row=r, col=c)
    thetas = df["theta"].tolist()
    fig.update_xaxes(type="log", **log_ticks(thetas))
    fig.update_xaxes(title_text="theta (NMI threshold, log scale)", row=2)
    fig.update_yaxes(title_text="accuracy", row=1, col=1)
    fig.update_yaxes(title_text="F1 (macro)", row=2, col=1)
    fig.update_layout(
        title=_on(f"Table 2: {classifier} in settings A and B for each theta; dashed, hollow: {PAPER_NAME}", data),
        height=560, margin=dict(l=10, r=10, t=90, b=10), legend=dict(orientation="h", y=-0.12))
    return fig


def fig8_data(runs: pd.DataFrame, *, sensitive: str = "s", label: str = "label") -> pd.DataFrame:
    """The points of :func:`fig8_chart`, one row per lambda, task and metric: setting-B
    scores from :func:`core.imposter.lambda_sweep` (averaged over repetitions), with the
    majority share of s in the synthetic table (the no-leak floor) beside them."""
    tasks = {"sensitive": f"predict {sensitive}", "label": f"predict {label}"}
    cols = [f"B_{t}_{m}" for t in tasks for m in _METRICS] + ["majority_synthetic"]
    have = [c for c in cols if c in runs.columns]
    mean = runs.groupby("lambda", as_index=False)[have].mean().sort_values("lambda")
    rows = []
    for _, run in mean.iterrows():
        for task, task_name in tasks.items():
            for metric, metric_name in _METRICS.items():
                key = f"B_{task}_{metric}"
                if key in run and not pd.isna(run[key]):
                    rows.append({"lambda": float(run["lambda"]), "task": task_name, "metric": metric_name,
                                 "value": float(run[key]),
                                 _floor_name(sensitive): float(run.get("majority_synthetic", np.nan))})
    return pd.DataFrame(rows, columns=["lambda", "task", "metric", "value", _floor_name(sensitive)])


def fig8_chart(runs: pd.DataFrame, *, sensitive: str = "s", label: str = "label", classifier: str = "XGBoost",
               data: str | None = None) -> go.Figure:
    """Fig. 8: setting-B accuracy and F1 predicting s (left, (a)) and the label (right,
    (b)) against lambda, the majority share of s dotted in the left panel (drawn from
    :func:`fig8_data`)."""
    df = fig8_data(runs, sensitive=sensitive, label=label)
    tasks = [f"predict {sensitive}", f"predict {label}"]
    fig = make_subplots(rows=1, cols=2, subplot_titles=[f"(a) {plotly_text(tasks[0])} (the leak)",
                                                        f"(b) {plotly_text(tasks[1])} (utility)"])
    styles = {"accuracy": "solid", "F1 (macro)": "dash"}
    for c, (task, colour) in enumerate(zip(tasks, (_SENS_COLOR, _LABEL_COLOR)), 1):
        for metric, dash in styles.items():
            pts = df[(df["task"] == task) & (df["metric"] == metric)]
            fig.add_trace(go.Scatter(x=pts["lambda"], y=pts["value"], mode="lines+markers",
                                     name=f"{task}: {metric}", line=dict(color=colour, dash=dash),
                                     marker=dict(color=colour)), row=1, col=c)
    floor = df.drop_duplicates("lambda").dropna(subset=[_floor_name(sensitive)])
    if len(floor):
        fig.add_trace(go.Scatter(x=floor["lambda"], y=floor[_floor_name(sensitive)], mode="lines",
                                 name="majority share (no leak)", line=dict(color=_FLOOR_COLOR, dash="dot")),
                      row=1, col=1)
    fig.update_xaxes(title_text="lambda (weight of D2)")
    fig.update_yaxes(title_text="score in setting B")
    fig.update_layout(title=_on(f"Fig. 8: setting B ({classifier}, synthetic data) as lambda grows", data),
                      height=400, margin=dict(l=10, r=10, t=80, b=10), legend=dict(orientation="h", y=-0.25))
    return fig
