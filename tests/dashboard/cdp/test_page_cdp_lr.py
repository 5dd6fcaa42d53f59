"""CDP-LR page: the epsilon slider retrains with no button and the chart changes."""
from __future__ import annotations

import pytest

from tests.dashboard.conftest import assert_clean, finish_sweeps, dataset_state
from tests.dashboard.shared.widgets.test_chart_data import assert_every_chart_has_its_csv


def _live_spec(at) -> str:
    return next(c.proto.spec for c in at.get("plotly_chart") if "Accuracy at epsilon" in c.proto.spec)


def test_epsilon_slider_retrains_and_redraws(open_page):
    at = open_page("cdp_lr", timeout=300)
    assert_clean(at)
    before = _live_spec(at)
    at.slider(key="lr_eps").set_value(7.5).run()
    assert_clean(at)
    after = _live_spec(at)
    assert after != before
    assert "epsilon = 7.5" in after


def test_method_four_says_it_is_not_differentially_private(open_page):
    at = open_page("cdp_lr", timeout=300)
    at.selectbox(key="lr_method").set_value(4).run()
    assert_clean(at)
    assert any(c.value.startswith("Not differentially private") for c in at.caption)
    assert _guarantee(at, "DP reading") == "not differentially private"


def _metric(at, label: str):
    return next(m for m in at.metric if m.label.startswith(label))


def _guarantee(at, label: str) -> str:
    """The guarantee line '<label>: ...' (a success or warning box), as text after the label."""
    for box in [*at.success, *at.warning]:
        text = box.value.replace("\\", "")  # md() escapes the text
        if text.startswith(label + ": "):
            return text[len(label) + 2:]
    raise AssertionError(f"no guarantee line for {label!r}")


def test_guarantee_is_the_ledger_total(open_page):
    at = open_page("cdp_lr", timeout=300)
    assert _guarantee(at, "DP reading") == "epsilon = 2"
    at.selectbox(key="lr_method").set_value(5).run()
    assert _guarantee(at, "DP reading") == "epsilon = 1"  # half noises the public N


def test_the_papers_scheme_says_it_is_not_dp_beside_the_dp_reading(open_page):
    at = open_page("cdp_lr", timeout=300)
    assert _guarantee(at, "Proposed, as in the paper") == "not differentially private"
    assert _guarantee(at, "DP reading") == "epsilon = 2"
    warnings = " ".join(w.value for w in at.warning).replace("\\", "")  # md() escapes the text
    assert "computed from your records" in warnings and "DC-FBFS on your records" in warnings
    successes = " ".join(w.value for w in at.success).replace("\\", "")
    assert "differentially private" in successes
    assert any("group of up to 45" in m.value for m in at.markdown)  # the supplier's declared bound
    rows = at.table[0].value
    assert "DP reading" in set(rows["scheme"])


def test_pld_method_is_offered_and_reports_the_accountants_total(open_page):
    """Method 7 (beyond the paper): one ledger entry with the PLD accountant's (epsilon, delta)."""
    at = open_page("cdp_lr", timeout=300)
    box = at.selectbox(key="lr_method")
    assert 7 in box.options or "7: Gaussian on the mean gradient, PLD accounting (not in the paper)" in box.options
    box.set_value(7).run()
    assert_clean(at)
    assert _guarantee(at, "DP reading") == "epsilon = 2, delta = 1e-05"


def test_audit_panel_runs_and_shows_the_verdict(open_page):
    at = open_page("cdp_lr", timeout=300)
    at.select_slider(key="lr_audit_runs").set_value(200).run()
    at.button(key="lr_audit_run").click().run()
    job = dataset_state(at, "lr_audit_job")
    assert job.wait(120)
    at.run()
    assert_clean(at)
    assert _metric(at, "Claimed epsilon").value == "2"
    assert float(_metric(at, "Audited lower bound").value) <= 2
    assert any(s.value.startswith("No violation") for s in at.success)


