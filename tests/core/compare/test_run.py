"""core.compare.run: every method released from one split and measured the same way."""
from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

from core.compare.context import RunContext
from core.compare.registry import METHODS
from core.compare.result import pareto_front, summarize_runs, takeaway
from core.compare.run import compare
from core.data import load_sample

CHEAP = ["Raw table", "kRR", "MDAV_DP", "CDP-LR"]
ROWS = 300
#: Every method but the OpenDP synthesizers (MST about 50 s, AIM 3 min and 4 GB per release:
#: tests/core/compare/test_marginal_methods.py runs MST).
QUICK = [m for m in METHODS if m not in ("MST", "AIM")]


@pytest.fixture(scope="module")
def census():
    data = load_sample("census")
    assert data.label == "income" and data.sensitive == ("sex",)
    return data


@pytest.fixture(scope="module")
def everything(census):
    return compare(census, methods=QUICK, epsilons=[1.0], repetitions=1, max_rows=ROWS,
                   imposter_epochs=1, random_state=0, audit_runs=0)  # the audits: test_audits.py


def _cheap(census, methods=CHEAP, **kw):
    kw = {"epsilons": [1.0], "repetitions": 1, "max_rows": ROWS, "random_state": 3, "audit_runs": 0, **kw}
    return compare(census, methods=methods, **kw)


def test_every_method_runs_on_the_census_sample(everything):
    assert everything.skipped == {}
    assert list(dict.fromkeys(everything.runs["method"])) == QUICK


def test_raw_table_has_the_highest_dcr_risk(everything):
    tables = everything.runs[everything.runs["kind"] == "table"]
    raw = tables.loc[tables["method"] == "Raw table", "dcr_risk"].iloc[0]
    assert raw > 0.9
    assert (raw >= tables["dcr_risk"]).all()


def test_is_dp_matches_each_methods_ledger(everything):
    runs = everything.runs
    for row in runs.itertuples():
        assert row.is_dp == METHODS[row.method].dp, row.method
    dp = dict(zip(runs["method"], runs["is_dp"]))
    assert not dp["IMPOSTER"] and not dp["Raw table"] and not dp["MDAV"]
    assert dp["SSKM_DP (sound)"] and dp["IDP-KMeans"] and dp["CDP-LR"]
    # the table releases of kRR and MDAV_DP name an epsilon their ledgers call nominal
    assert not dp["kRR"] and not dp["MDAV_DP"]
    assert runs.loc[~runs["is_dp"], "ledger_epsilon"].map(math.isinf).all()


def test_measures_follow_the_kind_of_release(everything):
    runs = everything.runs.set_index("method")
    assert runs.loc[["CDP-LR", "Logistic regression (non-private)"], "dcr_risk"].isna().all()
    assert runs.loc[["CDP-LR", "Logistic regression (non-private)"], "mia_auc"].between(0, 1).all()
    assert runs.loc[["Raw table", "kRR", "MDAV"], "mse"].notna().all()
    assert runs.loc[["IMPOSTER", "SSKM_DP (sound)", "IDP-KMeans"], "mse"].isna().all()
    assert runs.loc["Raw table", "mse"] == 0 and runs.loc["Raw table", "tv_one_way"] == 0


def test_methods_without_epsilon_give_one_point_per_repetition(census):
    result = _cheap(census, methods=["Raw table", "kRR"], epsilons=[0.5, 2.0], repetitions=2)
    counts = result.runs.groupby("method").size()
    assert counts["Raw table"] == 2 and counts["kRR"] == 4
    assert result.runs.loc[result.runs["method"] == "Raw table", "epsilon"].isna().all()


def test_same_seed_gives_the_same_runs(census):
    pd.testing.assert_frame_equal(_cheap(census).runs, _cheap(census).runs)


def test_a_cluster_gives_the_same_runs_as_this_process(census, everything, dask_cluster):
    there = compare(census, methods=QUICK, epsilons=[1.0], repetitions=1, max_rows=ROWS,
                    imposter_epochs=1, random_state=0, scheduler=dask_cluster, audit_runs=0)
    pd.testing.assert_frame_equal(there.runs, everything.runs)
    assert there.skipped == everything.skipped


