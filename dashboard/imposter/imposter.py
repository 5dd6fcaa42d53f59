"""IMPOSTER page (paper 002): every figure and table of section 5, live, with the paper's
numbers beside ours and one computed sentence (a claim box) saying whether its claim holds
on the data at hand.

1. Detection: theta and beta beside the chart of both rules, the default (each attribute's
   held-out gain over always guessing the most common s, with its interval) and the
   paper's Algorithm 1 (NMI bars, Fig. 6, and tau >= beta), their two verdicts side by side
   and the Fig. 6 claim. The default verdict starts the protected set; when it finds
   nothing the page says so and IMPOSTER has nothing to remove.
2. Protection (Algorithm 2): the training curves of a live, stoppable training; then the
   sweeps, each started by its button as a background job with progress and Stop and kept
   for every session once finished: theta (Table 2, the paper's numbers dashed) and lambda
   (Fig. 8, the paper's words in the claim box).
3. Settings A and B (Table 1), with the paper's Table 1 beside ours and its claim; the
   marginal fidelity of the synthetic table (not in the paper).
4. kRR against IMPOSTER (Fig. 7), with the paper's two points and its claim.
5. The synthetic table for download.

One dataset, one state: column settings start from the Data page's roles and are dropped
on a dataset switch; trainings are kept per dataset fingerprint and every other result is
keyed by it, so another dataset's result never shows. Identifier columns are left out.
Every accuracy stands beside its constant guess (the majority share), said in words when
it falls to it.

Everything that computes lives in :mod:`dashboard.imposter.cached`; the charts are pure
functions of :mod:`dashboard.imposter.charts`.
"""
from __future__ import annotations


import streamlit as st

from core.imposter import CLASSIFIERS
from core.imposter import FIG7_EPSILONS, synthesizer_ledger
from core.imposter.classifiers import CLASSIFIER_LABELS
from dashboard.imposter import cached
from dashboard.imposter import charts
from dashboard.shared.chart_data import show_chart
from dashboard.shared.claims import claim_box
from dashboard.shared.errors import page_errors
from dashboard.shared.job_view import live_job, setup_view, sweep_on_request, sweep_view
from dashboard.shared.preamble import choose_sensitive, page_data
from dashboard.shared.present import control_hint, is_presenting
from dashboard.shared.privacy import audit_panel, guarantee_box, release_download
from dashboard.shared.safe import md

from dashboard.shared.state import current_schema, show_error

st.title("IMPOSTER: implicit privacy")
st.caption(
    "Paper 002. Some public attributes give a sensitive one away (relationship = Husband says sex = Male). "
    "IMPOSTER finds them and publishes a synthetic table in which they no longer predict it, while the "
    "label stays predictable. Not differential privacy: the generator is trained on the raw data."
)

page = page_data("census", needs_sensitive=True)
seed = page.seed
# one dataset, one state: the Data page's roles are where every setting starts; identifiers
# (row numbers, keys) are left out of detection, training and the release
schema = current_schema(page.dataset)
dataset, identifiers = cached.without_identifiers(page.dataset, schema)
if identifiers:
    st.caption(f"Identifier column(s) left out (never scored, synthesized or published): "
               f"{', '.join(md(c) for c in identifiers)}. The Data page's identifier setting changes this.")
cached.forget_other_dataset(st.session_state, dataset)

sens_options = cached.sensitive_options(dataset)
if not sens_options:
    st.error("This table has no categorical column with 2 to 20 values to protect; "
             "mark such a column as sensitive on the Data page, or bin a numeric one.")
    st.stop()
cached.check_columns(st.session_state, "imposter_sensitive", sens_options)

c1, c2 = st.columns(2)
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
    st.error("There is no other categorical column to use as the label (2 to 20 values).")
    st.stop()
cached.check_columns(st.session_state, "imposter_label", label_choices)
label = c2.selectbox("Label (utility target)", label_choices,
                     index=label_choices.index(cached.default_label(dataset, label_choices, schema)),
                     key="imposter_label")

# ------------------------------------------------------------------ 1. detection
st.subheader("1 · Detection: which attributes give s away")
left, right = st.columns([1, 2.5])
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
    rule = e1.radio("Start the protected set from", list(cached.RULE_NAMES), format_func=cached.RULE_NAMES.get,
                    key="imposter_rule",
                    help="The default rule flags an attribute only when it predicts s better than always "
                    "guessing the most common value, by a margin its held-out interval supports. The paper's "
                    "rule flags the NMI >= theta candidates when tau >= beta, with no such reference.")
    rewrite_label = e2.checkbox(
        "Let the label be rewritten too", value=False, key="imposter_rewrite_label",
        help="Off: the label (the utility target) is left out of detection, so IMPOSTER never flags it as "
        "an attribute to rewrite. On: it is scored like any other attribute.")
