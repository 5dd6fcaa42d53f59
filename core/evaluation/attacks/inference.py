"""Attribute inference: how well a model trained on a release guesses a sensitive column of real records.

:func:`attribute_inference` trains paper 002's classifiers on the release only and tests
them on real records (train on synthetic, test on real), against always guessing the most
common value; with ``members`` the same fitted attacker is also tested on records the
release was made from (Anonymeter's train-minus-control reading).
"""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np
import pandas as pd

from core.evaluation.attacks.common import _as_frame, _check_columns
from core.evaluation.metrics import majority_share
from core.evaluation.classifiers import (
    ALL_CLASSIFIERS,
    encode_target,
    few_threads,
    make_classifier,
    prepare_frame,
)
from core.evaluation.tasks import _scores, score_task
from core.runtime.randomness import RandomState, check_random_state
from core.validation import DataError, check_choice

__all__ = ["attribute_inference"]


def attribute_inference(release: pd.DataFrame, holdout: pd.DataFrame, *, target: str,
                        features: Sequence[str] | None = None, classifier: str = "gbdt",
                        random_state: RandomState = None, members: pd.DataFrame | None = None) -> dict[str, Any]:
    """Attribute inference: a model trained on the release guesses ``target`` of real records.

    The attacker knows every other attribute of a person (``features``) and wants the
    sensitive one (``target``). It trains ``classifier`` on the release only and is
    tested on real records it has not seen: this is the train-on-synthetic / test-on-real
    task of :func:`core.evaluation.tasks.score_task` (paper 002's "sensitive" task;
    same encoding and classifiers). The floor is always guessing the most common value.

    Reading it: ``advantage`` is what the release teaches an attacker about the target
    beyond its base rate. It measures inference about the *population* (which DP does not
    forbid: a release that keeps the correlation of features and target lets anyone infer
    it); a release that leaks the target far better than a public model would is the
    warning. Passing the training records as ``holdout`` instead gives the attack on the
    people in the data; Anonymeter's inference risk (Giomi et al. 2023) is the difference
    between the two, normalised by one minus the second (its "control").

    Parameters
    ----------
    release : DataFrame or Dataset
        The published table (the attacker's training data).
    holdout : DataFrame or Dataset
        Real records to attack (rows with a missing target are left out).
    target : str
        The sensitive column (classification: its values are taken as classes).
    features : sequence of str, optional
        What the attacker knows; default every other column of ``release``.
    classifier : {"xgboost", "gbdt", "rf", "mlp", "lr", "hgb"}
        The attacker's model (paper 002's classifiers, or "hgb": the same boosted trees on native categorical splits).
    random_state : int, Generator or None
        Seeds the classifier.
    members : DataFrame or Dataset, optional
        Real records the release *was* made from (a sample of the training records): the
        same fitted attacker is also tested on them. Anonymeter's inference evaluator
        (Giomi et al. 2023; github.com/statice/anonymeter,
        ``src/anonymeter/evaluators/inference_evaluator.py``) attacks training targets and
        *control* targets (records not used to make the release) with the same release and
        reads the difference as what the release leaks about the people in it; here the
        control targets are ``holdout``.

    Returns
    -------
    dict
        ``accuracy``: share of holdout records whose target is guessed right.
        ``majority``: share of the most common target value in the holdout (the score of
        an attacker who learnt nothing). ``advantage``: accuracy - majority, in
        [-1, 1]: 0 or less means the release taught nothing usable about the target
        (negative: the model's guesses are worse than the base rate, e.g. it learnt
        noise); 1 - majority at most (every guess right). ``f1``: macro F1 of the
        guesses. ``classifier``, ``target``, ``features``, ``n_release``, ``n_holdout``.
        With ``members``: ``accuracy_members`` (the same attacker on the members),
        ``n_members`` and ``member_advantage`` = accuracy_members - accuracy (Anonymeter's
        train-minus-control success: 0 when the release tells no more about the people in it
        than about people who are not; positive when it reproduces them).

    Raises
    ------
    TypeError
        A table is not a DataFrame / Dataset, ``target`` is not a str, ``features`` not a
        list of names, ``classifier`` not a str.
    ValueError
        Unknown classifier, or ``target`` among the features.
    DataError
        A column is missing, or a table has no row with a target value.
    """
    rel, ho = _as_frame(release, "release"), _as_frame(holdout, "holdout")
    if not isinstance(target, str):
        raise TypeError(f"target must be a column name (str), got {type(target).__name__}.")
    check_choice(classifier, ALL_CLASSIFIERS, name="classifier", kind=str)
    rng = check_random_state(random_state)
    for name, frame in (("release", rel), ("holdout", ho)):
        if target not in frame.columns:
            raise DataError(f"The target column '{target}' is not in the {name} table.")
    if features is None:
        features = [c for c in rel.columns if c != target]
    features = _check_columns(features, rel, {"release": rel, "holdout": ho})
    if target in features:
        raise ValueError(f"target '{target}' must not be one of the features (it would be known).")
    for name, frame in (("release", rel), ("holdout", ho)):
        if frame[target].notna().sum() == 0:
            raise DataError(f"The {name} table has no row with a value of '{target}'.")
    if members is None:
        scores = score_task(rel, ho, target, features, classifier=classifier, random_state=rng)
    else:
        mem = _as_frame(members, "members")
        _check_columns([*features, target], rel, {"members": mem})
        if mem[target].notna().sum() == 0:
            raise DataError(f"The members table has no row with a value of '{target}'.")
        scores, member_scores = _score_two(rel, ho, mem, target, features, classifier=classifier,
                                           random_state=rng)
    majority = majority_share(ho[target].dropna().astype(str))
    out = {
        "accuracy": scores["accuracy"],
        "majority": majority,
        "advantage": scores["accuracy"] - majority,
        "f1": scores["f1"],
        "classifier": classifier, "target": target, "features": features,
        "n_release": len(rel), "n_holdout": int(ho[target].notna().sum()),
    }
    if members is not None:
        out.update(accuracy_members=member_scores["accuracy"], n_members=int(mem[target].notna().sum()),
                   member_advantage=member_scores["accuracy"] - scores["accuracy"])
    return out


