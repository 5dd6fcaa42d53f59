"""``pux rerun`` runs nothing from a zip; every input has a limit; every write is whole (issue 40).

Each answer is one sentence on stderr, never a traceback.
"""
from __future__ import annotations

import errno
import io
import json
import os
import signal
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest

from core import limits
from core.bundle import rerun as rerun_module
from core.bundle.build import build_bundle
from core.compare.config import CompareConfig
from core.data import load_sample
from dashboard import cli

ROOT = Path(__file__).resolve().parents[1]
HANG = b"import time\ntime.sleep(120)\n"


@pytest.fixture(scope="module")
def bundle_bytes() -> bytes:
    data = load_sample("supplier")
    config = CompareConfig(dataset="supplier", methods=("Raw table", "kRR"), epsilons=(1.0,), seed=3,
                           max_rows=200, repetitions=1, audit_runs=0, label=data.label,
                           sensitive=tuple(data.sensitive))
    return build_bundle(config, data).data


def _rezip(data: bytes, changes: dict[str, bytes | None]) -> bytes:
    """The bundle with members replaced, added (bytes) or removed (None)."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as src, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for name in src.namelist():
            if name not in changes:
                dst.writestr(name, src.read(name))
        for name, content in changes.items():
            if content is not None:
                dst.writestr(name, content)
    return out.getvalue()


def _write(tmp_path: Path, data: bytes, name: str = "result.zip") -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


def _one_sentence(err: str) -> str:
    assert "Traceback" not in err and "RecursionError" not in err
    lines = [line for line in err.strip().splitlines() if line.startswith("pux:")]
    assert len(lines) == 1, err
    return lines[0]


def _tampered(bundle_bytes: bytes, marker: Path) -> bytes:
    with zipfile.ZipFile(io.BytesIO(bundle_bytes)) as archive:
        script = archive.read("rerun.py").decode()
    evil = f"open({str(marker)!r}, 'w').write('ran')\n"
    return _rezip(bundle_bytes, {"rerun.py": (evil + script).encode()})


# ----------------------------------------------------------------------------- nothing runs
def test_a_tampered_bundle_runs_nothing_and_its_numbers_are_recomputed(bundle_bytes, tmp_path, capsys):
    marker = tmp_path / "marker"
    path = _write(tmp_path, _tampered(bundle_bytes, marker))
    assert cli.main(["rerun", str(path)]) == 0
    out = capsys.readouterr().out
    assert not marker.exists()
    assert "numbers match." in out and "was not run: it is NOT the script this version writes" in out


def test_run_script_refuses_a_tampered_script_showing_the_difference(bundle_bytes, tmp_path, capsys):
    marker = tmp_path / "marker"
    path = _write(tmp_path, _tampered(bundle_bytes, marker))
    assert cli.main(["rerun", str(path), "--run-script"]) == 1
    captured = capsys.readouterr()
    assert not marker.exists()
    assert f"+open({str(marker)!r}" in captured.out  # the added line, shown
    said = _one_sentence(captured.err)
    assert "is not the script this version writes" in said and "it was not run" in said


def test_run_script_runs_the_bundles_own_script_when_it_is_this_versions(bundle_bytes, tmp_path, capsys,
                                                                         monkeypatch):
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    path = _write(tmp_path, bundle_bytes)
    assert cli.main(["rerun", str(path), "--run-script"]) == 0
    captured = capsys.readouterr()
    assert "SHA-256" in captured.err and "numbers match." in captured.out and "MISMATCH" not in captured.out
    assert not list(tmp_path.glob("pux-rerun-*"))


def _hanging(bundle_bytes: bytes, monkeypatch) -> bytes:
    """A bundle whose script hangs, taken for this version's script."""
    monkeypatch.setattr(rerun_module, "expected_script", lambda files: HANG)
    return _rezip(bundle_bytes, {"rerun.py": HANG})


