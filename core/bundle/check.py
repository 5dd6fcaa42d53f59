"""Number by number: does a rerun give the bundle's numbers?

:func:`compare_trees` walks two JSON trees (``result.json`` and ``rerun.json``) side by side and
gives one :class:`Check` per leaf: numbers within a tolerance (same seed and machine: equal;
the default tolerance only absorbs the last digits that another thread count can move),
strings, booleans and nulls equal, NaN equal to NaN. Wall times (:data:`IGNORED`) differ by
nature and are not compared; a path on one side only is a mismatch.
"""
from __future__ import annotations

import difflib
import math
import numbers
from dataclasses import dataclass
from typing import Any, Iterator

__all__ = ["IGNORED", "RTOL", "ATOL", "Check", "compare_trees", "report_lines", "script_difference"]

#: Keys whose values are wall-clock times or dates: never compared.
IGNORED = frozenset({"seconds", "audit_seconds", "created", "wall_s"})
#: Default relative and absolute tolerances: equal up to what another thread count moves
#: (summation order in BLAS reductions; measured below 1e-9 relative on this project's numbers).
RTOL = 1e-7
ATOL = 1e-9


@dataclass(frozen=True)
class Check:
    """One number (or string) of the bundle against the rerun's."""

    path: str
    expected: Any
    actual: Any
    ok: bool


def _leaves(tree: Any) -> Iterator[tuple[str, Any]]:
    """Every leaf and its path, depth first in the tree's order (iterative: no depth limit)."""
    stack: list[tuple[str, Any]] = [("", tree)]
    while stack:
        path, node = stack.pop()
        if isinstance(node, dict):
            children = [(f"{path}.{k}" if path else str(k), v) for k, v in node.items() if k not in IGNORED]
        elif isinstance(node, list):
            children = [(f"{path}[{i}]", v) for i, v in enumerate(node)]
        else:
            yield path, node
            continue
        stack.extend(reversed(children))


def _is_number(value: Any) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def _same(a: Any, b: Any, rtol: float, atol: float) -> bool:
    if _is_number(a) and _is_number(b):
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) and math.isnan(b)
        return math.isclose(a, b, rel_tol=rtol, abs_tol=atol)
    return type(a) is type(b) and a == b


def compare_trees(expected: Any, actual: Any, *, rtol: float = RTOL, atol: float = ATOL) -> list[Check]:
    """One :class:`Check` per leaf of either tree, in ``expected``'s order, then ``actual``'s extras.

    Parameters
    ----------
    expected, actual : JSON trees
        The bundle's ``result.json`` and the rerun's ``rerun.json``.
    rtol, atol : float
        Tolerances of :func:`math.isclose` for numbers (0 and 0: exact).
    """
    for name, value in (("rtol", rtol), ("atol", atol)):
        if not _is_number(value):
            raise TypeError(f"{name} must be a number, got {type(value).__name__}.")
        if not value >= 0:
            raise ValueError(f"{name} must be 0 or more, got {value!r}.")
    want = dict(_leaves(expected))
    got = dict(_leaves(actual))
    missing = object()
    checks = [Check(p, v, got.get(p, missing), p in got and _same(v, got[p], rtol, atol)) for p, v in want.items()]
    checks += [Check(p, missing, v, False) for p, v in got.items() if p not in want]
    return [Check(c.path, None if c.expected is missing else c.expected, None if c.actual is missing else c.actual,
                  c.ok) for c in checks]


def report_lines(checks: list[Check], *, every: bool = False, limit: int = 50) -> list[str]:
    """What a rerun says: each mismatch (at most ``limit``; every check with ``every``), then the count."""
    lines = []
    shown = [c for c in checks if every or not c.ok]
    for c in shown[:limit]:
        mark = "match   " if c.ok else "MISMATCH"
        lines.append(f"{mark} {c.path}: bundle {c.expected!r}, rerun {c.actual!r}")
    if len(shown) > limit:
        lines.append(f"... and {len(shown) - limit} more")
    bad = sum(not c.ok for c in checks)
    lines.append(f"{len(checks) - bad} of {len(checks)} numbers match" + ("." if not bad else f"; {bad} do not."))
    return lines


def script_difference(expected: bytes, actual: bytes, *, limit: int = 200) -> list[str]:
    """A unified diff of two scripts (the one this version writes, the bundle's), at most
    ``limit`` lines; bytes that are not UTF-8 are shown escaped."""
    if not isinstance(expected, bytes) or not isinstance(actual, bytes):
        raise TypeError("expected and actual must be bytes.")
    want = expected.decode("utf-8", "backslashreplace").splitlines()
    got = actual.decode("utf-8", "backslashreplace").splitlines()
    lines = list(difflib.unified_diff(want, got, "rerun.py (this version)", "rerun.py (the bundle's)", lineterm=""))
    if expected != actual and not lines:  # the same lines, other line ends or bytes
        lines = ["the scripts have the same lines but differ in their bytes (line ends or encoding)"]
    return lines[:limit] + ([f"... and {len(lines) - limit} more lines"] if len(lines) > limit else [])
