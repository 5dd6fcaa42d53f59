"""Rerunning a bundle as its recipient would: unpack, run the script in a fresh process, run the
notebook with a kernel, read what each wrote (used by every page's bundle test)."""
from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

from core.bundle.check import compare_trees

__all__ = ["unpack_bytes", "run_script", "run_notebook", "assert_notebook_is_the_script", "assert_reruns",
           "seeded_numbers"]


def unpack_bytes(data: bytes, folder: Path) -> Path:
    """Unpack a bundle's bytes into ``folder``."""
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        archive.extractall(folder)
    return folder


#: what the numeric libraries read their thread counts from
THREAD_VARS = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS")


def run_script(folder: Path, *, data: str | None = None, timeout: float = 600, threads: int | None = None) -> dict:
    """``python rerun.py`` in ``folder`` (a fresh interpreter; ``threads`` BLAS/OpenMP threads
    in its environment, default this one's); its rerun.json."""
    (folder / "rerun.json").unlink(missing_ok=True)
    env = {k: v for k, v in os.environ.items() if k != "PUX_BUNDLE_DATA"}
    if threads is not None:
        env.update({v: str(threads) for v in THREAD_VARS})
    cmd = [sys.executable, "rerun.py"] + ([] if data is None else ["--data", data])
    proc = subprocess.run(cmd, cwd=folder, capture_output=True, text=True, timeout=timeout, env=env)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    return json.loads((folder / "rerun.json").read_text(encoding="utf-8"))


def run_notebook(folder: Path, *, data: str | None = None, timeout: float = 600) -> dict:
    """rerun.ipynb executed with a Python kernel in ``folder``; the rerun.json it wrote."""
    import nbformat
    from nbclient import NotebookClient

    (folder / "rerun.json").unlink(missing_ok=True)
    notebook = nbformat.read(folder / "rerun.ipynb", as_version=4)
    old = os.environ.get("PUX_BUNDLE_DATA")
    if data is not None:
        os.environ["PUX_BUNDLE_DATA"] = data
    try:
        NotebookClient(notebook, timeout=timeout, kernel_name="python3",
                       resources={"metadata": {"path": str(folder)}}).execute()
    finally:
        if data is not None:
            os.environ.pop("PUX_BUNDLE_DATA") if old is None else os.environ.__setitem__("PUX_BUNDLE_DATA", old)
    return json.loads((folder / "rerun.json").read_text(encoding="utf-8"))


def seeded_numbers(folder: Path) -> dict:
    """The bundle's result.json."""
    return json.loads((folder / "result.json").read_text(encoding="utf-8"))


def assert_notebook_is_the_script(folder: Path) -> None:
    """rerun.ipynb holds rerun.py's cells, in order and nothing else (so a test that runs the
    script has run the notebook's code; tests/core/bundle/test_build.py runs one notebook with a
    kernel)."""
    import jupytext
    import nbformat

    notebook = nbformat.read(folder / "rerun.ipynb", as_version=4)
    script = jupytext.reads((folder / "rerun.py").read_text(encoding="utf-8"), fmt="py:percent")
    assert [(c.cell_type, c.source) for c in notebook.cells] == [(c.cell_type, c.source) for c in script.cells]


def assert_reruns(data: bytes, folder: Path, *, notebook: bool = False, data_path: str | None = None,
                  threads: int | None = None) -> dict:
    """The bundle's script gives its numbers exactly (same seed, same machine; ``threads``: in
    a process with that many BLAS/OpenMP threads), and its notebook holds the script's cells;
    ``notebook`` True also executes the notebook with a kernel. Returns result.json."""
    unpack_bytes(data, folder)
    assert_notebook_is_the_script(folder)
    expected = seeded_numbers(folder)
    runs = [run_script(folder, data=data_path, threads=threads)] + (
        [run_notebook(folder, data=data_path)] if notebook else [])
    for rerun in runs:
        bad = [c for c in compare_trees(expected, rerun, rtol=0, atol=0) if not c.ok]
        assert not bad, bad[:5]
    return expected
