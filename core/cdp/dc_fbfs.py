"""DC-FBFS: data-correlation based forward-backward feature selection (Algorithm 1 of paper 000)."""
from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np
from sklearn.base import clone
from sklearn.ensemble import RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedKFold, cross_val_score

from core.cdp.sensitivity import drop_one_correlations
from core.runtime.progress import Progress, Stop, report, stage, watch
from core.validation import DataError, check_matrix, check_positive_int
from core.runtime.randomness import RandomState, check_random_state, spawn_seed

__all__ = ["DCFBFSResult", "dc_fbfs", "feature_importance", "traversal_accuracy"]


@dataclass
class DCFBFSResult:
    """Everything Algorithm 1 computes, for Fig. 2, Fig. 3 and Table 1 of paper 000.

    Attributes
    ----------
    names : list of str
        The attributes F, in input order.
    importance : ndarray
        Random-forest importance FI of each attribute (input order).
    dc : ndarray
        DC_fk = |C(x) - C(x without f_k)| of each attribute (input order): how much the
        attribute changes the data correlation, in units of C(x).
    data_correlation : float
        C(x) of the full attribute set.
    correlation_without : ndarray
        C(x without f_k) per attribute (input order).
    order : list of str
        Attributes by descending importance, f'_1 .. f'_n.
    forward_accuracy : list of float
        acc_k for the top-k attributes, k = 1 .. n.
    backward_accuracy : list of float
        acc'_k for the top-(n + 1 - k) attributes, k = 1 .. n.
    k1, k2 : int
        1-based positions of the best forward and backward accuracy.
    F_fb_del, F_c_del, F_del : list of str
        Redundant by the traversals, of low correlation impact (DC < T_c), and both.
    selected : list of str
        F' = F - F_del, in input order.
    tc : float
        The correlation threshold T_c used.
    """

    names: list[str]
    importance: np.ndarray
    dc: np.ndarray
    data_correlation: float
    correlation_without: np.ndarray
    order: list[str]
    forward_accuracy: list[float]
    backward_accuracy: list[float]
    k1: int
    k2: int
    F_fb_del: list[str]
    F_c_del: list[str]
    F_del: list[str]
    selected: list[str]
    tc: float

    @property
    def importance_selected(self) -> list[str]:
        """The top-k1 attributes by importance alone (Zhang et al.'s CR-FS-style baseline)."""
        keep = set(self.order[: self.k1])
        return [n for n in self.names if n in keep]

    def with_tc(self, tc: float) -> "DCFBFSResult":
        """The same run with another T_c (steps 4-5 only; nothing is recomputed)."""
        tc = _check_tc(tc)
        F_c_del = [n for n, d in zip(self.names, self.dc) if d < tc]
        F_del = [n for n in self.names if n in set(self.F_fb_del) & set(F_c_del)]
        selected = [n for n in self.names if n not in set(F_del)]
        return DCFBFSResult(
            **{**self.__dict__, "F_c_del": F_c_del, "F_del": F_del, "selected": selected, "tc": tc}
        )


def _check_tc(tc: Any) -> float:
    if isinstance(tc, bool) or not isinstance(tc, numbers.Real):
        raise TypeError(f"tc must be a number, got {type(tc).__name__}.")
    v = float(tc)
    if not np.isfinite(v) or v < 0:
        raise ValueError(f"tc (the correlation threshold T_c) must be a finite number >= 0, got {v}.")
    return v


def feature_importance(
    X: np.ndarray, y: np.ndarray, *, n_estimators: int = 100, random_state: RandomState = None
) -> np.ndarray:
    """Random-forest (Gini) importance of each column of ``X`` for predicting ``y``."""
    rng = check_random_state(random_state)
    rf = RandomForestClassifier(
        n_estimators=n_estimators, random_state=spawn_seed(rng) % (2**32), n_jobs=1
    )
    rf.fit(X, y)
    return np.asarray(rf.feature_importances_, dtype=float)


def traversal_accuracy(
    X: np.ndarray,
    y: np.ndarray,
    subsets: Sequence[Sequence[int]],
    *,
    estimator: Any = None,
    cv: int = 3,
    random_state: RandomState = None,
    progress: Progress | None = None,
    stop: Stop | None = None,
) -> list[float]:
    """Cross-validated accuracy of ``estimator`` on each column subset (one shuffled split);
    ``progress`` (:mod:`core.runtime.progress`) is told each subset done; ``stop`` (a
    ``threading.Event``), once set, ends the work at its next report with
    :class:`core.runtime.progress.Stopped`."""
    progress = watch(progress, stop)
    rng = check_random_state(random_state)
    est = LogisticRegression(solver="newton-cholesky") if estimator is None else estimator
    # Stratified folds read the labels: DC-FBFS's selection is the paper's, labelled not
    # differentially private, and the DP reading uses every schema feature instead.
    folds = StratifiedKFold(n_splits=cv, shuffle=True, random_state=spawn_seed(rng) % (2**32))
    out = []
    for i, cols in enumerate(subsets):
        report(progress, i / len(subsets), f"subset {i + 1} of {len(subsets)}")
        scores = cross_val_score(clone(est), X[:, list(cols)], y, cv=folds, scoring="accuracy")
        out.append(float(scores.mean()))
    return out


