"""The sections of the CDP-LR page (paper 000, Algorithm 2): the epsilon slider and the
settings folded under it, the live accuracy of the four schemes and the DP reading beside
the references, their guarantees, the trade-off against epsilon (Fig. 4, with DP-SGD
beside it on request), the noise methods (Fig. 5) and the audits. Each function draws one
part of the page where the page calls it.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import streamlit as st

from core.cdp.schedule import NOISE_METHOD_MEANING, NOISE_METHODS, PRESETS
from core.decide.from_configs import solve_config_from_page
from dashboard.cdp import cached, solving
from dashboard.cdp.charts import accuracy_bars, accuracy_data, curve_data, curve_dict, curve_with_spread, with_marker
from dashboard.shared.widgets.bundle_view import page_config
from dashboard.shared.widgets.chart_data import show_chart
from dashboard.shared.widgets.charts import plotly_text
from dashboard.shared.widgets.claims import claim_box
from dashboard.shared.widgets.job_view import setup_view, sweep_view
from dashboard.shared.widgets.palette import noise_method_label
from dashboard.shared.widgets.privacy import audit_panel, guarantee_box, guarantee_line
from dashboard.shared.safe import md
from dashboard.shared.serving.schemas import current_schema
from dashboard.shared.solve.solve_offers import epsilon_choice
from dashboard.shared.solve.solve_panel import ApplyEpsilon, Solved, chosen_ledger, solve_panel

PRESET_TEXT = {
    "sensible": "Automatic: epochs and step size from N, epsilon, CS and the clip (the model learns)",
    "paper": "Paper's Table 2: 100 epochs, learning rate 1e-6 (the weights barely move from 0)",
}
#: the preset the page opens on: the one that learns
DEFAULT_PRESET = "sensible"
#: the method the page opens on: the paper's Laplace method 1 (with CS in the tens, N eps / CS
#: is small and Laplace beats the Gaussian method 7; core.cdp.logistic.auto_noise_method)
PAGE_METHOD = 1
#: the curves' epsilons: the slider's whole range (0.1 to 10), even on a log axis; every
#: point is a slider value, where the bars equal the curve (same runs)
EPS_GRID = (0.1, 0.2, 0.3, 0.5, 1.0, 2.0, 3.0, 5.0, 7.0, 10.0)


@dataclass(frozen=True)
class Choice:
    """What the page's widgets chose."""

    epsilon: float
    method: int
    preset: str
    measure: str
    threshold: float
    tc: float
    max_rows: int
    reps: int


@dataclass(frozen=True)
class Live:
    """The trainings at the slider's epsilon and what they stand on."""

    data: Any
    schema: Any
    step: Any
    setup: Any
    mats: Any
    runs: Any
    models: Any
    refs: Any
    table: Any = None  # the page's whole table (its name and fingerprint go into configs)

    @property
    def guess(self):
        """Always guessing the majority class: the first reference."""
        return self.refs[0]


def two_class_problem(dataset) -> str | None:
    """The sentence that stops the page when the label does not hold two classes (CDP-LR
    trains a binary classifier), or None."""
    classes = dataset.frame[dataset.label].dropna().astype(str).nunique()
    if classes == 2:
        return None
    return (f"CDP-LR trains a binary classifier, and the label '{dataset.label}' holds {classes} classes: choose "
            "a label with two classes on the Data page (IMPOSTER and Compare's table releases take any label).")


def controls(control) -> Choice:
    """The epsilon slider in ``control``, the noise method and preset, and the correlation
    and data settings, folded below."""
    epsilon = control.slider("epsilon (privacy budget of training)", 0.1, 10.0, 2.0, 0.1, key="lr_eps",
                             help="Smaller epsilon: more noise, more privacy.")
    method, preset = _method_and_preset()
    with st.expander("Correlation and data settings"):
        d1, d2, d3, d4 = st.columns(4)
        measure = d1.radio("Record correlation", ["pearson", "mahalanobis"], key="lr_measure")
        threshold = d2.slider("delta0", 0.05, 1.0, 0.8, 0.05, key="lr_threshold")
        tc = d3.number_input("T_c of DC-FBFS", 0.0, 1e9, 40.0, 5.0, key="lr_tc")
        max_rows = d4.number_input("Rows used", 200, 50000, 5000, 100, key="lr_rows",
                                   help="Larger tables are sampled to this many rows to stay interactive.")
        reps = st.slider("Repetitions per point", 1, 20, 5, key="lr_reps",
                         help="Noise is random: each accuracy is the mean of this many trainings.")
    return Choice(epsilon, method, preset, measure, threshold, tc, max_rows, reps)


