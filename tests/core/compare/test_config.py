"""CompareConfig: validation, JSON round trip, loading the dataset, reruns give the same numbers."""
from __future__ import annotations

import dataclasses
import json

import pandas as pd
import pytest

from core.compare.config import (
    FORMAT,
    CompareConfig,
    config_from_result,
    load_dataset,
    load_schema,
    run_config,
)
from core.data import load_sample
from core.privacy.schema_builtin import schema_for
from core.validation import DataError

BASE = dict(dataset="census", methods=("Raw table", "MDAV_DP", "CDP-LR"), epsilons=(1.0,), seed=3,
            label="income", sensitive=("sex",), repetitions=1, max_rows=160)


def make(**changes) -> CompareConfig:
    return CompareConfig(**{**BASE, **changes})


def test_round_trip_and_format_field():
    config = make(imposter_epochs=2, risk="dcr_excess", fingerprint="abc")
    text = config.to_json()
    data = json.loads(text)
    assert data["format"] == FORMAT and list(data)[0] == "format"
    assert CompareConfig.from_json(text) == config
    assert config.to_json() == text  # stable
    assert isinstance(config.methods, tuple) and isinstance(config.epsilons, tuple)


def test_lists_and_ints_are_normalised():
    config = make(methods=["Raw table"], epsilons=[1, 2], sensitive=["sex"])
    assert config.methods == ("Raw table",) and config.epsilons == (1.0, 2.0)
    assert config.sensitive == ("sex",)


def test_keyword_only():
    with pytest.raises(TypeError):
        CompareConfig("census", ("Raw table",), (1.0,), 0)  # type: ignore[misc]


@pytest.mark.parametrize("changes, error, words", [
    ({"dataset": 3}, TypeError, "dataset"),
    ({"dataset": "iris"}, ValueError, "dataset"),
    ({"dataset": "csv:"}, ValueError, "dataset"),
    ({"methods": "Raw table"}, TypeError, "methods"),
    ({"methods": ()}, ValueError, "methods"),
    ({"methods": ("Nope",)}, ValueError, "unknown"),
    ({"methods": ("MDAV", "MDAV")}, ValueError, "only once"),
    ({"epsilons": 1.0}, TypeError, "epsilons"),
    ({"epsilons": ("1",)}, TypeError, "epsilon"),
    ({"epsilons": (0.0,)}, ValueError, "greater than 0"),
    ({"epsilons": (float("inf"),)}, ValueError, "finite"),
    ({"epsilons": ()}, ValueError, "epsilons"),
    ({"epsilons": (1.0, 1)}, ValueError, "only once"),
    ({"seed": -1}, ValueError, "seed"),
    ({"seed": 1.5}, TypeError, "seed"),
    ({"seed": True}, TypeError, "seed"),
    ({"label": 3}, TypeError, "label"),
    ({"label": ""}, ValueError, "label"),
    ({"label": "sex"}, ValueError, "label"),
    ({"sensitive": "sex"}, TypeError, "sensitive"),
    ({"sensitive": ("sex", 1)}, TypeError, "sensitive"),
    ({"repetitions": 0}, ValueError, "repetitions"),
    ({"max_rows": 5}, ValueError, "max_rows"),
    ({"max_rows": "600"}, TypeError, "max_rows"),
    ({"test_size": 1.0}, ValueError, "test_size"),
    ({"test_size": "0.2"}, TypeError, "test_size"),
    ({"imposter_epochs": 0}, ValueError, "imposter_epochs"),
    ({"utility": "speed"}, ValueError, "utility"),
    ({"risk": 1}, TypeError, "risk"),
    ({"risk": "ai_advantage_age"}, ValueError, "risk"),
    ({"fingerprint": 12}, TypeError, "fingerprint"),
])
def test_validation_names_the_field(changes, error, words):
    with pytest.raises(error, match=words):
        make(**changes)


def test_risk_per_sensitive_attribute_is_allowed():
    assert make(risk="ai_advantage_sex").risk == "ai_advantage_sex"


def test_the_attack_on_the_people_in_the_release_is_a_risk_axis():
    assert make(risk="ai_member").risk == "ai_member"
    assert make(risk="ai_member_sex").risk == "ai_member_sex"


def _json(**changes) -> str:
    data = {**json.loads(make().to_json()), **changes}
    return json.dumps({k: v for k, v in data.items() if v is not ...})


