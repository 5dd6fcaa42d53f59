"""AppTest of the IMPOSTER page: detection on the sample, training live, stop, results."""
from __future__ import annotations

import time


from core.data import load_sample
from tests.dashboard.conftest import assert_clean, assert_switched_to_census, finish_sweeps, dataset_state
from tests.dashboard.shared.widgets.test_chart_data import assert_every_chart_has_its_csv


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


def _job(at):
    """The session's training of the dataset shown (the page keeps one per dataset)."""
    jobs = at.session_state["imposter_jobs"]
    return jobs[at.session_state["imposter_columns_of"]]


def _wait_for_job(at, timeout: float = 120.0):
    job = _job(at)
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
    at.switch_page("imposter/imposter.py")
    at.run()
    assert_switched_to_census(at)
    assert at.selectbox(key="imposter_sensitive").value == "sex"
    assert at.get("plotly_chart")


def test_an_upload_without_sensitive_column_stays_and_asks_for_one(open_page):
    at = _upload(open_page("data"))
    at.switch_page("imposter/imposter.py")
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
    at.switch_page("imposter/imposter.py")
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
    assert job.error is None, job.error
    assert job.model is not None and job.model.iterations_ == 8
    assert any("reduced to 125" in w.value for w in at.warning)
    assert_clean(at)
    # NMI chart, training curves, Table-1 bars, marginal TV, trade-off, kRR vs epsilon
    assert [c.key for c in at.get("plotly_chart")] == [
        "imposter_nmi_chart", "imposter_curves", "imposter_table1_chart", "imposter_tv_chart",
        "imposter_tradeoff", "imposter_krr_eps"]
    assert_every_chart_has_its_csv(at)
    assert any("finished after 8 iterations" in s.value for s in at.success)
    frames = [d.value for d in at.dataframe]
    assert "attribute" in frames[0].columns and "gain" in frames[0].columns  # the flagged attributes' gains
    table = frames[1]
    assert list(table.index) == ["LR", "LR (paper, Adult)"]  # the paper's Table 1 row below ours
    claims = _claims(at)
    assert any("Paper 002, Table 1" in c for c in claims)
    assert any("Paper 002, Fig. 7" in c for c in claims)
    assert any("B: synthetic" in c for c in table.columns)
    # the leak, the income accuracy and the marginal TV side by side
    fidelity = frames[2]
    assert list(fidelity.index) == ["LR"]
    assert {"one-way TV (marginals)", "two-way TV (pairs)"} <= set(fidelity.columns)
    assert any("predict sex (leak)" in c for c in fidelity.columns)
    assert 0 <= fidelity["one-way TV (marginals)"].iloc[0] <= 1
    _real_against_release(at)


def _real_against_release(at):
    """The section is there, closed (nothing computed); opened it scores the synthetic table,
    and kRR's perturbed table when picked."""
    assert any(e.label == "Real against release" for e in at.expander)
    at.session_state["imposter_rvr_open"] = True
    at.run()
    assert_clean(at)
    keys = [c.key for c in at.get("plotly_chart")]
    assert "imposter_rvr_overlay" in keys and "imposter_rvr_heatmap" in keys
    assert_every_chart_has_its_csv(at)
    picker = at.selectbox(key="imposter_rvr_release")
    assert picker.options[0] == "IMPOSTER synthetic table"
    krr = next(o for o in picker.options if o.startswith("kRR at epsilon 1 "))
    picker.set_value(krr).run()
    assert_clean(at)
    shapes = next(d.value for d in at.dataframe if list(d.value.columns) == ["column", "kind", "score", "test"])
    assert shapes["score"].between(0, 1).all()


def test_stop_keeps_what_was_learned(open_page):
    at = _open(open_page, _small_census())
    at.number_input(key="imposter_epochs").set_value(1000).run()
    _fast_evaluation(at)
    at.button(key="imposter_train").click().run()
    assert not at.exception
    job = _job(at)
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
    assert any("no categorical column" in w.value for w in at.warning) and not at.error


