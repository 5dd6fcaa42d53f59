"""The sections of the SSKM_DP page (paper 003) around one release: the fitted map and the
release at the chosen budget, the metrics beside the raw table's and a random release's,
the SOM grid, the release's privacy status, and the Training, Connections and Release
tabs (the last with the real table against this release or a baseline's, column by column
and pair by pair), and the page's "Download bundle" (:mod:`core.bundle.pages.sskm` recomputes
every number with the same seed). Each function draws one part of the page where the page
calls it.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np
import pandas as pd
import streamlit as st

from core.data.categories import OTHER
from dashboard.sskm import cached
from dashboard.sskm import charts
from dashboard.sskm.settings import EPSILONS, Settings, code
from dashboard.shared.widgets.bundle_view import bundle_download, page_config
from dashboard.shared.widgets.chart_data import show_chart
from dashboard.shared.widgets.fidelity_view import real_vs_release
from dashboard.shared.widgets.job_view import setup_view, sweep_view
from dashboard.shared.widgets.present import control_hint
from dashboard.shared.widgets.privacy import audit_panel, guarantee_box, release_download
from dashboard.shared.safe import md
from dashboard.shared.serving.sweeps import FINISHED

#: noise draws per epsilon of the release tab's curve (its 95% intervals are over them)
EPSILON_REPETITIONS = 5


@dataclass(frozen=True)
class Release:
    """One release on the page: its inputs, the fitted publisher and the release's result."""

    dataset: Any
    seed: Any
    epsilon: float
    settings: Settings
    fp: str
    key: tuple
    pub: Any
    result: dict
    refs: pd.DataFrame
    #: the attributes the map was fitted on
    columns: list


def charts_number(value: float) -> str:
    """A metric's value with four significant digits ('n/a' when undefined)."""
    v = float(value)
    return f"{v:.4g}" if np.isfinite(v) else "n/a"


def reference_row(refs: pd.DataFrame, name: str) -> pd.Series:
    """The row of the reference ``name`` (:data:`cached.RANDOM` or :data:`cached.RAW`)."""
    return refs[refs["reference"] == name].iloc[0]


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


def fit(dataset, schema, chosen: Settings, chart_area, epsilon: float, seed) -> Release:
    """The map fitted for ``chosen`` (its progress in ``chart_area``), the release at
    ``epsilon`` and the references."""
    c = chosen
    fp = dataset.fingerprint()
    key = (fp, tuple(c.columns), tuple(c.sensitive), c.rows, c.cols, c.topology, c.init, int(c.iterations),
           float(c.sigma), int(c.mic_rows), seed, c.mode, c.bounds, schema.to_json(), c.map_fit, c.reference_key)
    with chart_area:
        pub = setup_view("sskm_fit", cached.fitted(key, dataset, tuple(c.columns), tuple(c.sensitive), c.rows,
                                                   c.cols, c.topology, c.init, int(c.iterations), float(c.sigma),
                                                   int(c.mic_rows), seed, c.mode, c.bounds, schema=schema,
                                                   map_fit=c.map_fit, reference=c.reference))
    result = cached.release(fp, pub, key, float(epsilon), float(c.cs_threshold), seed)
    refs = cached.references(fp, pub, key, seed)
    columns = [col for col in c.columns if col in pub.table_.columns]  # what the map was fitted on
    return Release(dataset, seed, epsilon, chosen, fp, key, pub, result, refs, columns)


