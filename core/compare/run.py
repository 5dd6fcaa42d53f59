"""Compare every method on one dataset: the same releases, attacks and utility measures.

:func:`compare` splits a table once into a **training part** (what every method releases
from) and a **holdout** of real records (never released: the test set of every utility
measure and of every attacker, and the baseline of the distance to closest record). Each
method of :data:`METHODS` produces releases from the training part, and every release is
measured the same way:

- **Utility.** Tables: train-on-release / test-on-holdout accuracy of the label with one
  fixed classifier (:data:`UTILITY_CLASSIFIER`, the "hgb" of
  :func:`core.imposter.evaluation.score_task`: gradient-boosted trees with native
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
  fresh real data copies none of them; measured on a seeded sample of
  :data:`DCR_RECORDS` training records, the same for every release), both from
  :mod:`core.evaluation.attacks`. Models: a loss-threshold
  membership-inference attack (members: the training rows; non-members: the holdout
  rows), its AUC and advantage. Measures that do not apply to a kind of release are NaN.
- **References.** Every number beside what it is read against (:func:`_references`, once per
  comparison, :attr:`ComparisonResult.references`): the utility beside the majority share of
  the holdout's label (the constant guess) and the utility classifier trained on the real
  training part (the non-private model); each risk beside the **raw table** (the training
  rows released as they are: no protection) and its **control** (what a release that tells
  nothing about the people in it would give), with Wilson intervals; the MSE beside the raw
  table (0) and a random release. Attribute inference is read twice: ``ai_advantage`` (the
  population: accuracy on the holdout above the constant guess, its control) and
  ``ai_member`` (the people in the release: accuracy on a sample of training records above
  accuracy on the holdout, the control records the release never saw, as Anonymeter's
  inference evaluator does; github.com/statice/anonymeter, Giomi et al. 2023). When the raw
  table's interval does not lie above its control's, the attack **has no power on this
  table** (:data:`NO_POWER`): :meth:`ComparisonResult.takeaway` then recommends nothing from
  that risk and says why.
- **Formal privacy.** The release's ledger: ``ledger_epsilon`` and ``ledger_delta`` (its
  :meth:`~core.privacy.mechanisms.PrivacyLedger.total`: infinite for a release that is not DP),
  the ``nominal_epsilon`` it names, ``is_dp``, the ``guarantee`` sentence
  (:meth:`~core.privacy.mechanisms.PrivacyLedger.describe`: "Not differentially private ...: <reason>"
  for a release that is not DP) and its ``caveats`` (what the guarantee takes as public or
  does not cover).

Every measure above is **evaluated on your private data** (the training part and the
holdout): the measures are shown, never released.

**The public schema** (:class:`core.privacy.schema.PublicSchema`, default
:func:`core.privacy.schema.schema_for` of the dataset) is the only source of category lists,
bounds and encoders (docs/design.md section 2.1): the tables of IDP-KMeans, SSKM_DP, MDAV
and MDAV_DP are :class:`core.sskm.publisher.ScaledTable` of the schema, kRR's domain and
bins come from it, and CDP-LR's features are the CDP-LR page's DP reading
(:class:`SchemaEncoder`: one-hot codes over each declared category list plus OTHER,
numbers scaled by their declared bounds) trained as that page trains it (its noise method
:data:`CDP_LR_NOISE_METHOD` and preset :data:`CDP_LR_PRESET`; the ``reading`` column says so).
Identifier columns (the schema's and the dataset's) are dropped before the split: no release,
attack or reference sees them. CDP-LR's sensitivity is the schema's public correlated-group
bound (:func:`core.cdp.dp_reading.group_bound`: 1, ordinary DP for one record, when none is
declared or when it was read from the data).
Every release's ledger is charged with the schema entries it used
(:meth:`~core.privacy.schema.PublicSchema.charge`): an entry "read from data" makes the
release not differentially private, with the reason.

Seeds (docs/design.md section 1): one int seed (``random_state`` or, for a Generator or
None, one seed drawn from it) gives three draws in a fixed order (the row sample, the
split, a base seed); every other seed is derived from the base seed by
:func:`core.runtime.randomness.display_seed` with what it depends on as keys: the method (its
``seed_key``) and repetition, then "fit" or the release's epsilon, and the measurement
seed of a repetition (the same for every method: common random numbers). So adding or
removing a method, an epsilon or a repetition never changes another release's numbers, and
the same seed gives the same runs bit for bit on one machine. IMPOSTER and the plain
VAE-GAN share their seeds: they differ only by lambda.

Work that does not depend on epsilon happens once per (method, repetition) and is reused
across the epsilon grid: the IMPOSTER / VAE-GAN training, the SSKM_DP map, the MDAV groups
(deterministic: once per comparison). The implicit attributes of the first sensitive
attribute (for IMPOSTER, the VAE-GAN and kRR) are detected once per comparison on the
training part, with the label excluded.
"""
from __future__ import annotations

import math
import numbers
import time
from functools import partial
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Mapping, Sequence

import numpy as np
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split

from core.evaluation import attacks

from core.runtime import compute
from core.cdp.dp_reading import charge_reading, group_bound, reading_columns, schema_labels, schema_matrix
from core.cdp.logistic import CDPLogisticRegression
from core.data import Dataset
from core.privacy.schema import OTHER, PublicSchema, schema_for
from core.imposter.detection import DetectionResult, detect_implicit
from core.imposter.evaluation import marginal_tv, score_task
from core.imposter.krr_baseline import krr_ledger, krr_perturb
from core.imposter.synthesizer import ImposterSynthesizer
from core.privacy.mechanisms import PrivacyLedger
from core.evaluation.metrics import below_reference, majority_share, mse, proportion_interval
from core.runtime.progress import Progress, report, stage
from core.sskm.baselines import idp_kmeans, mdav, mdav_dp, mdav_release
from core.sskm.publisher import SSKMDP, ScaledTable
from core.sskm.sweeps import release_copy
from core.validation import DataError, check_epsilon, check_positive_int, check_probability
from core.runtime.randomness import RandomState, check_random_state, display_rng, display_seed, draw_seed

__all__ = [
    "METHODS",
    "Method",
    "Release",
    "ComparisonResult",
    "compare",
    "summarize_runs",
    "pareto_front",
    "takeaway",
    "UTILITY_CLASSIFIER",
    "DCR_RECORDS",
    "MICRO_K",
    "MAX_CLUSTERS",
    "MEASURES",
    "LOW_RISK",
    "DEFAULT_METHODS",
    "SchemaEncoder",
    "PRIVATE_MEASURES_NOTE",
    "NOT_DP_BADGE",
    "privacy_label",
    "CDP_LR_NOISE_METHOD",
    "CDP_LR_PRESET",
    "NO_POWER",
]

#: The one classifier of every utility and attribute-inference measure.
UTILITY_CLASSIFIER = "hgb"
#: Training records whose distance to closest record is measured (a seeded sample, the same
#: for every release of a comparison): the DCR risk's standard error is at most
#: 0.5 / sqrt(10,000) = 0.005, and each release costs one search of 10,000 rows.
DCR_RECORDS = 10_000
#: Group size k of MDAV and MDAV_DP (each group has k..2k-1 records).
MICRO_K = 5
#: Clusters of IDP-KMeans: min(MAX_CLUSTERS, n // MICRO_K), the size of SSKM_DP's 10 x 10 map.
MAX_CLUSTERS = 100
#: Measures of every run (plus ``ai_advantage_<s>`` and ``ai_member_<s>`` per sensitive attribute s).
MEASURES = ("rows_released", "utility", "tv_one_way", "tv_two_way", "mse", "ai_advantage",
            "dcr_risk", "dcr_excess", "mia_auc", "mia_advantage", "ai_member")
#: CDP-LR's settings in the comparison: the CDP-LR page's defaults (its noise method, the
#: paper's Laplace method 1, and its training preset; a test reads the page to check them).
CDP_LR_NOISE_METHOD = 1
CDP_LR_PRESET = "sensible"
#: Said (with the reason) wherever a risk measure's attack cannot tell the raw table from its control.
NO_POWER = "the attack has no power on this table"
#: The low-risk level :meth:`ComparisonResult.takeaway` names by default, per risk: an
#: attacker at most 2 points better than guessing (attribute inference), at most 2 points of
#: copying above an independent release (DCR), a membership AUC at most 0.52.
LOW_RISK = {"ai_advantage": 0.02, "dcr_excess": 0.02, "mia_auc": 0.52, "mia_advantage": 0.02,
            "ai_member": 0.02}
_FORMAL = ("ledger_epsilon", "ledger_delta", "nominal_epsilon", "nominal_delta", "is_dp", "guarantee",
           "caveats", "reading")
