import json

import numpy as np
import pandas as pd
import pytest

from core.imposter.evaluation import evaluate_settings, lambda_sweep, table_long, theta_sweep
from core.validation import DataError

IMPLICIT = ["relationship", "occupation", "hours_per_week"]


def _shuffled(frame, seed=0):
    """The real table with s shuffled: no leak left, the label relation intact."""
    out = frame.copy()
    out["sex"] = np.random.default_rng(seed).permutation(out["sex"].to_numpy())
    return out


@pytest.fixture(scope="module")
def table(census):
    return evaluate_settings(census, _shuffled(census.frame), sensitive="sex", label="income",
                             implicit=IMPLICIT, classifiers=["lr", "gbdt"], random_state=0)


def test_table1_shape(table):
    assert list(table.index) == ["LR", "GBDT"]
    assert table.columns.names == ["setting", "task", "metric"]
    assert table.shape == (2, 24)  # 3 settings x 2 tasks x (accuracy, F1, ROC AUC, balanced accuracy)
    assert table.notna().all().all()


def test_table1_ranks_the_leak_and_the_label_by_auc_beside_the_guess(table):
    # the shuffled sensitive attribute ranks like a constant guess (0.5) in setting B; the label keeps its AUC
    assert (table[("A", "sensitive", "auc")] > 0.6).all() and (abs(table[("B", "sensitive", "auc")] - 0.5) < 0.08).all()
    assert (table[("TSTR", "label", "auc")] > 0.75).all()
    assert table.attrs["classes_label"] == 2 and table.attrs["classes_sensitive"] == 2


def test_setting_a_sees_the_leak_and_b_does_not(table):
    floor = table.attrs["majority_synthetic"]
    assert (table[("A", "sensitive", "accuracy")] > table.attrs["majority_real"] + 0.1).all()
    assert (table[("B", "sensitive", "accuracy")] < floor + 0.03).all()


def test_label_utility_survives_a_table_that_keeps_it(table):
    a = table[("A", "label", "accuracy")]
    b = table[("B", "label", "accuracy")]
    assert (abs(a - b) < 0.06).all()
    assert (table[("TSTR", "label", "accuracy")] > table.attrs["label_majority_real"]).all()


def test_long_form_is_json_able(table):
    long = table_long(table)
    assert len(long) == 48  # 2 classifiers x 3 settings x 2 tasks x 4 scores
    assert set(long.columns) == {"classifier", "setting", "task", "metric", "value"}
    json.dumps(long.to_dict(orient="records"))


def test_same_seed_same_table(census):
    kw = dict(sensitive="sex", label="income", implicit=IMPLICIT, classifiers=["lr"], max_rows=800)
    a = evaluate_settings(census, census.frame, random_state=2, **kw)
    b = evaluate_settings(census, census.frame, random_state=2, **kw)
    pd.testing.assert_frame_equal(a, b)


def test_bad_arguments(census):
    kw = dict(sensitive="sex", label="income")
    with pytest.raises(DataError):
        evaluate_settings(census, census.frame, implicit=[], **kw)
    with pytest.raises(DataError):
        evaluate_settings(census, census.frame.drop(columns="occupation"), implicit=IMPLICIT, **kw)
    with pytest.raises(ValueError):
        evaluate_settings(census, census.frame, implicit=IMPLICIT, classifiers=["svm"], **kw)
    with pytest.raises(ValueError):
        evaluate_settings(census, census.frame, implicit=IMPLICIT, settings=["C"], **kw)


FAST = dict(epochs=1, batch_size=200, hidden=(16,), disc_hidden=(8,), latent_dim=4)


def test_theta_sweep_rows(small_census):
    runs = theta_sweep(small_census, sensitive="sex", label="income", thetas=[0.02, 0.9],
                       classifier="lr", synthesizer=FAST, random_state=0)
    assert runs["theta"].tolist() == [0.02, 0.9]
    assert "relationship" in runs["implicit"].iloc[0]
    assert runs["implicit"].iloc[1] == []
    assert 0 <= runs["B_sensitive_accuracy"].iloc[0] <= 1


def test_lambda_sweep_rows(small_census):
    runs = lambda_sweep(small_census, sensitive="sex", label="income", implicit=IMPLICIT,
                        lambdas=[0.0, 1.0], classifier="lr", synthesizer=FAST, random_state=0)
    assert runs["lambda"].tolist() == [0.0, 1.0]
    assert {"B_sensitive_accuracy", "B_label_f1", "TSTR_label_accuracy"} <= set(runs.columns)
    assert runs.attrs["stopped"] is False


