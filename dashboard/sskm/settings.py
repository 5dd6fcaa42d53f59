"""The settings of the SSKM_DP page (paper 003): the attributes it may publish, the budget
and the map view on the first screen, and the one expander that holds the attributes, the
map and the mechanism (the sound mode's schema bounds or public reference table, the
paper mode's bounds). Each function draws its widgets where the page calls it and returns
what they chose.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

import streamlit as st

from core.validation import DataError
from dashboard.sskm import cached
from dashboard.shared.widgets.preamble import choose_sensitive, stop_until_chosen
from dashboard.shared.widgets.present import control_hint
from dashboard.shared.safe import md

#: the budgets of the slider and of the release tab's curve
EPSILONS = [0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0]
#: what the SOM grid can show
VIEWS = ["U-matrix", "Released rows", "Hit map", "Component plane", "Sensitive share"]


@dataclass(frozen=True)
class Settings:
    """What the expander 'Attributes, map and mechanism' chose."""

    columns: list
    sensitive: list
    mode: str
    cs_threshold: float
    rows: int
    cols: int
    topology: str
    init: str
    iterations: int
    sigma: float
    mic_rows: int
    bounds: tuple = ()
    map_fit: str = "noisy"
    reference: Any = None
    reference_key: str | None = None


def code(name: object) -> str:
    """A column name for inline code (backticks would end the span)."""
    return str(name).replace("`", "'").replace("\n", " ")


def publishable(dataset, schema) -> list:
    """The attributes SSKM_DP may publish (no label, no identifier); a DataError for fewer
    than two."""
    found = cached.feature_columns(dataset, schema)
    if len(found) < 2:
        raise DataError("SSKM_DP needs at least two attributes besides the label and the identifiers; load a "
                        "wider table.")
    return found


def budget_and_view(control):
    """The budget and the map view in ``control``: epsilon, the container for the metrics,
    the view and the container for its extra widget."""
    epsilon = control.select_slider("Privacy budget epsilon", EPSILONS, value=1.0, key="sskm_epsilon",
                                    help="The whole release's budget (sound mode: the map and the release "
                                         "together).")
    metric_area = control.container()
    if st.session_state.get("sskm_view") not in (None, *VIEWS):
        del st.session_state["sskm_view"]
    view = control.radio("Show on the map", VIEWS, key="sskm_view")
    view_extra = control.container()
    return epsilon, metric_area, view, view_extra


def settings(dataset, schema, features: list) -> Settings:
    """The expander 'Attributes, map and mechanism' (open while no sensitive attribute is
    chosen); the page stops while fewer than two attributes or no sensitive one are chosen."""
    kept_cols = st.session_state.get("sskm_columns")
    if kept_cols is not None and any(c not in features for c in kept_cols):  # another table's, or an identifier
        st.session_state["sskm_columns"] = [c for c in kept_cols if c in features]
    ids = [c for c in dataset.frame.columns if c not in features and c != dataset.label]
    unchosen = not st.session_state.get("sskm_sensitive") and not [s for s in dataset.sensitive if s in features]
    with st.expander("Attributes, map and mechanism", icon=":material/tune:", expanded=unchosen):
        columns, sensitive = _attributes(dataset, features, ids)
        mode = st.radio(
            "Mechanism", ["sound", "paper"], horizontal=True, key="sskm_mode",
            help="sound: differentially private (bounds and categories from the public schema, a map "
                 "fitted through noisy counts and sums with 30 % of epsilon, noisy counts and sums of every "
                 "attribute, shuffled rows). paper: the paper's algorithm, not differentially private.",
        )
        cs_threshold = st.slider("CS_Tsh (connection-strength threshold)", 0.0, 1.0, 0.3, 0.01, key="sskm_cs",
                                 help="Attributes with MIC >= CS_Tsh toward a sensitive one are protected "
                                      "(paper mode).")
        grid = _map(dataset)
        if mode == "sound":
            extra = _sound_inputs(schema)
        else:
            extra = _paper_bounds(dataset, columns)
    if len(columns) < 2:
        raise DataError("Choose at least two attributes to publish (under 'Attributes, map and mechanism').")
    stop_until_chosen(sensitive, dataset, "Choose at least one sensitive attribute under 'Attributes, map and "
                      "mechanism': {marked}SSKM_DP has nothing to protect until you do (it noises the sensitive "
                      "attributes and those linked to them).")
    return Settings(columns, sensitive, mode, cs_threshold, *grid, **extra)


#: Attributes published by default (the paper uses m = 5 or 10).
DEFAULT_ATTRIBUTES = 10


def default_attributes(features: list, sensitive) -> list:
    """The attributes chosen by default: every sensitive attribute the table marks (wherever
    it sits among the columns), then the first others, :data:`DEFAULT_ATTRIBUTES` in all
    (more when more are sensitive), in the table's order."""
    marked = {c for c in sensitive if c in features}
    room = max(DEFAULT_ATTRIBUTES - len(marked), 0)
    others = [c for c in features if c not in marked][:room]
    keep = marked | set(others)
    return [c for c in features if c in keep]


