"""The IMPOSTER chart builders, without streamlit."""
from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from dashboard.charts import imposter as charts


def _scores():
    return pd.DataFrame({"attribute": ["a", "b", "c"], "kind": ["categorical"] * 3,
                         "nmi": [0.2, 0.05, 0.001], "printed_ratio": [0.8, 0.95, 0.999]})


def _table():
    cols = pd.MultiIndex.from_product([["A", "B", "TSTR"], ["sensitive", "label"], ["accuracy", "f1"]],
                                      names=["setting", "task", "metric"])
    t = pd.DataFrame(np.full((2, 12), 0.7), index=pd.Index(["LR", "GBDT"], name="classifier"), columns=cols)
    t.attrs.update(sensitive="sex", label="income", majority_synthetic=0.67)
    return t


def test_nmi_bars_colour_the_implicit_set_and_draw_theta():
    fig = charts.nmi_bars(_scores(), theta=0.01, implicit=["a"])
    assert isinstance(fig, go.Figure)
    names = {t.name for t in fig.data}
    assert {"implicit", "candidate (failed beta)", "below theta"} == names
    assert any(s.y0 == 0.01 for s in fig.layout.shapes)


def test_training_curves_with_and_without_history():
    hist = pd.DataFrame({"iteration": [1, 2, 3], "d1": [1.3] * 3, "d2": [0.7] * 3, "g": [0.1] * 3,
                         "recon": [9.0] * 3, "kl": [0.5] * 3, "d2_accuracy": [np.nan, np.nan, 0.6]})
    fig = charts.training_curves(hist)
    assert len(fig.data) == 6
    assert list(fig.data[-1].y) == [0.6]
    assert len(charts.training_curves(pd.DataFrame()).data) == 0


def test_table1_bars_and_display():
    t = _table()
    fig = charts.table1_bars(t)
    assert len(fig.data) == 6  # one trace per setting and task panel
    assert {t.name for t in fig.data} == {"A: real", "B: synthetic", "train synthetic, test real"}
    disp = charts.table1_display(t)
    assert "B: synthetic · predict sex · accuracy" in disp.columns


def test_tradeoff_and_krr_curves():
    curve = pd.DataFrame({"epsilon": [1.0, 10.0], "sensitive_accuracy": [0.67, 0.8],
                          "label_accuracy": [0.76, 0.8]})
    fig = charts.tradeoff(curve, imposter=(0.67, 0.83), majority=0.67, real=(0.84, 0.85))
    assert [t.name for t in fig.data] == ["kRR (Eq. 1)", "IMPOSTER", "real data (setting A)"]
    fig2 = charts.krr_vs_epsilon(curve, imposter=(0.67, 0.83))
    assert fig2.layout.xaxis.type == "log"
    assert len(fig2.layout.shapes) == 2


def test_every_imposter_chart_has_a_title():
    curve = pd.DataFrame({"epsilon": [0.1, 1.0, 10.0], "sensitive_accuracy": [0.6, 0.67, 0.8],
                          "label_accuracy": [0.7, 0.76, 0.8]})
    hist = pd.DataFrame({"iteration": [1, 2], "d1": [1.3] * 2, "d2": [0.7] * 2, "g": [0.1] * 2,
                         "recon": [9.0] * 2, "kl": [0.5] * 2, "d2_accuracy": [np.nan, 0.6]})
    figs = [charts.nmi_bars(_scores(), theta=0.01), charts.training_curves(hist), charts.table1_bars(_table()),
            charts.tradeoff(curve, imposter=(0.67, 0.83)), charts.krr_vs_epsilon(curve)]
    for fig in figs:
        assert fig.layout.title.text
        assert any(fig.layout[k].title.text for k in fig.layout if k.startswith("xaxis"))


def test_krr_epsilon_axis_reads_as_plain_numbers():
    curve = pd.DataFrame({"epsilon": [0.1, 1.0, 10.0], "sensitive_accuracy": [0.6, 0.67, 0.8],
                          "label_accuracy": [0.7, 0.76, 0.8]})
    fig = charts.krr_vs_epsilon(curve)
    assert list(fig.layout.xaxis.ticktext) == ["0.1", "0.2", "0.5", "1", "2", "5", "10"]