def test_the_curve_is_a_job_of_this_session_with_a_stop_button(open_page):
    from dashboard.shared.serving.sweeps import FINISHED

    FINISHED.clear()
    at = open_page("cdp_lr", timeout=300)
    assert_clean(at)
    job = at.session_state["pux_sweep_jobs"]["lr_curve"]
    assert at.button(key="lr_curve_stop").label in ("Stop", "Leave the queue")
    assert not any(getattr(c, "key", None) == "lr_curve" for c in at.get("plotly_chart"))
    finish_sweeps(at)
    assert job.result is not None
    assert any(getattr(c, "key", None) == "lr_curve" for c in at.get("plotly_chart"))
    assert "lr_curve_stop" not in [b.key for b in at.button]


def test_a_slow_setup_shows_progress_then_the_page(open_page, monkeypatch):
    """Feature selection and sensitivities run as this session's job: with no time to wait
    the page shows the step's progress and Stop, then draws once it ends."""
    from dashboard.shared.serving.sweeps import SETUPS

    SETUPS.clear()
    monkeypatch.setenv("PUX_SETUP_WAIT", "0.2")  # long enough to start, too short to end (0.6 s)
    at = open_page("cdp_lr", timeout=300)
    assert_clean(at)
    (bar,) = at.get("progress")
    assert bar.proto.text.startswith("Selecting features and computing sensitivities")
    assert at.button(key="lr_setup_stop").label == "Stop"
    assert not at.get("plotly_chart")
    finish_sweeps(at)
    assert_clean(at)
    assert any(getattr(c, "key", None) == "lr_live" for c in at.get("plotly_chart"))


def test_paper_preset_runs(open_page):
    at = open_page("cdp_lr", timeout=300)
    at.radio(key="lr_preset").set_value("paper").run()
    finish_sweeps(at)
    assert_clean(at)
    assert len(at.get("plotly_chart")) >= 2


@pytest.mark.slow
def test_page_works_on_adult(open_page_on_public, data_dir):
    at = open_page_on_public("adult", "cdp_lr", data_dir)
    assert_clean(at)
    before = _live_spec(at)
    at.slider(key="lr_eps").set_value(6.0).run()
    assert_clean(at)
    assert _live_spec(at) != before


def _spec(at, title_part: str) -> dict:
    """The chart's figure with plain lists (plotly encodes numpy arrays as typed 'bdata')."""
    import json

    return _plain(json.loads(next(c.proto.spec for c in at.get("plotly_chart") if title_part in c.proto.spec)))


def _plain(value):
    import base64

    import numpy as np

    if isinstance(value, dict):
        if "bdata" in value and "dtype" in value:
            arr = np.frombuffer(base64.b64decode(value["bdata"]), dtype=value["dtype"])
            return (arr.reshape(value["shape"]) if "shape" in value else arr).tolist()
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def _curve_at(spec: dict, epsilon: float) -> dict:
    return {t["name"]: t["y"][list(t["x"]).index(epsilon)] for t in spec["data"]
            if t.get("mode") == "lines+markers"}


def test_bars_are_the_curves_runs_at_a_grid_epsilon(open_page):
    at = open_page("cdp_lr", timeout=300)
    assert_clean(at)
    for eps in (2.0, 0.5):  # 2 is the default; 0.5 is a grid point too
        if eps != 2.0:
            at.slider(key="lr_eps").set_value(eps).run()
            assert_clean(at)
        bars, curve = _spec(at, "Accuracy at epsilon"), _spec(at, "Test accuracy vs epsilon")
        bar = dict(zip(bars["data"][0]["x"], bars["data"][0]["y"]))
        assert bar == pytest.approx(_curve_at(curve, eps), abs=1e-12)
        # one colour per scheme on both charts
        line_colour = {t["name"]: t["line"]["color"] for t in curve["data"] if t.get("mode") == "lines+markers"}
        assert dict(zip(bars["data"][0]["x"], bars["data"][0]["marker"]["color"])) == line_colour