def _method_and_preset():
    """The noise method (Table 3) and the training preset, with what they mean."""
    with st.expander("Noise method and training preset"):
        c1, c2 = st.columns(2)
        method = c1.selectbox("Noise method (Table 3)", list(NOISE_METHODS),
                              index=list(NOISE_METHODS).index(PAGE_METHOD), key="lr_method",
                              format_func=lambda m: f"{m}: {NOISE_METHODS[m]}",
                              help="1 is the paper's Laplace noise on the gradient (pure epsilon-DP), the most "
                                   "accurate when CS is large against N x epsilon, as on the samples. 7 (beyond "
                                   "the paper: Gaussian noise composed by a privacy accountant, (epsilon, delta)-DP) "
                                   "wins once N x epsilon / CS reaches a few hundred, as on Adult; the Fig. 5 "
                                   "toggle below draws both.")
        c1.caption(NOISE_METHOD_MEANING[method])
        preset = c2.radio("Training preset", list(PRESETS), index=list(PRESETS).index(DEFAULT_PRESET),
                          format_func=PRESET_TEXT.get, key="lr_preset")
        params = PRESETS[preset]
        split = (f"{params['epochs']} epochs" if params["epochs"] != "auto" else
                 "the epochs, whose number and step size a rule picks from public quantities only "
                 "(N, epsilon, CS and the clip; never the records): more budget per correlated group, more epochs")
        c2.caption(
            f"Each record's gradient term is clipped to norm {params['clip_norm']:g}. Replacing one record "
            "(and its correlated records) can swing each term from +clip to -clip, so the summed gradient "
            f"moves by at most 2 x CS x clip; {cached.budget_split(method, split)}."
        )
    return method, preset


def train(dataset, seed, c: Choice) -> Live:
    """The schemes' setup and their trainings at the slider's epsilon, with the references."""
    data = cached.limit_rows(dataset, int(c.max_rows), seed)
    schema = current_schema(dataset)
    step = cached.schemes(data, float(c.threshold), c.measure, float(c.tc), seed, schema)
    setup, mats = setup_view("lr_setup", step)
    runs, models = cached.live_accuracy(setup, mats, epsilon=float(c.epsilon), noise_method=int(c.method),
                                        preset=c.preset, repetitions=int(c.reps), seed=seed, key=step.key)
    refs = cached.accuracy_references(mats, runs)
    return Live(data, schema, step, setup, mats, runs, models, refs, dataset)


def live_view(control, chart, c: Choice, live: Live) -> None:
    """The accuracy bars in ``chart``, the references and the verdict in ``control``."""
    epsilon, runs, refs, guess = c.epsilon, live.runs, live.refs, live.guess
    with chart:
        show_chart(accuracy_bars(runs, epsilon=epsilon, data_name=live.data.name, references=refs),
                   lambda: accuracy_data(runs, epsilon=epsilon, references=refs),
                   name=f"cdp-lr-accuracy-at-epsilon-{epsilon:g}", key="lr_live", width="stretch")
    with control:
        for r in refs:
            st.metric(r.name[:1].upper() + r.name[1:], f"{r.value:.3f}", f"95% interval {r.low:.3f}-{r.high:.3f}",
                      delta_color="off", delta_arrow="off",
                      help=f"Test accuracy on the {r.n:,} test rows every scheme shares; the interval (Wilson) is "
                           "what another test part of that size could have given.")
        below = cached.reference_sentences(runs, guess)
        if below:
            st.warning("No better than the constant guess at this epsilon:  \n" + "  \n".join(md(b) for b in below),
                       icon=":material/warning:")
        else:
            st.success(f"Every scheme beats always guessing the majority class ({guess.value:.3f}) at this "
                       "epsilon.", icon=":material/check_circle:")
    on_grid = any(abs(float(epsilon) - e) < 1e-9 for e in EPS_GRID)
    st.caption("Test accuracy of each scheme at this epsilon (bar = mean, whisker = one standard "
               "deviation over repetitions). The dashed grey line is the accuracy of always guessing the "
               "test part's majority class, the dotted line the non-private model; the bands are their 95% "
               "intervals on the test rows. A private scheme at or under the dashed line has learned nothing. "
               + ("These are the same runs as the curve's point at this epsilon." if on_grid else
                  "The curve below has no point at this epsilon; its nearest points come from runs "
                  "seeded the same way."))
    with st.expander("Accuracy, ROC AUC and balanced accuracy at this epsilon", icon=":material/leaderboard:"):
        st.dataframe(cached.scores_table(runs, live.mats), hide_index=True, width="stretch")
        st.caption("Mean ± standard deviation over the repetitions, on the test rows every scheme shares. ROC AUC "
                   "says how well a scheme's scores rank the two classes (0.5: a constant guess, which ranks "
                   "nothing); balanced accuracy is the mean recall of the two classes (0.5: a constant guess). "
                   "The constant guess's row gives each score's 95% interval: where a model that learned nothing "
                   "lands by chance on these test rows.")
    st.caption(
        f"Using {live.data.n_rows:,} rows (80% train, 20% test, a seeded split that reads no record). "
        "Logistic regression trained with noise calibrated to the correlated sensitivity CS. "
        "The paper's schemes compute CS, choose features and scale them on your records, so they are "
        "not differentially private; the DP reading takes features, scaling and the group bound from "
        "the public schema."
    )


