"""Charts of the IMPOSTER page (paper 002): pure functions, results in, plotly figures out.

Detection (Fig. 6), Table 1, kRR against IMPOSTER (Fig. 7) and the marginal fidelity; the
training curves and the sweeps' charts (Table 2, Fig. 8) are in
:mod:`dashboard.imposter.charts_training`.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.express as px
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from dashboard.shared.widgets.charts import plotly_text
from dashboard.shared.widgets.palette import color, log_ticks

__all__ = ["nmi_bars", "nmi_data", "detection_chart", "detection_data", "REFERENCE_NAME", "MODEL_NAME",
           "table1_bars", "table1_data", "tradeoff", "krr_vs_epsilon", "krr_data", "table1_display",
           "fidelity_summary", "marginal_tv_bars", "marginal_tv_data", "PAPER_NAME"]

_MARGIN = dict(l=10, r=10, t=50, b=10)
_SENS_COLOR, _LABEL_COLOR = "#1f77b4", "#ff7f0e"
#: how the paper's own numbers are labelled beside ours
PAPER_NAME = "paper (Adult)"
#: the reference lines of every accuracy chart (the project's convention)
REFERENCE_NAME, MODEL_NAME = "majority class (constant guess)", "non-private model"
_REF_COLOR = "#7f7f7f"


def _on(title: str, data: str | None) -> str:
    """``title`` on the dataset ``data`` ("... · census"); the name is escaped (plotly
    reads a few HTML tags in titles)."""
    if not data:
        return title
    return f"{title} · {plotly_text(data)}"


_NMI, _PRINTED = "NMI with the sensitive attribute", "Eq. 7 as printed"


def nmi_data(scores: pd.DataFrame, *, theta: float, implicit=()) -> pd.DataFrame:
    """The bars of :func:`nmi_bars`, one row per attribute (in the order of ``scores``): its
    kind, its NMI with s, Eq. 7 as printed in the paper, its status (implicit, candidate
    that failed beta, below theta) and theta (the dashed line)."""
    implicit = set(implicit)
    attribute = scores["attribute"].astype(str)
    nmi = scores["nmi"].to_numpy(dtype=float)
    out = pd.DataFrame({"attribute": attribute.to_numpy()})
    if "kind" in scores.columns:
        out["kind"] = scores["kind"].to_numpy()
    out[_NMI] = nmi
    if "printed_ratio" in scores.columns:
        out[_PRINTED] = scores["printed_ratio"].to_numpy(dtype=float)
    out["status"] = np.where(scores["attribute"].isin(implicit).to_numpy(), "implicit",
                             np.where(nmi >= theta, "candidate (failed beta)", "below theta"))
    out["theta"] = float(theta)
    return out


def nmi_bars(scores: pd.DataFrame, *, theta: float, implicit=(), data: str | None = None) -> go.Figure:
    """Fig. 6: NMI of each attribute with s, the theta line, flagged attributes coloured
    (drawn from :func:`nmi_data`)."""
    df = nmi_data(scores, theta=theta, implicit=implicit)
    hover = {c: f for c, f in ((_PRINTED, ":.4f"), ("kind", True)) if c in df.columns}
    fig = px.bar(
        df, x="attribute", y=_NMI, color="status",
        color_discrete_map={"implicit": "#d62728", "candidate (failed beta)": "#ff7f0e",
                            "below theta": "#9e9e9e"},
        hover_data={**hover, _NMI: ":.4f"},
        title=_on("Association of each attribute with the sensitive attribute (NMI, Fig. 6)", data),
        category_orders={"attribute": list(df["attribute"])},
    )
    fig.add_hline(y=theta, line_dash="dash", line_color="black",
                  annotation_text=f"theta = {theta:g}", annotation_position="top right")
    fig.update_layout(height=360, margin=_MARGIN, legend_title_text="")
    return fig


_GAIN = "gain over the constant guess"
_STATUS_COLORS = {"flagged": "#d62728", "not flagged": "#9e9e9e",
                  "implicit": "#d62728", "candidate (failed beta)": "#ff7f0e", "below theta": "#9e9e9e"}


def detection_data(scores: pd.DataFrame, *, theta: float, default_implicit=(), paper_implicit=(),
                   majority: float | None = None) -> pd.DataFrame:
    """The two panels of :func:`detection_chart`, one row per attribute (in the order of
    ``scores``): its NMI with s and its status under the paper's rule (implicit, candidate
    that failed beta, below theta), theta; its held-out accuracy, the constant guess's,
    the gain and its interval and its status under the default rule (flagged or not)."""
    out = nmi_data(scores, theta=theta, implicit=paper_implicit).rename(columns={"status": "paper's rule"})
    flagged = scores["attribute"].isin(set(default_implicit)).to_numpy()
    for col, name in (("accuracy", "held-out accuracy from the attribute"),
                      ("majority_accuracy", REFERENCE_NAME), ("gain", _GAIN),
                      ("gain_lo", "gain: lower end"), ("gain_hi", "gain: upper end")):
        out[name] = scores[col].to_numpy(dtype=float) if col in scores.columns else np.nan
    out["default rule"] = np.where(flagged, "flagged", "not flagged")
    if majority is not None:
        out["majority share of s"] = float(majority)
    return out


def detection_chart(scores: pd.DataFrame, *, theta: float, default_implicit=(), paper_implicit=(),
                    majority: float | None = None, sensitive: str = "s", data: str | None = None) -> go.Figure:
    """Detection, both rules side by side, one row per attribute: left, the held-out gain
    over the constant guess with its interval (error bars) and the zero line (the default
    rule flags an attribute whose whole interval lies right of 0); right, the NMI with s
    and the theta line (the paper's rule). Drawn from :func:`detection_data`."""
    df = detection_data(scores, theta=theta, default_implicit=default_implicit,
                        paper_implicit=paper_implicit, majority=majority).iloc[::-1]  # largest NMI on top
    names = [plotly_text(a) for a in df["attribute"]]
    fig = make_subplots(rows=1, cols=2, shared_yaxes=True, horizontal_spacing=0.06, subplot_titles=(
        "Default rule: gain", "Paper's rule: NMI"))
    gain = df[_GAIN].to_numpy(dtype=float)
    lo, hi = df["gain: lower end"].to_numpy(dtype=float), df["gain: upper end"].to_numpy(dtype=float)
    for status in ("flagged", "not flagged"):
        m = (df["default rule"] == status).to_numpy()
        if not m.any():
            continue
        fig.add_trace(go.Scatter(
            x=gain[m], y=[n for n, k in zip(names, m) if k], mode="markers", name=f"default rule: {status}",
            marker=dict(size=10, color=_STATUS_COLORS[status], symbol="diamond"),
            error_x=dict(type="data", symmetric=False, array=np.nan_to_num(hi[m] - gain[m]),
                         arrayminus=np.nan_to_num(gain[m] - lo[m]), color=_STATUS_COLORS[status]),
            hovertemplate="%{y}: gain %{x:+.3f}<extra></extra>", legendgroup="default"), row=1, col=1)
    fig.add_vline(x=0, line_dash="dash", line_color=_REF_COLOR, row=1, col=1)  # the constant guess
    for status in ("implicit", "candidate (failed beta)", "below theta"):
        m = (df["paper's rule"] == status).to_numpy()
        if not m.any():
            continue
        fig.add_trace(go.Bar(x=df.loc[m, _NMI], y=[n for n, k in zip(names, m) if k], orientation="h",
                             name=f"paper's rule: {status}", marker_color=_STATUS_COLORS[status],
                             hovertemplate="%{y}: NMI %{x:.4f}<extra></extra>", legendgroup="paper"),
                      row=1, col=2)
    fig.add_vline(x=theta, line_dash="dash", line_color="black", row=1, col=2)  # theta
    span = np.nanmax(np.abs(np.concatenate([lo, hi, [0.02]])))
    fig.update_xaxes(title_text="gain (0 = constant guess)", range=[-1.1 * span, 1.1 * span], zeroline=False,
                     row=1, col=1)
    fig.update_xaxes(title_text=f"NMI (theta = {theta:g})", rangemode="tozero", row=1, col=2)
    fig.update_yaxes(categoryorder="array", categoryarray=names)
    fig.update_yaxes(title_text="attribute", row=1, col=1)
    fig.update_layout(
        title=_on(f"Which attributes give {plotly_text(sensitive)} away", data),
        height=max(300, 110 + 24 * len(df)), margin=dict(l=10, r=10, t=70, b=10), barmode="overlay",
        showlegend=False, bargap=0.25)  # the colours are the verdicts: red flagged (the caption says)
    return fig


_SETTING_NAMES = {"A": "A: real", "B": "B: synthetic", "TSTR": "train synthetic, test real"}


def _paper_table1(table: pd.DataFrame, paper: dict | None) -> dict:
    """The paper's Table 1 rows for the classifiers ``table`` also has (by name)."""
    if not paper:
        return {}
    return {clf: paper[clf] for clf in table.index if clf in paper}


def table1_display(table: pd.DataFrame, *, paper: dict | None = None) -> pd.DataFrame:
    """Table 1 with readable column names: 'B: synthetic · predict sex · accuracy'.

    With ``paper`` (:data:`core.imposter.paper.PAPER_TABLE1`), each classifier the
    paper also reports gets a row "XGBoost (paper, Adult)" below ours: its settings A and
    B (the paper has no train-synthetic/test-real column: empty there)."""
    sens, label = table.attrs.get("sensitive", "sensitive"), table.attrs.get("label", "label")
    out = table.copy()
    for clf, cells in _paper_table1(table, paper).items():
        row = pd.Series(np.nan, index=table.columns, dtype=float)
        for cell, values in cells.items():
            setting, task = cell.split("_")
            for metric, value in zip(("accuracy", "f1"), values):
                if (setting, task, metric) in row.index:
                    row[(setting, task, metric)] = float(value)
        out.loc[f"{clf} (paper, Adult)"] = row
    out.columns = [
        f"{_SETTING_NAMES.get(s, s)} · predict {sens if t == 'sensitive' else label} · {m}"
        for s, t, m in table.columns
    ]
    ours = ~out.index.str.endswith("(paper, Adult)")
    for key, name in (("majority_real", f"{REFERENCE_NAME} · {sens} (real)"),
                      ("majority_synthetic", f"{REFERENCE_NAME} · {sens} (synthetic)"),
                      ("label_majority_real", f"{REFERENCE_NAME} · {label} (real)")):
        if key in table.attrs:
            out[name] = np.where(ours, float(table.attrs[key]), np.nan)
    return out


#: The scores Table 1 can show, in words (the paper reports accuracy and F1).
TABLE1_METRICS = {"accuracy": "Accuracy", "auc": "ROC AUC", "balanced_accuracy": "Balanced accuracy",
                  "f1": "F1 (macro)"}


def _guess_lines(table: pd.DataFrame, metric: str) -> dict[int, float]:
    """The constant guess on ``metric`` per panel (1: the sensitive task on the synthetic
    table, 2: the label on the real one), where the table knows it."""
    attrs = table.attrs
    if metric == "accuracy":
        pairs = ((1, attrs.get("majority_synthetic")), (2, attrs.get("label_majority_real")))
    elif metric == "auc":
        pairs = ((1, 0.5), (2, 0.5))
    elif metric == "balanced_accuracy":
        pairs = tuple((col, 1.0 / attrs[key] if attrs.get(key) else None)
                      for col, key in ((1, "classes_sensitive"), (2, "classes_label")))
    else:
        pairs = ()
    return {col: float(v) for col, v in pairs if v is not None}


def table1_data(table: pd.DataFrame, *, metric: str = "accuracy", paper: dict | None = None) -> pd.DataFrame:
    """The bars of :func:`table1_bars`, one row per classifier, setting and task: the
    ``metric`` of that cell of Table 1; with accuracy, the majority share of s in the
    synthetic table (the dashed line) where the table knows it. With ``paper``
    (:data:`core.imposter.paper.PAPER_TABLE1`) and a classifier the paper reports, a
    ``source`` column tells our rows ("ours") from the paper's ("paper (Adult)"), which
    follow for settings A and B."""
    sens, label = table.attrs.get("sensitive", "sensitive"), table.attrs.get("label", "label")
    tasks = {"sensitive": f"predict {sens} from implicit attributes",
             "label": f"predict {label} from all attributes"}
    long = table.xs(metric, axis=1, level="metric").stack(level=[0, 1], future_stack=True)
    long = long.rename(metric).reset_index()
    long["task"] = long["task"].map(tasks)
    long["setting"] = long["setting"].map(_SETTING_NAMES)
    long = long[["classifier", "setting", "task", metric]]
    theirs = _paper_table1(table, paper) if metric in ("accuracy", "f1") else None
    if theirs:
        index = 0 if metric == "accuracy" else 1
        rows = [{"classifier": clf, "setting": _SETTING_NAMES[cell.split("_")[0]],
                 "task": tasks[cell.split("_")[1]], metric: float(values[index])}
                for clf, cells in theirs.items() for cell, values in cells.items()]
        long = pd.concat([long.assign(source="ours"), pd.DataFrame(rows).assign(source=PAPER_NAME)],
                         ignore_index=True)
    guess = _guess_lines(table, metric)
    word = "majority share of" if metric == "accuracy" else f"constant guess's {TABLE1_METRICS[metric]} for"
    if 1 in guess:
        long[f"{word} {sens} (synthetic)"] = guess[1]
    if 2 in guess:
        long[f"{word} {label} (real)"] = guess[2]
    return long


def table1_bars(table: pd.DataFrame, *, metric: str = "accuracy", paper: dict | None = None,
                data: str | None = None) -> go.Figure:
    """Grouped bars per classifier: one panel per task, one colour per setting; the
    majority share of the sensitive attribute as a dashed line (no leak = at the line).
    With ``paper``, the paper's bars (hatched) beside ours for the classifiers it reports.
    Drawn from :func:`table1_data`."""
    long = table1_data(table, metric=metric, paper=paper)
    hatched = {"pattern_shape": "source", "pattern_shape_map": {"ours": "", PAPER_NAME: "/"}} \
        if "source" in long.columns else {}
    title = (f"Table 1: {TABLE1_METRICS.get(metric, metric).lower()} on real data (A), synthetic data (B) and "
             "train synthetic, test real")
    if hatched:
        title += f"; hatched: {PAPER_NAME}"
    fig = px.bar(long, x="classifier", y=metric, color="setting", barmode="group",
                 facet_col="task", range_y=[0, 1], labels={"classifier": "classifier"},
                 title=_on(title, data), **hatched)
    fig.for_each_annotation(lambda a: a.update(text=a.text.split("=")[-1]))
    for col, value in _guess_lines(table, metric).items():
        fig.add_hline(y=value, line_dash="dash", line_color=_REF_COLOR, col=col,
                      annotation_text=REFERENCE_NAME if metric == "accuracy" else "constant guess",
                      annotation_position="bottom left")
    fig.update_layout(height=400, margin=dict(l=10, r=10, t=80, b=10), legend_title_text="")
    return fig


_KRR, _IMPOSTER, _REAL = "kRR (Eq. 1)", "IMPOSTER", "real data (setting A)"


_PAPER_KRR, _PAPER_IMPOSTER = f"{PAPER_NAME}: kRR", f"{PAPER_NAME}: IMPOSTER"


def _paper_points(paper: dict | None) -> dict[str, tuple[float, float]]:
    """The paper's two points of section 5.6 (:data:`core.imposter.paper.PAPER_FIG7`)."""
    if not paper:
        return {}
    return {_PAPER_KRR: (float(paper["krr_gender_accuracy"]), float(paper["krr_income_accuracy"])),
            _PAPER_IMPOSTER: (float(paper["imposter_gender_accuracy"]), float(paper["imposter_income_accuracy"]))}


def krr_data(curve: pd.DataFrame, *, imposter: tuple[float, float] | None = None,
             real: tuple[float, float] | None = None, majority: float | None = None,
             sensitive: str = "the sensitive attribute", label: str = "the label",
             paper: dict | None = None) -> pd.DataFrame:
    """The points of :func:`tradeoff` and :func:`krr_vs_epsilon`: one row per kRR epsilon
    (sorted), then IMPOSTER's and the real data's (no epsilon), each with its accuracy
    predicting ``sensitive`` and ``label``; with ``paper`` (PAPER_FIG7), the paper's kRR
    and IMPOSTER points on Adult; with ``majority``, the majority share of s (the no-leak
    line)."""
    c = curve.sort_values("epsilon")
    s_col, l_col = f"accuracy predicting {sensitive}", f"accuracy predicting {label}"
    rows = [pd.DataFrame({"release": _KRR, "epsilon": c["epsilon"].to_numpy(dtype=float),
                          s_col: c["sensitive_accuracy"].to_numpy(dtype=float),
                          l_col: c["label_accuracy"].to_numpy(dtype=float)})]
    for name, point in ((_IMPOSTER, imposter), (_REAL, real), *_paper_points(paper).items()):
        if point is not None:
            rows.append(pd.DataFrame({"release": [name], "epsilon": [np.nan], s_col: [float(point[0])],
                                      l_col: [float(point[1])]}))
    out = pd.concat(rows, ignore_index=True)
    if majority is not None:
        out[f"majority share of {sensitive} (no leak)"] = float(majority)
    return out


def tradeoff(curve: pd.DataFrame, *, imposter: tuple[float, float] | None,
             majority: float | None = None, real: tuple[float, float] | None = None,
             paper: dict | None = None, data: str | None = None,
             label_majority: float | None = None) -> go.Figure:
    """Privacy (x: accuracy predicting s, lower is better) against utility (y: label
    accuracy, higher is better): the kRR curve over epsilon and IMPOSTER's point, the
    constant guesses as dashed grey lines (``majority`` for s, ``label_majority`` for the
    label) and the real data's model (setting A, the non-private model); with
    ``paper`` (PAPER_FIG7) the paper's kRR and IMPOSTER points on Adult as hollow
    markers (drawn from :func:`krr_data`)."""
    on_data = data
    data = krr_data(curve, imposter=imposter, real=real, majority=majority, paper=paper)
    x_col, y_col = data.columns[2], data.columns[3]
    fig = go.Figure()
    c = data[data["release"] == _KRR]
    fig.add_trace(go.Scatter(
        x=c[x_col], y=c[y_col], mode="lines+markers+text",
        text=[f"ε={e:g}" for e in c["epsilon"]], textposition="top left", name=_KRR,
        line=dict(color=color("kRR")), marker=dict(color=color("kRR"))))
    if imposter is not None:
        fig.add_trace(go.Scatter(x=[imposter[0]], y=[imposter[1]], mode="markers",
                                 marker=dict(size=14, symbol="star", color=color("IMPOSTER")),
                                 name="IMPOSTER"))
    if real is not None:
        fig.add_trace(go.Scatter(x=[real[0]], y=[real[1]], mode="markers",
                                 marker=dict(size=11, symbol="diamond", color="#555"),
                                 name="real data (setting A)"))
    for label, (x, y) in _paper_points(paper).items():
        who = "kRR" if label == _PAPER_KRR else "IMPOSTER"
        fig.add_trace(go.Scatter(x=[x], y=[y], mode="markers", name=label,
                                 marker=dict(size=13, symbol="star-open" if who == "IMPOSTER" else "circle-open",
                                             color=color(who), line=dict(width=2))))
    if majority is not None:
        fig.add_vline(x=majority, line_dash="dash", line_color=_REF_COLOR,
                      annotation_text=f"{REFERENCE_NAME}: no leak")
    if label_majority is not None:
        fig.add_hline(y=label_majority, line_dash="dash", line_color=_REF_COLOR,
                      annotation_text=f"{REFERENCE_NAME}: label", annotation_position="bottom right")
    fig.update_layout(height=380, margin=_MARGIN,
                      title=_on("Privacy vs utility: kRR over epsilon and IMPOSTER", on_data),
                      xaxis_title="accuracy predicting the sensitive attribute",
                      yaxis_title="accuracy predicting the label")
    return fig


def krr_vs_epsilon(curve: pd.DataFrame, *, imposter: tuple[float, float] | None = None,
                   sensitive: str = "sensitive", label: str = "label", data: str | None = None,
                   majority: float | None = None, label_majority: float | None = None,
                   real: tuple[float, float] | None = None) -> go.Figure:
    """Fig. 7: accuracy of both tasks on kRR-perturbed data against epsilon (log scale),
    IMPOSTER's two accuracies as horizontal lines, the constant guesses (``majority``,
    ``label_majority``: dashed grey) and the real data's model (``real``, setting A: the
    non-private model, dotted grey). Drawn from :func:`krr_data`."""
    on_data = data
    data = krr_data(curve, imposter=imposter, sensitive=sensitive, label=label)
    s_col, l_col = data.columns[2], data.columns[3]
    c = data[data["release"] == _KRR]
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=c["epsilon"], y=c[s_col], mode="lines+markers",
                             name=f"kRR: predict {sensitive}", line=dict(color=_SENS_COLOR)))
    fig.add_trace(go.Scatter(x=c["epsilon"], y=c[l_col], mode="lines+markers",
                             name=f"kRR: predict {label}", line=dict(color=_LABEL_COLOR)))
    s_text, l_text = plotly_text(sensitive), plotly_text(label)  # plotly reads a link in an annotation
    if imposter is not None:
        fig.add_hline(y=imposter[0], line_dash="dot", line_color=_SENS_COLOR,
                      annotation_text=f"IMPOSTER {s_text}")
        fig.add_hline(y=imposter[1], line_dash="dot", line_color=_LABEL_COLOR,
                      annotation_text=f"IMPOSTER {l_text}")
    for value, text, dash in ((majority, f"{REFERENCE_NAME}: {s_text}", "dash"),
                              (label_majority, f"{REFERENCE_NAME}: {l_text}", "dash"),
                              (None if real is None else real[1], f"{MODEL_NAME}: {l_text}", "dot")):
        if value is not None and np.isfinite(value):
            fig.add_hline(y=float(value), line_dash=dash, line_color=_REF_COLOR, annotation_text=text,
                          annotation_position="bottom left")
    fig.update_xaxes(type="log", title_text="epsilon (per perturbed value, log scale)", **log_ticks(c["epsilon"]))
    fig.update_yaxes(title_text="accuracy")
    fig.update_layout(title=_on("Accuracy on kRR-perturbed data vs epsilon (Fig. 7)", on_data), height=380,
                      margin=_MARGIN,
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


_TV = "total variation (real vs synthetic)"


def marginal_tv_data(tv: dict) -> pd.DataFrame:
    """The bars of :func:`marginal_tv_bars`, one row per column (largest TV first): its total
    variation, and the one-way (the dashed line) and two-way means."""
    per = pd.Series(tv.get("per_column", {}), dtype=float).sort_values(ascending=False, kind="stable")
    two = tv.get("two_way")
    return pd.DataFrame({"column": [str(c) for c in per.index], _TV: per.to_numpy(),
                         "one-way mean": float(tv["one_way"]),
                         "two-way mean": float(two) if two is not None else np.nan})


def marginal_tv_bars(tv: dict, *, data: str | None = None) -> go.Figure:
    """Each column's total variation distance between its real and synthetic distribution
    (0 = the same, 1 = disjoint), largest first, with the one-way mean as a dashed line
    (drawn from :func:`marginal_tv_data`)."""
    on_data = data
    data = marginal_tv_data(tv)
    per = pd.Series(data[_TV].to_numpy(), index=data["column"])
    fig = go.Figure(go.Bar(x=list(per.index), y=list(per.to_numpy()), name="TV per column",
                           marker_color=_SENS_COLOR))
    fig.add_hline(y=float(tv["one_way"]), line_dash="dash", line_color="black",
                  annotation_text=f"one-way mean {tv['one_way']:.3f}", annotation_position="top right")
    two = tv.get("two_way")
    title = "Marginal fidelity: total variation, real vs synthetic, per column"
    if two is not None and np.isfinite(two):
        title += f" (two-way mean {two:.3f})"
    fig.update_layout(title=_on(title, on_data), height=340, margin=_MARGIN, yaxis_title="total variation",
                      xaxis_title="column",
                      yaxis_range=[0, max(0.05, float(per.max()) * 1.15) if len(per) else 1],
                      showlegend=False)
    return fig
