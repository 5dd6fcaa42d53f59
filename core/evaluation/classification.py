"""A classifier's scores as practitioners read them: accuracy, ROC AUC and balanced accuracy,
each beside the constant guess, with a 95% interval.

- **Accuracy**: the share of held-out records predicted right; the constant guess (always
  the commonest class) scores the majority share. Interval: Wilson's.
- **ROC AUC**: how well the model's scores rank a class above the others, from the
  predicted probabilities; for more than two classes the macro mean of the one-vs-rest
  AUCs over the classes the held-out records hold. A constant guess ranks nothing: 0.5.
  Interval: Hanley & McNeil's (1982) standard error of each one-vs-rest AUC; for the macro
  mean, the root of the mean squared errors over the square root of K, as if the K AUCs
  were independent (they are not quite: read it as approximate).
- **Balanced accuracy**: the mean of the per-class recalls over the classes the held-out
  records hold; the constant guess scores 1/K for K classes. Interval: the normal
  approximation with each recall's binomial variance.

The guess's interval is where a model that learned nothing lands by chance on these
held-out records: for AUC, the Mann-Whitney spread of scores independent of the label; for
balanced accuracy, a predictor that draws each class with probability 1/K; for accuracy,
the Wilson interval of the majority share. A held-out part that holds one class only has no
AUC and no balanced accuracy to speak of: NaN, and :func:`undefined_note` says why in words.
These scores read the private held-out rows: they describe a release, they are not part of it.
"""
from __future__ import annotations

import math
from typing import Any, Mapping, Sequence

import numpy as np
from scipy.stats import norm
from sklearn.metrics import accuracy_score, f1_score, roc_auc_score

from core.evaluation.metrics import majority_share, proportion_interval

__all__ = ["SCORES", "SCORE_WORDS", "GUESS_WORDS", "classification_scores", "binary_scores", "guess_scores",
           "undefined_note", "INTERVAL_WORDS"]

#: The scores of a classifier, in the order pages show them.
SCORES = ("accuracy", "auc", "balanced_accuracy")
#: Each score in words.
SCORE_WORDS: Mapping[str, str] = {"accuracy": "accuracy", "auc": "ROC AUC", "balanced_accuracy": "balanced accuracy"}
#: What the constant guess scores on each, in words.
GUESS_WORDS: Mapping[str, str] = {
    "accuracy": "the majority share (always guessing the commonest class)",
    "auc": "0.5 (a constant score ranks nothing)",
    "balanced_accuracy": "1/K for K classes (a constant guess recalls one class of K)",
}
#: How the intervals are computed, in one sentence for the pages.
INTERVAL_WORDS = ("95% intervals over the held-out records: Wilson's for accuracy, Hanley & McNeil's for ROC AUC "
                  "(macro one-vs-rest for more than two classes, read as approximate), the normal approximation "
                  "of the per-class recalls for balanced accuracy.")

_Z = float(norm.ppf(0.975))


def _hanley_mcneil_var(auc: float, n_pos: int, n_neg: int) -> float:
    """Hanley & McNeil's (1982) variance of an AUC from ``n_pos`` positives and ``n_neg`` negatives."""
    q1, q2 = auc / (2 - auc), 2 * auc * auc / (1 + auc)
    return (auc * (1 - auc) + (n_pos - 1) * (q1 - auc * auc) + (n_neg - 1) * (q2 - auc * auc)) / (n_pos * n_neg)


def _null_auc_var(n_pos: int, n_neg: int) -> float:
    """The Mann-Whitney variance of an AUC whose scores do not depend on the label."""
    return (n_pos + n_neg + 1) / (12.0 * n_pos * n_neg)


def _clip(lo: float, hi: float) -> list[float]:
    return [float(max(0.0, lo)), float(min(1.0, hi))]


def _check_labels(y_true: Any, classes: Sequence[Any]) -> tuple[np.ndarray, np.ndarray]:
    y = np.asarray(y_true)
    if y.ndim != 1:
        raise ValueError(f"y_true must be one label per record (1-D), got shape {y.shape}.")
    cls = np.asarray(list(classes))
    if cls.ndim != 1 or len(np.unique(cls)) != len(cls):
        raise ValueError("classes must list each class once.")
    return y, cls


