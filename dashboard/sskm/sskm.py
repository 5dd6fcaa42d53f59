"""SSKM_DP page (paper 003): SOM clusters, MIC-protected attributes, Laplace centres.

Chart first: the epsilon slider, the release's MSE and record linkage (beside the raw table's
and a random release's, :mod:`core.sskm.references`) and the SOM grid of the release share
the first screen; the attributes, map and mechanism settings fold into one expander below.
Identifier columns (the dataset's and the public schema's) are never offered nor published.
Tabs: its training, the MIC connections, the release (MSE and RL vs epsilon),
"Fig. 5-6: across a and m" (the paper's Fig. 5 and 6: a sweep, started by a button, that fits
a map per SOM grid, m and repetition and releases it at epsilon 0.05, 0.1, 1 and 5 in the
page's mode; MSE and RL vs the number of clusters a with the paper's claims judged beside
them) and "Baselines (Fig. 7)" (MDAV, MDAV_DP and IDP-KMeans vs a, with Fig. 7's claim).
Every claim box says in which mode it was judged: the sound mode is DP, the paper's is not.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from core.validation import DataError
from dashboard.sskm import cached
from dashboard.sskm import charts
from dashboard.shared.chart_data import show_chart
from dashboard.shared.claims import claim_box
from dashboard.shared.errors import page_errors
from dashboard.shared.job_view import setup_view, sweep_on_request, sweep_view
from dashboard.shared.preamble import choose_sensitive, page_data, stop_until_chosen
from dashboard.shared.present import control_hint, is_presenting
from dashboard.shared.privacy import audit_panel, guarantee_box, release_download
from dashboard.shared.safe import md
from dashboard.shared.state import current_schema, show_error


def _code(name: object) -> str:
    """A column name for inline code (backticks would end the span)."""
    return str(name).replace("`", "'").replace("\n", " ")


def charts_number(value: float) -> str:
    """A metric's value with four significant digits ('n/a' when undefined)."""
    v = float(value)
    return f"{v:.4g}" if np.isfinite(v) else "n/a"


#: noise draws per epsilon of the release tab's curve (its 95% intervals are over them)
EPSILON_REPETITIONS = 5


def _reference_table(refs: pd.DataFrame, result: dict) -> pd.DataFrame:
    """This release beside the raw table and a random release: MSE and linkage (with the
    random release's 95% interval over its draws)."""
    def span(lo, hi, scale=1.0):
        return "" if pd.isna(lo) or pd.isna(hi) else f"{charts_number(scale * lo)} to {charts_number(scale * hi)}"

    rows = [{"release": "this release", "MSE": charts_number(result["mse"]), "MSE 95% interval": "",
             "record linkage (%)": charts_number(100 * result["rl"]), "linkage 95% interval (%)": ""}]
    for r in refs.itertuples(index=False):
        rows.append({"release": r.reference, "MSE": charts_number(r.mse_mean), "MSE 95% interval": span(r.mse_lo, r.mse_hi),
                     "record linkage (%)": charts_number(100 * r.rl_mean),
                     "linkage 95% interval (%)": span(r.rl_lo, r.rl_hi, 100.0)})
    return pd.DataFrame(rows)

st.title("SSKM_DP")

EPSILONS = [0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0]
VIEWS = ["U-matrix", "Released rows", "Hit map", "Component plane", "Sensitive share"]

