"""``pux bundle`` and ``pux rerun``: a config to a zip and back, number by number; errors in one sentence."""
from __future__ import annotations

import io
import json
import zipfile

import pytest

from core.compare.config import CompareConfig
from core.data import load_sample
from dashboard import cli


@pytest.fixture
def config_file(tmp_path):
    data = load_sample("supplier")
    config = CompareConfig(dataset="supplier", methods=("Raw table", "kRR"), epsilons=(1.0,), seed=9,
                           max_rows=200, repetitions=1, audit_runs=0, label=data.label,
                           fingerprint=data.fingerprint())
    path = tmp_path / "run.json"
    path.write_text(config.to_json())
    return path


def test_bundle_then_rerun_matches(config_file, tmp_path, capsys):
    out = tmp_path / "out" / "result.zip"
    assert cli.main(["bundle", "--config", str(config_file), "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert f"wrote {out}" in err and "NOT differentially private" in err
    with zipfile.ZipFile(out) as archive:
        assert json.loads(archive.read("config.json"))["seed"] == 9
        assert "Takeaway" in archive.read("report.html").decode()  # Compare's own report
    assert cli.main(["rerun", str(out)]) == 0
    said = capsys.readouterr().out
    assert "numbers match." in said and "MISMATCH" not in said and "x the original run" in said


def test_rerun_of_a_changed_result_exits_1_naming_the_number(config_file, tmp_path, capsys):
    out = tmp_path / "result.zip"
    assert cli.main(["bundle", "--config", str(config_file), "--out", str(out)]) == 0
    changed = io.BytesIO()
    with zipfile.ZipFile(out) as src, zipfile.ZipFile(changed, "w") as dst:
        for name in src.namelist():
            text = src.read(name)
            if name == "result.json":
                tree = json.loads(text)
                tree["numbers"]["parameters"]["seed"] = 10
                text = json.dumps(tree).encode()
            dst.writestr(name, text)
    out.write_bytes(changed.getvalue())
    capsys.readouterr()
    assert cli.main(["rerun", str(out)]) == 1
    assert "MISMATCH numbers.parameters.seed: bundle 10, rerun 9" in capsys.readouterr().out


def test_publishing_a_page_without_tables_is_one_sentence(config_file, tmp_path, capsys):
    assert cli.main(["bundle", "--config", str(config_file), "--out", str(tmp_path / "x.zip"), "--publish"]) == 1
    err = capsys.readouterr().err
    assert "nothing to publish" in err and "Traceback" not in err


def test_a_config_of_a_newer_format_is_refused_with_what_to_do(tmp_path, capsys):
    path = tmp_path / "c.json"
    path.write_text(json.dumps({"format": "pux-page/7", "page": "sskm"}))
    assert cli.main(["bundle", "--config", str(path), "--out", str(tmp_path / "x.zip")]) == 2
    assert "upgrade the project" in capsys.readouterr().err


def test_rerun_of_something_else_exits_2(tmp_path, capsys):
    path = tmp_path / "x.zip"
    path.write_text("not a zip")
    assert cli.main(["rerun", str(path)]) == 2
    assert "not a bundle" in capsys.readouterr().err


def test_the_page_example_bundles_and_reruns(tmp_path, capsys):
    from pathlib import Path

    example = Path(__file__).resolve().parents[1] / "examples" / "page_sskm.json"
    out = tmp_path / "sskm.zip"
    assert cli.main(["bundle", "--config", str(example), "--out", str(out)]) == 0
    with zipfile.ZipFile(out) as archive:
        names = archive.namelist()
        assert json.loads(archive.read("config.json"))["format"] == "pux-page/1"
    assert any(n.startswith("releases/") and n.endswith("-dp-eps1.csv") for n in names)
    assert cli.main(["rerun", str(out)]) == 0
    assert "MISMATCH" not in capsys.readouterr().out
    out2 = tmp_path / "sskm-publish.zip"
    assert cli.main(["bundle", "--config", str(example), "--out", str(out2), "--publish"]) == 0
    with zipfile.ZipFile(out2) as archive:
        config = json.loads(archive.read("config.json"))
        assert config["seed"] is None and "numbers" not in json.loads(archive.read("result.json"))


@pytest.fixture(scope="module")
def bundle_without_data(tmp_path_factory):
    """A bundle of an uploaded table (built here), made without the table."""
    import numpy as np
    import pandas as pd

    folder = tmp_path_factory.mktemp("upload")
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"age": rng.integers(18, 90, 120), "y": rng.choice(["no", "yes"], 120)})
    frame.to_csv(folder / "mine.csv", index=False)
    config = CompareConfig(dataset="csv:mine.csv", methods=("Raw table",), epsilons=(1.0,), seed=1, label="y",
                           repetitions=1, audit_runs=0)
    (folder / "run.json").write_text(config.to_json())
    out = folder / "b.zip"
    assert cli.main(["bundle", "--config", str(folder / "run.json"), "--out", str(out),
                     "--csv", str(folder / "mine.csv")]) == 0
    return out


@pytest.mark.parametrize("flags", [[], ["--run-script"]])
def test_rerun_without_data_is_one_sentence_before_any_work(bundle_without_data, capsys, monkeypatch, flags):
    """Rerun without --data: refused at once, no config printed, the bundle's script never run
    (issue 39: it ran for 32 s first)."""
    capsys.readouterr()

    def work(*args, **kwargs):
        raise AssertionError("the rerun started work before saying it needs --data")

    for name in ("open_bundle", "rerun_bundle"):
        monkeypatch.setattr(f"core.bundle.rerun.{name}", work)
    assert cli.main(["rerun", str(bundle_without_data), *flags]) == 1
    said = capsys.readouterr()
    assert said.out == ""
    assert said.err.strip().splitlines() == [
        "pux: This bundle does not hold the data: rerun with --data PATH, the CSV it was made from (mine.csv)."]
