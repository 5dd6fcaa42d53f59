"""Bundles: each page's bundle, its files and sizes, and its rerun's time against the original run.

For every page with a bundle module (:data:`core.bundle.pages.PAGES`), at the page's settings
below (the page's defaults, Compare's example config with fewer audit runs), the bundle is
made once (its numbers computed here, timed: the original run) and then rerun by
:func:`core.bundle.rerun.rerun_bundle` in a fresh interpreter (timed: unpacking, the
interpreter's start and imports, the recomputation, the comparison). The ratio rerun /
original is the figure; every number must match (``mismatches`` 0).
"""
from __future__ import annotations

import tempfile
import time
from pathlib import Path
from typing import Any

from core.bundle.build import build_bundle
from core.bundle.configs import as_page_config
from core.bundle.page_config import PageConfig, load_page_dataset
from core.bundle.pages import PAGES
from core.bundle.rerun import rerun_bundle
from core.compare.config import CompareConfig

HERE = Path(__file__).resolve().parent
EXAMPLE = HERE.parent / "examples" / "compare.json"


def _configs(quick: bool) -> dict[str, Any]:
    from core.data import load_sample

    out: dict[str, Any] = {}
    compare = CompareConfig.from_file(EXAMPLE)
    out["compare"] = compare if not quick else CompareConfig.from_dict(
        {**compare.to_dict(), "methods": ["Raw table", "kRR"], "audit_runs": 0, "repetitions": 1})
    for page in PAGES:
        if page == "compare":
            continue
        sample = "supplier" if page in ("correlations", "dc_fbfs", "cdp_lr", "publishing") else "census"
        data = load_sample(sample)
        settings: dict[str, Any] = {}
        if quick and page in ("cdp_lr", "publishing"):
            settings = {"repetitions": 1, "max_rows": 300} if page == "cdp_lr" else {"repetitions": 1, "n_queries": 20}
        if quick and page == "tour":
            settings = {"stories": ["cdp"]}
        out[page] = PageConfig(page=page, dataset=sample, seed=0, label=data.label, sensitive=tuple(data.sensitive),
                               settings=settings)
    return out


def _one(config: Any) -> dict[str, Any]:
    page = as_page_config(config)
    dataset = load_page_dataset(page)
    start = time.perf_counter()
    bundle = build_bundle(config, dataset)
    built = time.perf_counter() - start
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / bundle.file_name
        path.write_bytes(bundle.data)
        rerun = rerun_bundle(path)
    original = bundle.manifest["seconds"]
    return {"files": bundle.files, "zip_bytes": len(bundle.data), "original_s": original, "build_s": built,
            "rerun_s": rerun.seconds, "rerun_over_original": rerun.seconds / original if original else None,
            "numbers": len(rerun.checks), "mismatches": sum(not c.ok for c in rerun.checks),
            "rerun_ok": rerun.ok}


def run(*, quick: bool) -> dict[str, Any]:
    """Every page's bundle: files, sizes, original and rerun seconds, their ratio, mismatches."""
    results = {}
    for page, config in _configs(quick).items():
        try:
            results[page] = _one(config)
        except (ValueError, TypeError) as exc:  # e.g. a page whose data is not here
            results[page] = {"skipped": str(exc)}
        print(f"  {page}: {results[page].get('rerun_over_original', results[page].get('skipped'))}", flush=True)
    return {"pages": results}
