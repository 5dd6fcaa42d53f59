"""The Compare page's sections: the settings, the frontier, every measure and the downloads."""
from __future__ import annotations

import streamlit as st

from core.data import Dataset
from dashboard.compare import cached
from core.evaluation.classification import INTERVAL_WORDS
from dashboard.compare.charts import MEASURE_WORDS, frontier_chart
from dashboard.shared.widgets.bundle_view import bundle_download
from dashboard.shared.widgets.chart_data import show_chart
from dashboard.shared.widgets.present import is_presenting
from dashboard.shared.widgets.preamble import choose_sensitive, is_builtin_sample, marked_sensitive, stop_until_chosen
from dashboard.shared.safe import md

#: what each risk on the x axis measures, in words under the selector
RISK_WORDS = {
    "ai_advantage": "An attacker trained on the release predicts each sensitive attribute of held-out real "
                    "records; the advantage is its accuracy above always guessing the commonest value "
                    "(0 = no leak), the largest over the sensitive attributes.",
    "ai_member": "The same attacker aimed at the people in the release (training records) against people "
                 "it never saw (the control, as in Anonymeter): its accuracy on the first above the second "
                 "(0 = the release tells no more about its people than about anyone).",
    "dcr_excess": "The share of training records whose nearest released row is closer than their nearest "
                  "held-out record, minus what an independent release would give (0 = no copying).",
    "mia_auc": "A loss-threshold attacker tells training records from held-out ones by the model's loss "
               "(Yeom et al. 2018); 0.5 is guessing.",
}


#: the settings' expander, above the frontier (chart first: it starts in the first screen)
SETTINGS_TITLE = "Settings: methods, sensitive attributes, epsilons, repetitions, rows, audit runs"
#: set once the settings were incomplete in this session: their expander then stays open
SETTINGS_OPEN_KEY = "pux_cmp_settings_open"
#: set once the user chose the audit's runs: presenting then runs them (else no audit)
AUDITS_ASKED_KEY = "pux_cmp_audits_asked"
#: set while presenting runs the comparison without audits (the frontier says so)
AUDITS_OFF_KEY = "pux_cmp_audits_off"
AUDITS_OFF = ("The privacy audits are off while presenting, so that the frontier comes first: choose their "
              "runs in the settings before presenting to run them.")


