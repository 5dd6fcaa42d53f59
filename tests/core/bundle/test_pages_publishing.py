"""The Publishing page in a bundle: the MAE curves with their references and claims, the
reading at epsilon, the sensitivities and the guarantee, rerun exactly by the bundle's script."""
from __future__ import annotations

import json

import pandas as pd
import pytest

from core.bundle.build import build_bundle
from core.bundle.page_config import PageConfig
from core.bundle.pages import page_module, publishing
from core.data import load_sample
from core.decide.pages import publishing_data, publishing_runs, scheme_runs
from core.privacy.noise_source import NoiseSource
from core.privacy.schema_builtin import schema_for
from tests.core.bundle.support import assert_reruns

SMALL = {"n_queries": 20, "repetitions": 2, "epsilons": [0.5, 1.0]}


@pytest.fixture(scope="module")
def supplier():
    return load_sample("supplier")


@pytest.fixture(scope="module")
def small_numbers(supplier):
    return publishing.numbers(supplier, schema_for(supplier), seed=4, settings=SMALL)


def _config(data, settings=SMALL, seed=4) -> PageConfig:
    return PageConfig(page="publishing", dataset="supplier", seed=seed, label=data.label,
                      sensitive=tuple(data.sensitive), settings=settings, fingerprint=data.fingerprint())


def _curve(numbers, scheme: str) -> dict:
    return {r["epsilon"]: r["mae_mean"] for r in numbers["MAE vs epsilon (Fig. 6)"] if r["scheme"] == scheme}


def test_the_registry_finds_the_module():
    assert page_module("publishing") is publishing


def test_missing_settings_take_the_pages_defaults():
    assert publishing.check_settings({}) == {
        "epsilon": 1.0, "scheme": "DP reading", "measure": "pearson", "threshold": 0.8, "n_queries": 200,
        "repetitions": 10, "budget": "per_query", "use_products": True, "fig7_compare": False,
        "epsilons": [0.1, 0.25, 0.5, 1.0, 2.0, 4.0, 6.0, 8.0, 10.0], "epsilon_choice": None}


@pytest.mark.parametrize("settings, error", [
    ({"epsilon": -1.0}, ValueError), ({"scheme": "Laplace"}, ValueError), ({"measure": "spearman"}, ValueError),
    ({"threshold": 2}, ValueError), ({"n_queries": 0}, ValueError), ({"repetitions": "3"}, TypeError),
    ({"budget": "each"}, ValueError), ({"use_products": "yes"}, TypeError), ({"epsilons": [1, 1]}, ValueError),
    ({"queries": 20}, ValueError),
])
def test_a_wrong_setting_is_refused_in_one_sentence(settings, error):
    with pytest.raises(error):
        publishing.check_settings(settings)


def test_numbers_are_the_same_for_the_same_seed(supplier, small_numbers):
    again = publishing.numbers(supplier, schema_for(supplier), seed=4, settings=SMALL)
    assert json.dumps(again) == json.dumps(small_numbers)


def test_the_curve_runs_are_the_ones_pux_solve_reads(supplier):
    s = publishing.check_settings({**SMALL, "measure": "both"})
    found = publishing.setups(publishing_data(supplier, True, 4), schema_for(supplier), s,
                              ["pearson", "mahalanobis"], seed=4)
    runs = scheme_runs(publishing.mae_runs(found, s, seed=4)[1])
    expected = publishing_runs(supplier, schema_for(supplier), epsilons=s["epsilons"], repetitions=2, seed=4,
                               measures=("pearson", "mahalanobis"), n_queries=20)
    pd.testing.assert_frame_equal(runs, expected)


def test_the_reading_is_the_curves_point_beside_its_references(small_numbers):
    reading, refs = small_numbers["reading"], small_numbers["references"]
    assert reading["scheme"] == "DP reading" and reading["MAE at epsilon"] == _curve(small_numbers, "DP reading")[1.0]
    assert reading["mean true count"] == refs["mean true count"] > 0 and reading["queries"] == 20
    assert reading["MAE share of the mean true count"] == reading["MAE at epsilon"] / reading["mean true count"]
    assert reading["zero-noise release MAE"] == 0.0  # the DP reading keeps every attribute
    over = {r["scheme"] for r in reading["MAE at least the mean true count"]}
    assert all(_curve(small_numbers, s)[1.0] >= refs["mean true count"] for s in over)


