"""The sections of the Publishing page (paper 000, Section 6.3): epsilon and the scheme
with the settings folded under them, the count-query MAE against epsilon (Fig. 6, Fig. 8
with both similarity measures) beside its reading, the product columns (Fig. 7), the
schemes' sensitivities, and the privacy of one release with its audit. Each function
draws one part of the page where the page calls it.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import streamlit as st

from core.decide.from_configs import solve_config_from_page
from dashboard.cdp import cached, solving
from dashboard.cdp.charts import curve_data, curve_with_spread
from dashboard.shared.widgets.chart_data import show_chart
from dashboard.shared.widgets.charts import number, plotly_text
from dashboard.shared.widgets.claims import claim_box
from dashboard.shared.widgets.job_view import setup_view, sweep_view
from dashboard.shared.widgets.present import is_presenting
from dashboard.shared.widgets.privacy import audit_panel, guarantee_box, guarantee_text
from dashboard.shared.safe import md
from dashboard.shared.serving.schemas import current_schema
from dashboard.shared.widgets.bundle_view import page_config
from dashboard.shared.solve.solve_offers import epsilon_choice
from dashboard.shared.solve.solve_panel import ApplyEpsilon, Solved, chosen_ledger, solve_panel

BUDGET_TEXT = {
    "per_query": "per query (the paper: a release of Q queries costs Q x epsilon)",
    "total": "for the whole release (split evenly over the Q queries)",
}
EPS_GRID = (0.1, 0.25, 0.5, 1.0, 2.0, 4.0, 6.0, 8.0, 10.0)


@dataclass(frozen=True)
class Choice:
    """What the page's widgets chose."""

    epsilon: float
    scheme: str
    compare: str
    threshold: float
    n_queries: int
    reps: int
    budget: str
    use_products: bool
    fig7_compare: bool
    has_products: bool

    @property
    def measures(self) -> list[str]:
        """The similarity measures drawn."""
        return ["pearson", "mahalanobis"] if self.compare == "both" else [self.compare]

    @property
    def x_note(self) -> str:
        """What the epsilon axis means under the chosen budget."""
        return "epsilon per query" if self.budget == "per_query" else "epsilon of the whole release"


@dataclass(frozen=True)
class Curves:
    """The data queried, the setups per measure and the MAE curves (their summary, their runs
    one row per scheme, epsilon and repetition, and the chart's place on the page)."""

    data: Any
    schema: Any
    setups: dict
    first: Any
    refs: Any
    summary: Any
    runs: Any = None
    slot: Any = None
    table: Any = None  # the page's whole table (its name and fingerprint go into configs)


def controls(control, dataset) -> Choice:
    """epsilon and the scheme in ``control``; the queries, measure and budget folded below."""
    epsilon = control.select_slider("epsilon", EPS_GRID, value=1.0, key="pub_epsilon",
                                    help="The budget as read in the settings below: the chart's dotted line, "
                                         "the reading beside it, the guarantee and the audit.")
    scheme = control.radio("Scheme", [cached.DP_READING, "Proposed", "Zhang", "Group"], key="pub_scheme",
                           horizontal=True,
                           help="The DP reading is differentially private; the paper's schemes read your records "
                                "outside the budget.")
    with st.expander("Queries, similarity measure and budget"):
        c1, c2, c3, c4 = st.columns(4)
        compare = c1.radio("Similarity measure", ["pearson", "mahalanobis", "both"], key="pub_measure",
                           help="Both: Zhang's and the proposed scheme under each measure (Fig. 8).")
        threshold = c2.slider("delta0", 0.05, 1.0, 0.8, 0.05, key="pub_threshold")
        n_queries = c3.slider("Queries", 20, 500, 200, 20, key="pub_queries")
        reps = c4.slider("Repetitions", 1, 20, 10, key="pub_reps")
        budget = st.radio("Epsilon is the budget", list(BUDGET_TEXT), format_func=BUDGET_TEXT.get,
                          horizontal=True, key="pub_budget",
                          help="Under the paper's reading each query spends epsilon, so the release of all "
                          "queries spends Q times as much; the other reading keeps the whole release at epsilon.")
        use_products, fig7_compare = True, False
        has_products = bool(cached.product_columns(dataset))
        if has_products:
            p1, p2 = st.columns(2)
            use_products = p1.toggle("Include the product columns (Fig. 7)", value=True, key="pub_products",
                                     help="The supplier sample has one 0/1 column per product line.")
            fig7_compare = p2.toggle("Compare with and without them (Fig. 7)", value=False, key="pub_fig7",
                                     help="Also computes the curve of the other choice (its own feature selection "
                                          "and sensitivities), to check the paper's Fig. 7.")
    return Choice(epsilon, scheme, compare, threshold, n_queries, reps, budget, use_products, fig7_compare,
                  has_products)