with page_errors(stop=True):
    det = setup_view("imposter_detection", cached.detection(dataset, sensitive, theta, beta, det_clf, metric, 10,
                                                            seed, () if rewrite_label else (label,)))

with right:
    show_chart(charts.detection_chart(det.scores, theta=theta, default_implicit=det.default_implicit,
                                      paper_implicit=det.paper_implicit, majority=det.majority_share,
                                      sensitive=sensitive, data=dataset.name),
               charts.detection_data(det.scores, theta=theta, default_implicit=det.default_implicit,
                                     paper_implicit=det.paper_implicit, majority=det.majority_share),
               name="imposter-detection", key="imposter_nmi_chart", width="stretch")
with verdicts:
    for kind, text in cached.verdict_lines(det, sensitive=sensitive):
        getattr(st, kind)(text)
st.caption(
    f"How to read: left, how much better than always guessing the most common {md(sensitive)} "
    f"(majority share {det.majority_share:.3f}) each attribute alone predicts it on held-out rows, with a "
    f"{det.confidence:.0%} interval (Bonferroni over the attributes): the default rule flags an attribute "
    "(red diamond) when its whole interval lies right of the dashed zero line; grey: not flagged. Right, the "
    "paper's Fig. 6: NMI with s and the dashed theta line; red bars are the paper's verdict, orange candidates "
    "whose tau missed beta, grey below theta."
)
flagged_table = cached.flagged_gains(det)
if len(flagged_table):
    st.dataframe(flagged_table.style.format({c: "{:+.3f}" for c in flagged_table.columns
                                             if c.startswith("gain")} | {"held-out accuracy": "{:.3f}",
                                                                         "NMI": "{:.4f}"}),
                 hide_index=True, width="stretch", key="imposter_gains")
claim_box(cached.fig6_claim(det.scores, theta, sensitive))

protect_options = cached.protect_options(dataset, sensitive)
start_set = [c for c in (det.paper_implicit if rule == "paper" else det.default_implicit) if c in protect_options]
implicit = st.multiselect(
    "Attributes D2 will protect", protect_options, default=start_set,
    key=cached.implicit_key(dataset, sensitive, theta, beta, det_clf, metric, rule, rewrite_label),
    help="The detected set (by the rule chosen under Detection settings); you may add or remove attributes.")
cached.check_columns(st.session_state, "imposter_audit_col", list(implicit))

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

# ------------------------------------------------------------------ 2. training
st.subheader("2 · Protection: train IMPOSTER (Algorithm 2)")
small = dataset.n_rows <= 5000
batch = cached.batch_size(dataset.n_rows)
if batch < 500:
    st.warning(f"This table has only {dataset.n_rows:,} rows, fewer than four batches of 500: the batch is "
               f"reduced to {batch} so each epoch sees several batches. With so few rows the generator can "
               "collapse to a few typical records; compare the synthetic table's spread with the real one "
               "below before using it.", icon=":material/warning:")
t_left, t_right = st.columns([1, 2.5])
lam = t_left.slider("lambda (weight of D2, Eq. 10)", 0.0, 10.0, 1.0, 0.1, key="imposter_lambda",
                    help="0 = VAE-CGAN, keeps every correlation. About 1 removes the leak; much "
                    "larger values trade utility for little more protection.")
with st.expander("Training settings: epochs, latent size, G's V2 term"):
    k1, k2, k3 = st.columns(3)
    epochs = int(k1.number_input("Epochs", 1, 1000, 100 if small else 15, key="imposter_epochs",
                                 help=f"Passes over the data (batch size {batch})."))
    latent = int(k2.selectbox("Latent size", [8, 16, 32, 64], index=2, key="imposter_latent"))
    v2_loss = k3.radio(
        "G's V2 term", ["minimax", "capped", "confusion"], horizontal=True,
        key="imposter_v2_loss",
        help="minimax: Eq. 12 as in the paper (the default; samples come from averaged "
        "generator weights, which keeps it from ending on a reversed relation). capped: no "
        "reward for pushing D2 below chance (less utility in our runs). confusion: pull "
        "D2's output to uniform.")
params = cached.training_params(lam, epochs, latent, batch, v2_loss)
job_key = (dataset.fingerprint(), sensitive, tuple(implicit), params, seed)

train = t_left.button("Train", type="primary", key="imposter_train", disabled=not implicit)
jobs = cached.session_jobs(st.session_state)
job = jobs.get(dataset.fingerprint())  # never another dataset's training
if not implicit:
    with t_left:
        st.info(cached.nothing_to_protect(det, presenting=is_presenting()), icon=":material/info:")
