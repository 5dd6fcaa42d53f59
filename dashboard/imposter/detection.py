"""The first sections of the IMPOSTER page (paper 002): the dataset without its identifiers,
the sensitive attribute and the label, detection (the default rule beside the paper's
Algorithm 1 and Fig. 6), the protected set D2 will protect, and the privacy box with its
kRR audit. Each function draws one part of the page where the page calls it.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import streamlit as st

from core.imposter import CLASSIFIERS, FIG7_EPSILONS, synthesizer_ledger
from core.evaluation.classifiers import CLASSIFIER_LABELS
from dashboard.imposter import cached
from dashboard.imposter import wording
from dashboard.imposter import charts
from dashboard.shared.widgets.chart_data import show_chart
from dashboard.shared.widgets.claims import claim_box
from dashboard.shared.widgets.errors import page_errors
from dashboard.shared.widgets.job_view import setup_view
from dashboard.shared.widgets.preamble import choose_sensitive
from dashboard.shared.widgets.present import control_hint, is_presenting
from dashboard.shared.widgets.privacy import audit_panel, guarantee_box
from dashboard.shared.safe import md
from dashboard.shared.serving.schemas import current_schema


@dataclass(frozen=True)
class DetectionChoice:
    """What the detection widgets chose, and the container their verdicts go to."""

    theta: float
    beta: float
    verdicts: Any
    classifier: str
    metric: str
    rule: str
    rewrite_label: bool


def without_identifiers(dataset):
    """The page's dataset without its identifier columns (said in a caption), and the schema
    of the Data page's dataset; another dataset's state is forgotten.

    One dataset, one state: the Data page's roles are where every setting starts;
    identifiers (row numbers, keys) are left out of detection, training and the release.
    """
    schema = current_schema(dataset)
    dataset, identifiers = cached.without_identifiers(dataset, schema)
    if identifiers:
        st.caption(f"Identifier column(s) left out (never scored, synthesized or published): "
                   f"{', '.join(md(c) for c in identifiers)}. The Data page's identifier setting changes this.")
    cached.forget_other_dataset(st.session_state, dataset)
    return dataset, schema


def choose_columns(dataset, schema, where) -> tuple[str, str]:
    """The sensitive attribute and the label, one above the other in ``where`` (the column
    beside the detection chart); the page stops while either cannot be chosen."""
    sens_options = cached.sensitive_options(dataset)
    if not sens_options:
        st.warning("This table has no categorical column with 2 to 20 values to protect; "
                 "mark such a column as sensitive on the Data page, or bin a numeric one.")
        st.stop()
    cached.check_columns(st.session_state, "imposter_sensitive", sens_options)

    c1 = c2 = where
    sensitive = choose_sensitive(c1, "Sensitive attribute s", sens_options, dataset, key="imposter_sensitive",
                                 help="The explicit privacy attribute the published table must not give away.")
    if not sensitive:
        marked = "this table marks none, so " if not dataset.sensitive else ""
        st.info(("No sensitive attribute is marked for this table: mark one on the Data page (leave the "
                 "presentation first); IMPOSTER has nothing to protect until then.") if is_presenting() else
                f"Choose the sensitive attribute above: {marked}IMPOSTER has nothing to protect until you do "
                "(it hides what the other attributes say about it).", icon=":material/touch_app:")
        st.stop()
    label_choices = cached.label_options(dataset, sensitive)
    if not label_choices:
        st.warning("There is no other categorical column to use as the label (2 to 20 values).")
        st.stop()
    cached.check_columns(st.session_state, "imposter_label", label_choices)
    label = c2.selectbox("Label (utility target)", label_choices,
                         index=label_choices.index(cached.default_label(dataset, label_choices, schema)),
                         key="imposter_label")
    return sensitive, label


def detection_controls(left) -> DetectionChoice:
    """theta and beta in ``left`` (with room for the verdicts under them), the other
    detection settings folded in an expander."""
    theta = left.slider("theta (paper's rule: NMI)", 0.0, 0.3, 0.01, 0.001, format="%.3f",
                        key="imposter_theta",
                        help="The paper's rule: attributes whose NMI with s reaches theta are candidates. Lower "
                        "theta protects more attributes (and rewrites more of the table).")
    beta = left.slider("beta (paper's rule: tau)", 0.0, 1.0, 0.7, 0.01, key="imposter_beta",
                       help="The paper's rule: the candidates count as implicit privacy when a classifier predicts "
                       "s from them with a score of at least beta. It has no reference: compare with the "
                       "majority share.")
    verdicts = left.container()
    with st.expander("Detection settings: the paper's attacker, the label, which verdict starts the protected set"):
        e1, e2 = st.columns(2)
        det_clf = e1.selectbox("The paper's attacker (tau)", CLASSIFIERS, index=CLASSIFIERS.index("lr"),
                               format_func=CLASSIFIER_LABELS.get, key="imposter_det_clf")
        metric = e2.radio("Score tau", ["accuracy", "f1"], horizontal=True, key="imposter_metric")
        rule = e1.radio("Start the protected set from", list(wording.RULE_NAMES), format_func=wording.RULE_NAMES.get,
                        key="imposter_rule",
                        help="The default rule flags an attribute only when it predicts s better than always "
                        "guessing the most common value, by a margin its held-out interval supports. The paper's "
                        "rule flags the NMI >= theta candidates when tau >= beta, with no such reference.")
        rewrite_label = e2.checkbox(
            "Let the label be rewritten too", value=False, key="imposter_rewrite_label",
            help="Off: the label (the utility target) is left out of detection, so IMPOSTER never flags it as "
            "an attribute to rewrite. On: it is scored like any other attribute.")
    return DetectionChoice(theta, beta, verdicts, det_clf, metric, rule, rewrite_label)


def detect(dataset, sensitive: str, label: str, choice: DetectionChoice, seed):
    """Both detection rules on ``dataset`` (the page stops on an error)."""
    with page_errors(stop=True):
        return setup_view("imposter_detection", cached.detection(
            dataset, sensitive, choice.theta, choice.beta, choice.classifier, choice.metric, 10, seed,
            () if choice.rewrite_label else (label,)))


def detection_view(right, choice: DetectionChoice, det, dataset, sensitive: str) -> None:
    """The chart of both rules in ``right``, their verdicts, how to read them, the flagged
    attributes' gains and the Fig. 6 claim."""
    theta = choice.theta
    with right:
        show_chart(charts.detection_chart(det.scores, theta=theta, default_implicit=det.default_implicit,
                                          paper_implicit=det.paper_implicit, majority=det.majority_share,
                                          sensitive=sensitive, data=dataset.name),
                   charts.detection_data(det.scores, theta=theta, default_implicit=det.default_implicit,
                                         paper_implicit=det.paper_implicit, majority=det.majority_share),
                   name="imposter-detection", key="imposter_nmi_chart", width="stretch")
    with choice.verdicts:
        for kind, text in wording.verdict_lines(det, sensitive=sensitive):
            getattr(st, kind)(text)
    st.caption(
        f"How to read: left, how much better than always guessing the most common {md(sensitive)} "
        f"(majority share {det.majority_share:.3f}) each attribute alone predicts it on held-out rows, with a "
        f"{det.confidence:.0%} interval (Bonferroni over the attributes): the default rule flags an attribute "
        "(red diamond) when its whole interval lies right of the dashed zero line; grey: not flagged. Right, the "
        "paper's Fig. 6: NMI with s and the dashed theta line; red bars are the paper's verdict, orange candidates "
        "whose tau missed beta, grey below theta."
    )
    flagged_table = wording.flagged_gains(det)
    if len(flagged_table):
        st.dataframe(flagged_table.style.format({c: "{:+.3f}" for c in flagged_table.columns
                                                 if c.startswith("gain")} | {"held-out accuracy": "{:.3f}",
                                                                             "NMI": "{:.4f}"}),
                     hide_index=True, width="stretch", key="imposter_gains")
    claim_box(cached.fig6_claim(det.scores, theta, sensitive))