def _publishing(data, measure: str, c: Choice, seed, schema):
    """The publishing setup step of ``data`` under ``measure``."""
    return cached.publishing(data, measure, float(c.threshold), 40.0, int(c.n_queries), seed,
                             cached.schema_subset(schema, data))


def mae_curves(chart, dataset, seed, c: Choice) -> Curves:
    """The setups per measure and the MAE against epsilon; its place in ``chart``, where
    :func:`draw_mae_chart` draws it once the solve panel has its answers to mark."""
    data = cached.publishing_data(dataset, c.use_products, seed)
    schema = current_schema(dataset)
    measures = c.measures
    setups = {}
    with chart:
        for m in measures:
            step = _publishing(data, m, c, seed, schema)
            setups[m] = (step, setup_view(f"pub_setup_{m}", step))
        first = setups[measures[0]][1]
        refs = cached.mae_references(first, "Proposed")
        result = sweep_view("pub_curve", cached.mae(setups, epsilons=EPS_GRID, repetitions=int(c.reps),
                                                    budget=c.budget, seed=seed))
        slot = st.container()
    summary, runs = (None, None) if result is None else result
    return Curves(data, schema, setups, first, refs, summary, runs, slot, dataset)


def draw_mae_chart(c: Choice, curves: Curves, solved: Solved | None) -> None:
    """The MAE against epsilon (Fig. 6; Fig. 8 with both measures) in its place at the top,
    with the target and the solved epsilons marked."""
    summary, refs, x_note = curves.summary, curves.refs, c.x_note
    if summary is None:
        return
    figs = "Fig. 6 and Fig. 8" if c.compare == "both" else "Fig. 6"
    fig = curve_with_spread(summary, group="scheme", value="mae", log_y=True, marker_x=float(c.epsilon), log_x=True,
                            x_title=f"{x_note} (log scale)", references=refs, y_title="MAE (log scale)",
                            title=f"Count-query MAE vs {x_note} on {plotly_text(curves.data.name)} (Eq. 22; {figs})")
    with curves.slot:
        show_chart(solving.marked(fig, solved),
                   curve_data(summary, group="scheme", value="mae", x_name=x_note, references=refs),
                   name="publishing-mae-vs-epsilon", key="pub_curve", width="stretch")


def page_settings(c: Choice) -> dict:
    """The page's settings as its bundle and ``pux solve`` read them (:mod:`core.bundle.pages.publishing`)."""
    return {"epsilon": float(c.epsilon), "scheme": c.scheme, "measure": c.compare, "threshold": float(c.threshold),
            "n_queries": int(c.n_queries), "repetitions": int(c.reps), "budget": c.budget,
            "use_products": bool(c.use_products), "fig7_compare": bool(c.fig7_compare), "epsilons": list(EPS_GRID),
            "epsilon_choice": epsilon_choice("pub_epsilon", c.epsilon)}


def solve(c: Choice, curves: Curves, seed) -> Solved | None:
    """The target MAE, each scheme's epsilon that meets it (marked on Fig. 6), the two sound
    ways to choose, "use this epsilon" for the slider, and the answer as a ``pux solve``
    config."""
    if curves.runs is None:
        return None
    with st.expander("Solve for epsilon: the smallest epsilon whose MAE is at most a target",
                     icon=":material/target:"):
        return solve_panel(
            solving.solvable(curves.runs), key="pub_solve", measures=[solving.PUB_MEASURE], group="method",
            apply=ApplyEpsilon("pub_epsilon", solving.pub_snap(EPS_GRID), default=cached.DP_READING),
            reference=solving.pub_reference(c, seed, curves.schema, EPS_GRID),
            selection=solving.pub_selection(curves.first, epsilon=float(c.epsilon), budget=c.budget,
                                            n_queries=int(c.n_queries), seed=seed, grid=EPS_GRID),
            solve_file=lambda target, confidence: solve_config_from_page(
                page_config("publishing", curves.table, seed=seed, settings=page_settings(c),
                            schema=curves.schema), target, confidence=confidence))


