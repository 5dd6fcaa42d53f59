"""The Compare page in AppTest: a small comparison on the census sample."""
from __future__ import annotations

import pytest

from tests.dashboard.conftest import assert_clean, finish_sweeps

#: quick methods (no generator training): the page's wiring, not the methods, is tested here
FAST = ["Raw table", "kRR", "MDAV", "CDP-LR", "Logistic regression (non-private)"]


@pytest.fixture
def compared(open_page):
    """The page on a small comparison: every setting changed before one run, so no job
    starts for the settings on the way (each would start a process only to be stopped)."""
    from dashboard.shared.serving.sweeps import FINISHED

    FINISHED.clear()  # each test's page computes its own comparison (its job holds the result)
    at = open_page("compare", timeout=300)
    at.multiselect(key="cmp_methods").set_value(FAST)
    at.multiselect(key="cmp_eps").set_value(["1"])
    at.number_input(key="cmp_reps").set_value(1)
    at.selectbox(key="cmp_rows").set_value("500")
    return finish_sweeps(at.run())


def _jobs(at):
    return at.session_state["pux_sweep_jobs"] if "pux_sweep_jobs" in at.session_state else {}


def test_page_draws_the_frontier_the_table_and_the_takeaway(compared):
    at = compared
    assert_clean(at)
    assert any(c.value.startswith("Every method releases the same training part") for c in at.caption)
    takeaway = at.info[0].value
    assert "keeps the most utility" in takeaway or "No method" in takeaway or "No recommendation" in takeaway
    table = at.dataframe[0].value
    assert set(FAST) == set(table["method"])
    assert {"utility", "attribute inference", "DCR excess", "membership AUC"} <= set(table.columns)
    # honest wording: a badge and the ledger sentence per release, the measures read the private data
    rows = table.set_index("method")
    assert rows.loc["Raw table", "DP"] == "NOT DP" and rows.loc["CDP-LR", "DP"] == "yes"
    assert rows.loc["kRR", "guarantee"].startswith("not differentially private (epsilon 1 is nominal)")
    assert rows.loc["kRR", "ledger"].startswith("Not differentially private")
    assert any("evaluated on your private data" in c.value for c in at.caption)
    assert any("Not differentially private" in w.value and "Raw table" in w.value for w in at.warning)
    assert any("CDP" in s.value and "differentially private" in s.value for s in at.success)


def test_moving_the_risk_axis_recomputes_nothing(compared):
    at = compared
    before = {k: id(j) for k, j in _jobs(at).items()}
    at.selectbox(key="cmp_risk").set_value("mia_auc").run()
    assert_clean(at)
    assert {k: id(j) for k, j in _jobs(at).items()} == before
    assert not any(j.running for j in _jobs(at).values())
    assert "membership" in at.info[0].value.lower() or "No method" in at.info[0].value
    # every risk is read against the raw table and its control (the references table)
    refs = at.dataframe[1].value
    assert {"measure", "raw table / non-private model", "control / constant guess", "attack has power"} <= set(
        refs.columns)


def test_the_frontier_reads_roc_auc_by_default_and_switches_utility_without_recomputing(compared):
    at = compared
    box = at.selectbox(key="cmp_utility")
    assert box.value == "utility_auc" and set(box.options) >= {"ROC AUC", "Accuracy", "Balanced accuracy"}
    assert "ROC AUC" in at.info[0].value or "No recommendation" in at.info[0].value
    table = at.dataframe[0].value
    assert {"ROC AUC", "balanced accuracy"} <= set(table.columns)
    refs = at.dataframe[1].value
    assert {"utility (ROC AUC)", "utility (balanced accuracy)"} <= set(refs["measure"])
    before = {k: id(j) for k, j in _jobs(at).items()}
    box.set_value("utility_balanced").run()
    assert_clean(at)
    assert {k: id(j) for k, j in _jobs(at).items()} == before
    spec = next(c.proto.spec for c in at.get("plotly_chart") if c.key == "cmp_frontier")
    assert "Balanced accuracy against" in spec


def test_without_methods_the_page_asks_for_one(open_page):
    at = open_page("compare", timeout=120)
    at.multiselect(key="cmp_methods").set_value([]).run()
    assert_clean(at)
    assert any("Tick at least one method" in i.value for i in at.info)


def test_the_saved_settings_rerun_the_same_numbers_from_the_command_line(compared, tmp_path):
    """The page's run.json through `pux compare` gives the page's runs, and a report."""
    import json

    import pandas as pd

    from dashboard.cli import main
    from dashboard.compare import cached

    result = _jobs(compared)["cmp_run"].result
    config = cached.run_config(result, upload_name=None, risk="ai_advantage")
    (tmp_path / "run.json").write_text(config.to_json())
    code = main(["compare", "--config", str(tmp_path / "run.json"), "--out", str(tmp_path / "report.html"),
                 "--json", str(tmp_path / "result.json")])
    assert code == 0
    cli_runs = pd.DataFrame(json.loads((tmp_path / "result.json").read_text())["runs"])
    page_runs = pd.DataFrame(result.to_dict()["runs"])
    pd.testing.assert_frame_equal(cli_runs, page_runs)
    html = (tmp_path / "report.html").read_text()
    assert result.takeaway(risk="ai_advantage").split(":")[0] in html
    assert config.fingerprint in html


