"""``pux compare``: the example config end to end; bad configs and missing data in one sentence."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from dashboard import cli
from core.compare.config import CompareConfig, run_config
from core.data import load_sample
from core.privacy.schema_builtin import schema_for

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "compare.json"


def test_the_command_writes_what_a_direct_run_computes(tmp_path, capsys):
    """The example's settings cut to three quick methods and one epsilon (the example itself
    runs end to end below): ``pux compare --json`` is ``run_config(config).to_dict()``."""
    small = json.loads(EXAMPLE.read_text(encoding="utf-8"))
    small.update(methods=["kRR", "MDAV_DP", "CDP-LR"], epsilons=[1.0], repetitions=1, max_rows=300)
    small.pop("fingerprint")
    path = tmp_path / "small.json"
    path.write_text(json.dumps(small), encoding="utf-8")
    js = tmp_path / "result.json"
    code = cli.main(["compare", "--config", str(path), "--out", str(tmp_path / "r.html"), "--json", str(js)])
    assert code == 0, capsys.readouterr().err
    data = json.loads(js.read_text())
    direct = run_config(CompareConfig.from_file(path)).to_dict()
    assert data["runs"] == direct["runs"]
    assert data["summary"] == direct["summary"] and data["parameters"] == direct["parameters"]


def test_the_example_runs_end_to_end_to_a_report_and_json(tmp_path, capsys):
    out, js = tmp_path / "report.html", tmp_path / "sub" / "result.json"
    code = cli.main(["compare", "--config", str(EXAMPLE), "--out", str(out), "--json", str(js)])
    err = capsys.readouterr().err
    assert code == 0, err
    assert "Traceback" not in err and f"wrote {out}" in err
    progress = [line for line in err.splitlines() if line.startswith("[")]
    assert progress and progress[-1].endswith("Comparison done")
    html = out.read_text(encoding="utf-8")
    assert "<!DOCTYPE html>" in html and "Takeaway" in html
    data = json.loads(js.read_text())
    config = CompareConfig.from_file(EXAMPLE)
    assert len(data["runs"]) > 0 and data["parameters"]["epsilons"] == list(config.epsilons)
    assert data["parameters"]["fingerprint"] == config.fingerprint
    assert set(data["parameters"]["methods"]) == set(config.methods) and not data["skipped"]
    assert config.fingerprint in html
    # the census schema the example carries is what ran, and the result says so
    assert config.schema == schema_for(load_sample("census")).to_dict()
    assert data["parameters"]["schema"] == config.schema
    assert "evaluated on your private data" in data["measures_note"]
    # the audit beside every DP point: per summary row its lower bound and the ceiling its runs allow
    dp_rows = [r for r in data["summary"] if r["is_dp"]]
    assert dp_rows and all(0 <= r["audit_lower"] <= r["audit_ceiling"] for r in dp_rows)
    assert all(r["audit_lower"] is None for r in data["summary"] if not r["is_dp"])
    assert "Privacy audit beside every DP point" in html


def _one_line_error(capsys) -> str:
    err = capsys.readouterr().err
    assert "Traceback" not in err
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err
    return lines[0]


@pytest.mark.parametrize("text, words", [
    ("{broken", "not valid JSON"),
    (json.dumps({"format": "pux-compare/1", "dataset": "census"}), "lacks"),
    (json.dumps({"format": "pux-compare/1", "dataset": "census", "methods": ["Raw table"], "epsilons": [1],
                 "seed": "zero"}), "seed"),
])
def test_bad_config_exits_2(tmp_path, capsys, text, words):
    path = tmp_path / "run.json"
    path.write_text(text)
    assert cli.main(["compare", "--config", str(path), "--out", str(tmp_path / "r.html")]) == 2
    line = _one_line_error(capsys)
    assert line.startswith("pux: ") and words in line
    assert not (tmp_path / "r.html").exists()


def test_missing_config_file_exits_2(tmp_path, capsys):
    assert cli.main(["compare", "--config", str(tmp_path / "nope.json"), "--out", str(tmp_path / "r.html")]) == 2
    assert "no config file" in _one_line_error(capsys)


def test_csv_config_without_csv_exits_1(tmp_path, capsys):
    path = tmp_path / "run.json"
    config = CompareConfig(dataset="csv:people.csv", methods=("Raw table",), epsilons=(1.0,), seed=0)
    path.write_text(config.to_json())
    assert cli.main(["compare", "--config", str(path), "--out", str(tmp_path / "r.html")]) == 1
    line = _one_line_error(capsys)
    assert "pass its path with --csv PATH" in line and "people.csv" in line


def test_fingerprint_mismatch_exits_1(tmp_path, capsys):
    data = json.loads(EXAMPLE.read_text())
    data["fingerprint"] = "0000000000000000"
    path = tmp_path / "run.json"
    path.write_text(json.dumps(data))
    assert cli.main(["compare", "--config", str(path), "--out", str(tmp_path / "r.html")]) == 1
    assert "differs from the data this config was saved from" in _one_line_error(capsys)


def test_public_dataset_without_data_exits_1(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("PUX_DATA_DIR", raising=False)
    path = tmp_path / "run.json"
    config = CompareConfig(dataset="adult", methods=("Raw table",), epsilons=(1.0,), seed=0)
    path.write_text(config.to_json())
    assert cli.main(["compare", "--config", str(path), "--out", str(tmp_path / "r.html"),
                     "--data-dir", str(tmp_path)]) == 1
    assert "adult.data" in _one_line_error(capsys)


def test_missing_schema_file_exits_1(tmp_path, capsys):
    data = json.loads(EXAMPLE.read_text())
    data["schema"] = "schemas/none.json"
    path = tmp_path / "run.json"
    path.write_text(json.dumps(data))
    assert cli.main(["compare", "--config", str(path), "--out", str(tmp_path / "r.html")]) == 1
    line = _one_line_error(capsys)
    assert "no schema file" in line and str(tmp_path / "schemas" / "none.json") in line