if train:
    if job is not None and job.running:
        job.stop()
    job = cached.finished_training(job_key)  # the same inputs trained before: reuse at once
    if job is None:
        with page_errors(stop=True):
            job = cached.training_job(dataset, sensitive, tuple(implicit), params, seed)
        job.key = job_key
    cached.keep_job(jobs, dataset, job)

n_classes = cached.class_count(dataset, sensitive)


def _draw_progress() -> None:
    done, total = job.progress()
    if job.running:
        text = (f"Training: iteration {done:,} of {total:,}{job.time_left(done / total)}" if total
                else "Starting...")
        st.progress(min(done / total, 1.0) if total else 0.0, text=text)
    history = job.history()
    show_chart(charts.training_curves(history, n_classes=n_classes, data=dataset.name),
               charts.training_data(history, n_classes=n_classes),
               name="imposter-training", key="imposter_curves", width="stretch")
    st.caption("How to read: left, the discriminators' and the generator's adversarial losses; "
               "middle, reconstruction error and KL of the VAE; right, D2's accuracy at telling "
               "s from the implicit columns of generated records (near chance = no leak left).")


ready = False  # a finished model below: the sections after the sweeps need it
with t_right:
    if job is not None and job.running:
        live_job(job, stop_key="imposter_stop", draw_progress=_draw_progress)
    elif job is None:
        if implicit:
            control_hint("Press **Train** to fit the synthesizer; the curves grow live and **Stop** keeps "
                         "what was learned so far.")
    elif job.cancelled:
        control_hint("The training was stopped before it started; press **Train** to queue it again.")
    else:
        _draw_progress()
        if job.error is not None:
            show_error(job.error)
        else:
            ready = True
            cached.remember_training(job.key, job)
            model, synthetic = job.model, job.synthetic
            if job.key != job_key:
                st.info("The settings above changed since this model was trained"
                        + ("" if is_presenting() else "; press **Train** to train with them")
                        + ". The results below are for the last model.")
            state = "stopped early" if model.stopped_ else "finished"
            st.success(f"Training {state} after {model.iterations_:,} iterations; "
                       f"{len(synthetic):,} synthetic rows generated.")

# ------------------------------------------------------------------ 2b. sweeps
st.subheader("Sweeps: theta (Table 2) and lambda (Fig. 8)")
control_hint("Each point of a sweep trains IMPOSTER once with the settings above (lambda, latent size, "
             "G's V2 term) and scores one classifier in settings A and B. They run in the background "
             "when you press their button; a finished sweep is kept for everyone with the same inputs.")
c1, c2 = st.columns(2)
sweep_clf = c1.selectbox("Classifier of the sweeps", CLASSIFIERS, index=CLASSIFIERS.index("xgboost"),
                         format_func=CLASSIFIER_LABELS.get, key="imposter_sweep_clf",
                         help="The paper uses XGBoost for Table 2 and Fig. 8.")
sweep_epochs = int(c2.number_input(
    "Epochs per sweep training", 1, 1000, cached.sweep_epochs(dataset.n_rows), key="imposter_sweep_epochs",
    help="Each point of a sweep is one training. On the 3,000-row census sample, 100 epochs take about "
    "40 s for the four thetas and 60 s for the six lambdas; with fewer the label is not learned yet."))
sweep_params = cached.with_epochs(params, sweep_epochs)
tab_theta, tab_lambda = st.tabs(["theta (Table 2)", "lambda (Fig. 8)"])


def _sweep(slot: str, sweep, run_key: str, what: str):
    """The finished result of ``sweep``, or None: started by its button."""
    return sweep_on_request(slot, sweep, button=f"Run the {what} sweep", key=run_key,
                            waiting=("Nothing trained yet for these settings." if is_presenting() else
                                     f"Nothing trained yet for these settings: press **Run the {what} sweep**."))


with tab_theta:
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
            show_chart(charts.table2_chart(runs, paper=paper2, sensitive=sensitive, label=label,
                                           classifier=CLASSIFIER_LABELS[sweep_clf], data=dataset.name),
                       charts.table2_data(runs, paper=paper2, sensitive=sensitive, label=label),
                       name="imposter-table2", key="imposter_table2_chart", width="stretch")
            st.caption("How to read: solid lines are ours"
                       + (", dashed lines with hollow markers the paper's Table 2 (Adult, XGBoost)" if paper2 else
                          " (the paper's Table 2 is drawn beside them for XGBoost only)")
                       + ". Top left, the attacker on s: setting B (red) should sit on the dotted majority share "
                       "for every theta; right, the label: B should stay near A (green).")
            claim_box(cached.table2_claim(runs))