page = page_data("census", needs_sensitive=True)
dataset, seed = page.dataset, page.seed
with page_errors(stop=True):
    schema = current_schema(dataset)
    features = cached.feature_columns(dataset, schema)
    if len(features) < 2:
        raise DataError("SSKM_DP needs at least two attributes besides the label and the identifiers; load a "
                        "wider table.")
    # chart first: the budget and what it moves (the map, MSE and linkage) on the first screen,
    # every other setting folded below
    control, chart_area = st.columns([1, 2])
    epsilon = control.select_slider("Privacy budget epsilon", EPSILONS, value=1.0, key="sskm_epsilon",
                                    help="The whole release's budget (sound mode: the map and the release "
                                         "together).")
    metric_area = control.container()
    if st.session_state.get("sskm_view") not in (None, *VIEWS):
        del st.session_state["sskm_view"]
    view = control.radio("Show on the map", VIEWS, key="sskm_view")
    view_extra = control.container()

    kept_cols = st.session_state.get("sskm_columns")
    if kept_cols is not None and any(c not in features for c in kept_cols):  # another table's, or an identifier
        st.session_state["sskm_columns"] = [c for c in kept_cols if c in features]
    ids = [c for c in dataset.frame.columns if c not in features and c != dataset.label]
    unchosen = not st.session_state.get("sskm_sensitive") and not [s for s in dataset.sensitive if s in features]
    with st.expander("Attributes, map and mechanism", icon=":material/tune:", expanded=unchosen):
        c1, c2 = st.columns([3, 2])
        default_cols = features[:10] if len(features) > 10 else features
        columns = c1.multiselect(
            "Attributes to publish (m)", features, default=default_cols, key="sskm_columns",
            help="Every chosen attribute is published; the paper uses m = 5 or 10.",
        )
        if ids:
            control_hint("Left out as identifiers (never clustered nor published): "
                         + ", ".join(f"`{_code(c)}`" for c in ids) + ". Change a column's role on the Data page.")
        # no silent default: a table that marks no sensitive attribute leaves the choice to the user
        sensitive = choose_sensitive(c2, "Sensitive attributes", columns, dataset, key="sskm_sensitive",
                                     multiple=True,
                                     help="Always protected: their values in the release carry Laplace noise.")
        mode = st.radio(
            "Mechanism", ["sound", "paper"], horizontal=True, key="sskm_mode",
            help="sound: differentially private (bounds and categories from the public schema, a map "
                 "fitted through noisy counts and sums with 30 % of epsilon, noisy counts and sums of every "
                 "attribute, shuffled rows). paper: the paper's algorithm, not differentially private.",
        )
        cs_threshold = st.slider("CS_Tsh (connection-strength threshold)", 0.0, 1.0, 0.3, 0.01, key="sskm_cs",
                                 help="Attributes with MIC >= CS_Tsh toward a sensitive one are protected "
                                      "(paper mode).")
        s1, s2, s3, s4 = st.columns(4)
        rows = s1.slider("Map rows", 2, 20, 8, key="sskm_rows")
        cols = s2.slider("Map columns", 2, 20, 8, key="sskm_cols")
        topology = s3.radio("Grid", ["rectangular", "hexagonal"], horizontal=True, key="sskm_topology")
        # the paper's SOM (SFLA start, T online draws) fits the map in paper mode and on a public
        # reference table; the sound mode's noisy map starts from uniform random weights instead
        paper_som = (st.session_state.get("sskm_mode", "sound") == "paper"
                     or st.session_state.get("sskm_map", "noisy") == "reference")
        not_used = "" if paper_som else (" Not used by the sound mode's noisy map, which starts from uniform "
                                         "random weights (SFLA reads the records).")
        init = s4.selectbox("Initial weights", ["sfla", "random", "pca"], key="sskm_init", disabled=not paper_som,
                            help="sfla = the paper's frog-leaping search; random / pca for comparison." + not_used)
        n_rows = min(len(dataset.frame), cached.PAGE_MAX_ROWS)
        t1, t2, t3 = st.columns(3)
        iterations = t1.number_input(
            "Training draws T", min_value=1000, max_value=200_000,
            value=int(min(max(10_000, 2 * n_rows), 50_000)), step=1000, key="sskm_iterations",
            disabled=not paper_som,
            help="Online training steps of the paper's SOM." + (not_used.replace("uniform random weights",
                                                                                   "uniform random weights and "
                                                                                   "takes 3 noisy batch steps")),
        )
        sigma = t2.slider("Initial neighbourhood sigma", 0.5, 10.0, float(max(rows, cols) / 2), 0.5,
                          key="sskm_sigma", help="Shrinks as exp(-t/T) with the learning rate (Eq. 15).")
        mic_rows = t3.number_input("MIC row cap", min_value=200, max_value=50_000, value=4000, step=500,
                                   key="sskm_mic_rows", help="MIC is computed on this many rows (sampled).")
        bounds = ()
        map_fit, reference, reference_key = "noisy", None, None
        if mode == "sound":
            control_hint("Bounds and category lists come from the public schema (review it on the Data page): "
                         + md(schema.describe()))
            map_fit = st.radio(
                "Map", ["noisy", "reference"], horizontal=True, key="sskm_map",
                format_func=lambda v: {"noisy": "fitted through noise (30 % of epsilon)",
                                       "reference": "fitted on a public reference table"}[v],
                help="noisy: a data-independent start and a few batch steps on noisy counts and sums, paid from "
                     "epsilon. reference: the paper's SOM (SFLA start) on a table you provide and declare public; "
                     "all of epsilon goes to the release.")
            if map_fit == "reference":
                upload = st.file_uploader("Public reference table (CSV with the published columns)", type="csv",
                                          key="sskm_reference")
                if upload is None:
                    control_hint("Until a reference table is uploaded, the map is fitted through noise.")
                    map_fit = "noisy"
                else:
                    import hashlib

                    data = upload.getvalue()
                    reference = cached.read_reference(data)
                    reference_key = hashlib.sha256(data).hexdigest()[:16]
        else:
            control_hint("Give the range each numeric attribute can take, from public knowledge (age 17 to "
                         "90, say). Empty cells take the range of the data, as the paper does.")
            edited = st.data_editor(cached.bound_rows(dataset, tuple(columns)), hide_index=True,
                                    disabled=["column"], key=f"sskm_bounds_{'_'.join(columns)}",
                                    column_config={"lo": st.column_config.NumberColumn("lo"),
                                                   "hi": st.column_config.NumberColumn("hi")})
            bounds = cached.parse_bounds(edited)
    if len(columns) < 2:
        raise DataError("Choose at least two attributes to publish (under 'Attributes, map and mechanism').")
    stop_until_chosen(sensitive, dataset, "Choose at least one sensitive attribute under 'Attributes, map and "
                      "mechanism': {marked}SSKM_DP has nothing to protect until you do (it noises the sensitive "
                      "attributes and those linked to them).")

    fp = dataset.fingerprint()
    key = (fp, tuple(columns), tuple(sensitive), rows, cols, topology, init, int(iterations), float(sigma),
           int(mic_rows), seed, mode, bounds, schema.to_json(), map_fit, reference_key)
    with chart_area:
        pub = setup_view("sskm_fit", cached.fitted(key, dataset, tuple(columns), tuple(sensitive), rows, cols,
                                                   topology, init, int(iterations), float(sigma), int(mic_rows),
                                                   seed, mode, bounds, schema=schema, map_fit=map_fit,
                                                   reference=reference))
    result = cached.release(fp, pub, key, float(epsilon), float(cs_threshold), seed)
    refs = cached.references(fp, pub, key, seed)
    columns = [c for c in columns if c in pub.table_.columns]  # what the map was fitted on

