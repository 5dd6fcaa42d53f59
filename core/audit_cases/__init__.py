"""Audit scenarios: each method's mechanism, a near-worst-case neighbouring pair and a statistic.

One scenario per mechanism that claims epsilon, used both by the tests (an audit at a
modest run count finds no violation, and a mutant with too little noise is flagged) and by
the dashboard's "Privacy audit" panels, so the app audits exactly what CI audits.

An :class:`AuditCase` and the functions that run cases are in :mod:`core.audit_cases.case`;
the builders, one module per paper: :mod:`core.audit_cases.cdp` (paper 000: CDP-LR, its
DP-SGD baseline, the count query), :mod:`core.audit_cases.imposter` (paper 002: kRR) and
:mod:`core.audit_cases.sskm` (paper 003: SSKM_DP), and :mod:`core.audit_cases.marginal` for
Compare's OpenDP peers (MST and AIM: their noisy marginal measurement); the pipeline audits of
paper 000 (a hub record, an outlier, a new value) are in :mod:`core.audit_cases.cdp_pairs`. This
package exports the builders; a new builder is added to ``__all__`` here. It sits above the
mechanisms it attacks (cdp, sskm, marginal, privacy) and below Compare and the papers'
stories; the auditor itself (:mod:`core.audit`) imports no mechanism.

A release is more than its noise step: :func:`pipeline_cases` builds one case per step
before the noise that a careless pipeline reads from the rows (a category list, a range, a
held-out part; the pairs of :mod:`core.audit.pipeline_pairs`), :func:`run_cases` runs
several cases and :func:`worst_result` picks the worst, which the audit panel shows.
"""
from core.audit_cases.case import AuditCase, as_cases, pipeline_cases, run_case, run_cases, worst_result
from core.audit_cases.cdp import cdp_lr_case, count_query_case, dpsgd_case
from core.audit_cases.imposter import krr_case
from core.audit_cases.marginal import mst_case
from core.audit_cases.sskm import sskm_paper_case, sskm_sound_case, sskm_sound_pipeline_cases

__all__ = [
    "AuditCase",
    "as_cases",
    "cdp_lr_case",
    "count_query_case",
    "dpsgd_case",
    "krr_case",
    "mst_case",
    "pipeline_cases",
    "run_case",
    "run_cases",
    "worst_result",
    "sskm_paper_case",
    "sskm_sound_case",
    "sskm_sound_pipeline_cases",
]