def _score_two(release: pd.DataFrame, holdout: pd.DataFrame, members: pd.DataFrame, target: str,
               features: list[str], *, classifier: str, random_state: np.random.Generator
               ) -> tuple[dict[str, float], dict[str, float]]:
    """:func:`core.evaluation.tasks.score_task` on ``holdout`` and on ``members`` from one
    fitted attacker: the holdout's scores equal ``score_task``'s (same classes, same seed)."""
    train = release[release[target].notna()]
    tests = [f[f[target].notna()] for f in (holdout, members)]
    y_tr_raw = train[target].astype(str)
    classes = np.array(sorted(set(y_tr_raw).union(*(set(t[target].astype(str)) for t in tests))))
    y_tr, _ = encode_target(y_tr_raw, classes)
    present = np.unique(y_tr)
    out = []
    if len(present) < 2:  # a one-class release: the attacker can only say that class
        for t in tests:
            out.append(_scores(encode_target(t[target].astype(str), classes)[0], np.full(len(t), present[0])))
        return out[0], out[1]
    remap = {c: i for i, c in enumerate(present)}
    X_tr = prepare_frame(train, features)
    model = make_classifier(classifier, X_tr, list(features), random_state=random_state)
    with few_threads():
        model.fit(X_tr, np.array([remap[c] for c in y_tr]))
        for t in tests:
            pred = present[model.predict(prepare_frame(t, features)).astype(np.int64)]
            out.append(_scores(encode_target(t[target].astype(str), classes)[0], pred))
    return out[0], out[1]