rand = refs[refs["reference"] == cached.RANDOM].iloc[0]
raw = refs[refs["reference"] == cached.RAW].iloc[0]
with metric_area:
    m1, m2 = st.columns(2)
    m1.metric("MSE", f"{result['mse']:.4f}",
              help="Evaluated on your private data, not released. References: the raw table 0; a random release "
                   f"{charts_number(rand['mse_mean'])} (95% interval {charts_number(rand['mse_lo'])}-"
                   f"{charts_number(rand['mse_hi'])}).")
    m2.metric("Record linkage", f"{100 * result['rl']:.2f} %",
              help="Evaluated on your private data, not released. References: the raw table "
                   f"{100 * raw['rl_mean']:.2f} %; a random release {100 * rand['rl_mean']:.3g} %.")
    st.caption(f"Raw table: MSE 0, linkage {100 * raw['rl_mean']:.3g} %. Random release: MSE "
               f"{charts_number(rand['mse_mean'])}, linkage {100 * rand['rl_mean']:.3g} %.")
    for sentence in cached.reference_sentences(result["mse"], result["rl"], refs, what=f"At epsilon {epsilon:g} this release"):
        st.warning(sentence, icon=":material/info:")

# the map this release used: the sound mode's noisy map is drawn again for every release
som = result["som"] if result.get("som") is not None else pub.som_
grid_note = (" The sound mode draws its map through noise for every release: this is the map of the release at "
             f"epsilon {epsilon:g}." if result.get("som") is not None and map_fit == "noisy" else "")
if view == "U-matrix":
    values, cbar = cached.u_matrix(pub, som)
    caption = "Mean distance from each neuron to its neighbours: dark valleys are clusters, bright ridges are borders."