def metrics(metric_area, r: Release) -> None:
    """MSE and record linkage in ``metric_area``, beside the raw table's and a random release's."""
    result, refs = r.result, r.refs
    rand, raw = reference_row(refs, cached.RANDOM), reference_row(refs, cached.RAW)
    with metric_area:
        m1, m2 = st.columns(2)
        m1.metric("MSE", f"{result['mse']:.4f}",
                  help="Evaluated on your private data, not released. References: the raw table 0; a random release "
                       f"{charts_number(rand['mse_mean'])} (95% interval {charts_number(rand['mse_lo'])}-"
                       f"{charts_number(rand['mse_hi'])}).")
        m2.metric("Record linkage", f"{100 * result['rl']:.2f} %",
                  help="Evaluated on your private data, not released. References: the raw table "
                       f"{100 * raw['rl_mean']:.2f} %; a random release {100 * rand['rl_mean']:.3g} %.")
        label = r.dataset.label
        st.caption(f"Raw table: MSE 0, linkage {100 * raw['rl_mean']:.3g} %. Random release ({cached.RANDOM_WORDS}): "
                   f"MSE {charts_number(rand['mse_mean'])}, linkage {100 * rand['rl_mean']:.3g} %. Measured, like "
                   f"this release, on the {cached.reference_scope(r.pub.table_)} it publishes"
                   + (f"; the label '{md(label)}' is not among them." if label else "."))
        for sentence in cached.reference_sentences(result["mse"], result["rl"], refs,
                                                   what=f"At epsilon {r.epsilon:g} this release"):
            st.warning(sentence, icon=":material/info:")


def _grid_values(view: str, view_extra, r: Release, som):
    """The values, colour bar title and caption of the map ``view``."""
    pub, result, c = r.pub, r.result, r.settings
    if view == "U-matrix":
        values, cbar = cached.u_matrix(pub, som)
        caption = "Mean distance from each neuron to its neighbours: dark valleys are clusters, bright ridges are borders."
    elif view == "Released rows":
        values, cbar = cached.released_rows(result, c.rows, c.cols)
        caption = ("Rows the release emits from each neuron: what is published" + (
            " (the table's n records, public, shared among the neurons by their noisy counts); grey neurons emit "
            "none." if c.mode == "sound"
            else " (the exact cluster sizes: the paper's mode publishes them as they are)."))
    elif view == "Hit map":
        values, cbar = cached.hit_map(pub, som)
        caption = ("Rows won by each neuron; grey neurons won none. Evaluated on your private data, not released "
                   "(the release shows noisy counts: 'Released rows').")
    elif view == "Component plane":
        attr = view_extra.selectbox("Attribute", list(r.columns), key="sskm_component")
        values, cbar = cached.component_plane(pub, r.columns, attr, som)
        caption = f"Weight of '{md(attr)}' (min-max scaled) at each neuron: where on the map high and low values live."
    else:
        target = view_extra.selectbox("Sensitive attribute", list(c.sensitive), key="sskm_share_attr")
        values, cbar, label = cached.sensitive_share(pub, target, som)
        caption = (f"Share of rows with {md(label)} among those each neuron wins; grey = empty neuron. Evaluated "
                   "on your private data, not released.")
    return values, cbar, caption


def grid_words(som, c: Settings) -> str:
    """The drawn map's size, and the size asked for when the sound mode sized it down from n, m
    and epsilon (so the title names the map on the chart, not the sidebar's)."""
    drawn = f"{som.rows} x {som.cols}"
    return drawn if (som.rows, som.cols) == (c.rows, c.cols) else f"{drawn}, sized from n, m and epsilon; {c.rows} x {c.cols} asked"


def som_view(chart_area, view_extra, view: str, r: Release) -> None:
    """The SOM grid of this release in ``chart_area``, showing ``view``."""
    result, c, epsilon = r.result, r.settings, r.epsilon
    # the map this release used: the sound mode's noisy map is drawn again for every release
    som = result["som"] if result.get("som") is not None else r.pub.som_
    grid_note = (" The sound mode draws its map through noise for every release: this is the map of the release at "
                 f"epsilon {epsilon:g}." if result.get("som") is not None and c.map_fit == "noisy" else "")
    values, cbar, caption = _grid_values(view, view_extra, r, som)
    with chart_area:
        show_chart(charts.som_grid(values, topology=c.topology, colorbar=cbar,
                                   title=f"SOM grid ({grid_words(som, c)}): {view}, epsilon {epsilon:g}",
                                   dataset=r.dataset.name),
                   charts.som_grid_data(values, value_name=cbar or view), name=f"sskm-grid-{view.lower()}",
                   key="sskm_grid_chart")
        st.caption(caption + grid_note)


