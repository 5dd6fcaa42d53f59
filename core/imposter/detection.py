"""Implicit-privacy detection (paper 002, Definition 2 and Algorithm 1).

An attribute is a candidate implicit-privacy attribute when its normalised mutual
information with the sensitive attribute ``s`` reaches ``theta``; the candidate set is
kept when a classifier predicting ``s`` from it reaches ``tau >= beta`` (cross-validated
accuracy or F1), otherwise nothing is flagged.

The formula printed as Eq. 7, (H(x|s) + H(s|x)) / H(x, s), is a distance (0 for identical
variables, 1 for independent ones), while the text and Fig. 6 use NMI as a similarity
with "Cor >= theta". The detection uses scikit-learn's NMI (arithmetic normalisation,
0 = independent, 1 = one determines the other) and reports the printed ratio beside it.
Continuous attributes are quantile-binned first (``bins`` is a parameter): NMI between a
continuous variable and a category is otherwise the NMI of its raw distinct values,
which overstates it for a column with many distinct values.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np
import pandas as pd
from sklearn.metrics import f1_score, normalized_mutual_info_score
from sklearn.base import clone
from sklearn.model_selection import StratifiedKFold

from core.data import Dataset
from core.imposter.classifiers import (
    CLASSIFIERS,
    encode_target,
    few_threads,
    make_classifier,
    prepare_frame,
)
from core.progress import Progress, report, stage
from core.validation import (
    DataError,
    RandomState,
    check_positive_int,
    check_probability,
    check_random_state,
    draw_seed,
)

__all__ = ["DetectionResult", "detect_implicit", "nmi_scores", "discretize"]


@dataclass(frozen=True)
class DetectionResult:
    """Everything Algorithm 1 computed, for the page, the CLI and the synthesizer.

    Attributes
    ----------
    sensitive : str
        The explicit privacy attribute ``s``.
    scores : DataFrame
        One row per other attribute, sorted by NMI (largest first): ``attribute``,
        ``kind`` (numeric / categorical), ``nmi`` (the similarity used), ``printed_ratio``
        (Eq. 7 as printed: a distance), ``candidate`` (nmi >= theta).
    theta, beta : float
        Correlation and performance thresholds.
    candidates : tuple of str
        Attributes with NMI >= theta (x_p of Definition 2).
    tau : float
        Cross-validated performance of ``classifier`` predicting ``s`` from the candidates
        (NaN when there are none).
    metric, classifier : str
        How tau was measured.
    majority_share : float
        Accuracy of always guessing the most common value of ``s`` (the no-leak floor).
    implicit : tuple of str
        The detected implicit-privacy attributes: the candidates when tau >= beta, else
        empty (Algorithm 1 returns the empty set).
    """

    sensitive: str
    scores: pd.DataFrame
    theta: float
    beta: float
    candidates: tuple[str, ...]
    tau: float
    metric: str
    classifier: str
    majority_share: float
    implicit: tuple[str, ...] = field(default=())
    bins: int = 10

    @property
    def detected(self) -> bool:
        """True when the candidate set passed the (theta, beta) check."""
        return bool(self.implicit)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-able summary."""
        return {
            "sensitive": self.sensitive, "theta": self.theta, "beta": self.beta,
            "metric": self.metric, "classifier": self.classifier, "bins": self.bins,
            "tau": None if math.isnan(self.tau) else self.tau,
            "majority_share": self.majority_share,
            "candidates": list(self.candidates), "implicit": list(self.implicit),
            "scores": self.scores.to_dict(orient="records"),
        }


def discretize(series: pd.Series, *, bins: int, numeric: bool) -> np.ndarray:
    """Integer codes: quantile bins for a numeric series, categories otherwise.

    Missing values get their own code. A numeric column with at most ``bins`` distinct
    values is used as it is (binning would only merge values).
    """
    if numeric and series.nunique(dropna=True) > bins:
        binned = pd.qcut(series, q=bins, labels=False, duplicates="drop")
        codes = binned.to_numpy(dtype=float)
    else:
        codes = pd.factorize(series, sort=True)[0].astype(float)
        codes[codes < 0] = np.nan
    codes = np.where(np.isnan(codes), -1, codes)
    return codes.astype(np.int64)


def _entropy(counts: np.ndarray) -> float:
    p = counts[counts > 0] / counts.sum()
    return float(-(p * np.log(p)).sum())


