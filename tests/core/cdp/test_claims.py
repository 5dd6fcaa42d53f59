"""Paper 000's claim checks (core.cdp.claims): one case that holds and one that does not each."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from core.cdp import claims as c
from core.cdp.dc_fbfs import DCFBFSResult, dc_fbfs
from core.cdp.feature_count import correlation_by_feature_count
from core.cdp.paper import PAPER_FIG1, PAPER_FIG4, PAPER_TABLE2_TEXT
from core.claims import degenerate as dg
from core.claims.claim import Claim


def _fig1(values):
    return pd.DataFrame({"features": range(1, len(values) + 1), "added feature": [f"f{i}" for i in range(len(values))],
                         "C(x)": values})


def test_fig1_holds_when_c_falls():
    claim = c.fig1_claim(_fig1([np.nan, 900.0, 500.0, 300.0, 100.0]))
    assert claim.holds is True and claim.paper == PAPER_FIG1 and "900" in claim.finding


def test_fig1_fails_when_c_rises():
    assert c.fig1_claim(_fig1([100.0, 200.0, 300.0, 400.0])).holds is False


def test_fig1_cannot_judge_two_points():
    assert c.fig1_claim(_fig1([np.nan, 5.0, 3.0])).holds is None


def test_fig1_wrong_type_is_a_type_error():
    with pytest.raises(TypeError):
        c.fig1_claim([1, 2, 3])


def _result(dc, importance, *, F_fb_del=("b",), F_c_del=("b",), F_del=("b",), k1=2, k2=2):
    names = ["a", "b", "c"]
    return DCFBFSResult(names=names, importance=np.asarray(importance, float), dc=np.asarray(dc, float),
                        data_correlation=100.0, correlation_without=np.zeros(3), order=names,
                        forward_accuracy=[0.5, 0.6, 0.55], backward_accuracy=[0.55, 0.6, 0.5], k1=k1, k2=k2,
                        F_fb_del=list(F_fb_del), F_c_del=list(F_c_del), F_del=list(F_del),
                        selected=[n for n in names if n not in F_del], tc=40.0)


def test_fig2_holds_when_rankings_differ():
    assert c.fig2_claim(_result([1, 2, 3], [0.5, 0.3, 0.2])).holds is True


def test_fig2_fails_when_rankings_agree():
    assert c.fig2_claim(_result([3, 2, 1], [0.5, 0.3, 0.2])).holds is False


def test_fig3_holds_with_a_redundant_feature():
    assert c.fig3_claim(_result([1, 2, 3], [0.5, 0.3, 0.2])).holds is True


def test_fig3_fails_without_one():
    assert c.fig3_claim(_result([1, 2, 3], [0.5, 0.3, 0.2], F_fb_del=())).holds is False


def test_table1_holds_when_f_del_deletes_one():
    claim = c.table1_claim(_result([1, 2, 3], [0.5, 0.3, 0.2]))
    assert claim.holds is True and "1/3/1" in claim.finding


def test_table1_fails_when_nothing_is_deleted():
    assert c.table1_claim(_result([1, 2, 3], [0.5, 0.3, 0.2], F_del=())).holds is False


def test_table2_holds_when_cs_below_gs_everywhere():
    stages = pd.DataFrame({"features deleted": ["none", "F_del"], "GS": [45.0, 46.0], "CS": [20.0, 21.0]})
    claim = c.table2_claim(stages)
    assert claim.holds is True and claim.paper == PAPER_TABLE2_TEXT


def test_table2_cannot_be_judged_when_cs_equals_gs_once():
    stages = pd.DataFrame({"features deleted": ["none", "F_del"], "GS": [45.0, 21.0], "CS": [20.0, 21.0]})
    claim = c.table2_claim(stages)
    assert claim.holds is None and "F_del" in claim.finding and "equal within a relative" in claim.finding


def test_table2_a_cs_below_gs_only_by_rounding_is_a_tie_not_below():
    # issue 39: "CS 1,309 vs GS 1,309" was read as below (two features: every correlation is +-1)
    stages = pd.DataFrame({"features deleted": ["none", "F_fb_del"], "GS": [900.0, 1309.0],
                           "CS": [400.0, 1309.0 * (1 - dg.TIE_RTOL / 10)]})
    claim = c.table2_claim(stages)
    assert claim.holds is None and "at F_fb_del CS and GS are equal" in claim.finding
    apart = stages.assign(CS=[400.0, 1308.6])
    claim = c.table2_claim(apart)
    assert claim.holds is True and "CS 1,308.6 vs GS 1,309.0" in claim.finding  # shown apart


def _two_feature_table(n=60, p=4, seed=0):
    X = np.random.default_rng(seed).normal(size=(n, p))
    return correlation_by_feature_count(X, [f"f{i}" for i in range(p)], order=[f"f{i}" for i in range(p)],
                                        measure="pearson", threshold=0.8)


def test_fig1_leaves_out_the_pearson_point_of_two_features():
    table = _two_feature_table()
    assert dg.at_ceiling(table["C(x)"].iloc[1], dg.pair_ceiling(60))  # the degenerate start
    claim = c.fig1_claim(table)
    assert claim.holds is None and "k = 2" in claim.finding and "fewer than 3 features" in claim.finding


def test_fig1_leaves_out_a_point_at_the_pair_ceiling_under_any_measure():
    table = _fig1([1770.0, 900.0, 500.0, 300.0])
    table.attrs.update(measure="mahalanobis", n_records=60)
    claim = c.fig1_claim(table)
    assert claim.holds is True and "C(x) goes from 900 with 2 features" in claim.finding
    assert "N(N-1)/2 = 1,770" in claim.finding
    table.attrs.update(n_records=100)  # 1,770 is below 100 x 99 / 2: not degenerate
    assert "goes from 1,770 with 1 feature" in c.fig1_claim(table).finding


def test_fig1_cannot_judge_a_constant_curve():
    claim = c.fig1_claim(_fig1([np.nan, 500.0, 500.0, 500.0]))
    assert claim.holds is None and "constant" in claim.finding


def test_fig2_cannot_be_judged_when_dc_is_constant():
    # three features under Pearson: each C(x without f) is from two features, at N(N-1)/2, so DC is constant
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    result = dc_fbfs(X, (X[:, 0] > 0).astype(int), ["a", "b", "c"], n_estimators=20, random_state=0)
    assert dg.constant(result.dc)
    claim = c.fig2_claim(result)
    assert claim.holds is None and "constant across the series" in claim.finding


def test_fig2_a_tied_top_feature_decides_nothing():
    # DC's top is tied between a and b: "different top features" cannot carry the claim
    claim = c.fig2_claim(_result([3, 3, 1], [0.3, 0.5, 0.2]))  # tau 0.82: the rankings agree
    assert claim.holds is False and "tied with the next" in claim.finding
    assert c.fig2_claim(_result([3, 1, 2.9], [0.2, 0.3, 0.5])).holds is True


def test_mae_claims_on_tied_means_cannot_be_judged():
    assert c.fig6_claim(_mae(Group=80.0, Proposed=80.0 * (1 - 1e-9))).holds is None
    assert c.fig7_claim(_mae(Proposed=80.0), _mae(Proposed=80.0)).holds is None
    summary = pd.DataFrame([{"scheme": f"{s} ({m})", "epsilon": 1.0, "mae_mean": v}
                            for s in ("Zhang", "Proposed") for m, v in (("pearson", 90.0), ("mahalanobis", 90.0))])
    assert c.fig8_claim(summary).holds is None


def test_fig4_a_tie_without_spread_cannot_be_judged():
    assert c.fig4_claim(_acc(Group=0.62, Zhang=0.55, Proposed=0.62)).holds is None


def _acc(**means):
    return pd.DataFrame([{"scheme": s, "epsilon": e, "accuracy_mean": m + 0.01 * e}
                         for s, m in means.items() for e in (1.0, 5.0)])


def test_fig4_holds_when_proposed_is_best_private():
    claim = c.fig4_claim(_acc(**{"Non-private": 0.9, "Group": 0.6, "Zhang": 0.55, "Proposed": 0.62}))
    assert claim.holds is True and claim.paper == PAPER_FIG4


def test_fig4_fails_when_group_is_above():
    assert c.fig4_claim(_acc(Group=0.7, Zhang=0.55, Proposed=0.62)).holds is False


def _acc_spread(std, n=3, **means):
    return _acc(**means).assign(accuracy_std=std, accuracy_n=n)


def test_fig4_gap_within_the_runs_spread_cannot_be_judged():
    claim = c.fig4_claim(_acc_spread(0.1, Group=0.60, Zhang=0.61, Proposed=0.605))
    assert claim.holds is None and "too close to call" in claim.finding


def test_fig4_clear_gaps_are_judged_despite_the_spread():
    assert c.fig4_claim(_acc_spread(0.01, Group=0.5, Zhang=0.5, Proposed=0.6)).holds is True
    assert c.fig4_claim(_acc_spread(0.01, Group=0.7, Zhang=0.5, Proposed=0.6)).holds is False


def test_fig4_cannot_judge_without_zhang():
    assert c.fig4_claim(_acc(Group=0.7, Proposed=0.62)).holds is None


def _methods(**means):
    return pd.DataFrame([{"method": int(k[1:]), "epsilon": 1.0, "accuracy_mean": v} for k, v in means.items()])


def test_fig5_holds_when_method_one_is_near_best():
    assert c.fig5_claim(_methods(m1=0.70, m2=0.705, m3=0.6, m4=0.9, m6=0.5)).holds is True  # 4 is not private


def test_fig5_fails_when_another_method_is_clearly_better():
    assert c.fig5_claim(_methods(m1=0.60, m2=0.70, m6=0.5)).holds is False


def _mae(**means):
    return pd.DataFrame([{"scheme": s, "epsilon": 1.0, "mae_mean": v} for s, v in means.items()])


def test_fig6_holds_when_proposed_is_below_group():
    assert c.fig6_claim(_mae(Group=90.0, Zhang=1400.0, Proposed=80.0)).holds is True


def test_fig6_fails_when_proposed_is_above_group():
    assert c.fig6_claim(_mae(Group=70.0, Proposed=80.0)).holds is False


def test_fig7_holds_when_products_lower_the_mae():
    assert c.fig7_claim(_mae(Proposed=80.0), _mae(Proposed=500.0)).holds is True


def test_fig7_fails_when_products_raise_it():
    assert c.fig7_claim(_mae(Proposed=800.0), _mae(Proposed=500.0)).holds is False


def test_fig7_without_the_other_curve_says_why():
    claim = c.fig7_claim(_mae(Proposed=80.0), None, reason="Turn on the toggle.")
    assert claim.holds is None and claim.finding == "Turn on the toggle."


def _both(zp, zm, pp, pm):
    return _mae(**{"Group": 100.0, "Zhang (pearson)": zp, "Zhang (mahalanobis)": zm,
                   "Proposed (pearson)": pp, "Proposed (mahalanobis)": pm})


def test_fig8_holds_when_mahalanobis_is_lower_for_both():
    assert c.fig8_claim(_both(100.0, 50.0, 80.0, 40.0)).holds is True


def test_fig8_fails_when_proposed_is_higher_with_mahalanobis():
    assert c.fig8_claim(_both(100.0, 50.0, 80.0, 120.0)).holds is False


def test_fig8_with_one_measure_cannot_judge():
    assert c.fig8_claim(None, reason="Choose both.").holds is None


def test_every_claim_is_a_claim():
    assert isinstance(c.fig6_claim(_mae(Group=1.0, Proposed=0.5)), Claim)


def _guess(share=0.9, n=200):
    import numpy as np

    from core.cdp.sweeps import constant_guess

    k = int(round(share * n))
    return constant_guess(np.array([0] * k + [1] * (n - k)))


def test_fig4_cannot_be_judged_when_every_scheme_is_within_the_constant_guess():
    """A 0.9 majority class: schemes at 0.38-0.67 learned nothing, whichever is ahead."""
    claim = c.fig4_claim(_acc(Group=0.38, Zhang=0.45, Proposed=0.67), reference=_guess(0.9))
    assert claim.holds is None
    assert "no better than always guessing the majority class" in claim.finding and "0.900" in claim.finding


def test_fig4_is_judged_when_the_schemes_beat_the_constant_guess():
    claim = c.fig4_claim(_acc(Group=0.6, Zhang=0.55, Proposed=0.62), reference=_guess(0.5))
    assert claim.holds is True


def test_fig4_refuses_a_reference_of_another_type():
    with pytest.raises(TypeError, match="Reference"):
        c.fig4_claim(_acc(Group=0.6, Zhang=0.55, Proposed=0.62), reference=0.5)


def test_fig5_cannot_be_judged_when_every_private_method_is_within_the_constant_guess():
    claim = c.fig5_claim(_methods(m1=0.60, m2=0.70, m6=0.5), reference=_guess(0.9))
    assert claim.holds is None and "method 1" in claim.finding


def test_fig6_gives_each_mae_as_a_share_of_the_mean_true_count():
    claim = c.fig6_claim(_mae(Group=90.0, Proposed=80.0), mean_true=400.0)
    assert "80 (20% of the mean true count)" in claim.finding and "mean true count is 400" in claim.finding


def test_fig3_cannot_be_judged_when_the_traversals_never_beat_the_constant_guess():
    from dataclasses import replace

    flat = replace(_result([1, 2, 3], [0.5, 0.3, 0.2]), forward_accuracy=[0.88, 0.9, 0.89], backward_accuracy=[0.9, 0.88, 0.87])
    claim = c.fig3_claim(flat, reference=_guess(0.9))
    assert claim.holds is None and "features predict nothing" in claim.finding
    assert c.fig3_claim(flat, reference=_guess(0.5)).holds is True


def test_table1_cannot_be_judged_when_the_traversals_never_beat_the_constant_guess():
    from dataclasses import replace

    flat = replace(_result([1, 2, 3], [0.5, 0.3, 0.2]), forward_accuracy=[0.88, 0.9, 0.89],
                   backward_accuracy=[0.9, 0.88, 0.87])
    assert c.table1_claim(flat, reference=_guess(0.9)).holds is None
    assert c.table1_claim(flat, reference=_guess(0.5)).holds is True
