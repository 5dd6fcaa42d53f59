from __future__ import annotations

import json

from core import cli


def test_reproduce_list(capsys):
    assert cli.main(["reproduce", "list"]) == 0
    assert "Available reproductions" in capsys.readouterr().out


def test_unknown_reproduction_is_an_error(capsys):
    assert cli.main(["reproduce", "no-such-figure"]) == 2
    assert "no reproduction called" in capsys.readouterr().err


def test_reproduce_writes_json(tmp_path, monkeypatch):
    def fake(*, data_dir, quick, random_state, progress):
        progress("working")
        return {"parameters": {"quick": quick}, "seeds": [random_state], "summary": {"x": 1.5}}

    monkeypatch.setattr(cli, "reproductions", lambda: {"demo": fake})
    out = tmp_path / "r.json"
    assert cli.main(["reproduce", "demo", "--out", str(out), "--quick", "--seed", "4"]) == 0
    data = json.loads(out.read_text())
    assert data["name"] == "demo" and data["seeds"] == [4] and data["parameters"]["quick"] is True


def test_data_check_reports_samples(capsys, tmp_path):
    cli.main(["data", "check", "--data-dir", str(tmp_path)])
    out = capsys.readouterr().out
    assert "sample supplier: 1160 rows" in out
    assert "adult: not available" in out


def test_every_paper_registers_its_reproductions(capsys):
    names = cli.reproductions()
    assert "pux: skipping" not in capsys.readouterr().err
    for prefix in ("cdp-", "imposter-", "sskm-"):
        assert any(n.startswith(prefix) for n in names), prefix
