"""Audits that start from the file: neighbouring CSV byte strings through the entry points users take.

The pipeline from the file's bytes to a release is the mechanism (``docs/privacy.md``). This
package sits above :mod:`core.compare`, :mod:`core.decide` and :mod:`core.bundle` (it runs
their entry points), so it adds no package cycle:

* :mod:`~core.file_audit.pairs`: neighbouring files (one data line replaced) of every kind that
  attacks a step before the noise;
* :mod:`~core.file_audit.entries`: each entry point (the Data page with a declared schema,
  ``pux compare``, ``pux solve``, ``pux bundle``) run from the bytes, and what the release
  after it can depend on;
* :mod:`~core.file_audit.exact`: the exact check (same schema, identifiers, columns, n and
  split; the release's tables differ in the changed record only), in ``make test``.

The statistical audits of every DP release on such pairs run from the benchmarks
(``python -m benchmarks --only pipeline_audit``).
"""
from core.file_audit.entries import ENTRY_POINTS, PipelineView, run_entry
from core.file_audit.exact import ExactCheck, changed_rows, exact_check
from core.file_audit.pairs import KINDS, FilePair, file_pair, file_pairs

__all__ = ["ENTRY_POINTS", "PipelineView", "run_entry", "ExactCheck", "changed_rows", "exact_check", "KINDS",
           "FilePair", "file_pair", "file_pairs"]