elif view == "Released rows":
    values, cbar = cached.released_rows(result, rows, cols)
    caption = ("Rows the release emits from each neuron: what is published" + (
        " (rounded noisy counts); grey neurons emit none." if mode == "sound"
        else " (the exact cluster sizes: the paper's mode publishes them as they are)."))
elif view == "Hit map":
    values, cbar = cached.hit_map(pub, som)
    caption = ("Rows won by each neuron; grey neurons won none. Evaluated on your private data, not released "
               "(the release shows noisy counts: 'Released rows').")
elif view == "Component plane":
    attr = view_extra.selectbox("Attribute", list(columns), key="sskm_component")
    values, cbar = cached.component_plane(pub, columns, attr, som)
    caption = f"Weight of '{md(attr)}' (min-max scaled) at each neuron: where on the map high and low values live."
else:
    target = view_extra.selectbox("Sensitive attribute", list(sensitive), key="sskm_share_attr")
    values, cbar, label = cached.sensitive_share(pub, target, som)
    caption = (f"Share of rows with {md(label)} among those each neuron wins; grey = empty neuron. Evaluated "
               "on your private data, not released.")
with chart_area:
    show_chart(charts.som_grid(values, topology=topology, colorbar=cbar,
                               title=f"SOM grid ({rows} x {cols}): {view}, epsilon {epsilon:g}",
                               dataset=dataset.name),
               charts.som_grid_data(values, value_name=cbar or view), name=f"sskm-grid-{view.lower()}",
               key="sskm_grid_chart")
    st.caption(caption + grid_note)

st.caption(
    "Paper 003: a self-organising map (started from a shuffled-frog-leaping search) clusters "
    "the records; each record is published as its cluster's centre, and the attributes that "
    "are sensitive or strongly linked to a sensitive one (MIC >= CS_Tsh) get Laplace noise. "
    "That is the paper mode, which is not differentially private. The sound mode (the default) "
    "fits its map through noisy counts and sums from a random start, or on a public reference "
    "table, and publishes noisy counts and sums of every attribute per neuron."
)
if result["is_dp"]:
    st.info(f"Sound mode: the release is {epsilon:g}-differentially private under the project's "
            "neighbouring relation: bounds and categories come from the public schema, and the map and the "
            "release read the records only through noisy counts and sums its ledger pays for (see the box "
            "below).", icon=":material/lock:")
elif mode == "sound":
    st.warning("Sound mode, but not differentially private: " + md(" ".join(result["ledger_obj"].not_dp_reasons)),
               icon=":material/lock_open:")
else:
    st.warning("Paper mode: not differentially private. The paper's epsilon is nominal: the map reads "
               "every raw record, rows keep their order, and sizes and unprotected attributes are exact. "
               "The privacy audit below measures how far the claim fails.", icon=":material/lock_open:")
guarantee_box(result["ledger_obj"])

tab_train, tab_mic, tab_release, tab_sweep, tab_base = st.tabs(
    ["Training", "Connections", "Release", "Fig. 5-6: across a and m", "Baselines (Fig. 7)"]
)

with tab_train:
    m1, m2, m3 = st.columns(3)
    quality = cached.map_quality(pub)
    st.caption("Map quality below is evaluated on your private data, not released."
               + (" The sound mode's map is fitted in a few noisy batch steps (one point each)." if mode == "sound"
                  else ""))
    m1.metric("Quantisation error", f"{quality['quantization_error']:.4f}")
    m2.metric("Topographic error", f"{quality['topographic_error']:.3f}")
    m3.metric("Clusters (non-empty neurons)", f"{quality['clusters']} of {rows * cols}")
    fitted_som = pub.som_
    if fitted_som.sfla_ is not None:
        show_chart(charts.sfla_convergence(fitted_som.sfla_.best_fitness, fitted_som.sfla_.mean_fitness,
                                           dataset=dataset.name),
                   charts.sfla_data(fitted_som.sfla_.best_fitness, fitted_som.sfla_.mean_fitness),
                   name="sskm-sfla-convergence", key="sskm_sfla")
        st.caption("Fitness (Eq. 9, higher is better) of the best frog and the population mean after each shuffle.")
    elif mode == "sound" and map_fit == "noisy":
        st.caption("The sound mode's noisy map starts from uniform weights drawn from the seed (SFLA reads the "
                   "rows, so it is not used).")
        control_hint("'Initial weights' applies to the paper mode and to a reference map.")
    else:
        st.caption("The SFLA search runs only with the initial weights 'sfla'.")
    show_chart(charts.som_training(fitted_som.history_, dataset=dataset.name),
               charts.som_training_data(fitted_som.history_), name="sskm-som-training", key="sskm_training")
    st.caption("Quantisation error (mean distance to the winning neuron) and topographic error (share of rows whose "
               "two best neurons are not neighbours) on a probe sample while training; lower is better.")

