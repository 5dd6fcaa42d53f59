"""Every chart's data as CSV: the shared component, and the tidy frames the charts draw."""
from __future__ import annotations

import io

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pytest

from dashboard.shared.widgets.layout import inert, tidy
from dashboard.shared.widgets import chart_data
from dashboard.shared.widgets.chart_data import CSV_LABEL, chart_csv, csv_key, file_stem, show_chart


def assert_every_chart_has_its_csv(at) -> None:
    """Each chart an AppTest page drew has a 'Chart data (CSV)' button under it (keyed by
    the chart's key), and there is no such button without its chart."""
    charts = list(at.get("plotly_chart")) + list(at.get("arrow_vega_lite_chart"))
    assert charts, "the page drew no chart"
    buttons = {b.key: b for b in at.download_button if b.label == CSV_LABEL}
    assert sorted(buttons) == sorted(csv_key(c.key) for c in charts)
    assert all(b.proto.type == "tertiary" for b in buttons.values())
    assert_charts_stand_alone(at)


def chart_problems(spec: dict) -> list[str]:
    """What a downloaded plotly chart (its JSON spec) lacks to be read on its own: a title,
    and a named x and y quantity on some visible axis of each direction it draws."""
    layout = spec.get("layout", {})
    title = layout.get("title", {})
    text = title.get("text") if isinstance(title, dict) else title
    out = [] if text and str(text).strip() else ["no title"]
    for side in ("x", "y"):
        axes = {k: v for k, v in layout.items() if k.startswith(f"{side}axis") and isinstance(v, dict)}
        shown = {k: v for k, v in axes.items() if v.get("visible", True) is not False}
        uses = any(t.get("type", "scatter") not in ("pie", "table", "indicator", "sankey") for t in spec.get("data", []))
        if not uses or (axes and not shown):
            continue
        named = [v for v in shown.values() if (v.get("title") or {}).get("text")]
        if not named:
            out.append(f"no {side} axis title")
    return out


def assert_charts_stand_alone(at) -> None:
    """Every plotly chart on an AppTest page has a title and named axes (downloaded as a
    PNG or CSV, it still says what it shows)."""
    import json

    bad = {}
    for chart in at.get("plotly_chart"):
        spec = json.loads(chart.proto.spec)
        problems = chart_problems(spec)
        if problems:
            bad[chart.key] = problems
    assert not bad, bad


def _read(data: bytes) -> pd.DataFrame:
    return pd.read_csv(io.BytesIO(data), encoding="utf-8")


# ---------------------------------------------------------------- chart_csv

def test_chart_csv_round_trips_the_frame_without_an_index_column():
    frame = pd.DataFrame({"scheme": ["Proposed", "Group", "Zhang"], "epsilon": [0.1, 1.0, 10.0],
                          "mean test accuracy": [0.71, np.nan, 0.8], "runs": [5, 5, 3],
                          "best step": [True, False, True]}, index=[7, 3, 9])
    data = chart_csv(frame)
    back = _read(data)
    assert list(back.columns) == list(frame.columns)  # no 'Unnamed: 0'
    pd.testing.assert_frame_equal(back, frame.reset_index(drop=True))


def test_chart_csv_is_utf8_and_guards_spreadsheet_formulas():
    frame = pd.DataFrame({"release": ["kRR ε=1", "=HYPERLINK(\"x\")"], "value": [-0.5, 2.0]})
    back = _read(chart_csv(frame))
    assert back["release"].tolist() == ["kRR ε=1", "'=HYPERLINK(\"x\")"]
    assert back["value"].tolist() == [-0.5, 2.0]  # a negative number stays a number
    with pytest.raises(TypeError):
        chart_csv(np.zeros(3))


def test_file_stem_keeps_a_portable_name():
    assert file_stem("data-distribution-age") == "data-distribution-age"
    assert file_stem("data-distribution-a/b c?*") == "data-distribution-a-b-c"
    assert file_stem("cdp-lr-accuracy-at-epsilon-2.5") == "cdp-lr-accuracy-at-epsilon-2.5"
    assert file_stem("../") == "chart"


# ---------------------------------------------------------------- show_chart

class _Recorder:
    def __init__(self):
        self.calls = []

    def __getattr__(self, name):
        return lambda *args, **kwargs: self.calls.append((name, args, kwargs))


