from __future__ import annotations

import json
from pathlib import Path

import pytest

from dashboard import cli
from core.runtime.experiments import Reproduction


def test_reproduce_list(capsys):
    assert cli.main(["reproduce", "list"]) == 0
    assert "Available reproductions" in capsys.readouterr().out


def test_unknown_reproduction_is_an_error(capsys):
    assert cli.main(["reproduce", "no-such-figure"]) == 2
    assert "no reproduction called" in capsys.readouterr().err


def _fake_reproduction(*, data_dir, quick, random_state, progress):
    progress("working")
    return Reproduction(name="demo", parameters={"quick": quick}, seeds=[random_state],
                        runs=[{"x": 1.5}], summary={"x": 1.5, "checks": {"x_positive": True}},
                        paper="x is positive", notes=[])


def test_reproduce_writes_json(tmp_path, monkeypatch):
    monkeypatch.setattr(cli, "reproductions", lambda: {"demo": _fake_reproduction})
    out = tmp_path / "r.json"
    assert cli.main(["reproduce", "demo", "--out", str(out), "--quick", "--seed", "4"]) == 0
    data = json.loads(out.read_text())
    assert data["name"] == "demo" and data["seeds"] == [4] and data["parameters"]["quick"] is True
    # the file is the Reproduction's to_dict(), with the wall time after the name
    rep = _fake_reproduction(data_dir=None, quick=True, random_state=4, progress=lambda m: None)
    assert list(data) == ["name", "seconds", *list(rep.to_dict())[1:]]
    assert {k: v for k, v in data.items() if k != "seconds"} == rep.to_dict()
    assert data["seconds"] >= 0


def test_reproduce_refuses_a_result_that_is_not_a_reproduction(tmp_path, monkeypatch):
    def plain(**kw):
        return _fake_reproduction(**kw).to_dict()

    monkeypatch.setattr(cli, "reproductions", lambda: {"demo": plain, "other": _fake_reproduction})
    with pytest.raises(TypeError, match="Reproduction"):
        cli.main(["reproduce", "demo", "--out", str(tmp_path / "r.json")])
    with pytest.raises(TypeError, match="named 'other'"):
        cli.main(["reproduce", "other", "--out", str(tmp_path / "r.json")])


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


def _copy_public(src, dst, *, truncate_adult: bool = False):
    for name in ("adult.data", "adult.test", "nltcs.csv"):
        raw = (src / name).read_bytes()
        if truncate_adult and name == "adult.data":
            raw = b"".join(raw.splitlines(keepends=True)[:12_268])
        (dst / name).write_bytes(raw)


def test_data_check_on_good_files_exits_zero(capsys, tmp_path, data_dir):
    _copy_public(data_dir, tmp_path)
    assert cli.main(["data", "check", "--data-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "adult: 48842 rows" in out and "nltcs: 21574 rows" in out


def test_data_check_reports_a_truncated_file_in_one_sentence(capsys, tmp_path, data_dir):
    _copy_public(data_dir, tmp_path, truncate_adult=True)
    assert cli.main(["data", "check", "--data-dir", str(tmp_path)]) == 1
    captured = capsys.readouterr()
    assert "Traceback" not in captured.out + captured.err
    lines = [line for line in captured.out.splitlines() if line.startswith("adult:")]
    assert len(lines) == 1 and "12,268" in lines[0] and str(tmp_path) not in lines[0]


def test_data_check_garbage_file_never_prints_a_traceback(capsys, tmp_path):
    (tmp_path / "nltcs.csv").write_bytes(b"\xff\xfe\x00garbage" * 100)
    assert cli.main(["data", "check", "--data-dir", str(tmp_path)]) == 1
    captured = capsys.readouterr()
    assert "Traceback" not in captured.out + captured.err
    assert "nltcs: problem:" in captured.out


def test_dashboard_passes_the_data_directory_through_the_environment(monkeypatch, tmp_path):
    seen = {}

    def fake_call(cmd, cwd=None, env=None):
        seen.update(cmd=cmd, cwd=cwd, env=env)
        return 0

    monkeypatch.setattr(cli.subprocess, "call", fake_call)
    assert cli.main(["dashboard", "--data-dir", str(tmp_path)]) == 0
    assert seen["env"]["PUX_DATA_DIR"] == str(tmp_path.resolve())
    assert (Path(seen["cwd"]) / ".streamlit" / "config.toml").is_file()
    assert cli.main(["dashboard", "--data-dir", str(tmp_path / "nope")]) == 2


def test_dashboard_passes_the_scheduler_through_the_environment(monkeypatch):
    seen = {}
    monkeypatch.setattr(cli.subprocess, "call", lambda cmd, cwd=None, env=None: seen.update(env=env) or 0)
    assert cli.main(["dashboard", "--scheduler", "tcp://10.0.0.1:8786"]) == 0
    assert seen["env"]["PUX_SCHEDULER"] == "tcp://10.0.0.1:8786"


def test_reproduce_with_a_scheduler_that_is_no_address(capsys, monkeypatch):
    monkeypatch.setenv("PUX_SCHEDULER", "")
    assert cli.main(["reproduce", "cdp-fig5", "--quick", "--scheduler", "my-cluster"]) == 2
    err = capsys.readouterr().err
    assert "tcp://host:8786" in err and "Traceback" not in err


@pytest.mark.timeout(60)
def test_reproduce_with_a_scheduler_that_does_not_answer(capsys, monkeypatch, tmp_path):
    from core.runtime import compute

    monkeypatch.setenv("PUX_SCHEDULER", "")
    monkeypatch.setattr(compute, "CONNECT_TIMEOUT", 2.0)
    out = tmp_path / "r.json"
    assert cli.main(["reproduce", "cdp-fig5", "--quick", "--scheduler", "tcp://127.0.0.1:9",
                     "--out", str(out)]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [err[0]] and "No Dask scheduler answered at tcp://127.0.0.1:9" in err[0]
    assert not out.exists()


@pytest.mark.timeout(300)
def test_reproduce_on_a_cluster_writes_what_this_process_writes(tmp_path, monkeypatch, dask_cluster):
    monkeypatch.setenv("PUX_SCHEDULER", "")
    here, there = tmp_path / "here.json", tmp_path / "there.json"
    assert cli.main(["reproduce", "cdp-fig5", "--quick", "--out", str(here)]) == 0
    assert cli.main(["reproduce", "cdp-fig5", "--quick", "--scheduler", dask_cluster, "--out", str(there)]) == 0
    a, b = json.loads(here.read_text()), json.loads(there.read_text())
    a.pop("seconds"), b.pop("seconds")
    assert a == b
