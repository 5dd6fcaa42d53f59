"""core.correlation re-exports the public names of its modules."""
from __future__ import annotations

import importlib

import core.correlation as correlation


def test_public_names_are_reexported_from_their_modules():
    homes = {
        "maximal_information": ("mic", "mic_pairs"),
        "records": ("SensitivityReport", "correlated_sensitivity", "record_correlation", "data_correlation"),
        "association": ("attribute_association",),
    }
    for module_name, names in homes.items():
        module = importlib.import_module(f"core.correlation.{module_name}")
        for name in names:
            assert getattr(correlation, name) is getattr(module, name)
    assert sorted(correlation.__all__) == sorted(n for names in homes.values() for n in names)