def test_show_chart_draws_the_chart_then_a_small_lazy_csv_button(monkeypatch):
    st = _Recorder()
    monkeypatch.setattr(chart_data, "st", st)
    frame = pd.DataFrame({"attribute": ["a", "b"], "value": [1.0, 2.0]})
    built = []
    fig = go.Figure(go.Bar(x=frame["attribute"], y=frame["value"]))
    show_chart(fig, lambda: built.append(1) or frame, name="page-chart", key="pg_chart", width="stretch")
    (chart, c_args, c_kwargs), (button, b_args, b_kwargs) = st.calls
    assert chart == "plotly_chart" and c_kwargs == {"key": "pg_chart", "width": "stretch"}
    assert c_args[0].to_json() == tidy(inert(fig)).to_json()  # text kept text, laid out to fit
    assert button == "download_button" and b_args[0] == CSV_LABEL
    assert b_kwargs["file_name"] == "page-chart.csv" and b_kwargs["mime"] == "text/csv"
    assert b_kwargs["key"] == "pg_chart_csv" and b_kwargs["type"] == "tertiary"
    assert b_kwargs["on_click"] == "ignore"  # downloading does not rerun the page
    assert not built  # the CSV is built on click only
    assert b_args[1]() == chart_csv(frame) and built == [1]


def test_show_chart_draws_user_values_as_text_and_leaves_the_figure_alone(monkeypatch):
    st = _Recorder()
    monkeypatch.setattr(chart_data, "st", st)
    link = '<a href="https://example.com">x</a>'
    fig = go.Figure(go.Bar(x=[link, "<b>bold</b>"], y=[1, 2], name="rows"))
    fig.add_trace(go.Scatter(x=[link, "<b>bold</b>"], y=[1, 1], name="majority class (constant guess)"))
    fig.update_layout(title="Rows per tag", legend=dict(orientation="h", y=-0.25))
    show_chart(fig, pd.DataFrame(), name="tags")
    drawn = st.calls[0][1][0]
    assert list(drawn.data[0].x) == ['&lt;a href="https://example.com"&gt;x&lt;/a&gt;', "&lt;b&gt;bold&lt;/b&gt;"]
    assert drawn.layout.xaxis.automargin is True and drawn.layout.legend.orientation == "v"
    assert fig.data[0].x == (link, "<b>bold</b>") and fig.layout.legend.orientation == "h"


def test_show_chart_enlarges_and_lays_out_again_while_presenting(monkeypatch):
    from dashboard.shared.widgets.present_chart import FONT

    st = _Recorder()
    monkeypatch.setattr(chart_data, "st", st)
    monkeypatch.setattr(chart_data, "is_presenting", lambda: True)
    fig = go.Figure(go.Bar(x=["a"], y=[1]))
    fig.update_layout(title="A title long enough to need two lines on a projector at 26 pixels")
    show_chart(fig, pd.DataFrame(), name="big")
    drawn = st.calls[0][1][0]
    assert drawn.layout.font.size == FONT and "<br>" in drawn.layout.title.text
    assert drawn.layout.title.automargin is True


def test_show_chart_takes_a_frame_and_an_altair_chart_and_keys_by_name(monkeypatch):
    import altair as alt

    st = _Recorder()
    monkeypatch.setattr(chart_data, "st", st)
    frame = pd.DataFrame({"x": [1, 2], "y": [3, 4]})
    chart = alt.Chart(frame).mark_line().encode(x="x", y="y")
    show_chart(chart, frame, name="sskm-grid-u-matrix")
    (kind, _, c_kwargs), (_, b_args, b_kwargs) = st.calls
    assert kind == "altair_chart" and c_kwargs == {"key": "chart_sskm-grid-u-matrix"}
    assert b_kwargs["key"] == "chart_sskm-grid-u-matrix_csv"
    assert _read(b_args[1]()).equals(frame)


# ---------------------------------------------------------------- what is downloaded is what is drawn

def test_accuracy_and_curve_data_are_what_the_cdp_charts_draw():
    from dashboard.cdp import charts as cdp

    runs = pd.DataFrame({"scheme": ["G", "G", "P"], "accuracy": [0.5, 0.7, 0.8]})
    data = cdp.accuracy_data(runs, epsilon=2.0)
    bar = cdp.accuracy_bars(runs, epsilon=2.0).data[0]
    assert list(data["scheme"]) == list(bar.x) and list(data["mean test accuracy"]) == pytest.approx(list(bar.y))
    assert list(data["standard deviation of test accuracy"]) == pytest.approx(list(bar.error_y.array))
    assert list(data["runs"]) == [2, 1]

    summary = pd.DataFrame({"scheme": ["P", "P", "G"], "epsilon": [1.0, 0.1, 1.0], "accuracy_mean": [0.8, 0.6, 0.7],
                            "accuracy_std": [0.01, None, 0.02], "accuracy_n": [5, 5, 5]})
    baseline = summary.assign(scheme="DP-SGD")
    fig = cdp.curve_with_baseline(summary, baseline, group="scheme", value="accuracy", title="t", y_title="y")
    lines = {t.name: (list(t.x), list(t.y)) for t in fig.data if t.mode == "lines+markers"}
    data = cdp.curve_data(summary, baseline, group="scheme", value="accuracy", x_name="epsilon per query")
    assert list(data.columns) == ["scheme", "epsilon per query", "mean test accuracy",
                                  "standard deviation of test accuracy", "runs"]
    assert {n: (list(g["epsilon per query"]), list(g["mean test accuracy"])) for n, g in
            data.groupby("scheme", sort=False)} == lines
    assert data["standard deviation of test accuracy"].tolist() == [0.0, 0.01, 0.02, 0.0, 0.01, 0.02]
    named = cdp.curve_data(summary, group="scheme", value="accuracy", labels={"P": "Proposed"})
    assert set(named["scheme"]) == {"Proposed", "G"}


