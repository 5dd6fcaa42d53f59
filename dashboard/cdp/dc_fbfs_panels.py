"""The sections of the DC-FBFS page (paper 000, Algorithm 1): the correlation settings and
the selection, T_c beside Fig. 2, the traversals (Fig. 3), C(x) against the number of
features (Fig. 1), the deleted sets (Table 1) and the sensitivities after each stage
(Table 2), each under its claim box. Each function draws one part of the page where the
page calls it.
"""
from __future__ import annotations

import streamlit as st

from dashboard.cdp import cached
from dashboard.cdp.charts import (
    feature_count_curve,
    feature_count_data,
    importance_dc_bars,
    importance_dc_data,
    traversal_curves,
    traversal_data,
)
from dashboard.shared.widgets.chart_data import show_chart
from dashboard.shared.widgets.charts import number
from dashboard.shared.widgets.claims import claim_box
from dashboard.shared.widgets.job_view import setup_view


def selection(dataset, seed):
    """The record-correlation settings (folded) and the selection on the rows used: the
    rows, the measure, delta0, the selection and the row cap."""
    with st.expander("Record correlation, delta0 and rows"):
        c1, c2, c3 = st.columns(3)
        measure = c1.radio("Record correlation", ["pearson", "mahalanobis"], horizontal=True, key="fb_measure")
        threshold = c2.slider("delta0", 0.05, 1.0, 0.8, 0.05, key="fb_threshold")
        max_rows = c3.number_input("Rows used (random sample above this)", 200, 50000, 3000, 100, key="fb_rows",
                                   help="DC needs C(x) once per feature; a sample keeps large tables interactive.")
    data = cached.limit_rows(dataset, int(max_rows), seed)
    base = setup_view("fb_selection", cached.selection(data, float(threshold), measure, seed))
    return data, measure, threshold, base, int(max_rows)


def tc_and_fig2(control, chart, data, measure, threshold, base):
    """T_c and its reading in ``control``, Fig. 2 in ``chart``: the selection at T_c."""
    top = cached.tc_range(base)
    tc = control.slider("T_c (in units of C(x))", 0.0, top, float(min(40.0, base.dc.max())),
                        key=f"fb_tc_{data.fingerprint()}_{measure}_{threshold}",
                        help="Features whose deletion changes C(x) by less than T_c are deletion candidates (F_c_del).")
    res = base.with_tc(tc)
    with control:
        st.metric("T_c as a share of its range", cached.share_text(tc, top),
                  f"T_c = {number(tc, decimals=1)} of 0 to {number(top)}", delta_color="off", delta_arrow="off")
        st.metric("Deletion candidates F_c_del", f"{len(res.F_c_del)} of {len(res.names)} features",
                  f"F_del (also redundant by the traversals): {len(res.F_del)}", delta_color="off",
                  delta_arrow="off")
        st.caption(cached.tc_reading(tc, base, data.n_rows))
    with chart:
        show_chart(importance_dc_bars(res, data_name=data.name, tc_range=top), importance_dc_data(res),
                   name="dc-fbfs-dc-and-importance", key="fb_bars", width="stretch")
    st.caption(
        f"Using {data.n_rows:,} rows. Data-correlation based forward-backward feature selection: a feature is "
        "deleted only if both the accuracy traversals call it redundant and removing it barely changes the "
        "data correlation C(x) (less than T_c). Everything here is computed on your private records and "
        "released nowhere: a scheme that uses this selection (the paper's Proposed) is not differentially "
        "private, and the CDP-LR and Publishing pages say so beside their DP reading.")
    return res


def fig2_and_fig3(data, res):
    """Fig. 2's reading and claim, the traversals (Fig. 3) and their claim: the constant guess."""
    st.caption("Fig. 2 (above): how much C(x) changes when the feature is deleted (dashed line = T_c: features "
               "below it are deletion candidates); under it the random-forest importance. The two rank features "
               "differently.")
    claim_box(cached.fig2_claim(res))
    guess = cached.label_guess(data)
    show_chart(traversal_curves(res, data_name=data.name, references=(guess,)), traversal_data(res),
               name="dc-fbfs-traversals", key="fb_curves", width="stretch")
    st.caption("Forward adds features by importance, backward removes the least important; features "
               "after the best forward prefix (k1) or removed before the best backward step (k2) are redundant (Fig. 3). "
               f"The dashed grey line is always guessing the majority class ({guess.value:.3f}, 95% interval "
               f"{guess.low:.3f}-{guess.high:.3f} on {guess.n:,} rows): a traversal at or under it has learned nothing.")
    claim_box(cached.fig3_claim(res, reference=guess))
    return guess


def fig1(data, measure, threshold, base) -> None:
    """C(x) of the first k features (Fig. 1) and its claim."""
    curve = setup_view("fb_fig1", cached.feature_count(data, tuple(base.order), float(threshold), measure),
                       stop=False)
    if curve is None:
        return
    show_chart(feature_count_curve(curve, measure=measure, threshold=float(threshold), data_name=data.name),
               feature_count_data(curve), name="dc-fbfs-correlation-vs-features", key="fb_fig1_chart",
               width="stretch")
    st.caption("C(x) of the first k features, adding them by descending random-forest importance (the "
               "forward traversal's order; the paper adds them 'consecutively' without naming an order). "
               f"C(x) sums the correlation of record pairs: at most N(N-1)/2 = {number(cached.pairs(data.n_rows))} "
               f"for N = {data.n_rows:,} records. "
               + ("Pearson across one feature is undefined, so the curve starts at 2 features."
                  if measure == "pearson" else ""))
    claim_box(cached.fig1_claim(curve))


def table1(res, guess) -> None:
    """The deleted sets beside the paper's (Table 1) and the claim."""
    table = cached.deleted_sets(res)
    st.dataframe(table, hide_index=True, width="stretch")
    st.caption("Table 1: n is our count at this T_c; the last column is the paper's, on its own six supplier "
               "attributes at T_c = 40.")
    claim_box(cached.table1_claim(res, reference=guess))


def table2(data, measure, threshold, res) -> None:
    """GS and CS after each stage (Table 2), the claim, and the paper's table."""
    sets = cached.stage_sets(res)
    stages = setup_view("fb_stages", cached.stage_sensitivities(data, sets, float(threshold), measure))
    shown_stages = stages.assign(**{"CS as a share of N": [cached.share_text(v, data.n_rows) for v in stages["CS"]]})
    st.dataframe(shown_stages, hide_index=True, width="stretch",
                 column_config={c: st.column_config.NumberColumn(c, format="localized") for c in ("GS", "CS")})
    st.caption(f"CS and GS count records (of N = {data.n_rows:,}): one record, through those correlated with it, "
               "moves a count by up to CS. Table 2, ours: deleting features makes records look more alike, so GS and CS usually grow; "
               "DC-FBFS deletes only features whose removal barely changes C(x), keeping CS close to the full "
               "set's. The accuracies of Table 2 are on the CDP-LR page and in pux reproduce cdp-table2.")
    claim_box(cached.table2_claim(stages))
    st.dataframe(cached.paper_table2(), hide_index=True, width="stretch")
    st.caption("Table 2 in the paper (their supplier data: 1,160 records, 6 attributes; epsilon not stated; "
               "learning rate 1e-6, so the accuracies stay near 50%).")
