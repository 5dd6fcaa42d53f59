"""Utility and leakage metrics shared by the pages and the reproductions.

Papers add their own here: count-query MAE (Eq. 22 of 000), MSE and record linkage
(Eq. 22-23 of 003), attribute inference.
"""
from __future__ import annotations

import numpy as np
from sklearn.metrics import accuracy_score, f1_score

__all__ = ["accuracy", "f1", "majority_share"]


def accuracy(y_true, y_pred) -> float:
    """Share of predictions equal to the truth."""
    return float(accuracy_score(y_true, y_pred))


def f1(y_true, y_pred) -> float:
    """F1 score: binary F1 of the positive class for two classes, macro F1 otherwise."""
    labels = np.unique(np.asarray(y_true))
    average = "binary" if len(labels) == 2 else "macro"
    pos = labels[-1] if average == "binary" else 1
    return float(f1_score(y_true, y_pred, average=average, pos_label=pos, zero_division=0))


def majority_share(y) -> float:
    """Accuracy of always guessing the most common class (the no-leak floor)."""
    _, counts = np.unique(np.asarray(y), return_counts=True)
    return float(counts.max() / counts.sum())


# ---------------------------------------------------------------------------------------
# Paper 000 (CDP-LR): count-query error of published data (Eq. 22).
# ---------------------------------------------------------------------------------------
__all__ += ["count_query_mae"]


def count_query_mae(noisy, true_reduced, true_original) -> float:
    """Eq. 22 of paper 000: mean over queries of |noisy - true(reduced)| + |true(reduced) - true(original)|.

    Parameters
    ----------
    noisy : array_like of shape (q,)
        Noisy answers on the published (feature-selected) data.
    true_reduced : array_like of shape (q,)
        Exact answers on the feature-selected data (conditions on removed attributes
        dropped): the first term is the error the noise adds.
    true_original : array_like of shape (q,)
        Exact answers on the original data: the second term is the error feature
        selection adds.
    """
    a = np.asarray(noisy, dtype=float)
    b = np.asarray(true_reduced, dtype=float)
    c = np.asarray(true_original, dtype=float)
    if not (a.shape == b.shape == c.shape) or a.ndim != 1 or len(a) == 0:
        raise ValueError("noisy, true_reduced and true_original must be 1-D, non-empty, of one length.")
    return float(np.mean(np.abs(a - b) + np.abs(b - c)))