def test_heatmap_data_lists_every_cell_as_drawn():
    from dashboard.cdp import charts as cdp

    matrix = pd.DataFrame([[1.0, 0.2], [0.2, 1.0]], index=["age", "job"], columns=["age", "job"])
    data = cdp.association_data(matrix)
    assert list(data.columns) == ["attribute", "other attribute", "association"]
    wide = data.pivot(index="attribute", columns="other attribute", values="association")
    pd.testing.assert_frame_equal(wide.rename_axis(index=None, columns=None), matrix)
    m = np.arange(9, dtype=float).reshape(3, 3) / 10
    cells = cdp.record_heatmap_data(m)
    assert len(cells) == 9 and np.allclose(cells["correlation (delta)"].to_numpy().reshape(3, 3), m)
    assert (cells.loc[5, "record"], cells.loc[5, "other record"]) == (1, 2)


def test_dc_fbfs_data_carries_the_bars_the_tc_line_and_k1_k2():
    from core.cdp.dc_fbfs import DCFBFSResult
    from dashboard.cdp import charts as cdp

    names = ["a", "b", "c"]
    res = DCFBFSResult(
        names=names, importance=np.array([0.5, 0.3, 0.2]), dc=np.array([50.0, 5.0, 1.0]),
        data_correlation=100.0, correlation_without=np.array([50.0, 95.0, 99.0]),
        order=names, forward_accuracy=[0.7, 0.8, 0.78], backward_accuracy=[0.79, 0.81, 0.7],
        k1=2, k2=3, F_fb_del=["c"], F_c_del=["b", "c"], F_del=["c"], selected=["a", "b"], tc=10.0,
    )
    bars = cdp.importance_dc_data(res)
    fig = cdp.importance_dc_bars(res)
    assert list(bars["DC (change of C(x) when deleted)"]) == list(fig.data[0].y)
    assert list(bars["random-forest importance"]) == list(fig.data[1].y) and set(bars["T_c"]) == {10.0}
    steps = cdp.traversal_data(res)
    assert list(steps["step k"]) == [1, 2, 3]
    assert list(steps["best forward step (k1)"]) == [False, True, False]
    assert list(steps["best backward step (k2)"]) == [False, False, True]


def test_imposter_data_is_what_its_charts_draw():
    from dashboard.imposter import charts as imposter
    from dashboard.imposter import charts_training as imposter_training

    curve = pd.DataFrame({"epsilon": [10.0, 0.1], "sensitive_accuracy": [0.8, 0.6], "label_accuracy": [0.82, 0.7]})
    data = imposter.krr_data(curve, imposter=(0.67, 0.83), real=(0.84, 0.85), majority=0.6)
    assert list(data["release"]) == ["kRR (Eq. 1)", "kRR (Eq. 1)", "IMPOSTER", "real data (setting A)"]
    assert list(data["epsilon"][:2]) == [0.1, 10.0] and data["epsilon"][2:].isna().all()
    fig = imposter.tradeoff(curve, imposter=(0.67, 0.83), majority=0.6, real=(0.84, 0.85))
    drawn = [(x, y) for t in fig.data for x, y in zip(t.x, t.y)]
    assert drawn == list(zip(data["accuracy predicting the sensitive attribute"],
                             data["accuracy predicting the label"]))
    assert set(data["majority share of the sensitive attribute (no leak)"]) == {0.6}
    named = imposter.krr_data(curve, sensitive="sex", label="income")
    assert list(named.columns) == ["release", "epsilon", "accuracy predicting sex", "accuracy predicting income"]

    history = pd.DataFrame({"iteration": [1, 2], "d1": [1.3, 1.2], "d2": [0.7, 0.6], "g": [0.1, 0.2],
                            "recon": [9.0, 8.0], "kl": [0.5, 0.4], "d2_accuracy": [np.nan, 0.6]})
    steps = imposter_training.training_data(history, n_classes=4)
    assert list(steps.columns) == ["iteration", "D1 loss", "D2 loss", "G loss (V1 + lambda V2)",
                                   "reconstruction loss", "KL divergence", "D2 accuracy on generated records",
                                   imposter_training._CHANCE]
    assert set(steps[imposter_training._CHANCE]) == {0.25}
    assert list(imposter_training.training_data(pd.DataFrame()).columns) == [imposter_training._CHANCE]

    tv = imposter.marginal_tv_data({"one_way": 0.05, "two_way": 0.12, "per_column": {"a": 0.01, "b": 0.1}})
    assert list(tv["column"]) == ["b", "a"] and list(tv["total variation (real vs synthetic)"]) == [0.1, 0.01]