with tab_mic:
    conn = pub.connections_.with_threshold(float(cs_threshold))
    show_chart(charts.mic_heatmap(conn.strengths, conn.threshold, conn.protected, dataset=dataset.name),
               charts.mic_data(conn.strengths, conn.threshold, conn.protected), name="sskm-mic", key="sskm_mic")
    st.caption("MIC between each sensitive attribute (rows) and each attribute; starred columns are protected. "
               f"Computed on {conn.rows_used:,} rows."
               + (" Shown for information only, evaluated on your private data, not released: the sound mode "
                  "noises every attribute." if mode == "sound" else ""))
    st.write("**Protected attributes:** " + ", ".join(f"`{_code(c)}`" for c in conn.protected))

with tab_release:
    r3, r4 = st.columns(2)
    r3.metric("Clusters", result["clusters"])
    r4.metric("Total epsilon (ledger)", f"{result['total_epsilon']:g}" if result["is_dp"]
              else f"none (nominal {result['nominal_epsilon']:g})")
    st.caption("MSE and record linkage are evaluated on your private data, not released.")
    st.dataframe(_reference_table(refs, result), hide_index=True)
    curve = sweep_view("sskm_eps_curve", cached.epsilon_curve(fp, pub, key, float(cs_threshold), tuple(EPSILONS),
                                                              EPSILON_REPETITIONS, seed))
    if curve is not None:
        show_chart(charts.epsilon_curves(curve, current=float(epsilon), mode=mode, dataset=dataset.name,
                                         references=refs),
                   charts.epsilon_data(curve, refs), name=f"sskm-{mode}-mse-and-linkage-vs-epsilon",
                   key="sskm_eps_curve")
        st.caption(f"Mean over {EPSILON_REPETITIONS} noise draws (bars: 95% interval); MSE on min-max scaled "
                   "attributes. More budget means less noise: MSE falls and linkage risk rises. The dotted line "
                   "is the raw table (no protection: MSE 0), the dashed grey one a random release (rows drawn "
                   "uniformly within the bounds and categories: no information). The vertical line is the "
                   "chosen epsilon.")
        worst = curve.iloc[int(curve["mse_mean"].to_numpy().argmax())]
        for sentence in cached.reference_sentences(float(worst["mse_mean"]), float(curve["rl_mean"].max()), refs,
                                            what="Somewhere on this curve the release"):
            st.caption(sentence)
    st.subheader("Published table")
    st.dataframe(result["frame"].head(200), height=260)
    st.caption("The table above is drawn with the sidebar seed for display; a download draws new noise.")
    release_download(
        "sskm", method=f"SSKM_DP ({mode} mode, paper 003) at epsilon {epsilon:g}",
        label=f"SSKM_DP {mode} at epsilon {epsilon:g}", file_name="sskm_dp_release.csv", seed=seed,
        settings_key=(key, float(epsilon), float(cs_threshold)),
        make_release=lambda noise: cached.download_release(pub, float(epsilon), float(cs_threshold), noise),
    )
    with st.expander("Privacy ledger and noise per cluster"):
        st.dataframe(result["noise"], height=200)
        st.dataframe(result["ledger"], height=200)