def test_the_pages_solved_epsilons_are_pux_solves_on_the_config_it_downloads(open_page, downloads):
    """Done-when of issue 26: the page and `pux solve` give the same epsilon for the same target and
    seed. The page's solve panel on a comparison, against `pux solve` on the solve.json it hands out."""
    import math

    from core.decide.config import SolveConfig
    from core.decide.run import run_solve

    at = open_page("compare", timeout=300)
    at.multiselect(key="cmp_methods").set_value(["kRR", "CDP-LR"]).run()
    at.multiselect(key="cmp_eps").set_value(["0.5", "1", "2", "5"]).run()
    at.number_input(key="cmp_reps").set_value(2).run()
    at.selectbox(key="cmp_rows").set_value("500").run()
    at.selectbox(key="cmp_audit_runs").set_value(0).run()
    at = finish_sweeps(at)
    at.number_input(key="cmp_solve_target_utility").set_value(0.7).run()
    assert_clean(at)
    answers = next(d.value for d in at.dataframe if "meets the target" in d.value.columns).set_index("method")

    solve = SolveConfig.from_json(downloads(at, "cmp_solve_config").decode("utf-8"))
    assert solve.page == "compare" and (solve.target.measure, solve.target.threshold) == ("utility", 0.7)
    cli = {m["method"]: m for m in run_solve(solve)["methods"]}
    assert set(cli) == set(answers.index) == {"kRR", "CDP-LR"}
    for method, entry in cli.items():
        page = answers.loc[method, "epsilon"]
        assert (entry["epsilon"] is None and math.isnan(page)) or entry["epsilon"] == page, method
    assert any(entry["epsilon"] is not None for entry in cli.values())  # a case where an epsilon is found


def test_the_frontier_fills_in_as_each_method_finishes(open_page, monkeypatch):
    """While the comparison runs, the methods measured so far are drawn with what is still to
    come; the takeaway waits for every method."""
    import threading

    from dashboard.compare import cached
    from dashboard.shared.serving.sweeps import FINISHED

    FINISHED.clear()
    first, go_on = threading.Event(), threading.Event()
    real = cached.compare

    def paused(*args, on_partial, **kwargs):
        def hand(partial):
            on_partial(partial)
            first.set()
            assert go_on.wait(120)
        return real(*args, on_partial=hand, **kwargs)

    monkeypatch.setattr(cached, "compare", paused)
    at = open_page("compare", timeout=300)
    at.multiselect(key="cmp_methods").set_value(FAST)
    at.multiselect(key="cmp_eps").set_value(["1"])
    at.number_input(key="cmp_reps").set_value(1)
    at.selectbox(key="cmp_rows").set_value("500")
    at.run()
    try:
        assert first.wait(120)
        at.run()
        assert not at.exception
        partial = [c for c in at.get("plotly_chart") if c.key == "cmp_frontier_partial"]
        assert partial and "(so far)" in partial[0].proto.spec
        tables = [list(d.value["method"].unique()) for d in at.dataframe if "method" in d.value]
        assert ["Raw table"] in tables, tables  # the table fills in too
        words = [c.value.replace("\\", "") for c in at.caption]  # markdown escapes dropped
        assert any("1 of 5 methods measured" in w and "still running: kRR" in w for w in words), words
        assert not any("keeps the most utility" in i.value for i in at.info)  # the takeaway waits
        assert any(b.key == "cmp_run_stop" for b in at.button)
    finally:
        go_on.set()
    finish_sweeps(at)
    assert_clean(at)
    keys = [c.key for c in at.get("plotly_chart")]
    assert "cmp_frontier" in keys and "cmp_frontier_partial" not in keys


def test_presenting_runs_no_audit_unless_asked_for(open_page):
    at = open_page("compare", timeout=300)
    at.multiselect(key="cmp_methods").set_value(["Raw table", "kRR"])
    at.multiselect(key="cmp_eps").set_value(["1"])
    at.session_state["present"] = True
    at.run()
    assert _jobs(at)["cmp_run"].sweep.kwargs["audit_runs"] == 0
    assert at.session_state["pux_cmp_audits_off"]  # said under the frontier
    at.selectbox(key="cmp_audit_runs").set_value(200).run()  # chosen: presenting runs them
    assert _jobs(at)["cmp_run"].sweep.kwargs["audit_runs"] == 200
