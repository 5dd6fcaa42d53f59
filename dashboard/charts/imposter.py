"""Charts of the IMPOSTER page (paper 002): pure functions, results in, plotly figures out."""
from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.express as px
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from dashboard.palette import color, log_ticks

__all__ = ["nmi_bars", "training_curves", "table1_bars", "tradeoff", "krr_vs_epsilon",
           "table1_display", "fidelity_summary", "marginal_tv_bars"]

_MARGIN = dict(l=10, r=10, t=50, b=10)
_SENS_COLOR, _LABEL_COLOR = "#1f77b4", "#ff7f0e"


def nmi_bars(scores: pd.DataFrame, *, theta: float, implicit=()) -> go.Figure:
    """Fig. 6: NMI of each attribute with s, the theta line, flagged attributes coloured."""
    df = scores.copy()
    implicit = set(implicit)
    df["status"] = np.where(df["attribute"].isin(implicit), "implicit",
                            np.where(df["nmi"] >= theta, "candidate (failed beta)", "below theta"))
    fig = px.bar(
        df, x="attribute", y="nmi", color="status",
        color_discrete_map={"implicit": "#d62728", "candidate (failed beta)": "#ff7f0e",
                            "below theta": "#9e9e9e"},
        hover_data={"printed_ratio": ":.4f", "kind": True, "nmi": ":.4f"},
        title="Association of each attribute with the sensitive attribute (NMI, Fig. 6)",
        labels={"nmi": "NMI with the sensitive attribute", "attribute": "attribute",
                "printed_ratio": "Eq. 7 as printed"},
        category_orders={"attribute": list(df["attribute"])},
    )
    fig.add_hline(y=theta, line_dash="dash", line_color="black",
                  annotation_text=f"theta = {theta:g}", annotation_position="top right")
    fig.update_layout(height=360, margin=_MARGIN, legend_title_text="")
    return fig


def training_curves(history: pd.DataFrame, *, n_classes: int = 2) -> go.Figure:
    """Losses per iteration (adversarial, reconstruction/KL) and D2's accuracy probe."""
    fig = make_subplots(rows=1, cols=3, subplot_titles=(
        "Adversarial losses", "VAE terms (Eq. 8)", "D2 accuracy on generated records"))
    if len(history):
        it = history["iteration"]
        for key, name in (("d1", "D1"), ("d2", "D2"), ("g", "G (V1 + lambda V2)")):
            fig.add_trace(go.Scatter(x=it, y=history[key], name=name, mode="lines"), row=1, col=1)
        for key, name in (("recon", "reconstruction"), ("kl", "KL")):
            fig.add_trace(go.Scatter(x=it, y=history[key], name=name, mode="lines"), row=1, col=2)
        probe = history.dropna(subset=["d2_accuracy"]) if "d2_accuracy" in history else history.iloc[:0]
        fig.add_trace(go.Scatter(x=probe["iteration"], y=probe["d2_accuracy"], name="D2 probe",
                                 mode="lines+markers"), row=1, col=3)
    fig.add_hline(y=1.0 / n_classes, line_dash="dot", row=1, col=3,
                  annotation_text="chance", annotation_position="bottom right")
    fig.update_yaxes(range=[0, 1], row=1, col=3)
    fig.update_yaxes(title_text="loss", row=1, col=1)
    fig.update_yaxes(title_text="loss term", row=1, col=2)
    fig.update_yaxes(title_text="accuracy", row=1, col=3)
    fig.update_xaxes(title_text="iteration")
    fig.update_layout(title="IMPOSTER training", height=380, margin=dict(l=10, r=10, t=80, b=10),
                      legend=dict(orientation="h", y=-0.25))
    return fig


_SETTING_NAMES = {"A": "A: real", "B": "B: synthetic", "TSTR": "train synthetic, test real"}


def table1_display(table: pd.DataFrame) -> pd.DataFrame:
    """Table 1 with readable column names: 'B: synthetic · predict sex · accuracy'."""
    sens, label = table.attrs.get("sensitive", "sensitive"), table.attrs.get("label", "label")
    out = table.copy()
    out.columns = [
        f"{_SETTING_NAMES.get(s, s)} · predict {sens if t == 'sensitive' else label} · {m}"
        for s, t, m in table.columns
    ]
    return out


def table1_bars(table: pd.DataFrame, *, metric: str = "accuracy") -> go.Figure:
    """Grouped bars per classifier: one panel per task, one colour per setting; the
    majority share of the sensitive attribute as a dashed line (no leak = at the line)."""
    sens, label = table.attrs.get("sensitive", "sensitive"), table.attrs.get("label", "label")
    long = table.xs(metric, axis=1, level="metric").stack(level=[0, 1], future_stack=True)
    long = long.rename("value").reset_index()
    long["task"] = long["task"].map({"sensitive": f"predict {sens} from implicit attributes",
                                     "label": f"predict {label} from all attributes"})
    long["setting"] = long["setting"].map(_SETTING_NAMES)
    fig = px.bar(long, x="classifier", y="value", color="setting", barmode="group",
                 facet_col="task", range_y=[0, 1], labels={"value": metric, "classifier": "classifier"},
                 title=f"Table 1: {metric} on real data (A), synthetic data (B) and train synthetic, test real")
    fig.for_each_annotation(lambda a: a.update(text=a.text.split("=")[-1]))
    if metric == "accuracy" and "majority_synthetic" in table.attrs:
        fig.add_hline(y=table.attrs["majority_synthetic"], line_dash="dash", col=1,
                      annotation_text="majority share", annotation_position="bottom left")
    fig.update_layout(height=400, margin=dict(l=10, r=10, t=80, b=10), legend_title_text="")
    return fig


