"""What every number of a comparison is read against: the references, once per comparison.

:func:`references` puts the utility beside the majority share of the holdout's label (the
constant guess) and the utility classifier trained on the real training part (the
non-private model); each risk beside the **raw table** (the training rows released as they
are: no protection) and its **control** (what a release that tells nothing about the people
in it would give), with Wilson intervals; the MSE beside the raw table (0) and a random
release. Attribute inference is read twice: ``ai_advantage`` (the population: accuracy on the
holdout above the constant guess, its control) and ``ai_member`` (the people in the release:
accuracy on a sample of training records above accuracy on the holdout, the control records
the release never saw, as Anonymeter's inference evaluator does; github.com/statice/anonymeter,
Giomi et al. 2023). When the raw table's interval does not lie above its control's, the attack
**has no power on this table** and the comparison's takeaway recommends nothing from that risk.
"""
from __future__ import annotations

import math
from typing import Any, Sequence

from core.compare.context import RunContext
from core.compare.measures import (
    CONTROL_WORDS,
    UTILITY_CLASSIFIER,
    UTILITY_SCORES,
    attack_attribute,
    dcr_of,
    utility_of,
)
from core.compare.methods import nonprivate_logistic
from core.evaluation import attacks
from core.evaluation.classification import GUESS_WORDS, INTERVAL_WORDS, SCORE_WORDS, guess_scores, undefined_note
from core.evaluation.metrics import proportion_interval
from core.runtime.randomness import display_rng
from core.sskm.references import RANDOM_WORDS, random_release, table_levels
from core.validation import DataError

__all__ = ["references"]


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


