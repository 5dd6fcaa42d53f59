"""IMPOSTER page (paper 002): every figure and table of section 5, live, with the paper's
numbers beside ours and one computed sentence (a claim box) saying whether its claim holds
on the data at hand.

1. Detection (Algorithm 1): NMI bars of each attribute with s (Fig. 6) and its claim.
2. Protection (Algorithm 2): the training curves of a live, stoppable training; then the
   sweeps, each started by its button as a background job with progress and Stop and kept
   for every session once finished: theta (Table 2, the paper's numbers dashed) and lambda
   (Fig. 8, the paper's words in the claim box).
3. Settings A and B (Table 1), with the paper's Table 1 beside ours and its claim; the
   marginal fidelity of the synthetic table (not in the paper).
4. kRR against IMPOSTER (Fig. 7), with the paper's two points and its claim.
5. The synthetic table for download.

Everything that computes lives in :mod:`dashboard.cached.imposter`; the charts are pure
functions of :mod:`dashboard.charts.imposter`.
"""
from __future__ import annotations


import streamlit as st

from core.imposter import CLASSIFIERS
from core.imposter import FIG7_EPSILONS, synthesizer_ledger
from core.imposter.classifiers import CLASSIFIER_LABELS
from dashboard.cached import imposter as cached
from dashboard.charts import imposter as charts
from dashboard.components.chart_data import show_chart
from dashboard.components.claims import claim_box
from dashboard.components.errors import page_errors
from dashboard.components.jobs import live_job, setup_view, sweep_on_request, sweep_view
from dashboard.components.preamble import choose_sensitive, page_data, stop_until_chosen
from dashboard.components.privacy import audit_panel, guarantee_box, release_download
from dashboard.safe import md

from dashboard.state import current_schema, show_error

st.title("IMPOSTER: implicit privacy")
st.caption(
    "Paper 002. Some public attributes give a sensitive one away (relationship = Husband "
    "says sex = Male). IMPOSTER finds them (normalised mutual information, then an attacker's "
    "classifier) and publishes a synthetic table in which they no longer predict the "
    "sensitive attribute, while the label stays predictable. This is not differential "
    "privacy: the generator is trained on the raw data."
)

page = page_data("census", needs_sensitive=True)
dataset, seed = page.dataset, page.seed

sens_options = cached.sensitive_options(dataset)
if not sens_options:
    st.error("This table has no categorical column with 2 to 20 values to protect; "
             "mark such a column as sensitive on the Data page, or bin a numeric one.")
    st.stop()

c1, c2 = st.columns(2)
sensitive = choose_sensitive(c1, "Sensitive attribute s", sens_options, dataset, key="imposter_sensitive",
                             help="The explicit privacy attribute the published table must not give away.")
stop_until_chosen(sensitive, dataset, "Choose the sensitive attribute above: {marked}IMPOSTER has nothing "
                  "to protect until you do (it hides what the other attributes say about it).")
label_choices = cached.label_options(dataset, sensitive)
if not label_choices:
    st.error("There is no other categorical column to use as the label (2 to 20 values).")
    st.stop()
label = c2.selectbox("Label (utility target)", label_choices,
                     index=label_choices.index(cached.default_label(dataset, label_choices)),
                     key="imposter_label")

# ------------------------------------------------------------------ 1. detection
st.subheader("1 · Detection (Algorithm 1)")
c1, c2, c3, c4 = st.columns(4)
theta = c1.slider("theta (NMI threshold)", 0.0, 0.3, 0.01, 0.001, format="%.3f",
                  key="imposter_theta",
                  help="Attributes whose NMI with s reaches theta are candidates. Lower theta "
                  "protects more attributes (and rewrites more of the table).")
beta = c2.slider("beta (attacker threshold)", 0.0, 1.0, 0.7, 0.01, key="imposter_beta",
                 help="The candidates count as implicit privacy when a classifier predicts s "
                 "from them with a score of at least beta. Compare with the majority share.")
