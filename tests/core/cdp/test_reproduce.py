"""Reproductions of paper 000 (slow: run with `pytest -m slow`): each returns a Reproduction
whose JSON is what the CLI writes and whose checks agree with its own numbers."""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from core.cdp.schedule import PRESETS
from core.cdp.reproduce import REPRODUCTIONS
from core.papers.reproductions import json_default
from core.runtime.experiments import Reproduction

# without a data directory the reproductions run on the supplier sample (with and without
# its product columns): seconds, no data files
DATASETS = ("supplier", "supplier-6")


@pytest.fixture(scope="module")
def quick():
    with pytest.MonkeyPatch.context() as mp:
        mp.delenv("PUX_DATA_DIR", raising=False)
        yield {name: fn(data_dir=None, quick=True, random_state=0, progress=lambda m: None)
               for name, fn in REPRODUCTIONS.items()}


def test_every_reproduction_is_registered():
    assert set(REPRODUCTIONS) == {"cdp-fig1", "cdp-table2", "cdp-fig4", "cdp-fig5", "cdp-fig6", "cdp-fig8"}


def test_fig1_runs_quick_on_the_supplier_sample_with_its_claims(monkeypatch):
    monkeypatch.delenv("PUX_DATA_DIR", raising=False)
    rep = REPRODUCTIONS["cdp-fig1"](data_dir=None, quick=True, random_state=0, progress=lambda m: None)
    curves = pd.DataFrame(rep.summary["curves"])
    assert set(curves["dataset"]) == set(DATASETS)
    assert len(curves[(curves.dataset == "supplier-6") & (curves.measure == "pearson")]) == 6
    assert set(rep.summary["claim"]) == {f"{d}/{m}" for d in DATASETS for m in ("pearson", "mahalanobis")}
    assert rep.paper["fig1"] == rep.summary["claim"]["supplier/pearson"]["paper"]
    json.loads(json.dumps(rep.to_dict(), default=json_default))


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(REPRODUCTIONS))
def test_quick_reproduction_is_json_with_the_paper_beside(quick, name):
    rep = quick[name]
    assert isinstance(rep, Reproduction) and rep.name == name
    out = rep.to_dict()
    assert list(out) == ["name", "parameters", "seeds", "repetitions", "summary", "paper", "notes"]
    assert rep.runs and rep.paper and rep.seeds == {"random_state": 0}
    json.loads(json.dumps(out, default=json_default))


def _mean_over_grid(curves: pd.DataFrame, value: str, by: str, **where) -> dict[str, float]:
    mine = curves
    for column, wanted in where.items():
        mine = mine[mine[column] == wanted]
    return mine.groupby(by)[value].mean().to_dict()


@pytest.mark.slow
def test_fig4_checks_proposed_against_group_from_its_curves(quick):
    rep = quick["cdp-fig4"]
    curves = pd.DataFrame(rep.summary["curves"])
    assert {k for k in rep.checks if k.endswith("proposed_ge_group")} == {
        f"checks: {d}/{p}: proposed_ge_group" for d in DATASETS for p in PRESETS}
    for d in DATASETS:
        for p in PRESETS:
            entry = rep.summary["checks"][f"{d}/{p}"]
            means = _mean_over_grid(curves, "accuracy_mean", "scheme", dataset=d, preset=p)
            assert entry["mean_accuracy_over_grid"] == pytest.approx(means, rel=1e-12)
            assert rep.checks[f"checks: {d}/{p}: proposed_ge_group"] == (means["Proposed"] >= means["Group"])
            # the claim is read against the constant guess of the shared test part: a
            # verdict, or "cannot be judged" saying the constant guess explains the curves
            claim = entry["claim"]
            assert "test rows" in entry["constant_guess"]
            assert claim["holds"] is not None or "majority class" in claim["finding"]
    # and each curve point is the mean of its repetitions
    runs = rep.runs_frame()
    by_point = runs.groupby(["dataset", "preset", "scheme", "epsilon"])["accuracy"].mean()
    for row in rep.summary["curves"]:
        key = (row["dataset"], row["preset"], row["scheme"], row["epsilon"])
        assert row["accuracy_mean"] == pytest.approx(by_point[key], rel=1e-12)