def test_the_guarantee_counts_every_query_or_shares_epsilon(supplier, small_numbers):
    per_query = small_numbers["reading"]["guarantee of one release"]
    assert per_query["differentially private"] and per_query["epsilon"] == pytest.approx(20.0)
    total = publishing.numbers(supplier, schema_for(supplier), seed=4, settings={**SMALL, "budget": "total"})
    shared = total["reading"]["guarantee of one release"]
    assert shared["epsilon"] == pytest.approx(1.0) and shared["epsilon per query"] == pytest.approx(1.0 / 20)


def test_a_papers_scheme_is_nominal_and_read_on_its_measure(supplier):
    out = publishing.numbers(supplier, schema_for(supplier), seed=4,
                             settings={**SMALL, "measure": "both", "scheme": "Proposed"})
    reading = out["reading"]
    assert reading["measure"] == "pearson"
    assert reading["MAE at epsilon"] == _curve(out, "Proposed (pearson)")[1.0]
    assert not reading["guarantee of one release"]["differentially private"]
    assert reading["guarantee of one release"]["nominal epsilon"] == pytest.approx(20.0)


def test_sensitivities_name_the_declared_bound_and_each_measure(supplier, small_numbers):
    rows = {r["scheme"]: r for r in small_numbers["sensitivities"]}
    assert rows["DP reading"]["sensitivity"] == 45.0 and rows["DP reading"]["differentially private"]
    assert not rows["Proposed"]["differentially private"]
    both = publishing.numbers(supplier, schema_for(supplier), seed=4, settings={**SMALL, "measure": "both"})
    names = [r["scheme"] for r in both["sensitivities"]]
    assert names.count("Group") == 1 and "Proposed (mahalanobis)" in names


def test_fig8_is_judged_only_with_both_measures_and_fig7_on_request(supplier, small_numbers):
    verdicts = {c["figure"]: c["holds"] for c in small_numbers["claims"]}
    assert verdicts["Paper 000, Fig. 8"] is None and verdicts["Paper 000, Fig. 7"] is None
    assert verdicts["Paper 000, Fig. 6"] is not None
    out = publishing.numbers(supplier, schema_for(supplier), seed=4,
                             settings={**SMALL, "measure": "both", "fig7_compare": True})
    verdicts = {c["figure"]: c["holds"] for c in out["claims"]}
    assert verdicts["Paper 000, Fig. 8"] is not None and verdicts["Paper 000, Fig. 7"] is not None
    curves = {r["scheme"] for r in out["with and without the product columns (Fig. 7)"]}
    assert curves == set(publishing.FIG7_NAMES)


def test_a_table_without_a_label_is_refused(supplier):
    with pytest.raises(ValueError, match="label"):
        publishing.numbers(supplier.with_roles(label=None), schema_for(supplier), seed=1, settings=SMALL)


def test_the_page_releases_no_table(supplier):
    assert publishing.releases(supplier, schema_for(supplier), noise=NoiseSource(None), settings={}) == []


def test_a_bundle_of_it_reruns_exactly(supplier, tmp_path):
    settings = {**SMALL, "measure": "both", "scheme": "Zhang", "epsilon": 0.5}
    result = assert_reruns(build_bundle(_config(supplier, settings), supplier).data, tmp_path)
    assert result["releases"] == [] and result["numbers"]["reading"]["scheme"] == "Zhang"


def test_a_bundle_to_publish_is_refused_it_has_nothing_to_publish(supplier):
    with pytest.raises(ValueError, match="nothing to publish"):
        build_bundle(_config(supplier), supplier, kind="publish")


def test_describe_is_one_sentence():
    text = publishing.describe({"budget": "total", "scheme": "Group"})
    assert "for the whole release" in text and "Group" in text and text.endswith(".")
    assert text.replace("Eq. ", "Eq ").count(". ") == 0
