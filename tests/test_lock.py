"""The locked install (issue 27): ``requirements/lock.txt`` agrees with ``pyproject.toml``
and with the environment the tests run in.

``scripts/setup_env.sh`` installs every package with ``-c requirements/lock.txt``, so a
fresh machine gets the lock's versions. These tests fail (and ``make test`` with them)
when someone edits the dependencies in ``pyproject.toml`` without running ``make lock``,
edits the lock by hand into something pip would not pin, or runs the tests in a virtualenv
older than the lock.
"""
from __future__ import annotations

import importlib.metadata
import tomllib
from pathlib import Path

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[1]
LOCK = ROOT / "requirements" / "lock.txt"
#: the extras scripts/setup_env.sh installs (and so the lock holds)
LOCKED_EXTRAS = ("dev", "bench")
UPGRADE = "edit pyproject.toml, run `make lock`, then `make test`, and commit both files"


def _lock_lines() -> list[str]:
    """The lock's requirement lines, comments and blank lines left out."""
    lines = (line.split("#", 1)[0].strip() for line in LOCK.read_text().splitlines())
    return [line for line in lines if line]


def _lock_pins() -> dict[str, Version]:
    """{PEP 503 name: pinned version} of every ``name==version`` line of the lock."""
    pins = {}
    for line in _lock_lines():
        req = Requirement(line)
        (spec,) = req.specifier
        pins[canonicalize_name(req.name)] = Version(spec.version)
    return pins


def _direct_requirements() -> list[Requirement]:
    """``[project] dependencies`` and the locked extras of pyproject.toml, whose markers
    hold here (``dask[distributed]`` keeps its extra; its base name is what the lock pins)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    specs = list(project["dependencies"])
    for extra in LOCKED_EXTRAS:
        specs += project["optional-dependencies"][extra]
    reqs = [Requirement(spec) for spec in specs]
    return [req for req in reqs if req.marker is None or req.marker.evaluate({"extra": ""})]


def test_lock_exists_with_a_header_saying_how_it_was_made() -> None:
    text = LOCK.read_text()
    assert text.startswith("#"), "requirements/lock.txt starts with a comment saying how it was made"
    assert "make lock" in text


def _bad_lines(lines: list[str]) -> list[str]:
    """The lines that are not a plain ``name==version`` pin without a local build suffix."""
    bad = []
    for line in lines:
        try:
            req = Requirement(line)
        except InvalidRequirement:
            bad.append(f"{line!r} (not a requirement)")
            continue
        specs = list(req.specifier)
        if req.url or req.extras or req.marker or len(specs) != 1 or specs[0].operator != "==":
            bad.append(f"{line!r} (not a plain name==version pin)")
        elif Version(specs[0].version).local is not None:
            bad.append(f"{line!r} (a local build suffix: torch's CPU or GPU build comes from the index)")
    return bad


def _disagreements(reqs: list[Requirement], pins: dict[str, Version]) -> list[str]:
    """pyproject requirements the lock does not pin, or pins outside their specifier."""
    found = []
    for req in reqs:
        name = canonicalize_name(req.name)
        if name not in pins:
            found.append(f"{req} (not in the lock)")
        elif not req.specifier.contains(pins[name], prereleases=True):
            found.append(f"{req} (locked {pins[name]})")
    return found


def test_every_lock_line_is_one_exact_pin() -> None:
    bad = _bad_lines(_lock_lines())
    assert not bad, f"requirements/lock.txt has lines pip would not pin exactly: {bad}; {UPGRADE}"


def test_the_line_check_rejects_ranges_urls_and_local_builds() -> None:
    lines = ["numpy>=2", "torch==2.13.0+cpu", "minepy @ file:///tmp/minepy-1.2.6", "numpy", "pandas==3.1.1"]
    assert len(_bad_lines(lines)) == 4


def test_lock_pins_each_package_once() -> None:
    names = [canonicalize_name(Requirement(line).name) for line in _lock_lines()]
    twice = sorted({name for name in names if names.count(name) > 1})
    assert not twice, f"requirements/lock.txt pins these more than once: {twice}; {UPGRADE}"


def test_every_direct_dependency_is_locked_within_pyprojects_specifier() -> None:
    found = _disagreements(_direct_requirements(), _lock_pins())
    assert not found, f"pyproject.toml and requirements/lock.txt disagree: {found}; {UPGRADE}"


def test_the_agreement_check_reports_a_pin_outside_the_specifier_and_a_missing_pin() -> None:
    reqs = [Requirement("Dask[distributed]>=2024.8"), Requirement("numpy>=3"), Requirement("faiss-cpu==1.15.1")]
    pins = {"dask": Version("2026.8.0"), "numpy": Version("2.4.6")}
    assert _disagreements(reqs, pins) == ["numpy>=3 (locked 2.4.6)", "faiss-cpu==1.15.1 (not in the lock)"]


def test_installed_versions_of_the_direct_dependencies_match_the_lock() -> None:
    pins = _lock_pins()
    stale = []
    for req in _direct_requirements():
        name = canonicalize_name(req.name)
        try:
            installed = Version(importlib.metadata.version(name))
        except importlib.metadata.PackageNotFoundError:
            stale.append(f"{name} (not installed)")
            continue
        # public versions: torch 2.13.0+cpu is the lock's torch==2.13.0
        if name in pins and installed.public != pins[name].public:
            stale.append(f"{name} {installed} (locked {pins[name]})")
    assert not stale, (f"this environment is older or newer than requirements/lock.txt: {stale}; "
                       "run `make setup` (bash scripts/setup_env.sh) to install the locked versions")
