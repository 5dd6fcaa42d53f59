"""IMPOSTER page (paper 002): detect implicit-privacy attributes, train the synthesizer
live, compare settings A / B and the kRR baseline, download the synthetic table."""
from __future__ import annotations


import streamlit as st

from core.imposter import CLASSIFIERS
from core.imposter import FIG7_EPSILONS, synthesizer_ledger
from core.imposter.classifiers import CLASSIFIER_LABELS
from dashboard.cached import imposter as cached
from dashboard.charts import imposter as charts
from dashboard.components.chart_data import show_chart
from dashboard.components.errors import page_errors
from dashboard.components.jobs import live_job, setup_view, sweep_view
from dashboard.components.preamble import choose_sensitive, page_data, stop_until_chosen
from dashboard.components.privacy import audit_panel, guarantee_box, release_download
from dashboard.safe import md
from dashboard.state import show_error

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

show_chart(charts.nmi_bars(det.scores, theta=theta, implicit=det.implicit),
           charts.nmi_data(det.scores, theta=theta, implicit=det.implicit),
           name="imposter-nmi", key="imposter_nmi_chart", width="stretch")
st.caption(
    "How to read: bar height is the NMI of each attribute with s (0 = independent, 1 = one "
    "determines the other); the dashed line is theta; red bars are the detected implicit "
    "attributes. Hover for Eq. 7 as printed in the paper (a distance: 1 = independent)."
)
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
        audit_panel("imposter", lambda: cached.krr_audit_case(dataset, audit_col, float(audit_eps)),
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
    show_chart(charts.training_curves(history, n_classes=n_classes),
               charts.training_data(history, n_classes=n_classes),
               name="imposter-training", key="imposter_curves", width="stretch")
    st.caption("How to read: left, the discriminators' and the generator's adversarial losses; "
               "middle, reconstruction error and KL of the VAE; right, D2's accuracy at telling "
               "s from the implicit columns of generated records (near chance = no leak left).")


if job is not None and job.running:
    live_job(job, stop_key="imposter_stop", draw_progress=_draw_progress)
    st.stop()

if job is None:
    st.info("Press **Train** to fit the synthesizer; the curves grow live and **Stop** keeps "
            "what was learned so far.")
    st.stop()

if job.cancelled:
    st.info("The training was stopped before it started; press **Train** to queue it again.")
    st.stop()
_draw_progress()
if job.error is not None:
    show_error(job.error)
    st.stop()
cached.remember_training(job.key, job)
model, synthetic = job.model, job.synthetic
if job.key != job_key:
    st.info("The settings above changed since this model was trained; press **Train** to "
            "train with them. The results below are for the last model.")
state = "stopped early" if model.stopped_ else "finished"
st.success(f"Training {state} after {model.iterations_:,} iterations; "
           f"{len(synthetic):,} synthetic rows generated.")

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
    show_chart(charts.table1_bars(table), charts.table1_data(table), name="imposter-table1",
               key="imposter_table1_chart", width="stretch")
    st.caption(
        "How to read: left panel, an attacker predicting s from the implicit attributes — on the "
        "synthetic table (B) it should fall to the dashed majority share; right panel, the label "
        "from all attributes — B and train-synthetic/test-real should stay close to A."
    )
    st.dataframe(charts.table1_display(table).style.format("{:.3f}"), width="stretch", key="imposter_table1")
    with page_errors():
        tv = cached.marginal_fidelity(dataset, synthetic)
        st.markdown("**Leak, utility and marginals side by side**")
        st.dataframe(charts.fidelity_summary(table, tv).style.format("{:.3f}"), width="stretch",
                     key="imposter_fidelity")
        show_chart(charts.marginal_tv_bars(tv), charts.marginal_tv_data(tv), name="imposter-marginal-tv",
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
                                                        krr_clf, seed))
    point_table = sweep_view("imposter_point", cached.table1(dataset, synthetic, job.sensitive, label,
                                                             tuple(trained_implicit), (krr_clf,), seed))
if curve is not None and point_table is not None:
    point, real, majority = cached.tradeoff_points(point_table)
    c1, c2 = st.columns(2)
    with c1:
        show_chart(charts.tradeoff(curve, imposter=point, majority=majority, real=real),
                   charts.krr_data(curve, imposter=point, real=real, majority=majority),
                   name="imposter-privacy-vs-utility", key="imposter_tradeoff", width="stretch")
    c1.caption("How to read: each kRR point is one epsilon; left is more private, up is more useful. "
               "IMPOSTER beats kRR where its star lies above the kRR curve at the same x.")
    with c2:
        show_chart(charts.krr_vs_epsilon(curve, imposter=point, sensitive=job.sensitive, label=label),
                   charts.krr_data(curve, imposter=point, sensitive=job.sensitive, label=label),
                   name="imposter-krr-vs-epsilon", key="imposter_krr_eps", width="stretch")
    c2.caption("How to read: kRR accuracy for both tasks as the budget epsilon grows (log scale); "
               "the dotted lines are IMPOSTER's accuracies, which do not depend on epsilon.")
st.caption(cached.krr_note(trained_implicit, list(dataset.frame.columns)))

# ------------------------------------------------------------------ 5. download
st.subheader("5 · The synthetic table")
st.dataframe(synthetic.head(200), key="imposter_synthetic_preview")
guarantee_box(model.ledger_)
release_download(
    "imposter", method="IMPOSTER synthetic table (paper 002)", label="IMPOSTER synthetic table",
    file_name=f"{dataset.name}_imposter.csv", seed=seed, settings_key=job.key,
    make_release=lambda noise: (model.sample(len(synthetic), random_state=noise.generator()), model.ledger_),
)
