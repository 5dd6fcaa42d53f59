"""Membership inference: can the loss of a trained model tell its training records from others?

:func:`membership_inference_auc` is Yeom et al. (2018)'s loss-threshold attack read over
every threshold: the ROC AUC and the best membership advantage TPR - FPR.
"""
from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.metrics import roc_auc_score, roc_curve

from core.validation import DataError

__all__ = ["membership_inference_auc"]

#: Smallest probability used in a log-loss (a label the model never predicts costs -log of it).
_PROB_FLOOR = 1e-12


def _true_label_log_prob(model: Any, X: Any, y: Any, name: str) -> np.ndarray:
    """log P(true label) under ``model.predict_proba`` (floored at 1e-12)."""
    if isinstance(y, (str, bytes)) or y is None:
        raise TypeError(f"{name}_y must be an array of labels, got {type(y).__name__}.")
    labels = np.asarray(y).ravel()
    if len(labels) == 0:
        raise DataError(f"{name} needs at least one record.")
    proba = np.asarray(model.predict_proba(X), dtype=np.float64)
    if proba.ndim != 2 or proba.shape[0] != len(labels):
        raise ValueError(
            f"{name}_X and {name}_y must have one row per record: predict_proba gave "
            f"{proba.shape[0] if proba.ndim else 0} rows for {len(labels)} labels."
        )
    index = {c: i for i, c in enumerate(np.asarray(model.classes_).tolist())}
    col = np.fromiter((index.get(v, -1) for v in labels.tolist()), dtype=np.int64, count=len(labels))
    p = np.where(col >= 0, proba[np.arange(len(labels)), np.maximum(col, 0)], 0.0)
    return np.log(np.maximum(p, _PROB_FLOOR))


def membership_inference_auc(model: Any, members_X: Any, members_y: Any, nonmembers_X: Any,
                             nonmembers_y: Any) -> dict[str, float]:
    """Loss-threshold membership inference (Yeom et al. 2018, CSF, "Privacy Risk in
    Machine Learning: Analyzing the Connection to Overfitting").

    The attacker scores each record by minus the model's log-loss on it,
    ``log P(true label | x)``, and calls it a member (a training record) when the score is
    high: an overfit model is more confident on the records it was trained on. Yeom et
    al. threshold at the mean training loss; here every threshold is tried (the ROC
    curve), so ``advantage`` is the best any threshold achieves (an upper bound on the
    fixed-threshold attack, and Yeom et al.'s membership advantage TPR - FPR at that
    threshold). Under epsilon-DP the advantage is at most e^epsilon - 1 (Yeom et al.,
    Theorem 1).

    Parameters
    ----------
    model : fitted classifier
        Anything with ``predict_proba(X)`` and ``classes_`` (scikit-learn classifiers,
        pipelines, :class:`core.cdp.logistic.CDPLogisticRegression`).
    members_X, members_y : array_like
        Records the model was trained on, and their labels.
    nonmembers_X, nonmembers_y : array_like
        Records from the same population it was not trained on. Balanced sizes make the
        AUC easiest to read, but it does not depend on them.

    Returns
    -------
    dict
        ``auc``: area under the ROC curve with members as positives, in [0, 1]: 0.5 means
        the loss says nothing about membership (no leak seen), 1 means it separates
        members perfectly. ``advantage``: max over thresholds of TPR - FPR, in [0, 1]:
        0 no leak, 1 every record's membership revealed. ``mean_loss_members``,
        ``mean_loss_nonmembers``: mean log-loss of each group (a gap is overfitting).
        ``n_members``, ``n_nonmembers``.

    Raises
    ------
    TypeError
        ``model`` lacks ``predict_proba`` or ``classes_``, or labels are not an array.
    ValueError
        X and y have different numbers of records.
    DataError
        A group has no record.
    """
    if not callable(getattr(model, "predict_proba", None)) or not hasattr(model, "classes_"):
        raise TypeError(
            f"model must be a fitted classifier with predict_proba and classes_, got {type(model).__name__}."
        )
    s_in = _true_label_log_prob(model, members_X, members_y, "members")
    s_out = _true_label_log_prob(model, nonmembers_X, nonmembers_y, "nonmembers")
    scores = np.concatenate([s_in, s_out])
    is_member = np.concatenate([np.ones(len(s_in)), np.zeros(len(s_out))])
    fpr, tpr, _ = roc_curve(is_member, scores)
    return {
        "auc": float(roc_auc_score(is_member, scores)),
        "advantage": float(max(0.0, np.max(tpr - fpr))),
        "mean_loss_members": float(-s_in.mean()),
        "mean_loss_nonmembers": float(-s_out.mean()),
        "n_members": len(s_in), "n_nonmembers": len(s_out),
    }
