"""run_solve: the answer's shape, a public reference table, an unseeded method, data errors."""
from __future__ import annotations

import json

import pandas as pd
import pytest

from core.data import load_sample
from core.decide.config import FORMAT, SolveConfig
from core.decide.run import REFERENCE_NOTE, UNSEEDED_NOTE, run_solve, solution_entry
from core.decide.selection import PRIVATE_CHOICE_NOTE
from core.decide.solve import solve_epsilon
from core.decide.target import Target
from core.validation import DataError

FAST = {"format": FORMAT, "page": "publishing", "dataset": "supplier", "target": "mae<=20",
        "epsilons": [1.0, 2.0, 4.0], "seed": 0, "repetitions": 3, "settings": {"n_queries": 20, "max_rows": 400}}
ENTRY_KEYS = {"method", "target", "direction", "met", "epsilon", "epsilon_range", "reason", "uncertainty",
              "seeded", "seeded_note", "spread", "is_dp", "curve", "value"}


def test_the_answer_says_what_was_solved_and_the_private_choice():
    out = run_solve(SolveConfig.from_dict(FAST))
    json.dumps(out, allow_nan=False)
    assert out["schema"] == "pux-solve/1" and out["solved_on"] == "private data"
    assert out["private_choice"]["note"] == PRIVATE_CHOICE_NOTE and out["private_choice"]["chosen_on_private_data"]
    assert out["private_choice"]["private_selection_cost"]["papernot_steinke_2022_eta0"] == 8.0
    assert "per query" in out["epsilon_reads"]
    for entry in out["methods"]:
        assert set(entry) == ENTRY_KEYS and entry["target"] == {"measure": "mae", "at_most": 20}
        assert entry["uncertainty"]["repetitions"] == 3 and entry["seeded"]
        if entry["met"]:
            assert entry["epsilon_range"] == [entry["epsilon"], 4.0]
        else:
            assert entry["epsilon_range"] is None and entry["reason"]


def test_methods_pick_the_schemes_reported():
    out = run_solve(SolveConfig.from_dict({**FAST, "methods": ["DP reading"]}))
    assert [m["method"] for m in out["methods"]] == ["DP reading"] and out["methods"][0]["is_dp"]
    with pytest.raises(ValueError, match="does not run"):
        run_solve(SolveConfig.from_dict({**FAST, "methods": ["Magic"]}))


def test_a_public_reference_table_is_solved_on_and_said(tmp_path):
    public = load_sample("supplier").without_identifiers().frame.sample(300, random_state=1)
    public.to_csv(tmp_path / "public.csv", index=False)
    config_path = tmp_path / "solve.json"
    config_path.write_text(json.dumps({**FAST, "reference": "public.csv"}))
    out = run_solve(SolveConfig.from_file(config_path))
    assert out["solved_on"] == "public reference table" and out["rows"] == 300
    assert out["private_choice"]["note"] == REFERENCE_NOTE and not out["private_choice"]["chosen_on_private_data"]


def test_a_reference_table_without_the_schemas_columns_is_refused(tmp_path):
    pd.DataFrame({"a": range(20), "b": range(20)}).to_csv(tmp_path / "public.csv", index=False)
    with pytest.raises(DataError, match="lacks the column"):
        run_solve(SolveConfig.from_dict({**FAST, "reference": str(tmp_path / "public.csv")}))
    pd.DataFrame({"a": [1, 2]}).to_csv(tmp_path / "tiny.csv", index=False)
    with pytest.raises(DataError, match="reference table tiny.csv cannot be used"):
        run_solve(SolveConfig.from_dict({**FAST, "reference": str(tmp_path / "tiny.csv")}))
    with pytest.raises(DataError, match="no reference table"):
        run_solve(SolveConfig.from_dict({**FAST, "reference": str(tmp_path / "none.csv")}))


def test_data_errors_in_one_sentence():
    with pytest.raises(DataError, match="--csv"):
        run_solve(SolveConfig.from_dict({**FAST, "dataset": "csv:people.csv"}))
    with pytest.raises(DataError, match="differs"):
        run_solve(SolveConfig.from_dict({**FAST, "fingerprint": "0000"}))


def test_an_unseeded_method_says_so_and_shows_its_spread():
    curve = pd.DataFrame({"epsilon": [1, 1, 2, 2], "value": [0.5, 0.7, 0.8, 0.9]})
    sol = solve_epsilon(curve, Target.parse("accuracy>=0.75"), method="MST")
    spread = [{"epsilon": 1.0, "sd": 0.14, "min": 0.5, "max": 0.7, "n": 2}]
    entry = solution_entry(sol, seeded=False, spread=spread)
    assert not entry["seeded"] and entry["seeded_note"] == UNSEEDED_NOTE and entry["spread"] == spread
    assert solution_entry(sol)["spread"] is None


def test_a_compare_measure_is_solved_per_method():
    out = run_solve(SolveConfig.from_dict({
        "format": FORMAT, "page": "compare", "dataset": "census", "target": "utility>=0.7", "epsilons": [1.0, 4.0],
        "seed": 0, "repetitions": 2, "methods": ["Raw table", "kRR"], "settings": {"max_rows": 300}}))
    raw, krr = out["methods"]
    assert raw["method"] == "Raw table" and raw["epsilon"] is None and "takes no epsilon" in raw["reason"]
    assert krr["method"] == "kRR" and krr["curve"]["grid"] == [1.0, 4.0]
    assert krr["is_dp"] is False and "nominal" in krr["reason"]  # kRR's table is not DP (the registry says so)
