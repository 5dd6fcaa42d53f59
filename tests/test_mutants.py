"""The mutant registry (tests/mutants.py) names tests that exist."""
from __future__ import annotations

import importlib

import pytest

from tests.mutants import MUTANTS


def test_mutant_names_are_distinct():
    names = [m.name for m in MUTANTS]
    assert len(set(names)) == len(names)


@pytest.mark.parametrize("mutant", MUTANTS, ids=lambda m: m.name)
def test_the_registered_test_exists(mutant):
    path, _, func = mutant.test.partition("::")
    module = importlib.import_module(path[:-3].replace("/", "."))
    test = getattr(module, func.split("[")[0], None)
    assert callable(test), f"{mutant.test} is not a test function"
    assert "mutant" in func, "a mutant's test says so in its name"
