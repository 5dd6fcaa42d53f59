"""The CDP-LR page in a bundle: the bars at the slider's epsilon, the references, the
guarantees, Fig. 4 (and DP-SGD, Fig. 5 on request), rerun exactly by the bundle's script."""
from __future__ import annotations

import json

import pytest

from core.bundle.build import build_bundle
from core.bundle.page_config import PageConfig
from core.bundle.pages import cdp_lr, page_module
from core.data import load_sample
from core.decide.pages import cdp_lr_runs
from core.privacy.noise_source import NoiseSource
from core.privacy.schema_builtin import schema_for
from core.runtime.experiments import summarize
from tests.core.bundle.support import assert_reruns

SMALL = {"max_rows": 300, "repetitions": 2, "epsilons": [0.5, 2.0]}


@pytest.fixture(scope="module")
def supplier():
    return load_sample("supplier")


@pytest.fixture(scope="module")
def small_numbers(supplier):
    return cdp_lr.numbers(supplier, schema_for(supplier), seed=3, settings=SMALL)


def _config(data, settings=SMALL, seed=3) -> PageConfig:
    return PageConfig(page="cdp_lr", dataset="supplier", seed=seed, label=data.label,
                      sensitive=tuple(data.sensitive), settings=settings, fingerprint=data.fingerprint())


def _by_scheme(numbers) -> dict:
    return {r["scheme"]: r for r in numbers["at the slider's epsilon"]["schemes"]}


def test_the_registry_finds_the_module():
    assert page_module("cdp_lr") is cdp_lr


def test_missing_settings_take_the_pages_defaults():
    assert cdp_lr.check_settings({}) == {
        "epsilon": 2.0, "noise_method": 1, "preset": "sensible", "measure": "pearson", "threshold": 0.8,
        "tc": 40.0, "max_rows": 5000, "repetitions": 5, "dpsgd": False, "noise_methods": False,
        "epsilons": [0.1, 0.2, 0.3, 0.5, 1.0, 2.0, 3.0, 5.0, 7.0, 10.0], "epsilon_choice": None}


@pytest.mark.parametrize("settings, error", [
    ({"epsilon": 0}, ValueError), ({"epsilon": "2"}, TypeError), ({"noise_method": 9}, ValueError),
    ({"noise_method": "1"}, TypeError), ({"preset": "fast"}, ValueError), ({"measure": "kendall"}, ValueError),
    ({"threshold": 0.0}, ValueError), ({"tc": -1}, ValueError), ({"max_rows": 10}, ValueError),
    ({"repetitions": 1.5}, TypeError), ({"dpsgd": 1}, TypeError), ({"epsilons": []}, ValueError),
    ({"eps": 2.0}, ValueError),
])
def test_a_wrong_setting_is_refused_in_one_sentence(settings, error):
    with pytest.raises(error):
        cdp_lr.check_settings(settings)


def test_numbers_are_the_same_for_the_same_seed(supplier, small_numbers):
    again = cdp_lr.numbers(supplier, schema_for(supplier), seed=3, settings=SMALL)
    assert json.dumps(again) == json.dumps(small_numbers)


def test_rows_are_the_pages_sample_split_80_20(supplier, small_numbers):
    assert small_numbers["rows in the table"] == supplier.n_rows and small_numbers["rows used"] == 300
    assert (small_numbers["training rows"], small_numbers["test rows"]) == (240, 60)


def test_every_accuracy_stands_beside_the_constant_guess_and_the_non_private_model(small_numbers):
    live = small_numbers["at the slider's epsilon"]
    guess, model = live["references"]
    assert guess["name"].startswith("majority class") and model["name"] == "non-private model"
    assert guess["low"] <= guess["value"] <= guess["high"] and guess["n"] == 60
    schemes = _by_scheme(small_numbers)
    assert list(schemes) == ["Non-private", "Group", "Zhang", "Proposed", "DP reading"]
    assert model["value"] == schemes["Non-private"]["mean accuracy"]
    for row in schemes.values():
        assert row["vs the constant guess"] in ("no better", "within its interval", "above")
        assert len(row["runs"]) == 2 and row["mean accuracy"] == pytest.approx(sum(row["runs"]) / 2, abs=1e-15)


def test_the_bars_are_the_curves_point_at_a_grid_epsilon(small_numbers):
    curve = {r["scheme"]: r["accuracy_mean"] for r in small_numbers["accuracy vs epsilon (Fig. 4)"]
             if r["epsilon"] == 2.0}
    assert curve == {k: r["mean accuracy"] for k, r in _by_scheme(small_numbers).items()}


