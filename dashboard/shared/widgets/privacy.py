"""Privacy widgets every method page shares: the guarantee box, the audit panel, the release.

The wording comes from the ledgers and audit results of core (``describe()``,
``verdict``), never from the pages: a page cannot claim more than its mechanism delivers.
"""
from __future__ import annotations

import math
from typing import Any, Callable, Sequence

import pandas as pd
import streamlit as st

from core.audit_cases import AuditCase
from core.privacy.ledger import NEIGHBOURING_RELATION, PrivacyLedger
from core.audit.result import UNBOUNDED_TEXT
from core.privacy.release import release_file_name, release_zip
from core.privacy.noise_source import NoiseSource
from dashboard.shared.serving import reattach
from dashboard.shared.serving.audit_jobs import start_audit
from dashboard.shared.widgets.audit_chart import audit_data, audit_interval
from dashboard.shared.widgets.chart_data import show_chart
from dashboard.shared.widgets.job_view import live_job
from dashboard.shared.widgets.present import control_hint, is_presenting
from dashboard.shared.safe import md
from dashboard.shared.serving.state import DATASET_KEY, dataset_token, show_error
from dashboard.shared.serving.session_ledger import record_release, released_count, session_total_text

__all__ = ["guarantee_text", "guarantee_box", "audit_panel", "audit_caption", "release_download"]

AUDIT_RUNS = (200, 500, 1000, 2000, 5000)


def guarantee_text(ledger: PrivacyLedger, *, with_delta: bool = True) -> str:
    """Short label: 'epsilon = 1', 'epsilon = 1, delta = 1e-05' (without the delta when
    ``with_delta`` is False) or 'not differentially private'."""
    if not ledger.is_dp:
        return "not differentially private"
    eps, dlt = ledger.total()
    return f"epsilon = {eps:.3g}" + (f", delta = {dlt:.2g}" if dlt and with_delta else "")


def guarantee_line(container: Any, label: str, ledger: PrivacyLedger) -> None:
    """One wrapped line '<label>: epsilon = 1' (green) or '<label>: not differentially private'
    (amber), for a column too narrow for a metric's large type."""
    text = md(f"{label}: {guarantee_text(ledger)}")
    if ledger.is_dp:
        container.success(text, icon=":material/lock:")
    else:
        container.warning(text, icon=":material/lock_open:")


def guarantee_box(ledger: PrivacyLedger, *, reads_raw: Sequence[str] = (), expanded: bool = False) -> None:
    """'About this guarantee': the ledger's sentence, the relation, what is not covered."""
    with st.expander("About this guarantee", expanded=expanded, icon=":material/verified_user:"):
        if ledger.is_dp:
            st.success(md(ledger.describe()), icon=":material/lock:")
        else:
            st.warning(md(ledger.describe()), icon=":material/lock_open:")
        st.caption("Neighbouring relation: " + md(NEIGHBOURING_RELATION))
        items = [*ledger.assumptions, *(r for r in reads_raw if r not in ledger.assumptions)]
        if items:
            st.markdown("**Not covered by the guarantee, or taken as public:**\n"
                        + "\n".join(f"- {md(a)}" for a in items))


