"""How each compared method releases: its requirements, its fit and its release functions.

Every function here works on a :class:`~core.compare.context.RunContext`. A *requirement*
(``needs_*``) says why a method cannot run on the dataset, or None; a *fit* does the work
that does not depend on epsilon, once per repetition (``fit(context, seed, progress)``); a
*release* makes one :class:`Release` (``release(context, fitted, epsilon, seed)``).
:mod:`core.compare.registry` puts them together, one :class:`~core.compare.registry.Method`
per method. Every table and encoder comes from the public schema: IDP-KMeans, SSKM_DP,
MDAV and MDAV_DP release :class:`core.sskm.scaled_table.ScaledTable` of the schema, kRR's
domain and bins come from it, and CDP-LR trains on the CDP-LR page's DP reading; each
release's ledger is charged with the schema entries it used.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Sequence

import numpy as np
import pandas as pd
from sklearn.linear_model import LogisticRegression

from core.cdp.dp_reading import charge_reading, group_bound
from core.cdp.logistic import CDPLogisticRegression
from core.cdp.schedule import PRESETS
from core.compare.context import RunContext, schema_table
from core.imposter.krr_baseline import krr_ledger, krr_perturb
from core.imposter.synthesizer import ImposterSynthesizer
from core.privacy.ledger import PrivacyLedger
from core.privacy.schema_columns import OTHER
from core.runtime.progress import Progress, Stop, check_stop, stage
from core.sskm.dp_kmeans import idp_kmeans
from core.sskm.microaggregation import mdav, mdav_dp, mdav_release
from core.sskm.paper_publisher import PaperSSKMDP
from core.sskm.publisher_base import SSKMPublisherBase
from core.sskm.scaled_table import ScaledTable
from core.sskm.sweeps import release_copy
from core.sskm.variants import SSKM_VARIANTS

__all__ = [
    "Release", "like_training", "MICRO_K", "MAX_CLUSTERS", "CDP_LR_NOISE_METHOD", "CDP_LR_PRESET",
    "needs_sensitive", "needs_implicit", "needs_numeric", "needs_label", "needs_binary_label",
    "needs_binary_model_label",
    "raw_table", "nonprivate_logistic", "generator_fit", "generator_sample", "krr_table", "sskm_fit", "sskm_table",
    "MDAV_MAX_ROWS", "mdav_groups", "mdav_table", "mdav_dp_table", "idp_fit", "idp_kmeans_table",
    "cdp_lr_reading", "cdp_lr_model", "logistic_model",
]

#: Training records above which MDAV and MDAV_DP are left out of a comparison, and why:
#: MDAV forms each group from a scan of the records left, so its time grows with n^2 / k.
MDAV_MAX_ROWS = 200_000
MDAV_COST = "measured on 2 cores: 3.4 s at 40,000 records, so about 1.5 min at 200,000 and 35 min at a million"
#: Group size k of MDAV and MDAV_DP (each group has k..2k-1 records).
MICRO_K = 5
#: Clusters of IDP-KMeans: min(MAX_CLUSTERS, n // MICRO_K), the size of SSKM_DP's 10 x 10 map.
MAX_CLUSTERS = 100
#: CDP-LR's settings in the comparison: the CDP-LR page's defaults (its noise method, the
#: paper's Laplace method 1, and its training preset; a test reads the page to check them).
CDP_LR_NOISE_METHOD = 1
CDP_LR_PRESET = "sensible"


@dataclass
class Release:
    """One release: a table (rows) or a model, and its ledger.

    ``aligned`` is True when row i of ``table`` is training record i's protected version
    (then the MSE is measured). ``reading`` says which CDP-LR this is (empty otherwise).
    """

    ledger: PrivacyLedger
    table: pd.DataFrame | None = None
    model: Any = None
    aligned: bool = False
    reading: str = ""


# ------------------------------------------------------------------------ shared steps
def like_training(ctx: RunContext, table: pd.DataFrame, *, aligned: bool = False) -> pd.DataFrame:
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


def _charge(ctx: RunContext, ledger: PrivacyLedger, columns: Sequence[str]) -> PrivacyLedger:
    """What using the schema's entries of ``columns`` means for ``ledger`` (returned)."""
    return ctx.schema.charge(ledger, [c for c in columns if c in ctx.schema])