def test_curve_covers_the_sliders_range_on_a_log_axis(open_page):
    at = open_page("cdp_lr", timeout=300)
    curve = _spec(at, "Test accuracy vs epsilon")
    xs = [x for t in curve["data"] if t.get("mode") == "lines+markers" for x in t["x"]]
    assert min(xs) == 0.1 and max(xs) == 10.0
    assert curve["layout"]["xaxis"]["type"] == "log"
    assert curve["layout"]["xaxis"]["ticktext"] == ["0.1", "0.2", "0.5", "1", "2", "5", "10"]


def test_live_bars_reuse_the_setup(monkeypatch):
    """A slider move retrains on the finished setup: feature selection and sensitivities do
    not run again (their speed is measured in benchmarks, not here)."""
    from core.data import load_sample
    from dashboard.cdp import cached

    data = load_sample("supplier")
    step = cached.schemes(data, 0.8, "pearson", 40.0, 0)
    reports = []
    setup, mats = step.compute(lambda fraction, message: reports.append(fraction))
    assert reports[-1] == 1.0 and reports == sorted(reports)  # progress runs forward to the end

    def refuse(*args, **kwargs):
        raise AssertionError("the slider path ran the setup again")

    monkeypatch.setattr("dashboard.cdp.jobs.prepare_schemes", refuse)
    monkeypatch.setattr("core.cdp.baselines.dc_fbfs", refuse)
    for eps in (0.3, 4.4, 9.9):
        runs, _ = cached.live_accuracy(setup, mats, epsilon=eps, noise_method=1, preset="sensible",
                                       repetitions=2, seed=0)
        assert set(runs["scheme"]) == set(setup.columns) and runs["accuracy"].between(0, 1).all()


def test_noise_method_curves_name_the_methods(open_page):
    at = open_page("cdp_lr", timeout=300)
    at.slider(key="lr_reps").set_value(1).run()
    at.toggle(key="lr_methods").set_value(True).run()
    finish_sweeps(at)
    assert_clean(at)
    spec = _spec(at, "each noise method")
    # long legend names wrap at a space (<br>) so the legend does not crowd the plot
    names = [t["name"].replace("<br>", " ") for t in spec["data"] if t.get("mode") == "lines+markers"]
    assert "1: Laplace on the mean gradient" in names and not any(n.startswith("meth") for n in names)
    assert spec["layout"]["xaxis"]["type"] == "log"
    assert_every_chart_has_its_csv(at)


def test_scheme_rows_name_each_schemes_features_sensitivity_and_privacy():
    from core.cdp.baselines import ALL_SCHEMES, prepare_schemes
    from core.data import load_sample
    from dashboard.cdp import cached

    setup = prepare_schemes(load_sample("supplier").head(300), random_state=0)
    rows = cached.scheme_rows(setup)
    assert list(rows["scheme"]) == list(ALL_SCHEMES)
    assert list(rows.columns) == ["scheme", "features", "sensitivity", "differentially private"]
    by = rows.set_index("scheme")
    assert by.loc["Non-private", "sensitivity"] == "none"
    n = len(setup.train)  # CS and GS are computed on the training part: also shown as a share of it
    assert by.loc["Group", "sensitivity"].endswith(f"(GS, read from the records; "
                                                   f"{cached._share(setup.sensitivity['Group'], n)} of N = {n:,} "
                                                   "training records)")
    assert "(CS, read from the records; " in by.loc["Proposed", "sensitivity"]
    assert by.loc["Proposed", "sensitivity"].endswith(f"of N = {n:,} training records)")
    assert by.loc["DP reading", "sensitivity"].startswith("45 (declared group bound")
    assert by.loc["Proposed", "differentially private"].startswith("no")
    assert by.loc["DP reading", "differentially private"].startswith("yes")
    assert list(by["features"]) == [len(setup.columns[s]) for s in ALL_SCHEMES]


def test_every_noise_method_has_a_label_a_colour_and_a_url_bound():
    from core.cdp.schedule import NOISE_METHODS
    from dashboard.shared.widgets.palette import COLORS, noise_method_label
    from dashboard.shared.widgets.settings import PAGE_SETTINGS

    bound = next(s for s in PAGE_SETTINGS["cdp_lr"] if s.key == "lr_method")
    for m in NOISE_METHODS:
        assert noise_method_label(m).startswith(f"{m}: ") and str(m) in COLORS
        assert bound.lo <= m <= bound.hi
    assert "not in the paper" in noise_method_label(7)
    assert bound.parse(["7"]) == 7