def test_table1_data_is_the_bars_of_table1():
    from dashboard.imposter import charts as imposter

    cols = pd.MultiIndex.from_product([["A", "B"], ["sensitive", "label"], ["accuracy", "f1"]],
                                      names=["setting", "task", "metric"])
    t = pd.DataFrame(np.arange(8, dtype=float).reshape(1, 8) / 10, index=pd.Index(["LR"], name="classifier"),
                     columns=cols)
    t.attrs.update(sensitive="sex", label="income", majority_synthetic=0.67)
    data = imposter.table1_data(t)
    assert list(data.columns) == ["classifier", "setting", "task", "accuracy", "majority share of sex (synthetic)"]
    drawn = sorted(y for tr in imposter.table1_bars(t).data for y in tr.y)
    assert sorted(data["accuracy"]) == drawn == [0.0, 0.2, 0.4, 0.6]
    assert "majority share of sex (synthetic)" not in imposter.table1_data(t, metric="f1").columns


def test_sskm_data_is_what_its_charts_draw():
    from dashboard.sskm import charts as sskm

    curve = pd.DataFrame({"epsilon": [0.1, 1.0], "mse_mean": [0.03, 0.02], "mse_std": [0.001, 0.0],
                          "rl_mean": [0.01, 0.02], "rl_std": [0.0, 0.001]})
    data = sskm.epsilon_data(curve)
    fig = sskm.epsilon_curves(curve)
    assert list(data["mean record linkage (%)"]) == pytest.approx(list(fig.data[1].y))
    assert list(data["standard deviation of record linkage (%)"]) == pytest.approx(list(fig.data[1].error_y.array))
    table = pd.DataFrame({"method": ["MDAV", "SSKM_DP", "MDAV"], "a": [50, 90, 10],
                          "mse_mean": [0.1, 0.05, 0.3], "mse_std": [0.02, 0.01, 0.03]})
    base = sskm.baselines_data(table)
    assert list(zip(base["method"], base["number of clusters a"])) == [("MDAV", 10), ("MDAV", 50), ("SSKM_DP", 90)]
    values = np.array([[0.0, 1.0], [np.nan, 3.0]])
    grid = sskm.som_grid_data(values, value_name="mean distance")
    assert list(grid.columns) == ["neuron row", "neuron column", "mean distance"]
    assert grid["mean distance"].isna().tolist() == [False, False, True, False]
    strengths = pd.DataFrame([[np.nan, 0.4]], index=["sex"], columns=["sex", "age"])
    mic = sskm.mic_data(strengths, 0.3, ["age"])
    assert list(mic["attribute"]) == ["sex", "age"] and list(mic["protected"]) == [False, True]
    steps = sskm.som_training_data({"step": [10, 20], "quantization_error": [0.5, 0.4],
                                    "topographic_error": [0.1, 0.05]})
    assert list(steps.columns) == ["rows drawn", "quantisation error", "topographic error"]
    assert list(sskm.sfla_data([1.0, 2.0], [0.5, 1.5])["shuffle"]) == [0, 1]


def test_data_page_frames_are_what_its_charts_draw():
    from core.data import Dataset
    from dashboard.data import charts

    frame = pd.DataFrame({"age": [20.0, 30.0, 40.0], "job": ["a", "b", "a"], "income": ["low", "high", "low"]})
    ds = Dataset(frame=frame, label="income", sensitive=(), numeric=("age",), categorical=("job", "income"),
                 name="tiny")
    assert list(charts.column_distribution_data(ds, "age").columns) == ["age", "income"]
    counts = charts.column_distribution_data(ds, "job")
    assert sorted(zip(counts["job"], counts["income"], counts["rows"])) == [("a", "low", 2), ("b", "high", 1)]
    assert list(charts.missing_data(ds).columns) == ["column", "missing share"]


def test_audit_data_is_one_row_with_the_claim_and_the_measures():
    from dashboard.shared.widgets.audit_chart import audit_data

    row = audit_data(claimed=1.0, lower=1.5, point=float("inf"), confidence=0.95)
    assert len(row) == 1 and bool(row["violation (lower bound above the claim)"].iloc[0])
    back = _read(chart_csv(row))
    assert back["audited point estimate of epsilon"].iloc[0] == float("inf")
