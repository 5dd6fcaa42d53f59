"""One classification task scored: train a classifier on one table, score it on another.

:func:`score_task` is paper 002's task (Table 1's settings, train on synthetic / test on real)
and every utility measure and attribute-inference attack of the comparison: the same encoding
and classifiers (:mod:`core.evaluation.classifiers`), scored by
:func:`core.evaluation.classification.classification_scores`. It lives here, below IMPOSTER
(:mod:`core.imposter.evaluation` and the attacks of :mod:`core.evaluation.attacks` both read it).
"""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np
import pandas as pd
from sklearn.metrics import accuracy_score, f1_score

from core.evaluation.classification import classification_scores
from core.evaluation.classifiers import encode_target, few_threads, make_classifier, prepare_frame
from core.runtime.randomness import RandomState

__all__ = ["score_task"]


def _scores(y_true: np.ndarray, y_pred: np.ndarray) -> dict[str, float]:
    return {
        "accuracy": float(accuracy_score(y_true, y_pred)),
        "f1": float(f1_score(y_true, y_pred, average="macro", zero_division=0)),
    }


def score_task(
    train: pd.DataFrame, test: pd.DataFrame, target: str, features: Sequence[str], *,
    classifier: str, random_state: RandomState = None,
) -> dict[str, Any]:
    """Fit ``classifier`` on ``train[features] -> train[target]`` and score it on ``test``.

    Returns
    -------
    dict
        :func:`core.evaluation.classification.classification_scores` of the model's
        probabilities: ``accuracy``, ``auc`` (macro one-vs-rest over the test's classes),
        ``balanced_accuracy`` and macro ``f1``, each of the first three with its 95%
        ``<score>_interval``; ``classes_held_out`` (AUC and balanced accuracy are NaN when the
        test rows hold one class only). A one-class training set scores every record alike.
    """
    train = train[train[target].notna()]
    test = test[test[target].notna()]
    y_tr_raw, y_te_raw = train[target].astype(str), test[target].astype(str)
    classes = np.array(sorted(set(y_tr_raw) | set(y_te_raw)))
    y_tr, _ = encode_target(y_tr_raw, classes)
    y_te, _ = encode_target(y_te_raw, classes)
    X_tr = prepare_frame(train, features)
    X_te = prepare_frame(test, features)
    present = np.unique(y_tr)
    proba = np.zeros((len(y_te), len(classes)))
    if len(present) < 2:  # a one-class training set: the model can only say that class
        proba[:, present[0]] = 1.0
        return classification_scores(y_te, proba, np.arange(len(classes)))
    # xgboost needs consecutive class codes
    remap = {c: i for i, c in enumerate(present)}
    model = make_classifier(classifier, X_tr, list(features), random_state=random_state)
    with few_threads():
        model.fit(X_tr, np.array([remap[c] for c in y_tr]))
        if len(y_te):
            proba[:, present] = model.predict_proba(X_te)
    return classification_scores(y_te, proba, np.arange(len(classes)))