def settings(dataset: Dataset) -> dict:
    """The comparison's settings, folded in an expander above the frontier (open once they were
    incomplete, until the user folds it); stops the page, with one sentence under the expander,
    until they are complete."""
    options = [c for c in dataset.frame.columns if c != dataset.label]
    state = st.session_state
    incomplete = (not state.get("cmp_methods", True) or not state.get("cmp_eps", True)
                  or not (state.get("cmp_sensitive") if "cmp_sensitive" in state else marked_sensitive(dataset, options)))
    if incomplete:  # open, and kept open once complete (it folds when the user folds it, not by itself)
        state[SETTINGS_OPEN_KEY] = True
    with st.expander(SETTINGS_TITLE, expanded=bool(state.get(SETTINGS_OPEN_KEY, False)), icon=":material/tune:"):
        c1, c2 = st.columns([3, 2])
        methods = c1.multiselect("Methods", list(cached.ALL_METHODS), default=list(cached.DEFAULT_METHODS), key="cmp_methods",
                                 help="Table releases (synthetic, perturbed, microaggregated, the raw table as the "
                                      "no-protection reference) and model releases (CDP-LR and ordinary logistic "
                                      "regression).")
        sensitive = choose_sensitive(c2, "Sensitive attributes (attacked)", options, dataset, key="cmp_sensitive",
                                     multiple=True, help="Each is the target of an attribute-inference attack; "
                                                         "the first is the one IMPOSTER, kRR and SSKM_DP protect.")
        # the choices that run long ("Every row (48,842)", "1,000 (intervals about 1.7x wider)",
        # "500 (ceiling 4.6)") get half the row each, so a selectbox shows its whole value
        s1, s2, s4 = st.columns([3, 1, 1])
        s3, s5 = st.columns(2)
        eps_text = s1.multiselect("epsilon grid", list(cached.EPSILON_CHOICES), default=["0.5", "1", "2", "5"],
                                  key="cmp_eps", help="Each method that takes a budget gives one point per "
                                                      "epsilon; the others give one point.")
        reps = s2.number_input("Repetitions", 1, 10, 3, key="cmp_reps",
                               help="Releases are random: each point is the mean of this many, with whiskers "
                                    "of one standard deviation.")
        n = len(dataset.frame)
        rows = s3.selectbox("Rows used", cached.row_choices(n), format_func=lambda r: cached.rows_words(r, n),
                            key="cmp_rows", help=cached.ROWS_HELP)
        epochs = s4.number_input("IMPOSTER epochs", 1, 200, 15, key="cmp_epochs",
                                 help="Training epochs of IMPOSTER and the plain VAE-GAN.")
        if state.get("cmp_audit_runs", cached.DEFAULT_AUDIT_RUNS) not in cached.AUDIT_CHOICES:  # a link's other number
            state.pop("cmp_audit_runs")
        audit_runs = s5.selectbox("Audit runs", list(cached.AUDIT_CHOICES),
                                  index=cached.AUDIT_CHOICES.index(cached.DEFAULT_AUDIT_RUNS),
                                  format_func=cached.audit_choice, key="cmp_audit_runs", help=cached.audit_help(),
                                  on_change=lambda: state.__setitem__(AUDITS_ASKED_KEY, True))
        slow = cached.slow_methods_note(tuple(methods), epsilons=len(eps_text), repetitions=int(reps))
        if slow and eps_text and not is_presenting():  # presenting: the folded settings (controls only) hide
            st.warning(slow, icon=":material/hourglass_top:")
    stop_until_chosen(sensitive, dataset, "Choose at least one sensitive attribute in the settings above: "
                      "{marked}the comparison attacks what you mark as sensitive.")
    if not methods:
        st.info("Tick at least one method to compare in the settings above.", icon=":material/touch_app:")
        st.stop()
    if not eps_text:
        st.info("Choose at least one epsilon in the settings above.", icon=":material/touch_app:")
        st.stop()
    return dict(methods=tuple(methods), sensitive=tuple(sensitive), epsilons=tuple(float(e) for e in eps_text),
                repetitions=int(reps), max_rows=cached.max_rows_of(rows), epochs=int(epochs),
                audit_runs=_audit_runs(int(audit_runs)))


def _audit_runs(chosen: int) -> int:
    """The audit's runs per side: none while presenting unless the user chose them (the
    frontier first; said under it), else ``chosen``."""
    state = st.session_state
    state[AUDITS_OFF_KEY] = is_presenting() and not state.get(AUDITS_ASKED_KEY)
    return 0 if state[AUDITS_OFF_KEY] else chosen