def protected_set(dataset, sensitive: str, choice: DetectionChoice, det) -> list[str]:
    """The attributes D2 will protect: the chosen rule's verdict, which the user may edit."""
    protect_options = cached.protect_options(dataset, sensitive)
    start_set = [c for c in (det.paper_implicit if choice.rule == "paper" else det.default_implicit)
                 if c in protect_options]
    implicit = st.multiselect(
        "Attributes D2 will protect", protect_options, default=start_set,
        key=cached.implicit_key(dataset, sensitive, choice.theta, choice.beta, choice.classifier, choice.metric,
                                choice.rule, choice.rewrite_label),
        help="The detected set (by the rule chosen under Detection settings); you may add or remove attributes.")
    cached.check_columns(st.session_state, "imposter_audit_col", list(implicit))
    return implicit


def privacy_box(dataset, schema, seed, implicit: list[str]) -> None:
    """What IMPOSTER and kRR guarantee, and an audit of kRR on one protected attribute."""
    with st.expander("Privacy: what IMPOSTER and kRR guarantee, and an audit of kRR", icon=":material/shield:"):
        guarantee_box(synthesizer_ledger(), expanded=True)
        if implicit:
            a1, a2 = st.columns(2)
            audit_col = a1.selectbox("kRR on the attribute", implicit, key="imposter_audit_col")
            audit_eps = a2.select_slider("kRR epsilon per value", FIG7_EPSILONS[:5], value=1.0,
                                         key="imposter_audit_eps")
            st.caption("kRR (the baseline of section 4) is epsilon-locally-DP for each perturbed value; "
                       "the table it releases is not DP as a whole, because the other columns stay exact.")
            audit_panel("imposter", lambda: cached.krr_audit_case(dataset, audit_col, float(audit_eps),
                                                                   schema=schema),
                        case_key=(dataset.fingerprint(), audit_col, float(audit_eps)), seed=seed,
                        default_runs=2000)
        else:
            control_hint("Choose an attribute to protect to audit kRR on it.")