def test_synthetic_release_is_labelled_not_private_in_the_file(open_page):
    from core.privacy.release_read import read_release

    at = _open(open_page, _small_census())
    at.number_input(key="imposter_epochs").set_value(1).run()
    _fast_evaluation(at)
    at.button(key="imposter_train").click().run()
    _wait_for_job(at)
    at.button(key="imposter_prepare").click().run()
    assert_clean(at)
    table, meta = read_release(dataset_state(at, "imposter_prepared")["zip"])
    assert meta["guarantee"].startswith("Not differentially private")
    assert dataset_state(at, "imposter_prepared")["file_name"].endswith("-not-dp.zip")
    assert len(table) == 500
    assert at.get("download_button")
    assert "no overall guarantee" in " ".join(c.value for c in at.sidebar.caption)


def test_krr_audit_in_the_privacy_box_finds_no_violation(open_page):
    at = _open(open_page)
    at.button(key="imposter_audit_run").click().run()
    assert dataset_state(at, "imposter_audit_job").wait(60)
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
    assert _job(at) is first  # finished: shared read-only, no retraining


def test_a_training_the_pool_refuses_is_explained_beside_the_button(open_page, monkeypatch):
    import dashboard.shared.serving.jobs as jobs

    monkeypatch.setattr(jobs, "POOL", jobs.JobPool(1, watch_every=60, max_waiting=0))  # no room for anyone
    at = _open(open_page, _small_census())
    at.button(key="imposter_train").click().run()
    assert_clean(at)  # a warning, not an error box or a traceback
    refusals = [w.value for w in at.warning if w.value.startswith("Not queued")]
    assert len(refusals) == 1 and "Ask again once one of them has started or been stopped" in refusals[0]
    assert not at.session_state["imposter_jobs"]  # nothing kept as this dataset's training
    assert jobs.POOL.counts() == (0, 0)


def test_choices_and_parameters_are_built_outside_the_page():
    import pandas as pd

    from core.data import Dataset
    from dashboard.imposter import cached

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
        ("d2_weight", 1.0), ("epochs", 15), ("latent_dim", 32), ("batch_size", 500), ("hidden", (128, 128)),
        ("disc_hidden", (128,)), ("d2_generator_loss", "minimax"))


def test_tradeoff_points_and_krr_note_come_from_the_tables():
    import pandas as pd

    from dashboard.imposter import wording

    columns = pd.MultiIndex.from_tuples([(setting, task, "accuracy") for setting in "AB"
                                         for task in ("sensitive", "label")])
    table = pd.DataFrame([[0.9, 0.8, 0.6, 0.75]], index=["LR"], columns=columns)
    table.attrs["majority_synthetic"] = 0.55
    assert wording.tradeoff_points(table) == ((0.6, 0.75), (0.9, 0.8), 0.55)
    note = wording.krr_note(["relationship"], ["relationship", "sex", "age"])
    assert note.startswith("kRR's table: each record spends 1 x epsilon")
    assert note.endswith("So it is not differentially private as a whole.")
    # the page's kRR reads its domain from the data (no schema): even a table of only perturbed columns says so
    only = wording.krr_note(["a", "b"], ["a", "b"])
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


# ---------------------------------------------------------------- issue 24: against a null, one state
def _no_leak_table(n: int = 600, *, seed: int = 0):
    """A 0.9-majority sensitive column beside pure-noise attributes, a label, and a row
    number with gaps (an identifier)."""
    import numpy as np
    import pandas as pd

    from core.data import Dataset

    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({
        "row": np.sort(rng.choice(10 * n, size=n, replace=False)),
        "noise_cat": rng.choice(list("pqrs"), size=n),
        "noise_num": rng.normal(size=n).round(3),
        "y": rng.choice(["yes", "no"], size=n),
        "g": np.where(rng.random(n) < 0.9, "a", "b"),
    })
    return Dataset(frame, "y", ("g",), ("noise_num", "row"), ("noise_cat", "y", "g"), name="noleak",
                   identifiers=("row",))