def _not_dp(reason: str) -> PrivacyLedger:
    ledger = PrivacyLedger()
    ledger.mark_not_dp(reason)
    return ledger


def _micro_columns(ctx: RunContext) -> list[str]:
    """The columns MDAV groups: numeric in the schema, not the label."""
    numeric = set(ctx.schema.numeric)
    return [c for c in ctx.train.frame.columns if c in numeric and c != ctx.train.label]


# ------------------------------------------------------------------------ requirements
def needs_sensitive(ctx: RunContext) -> str | None:
    """Why a method that protects a sensitive attribute cannot run, or None."""
    if not ctx.train.sensitive:
        return "it protects a sensitive attribute, and the dataset has none: mark one on the Data page."
    return None


def needs_implicit(ctx: RunContext) -> str | None:
    """Why kRR cannot run (no sensitive attribute, or no implicit attribute), or None."""
    reason = needs_sensitive(ctx)
    if reason is None and not ctx.detection().implicit:
        reason = (f"no implicit attributes were detected for '{ctx.train.sensitive[0]}', so kRR "
                  "would publish the training part unchanged.")
    return reason


def needs_numeric(ctx: RunContext) -> str | None:
    """Why microaggregation cannot run (no numeric column besides the label, or more
    training records than :data:`MDAV_MAX_ROWS`), or None."""
    if not _micro_columns(ctx):
        return "microaggregation works on numeric columns, and the dataset has none besides the label."
    if len(ctx.train.frame) > MDAV_MAX_ROWS:
        return (f"MDAV's time grows with the square of the rows ({MDAV_COST}), so it is left out above "
                f"{MDAV_MAX_ROWS:,} training records; cap the rows to include it.")
    return None


def needs_label(ctx: RunContext) -> str | None:
    """Why a model release cannot run (no label), or None."""
    if ctx.train.label is None:
        return "a model release needs a label to predict: choose one on the Data page."
    return None


def _binary_reason(ctx: RunContext, who: str) -> str | None:
    reason = needs_label(ctx)
    if reason is None:
        spec = ctx.schema[ctx.train.label]
        if spec.kind != "categorical":
            reason = f"{who} a binary classifier, and the schema declares the label '{spec.name}' numeric."
        elif len(spec.categories) != 2:
            reason = (f"{who} a binary classifier, and the schema lists {len(spec.categories)} categories "
                      f"for the label '{spec.name}'.")
    return reason


def needs_binary_label(ctx: RunContext) -> str | None:
    """Why CDP-LR cannot run (no label, or not two declared categories), or None."""
    return _binary_reason(ctx, "CDP-LR is")


def needs_binary_model_label(ctx: RunContext) -> str | None:
    """Why the non-private logistic regression (CDP-LR's model without noise, on its encoding)
    cannot run: as :func:`needs_binary_label`."""
    return _binary_reason(ctx, "The model reference is CDP-LR's logistic regression without noise,")


# ------------------------------------------------------------------------ table releases
def raw_table(ctx: RunContext, fitted: Any, epsilon: float | None, seed: int) -> Release:
    """The training records as they are: the no-protection reference."""
    ledger = _not_dp("The raw training records are published as they are: no protection (the reference).")
    return Release(ledger, table=ctx.train.frame.copy(), aligned=True)


def generator_fit(d2_weight: float) -> Callable[..., ImposterSynthesizer]:
    """The fit of IMPOSTER (``d2_weight`` 1) or the plain VAE-GAN (0): a trained synthesizer."""
    def fit(ctx: RunContext, seed: int, progress: Progress | None) -> ImposterSynthesizer:
        epochs = {} if ctx.imposter_epochs is None else {"epochs": ctx.imposter_epochs}
        syn = ImposterSynthesizer(d2_weight=d2_weight, random_state=seed, **epochs)
        return syn.fit(ctx.train, ctx.train.sensitive[0], ctx.detection().implicit,
                       progress=stage(progress, 0.0, 1.0, "training"))

    return fit