def reading(control, c: Choice, curves: Curves, seed):
    """The chosen scheme's MAE at epsilon, the mean true count and the zero-noise release, in
    ``control``: the scheme's setup and the mean true count."""
    scheme, epsilon, summary = c.scheme, c.epsilon, curves.summary
    shown = c.measures[0] if scheme not in ("Group", cached.DP_READING) else "pearson"
    setup = curves.setups[shown][1] if shown in curves.setups else setup_view(
        f"pub_setup_{shown}", _publishing(curves.data, shown, c, seed, curves.schema))
    true_mean = cached.mean_true_count(curves.first)
    floor = cached.zero_noise_mae(setup, scheme)
    with control:
        at_eps = cached.mae_at(summary, scheme, float(epsilon), measure=shown) if summary is not None else None
        if at_eps is not None and at_eps == at_eps:  # NaN: the scheme is not on the curve
            st.metric(f"MAE of {scheme} at epsilon = {epsilon:g}", number(at_eps),
                      f"{cached.share_text(at_eps, true_mean)} of the mean true count", delta_color="off",
                      delta_arrow="off")
        if summary is not None:
            over = cached.over_true_count(summary, float(epsilon), true_mean)
            if over:
                st.warning(f"At epsilon = {epsilon:g} the error of " + md(", ".join(over)) + " is at least the "
                           f"mean true count ({number(true_mean)}): those answers are mostly noise.",
                           icon=":material/warning:")
        st.metric("Mean true count of the queries", number(true_mean),
                  f"over {len(curves.first.true_original):,} queries on {curves.data.n_rows:,} records",
                  delta_color="off", delta_arrow="off")
        st.metric(f"Zero-noise release of {scheme}", number(floor),
                  "its MAE without noise: what feature selection alone changes" if floor else
                  "0: it keeps every attribute, so without noise it answers exactly",
                  delta_color="off", delta_arrow="off")
    return setup, true_mean


def about(c: Choice, curves: Curves) -> None:
    """How the queries are drawn and answered, and what the budget covers."""
    n = int(c.n_queries)
    per = (f"each query spends epsilon, so one release of all the queries spends {n} x epsilon"
           if c.budget == "per_query" else f"the {n} queries share epsilon (each gets epsilon / {n})")
    st.caption(f"Using {curves.data.n_rows:,} rows; {per}. "
               "Random conjunctive range counts answered with exact discrete Laplace noise of scale sensitivity / "
               "epsilon on the feature-selected data. The queries are drawn from the public schema (its bounds and "
               "category lists), never from your values. The error (Eq. 22) adds the noise and what feature "
               "selection changed in the true answers. The paper's schemes compute their sensitivity and choose "
               "their attributes on your records, so they are not differentially private; the DP reading uses "
               "every attribute and the schema's declared bound on the correlated group.")


def fig6_and_fig8(c: Choice, curves: Curves, true_mean: float) -> None:
    """How to read the MAE curves, and the claims of Fig. 6 and Fig. 8."""
    summary, refs = curves.summary, curves.refs
    if summary is None:
        return
    st.caption("Lower is better: lines are mean MAE, bands one standard deviation over repetitions. The flat "
               f"lines are the references: the queries' mean true count ({number(true_mean)}; an MAE that "
               "high is as large as the answers) and the Proposed scheme's zero-noise release "
               f"({number(refs[1].value)}: the floor at large epsilon, the error feature selection itself adds"
               + ("; a floor of 0 has no place on the log axis" if refs[1].value <= 0 else "") + ").")
    claim_box(cached.fig6_claim(summary, mean_true=true_mean))
    claim_box(cached.fig8_claim(
        summary if c.compare == "both" else None,
        reason=("Fig. 8 needs both similarity measures, Pearson and Mahalanobis, side by side; this view "
                "shows one." if is_presenting() else
                "Choose 'both' as the similarity measure in the settings above: Fig. 8 sets Pearson and "
                "Mahalanobis side by side.")))