def test_a_table_without_a_leak_says_so_and_has_nothing_to_protect(open_page):
    at = _open(open_page, _no_leak_table())
    assert_clean(at)
    assert at.selectbox(key="imposter_sensitive").value == "g"  # the Data page's mark
    text = " ".join(i.value for i in at.info)
    assert "no implicit attribute found" in text and "nothing to remove" in text
    protect = [m for m in at.multiselect if m.key and m.key.startswith("imposter_implicit_")][0]
    assert protect.value == []  # nothing pre-selected
    assert at.button(key="imposter_train").disabled
    assert not any("relationship" in s.value for s in at.success)


def test_the_papers_verdict_is_shown_beside_the_default_one(open_page):
    at = _open(open_page, _no_leak_table())
    at.slider(key="imposter_theta").set_value(0.0).run()
    at.slider(key="imposter_beta").set_value(0.5).run()
    assert_clean(at)
    boxes = [b.value for b in (*at.success, *at.warning, *at.info)]
    assert any(b.startswith("**Default rule:** no implicit attribute found") for b in boxes)
    paper = [b for b in boxes if b.startswith("**The paper's rule:** flags")]
    assert paper and "gain nothing the held-out interval supports" in paper[0]
    protect = [m for m in at.multiselect if m.key and m.key.startswith("imposter_implicit_")][0]
    assert protect.value == []  # the default rule starts the set


def test_identifiers_are_never_scored_or_offered(open_page):
    at = _open(open_page, _no_leak_table())
    assert_clean(at)
    spec = at.get("plotly_chart")[0].proto.spec
    assert '"row"' not in spec and '"noise_cat"' in spec
    protect = [m for m in at.multiselect if m.key and m.key.startswith("imposter_implicit_")][0]
    assert "row" not in protect.options


def test_switching_dataset_shows_nothing_of_the_old_one(open_page):
    at = _open(open_page, _small_census())
    at.selectbox(key="imposter_sensitive").set_value("sex").run()
    at.number_input(key="imposter_epochs").set_value(1).run()
    _fast_evaluation(at)
    at.button(key="imposter_train").click().run()
    _wait_for_job(at)
    assert "imposter_curves" in [c.key for c in at.get("plotly_chart")]
    at.session_state["pux_dataset"] = _no_leak_table()  # the Data page switches the table
    at.run()
    assert_clean(at)
    assert at.selectbox(key="imposter_sensitive").value == "g"  # the new table's mark, not 'sex'
    assert at.selectbox(key="imposter_label").value == "y"
    keys = [c.key for c in at.get("plotly_chart")]
    assert "imposter_curves" not in keys and "imposter_table1_chart" not in keys  # no old training
    shown = " ".join(str(e.value) for kind in ("success", "info", "warning", "caption", "markdown")
                     for e in getattr(at, kind)).replace("(relationship = Husband says", "")  # the intro
    import re
    assert "census" not in shown, [m.start() for m in re.finditer("census", shown)]
    assert "relationship" not in shown, shown[max(0, shown.find("relationship") - 300):shown.find("relationship") + 100]
    assert "relationship" not in at.get("plotly_chart")[0].proto.spec
    assert not any("Training finished" in s.value for s in at.success)
    # back to census: its own training is found again
    at.session_state["pux_dataset"] = _small_census()
    at.run()
    assert_clean(at)
    assert "imposter_curves" in [c.key for c in at.get("plotly_chart")]


def test_presenting_shows_the_content_without_control_hints(open_page):
    at = _open(open_page)
    at.session_state["present"] = True
    at.run()
    assert_clean(at)
    assert at.get("plotly_chart")  # the detection chart
    captions = " ".join(c.value for c in at.caption)
    assert "Press **Train**" not in captions and "Choose an attribute" not in captions