#: What a table's DP column says for a release that is not differentially private.
NOT_DP_BADGE = "NOT DP"
#: Said wherever the measures are shown: they read the private rows and are not released.
PRIVATE_MEASURES_NOTE = ("Utility, fidelity, MSE and the attacks are evaluated on your private data (the "
                         "training part and the held-out records), not released: they describe the releases, "
                         "and the guarantee of a release does not cover them.")
_WORDS = {
    "utility": "accuracy", "tv_one_way": "one-way marginal TV", "tv_two_way": "two-way marginal TV",
    "mse": "MSE", "ai_advantage": "attribute-inference advantage", "dcr_risk": "DCR risk",
    "dcr_excess": "DCR risk above the holdout baseline", "mia_auc": "membership-inference AUC",
    "mia_advantage": "membership-inference advantage", "ledger_epsilon": "epsilon",
    "ai_member": "attribute-inference advantage on the people in the release",
}


# ------------------------------------------------------------------------ releases, methods
@dataclass
class Release:
    """One release: a table (rows) or a model, and its ledger.

    ``aligned`` is True when row i of ``table`` is training record i's protected version
    (then the MSE is measured).
    """

    ledger: PrivacyLedger
    table: pd.DataFrame | None = None
    model: Any = None
    aligned: bool = False
    reading: str = ""


