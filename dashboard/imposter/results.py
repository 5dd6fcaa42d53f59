"""The result sections of the IMPOSTER page (paper 002), drawn once a trained model is
there: settings A and B (Table 1) with the paper's table beside ours and the marginal
fidelity of the synthetic table (not in the paper), the real table against each released one
(IMPOSTER's synthetic table and kRR's perturbed tables), kRR against IMPOSTER (Fig. 7) with the
paper's two points, the synthetic table for download, and the page's "Download bundle"
(:mod:`core.bundle.pages.imposter` recomputes every number with the same seed). Each function
draws one part of the page where the page calls it.
"""
from __future__ import annotations

from functools import partial

import streamlit as st

from core.imposter import CLASSIFIERS
from core.evaluation.classifiers import CLASSIFIER_LABELS
from dashboard.imposter import cached
from dashboard.imposter import wording
from dashboard.imposter import charts
from dashboard.shared.widgets.bundle_view import bundle_download, page_config
from dashboard.shared.widgets.chart_data import show_chart
from dashboard.shared.widgets.claims import claim_box
from dashboard.shared.widgets.errors import page_errors
from dashboard.shared.widgets.fidelity_view import real_vs_release
from dashboard.shared.widgets.job_view import sweep_view
from dashboard.shared.widgets.privacy import guarantee_box, release_download
from dashboard.shared.serving.schemas import current_schema
from dashboard.shared.serving.sweeps import FINISHED


def table1_section(dataset, job, label: str, seed) -> None:
    """Table 1 for the chosen classifiers, its references and claim, then the marginal
    fidelity; the page stops while no classifier is chosen."""
    classifiers = st.multiselect("Classifiers", CLASSIFIERS, default=list(CLASSIFIERS),
                                 format_func=CLASSIFIER_LABELS.get, key="imposter_classifiers")
    if not classifiers:
        st.info("Choose at least one classifier.")
        st.stop()
    with page_errors(stop=True):
        table = sweep_view("imposter_table1", cached.table1(dataset, job.synthetic, job.sensitive, label,
                                                            tuple(job.implicit), tuple(classifiers), seed))
    if table is None:
        return
    metrics = [m for m in charts.TABLE1_METRICS if m in set(table.columns.get_level_values("metric"))]
    metric = st.segmented_control("Score", metrics, default=metrics[0], format_func=charts.TABLE1_METRICS.get,
                                  key="imposter_table1_metric",
                                  help="ROC AUC ranks (0.5: a constant guess); balanced accuracy is the mean recall "
                                       "of the classes (1/K: a constant guess); accuracy is read against the "
                                       "majority share.") or metrics[0]
    show_chart(charts.table1_bars(table, metric=metric, paper=cached.PAPER["Table 1"], data=dataset.name),
               charts.table1_data(table, metric=metric, paper=cached.PAPER["Table 1"]), name="imposter-table1",
               key="imposter_table1_chart", width="stretch")
    st.caption(
        "How to read: left panel, an attacker predicting s from the implicit attributes — on the "
        "synthetic table (B) it should fall to the dashed majority share; right panel, the label "
        "from all attributes — B and train-synthetic/test-real should stay close to A. Hatched bars "
        "and the rows marked (paper, Adult) are the paper's Table 1 for the same classifiers (accuracy and "
        "F1 only: the paper reports no AUC). The dashed line is the constant guess on the chosen score."
    )
    for sentence in wording.table1_references(table):
        st.warning(sentence, icon=":material/horizontal_rule:")
    claim_box(cached.table1_claim(table))
    shown = charts.table1_display(table, paper=cached.PAPER["Table 1"])
    st.dataframe(shown.style.format("{:.3f}", na_rep="–"), width="stretch", key="imposter_table1")
    with page_errors():
        _fidelity(dataset, job.synthetic, table)