with tab_sweep:
    st.caption(
        "The paper's Fig. 5 (MSE) and Fig. 6 (record linkage) of SSKM_DP: for each number of attributes m, "
        "SOM grid and repetition a new map is fitted (SFLA start) and released at epsilon 0.05, 0.1, 1 and 5 "
        f"in the {mode} mode. SSKM_DP does not take a number of clusters: a is the number of neurons that "
        "released rows, so the grid sets it. A panel's m attributes are the sensitive ones and the first "
        "others of the attributes chosen above, in their order; bounds come from the public schema (sound) "
        "or the data (paper). MSE and linkage are evaluated on your private data, not released."
    )
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
    if not m_values or not grids:
        control_hint("Pick at least one m and one SOM grid.")
    else:
        with page_errors():
            order = sorted(grids, key=lambda g: [int(v) for v in g.split("x")])
            sweep = cached.clusters_sweep(fp, dataset, tuple(columns), tuple(sensitive), tuple(sorted(m_values)),
                                          tuple(order), int(reps), int(sweep_iterations), mode, seed,
                                          schema=schema)
            fits = len(m_values) * len(grids) * int(reps)
            summary = sweep_on_request(
                "sskm_clusters", sweep, button="Run the sweep", key="sskm_sweep_run", icon=":material/play_arrow:",
                waiting="The sweep has not been run in this session." if is_presenting() else (
                    f"{fits} maps to fit ({len(m_values)} m x {len(grids)} grids x {int(reps)} repetitions), "
                    "each released at 4 epsilons. Press the button: it runs in the background with its "
                    "time left, and is kept once finished."))
            if summary is not None:
                show_chart(charts.mse_vs_clusters(summary, mode=mode, dataset=dataset.name),
                           charts.mse_vs_clusters_data(summary), name=f"sskm-fig5-{mode}-mse-vs-a",
                           key="sskm_fig5")
                claim_box(cached.fig5_claim(summary, mode))
                show_chart(charts.rl_vs_clusters(summary, mode=mode, dataset=dataset.name),
                           charts.rl_vs_clusters_data(summary), name=f"sskm-fig6-{mode}-rl-vs-a",
                           key="sskm_fig6")
                claim_box(cached.fig6_claim(summary, mode))
                st.caption(f"Mean over {int(reps)} maps per point (bars: one standard deviation); a is the "
                           "mean number of clusters of a grid at that epsilon (hover: its least and largest).")
                with st.expander("The sweep's table"):
                    st.dataframe(summary, height=240)

with tab_base:
    big = len(pub.table_.X) > 20_000
    run_baselines = st.toggle(
        "Compute the baselines", value=not big, key="sskm_run_baselines",
        help="MDAV, MDAV_DP and IDP-KMeans on every row; on large tables this takes a while (cached after).",
    )
    a_values = st.multiselect("Numbers of clusters a", [10, 25, 50, 100, 250, 500],
                              default=[10, 25, 50, 100, 250], key="sskm_a_values")
    if not run_baselines:
        st.caption(f"{len(pub.table_.X):,} rows: the baselines are not computed yet.")
        control_hint("Switch 'Compute the baselines' on when you want them.")
    elif a_values:
        try:
            table = sweep_view("sskm_baselines", cached.baselines(fp, pub, key, float(cs_threshold), float(epsilon),
                                                                  tuple(sorted(a_values)), 3, seed))
        except (DataError, ValueError) as exc:
            show_error(exc)
            table = None
        if table is not None:
            show_chart(charts.baselines_vs_a(table, dataset=dataset.name, epsilon=float(epsilon),
                                             random_mse=float(rand["mse_mean"])),
                       charts.baselines_data(table), name="sskm-baselines-vs-a", key="sskm_baselines")
            claim_box(cached.fig7_claim(table, mode, float(epsilon), random_mse=float(rand["mse_mean"])))
            st.caption(f"MSE at the same total epsilon = {epsilon:g} vs the number of clusters a (k = n / a for "
                       "MDAV); SSKM_DP's point sits at its own cluster count, which the map sets. Mean of 3 noise "
                       "draws. Guarantees: IDP-KMeans is epsilon-DP (uniform initial centres, noisy counts); "
                       "MDAV is not DP; MDAV_DP's noise gives each record epsilon (scale range x m / (k x epsilon)) "
                       "but its partition reads the raw records, so it is not DP either; SSKM_DP as its mode says.")
            st.dataframe(table, height=220)
    else:
        control_hint("Pick at least one a.")

audit_panel(
    f"sskm_{mode}", lambda: cached.audit_case(pub, dataset, tuple(columns), tuple(sensitive), float(epsilon),
                                      float(cs_threshold), seed),
    case_key=(key, float(epsilon), float(cs_threshold)), seed=seed,
    default_runs=1000 if mode == "sound" else 200,
)