def test_another_seed_gives_other_noise(census):
    a, b = _cheap(census, random_state=3), _cheap(census, random_state=4)
    assert not a.runs["seed"].equals(b.runs["seed"])


def test_adding_a_method_leaves_another_methods_rows_unchanged(census):
    alone = _cheap(census, methods=["kRR"]).runs
    more = _cheap(census, methods=["MDAV", "kRR", "IDP-KMeans"]).runs
    pd.testing.assert_frame_equal(alone, more[more["method"] == "kRR"].reset_index(drop=True))


def test_a_method_that_cannot_run_is_skipped_with_a_reason(census):
    result = _cheap(census.with_roles(label="income", sensitive=()),
                    methods=["Raw table", "IMPOSTER", "kRR", "SSKM_DP (sound)"])
    assert set(result.skipped) == {"IMPOSTER", "kRR", "SSKM_DP (sound)"}
    assert all("sensitive attribute" in reason for reason in result.skipped.values())
    assert list(result.runs["method"]) == ["Raw table"]


def test_a_three_class_label_skips_both_models_and_runs_the_rest():
    """The real-table sweep (penguins, label species): the whole comparison stopped with 'CDP-LR
    is a binary classifier' because the non-private model needed CDP-LR's binary encoding too."""
    from core.data.csv_loader import frame_to_dataset

    rng = np.random.default_rng(3)
    frame = pd.DataFrame({"bill": rng.normal(40, 5, 90).round(1), "island": rng.choice(["a", "b"], 90),
                          "species": np.repeat(["x", "y", "z"], 30)})
    data = frame_to_dataset(frame, label="species", sensitive=["island"], name="three")
    result = compare(data, methods=["Raw table", "CDP-LR", "Logistic regression (non-private)"], epsilons=(1.0,),
                     repetitions=1, random_state=0)
    assert set(result.skipped) == {"CDP-LR", "Logistic regression (non-private)"}
    assert all("a binary classifier" in r and "3 categories" in r for r in result.skipped.values())
    assert list(result.runs["method"]) == ["Raw table"]


def test_microaggregation_without_numeric_columns_is_skipped(census):
    categorical = census.subset(census.categorical)
    result = _cheap(categorical, methods=["Raw table", "MDAV", "MDAV_DP"])
    assert set(result.skipped) == {"MDAV", "MDAV_DP"}
    assert "numeric" in result.skipped["MDAV"]


def test_microaggregation_keeps_categorical_columns(census):
    train = census.head(60)
    ctx = RunContext(train, census.frame.tail(40).reset_index(drop=True), None, 0)
    mdav = METHODS["MDAV"]
    released = mdav.release(ctx, mdav.fit(ctx, 0, None), None, 1).table
    kept = list(census.categorical)
    pd.testing.assert_frame_equal(released[kept], train.frame[kept])
    assert not released["age"].equals(train.frame["age"])
    assert "kept as they are" in mdav.description


def test_summary_gives_mean_std_and_n(census):
    result = _cheap(census, methods=["Raw table", "MDAV_DP"], repetitions=2)
    summary = result.summary()
    row = summary[summary["method"] == "MDAV_DP"].iloc[0]
    assert row["utility_n"] == 2 and row["utility_std"] >= 0
    values = result.runs.loc[result.runs["method"] == "MDAV_DP", "utility"]
    assert row["utility_mean"] == pytest.approx(values.mean())


def test_progress_reaches_one_and_changes_nothing(census):
    seen = []
    watched = _cheap(census, progress=lambda f, m: seen.append((f, m)))
    pd.testing.assert_frame_equal(watched.runs, _cheap(census).runs)
    fractions = [f for f, _ in seen]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0
    assert any(m.startswith("MDAV_DP") for _, m in seen)


def test_stopping_from_progress_stops_the_comparison(census):
    class Stop(Exception):
        pass

    def stop(fraction, message):
        raise Stop

    with pytest.raises(Stop):
        _cheap(census, progress=stop)


