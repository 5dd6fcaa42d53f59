"""The studies of the SSKM_DP page (paper 003) beyond one release: the tab "Fig. 5-6:
across a and m" (a sweep, started by a button, that fits a map per SOM grid, m and
repetition and releases it at four budgets, with the paper's claims judged beside it) and
the tab "Baselines (Fig. 7)" (MDAV, MDAV_DP and IDP-KMeans against the number of clusters
a). Each function draws one tab where the page calls it.
"""
from __future__ import annotations

import streamlit as st

from core.validation import DataError
from dashboard.sskm import cached
from dashboard.sskm import charts
from dashboard.sskm.sections import Release, reference_row
from dashboard.shared.widgets.chart_data import show_chart
from dashboard.shared.widgets.claims import claim_box
from dashboard.shared.widgets.errors import page_errors
from dashboard.shared.widgets.job_view import sweep_on_request, sweep_view
from dashboard.shared.widgets.present import control_hint, is_presenting
from dashboard.shared.serving.state import show_error


def _sweep_controls(r: Release):
    """The sweep's numbers of attributes m, SOM grids, repetitions and training draws."""
    columns, sensitive = r.columns, r.settings.sensitive
    w1, w2, w3, w4 = st.columns(4)
    m_options = cached.sweep_m_options(len(columns), len(sensitive))
    kept = st.session_state.get("sskm_sweep_m")
    if kept is not None and any(m not in m_options for m in kept):  # m the chosen attributes no longer allow
        st.session_state["sskm_sweep_m"] = [m for m in kept if m in m_options]
    m_values = w1.multiselect("Numbers of attributes m", m_options,
                              default=None if kept is not None else cached.sweep_default_m(len(columns), len(sensitive)),
                              key="sskm_sweep_m",
                              help="The paper uses m = 5 and 10; here at most the number of chosen attributes.")
    grids = w2.multiselect("SOM grids", list(cached.SWEEP_GRIDS), default=list(cached.SWEEP_DEFAULT_GRIDS),
                           key="sskm_sweep_grids", help="Larger maps give more clusters a.")
    reps = w3.number_input("Repetitions", min_value=1, max_value=20, value=cached.SWEEP_REPETITIONS,
                           key="sskm_sweep_reps", help="Maps fitted per m and grid (the paper: 20).")
    sweep_iterations = w4.number_input("Training draws per map", min_value=1000, max_value=100_000,
                                       value=cached.SWEEP_ITERATIONS, step=1000, key="sskm_sweep_iterations")
    return m_values, grids, reps, sweep_iterations


def sweep_tab(r: Release, schema) -> None:
    """Fig. 5 (MSE) and Fig. 6 (record linkage) against the number of clusters a."""
    mode = r.settings.mode
    st.caption(
        "The paper's Fig. 5 (MSE) and Fig. 6 (record linkage) of SSKM_DP: for each number of attributes m, "
        "SOM grid and repetition a new map is fitted (SFLA start) and released at epsilon 0.05, 0.1, 1 and 5 "
        f"in the {mode} mode. SSKM_DP does not take a number of clusters: a is the number of neurons that "
        "released rows, so the grid sets it. A panel's m attributes are the sensitive ones and the first "
        "others of the attributes chosen above, in their order; bounds come from the public schema (sound) "
        "or the data (paper). MSE and linkage are evaluated on your private data, not released."
    )
    m_values, grids, reps, sweep_iterations = _sweep_controls(r)
    if not m_values or not grids:
        control_hint("Pick at least one m and one SOM grid.")
        return
    with page_errors():
        order = sorted(grids, key=lambda g: [int(v) for v in g.split("x")])
        sweep = cached.clusters_sweep(r.fp, r.dataset, tuple(r.columns), tuple(r.settings.sensitive),
                                      tuple(sorted(m_values)), tuple(order), int(reps), int(sweep_iterations),
                                      mode, r.seed, schema=schema)
        fits = len(m_values) * len(grids) * int(reps)
        summary = sweep_on_request(
            "sskm_clusters", sweep, button="Run the sweep", key="sskm_sweep_run", icon=":material/play_arrow:",
            waiting="The sweep has not been run in this session." if is_presenting() else (
                f"{fits} maps to fit ({len(m_values)} m x {len(grids)} grids x {int(reps)} repetitions), "
                "each released at 4 epsilons. Press the button: it runs in the background with its "
                "time left, and is kept once finished."))
        if summary is not None:
            _sweep_charts(summary, mode, r.dataset.name, int(reps))