def test_sweep_progress_covers_each_run_and_watching_changes_nothing(small_census):
    told = []
    kwargs = dict(sensitive="sex", label="income", implicit=IMPLICIT, lambdas=[0.0, 1.0], classifier="lr",
                  synthesizer=FAST, random_state=0)
    watched = lambda_sweep(small_census, progress=lambda f, m: told.append((f, m)), **kwargs)
    pd.testing.assert_frame_equal(watched, lambda_sweep(small_census, **kwargs))
    fractions = [f for f, _ in told]
    assert fractions == sorted(fractions) and 0 <= fractions[0] and fractions[-1] <= 1
    assert told[0] == (0.0, "lambda=0.0, repetition 1/1")
    assert (0.5, "lambda=1.0, repetition 1/1") in told
    assert any(m.startswith("lambda=1.0, repetition 1/1: iteration ") for _, m in told)


def test_a_stopped_sweep_returns_the_runs_it_finished(small_census):
    import threading

    stop = threading.Event()

    def progress(fraction, message):
        if message.startswith("theta=0.05") and ": iteration" in message:
            stop.set()  # the second training is under way

    runs = theta_sweep(small_census, sensitive="sex", label="income", thetas=[0.02, 0.05, 0.1],
                       classifier="lr", synthesizer=FAST, random_state=0, progress=progress, stop=stop)
    assert runs["theta"].tolist() == [0.02] and runs.attrs["stopped"] is True
    full = theta_sweep(small_census, sensitive="sex", label="income", thetas=[0.02], classifier="lr",
                       synthesizer=FAST, random_state=0)
    pd.testing.assert_frame_equal(runs, full, check_like=True)


@pytest.mark.slow
def test_adult_table1_targets(adult):
    """The Table 1 targets on Adult (theta = 0.01, lambda = 1); minutes of CPU, so slow."""
    from core.imposter import ImposterSynthesizer, detect_implicit

    det = detect_implicit(adult.frame, "sex", theta=0.01, beta=0.7, random_state=0)
    model = ImposterSynthesizer(random_state=0).fit(adult, "sex", det.implicit)
    syn = model.sample(adult.n_rows)
    table = evaluate_settings(adult.frame, syn, sensitive="sex", label="income",
                              implicit=det.implicit, classifiers=["xgboost", "lr"], random_state=0)
    floor = table.attrs["majority_synthetic"]
    assert (table[("A", "sensitive", "accuracy")] > 0.82).all()
    assert ((table[("B", "sensitive", "accuracy")] - floor).abs() <= 0.03).all()
    assert (table[("B", "label", "accuracy")] >= 0.80).all()


def test_marginal_tv_is_zero_on_itself_and_sees_a_lost_point_mass(census):
    from core.imposter.evaluation import marginal_tv

    frame = census.frame
    same = marginal_tv(frame, frame.sample(frac=1.0, random_state=0))
    assert same["one_way"] == pytest.approx(0.0, abs=1e-12)
    assert same["two_way"] == pytest.approx(0.0, abs=1e-12)
    assert set(same["per_column"]) == set(frame.columns)
    num = [c for c in frame.columns if pd.api.types.is_numeric_dtype(frame[c])
           and frame[c].nunique() > 10]
    assert num
    col = num[0]
    shifted = frame.copy()
    shifted[col] = frame[col].max() + 1  # every value above the real range: one bin
    tv = marginal_tv(frame, shifted)
    assert tv["per_column"][col] > 0.8
    assert tv["one_way"] == pytest.approx(tv["per_column"][col] / len(frame.columns))
    assert col in tv["worst_pair"]["columns"]
    assert 0 < tv["two_way"] <= 1


def test_marginal_tv_two_way_sees_a_broken_pair():
    from core.imposter.evaluation import marginal_tv

    rng = np.random.default_rng(0)
    a = rng.choice(["x", "y"], 4000)
    real = pd.DataFrame({"a": a, "b": a})
    indep = pd.DataFrame({"a": a, "b": rng.permutation(a)})
    tv = marginal_tv(real, indep)
    assert tv["one_way"] == pytest.approx(0.0, abs=1e-12)
    assert tv["two_way"] == pytest.approx(0.5, abs=0.03)
    with pytest.raises(ValueError):
        marginal_tv(real, indep, bins=1)
    with pytest.raises(DataError):
        marginal_tv(real, indep[["a"]])