def test_to_dict_is_json_ready(census):
    result = _cheap(census)
    data = json.loads(json.dumps(result.to_dict(), allow_nan=False))
    assert data["parameters"]["seed"] == 3
    assert data["parameters"]["fingerprint"] == census.fingerprint()
    assert {r["method"] for r in data["runs"]} == set(CHEAP)


def _hand_made() -> pd.DataFrame:
    return pd.DataFrame({
        "method": ["Raw table", "kRR", "kRR", "MDAV", "IMPOSTER"],
        "epsilon": [np.nan, 1.0, 4.0, np.nan, np.nan],
        "utility_mean": [0.85, 0.81, 0.84, 0.80, 0.70],
        "ai_advantage_mean": [0.30, 0.01, 0.10, 0.02, 0.05],
    })


def test_pareto_front_keeps_dominating_points_and_drops_dominated_ones():
    front = pareto_front(_hand_made(), utility="utility", risk="ai_advantage")
    kept = list(zip(front["method"], front["epsilon"].fillna(0)))
    assert ("kRR", 1.0) in kept  # least risk
    assert ("Raw table", 0.0) in kept  # most utility
    assert ("MDAV", 0.0) not in kept  # kRR at epsilon 1 has more utility and less risk
    assert ("IMPOSTER", 0.0) not in kept
    assert list(front["ai_advantage_mean"]) == sorted(front["ai_advantage_mean"])


def test_takeaway_names_the_best_method_at_low_risk():
    text = takeaway(_hand_made(), utility="utility", risk="ai_advantage", below=0.02,
                    utility_label="income accuracy")
    assert text == ("At attribute-inference advantage of 0.02 or below, kRR at epsilon 1 keeps the most "
                    "utility: 0.81 income accuracy against 0.85 for the raw table.")


def test_takeaway_says_when_no_method_is_low_enough():
    text = takeaway(_hand_made(), utility="utility", risk="ai_advantage", below=0.001)
    assert text.startswith("No method brings attribute-inference advantage to 0.001 or below")
    assert "kRR at epsilon 1" in text


def test_summarize_runs_orders_methods_as_run():
    runs = pd.DataFrame({"method": ["b", "a", "a"], "kind": "table", "epsilon": [np.nan, 2.0, 1.0],
                         "repetition": 0, "seed": 1, "utility": [0.5, 0.6, 0.7], "is_dp": False,
                         "guarantee": "none"})
    summary = summarize_runs(runs)
    assert list(summary["method"]) == ["b", "a", "a"] and list(summary["epsilon"].fillna(0)) == [0, 1, 2]
    assert (summary["utility_std"] == 0).all()


@pytest.mark.parametrize("kwargs, error, words", [
    ({"methods": "kRR"}, TypeError, "list of method names"),
    ({"methods": ["Nope"]}, ValueError, "unknown method"),
    ({"methods": []}, ValueError, "at least one method"),
    ({"methods": ["kRR", "kRR"]}, ValueError, "only once"),
    ({"epsilons": [0.0]}, ValueError, "greater than 0"),
    ({"epsilons": "1"}, TypeError, "list of numbers"),
    ({"epsilons": []}, ValueError, "at least one epsilon"),
    ({"repetitions": 0}, ValueError, "at least 1"),
    ({"repetitions": 1.5}, TypeError, "integer"),
    ({"test_size": 1.0}, ValueError, "strictly between 0 and 1"),
    ({"max_rows": 3}, ValueError, "at least 10"),
    ({"imposter_epochs": "2"}, TypeError, "integer"),
    ({"random_state": "seed"}, TypeError, "random_state"),
    ({"progress": 5}, TypeError, "callable"),
])
def test_bad_arguments_are_refused_with_a_message(census, kwargs, error, words):
    args = {"methods": ["Raw table"], "epsilons": [1.0], "max_rows": ROWS, **kwargs}
    with pytest.raises(error, match=words):
        compare(census, **args)


def test_a_frame_is_not_a_dataset(census):
    with pytest.raises(TypeError, match="Dataset"):
        compare(census.frame, methods=["Raw table"], epsilons=[1.0])


def test_pareto_front_refuses_an_unknown_measure():
    with pytest.raises(ValueError, match="not a measure"):
        pareto_front(_hand_made(), utility="utility", risk="nope")