def _sweep_charts(summary, mode: str, name: str, reps: int) -> None:
    """The sweep's two charts with their claims, and its table."""
    show_chart(charts.mse_vs_clusters(summary, mode=mode, dataset=name),
               charts.mse_vs_clusters_data(summary), name=f"sskm-fig5-{mode}-mse-vs-a",
               key="sskm_fig5")
    claim_box(cached.fig5_claim(summary, mode))
    show_chart(charts.rl_vs_clusters(summary, mode=mode, dataset=name),
               charts.rl_vs_clusters_data(summary), name=f"sskm-fig6-{mode}-rl-vs-a",
               key="sskm_fig6")
    claim_box(cached.fig6_claim(summary, mode))
    st.caption(f"Mean over {reps} maps per point (bars: one standard deviation); a is the "
               "mean number of clusters of a grid at that epsilon (hover: its least and largest).")
    with st.expander("The sweep's table"):
        st.dataframe(summary, height=240)


def baselines_tab(r: Release) -> None:
    """MDAV, MDAV_DP and IDP-KMeans against a at the same budget (Fig. 7), on request for
    large tables."""
    big = len(r.pub.table_.X) > 20_000
    run_baselines = st.toggle(
        "Compute the baselines", value=not big, key="sskm_run_baselines",
        help="MDAV, MDAV_DP and IDP-KMeans on every row; on large tables this takes a while (cached after).",
    )
    a_values = st.multiselect("Numbers of clusters a", [10, 25, 50, 100, 250, 500],
                              default=[10, 25, 50, 100, 250], key="sskm_a_values")
    if not run_baselines:
        st.caption(f"{len(r.pub.table_.X):,} rows: the baselines are not computed yet.")
        control_hint("Switch 'Compute the baselines' on when you want them.")
    elif a_values:
        try:
            table = sweep_view("sskm_baselines", cached.baselines(r.fp, r.pub, r.key, float(r.settings.cs_threshold),
                                                                  float(r.epsilon), tuple(sorted(a_values)), 3,
                                                                  r.seed))
        except (DataError, ValueError) as exc:
            show_error(exc)
            table = None
        if table is not None:
            _baselines_chart(r, table)
    else:
        control_hint("Pick at least one a.")


def _baselines_chart(r: Release, table) -> None:
    """The baselines against a, Fig. 7's claim, the guarantees and the table."""
    epsilon, mode = float(r.epsilon), r.settings.mode
    random_mse = float(reference_row(r.refs, cached.RANDOM)["mse_mean"])
    show_chart(charts.baselines_vs_a(table, dataset=r.dataset.name, epsilon=epsilon, random_mse=random_mse),
               charts.baselines_data(table), name="sskm-baselines-vs-a", key="sskm_baselines")
    claim_box(cached.fig7_claim(table, mode, epsilon, random_mse=random_mse))
    st.caption(f"MSE at the same total epsilon = {r.epsilon:g} vs the number of clusters a (k = n / a for "
               "MDAV); SSKM_DP's point sits at its own cluster count, which the map sets. Mean of 3 noise "
               "draws. Guarantees: IDP-KMeans is epsilon-DP (uniform initial centres, noisy counts); "
               "MDAV is not DP; MDAV_DP's noise gives each record epsilon (scale range x m / (k x epsilon)) "
               "but its partition reads the raw records, so it is not DP either; SSKM_DP as its mode says.")
    st.dataframe(table, height=220)