def _attributes(dataset, features: list, ids: list):
    """The attributes to publish and the sensitive ones, side by side."""
    c1, c2 = st.columns([3, 2])
    default_cols = default_attributes(features, dataset.sensitive)
    columns = c1.multiselect(
        "Attributes to publish (m)", features, default=default_cols, key="sskm_columns",
        help="Every chosen attribute is published; the paper uses m = 5 or 10.",
    )
    if ids:
        control_hint("Left out as identifiers (never clustered nor published): "
                     + ", ".join(f"`{code(c)}`" for c in ids) + ". Change a column's role on the Data page.")
    # no silent default: a table that marks no sensitive attribute leaves the choice to the user
    sensitive = choose_sensitive(c2, "Sensitive attributes", columns, dataset, key="sskm_sensitive",
                                 multiple=True,
                                 help="Always protected: their values in the release carry Laplace noise.")
    return columns, sensitive


def _map(dataset) -> tuple:
    """The map's grid and training: rows, columns, topology, initial weights, draws T,
    sigma and the MIC row cap."""
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
    return rows, cols, topology, init, iterations, sigma, mic_rows


def _sound_inputs(schema) -> dict:
    """The sound mode's map: fitted through noise, or on an uploaded public reference table."""
    control_hint("Bounds and category lists come from the public schema (review it on the Data page): "
                 + md(schema.describe()))
    map_fit = st.radio(
        "Map", ["noisy", "reference"], horizontal=True, key="sskm_map",
        format_func=lambda v: {"noisy": "fitted through noise (30 % of epsilon)",
                               "reference": "fitted on a public reference table"}[v],
        help="noisy: a data-independent start and a few batch steps on noisy counts and sums, paid from "
             "epsilon. reference: the paper's SOM (SFLA start) on a table you provide and declare public; "
             "all of epsilon goes to the release.")
    if map_fit != "reference":
        return {"map_fit": map_fit}
    upload = st.file_uploader("Public reference table (CSV with the published columns)", type="csv",
                              key="sskm_reference")
    if upload is None:
        control_hint("Until a reference table is uploaded, the map is fitted through noise.")
        return {"map_fit": "noisy"}
    data = upload.getvalue()
    return {"map_fit": map_fit, "reference": cached.read_reference(data),
            "reference_key": hashlib.sha256(data).hexdigest()[:16]}


def _paper_bounds(dataset, columns: list) -> dict:
    """The paper mode's bounds: the range of each numeric attribute from public knowledge."""
    control_hint("Give the range each numeric attribute can take, from public knowledge (age 17 to "
                 "90, say). Empty cells take the range of the data, as the paper does.")
    edited = st.data_editor(cached.bound_rows(dataset, tuple(columns)), hide_index=True,
                            disabled=["column"], key=f"sskm_bounds_{'_'.join(columns)}",
                            column_config={"lo": st.column_config.NumberColumn("lo"),
                                           "hi": st.column_config.NumberColumn("hi")})
    return {"bounds": cached.parse_bounds(edited)}