def frontier(result) -> tuple[str, str]:
    """The frontier, the utility and risk selectors under it (chart first: the frontier starts
    in the first screen) and its takeaway; returns the chosen (utility, risk)."""
    summary = result.summary()
    chart = st.container()  # drawn once its axes are chosen below it
    r0, r1 = st.columns(2)
    utility = r0.selectbox("Utility on the y axis", cached.utility_choices(result), format_func=cached.UTILITIES.get,
                           key="cmp_utility", help="ROC AUC (the default for a two-class label) says how well a "
                           "model trained on the release ranks the held-out records; accuracy hides that when one "
                           "class is common; balanced accuracy weighs every class alike.")
    risk = r1.selectbox("Risk on the x axis", list(cached.RISKS), format_func=cached.RISKS.get, key="cmp_risk",
                        help="Moving it redraws the frontier from the same releases; nothing is recomputed.")
    st.caption(MEASURE_WORDS[risk] + ". " + RISK_WORDS[risk])
    front = result.pareto_front(utility=utility, risk=risk)
    with chart:
        show_chart(frontier_chart(summary, front, utility=utility, risk=risk,
                                  title=f"{cached.UTILITIES[utility]} against {cached.RISKS[risk].lower()}",
                                  references=result.references),
                   summary, name="compare-frontier", key="cmp_frontier", width="stretch")
    st.info(md(result.takeaway(utility=utility, risk=risk)), icon=":material/lightbulb:")
    no_power = cached.power_note(result, risk)
    if no_power:
        st.warning(md(no_power), icon=":material/search_off:")
    for text in cached.violations(result):
        st.error(md(text), icon=":material/gpp_bad:")
    st.caption("Filled markers are differentially private releases, crosses are not; a large red circled cross "
               "marks a DP point whose privacy audit found a lower bound above its claim (a violation); numbers "
               "beside a line's points are its epsilons; whiskers are one standard deviation over repetitions; the "
               "dashed step is the Pareto front (no point is both more useful and less risky). Reference lines: "
               "the dashed grey line is the majority class (the constant guess), the dotted one the non-private "
               "model (on ROC AUC the guess is 0.5, on balanced accuracy 1/K); " + md(INTERVAL_WORDS)
               + " The vertical lines are the raw table (no protection) and the control (no more risk than "
               "without the release).")
    audits = cached.audit_caption(result)
    if audits:
        st.caption(md(audits))
    if st.session_state.get(AUDITS_OFF_KEY):
        st.caption(AUDITS_OFF)
    below = cached.below_guess(result, utility)
    if below:
        st.caption("No better than the constant guess: " + " ".join(md(t) for t in below))
    for name, reason in result.skipped.items():
        st.caption(f"{md(name)} did not run: {md(reason)}")
    return utility, risk


def partial_frontier(partial) -> None:
    """The frontier of the methods measured so far (a
    :class:`core.compare.progressive.PartialComparison`), on the axes chosen last, and their
    table (folded), while the rest runs; the takeaway waits until every method is in."""
    result = partial.result
    if result.runs.empty:
        return
    state = st.session_state
    utilities = cached.utility_choices(result)
    utility = state.get("cmp_utility") if state.get("cmp_utility") in utilities else utilities[0]
    risk = state.get("cmp_risk") if state.get("cmp_risk") in cached.RISKS else next(iter(cached.RISKS))
    summary = result.summary()
    show_chart(frontier_chart(summary, result.pareto_front(utility=utility, risk=risk), utility=utility, risk=risk,
                              title=f"{cached.UTILITIES[utility]} against {cached.RISKS[risk].lower()} (so far)",
                              references=result.references),
               summary, name="compare-frontier-so-far", key="cmp_frontier_partial", width="stretch")
    st.caption(md(partial.words()) + (" " + AUDITS_OFF if state.get(AUDITS_OFF_KEY) else ""))
    with st.expander("Every measure so far", icon=":material/table_rows:"):  # the table fills in too
        st.dataframe(cached.table_view(result), hide_index=True, width="stretch", key="cmp_table_partial")


