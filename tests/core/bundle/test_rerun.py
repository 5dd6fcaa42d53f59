"""``rerun_bundle``: a fresh process reruns a bundle; a changed number or a bad zip is named."""
from __future__ import annotations

import io
import json
import zipfile

import pandas as pd
import pytest

from core.bundle.build import build_bundle
from core.bundle.notebook import script_to_notebook
from core.bundle.rerun import rerun_bundle
from core.compare.config import CompareConfig
from core.data import load_sample


@pytest.fixture(scope="module")
def bundle():
    data = load_sample("supplier")
    config = CompareConfig(dataset="supplier", methods=("Raw table", "kRR"), epsilons=(1.0,), seed=5,
                           max_rows=200, repetitions=1, audit_runs=0, label=data.label,
                           sensitive=tuple(data.sensitive))
    return build_bundle(config, data)


def _write(tmp_path, data: bytes):
    path = tmp_path / "b.zip"
    path.write_bytes(data)
    return path


def _tampered(data: bytes) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as src, zipfile.ZipFile(out, "w") as dst:
        for name in src.namelist():
            content = src.read(name)
            if name == "result.json":
                tree = json.loads(content)
                tree["numbers"]["runs"][0]["utility"] += 0.5
                content = json.dumps(tree).encode()
            dst.writestr(name, content)
    return out.getvalue()


def test_rerun_matches_every_number(bundle, tmp_path):
    rerun = rerun_bundle(_write(tmp_path, bundle.data))
    assert rerun.ok and rerun.returncode == 0 and len(rerun.checks) > 50
    assert rerun.original_seconds is not None and rerun.seconds > 0


def test_a_changed_number_is_found_at_its_path(bundle, tmp_path):
    rerun = rerun_bundle(_write(tmp_path, _tampered(bundle.data)))
    bad = [c.path for c in rerun.checks if not c.ok]
    assert bad == ["numbers.runs[0].utility"] and not rerun.ok


def test_a_zip_that_writes_outside_its_folder_is_refused(tmp_path):
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr("../evil.py", "x")
        archive.writestr("bundle.json", "{}")
    with pytest.raises(ValueError, match="outside its folder"):
        rerun_bundle(_write(tmp_path, out.getvalue()))


def test_a_file_that_is_not_a_zip_is_refused(tmp_path):
    with pytest.raises(ValueError, match="not a bundle"):
        rerun_bundle(_write(tmp_path, b"hello"))


def test_roles_other_than_the_configs_are_refused():
    data = load_sample("supplier")
    config = CompareConfig(dataset="supplier", methods=("Raw table",), epsilons=(1.0,), seed=5, label=None)
    with pytest.raises(ValueError, match="roles"):
        build_bundle(config, data)


def test_notebook_cells_are_the_script_cells(bundle):
    with zipfile.ZipFile(io.BytesIO(bundle.data)) as archive:
        script = archive.read("rerun.py").decode()
        notebook = json.loads(archive.read("rerun.ipynb"))
    code = ["".join(c["source"]) for c in notebook["cells"] if c["cell_type"] == "code"]
    assert len(code) == script.count("# %%\n") and all(cell.strip() in script for cell in code)
    assert json.loads(script_to_notebook(script))["metadata"]["kernelspec"]["name"] == "python3"


def test_a_rerun_on_another_thread_count_is_within_the_stated_tolerance(bundle, tmp_path):
    import os
    import subprocess
    import sys

    from core.bundle.check import compare_trees
    from tests.core.bundle.support import unpack_bytes

    folder = unpack_bytes(bundle.data, tmp_path)
    threads = {k: "1" for k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")}
    proc = subprocess.run([sys.executable, "rerun.py"], cwd=folder, capture_output=True, text=True,
                          env={**os.environ, **threads})
    assert proc.returncode == 0, proc.stdout[-1000:]
    expected = json.loads((folder / "result.json").read_text())
    assert all(c.ok for c in compare_trees(expected, json.loads((folder / "rerun.json").read_text())))


@pytest.fixture(scope="module")
def upload_bundle():
    """A colleague's bundle of an uploaded table (built here), made without the table."""
    import numpy as np

    from core.data.csv_loader import frame_to_dataset

    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"age": rng.integers(18, 90, 200), "job": rng.choice(["a", "b", "c"], 200),
                          "y": rng.choice(["no", "yes"], 200)})
    data = frame_to_dataset(frame, name="mine.csv", label="y")
    config = CompareConfig(dataset="csv:mine.csv", methods=("Raw table",), epsilons=(1.0,), seed=2, label="y",
                           repetitions=1, audit_runs=0, fingerprint=data.fingerprint())
    return build_bundle(config, data)


@pytest.mark.parametrize("run_script", [False, True])
def test_a_bundle_without_its_data_is_refused_before_any_work(upload_bundle, tmp_path, monkeypatch, run_script):
    from core.bundle import rerun as module
    from core.validation import DataError

    path = _write(tmp_path, upload_bundle.data)

    def work(*args, **kwargs):
        raise AssertionError("the rerun started work before saying it needs --data")

    for name in ("open_bundle", "recompute", "run_bundled_script"):
        monkeypatch.setattr(module, name, work)
    with pytest.raises(DataError, match=r"rerun with --data PATH, the CSV it was made from \(mine.csv\)"):
        rerun_bundle(path, run_script=run_script)
    assert module.data_missing(path, data=tmp_path / "mine.csv") is None