def _fidelity(dataset, synthetic, table) -> None:
    """Leak, utility and the marginals' total variation, real against synthetic."""
    tv = cached.marginal_fidelity(dataset, synthetic)
    st.markdown("**Leak, utility and marginals side by side**")
    st.dataframe(charts.fidelity_summary(table, tv).style.format("{:.3f}"), width="stretch",
                 key="imposter_fidelity")
    show_chart(charts.marginal_tv_bars(tv, data=dataset.name), charts.marginal_tv_data(tv),
               name="imposter-marginal-tv",
               key="imposter_tv_chart", width="stretch")
    st.caption(
        "How to read: total variation (TV) between the real and the synthetic distribution, "
        "0 = identical, 1 = disjoint; numeric columns in 10 quantile bins of the real data "
        "(a point mass such as capital_gain = 0 keeps its own bin). One-way: each column on "
        "its own; two-way: each pair of columns jointly, averaged. Removing the leak must "
        "change the pairs (implicit attribute, s), so the two-way TV cannot reach 0."
    )


def fidelity_section(dataset, job, seed) -> None:
    """The real table against IMPOSTER's synthetic table, or kRR's at a few budgets: each
    column and each pair, SDMetrics' scores (computed only when opened)."""
    releases = {"IMPOSTER synthetic table": job.synthetic}
    if job.implicit:
        schema = current_schema(dataset)
        for eps in cached.FIDELITY_EPSILONS:
            releases[f"kRR at epsilon {eps:g} (implicit attributes perturbed)"] = partial(
                cached.krr_table, dataset, tuple(job.implicit), eps, seed, schema)
    with page_errors():
        real_vs_release(dataset.frame, releases, key="imposter_rvr", dataset=dataset.name)


def krr_section(dataset, job, label: str, seed) -> None:
    """kRR against IMPOSTER (Fig. 7): the trade-off and kRR against epsilon, side by side,
    with the references and the claim."""
    trained_implicit = list(job.implicit)
    krr_clf = st.selectbox("Classifier for the comparison", CLASSIFIERS, index=CLASSIFIERS.index("gbdt"),
                           format_func=CLASSIFIER_LABELS.get, key="imposter_krr_clf")
    with page_errors(stop=True):
        curve = sweep_view("imposter_krr", cached.krr_curve(dataset, job.sensitive, label, tuple(trained_implicit),
                                                            krr_clf, seed, schema=current_schema(dataset)))
        point_table = sweep_view("imposter_point", cached.table1(dataset, job.synthetic, job.sensitive, label,
                                                                 tuple(trained_implicit), (krr_clf,), seed))
    if curve is not None and point_table is not None:
        _krr_charts(dataset, job, label, curve, point_table)
    st.caption(wording.krr_note(trained_implicit, list(dataset.frame.columns), current_schema(dataset)))


def _krr_charts(dataset, job, label: str, curve, point_table) -> None:
    """The two Fig. 7 charts with how to read them, the references and the claim."""
    point, real, majority = wording.tradeoff_points(point_table)
    label_majority = point_table.attrs.get("label_majority_real")
    c1, c2 = st.columns(2)
    with c1:
        show_chart(charts.tradeoff(curve, imposter=point, majority=majority, real=real,
                                   paper=cached.PAPER["Fig. 7"], data=dataset.name,
                                   label_majority=label_majority),
                   charts.krr_data(curve, imposter=point, real=real, majority=majority,
                                   paper=cached.PAPER["Fig. 7"]),
                   name="imposter-privacy-vs-utility", key="imposter_tradeoff", width="stretch")
    c1.caption("How to read: each kRR point is one epsilon; left is more private, up is more useful; "
               "the grey dashed lines are the constant guesses (no leak, no utility). "
               "IMPOSTER beats kRR where its star lies above the kRR curve at the same x. Hollow "
               "markers: the paper's two points on Adult (section 5.6).")
    with c2:
        show_chart(charts.krr_vs_epsilon(curve, imposter=point, sensitive=job.sensitive, label=label,
                                         data=dataset.name, majority=point_table.attrs.get("majority_real"),
                                         label_majority=label_majority, real=real),
                   charts.krr_data(curve, imposter=point, sensitive=job.sensitive, label=label),
                   name="imposter-krr-vs-epsilon", key="imposter_krr_eps", width="stretch")
    c2.caption("How to read: kRR accuracy for both tasks as the budget epsilon grows (log scale); "
               "the coloured dotted lines are IMPOSTER's accuracies, which do not depend on epsilon; grey "
               "dashed, always guessing the most common value; grey dotted, the model on the real table.")
    for sentence in wording.tradeoff_references(point, label_majority):
        st.warning(sentence, icon=":material/horizontal_rule:")
    claim_box(cached.fig7_claim(curve, point))