@pytest.mark.parametrize("text, error, words", [
    ("{not json", ValueError, "not valid JSON"),
    ("[1, 2]", TypeError, "JSON object"),
    (_json(format=...), ValueError, "format"),
    (_json(format="pux-compare/9"), ValueError, "format"),
    (_json(colour="red"), ValueError, "unknown field.*colour"),
    (_json(seed=...), ValueError, "lacks.*seed"),
    (_json(methods=...), ValueError, "lacks.*methods"),
    (_json(repetitions="2"), TypeError, "repetitions"),
    (_json(sensitive="sex"), TypeError, "sensitive"),
])
def test_from_json_errors(text, error, words):
    with pytest.raises(error, match=words):
        CompareConfig.from_json(text)


def test_from_json_fills_defaults():
    text = json.dumps({"format": FORMAT, "dataset": "census", "methods": ["Raw table"], "epsilons": [1],
                       "seed": 0})
    config = CompareConfig.from_json(text)
    assert config.repetitions == 3 and config.label is None and config.risk == "ai_advantage"


def test_from_file(tmp_path):
    path = tmp_path / "run.json"
    path.write_text(make().to_json(), encoding="utf-8")
    assert CompareConfig.from_file(path) == make()
    with pytest.raises(ValueError, match="no config file"):
        CompareConfig.from_file(tmp_path / "missing.json")


def test_load_sample_with_roles():
    ds = load_dataset(make(label="income", sensitive=("sex", "relationship")))
    assert ds.name == "census" and ds.label == "income" and ds.sensitive == ("sex", "relationship")


def test_load_sample_unknown_column_is_a_data_error():
    with pytest.raises(DataError, match="'salary'"):
        load_dataset(make(label="salary"))


def test_public_dataset_without_a_data_dir(monkeypatch, tmp_path):
    monkeypatch.delenv("PUX_DATA_DIR", raising=False)
    with pytest.raises(DataError, match="PUX_DATA_DIR"):
        load_dataset(make(dataset="adult"))
    with pytest.raises(DataError, match="adult.data"):
        load_dataset(make(dataset="adult"), data_dir=tmp_path)


def test_csv_needs_its_path(tmp_path):
    config = make(dataset="csv:people.csv")
    with pytest.raises(DataError, match="--csv PATH"):
        load_dataset(config)
    path = tmp_path / "elsewhere.csv"
    load_sample("census").frame.head(300).to_csv(path, index=False)
    ds = load_dataset(config, csv=path)
    assert ds.name == "people.csv" and ds.n_rows == 300 and ds.label == "income"


def test_fingerprint_check(tmp_path):
    good = load_dataset(make()).fingerprint()
    assert load_dataset(make(fingerprint=good)).fingerprint() == good
    with pytest.raises(DataError, match="differs from the data this config was saved from") as info:
        load_dataset(make(fingerprint="0123456789abcdef"))
    assert "\n" not in str(info.value)
    # other roles are other data for the fingerprint
    with pytest.raises(DataError, match="differs"):
        load_dataset(make(sensitive=("relationship",), fingerprint=good))


@pytest.fixture(scope="module")
def tiny_run():
    return run_config(make())


def test_same_config_and_seed_give_identical_runs(tiny_run):
    again = run_config(make())
    pd.testing.assert_frame_equal(tiny_run.runs, again.runs)
    assert tiny_run.parameters == again.parameters
    other = run_config(make(seed=4))
    assert not other.runs["utility"].equals(tiny_run.runs["utility"])


def test_config_from_result_reruns_the_result(tiny_run):
    config = config_from_result(tiny_run, risk="dcr_risk")
    assert config.fingerprint == tiny_run.parameters["fingerprint"]
    assert config.risk == "dcr_risk" and config.seed == 3 and config.max_rows == 160
    assert config.schema == schema_for(load_sample("census")).to_dict()  # the schema that ran, inline
    assert dataclasses.replace(config, fingerprint=None, risk="ai_advantage", schema=None) == make()
    with pytest.raises(ValueError, match="csv:"):
        config_from_result(dataclasses.replace(
            tiny_run, parameters={**tiny_run.parameters, "dataset": "upload"}))
    assert config_from_result(tiny_run, dataset="csv:x.csv").dataset == "csv:x.csv"


# ----------------------------------------------------------------------------- the public schema
def test_the_schema_rides_in_the_json_inline():
    schema = schema_for(load_sample("census"))
    config = make(schema=schema)  # a PublicSchema becomes its JSON object
    assert config.schema == schema.to_dict()
    again = CompareConfig.from_json(config.to_json())
    assert again == config and load_schema(again, load_sample("census")) == schema