def schemes_and_guarantees(c: Choice, live: Live) -> None:
    """The schemes' table across the page (a static table: its long cells, the sensitivity
    and what is private, wrap instead of running past its box), then the guarantees of the
    paper's Proposed and of the DP reading side by side."""
    st.table(cached.scheme_rows(live.setup, runs=live.runs, reference=live.guess, n_rows=live.data.n_rows),
             hide_index=True)
    faithful, reading = live.models["Proposed"], live.models[cached.DP_READING]
    ledger = reading.ledger_
    shown = chosen_ledger("lr_eps", c.epsilon, ledger)  # marked when epsilon was chosen on the private data
    left, right = st.columns(2)
    guarantee_line(left, "Proposed, as in the paper", faithful.ledger_)
    guarantee_line(right, "DP reading", shown)
    entries = ("1 ledger entry: the PLD accountant composes the epochs" if int(c.method) == cached.PLD_METHOD
               else f"{len(ledger)} ledger entr{'y' if len(ledger) == 1 else 'ies'} (sequential composition "
                    "over the epochs)")
    right.caption(f"DP reading: {entries}; {reading.epochs_} epoch(s), learning rate {reading.learning_rate_:.3g}"
                  + (f", momentum {reading.momentum_:g} (post-processing of the noisy gradients)."
                     if reading.momentum_ else ".")
                  + " Test accuracy is evaluated on your private held-out records and is not released.")
    with left:
        st.markdown("**Proposed, as the paper runs it**")
        guarantee_box(faithful.ledger_)
    with right:
        st.markdown("**DP reading**")
        guarantee_box(shown)


def tradeoff(c: Choice, live: Live, seed) -> None:
    """Fig. 4: accuracy against epsilon, with DP-SGD and its audit when toggled on."""
    epsilon, method, reps, refs = c.epsilon, c.method, c.reps, live.refs
    pair = (live.setup, live.mats)
    sweep = cached.curves(live.step, pair, epsilons=EPS_GRID, noise_method=int(method), preset=c.preset,
                          repetitions=int(reps), seed=seed)
    summary, runs = _split(sweep_view("lr_curve", sweep))
    with_dpsgd = st.toggle("Compare with DP-SGD (ordinary DP, beyond the paper)", key="lr_dpsgd",
                           help="DP-SGD on the DP reading's features (from the public schema), its guarantee "
                                "for one record (sensitivity 1).")
    dpsgd_sweep = (cached.dpsgd_curves(live.step, pair, epsilons=EPS_GRID, repetitions=int(reps), seed=seed)
                   if with_dpsgd else None)
    dpsgd = sweep_view("lr_dpsgd_curve", dpsgd_sweep) if with_dpsgd else None
    if summary is not None:
        chart = st.container()  # drawn once the solve panel below has its answers to mark
        st.caption(cached.fig4_caption(bool(live.models[cached.DP_READING].ledger_.is_dp)))
        claim_box(cached.fig4_claim(summary, reference=live.guess))
        solved = solve(c, live, seed, runs)
        title = (f"Test accuracy vs epsilon on {plotly_text(live.data.name)} (noise method {method}, {reps} runs "
                 "per point; Fig. 4)")
        # the curves depend on the sweeps, not on the slider: built once, the marker added per move
        key = (sweep.key, None if dpsgd is None else dpsgd_sweep.key, cached.references_key(refs), title)
        figure = cached.curve_figure(key, lambda: curve_dict(
            summary, dpsgd, group="scheme", value="accuracy", log_x=True, x_title="epsilon (log scale)",
            y_title="test accuracy", references=refs, title=title))
        with chart:
            show_chart(solving.marked(with_marker(figure, epsilon, log_x=True), solved),
                       lambda: curve_data(summary, dpsgd, group="scheme", value="accuracy", references=refs),
                       name="cdp-lr-accuracy-vs-epsilon", key="lr_curve", width="stretch")
    if with_dpsgd:
        _dpsgd_note(c, live, seed)


def _split(result) -> tuple:
    """(summary, runs) of a finished curve sweep; (None, None) while it runs."""
    return (None, None) if result is None else result


