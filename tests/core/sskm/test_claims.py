"""Paper 003's claims of Fig. 5, 6 and 7: each rule holds on a table built to bear it out and
fails on one built against it; one map or one a leaves it undecided."""
from __future__ import annotations

import pandas as pd
import pytest

from core.claims.claim import Claim
from core.sskm.claims import fig5_claim, fig6_claim, fig7_claim
from core.sskm.paper import PAPER

_GRIDS = (("4x4", 14.0), ("6x6", 33.0), ("8x8", 58.0))
_EPS = (0.05, 0.1, 1.0, 5.0)


def _table(value, *, grids=_GRIDS, ms=(5, 10)):
    """One row per m, grid and epsilon; ``value(m, a, eps)`` gives both mse_mean and rl_mean."""
    return pd.DataFrame([{"m": m, "grid": g, "epsilon": e, "a_mean": a, "mse_mean": value(m, a, e),
                          "rl_mean": value(m, a, e)} for m in ms for g, a in grids for e in _EPS])


# ---------------------------------------------------------------- Fig. 5
def test_fig5_holds_when_mse_falls_with_epsilon_and_is_flat_in_a():
    claim = fig5_claim(_table(lambda m, a, e: m / 10 + 0.1 / e + a / 10_000), mode="sound")
    assert isinstance(claim, Claim) and claim.holds is True
    assert claim.paper == PAPER["sskm-fig5"] and claim.figure == "Paper 003, Fig. 5"
    assert claim.finding.startswith("Sound mode (epsilon-DP), rule:") and "20 %" in claim.finding


def test_fig5_does_not_hold_when_mse_grows_with_a():
    claim = fig5_claim(_table(lambda m, a, e: 0.1 / e + a / 100), mode="paper")
    assert claim.holds is False
    assert claim.finding.startswith("Paper mode (not DP)") and "largest range over a" in claim.finding


def test_fig5_does_not_hold_when_mse_rises_with_epsilon():
    assert fig5_claim(_table(lambda m, a, e: 1 + e), mode="sound").holds is False


def test_fig5_one_map_cannot_judge_the_part_about_a():
    claim = fig5_claim(_table(lambda m, a, e: 1 / e, grids=_GRIDS[:1]), mode="sound")
    assert claim.holds is None and "one map size only" in claim.finding


# ---------------------------------------------------------------- Fig. 6
def _rl(m, a, e):
    """RL flat at small epsilon, rising with a at epsilon 5."""
    return 0.0001 if e <= 0.1 else a * e / 100_000


def test_fig6_holds_when_rl_is_flat_at_small_epsilon_and_rises_with_a_at_5():
    claim = fig6_claim(_table(_rl), mode="sound")
    assert claim.holds is True and claim.paper == PAPER["sskm-fig6"]
    assert "at epsilon 5 RL by a" in claim.finding


def test_fig6_does_not_hold_when_rl_moves_with_a_at_small_epsilon_as_much_as_at_5():
    claim = fig6_claim(_table(lambda m, a, e: a / 10_000), mode="paper")
    assert claim.holds is False  # flat nowhere but the same at every epsilon: the range does not shrink


def test_fig6_does_not_hold_when_rl_falls_with_a_at_5():
    assert fig6_claim(_table(lambda m, a, e: 0.001 if e <= 0.1 else 1 / a), mode="sound").holds is False


def test_fig6_one_map_and_one_m_cannot_be_judged():
    claim = fig6_claim(_table(_rl, grids=_GRIDS[:1], ms=(5,)), mode="sound")
    assert claim.holds is None


# ---------------------------------------------------------------- Fig. 7
def _baselines(sskm: float, falls: bool = True):
    rows = [{"method": "SSKM_DP", "a": 90, "mse_mean": sskm}]
    for method, level in (("MDAV", 0.1), ("MDAV_DP", 0.12), ("IDP-KMeans", 0.2)):
        for i, a in enumerate((10, 50, 250)):
            rows.append({"method": method, "a": a, "mse_mean": level / (i + 1) if falls else level * (i + 1)})
    return pd.DataFrame(rows)


def test_fig7_holds_when_sskm_is_below_every_baseline_that_falls_with_a():
    claim = fig7_claim(_baselines(0.01), mode="sound", epsilon=1.0)
    assert claim.holds is True and claim.paper == PAPER["sskm-fig7"]
    assert claim.finding.startswith("Sound mode (epsilon-DP) at epsilon = 1")


def test_fig7_does_not_hold_when_a_baseline_is_lower_at_some_a():
    claim = fig7_claim(_baselines(0.05), mode="paper", epsilon=1.0)
    assert claim.holds is False and "a = 250: MDAV 0.0333" in claim.finding


def test_fig7_does_not_hold_when_the_baselines_rise_with_a():
    claim = fig7_claim(_baselines(0.01, falls=False), mode="sound", epsilon=1.0)
    assert claim.holds is False and "(not falling)" in claim.finding


def test_fig7_one_a_cannot_judge_the_trend():
    table = _baselines(0.01)
    assert fig7_claim(table[~table["a"].isin([50, 250])], mode="sound", epsilon=1.0).holds is None


def test_fig7_without_sskm_cannot_be_judged():
    table = _baselines(0.01)
    assert fig7_claim(table[table["method"] != "SSKM_DP"], mode="sound", epsilon=1.0).holds is None


def test_wrong_arguments_say_the_rule():
    with pytest.raises(ValueError, match="'sound' or 'paper'"):
        fig5_claim(_table(_rl), mode="dp")
    with pytest.raises(ValueError, match="mse_mean"):
        fig5_claim(_table(_rl).drop(columns=["mse_mean"]), mode="sound")
    with pytest.raises(TypeError):
        fig6_claim([1], mode="sound")
    with pytest.raises(TypeError):
        fig5_claim(_table(_rl), mode="sound", tolerance="20 %")
