"""The sweeps of the IMPOSTER page (paper 002): their classifier and epochs, then theta
(Table 2, the paper's numbers dashed) and lambda (Fig. 8, the paper's words in the claim
box), each started by its button as a background job with progress and Stop and kept for
every session once finished. Each function draws one part of the page where the page
calls it.
"""
from __future__ import annotations

import streamlit as st

from core.imposter import CLASSIFIERS
from core.evaluation.classifiers import CLASSIFIER_LABELS
from dashboard.imposter import cached
from dashboard.imposter import wording
from dashboard.imposter import charts_training
from dashboard.shared.widgets.chart_data import show_chart
from dashboard.shared.widgets.claims import claim_box
from dashboard.shared.widgets.errors import page_errors
from dashboard.shared.widgets.job_view import sweep_on_request
from dashboard.shared.widgets.present import is_presenting


def sweep_controls(dataset, params):
    """The sweeps' classifier and epochs: the classifier and the sweeps' training parameters."""
    c1, c2 = st.columns(2)
    sweep_clf = c1.selectbox("Classifier of the sweeps", CLASSIFIERS, index=CLASSIFIERS.index("xgboost"),
                             format_func=CLASSIFIER_LABELS.get, key="imposter_sweep_clf",
                             help="The paper uses XGBoost for Table 2 and Fig. 8.")
    sweep_epochs = int(c2.number_input(
        "Epochs per sweep training", 1, 1000, cached.sweep_epochs(dataset.n_rows), key="imposter_sweep_epochs",
        help="Each point of a sweep is one training. On the 3,000-row census sample, 100 epochs take about "
        "40 s for the four thetas and 60 s for the six lambdas; with fewer the label is not learned yet."))
    return sweep_clf, cached.with_epochs(params, sweep_epochs)


def _sweep(slot: str, sweep, run_key: str, what: str):
    """The finished result of ``sweep``, or None: started by its button."""
    return sweep_on_request(slot, sweep, button=f"Run the {what} sweep", key=run_key,
                            waiting=("Nothing trained yet for these settings." if is_presenting() else
                                     f"Nothing trained yet for these settings: press **Run the {what} sweep**."))


def theta_tab(dataset, sensitive: str, label: str, sweep_clf: str, sweep_params, seed, rewrite_label: bool) -> None:
    """The theta sweep (Table 2): ours solid, the paper's dashed for XGBoost, and its claim."""
    theta_text = st.text_input("Thetas (comma-separated)", ", ".join(f"{t:g}" for t in cached.THETAS),
                               key="imposter_thetas",
                               help="Each theta takes the attributes whose NMI with s reaches it as the implicit set.")
    with page_errors():
        thetas = cached.parse_grid(theta_text, name="theta", lo=0.0, hi=1.0)
        runs = _sweep("imposter_theta_sweep",
                      cached.theta_sweep(dataset, sensitive, label, thetas, sweep_clf, sweep_params, seed,
                                         () if rewrite_label else (label,)),
                      "imposter_theta_run", "theta")
        if runs is not None:
            paper2 = cached.PAPER["Table 2"] if sweep_clf == "xgboost" else None  # the paper's is XGBoost
            show_chart(charts_training.table2_chart(runs, paper=paper2, sensitive=sensitive, label=label,
                                                    classifier=CLASSIFIER_LABELS[sweep_clf], data=dataset.name),
                       charts_training.table2_data(runs, paper=paper2, sensitive=sensitive, label=label),
                       name="imposter-table2", key="imposter_table2_chart", width="stretch")
            st.caption("How to read: solid lines are ours"
                       + (", dashed lines with hollow markers the paper's Table 2 (Adult, XGBoost)" if paper2 else
                          " (the paper's Table 2 is drawn beside them for XGBoost only)")
                       + ". Top left, the attacker on s: setting B (red) should sit on the dotted majority share "
                       "for every theta; right, the label: B should stay near A (green).")
            claim_box(cached.table2_claim(runs))


def lambda_tab(dataset, sensitive: str, label: str, implicit: list[str], sweep_clf: str, sweep_params, seed,
               det) -> None:
    """The lambda sweep (Fig. 8) on the protected set, and its claim."""
    lambda_text = st.text_input("Lambdas (comma-separated)", ", ".join(f"{v:g}" for v in cached.LAMBDAS),
                                key="imposter_lambdas",
                                help="0 is the VAE-CGAN without D2; the paper finds about 1 best.")
    if not implicit:
        st.info("The lambda sweep protects the chosen set, and it is empty: "
                + wording.nothing_to_protect(det, presenting=is_presenting()))
        return
    with page_errors():
        lambdas = cached.parse_grid(lambda_text, name="lambda", lo=0.0, hi=100.0)
        lruns = _sweep("imposter_lambda_sweep",
                       cached.lambda_sweep(dataset, sensitive, label, tuple(implicit), lambdas, sweep_clf,
                                           sweep_params, seed),
                       "imposter_lambda_run", "lambda")
        if lruns is not None:
            show_chart(charts_training.fig8_chart(lruns, sensitive=sensitive, label=label,
                                                  classifier=CLASSIFIER_LABELS[sweep_clf], data=dataset.name),
                       charts_training.fig8_data(lruns, sensitive=sensitive, label=label),
                       name="imposter-fig8", key="imposter_fig8_chart", width="stretch")
            st.caption("How to read: left, the attacker on s in setting B (solid accuracy, dashed F1): it "
                       "should fall to the dotted majority share once lambda reaches about 1; right, the "
                       "label: it should stay about level. The paper's Fig. 8 gives no table of values, "
                       "so its words are in the box below.")
            claim_box(cached.fig8_claim(lruns))