def generator_sample(ctx: RunContext, syn: ImposterSynthesizer, epsilon: float | None, seed: int) -> Release:
    """As many synthetic rows as the training part has, from a fitted synthesizer."""
    return Release(syn.ledger_, table=syn.sample(ctx.train.n_rows, random_state=seed))


def krr_table(ctx: RunContext, fitted: Any, epsilon: float | None, seed: int) -> Release:
    """k-ary randomized response on the implicit attributes of the first sensitive one."""
    columns = ctx.detection().implicit
    table = krr_perturb(ctx.train, columns=columns, epsilon=epsilon, schema=ctx.schema, random_state=seed)
    ledger = krr_ledger(columns, epsilon, table_columns=list(table.columns), schema=ctx.schema)
    ledger.mark_not_dp("The perturbed columns were chosen by implicit-attribute detection on the training "
                       "records themselves.")
    return Release(ledger, table=like_training(ctx, table, aligned=True), aligned=True)


def sskm_fit(mode: str) -> Callable[..., SSKMPublisherBase]:
    """The fit of SSKM_DP's ``mode`` publisher ("sound" or "paper", :data:`core.sskm.variants.SSKM_VARIANTS`):
    the map, once per repetition."""
    publisher = SSKM_VARIANTS[mode]

    def fit(ctx: RunContext, seed: int, progress: Progress | None) -> SSKMPublisherBase:
        pub = publisher(sensitive=ctx.train.sensitive, schema=ctx.schema, random_state=seed)
        return pub.fit(ctx.train.frame, progress=progress)

    return fit


def sskm_table(ctx: RunContext, pub: SSKMPublisherBase, epsilon: float | None, seed: int) -> Release:
    """A fitted SSKM_DP publisher's release at ``epsilon`` (rows aligned for the paper's)."""
    mine = release_copy(pub, epsilon=epsilon, cs_threshold=pub.cs_threshold, random_state=seed)
    aligned = isinstance(mine, PaperSSKMDP)
    table = like_training(ctx, mine.table_.decode(mine.published_scaled_), aligned=aligned)
    return Release(mine.ledger_, table=table, aligned=aligned)


def mdav_groups(ctx: RunContext, seed: int, progress: Progress | None, *,
                stop: Stop | None = None) -> tuple[ScaledTable, np.ndarray]:
    """The numeric columns (min-max scaled) and their MDAV groups: deterministic, once per comparison.
    ``stop`` (a ``threading.Event``), when set, raises :class:`core.runtime.progress.Stopped` first."""
    check_stop(stop)

    def make() -> tuple[ScaledTable, np.ndarray]:
        table = schema_table(ctx.train.frame[_micro_columns(ctx)], ctx.schema)
        return table, mdav(table.X, MICRO_K)

    return ctx.cached("mdav", make)


def _micro_table(ctx: RunContext, table: ScaledTable, published: np.ndarray) -> pd.DataFrame:
    out = ctx.train.frame.copy()
    decoded = table.decode(published)
    for col in table.columns:
        out[col] = decoded[col].to_numpy()
    return out


def _exact_columns_note(ctx: RunContext, ledger: PrivacyLedger) -> PrivacyLedger:
    exact = [c for c in ctx.train.frame.columns if c not in set(_micro_columns(ctx))]
    if exact:
        ledger.assume("Only the numeric columns are microaggregated; " + ", ".join(exact)
                      + " are published exactly, as sdcMicro does with non-key variables.")
    return ledger


def mdav_table(ctx: RunContext, fitted: tuple, epsilon: float | None, seed: int) -> Release:
    """Each MDAV group's numeric values replaced by the group's centroid."""
    table, groups = fitted
    res = mdav_release(table.X, MICRO_K, labels=groups)
    return Release(_exact_columns_note(ctx, table.charge(res.ledger)), table=_micro_table(ctx, table, res.published),
                   aligned=True)