def privacy_status(r: Release) -> None:
    """What the paper does, whether this release is differentially private, and its guarantee."""
    result, epsilon = r.result, r.epsilon
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
    elif r.settings.mode == "sound":
        st.warning("Sound mode, but not differentially private: " + md(" ".join(result["ledger_obj"].not_dp_reasons)),
                   icon=":material/lock_open:")
    else:
        st.warning("Paper mode: not differentially private. The paper's epsilon is nominal: the map reads "
                   "every raw record, rows keep their order, and sizes and unprotected attributes are exact. "
                   "The privacy audit below measures how far the claim fails.", icon=":material/lock_open:")
    guarantee_box(result["ledger_obj"])


#: What each map-quality number is read against (shown as the metric's help).
QUALITY_HELP = {
    "qe": "Mean distance from each record to its neuron's weights, attributes scaled to [0, 1]: 0 is a map "
          "with a neuron on every record. Read it against the training curve below, which starts at the "
          "untrained map's value.",
    "te": "Share of records whose two nearest neurons are not neighbours on the grid: 0 is a map that keeps "
          "every neighbourhood, 1 one that keeps none.",
    "clusters": "Neurons that hold at least one record, out of the grid's neurons (the most there can be).",
}
#: What the release's numbers are read against.
RELEASE_HELP = {
    "clusters": "Clusters that released rows, out of the map's neurons; Fig. 7's baselines are run with this "
                "many clusters at the same epsilon.",
    "epsilon": "The budget the privacy ledger adds up for this release, every step included (the map's share "
               "and the counts'), against the sidebar's epsilon; 'none' where there is no guarantee.",
}


def training_tab(r: Release) -> None:
    """The map's quality, the SFLA search's convergence and the SOM's training curves."""
    pub, c, dataset = r.pub, r.settings, r.dataset
    m1, m2, m3 = st.columns(3)
    quality = cached.map_quality(pub)
    st.caption("Map quality below is evaluated on your private data, not released."
               + (" The sound mode's map is fitted in a few noisy batch steps (one point each)." if c.mode == "sound"
                  else ""))
    m1.metric("Quantisation error", f"{quality['quantization_error']:.4f}", help=QUALITY_HELP["qe"])
    m2.metric("Topographic error", f"{quality['topographic_error']:.3f}", help=QUALITY_HELP["te"])
    m3.metric("Clusters (non-empty neurons)", f"{quality['clusters']} of {c.rows * c.cols}",
              help=QUALITY_HELP["clusters"])
    fitted_som = pub.som_
    if fitted_som.sfla_ is not None:
        show_chart(charts.sfla_convergence(fitted_som.sfla_.best_fitness, fitted_som.sfla_.mean_fitness,
                                           dataset=dataset.name),
                   charts.sfla_data(fitted_som.sfla_.best_fitness, fitted_som.sfla_.mean_fitness),
                   name="sskm-sfla-convergence", key="sskm_sfla")
        st.caption("Fitness (Eq. 9, higher is better) of the best frog and the population mean after each shuffle.")
    elif c.mode == "sound" and c.map_fit == "noisy":
        st.caption("The sound mode's noisy map starts from uniform weights drawn from the seed (SFLA reads the "
                   "rows, so it is not used).")
        control_hint("'Initial weights' applies to the paper mode and to a reference map.")
    else:
        st.caption("The SFLA search runs only with the initial weights 'sfla'.")
    show_chart(charts.som_training(fitted_som.history_, dataset=dataset.name),
               charts.som_training_data(fitted_som.history_), name="sskm-som-training", key="sskm_training")
    st.caption("Quantisation error (mean distance to the winning neuron) and topographic error (share of rows whose "
               "two best neurons are not neighbours) on a probe sample while training; lower is better.")


def connections_tab(r: Release) -> None:
    """The MIC between the sensitive attributes and the others, and the protected set."""
    conn = r.pub.connections_.with_threshold(float(r.settings.cs_threshold))
    show_chart(charts.mic_heatmap(conn.strengths, conn.threshold, conn.protected, dataset=r.dataset.name),
               charts.mic_data(conn.strengths, conn.threshold, conn.protected), name="sskm-mic", key="sskm_mic")
    st.caption("MIC between each sensitive attribute (rows) and each attribute; starred columns are protected. "
               f"Computed on {conn.rows_used:,} rows."
               + (" Shown for information only, evaluated on your private data, not released: the sound mode "
                  "noises every attribute." if r.settings.mode == "sound" else ""))
    st.write("**Protected attributes:** " + ", ".join(f"`{code(c)}`" for c in conn.protected))


