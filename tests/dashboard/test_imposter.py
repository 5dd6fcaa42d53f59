"""AppTest of the IMPOSTER page: detection on the sample, training live, stop, results."""
from __future__ import annotations

import time


from core.data import load_sample
from tests.dashboard.conftest import assert_clean, assert_switched_to_census, finish_sweeps
from tests.dashboard.test_chart_data import assert_every_chart_has_its_csv


#: a small upload with no sensitive attribute: ``b`` has 3 values and ``c`` 2
UPLOAD_CSV = ("a,b,c\n" + "".join(f"{i},{i % 3},{'xy'[i % 2]}\n" for i in range(60))).encode()


def _upload(at, content: bytes = UPLOAD_CSV, name: str = "mine.csv"):
    """Upload a CSV on the Data page, as a user would."""
    at.radio(key="data_source").set_value("Upload a CSV").run()
    at.file_uploader(key="data_upload").set_value((name, content, "text/csv")).run()
    assert at.session_state["pux_dataset"].name == name.rsplit(".", 1)[0]
    return at


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


def test_every_chart_offers_its_data_as_csv(open_page):
    at = _open(open_page)
    assert_clean(at)
    assert_every_chart_has_its_csv(at)  # before training: the NMI bars (after: see the training test)


def test_a_sample_without_sensitive_column_falls_back_to_census(open_page):
    at = open_page("data")  # the Data page selects the supplier sample (no sensitive column)
    at.switch_page("views/imposter.py")
    at.run()
    assert_switched_to_census(at)
    assert at.selectbox(key="imposter_sensitive").value == "sex"
    assert at.get("plotly_chart")


def test_an_upload_without_sensitive_column_stays_and_asks_for_one(open_page):
    at = _upload(open_page("data"))
    at.switch_page("views/imposter.py")
    at.run()
    assert not at.exception and not at.error
    assert any(c.value.startswith("Dataset **mine**") for c in at.caption)  # never swapped
    assert not any("census" in c.value for c in at.caption)
    assert at.selectbox(key="imposter_sensitive").value is None  # no silent pick
    assert any("Choose the sensitive attribute" in i.value and "marks none" in i.value for i in at.info)
    assert not at.get("plotly_chart") and not at.button  # nothing drawn until chosen
    at.selectbox(key="imposter_sensitive").set_value("c").run()
    assert_clean(at)
    assert at.get("plotly_chart") and at.button(key="imposter_train")


def test_a_marked_sensitive_column_that_does_not_fit_is_not_replaced_silently(open_page):
    from streamlit.testing.v1 import AppTest

    from tests.dashboard.conftest import APP

    at = AppTest.from_file(str(APP), default_timeout=120)
    # age has too many values to be IMPOSTER's sensitive attribute
    at.session_state["pux_dataset"] = load_sample("census").with_roles(label="income", sensitive=["age"])
    at.switch_page("views/imposter.py")
    at.run()
    assert not at.exception and not at.error
    assert at.selectbox(key="imposter_sensitive").value is None
    assert any("Choose the sensitive attribute" in i.value and "marks none" not in i.value for i in at.info)
    assert not at.get("plotly_chart")


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
    # NMI chart, training curves, Table-1 bars, marginal TV, trade-off, kRR vs epsilon
    assert [c.key for c in at.get("plotly_chart")] == [
        "imposter_nmi_chart", "imposter_curves", "imposter_table1_chart", "imposter_tv_chart",
        "imposter_tradeoff", "imposter_krr_eps"]
    assert_every_chart_has_its_csv(at)
    assert any("finished after 8 iterations" in s.value for s in at.success)
    table = at.dataframe[0].value
    assert list(table.index) == ["LR", "LR (paper, Adult)"]  # the paper's Table 1 row below ours
    claims = _claims(at)
    assert any("Paper 002, Table 1" in c for c in claims)
    assert any("Paper 002, Fig. 7" in c for c in claims)
    assert any("B: synthetic" in c for c in table.columns)
    # the leak, the income accuracy and the marginal TV side by side
    fidelity = at.dataframe[1].value
    assert list(fidelity.index) == ["LR"]
    assert {"one-way TV (marginals)", "two-way TV (pairs)"} <= set(fidelity.columns)
    assert any("predict sex (leak)" in c for c in fidelity.columns)
    assert 0 <= fidelity["one-way TV (marginals)"].iloc[0] <= 1


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