def mdav_dp_table(ctx: RunContext, fitted: tuple, epsilon: float | None, seed: int) -> Release:
    """The MDAV groups' centroids with Laplace noise."""
    table, groups = fitted
    res = mdav_dp(table.X, MICRO_K, epsilon, labels=groups, random_state=seed)
    return Release(_exact_columns_note(ctx, table.charge(res.ledger)), table=_micro_table(ctx, table, res.published),
                   aligned=True)


def idp_fit(ctx: RunContext, seed: int, progress: Progress | None, *, stop: Stop | None = None) -> ScaledTable:
    """Every column scaled to [0, 1] by the schema's bounds and category lists (categoricals
    as codes over the declared list plus OTHER): nothing read from the rows. ``stop`` (a
    ``threading.Event``), when set, raises :class:`core.runtime.progress.Stopped` first."""
    check_stop(stop)
    return schema_table(ctx.train.frame, ctx.schema)


def idp_kmeans_table(ctx: RunContext, table: ScaledTable, epsilon: float | None, seed: int) -> Release:
    """DP k-means of the scaled table (at most :data:`MAX_CLUSTERS` clusters, fewer when n x
    epsilon is small), split by the schema's label, released as rows drawn from each
    cluster's noisy cell counts (:func:`core.sskm.dp_kmeans.idp_kmeans` with ``release="cells"``;
    rows at the noisy centres lose the label's relation)."""
    clusters = max(1, min(MAX_CLUSTERS, len(table.X) // MICRO_K))
    res = idp_kmeans(table, n_clusters=clusters, epsilon=epsilon, release="cells", random_state=seed)
    return Release(res.ledger, table=like_training(ctx, table.decode(res.published)))


# ------------------------------------------------------------------------ model releases
def cdp_lr_reading(ctx: RunContext) -> str:
    """Which CDP-LR this is, in words (the Compare table's "reading" column)."""
    bound = group_bound(ctx.schema)
    sens = (f"{bound.value:g} (declared group bound, {bound.source})" if bound.covers_group
            else "1 (one record: no group bound declared)")
    return (f"the CDP-LR page's DP reading: {len(ctx.model_columns())} schema features scaled by their "
            f"declared bounds, sensitivity {sens}, noise method {CDP_LR_NOISE_METHOD}, "
            f"preset '{CDP_LR_PRESET}'")


def cdp_lr_model(ctx: RunContext, fitted: Any, epsilon: float | None, seed: int) -> Release:
    """Paper 000's DP reading as the CDP-LR page trains it (:func:`core.cdp.dp_reading.dp_reading`):
    features and scaling from the schema (:class:`~core.compare.context.SchemaEncoder`), the
    sensitivity from the schema's public correlated-group bound
    (:func:`~core.cdp.dp_reading.group_bound`: 1 when none is declared or when it was read
    from the data), the page's noise method and preset."""
    X, y, _, _ = ctx.model_data()
    bound = group_bound(ctx.schema)
    model = CDPLogisticRegression(epsilon=epsilon, noise_method=CDP_LR_NOISE_METHOD, sensitivity=bound.value,
                                  sensitivity_source=bound.source, random_state=seed,
                                  **PRESETS[CDP_LR_PRESET]).fit(X, y)
    ledger = charge_reading(model.ledger_, ctx.schema, [*ctx.model_columns(), ctx.train.label], bound)
    return Release(ledger, model=model, reading=cdp_lr_reading(ctx))


def nonprivate_logistic(ctx: RunContext) -> LogisticRegression:
    """Ordinary logistic regression on the model matrix of the training part, fitted once per
    comparison (deterministic: the membership reference and the non-private release share it)."""
    def fit() -> LogisticRegression:
        X, y, _, _ = ctx.model_data()
        return LogisticRegression(max_iter=1000).fit(X, y)

    return ctx.cached("logistic", fit)


def logistic_model(ctx: RunContext, fitted: Any, epsilon: float | None, seed: int) -> Release:
    """Ordinary logistic regression on the same features: the model reference, not DP."""
    model = nonprivate_logistic(ctx)
    ledger = _not_dp("Ordinary logistic regression is trained on the raw records without noise.")
    return Release(_charge(ctx, ledger, [*ctx.model_columns(), ctx.train.label]), model=model)