def release_tab(r: Release) -> None:
    """The release against the references, MSE and linkage against epsilon, the published
    table, its download and its ledger."""
    result, epsilon, mode = r.result, r.epsilon, r.settings.mode
    cs_threshold = float(r.settings.cs_threshold)
    r3, r4 = st.columns(2)
    r3.metric("Clusters", result["clusters"], help=RELEASE_HELP["clusters"])
    r4.metric("Total epsilon (ledger)", f"{result['total_epsilon']:g}" if result["is_dp"]
              else f"none (nominal {result['nominal_epsilon']:g})", help=RELEASE_HELP["epsilon"])
    st.caption("MSE and record linkage are evaluated on your private data, not released.")
    st.dataframe(_reference_table(r.refs, result), hide_index=True)
    _epsilon_curve(r)
    st.subheader("Published table")
    st.dataframe(shown_rows(result["frame"].head(200)), height=260)
    st.caption(published_words(r) + " The table above is drawn with the sidebar seed for display; a download "
               "draws new noise.")
    release_download(
        "sskm", method=f"SSKM_DP ({mode} mode, paper 003) at epsilon {epsilon:g}",
        label=f"SSKM_DP {mode} at epsilon {epsilon:g}", file_name="sskm_dp_release.csv", seed=r.seed,
        settings_key=(r.key, float(epsilon), cs_threshold),
        make_release=lambda noise: cached.download_release(r.pub, float(epsilon), cs_threshold, noise),
    )
    with st.expander("Privacy ledger and noise per cluster"):
        st.dataframe(result["noise"], height=200)
        st.dataframe(result["ledger"], height=200)
    fidelity(r)


def published_words(r: Release) -> str:
    """What the published table holds, in words: its rows (exactly n in the sound mode, since
    n is public under the project's relation) and its columns (never the label).

    Parameters
    ----------
    r : Release
        The page's release.
    """
    frame, label = r.result["frame"], r.dataset.label
    n, records = len(frame), len(r.pub.table_.X)
    if n != records:
        rows = f"It holds {n:,} rows for {records:,} records: the rounded noisy counts."
    elif r.settings.mode == "sound":
        rows = (f"It holds exactly {n:,} rows, as many as the table has records: n is public under the project's "
                "neighbouring relation (one record replaced by another), so the noisy counts are shared out to n "
                "rows at no privacy cost.")
    else:
        rows = f"It holds {n:,} rows, one per record."
    cols = f"Its columns are the {len(frame.columns)} attributes chosen in the sidebar"
    missing = label is not None and label not in frame.columns
    words = f"{rows} {cols}" + (f"; the label '{md(label)}' is not in it." if missing else ".")
    others = [str(c) for c in frame.columns if frame[c].dtype == object and (frame[c] == OTHER).any()]
    if others and r.settings.mode == "sound":
        words += (f" '{OTHER}' in {md(', '.join(others[:5]))}{' and more' if len(others) > 5 else ''}: each "
                  "category column keeps a cell for values outside its declared list (any record may hold one, "
                  "missing values included), and that cell is noised like every other, so noise alone can put "
                  "rows there.")
    return words


