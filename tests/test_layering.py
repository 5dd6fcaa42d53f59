"""Layering: core never imports streamlit or the dashboard; pages are layout only and never
import each other; a feature folder imports only itself and the shared widgets; inside
``dashboard/shared``, serving imports no widget or solve module and widgets import no solve module.

Pages reach algorithms through their feature's ``cached`` module (the one layer that calls core).
"""
from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

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


def test_pages_import_nothing_from_core():
    """A page is layout only: what it shows comes through its feature's modules."""
    from dashboard.navigation import PAGES

    found = {spec.file: sorted(n for n in _imported(ROOT / "dashboard" / spec.file) if _top(n) == "core")
             for spec in PAGES.values()}
    assert {page: names for page, names in found.items() if names} == {}


def _module_files(package: str) -> list[Path]:
    return sorted((ROOT / package).rglob("*.py"))


def test_core_never_imports_the_dashboard():
    offenders = {str(p.relative_to(ROOT)): sorted(n for n in _imported(p) if _top(n) == "dashboard")
                 for p in _module_files("core")}
    assert {p: n for p, n in offenders.items() if n} == {}


def _feature(path: Path) -> str | None:
    """The feature folder of a dashboard file (``cdp``, ``imposter``, ...), None for the app's own files."""
    parts = path.relative_to(ROOT / "dashboard").parts
    return parts[0] if len(parts) > 1 else None


def _features_imported(path: Path) -> set[str]:
    return {n.split(".")[1] for n in _imported(path) if n.startswith("dashboard.") and n.count(".") >= 1}


def test_pages_never_import_each_other():
    from dashboard.navigation import PAGES

    page_modules = {"dashboard." + spec.file[:-3].replace("/", ".") for spec in PAGES.values()}
    offenders = {str(p.relative_to(ROOT)): sorted(n for n in _imported(p) if any(n == m or n.startswith(m + ".")
                                                                                  for m in page_modules))
                 for p in _module_files("dashboard")}
    assert {p: n for p, n in offenders.items() if n} == {}


def test_shared_widgets_import_no_feature():
    features = {p.name for p in (ROOT / "dashboard").iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    offenders = {str(p.relative_to(ROOT)): sorted(_features_imported(p) & (features - {"shared"}))
                 for p in sorted((ROOT / "dashboard" / "shared").rglob("*.py"))}
    assert {p: n for p, n in offenders.items() if n} == {}


def test_a_feature_imports_only_itself_and_the_shared_widgets():
    """Changing the IMPOSTER page touches the IMPOSTER folder only; the Tour alone draws
    from every feature (its steps show their charts), never the reverse."""
    features = {p.name for p in (ROOT / "dashboard").iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    offenders = {}
    for path in _module_files("dashboard"):
        own = _feature(path)
        if own in (None, "shared", "tour"):
            continue
        other = (_features_imported(path) & features) - {own, "shared"}
        if other:
            offenders[str(path.relative_to(ROOT))] = sorted(other)
    assert offenders == {}


#: the layers of ``dashboard/shared`` and the layers each must not import: serving runs work and
#: keeps it, widgets draw, solve draws the solve panel; ``safe`` (at the top) sits below all three.
SHARED_LAYERS = {"serving": {"widgets", "solve"}, "widgets": {"solve"}, "solve": set(),
                 None: {"serving", "widgets", "solve"}}


def _shared_layer(name: str) -> str | None:
    """``widgets`` for ``dashboard.shared.widgets.layout.tidy`` (and ``dashboard.shared.widgets``);
    None for a top-level shared module such as ``dashboard.shared.safe``."""
    parts = name.split(".")
    return parts[2] if len(parts) > 2 and parts[2] in SHARED_LAYERS else None


def _layer_violations(imports: dict[str, set[str]]) -> dict[str, list[str]]:
    """{module of dashboard.shared: the names it imports from a layer it must not import}."""
    found = {}
    for module, names in imports.items():
        if not module.startswith("dashboard.shared."):
            continue
        banned = SHARED_LAYERS[_shared_layer(module)]
        bad = sorted(n for n in names if n.startswith("dashboard.shared.") and _shared_layer(n) in banned)
        if bad:
            found[module] = bad
    return found


def _shared_imports() -> dict[str, set[str]]:
    shared = ROOT / "dashboard" / "shared"
    return {"dashboard." + ".".join(p.relative_to(ROOT / "dashboard").with_suffix("").parts): _imported(p)
            for p in sorted(shared.rglob("*.py"))}


def test_shared_layers_import_downwards_only():
    """Serving imports no widget or solve module; widgets import no solve module (counting
    imports inside functions): what runs work never draws, and the solve panel sits on top."""
    assert set(_shared_imports()) >= {"dashboard.shared.serving.jobs", "dashboard.shared.widgets.layout",
                                      "dashboard.shared.solve.solve_panel"}
    assert _layer_violations(_shared_imports()) == {}


def test_the_layer_check_finds_an_upward_import():
    imports = {"dashboard.shared.serving.jobs": {"dashboard.shared.serving.job_pool.JobPool"},
               "dashboard.shared.widgets.job_view": {"dashboard.shared.serving.jobs.POOL"},
               "dashboard.shared.solve.solve_panel": {"dashboard.shared.widgets.charts",
                                                      "dashboard.shared.serving.cache.TTL"}}
    assert _layer_violations(imports) == {}
    imports["dashboard.shared.serving.jobs"].add("dashboard.shared.widgets.present.is_presenting")
    imports["dashboard.shared.widgets.job_view"].add("dashboard.shared.solve.solve_charts")
    imports["dashboard.shared.safe"] = {"dashboard.shared.serving"}
    assert _layer_violations(imports) == {
        "dashboard.shared.serving.jobs": ["dashboard.shared.widgets.present.is_presenting"],
        "dashboard.shared.widgets.job_view": ["dashboard.shared.solve.solve_charts"],
        "dashboard.shared.safe": ["dashboard.shared.serving"]}