def test_choices_and_parameters_are_built_outside_the_page():
    import pandas as pd

    from core.data import Dataset
    from dashboard.cached import imposter as cached

    frame = pd.DataFrame({"id": range(40), "s": ["a", "b"] * 20, "y": [0, 1, 2, 3] * 10, "one": ["k"] * 40})
    ds = Dataset(frame, "y", (), ("id", "y"), ("s", "one"), name="t")
    assert cached.sensitive_options(ds) == ["s"]  # not the label, 2 to 20 values
    assert cached.label_options(ds, "s") == ["y"]
    assert cached.default_label(ds, ["y"]) == "y"
    assert cached.default_label(ds.with_roles(label=None), ["s", "y"]) == "s"
    assert cached.protect_options(ds, "s") == ["id", "y", "one"]
    assert cached.class_count(ds, "s") == 2 and cached.class_count(ds, "one") == 2
    assert [cached.batch_size(n) for n in (10, 500, 1999, 2000, 50_000)] == [16, 125, 499, 500, 500]
    assert cached.training_params(1, 15, 32, 500, "minimax") == (
        ("lambda_", 1.0), ("epochs", 15), ("latent_dim", 32), ("batch_size", 500), ("hidden", (128, 128)),
        ("disc_hidden", (128,)), ("d2_generator_loss", "minimax"))


def test_tradeoff_points_and_krr_note_come_from_the_tables():
    import pandas as pd

    from dashboard.cached import imposter as cached

    columns = pd.MultiIndex.from_tuples([(setting, task, "accuracy") for setting in "AB"
                                         for task in ("sensitive", "label")])
    table = pd.DataFrame([[0.9, 0.8, 0.6, 0.75]], index=["LR"], columns=columns)
    table.attrs["majority_synthetic"] = 0.55
    assert cached.tradeoff_points(table) == ((0.6, 0.75), (0.9, 0.8), 0.55)
    note = cached.krr_note(["relationship"], ["relationship", "sex", "age"])
    assert note.startswith("kRR's table: each record spends 1 x epsilon")
    assert note.endswith("So it is not differentially private as a whole.")
    # the page's kRR reads its domain from the data (no schema): even a table of only perturbed columns says so
    only = cached.krr_note(["a", "b"], ["a", "b"])
    assert only.startswith("kRR's table: each record spends 2 x epsilon on its perturbed values. ")
    assert "domain was read from your data" in only and only.endswith("not differentially private as a whole.")


# ---------------------------------------------------------------- the sweeps (Table 2, Fig. 8)

def _claims(at) -> list[str]:
    """The text of every claim box (and other boxes), markdown escapes removed."""
    return [b.value.replace("\\", "") for b in (*at.success, *at.warning, *at.info)]


def test_the_sweep_section_waits_for_its_buttons(open_page):
    at = _open(open_page)
    assert_clean(at)
    assert any(h.value.startswith("Sweeps: theta (Table 2) and lambda (Fig. 8)") for h in at.subheader)
    assert at.button(key="imposter_theta_run") and at.button(key="imposter_lambda_run")
    assert at.number_input(key="imposter_sweep_epochs").value == 100  # census: 3,000 rows
    assert at.selectbox(key="imposter_sweep_clf").value == "xgboost"
    jobs = at.session_state["pux_sweep_jobs"]
    assert "imposter_theta_sweep" not in jobs and "imposter_lambda_sweep" not in jobs  # nothing unasked
    assert any("Paper 002, Fig. 6" in c for c in _claims(at))


def test_a_wrong_grid_is_named_in_one_sentence(open_page):
    at = _open(open_page)
    at.text_input(key="imposter_thetas").set_value("0.01, x").run()
    assert not at.exception
    assert any("'x' is not a number" in e.value for e in at.error)


def _tiny_sweeps(at):
    at.number_input(key="imposter_sweep_epochs").set_value(1).run()
    at.selectbox(key="imposter_sweep_clf").set_value("lr").run()
    at.text_input(key="imposter_thetas").set_value("0.01, 0.1").run()
    at.text_input(key="imposter_lambdas").set_value("0, 1").run()
    return at


def test_a_tiny_theta_sweep_runs_to_its_chart_and_claim(open_page):
    at = _tiny_sweeps(_open(open_page, _small_census()))
    at.button(key="imposter_theta_run").click().run()
    assert not at.exception
    finish_sweeps(at)
    assert_clean(at)
    assert "imposter_table2_chart" in [c.key for c in at.get("plotly_chart")]
    assert any("Paper 002, Table 2" in c for c in _claims(at))
    assert "imposter_lambda_sweep" not in at.session_state["pux_sweep_jobs"]  # only the one asked for


def test_a_tiny_lambda_sweep_runs_to_its_chart_and_claim(open_page):
    at = _tiny_sweeps(_open(open_page, _small_census()))
    at.button(key="imposter_lambda_run").click().run()
    assert not at.exception
    finish_sweeps(at)
    assert_clean(at)
    assert "imposter_fig8_chart" in [c.key for c in at.get("plotly_chart")]
    assert any("Paper 002, Fig. 8" in c for c in _claims(at))
    assert_every_chart_has_its_csv(at)
