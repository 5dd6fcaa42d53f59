"""The measures of a comparison: one :class:`Measure` record each, and measuring a release.

Every release is measured the same way. **Utility**: tables by train-on-release /
test-on-holdout accuracy, ROC AUC and balanced accuracy of the label with one fixed
classifier (:data:`UTILITY_CLASSIFIER`, the "hgb" of
:func:`core.evaluation.tasks.score_task`), models by the same three on the holdout
(``utility``, ``utility_auc``, ``utility_balanced``). **Fidelity** of tables: total variation of the one- and two-way marginals against
the training part, and the MSE of each record against its released row where rows align
(on attributes scaled by the schema), and SDMetrics' mean column-shape and pair-trend scores
(:mod:`core.evaluation.fidelity`: 1 = the same one- and two-column distributions) on at
most :data:`FIDELITY_ROWS` rows of each side. **Empirical risk**: attribute inference of each
sensitive attribute on the holdout (``ai_advantage``) and on the people in the release
(``ai_member``), the distance to closest record (``dcr_risk``, ``dcr_excess``), and for
models a membership-inference attack (``mia_auc``, ``mia_advantage``). **Formal privacy**:
the release's ledger (:func:`formal`). A measure that does not apply to a kind of release
is NaN. Each measure's name, words, direction, low-risk level and control live in one
record of :data:`MEASURES`; :data:`LOW_RISK`, :data:`MEASURE_WORDS` and
:data:`CONTROL_WORDS` are read from those records.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

import numpy as np
import pandas as pd

from core.compare.context import RunContext
from core.compare.methods import Release
from core.evaluation import attacks
from core.evaluation.classification import classification_scores
from core.evaluation.fidelity import capped, fidelity_summary
from core.evaluation.metrics import mse
from core.evaluation.tasks import score_task
from core.imposter.evaluation import marginal_tv
from core.privacy.ledger import PrivacyLedger
from core.runtime.randomness import RandomState
from core.validation import check_positive_int

__all__ = [
    "Measure", "MEASURES", "LEDGER_EPSILON", "AXES", "LOW_RISK", "MEASURE_WORDS", "CONTROL_WORDS",
    "FORMAL_COLUMNS", "FIDELITY_ROWS", "UTILITY_CLASSIFIER", "UTILITY_SCORES", "empty_measures", "fidelity_means", "measure_table",
    "measure_model", "formal", "utility_of", "attack_attribute", "dcr_of",
]

#: The one classifier of every utility and attribute-inference measure.
UTILITY_CLASSIFIER = "hgb"
#: The runs' utility columns and the classifier score each holds
#: (:func:`core.evaluation.classification.classification_scores`).
UTILITY_SCORES: Mapping[str, str] = {"utility": "accuracy", "utility_auc": "auc",
                                     "utility_balanced": "balanced_accuracy"}
#: Rows of each side the column-shape and pair-trend scores read at most (a seeded sample
#: above it, as on the method pages): about 0.2 s per release on 5,000 Adult rows (15 columns,
#: 105 pairs; 0.4 s on 30,000); two independent samples of 5,000 Adult rows score about 0.99
#: and 0.97, the floor a release is read against.
FIDELITY_ROWS = 5_000


@dataclass(frozen=True)
class Measure:
    """One measure of a comparison's runs.

    Attributes
    ----------
    name : str
        Its column in the runs (``<name>_mean`` in a summary).
    words : str or None
        What it is, in words (None: shown by its name).
    higher_is_better : bool or None
        True for utility, False for fidelity gaps and risks, None for a count.
    low_risk : float or None
        A risk's low level, the default ``below`` of :meth:`ComparisonResult.takeaway
        <core.compare.result.ComparisonResult.takeaway>` (None: not a risk, or no level).
    control : str or None
        A risk's control in words: the value of a release at no more risk than it
        (None: no control is measured).
    """

    name: str
    words: str | None = None
    higher_is_better: bool | None = None
    low_risk: float | None = None
    control: str | None = None


#: Measures of every run, in the runs' column order (plus ``ai_advantage_<s>`` and
#: ``ai_member_<s>`` per sensitive attribute s). The low-risk levels: an attacker at most 2
#: points better than guessing (attribute inference), at most 2 points of copying above an
#: independent release (DCR), a membership AUC at most 0.52.
MEASURES: Mapping[str, Measure] = {m.name: m for m in (
    Measure("rows_released"),
    Measure("utility", "accuracy", higher_is_better=True),
    Measure("utility_auc", "ROC AUC", higher_is_better=True),
    Measure("utility_balanced", "balanced accuracy", higher_is_better=True),
    Measure("tv_one_way", "one-way marginal TV", higher_is_better=False),
    Measure("tv_two_way", "two-way marginal TV", higher_is_better=False),
    Measure("column_shape", "mean column-shape score", higher_is_better=True),
    Measure("pair_trend", "mean pair-trend score", higher_is_better=True),
    Measure("mse", "MSE", higher_is_better=False),
    Measure("ai_advantage", "attribute-inference advantage", higher_is_better=False, low_risk=0.02,
            control="the constant guess (always the commonest value: advantage 0)"),
    Measure("dcr_risk", "DCR risk", higher_is_better=False),
    Measure("dcr_excess", "DCR risk above the holdout baseline", higher_is_better=False, low_risk=0.02,
            control="a release of real records the training never saw (an independent sample: excess 0)"),
    Measure("dcr_recall", "recall of DCR's nearest-record search (1: exact; an index's measured recall)"),
    Measure("mia_auc", "membership-inference AUC", higher_is_better=False, low_risk=0.52,
            control="guessing (AUC 0.5)"),
    Measure("mia_advantage", "membership-inference advantage", higher_is_better=False, low_risk=0.02),
    Measure("ai_member", "attribute-inference advantage on the people in the release", higher_is_better=False,
            low_risk=0.02,
            control="the same attacker on real records the release never saw (Anonymeter's control)"),
)}
#: The ledger's epsilon, a frontier axis besides the measures.
LEDGER_EPSILON = Measure("ledger_epsilon", "epsilon", higher_is_better=False)
#: What a frontier can show on its axes (besides the per-attribute measures).
AXES: Mapping[str, Measure] = {**MEASURES, LEDGER_EPSILON.name: LEDGER_EPSILON}
#: The low-risk level of each risk that has one (:attr:`Measure.low_risk`).
LOW_RISK: Mapping[str, float] = {m.name: m.low_risk for m in MEASURES.values() if m.low_risk is not None}
#: Each measure's words (:attr:`Measure.words`), for the ones that have them.
MEASURE_WORDS: Mapping[str, str] = {m.name: m.words for m in AXES.values() if m.words is not None}
#: What each risk's control is, in words (:attr:`Measure.control`).
CONTROL_WORDS: Mapping[str, str] = {m.name: m.control for m in MEASURES.values() if m.control is not None}
#: The formal-privacy columns of every run (:func:`formal`), after the measures.
FORMAL_COLUMNS = ("ledger_epsilon", "ledger_delta", "nominal_epsilon", "nominal_delta", "is_dp", "guarantee",
                  "caveats", "reading")


def empty_measures(sensitive: Sequence[str]) -> dict[str, float]:
    """Every measure of a run, NaN (with the per-attribute ones of ``sensitive``)."""
    out = {m: math.nan for m in MEASURES}
    out.update({f"ai_advantage_{s}": math.nan for s in sensitive})
    out.update({f"ai_member_{s}": math.nan for s in sensitive})
    return out


def _aligned_mse(ctx: RunContext, table: pd.DataFrame) -> float:
    scaled = ctx.scaled_train()
    # the training part itself is already encoded (the raw table's release: MSE 0)
    B = scaled.X if ctx.is_training_table(table) else scaled.encode(table[scaled.columns])
    if B.shape != scaled.X.shape or not np.all(np.isfinite(B)):
        return math.nan
    return float(mse(scaled.X, B))


def utility_of(ctx: RunContext, table: pd.DataFrame, seed: int) -> dict[str, Any]:
    """Train-on-``table`` / test-on-holdout scores of the label (:data:`UTILITY_CLASSIFIER`,
    measurement seed ``seed``): :func:`core.evaluation.tasks.score_task`'s accuracy, ROC
    AUC and balanced accuracy with their intervals; once per seed for the training part itself."""
    label = ctx.train.label
    features = [c for c in table.columns if c != label]
    return ctx.for_training(f"utility {seed}", table, lambda: score_task(
        table, ctx.holdout, label, features, classifier=UTILITY_CLASSIFIER, random_state=seed))


def _utility_columns(scores: Mapping[str, Any]) -> dict[str, float]:
    """The runs' utility columns of a classifier's scores."""
    return {name: float(scores[key]) for name, key in UTILITY_SCORES.items()}


def attack_attribute(ctx: RunContext, table: pd.DataFrame, sensitive: str, seed: int) -> dict[str, Any]:
    """Attribute inference of ``sensitive`` from ``table`` (:func:`attacks.attribute_inference`,
    on the holdout and the member targets); once per seed for the training part itself."""
    return ctx.for_training(f"attribute inference {sensitive} {seed}", table, lambda: attacks.attribute_inference(
        table, ctx.holdout, target=sensitive, classifier=UTILITY_CLASSIFIER, random_state=seed,
        members=ctx.member_targets()))


def dcr_of(ctx: RunContext, table: pd.DataFrame) -> dict[str, Any]:
    """DCR of ``table`` against the comparison's reference (:meth:`RunContext.dcr_reference`);
    once for the training part itself (the raw table: the references and its release)."""
    return ctx.for_training("dcr raw", table, lambda: ctx.dcr_reference().measure(table))


def _attribute_inference(ctx: RunContext, table: pd.DataFrame, seed: int, out: dict[str, float]) -> None:
    """``ai_advantage_<s>`` and ``ai_member_<s>`` of each sensitive attribute into ``out``, and
    the frontier's largest of each, at least 0 (an attacker worse than guessing leaks nothing)."""
    for s in ctx.train.sensitive:
        ai = attack_attribute(ctx, table, s, seed)
        out[f"ai_advantage_{s}"] = float(ai["advantage"])
        out[f"ai_member_{s}"] = float(ai["member_advantage"])
    if ctx.train.sensitive:
        out["ai_advantage"] = max(0.0, *(out[f"ai_advantage_{s}"] for s in ctx.train.sensitive))
        out["ai_member"] = max(0.0, *(out[f"ai_member_{s}"] for s in ctx.train.sensitive))


def fidelity_means(real: pd.DataFrame, release: pd.DataFrame, *, max_rows: int = FIDELITY_ROWS,
                   random_state: RandomState = None) -> dict[str, float]:
    """The mean column-shape and pair-trend scores (SDMetrics' definitions,
    :mod:`core.evaluation.fidelity`) over the columns both tables share.

    Parameters
    ----------
    real : DataFrame
        The training part (private: the scores are evaluation, never part of a release).
    release : DataFrame
        The released table.
    max_rows : int
        Rows of each side read at most: above it a seeded sample of ``max_rows`` rows
        (:func:`core.evaluation.fidelity.capped`: the same positions on both sides when they
        have as many rows, so an aligned release equal to the real table still scores 1).
    random_state : int, Generator or None
        Seeds the sample.

    Returns
    -------
    dict
        ``column_shape`` and ``pair_trend`` (NaN scores left out of the means; NaN when
        nothing is left: no shared column, no pair, or an empty table).
    """
    for value, name in ((real, "real"), (release, "release")):
        if not isinstance(value, pd.DataFrame):
            raise TypeError(f"{name} must be a pandas DataFrame, got {type(value).__name__}.")
    max_rows = check_positive_int(max_rows, name="max_rows")
    nothing = {"column_shape": math.nan, "pair_trend": math.nan}
    shared = [c for c in real.columns if c in release.columns]
    if len(real) == 0 or len(release) == 0 or not shared:
        return nothing
    real, release = capped(real[shared], release[shared], max_rows=max_rows, random_state=random_state)
    means = fidelity_summary(real, release)
    return {"column_shape": means["column_shapes"], "pair_trend": means["pair_trends"]}


def measure_table(ctx: RunContext, rel: Release, seed: int) -> dict[str, float]:
    """Utility, fidelity and empirical risk of a released table (measurement seed ``seed``)."""
    out = empty_measures(ctx.train.sensitive)
    table, label = rel.table, ctx.train.label
    out["rows_released"] = float(len(table))
    if len(table) < 2:  # nothing to train on or to compare with
        return out
    if label is not None:
        out.update(_utility_columns(utility_of(ctx, table, seed)))
    tv = marginal_tv(ctx.train.frame, table)
    out["tv_one_way"], out["tv_two_way"] = tv["one_way"], tv["two_way"]
    out.update(fidelity_means(ctx.train.frame, table, random_state=seed))
    if rel.aligned:
        out["mse"] = _aligned_mse(ctx, table)
    _attribute_inference(ctx, table, seed, out)
    dcr = dcr_of(ctx, table)
    out["dcr_risk"], out["dcr_excess"] = float(dcr["risk"]), max(0.0, float(dcr["excess"]))
    out["dcr_recall"] = float(dcr["search_recall"])
    return out


def measure_model(ctx: RunContext, rel: Release, seed: int) -> dict[str, float]:
    """Accuracy, ROC AUC and balanced accuracy on the holdout (from the model's decision
    function) and the membership-inference attack of a released model."""
    out = empty_measures(ctx.train.sensitive)
    X, y, Xh, yh = ctx.model_data()
    d = np.asarray(rel.model.decision_function(Xh), dtype=float)
    proba = np.column_stack([-d, d])  # ranks only: the AUC needs an order, not a probability
    out.update(_utility_columns(classification_scores(yh, proba, [0, 1], predicted=rel.model.predict(Xh))))
    mia = attacks.membership_inference_auc(rel.model, X, y, Xh, yh)
    out["mia_auc"], out["mia_advantage"] = float(mia["auc"]), float(mia["advantage"])
    return out


def formal(ledger: PrivacyLedger, reading: str = "") -> dict[str, Any]:
    """The :data:`FORMAL_COLUMNS` of a release: its ledger's total and nominal budgets,
    whether it is DP, its guarantee and caveats in words, and its ``reading``."""
    eps, dlt = ledger.total()
    nom_eps, nom_dlt = ledger.nominal()
    return {"ledger_epsilon": eps, "ledger_delta": dlt, "nominal_epsilon": nom_eps,
            "nominal_delta": nom_dlt, "is_dp": bool(ledger.is_dp), "guarantee": ledger.describe(),
            "caveats": " ".join(ledger.assumptions), "reading": reading}