@dataclass
class _Context:
    """What every method and measure of one comparison shares (the split, cached steps)."""

    train: Dataset
    holdout: pd.DataFrame
    imposter_epochs: int | None
    base_seed: int
    schema: PublicSchema | None = None
    cache: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.schema is None:
            self.schema = schema_for(self.train)

    def cached(self, key: str, make: Callable[[], Any]) -> Any:
        if key not in self.cache:
            self.cache[key] = make()
        return self.cache[key]

    def detection(self) -> DetectionResult:
        """Implicit attributes of the first sensitive attribute, on the training part."""
        sens = self.train.sensitive[0]
        return self.cached("detection", lambda: detect_implicit(
            self.train.frame, sens, exclude=[self.train.label] if self.train.label else (),
            random_state=display_seed(self.base_seed, "detection")))

    def dcr_reference(self) -> attacks.DCRReference:
        """The training records DCR measures and their distances to the holdout."""
        return self.cached("dcr", lambda: attacks.DCRReference(
            self.train.frame, self.holdout, max_records=DCR_RECORDS,
            random_state=display_seed(self.base_seed, "dcr")))

    def member_targets(self) -> pd.DataFrame:
        """The training records every attribute-inference attack also targets (the people
        in the release): a seeded sample of the holdout's size, the same for every release."""
        def make() -> pd.DataFrame:
            n = min(len(self.train.frame), len(self.holdout))
            rng = display_rng(self.base_seed, "members")
            rows = np.sort(rng.choice(len(self.train.frame), size=n, replace=False))
            return self.train.frame.iloc[rows].reset_index(drop=True)

        return self.cached("members", make)

    def scaled_train(self) -> ScaledTable:
        """The training part scaled by the schema (the MSE measure's units)."""
        return self.cached("scaled", lambda: _schema_table(self.train.frame, self.schema))

    def model_columns(self) -> list[str]:
        """The model's features: the CDP-LR page's DP reading, every schema feature but the
        label (:func:`core.cdp.dp_reading.reading_columns`), among the training part's columns."""
        present = set(self.train.frame.columns)
        return [c for c in reading_columns(self.schema, self.train.label) if c in present]

    def encoder(self) -> "SchemaEncoder":
        """The model matrix's encoder (:func:`_model_encoder`: from the schema, never the rows)."""
        return self.cached("encoder", lambda: _model_encoder(self.schema, self.model_columns(),
                                                             self.train.label, self.train.frame))

    def model_data(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(X_train, y_train, X_holdout, y_holdout): :meth:`encoder`'s matrices of each part
        (record by record), the label as 0 / 1 over the schema's two label categories."""
        return self.cached("model", self._model_data)

    def _model_data(self):
        enc = self.encoder()
        return (enc.transform(self.train.frame), enc.labels(self.train.frame),
                enc.transform(self.holdout), enc.labels(self.holdout))


def _schema_table(frame: pd.DataFrame, schema: PublicSchema) -> ScaledTable:
    """The [0, 1]-scaled table of ``frame`` with bounds and category lists from ``schema`` only."""
    return ScaledTable(frame, schema=schema)


class SchemaEncoder:
    """The model matrix of CDP-LR and the logistic reference: paper 000's DP reading.

    The same encoding as the CDP-LR page's DP reading (:func:`core.cdp.dp_reading.schema_matrix`
    and :func:`~core.cdp.dp_reading.schema_labels`), built from the schema alone: each record
    is encoded on its own (:meth:`PublicSchema.conform`), a number clipped to its declared
    bounds and scaled to [-1, 1] by them, a category one-hot over its declared list plus
    OTHER (a category outside the list is OTHER). The label is 1 for the schema's second
    label category. Nothing is fitted on the rows, so one replaced record changes one row of
    X and nothing else: no category it brings, no value out of range moves the encoding of
    the other records.

    Parameters
    ----------
    schema : PublicSchema
    features : sequence of str
        The feature columns (schema features: not the label, not identifiers).
    label : str
        The label column; its schema entry must be categorical with two categories.
    """

    def __init__(self, schema: PublicSchema, features: Sequence[str], label: str) -> None:
        if not isinstance(schema, PublicSchema):
            raise TypeError(f"schema must be a PublicSchema, got {type(schema).__name__}.")
        spec = schema[label]
        if spec.kind != "categorical" or len(spec.categories) != 2:
            raise DataError(f"CDP-LR is a binary classifier: the schema must declare the label '{label}' "
                            "as categorical with two categories.")
        ids = [c for c in features if schema[c].kind == "identifier"]
        if ids:
            raise DataError(f"'{ids[0]}' is an identifier in the schema and is never a feature.")
        self.schema = schema
        self.features = list(features)
        self.label = label

    def transform(self, frame: pd.DataFrame) -> np.ndarray:
        """The model matrix of ``frame``, record by record."""
        return schema_matrix(frame, self.schema, self.features).X

    @property
    def names(self) -> list[str]:
        """The matrix's column names."""
        empty = pd.DataFrame({c: pd.Series([], dtype=object) for c in self.features})
        return schema_matrix(empty, self.schema, self.features).names

    def labels(self, frame: pd.DataFrame) -> np.ndarray:
        """1 where the label is the schema's second category, else 0."""
        return schema_labels(frame, self.schema, self.label)


def _model_encoder(schema: PublicSchema, features: Sequence[str], label: str,
                   train: pd.DataFrame) -> SchemaEncoder:
    """The model matrix's encoder: from the schema only (``train`` is not read; the argument
    lets a test put back an encoder fitted on the rows, the leak this replaced)."""
    return SchemaEncoder(schema, features, label)


def _like_training(ctx: "_Context", table: pd.DataFrame, *, aligned: bool = False) -> pd.DataFrame:
    """A released table with the training part's column types (post-processing, no cost).

    A column the table holds as numbers but the schema lists as categories (0/1 flags) comes
    back from a schema-coded release as categories, OTHER included; it is turned back into
    numbers, OTHER becoming a missing value, so that every measure reads it as it reads the
    holdout. Rows whose label is OTHER say nothing about a real class: a table whose rows do
    not align with the training records (``aligned`` False) leaves them out."""
    out = table.copy()
    for col in out.columns:
        numeric = col in ctx.train.frame.columns and pd.api.types.is_numeric_dtype(ctx.train.frame[col])
        if numeric and not pd.api.types.is_numeric_dtype(out[col]):
            out[col] = pd.to_numeric(out[col].where(out[col].astype(str) != OTHER), errors="coerce")
    label = ctx.train.label
    if not aligned and label in out.columns:
        unknown = out[label].isna() | (out[label].astype(str) == OTHER)
        if unknown.any():
            out = out[~unknown].reset_index(drop=True)
    return out


def _charge(ctx: "_Context", ledger: PrivacyLedger, columns: Sequence[str]) -> PrivacyLedger:
    """What using the schema's entries of ``columns`` means for ``ledger`` (returned)."""
    return ctx.schema.charge(ledger, [c for c in columns if c in ctx.schema])


@dataclass(frozen=True)
class Method:
    """One method of the comparison.

    Attributes
    ----------
    name : str
    kind : {"table", "model"}
        What it releases: rows (measured by utility, fidelity, attribute inference and
        DCR) or a trained model (accuracy and membership inference).
    takes_epsilon : bool
        One release per epsilon of the grid (True) or one per repetition (False).
    dp : bool
        Whether its release is differentially private under the project's relation (its
        ledger says the same: a test checks it).
    description : str
        One line: what is released and how.
    release : callable(context, fitted, epsilon, seed) -> Release
        One release from the training part (``epsilon`` None when it takes none).
    fit : callable(context, seed, progress) -> object, optional
        The work that does not depend on epsilon, done once per repetition.
    requires : callable(context) -> str or None, optional
        Why the method cannot run on this dataset, or None.
    seed_key : str, optional
        Methods with one key share their seeds (default the name).
    """

    name: str
    kind: str
    takes_epsilon: bool
    dp: bool
    description: str
    release: Callable[..., Release]
    fit: Callable[..., Any] | None = None
    requires: Callable[[_Context], str | None] | None = None
    seed_key: str | None = None


def _not_dp(reason: str) -> PrivacyLedger:
    ledger = PrivacyLedger()
    ledger.mark_not_dp(reason)
    return ledger


# ---- requirements
def _needs_sensitive(ctx: _Context) -> str | None:
    if not ctx.train.sensitive:
        return "it protects a sensitive attribute, and the dataset has none: mark one on the Data page."
    return None


def _needs_implicit(ctx: _Context) -> str | None:
    reason = _needs_sensitive(ctx)
    if reason is None and not ctx.detection().implicit:
        reason = (f"no implicit attributes were detected for '{ctx.train.sensitive[0]}', so kRR "
                  "would publish the training part unchanged.")
    return reason


def _needs_numeric(ctx: _Context) -> str | None:
    if not _micro_columns(ctx):
        return "microaggregation works on numeric columns, and the dataset has none besides the label."
    return None


def _needs_label(ctx: _Context) -> str | None:
    if ctx.train.label is None:
        return "a model release needs a label to predict: choose one on the Data page."
    return None


def _needs_binary_label(ctx: _Context) -> str | None:
    reason = _needs_label(ctx)
    if reason is None:
        spec = ctx.schema[ctx.train.label]
        if spec.kind != "categorical":
            reason = f"CDP-LR is a binary classifier, and the schema declares the label '{spec.name}' numeric."
        elif len(spec.categories) != 2:
            reason = (f"CDP-LR is a binary classifier, and the schema lists {len(spec.categories)} categories "
                      f"for the label '{spec.name}'.")
    return reason


# ---- table releases
def _raw(ctx: _Context, fitted: Any, epsilon: float | None, seed: int) -> Release:
    ledger = _not_dp("The raw training records are published as they are: no protection (the reference).")
    return Release(ledger, table=ctx.train.frame.copy(), aligned=True)


def _generator_fit(lambda_: float) -> Callable[..., ImposterSynthesizer]:
    def fit(ctx: _Context, seed: int, progress: Progress | None) -> ImposterSynthesizer:
        epochs = {} if ctx.imposter_epochs is None else {"epochs": ctx.imposter_epochs}
        syn = ImposterSynthesizer(lambda_=lambda_, random_state=seed, **epochs)

        def callback(event: dict) -> None:
            report(progress, event["iteration"] / max(event["iterations"], 1),
                   f"training, iteration {event['iteration']} of {event['iterations']}")

        return syn.fit(ctx.train, ctx.train.sensitive[0], ctx.detection().implicit, callback=callback)

    return fit


def _generator_sample(ctx: _Context, syn: ImposterSynthesizer, epsilon: float | None, seed: int) -> Release:
    return Release(syn.ledger_, table=syn.sample(ctx.train.n_rows, random_state=seed))


def _krr(ctx: _Context, fitted: Any, epsilon: float | None, seed: int) -> Release:
    columns = ctx.detection().implicit
    table = krr_perturb(ctx.train, columns=columns, epsilon=epsilon, schema=ctx.schema, random_state=seed)
    ledger = krr_ledger(columns, epsilon, table_columns=list(table.columns), schema=ctx.schema)
    ledger.mark_not_dp("The perturbed columns were chosen by implicit-attribute detection on the training "
                       "records themselves.")
    return Release(ledger, table=_like_training(ctx, table, aligned=True), aligned=True)


def _sskm_fit(mode: str) -> Callable[..., SSKMDP]:
    def fit(ctx: _Context, seed: int, progress: Progress | None) -> SSKMDP:
        pub = SSKMDP(mode=mode, sensitive=ctx.train.sensitive, schema=ctx.schema, random_state=seed)
        return pub.fit(ctx.train.frame, progress=progress)

    return fit


def _sskm_release(ctx: _Context, pub: SSKMDP, epsilon: float | None, seed: int) -> Release:
    mine = release_copy(pub, epsilon=epsilon, cs_threshold=pub.cs_threshold, random_state=seed)
    table = _like_training(ctx, mine.table_.decode(mine.published_scaled_), aligned=mine.mode_ == "paper")
    return Release(mine.ledger_, table=table, aligned=mine.mode_ == "paper")


def _micro_columns(ctx: _Context) -> list[str]:
    """The columns MDAV groups: numeric in the schema, not the label."""
    numeric = set(ctx.schema.numeric)
    return [c for c in ctx.train.frame.columns if c in numeric and c != ctx.train.label]


def _mdav_groups(ctx: _Context, seed: int, progress: Progress | None) -> tuple[ScaledTable, np.ndarray]:
    """The numeric columns (min-max scaled) and their MDAV groups: deterministic, once per comparison."""
    def make() -> tuple[ScaledTable, np.ndarray]:
        table = _schema_table(ctx.train.frame[_micro_columns(ctx)], ctx.schema)
        return table, mdav(table.X, MICRO_K)

    return ctx.cached("mdav", make)


def _micro_table(ctx: _Context, table: ScaledTable, published: np.ndarray) -> pd.DataFrame:
    out = ctx.train.frame.copy()
    decoded = table.decode(published)
    for col in table.columns:
        out[col] = decoded[col].to_numpy()
    return out


def _exact_columns_note(ctx: _Context, ledger: PrivacyLedger) -> PrivacyLedger:
    exact = [c for c in ctx.train.frame.columns if c not in set(_micro_columns(ctx))]
    if exact:
        ledger.assume("Only the numeric columns are microaggregated; " + ", ".join(exact)
                      + " are published exactly, as sdcMicro does with non-key variables.")
    return ledger


def _mdav(ctx: _Context, fitted: tuple, epsilon: float | None, seed: int) -> Release:
    table, groups = fitted
    res = mdav_release(table.X, MICRO_K, labels=groups)
    return Release(_exact_columns_note(ctx, table.charge(res.ledger)), table=_micro_table(ctx, table, res.published),
                   aligned=True)


def _mdav_dp(ctx: _Context, fitted: tuple, epsilon: float | None, seed: int) -> Release:
    table, groups = fitted
    res = mdav_dp(table.X, MICRO_K, epsilon, labels=groups, random_state=seed)
    return Release(_exact_columns_note(ctx, table.charge(res.ledger)), table=_micro_table(ctx, table, res.published),
                   aligned=True)


def _idp_fit(ctx: _Context, seed: int, progress: Progress | None) -> ScaledTable:
    """Every column scaled to [0, 1] by the schema's bounds and category lists (categoricals
    as codes over the declared list plus OTHER): nothing read from the rows."""
    return _schema_table(ctx.train.frame, ctx.schema)


def _idp_kmeans(ctx: _Context, table: ScaledTable, epsilon: float | None, seed: int) -> Release:
    clusters = max(1, min(MAX_CLUSTERS, len(table.X) // MICRO_K))
    res = idp_kmeans(table.X, n_clusters=clusters, epsilon=epsilon, random_state=seed)
    return Release(table.charge(res.ledger), table=_like_training(ctx, table.decode(res.published)))


# ---- model releases
def _cdp_lr_reading(ctx: _Context) -> str:
    """Which CDP-LR this is, in words (the Compare table's "reading" column)."""
    bound = group_bound(ctx.schema)
    sens = (f"{bound.value:g} (declared group bound, {bound.source})" if bound.covers_group
            else "1 (one record: no group bound declared)")
    return (f"the CDP-LR page's DP reading: {len(ctx.model_columns())} schema features scaled by their "
            f"declared bounds, sensitivity {sens}, noise method {CDP_LR_NOISE_METHOD}, "
            f"preset '{CDP_LR_PRESET}'")


def _cdp_lr(ctx: _Context, fitted: Any, epsilon: float | None, seed: int) -> Release:
    """Paper 000's DP reading as the CDP-LR page trains it (:func:`core.cdp.dp_reading.dp_reading`):
    features and scaling from the schema (:class:`SchemaEncoder`), the sensitivity from the
    schema's public correlated-group bound (:func:`~core.cdp.dp_reading.group_bound`: 1 when
    none is declared or when it was read from the data), the page's noise method and preset."""
    from core.cdp.logistic import PRESETS

    X, y, _, _ = ctx.model_data()
    bound = group_bound(ctx.schema)
    model = CDPLogisticRegression(epsilon=epsilon, noise_method=CDP_LR_NOISE_METHOD, sensitivity=bound.value,
                                  sensitivity_source=bound.source, random_state=seed,
                                  **PRESETS[CDP_LR_PRESET]).fit(X, y)
    ledger = charge_reading(model.ledger_, ctx.schema, [*ctx.model_columns(), ctx.train.label], bound)
    return Release(ledger, model=model, reading=_cdp_lr_reading(ctx))


def _logistic(ctx: _Context, fitted: Any, epsilon: float | None, seed: int) -> Release:
    X, y, _, _ = ctx.model_data()
    model = LogisticRegression(max_iter=1000).fit(X, y)
    ledger = _not_dp("Ordinary logistic regression is trained on the raw records without noise.")
    return Release(_charge(ctx, ledger, [*ctx.model_columns(), ctx.train.label]), model=model)


def _registry() -> dict[str, Method]:
    items = [
        Method("Raw table", "table", False, False,
               "The training records as they are: the no-protection reference.", _raw),
        Method("IMPOSTER", "table", False, False,
               "IMPOSTER synthetic table (lambda 1): a VAE-GAN whose second discriminator removes what "
               "the implicit attributes say about the first sensitive one; not DP.",
               _generator_sample, fit=_generator_fit(1.0), requires=_needs_sensitive, seed_key="generator"),
        Method("VAE-GAN (lambda 0)", "table", False, False,
               "The same generator without the second discriminator (lambda 0): the ordinary-generator "
               "reference; not DP.",
               _generator_sample, fit=_generator_fit(0.0), requires=_needs_sensitive, seed_key="generator"),
        Method("kRR", "table", True, False,
               "k-ary randomized response on the implicit attributes of the first sensitive attribute "
               "(epsilon per value, local DP, over each column's public domain from the schema); the "
               "columns are chosen on the records and the other columns are exact, so the table is not DP.",
               _krr, requires=_needs_implicit),
        Method("SSKM_DP (sound)", "table", True, True,
               "SSKM_DP sound mode: scaling from the public schema, a map fitted through noisy per-neuron "
               "counts and sums (part of epsilon), noisy counts and sums of every neuron, rows emitted at "
               "the noisy centres; epsilon-DP.",
               _sskm_release, fit=_sskm_fit("sound"), requires=_needs_sensitive),
        Method("SSKM_DP (paper)", "table", True, False,
               "SSKM_DP as published: each record replaced by its cluster centre, Laplace noise on the "
               "protected attributes; not DP (the epsilon is nominal).",
               _sskm_release, fit=_sskm_fit("paper"), requires=_needs_sensitive),
        Method("MDAV", "table", False, False,
               f"MDAV microaggregation (k = {MICRO_K}) of the numeric columns; categorical columns and "
               "the label are kept as they are (sdcMicro's non-key variables); k-anonymity, not DP.",
               _mdav, fit=_mdav_groups, requires=_needs_numeric),
        Method("MDAV_DP", "table", True, False,
               f"MDAV groups (k = {MICRO_K}) of the numeric columns with Laplace noise on each centroid; "
               "categorical columns and the label kept as they are; not DP (the partition reads the "
               "raw records).",
               _mdav_dp, fit=_mdav_groups, requires=_needs_numeric),
        Method("IDP-KMeans", "table", True, True,
               f"DP k-means on every column (bounds and category lists from the public schema, "
               f"categoricals as codes; at most {MAX_CLUSTERS} clusters), released as rows at the noisy "
               "centres; epsilon-DP.",
               _idp_kmeans, fit=_idp_fit),
        Method("CDP-LR", "model", True, True,
               f"CDP-LR as the CDP-LR page trains its DP reading (noise method {CDP_LR_NOISE_METHOD}, preset "
               f"'{CDP_LR_PRESET}'): one-hot features and scaling from the public schema, sensitivity from the "
               "schema's public correlated-group bound (1 when none: ordinary DP for one record, the relation "
               "every other method is held to).",
               _cdp_lr, requires=_needs_binary_label),
        Method("Logistic regression (non-private)", "model", False, False,
               "Ordinary logistic regression on the same features: the model reference, not DP.",
               _logistic, requires=_needs_label),
    ]
    return {m.name: m for m in items}


#: Every method, in the order the comparison runs them.
METHODS: Mapping[str, Method] = _registry()
#: The methods a first comparison runs: every release of a table and both models, without the
#: two teaching variants (the plain VAE-GAN and SSKM_DP's paper mode), which a user can add.
DEFAULT_METHODS: tuple[str, ...] = tuple(m for m in METHODS if m not in ("VAE-GAN (lambda 0)", "SSKM_DP (paper)"))


# ---------------------------------------------------------------------------- measures
def _empty_measures(sensitive: Sequence[str]) -> dict[str, float]:
    out = {m: math.nan for m in MEASURES}
    out.update({f"ai_advantage_{s}": math.nan for s in sensitive})
    out.update({f"ai_member_{s}": math.nan for s in sensitive})
    return out


def _aligned_mse(ctx: _Context, table: pd.DataFrame) -> float:
    scaled = ctx.scaled_train()
    B = scaled.encode(table[scaled.columns])
    if B.shape != scaled.X.shape or not np.all(np.isfinite(B)):
        return math.nan
    return float(mse(scaled.X, B))


def _measure_table(ctx: _Context, rel: Release, seed: int) -> dict[str, float]:
    out = _empty_measures(ctx.train.sensitive)
    table, label = rel.table, ctx.train.label
    out["rows_released"] = float(len(table))
    if len(table) < 2:  # nothing to train on or to compare with
        return out
    if label is not None:
        features = [c for c in table.columns if c != label]
        out["utility"] = score_task(table, ctx.holdout, label, features, classifier=UTILITY_CLASSIFIER,
                                    random_state=seed)["accuracy"]
    tv = marginal_tv(ctx.train.frame, table)
    out["tv_one_way"], out["tv_two_way"] = tv["one_way"], tv["two_way"]
    if rel.aligned:
        out["mse"] = _aligned_mse(ctx, table)
    for s in ctx.train.sensitive:
        ai = attacks.attribute_inference(table, ctx.holdout, target=s, classifier=UTILITY_CLASSIFIER,
                                         random_state=seed, members=ctx.member_targets())
        out[f"ai_advantage_{s}"] = float(ai["advantage"])
        out[f"ai_member_{s}"] = float(ai["member_advantage"])
    if ctx.train.sensitive:  # the frontier's risk: an attacker worse than guessing leaks nothing
        out["ai_advantage"] = max(0.0, *(out[f"ai_advantage_{s}"] for s in ctx.train.sensitive))
        out["ai_member"] = max(0.0, *(out[f"ai_member_{s}"] for s in ctx.train.sensitive))
    dcr = ctx.dcr_reference().measure(table)
    out["dcr_risk"], out["dcr_excess"] = float(dcr["risk"]), max(0.0, float(dcr["excess"]))
    return out


def _measure_model(ctx: _Context, rel: Release, seed: int) -> dict[str, float]:
    out = _empty_measures(ctx.train.sensitive)
    X, y, Xh, yh = ctx.model_data()
    out["utility"] = float(np.mean(rel.model.predict(Xh) == yh))
    mia = attacks.membership_inference_auc(rel.model, X, y, Xh, yh)
    out["mia_auc"], out["mia_advantage"] = float(mia["auc"]), float(mia["advantage"])
    return out


def _formal(ledger: PrivacyLedger, reading: str = "") -> dict[str, Any]:
    eps, dlt = ledger.total()
    nom_eps, nom_dlt = ledger.nominal()
    return {"ledger_epsilon": eps, "ledger_delta": dlt, "nominal_epsilon": nom_eps,
            "nominal_delta": nom_dlt, "is_dp": bool(ledger.is_dp), "guarantee": ledger.describe(),
            "caveats": " ".join(ledger.assumptions), "reading": reading}


# ---------------------------------------------------------------------------- references
#: What each risk's control is, in words (the value a release at no more risk than it would get).
CONTROL_WORDS = {
    "ai_advantage": "the constant guess (always the commonest value: advantage 0)",
    "ai_member": "the same attacker on real records the release never saw (Anonymeter's control)",
    "dcr_excess": "a release of real records the training never saw (an independent sample: excess 0)",
    "mia_auc": "guessing (AUC 0.5)",
}


def _share(value: float, n: int) -> list[float]:
    """The Wilson interval of a share measured on ``n`` records."""
    return list(proportion_interval(value * n, n)) if n > 0 else [math.nan, math.nan]


def _risk_entry(measure: str, raw: float, raw_interval: Sequence[float], control: float,
                control_interval: Sequence[float] | None, power: bool, words: str) -> dict[str, Any]:
    """One risk's references and whether its attack has power, with the sentence that says so."""
    lo, hi = raw_interval
    ctrl = f"{control:.3g}" if control_interval is None else (
        f"{control:.3g} ({control_interval[0]:.3g} to {control_interval[1]:.3g})")
    if power:
        sentence = (f"The attack separates the raw table ({raw:.3g}, 95% interval {lo:.3g} to {hi:.3g}) from "
                    f"its control, {words}: {ctrl}.")
    else:
        sentence = (f"Even the raw table (no protection) gives {raw:.3g} (95% interval {lo:.3g} to {hi:.3g}), "
                    f"not above its control, {words}: {ctrl}.")
    return {"measure": measure, "raw": raw, "raw_interval": [lo, hi], "control": control,
            "control_interval": None if control_interval is None else list(control_interval),
            "control_words": words, "power": bool(power), "sentence": sentence}


def _ai_references(ctx: _Context, seed: int) -> dict[str, dict[str, Any]]:
    """Attribute inference with the raw table as the release, per sensitive attribute and for
    the frontier's largest (the same attacker and seed as every release's measure).

    Two readings. The population advantage (``ai_advantage``): accuracy on the holdout above
    the constant guess; its control is the constant guess, since a release of other real
    records (the raw table is one) teaches the same population facts. The advantage on the
    people in the release (``ai_member``): accuracy on training records above accuracy on
    control records the release never saw (Anonymeter's control, Giomi et al. 2023: the
    inference evaluator of github.com/statice/anonymeter attacks training and control
    targets with one synthetic table and reads the difference). Power: the raw table's
    Wilson interval lies above the control's."""
    out: dict[str, dict[str, Any]] = {}
    pop, mem = [], []
    for s in ctx.train.sensitive:
        ai = attacks.attribute_inference(ctx.train.frame, ctx.holdout, target=s, classifier=UTILITY_CLASSIFIER,
                                         random_state=seed, members=ctx.member_targets())
        n_h, n_m, maj = ai["n_holdout"], ai["n_members"], ai["majority"]
        acc_lo, acc_hi = _share(ai["accuracy"], n_h)
        e = _risk_entry(f"ai_advantage_{s}", ai["advantage"], [acc_lo - maj, acc_hi - maj], 0.0, None,
                        acc_lo > maj, CONTROL_WORDS["ai_advantage"])
        out[e["measure"]] = e
        pop.append(e)
        m_lo, m_hi = _share(ai["accuracy_members"], n_m)
        base = ai["accuracy"]
        e = _risk_entry(f"ai_member_{s}", ai["member_advantage"], [m_lo - base, m_hi - base], 0.0,
                        [acc_lo - base, acc_hi - base], m_lo > acc_hi, CONTROL_WORDS["ai_member"])
        out[e["measure"]] = e
        mem.append(e)
    for name, entries in (("ai_advantage", pop), ("ai_member", mem)):
        if entries:  # the frontier's risk is the largest over the attributes, at least 0
            top = max(entries, key=lambda e: e["raw"])
            strong = [e for e in entries if e["power"]]
            pick = max(strong, key=lambda e: e["raw"]) if strong else top
            entry = dict(pick, measure=name, raw=max(0.0, pick["raw"]))
            if len(entries) > 1:
                entry["sentence"] = (f"Over {len(entries)} sensitive attributes, the strongest: " + pick["sentence"]
                                     if strong else f"For each of the {len(entries)} sensitive attributes: "
                                     + " ".join(e["sentence"] for e in entries))
            out[name] = entry
    return out


def _references(ctx: _Context, seed: int, *, models: bool) -> dict[str, Any]:
    """The numbers every measure is read against (computed once, with repetition 0's
    measurement seed: the raw table's values equal its repetition-0 row).

    ``utility``: the majority share of the holdout's label (the constant guess) and the
    utility classifier trained on the real training part (the non-private model), each with
    its Wilson interval over the holdout. ``risks``: per risk measure the raw table (no
    protection), the control, and whether the attack has power (:func:`_risk_entry`).
    ``mse``: the raw table (0) and a random release (uniform rows in the schema's domain).
    """
    out: dict[str, Any] = {"n_holdout": int(len(ctx.holdout)), "n_members": 0, "utility": None,
                           "risks": {}, "mse": None}
    label = ctx.train.label
    if label is not None and ctx.train.frame[label].notna().any():
        y = ctx.holdout[label].dropna().astype(str)
        n = int(len(y))
        maj = majority_share(y) if n else math.nan
        model = score_task(ctx.train.frame, ctx.holdout, label, [c for c in ctx.train.frame.columns if c != label],
                           classifier=UTILITY_CLASSIFIER, random_state=seed)["accuracy"] if n else math.nan
        out["utility"] = {"majority": maj, "majority_interval": _share(maj, n), "nonprivate": float(model),
                          "nonprivate_interval": _share(model, n), "n": n,
                          "nonprivate_words": f"the utility classifier ({UTILITY_CLASSIFIER}) trained on the real "
                                              "training part"}
    if ctx.train.sensitive:
        try:
            out["risks"].update(_ai_references(ctx, seed))
            out["n_members"] = int(len(ctx.member_targets()))
        except (DataError, ValueError):  # the releases' own measures fail alike and say why
            pass
    try:
        dcr = ctx.dcr_reference().measure(ctx.train.frame)
    except (DataError, ValueError):
        dcr = None
    if dcr is not None:
        n, b = int(dcr["n_measured"]), float(dcr["baseline"])
        lo, hi = _share(float(dcr["risk"]), n)
        out["risks"]["dcr_excess"] = _risk_entry("dcr_excess", float(dcr["excess"]), [lo - b, hi - b], 0.0, None,
                                                 lo > b, CONTROL_WORDS["dcr_excess"])
    if models:
        try:
            X, yb, Xh, yh = ctx.model_data()
            lr = LogisticRegression(max_iter=1000).fit(X, yb)
            mia = attacks.membership_inference_auc(lr, X, yb, Xh, yh)
            n1, n0 = len(yb), len(yh)
            se = math.sqrt((n1 + n0 + 1) / (12.0 * n1 * n0))  # the AUC's spread under no leak (Mann-Whitney)
            auc = float(mia["auc"])
            entry = _risk_entry("mia_auc", auc, [auc - 1.96 * se, auc + 1.96 * se], 0.5,
                                [0.5 - 1.96 * se, 0.5 + 1.96 * se], auc - 1.96 * se > 0.5, CONTROL_WORDS["mia_auc"])
            entry["sentence"] = entry["sentence"].replace("the raw table", "the non-private logistic regression")
            out["risks"]["mia_auc"] = entry
        except (DataError, ValueError):
            pass
    try:
        scaled = ctx.scaled_train()
        rng = display_rng(ctx.base_seed, "random release")
        out["mse"] = {"raw": 0.0, "random": float(mse(scaled.X, rng.uniform(size=scaled.X.shape))),
                      "random_words": "a random release: every attribute drawn uniformly over its public domain"}
    except (DataError, ValueError):
        pass
    return out


# ---------------------------------------------------------------------------- the run
def _check_names(methods: Any) -> list[str]:
    if isinstance(methods, str) or not isinstance(methods, Sequence):
        raise TypeError("methods must be a list of method names, "
                        f"got {type(methods).__name__}.")
    names = list(methods)
    if not names:
        raise ValueError(f"choose at least one method, from {list(METHODS)}.")
    for name in names:
        if not isinstance(name, str):
            raise TypeError(f"each method must be a name, got {type(name).__name__}.")
        if name not in METHODS:
            raise ValueError(f"unknown method {name!r}; choose from {list(METHODS)}.")
    if len(set(names)) != len(names):
        raise ValueError("each method may be listed only once.")
    return [n for n in METHODS if n in set(names)]  # registry order


def _check_epsilons(epsilons: Any) -> list[float]:
    if isinstance(epsilons, (str, bytes)) or not isinstance(epsilons, (Sequence, np.ndarray)):
        raise TypeError(f"epsilons must be a list of numbers, got {type(epsilons).__name__}.")
    values = [check_epsilon(e, name="every epsilon") for e in epsilons]
    if not values:
        raise ValueError("give at least one epsilon (the budgets of the DP methods).")
    if len(set(values)) != len(values):
        raise ValueError("each epsilon may appear only once in the grid.")
    return values


def _check_options(test_size: Any, max_rows: Any, imposter_epochs: Any, progress: Any) -> float:
    share = check_probability(test_size, name="test_size", inclusive=False)
    if max_rows is not None:
        check_positive_int(max_rows, name="max_rows", minimum=10)
    if imposter_epochs is not None:
        check_positive_int(imposter_epochs, name="imposter_epochs")
    if progress is not None and not callable(progress):
        raise TypeError(f"progress must be callable or None, got {type(progress).__name__}.")
    return share


def _seed_of(random_state: RandomState) -> int:
    """The run's one int seed: ``random_state`` itself, or a seed drawn from it."""
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, (bool, np.bool_)):
        check_random_state(random_state)  # refuses negative seeds
        return int(random_state)
    return draw_seed(check_random_state(random_state))


def _split(dataset: Dataset, *, test_size: float, max_rows: int | None,
           rng: np.random.Generator) -> tuple[Dataset, pd.DataFrame]:
    """Sample ``max_rows`` rows, then split into a training Dataset and a holdout frame."""
    sample_seed, split_seed = draw_seed(rng), draw_seed(rng)
    data = dataset if max_rows is None else dataset.sample(max_rows, random_state=sample_seed)
    frame = data.frame
    strat = None
    if data.label is not None:
        labels = frame[data.label].astype(str)
        strat = labels if labels.value_counts().min() >= 2 else None
    n_hold = int(math.ceil(test_size * len(frame)))
    if n_hold < 2 or len(frame) - n_hold < 10:
        raise DataError(f"The table has {len(frame)} rows: too few to hold out {test_size:g} of them and "
                        "still train on at least 10; load more rows or change test_size.")
    train, hold = train_test_split(frame, test_size=test_size, random_state=split_seed, stratify=strat)
    return replace(data, frame=train.reset_index(drop=True)), hold.reset_index(drop=True)


def _units(method: Method, epsilons: Sequence[float], repetitions: int) -> int:
    return repetitions * (len(epsilons) if method.takes_epsilon else 1)


def _run_repetition(unit: tuple[str, int], ctx: _Context, epsilons: Sequence[float], repetitions: int, *,
                    progress: Progress | None = None) -> dict[str, Any]:
    """One repetition of one method: its fit, then a measured release per epsilon.

    A task of :func:`core.runtime.compute.map_tasks`: ``unit`` is (method name, repetition) and
    every seed comes from the context's seed, so it gives the same rows wherever it runs.
    Returns ``{"method", "rows", "seconds", "error"}`` (``error`` the reason it failed on
    this dataset, or None).
    """
    name, rep = unit
    method = METHODS[name]
    start = time.perf_counter()
    grid = list(epsilons) if method.takes_epsilon else [None]
    measure = _measure_table if method.kind == "table" else _measure_model
    rep_seed = display_seed(ctx.base_seed, method.seed_key or method.name, rep)
    rows: list[dict[str, Any]] = []
    try:
        fitted = None
        if method.fit is not None:
            fit_progress = stage(progress, 0.0, 0.9 / len(grid), f"repetition {rep + 1}")
            report(fit_progress, 0.0, "fitting")
            fitted = method.fit(ctx, display_seed(rep_seed, "fit"), fit_progress)
        for done, eps in enumerate(grid, start=1):
            release_seed = display_seed(rep_seed, "release", "none" if eps is None else repr(float(eps)))
            rel = method.release(ctx, fitted, eps, release_seed)
            measures = measure(ctx, rel, display_seed(ctx.base_seed, "measure", rep))
            rows.append({"method": method.name, "kind": method.kind,
                         "epsilon": math.nan if eps is None else float(eps), "repetition": rep,
                         "seed": release_seed, **measures, **_formal(rel.ledger, rel.reading)})
            where = "" if eps is None else f", epsilon {eps:g}"
            report(progress, done / len(grid), f"repetition {rep + 1} of {repetitions}{where}")
    except (DataError, ValueError, np.linalg.LinAlgError) as exc:
        return {"method": name, "rows": [], "seconds": time.perf_counter() - start,
                "error": f"it failed on this dataset: {exc}"}
    return {"method": name, "rows": rows, "seconds": time.perf_counter() - start, "error": None}


def _prepare(ctx: _Context, methods: Sequence[Method]) -> None:
    """Compute once, before the tasks are sent out, what several tasks read: every task
    then gets it with the context instead of computing it again."""
    if any(m.kind == "table" for m in methods):
        ctx.dcr_reference()
    if any(m.kind == "model" for m in methods):
        ctx.model_data()
    if any(m.fit is _mdav_groups for m in methods):
        _mdav_groups(ctx, 0, None)


def _runnable(ctx: _Context, names: Sequence[str], skipped: dict[str, str]) -> list[Method]:
    out = []
    for name in names:
        method = METHODS[name]
        try:
            reason = method.requires(ctx) if method.requires is not None else None
        except (DataError, ValueError) as exc:
            reason = f"its preparation failed: {exc}"
        if reason is None:
            out.append(method)
        else:
            skipped[name] = reason
    return out


def compare(
    dataset: Dataset,
    *,
    methods: Sequence[str],
    epsilons: Sequence[float],
    repetitions: int = 3,
    test_size: float = 0.25,
    max_rows: int | None = None,
    imposter_epochs: int | None = None,
    random_state: RandomState = None,
    progress: Progress | None = None,
    scheduler: str | None = None,
    schema: PublicSchema | None = None,
) -> "ComparisonResult":
    """Release the dataset with every method and measure every release the same way.

    Parameters
    ----------
    dataset : Dataset
        The table and its roles: the label is the utility target, each sensitive attribute
        is attacked by attribute inference (and the first is the one IMPOSTER, kRR and
        SSKM_DP protect).
    methods : sequence of str
        Names from :data:`METHODS`; they run in the registry's order. A method that cannot
        run on this dataset is skipped with its reason (``ComparisonResult.skipped``).
    epsilons : sequence of float
        The privacy budgets of the methods that take one (each > 0, each once). A smaller
        epsilon means more noise; for a method that is not DP it is only nominal.
    repetitions : int
        Releases per (method, epsilon): releases are random, so each point gets a spread.
    test_size : float in (0, 1)
        Share of the rows held out: never released, the test set of every utility measure
        and attack, and the DCR baseline (stratified on the label when there is one).
    max_rows : int, optional
        Sample this many rows first (seeded), to bound the time.
    imposter_epochs : int, optional
        Training epochs of IMPOSTER and the VAE-GAN (default the synthesizer's).
    random_state : int, Generator or None
        The run's seed; ``parameters["seed"]`` records the int seed that reproduces it.
    progress : callable(fraction, message), optional
        A stage per method, the fraction of all releases done (:mod:`core.runtime.progress`); it
        never draws randomness, and raising from it stops the comparison.
    scheduler : str, optional
        Where the (method, repetition) tasks run (:func:`core.runtime.compute.resolve_scheduler`:
        default ``$PUX_SCHEDULER``, else this process); the numbers are the same anywhere.
    schema : PublicSchema, optional
        The public facts every method may use without reading the rows (default
        :func:`core.privacy.schema.schema_for` of the dataset: the shipped schema of a built-in
        dataset, else a draft read from the data, which makes every release that uses it
        not DP). It must list every column of the dataset; the dataset's label and
        sensitive columns are the roles. Identifier columns are dropped before the split.
        Recorded in ``parameters["schema"]``.

    Returns
    -------
    ComparisonResult
    """
    if not isinstance(dataset, Dataset):
        raise TypeError(f"dataset must be a Dataset, got {type(dataset).__name__}.")
    names = _check_names(methods)
    schema = _check_schema(schema, dataset)
    source = dataset
    dataset = _without_identifiers(dataset, schema)
    schema = _kept_schema(schema, dataset)
    grid = _check_epsilons(epsilons)
    repetitions = check_positive_int(repetitions, name="repetitions")
    share = _check_options(test_size, max_rows, imposter_epochs, progress)
    seed = _seed_of(random_state)
    rng = np.random.default_rng(seed)
    train, holdout = _split(dataset, test_size=share, max_rows=max_rows, rng=rng)
    ctx = _Context(train, holdout, imposter_epochs, draw_seed(rng), schema)
    skipped: dict[str, str] = {}
    todo = _runnable(ctx, names, skipped)
    report(progress, 0.0, "Preparing the split, the DCR reference and the shared steps")
    _prepare(ctx, todo)
    report(progress, 0.0, "Measuring the references: the raw table, the control, the constant guess")
    refs = _references(ctx, display_seed(ctx.base_seed, "measure", 0), models=any(m.kind == "model" for m in todo))
    units = [(m.name, rep) for m in todo for rep in range(repetitions)]
    weights = [_units(METHODS[name], grid, 1) for name, _ in units]
    done = compute.map_tasks(partial(_run_repetition, epsilons=grid, repetitions=repetitions), units,
                             shared=(ctx,), scheduler=scheduler, progress=progress, task_progress=True,
                             weights=weights, label="method repetition",
                             describe=lambda unit: unit[0])
    rows, seconds = [], {}
    for out in done:
        seconds[out["method"]] = seconds.get(out["method"], 0.0) + out["seconds"]
        if out["error"] is not None:
            skipped.setdefault(out["method"], out["error"])
        rows.extend(out["rows"])
    rows = [r for r in rows if r["method"] not in skipped]
    report(progress, 1.0, "Comparison done")
    parameters = _parameters(source, names, grid, repetitions, seed, share, max_rows, imposter_epochs)
    parameters["schema"] = schema.to_dict()
    parameters["identifiers_dropped"] = sorted(set(source.frame.columns) - set(dataset.frame.columns))
    return ComparisonResult(_runs_frame(rows, train.sensitive), skipped, parameters, seconds, refs)


def _check_schema(schema: Any, dataset: Dataset) -> PublicSchema:
    """The comparison's schema: given or :func:`schema_for`, with the dataset's roles."""
    if schema is None:
        schema = schema_for(dataset)
    if not isinstance(schema, PublicSchema):
        raise TypeError(f"schema must be a PublicSchema or None, got {type(schema).__name__}.")
    for col in dataset.frame.columns:
        if col not in schema:
            raise DataError(f"The table's column '{col}' is not in the public schema: add it (with its "
                            "bounds or categories) or leave the column out.")
        if schema[col].kind == "numeric" and col not in dataset.numeric:
            raise DataError(f"The schema says '{col}' is numeric, but the table holds text in it.")
    kept = tuple(c for c in schema.columns if c.name in set(dataset.frame.columns))
    return replace(schema, columns=kept).with_roles(label=dataset.label, sensitive=dataset.sensitive)


def _without_identifiers(dataset: Dataset, schema: PublicSchema) -> Dataset:
    """The dataset without its identifier columns, the schema's and the dataset's own
    (:attr:`Dataset.identifiers`): never a feature, never released, never attacked. Dropped
    before the split, so no release, attack, reference (raw table, control) or model sees them."""
    ids = set(schema.identifiers) | set(dataset.identifiers)
    if not ids:
        return dataset
    return dataset.subset([c for c in dataset.frame.columns if c not in ids])


def _kept_schema(schema: PublicSchema, dataset: Dataset) -> PublicSchema:
    """``schema`` less the columns :func:`_without_identifiers` dropped (roles kept)."""
    kept = set(dataset.frame.columns)
    if all(c.name in kept for c in schema.columns):
        return schema
    return replace(schema, columns=tuple(c for c in schema.columns if c.name in kept))


def _parameters(dataset: Dataset, names, grid, repetitions, seed, share, max_rows, epochs) -> dict[str, Any]:
    return {
        "dataset": dataset.name, "fingerprint": dataset.fingerprint(), "label": dataset.label,
        "sensitive": list(dataset.sensitive), "methods": list(names), "epsilons": list(grid),
        "repetitions": repetitions, "seed": seed, "test_size": share, "max_rows": max_rows,
        "imposter_epochs": epochs, "utility_classifier": UTILITY_CLASSIFIER, "dcr_records": DCR_RECORDS,
        "micro_k": MICRO_K,
        "max_clusters": MAX_CLUSTERS,
    }


def _runs_frame(rows: list[dict[str, Any]], sensitive: Sequence[str]) -> pd.DataFrame:
    columns = ["method", "kind", "epsilon", "repetition", "seed", *MEASURES,
               *(f"ai_advantage_{s}" for s in sensitive), *(f"ai_member_{s}" for s in sensitive), *_FORMAL]
    runs = pd.DataFrame(rows, columns=columns)
    return runs.astype({"repetition": "int64", "seed": "int64", "is_dp": bool}) if len(runs) else runs


# ---------------------------------------------------------------------------- results
def _measure_columns(runs: pd.DataFrame) -> list[str]:
    skip = {"epsilon", "repetition", "seed", "is_dp"}
    return [c for c in runs.columns if c not in skip and pd.api.types.is_numeric_dtype(runs[c])
            and not pd.api.types.is_bool_dtype(runs[c])]


def summarize_runs(runs: pd.DataFrame) -> pd.DataFrame:
    """Mean, standard deviation and count of every measure per (method, epsilon).

    Methods keep their order in ``runs``, epsilons increase (NaN, no epsilon, first); the
    standard deviation of a single run is 0 (no spread measured). ``kind``, ``is_dp``,
    ``guarantee`` and ``caveats`` come from the group's first run.
    """
    if not isinstance(runs, pd.DataFrame):
        raise TypeError(f"runs must be a DataFrame, got {type(runs).__name__}.")
    values = _measure_columns(runs)
    if runs.empty:
        return pd.DataFrame(columns=["method", "kind", "epsilon", "is_dp", "guarantee", "caveats",
                                     *(f"{v}_{s}" for v in values for s in ("mean", "std", "n"))])
    order = {m: i for i, m in enumerate(dict.fromkeys(runs["method"]))}
    groups = runs.groupby(["method", "epsilon"], dropna=False, sort=False)
    stats = groups[values].agg(["mean", "std", "count"])
    stats.columns = [f"{v}_{'n' if s == 'count' else s}" for v, s in stats.columns]
    for v in values:
        stats.loc[stats[f"{v}_n"] == 1, f"{v}_std"] = 0.0
    first = groups[[c for c in ("kind", "is_dp", "guarantee", "caveats", "reading") if c in runs.columns]].first()
    out = first.join(stats).reset_index()
    out["_order"] = out["method"].map(order)
    out = out.sort_values(["_order", "epsilon"], na_position="first", kind="stable")
    return out.drop(columns="_order").reset_index(drop=True)


def _column(summary: pd.DataFrame, name: Any, what: str) -> str:
    if not isinstance(summary, pd.DataFrame):
        raise TypeError(f"summary must be a DataFrame, got {type(summary).__name__}.")
    if not isinstance(name, str):
        raise TypeError(f"{what} must be a column name, got {type(name).__name__}.")
    for candidate in (f"{name}_mean", name):
        if candidate in summary.columns:
            return candidate
    raise ValueError(f"{what} {name!r} is not a measure of the summary; choose one of "
                     f"{sorted(c[:-5] for c in summary.columns if c.endswith('_mean'))}.")


def pareto_front(summary: pd.DataFrame, *, utility: str = "utility",
                 risk: str = "ai_advantage") -> pd.DataFrame:
    """The points no other point dominates (higher utility is better, lower risk is better).

    Parameters
    ----------
    summary : DataFrame
        One row per point (:func:`summarize_runs`).
    utility, risk : str
        Measures (``"utility"`` reads ``utility_mean``; a plain column name works too).
        A point is dominated when another has utility at least as high and risk at least
        as low, one of them strictly. Points missing either value are left out.

    Returns
    -------
    DataFrame
        The front's rows, by increasing risk.
    """
    u_col, r_col = _column(summary, utility, "utility"), _column(summary, risk, "risk")
    data = summary[np.isfinite(summary[u_col].astype(float)) & np.isfinite(summary[r_col].astype(float))]
    u, r = data[u_col].to_numpy(float), data[r_col].to_numpy(float)
    better_eq = (u[None, :] >= u[:, None]) & (r[None, :] <= r[:, None])
    strictly = (u[None, :] > u[:, None]) | (r[None, :] < r[:, None])
    dominated = (better_eq & strictly).any(axis=1)
    return data[~dominated].sort_values([r_col, u_col], ascending=[True, False], kind="stable")


def privacy_label(is_dp: bool, ledger_epsilon: float, ledger_delta: float, epsilon: float) -> str:
    """What a table cell says about a release's privacy: its guarantee, or that it has none.

    A DP release: "epsilon = 1" (with its delta). A release that is not DP: "not
    differentially private", and the epsilon it was asked for is called nominal, never
    presented as a guarantee.
    """
    if is_dp and math.isfinite(ledger_epsilon):
        return f"epsilon = {ledger_epsilon:.3g}" + (f", delta = {ledger_delta:.2g}" if ledger_delta else "")
    nominal = "" if pd.isna(epsilon) else f" (epsilon {float(epsilon):g} is nominal)"
    return "not differentially private" + nominal


def _point(row: pd.Series) -> str:
    """A point in words; a release that is not DP names its epsilon as nominal."""
    eps = row.get("epsilon", math.nan)
    if pd.isna(eps):
        return row["method"]
    dp = row.get("is_dp", None)
    if dp is not None and not pd.isna(dp) and not bool(dp):
        return f"{row['method']} at nominal epsilon {float(eps):g} (not differentially private)"
    return f"{row['method']} at epsilon {float(eps):g}"


def takeaway(summary: pd.DataFrame, *, utility: str = "utility", risk: str = "ai_advantage",
             below: float | None = None, reference: str = "Raw table",
             utility_label: str | None = None, risk_label: str | None = None,
             no_power: str | None = None, majority: float | None = None) -> str:
    """One sentence computed from the numbers: which method keeps the most utility at low risk.

    Parameters
    ----------
    summary : DataFrame
        One row per point (:func:`summarize_runs`).
    utility, risk : str
        Measures, as in :func:`pareto_front`.
    below : float, optional
        The risk level a release must reach (at or below); default the median risk of the
        points other than the reference.
    reference : str
        The method whose utility is quoted for comparison (the unprotected table).
    utility_label, risk_label : str, optional
        Words for the measures (default from their names).
    no_power : str, optional
        Why the risk's attack has no power on this table (it does not separate the raw table
        from its control: :meth:`ComparisonResult.power`); then no method is recommended from
        that risk, and the sentence says so.
    majority : float, optional
        The constant guess's accuracy: a recommended method whose utility is not above it is
        said to be so in words (:func:`core.evaluation.metrics.below_reference`).

    Returns
    -------
    str
        Plain text, no markup.
    """
    u_col, r_col = _column(summary, utility, "utility"), _column(summary, risk, "risk")
    if below is not None and (isinstance(below, bool) or not isinstance(below, numbers.Real)):
        raise TypeError(f"below must be a number, got {type(below).__name__}.")
    u_word = utility_label or _WORDS.get(utility, utility)
    r_word = risk_label or _WORDS.get(risk, risk)
    if no_power is not None:
        if not isinstance(no_power, str):
            raise TypeError(f"no_power must be a sentence (str) or None, got {type(no_power).__name__}.")
        return (f"No recommendation from {r_word}: {NO_POWER}. {no_power.strip()} A release that scores low "
                "on it is not shown to protect anyone; choose another risk, or read the releases by their "
                "guarantees.")
    data = summary[np.isfinite(summary[u_col].astype(float)) & np.isfinite(summary[r_col].astype(float))]
    others = data[data["method"] != reference]
    if others.empty:
        return f"No method besides the {reference.lower()} has both {u_word} and {r_word} measured."
    level = float(np.median(others[r_col])) if below is None else float(below)
    under = others[others[r_col] <= level]
    ref = data[data["method"] == reference]
    against = "" if ref.empty else f" against {ref[u_col].iloc[0]:.3g} for the {reference.lower()}"
    if under.empty:
        low = others.loc[others[r_col].idxmin()]
        return (f"No method brings {r_word} to {level:.3g} or below; the lowest is {_point(low)} at "
                f"{low[r_col]:.3g}, with {low[u_col]:.3g} {u_word}{against}.")
    best = under.loc[under[u_col].idxmax()]
    text = (f"At {r_word} of {level:.3g} or below, {_point(best)} keeps the most utility: "
            f"{best[u_col]:.3g} {u_word}{against}.")
    under_guess = None if majority is None else below_reference(best[u_col], majority)
    if under_guess:
        text += f" But {under_guess}"
    return text


def _plain(value: Any) -> Any:
    """A JSON-ready value: NaN and infinities become None, numpy scalars Python ones."""
    if isinstance(value, (np.bool_, bool)):
        return bool(value)
    if isinstance(value, (numbers.Integral, np.integer)):
        return int(value)
    if isinstance(value, (numbers.Real, np.floating)):
        return float(value) if math.isfinite(float(value)) else None
    return value


def _plain_tree(value: Any) -> Any:
    """:func:`_plain` through nested dicts and lists."""
    if isinstance(value, dict):
        return {str(k): _plain_tree(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain_tree(v) for v in value]
    return _plain(value)


def _interval_text(interval: Sequence[float] | None) -> str:
    if interval is None or not all(isinstance(v, numbers.Real) and math.isfinite(v) for v in interval):
        return ""
    return f"{interval[0]:.3g} to {interval[1]:.3g}"


def _records(frame: pd.DataFrame) -> list[dict[str, Any]]:
    return [{k: _plain(v) for k, v in row.items()} for row in frame.to_dict(orient="records")]


@dataclass(frozen=True)
class ComparisonResult:
    """Every release's measures, what was skipped, and what reruns the comparison.

    Attributes
    ----------
    runs : DataFrame
        One row per (method, epsilon or NaN, repetition): ``method, kind, epsilon,
        repetition, seed``, the measures (:data:`MEASURES` and ``ai_advantage_<s>``), then
        ``ledger_epsilon, ledger_delta, nominal_epsilon, nominal_delta, is_dp, guarantee,
        caveats``. The measures are evaluated on the private rows (:data:`PRIVATE_MEASURES_NOTE`).
    skipped : dict of str to str
        Method -> why it did not run (in words).
    parameters : dict
        Dataset fingerprint, methods, epsilons, repetitions, seed, test_size, max_rows,
        imposter_epochs, the public ``schema`` (its JSON object) and the fixed choices:
        ``compare`` with them gives the same runs.
    seconds : dict of str to float
        Wall time per method (not part of ``runs``: it varies between runs).
    references : dict
        What every number is read against (:func:`_references`): ``utility`` (the constant
        guess and the non-private model, with intervals), ``risks`` (per risk measure the raw
        table, its control and whether the attack has power), ``mse`` (the raw table and a
        random release). Empty for a result made without them.
    """

    runs: pd.DataFrame
    skipped: dict[str, str]
    parameters: dict[str, Any]
    seconds: dict[str, float] = field(default_factory=dict)
    references: dict[str, Any] = field(default_factory=dict)

    def power(self, risk: str) -> bool | None:
        """Whether ``risk``'s attack separates the raw table from its control on this table
        (None where no reference was measured for it)."""
        entry = self.references.get("risks", {}).get(risk)
        return None if entry is None else bool(entry["power"])

    def reference_rows(self) -> pd.DataFrame:
        """Every reference as a table: one row per risk measure (raw table, control, power,
        the sentence), then the utility's (constant guess, non-private model) and the MSE's
        (raw table, random release). Plain text, evaluated on the private data."""
        rows = []
        util = self.references.get("utility")
        if util:
            rows.append({"measure": "utility (accuracy)", "raw table / non-private model": util["nonprivate"],
                         "interval": _interval_text(util["nonprivate_interval"]),
                         "control / constant guess": util["majority"],
                         "control interval": _interval_text(util["majority_interval"]),
                         "attack has power": "",
                         "reading": f"Above the constant guess ({util['majority']:.3g}, the majority class of "
                                    f"the {util['n']} held-out records) a release teaches something; the "
                                    f"non-private model is {util['nonprivate_words']}."})
        risks = self.references.get("risks", {})
        for name, e in risks.items():
            if name.startswith(("ai_advantage_", "ai_member_")) and len(self.parameters.get("sensitive", [])) < 2:
                continue  # one sensitive attribute: its row is the frontier's
            rows.append({"measure": _WORDS.get(name, name), "raw table / non-private model": e["raw"],
                         "interval": _interval_text(e["raw_interval"]), "control / constant guess": e["control"],
                         "control interval": _interval_text(e["control_interval"]),
                         "attack has power": "yes" if e["power"] else "no: " + NO_POWER,
                         "reading": e["sentence"]})
        m = self.references.get("mse")
        if m:
            rows.append({"measure": "MSE", "raw table / non-private model": m["raw"], "interval": "",
                         "control / constant guess": m["random"], "control interval": "", "attack has power": "",
                         "reading": f"0 for the raw table; {m['random']:.3g} for {m['random_words']}."})
        return pd.DataFrame(rows, columns=["measure", "raw table / non-private model", "interval",
                                           "control / constant guess", "control interval", "attack has power",
                                           "reading"])

    def summary(self) -> pd.DataFrame:
        """Mean, std and n of every measure per method and epsilon (:func:`summarize_runs`)."""
        return summarize_runs(self.runs)

    @property
    def schema(self) -> PublicSchema | None:
        """The public schema the comparison used (None for a result saved without one)."""
        data = self.parameters.get("schema")
        return None if data is None else PublicSchema.from_dict(data)

    def pareto_front(self, *, utility: str = "utility", risk: str = "ai_advantage") -> pd.DataFrame:
        """:func:`pareto_front` of :meth:`summary`."""
        return pareto_front(self.summary(), utility=utility, risk=risk)

    def takeaway(self, *, utility: str = "utility", risk: str = "ai_advantage",
                 below: float | None = None) -> str:
        """:func:`takeaway` of :meth:`summary`, naming the label's accuracy; ``below``
        defaults to the risk's :data:`LOW_RISK` level (the median risk for other measures)."""
        if below is None:
            below = LOW_RISK.get(risk)
        label = self.parameters.get("label")
        words = f"{label} accuracy" if utility == "utility" and label else None
        entry = self.references.get("risks", {}).get(risk)
        no_power = None if entry is None or entry["power"] else entry["sentence"]
        util = self.references.get("utility") or {}
        majority = util.get("majority") if utility == "utility" else None
        return takeaway(self.summary(), utility=utility, risk=risk, below=below, utility_label=words,
                        no_power=no_power, majority=majority)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: parameters (the public schema included), method descriptions, runs,
        summary, skipped, seconds, and the note that the measures read the private rows."""
        names = self.parameters.get("methods", [])
        return {
            "parameters": {k: (list(v) if isinstance(v, tuple) else v) for k, v in self.parameters.items()},
            "methods": {n: {"kind": METHODS[n].kind, "takes_epsilon": METHODS[n].takes_epsilon,
                            "dp": METHODS[n].dp, "description": METHODS[n].description} for n in names},
            "runs": _records(self.runs),
            "summary": _records(self.summary()),
            "skipped": dict(self.skipped),
            "seconds": {k: float(v) for k, v in self.seconds.items()},
            "references": _plain_tree(self.references),
            "measures_note": PRIVATE_MEASURES_NOTE,
        }
