"""Layering: core never imports streamlit; pages take from core only constants and types.

Pages reach algorithms through ``dashboard.shared.cache`` (the one layer that calls core).
"""
from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: what each page imports from core today: names of constants, types and errors. The
#: ledger builders are plain functions (noted in the architecture issue), listed so that
#: any new import from core is a deliberate choice.
VIEW_CORE_IMPORTS = {
    "cdp/cdp_lr.py": {"core.cdp.logistic.NOISE_METHOD_MEANING", "core.cdp.logistic.NOISE_METHODS",
                  "core.cdp.logistic.PRESETS"},
    "data/data.py": {"core.data.MAX_UPLOAD_MB", "core.data.SAMPLES", "core.data.Dataset",
                "core.validation.DataError"},
    "imposter/imposter.py": {"core.imposter.CLASSIFIERS", "core.imposter.FIG7_EPSILONS",
                    "core.imposter.synthesizer_ledger", "core.imposter.classifiers.CLASSIFIER_LABELS"},
    "sskm/sskm.py": {"core.validation.DataError"},
}


def _imported(path: Path) -> set[str]:
    """Every module (``import a.b``) and name (``from a.b import c`` -> ``a.b.c``) ``path`` imports."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def _top(name: str) -> str:
    return name.split(".")[0]


def test_core_never_imports_streamlit():
    offenders = {str(p.relative_to(ROOT)): sorted(n for n in _imported(p) if _top(n) == "streamlit")
                 for p in sorted((ROOT / "core").rglob("*.py"))}
    assert {p: n for p, n in offenders.items() if n} == {}


def test_views_import_from_core_only_the_names_they_use_today():
    found = {}
    from dashboard.navigation import PAGES

    for page in sorted(ROOT / "dashboard" / spec.file for spec in PAGES.values()):
        core = {n for n in _imported(page) if _top(n) == "core"}
        if core:
            found[str(page.relative_to(ROOT / "dashboard"))] = core
    assert found == VIEW_CORE_IMPORTS