def test_frontier_risks_are_floored_at_no_leak(everything):
    """An attacker worse than guessing (a misleading release) scores 0, not a negative risk."""
    runs = everything.runs
    tables = runs[runs["kind"] == "table"]
    assert (tables["ai_advantage"] >= 0).all() and (tables["dcr_excess"] >= 0).all()
    per_attribute = [c for c in runs.columns if c.startswith("ai_advantage_")]
    raw = tables[per_attribute].max(axis=1)
    assert ((tables["ai_advantage"] == raw) | ((raw < 0) & (tables["ai_advantage"] == 0))).all()


# ----------------------------------------------------------------------------- the public schema
def _ctx(census, schema=None, rows=120):
    train = census.head(rows)
    return RunContext(train, census.frame.tail(60).reset_index(drop=True), None, 0, schema)


def test_the_default_schema_is_the_datasets_own(census, everything):
    from core.privacy.schema_builtin import schema_for

    assert everything.parameters["schema"] == schema_for(census).to_dict()
    assert everything.schema == schema_for(census)


def test_a_drafted_schema_makes_every_schema_using_release_not_dp(census):
    from core.privacy.schema_draft import draft_schema

    result = _cheap(census, methods=["IDP-KMeans", "CDP-LR", "MDAV_DP"], schema=draft_schema(census))
    assert not result.runs["is_dp"].any()
    assert result.runs["guarantee"].str.contains("read from your data").all()


def test_releases_stay_in_the_schemas_domain(census):
    """IDP-KMeans and kRR publish only declared categories (or OTHER) and values within bounds."""
    from core.privacy.schema_builtin import schema_for

    schema = schema_for(census)
    ctx = _ctx(census)
    for name in ("IDP-KMeans", "kRR"):
        method = METHODS[name]
        fitted = method.fit(ctx, 0, None) if method.fit is not None else None
        table = method.release(ctx, fitted, 1.0, 0).table
        for col in schema.categorical:
            assert set(table[col].astype(object)) <= set(schema[col].domain), (name, col)
        for col, (lo, hi) in schema.bounds().items():
            assert table[col].between(lo, hi).all(), (name, col)


def test_cdp_lr_takes_its_sensitivity_from_the_declared_group_bound(census):
    import dataclasses

    from core.privacy.schema_builtin import schema_for

    schema = dataclasses.replace(schema_for(census), max_group_size=4)
    rel = METHODS["CDP-LR"].release(_ctx(census, schema), None, 1.0, 0)
    assert rel.model.sensitivity_ == 4.0
    assert rel.ledger.is_dp and any("group of up to 4 records" in a for a in rel.ledger.assumptions)
    plain = METHODS["CDP-LR"].release(_ctx(census), None, 1.0, 0)
    assert plain.model.sensitivity_ == 1.0 and "covers one record" in " ".join(plain.ledger.assumptions)


def test_cdp_lr_features_come_from_the_schema_not_the_rows(census):
    """The model matrix has one column per numeric feature and one per declared category (plus
    OTHER), whatever categories the training rows hold."""
    from core.privacy.schema_builtin import schema_for

    schema = schema_for(census)
    # too few rows to hold every occupation, but both income classes (the sample's first 23 are "<=50K")
    few = dataclasses_replace(census, frame=census.frame.iloc[16:24].reset_index(drop=True))
    assert few.frame["occupation"].nunique() < len(schema["occupation"].categories)
    assert few.frame["income"].nunique() == 2
    ctx = RunContext(few, census.frame.tail(60).reset_index(drop=True), None, 0, None)
    X, _, Xh, _ = ctx.model_data()
    names = ctx.encoder().names
    assert [n for n in names if n.startswith("occupation=")] == [f"occupation={c}" for c in
                                                                 schema["occupation"].domain]
    assert X.shape == (8, len(names)) and Xh.shape[1] == len(names)
    assert np.abs(X).max() <= 1.0


