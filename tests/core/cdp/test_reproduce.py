"""Reproductions of paper 000 (slow: run with `pytest -m slow`)."""
from __future__ import annotations

import json

import pytest

from core.cdp.reproduce import REPRODUCTIONS


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(REPRODUCTIONS))
def test_quick_reproduction_is_json_with_the_paper_beside(name, monkeypatch):
    monkeypatch.delenv("PUX_DATA_DIR", raising=False)
    out = REPRODUCTIONS[name](data_dir=None, quick=True, random_state=0, progress=lambda m: None)
    assert {"parameters", "seeds", "repetitions", "summary", "paper", "notes"} <= set(out)
    assert out["repetitions"]
    json.dumps(out, default=str)


def test_every_reproduction_is_registered():
    assert set(REPRODUCTIONS) == {"cdp-table2", "cdp-fig4", "cdp-fig5", "cdp-fig6", "cdp-fig8"}
