"""Privacy audits: a lower bound on a mechanism's epsilon, measured on neighbouring datasets.

:func:`audit` (:mod:`core.audit.auditor`) runs a mechanism many times on the two datasets of
a :class:`NeighbouringPair` and turns the best threshold test on one statistic into a lower
bound on epsilon (:mod:`core.audit.bounds`), returned as an :class:`AuditResult`
(:mod:`core.audit.result`). The pairs are built by :mod:`core.audit.pairs` (one record
replaced), :mod:`core.audit.pipeline_pairs` (a step before the noise: a new category, a
value out of range, a held-out record) and :mod:`core.audit.hub_pair` (paper 000's
correlated sensitivity); :mod:`core.audit.grid` checks outputs against a declared grid. The
per-mechanism scenarios the tests and the dashboard run are in :mod:`core.audit_cases`, above
the mechanisms; this package imports no mechanism package (cdp, sskm, marginal, ...).
"""
from core.audit.auditor import audit
from core.audit.bounds import audit_ceiling
from core.audit.grid import off_grid_share
from core.audit.hub_pair import hub_record_pair
from core.audit.pairs import NeighbouringPair, extreme_record, flip_value, replace_pair, replace_record
from core.audit.pipeline_pairs import NEW_CATEGORY, held_out_pair, new_category_pair, out_of_range_pair
from core.audit.result import UNBOUNDED_TEXT, AuditResult

__all__ = [
    "AuditResult",
    "NEW_CATEGORY",
    "NeighbouringPair",
    "UNBOUNDED_TEXT",
    "audit",
    "audit_ceiling",
    "extreme_record",
    "flip_value",
    "held_out_pair",
    "hub_record_pair",
    "new_category_pair",
    "off_grid_share",
    "out_of_range_pair",
    "replace_pair",
    "replace_record",
]