def test_identifier_columns_are_dropped(census):
    from core.privacy.schema_builtin import schema_for
    from core.privacy.schema_columns import ColumnSchema

    frame = census.frame.head(ROWS).assign(person_id=range(ROWS))
    data = type(census)(frame, name="census_ids", label="income", sensitive=("sex",),
                      numeric=(*census.numeric, "person_id"), categorical=census.categorical)
    base = schema_for(census)
    schema = dataclasses_replace(base, columns=(*base.columns, ColumnSchema("person_id", "identifier")))
    result = compare(data, methods=["Raw table", "IDP-KMeans"], epsilons=[1.0], repetitions=1,
                     random_state=0, schema=schema, audit_runs=0)
    assert result.parameters["identifiers_dropped"] == ["person_id"]
    assert result.runs["is_dp"].tolist() == [False, True]


def dataclasses_replace(obj, **kw):
    import dataclasses

    return dataclasses.replace(obj, **kw)


def test_a_column_missing_from_the_schema_is_refused(census):
    from core.privacy.schema_builtin import schema_for
    from core.validation import DataError

    schema = schema_for(census.subset([c for c in census.frame.columns if c != "age"]))
    with pytest.raises(DataError, match="'age' is not in the public schema"):
        compare(census, methods=["Raw table"], epsilons=[1.0], max_rows=ROWS, schema=schema)
    with pytest.raises(TypeError, match="PublicSchema"):
        compare(census, methods=["Raw table"], epsilons=[1.0], max_rows=ROWS, schema={"columns": []})


def test_results_say_the_measures_read_the_private_data(census):
    data = _cheap(census, methods=["Raw table"]).to_dict()
    assert "evaluated on your private data" in data["measures_note"]


def test_flags_the_table_holds_as_numbers_come_back_as_numbers():
    """The supplier's 0/1 product flags and label are categories in its schema: the releases
    coded over the schema publish them as numbers again (OTHER as missing), so every measure runs."""
    data = load_sample("supplier")
    data = data.with_roles(label=data.label, sensitive=("region",))
    result = compare(data, methods=["IDP-KMeans", "CDP-LR"], epsilons=[1.0], repetitions=1, max_rows=200,
                     random_state=0, audit_runs=0)
    assert result.skipped == {}
    assert result.runs["is_dp"].all() and result.runs["utility"].between(0, 1).all()


# ----------------------------------------------------------------------------- references and power
def _noise_table(n=600, seed=0):
    """Label and sensitive attribute of pure noise over coarse features (no record stands out)."""
    from core.data import Dataset

    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({"a": rng.choice(["x", "y", "z"], n), "b": rng.choice(["u", "v"], n),
                          "c": rng.integers(0, 5, n).astype(float),
                          "label": rng.choice(["no", "yes"], n), "s": rng.choice(["f", "m"], n)})
    return Dataset(frame, name="noise", label="label", sensitive=("s",), numeric=("c",),
                   categorical=("a", "b", "label", "s"))


def _leak_table(n=600, seed=0):
    """The sensitive attribute is the sign of a feature: a release of these rows reveals it."""
    from core.data import Dataset

    rng = np.random.default_rng(seed)
    x, z = rng.normal(size=n), rng.normal(size=n)
    frame = pd.DataFrame({"x": x, "z": z, "a": rng.choice(["p", "q"], n),
                          "label": np.where(x + z > 0, "yes", "no"), "s": np.where(x > 0, "m", "f")})
    return Dataset(frame, name="leak", label="label", sensitive=("s",), numeric=("x", "z"),
                   categorical=("a", "label", "s"))


_REF_METHODS = ["Raw table", "MDAV", "IDP-KMeans"]


@pytest.fixture(scope="module")
def noise_result():
    return compare(_noise_table(), methods=_REF_METHODS, epsilons=[1.0], repetitions=1, random_state=0,
                   audit_runs=0)


@pytest.fixture(scope="module")
def leak_result():
    return compare(_leak_table(), methods=_REF_METHODS, epsilons=[1.0], repetitions=1, random_state=0,
                   audit_runs=0)


def test_on_pure_noise_the_attack_has_no_power_and_nothing_is_recommended(noise_result):
    assert noise_result.power("ai_advantage") is False
    text = noise_result.takeaway(risk="ai_advantage")
    assert "the attack has no power on this table" in text
    assert "keeps the most utility" not in text
    assert not any(m in text for m in ("MDAV", "IDP-KMeans"))