def _show_audit_result(job: Any, current_key: Any, key: str) -> None:
    if job.error is not None:
        show_error(job.error)
        return
    res = job.result
    if job.key != current_key:
        st.info("The settings changed since this audit ran"
                + ("." if is_presenting() else "; press **Run the audit** to audit them.")
                + " Below: the last audit.", icon=":material/history:")
    ceiling = res.ceiling if math.isfinite(res.ceiling) else None
    measured = dict(claimed=res.claimed_epsilon, lower=res.epsilon_lower, point=res.epsilon_point,
                    confidence=res.confidence, ceiling=ceiling, runs=res.runs)
    show_chart(audit_interval(**measured), audit_data(**measured), name=f"{key.replace('_', '-')}-privacy-audit",
               key=f"audit_chart_{id(job)}", width="stretch")
    m1, m2, m3, m4 = st.columns(4)
    m1.metric("Claimed epsilon", "none" if math.isinf(res.claimed_epsilon) else f"{res.claimed_epsilon:.3g}")
    m2.metric(f"Audited lower bound ({res.confidence:.0%})", f"{res.epsilon_lower:.3g}",
              f"most these runs can show: {ceiling:.3g}" if ceiling is not None else None,
              delta_color="off", delta_arrow="off")
    unbounded = math.isinf(res.epsilon_point)
    m3.metric("Point estimate", "unbounded (inf)" if unbounded else f"{res.epsilon_point:.3g}",
              help=(UNBOUNDED_TEXT[0].upper() + UNBOUNDED_TEXT[1:] + ".") if unbounded else
              "The same formula as the bound with the plain rates of the evaluation runs (no confidence).")
    m4.metric("Runs per second", f"{res.runs_per_second:,.0f}")
    if unbounded:
        st.caption("Point estimate " + md(UNBOUNDED_TEXT) + f" ({res.runs:,} runs per side).")
    if res.saturated:
        st.warning(md(f"The lower bound reached the ceiling of {res.runs:,} runs per side "
                      f"({res.ceiling:.3g}): the audit saturates, every run was told apart; more runs "
                      "could show more."), icon=":material/trending_up:")
    verdict = md(res.verdict)
    if res.violation:
        st.error(verdict, icon=":material/gpp_bad:")
    elif math.isinf(res.claimed_epsilon):
        st.warning(verdict, icon=":material/lock_open:")
    else:
        st.success(verdict, icon=":material/gpp_good:")
    st.caption("Scenario: " + md(job.case.note))
    results = getattr(job, "results", [])
    if len(results) > 1:
        _show_all_pairs(job.cases, results, res)


def _show_all_pairs(cases: Sequence[AuditCase], results: Sequence[Any], worst: Any) -> None:
    """Every pair the panel ran, the worst marked (plain text cells: nothing rendered)."""
    rows = [{
        "pair": case.pair.description,
        "claimed epsilon": "none" if math.isinf(r.claimed_epsilon) else f"{r.claimed_epsilon:.3g}",
        f"lower bound ({r.confidence:.0%})": f"{r.epsilon_lower:.3g}",
        "ceiling of the runs": f"{r.ceiling:.3g}" if math.isfinite(r.ceiling) else "",
        "verdict": "VIOLATION" if r.violation else ("no claim" if math.isinf(r.claimed_epsilon)
                                                   else "no violation"),
        "shown above": "worst" if r is worst else "",
    } for case, r in zip(cases, results)]
    with st.expander(f"All {len(results)} pairs audited (the worst is shown above)",
                     icon=":material/list:"):
        st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")


def audit_caption(runs: int) -> str:
    """What the audit panel says it does, with the ceiling of ``runs`` runs per side (the
    runs its control holds: the text follows the control, never a fixed count)."""
    from core.audit.bounds import audit_ceiling

    return (
        "Runs the mechanism many times on two neighbouring datasets (one record, or a group of "
        "correlated records, changed) and measures a 95% lower bound on its epsilon (Jagielski et "
        "al. 2020, Nasr et al. 2021). The pairs move the steps before the noise too (a new "
        "category, a value far out of range, a record in a held-out part) and the worst is shown. "
        "A bound above the claim proves the claim false; a bound below it proves nothing, audits "
        "only find violations, and no audit can show more than the ceiling of its runs "
        f"({audit_ceiling(int(runs)):.2g} with {int(runs):,} runs per side)."
    )