def page_settings(c: Choice) -> dict:
    """The page's settings as its bundle and ``pux solve`` read them (:mod:`core.bundle.pages.cdp_lr`)."""
    return {"epsilon": float(c.epsilon), "noise_method": int(c.method), "preset": c.preset, "measure": c.measure,
            "threshold": float(c.threshold), "tc": float(c.tc), "max_rows": int(c.max_rows),
            "repetitions": int(c.reps), "dpsgd": bool(st.session_state.get("lr_dpsgd", False)),
            "noise_methods": bool(st.session_state.get("lr_methods", False)), "epsilons": list(EPS_GRID),
            "epsilon_choice": epsilon_choice("lr_eps", c.epsilon)}


def solve(c: Choice, live: Live, seed, runs) -> Solved | None:
    """The target accuracy, each scheme's epsilon that meets it (marked on Fig. 4), the two
    sound ways to choose, "use this epsilon" for the slider, and the answer as a ``pux solve``
    config."""
    with st.expander("Solve for epsilon: the smallest epsilon that reaches a target accuracy",
                     icon=":material/target:"):
        return solve_panel(
            solving.solvable(runs), key="lr_solve", measures=[solving.LR_MEASURE], group="method",
            apply=ApplyEpsilon("lr_eps", solving.lr_snap, default=cached.DP_READING),
            reference=solving.lr_reference(c, seed, live.schema, EPS_GRID),
            selection=solving.lr_selection(live, noise_method=int(c.method), preset=c.preset, grid=EPS_GRID),
            solve_file=lambda target, confidence: solve_config_from_page(
                page_config("cdp_lr", live.table, seed=seed, settings=page_settings(c), schema=live.schema), target,
                confidence=confidence))


def _dpsgd_note(c: Choice, live: Live, seed) -> None:
    """What DP-SGD guarantees, and its audit."""
    st.caption("DP-SGD (dash-dot, beyond the paper): Poisson-sampled clipped gradients with Gaussian noise, "
               "accounted by dp-accounting's PLD accountant, on the DP reading's features (from the public schema). "
               "Its guarantee covers ONE record, "
               "not the correlated group, so it is not comparable with the schemes at equal CS: at the same "
               "epsilon it protects less whenever CS > 1.")
    epsilon = c.epsilon
    audit_panel("lr_dpsgd", lambda: cached.dpsgd_audit_case(live.mats[cached.DP_READING], epsilon=float(epsilon)),
                case_key=(live.data.fingerprint(), float(epsilon), "DP-SGD"), seed=seed, default_runs=1000,
                title="Privacy audit of DP-SGD")


def noise_methods(c: Choice, live: Live, seed) -> None:
    """Fig. 5: each noise method's accuracy against epsilon, when toggled on."""
    if not st.toggle("Compare the noise methods (Fig. 5)", key="lr_methods"):
        return
    refs = live.refs
    msum = sweep_view("lr_method_curve", cached.method_curves(live.step, (live.setup, live.mats), epsilons=EPS_GRID,
                                                              preset=c.preset, repetitions=int(c.reps), seed=seed))
    if msum is None:
        return
    labels = {m: noise_method_label(m) for m in NOISE_METHODS}
    show_chart(curve_with_spread(msum, group="method", value="accuracy", marker_x=c.epsilon, log_x=True,
                                 references=refs,
                                 title=f"Test accuracy of each noise method on the Proposed scheme, "
                                       f"{plotly_text(live.data.name)} (Fig. 5)",
                                 x_title="epsilon (log scale)", y_title="test accuracy", labels=labels),
               lambda: curve_data(msum, group="method", value="accuracy", labels=labels, references=refs),
               name="cdp-lr-noise-methods-vs-epsilon", key="lr_method_curve", width="stretch")
    st.caption("One line per noise method of Table 3 at the same budget, and method 7 (beyond the "
               "paper: Gaussian, accountant-composed, delta 1e-5); methods 0 and 4 are not "
               "differentially private, and method 5 delivers only half the budget (its other half "
               "noises the public N).")
    claim_box(cached.fig5_claim(msum, reference=live.guess))


def audit(c: Choice, live: Live, seed) -> None:
    """The privacy audit of the DP reading at the slider's epsilon."""
    sens = live.setup.sensitivity[cached.DP_READING]
    epsilon, method, preset = c.epsilon, c.method, c.preset
    audit_panel(
        "lr", lambda: cached.lr_audit_case(live.mats[cached.DP_READING], sens, epsilon=float(epsilon),
                                           noise_method=int(method), preset=preset, schema=live.schema),
        case_key=(live.data.fingerprint(), float(epsilon), int(method), preset, float(sens)), seed=seed,
        default_runs=1000, title="Privacy audit of the DP reading",
    )
