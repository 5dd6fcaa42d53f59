"""The paper-003 reproductions are registered and produce the JSON the CLI writes."""
from __future__ import annotations

import json

import pytest

from core.cli import _json_default, reproductions
from core.sskm.reproduce import ATTRIBUTES, REPRODUCTIONS, SENSITIVE, load_table


def test_three_figures_are_registered_with_the_cli():
    assert set(REPRODUCTIONS) == {"sskm-fig5", "sskm-fig6", "sskm-fig7"}
    assert set(REPRODUCTIONS) <= set(reproductions())


def test_tables_have_m_attributes_with_the_sensitive_one(data_dir):
    for name in ("adult", "nltcs"):
        for m in (5, 10):
            frame, sens = load_table(name, m, data_dir)
            assert list(frame.columns) == ATTRIBUTES[name][m]
            assert sens == SENSITIVE[name] and sens in frame.columns
            assert not frame.isna().any().any()


@pytest.mark.slow
@pytest.mark.parametrize("name", ["sskm-fig5", "sskm-fig7"])
def test_quick_run_gives_json_with_paper_beside_ours(data_dir, name):
    out = REPRODUCTIONS[name](data_dir=data_dir, quick=True, random_state=0, progress=lambda m: None)
    assert {"parameters", "seeds", "repetitions", "summary", "paper", "notes"} <= set(out)
    json.dumps(out, default=_json_default)
    assert out["repetitions"]
