"""The IMPOSTER page in a bundle: detection, the training, Table 1, the fidelity and kRR, and the
synthetic table as its release (not DP)."""
from __future__ import annotations

import io
import json
import zipfile

import pytest

from core.bundle.build import build_bundle
from core.bundle.page_config import PageConfig
from core.bundle.pages import imposter, page_module
from core.data import load_sample
from core.privacy.noise_source import NoiseSource
from core.privacy.schema_builtin import schema_for
from tests.core.bundle.support import assert_reruns

#: a few iterations, one fast classifier (seconds)
SMALL = {"epochs": 2, "classifiers": ["lr"], "krr_classifier": "lr"}


@pytest.fixture(scope="module")
def census():
    return load_sample("census")


@pytest.fixture(scope="module")
def small_numbers(census):
    return imposter.numbers(census, schema_for(census), seed=5, settings=SMALL)


def _config(data, settings=SMALL, seed=5) -> PageConfig:
    return PageConfig(page="imposter", dataset="census", seed=seed, label=data.label,
                      sensitive=tuple(data.sensitive), settings=settings, fingerprint=data.fingerprint())


def _files(data: bytes) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return {n: archive.read(n) for n in archive.namelist()}


def test_the_registry_finds_the_module():
    assert page_module("imposter") is imposter


def test_missing_settings_take_the_pages_defaults():
    s = imposter.check_settings({})
    assert (s["theta"], s["beta"], s["detection_classifier"], s["rule"], s["lambda"], s["latent"]) == (
        0.01, 0.7, "lr", "default", 1.0, 32)
    assert s["classifiers"] == ["xgboost", "gbdt", "rf", "mlp", "lr"] and s["krr_classifier"] == "gbdt"
    assert s["implicit"] is None and s["thetas"] is None and s["lambdas"] is None


@pytest.mark.parametrize("settings, error", [
    ({"theta": 1.5}, ValueError), ({"beta": "high"}, TypeError), ({"classifiers": []}, ValueError),
    ({"classifiers": ["svm"]}, ValueError), ({"latent": 12}, ValueError), ({"epochs": 0}, ValueError),
    ({"epochs": 2.5}, TypeError), ({"implicit": "age"}, TypeError), ({"thetas": []}, ValueError),
    ({"lambda": -1}, ValueError), ({"seed": 3}, ValueError),
])
def test_a_wrong_setting_is_refused_in_one_sentence(settings, error):
    with pytest.raises(error):
        imposter.check_settings(settings)


def test_the_epochs_and_batch_follow_the_tables_size():
    s = imposter.check_settings({})
    assert imposter.training_params(s, 3000)["epochs"] == 100 and imposter.training_params(s, 9000)["epochs"] == 15
    assert imposter.training_params(s, 3000)["batch_size"] == 500
    assert imposter.training_params(s, 500)["batch_size"] == 125


def test_numbers_are_the_same_for_the_same_seed(census, small_numbers):
    again = imposter.numbers(census, schema_for(census), seed=5, settings=SMALL)
    assert json.dumps(again) == json.dumps(small_numbers)


def test_detection_stands_beside_the_constant_guess(small_numbers):
    det = small_numbers["detection (Fig. 6)"]
    assert 0.5 < det["majority share of s (the constant guess)"] < 1
    flagged = [a for a in det["attributes"] if a["flagged"]]
    assert [a["attribute"] for a in flagged] == det["default rule's verdict"] and flagged
    assert all(a["gain_lo"] > 0 and a["majority_accuracy"] == det["majority share of s (the constant guess)"]
               for a in flagged)
    assert det["claim"]["figure"] == "Paper 002, Fig. 6" and det["claim"]["verdict"]


def test_the_training_protects_the_verdict_and_is_not_dp(small_numbers):
    training = small_numbers["training"]
    assert training["protected attributes"] == small_numbers["detection (Fig. 6)"]["default rule's verdict"]
    assert training["iterations"] == 12 and training["synthetic rows"] == small_numbers["rows"] == 3000
    assert "seconds" not in training["last iteration"] and training["D2 chance level"] == 0.5
    assert training["guarantee"]["differentially private"] is False