def _check_inputs(X: Any, y: Any, names: Sequence[str], tc: Any, cv: Any
                  ) -> tuple[np.ndarray, np.ndarray, list[str], float, int]:
    """DC-FBFS's inputs checked: X as a float matrix, names as str, tc and cv as numbers."""
    X = check_matrix(X)
    y = np.asarray(y)
    names = [str(n) for n in names]
    if X.shape[1] != len(names):
        raise ValueError(f"X must have one column per name, got {X.shape[1]} columns and {len(names)} names.")
    if len(y) != len(X):
        raise ValueError(f"X has {len(X)} rows but y has {len(y)}.")
    if len(np.unique(y)) < 2:
        raise DataError("The label has a single class; feature selection needs two or more.")
    tc = _check_tc(tc)
    cv = check_positive_int(cv, name="cv", minimum=2)
    if np.unique(y, return_counts=True)[1].min() < cv:
        raise DataError(f"Every class needs at least {cv} records for {cv}-fold accuracy.")
    return X, y, names, tc, cv


def _deletion_sets(names: list[str], order: list[str], dc: np.ndarray, forward: list[float],
                   backward: list[float], tc: float) -> dict[str, Any]:
    """k1, k2 and the deleted sets of Algorithm 1 (steps 4-6), in the order of ``names``."""
    m = len(names)
    k1 = int(np.argmax(forward)) + 1
    k2 = int(np.argmax(backward)) + 1
    # backward: at step k2 the set is f'_1..f'_{n+1-k2}; removed were f'_{n+2-k2}..f'_n
    fb_del = set(order[k1:]) | set(order[m + 1 - k2:])
    F_c_del = [n for n, d in zip(names, dc) if d < tc]
    F_del = [n for n in names if n in fb_del and n in set(F_c_del)]
    return dict(k1=k1, k2=k2, F_fb_del=[n for n in names if n in fb_del], F_c_del=F_c_del, F_del=F_del,
                selected=[n for n in names if n not in set(F_del)])


def dc_fbfs(
    X: Any,
    y: Any,
    names: Sequence[str],
    *,
    tc: float = 40.0,
    threshold: float = 0.8,
    measure: str = "pearson",
    cv: int = 3,
    estimator: Any = None,
    n_estimators: int = 100,
    random_state: RandomState = None,
    progress: Progress | None = None,
    stop: Stop | None = None,
) -> DCFBFSResult:
    """Data-correlation based forward-backward feature selection (Algorithm 1).

    Parameters
    ----------
    X : array_like of shape (n, m)
        Record matrix, one standardised column per attribute
        (:func:`core.cdp.sensitivity.record_matrix`).
    y : array_like of shape (n,)
        Class labels.
    names : sequence of str
        Attribute names, one per column.
    tc : float
        T_c: an attribute whose removal changes C(x) by less than this is a deletion
        candidate (F_c_del). In units of C(x) (the paper uses 40 on its supplier data).
    threshold : float
        delta0 of the record correlation; the privacy cost of a selected set is its
        correlated sensitivity, which grows when attributes are removed.
    measure : {"pearson", "mahalanobis"}
        Record correlation measure.
    cv : int
        Folds of the cross-validated accuracy that each traversal step reports.
    estimator : sklearn classifier, optional
        Model of the traversals (default logistic regression).
    n_estimators : int
        Trees of the importance forest.
    random_state : int, Generator or None
        Seeds the forest and the two traversals' fold splits (each traversal has its own
        split, so the two lists can disagree as in the paper's Fig. 3).
    progress : callable(fraction, message), optional
        Told each step (:mod:`core.runtime.progress`); raising from it stops the selection.
    stop : threading.Event, optional
        When set, the work ends at its next progress report and raises
        :class:`core.runtime.progress.Stopped`.

    Returns
    -------
    DCFBFSResult
    """
    progress = watch(progress, stop)
    X, y, names, tc, cv = _check_inputs(X, y, names, tc, cv)
    rng = check_random_state(random_state)
    m = len(names)

    # shares of the time each step takes (measured on Adult: forest 22 %, C(x) 48 %, traversals 25 %)
    report(progress, 0.0, "Forest importance")
    importance = feature_importance(X, y, n_estimators=n_estimators, random_state=rng)
    full, without = drop_one_correlations(X, measure=measure, threshold=threshold,
                                          progress=stage(progress, 0.22, 0.72))
    dc = np.abs(full - without)
    order_idx = list(np.argsort(-importance, kind="stable"))
    order = [names[i] for i in order_idx]

    forward = traversal_accuracy(
        X, y, [order_idx[:k] for k in range(1, m + 1)], estimator=estimator, cv=cv, random_state=rng,
        progress=stage(progress, 0.72, 0.86, "Forward traversal"),
    )
    backward = traversal_accuracy(
        X, y, [order_idx[: m + 1 - k] for k in range(1, m + 1)], estimator=estimator, cv=cv,
        random_state=rng, progress=stage(progress, 0.86, 1.0, "Backward traversal"),
    )
    report(progress, 1.0, "Feature selection done")
    return DCFBFSResult(
        names=names, importance=importance, dc=dc, data_correlation=float(full), correlation_without=without,
        order=order, forward_accuracy=forward, backward_accuracy=backward, tc=tc,
        **_deletion_sets(names, order, dc, forward, backward, tc),
    )