@pytest.mark.slow
def test_fig5_means_over_the_grid_come_from_its_curves(quick):
    rep = quick["cdp-fig5"]
    # the one check is the claim (method 1 within 0.01 of the best private method), read
    # against the constant guess: judged, or "cannot be judged" when the guess explains it
    judged = {f"claim: {d}/{p}: holds" for d in DATASETS for p in PRESETS
              if rep.summary["claim"][f"{d}/{p}"]["holds"] is not None}
    assert set(rep.checks) == judged
    for key, claim in rep.summary["claim"].items():
        assert claim["holds"] is not None or "majority class" in claim["finding"]
    curves = pd.DataFrame(rep.summary["curves"])
    for d in DATASETS:
        for p in PRESETS:
            means = _mean_over_grid(curves, "accuracy_mean", "method", dataset=d, preset=p)
            got = rep.summary["mean_accuracy_over_grid"][f"{d}/{p}"]
            assert got == pytest.approx({int(k): v for k, v in means.items()}, rel=1e-12)
            # methods 1 and 3 are the same distribution with common random numbers
            assert got[1] == pytest.approx(got[3], rel=1e-12)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["cdp-fig6", "cdp-fig8"])
def test_mae_figures_report_the_means_of_their_curves(quick, name):
    rep = quick[name]
    assert rep.checks and all("claim" in k for k in rep.checks)  # the only checks are the paper's claims
    curves = pd.DataFrame(rep.summary["curves"])
    for key, entry in rep.summary["checks"].items():
        where = dict(zip(("dataset", "measure"), key.split("/")))
        means = _mean_over_grid(curves, "mae_mean", "scheme", **where)
        assert entry["mean_mae_over_grid"] == pytest.approx(means, rel=1e-12)


@pytest.mark.slow
def test_fig6_proposed_is_below_group_as_in_the_paper(quick):
    for d in DATASETS:
        mae = quick["cdp-fig6"].summary["checks"][d]["mean_mae_over_grid"]
        assert mae["Proposed"] < mae["Group"]


@pytest.mark.slow
def test_fig8_mahalanobis_is_below_pearson_for_the_proposed_scheme(quick):
    checks = quick["cdp-fig8"].summary["checks"]
    assert set(checks) == {f"{d}/{m}" for d in DATASETS for m in ("pearson", "mahalanobis")}
    for d in DATASETS:
        pearson = checks[f"{d}/pearson"]["mean_mae_over_grid"]
        mahalanobis = checks[f"{d}/mahalanobis"]["mean_mae_over_grid"]
        assert "Group" not in mahalanobis
        assert mahalanobis["Proposed"] < pearson["Proposed"]


@pytest.mark.slow
def test_table2_rows_are_the_means_of_their_runs(quick):
    rep = quick["cdp-table2"]
    assert set(rep.checks) == {f"claim: {d}: holds" for d in DATASETS}  # CS < GS at every stage
    runs = rep.runs_frame()
    for row in rep.summary["rows"]:
        if "note" in row:
            continue
        mine = runs[(runs.dataset == row["dataset"]) & (runs.stage == row["stage"])
                    & (runs.preset == row["preset"])]
        for model in ("GDP-LR", "CDP-LR"):
            acc = mine[mine.model == model]["accuracy"].to_numpy()
            assert len(acc) == 3  # quick mode
            assert row[model] == pytest.approx(float(np.mean(acc)), rel=1e-12)
            assert row[f"{model}_std"] == pytest.approx(float(np.std(acc)), rel=1e-12, abs=1e-15)
