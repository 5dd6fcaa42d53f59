"""What the IMPOSTER page says in words (paper 002): the detection's two verdicts, the
attributes they flag, and the sentences beside Table 1, the trade-off and kRR.

Pure functions of the detection result and the tables the page computed (no streamlit, no
computing): each returns markdown (names escaped with :func:`dashboard.shared.safe.md`) or a
small table, so the tests read them without a page.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from core.evaluation.metrics import below_reference
from core.imposter import krr_ledger
from core.imposter.detection import DetectionResult
from core.privacy.schema import PublicSchema
from dashboard.shared.safe import md

__all__ = ["RULE_NAMES", "verdict_lines", "flagged_gains", "nothing_to_protect", "tradeoff_points",
           "table1_references", "tradeoff_references", "krr_note"]

#: the two rules, as the page names them
RULE_NAMES = {"default": "the default rule (gain over the constant guess)",
              "paper": "the paper's rule (theta, beta)"}


def _gain_text(scores: pd.DataFrame, attributes) -> str:
    rows = scores.set_index("attribute")
    return ", ".join(f"{md(a)} {rows.loc[a, 'gain']:+.3f} [{rows.loc[a, 'gain_lo']:+.3f}, "
                     f"{rows.loc[a, 'gain_hi']:+.3f}]" for a in attributes)


def verdict_lines(det: DetectionResult, *, sensitive: str) -> list[tuple[str, str]]:
    """The two verdicts side by side, as (``st`` function, markdown) pairs: the default
    rule's (with each flagged attribute's gain and interval) and the paper's (with the
    gain of each attribute it flags); names escaped."""
    s = md(sensitive)
    lines: list[tuple[str, str]] = []
    if det.default_implicit:
        lines.append(("success", f"**Default rule:** {len(det.default_implicit)} attribute(s) predict {s} better "
                                 f"than the constant guess ({det.majority_share:.3f}): "
                                 f"{_gain_text(det.scores, det.default_implicit)} (gain, {det.confidence:.0%} "
                                 "interval)."))
    else:
        lines.append(("info", f"**Default rule:** no implicit attribute found: no attribute predicts {s} "
                              f"better than always guessing its most common value ({det.majority_share:.3f}) "
                              "by a margin its held-out interval supports. IMPOSTER has nothing to remove."))
    tau = "n/a" if det.tau != det.tau else f"{det.tau:.3f}"
    lo, hi = det.tau_interval
    tau_ci = f" [{lo:.3f}, {hi:.3f}]" if lo == lo and hi == hi else ""
    if det.paper_implicit:
        zero = [a for a in det.paper_implicit if a not in det.default_implicit]
        text = (f"**The paper's rule:** flags {_gain_text(det.scores, det.paper_implicit)} (tau = {tau}{tau_ci} "
                f"≥ beta = {det.beta:g}; majority share {det.majority_share:.3f}).")
        if zero:
            text += (f" {len(zero)} of them gain nothing the held-out interval supports: the paper's rule has "
                     "no reference.")
        lines.append(("warning" if zero else "success", text))
    elif det.candidates:
        lines.append(("warning", f"**The paper's rule:** flags nothing: the {len(det.candidates)} candidate(s) "
                                 f"predict {s} with tau = {tau}{tau_ci} < beta = {det.beta:g}."))
    else:
        lines.append(("warning", f"**The paper's rule:** flags nothing: no attribute reaches theta = "
                                 f"{det.theta:g}."))
    if det.metric == "accuracy" and det.tau == det.tau:
        sentence = below_reference(det.tau, det.majority_share)
        if sentence:
            lines.append(("warning", "The paper's tau: " + sentence))
    return lines


def flagged_gains(det: DetectionResult) -> pd.DataFrame:
    """One row per attribute either rule flags: its held-out accuracy, gain and interval,
    NMI and the two verdicts (the table under the detection chart)."""
    flagged = set(det.default_implicit) | set(det.paper_implicit)
    rows = det.scores[det.scores["attribute"].isin(flagged)]
    return pd.DataFrame({
        "attribute": rows["attribute"].astype(str),
        "held-out accuracy": rows["accuracy"].astype(float),
        "gain": rows["gain"].astype(float), "gain: lower end": rows["gain_lo"].astype(float),
        "gain: upper end": rows["gain_hi"].astype(float), "NMI": rows["nmi"].astype(float),
        "default rule": np.where(rows["flagged"], "implicit", "–"),
        "paper's rule": np.where(rows["paper_flagged"], "implicit", "–"),
    }).reset_index(drop=True)


def nothing_to_protect(det: DetectionResult, *, presenting: bool = False) -> str:
    """The sentence beside a disabled Train: no attribute chosen to protect, and why."""
    if not det.default_implicit:
        text = ("No implicit attribute found, so IMPOSTER has nothing to remove: training it would only copy "
                "the table.")
    else:
        text = "No attribute is chosen to protect, so there is nothing to train for."
    if not presenting:
        text += " Choose attributes to protect above to train anyway."
    return text


def tradeoff_points(point_table: pd.DataFrame) -> tuple[tuple[float, float], tuple[float, float], float]:
    """From a one-classifier Table 1: IMPOSTER's (sensitive, label) accuracy on the
    synthetic table (setting B), the real table's (setting A), and the synthetic majority share."""
    row = point_table.iloc[0]
    point = (float(row[("B", "sensitive", "accuracy")]), float(row[("B", "label", "accuracy")]))
    real = (float(row[("A", "sensitive", "accuracy")]), float(row[("A", "label", "accuracy")]))
    return point, real, float(point_table.attrs["majority_synthetic"])