def test_with_a_real_leak_the_attack_has_power_and_recommends_as_before(leak_result):
    assert leak_result.power("ai_advantage") is True
    entry = leak_result.references["risks"]["ai_advantage"]
    assert entry["raw_interval"][0] > entry["control"]  # the raw table's interval lies above its control
    text = leak_result.takeaway(risk="ai_advantage")
    assert "No recommendation" not in text and ("MDAV" in text or "IDP-KMeans" in text)  # a method is named


def test_the_raw_reference_equals_the_raw_tables_own_row(leak_result):
    raw = leak_result.runs[leak_result.runs["method"] == "Raw table"].iloc[0]
    refs = leak_result.references
    assert refs["risks"]["ai_advantage_s"]["raw"] == pytest.approx(raw["ai_advantage_s"])
    assert refs["risks"]["ai_member_s"]["raw"] == pytest.approx(raw["ai_member_s"])
    assert refs["utility"]["nonprivate"] == pytest.approx(raw["utility"])


def test_the_utility_references_are_the_constant_guess_and_the_non_private_model(noise_result, leak_result):
    for result, near_guess in ((noise_result, True), (leak_result, False)):
        util = result.references["utility"]
        lo, hi = util["majority_interval"]
        assert 0.5 <= util["majority"] <= 1 and lo <= util["majority"] <= hi
        assert (abs(util["nonprivate"] - util["majority"]) < 0.1) == near_guess


def test_when_no_method_beats_the_guess_that_comes_first():
    summary = pd.DataFrame({"method": ["Raw table", "A"], "epsilon": [np.nan, 1.0], "is_dp": [False, True],
                            "utility_mean": [0.9, 0.6], "ai_advantage_mean": [0.3, 0.0]})
    text = takeaway(summary, below=0.02, majority=0.8)
    assert text.startswith("No method beats the constant guess on accuracy (0.8)")
    assert "keeps the most utility" not in text and "A at epsilon 1" in text


def test_a_method_inside_the_guess_interval_is_never_the_headline():
    summary = pd.DataFrame({"method": ["Raw table", "A", "B"], "epsilon": [np.nan, 1.0, 2.0],
                            "is_dp": [False, True, True], "utility_mean": [0.9, 0.7624, 0.80],
                            "ai_advantage_mean": [0.3, 0.0, 0.01]})
    text = takeaway(summary, below=0.02, majority=0.7618, majority_interval=(0.744, 0.778))
    assert "A at epsilon 2" not in text and "B at epsilon 2 keeps the most utility" in text
    alone = takeaway(summary[summary["method"] != "B"], below=0.02, majority=0.7618, majority_interval=(0.744, 0.778))
    assert alone.startswith("No method beats the constant guess") and "0.744 to 0.778" in alone
    clear = takeaway(summary[summary["method"] != "B"], below=0.02, majority=0.7618,
                     majority_interval=(0.744, 0.7620))
    assert "A at epsilon 1 keeps the most utility" in clear  # above the interval: A may lead


def test_the_takeaway_reads_auc_against_half(leak_result):
    ref = leak_result.utility_reference("utility_auc")
    assert ref["guess"] == 0.5 and ref["guess_interval"][0] < 0.5 < ref["guess_interval"][1]
    text = leak_result.takeaway(utility="utility_auc")
    assert "label ROC AUC" in text


def test_the_references_hold_auc_and_balanced_accuracy_beside_accuracy(leak_result):
    by = leak_result.references["utility"]["by_measure"]
    assert set(by) == {"utility", "utility_auc", "utility_balanced"}
    assert by["utility_balanced"]["guess"] == pytest.approx(1 / leak_result.references["utility"]["classes"])
    for ref in by.values():
        lo, hi = ref["nonprivate_interval"]
        assert lo <= ref["nonprivate"] <= hi
    rows = leak_result.reference_rows()
    assert {"utility (accuracy)", "utility (ROC AUC)", "utility (balanced accuracy)"} <= set(rows["measure"])


