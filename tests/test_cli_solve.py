"""``pux solve``: the example end to end, the same epsilon as the pages' own runs, errors in one sentence."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.data import load_sample
from core.decide.config import SolveConfig
from core.decide.pages import publishing_data, schema_subset, scheme_runs
from core.decide.run import run_solve
from core.decide.solve import solve_summary
from core.privacy.schema_builtin import schema_for
from dashboard import cli
from dashboard.cdp.jobs import run_curves, run_mae, run_publishing, run_schemes

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "solve.json"
ENTRY_KEYS = {"method", "target", "direction", "met", "epsilon", "epsilon_range", "reason", "uncertainty",
              "seeded", "seeded_note", "spread", "is_dp", "curve", "value"}


def _without_seconds(answer: dict) -> dict:
    return {k: v for k, v in answer.items() if k != "seconds"}


@pytest.fixture(scope="module")
def example_answer():
    return run_solve(SolveConfig.from_file(EXAMPLE))


def test_example_prints_the_json_of_a_direct_run(capsys, example_answer):
    assert cli.main(["solve", "--config", str(EXAMPLE)]) == 0
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    printed = json.loads(captured.out)
    assert _without_seconds(printed) == _without_seconds(json.loads(json.dumps(example_answer)))
    assert printed["schema"] == "pux-solve/1" and printed["target"] == {"measure": "accuracy", "at_least": 0.6}
    assert "private selection" in printed["private_choice"]["note"]
    assert {m["method"] for m in printed["methods"]} == {"Non-private", "Group", "Zhang", "Proposed", "DP reading"}
    for entry in printed["methods"]:
        assert set(entry) == ENTRY_KEYS
        assert set(entry["uncertainty"]) == {"epsilon_low", "epsilon_high", "epsilon_high_beyond_range",
                                             "repetitions", "confidence"}
        assert (entry["epsilon_range"] is None) == (entry["epsilon"] is None)


def test_the_cdp_lr_page_gives_the_same_epsilon(example_answer):
    config = SolveConfig.from_file(EXAMPLE)
    s = config.settings
    dataset = load_sample(config.dataset).without_identifiers()  # the page's dataset (1,160 rows: no sampling)
    setup, mats = run_schemes(None, dataset=dataset, threshold=s["threshold"], measure=s["measure"], tc=s["tc"],
                              seed=config.seed, schema=schema_for(dataset))
    _, runs = run_curves(None, setup=setup, mats=mats, epsilons=config.epsilons, noise_method=s["noise_method"],
                         preset=s["preset"], repetitions=config.repetitions, seed=config.seed)
    page = {sol.method: sol.to_dict() for sol in solve_summary(scheme_runs(runs), config.target)}
    for entry in example_answer["methods"]:
        assert entry["epsilon"] == page[entry["method"]]["epsilon"]
        assert entry["uncertainty"]["epsilon_low"] == page[entry["method"]]["epsilon_low"]


def test_the_publishing_page_gives_the_same_epsilon():
    config = SolveConfig.from_dict({"format": "pux-solve/1", "page": "publishing", "dataset": "supplier",
                                    "target": "mae<=20", "epsilons": [0.5, 1.0, 2.0, 4.0], "seed": 3,
                                    "repetitions": 3, "settings": {"n_queries": 40}})
    answer = run_solve(config)
    dataset = load_sample("supplier").without_identifiers()
    data = publishing_data(dataset, True, config.seed)
    setup = run_publishing(None, dataset=data, measure="pearson", threshold=0.8, tc=40.0, n_queries=40,
                           seed=config.seed, schema=schema_subset(schema_for(dataset), data))
    _, runs = run_mae(None, setups=(("pearson", setup),), epsilons=config.epsilons, repetitions=3,
                      budget="per_query", seed=config.seed)
    page = {sol.method: sol.epsilon for sol in solve_summary(scheme_runs(runs), config.target)}
    assert {m["method"]: m["epsilon"] for m in answer["methods"]} == page


def test_out_writes_the_file(tmp_path, capsys):
    out = tmp_path / "sub" / "answer.json"
    assert cli.main(["solve", "--config", str(EXAMPLE), "--out", str(out)]) == 0
    assert f"wrote {out}" in capsys.readouterr().err
    assert json.loads(out.read_text())["schema"] == "pux-solve/1"


def _one_line_error(capsys) -> str:
    err = capsys.readouterr().err
    assert "Traceback" not in err
    lines = [line for line in err.splitlines() if line.strip() and not line.startswith("[")]
    assert len(lines) == 1, err
    return lines[0]


@pytest.mark.parametrize("text, words", [
    ("{broken", "not valid JSON"),
    (json.dumps({"format": "pux-solve/1", "page": "cdp_lr"}), "lacks"),
    (json.dumps({"format": "pux-solve/1", "page": "cdp_lr", "dataset": "supplier", "target": "mae<=1",
                 "epsilons": [1], "seed": 0}), "curve is accuracy"),
])
def test_bad_config_exits_2(tmp_path, capsys, text, words):
    path = tmp_path / "solve.json"
    path.write_text(text)
    assert cli.main(["solve", "--config", str(path)]) == 2
    line = _one_line_error(capsys)
    assert line.startswith("pux: ") and words in line


def test_missing_config_exits_2(tmp_path, capsys):
    assert cli.main(["solve", "--config", str(tmp_path / "nope.json")]) == 2
    assert "no config file" in _one_line_error(capsys)


def test_csv_config_without_csv_exits_1(tmp_path, capsys):
    data = json.loads(EXAMPLE.read_text())
    data["dataset"] = "csv:people.csv"
    path = tmp_path / "solve.json"
    path.write_text(json.dumps(data))
    assert cli.main(["solve", "--config", str(path)]) == 1
    assert "--csv PATH" in _one_line_error(capsys)