def tradeoff(curve: pd.DataFrame, *, imposter: tuple[float, float] | None,
             majority: float | None = None, real: tuple[float, float] | None = None) -> go.Figure:
    """Privacy (x: accuracy predicting s, lower is better) against utility (y: label
    accuracy, higher is better): the kRR curve over epsilon and IMPOSTER's point."""
    fig = go.Figure()
    c = curve.sort_values("epsilon")
    fig.add_trace(go.Scatter(
        x=c["sensitive_accuracy"], y=c["label_accuracy"], mode="lines+markers+text",
        text=[f"ε={e:g}" for e in c["epsilon"]], textposition="top left", name="kRR (Eq. 1)",
        line=dict(color=color("kRR")), marker=dict(color=color("kRR"))))
    if imposter is not None:
        fig.add_trace(go.Scatter(x=[imposter[0]], y=[imposter[1]], mode="markers",
                                 marker=dict(size=14, symbol="star", color=color("IMPOSTER")),
                                 name="IMPOSTER"))
    if real is not None:
        fig.add_trace(go.Scatter(x=[real[0]], y=[real[1]], mode="markers",
                                 marker=dict(size=11, symbol="diamond", color="#555"),
                                 name="real data (setting A)"))
    if majority is not None:
        fig.add_vline(x=majority, line_dash="dash", annotation_text="no leak (majority share)")
    fig.update_layout(height=380, margin=_MARGIN, title="Privacy vs utility: kRR over epsilon and IMPOSTER",
                      xaxis_title="accuracy predicting the sensitive attribute",
                      yaxis_title="accuracy predicting the label")
    return fig


def krr_vs_epsilon(curve: pd.DataFrame, *, imposter: tuple[float, float] | None = None,
                   sensitive: str = "sensitive", label: str = "label") -> go.Figure:
    """Fig. 7: accuracy of both tasks on kRR-perturbed data against epsilon (log scale),
    IMPOSTER's two accuracies as horizontal lines."""
    c = curve.sort_values("epsilon")
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=c["epsilon"], y=c["sensitive_accuracy"], mode="lines+markers",
                             name=f"kRR: predict {sensitive}", line=dict(color=_SENS_COLOR)))
    fig.add_trace(go.Scatter(x=c["epsilon"], y=c["label_accuracy"], mode="lines+markers",
                             name=f"kRR: predict {label}", line=dict(color=_LABEL_COLOR)))
    if imposter is not None:
        fig.add_hline(y=imposter[0], line_dash="dot", line_color=_SENS_COLOR,
                      annotation_text=f"IMPOSTER {sensitive}")
        fig.add_hline(y=imposter[1], line_dash="dot", line_color=_LABEL_COLOR,
                      annotation_text=f"IMPOSTER {label}")
    fig.update_xaxes(type="log", title_text="epsilon (per perturbed value, log scale)", **log_ticks(c["epsilon"]))
    fig.update_yaxes(title_text="accuracy")
    fig.update_layout(title="Accuracy on kRR-perturbed data vs epsilon (Fig. 7)", height=380, margin=_MARGIN,
                      legend=dict(orientation="h", y=-0.25))
    return fig


def fidelity_summary(table: pd.DataFrame, tv: dict) -> pd.DataFrame:
    """The leak, the utility and the marginals side by side, one row per classifier:
    setting-B and train-synthetic/test-real accuracy on s (the leak: against the majority
    share), train-synthetic/test-real accuracy on the label, and the one- and two-way
    total variation of the synthetic table to the real one (the same for every row)."""
    sens, label = table.attrs.get("sensitive", "sensitive"), table.attrs.get("label", "label")
    out = pd.DataFrame(index=table.index)
    if ("B", "sensitive", "accuracy") in table.columns:
        out[f"B: predict {sens} (leak)"] = table[("B", "sensitive", "accuracy")]
    if ("TSTR", "sensitive", "accuracy") in table.columns:
        out[f"train synthetic, test real: predict {sens} (leak)"] = table[("TSTR", "sensitive", "accuracy")]
    if "majority_real" in table.attrs:
        out[f"majority share of {sens} (no leak)"] = float(table.attrs["majority_real"])
    if ("TSTR", "label", "accuracy") in table.columns:
        out[f"train synthetic, test real: predict {label}"] = table[("TSTR", "label", "accuracy")]
    out["one-way TV (marginals)"] = float(tv["one_way"])
    out["two-way TV (pairs)"] = float(tv["two_way"])
    return out


def marginal_tv_bars(tv: dict) -> go.Figure:
    """Each column's total variation distance between its real and synthetic distribution
    (0 = the same, 1 = disjoint), largest first, with the one-way mean as a dashed line."""
    per = pd.Series(tv.get("per_column", {}), dtype=float).sort_values(ascending=False)
    fig = go.Figure(go.Bar(x=list(per.index), y=list(per.to_numpy()), name="TV per column",
                           marker_color=_SENS_COLOR))
    fig.add_hline(y=float(tv["one_way"]), line_dash="dash", line_color="black",
                  annotation_text=f"one-way mean {tv['one_way']:.3f}", annotation_position="top right")
    two = tv.get("two_way")
    title = "Marginal fidelity: total variation, real vs synthetic, per column"
    if two is not None and np.isfinite(two):
        title += f" (two-way mean {two:.3f})"
    fig.update_layout(title=title, height=340, margin=_MARGIN, yaxis_title="total variation",
                      yaxis_range=[0, max(0.05, float(per.max()) * 1.15) if len(per) else 1],
                      showlegend=False)
    return fig