def test_a_schema_path_is_read_from_the_config_files_folder(tmp_path):
    schema = schema_for(load_sample("census")).confirm()
    (tmp_path / "schemas").mkdir()
    (tmp_path / "schemas" / "census.json").write_text(schema.to_json(), encoding="utf-8")
    (tmp_path / "run.json").write_text(make(schema="schemas/census.json").to_json(), encoding="utf-8")
    config = CompareConfig.from_file(tmp_path / "run.json")
    assert load_schema(config, load_sample("census")) == schema


def test_a_missing_schema_file_is_one_sentence(tmp_path):
    with pytest.raises(ValueError, match="no schema file"):
        load_schema(make(schema=str(tmp_path / "nope.json")), load_sample("census"))


@pytest.mark.parametrize("schema, error, words", [
    (3, TypeError, "schema"),
    ("schema.txt", ValueError, ".json"),
    ({"columns": "nope"}, ValueError, "schema is not valid"),
])
def test_bad_schemas_are_refused(schema, error, words):
    with pytest.raises(error, match=words):
        make(schema=schema)


def test_no_schema_means_the_datasets_own(tmp_path):
    assert load_schema(make(), load_sample("census")) == schema_for(load_sample("census"))


def test_the_config_schema_is_what_the_comparison_uses():
    """A schema whose only change is a declared group bound: CDP-LR's ledger states the bound."""
    census = load_sample("census")
    schema = dataclasses.replace(schema_for(census), max_group_size=3)
    result = run_config(make(methods=("CDP-LR",), schema=schema))
    assert result.parameters["schema"]["max_group_size"] == 3
    ledger_text = result.runs["caveats"].iloc[0]
    assert "group of up to 3 records" in ledger_text


# ----------------------------------------------------------------------------- check_epsilons
def test_check_epsilons_gives_a_tuple_of_floats_in_order():
    from core.validation import check_epsilons

    assert check_epsilons([2, 0.5]) == (2.0, 0.5)
    assert check_epsilons((1.0,), name="grid") == (1.0,)


@pytest.mark.parametrize("value, error, words", [
    ("1", TypeError, "grid must be a list of numbers"),
    (3.0, TypeError, "grid must be a list of numbers"),
    ([True], TypeError, "each entry of grid must be a number"),
    ([-1.0], ValueError, "finite number greater than 0"),
    ([float("nan")], ValueError, "finite number greater than 0"),
    ([], ValueError, "at least one epsilon"),
    ([1, 1.0], ValueError, "only once"),
])
def test_check_epsilons_names_the_rule(value, error, words):
    from core.validation import check_epsilons

    with pytest.raises(error, match=words):
        check_epsilons(value, name="grid")


def test_an_unknown_axis_lists_the_measures():
    with pytest.raises(ValueError, match="risk must be one of 'rows_released'.*'ledger_epsilon'.*'ai_member_sex'"):
        make(risk="speed")


# ----------------------------------------------------------------------------- the audit's runs
def test_audit_runs_round_trip_and_default():
    assert make().audit_runs == 500
    config = make(audit_runs=200)
    assert json.loads(config.to_json())["audit_runs"] == 200
    assert CompareConfig.from_json(config.to_json()) == config


def test_a_config_without_audit_runs_audits_at_the_default():
    data = json.loads(make().to_json())
    del data["audit_runs"]
    assert CompareConfig.from_dict(data).audit_runs == 500


@pytest.mark.parametrize("value, error", [(5, ValueError), (-1, ValueError), (True, TypeError), ("a", TypeError)])
def test_bad_audit_runs_are_refused(value, error):
    with pytest.raises(error, match="audit_runs"):
        make(audit_runs=value)


def test_the_audit_runs_reach_the_comparison_and_its_saved_config():
    result = run_config(make(methods=("CDP-LR",), audit_runs=0))
    assert result.parameters["audit_runs"] == 0 and result.audits.empty
    assert config_from_result(result).audit_runs == 0


def test_a_dcr_cap_round_trips_reaches_the_comparison_and_is_checked():
    config = make(dcr_records=120)
    assert CompareConfig.from_json(config.to_json()).dcr_records == 120
    result = run_config(make(methods=("Raw table",), dcr_records=120, audit_runs=0))
    assert result.parameters["dcr_records"] == 120
    assert config_from_result(result).dcr_records == 120
    with pytest.raises(ValueError, match="dcr_records"):
        make(dcr_records=5)
