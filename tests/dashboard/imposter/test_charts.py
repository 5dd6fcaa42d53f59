"""The IMPOSTER chart builders, without streamlit: the values each trace draws."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from dashboard.imposter import charts, charts_training
from dashboard.shared.widgets.palette import color


def _scores():
    return pd.DataFrame({"attribute": ["a", "b", "c"], "kind": ["categorical"] * 3,
                         "nmi": [0.2, 0.05, 0.001], "printed_ratio": [0.8, 0.95, 0.999]})


def _table():
    """Table 1 with a distinct value in every cell: cell i holds i / 100 (row LR first)."""
    cols = pd.MultiIndex.from_product([["A", "B", "TSTR"], ["sensitive", "label"], ["accuracy", "f1"]],
                                      names=["setting", "task", "metric"])
    t = pd.DataFrame(np.arange(24, dtype=float).reshape(2, 12) / 100,
                     index=pd.Index(["LR", "GBDT"], name="classifier"), columns=cols)
    t.attrs.update(sensitive="sex", label="income", majority_synthetic=0.67)
    return t


def _history():
    return pd.DataFrame({"iteration": [1, 2, 3], "d1": [1.3, 1.2, 1.1], "d2": [0.7, 0.6, 0.5],
                         "g": [0.1, 0.2, 0.3], "recon": [9.0, 8.0, 7.0], "kl": [0.5, 0.4, 0.3],
                         "d2_accuracy": [np.nan, np.nan, 0.6]})


def _curve():
    # epsilon out of order: the charts sort by it
    return pd.DataFrame({"epsilon": [10.0, 0.1, 1.0], "sensitive_accuracy": [0.8, 0.6, 0.67],
                         "label_accuracy": [0.82, 0.7, 0.76]})


# ---------------------------------------------------------------- Fig. 6: NMI bars

def test_nmi_bars_put_each_attribute_in_its_status_with_its_nmi_and_colour():
    fig = charts.nmi_bars(_scores(), theta=0.01, implicit=["a"])
    drawn = {t.name: (list(t.x), list(t.y), t.marker.color) for t in fig.data}
    assert drawn == {"implicit": (["a"], [0.2], "#d62728"),
                     "candidate (failed beta)": (["b"], [0.05], "#ff7f0e"),
                     "below theta": (["c"], [0.001], "#9e9e9e")}


def test_nmi_bars_draw_the_theta_line_at_theta():
    fig = charts.nmi_bars(_scores(), theta=0.03)
    assert [(s.y0, s.y1) for s in fig.layout.shapes] == [(0.03, 0.03)]
    assert [a.text for a in fig.layout.annotations] == ["theta = 0.03"]
    # without an implicit set, the status follows theta alone
    assert {t.name: list(t.x) for t in fig.data} == {"candidate (failed beta)": ["a", "b"], "below theta": ["c"]}


# ---------------------------------------------------------------- training curves

def test_training_curves_draw_each_loss_in_its_panel():
    fig = charts_training.training_curves(_history())
    drawn = {t.name: (list(t.x), list(t.y), t.xaxis) for t in fig.data}
    assert drawn == {
        "D1": ([1, 2, 3], [1.3, 1.2, 1.1], "x"), "D2": ([1, 2, 3], [0.7, 0.6, 0.5], "x"),
        "G (V1 + lambda V2)": ([1, 2, 3], [0.1, 0.2, 0.3], "x"),
        "reconstruction": ([1, 2, 3], [9.0, 8.0, 7.0], "x2"), "KL": ([1, 2, 3], [0.5, 0.4, 0.3], "x2"),
        "D2 probe": ([3], [0.6], "x3"),  # only the iterations that were probed
    }


def test_training_curves_mark_chance_at_one_over_the_number_of_classes():
    fig = charts_training.training_curves(_history(), n_classes=4)
    assert [(s.y0, s.yref) for s in fig.layout.shapes] == [(0.25, "y3")]
    assert tuple(fig.layout.yaxis3.range) == (0, 1)


def test_the_d2_probes_reference_is_named_the_constant_guess_on_its_balanced_batch():
    """The probe scores D2 on a batch holding each value of s equally often, where a constant
    guess scores 1 / classes (0.5), not the table's majority share (0.644 on the issue's table,
    which the other sections use): the line says which guess it is."""
    fig = charts_training.training_curves(_history(), n_classes=2)
    note = next(a.text for a in fig.layout.annotations if a.yref == "y3")
    assert "constant guess" in note and "balanced batch" in note
    data = charts_training.training_data(_history(), n_classes=2)
    assert set(data["constant guess on the class-balanced probe batch (1 / classes)"]) == {0.5}


def test_training_curves_without_history_draw_no_trace():
    assert len(charts_training.training_curves(pd.DataFrame()).data) == 0


# ---------------------------------------------------------------- Table 1

def test_table1_bars_draw_each_setting_and_task_from_the_table():
    fig = charts.table1_bars(_table())
    drawn = {(t.name, t.xaxis): (list(t.x), list(t.y)) for t in fig.data}
    # accuracy columns: A/sensitive = cell 0, A/label = cell 2, B/sensitive = 4, ...; GBDT adds 12
    assert drawn == {
        ("A: real", "x"): (["LR", "GBDT"], [0.0, 0.12]),
        ("A: real", "x2"): (["LR", "GBDT"], [0.02, 0.14]),
        ("B: synthetic", "x"): (["LR", "GBDT"], [0.04, 0.16]),
        ("B: synthetic", "x2"): (["LR", "GBDT"], [0.06, 0.18]),
        ("train synthetic, test real", "x"): (["LR", "GBDT"], [0.08, 0.2]),
        ("train synthetic, test real", "x2"): (["LR", "GBDT"], [0.1, 0.22]),
    }


def test_table1_bars_name_the_task_panels_and_keep_one_colour_per_setting():
    fig = charts.table1_bars(_table())
    texts = [a.text for a in fig.layout.annotations]
    assert texts[:2] == ["predict sex from implicit attributes", "predict income from all attributes"]
    colours = {}
    for t in fig.data:
        colours.setdefault(t.name, set()).add(t.marker.color)
    assert all(len(c) == 1 for c in colours.values()) and len({c.pop() for c in colours.values()}) == 3


def test_table1_bars_draw_the_majority_share_in_the_sensitive_panel():
    fig = charts.table1_bars(_table())
    assert [(s.y0, s.xref) for s in fig.layout.shapes] == [(0.67, "x domain")]
    assert charts.REFERENCE_NAME in [a.text for a in fig.layout.annotations]
    assert not charts.table1_bars(_table(), metric="f1").layout.shapes  # accuracy only


def test_table1_bars_of_f1_read_the_f1_columns():
    fig = charts.table1_bars(_table(), metric="f1")
    assert list(fig.data[0].y) == [0.01, 0.13]  # A / sensitive / f1
    assert fig.layout.yaxis.title.text == "f1"


def test_table1_display_names_every_column():
    disp = charts.table1_display(_table())
    assert list(disp.columns[:4]) == ["A: real · predict sex · accuracy", "A: real · predict sex · f1",
                                      "A: real · predict income · accuracy", "A: real · predict income · f1"]
    assert disp.iloc[:, :12].to_numpy().tolist() == _table().to_numpy().tolist()
    assert list(disp.columns[12:]) == [f"{charts.REFERENCE_NAME} · sex (synthetic)"]  # the table's references


# ---------------------------------------------------------------- trade-off and Fig. 7

def test_tradeoff_draws_the_krr_curve_in_epsilon_order():
    fig = charts.tradeoff(_curve(), imposter=None)
    krr = fig.data[0]
    assert krr.name == "kRR (Eq. 1)"
    assert list(krr.x) == [0.6, 0.67, 0.8] and list(krr.y) == [0.7, 0.76, 0.82]
    assert list(krr.text) == ["ε=0.1", "ε=1", "ε=10"]
    assert krr.line.color == color("kRR")


def test_tradeoff_marks_imposter_real_data_and_the_majority_line():
    fig = charts.tradeoff(_curve(), imposter=(0.67, 0.83), majority=0.6, real=(0.84, 0.85))
    points = {t.name: (list(t.x), list(t.y)) for t in fig.data[1:]}
    assert points == {"IMPOSTER": ([0.67], [0.83]), "real data (setting A)": ([0.84], [0.85])}
    assert fig.data[1].marker.color == color("IMPOSTER")
    assert [(s.x0, s.x1) for s in fig.layout.shapes] == [(0.6, 0.6)]


def test_tradeoff_axes_name_privacy_and_utility():
    fig = charts.tradeoff(_curve(), imposter=None)
    assert fig.layout.title.text == "Privacy vs utility: kRR over epsilon and IMPOSTER"
    assert fig.layout.xaxis.title.text == "accuracy predicting the sensitive attribute"
    assert fig.layout.yaxis.title.text == "accuracy predicting the label"


def test_krr_vs_epsilon_draws_both_tasks_over_sorted_epsilon():
    fig = charts.krr_vs_epsilon(_curve(), sensitive="sex", label="income")
    drawn = {t.name: (list(t.x), list(t.y)) for t in fig.data}
    assert drawn == {"kRR: predict sex": ([0.1, 1.0, 10.0], [0.6, 0.67, 0.8]),
                     "kRR: predict income": ([0.1, 1.0, 10.0], [0.7, 0.76, 0.82])}


def test_krr_vs_epsilon_draws_imposters_accuracies_as_lines_in_the_tasks_colours():
    fig = charts.krr_vs_epsilon(_curve(), imposter=(0.67, 0.83), sensitive="sex", label="income")
    lines = [(s.y0, s.line.color) for s in fig.layout.shapes]
    assert lines == [(0.67, fig.data[0].line.color), (0.83, fig.data[1].line.color)]
    assert [a.text for a in fig.layout.annotations] == ["IMPOSTER sex", "IMPOSTER income"]


def test_krr_epsilon_axis_is_log_and_reads_as_plain_numbers():
    fig = charts.krr_vs_epsilon(_curve())
    assert fig.layout.xaxis.type == "log"
    assert list(fig.layout.xaxis.ticktext) == ["0.1", "0.2", "0.5", "1", "2", "5", "10"]


@pytest.mark.parametrize("build, title, x_title", [
    (lambda: charts.nmi_bars(_scores(), theta=0.01),
     "Association of each attribute with the sensitive attribute (NMI, Fig. 6)", "attribute"),
    (lambda: charts_training.training_curves(_history()), "IMPOSTER training: losses and D2's accuracy per iteration",
     "iteration"),
    (lambda: charts.table1_bars(_table()),
     "Table 1: accuracy on real data (A), synthetic data (B) and train synthetic, test real", "classifier"),
    (lambda: charts.krr_vs_epsilon(_curve()), "Accuracy on kRR-perturbed data vs epsilon (Fig. 7)",
     "epsilon (per perturbed value, log scale)"),
])
def test_every_imposter_chart_has_its_title_and_x_axis_title(build, title, x_title):
    fig = build()
    assert fig.layout.title.text == title
    assert fig.layout.xaxis.title.text == x_title


# ---------------------------------------------------------------- marginal fidelity

def _tv():
    return {"one_way": 0.05, "two_way": 0.12, "per_column": {"a": 0.01, "b": 0.1, "c": 0.04},
            "worst_pair": {"columns": ["a", "b"], "tv": 0.3}, "bins": 10}


def test_fidelity_summary_puts_leak_utility_and_tv_side_by_side():
    t = _table()
    t.attrs["majority_real"] = 0.668
    out = charts.fidelity_summary(t, _tv())
    assert list(out.index) == ["LR", "GBDT"]
    assert list(out.columns) == [
        "B: predict sex (leak)", "train synthetic, test real: predict sex (leak)",
        "majority share of sex (no leak)", "train synthetic, test real: predict income",
        "one-way TV (marginals)", "two-way TV (pairs)"]
    # cell i of Table 1 holds i / 100: B sensitive accuracy is cell 4, TSTR 8, TSTR label 10
    assert out.loc["LR"].tolist() == pytest.approx([0.04, 0.08, 0.668, 0.10, 0.05, 0.12])
    assert out.loc["GBDT"].tolist() == pytest.approx([0.16, 0.20, 0.668, 0.22, 0.05, 0.12])


def test_marginal_tv_bars_sort_columns_and_mark_the_mean():
    fig = charts.marginal_tv_bars(_tv())
    assert [list(t.x) for t in fig.data] == [["b", "c", "a"]]
    assert list(fig.data[0].y) == [0.1, 0.04, 0.01]
    assert [(s.y0, s.y1) for s in fig.layout.shapes] == [(0.05, 0.05)]
    assert "two-way mean 0.120" in fig.layout.title.text


# ---------------------------------------------------------------- the paper beside ours

PAPER_T1 = {"LR": {"A_sensitive": (0.84, 0.83), "A_label": (0.83, 0.75), "B_sensitive": (0.67, 0.40),
                   "B_label": (0.81, 0.70)},
            "RF": {"A_sensitive": (0.5, 0.5), "A_label": (0.5, 0.5), "B_sensitive": (0.5, 0.5),
                   "B_label": (0.5, 0.5)}}


def test_table1_data_adds_the_papers_cells_for_the_classifiers_both_report():
    data = charts.table1_data(_table(), paper=PAPER_T1)
    theirs = data[data["source"] == charts.PAPER_NAME]
    assert set(theirs["classifier"]) == {"LR"}  # RF is not in our table
    assert sorted(theirs["accuracy"]) == [0.67, 0.81, 0.83, 0.84]
    assert len(data[data["source"] == "ours"]) == 12
    bars = charts.table1_bars(_table(), paper=PAPER_T1)
    assert any(t.marker.pattern.shape == "/" for t in bars.data)


def test_table1_display_puts_the_papers_row_below_ours():
    disp = charts.table1_display(_table(), paper=PAPER_T1)
    assert list(disp.index) == ["LR", "GBDT", "LR (paper, Adult)"]
    assert disp.loc["LR (paper, Adult)", "B: synthetic · predict sex · f1"] == 0.40
    assert np.isnan(disp.loc["LR (paper, Adult)", "train synthetic, test real · predict income · accuracy"])


def test_tradeoff_draws_the_papers_two_points_hollow():
    paper = {"krr_gender_accuracy": 0.6891, "krr_income_accuracy": 0.7517,
             "imposter_gender_accuracy": 0.6726, "imposter_income_accuracy": 0.8229}
    fig = charts.tradeoff(_curve(), imposter=None, paper=paper, data="census")
    drawn = {t.name: (list(t.x), list(t.y), t.marker.symbol) for t in fig.data[1:]}
    assert drawn == {"paper (Adult): kRR": ([0.6891], [0.7517], "circle-open"),
                     "paper (Adult): IMPOSTER": ([0.6726], [0.8229], "star-open")}
    assert fig.layout.title.text.endswith("· census")
    data = charts.krr_data(_curve(), paper=paper)
    assert list(data["release"].iloc[-2:]) == ["paper (Adult): kRR", "paper (Adult): IMPOSTER"]


# ---------------------------------------------------------------- Table 2 and Fig. 8

def _theta_runs():
    return pd.DataFrame({"theta": [0.01, 0.1], "implicit": [["a", "b"], ["a"]],
                         "A_sensitive_accuracy": [0.85, 0.80], "A_sensitive_f1": [0.83, 0.77],
                         "A_label_accuracy": [0.71, 0.72], "A_label_f1": [0.67, 0.68],
                         "B_sensitive_accuracy": [0.66, 0.67], "B_sensitive_f1": [0.45, 0.46],
                         "B_label_accuracy": [0.69, 0.68], "B_label_f1": [0.60, 0.61],
                         "majority_synthetic": [0.665, 0.668]})


PAPER_T2 = {0.01: {"A_sensitive": (0.8455, 0.8266), "A_label": (0.8331, 0.7567),
                   "B_sensitive": (0.6440, 0.4444), "B_label": (0.8326, 0.7298)}}


def test_table2_data_holds_every_cell_of_our_sweep_and_the_papers():
    data = charts_training.table2_data(_theta_runs(), paper=PAPER_T2, sensitive="sex", label="income")
    ours = data[data["source"] == "ours"]
    assert len(ours) == 2 * 2 * 2 * 2  # thetas x settings x tasks x metrics
    b = ours[(ours["setting"] == "B: synthetic") & (ours["task"] == "predict sex") & (ours["metric"] == "accuracy")]
    assert list(b["value"]) == [0.66, 0.67]
    assert list(b["majority share of sex (synthetic)"]) == [0.665, 0.668]
    theirs = data[data["source"] == charts.PAPER_NAME]
    assert len(theirs) == 8 and set(theirs["theta"]) == {0.01}
    assert 0.6440 in set(theirs["value"])


def test_table2_chart_draws_ours_solid_the_paper_dashed_and_hollow_and_the_floor():
    fig = charts_training.table2_chart(_theta_runs(), paper=PAPER_T2, sensitive="sex", label="income", data="census")
    ours = [t for t in fig.data if t.name == "B: synthetic"]
    theirs = [t for t in fig.data if t.name == "B: synthetic (paper (Adult))"]
    assert len(ours) == 4 and len(theirs) == 4  # one per panel
    assert list(ours[0].x) == [0.01, 0.1] and list(ours[0].y) == [0.66, 0.67]
    assert list(theirs[0].y) == [0.6440] and theirs[0].marker.symbol == "circle-open"
    assert theirs[0].line.dash == "dash"
    floor = [t for t in fig.data if t.name == "majority share (no leak)"]
    assert len(floor) == 1 and list(floor[0].y) == [0.665, 0.668]
    assert fig.layout.xaxis3.title.text == "theta (NMI threshold, log scale)"
    assert fig.layout.title.text.startswith("Table 2: XGBoost") and fig.layout.title.text.endswith("census")


def _lambda_runs():
    return pd.DataFrame({"lambda": [0.0, 0.0, 1.0], "repetition": [0, 1, 0],
                         "B_sensitive_accuracy": [0.80, 0.78, 0.67], "B_sensitive_f1": [0.7, 0.7, 0.4],
                         "B_label_accuracy": [0.70, 0.70, 0.69], "B_label_f1": [0.6, 0.6, 0.59],
                         "majority_synthetic": [0.66, 0.66, 0.67]})


def test_fig8_data_averages_repetitions_per_lambda():
    data = charts_training.fig8_data(_lambda_runs(), sensitive="sex", label="income")
    acc = data[(data["task"] == "predict sex") & (data["metric"] == "accuracy")]
    assert list(acc["lambda"]) == [0.0, 1.0] and acc["value"].tolist() == pytest.approx([0.79, 0.67])
    assert len(data) == 2 * 2 * 2


def test_fig8_chart_draws_both_tasks_and_the_floor_on_named_axes():
    fig = charts_training.fig8_chart(_lambda_runs(), sensitive="sex", label="income", data="census")
    drawn = {t.name: list(t.y) for t in fig.data}
    assert drawn["predict sex: accuracy"] == pytest.approx([0.79, 0.67])
    assert drawn["predict income: F1 (macro)"] == pytest.approx([0.6, 0.59])
    assert drawn["majority share (no leak)"] == [0.66, 0.67]
    assert fig.layout.xaxis.title.text == "lambda (weight of D2)"
    assert fig.layout.yaxis.title.text == "score in setting B"
    assert "Fig. 8" in fig.layout.title.text and fig.layout.title.text.endswith("census")


# ---------------------------------------------------------------- detection: both rules (issue 24)
def _gain_scores():
    s = _scores()
    s["accuracy"] = [0.95, 0.90, 0.90]
    s["majority_accuracy"] = 0.90
    s["gain"] = [0.05, 0.0, 0.0]
    s["gain_lo"] = [0.03, -0.01, 0.0]
    s["gain_hi"] = [0.07, 0.01, 0.0]
    return s


def test_detection_chart_draws_gain_with_its_interval_and_the_zero_line():
    fig = charts.detection_chart(_gain_scores(), theta=0.01, default_implicit=["a"], paper_implicit=["a", "b"],
                                 majority=0.9, sensitive="sex")
    flagged = next(t for t in fig.data if t.name == "default rule: flagged")
    assert list(flagged.y) == ["a"] and list(flagged.x) == [0.05]
    assert list(flagged.error_x.array) == pytest.approx([0.02])
    assert list(flagged.error_x.arrayminus) == pytest.approx([0.02])
    rest = next(t for t in fig.data if t.name == "default rule: not flagged")
    assert sorted(rest.y) == ["b", "c"]
    zero = [s for s in fig.layout.shapes if s.x0 == 0 and s.x1 == 0]
    assert zero and zero[0].line.dash == "dash"
    theta = [s for s in fig.layout.shapes if s.x0 == 0.01]
    assert theta  # the paper's theta line in the NMI panel
    paper = next(t for t in fig.data if t.name == "paper's rule: implicit")
    assert sorted(paper.y) == ["a", "b"]
    assert fig.layout.title.text == "Which attributes give sex away"


def test_detection_data_carries_both_verdicts_and_the_reference():
    df = charts.detection_data(_gain_scores(), theta=0.01, default_implicit=["a"], paper_implicit=["a", "b"],
                               majority=0.9)
    assert list(df["default rule"]) == ["flagged", "not flagged", "not flagged"]
    assert list(df["paper's rule"]) == ["implicit", "implicit", "below theta"]
    assert (df[charts.REFERENCE_NAME] == 0.9).all() and (df["majority share of s"] == 0.9).all()


def test_detection_chart_escapes_attribute_names():
    s = _gain_scores()
    s["attribute"] = ["<a href='x'>a</a>", "b", "c"]
    fig = charts.detection_chart(s, theta=0.01, default_implicit=[], paper_implicit=[])
    assert not any("<a href" in str(y) for t in fig.data for y in (t.y or ()))


def test_table1_bars_draw_both_constant_guesses():
    t = _table()
    t.attrs["label_majority_real"] = 0.76
    fig = charts.table1_bars(t)
    refs = [s for s in fig.layout.shapes if s.line.dash == "dash"]
    assert sorted(s.y0 for s in refs) == [0.67, 0.76]
    assert [a.text for a in fig.layout.annotations if "constant guess" in a.text] == [
        charts.REFERENCE_NAME, charts.REFERENCE_NAME]


def test_table1_display_puts_each_reference_beside_the_accuracies():
    t = _table()
    t.attrs.update(majority_real=0.668, label_majority_real=0.76)
    disp = charts.table1_display(t)
    assert disp[f"{charts.REFERENCE_NAME} · sex (real)"].tolist() == [0.668, 0.668]
    assert disp[f"{charts.REFERENCE_NAME} · income (real)"].tolist() == [0.76, 0.76]


def test_krr_charts_draw_the_constant_guesses_and_the_real_model():
    fig = charts.tradeoff(_curve(), imposter=(0.67, 0.83), majority=0.6, label_majority=0.75)
    assert any(s.y0 == 0.75 and s.line.dash == "dash" for s in fig.layout.shapes)
    fig = charts.krr_vs_epsilon(_curve(), imposter=(0.67, 0.83), majority=0.6, label_majority=0.75,
                                real=(0.84, 0.85))
    ys = {(s.y0, s.line.dash) for s in fig.layout.shapes}
    assert {(0.6, "dash"), (0.75, "dash"), (0.85, "dot")} <= ys