def _ai_entries(ai: dict[str, Any], s: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The population and the members entries of one sensitive attribute's attack ``ai``."""
    n_h, n_m, maj = ai["n_holdout"], ai["n_members"], ai["majority"]
    acc_lo, acc_hi = _share(ai["accuracy"], n_h)
    pop = _risk_entry(f"ai_advantage_{s}", ai["advantage"], [acc_lo - maj, acc_hi - maj], 0.0, None,
                      acc_lo > maj, CONTROL_WORDS["ai_advantage"])
    m_lo, m_hi = _share(ai["accuracy_members"], n_m)
    base = ai["accuracy"]
    mem = _risk_entry(f"ai_member_{s}", ai["member_advantage"], [m_lo - base, m_hi - base], 0.0,
                      [acc_lo - base, acc_hi - base], m_lo > acc_hi, CONTROL_WORDS["ai_member"])
    return pop, mem


def _frontier_entry(name: str, entries: list[dict[str, Any]]) -> dict[str, Any]:
    """The frontier's risk ``name`` over the attributes' ``entries``: the strongest attack
    with power (else the largest), its raw value at least 0."""
    top = max(entries, key=lambda e: e["raw"])
    strong = [e for e in entries if e["power"]]
    pick = max(strong, key=lambda e: e["raw"]) if strong else top
    entry = dict(pick, measure=name, raw=max(0.0, pick["raw"]))
    if len(entries) > 1:
        entry["sentence"] = (f"Over {len(entries)} sensitive attributes, the strongest: " + pick["sentence"]
                             if strong else f"For each of the {len(entries)} sensitive attributes: "
                             + " ".join(e["sentence"] for e in entries))
    return entry


def _ai_references(ctx: RunContext, seed: int) -> dict[str, dict[str, Any]]:
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
        ai = attack_attribute(ctx, ctx.train.frame, s, seed)
        p, m = _ai_entries(ai, s)
        out[p["measure"]], out[m["measure"]] = p, m
        pop.append(p)
        mem.append(m)
    for name, entries in (("ai_advantage", pop), ("ai_member", mem)):
        if entries:  # the frontier's risk is the largest over the attributes, at least 0
            out[name] = _frontier_entry(name, entries)
    return out


def _utility_reference(ctx: RunContext, seed: int) -> dict[str, Any] | None:
    """The constant guess and the non-private model on each utility measure, with their
    intervals (None: no label).

    The top-level keys read accuracy (``majority``, ``nonprivate`` and their intervals); ``by
    measure`` holds, per utility column (:data:`UTILITY_SCORES`), the ``guess`` and
    ``nonprivate`` values with their 95% intervals (:mod:`core.evaluation.classification`:
    the guess's interval is where a model that learned nothing lands by chance), and
    ``undefined`` says in a sentence why AUC and balanced accuracy are missing when the held-out
    records hold one class only."""
    label = ctx.train.label
    if label is None or not ctx.train.frame[label].notna().any():
        return None
    y = ctx.holdout[label].dropna().astype(str)
    n = int(len(y))
    guess = guess_scores(y.to_numpy())
    model = utility_of(ctx, ctx.train.frame, seed) if n else {}
    by_measure = {}
    for name, key in UTILITY_SCORES.items():
        by_measure[name] = {
            "guess": float(guess[key]), "guess_interval": list(guess[f"{key}_interval"]),
            "nonprivate": float(model.get(key, math.nan)),
            "nonprivate_interval": list(model.get(f"{key}_interval", [math.nan, math.nan])),
            "words": SCORE_WORDS[key], "guess_words": GUESS_WORDS[key]}
    acc = by_measure["utility"]
    return {"majority": acc["guess"], "majority_interval": acc["guess_interval"], "nonprivate": acc["nonprivate"],
            "nonprivate_interval": acc["nonprivate_interval"], "n": n, "classes": int(guess["classes_held_out"]),
            "by_measure": by_measure, "intervals": INTERVAL_WORDS,
            "undefined": undefined_note(int(guess["classes_held_out"])),
            "nonprivate_words": f"the utility classifier ({UTILITY_CLASSIFIER}) trained on the real "
                                "training part"}


def _dcr_reference(ctx: RunContext) -> dict[str, Any] | None:
    """The raw table's excess DCR risk against its control (None: DCR cannot be measured)."""
    try:
        dcr = dcr_of(ctx, ctx.train.frame)
    except (DataError, ValueError):
        return None
    n, b = int(dcr["n_measured"]), float(dcr["baseline"])
    lo, hi = _share(float(dcr["risk"]), n)
    return _risk_entry("dcr_excess", float(dcr["excess"]), [lo - b, hi - b], 0.0, None, lo > b,
                       CONTROL_WORDS["dcr_excess"])


def _mia_reference(ctx: RunContext) -> dict[str, Any] | None:
    """The non-private logistic regression's membership AUC against guessing (None: no model)."""
    try:
        X, yb, Xh, yh = ctx.model_data()
        lr = nonprivate_logistic(ctx)
        mia = attacks.membership_inference_auc(lr, X, yb, Xh, yh)
    except (DataError, ValueError):
        return None
    n1, n0 = len(yb), len(yh)
    se = math.sqrt((n1 + n0 + 1) / (12.0 * n1 * n0))  # the AUC's spread under no leak (Mann-Whitney)
    auc = float(mia["auc"])
    entry = _risk_entry("mia_auc", auc, [auc - 1.96 * se, auc + 1.96 * se], 0.5,
                        [0.5 - 1.96 * se, 0.5 + 1.96 * se], auc - 1.96 * se > 0.5, CONTROL_WORDS["mia_auc"])
    entry["sentence"] = entry["sentence"].replace("the raw table", "the non-private logistic regression")
    return entry


def _mse_reference(ctx: RunContext) -> dict[str, Any] | None:
    """The raw table's MSE (0) and a random release's (None: the table cannot be scaled).

    The random release is SSKM_DP's (:func:`core.sskm.references.random_release` over
    :func:`~core.sskm.references.table_levels` of the scaled training part): each attribute
    uniform over its public domain, a category on one of its codes, never between two; one
    draw from the run's display generator."""
    try:
        scaled = ctx.scaled_train()
        rng = display_rng(ctx.base_seed, "random release")
        _, loss = random_release(scaled.X, table_levels(scaled), random_state=rng)
        return {"raw": 0.0, "random": float(loss), "random_words": f"a random release ({RANDOM_WORDS})"}
    except (DataError, ValueError):
        return None


def references(ctx: RunContext, seed: int, *, models: bool) -> dict[str, Any]:
    """The numbers every measure is read against (computed once, with repetition 0's
    measurement seed: the raw table's values equal its repetition-0 row).

    Returns
    -------
    dict
        ``n_holdout`` and ``n_members`` (records attacked); ``utility``: the majority share
        of the holdout's label (the constant guess) and the utility classifier trained on the
        real training part (the non-private model), each with its Wilson interval over the
        holdout. ``risks``: per risk measure the raw table (no protection), the control, and
        whether the attack has power (with the sentence that says so); ``mia_auc`` only when
        ``models``. ``mse``: the raw table (0) and a random release (uniform rows in the
        schema's domain, categories on their codes: :func:`core.sskm.references.random_release`).
        A reference that cannot be measured on this table is left out (None), as the releases'
        own measures fail alike and say why.
    """
    out: dict[str, Any] = {"n_holdout": int(len(ctx.holdout)), "n_members": 0,
                           "utility": _utility_reference(ctx, seed), "risks": {}, "mse": None}
    if ctx.train.sensitive:
        try:
            out["risks"].update(_ai_references(ctx, seed))
            out["n_members"] = int(len(ctx.member_targets()))
        except (DataError, ValueError):  # the releases' own measures fail alike and say why
            pass
    dcr = _dcr_reference(ctx)
    if dcr is not None:
        out["risks"]["dcr_excess"] = dcr
    if models:
        mia = _mia_reference(ctx)
        if mia is not None:
            out["risks"]["mia_auc"] = mia
    out["mse"] = _mse_reference(ctx)
    return out
