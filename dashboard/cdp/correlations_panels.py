"""The sections of the Correlations page (paper 000, Section 3): how strongly the attributes
go together (Pearson, NMI or MIC), and how correlated the records are, with what that does
to a count query's sensitivity (CS against GS). Each function draws one part of the page
where the page calls it.
"""
from __future__ import annotations

from functools import partial

import streamlit as st

from dashboard.cdp import cached
from dashboard.cdp.charts import (
    association_data, association_heatmap, record_heatmap, record_heatmap_data, sensitivity_bars, sensitivity_data,
)
from dashboard.shared.widgets.chart_data import show_chart
from dashboard.shared.widgets.charts import number
from dashboard.shared.widgets.errors import page_errors
from dashboard.shared.widgets.job_view import setup_view


def attributes(dataset, seed) -> tuple[str, int]:
    """The association measure beside the heatmap of every pair of attributes (chart first: the
    heatmap starts level with the measure that moves it); returns the measure and the MIC row cap."""
    c1, chart = st.columns([1, 3])
    method = c1.radio("Association", ["pearson", "nmi", "mic"], key="corr_method",
                      format_func={"pearson": "Pearson |r|", "nmi": "NMI", "mic": "MIC"}.get)
    mic_rows = c1.number_input("MIC row cap", min_value=100, max_value=20000, value=1000, step=100,
                               key="corr_mic_rows", disabled=method != "mic",
                               help="MIC is computed on at most this many random rows (its cost grows fast with n).")
    with chart, page_errors():
        matrix = setup_view("corr_association", cached.association(dataset, method, int(mic_rows) if method == "mic"
                                                                    else None, seed), stop=False)
        title = {"pearson": "|Pearson r|", "nmi": "Normalised mutual information",
                 "mic": f"MIC (on at most {int(mic_rows):,} rows)"}[method]
        if matrix is not None:
            show_chart(association_heatmap(matrix, title=title), partial(association_data, matrix),
                       name=f"correlations-association-{method}", key="corr_assoc", width="stretch")
        st.caption("Each cell says how strongly two attributes go together (0 none, 1 one determines "
                   "the other); categoricals enter as codes (Pearson, MIC) or labels (NMI).")
    return method, int(mic_rows)


def records(dataset, seed) -> tuple[str, float, int]:
    """The record correlation settings, the heatmap of a sample of records, and CS against GS;
    returns the measure, delta0 and the number of records in the heatmap."""
    c1, c2, c3 = st.columns(3)
    measure = c1.radio("Record correlation", ["pearson", "mahalanobis"], horizontal=True, key="corr_measure",
                       help="Pearson: |r| across the attributes of two records. Mahalanobis: 1 / (1 + distance).")
    threshold = c2.slider("delta0 (threshold)", 0.05, 1.0, 0.8, 0.05, key="corr_threshold",
                          help="Correlations below delta0 count as none (Eq. 15). Lower delta0: more records count as correlated, more noise.")
    n_sample = c3.slider("Records in the heatmap", 50, 500, 200, 50, key="corr_n")
    with page_errors():
        M = cached.record_heatmap(dataset, int(n_sample), measure, float(threshold), seed)
        show_chart(record_heatmap(M, threshold=threshold, measure=measure), partial(record_heatmap_data, M),
                   name=f"correlations-records-{measure}", key="corr_records", width="stretch")
        st.caption("Each bright cell is a pair of records correlated at delta0 or more (diagonal = 1); "
                   "rows are sorted so the most correlated records come first.")
        rep = setup_view("corr_sensitivity", cached.sensitivity(dataset, None, measure, float(threshold)))
        _sensitivity(rep, dataset.n_rows)
    return measure, float(threshold), int(n_sample)


def _sensitivity(rep, n: int) -> None:
    """CS, GS and C(x) over all N records, as numbers and bars."""
    m1, m2, m3 = st.columns(3)
    m1.metric("Correlated sensitivity CS", number(rep.correlated),
              f"{cached.share_text(rep.correlated, n)} of N = {n:,} records", delta_color="off", delta_arrow="off")
    m2.metric("Group sensitivity GS", number(rep.group),
              f"{cached.share_text(rep.group, n)} of N = {n:,} records", delta_color="off", delta_arrow="off")
    m3.metric("Data correlation C(x)", number(rep.data_correlation, decimals=1),
              f"{cached.share_text(rep.data_correlation, cached.pairs(n))} of the {number(cached.pairs(n))} "
              "record pairs", delta_color="off", delta_arrow="off")
    show_chart(sensitivity_bars(rep.correlated, rep.group), sensitivity_data(rep.correlated, rep.group),
               name="correlations-sensitivity", key="corr_sens", width="stretch")
    st.caption(f"Over all N = {n:,} records: CS = max over records of the summed correlation "
               f"degrees (CS = {number(rep.correlated)} of N = {n:,}: one record, through the records correlated "
               f"with it, moves a count as much as {number(rep.correlated)} independent records would), GS = max "
               f"number of correlated records; C(x) = {number(rep.data_correlation, decimals=1)} sums the "
               f"correlation over the N(N-1)/2 = {number(cached.pairs(n))} record pairs. Laplace noise of a count "
               "scales with the bar, so CS < GS means less noise for the same epsilon.")