def test_the_data_pages_new_mark_wins_over_the_old_setting(open_page):
    at = _open(open_page, _small_census())
    assert at.selectbox(key="imposter_sensitive").value == "sex"
    census = _small_census()
    at.session_state["pux_dataset"] = census.with_roles(label="income", sensitive=["relationship"])
    at.run()
    assert_clean(at)
    assert at.selectbox(key="imposter_sensitive").value == "relationship"  # not the old 'sex'


def test_a_column_of_another_dataset_is_dropped_not_shown(open_page):
    from dashboard.imposter import cached

    state = {"imposter_sensitive": "relationship", "imposter_label": "income"}
    cached.check_columns(state, "imposter_sensitive", ["g"])
    cached.check_columns(state, "imposter_label", ["income", "y"])
    assert state == {"imposter_label": "income"}


def _det(frame, sensitive, **kw):
    from core.imposter.detection import detect_implicit

    return detect_implicit(frame, sensitive, random_state=0, **kw)


def test_verdict_lines_name_each_flagged_attribute_with_its_gain_interval():
    from dashboard.imposter import wording

    det = _det(_no_leak_table().frame.drop(columns=["row"]), "g", theta=0.0, beta=0.5)
    lines = wording.verdict_lines(det, sensitive="g")
    assert lines[0][0] == "info" and "no implicit attribute found" in lines[0][1]
    assert lines[1][0] == "warning" and "noise\\_cat +0.000 [" in lines[1][1]  # names escaped
    assert wording.flagged_gains(det)["default rule"].eq("–").all()
    assert "nothing to remove" in wording.nothing_to_protect(det)
    assert "Choose" not in wording.nothing_to_protect(det, presenting=True)  # no pointer at a hidden control


def test_table1_references_say_when_an_accuracy_is_at_its_constant_guess():
    import pandas as pd

    from dashboard.imposter import wording

    cols = pd.MultiIndex.from_tuples([(s, t, "accuracy") for s in ("A", "B") for t in ("sensitive", "label")])
    table = pd.DataFrame([[0.88, 0.80, 0.90, 0.70]], index=["LR"], columns=cols)
    table.attrs.update(sensitive="g", label="y", majority_real=0.90, label_majority_real=0.75,
                       label_majority_synthetic=0.76)
    said = wording.table1_references(table)
    assert len(said) == 2
    assert said[0].startswith("On the real table the attacker predicting g") and "no leak to remove" in said[0]
    assert said[1].startswith("On the synthetic table y (LR): 0.7 is below the constant guess (0.76)")


def test_a_switch_drops_the_column_settings_but_a_first_visit_keeps_them():
    from dashboard.imposter import cached

    census, other = _small_census(), _no_leak_table()
    state = {"imposter_sensitive": "sex", "imposter_implicit_x": ["relationship"]}
    assert not cached.forget_other_dataset(state, census)  # first visit: a shared link's settings stay
    assert state["imposter_sensitive"] == "sex"
    assert cached.forget_other_dataset(state, other)
    assert "imposter_sensitive" not in state and "imposter_implicit_x" not in state
    assert state[cached.COLUMNS_OF] == other.fingerprint()


def test_the_papers_rule_can_start_the_protected_set(open_page):
    at = _open(open_page, _no_leak_table())
    at.slider(key="imposter_theta").set_value(0.0).run()
    at.slider(key="imposter_beta").set_value(0.5).run()
    at.radio(key="imposter_rule").set_value("paper").run()
    assert_clean(at)
    protect = [m for m in at.multiselect if m.key and m.key.startswith("imposter_implicit_")][0]
    assert set(protect.value) == {"noise_cat", "noise_num"}  # the label stays out of detection
    assert not at.button(key="imposter_train").disabled
