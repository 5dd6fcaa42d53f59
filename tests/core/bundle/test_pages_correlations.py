"""The Correlations page in a bundle: association, the record heatmap's sample, CS against GS."""
from __future__ import annotations

import json

import pytest

from core.bundle.build import build_bundle
from core.bundle.page_config import PageConfig
from core.bundle.pages import correlations, page_module
from core.cdp.sensitivity import record_matrix
from core.correlation import correlated_sensitivity
from core.data import load_sample
from core.privacy.noise_source import NoiseSource
from core.privacy.schema_builtin import schema_for
from tests.core.bundle.support import assert_reruns

SMALL = {"heatmap_records": 50, "threshold": 0.7}


@pytest.fixture(scope="module")
def supplier():
    return load_sample("supplier")


@pytest.fixture(scope="module")
def small_numbers(supplier):
    return correlations.numbers(supplier, schema_for(supplier), seed=5, settings=SMALL)


def _config(data, settings=SMALL, seed=5) -> PageConfig:
    return PageConfig(page="correlations", dataset="supplier", seed=seed, label=data.label,
                      sensitive=tuple(data.sensitive), settings=settings, fingerprint=data.fingerprint())


def test_the_registry_finds_the_module():
    assert page_module("correlations") is correlations


def test_missing_settings_take_the_pages_defaults():
    assert correlations.check_settings({}) == {"association": "pearson", "mic_rows": 1000, "measure": "pearson",
                                               "threshold": 0.8, "heatmap_records": 200}


@pytest.mark.parametrize("settings, error", [
    ({"association": "spearman"}, ValueError), ({"measure": 3}, TypeError), ({"threshold": 0.0}, ValueError),
    ({"threshold": "0.8"}, TypeError), ({"heatmap_records": 1}, ValueError), ({"delta": 0.8}, ValueError),
])
def test_a_wrong_setting_is_refused_in_one_sentence(settings, error):
    with pytest.raises(error):
        correlations.check_settings(settings)


def test_numbers_are_the_same_for_the_same_seed(supplier, small_numbers):
    again = correlations.numbers(supplier, schema_for(supplier), seed=5, settings=SMALL)
    assert json.dumps(again) == json.dumps(small_numbers)


def test_another_seed_draws_other_heatmap_records(supplier, small_numbers):
    other = correlations.numbers(supplier, schema_for(supplier), seed=6, settings=SMALL)
    assert other["record heatmap"]["rows"] != small_numbers["record heatmap"]["rows"]
    assert other["sensitivity"] == small_numbers["sensitivity"]  # over every record: no seed


def test_sensitivity_is_cs_and_gs_over_every_record_beside_their_references(supplier, small_numbers):
    sens = small_numbers["sensitivity"]
    rep = correlated_sensitivity(record_matrix(supplier).X, measure="pearson", threshold=0.7)
    assert sens["correlated sensitivity CS"] == rep.correlated and sens["group sensitivity GS"] == rep.group
    assert sens["N"] == supplier.n_rows and sens["CS share of N"] == rep.correlated / supplier.n_rows
    assert sens["CS below GS"] and sens["independent records (the sensitivity of a count without correlation)"] == 1


def test_association_lists_every_pair_with_its_scale(supplier, small_numbers):
    assoc = small_numbers["association"]
    p = len(supplier.features)
    assert len(assoc["cells"]) == p * p and assoc["reference"].startswith("0:")
    assert all(c["association"] == pytest.approx(1.0) for c in assoc["cells"] if c["attribute"] == c["other attribute"])


def test_heatmap_holds_its_records_and_the_correlated_pairs(small_numbers):
    heat = small_numbers["record heatmap"]
    assert heat["records"] == len(heat["rows"]) == 50 and heat["pairs"] == 50 * 49 // 2
    assert heat["correlated pairs"] == len(heat["cells"])
    assert all(c["record"] < c["other record"] and c["correlation (delta)"] >= 0.7 for c in heat["cells"])


def test_the_page_releases_no_table(supplier):
    assert correlations.releases(supplier, schema_for(supplier), noise=NoiseSource(None), settings={}) == []


def test_a_bundle_of_it_reruns_exactly(supplier, tmp_path):
    result = assert_reruns(build_bundle(_config(supplier), supplier).data, tmp_path)
    assert result["releases"] == [] and result["numbers"]["delta0"] == 0.7


def test_a_bundle_to_publish_is_refused_it_has_nothing_to_publish(supplier):
    with pytest.raises(ValueError, match="nothing to publish"):
        build_bundle(_config(supplier), supplier, kind="publish")


def test_describe_is_one_sentence():
    text = correlations.describe({})
    assert text.count(". ") == 0 and text.endswith(".")