def classification_scores(y_true: Any, proba: Any, classes: Sequence[Any], *,
                          predicted: Any = None) -> dict[str, Any]:
    """Accuracy, ROC AUC, balanced accuracy and macro F1 of predicted probabilities, with intervals.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        The held-out records' labels (private: the scores are evaluation, never released).
    proba : array-like of shape (n, len(classes))
        Each record's predicted probability of each class (rows need not sum to 1; a model
        that never saw a class gives it 0). The prediction is the class of highest
        probability, ties to the first.
    classes : sequence
        The classes, in ``proba``'s column order; every label in ``y_true`` must be one.
    predicted : array-like of shape (n,), optional
        The model's own predictions (labels among ``classes``), where its rule differs from
        the highest probability (a linear model's threshold at 0 includes the tie).

    Returns
    -------
    dict
        ``accuracy``, ``auc``, ``balanced_accuracy``, ``f1`` (macro) and ``<score>_interval``
        for the first three (95%, see the module), ``n`` and ``classes_held_out`` (K). AUC
        and balanced accuracy are NaN when the held-out records hold one class only.
    """
    y, cls = _check_labels(y_true, classes)
    P = np.asarray(proba, dtype=float)
    if P.ndim != 2 or P.shape != (len(y), len(cls)):
        raise ValueError(f"proba must have one row per record and one column per class, {(len(y), len(cls))}; "
                         f"got {P.shape}.")
    if not np.all(np.isfinite(P)):
        raise ValueError("proba must be finite.")
    index = {c: i for i, c in enumerate(cls.tolist())}
    try:
        codes = np.array([index[v] for v in y.tolist()], dtype=np.int64)
    except KeyError as err:
        raise ValueError(f"y_true holds a label that is not among the classes: {err.args[0]!r}.") from None
    n = len(codes)
    if predicted is None:
        pred = P.argmax(axis=1) if n else np.array([], dtype=np.int64)
    else:
        given = np.asarray(predicted)
        if given.shape != y.shape:
            raise ValueError(f"predicted must hold one label per record, {y.shape}; got {given.shape}.")
        try:
            pred = np.array([index[v] for v in given.tolist()], dtype=np.int64)
        except KeyError as err:
            raise ValueError(f"predicted holds a label that is not among the classes: {err.args[0]!r}.") from None
    out: dict[str, Any] = {"n": n}
    acc = float(accuracy_score(codes, pred)) if n else math.nan
    out["accuracy"], out["accuracy_interval"] = acc, list(proportion_interval(acc * n, n)) if n else [math.nan] * 2
    out["f1"] = float(f1_score(codes, pred, average="macro", zero_division=0)) if n else math.nan
    held = np.unique(codes)
    out["classes_held_out"] = int(len(held))
    if len(held) < 2:
        out.update(auc=math.nan, auc_interval=[math.nan, math.nan], balanced_accuracy=math.nan,
                   balanced_accuracy_interval=[math.nan, math.nan])
        return out
    out.update(_ranking_scores(codes, pred, P, held))
    return out


def _ranking_scores(codes: np.ndarray, pred: np.ndarray, P: np.ndarray, held: np.ndarray) -> dict[str, Any]:
    """ROC AUC (macro one-vs-rest over ``held``) and balanced accuracy, with their intervals."""
    aucs, auc_vars, recalls, recall_vars = [], [], [], []
    for k in held:
        pos = codes == k
        n_pos, n_neg = int(pos.sum()), int((~pos).sum())
        a = float(roc_auc_score(pos, P[:, k]))
        aucs.append(a)
        auc_vars.append(_hanley_mcneil_var(a, n_pos, n_neg))
        r = float(np.mean(pred[pos] == k))
        recalls.append(r)
        recall_vars.append(r * (1 - r) / n_pos)
    K = len(held)
    auc = float(np.mean(aucs))
    # binary: the two one-vs-rest AUCs are one number; macro over K classes otherwise
    se_auc = math.sqrt(auc_vars[0]) if K == 2 else math.sqrt(float(np.mean(auc_vars)) / K)
    bal = float(np.mean(recalls))
    se_bal = math.sqrt(float(np.sum(recall_vars))) / K
    return {"auc": auc, "auc_interval": _clip(auc - _Z * se_auc, auc + _Z * se_auc), "balanced_accuracy": bal,
            "balanced_accuracy_interval": _clip(bal - _Z * se_bal, bal + _Z * se_bal)}