det_clf = c3.selectbox("Attacker's classifier", CLASSIFIERS, index=CLASSIFIERS.index("lr"),
                       format_func=CLASSIFIER_LABELS.get, key="imposter_det_clf")
metric = c4.radio("Score tau", ["accuracy", "f1"], horizontal=True, key="imposter_metric")

rewrite_label = st.checkbox(
    "Let the label be rewritten too", value=False, key="imposter_rewrite_label",
    help="Off: the label (the utility target) is left out of detection, so IMPOSTER never flags it as "
    "an attribute to rewrite. On: it is scored like any other attribute.")
with page_errors(stop=True):
    det = setup_view("imposter_detection", cached.detection(dataset, sensitive, theta, beta, det_clf, metric, 10,
                                                            seed, () if rewrite_label else (label,)))

show_chart(charts.nmi_bars(det.scores, theta=theta, implicit=det.implicit, data=dataset.name),
           charts.nmi_data(det.scores, theta=theta, implicit=det.implicit),
           name="imposter-nmi", key="imposter_nmi_chart", width="stretch")
st.caption(
    "How to read: bar height is the NMI of each attribute with s (0 = independent, 1 = one "
    "determines the other); the dashed line is theta; red bars are the detected implicit "
    "attributes. Hover for Eq. 7 as printed in the paper (a distance: 1 = independent)."
)
claim_box(cached.fig6_claim(det.scores, theta, sensitive))
tau_text = "n/a" if det.tau != det.tau else f"{det.tau:.3f}"
m1, m2, m3 = st.columns(3)
m1.metric("Candidates (NMI ≥ theta)", len(det.candidates))
m2.metric(f"tau ({metric}, {CLASSIFIER_LABELS[det_clf]}, 3-fold)", tau_text)
m3.metric("Majority share of s (no-leak floor)", f"{det.majority_share:.3f}")
if det.implicit:
    st.success(f"Implicit privacy attributes for **{md(sensitive)}**: {', '.join(md(c) for c in det.implicit)} "
               f"(tau = {tau_text} ≥ beta = {beta:g}).")
elif det.candidates:
    st.warning(f"The {len(det.candidates)} candidate(s) predict {md(sensitive)} with tau = {tau_text} "
               f"< beta = {beta:g}: Algorithm 1 flags nothing. Lower beta to protect them anyway.")
else:
    st.warning("No attribute reaches theta: lower theta.")

implicit = st.multiselect(
    "Attributes D2 will protect", cached.protect_options(dataset, sensitive),
    default=list(det.implicit), key=f"imposter_implicit_{sensitive}_{theta}_{beta}_{det_clf}_{metric}",
    help="The detected set; you may add or remove attributes.")

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
                                                               schema=current_schema(dataset)),
                    case_key=(dataset.fingerprint(), audit_col, float(audit_eps)), seed=seed,
                    default_runs=2000)
    else:
        st.caption("Choose an attribute to protect to audit kRR on it.")

# ------------------------------------------------------------------ 2. training
st.subheader("2 · Protection: train IMPOSTER (Algorithm 2)")
small = dataset.n_rows <= 5000
batch = cached.batch_size(dataset.n_rows)
if batch < 500:
    st.warning(f"This table has only {dataset.n_rows:,} rows, fewer than four batches of 500: the batch is "
               f"reduced to {batch} so each epoch sees several batches. With so few rows the generator can "
               "collapse to a few typical records; compare the synthetic table's spread with the real one "
               "below before using it.", icon=":material/warning:")
c1, c2, c3 = st.columns(3)
lam = c1.slider("lambda (weight of D2, Eq. 10)", 0.0, 10.0, 1.0, 0.1, key="imposter_lambda",
                help="0 = VAE-CGAN, keeps every correlation. About 1 removes the leak; much "
                "larger values trade utility for little more protection.")