with tab_lambda:
    lambda_text = st.text_input("Lambdas (comma-separated)", ", ".join(f"{v:g}" for v in cached.LAMBDAS),
                                key="imposter_lambdas",
                                help="0 is the VAE-CGAN without D2; the paper finds about 1 best.")
    if not implicit:
        st.info("The lambda sweep protects the chosen set, and it is empty: "
                + cached.nothing_to_protect(det, presenting=is_presenting()))
    else:
        with page_errors():
            lambdas = cached.parse_grid(lambda_text, name="lambda", lo=0.0, hi=100.0)
            lruns = _sweep("imposter_lambda_sweep",
                           cached.lambda_sweep(dataset, sensitive, label, tuple(implicit), lambdas, sweep_clf,
                                               sweep_params, seed),
                           "imposter_lambda_run", "lambda")
            if lruns is not None:
                show_chart(charts.fig8_chart(lruns, sensitive=sensitive, label=label,
                                             classifier=CLASSIFIER_LABELS[sweep_clf], data=dataset.name),
                           charts.fig8_data(lruns, sensitive=sensitive, label=label),
                           name="imposter-fig8", key="imposter_fig8_chart", width="stretch")
                st.caption("How to read: left, the attacker on s in setting B (solid accuracy, dashed F1): it "
                           "should fall to the dotted majority share once lambda reaches about 1; right, the "
                           "label: it should stay about level. The paper's Fig. 8 gives no table of values, "
                           "so its words are in the box below.")
                claim_box(cached.fig8_claim(lruns))

if not ready:
    st.stop()

# ------------------------------------------------------------------ 3. evaluation
st.subheader("3 · Settings A and B (Table 1)")
classifiers = st.multiselect("Classifiers", CLASSIFIERS, default=list(CLASSIFIERS),
                             format_func=CLASSIFIER_LABELS.get, key="imposter_classifiers")
trained_implicit = list(job.implicit)
if not classifiers:
    st.info("Choose at least one classifier.")
    st.stop()
with page_errors(stop=True):
    table = sweep_view("imposter_table1", cached.table1(dataset, synthetic, job.sensitive, label,
                                                        tuple(trained_implicit), tuple(classifiers), seed))
if table is not None:
    show_chart(charts.table1_bars(table, paper=cached.PAPER["Table 1"], data=dataset.name),
               charts.table1_data(table, paper=cached.PAPER["Table 1"]), name="imposter-table1",
               key="imposter_table1_chart", width="stretch")
    st.caption(
        "How to read: left panel, an attacker predicting s from the implicit attributes — on the "
        "synthetic table (B) it should fall to the dashed majority share; right panel, the label "
        "from all attributes — B and train-synthetic/test-real should stay close to A. Hatched bars "
        "and the rows marked (paper, Adult) are the paper's Table 1 for the same classifiers."
    )
    for sentence in cached.table1_references(table):
        st.warning(sentence, icon=":material/horizontal_rule:")
    claim_box(cached.table1_claim(table))
    shown = charts.table1_display(table, paper=cached.PAPER["Table 1"])
    st.dataframe(shown.style.format("{:.3f}", na_rep="–"), width="stretch", key="imposter_table1")
    with page_errors():
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

# ------------------------------------------------------------------ 4. kRR baseline
st.subheader("4 · Against k-ary randomized response (Fig. 7)")
krr_clf = st.selectbox("Classifier for the comparison", CLASSIFIERS, index=CLASSIFIERS.index("gbdt"),
                       format_func=CLASSIFIER_LABELS.get, key="imposter_krr_clf")
with page_errors(stop=True):
    curve = sweep_view("imposter_krr", cached.krr_curve(dataset, job.sensitive, label, tuple(trained_implicit),
                                                        krr_clf, seed, schema=current_schema(dataset)))
    point_table = sweep_view("imposter_point", cached.table1(dataset, synthetic, job.sensitive, label,
                                                             tuple(trained_implicit), (krr_clf,), seed))
if curve is not None and point_table is not None:
    point, real, majority = cached.tradeoff_points(point_table)
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
    for sentence in cached.tradeoff_references(point, label_majority):
        st.warning(sentence, icon=":material/horizontal_rule:")
    claim_box(cached.fig7_claim(curve, point))
st.caption(cached.krr_note(trained_implicit, list(dataset.frame.columns), current_schema(dataset)))

# ------------------------------------------------------------------ 5. download
st.subheader("5 · The synthetic table")
st.dataframe(synthetic.head(200), key="imposter_synthetic_preview")
guarantee_box(model.ledger_)
release_download(
    "imposter", method="IMPOSTER synthetic table (paper 002)", label="IMPOSTER synthetic table",
    file_name=f"{dataset.name}_imposter.csv", seed=seed, settings_key=job.key,
    make_release=lambda noise: (model.sample(len(synthetic), random_state=noise.generator()), model.ledger_),
)