def table1_references(table: pd.DataFrame) -> list[str]:
    """Table 1's accuracies that fall to their constant guess, said in words
    (:func:`core.evaluation.metrics.below_reference`): the attacker on the real table (no leak to
    remove) and each label accuracy (A, B, train synthetic / test real)."""
    sens, lab = table.attrs.get("sensitive", "s"), table.attrs.get("label", "the label")
    out = []
    checks = [(("A", "sensitive", "accuracy"), "majority_real",
               f"On the real table the attacker predicting {md(sens)} from the implicit attributes", " — "
               "there was no leak to remove"),
              (("A", "label", "accuracy"), "label_majority_real", f"On the real table {md(lab)}", ""),
              (("B", "label", "accuracy"), "label_majority_synthetic", f"On the synthetic table {md(lab)}", ""),
              (("TSTR", "label", "accuracy"), "label_majority_real",
               f"Trained on the synthetic table and tested on the real one, {md(lab)}", "")]
    for col, ref_key, who, tail in checks:
        if col not in table.columns or ref_key not in table.attrs:
            continue
        for clf, value in table[col].astype(float).items():
            sentence = below_reference(value, float(table.attrs[ref_key]))
            if sentence:
                out.append(f"{who} ({md(clf)}): {sentence}{tail}")
    return out


def tradeoff_references(point: tuple[float, float], label_majority: float | None) -> list[str]:
    """IMPOSTER's label accuracy under its constant guess, said in words (empty otherwise)."""
    if label_majority is None:
        return []
    sentence = below_reference(point[1], float(label_majority))
    return [f"IMPOSTER's synthetic table, label accuracy: {sentence}"] if sentence else []


def krr_note(implicit: list[str] | tuple[str, ...], columns: list[str],
             schema: PublicSchema | None = None) -> str:
    """The sentence under the kRR comparison: what kRR's table spends and why it is not DP."""
    ledger = krr_ledger(list(implicit), 1.0, table_columns=list(columns), schema=schema)
    return (f"kRR's table: each record spends {len(implicit)} x epsilon on its perturbed values. "
            + (" ".join(ledger.not_dp_reasons) + " So it is not differentially private as a whole."
               if not ledger.is_dp else ""))
