"""core.compare.result: the audit beside every point in the summary and in to_dict (issue 26)."""
from __future__ import annotations

import json
import math

import pandas as pd
import pytest

from core.compare.audits import AUDIT_COLUMNS, empty_audits
from core.compare.result import ComparisonResult, summarize_runs


def _runs() -> pd.DataFrame:
    rows = [("Raw table", "table", math.nan, 0, False, 0.9), ("CDP-LR", "model", 1.0, 0, True, 0.8),
            ("CDP-LR", "model", 1.0, 1, True, 0.7), ("CDP-LR", "model", 8.0, 0, True, 0.85)]
    return pd.DataFrame([{"method": m, "kind": k, "epsilon": e, "repetition": r, "is_dp": dp, "guarantee": "g",
                          "caveats": "", "utility": u} for m, k, e, r, dp, u in rows])


def _audits() -> pd.DataFrame:
    return pd.DataFrame([
        {"method": "CDP-LR", "epsilon": 1.0, "audit_claim": 1.0, "audit_lower": 1.3, "audit_ceiling": 4.2,
         "audit_runs": 500, "audit_seconds": 0.9, "audit_pair": "CDP-LR: a pair", "audit_violation": True,
         "audit_verdict": "VIOLATION: ...", "audit_note": ""},
        {"method": "CDP-LR", "epsilon": 8.0, "audit_claim": 8.0, "audit_lower": 2.0, "audit_ceiling": 4.2,
         "audit_runs": 500, "audit_seconds": 1.1, "audit_pair": "CDP-LR: a pair", "audit_violation": False,
         "audit_verdict": "the audit cannot test this claim", "audit_note": ""},
    ], columns=["method", "epsilon", *AUDIT_COLUMNS])


def _result(audits: pd.DataFrame) -> ComparisonResult:
    return ComparisonResult(_runs(), {}, {"methods": ["Raw table", "CDP-LR"], "audit_runs": 500}, audits=audits)


def test_the_summary_carries_each_points_audit_and_nothing_for_the_others():
    s = summarize_runs(_runs(), audits=_audits())
    assert list(s["method"]) == ["Raw table", "CDP-LR", "CDP-LR"] and len(s) == 3
    assert set(AUDIT_COLUMNS) <= set(s.columns)
    raw, one, eight = (s.iloc[k] for k in range(3))
    assert math.isnan(raw["audit_lower"]) and raw["audit_runs"] is None and raw["audit_violation"] is None
    assert raw["audit_verdict"] == "" and raw["audit_pair"] == ""
    assert one["utility_mean"] == pytest.approx(0.75)  # one audit per point, not per repetition
    assert (one["audit_lower"], one["audit_ceiling"]) == (1.3, 4.2)
    assert one["audit_runs"] == 500 and one["audit_violation"] is True
    assert eight["audit_violation"] is False and eight["audit_claim"] == 8.0


def test_without_audits_the_summary_is_unchanged():
    assert not any(c.startswith("audit_") for c in summarize_runs(_runs()).columns)


def test_an_empty_audit_table_gives_empty_audit_columns():
    s = summarize_runs(_runs(), audits=empty_audits())
    assert s["audit_lower"].isna().all() and (s["audit_verdict"] == "").all()


def test_audits_must_be_a_frame():
    with pytest.raises(TypeError, match="audits"):
        summarize_runs(_runs(), audits=[1])


def test_to_dict_gives_each_summary_row_its_lower_bound_and_ceiling():
    d = json.loads(json.dumps(_result(_audits()).to_dict()))
    rows = {(r["method"], r["epsilon"]): r for r in d["summary"]}
    assert rows[("CDP-LR", 1.0)]["audit_lower"] == 1.3 and rows[("CDP-LR", 1.0)]["audit_ceiling"] == 4.2
    assert rows[("CDP-LR", 1.0)]["audit_violation"] is True and rows[("CDP-LR", 1.0)]["audit_runs"] == 500
    assert rows[("Raw table", None)]["audit_lower"] is None and rows[("Raw table", None)]["audit_ceiling"] is None
    assert "audit_seconds" not in rows[("CDP-LR", 1.0)]  # wall time varies: only in "audits"
    assert [a["audit_seconds"] for a in d["audits"]] == [0.9, 1.1]


def test_a_result_made_without_audits_has_an_empty_audit_table():
    result = ComparisonResult(_runs(), {}, {})
    assert result.audits.empty and result.summary()["audit_lower"].isna().all()