def download_section(dataset, job, seed) -> None:
    """A preview of the synthetic table, its guarantee and its download."""
    model, synthetic = job.model, job.synthetic
    st.dataframe(synthetic.head(200), key="imposter_synthetic_preview")
    guarantee_box(model.ledger_)
    release_download(
        "imposter", method="IMPOSTER synthetic table (paper 002)", label="IMPOSTER synthetic table",
        file_name=f"{dataset.name}_imposter.csv", seed=seed, settings_key=job.key,
        make_release=lambda noise: (model.sample(len(synthetic), random_state=noise.generator()), model.ledger_),
    )


def _finished_grid(text_key: str, default: tuple[float, ...], name: str, hi: float, make_sweep):
    """The grid of a sweep whose result the page shows (finished for these inputs), else None."""
    text = st.session_state.get(text_key, ", ".join(f"{v:g}" for v in default))
    try:
        grid = cached.parse_grid(text, name=name, lo=0.0, hi=hi)
    except (TypeError, ValueError):
        return None
    return list(grid) if FINISHED.get(make_sweep(grid).key) is not None else None


def bundle_section(page_dataset, schema, job, job_key, label: str, seed, choice, sweep_clf: str,
                   sweep_params) -> None:
    """"Download bundle": detection, the training, Table 1, the fidelity, kRR and any finished
    sweep, recomputed by :mod:`core.bundle.pages.imposter` with the page's seed and settings
    (only while the model shown was trained with the settings on screen)."""
    with st.expander("Download bundle: the settings, every number and the synthetic table with a script and "
                     "notebook that rerun them", icon=":material/folder_zip:"):
        if job.key != job_key:
            st.caption("The settings changed since this model was trained: train with them first, so that the "
                       "bundle holds what the page shows.")
            return
        params, implicit = dict(job.params), tuple(job.implicit)
        exclude = () if choice.rewrite_label else (label,)
        dataset = job.dataset
        thetas = _finished_grid("imposter_thetas", cached.THETAS, "theta", 1.0, lambda g: cached.theta_sweep(
            dataset, job.sensitive, label, g, sweep_clf, sweep_params, seed, exclude))
        lambdas = _finished_grid("imposter_lambdas", cached.LAMBDAS, "lambda", 100.0, lambda g: cached.lambda_sweep(
            dataset, job.sensitive, label, implicit, g, sweep_clf, sweep_params, seed))
        settings = {"sensitive": job.sensitive, "label": label, "theta": float(choice.theta),
                    "beta": float(choice.beta), "detection_classifier": choice.classifier, "metric": choice.metric,
                    "rule": choice.rule, "rewrite_label": bool(choice.rewrite_label), "implicit": list(implicit),
                    "lambda": float(params["d2_weight"]), "epochs": int(params["epochs"]),
                    "latent": int(params["latent_dim"]), "v2_loss": params["d2_generator_loss"],
                    "classifiers": list(st.session_state.get("imposter_classifiers", CLASSIFIERS)),
                    "krr_classifier": st.session_state.get("imposter_krr_clf", "gbdt"), "thetas": thetas,
                    "lambdas": lambdas, "sweep_classifier": sweep_clf,
                    "sweep_epochs": int(dict(sweep_params)["epochs"])}
        bundle_download("imposter", config=page_config("imposter", page_dataset, seed=seed, settings=settings,
                                                       schema=schema),
                        dataset=page_dataset, releases_table=True)