def audit_panel(key: str, make_case: Callable[[], AuditCase | Sequence[AuditCase]], *, case_key: Any, seed: int,
                default_runs: int = 1000, title: str = "Privacy audit") -> None:
    """Run the page's mechanism on neighbouring datasets and bound its epsilon from below.

    A page may give several cases for one release (its pipeline pairs, e.g. from
    :func:`core.audit_cases.pipeline_cases`: a new category, a value far out of range, a
    hub record, a held-out record, beside the noise step's own pair); the panel runs each
    and shows the worst, with the ceiling of its runs, and lists the others.

    Parameters
    ----------
    key : str
        Prefix of the widget and session-state keys (one panel per page).
    make_case : callable
        Builds the page's :class:`~core.audit_cases.AuditCase`, or a list of them, for the
        current settings.
    case_key : hashable
        The settings the case depends on (a changed key marks a shown result as stale).
    seed : int
        Seeds the audit's runs (the audit is reproducible; it releases nothing).
    title : str
        The panel's heading (a page with two audited mechanisms names each).
    """
    st.subheader(title)
    intro = st.container()  # above the control, written once its value is known
    c1, c2 = st.columns([3, 1], vertical_alignment="bottom")
    runs = c1.select_slider("Runs per side", AUDIT_RUNS, value=default_runs, key=f"{key}_audit_runs",
                            help="More runs give a tighter bound and take longer.")
    intro.caption(audit_caption(int(runs)))
    state_key = _for_dataset(f"{key}_audit_job")
    job = st.session_state.get(state_key)
    if job is None and (job := reattach.claim(("audit", state_key))) is not None:
        st.session_state[state_key] = job  # a reload of this browser: the audit its tab left running
    current = (case_key, int(runs))
    if c2.button("Run the audit", key=f"{key}_audit_run", type="primary"):
        if job is not None and job.running:
            job.stop()
        try:
            case = make_case()
        except (ValueError, TypeError) as exc:
            show_error(exc)
            return
        job = start_audit(case, runs=int(runs), seed=seed, key=current)
        st.session_state[state_key] = job
        reattach.keep(("audit", state_key), job)
    if job is None:
        control_hint("Press **Run the audit**: it takes a few seconds to a minute with the default runs.")
        return
    if job.running:
        def _progress() -> None:
            fraction, message = job.progress()
            st.progress(min(max(fraction, 0.0), 1.0), text=f"Auditing: {md(message)}")

        live_job(job, stop_key=f"{key}_audit_stop", draw_progress=_progress, every=0.5)
        return
    _show_audit_result(job, current, key)


def _for_dataset(name: str) -> str:
    """``name`` kept per chosen dataset (its fingerprint): after a switch, the audit and the
    prepared release of the dataset before are never shown (switching back finds them)."""
    return f"{name}@{dataset_token()}"


def _chosen_table(frame: pd.DataFrame) -> tuple[str | None, Any]:
    """The chosen dataset's name and public schema when the release's columns are its columns
    (a page that falls back to a sample releases other columns: then neither)."""
    from core.data import Dataset
    from dashboard.shared.serving.schemas import current_schema

    chosen = st.session_state.get(DATASET_KEY)
    if not isinstance(chosen, Dataset) or not set(map(str, frame.columns)) <= set(map(str, chosen.frame.columns)):
        return None, None
    try:
        return chosen.name, current_schema(chosen)
    except (ValueError, TypeError):
        return chosen.name, None