def test_a_hanging_script_is_stopped_at_its_limit_and_its_folder_removed(bundle_bytes, tmp_path, capsys,
                                                                         monkeypatch):
    monkeypatch.setattr(limits, "MAX_SCRIPT_SECONDS", 2)
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    path = _write(tmp_path, _hanging(bundle_bytes, monkeypatch))
    start = time.perf_counter()
    assert cli.main(["rerun", str(path), "--run-script"]) == 1
    assert time.perf_counter() - start < 20
    assert "limit of 2 s" in _one_sentence(capsys.readouterr().err)
    assert not list(tmp_path.glob("pux-rerun-*"))


_SIGTERM_RUN = """
import sys, tempfile
from core import limits
from core.bundle import rerun
from dashboard import cli
tempfile.tempdir = sys.argv[2]
rerun.expected_script = lambda files: open(sys.argv[3], "rb").read()
sys.exit(cli.main(["rerun", sys.argv[1], "--run-script"]))
"""


def test_sigterm_removes_the_temporary_folder(bundle_bytes, tmp_path, monkeypatch):
    folder = tmp_path / "tmp"
    folder.mkdir()
    script = _write(tmp_path, HANG, "hang.py")
    path = _write(tmp_path, _hanging(bundle_bytes, monkeypatch))
    proc = subprocess.Popen([sys.executable, "-c", _SIGTERM_RUN, str(path), str(folder), str(script)],
                            cwd=ROOT, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while not list(folder.glob("pux-rerun-*/rerun.py")) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert list(folder.glob("pux-rerun-*")), "the script never started"
    time.sleep(0.5)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 1 and "stopped before the rerun finished" in _one_sentence(err)
    assert not list(folder.iterdir())


# ----------------------------------------------------------------------------- zips
def test_a_zip_bomb_is_refused_before_anything_is_unpacked(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(limits, "MAX_ZIP_MEMBER_BYTES", 16 * 2**20)  # a 64 MiB bomb stands in for 1 GiB
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("bundle.json", "{}")
        with archive.open("data/zeros.csv", "w") as member:
            for _ in range(64):
                member.write(bytes(2**20))
    path = _write(tmp_path, out.getvalue())
    assert path.stat().st_size < 2**20
    monkeypatch.setattr(zipfile.ZipFile, "open", lambda *a, **k: pytest.fail("a member was unpacked"))
    assert cli.main(["rerun", str(path)]) == 2
    said = _one_sentence(capsys.readouterr().err)
    assert "'data/zeros.csv' unpacks to 67,108,864 bytes; the limit is 16,777,216 bytes." in said


def test_a_member_compressed_past_the_ratio_is_refused(tmp_path, capsys):
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("bundle.json", "{}")
        archive.writestr("result.json", bytes(4 * 2**20))
    assert cli.main(["rerun", str(_write(tmp_path, out.getvalue()))]) == 2
    assert f"to 1; the limit is {limits.MAX_ZIP_RATIO} to 1." in _one_sentence(capsys.readouterr().err)


def test_a_zip_of_too_many_entries_is_refused(tmp_path, capsys):
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        for i in range(limits.MAX_ZIP_ENTRIES + 1):
            archive.writestr(f"releases/{i}.csv", b"")
    assert cli.main(["rerun", str(_write(tmp_path, out.getvalue()))]) == 2
    said = _one_sentence(capsys.readouterr().err)
    assert f"holds {limits.MAX_ZIP_ENTRIES + 1:,} entries; the limit is {limits.MAX_ZIP_ENTRIES:,}." in said


def test_the_unpacked_total_is_limited(bundle_bytes, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(limits, "MAX_ZIP_TOTAL_BYTES", 10_000)
    assert cli.main(["rerun", str(_write(tmp_path, bundle_bytes))]) == 2
    assert "the limit is 10,000 bytes." in _one_sentence(capsys.readouterr().err)


# ----------------------------------------------------------------------------- the bundle's JSON
DEEP = "[" * 100_000 + "]" * 100_000


@pytest.mark.parametrize("member", ["bundle.json", "config.json", "result.json"])
def test_deep_json_in_a_bundle_is_one_sentence(bundle_bytes, tmp_path, capsys, member):
    path = _write(tmp_path, _rezip(bundle_bytes, {member: DEEP.encode()}))
    assert cli.main(["rerun", str(path)]) == 2
    said = _one_sentence(capsys.readouterr().err)
    assert f"{member} in result.zip nests more than {limits.MAX_JSON_DEPTH} levels deep" in said


def test_a_corrupt_manifest_is_named(bundle_bytes, tmp_path, capsys):
    path = _write(tmp_path, _rezip(bundle_bytes, {"bundle.json": b""}))
    assert cli.main(["rerun", str(path)]) == 2
    assert _one_sentence(capsys.readouterr().err) == (
        "pux: bundle.json in result.zip is not valid JSON (Expecting value at line 1, column 1).")


def test_a_config_naming_a_path_here_is_refused(bundle_bytes, tmp_path, capsys):
    with zipfile.ZipFile(io.BytesIO(bundle_bytes)) as archive:
        config = json.loads(archive.read("config.json"))
    config["schema"] = "/etc/passwd.json"
    path = _write(tmp_path, _rezip(bundle_bytes, {"config.json": json.dumps(config).encode()}))
    assert cli.main(["rerun", str(path)]) == 2
    assert "names a file ('/etc/passwd.json') for its schema" in _one_sentence(capsys.readouterr().err)


def test_a_bundles_config_past_a_limit_is_refused(bundle_bytes, tmp_path, capsys):
    with zipfile.ZipFile(io.BytesIO(bundle_bytes)) as archive:
        config = json.loads(archive.read("config.json"))
    config["repetitions"] = 10**6
    path = _write(tmp_path, _rezip(bundle_bytes, {"config.json": json.dumps(config).encode()}))
    assert cli.main(["rerun", str(path)]) == 2
    assert "repetitions is 1,000,000; the limit is 20 repetitions." in _one_sentence(capsys.readouterr().err)


# ----------------------------------------------------------------------------- a full disk
def _full_disk_under(monkeypatch, folder: Path) -> None:
    """os.write raises ENOSPC for every file under ``folder`` (other writes go through)."""
    real = os.write

    def write(fd, data):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            target = ""
        if target.startswith(str(folder)):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real(fd, data)

    monkeypatch.setattr(os, "write", write)


def _assert_nothing_left(folder: Path, err: str) -> None:
    said = _one_sentence(err)
    assert "the disk is full" in said and "nothing was written there" in said
    assert list(folder.iterdir()) == []


def test_a_full_disk_leaves_no_bundle(tmp_path, capsys, monkeypatch):
    import dashboard.cli_bundle as cli_bundle

    config = tmp_path / "run.json"
    data = load_sample("supplier")
    config.write_text(CompareConfig(dataset="supplier", methods=("Raw table",), epsilons=(1.0,), seed=1,
                                    max_rows=100, repetitions=1, audit_runs=0, label=data.label).to_json())
    monkeypatch.setattr(cli_bundle, "_compare_parts", lambda c, d: ({}, "<html></html>", 0.0))
    out = tmp_path / "out"
    out.mkdir()
    _full_disk_under(monkeypatch, out)
    assert cli.main(["bundle", "--config", str(config), "--out", str(out / "result.zip")]) == 1
    _assert_nothing_left(out, capsys.readouterr().err)


def test_a_full_disk_leaves_no_solve_output(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr("core.decide.run.run_solve", lambda config, **kw: {"schema": "pux-solve/1"})
    out = tmp_path / "out"
    out.mkdir()
    _full_disk_under(monkeypatch, out)
    assert cli.main(["solve", "--config", str(ROOT / "examples" / "solve.json"), "--out", str(out / "a.json")]) == 1
    _assert_nothing_left(out, capsys.readouterr().err)


def test_a_full_disk_leaves_no_compare_report(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr("core.compare.config.compare_dataset", lambda *a, **k: object())
    monkeypatch.setattr("dashboard.compare.report.build_report", lambda *a, **k: "<html></html>")
    out = tmp_path / "out"
    out.mkdir()
    _full_disk_under(monkeypatch, out)
    assert cli.main(["compare", "--config", str(ROOT / "examples" / "compare.json"), "--out",
                     str(out / "r.html")]) == 1
    _assert_nothing_left(out, capsys.readouterr().err)


def test_a_full_disk_leaves_no_rerun_output(bundle_bytes, tmp_path, capsys, monkeypatch):
    path = _write(tmp_path, bundle_bytes)
    out = tmp_path / "out"
    out.mkdir()
    _full_disk_under(monkeypatch, out)
    assert cli.main(["rerun", str(path), "--json", str(out / "rerun.json")]) == 1
    _assert_nothing_left(out, capsys.readouterr().err)


# ----------------------------------------------------------------------------- configs and readers
def _config_file(tmp_path: Path, example: str, change: dict) -> Path:
    data = json.loads((ROOT / "examples" / example).read_text())
    data.update(change)
    path = tmp_path / f"c-{example}"
    path.write_text(json.dumps(data))
    return path


@pytest.mark.parametrize("command, example, change, words", [
    ("solve", "solve.json", {"repetitions": 10**9}, "repetitions is 1,000,000,000; the limit is 20 repetitions."),
    ("compare", "compare.json", {"repetitions": 10**6}, "repetitions is 1,000,000; the limit is 20 repetitions."),
    ("compare", "compare.json", {"imposter_epochs": 10**9}, "imposter_epochs is 1,000,000,000; the limit is 1,000"),
    ("compare", "compare.json", {"epsilons": [0.5 + i for i in range(10**6)]}, "lists 1,000,000 values; the limit"),
    ("compare", "compare.json", {"audit_runs": 10**7}, "audit_runs is 10,000,000; the limit is 5,000 runs per side"),
    ("bundle", "compare.json", {"repetitions": 10**6}, "repetitions is 1,000,000; the limit is 20 repetitions."),
    ("bundle", "page_sskm.json", {"settings": {"sweep_repetitions": 10**6}},
     "settings.sweep_repetitions is 1,000,000; the limit is 20 repetitions."),
])
def test_each_config_limit_is_one_sentence_before_any_work(tmp_path, capsys, command, example, change, words):
    path = _config_file(tmp_path, example, change)
    args = [command, "--config", str(path)] + ([] if command == "solve" else ["--out", str(tmp_path / "o")])
    start = time.perf_counter()
    assert cli.main(args) == 2
    assert time.perf_counter() - start < 5
    assert words in _one_sentence(capsys.readouterr().err)
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("command", ["compare", "solve", "bundle"])
def test_a_deep_config_is_one_sentence(tmp_path, capsys, command):
    path = tmp_path / "deep.json"
    path.write_text(DEEP)
    args = [command, "--config", str(path)] + ([] if command == "solve" else ["--out", str(tmp_path / "o")])
    assert cli.main(args) == 2
    said = _one_sentence(capsys.readouterr().err)
    assert f"the config {path} cannot be used: the config nests more than {limits.MAX_JSON_DEPTH} levels" in said


def test_a_deep_schema_upload_is_one_sentence():
    from dashboard.shared.serving.datasets import parse_schema

    with pytest.raises(ValueError) as info:
        parse_schema(DEEP.encode())
    assert str(info.value) == (f"The schema file nests more than {limits.MAX_JSON_DEPTH} levels deep; "
                               f"the limit is {limits.MAX_JSON_DEPTH}.")
    with pytest.raises(ValueError, match="The schema file is 2,000,001 bytes; the limit is 2,000,000 bytes."):
        parse_schema(b" " * 2_000_001)


@pytest.mark.parametrize("command, example", [("compare", "compare.json"), ("solve", "solve.json"),
                                              ("bundle", "compare.json")])
def test_a_deep_schema_file_named_by_a_config_is_one_sentence(tmp_path, capsys, command, example):
    (tmp_path / "deep.schema.json").write_text(DEEP)
    path = _config_file(tmp_path, example, {"schema": "deep.schema.json"})
    args = [command, "--config", str(path)] + ([] if command == "solve" else ["--out", str(tmp_path / "o")])
    assert cli.main(args) == 2
    said = _one_sentence(capsys.readouterr().err)
    assert f"the schema file {tmp_path / 'deep.schema.json'} nests more than" in said