def printed_ratio(x: np.ndarray, s: np.ndarray) -> float:
    """Eq. 7 as printed: (H(x|s) + H(s|x)) / H(x, s), a distance in [0, 1]."""
    table = pd.crosstab(x, s).to_numpy(dtype=float)
    h_xs = _entropy(table.ravel())
    if h_xs == 0:
        return 0.0
    h_x = _entropy(table.sum(axis=1))
    h_s = _entropy(table.sum(axis=0))
    return float(((h_xs - h_s) + (h_xs - h_x)) / h_xs)


def _is_numeric(frame: pd.DataFrame, col: str) -> bool:
    s = frame[col]
    return pd.api.types.is_numeric_dtype(s) and not pd.api.types.is_bool_dtype(s)


def nmi_scores(
    frame: pd.DataFrame, sensitive: str, *, bins: int = 10, columns: Sequence[str] | None = None,
    progress: Progress | None = None,
) -> pd.DataFrame:
    """NMI (and the printed Eq. 7 ratio) of every column with ``sensitive``.

    Parameters
    ----------
    frame : DataFrame
        The data.
    sensitive : str
        The explicit privacy attribute.
    bins : int
        Quantile bins for continuous attributes (more bins find finer dependence but
        overstate it on small tables).
    columns : sequence of str, optional
        Attributes to score (default: all but ``sensitive``).
    progress : callable(fraction, message), optional
        Told each attribute scored (:mod:`core.progress`).
    """
    check_positive_int(bins, name="bins", minimum=2)
    if sensitive not in frame.columns:
        raise DataError(f"The sensitive column '{sensitive}' is not in the data.")
    cols = [c for c in (frame.columns if columns is None else columns) if c != sensitive]
    s_codes = discretize(frame[sensitive], bins=bins, numeric=False)
    rows = []
    for i, col in enumerate(cols):
        report(progress, i / max(len(cols), 1), f"attribute {i + 1} of {len(cols)}")
        numeric = _is_numeric(frame, col)
        x = discretize(frame[col], bins=bins, numeric=numeric)
        rows.append(
            {
                "attribute": col,
                "kind": "numeric" if numeric else "categorical",
                "nmi": float(normalized_mutual_info_score(s_codes, x)),
                "printed_ratio": printed_ratio(x, s_codes),
            }
        )
    out = pd.DataFrame(rows, columns=["attribute", "kind", "nmi", "printed_ratio"])
    return out.sort_values("nmi", ascending=False, kind="mergesort").reset_index(drop=True)


def _cv_score(
    frame: pd.DataFrame, sensitive: str, columns: Sequence[str], *, classifier: str,
    metric: str, folds: int, rng: np.random.Generator, progress: Progress | None = None,
) -> float:
    """tau: the attacker's cross-validated accuracy or macro F1 from ``columns``."""
    X = prepare_frame(frame, columns)
    y, _ = encode_target(frame[sensitive].astype(object).where(frame[sensitive].notna(), "(missing)"))
    model = make_classifier(classifier, X, list(columns), random_state=rng)
    cv = StratifiedKFold(n_splits=folds, shuffle=True, random_state=draw_seed(rng))
    pred = np.empty_like(y)
    with few_threads():  # cross_val_predict's folds, one by one so each can be reported
        for k, (train, test) in enumerate(cv.split(X, y)):
            report(progress, k / folds, f"fold {k + 1} of {folds}")
            fitted = clone(model).fit(_take(X, train), y[train])
            pred[test] = fitted.predict(_take(X, test))
    if metric == "accuracy":
        return float((pred == y).mean())
    return float(f1_score(y, pred, average="macro"))


def _take(X: Any, rows: np.ndarray) -> Any:
    """Rows of a frame or an array by position."""
    return X.iloc[rows] if hasattr(X, "iloc") else X[rows]


def _check_sensitive(frame: pd.DataFrame, sensitive: str, folds: int) -> pd.Series:
    """The value counts of ``sensitive``, checked: 2 to 20 values, each in ``folds`` rows."""
    if sensitive not in frame.columns:
        raise DataError(f"The sensitive column '{sensitive}' is not in the data.")
    counts = frame[sensitive].value_counts(dropna=True)
    if len(counts) < 2:
        raise DataError(
            f"The sensitive column '{sensitive}' has a single value, so nothing can leak "
            "about it; choose another column."
        )
    if len(counts) > 20:
        raise DataError(
            f"The sensitive column '{sensitive}' has {len(counts)} distinct values; "
            "implicit-privacy detection needs a categorical attribute (20 values at most)."
        )
    if counts.min() < folds:
        raise DataError(
            f"The value '{counts.idxmin()}' of '{sensitive}' occurs only {counts.min()} "
            f"times; each value needs at least {folds} rows for the cross-validated check."
        )
    return counts