def release_download(key: str, *, method: str, label: str, file_name: str, seed: int,
                     settings_key: Any,
                     make_release: Callable[[NoiseSource], tuple[pd.DataFrame, PrivacyLedger]],
                     dataset: str | None = None, schema: Any = None) -> None:
    """Prepare a release with fresh noise, add it to the session ledger, offer the files.

    The download is one zip (:func:`core.privacy.release.release_zip`): the table as a plain CSV
    whose name carries the guarantee (``...-dp-eps1.csv``, ``...-not-dp.csv``), its JSON
    sidecar (method, guarantee, public schema, noise source, session total) and a README.

    Parameters
    ----------
    key : str
        Prefix of the widget and session-state keys.
    method : str
        What produced the release, for the sidecar and the README.
    label : str
        Short name in the session ledger ("SSKM_DP at epsilon 1").
    file_name : str
        The page's name for the table ("sskm_dp_release.csv"); the guarantee, the release
        number and the dataset are added (:func:`core.privacy.release.release_file_name`).
    seed : int
        The sidebar seed, used only when the user ticks "reproducible (not private)".
    settings_key : hashable
        The settings the release depends on (a prepared file for other settings is marked).
    make_release : callable(NoiseSource) -> (DataFrame, PrivacyLedger)
        Draws the release from the given noise source.
    dataset : str, optional
        The dataset's name for the file name (default: the chosen dataset's, when the
        release's columns are its columns).
    schema : PublicSchema, optional
        The public schema the release was built from, for the sidecar (default: the chosen
        dataset's reviewed schema, as for ``dataset``).
    """
    c1, c2 = st.columns([2, 3], vertical_alignment="center")
    reproducible = c2.checkbox(
        "Reproducible (not private)", key=f"{key}_reproducible",
        help="Draw the noise from the sidebar seed so the same file comes out again. Anyone who "
        "knows the seed can regenerate and remove the noise: the file name, its sidecar and this "
        "page say NOT PRIVATE.")
    prepared_key = _for_dataset(f"{key}_prepared")
    if c1.button("Prepare a release for download", key=f"{key}_prepare",
                 help="Draws new noise from fresh operating-system entropy (unless reproducible) "
                 "and adds this release to the session's privacy ledger."):
        noise = NoiseSource(seed if reproducible else None)
        try:
            st.session_state[prepared_key] = _prepare(noise, method=method, label=label, file_name=file_name,
                                                      settings_key=settings_key, make_release=make_release,
                                                      dataset=dataset, schema=schema)
        except (ValueError, TypeError) as exc:
            show_error(exc)
            return
    prepared = st.session_state.get(prepared_key)
    if not prepared:
        st.caption("Nothing prepared yet. Each prepared release draws new noise and counts toward "
                   "the session's total budget.")
        return
    _offer(prepared, key=key, settings_key=settings_key)


def _prepare(noise: NoiseSource, *, method: str, label: str, file_name: str, settings_key: Any,
             make_release: Callable[[NoiseSource], tuple[pd.DataFrame, PrivacyLedger]],
             dataset: str | None, schema: Any) -> dict[str, Any]:
    """Draw the release, add it to the session ledger and zip it with its sidecar and README."""
    frame, ledger = make_release(noise)
    chosen_name, chosen_schema = _chosen_table(frame)
    number = released_count() + 1
    # the guarantee is in the file name too (core.privacy.release.release_file_name)
    csv_name = release_file_name(file_name, ledger=ledger, noise=noise, number=number,
                                 dataset=dataset if dataset is not None else chosen_name)
    session = record_release(ledger, label)
    data = release_zip(frame, file_name=csv_name, method=method, ledger=ledger, noise=noise,
                       session_total=session.total(),
                       schema=schema if schema is not None else chosen_schema)
    return {
        "zip": data, "csv_name": csv_name, "file_name": csv_name[:-4] + ".zip",
        "guarantee": ledger.describe(), "noise": noise.describe(), "private": noise.private,
        "dp": ledger.is_dp, "number": released_count(), "settings": settings_key,
        "label": label,
    }


def _offer(prepared: dict[str, Any], *, key: str, settings_key: Any) -> None:
    """The download of a prepared release, with what it is and whether it is still current."""
    st.download_button(f"Download release {prepared['number']} (CSV) in a zip with its JSON and README",
                       prepared["zip"],
                       file_name=prepared["file_name"], mime="application/zip", key=f"{key}_download")
    if prepared["settings"] != settings_key:
        st.info("This file was prepared for earlier settings; prepare a new release for the current ones.",
                icon=":material/history:")
    if not prepared["private"]:
        st.error("NOT PRIVATE: this release's noise comes from the sidebar seed, so anyone who knows "
                 "the seed can remove it. The file name and its JSON sidecar say so.",
                 icon=":material/lock_open:")
    st.caption(f"Release {prepared['number']} ({md(prepared['label'])}): {md(prepared['guarantee'])} "
               f"{md(prepared['noise'])} {md(session_total_text())} The zip holds "
               f"{md(prepared['csv_name'])} (a plain CSV, header on the first line: pandas, R and "
               "spreadsheets read it as it is; text that a spreadsheet would run as a formula starts "
               "with a quote), its JSON sidecar (method, guarantee, public schema, noise, session "
               "total) and a README.")
