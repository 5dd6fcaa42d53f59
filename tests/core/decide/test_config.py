"""SolveConfig: the example reads, round-trips, takes the page's defaults, and refuses bad fields in words."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.decide.config import FORMAT, PAGE_DEFAULTS, SolveConfig
from core.decide.target import Target

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "solve.json"
BASE = {"format": FORMAT, "page": "cdp_lr", "dataset": "supplier", "target": "accuracy>=0.6",
        "epsilons": [1.0, 0.5], "seed": 0}


def test_the_example_reads_and_round_trips():
    config = SolveConfig.from_file(EXAMPLE)
    assert config.page == "cdp_lr" and config.target == Target("accuracy", at_least=0.6)
    assert SolveConfig.from_json(config.to_json()) == config
    assert config.folder == EXAMPLE.parent


def test_defaults_are_the_pages():
    config = SolveConfig.from_dict(BASE)
    assert config.epsilons == (0.5, 1.0) and config.repetitions == PAGE_DEFAULTS["cdp_lr"]["repetitions"]
    assert config.settings["noise_method"] == 1 and config.settings["preset"] == "sensible"
    pub = SolveConfig.from_dict({**BASE, "page": "publishing", "target": {"measure": "mae", "at_most": 20},
                                 "settings": {"budget": "total"}})
    assert pub.repetitions == 10 and pub.settings["budget"] == "total" and pub.settings["n_queries"] == 200


def test_compare_methods_run_in_the_registrys_order():
    config = SolveConfig.from_dict({**BASE, "page": "compare", "target": "utility>=0.7",
                                    "methods": ["MDAV_DP", "kRR"]})
    assert config.methods == ("kRR", "MDAV_DP") and config.settings["audit_runs"] == 0


@pytest.mark.parametrize("change, error, words", [
    ({"format": "pux-compare/1"}, ValueError, "not a solve config"),
    ({"extra": 1}, ValueError, "unknown field"),
    ({"page": "frontier"}, ValueError, "must be one of"),
    ({"target": "mae<=0.5"}, ValueError, "curve is accuracy"),
    ({"target": "accuracy>0.6"}, ValueError, "reads like"),
    ({"target": 0.6}, TypeError, "target must be"),
    ({"settings": {"noise": 1}}, ValueError, "unknown key"),
    ({"settings": {"noise_method": 42}}, ValueError, "must be one of"),
    ({"settings": {"threshold": 0}}, ValueError, "threshold"),
    ({"epsilons": [1.0, -1.0]}, ValueError, "epsilon"),
    ({"seed": "0"}, TypeError, "seed"),
    ({"confidence": 1.5}, ValueError, "confidence"),
    ({"repetitions": 0}, ValueError, "repetitions"),
    ({"dataset": "mystery"}, ValueError, "dataset must be"),
    ({"label": "listed", "sensitive": ["listed"]}, ValueError, "one role"),
    ({"page": "compare", "target": "utility>=0.7"}, ValueError, "must list its methods"),
    ({"page": "compare", "target": "utility>=0.7", "methods": ["Magic"]}, ValueError, "unknown name"),
    ({"page": "compare", "target": "accuracy>=0.7", "methods": ["kRR"]}, ValueError, "not a measure"),
    ({"schema": "schema.txt"}, ValueError, "schema must be"),
])
def test_bad_fields_are_refused_in_one_sentence(change, error, words):
    with pytest.raises(error, match=words):
        SolveConfig.from_dict({**BASE, **change})


def test_missing_fields_and_bad_text():
    with pytest.raises(ValueError, match="lacks"):
        SolveConfig.from_dict({"format": FORMAT, "page": "cdp_lr"})
    with pytest.raises(ValueError, match="not valid JSON"):
        SolveConfig.from_json("{broken")
    with pytest.raises(TypeError, match="object"):
        SolveConfig.from_dict([BASE])


def test_from_file_missing(tmp_path):
    with pytest.raises(ValueError, match="no config file"):
        SolveConfig.from_file(tmp_path / "nope.json")


def test_to_dict_writes_the_target_as_text():
    d = SolveConfig.from_dict({**BASE, "target": {"measure": "accuracy", "at_least": 0.75}}).to_dict()
    assert d["format"] == FORMAT and d["target"] == "accuracy>=0.75"
    json.dumps(d)


def test_dcr_records_is_a_compare_setting_of_at_least_ten():
    with pytest.raises(ValueError, match="settings.dcr_records must be at least 10"):
        SolveConfig.from_dict({**BASE, "page": "compare", "target": "utility>=0.7", "methods": ["kRR"],
                               "settings": {"dcr_records": 5}})
    with pytest.raises(ValueError, match="unknown key"):
        SolveConfig.from_dict({**BASE, "settings": {"dcr_records": 50}})  # not a CDP-LR setting
