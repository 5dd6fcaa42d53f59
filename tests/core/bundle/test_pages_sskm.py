"""The SSKM_DP page in a bundle: the release beside the raw table and a random release, the map,
the curve, the baselines and the sweep, and SSKM_DP's table as its release."""
from __future__ import annotations

import io
import json
import zipfile

import pytest

from core.bundle.build import build_bundle
from core.bundle.page_config import PageConfig
from core.bundle.pages import page_module, sskm
from core.data import load_sample
from core.privacy.noise_source import NoiseSource
from core.privacy.schema_builtin import schema_for
from tests.core.bundle.support import assert_reruns

#: the paper mode with few SOM draws (its release has one row per record: a fixed shape)
PAPER = {"mode": "paper", "iterations": 2000, "a_values": [10, 25]}
#: the page's sound mode with two values of a
SOUND = {"a_values": [10, 25]}
#: where a sound-mode release's row count lives (its neurons' noisy counts, rounded)


@pytest.fixture(scope="module")
def census():
    return load_sample("census")


@pytest.fixture(scope="module")
def sound_numbers(census):
    return sskm.numbers(census, schema_for(census), seed=5, settings=SOUND)


def _config(data, settings, seed=5) -> PageConfig:
    return PageConfig(page="sskm", dataset="census", seed=seed, label=data.label, sensitive=tuple(data.sensitive),
                      settings=settings, fingerprint=data.fingerprint())


def test_the_registry_finds_the_module():
    assert page_module("sskm") is sskm


def test_missing_settings_take_the_pages_defaults():
    s = sskm.check_settings({})
    assert (s["epsilon"], s["mode"], s["cs_threshold"], s["rows"], s["cols"], s["mic_rows"]) == (
        1.0, "sound", 0.3, 8, 8, 4000)
    assert s["columns"] is None and s["baselines"] is None and s["sweep"] is False


@pytest.mark.parametrize("settings, error", [
    ({"epsilon": 0}, ValueError), ({"mode": "fast"}, ValueError), ({"rows": 1}, ValueError),
    ({"rows": 21}, ValueError), ({"sigma": "4"}, TypeError), ({"a_values": [7]}, ValueError),
    ({"bounds": [["age", 90, 17]]}, ValueError), ({"map_fit": "reference"}, ValueError),
    ({"sweep_grids": ["5x5"]}, ValueError), ({"columns": "age"}, TypeError), ({"seed": 1}, ValueError),
])
def test_a_wrong_setting_is_refused_in_one_sentence(settings, error):
    with pytest.raises(error):
        sskm.check_settings(settings)


def test_the_page_columns_leave_out_the_label(census):
    columns, sensitive = sskm.page_columns(census, schema_for(census), sskm.check_settings({}))
    assert census.label not in columns and sensitive == ["sex"] and len(columns) == len(census.frame.columns) - 1
    with pytest.raises(ValueError, match="sensitive"):
        sskm.page_columns(census, None, sskm.check_settings({"columns": ["age", "education"]}))


def test_numbers_are_the_same_for_the_same_seed(census, sound_numbers):
    again = sskm.numbers(census, schema_for(census), seed=5, settings=SOUND)
    assert json.dumps(again) == json.dumps(sound_numbers)


def test_the_release_stands_beside_the_raw_table_and_a_random_one(sound_numbers):
    release = sound_numbers["release"]
    names = [r["reference"] for r in release["references (raw table, random release)"]]
    assert names == ["raw table (no protection)", "random release (no information)"]
    raw, rand = release["references (raw table, random release)"]
    assert raw["mse_mean"] == 0 <= release["MSE"] < rand["mse_mean"]
    assert release["guarantee"]["differentially private"] is True and release["guarantee"]["epsilon"] == 1.0
    assert sum(n["rows released"] for n in release["per neuron"]) == release["rows released"]


def test_the_map_curve_and_baselines_are_there(sound_numbers):
    assert sound_numbers["map"]["neurons"] == 64 and sound_numbers["map"]["MIC connections"]["rows used"] == 3000
    curve = sound_numbers["MSE and linkage vs epsilon (5 noise draws each)"]
    assert [p["epsilon"] for p in curve] == list(sskm.EPSILONS)
    base = sound_numbers["baselines (Fig. 7)"]
    assert {r["method"] for r in base["rows"]} == {"MDAV", "MDAV_DP", "IDP-KMeans", "SSKM_DP"}
    assert base["claim"]["figure"].endswith("Fig. 7") and base["random release's MSE"] > 0
    assert "across a and m (Fig. 5-6)" not in sound_numbers


def test_the_sweep_runs_when_asked(census):
    out = sskm.numbers(census, schema_for(census), seed=5, settings={
        "baselines": False, "sweep": True, "sweep_grids": ["3x3"], "sweep_repetitions": 1, "sweep_m": [2]})
    sweep = out["across a and m (Fig. 5-6)"]
    assert {r["epsilon"] for r in sweep["summary"]} == {0.05, 0.1, 1.0, 5.0}
    assert [c["figure"][-6:] for c in sweep["claims"]] == ["Fig. 5", "Fig. 6"]
    assert "baselines (Fig. 7)" not in out


@pytest.mark.parametrize("mode, dp", [("sound", True), ("paper", False)])
def test_the_release_has_the_pages_columns_and_guarantee(census, mode, dp):
    (release,) = sskm.releases(census, schema_for(census), noise=NoiseSource(None),
                               settings={"mode": mode, "iterations": 2000})
    assert release.name == "sskm_dp_release" and release.ledger.is_dp is dp
    assert list(release.frame.columns) == [c for c in census.frame.columns if c != census.label]
    if dp:
        assert release.ledger.total()[0] == pytest.approx(1.0)


def test_a_paper_mode_bundle_reruns_exactly(census, tmp_path):
    result = assert_reruns(build_bundle(_config(census, PAPER), census).data, tmp_path)
    assert result["releases"][0]["rows"] == 3000 and result["numbers"]["mode"] == "paper"


def test_a_sound_mode_bundle_reruns_every_number_and_the_releases_guarantee(census, tmp_path):
    result = assert_reruns(build_bundle(_config(census, SOUND), census).data, tmp_path)
    release = result["releases"][0]
    assert release["is_dp"] is True and release["epsilon"] == 1.0
    assert release["rows"] is None and release["rows_drawn"] and release["any_rows"]  # a noisy count


def test_a_bundle_to_publish_holds_no_seed_and_no_statistic(census, sound_numbers):
    bundle = build_bundle(_config(census, SOUND), census, kind="publish")
    with zipfile.ZipFile(io.BytesIO(bundle.data)) as archive:
        files = {n: archive.read(n) for n in archive.namelist()}
    config, result = json.loads(files["config.json"]), json.loads(files["result.json"])
    assert config["seed"] is None and config["fingerprint"] is None and "numbers" not in result
    (sidecar,) = [json.loads(v) for k, v in files.items() if k.startswith("releases/") and k.endswith(".json")]
    assert sidecar["is_dp"] is True and sidecar["private"] is True and "fresh" in sidecar["noise"]
    exact = [f"{sound_numbers['release']['MSE']:.6f}", f"{sound_numbers['map']['quantization error']:.6f}"]
    assert not any(x.encode() in v for x in exact for v in files.values())
    assert bundle.ledger.is_dp


def test_describe_is_one_sentence():
    text = sskm.describe({"sweep": True})
    assert "Fig. 5-6" in text and text.replace("Fig. ", "Fig ").count(". ") == 0 and text.endswith(".")