def binary_scores(y_true: Any, decision: Any) -> dict[str, float]:
    """ROC AUC and balanced accuracy of a two-class model from its decision values, fast
    (no interval: for the many runs of a slider; :func:`classification_scores` gives them).

    Parameters
    ----------
    y_true : array-like of 0 / 1
        The held-out labels.
    decision : array-like of float
        The model's decision value per record; it predicts 1 at 0 or above.

    Returns
    -------
    dict
        ``auc`` (Mann-Whitney, ties counted half) and ``balanced_accuracy``; both NaN when the
        labels hold one class only.
    """
    from scipy.stats import rankdata

    y = np.asarray(y_true).astype(bool)
    d = np.asarray(decision, dtype=float)
    if y.shape != d.shape or y.ndim != 1:
        raise ValueError(f"y_true and decision must be 1-D and of one length, got {y.shape} and {d.shape}.")
    n1 = int(y.sum())
    n0 = len(y) - n1
    if n1 == 0 or n0 == 0:
        return {"auc": math.nan, "balanced_accuracy": math.nan}
    ranks = rankdata(d)
    auc = (float(ranks[y].sum()) - n1 * (n1 + 1) / 2) / (n1 * n0)
    pred = d >= 0
    bal = 0.5 * (float(np.mean(pred[y])) + float(np.mean(~pred[~y])))
    return {"auc": auc, "balanced_accuracy": bal}


def guess_scores(y_true: Any) -> dict[str, Any]:
    """What the constant guess scores on ``y_true``, with the interval a model that learned
    nothing falls in by chance (see the module).

    Returns
    -------
    dict
        ``accuracy`` (the majority share), ``auc`` (0.5) and ``balanced_accuracy`` (1/K), each
        with ``<score>_interval``; ``n`` and ``classes_held_out`` (K). AUC and balanced
        accuracy are NaN when the held-out records hold one class only.
    """
    y = np.asarray(y_true)
    n = int(len(y))
    values, counts = np.unique(y.astype(str), return_counts=True) if n else (np.array([]), np.array([]))
    K = int(len(values))
    maj = majority_share(y.astype(str)) if n else math.nan
    out: dict[str, Any] = {"n": n, "classes_held_out": K, "accuracy": maj,
                           "accuracy_interval": list(proportion_interval(maj * n, n)) if n else [math.nan] * 2}
    if K < 2:
        out.update(auc=math.nan, auc_interval=[math.nan, math.nan], balanced_accuracy=math.nan,
                   balanced_accuracy_interval=[math.nan, math.nan])
        return out
    null_vars = [_null_auc_var(int(c), n - int(c)) for c in counts]
    se_auc = math.sqrt(null_vars[0]) if K == 2 else math.sqrt(float(np.mean(null_vars)) / K)
    p = 1.0 / K
    se_bal = math.sqrt(float(np.sum([p * (1 - p) / int(c) for c in counts]))) / K
    out.update(auc=0.5, auc_interval=_clip(0.5 - _Z * se_auc, 0.5 + _Z * se_auc), balanced_accuracy=p,
               balanced_accuracy_interval=_clip(p - _Z * se_bal, p + _Z * se_bal))
    return out


def undefined_note(classes_held_out: int, *, what: str = "the held-out records") -> str | None:
    """The sentence said in place of an AUC and a balanced accuracy that do not exist (None when they do)."""
    if classes_held_out >= 2:
        return None
    held = "no labelled record" if classes_held_out == 0 else "one class only"
    return (f"{what[0].upper() + what[1:]} hold {held}: ROC AUC and balanced accuracy are undefined there "
            "(nothing to rank or to balance), so only accuracy is shown.")
