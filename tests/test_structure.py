"""The shape of the code a newcomer walks (issue 25): measured from the source, not promised.

- ``core/`` is grouped by purpose; at most three loose modules stay at its top level.
- No source file passes 500 lines; no function passes 50 lines of code (its docstring,
  blank lines and comments not counted).
- No import circle between the project's modules, counting imports inside functions; and
  none between ``core``'s packages (``core.<package>``, issue 38): shared pieces live below
  the packages that share them.
- A page is layout only: at most 120 lines.
- Randomness has one door (:mod:`core.runtime.randomness`) and "must be one of" one wording
  (:func:`core.validation.check_choice`).
"""
from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("core", "dashboard")
MAX_FILE_LINES = 500
MAX_FUNCTION_LINES = 50
MAX_PAGE_LINES = 120
MAX_LOOSE_CORE_MODULES = 3


TEMPLATES = ROOT / "core" / "bundle" / "templates"


def _sources() -> dict[str, Path]:
    """{module name: path} of every module of the project (a bundle's script templates are code
    to fill, not modules: core/bundle/templates is left out)."""
    found = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if TEMPLATES in path.parents:
                continue
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found[".".join(parts)] = path
    return found


def _code_lines(function: ast.FunctionDef | ast.AsyncFunctionDef, lines: list[str]) -> int:
    """Lines of code of ``function``'s body: no docstring, blank line or comment."""
    body = function.body
    first = body[0]
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
        if len(body) == 1:
            return 0
        first = body[1]
    docstrings = set()
    for node in ast.walk(function):  # nested functions' docstrings are not code either
        if (isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node is not function
                and node.body and isinstance(node.body[0], ast.Expr)
                and isinstance(node.body[0].value, ast.Constant) and isinstance(node.body[0].value.value, str)):
            docstrings.update(range(node.body[0].lineno, node.body[0].end_lineno + 1))
    end = function.end_lineno
    return sum(1 for number in range(first.lineno, end + 1)
               if number not in docstrings and lines[number - 1].strip()
               and not lines[number - 1].strip().startswith("#"))


def _imports(module: str, path: Path) -> set[str]:
    """Every module or ``module.name`` that ``module`` imports, anywhere in the file."""
    found = set()
    is_package = path.name == "__init__.py"
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".") if is_package else module.split(".")[:-1]
                base = base[:len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module
            found.add(target)
            found.update(f"{target}.{alias.name}" for alias in node.names)
    return found


def _import_graph() -> dict[str, set[str]]:
    sources = _sources()
    graph = defaultdict(set)
    for module, path in sources.items():
        for name in _imports(module, path):
            if name in sources and name != module:
                graph[module].add(name)
    return graph


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index, low, on_stack, stack, circles = {}, {}, set(), [], []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            advanced = False
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                    advanced = True
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    circles.append(sorted(component))
    return circles


def test_core_keeps_at_most_three_loose_modules():
    loose = sorted(p.name for p in (ROOT / "core").glob("*.py") if p.name != "__init__.py")
    assert len(loose) <= MAX_LOOSE_CORE_MODULES, loose


def test_no_source_file_passes_500_lines():
    long = {str(p.relative_to(ROOT)): n for p in _sources().values()
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_FILE_LINES}
    assert long == {}


def test_no_function_passes_50_lines_of_code():
    long = {}
    for path in _sources().values():
        text = path.read_text(encoding="utf-8")
        lines = text.splitlines()
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if (n := _code_lines(node, lines)) > MAX_FUNCTION_LINES:
                    long[f"{path.relative_to(ROOT)}:{node.lineno} {node.name}"] = n
    assert long == {}


def test_no_import_circle():
    assert _circles(_import_graph()) == []


def test_the_circle_finder_finds_a_circle():
    assert _circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def _package(module: str) -> str:
    """A module's package of ``core``: its first two dotted parts (``core.cdp.claims`` -> ``core.cdp``)."""
    return ".".join(module.split(".")[:2])


def _package_graph(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """{package of core: the other packages of core its modules import} from a module graph."""
    packages = defaultdict(set)
    for module, imported in graph.items():
        if module.split(".")[0] != "core":
            continue
        packages[_package(module)].update(_package(name) for name in imported if name.split(".")[0] == "core")
        packages[_package(module)].discard(_package(module))
    return packages


def test_no_package_circle_in_core():
    """No strongly connected component of core's package graph holds more than one package."""
    assert _circles(_package_graph(_import_graph())) == []


def test_the_package_check_finds_a_package_circle():
    """A cycle put back between two packages (through any of their modules) is found."""
    graph = {"core.claims.claim": set(), "core.cdp.claims": {"core.claims.claim"},
             "core.papers.stories": {"core.cdp.claims"}, "dashboard.app": {"core.papers.stories"}}
    assert _circles(_package_graph(graph)) == []
    graph["core.claims.claim"] = {"core.papers.figures"}  # the claim type reaching up to the papers
    graph["core.papers.figures"] = set()
    assert _circles(_package_graph(graph)) == [["core.cdp", "core.claims", "core.papers"]]


def test_pages_are_layout_only():
    from dashboard.navigation import PAGES

    long = {spec.file: n for spec in PAGES.values()
            if (n := len((ROOT / "dashboard" / spec.file).read_text(encoding="utf-8").splitlines())) > MAX_PAGE_LINES}
    assert long == {}


def _calls(attribute_chain: str) -> dict[str, int]:
    """{file: count} of the calls whose dotted name ends with ``attribute_chain`` in core and dashboard."""
    found = {}
    for path in _sources().values():
        count = 0
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and ast.unparse(node.func).endswith(attribute_chain):
                count += 1
        if count:
            found[str(path.relative_to(ROOT))] = count
    return found


def test_generators_are_made_in_one_place():
    assert set(_calls("random.default_rng")) <= {"core/runtime/randomness.py"}


@pytest.mark.parametrize("wording", ["must be one of"])
def test_choices_are_checked_in_one_place(wording):
    places = {str(p.relative_to(ROOT)) for p in _sources().values()
              if wording in p.read_text(encoding="utf-8")}
    assert places <= {"core/validation.py"}


def test_every_name_a_core_module_exports_exists():
    """A name moved to another module leaves no stale entry in ``__all__``."""
    import importlib

    missing = {}
    for module in _sources():
        if not module.startswith("core"):
            continue
        loaded = importlib.import_module(module)
        gone = [n for n in getattr(loaded, "__all__", ()) if not hasattr(loaded, n)]
        if gone:
            missing[module] = gone
    assert missing == {}
