"""IMPOSTER page (paper 002): every figure and table of section 5, live, with the paper's
numbers beside ours and one computed sentence (a claim box) saying whether its claim holds
on the data at hand.

1. Detection: s and the label, theta and beta beside the chart of both rules, the default (each attribute's
   held-out gain over always guessing the most common s, with its interval) and the
   paper's Algorithm 1 (NMI bars, Fig. 6, and tau >= beta), their two verdicts side by side
   and the Fig. 6 claim. The default verdict starts the protected set; when it finds
   nothing the page says so and IMPOSTER has nothing to remove.
2. Protection (Algorithm 2): the training curves of a live, stoppable training; then the
   sweeps, each started by its button as a background job with progress and Stop and kept
   for every session once finished: theta (Table 2, the paper's numbers dashed) and lambda
   (Fig. 8, the paper's words in the claim box).
3. Settings A and B (Table 1), with the paper's Table 1 beside ours and its claim; the
   marginal fidelity of the synthetic table (not in the paper); real against release (each
   column and pair of the synthetic table, or of kRR's, against the real one).
4. kRR against IMPOSTER (Fig. 7), with the paper's two points and its claim.
5. The synthetic table for download, and the page's "Download bundle" (every number above
   with a script and notebook that recompute it).

One dataset, one state: column settings start from the Data page's roles and are dropped
on a dataset switch; trainings are kept per dataset fingerprint and every other result is
keyed by it, so another dataset's result never shows. Identifier columns are left out.
Every accuracy stands beside its constant guess (the majority share), said in words when
it falls to it.

This script is the layout; each section's widgets and charts are functions of
:mod:`dashboard.imposter.detection` (1), :mod:`dashboard.imposter.training` and
:mod:`dashboard.imposter.sweeps` (2), and :mod:`dashboard.imposter.results` (3 to 5).
Everything that computes lives in :mod:`dashboard.imposter.cached`; the charts are pure
functions of :mod:`dashboard.imposter.charts` and :mod:`dashboard.imposter.charts_training`.
"""
from __future__ import annotations

import streamlit as st

from dashboard.imposter import detection, results, sweeps, training
from dashboard.shared.widgets.preamble import page_data
from dashboard.shared.widgets.present import control_hint

st.title("IMPOSTER: implicit privacy")
st.caption(
    "Paper 002. Some public attributes give a sensitive one away (relationship = Husband says sex = Male). "
    "IMPOSTER finds them and publishes a synthetic table in which they no longer predict it, while the "
    "label stays predictable. Not differential privacy: the generator is trained on the raw data."
)

page = page_data("census", needs_sensitive=True)
seed = page.seed
dataset, schema = detection.without_identifiers(page.dataset)

# ------------------------------------------------------------------ 1. detection
# chart first: s, the label, theta and beta in the left column, the detection chart beside them
st.subheader("1 · Detection: which attributes give s away")
left, right = st.columns([1, 2.5])
with left:  # a stop's sentence (nothing to protect yet) shows where s is chosen
    sensitive, label = detection.choose_columns(dataset, schema, left)
choice = detection.detection_controls(left)
det = detection.detect(dataset, sensitive, label, choice, seed)
detection.detection_view(right, choice, det, dataset, sensitive)
implicit = detection.protected_set(dataset, sensitive, choice, det)
detection.privacy_box(dataset, schema, seed, implicit)

# ------------------------------------------------------------------ 2. training
st.subheader("2 · Protection: train IMPOSTER (Algorithm 2)")
batch = training.batch_warning(dataset)
t_left, t_right = st.columns([1, 2.5])
params = training.training_controls(t_left, dataset, batch)
job, job_key = training.start_training(t_left, dataset, sensitive, implicit, params, seed, det)
ready = training.training_view(t_right, job, job_key, dataset, sensitive, implicit)

# ------------------------------------------------------------------ 2b. sweeps
st.subheader("Sweeps: theta (Table 2) and lambda (Fig. 8)")
control_hint("Each point of a sweep trains IMPOSTER once with the settings above (lambda, latent size, "
             "G's V2 term) and scores one classifier in settings A and B. They run in the background "
             "when you press their button; a finished sweep is kept for everyone with the same inputs.")
sweep_clf, sweep_params = sweeps.sweep_controls(dataset, params)
tab_theta, tab_lambda = st.tabs(["theta (Table 2)", "lambda (Fig. 8)"])
with tab_theta:
    sweeps.theta_tab(dataset, sensitive, label, sweep_clf, sweep_params, seed, choice.rewrite_label)
with tab_lambda:
    sweeps.lambda_tab(dataset, sensitive, label, implicit, sweep_clf, sweep_params, seed, det)

if not ready:
    st.stop()

# ------------------------------------------------------------------ 3. evaluation
st.subheader("3 · Settings A and B (Table 1)")
results.table1_section(dataset, job, label, seed)
results.fidelity_section(dataset, job, seed)

# ------------------------------------------------------------------ 4. kRR baseline
st.subheader("4 · Against k-ary randomized response (Fig. 7)")
results.krr_section(dataset, job, label, seed)

# ------------------------------------------------------------------ 5. download
st.subheader("5 · The synthetic table")
results.download_section(dataset, job, seed)
results.bundle_section(page.dataset, schema, job, job_key, label, seed, choice, sweep_clf, sweep_params)
