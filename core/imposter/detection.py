"""Implicit-privacy detection (paper 002, Definition 2 and Algorithm 1), against a null.

Two rules, both always computed:

* **The default rule** (``rule="default"``): an attribute is implicit only when it predicts
  the sensitive attribute ``s`` better than the majority share by a margin a held-out
  estimate supports. Per attribute, a cheap classifier (the most common ``s`` in each of
  the attribute's values, numeric attributes in ``bins`` quantile bins) predicts ``s``
  out of fold (``folds``-fold stratified cross-validation, the same folds for every
  attribute); the constant guess (the training folds' most common ``s``) is scored on the
  same rows. The per-row difference (model correct - constant guess correct) has mean
  ``gain``; its normal interval (``confidence``, Bonferroni-corrected over the attributes
  tested) gives ``gain_lo`` / ``gain_hi``, and the attribute is flagged when
  ``gain_lo > min_gain`` (0 by default). No permutation null is drawn: under independence
  the per-value majority can only match or lose to the constant guess out of fold, so the
  interval of a noise column sits at or below 0. A table with no leak flags nothing.
* **The paper's rule** (``rule="paper"``, Algorithm 1): candidates are the attributes whose
  normalised mutual information with ``s`` reaches ``theta``; the candidate set is kept
  when a classifier predicting ``s`` from it reaches ``tau >= beta`` (cross-validated
  accuracy or F1), otherwise nothing is flagged. It has no reference: with a 0.9 majority
  share and beta = 0.7 it flags attributes that predict nothing. The reproductions use it.

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
from core.evaluation.classifiers import (
    CLASSIFIERS,
    encode_target,
    few_threads,
    make_classifier,
    prepare_frame,
)
from core.imposter.sensitive_column import check_sensitive_column
from core.evaluation.metrics import proportion_interval
from core.runtime.progress import Progress, Stop, report, stage, watch
from core.validation import DataError, check_choice, check_positive_int, check_probability
from core.runtime.randomness import RandomState, check_random_state, draw_seed

__all__ = ["DetectionResult", "RULES", "detect_implicit", "gain_scores", "nmi_scores", "discretize"]

#: the two detection rules: the held-out gain over the constant guess, and Algorithm 1
RULES = ("default", "paper")


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
        The detected implicit-privacy attributes by ``rule``: :attr:`default_implicit` or
        :attr:`paper_implicit`.
    bins : int
        Quantile bins of numeric attributes (NMI and the default rule's classifier).
    rule : {"default", "paper"}
        Which verdict :attr:`implicit` holds.
    paper_implicit : tuple of str
        The paper's verdict: the candidates when tau >= beta, else empty.
    default_implicit : tuple of str
        The default verdict: attributes whose gain interval lies above ``min_gain``. The
        ``scores`` columns ``accuracy``, ``majority_accuracy`` (the constant guess on the
        same out-of-fold rows), ``gain``, ``gain_lo``, ``gain_hi`` and ``flagged`` (default
        verdict), ``paper_flagged`` (paper's verdict) give each attribute's numbers.
    confidence : float
        Family-wise coverage of the gain intervals (Bonferroni over the attributes).
    min_gain : float
        The margin the gain's lower bound must exceed.
    n_tested : int
        Rows the gains and tau were measured on (after ``max_rows``).
    tau_interval : (float, float)
        Wilson interval of tau when it is an accuracy (NaNs otherwise).
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
    rule: str = "default"
    paper_implicit: tuple[str, ...] = field(default=())
    default_implicit: tuple[str, ...] = field(default=())
    confidence: float = 0.95
    min_gain: float = 0.0
    n_tested: int = 0
    tau_interval: tuple[float, float] = (float("nan"), float("nan"))

    @property
    def detected(self) -> bool:
        """True when the rule in force flagged at least one attribute."""
        return bool(self.implicit)

    def gains(self, attributes: Sequence[str] | None = None) -> pd.DataFrame:
        """``attribute``, ``gain``, ``gain_lo``, ``gain_hi`` of ``attributes`` (default:
        every scored attribute), in the order of :attr:`scores`."""
        cols = ["attribute", "gain", "gain_lo", "gain_hi"]
        out = self.scores[[c for c in cols if c in self.scores.columns]]
        if attributes is not None:
            out = out[out["attribute"].isin(list(attributes))]
        return out.reset_index(drop=True)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-able summary."""
        return {
            "sensitive": self.sensitive, "theta": self.theta, "beta": self.beta,
            "metric": self.metric, "classifier": self.classifier, "bins": self.bins,
            "tau": None if math.isnan(self.tau) else self.tau,
            "majority_share": self.majority_share,
            "candidates": list(self.candidates), "implicit": list(self.implicit),
            "rule": self.rule, "paper_implicit": list(self.paper_implicit),
            "default_implicit": list(self.default_implicit), "confidence": self.confidence,
            "min_gain": self.min_gain, "n_tested": self.n_tested,
            "tau_interval": [None if math.isnan(v) else v for v in self.tau_interval],
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
    stop: Stop | None = None,
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
        Told each attribute scored (:mod:`core.runtime.progress`).
    stop : threading.Event, optional
        When set, the work ends at its next progress report and raises
        :class:`core.runtime.progress.Stopped`.
    """
    progress = watch(progress, stop)
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



def _majority_per_code(codes: np.ndarray, y: np.ndarray, n_classes: int, fallback: int) -> np.ndarray:
    """The most common class of ``y`` per code (ties and unseen codes: ``fallback``)."""
    table = np.zeros((int(codes.max()) + 1 if codes.size else 1, n_classes))
    np.add.at(table, (codes, y), 1.0)
    table[:, fallback] += 0.5  # a tie goes to the constant guess: never a gain by chance
    return table.argmax(axis=1)


def gain_scores(
    frame: pd.DataFrame, sensitive: str, columns: Sequence[str], *, bins: int = 10, folds: int = 3,
    confidence: float = 0.95, random_state: RandomState = 0,
) -> pd.DataFrame:
    """Each attribute's held-out gain over the constant guess in predicting ``sensitive``.

    Per attribute, the most common value of ``sensitive`` in each of its values (numeric
    attributes in ``bins`` quantile bins) is learned on the training folds and predicted on
    the held-out fold; the constant guess is the training folds' most common value. Unseen
    values and ties fall back to the constant guess.

    Parameters
    ----------
    frame : DataFrame
        The rows to test (no missing ``sensitive``).
    sensitive : str
        The explicit privacy attribute.
    columns : sequence of str
        The attributes to test.
    bins : int
        Quantile bins of numeric attributes.
    folds : int
        Stratified cross-validation folds (the same for every attribute).
    confidence : float in (0, 1)
        Family-wise coverage: each interval has coverage ``1 - (1 - confidence) / m`` for
        ``m`` attributes (Bonferroni), so a table with no leak flags nothing with
        probability about ``confidence`` or more.
    random_state : int, Generator or None
        Seeds the folds.

    Returns
    -------
    DataFrame
        ``attribute``, ``accuracy`` (the attribute's classifier, out of fold),
        ``majority_accuracy`` (the constant guess on the same rows), ``gain`` (their
        difference), ``gain_lo``, ``gain_hi`` (the interval of the mean paired difference).
    """
    from scipy.stats import norm

    if not 0.0 < float(confidence) < 1.0:
        raise ValueError(f"confidence must lie strictly between 0 and 1, got {confidence!r}.")
    rng = check_random_state(random_state)
    y, _ = encode_target(frame[sensitive].astype(object))
    y = np.asarray(y, dtype=np.int64)
    n, n_classes = len(y), int(y.max()) + 1 if len(y) else 1
    # stratified folds read the rows: detection feeds IMPOSTER (not DP) and kRR's column
    # choice, which Compare labels not DP for that reason
    cv = StratifiedKFold(n_splits=folds, shuffle=True, random_state=draw_seed(rng))
    splits = list(cv.split(np.zeros(n), y))
    constant = np.empty(n, dtype=np.int64)
    for train, test in splits:
        constant[test] = np.bincount(y[train], minlength=n_classes).argmax()
    const_ok = (constant == y).astype(float)
    m = max(len(columns), 1)
    z = float(norm.ppf(1 - (1 - float(confidence)) / (2 * m)))
    rows = []
    for col in columns:
        codes = discretize(frame[col], bins=bins, numeric=_is_numeric(frame, col)) + 1  # missing -> 0
        pred = np.empty(n, dtype=np.int64)
        for train, test in splits:
            fallback = int(np.bincount(y[train], minlength=n_classes).argmax())
            lookup = _majority_per_code(codes[train], y[train], n_classes, fallback)
            seen = codes[test] < len(lookup)
            pred[test] = fallback
            pred[test[seen]] = lookup[codes[test][seen]]
        diff = (pred == y).astype(float) - const_ok
        gain = float(diff.mean()) if n else float("nan")
        half = z * float(diff.std(ddof=1)) / math.sqrt(n) if n > 1 else float("nan")
        rows.append({"attribute": col, "accuracy": float((pred == y).mean()),
                     "majority_accuracy": float(const_ok.mean()), "gain": gain,
                     "gain_lo": gain - half, "gain_hi": gain + half})
    return pd.DataFrame(rows, columns=["attribute", "accuracy", "majority_accuracy", "gain", "gain_lo",
                                       "gain_hi"])


def _cv_score(
    frame: pd.DataFrame, sensitive: str, columns: Sequence[str], *, classifier: str,
    metric: str, folds: int, rng: np.random.Generator, progress: Progress | None = None,
) -> float:
    """tau: the attacker's cross-validated accuracy or macro F1 from ``columns``."""
    X = prepare_frame(frame, columns)
    y, _ = encode_target(frame[sensitive].astype(object).where(frame[sensitive].notna(), "(missing)"))
    model = make_classifier(classifier, X, list(columns), random_state=rng)
    # stratified folds read the rows: detection feeds IMPOSTER (not DP) and kRR's column
    # choice, which Compare labels not DP for that reason
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


def _check_detection_args(frame, sensitive, *, theta, beta, metric, classifier, rule, confidence,
                          min_gain, folds) -> tuple[pd.DataFrame, float, float, int]:
    """Refuse what :func:`detect_implicit` cannot work with; the frame (a Dataset's), theta,
    beta and folds as checked numbers."""
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
    check_choice(classifier, CLASSIFIERS, name="classifier")
    if rule not in RULES:
        raise ValueError(f"rule must be 'default' (a held-out gain over the constant guess) or 'paper' "
                         f"(Algorithm 1's theta and beta), got {rule!r}.")
    for name, value in (("confidence", confidence), ("min_gain", min_gain)):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise TypeError(f"{name} must be a number, got {type(value).__name__}.")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must lie strictly between 0 and 1, got {confidence!r}.")
    if not 0 <= min_gain < 1:
        raise ValueError(f"min_gain must lie in [0, 1), got {min_gain!r}.")
    return frame, theta, beta, check_positive_int(folds, name="folds", minimum=2)


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
    stop: Stop | None = None,
    rule: str = "default",
    confidence: float = 0.95,
    min_gain: float = 0.0,
) -> DetectionResult:
    """Find the implicit privacy attributes for ``sensitive``: by the default rule (a held-out
    gain over the constant guess) or by the paper's (theta, beta) rule (Algorithm 1).

    Both verdicts are always computed (:attr:`DetectionResult.default_implicit`,
    :attr:`DetectionResult.paper_implicit`); ``rule`` picks the one in
    :attr:`DetectionResult.implicit`. See the module docstring for the two rules.

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
        Told each attribute's NMI and each fold of the attacker (:mod:`core.runtime.progress`).
    stop : threading.Event, optional
        When set, the work ends at its next progress report and raises
        :class:`core.runtime.progress.Stopped`.
    rule : {"default", "paper"}
        "default": an attribute is implicit when the lower end of its gain interval over
        the constant guess exceeds ``min_gain`` (theta and beta do not enter). "paper":
        Algorithm 1's theta/beta rule (the reproductions use it).
    confidence : float in (0, 1)
        Family-wise coverage of the gain intervals (Bonferroni over the attributes tested).
    min_gain : float in [0, 1)
        The margin over the constant guess the gain's lower bound must exceed.

    Returns
    -------
    DetectionResult
        ``implicit`` is empty when the rule flags nothing (then there is nothing to protect).
    """
    progress = watch(progress, stop)
    frame, theta, beta, folds = _check_detection_args(
        frame, sensitive, theta=theta, beta=beta, metric=metric, classifier=classifier, rule=rule,
        confidence=confidence, min_gain=min_gain, folds=folds)
    counts = check_sensitive_column(frame, sensitive, folds)
    rng = check_random_state(random_state)
    columns = [c for c in frame.columns if c != sensitive and c not in set(exclude)]
    scores = nmi_scores(frame, sensitive, bins=bins, columns=columns,
                        progress=stage(progress, 0.0, 0.2, "NMI with the sensitive attribute"))
    scores["candidate"] = scores["nmi"] >= theta
    candidates = tuple(scores.loc[scores["candidate"], "attribute"])
    majority = float(counts.max() / counts.sum())
    work = frame[frame[sensitive].notna()]
    if max_rows is not None and len(work) > max_rows:
        idx = rng.choice(len(work), size=max_rows, replace=False)
        work = work.iloc[np.sort(idx)]
    tau = float("nan")
    tau_interval = (float("nan"), float("nan"))
    if candidates:  # first, so the paper's tau draws from the generator as it always did
        tau = _cv_score(work, sensitive, candidates, classifier=classifier, metric=metric,
                        folds=folds, rng=rng, progress=stage(progress, 0.2, 0.9, "The attacker's check"))
        if metric == "accuracy":
            tau_interval = proportion_interval(tau * len(work), len(work))
    report(progress, 0.9, "Each attribute against the constant guess")
    gains = gain_scores(work, sensitive, list(scores["attribute"]), bins=bins, folds=folds,
                        confidence=confidence, random_state=rng)
    scores = scores.merge(gains, on="attribute", how="left")
    scores["flagged"] = scores["gain_lo"] > min_gain
    default_implicit = tuple(scores.loc[scores["flagged"], "attribute"])
    paper_implicit = candidates if candidates and tau >= beta else ()
    scores["paper_flagged"] = scores["attribute"].isin(paper_implicit)
    return DetectionResult(
        sensitive=sensitive, scores=scores, theta=theta, beta=beta, candidates=candidates,
        tau=tau, metric=metric, classifier=classifier, majority_share=majority,
        implicit=paper_implicit if rule == "paper" else default_implicit, bins=bins, rule=rule,
        paper_implicit=paper_implicit, default_implicit=default_implicit, confidence=float(confidence),
        min_gain=float(min_gain), n_tested=len(work), tau_interval=tau_interval,
    )
