"""Differential privacy itself: exact noise, mechanisms, the ledger, public schemas, releases.

Where things live (each module holds one thing):

* noise -- :mod:`~core.privacy.sampler` (noise on a grid: :func:`laplace_on_grid`,
  :func:`gaussian_on_grid`, :class:`GridNoise`), built on :mod:`~core.privacy.discrete_noise`
  (exact :func:`bernoulli_exp`, :func:`discrete_laplace`, :func:`discrete_gaussian`),
  :mod:`~core.privacy.exact_thresholds` and :mod:`~core.privacy.threshold_tables` (the
  integer arithmetic and its cached tables); :mod:`~core.privacy.sampler_reference` keeps
  the textbook algorithms the tests compare with;
* mechanisms -- :mod:`~core.privacy.mechanisms` (Laplace, Gaussian, kRR) and
  :mod:`~core.privacy.accounting` (privacy-loss-distribution accounting);
* the ledger -- :mod:`~core.privacy.ledger` (:class:`PrivacyLedger`, what a release spent
  and whether it is a guarantee, under :data:`NEIGHBOURING_RELATION`);
* public schemas -- :mod:`~core.privacy.schema` (:class:`PublicSchema`), one column's entry
  (:mod:`~core.privacy.schema_columns`), JSON (:mod:`~core.privacy.schema_io`), the editable
  table (:mod:`~core.privacy.schema_table`), drafts (:mod:`~core.privacy.schema_draft`),
  built-in schemas (:mod:`~core.privacy.schema_builtin`) and private estimates
  (:mod:`~core.privacy.schema_estimate`);
* releases -- :mod:`~core.privacy.noise_source` (:class:`NoiseSource`, the randomness of
  a release), :mod:`~core.privacy.release` (the labelled files and the zip),
  :mod:`~core.privacy.release_formulas` (spreadsheet formula guard) and
  :mod:`~core.privacy.release_read` (reading a release back).
"""
from core.privacy.discrete_noise import bernoulli_exp, discrete_gaussian, discrete_laplace
from core.privacy.ledger import NEIGHBOURING_RELATION, LedgerEntry, PrivacyLedger
from core.privacy.mechanisms import gaussian, gaussian_sigma, krr, laplace, laplace_noise, laplace_scale
from core.privacy.noise_source import NoiseSource
from core.privacy.release import release_files, release_zip
from core.privacy.release_read import read_release
from core.privacy.sampler import GridNoise, gaussian_on_grid, laplace_on_grid
from core.privacy.schema import PublicSchema
from core.privacy.schema_builtin import schema_for
from core.privacy.schema_columns import OTHER, ColumnSchema
from core.privacy.schema_draft import draft_schema
from core.privacy.schema_estimate import estimate_schema

__all__ = [
    "NEIGHBOURING_RELATION",
    "OTHER",
    "ColumnSchema",
    "GridNoise",
    "LedgerEntry",
    "NoiseSource",
    "PrivacyLedger",
    "PublicSchema",
    "bernoulli_exp",
    "discrete_gaussian",
    "discrete_laplace",
    "draft_schema",
    "estimate_schema",
    "gaussian",
    "gaussian_on_grid",
    "gaussian_sigma",
    "krr",
    "laplace",
    "laplace_noise",
    "laplace_on_grid",
    "laplace_scale",
    "read_release",
    "release_files",
    "release_zip",
    "schema_for",
]