def test_dpsgd_toggle_draws_its_line_with_the_caveat(open_page):
    """DP-SGD (ordinary DP, beyond the paper) is drawn on the Fig. 4 chart beside the schemes."""
    at = open_page("cdp_lr", timeout=300)
    at.slider(key="lr_reps").set_value(1).run()
    finish_sweeps(at)
    spec = _spec(at, "Test accuracy vs epsilon")
    assert not any("DP-SGD" in str(t.get("name")) for t in spec["data"])
    at.toggle(key="lr_dpsgd").set_value(True).run()
    finish_sweeps(at)
    assert_clean(at)
    spec = _spec(at, "Test accuracy vs epsilon")
    lines = {t["name"]: t for t in spec["data"] if t.get("mode") == "lines+markers"}
    assert "DP-SGD (ordinary DP)" in lines and "Proposed" in lines
    assert lines["DP-SGD (ordinary DP)"]["line"]["dash"] == "dashdot"
    assert all(0 <= v <= 1 for v in lines["DP-SGD (ordinary DP)"]["y"])
    assert any("covers ONE record" in c.value and "not comparable" in c.value for c in at.caption)


def test_the_budget_sentence_names_how_the_epochs_share_it():
    from dashboard.cdp import cached

    assert cached.budget_split(1, "5 epochs") == "the budget is split evenly over 5 epochs"
    assert "composed by the PLD accountant" in cached.budget_split(7, "5 epochs")


def test_every_chart_offers_its_data_as_csv(open_page):
    """The bars and the curve (last in the file: the tests above computed the curve of one
    run per point); the noise methods' chart is checked in the test that draws it."""
    at = open_page("cdp_lr", timeout=300)
    at.slider(key="lr_reps").set_value(1).run()
    finish_sweeps(at)
    assert_clean(at)
    assert {c.key for c in at.get("plotly_chart")} == {"lr_live", "lr_curve"}
    assert_every_chart_has_its_csv(at)


def _claim(at, label: str) -> str:
    return next(e.value for kind in ("success", "warning", "info") for e in getattr(at, kind)
                if e.value.startswith(f"**Paper 000, {label} ·"))


def test_fig4_curve_has_its_claim_box_with_the_papers_words(open_page):
    at = finish_sweeps(open_page("cdp_lr", timeout=300))
    assert_clean(at)
    box = _claim(at, r"Fig\. 4")
    assert "Proposed" in box and "Group" in box and "Zhang" in box and "*The paper:*" in box


def test_fig5_toggle_draws_its_claim_box(open_page):
    at = open_page("cdp_lr", timeout=300)
    at.slider(key="lr_reps").set_value(1).run()
    at.toggle(key="lr_methods").set_value(True).run()
    finish_sweeps(at)
    assert_clean(at)
    assert "method 1" in _claim(at, r"Fig\. 5")


# --- references: every accuracy beside the constant guess and the non-private model -------

def _on_skewed(*, present: bool = False, reps: int | None = 2):
    """The page on a table with a 0.9 majority class and features of pure noise."""
    from streamlit.testing.v1 import AppTest

    from tests.dashboard.conftest import APP
    from tests.dashboard.skewed_table import skewed_dataset

    at = AppTest.from_file(str(APP), default_timeout=300)
    at.session_state["pux_dataset"] = skewed_dataset()
    if present:
        at.session_state["present"] = True
    at.switch_page("cdp/cdp_lr.py")
    at.run()
    if reps is not None:
        at.slider(key="lr_reps").set_value(reps).run()
    return at