def detect_implicit(
    frame: pd.DataFrame | Dataset,
    sensitive: str,
    *,
    theta: float = 0.01,
    beta: float = 0.7,
    classifier: str = "lr",
    metric: str = "accuracy",
    bins: int = 10,
    exclude: Sequence[str] = (),
    folds: int = 3,
    max_rows: int | None = 20_000,
    random_state: RandomState = 0,
    progress: Progress | None = None,
) -> DetectionResult:
    """Find the (theta, beta)-implicit privacy attributes for ``sensitive`` (Algorithm 1).

    Parameters
    ----------
    frame : DataFrame or Dataset
        The data (a Dataset's frame is used).
    sensitive : str
        The explicit privacy attribute s (categorical).
    theta : float in [0, 1]
        Correlation threshold: attributes with NMI >= theta are candidates. Lower theta
        flags more attributes (more protection, more of the table rewritten).
    beta : float in [0, 1]
        Performance threshold: the candidates count as implicit privacy only when an
        attacker's classifier predicts s from them with tau >= beta. A lower beta flags
        leaks that are weaker (more protection); compare with the majority share.
    classifier : {"xgboost", "gbdt", "rf", "mlp", "lr"}
        The attacker's model f of Definition 2.
    metric : {"accuracy", "f1"}
        tau: accuracy or macro F1, cross-validated.
    bins : int
        Quantile bins for continuous attributes in the NMI.
    exclude : sequence of str
        Attributes never flagged (identifiers, or the label when it must stay as it is).
    folds : int
        Cross-validation folds for tau.
    max_rows : int or None
        Rows used for tau (a seeded subsample; NMI always uses every row).
    random_state : int, Generator or None
        Seeds the subsample, the folds and the classifier.
    progress : callable(fraction, message), optional
        Told each attribute's NMI and each fold of the attacker (:mod:`core.progress`).
    """
    if isinstance(frame, Dataset):
        frame = frame.frame
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"frame must be a DataFrame or Dataset, got {type(frame).__name__}.")
    if not isinstance(sensitive, str):
        raise TypeError(f"sensitive must be a column name, got {type(sensitive).__name__}.")
    theta = check_probability(theta, name="theta")
    beta = check_probability(beta, name="beta")
    if metric not in ("accuracy", "f1"):
        raise ValueError(f"metric must be 'accuracy' or 'f1', got {metric!r}.")
    if classifier not in CLASSIFIERS:
        raise ValueError(f"classifier must be one of {CLASSIFIERS}, got {classifier!r}.")
    folds = check_positive_int(folds, name="folds", minimum=2)
    counts = _check_sensitive(frame, sensitive, folds)
    rng = check_random_state(random_state)
    columns = [c for c in frame.columns if c != sensitive and c not in set(exclude)]
    scores = nmi_scores(frame, sensitive, bins=bins, columns=columns,
                        progress=stage(progress, 0.0, 0.2, "NMI with the sensitive attribute"))
    scores["candidate"] = scores["nmi"] >= theta
    candidates = tuple(scores.loc[scores["candidate"], "attribute"])
    majority = float(counts.max() / counts.sum())
    tau = float("nan")
    if candidates:
        work = frame[frame[sensitive].notna()]
        if max_rows is not None and len(work) > max_rows:
            idx = rng.choice(len(work), size=max_rows, replace=False)
            work = work.iloc[np.sort(idx)]
        tau = _cv_score(work, sensitive, candidates, classifier=classifier, metric=metric,
                        folds=folds, rng=rng, progress=stage(progress, 0.2, 1.0, "The attacker's check"))
    implicit = candidates if candidates and tau >= beta else ()
    return DetectionResult(
        sensitive=sensitive, scores=scores, theta=theta, beta=beta, candidates=candidates,
        tau=tau, metric=metric, classifier=classifier, majority_share=majority,
        implicit=implicit, bins=bins,
    )
