"""AppTest of the IMPOSTER page: detection on the sample, training live, stop, results."""
from __future__ import annotations

import time


from core.data import load_sample
from tests.dashboard.conftest import assert_clean, finish_sweeps


def _small_census(n: int = 500):
    return load_sample("census").sample(n, random_state=3)


def _open(open_page, dataset=None):
    at = open_page("imposter")
    if dataset is not None:
        at.session_state["pux_dataset"] = dataset
        at.run()
    return at


def _fast_evaluation(at):
    """Only logistic regression in Table 1 and the kRR curve (the widgets appear after
    training; their values are set beforehand through session state)."""
    at.session_state["imposter_classifiers"] = ["lr"]
    at.session_state["imposter_krr_clf"] = "lr"


def _wait_for_job(at, timeout: float = 120.0):
    job = at.session_state["imposter_job"]
    assert job.wait(timeout), "training did not end"
    at.run()
    return job


def test_detection_shows_the_nmi_chart_and_the_implicit_set(open_page):
    at = _open(open_page)
    assert_clean(at)
    assert at.title[0].value.startswith("IMPOSTER")
    assert len(at.get("plotly_chart")) == 1
    assert "relationship" in at.success[0].value
    assert at.button(key="imposter_train")


def test_a_table_without_sensitive_column_falls_back_to_census(open_page):
    at = open_page("data")  # the Data page selects the supplier sample (no sensitive column)
    at.switch_page("views/imposter.py")
    at.run()
    assert_clean(at)
    assert "uses the census sample" in at.info[0].value


def test_beta_too_high_flags_nothing(open_page):
    at = _open(open_page)
    at.slider(key="imposter_beta").set_value(0.99).run()
    assert not at.exception
    assert "flags nothing" in at.warning[0].value


def test_train_a_few_iterations_then_curves_table_and_download(open_page):
    at = _open(open_page, _small_census())
    at.number_input(key="imposter_epochs").set_value(2).run()
    _fast_evaluation(at)
    at.button(key="imposter_train").click().run()
    assert not at.exception
    job = _wait_for_job(at)
    finish_sweeps(at)
    # 500 rows: the batch drops to 125 (four per epoch), and the page says why
    assert job.model is not None and job.model.iterations_ == 8
    assert any("reduced to 125" in w.value for w in at.warning)
    assert_clean(at)
    # NMI chart, training curves, Table-1 bars, trade-off, kRR vs epsilon
    assert len(at.get("plotly_chart")) == 5
    assert any("finished after 8 iterations" in s.value for s in at.success)
    table = at.dataframe[0].value
    assert list(table.index) == ["LR"]
    assert any("B: synthetic" in c for c in table.columns)


def test_stop_keeps_what_was_learned(open_page):
    at = _open(open_page, _small_census())
    at.number_input(key="imposter_epochs").set_value(1000).run()
    _fast_evaluation(at)
    at.button(key="imposter_train").click().run()
    assert not at.exception
    job = at.session_state["imposter_job"]
    deadline = time.monotonic() + 60  # the training process starts (imports torch), then iterates
    while job.progress()[0] < 2 and time.monotonic() < deadline:
        time.sleep(0.2)
    at.run()  # while training: a progress bar and the curves (NMI chart + training curves)
    assert len(at.get("plotly_chart")) == 2
    assert at.get("progress")
    at.button(key="imposter_stop").click().run()
    job = _wait_for_job(at, timeout=60)
    assert job.model is not None and job.model.stopped_
    assert 0 < job.model.iterations_ < 1000
    assert_clean(at)
    assert "stopped early" in at.success[-1].value


def test_a_table_without_a_categorical_column_gets_one_sentence(open_page):
    from core.data import Dataset

    import pandas as pd

    frame = pd.DataFrame({"x": range(100), "y": [float(i) ** 2 for i in range(100)]})
    ds = Dataset(frame, None, ("x",), ("x", "y"), (), name="numbers")
    at = _open(open_page, ds)
    assert not at.exception
    assert "no categorical column" in at.error[0].value


def test_synthetic_release_is_labelled_not_private_in_the_file(open_page):
    from core.release import read_release

    at = _open(open_page, _small_census())
    at.number_input(key="imposter_epochs").set_value(1).run()
    _fast_evaluation(at)
    at.button(key="imposter_train").click().run()
    _wait_for_job(at)
    at.button(key="imposter_prepare").click().run()
    assert_clean(at)
    header, table = read_release(at.session_state["imposter_prepared"]["csv"])
    assert any(line.startswith("privacy: Not differentially private") for line in header)
    assert len(table) == 500
    assert at.get("download_button")
    assert "no overall guarantee" in " ".join(c.value for c in at.sidebar.caption)


def test_krr_audit_in_the_privacy_box_finds_no_violation(open_page):
    at = _open(open_page)
    at.button(key="imposter_audit_run").click().run()
    assert at.session_state["imposter_audit_job"].wait(60)
    at.run()
    assert_clean(at)
    assert any(s.value.startswith("No violation") for s in at.success)


def test_the_label_is_left_out_of_detection_by_default(open_page):
    at = _open(open_page)
    label = at.selectbox(key="imposter_label").value
    spec = at.get("plotly_chart")[0].proto.spec
    assert f'"{label}"' not in spec
    at.checkbox(key="imposter_rewrite_label").check().run()
    assert f'"{label}"' in at.get("plotly_chart")[0].proto.spec


def test_a_second_train_with_the_same_inputs_reuses_the_finished_model(open_page):
    at = _open(open_page, _small_census())
    at.number_input(key="imposter_epochs").set_value(1).run()
    _fast_evaluation(at)
    at.button(key="imposter_train").click().run()
    first = _wait_for_job(at)
    at.button(key="imposter_train").click().run()
    assert at.session_state["imposter_job"] is first  # finished: shared read-only, no retraining