def test_a_scheme_under_the_constant_guess_is_said_in_words():
    at = _on_skewed()
    assert_clean(at)
    box = next(w.value for w in at.warning if w.value.startswith("No better than the constant guess")).replace("\\", "")
    assert "is below the constant guess (0.9" in box or "equals the constant guess (0.9" in box
    guess = next(m for m in at.metric if m.label == "Majority class (constant guess)")
    assert float(guess.value) >= 0.85 and guess.proto.delta.startswith("95% interval")
    assert "60 test rows" in guess.proto.help  # 20% of 300
    assert any(m.label == "Non-private model" for m in at.metric)


def test_the_live_chart_draws_the_constant_guess_and_the_non_private_model():
    import json

    at = _on_skewed()
    spec = json.loads(_live_spec(at))
    names = [s.get("name") for s in spec["layout"]["shapes"]]
    assert "majority class (constant guess)" in names and "non-private model" in names
    assert "majority class (constant guess): 95% interval" in names


def test_the_scheme_table_sets_each_accuracy_beside_the_constant_guess():
    at = _on_skewed()
    rows = next(d.value for d in at.table if "vs the constant guess" in d.value.columns).set_index("scheme")
    assert rows.loc["Proposed", "vs the constant guess"].startswith(("no better", "within", "above"))
    assert "of N = 240 training records" in rows.loc["Proposed", "sensitivity"]


def test_every_scheme_shows_auc_and_balanced_accuracy_beside_the_constant_guess():
    at = _on_skewed()
    rows = next(d.value for d in at.dataframe if "ROC AUC" in d.value.columns).set_index("scheme")
    assert {"accuracy", "ROC AUC", "balanced accuracy"} <= set(rows.columns)
    assert rows.loc["majority class (constant guess)", "ROC AUC"].startswith("0.500 (")
    assert "Proposed" in rows.index and "Non-private" in rows.index


def test_fig4_cannot_be_judged_when_the_constant_guess_explains_the_curves():
    at = finish_sweeps(_on_skewed())
    assert_clean(at)
    fig4 = next(e.value for e in at.info if e.value.startswith("**Paper 000, Fig\\. 4")).replace("\\", "")
    assert "Cannot be judged here" in fig4 and "majority class" in fig4
    spec = next(c.proto.spec for c in at.get("plotly_chart") if c.key == "lr_curve")
    assert "majority class (constant guess)" in spec and "non-private model" in spec


def test_epsilon_and_the_accuracy_chart_come_first_side_by_side():
    at = _on_skewed(reps=None)
    control, chart = at.main.columns[0], at.main.columns[1]
    assert [s.key for s in control.slider] == ["lr_eps"]
    assert [c.key for c in chart.get("plotly_chart")] == ["lr_live"]
    assert at.expander  # the secondary settings fold away


def test_presenting_shows_the_chart_and_no_caption_that_points_at_a_control():
    at = _on_skewed(present=True, reps=None)
    assert_clean(at)
    assert any(c.key == "lr_live" for c in at.get("plotly_chart"))
    assert not any(c.value.startswith("Move epsilon") for c in at.caption)


# --- solve for epsilon: a target accuracy, each scheme's epsilon, marked on Fig. 4 -----------

def _solve_rows(at):
    return next(d.value for d in at.dataframe if "meets the target" in d.value.columns).set_index("method")


def _solved(open_page, target: float = 0.6):
    at = open_page("cdp_lr", timeout=300)
    at.slider(key="lr_reps").set_value(2).run()
    finish_sweeps(at)
    at.number_input(key="lr_solve_target_accuracy").set_value(target).run()
    assert_clean(at)
    return at


