"""The paper-003 reproductions are registered, produce the JSON the CLI writes, and report
checks that agree with their own summaries."""
from __future__ import annotations

import json

import numpy as np
import pytest

import core.sskm.reproduce as reproduce
from core.papers.reproductions import json_default
from core.papers.reproductions import reproductions
from core.data import load_sample
from core.runtime.experiments import Reproduction
from core.sskm.reproduce import ATTRIBUTES, MODES, REPRODUCTIONS, SENSITIVE, load_table
from core.sskm.paper import EPSILONS, M_VALUES, PAPER

_COLUMNS = ["age", "sex", "workclass", "education_num", "marital_status", "occupation", "relationship",
            "hours_per_week", "education", "income"]


@pytest.fixture(scope="module")
def tiny():
    """Every reproduction in quick mode on 600 census rows with a small SOM (seconds, no data files)."""
    census = load_sample("census").frame[_COLUMNS].head(600)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(reproduce, "load_table", lambda name, m, data_dir=None: (census[_COLUMNS[:m]], "sex"))
        mp.setattr(reproduce, "SOM_ITERATIONS", 500)
        mp.setattr(reproduce, "GRIDS", ((3, 3), (3, 3), (4, 4), (4, 4)))
        mp.setattr(reproduce, "A_VALUES", (10, 25, 50))
        reproduce._SWEEPS.clear()
        yield {name: fn(quick=True, random_state=0, progress=lambda m: None) for name, fn in REPRODUCTIONS.items()}
        reproduce._SWEEPS.clear()


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


@pytest.mark.parametrize("name", ["sskm-fig5", "sskm-fig6", "sskm-fig7"])
def test_result_is_json_with_paper_beside_ours(tiny, name):
    rep = tiny[name]
    assert isinstance(rep, Reproduction) and rep.name == name
    out = rep.to_dict()
    assert list(out) == ["name", "parameters", "seeds", "repetitions", "summary", "paper", "notes"]
    json.loads(json.dumps(out, default=json_default))
    assert rep.runs and rep.summary["checks"] and rep.checks
    assert rep.paper == PAPER[name]


@pytest.mark.parametrize("name, metric", [("sskm-fig5", "mse"), ("sskm-fig6", "rl")])
def test_fig56_checks_agree_with_the_runs(tiny, name, metric):
    rep = tiny[name]
    runs = rep.runs_frame()
    checks = rep.summary["checks"]
    assert set(checks) == {f"{mode} m={m}" for mode in MODES for m in M_VALUES}
    trend = "decreasing_as_epsilon_grows" if metric == "mse" else "increasing_as_epsilon_grows"
    mine = {k: v for k, v in rep.checks.items() if k.startswith("checks: ")}
    assert mine == {f"checks: {key}: {trend}": check[trend] for key, check in checks.items()}
    for mode in MODES:
        for m in M_VALUES:
            check = checks[f"{mode} m={m}"]
            mine = runs[(runs["mode"] == mode) & (runs["m"] == m)].groupby("epsilon")[metric].mean()
            by_eps = check[f"{metric}_by_epsilon"]
            assert list(by_eps) == [str(e) for e in EPSILONS]
            assert np.allclose(list(by_eps.values()), mine.loc[list(EPSILONS)].to_numpy(), rtol=1e-12)
            steps = np.diff(list(by_eps.values()))
            if metric == "mse":
                assert check["decreasing_as_epsilon_grows"] == bool(np.all(steps < 0))
            else:
                assert check["increasing_as_epsilon_grows"] == bool(np.all(steps >= 0))


def test_fig5_sound_mse_falls_from_the_smallest_to_the_largest_epsilon(tiny):
    """The paper's Fig. 5 claim at its two ends, for the DP mode (noise scale 100 times smaller)."""
    for m in M_VALUES:
        by_eps = list(tiny["sskm-fig5"].summary["checks"][f"sound m={m}"]["mse_by_epsilon"].values())
        assert by_eps[0] > by_eps[-1]


def test_fig7_checks_compare_each_method_per_dataset_m_and_a(tiny):
    rep = tiny["sskm-fig7"]
    checks = rep.summary["checks"]
    a_values = rep.parameters["a"]
    assert set(checks) == {f"{d} m={m} a={a}" for d in ("adult", "nltcs") for m in M_VALUES
                           for a in a_values}
    ours = {"sskm": "mse_sskm_dp_mean", "sskm_paper": "mse_sskm_dp_paper_mean"}
    theirs = {"mdav": "mse_mdav_mean", "mdav_dp": "mse_mdav_dp_mean", "idp_kmeans": "mse_idp_kmeans_mean"}
    for r in rep.summary["by_a"]:
        key = f"{r['dataset']} m={r['m']} a={r['a']}"
        compared = {f"{o}_below_{t}": bool(r[oc] < r[tc])
                    for o, oc in ours.items() for t, tc in theirs.items()}
        assert checks[key] == compared
        assert {name: rep.checks[f"checks: {key}: {name}"] for name in compared} == compared
    assert len([k for k in rep.checks if k.startswith("checks: ")]) == len(checks) * len(ours) * len(theirs)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["sskm-fig5", "sskm-fig7"])
def test_quick_run_on_the_real_data_gives_json(data_dir, name):
    rep = REPRODUCTIONS[name](data_dir=data_dir, quick=True, random_state=0, progress=lambda m: None)
    assert isinstance(rep, Reproduction) and rep.name == name
    json.dumps(rep.to_dict(), default=json_default)
    assert rep.runs and rep.summary["checks"] and rep.checks


@pytest.mark.parametrize("name", ["sskm-fig5", "sskm-fig6"])
def test_fig56_summary_carries_the_claim_per_mode(tiny, name):
    claims = tiny[name].summary["claim"]
    assert set(claims) == set(MODES)
    for mode, claim in claims.items():
        assert claim["paper"] == PAPER[name] and claim["holds"] in (True, False, None)
        assert claim["finding"].startswith({"sound": "Sound mode", "paper": "Paper mode"}[mode])


def test_fig7_summary_carries_the_claim_per_mode_dataset_and_m(tiny):
    claims = tiny["sskm-fig7"].summary["claim"]
    assert set(claims) == {f"{mode} {d} m={m}" for mode in MODES for d in ("adult", "nltcs")
                           for m in M_VALUES}
    assert all(c["paper"] == PAPER["sskm-fig7"] for c in claims.values())