def test_the_curve_is_the_runs_pux_solve_reads(supplier, small_numbers):
    runs = cdp_lr_runs(supplier, schema_for(supplier), epsilons=SMALL["epsilons"], repetitions=2, seed=3,
                       max_rows=300)
    means = summarize(runs, ["method", "epsilon"], "accuracy")
    expected = {(m, e): v for m, e, v in zip(means["method"], means["epsilon"], means["accuracy_mean"])}
    got = {(r["scheme"], r["epsilon"]): r["accuracy_mean"] for r in small_numbers["accuracy vs epsilon (Fig. 4)"]}
    assert got == expected


def test_the_guarantees_say_proposed_is_nominal_and_the_dp_reading_spends_epsilon(small_numbers):
    guarantees = small_numbers["at the slider's epsilon"]["guarantees"]
    paper, reading = guarantees["Proposed, as in the paper"], guarantees["DP reading"]
    assert not paper["differentially private"] and paper["epsilon"] is None and paper["nominal epsilon"] == 2.0
    assert reading["differentially private"] and reading["epsilon"] == 2.0 and reading["epochs"] >= 1
    dp = _by_scheme(small_numbers)["DP reading"]
    assert dp["sensitivity"] == 45.0 and dp["differentially private"]  # the supplier's declared group bound


def test_fig4_has_its_claim_and_the_toggles_add_dpsgd_and_fig5(supplier, small_numbers):
    assert [c["figure"] for c in small_numbers["claims"]] == ["Paper 000, Fig. 4"]
    more = cdp_lr.numbers(supplier, schema_for(supplier), seed=3,
                          settings={**SMALL, "repetitions": 1, "epsilons": [1.0], "dpsgd": True,
                                    "noise_methods": True})
    assert [c["figure"] for c in more["claims"]] == ["Paper 000, Fig. 4", "Paper 000, Fig. 5"]
    assert {r["scheme"] for r in more["DP-SGD accuracy vs epsilon (ordinary DP, one record)"]} == {
        "DP-SGD (ordinary DP)"}
    assert {r["method"] for r in more["noise methods on Proposed (Fig. 5)"]} == set(range(8))


def test_a_table_without_a_label_is_refused(supplier):
    with pytest.raises(ValueError, match="label"):
        cdp_lr.numbers(supplier.with_roles(label=None), schema_for(supplier), seed=1, settings=SMALL)


def test_the_page_releases_no_table(supplier):
    assert cdp_lr.releases(supplier, schema_for(supplier), noise=NoiseSource(None), settings={}) == []


def test_a_bundle_of_it_reruns_exactly(supplier, tmp_path):
    settings = {**SMALL, "epsilon": 0.7, "noise_method": 7}
    result = assert_reruns(build_bundle(_config(supplier, settings), supplier).data, tmp_path)
    assert result["releases"] == [] and result["numbers"]["at the slider's epsilon"]["epsilon"] == 0.7


def test_a_bundle_to_publish_is_refused_it_has_nothing_to_publish(supplier):
    with pytest.raises(ValueError, match="nothing to publish"):
        build_bundle(_config(supplier), supplier, kind="publish")


def test_describe_is_one_sentence():
    text = cdp_lr.describe({"epsilon": 0.5, "dpsgd": True})
    assert "epsilon = 0.5" in text and "DP-SGD" in text and text.endswith(".")
    assert text.replace("Fig. ", "Fig ").count(". ") == 0


def test_an_epsilon_chosen_on_the_private_rows_leaves_no_guarantee():
    from core.bundle.pages import cdp_lr
    from core.data import load_sample
    from core.privacy.schema_builtin import schema_for

    data = load_sample("supplier")
    base = {"max_rows": 200, "repetitions": 1, "epsilons": [1.0]}
    plain = cdp_lr.numbers(data, schema_for(data), seed=1, settings=cdp_lr.check_settings(base))
    marked = cdp_lr.numbers(data, schema_for(data), seed=1, settings=cdp_lr.check_settings(
        {**base, "epsilon_choice": {"source": "private"}}))
    paid = cdp_lr.numbers(data, schema_for(data), seed=1, settings=cdp_lr.check_settings(
        {**base, "epsilon_choice": {"source": "selection", "cost": [6.0, 0.0]}}))
    key = "DP reading"
    guarantee = {name: tree["at the slider's epsilon"]["guarantees"]
                 for name, tree in (("plain", plain), ("marked", marked), ("paid", paid))}
    assert guarantee["plain"][key]["differentially private"]
    assert not guarantee["marked"][key]["differentially private"]
    assert guarantee["paid"][key]["epsilon"] == pytest.approx(guarantee["plain"][key]["epsilon"] + 6.0)


def test_a_malformed_epsilon_choice_is_refused():
    from core.bundle.pages import cdp_lr

    with pytest.raises(ValueError, match="cost"):
        cdp_lr.check_settings({"epsilon_choice": {"source": "selection"}})