def test_table1_and_fig7_stand_beside_their_references(small_numbers):
    table = small_numbers["settings A and B (Table 1)"]
    assert [r["classifier"] for r in table["classifiers"]] == ["LR"] and "LR" in table["paper (Adult, accuracy and F1)"]
    refs = table["references (constant guesses, test rows)"]
    assert {"majority_real", "majority_synthetic", "label_majority_real"} <= set(refs)
    assert table["claim"]["figure"] == "Paper 002, Table 1"
    krr = small_numbers["kRR against IMPOSTER (Fig. 7)"]
    assert [r["epsilon"] for r in krr["kRR runs"]] == [1.0, 2.0, 3.0, 5.0, 7.0, 10.0, 20.0, 50.0, 100.0]
    assert len(krr["IMPOSTER (setting B): s accuracy, label accuracy"]) == 2
    assert krr["kRR's guarantee at epsilon 1"]["differentially private"] is False
    tv = small_numbers["marginal fidelity (real vs synthetic)"]
    assert 0 <= tv["one-way TV (marginals)"] <= 1 and set(tv["per column"]) == set(small_numbers["columns"])


def test_a_given_protected_set_replaces_the_verdict(census):
    out = imposter.numbers(census, schema_for(census), seed=5, settings={**SMALL, "implicit": ["relationship"]})
    assert out["training"]["protected attributes"] == ["relationship"]


def test_nothing_to_protect_is_said_in_one_sentence(census):
    with pytest.raises(ValueError, match="nothing to remove"):
        imposter.numbers(census, schema_for(census), seed=5, settings={**SMALL, "beta": 1.0, "rule": "paper"})


def test_the_release_is_the_synthetic_table_and_says_it_is_not_dp(census):
    (release,) = imposter.releases(census, schema_for(census), noise=NoiseSource(None), settings=SMALL)
    assert release.name == "imposter_synthetic" and not release.ledger.is_dp
    assert release.frame.shape == census.frame.shape and list(release.frame.columns) == list(census.frame.columns)


def test_a_bundle_of_it_reruns_exactly_in_another_process_with_one_thread(census, tmp_path):
    """The bundle's numbers, computed here (the machine's default threads), come again from its
    script in a fresh interpreter with one BLAS/OpenMP thread: the same model, the same tables."""
    result = assert_reruns(build_bundle(_config(census), census).data, tmp_path, threads=1)
    assert result["numbers"]["training"]["iterations"] == 12
    assert result["releases"][0]["is_dp"] is False and result["releases"][0]["rows"] == 3000


def test_a_bundle_to_publish_holds_no_seed_and_no_statistic(census, small_numbers):
    implicit = [a["attribute"] for a in small_numbers["detection (Fig. 6)"]["attributes"]][:1]
    config = _config(census)
    config = PageConfig.from_dict({**config.to_dict(), "settings": {**config.settings, "implicit": implicit}})
    bundle = build_bundle(config, census, kind="publish")
    files = _files(bundle.data)
    config, result = json.loads(files["config.json"]), json.loads(files["result.json"])
    assert config["seed"] is None and config["fingerprint"] is None
    assert "numbers" not in result and [r["name"] for r in result["releases"]] == ["imposter_synthetic"]
    (sidecar,) = [json.loads(v) for k, v in files.items() if k.startswith("releases/") and k.endswith(".json")]
    assert sidecar["is_dp"] is False and sidecar["private"] is True and "fresh" in sidecar["noise"]
    assert not any("seed" in k for k in config["settings"])
    assert config["settings"]["implicit"] is None  # the detected attributes are read off the rows
    exact = [f"{small_numbers['detection (Fig. 6)']['attributes'][0]['nmi']:.6f}",
             f"{small_numbers['settings A and B (Table 1)']['classifiers'][0]['A sensitive accuracy']:.6f}"]
    assert not any(x.encode() in v for x in exact for v in files.values())  # no exact statistic, in any file
    assert not any(k.startswith("data/") for k in files)


def test_describe_is_one_sentence():
    text = imposter.describe({"thetas": [0.01]})
    assert "Table 2" in text and text.count(". ") == 0 and text.endswith(".")


def test_the_bundle_samples_the_rows_the_page_samples():
    """The page's Table 1 and kRR curve moved to 10,000 rows (the real-table sweep); the
    bundle's rerun must sample the same rows to give the page's numbers on a table as large as Adult."""
    import inspect

    import dashboard.imposter.cached as page
    from core.bundle.pages import imposter as bundle
    from core.imposter.evaluation import EVALUATION_ROWS

    assert bundle.MAX_ROWS == EVALUATION_ROWS
    assert inspect.getsource(page).count("max_rows=EVALUATION_ROWS") == 2