def shown_rows(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` for display: a column that mixes numbers and text (a category column's codes
    and '(other)') is shown as text, so the table's cells read as released."""
    out = frame.copy()
    for c in out.columns:
        if out[c].dtype == object and out[c].map(type).nunique() > 1:
            out[c] = out[c].astype(str)
    return out


def fidelity(r: Release) -> None:
    """The real rows against this release, or against a baseline of Fig. 7 at the same number
    of clusters and budget: each column and pair, SDMetrics' scores (computed only when opened)."""
    columns = tuple(r.pub.table_.columns)
    a, eps = max(int(r.result["clusters"]), 1), float(r.epsilon)
    releases = {f"SSKM_DP ({r.settings.mode} mode) at epsilon {eps:g}": r.result["frame"]}
    for method in cached.BASELINE_TABLES:
        budget = "no noise" if method == "MDAV" else f"epsilon {eps:g}"
        releases[f"{method} with a = {a} clusters, {budget}"] = partial(
            cached.baseline_table, r.fp, r.pub, r.key, method, a, eps, r.seed)
    real_vs_release(cached.table(r.dataset, columns), releases, key="sskm_rvr", dataset=r.dataset.name)


def _epsilon_curve(r: Release) -> None:
    """MSE and record linkage against epsilon, with the references."""
    mode, refs = r.settings.mode, r.refs
    curve = sweep_view("sskm_eps_curve", cached.epsilon_curve(r.fp, r.pub, r.key, float(r.settings.cs_threshold),
                                                              tuple(EPSILONS), EPSILON_REPETITIONS, r.seed))
    if curve is None:
        return
    show_chart(charts.epsilon_curves(curve, current=float(r.epsilon), mode=mode, dataset=r.dataset.name,
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


def audit(r: Release) -> None:
    """The privacy audit of this release (more runs in the sound mode)."""
    c, epsilon = r.settings, r.epsilon
    audit_panel(
        f"sskm_{c.mode}", lambda: cached.audit_case(r.pub, r.dataset, tuple(r.columns), tuple(c.sensitive),
                                                    float(epsilon), float(c.cs_threshold), r.seed),
        case_key=(r.key, float(epsilon), float(c.cs_threshold)), seed=r.seed,
        default_runs=1000 if c.mode == "sound" else 200,
    )


def _sweep_settings(r: Release, schema) -> dict:
    """The Fig. 5-6 sweep's settings as its tab chose them, ``sweep`` true when its result is shown."""
    state = st.session_state
    m_values = state.get("sskm_sweep_m")
    if m_values is None:
        m_values = cached.sweep_default_m(len(r.columns), len(r.settings.sensitive))
    grids = sorted(state.get("sskm_sweep_grids", list(cached.SWEEP_DEFAULT_GRIDS)),
                   key=lambda g: [int(v) for v in g.split("x")])
    reps = int(state.get("sskm_sweep_reps", cached.SWEEP_REPETITIONS))
    draws = int(state.get("sskm_sweep_iterations", cached.SWEEP_ITERATIONS))
    shown = False
    if m_values and grids:
        try:
            sweep = cached.clusters_sweep(r.fp, r.dataset, tuple(r.columns), tuple(r.settings.sensitive),
                                          tuple(sorted(m_values)), tuple(grids), reps, draws, r.settings.mode,
                                          r.seed, schema=schema)
            shown = FINISHED.get(sweep.key) is not None
        except (TypeError, ValueError):
            shown = False
    return {"sweep": shown, "sweep_m": sorted(int(m) for m in m_values), "sweep_grids": list(grids),
            "sweep_repetitions": reps, "sweep_iterations": draws}


def bundle(r: Release, schema) -> None:
    """"Download bundle": the release and its references, the map, the curve and the baselines
    and sweep as the tabs show them, recomputed with the page's seed; the release drawn anew."""
    c = r.settings
    with st.expander("Download bundle: the settings, every number and the release with a script and notebook "
                     "that rerun them", icon=":material/folder_zip:"):
        if c.map_fit == "reference":
            st.caption("A map fitted on an uploaded reference table cannot be rerun from a bundle (the table is not "
                       "in it): fit the map through noise to make one.")
            return
        big = len(r.pub.table_.X) > 20_000
        settings = {"epsilon": float(r.epsilon), "columns": list(r.columns), "sensitive": list(c.sensitive),
                    "mode": c.mode, "cs_threshold": float(c.cs_threshold), "rows": int(c.rows), "cols": int(c.cols),
                    "topology": c.topology, "init": c.init, "iterations": int(c.iterations),
                    "sigma": float(c.sigma), "mic_rows": int(c.mic_rows),
                    "bounds": [[col, float(lo), float(hi)] for col, lo, hi in c.bounds], "map_fit": "noisy",
                    "baselines": bool(st.session_state.get("sskm_run_baselines", not big)),
                    "a_values": sorted(int(a) for a in st.session_state.get("sskm_a_values", [10, 25, 50, 100, 250])),
                    **_sweep_settings(r, schema)}
        bundle_download("sskm", config=page_config("sskm", r.dataset, seed=r.seed, settings=settings, schema=schema),
                        dataset=r.dataset, releases_table=True)