def test_the_frontier_defaults_to_auc_for_a_binary_label(leak_result):
    assert leak_result.references["utility"]["classes"] == 2
    assert leak_result.default_utility() == "utility_auc"


def test_guess_notes_name_every_point_at_or_inside_the_guess(noise_result):
    notes = noise_result.guess_notes()
    util = noise_result.references["utility"]
    s = noise_result.summary()
    lo, hi = util["majority_interval"]
    expected = int((s["utility_mean"] <= hi).sum())
    assert len(notes) == expected and expected > 0
    assert all("constant guess" in n for n in notes)


def test_takeaway_without_power_names_no_method():
    text = takeaway(_hand_made(), utility="utility", risk="ai_advantage", below=0.02,
                    no_power="Even the raw table gives 0.")
    assert "no power" in text and "keeps the most utility" not in text
    with pytest.raises(TypeError, match="no_power"):
        takeaway(_hand_made(), no_power=1)


def test_dcr_has_power_where_the_raw_table_copies_unique_records(leak_result):
    assert leak_result.power("dcr_excess") is True
    assert leak_result.references["mse"]["raw"] == 0 and leak_result.references["mse"]["random"] > 0.1


def test_references_travel_in_the_json(leak_result):
    data = json.loads(json.dumps(leak_result.to_dict(), allow_nan=False))
    assert data["references"]["risks"]["ai_advantage"]["power"] is True
    rows = leak_result.reference_rows()
    assert {"utility (accuracy)", "attribute-inference advantage", "MSE"} <= set(rows["measure"])


def test_identifiers_of_the_dataset_never_reach_a_release_or_a_reference(monkeypatch):
    """A row number with gaps, marked an identifier on the Dataset only: every release, attack
    and reference (raw table, control) sees the table without it."""
    from core.evaluation import attacks

    data = _leak_table(n=300)
    frame = data.frame.assign(row_no=np.arange(300) * 3 + 7)
    data = type(data)(frame, name="ids", label="label", sensitive=("s",), numeric=("x", "z", "row_no"),
                      categorical=("a", "label", "s"), identifiers=("row_no",))
    seen = []
    real = attacks.attribute_inference

    def spy(release, holdout, **kw):
        seen.append(set(release.columns) | set(holdout.columns) | set(kw["members"].columns))
        return real(release, holdout, **kw)

    monkeypatch.setattr(attacks, "attribute_inference", spy)
    result = compare(data, methods=["Raw table", "MDAV"], epsilons=[1.0], repetitions=1, random_state=0)
    assert result.parameters["identifiers_dropped"] == ["row_no"]
    assert seen and not any("row_no" in cols for cols in seen)


def test_compare_cdp_lr_is_the_pages_dp_reading(census):
    """The same noise method, preset, features and group bound as the CDP-LR page's DP reading."""
    import ast
    import pathlib

    from core.cdp.dp_reading import reading_columns
    from core.compare.methods import CDP_LR_NOISE_METHOD, CDP_LR_PRESET
    from core.privacy.schema_builtin import schema_for

    consts = {}  # the module-level constants of the CDP-LR page's folder, wherever they live in it
    for path in sorted(pathlib.Path("dashboard/cdp").glob("*.py")):
        page = ast.parse(path.read_text())
        consts.update({t.id: n.value.value for n in page.body if isinstance(n, ast.Assign)
                       for t in n.targets if isinstance(t, ast.Name) and isinstance(n.value, ast.Constant)
                       and t.id in ("PAGE_METHOD", "DEFAULT_PRESET")})
    assert consts["PAGE_METHOD"] == CDP_LR_NOISE_METHOD and consts["DEFAULT_PRESET"] == CDP_LR_PRESET
    ctx = _ctx(census)
    assert ctx.model_columns() == reading_columns(schema_for(census), "income")
    rel = METHODS["CDP-LR"].release(ctx, None, 1.0, 0)
    assert rel.model.noise_method == CDP_LR_NOISE_METHOD
    assert "sensitivity 1 (one record" in rel.reading and "noise method 1" in rel.reading