epochs = int(c2.number_input("Epochs", 1, 1000, 100 if small else 15, key="imposter_epochs",
                             help=f"Passes over the data (batch size {batch})."))
latent = int(c3.selectbox("Latent size", [8, 16, 32, 64], index=2, key="imposter_latent"))
with st.expander("Advanced"):
    v2_loss = st.radio(
        "G's V2 term", ["minimax", "capped", "confusion"], horizontal=True,
        key="imposter_v2_loss",
        help="minimax: Eq. 12 as in the paper (the default; samples come from averaged "
        "generator weights, which keeps it from ending on a reversed relation). capped: no "
        "reward for pushing D2 below chance (less utility in our runs). confusion: pull "
        "D2's output to uniform.")
params = cached.training_params(lam, epochs, latent, batch, v2_loss)
job_key = (dataset.fingerprint(), sensitive, tuple(implicit), params, seed)

train = st.button("Train", type="primary", key="imposter_train", disabled=not implicit)
job = st.session_state.get("imposter_job")
if not implicit:
    st.info("Choose at least one attribute to protect before training.")
if train:
    if job is not None and job.running:
        job.stop()
    job = cached.finished_training(job_key)  # the same inputs trained before: reuse at once
    if job is None:
        with page_errors(stop=True):
            job = cached.training_job(dataset, sensitive, tuple(implicit), params, seed)
        job.key = job_key
    st.session_state["imposter_job"] = job

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
if job is not None and job.running:
    live_job(job, stop_key="imposter_stop", draw_progress=_draw_progress)
elif job is None:
    st.info("Press **Train** to fit the synthesizer; the curves grow live and **Stop** keeps "
            "what was learned so far.")
elif job.cancelled:
    st.info("The training was stopped before it started; press **Train** to queue it again.")
else:
    _draw_progress()
    if job.error is not None:
        show_error(job.error)
    else:
        ready = True
        cached.remember_training(job.key, job)
        model, synthetic = job.model, job.synthetic
        if job.key != job_key:
            st.info("The settings above changed since this model was trained; press **Train** to "
                    "train with them. The results below are for the last model.")
        state = "stopped early" if model.stopped_ else "finished"
        st.success(f"Training {state} after {model.iterations_:,} iterations; "
                   f"{len(synthetic):,} synthetic rows generated.")

# ------------------------------------------------------------------ 2b. sweeps
st.subheader("Sweeps: theta (Table 2) and lambda (Fig. 8)")
st.caption("Each point of a sweep trains IMPOSTER once with the settings above (lambda, latent size, "
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
                            waiting=f"Nothing trained yet for these settings: press **Run the {what} sweep**.")


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
        st.info("Choose at least one attribute to protect above: the lambda sweep protects that set.")
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
    c1, c2 = st.columns(2)
    with c1:
        show_chart(charts.tradeoff(curve, imposter=point, majority=majority, real=real,
                                   paper=cached.PAPER["Fig. 7"], data=dataset.name),
                   charts.krr_data(curve, imposter=point, real=real, majority=majority,
                                   paper=cached.PAPER["Fig. 7"]),
                   name="imposter-privacy-vs-utility", key="imposter_tradeoff", width="stretch")
    c1.caption("How to read: each kRR point is one epsilon; left is more private, up is more useful. "
               "IMPOSTER beats kRR where its star lies above the kRR curve at the same x. Hollow "
               "markers: the paper's two points on Adult (section 5.6).")
    with c2:
        show_chart(charts.krr_vs_epsilon(curve, imposter=point, sensitive=job.sensitive, label=label,
                                         data=dataset.name),
                   charts.krr_data(curve, imposter=point, sensitive=job.sensitive, label=label),
                   name="imposter-krr-vs-epsilon", key="imposter_krr_eps", width="stretch")
    c2.caption("How to read: kRR accuracy for both tasks as the budget epsilon grows (log scale); "
               "the dotted lines are IMPOSTER's accuracies, which do not depend on epsilon.")
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