def _other_curve(dataset, seed, c: Choice, curves: Curves):
    """The MAE curve of the other choice of product columns (None until it is computed)."""
    other_data = cached.publishing_data(dataset, not c.use_products, seed)
    m0 = c.measures[0]
    other_step = _publishing(other_data, m0, c, seed, curves.schema)
    other_ready = setup_view("pub_fig7_setup", other_step, stop=False)
    if other_ready is None:
        return None
    result = sweep_view("pub_fig7_curve", cached.mae({m0: (other_step, other_ready)}, epsilons=EPS_GRID,
                                                      repetitions=int(c.reps), budget=c.budget, seed=seed))
    return None if result is None else result[0]


def fig7(dataset, seed, c: Choice, curves: Curves) -> None:
    """The Proposed scheme's MAE with and without the product columns, and Fig. 7's claim."""
    summary, refs, x_note = curves.summary, curves.refs, c.x_note
    fig7_reason = ("This table has no product columns (the supplier sample has them): Fig. 7 cannot be "
                   "checked on it." if not c.has_products else
                   "Fig. 7 needs the curve without the product columns too; this view has not computed it."
                   if is_presenting() else
                   "Turn on 'Compare with and without them (Fig. 7)' in the settings above: the check needs "
                   "the curve of the other choice too.")
    other = _other_curve(dataset, seed, c, curves) if c.fig7_compare and summary is not None else None
    if other is None:
        claim_box(cached.fig7_claim(None, None, reason=fig7_reason if not c.fig7_compare or not c.has_products
                                    else "The curve without the change is still being computed."))
        return
    with_p, without_p = (summary, other) if c.use_products else (other, summary)
    both = cached.fig7_curves(with_p, without_p)
    show_chart(curve_with_spread(both, group="scheme", value="mae", log_y=True, log_x=True,
                                 x_title=f"{x_note} (log scale)", y_title="MAE (log scale)",
                                 references=refs[:1],
                                 title=f"Proposed scheme's count-query MAE with and without the product "
                                       f"columns, {plotly_text(dataset.name)} (Fig. 7)"),
               curve_data(both, group="scheme", value="mae", x_name=x_note, references=refs[:1]),
               name="publishing-mae-with-and-without-products", key="pub_fig7_chart", width="stretch")
    claim_box(cached.fig7_claim(with_p, without_p))


def sensitivities(curves: Curves) -> None:
    """Each scheme's sensitivity, also as a share of the records queried."""
    st.dataframe(cached.sensitivity_rows({m: ready for m, (_, ready) in curves.setups.items()},
                                         n_rows=curves.data.n_rows),
                 hide_index=True, width="stretch")
    st.caption("Group uses GS over all attributes; Zhang and Proposed use CS on their selected attributes, all "
               "computed from your records (not differentially private); each is also given as a share of N, "
               "the records queried. The DP reading uses every attribute and the schema's declared group bound "
               "(one record when none is declared).")


def release_privacy(c: Choice, curves: Curves, setup, seed) -> None:
    """The guarantee of one release of the queries by the chosen scheme, and the audit of one query."""
    scheme, epsilon, data = c.scheme, c.epsilon, curves.data
    release = cached.count_release(setup, scheme, epsilon=float(epsilon), budget=c.budget, seed=seed)
    ledger = chosen_ledger("pub_epsilon", epsilon, release.ledger)  # marked when chosen on the private data
    st.metric(f"Guarantee of one release of {int(c.n_queries)} queries ({scheme}, epsilon = {epsilon:g})",
              guarantee_text(ledger), f"{release.epsilon_per_query:.3g} per query", delta_color="off",
              delta_arrow="off")
    guarantee_box(ledger)
    audit_panel(
        "pub", lambda: cached.count_audit_case(data, setup, scheme, epsilon_per_query=release.epsilon_per_query),
        case_key=(data.fingerprint(), scheme, float(release.epsilon_per_query), float(c.threshold)), seed=seed,
        default_runs=2000,
    )
    st.caption("The audit looks at one query, so its claim is that query's epsilon; the whole release "
               "adds the queries up.")
