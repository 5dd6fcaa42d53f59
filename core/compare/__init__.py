"""Compare every method on one dataset: the same releases, attacks and utility measures.

:func:`~core.compare.run.compare` splits a table once into a **training part** (what every
method releases from) and a **holdout** of real records (never released: the test set of
every utility measure and of every attacker, and the baseline of the distance to closest
record). Each method of :data:`~core.compare.registry.METHODS` produces releases from the
training part, and every release is measured the same way:

- **Utility.** Tables: train-on-release / test-on-holdout accuracy of the label with one
  fixed classifier (:data:`~core.compare.measures.UTILITY_CLASSIFIER`, the "hgb" of
  :func:`core.evaluation.tasks.score_task`: gradient-boosted trees with native
  categorical splits); models: their accuracy on the holdout.
  Fidelity of tables: total variation of the one- and two-way marginals against the
  training part (:func:`core.imposter.evaluation.marginal_tv`), and the MSE of each record
  against its released row where rows align with the training rows (raw table, kRR, MDAV,
  MDAV_DP, the paper's SSKM_DP; NaN otherwise), on attributes min-max scaled by the
  training part (categoricals as sorted codes, as SSKM_DP encodes them).
- **Empirical risk.** Tables: attribute inference of each sensitive attribute (an attacker
  trained on the release, tested on the holdout; the advantage is its accuracy above the
  majority share, ``ai_advantage_<s>``, negative when the release misleads the attacker;
  ``ai_advantage``, the frontier's risk, is the largest over the sensitive attributes and
  at least 0: an attacker that does worse than guessing learns nothing more than guessing)
  and the distance to closest record (``dcr_risk``: the share of training records whose
  nearest released row is closer than their nearest holdout record; ``dcr_excess`` its
  excess over the baseline, at least 0: a release farther from the training records than
  fresh real data copies none of them; measured on every training record unless the
  ``dcr_records`` option caps it (:data:`~core.compare.context.DCR_RECORDS`), exactly or by an
  index whose recall is reported),
  both from :mod:`core.evaluation.attacks`. Models: a loss-threshold membership-inference
  attack (members: the training rows; non-members: the holdout rows), its AUC and
  advantage. Measures that do not apply to a kind of release are NaN.
- **References.** Every number beside what it is read against
  (:func:`core.compare.references.references`, once per comparison,
  :attr:`ComparisonResult.references`): the constant guess and the non-private model for the
  utility, the raw table and its control for each risk, with Wilson intervals. When the raw
  table's interval does not lie above its control's, the attack **has no power on this
  table** (:data:`~core.compare.result.NO_POWER`): :meth:`ComparisonResult.takeaway` then
  recommends nothing from that risk and says why.
- **Formal privacy.** The release's ledger: ``ledger_epsilon`` and ``ledger_delta`` (its
  :meth:`~core.privacy.ledger.PrivacyLedger.total`: infinite for a release that is not DP),
  the ``nominal_epsilon`` it names, ``is_dp``, the ``guarantee`` sentence
  (:meth:`~core.privacy.ledger.PrivacyLedger.describe`: "Not differentially private ...:
  <reason>" for a release that is not DP) and its ``caveats`` (what the guarantee takes as
  public or does not cover).

Every measure above is **evaluated on your private data** (the training part and the
holdout): the measures are shown, never released.

**The public schema** (:class:`core.privacy.schema.PublicSchema`, default
:func:`core.privacy.schema_builtin.schema_for` of the dataset) is the only source of
category lists, bounds and encoders (docs/design.md section 2.1): the tables of IDP-KMeans,
SSKM_DP, MDAV and MDAV_DP are :class:`core.sskm.scaled_table.ScaledTable` of the schema, kRR's
domain and bins come from it, and CDP-LR's features are the CDP-LR page's DP reading
(:class:`~core.compare.context.SchemaEncoder`: one-hot codes over each declared category
list plus OTHER, numbers scaled by their declared bounds) trained as that page trains it
(its noise method :data:`~core.compare.methods.CDP_LR_NOISE_METHOD` and preset
:data:`~core.compare.methods.CDP_LR_PRESET`; the ``reading`` column says so). Identifier
columns (the schema's and the dataset's) are dropped before the split: no release, attack or
reference sees them. CDP-LR's sensitivity is the schema's public correlated-group bound
(:func:`core.cdp.dp_reading.group_bound`: 1, ordinary DP for one record, when none is
declared or when it was read from the data). Every release's ledger is charged with the
schema entries it used (:meth:`~core.privacy.schema.PublicSchema.charge`): an entry "read
from data" makes the release not differentially private, with the reason.

The modules, in the order a run uses them: :mod:`~core.compare.context` (the seeds, the
split and the run context), :mod:`~core.compare.methods` (each method's fit and release),
:mod:`~core.compare.registry` (one record per method), :mod:`~core.compare.measures` (one
record per measure, and measuring a release), :mod:`~core.compare.references`,
:mod:`~core.compare.result` (the result, its summary, front and takeaway),
:mod:`~core.compare.run` (:func:`~core.compare.run.compare`) and
:mod:`~core.compare.config` (the settings of one comparison as a file).
"""
from core.compare.config import (
    CompareConfig,
    compare_dataset,
    config_from_result,
    load_dataset,
    run_config,
)
from core.compare.context import DCR_RECORDS, SchemaEncoder
from core.compare.measures import LOW_RISK, MEASURES, UTILITY_CLASSIFIER, Measure
from core.compare.methods import (
    CDP_LR_NOISE_METHOD,
    CDP_LR_PRESET,
    MAX_CLUSTERS,
    MICRO_K,
    Release,
)
from core.compare.registry import DEFAULT_METHODS, METHODS, Method
from core.compare.result import (
    NO_POWER,
    NOT_DP_BADGE,
    PRIVATE_MEASURES_NOTE,
    ComparisonResult,
    pareto_front,
    privacy_label,
    summarize_runs,
    takeaway,
)
from core.compare.run import compare

__all__ = [
    "compare", "METHODS", "DEFAULT_METHODS", "Method", "Release", "MEASURES", "Measure", "LOW_RISK",
    "ComparisonResult", "summarize_runs", "pareto_front", "takeaway", "privacy_label",
    "NO_POWER", "NOT_DP_BADGE", "PRIVATE_MEASURES_NOTE", "SchemaEncoder",
    "UTILITY_CLASSIFIER", "DCR_RECORDS", "MICRO_K", "MAX_CLUSTERS", "CDP_LR_NOISE_METHOD", "CDP_LR_PRESET",
    "CompareConfig", "compare_dataset", "config_from_result", "load_dataset", "run_config",
]