def test_the_solve_panel_marks_fig4_and_use_this_epsilon_marks_the_ledger(open_page):
    from core.decide.selection import PRIVATE_CHOICE_NOTE
    from dashboard.cdp.solving import lr_snap
    from dashboard.shared.safe import md

    at = _solved(open_page)
    rows = _solve_rows(at)
    assert {"Group", "Zhang", "Proposed", "DP reading"} <= set(rows.index)
    assert "nominal" in rows.loc["Proposed", "reading"] and "nominal" not in rows.loc["DP reading", "reading"]
    assert any(w.value == md(PRIVATE_CHOICE_NOTE) for w in at.warning)
    spec = _spec(at, "Test accuracy vs epsilon")
    assert any(str(t.get("name")).startswith("DP reading: solved epsilon") for t in spec["data"])
    assert any(a.get("text") == "target: accuracy at least 0.6" for a in spec["layout"]["annotations"])
    assert_every_chart_has_its_csv(at)
    at.button(key="lr_solve_use").click().run()
    assert_clean(at)
    assert at.slider(key="lr_eps").value == pytest.approx(lr_snap(rows.loc["DP reading", "epsilon"]))
    assert _guarantee(at, "DP reading") == "not differentially private"  # chosen on the private data


def test_the_pages_solved_epsilon_is_pux_solves_on_the_solve_json_it_hands_out(open_page, downloads):
    import math

    from core.decide.config import SolveConfig
    from core.decide.run import run_solve

    at = _solved(open_page)
    rows = _solve_rows(at)
    solve = SolveConfig.from_json(downloads(at, "lr_solve_config").decode("utf-8"))
    assert solve.page == "cdp_lr" and solve.repetitions == 2 and solve.fingerprint is not None
    cli = {m["method"]: m["epsilon"] for m in run_solve(solve)["methods"]}
    assert list(cli) == list(rows.index)
    for method, epsilon in cli.items():
        page = rows.loc[method, "epsilon"]
        assert (epsilon is None and math.isnan(page)) or epsilon == page, method


def test_private_selection_of_the_dp_readings_epsilon_adds_its_cost_to_the_ledger(open_page):
    at = _solved(open_page)
    at.radio(key="lr_solve_source").set_value("selection").run()
    cost = next(m for m in at.metric if m.label == "Cost of the choice")
    assert cost.value == "epsilon = 6"  # 3 x the largest candidate (2 by default, the middle of the grid)
    at.button(key="lr_solve_sel_run").click().run()
    assert_clean(at)
    assert any(s.value.startswith("Private selection chose epsilon") for s in at.success) or \
        any(w.value.startswith("No run of the selection met") for w in at.warning)


def test_a_public_reference_table_is_solved_on_with_the_pages_own_sweep(open_page):
    """The reference (here a part of the sample standing in for a public table) runs the page's
    Fig. 4 sweep; the answer says it costs the private data nothing and the ledger stays DP."""
    from core.data import load_sample

    at = _solved(open_page)
    at.session_state["lr_solve_reference"] = ("test", load_sample("supplier").sample(600, random_state=1))
    at.radio(key="lr_solve_source").set_value("reference").run()
    finish_sweeps(at)
    assert_clean(at)
    assert any(s.value.startswith("Solved on the public reference table") for s in at.success)
    rows = _solve_rows(at)
    assert "DP reading" in rows.index
    if "lr_solve_use" in [b.key for b in at.button]:
        at.button(key="lr_solve_use").click().run()
        assert _guarantee(at, "DP reading").startswith("epsilon = ")  # no mark: the choice read no private row


def test_a_three_class_label_is_a_step_for_the_user_not_an_error():
    """The real-table sweep (penguins, label species): CDP-LR showed 'CDP-LR needs a label with
    two classes' as an error box; it is a choice to make on the Data page, said as a warning."""
    import numpy as np
    import pandas as pd
    from streamlit.testing.v1 import AppTest

    from core.data.csv_loader import frame_to_dataset
    from tests.dashboard.conftest import APP

    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"bill": rng.normal(40, 5, 90).round(1), "island": rng.choice(["a", "b"], 90),
                          "species": np.repeat(["x", "y", "z"], 30)})
    at = AppTest.from_file(str(APP), default_timeout=120)
    at.session_state["pux_dataset"] = frame_to_dataset(frame, label="species", sensitive=["island"], name="three")
    at.switch_page("cdp/cdp_lr.py")
    at.run()
    assert_clean(at)
    said = [w.value.replace("\\", "") for w in at.warning]  # md() escapes the markup characters
    assert any("CDP-LR trains a binary classifier, and the label 'species' holds 3 classes" in w for w in said), said