def every_measure(result) -> None:
    """Every measure, the references, and what each method releases and guarantees."""
    st.subheader("Every measure")
    st.caption(md(cached.PRIVATE_MEASURES_NOTE) + " The epsilon setting is what each release was asked for; "
               "the guarantee column says what it delivers: a release marked " + cached.NOT_DP_BADGE
               + " has no guarantee, whatever epsilon it names. For each DP point, the audited lower bound is "
               "the epsilon a test on neighbouring datasets proved the release has at least, and the ceiling the "
               "most its runs could prove.")
    st.dataframe(cached.table_view(result), hide_index=True, width="stretch")

    st.subheader("References")
    st.caption("Every number beside what it is measured against: the utility beside the constant guess and the "
               "non-private model; each risk beside the raw table and its control, with 95% intervals. An "
               "attack that does not separate the raw table from its control has no power on this table, and "
               "nothing is recommended from it.")
    st.dataframe(cached.reference_rows(result), hide_index=True, width="stretch")
    methods_table = cached.method_rows(result)
    not_dp = methods_table[methods_table["DP"] == cached.NOT_DP_BADGE]
    with st.expander("What each method releases and guarantees", expanded=False):
        for _, row in methods_table.iterrows():
            text = f"**{md(row['method'])}**: {md(row['guarantee'])}"
            if row["DP"] == cached.NOT_DP_BADGE:
                st.warning(text, icon=":material/lock_open:")
            else:
                st.success(text, icon=":material/lock:")
            caveat = row["not covered or taken as public"]
            if caveat:
                st.caption("Not covered or taken as public: " + md(caveat))
        st.dataframe(methods_table, hide_index=True, width="stretch")
    if len(not_dp):
        st.caption(f"{len(not_dp)} of {len(methods_table)} methods are not differentially private: "
                   + ", ".join(md(m) for m in not_dp["method"]) + ". Open the box above for each reason.")
    marginal = cached.marginal_tables(result)
    if marginal:
        with st.expander(f"What {' and '.join(marginal)} measured: the workload and the bins", expanded=False):
            st.caption("Chosen from the public schema, the number of records and epsilon alone, never from the rows.")
            for name, (workload, _) in marginal.items():
                st.markdown(f"**{md(name)}**: the marginals it measures")
                st.dataframe(workload, hide_index=True, width="stretch")
            st.markdown("**Each column's cells**")
            st.dataframe(next(iter(marginal.values()))[1], hide_index=True, width="stretch")


def run_config(result, dataset: Dataset, risk: str, utility: str = "utility"):
    """The settings that rerun ``result`` from the command line (``dataset`` is the page's table:
    an upload is named ``csv:<its name>``, a sample or a public dataset by its name)."""
    public = dataset.name in ("adult", "nltcs") and not is_builtin_sample(dataset)
    return cached.run_config(result, upload_name=None if is_builtin_sample(dataset) or public else dataset.name,
                             risk=risk, utility=utility)


def take_it_away(result, dataset: Dataset, data: Dataset, risk: str, utility: str = "utility") -> None:
    """The report, the settings file and the CSVs."""
    st.subheader("Take it away")
    config = run_config(result, dataset, risk, utility)
    d1, d2, d3, d4 = st.columns(4)
    # on_click="ignore": a click that also reran the page revoked the file it was fetching
    # (a rerun drops the previous run's deferred downloads), so the download sometimes never came
    d1.download_button("Report (HTML)", lambda: cached.report_html(result, config, data), file_name="comparison.html",
                       mime="text/html", icon=":material/description:", key="cmp_report", on_click="ignore",
                       help="One self-contained page (opens offline): the frontier, every measure, each method's "
                            "guarantee, the dataset's fingerprint, every parameter and seed, package versions.")
    d2.download_button("Settings (run.json)", config.to_json(), file_name="run.json", mime="application/json",
                       icon=":material/settings:", key="cmp_config", on_click="ignore",
                       help="Rerun the same comparison from the command line: pux compare --config run.json "
                            "--out report.html" + (" --csv YOUR_FILE.csv" if config.dataset.startswith("csv:") else "")
                            + ". Same seed, same numbers.")
    d3.download_button("Frontier data (CSV)", lambda: cached.summary_csv(result), file_name="comparison-summary.csv",
                       mime="text/csv", icon=":material/table:", key="cmp_summary_csv", on_click="ignore")
    d4.download_button("Every run (CSV)", lambda: cached.runs_csv(result), file_name="comparison-runs.csv",
                       mime="text/csv", icon=":material/table_rows:", key="cmp_runs_csv", on_click="ignore")
    st.caption("These are measurements of releases made here for comparison, not releases: no protected table "
               "leaves the app from this page. The report and the settings name the seed, so anyone can rerun them.")
    with st.expander("Download bundle: the report, settings and result with a script and notebook that rerun them",
                     icon=":material/folder_zip:"):
        bundle_download("cmp", config=config, dataset=data, releases_table=False, extra=lambda: {
            "numbers": result.to_dict(), "report_html": cached.report_html(result, config, data).decode("utf-8"),
            "numbers_seconds": float(sum(result.seconds.values()))})
