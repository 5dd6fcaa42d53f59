"""The Tour in a bundle: each story's numbers beside their references, seeded as the Tour runs them."""
from __future__ import annotations

import inspect
import json
import math

import pandas as pd
import pytest

from core.bundle.build import build_bundle
from core.bundle.pages import page_module, tour
from core.data import load_sample
from core.papers.stories import STORIES, CompareStory
from core.privacy.noise_source import NoiseSource
from core.privacy.schema_builtin import schema_for
from tests.core.bundle.support import assert_reruns

CDP = {"epsilons": [1.0], "repetitions": 2, "audit_runs": 20}
SSKM = {"epsilons": [1.0], "grids": [[3, 3]], "sound_runs": 20, "paper_runs": 20}
IMPOSTER = {"epochs": 2, "audit_runs": 20}
SMALL = {"stories": ["cdp"], "cdp": CDP}


@pytest.fixture(scope="module")
def census():
    return tour.tour_dataset()


@pytest.fixture(scope="module")
def small_numbers(census):
    settings = {"stories": ["sskm", "imposter", "cdp"], "cdp": CDP, "sskm": SSKM, "imposter": IMPOSTER}
    return tour.numbers(census, schema_for(census), seed=0, settings=settings)


def test_the_registry_finds_the_module():
    assert page_module("tour") is tour


def test_missing_settings_take_the_stories_own_defaults_the_tour_runs():
    filled = tour.check_settings({})
    assert filled["stories"] == ["cdp", "imposter", "sskm", "compare"]
    for key, (fn, _) in STORIES.items():
        params = inspect.signature(fn).parameters
        for name, value in filled[key].items():
            default = params[name].default
            assert (list(map(list, default)) if name == "grids" else
                    list(default) if isinstance(default, tuple) else default) == value, (key, name)


@pytest.mark.parametrize("settings, error", [
    ({"stories": []}, ValueError), ({"stories": ["nope"]}, ValueError), ({"stories": "cdp"}, TypeError),
    ({"cdp": {"repetitions": 0}}, ValueError), ({"cdp": {"audit_runs": 10}}, ValueError),
    ({"cdp": {"epsilons": [0.0]}}, ValueError), ({"cdp": {"epsilons": 1.0}}, TypeError),
    ({"cdp": {"lr": 0.1}}, ValueError), ({"imposter": {"classifier": 3}}, TypeError),
    ({"sskm": {"grids": [[4]]}}, TypeError), ({"seed": 3}, ValueError),
])
def test_a_wrong_setting_is_refused_in_one_sentence(settings, error):
    with pytest.raises(error):
        tour.check_settings(settings)


def test_stories_come_in_the_tours_order(small_numbers):
    assert list(small_numbers["stories"]) == ["cdp", "imposter", "sskm"]
    assert {k: v["sample"] for k, v in small_numbers["stories"].items()} == {
        "cdp": "supplier", "imposter": "census", "sskm": "census"}


def test_numbers_are_the_same_for_the_same_seed(census):
    settings = {"stories": ["cdp"], "cdp": CDP}
    first = tour.numbers(census, schema_for(census), seed=4, settings=settings)
    again = tour.numbers(census, schema_for(census), seed=4, settings=settings)
    assert json.dumps(first) == json.dumps(again)


def test_they_are_the_page_s_story_run_with_the_seed(census, small_numbers):
    result = tour.run_story("cdp", seed=0, options=tour.check_settings({"cdp": CDP})["cdp"])
    assert json.dumps(tour.tour_numbers({"cdp": result})["stories"]["cdp"]) == json.dumps(
        small_numbers["stories"]["cdp"])


def test_cdp_sensitivities_and_accuracies_stand_beside_their_references(small_numbers):
    cdp = small_numbers["stories"]["cdp"]
    assert cdp["sensitivity"]["independent records (ordinary DP)"] == 1.0
    assert cdp["sensitivity"]["Proposed"] <= cdp["sensitivity"]["Group"]
    assert [r["name"] for r in cdp["references"]] == ["majority class (constant guess)", "non-private model"]
    assert {r["scheme"] for r in cdp["fig4 curve"]} == {"Group", "Zhang", "Proposed", "Non-private"}
    assert cdp["claim"]["figure"] == "Paper 000, Fig. 4" and cdp["audit"]["runs"] == 20
    assert "seconds" not in cdp["audit"] and cdp["audit"]["verdict"]


def test_imposter_attacker_and_table_1_stand_beside_the_constant_guess(small_numbers):
    imp = small_numbers["stories"]["imposter"]
    assert 0 < imp["majority share (constant guess)"] <= 1 and imp["implicit attributes"]
    row = imp["table 1"][0]
    assert row["classifier"] == "LR" and {"A sensitive accuracy", "B label accuracy"} <= set(row)
    assert "label_majority_real" in imp["table 1 references"] and imp["krr audit"]["claimed_epsilon"] == 1.0


def test_sskm_mse_stands_beside_the_raw_table_and_a_random_release(small_numbers):
    sskm = small_numbers["stories"]["sskm"]
    assert sskm["references"]["raw table MSE (loses nothing, protects nothing)"] == 0.0
    assert sskm["references"]["random release MSE (keeps no information)"] > 0
    assert set(sskm["audits"]) == {"sound", "paper"} and sskm["MSE by epsilon (mean over the maps)"][0]["epsilon"] == 1


def test_the_comparison_keeps_its_references_and_drops_wall_times():
    summary = pd.DataFrame({"method": ["Raw table", "kRR"], "epsilon": [math.nan, 1.0], "utility_mean": [0.9, 0.8],
                            "audit_seconds": [math.nan, 3.2]})
    story = CompareStory(summary=summary, front=summary.iloc[:1], takeaway="t", dp={"Raw table": False, "kRR": True},
                         epsilons=(1.0,), label="income", sensitive="sex", extra={"rows": 300},
                         references={"utility": {"majority": 0.7, "nonprivate": 0.9}})
    out = tour.story_numbers("compare", story)
    assert out["summary"][1] == {"method": "kRR", "epsilon": 1.0, "utility_mean": 0.8}
    assert math.isnan(out["summary"][0]["epsilon"]) and len(out["pareto front"]) == 1
    assert out["references"]["utility"] == {"majority": 0.7, "nonprivate": 0.9} and out["rows"] == 300


def test_another_dataset_is_refused(census):
    supplier = load_sample("supplier")
    with pytest.raises(ValueError, match="built-in samples"):
        tour.numbers(supplier, schema_for(supplier), seed=0, settings={"stories": ["cdp"], "cdp": CDP})


def test_the_tour_releases_no_table(census):
    assert tour.releases(census, schema_for(census), noise=NoiseSource(None), settings={}) == []


def test_a_bundle_of_it_reruns_exactly(census, tmp_path):
    bundle = build_bundle(tour.tour_config(seed=0, settings=SMALL), census)
    result = assert_reruns(bundle.data, tmp_path)
    assert result["releases"] == [] and list(result["numbers"]["stories"]) == ["cdp"]
    config = json.loads((tmp_path / "config.json").read_text())
    assert config["page"] == "tour" and config["dataset"] == "census" and config["seed"] == 0


def test_a_bundle_to_publish_is_refused_it_has_nothing_to_publish(census):
    with pytest.raises(ValueError, match="nothing to publish"):
        build_bundle(tour.tour_config(seed=0, settings=SMALL), census, kind="publish")


def test_describe_is_one_sentence():
    text = tour.describe({"stories": ["cdp"]})
    assert text.count(". ") == 0 and text.endswith(".") and "Paper 000" in text
