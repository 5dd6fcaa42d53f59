"""The DC-FBFS page in a bundle: the selection at T_c, Fig. 1, Table 2 and the claims."""
from __future__ import annotations

import json

import numpy as np
import pytest

from core.bundle.build import build_bundle
from core.bundle.page_config import PageConfig
from core.bundle.pages import dc_fbfs, page_module
from core.data import load_sample
from core.privacy.noise_source import NoiseSource
from core.privacy.schema_builtin import schema_for
from tests.core.bundle.support import assert_reruns

SMALL = {"max_rows": 300}


@pytest.fixture(scope="module")
def supplier():
    return load_sample("supplier")


@pytest.fixture(scope="module")
def small_numbers(supplier):
    return dc_fbfs.numbers(supplier, schema_for(supplier), seed=5, settings=SMALL)


def _config(data, settings=SMALL, seed=5) -> PageConfig:
    return PageConfig(page="dc_fbfs", dataset="supplier", seed=seed, label=data.label,
                      sensitive=tuple(data.sensitive), settings=settings, fingerprint=data.fingerprint())


def test_the_registry_finds_the_module():
    assert page_module("dc_fbfs") is dc_fbfs


def test_missing_settings_take_the_pages_defaults():
    assert dc_fbfs.check_settings({}) == {"measure": "pearson", "threshold": 0.8, "max_rows": 3000, "tc": None}


@pytest.mark.parametrize("settings, error", [
    ({"measure": "kendall"}, ValueError), ({"threshold": 1.5}, ValueError), ({"max_rows": 2.5}, TypeError),
    ({"tc": -1.0}, ValueError), ({"tc": "40"}, TypeError), ({"T_c": 40}, ValueError),
])
def test_a_wrong_setting_is_refused_in_one_sentence(settings, error):
    with pytest.raises(error):
        dc_fbfs.check_settings(settings)


def test_numbers_are_the_same_for_the_same_seed(supplier, small_numbers):
    again = dc_fbfs.numbers(supplier, schema_for(supplier), seed=5, settings=SMALL)
    assert json.dumps(again) == json.dumps(small_numbers)


def test_rows_are_the_pages_sample_and_tc_starts_where_the_page_does(supplier, small_numbers):
    assert small_numbers["rows in the table"] == supplier.n_rows and small_numbers["rows used"] == 300
    sel = small_numbers["selection"]
    assert sel["T_c"] == min(40.0, sel["largest DC"]) and sel["T_c range"] == max(1.1 * sel["largest DC"], 1.0)


def test_tc_moves_the_deletion_candidates_only(supplier, small_numbers):
    top = dc_fbfs.numbers(supplier, schema_for(supplier), seed=5, settings={**SMALL, "tc": 1e9})
    names = [f["feature"] for f in top["selection"]["features"]]
    assert top["selection"]["sets"]["F_c_del"]["features"] == names
    assert top["selection"]["traversals"] == small_numbers["selection"]["traversals"]


def test_traversals_are_read_against_the_constant_guess(supplier, small_numbers):
    sel = small_numbers["selection"]
    guess = sel["constant guess"]
    assert guess["name"] and guess["low"] <= guess["value"] <= guess["high"] and guess["n"] == 300
    assert len(sel["traversals"]) == len(supplier.features)
    assert sel["accuracy with every feature"] == sel["traversals"][-1]["forward accuracy (top-k)"]


def test_sets_partition_as_algorithm_1_says(small_numbers):
    sets = small_numbers["selection"]["sets"]
    assert set(sets["F_del"]["features"]) == set(sets["F_fb_del"]["features"]) & set(sets["F_c_del"]["features"])
    assert sets["selected"]["n"] + sets["F_del"]["n"] == len(small_numbers["selection"]["features"])


def test_table2_and_fig1_stand_beside_the_papers(small_numbers):
    table2 = small_numbers["sensitivity after each stage (Table 2)"]
    assert table2["ours"][0]["features deleted"] == "none" and all(r["CS"] <= r["GS"] for r in table2["ours"])
    assert [r["features deleted"] for r in next(v for k, v in table2.items() if k.startswith("paper"))] == [
        "none", "F_fb_del", "F_c_del", "F_del"]
    curve = small_numbers["C(x) by number of features (Fig. 1)"]
    assert [p["number of features"] for p in curve] == list(range(1, len(curve) + 1))
    assert np.isnan(curve[0]["C(x)"])  # Pearson across one feature is undefined


def test_every_claim_has_its_verdict(small_numbers):
    figures = [c["figure"] for c in small_numbers["claims"]]
    assert figures == [f"Paper 000, {f}" for f in ("Fig. 1", "Fig. 2", "Fig. 3", "Table 1", "Table 2")]
    assert all(c["verdict"] and c["finding"] for c in small_numbers["claims"])


def test_a_table_without_a_label_is_refused(supplier):
    with pytest.raises(ValueError, match="label"):
        dc_fbfs.numbers(supplier.with_roles(label=None), schema_for(supplier), seed=1, settings=SMALL)


def test_the_page_releases_no_table(supplier):
    assert dc_fbfs.releases(supplier, schema_for(supplier), noise=NoiseSource(None), settings={}) == []


def test_a_bundle_of_it_reruns_exactly(supplier, tmp_path):
    result = assert_reruns(build_bundle(_config(supplier, {**SMALL, "tc": 25.5}), supplier).data, tmp_path)
    assert result["releases"] == [] and result["numbers"]["selection"]["T_c"] == 25.5


def test_a_bundle_to_publish_is_refused_it_has_nothing_to_publish(supplier):
    with pytest.raises(ValueError, match="nothing to publish"):
        build_bundle(_config(supplier), supplier, kind="publish")


def test_describe_is_one_sentence():
    text = dc_fbfs.describe({"tc": 40})
    assert "T_c = 40" in text and text.count(". ") == 0 and text.endswith(".")