def test_a_group_bound_read_from_the_data_is_not_the_sensitivity(census):
    """As on the CDP-LR page (core.cdp.dp_reading.group_bound): a bound read from the data gives
    sensitivity 1, never a number the records chose."""
    import dataclasses

    from core.privacy.schema_builtin import schema_for

    schema = dataclasses.replace(schema_for(census), max_group_size=9, max_group_source="read from data")
    rel = METHODS["CDP-LR"].release(_ctx(census, schema), None, 1.0, 0)
    assert rel.model.sensitivity_ == 1.0


def test_the_reading_is_in_the_runs(census):
    runs = _cheap(census, methods=["Raw table", "CDP-LR"]).runs.set_index("method")
    assert runs.loc["CDP-LR", "reading"].startswith("the CDP-LR page's DP reading")
    assert runs.loc["Raw table", "reading"] == ""


# ----------------------------------------------------------------------------- measures, stop
def test_each_measure_is_one_record_and_the_old_tables_come_from_it():
    from core.compare.measures import CONTROL_WORDS, LOW_RISK, MEASURE_WORDS, MEASURES

    assert tuple(MEASURES) == ("rows_released", "utility", "utility_auc", "utility_balanced", "tv_one_way", "tv_two_way", "column_shape", "pair_trend",
                               "mse", "ai_advantage",
                               "dcr_risk", "dcr_excess", "dcr_recall", "mia_auc", "mia_advantage", "ai_member")
    assert LOW_RISK == {"ai_advantage": 0.02, "dcr_excess": 0.02, "mia_auc": 0.52, "mia_advantage": 0.02,
                        "ai_member": 0.02}
    assert MEASURE_WORDS["utility"] == "accuracy" and MEASURE_WORDS["ledger_epsilon"] == "epsilon"
    assert "rows_released" not in MEASURE_WORDS
    assert set(CONTROL_WORDS) == {"ai_advantage", "ai_member", "dcr_excess", "mia_auc"}
    assert all(m.name == name for name, m in MEASURES.items())
    assert MEASURES["utility"].higher_is_better and not MEASURES["mia_auc"].higher_is_better


def test_a_set_stop_event_ends_the_comparison(census):
    import threading

    from core.runtime.progress import Stopped

    stop = threading.Event()
    stop.set()
    with pytest.raises(Stopped, match="comparison"):
        _cheap(census, methods=["Raw table"], stop=stop)
    with pytest.raises(TypeError, match="stop"):
        _cheap(census, methods=["Raw table"], stop=True)


def test_stop_set_while_running_ends_the_comparison_at_the_next_report(census):
    import threading

    from core.runtime.progress import Stopped

    stop, messages = threading.Event(), []

    def progress(fraction, message):
        messages.append(message)
        if "repetition" in message:
            stop.set()

    with pytest.raises(Stopped):
        _cheap(census, methods=["Raw table", "MDAV_DP"], epsilons=[0.5, 1.0], progress=progress, stop=stop)
    assert not any("Comparison done" in m for m in messages)


def test_raising_from_the_progress_callback_still_stops_the_comparison(census):
    def progress(fraction, message):
        if fraction > 0:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        _cheap(census, methods=["Raw table"], progress=progress)


def test_an_unset_stop_event_changes_no_number(census):
    import threading

    pd.testing.assert_frame_equal(_cheap(census, stop=threading.Event()).runs, _cheap(census).runs)


def test_the_dp_headline_names_a_dp_point_above_the_guess_or_says_none_is(leak_result):
    import dataclasses

    def with_auc(auc: float):
        runs = leak_result.runs.copy()
        dp = runs["method"] == "IDP-KMeans"
        runs["is_dp"] = dp
        runs.loc[dp, "utility_auc"] = auc
        return dataclasses.replace(leak_result, runs=runs)

    hi = leak_result.utility_reference("utility_auc")["guess_interval"][1]
    above = with_auc(hi + 0.05).dp_headline("utility_auc")
    assert above.startswith("IDP-KMeans at epsilon 1 beats the constant guess on ROC AUC")
    inside = with_auc(hi - 0.01).dp_headline("utility_auc")
    assert inside.startswith("No differentially private method beats the constant guess on ROC AUC")
    assert "IDP-KMeans at epsilon 1" in inside
