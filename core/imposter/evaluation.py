"""Evaluation of paper 002: Table 1 (settings A and B), train-on-synthetic / test-on-real,
and the theta (Table 2) and lambda (Fig. 8) sweeps.

- Setting A: classifiers trained and tested on the real table.
- Setting B: trained and tested on the synthetic table.
- TSTR: trained on the synthetic table, tested on the same real test rows as setting A
  (the usual utility check of synthetic data; not in the paper).

Two tasks each: the sensitive attribute from the implicit attributes (the leak; lower is
better in B and TSTR, the floor is the majority share) and the label from all other
attributes (the utility; higher is better). F1 is macro F1 (the mean of the per-class
F1 scores), which is what the paper's numbers are consistent with: an all-majority
predictor of "gender" scores 0.40, the paper's GBDT in setting B.
"""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np
import pandas as pd
from sklearn.model_selection import train_test_split

from core.data import Dataset
from core.evaluation.classifiers import CLASSIFIER_LABELS, CLASSIFIERS, as_text
from core.evaluation.tasks import score_task  # score_task's home: below IMPOSTER, beside the attacks
from core.imposter.detection import nmi_scores
from core.imposter.marginal_tv import _frame, marginal_tv  # marginal_tv's home; kept importable here
from core.imposter.synthesizer import ImposterSynthesizer
from core.runtime.progress import Progress, Stop, report, stage, stop_requested, watch
from core.runtime.randomness import RandomState, check_random_state, draw_seed
from core.validation import DataError, check_probability

__all__ = ["EVALUATION_ROWS", "SETTINGS", "evaluate_settings", "table_long", "theta_sweep", "lambda_sweep", "marginal_tv"]

SETTINGS = ("A", "B", "TSTR")
#: Rows of each table the IMPOSTER page's Table 1 and kRR curve (and their bundle) train and
#: test classifiers on, a seeded sample above it: 10,000 keeps an accuracy's 95 % interval
#: within about +-0.01 and the page on Adult (48,842 rows) near a minute on two cores (the
#: real-table sweep measured over 5 minutes with 20,000 on a loaded machine).
EVALUATION_ROWS = 10_000
#: The scores of every fit in :func:`evaluate_settings`' table (ROC AUC macro one-vs-rest;
#: :mod:`core.evaluation.classification`).
METRICS = ("accuracy", "f1", "auc", "balanced_accuracy")
SETTING_LABELS = {
    "A": "Setting A (real -> real)",
    "B": "Setting B (synthetic -> synthetic)",
    "TSTR": "Train synthetic -> test real",
}


def _split(frame: pd.DataFrame, target: str, test_size: float, seed: int):
    # stratified on the label (a read of the rows): it only evaluates and feeds no DP release
    # a missing target is a stratum of its own (astype(str) would keep it NaN, which sklearn refuses)
    strat = as_text(frame[target])
    strat = strat if strat.value_counts().min() >= 2 else None
    return train_test_split(frame, test_size=test_size, random_state=seed, stratify=strat)


def evaluate_settings(
    real: pd.DataFrame | Dataset,
    synthetic: pd.DataFrame | Dataset,
    *,
    sensitive: str,
    label: str,
    implicit: Sequence[str],
    classifiers: Sequence[str] = CLASSIFIERS,
    settings: Sequence[str] = SETTINGS,
    test_size: float = 0.3,
    max_rows: int | None = None,
    random_state: RandomState = 0,
    progress: Progress | None = None,
    stop: Stop | None = None,
) -> pd.DataFrame:
    """Table 1 of paper 002 (plus train-on-synthetic / test-on-real).

    Parameters
    ----------
    real, synthetic : DataFrame or Dataset
        The real table and the synthetic one (same columns).
    sensitive : str
        The explicit privacy attribute; predicted from ``implicit`` only (the attack).
    label : str
        The class label; predicted from every other column (the utility).
    implicit : sequence of str
        The implicit-privacy attributes.
    classifiers : sequence of str
        Any of "xgboost", "gbdt", "rf", "mlp", "lr".
    settings : sequence of str
        Any of "A", "B", "TSTR".
    test_size : float
        Share of each table held out for testing.
    max_rows : int or None
        Seeded subsample of each table first (faster, noisier).
    random_state : int, Generator or None
        Seeds the splits, the subsamples and the classifiers.
    progress : callable(fraction, message), optional
        Called after each fit.
    stop : threading.Event, optional
        When set, the work ends at its next progress report and raises
        :class:`core.runtime.progress.Stopped`.

    Returns
    -------
    DataFrame
        Index: classifier (XGBoost, GBDT, RF, MLP, LR). Columns: a MultiIndex
        (setting, task, metric) with setting in A / B / TSTR, task "sensitive" or
        "label", metric one of :data:`METRICS` ("accuracy", "f1", "auc",
        "balanced_accuracy"). ``attrs`` holds the column names, the
        majority shares of ``sensitive`` (``majority_real``, ``majority_synthetic``) and of
        ``label`` (``label_majority_real``, ``label_majority_synthetic``) in the test sets,
        the classes each panel's test set holds (``classes_sensitive`` in the synthetic one,
        ``classes_label`` in the real one: balanced accuracy's guess is 1/K) and the test sets'
        sizes (``n_test_real``, ``n_test_synthetic``: for intervals).
    """
    progress = watch(progress, stop)
    real_f, syn_f = _frame(real), _frame(synthetic)
    implicit = list(implicit)
    _check_evaluation_args(real_f, syn_f, sensitive=sensitive, label=label, implicit=implicit,
                           classifiers=classifiers, settings=settings)
    test_size = check_probability(test_size, name="test_size", inclusive=False)
    rng = check_random_state(random_state)
    real_f, syn_f = _subsample(real_f, syn_f, max_rows, rng)
    label_features = [c for c in real_f.columns if c != label]
    tasks = {"sensitive": (sensitive, implicit), "label": (label, label_features)}
    splits = _split_tables(real_f, syn_f, tasks, test_size, draw_seed(rng))
    table = _score_table(splits, tasks, classifiers, settings, rng, progress)
    table.attrs.update(
        sensitive=sensitive, label=label, implicit=implicit,
        majority_real=_majority_share(splits[("real", "sensitive")][1], sensitive),
        majority_synthetic=_majority_share(splits[("syn", "sensitive")][1], sensitive),
        label_majority_real=float(splits[("real", "label")][1][label].astype(str)
                                  .value_counts(normalize=True).max()),
        label_majority_synthetic=float(splits[("syn", "label")][1][label].astype(str)
                                       .value_counts(normalize=True).max()),
        classes_sensitive=int(splits[("syn", "sensitive")][1][sensitive].dropna().astype(str).nunique()),
        classes_label=int(splits[("real", "label")][1][label].dropna().astype(str).nunique()),
        n_test_real=int(len(splits[("real", "sensitive")][1])),
        n_test_synthetic=int(len(splits[("syn", "sensitive")][1])),
    )
    return table


def _check_evaluation_args(real_f: pd.DataFrame, syn_f: pd.DataFrame, *, sensitive: str, label: str,
                           implicit: list[str], classifiers: Sequence[str],
                           settings: Sequence[str]) -> None:
    """Refuse missing columns, no implicit attributes, overlapping roles, unknown names."""
    for name, frame in (("real", real_f), ("synthetic", syn_f)):
        for col in [sensitive, label, *implicit]:
            if col not in frame.columns:
                raise DataError(f"The column '{col}' is not in the {name} table.")
    if not implicit:
        raise DataError("No implicit attributes: there is no leak to evaluate (lower theta or beta).")
    if sensitive in implicit or label == sensitive:
        raise ValueError("sensitive must differ from the label and from the implicit attributes.")
    unknown = [c for c in classifiers if c not in CLASSIFIERS]
    if unknown or not classifiers:
        raise ValueError(f"classifiers must be a non-empty subset of {CLASSIFIERS}, got {list(classifiers)}.")
    bad = [s for s in settings if s not in SETTINGS]
    if bad or not settings:
        raise ValueError(f"settings must be a non-empty subset of {SETTINGS}, got {list(settings)}.")


def _subsample(real_f: pd.DataFrame, syn_f: pd.DataFrame, max_rows: int | None,
               rng: np.random.Generator) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Seeded subsamples of at most ``max_rows`` rows of each table (None: the tables)."""
    if max_rows is not None:
        if len(real_f) > max_rows:
            real_f = real_f.sample(n=max_rows, random_state=draw_seed(rng))
        if len(syn_f) > max_rows:
            syn_f = syn_f.sample(n=max_rows, random_state=draw_seed(rng))
    return real_f, syn_f


def _split_tables(real_f: pd.DataFrame, syn_f: pd.DataFrame, tasks: dict, test_size: float,
                  seed: int) -> dict:
    """Train / test split of each table for each task's target, all with one seed.

    Keys ``("real" | "syn", task)``, values ``(train, test)``.
    """
    splits = {}
    for task, (target, _) in tasks.items():
        splits[("real", task)] = _split(real_f, target, test_size, seed)
        splits[("syn", task)] = _split(syn_f, target, test_size, seed)
    return splits


def _score_table(splits: dict, tasks: dict, classifiers: Sequence[str], settings: Sequence[str],
                 rng: np.random.Generator, progress: Progress | None) -> pd.DataFrame:
    """Accuracy, macro F1, ROC AUC and balanced accuracy of every classifier, setting and task
    (one seed drawn per fit)."""
    columns = pd.MultiIndex.from_product(
        [list(settings), ["sensitive", "label"], list(METRICS)],
        names=["setting", "task", "metric"],
    )
    table = pd.DataFrame(index=[CLASSIFIER_LABELS[c] for c in classifiers], columns=columns,
                         dtype=float)
    table.index.name = "classifier"
    total = len(classifiers) * len(settings) * 2
    done = 0
    for clf in classifiers:
        for setting in settings:
            for task, (target, features) in tasks.items():
                real_tr, real_te = splits[("real", task)]
                syn_tr, syn_te = splits[("syn", task)]
                train, test = {"A": (real_tr, real_te), "B": (syn_tr, syn_te),
                               "TSTR": (syn_tr, real_te)}[setting]
                res = score_task(train, test, target, features, classifier=clf,
                                 random_state=draw_seed(rng))
                for metric in METRICS:
                    table.loc[CLASSIFIER_LABELS[clf], (setting, task, metric)] = res[metric]
                done += 1
                if progress is not None:
                    progress(done / total, f"{CLASSIFIER_LABELS[clf]}, setting {setting}, {target}")
    return table


def _majority_share(frame: pd.DataFrame, column: str) -> float:
    """Share of the most frequent value of ``column`` (missing values left out)."""
    counts = frame[column].value_counts(dropna=True)
    return float(counts.max() / counts.sum())


def table_long(table: pd.DataFrame) -> pd.DataFrame:
    """Table 1 as one row per (classifier, setting, task, metric, value): JSON and charts."""
    out = table.stack(level=[0, 1, 2], future_stack=True).rename("value").reset_index()
    return out


def theta_sweep(
    dataset: Dataset,
    *,
    sensitive: str,
    label: str,
    thetas: Sequence[float] = (0.002, 0.01, 0.02, 0.1),
    classifier: str = "xgboost",
    synthesizer: dict[str, Any] | None = None,
    n_synthetic: int | None = None,
    bins: int = 10,
    exclude: Sequence[str] = (),
    random_state: RandomState = 0,
    progress: Progress | None = None,
    stop: Stop | None = None,
) -> pd.DataFrame:
    """Table 2: for each theta, the candidate set, a model trained on it, settings A and B.

    Each theta uses its candidate set (NMI >= theta) as the implicit attributes (beta is
    not applied, as in the paper's table).

    Parameters
    ----------
    dataset : Dataset
        The real table.
    sensitive, label : str
        The explicit privacy attribute and the class label.
    thetas : sequence of float
        The NMI thresholds, one training each.
    classifier : str
        The attacker's and the utility's classifier (the paper: XGBoost).
    synthesizer : dict, optional
        Keyword arguments of :class:`core.imposter.ImposterSynthesizer`.
    n_synthetic : int, optional
        Rows generated per model (default: as many as the real table).
    bins : int
        Quantile bins of numeric attributes for the NMI.
    exclude : sequence of str
        Attributes never taken as candidates (the page leaves the label out).
    random_state : int, Generator or None
        One generator: a seed per theta for the model and its evaluation.
    progress : callable(fraction, message), optional
        Told before each training and after each of its iterations
        (:mod:`core.runtime.progress`).
    stop : threading.Event, optional
        Set it to end the sweep early: the training under way stops at its next iteration
        and is not scored; the rows of the thetas done are returned (``attrs["stopped"]``).

    Returns
    -------
    DataFrame
        One row per theta: the candidate set (``implicit``), the seed, accuracy / F1 for
        the sensitive attribute and the label in A, B and TSTR (``B_sensitive_accuracy``
        ...), and the majority shares of the sensitive attribute in the real and synthetic
        test sets (``majority_real``, ``majority_synthetic``). A theta that no attribute
        reaches has a row with an empty candidate set and a ``note``.
    """
    rng = check_random_state(random_state)
    scores = nmi_scores(dataset.frame, sensitive, bins=bins)
    scores = scores[~scores["attribute"].isin(list(exclude))]
    rows, stopped = [], False
    for i, theta in enumerate(thetas):
        implicit = list(scores.loc[scores["nmi"] >= theta, "attribute"])
        if stop_requested(stop):
            stopped = True
            break
        if not implicit:
            rows.append({"theta": theta, "implicit": [], "note": "no attribute reaches theta"})
            continue
        seed = draw_seed(rng)
        what = f"theta={theta}: training on {len(implicit)} implicit attributes"
        row = _trained_row(dataset, sensitive=sensitive, label=label, implicit=implicit,
                           params={**(synthesizer or {}), "random_state": seed}, classifier=classifier,
                           settings=["A", "B", "TSTR"], n_synthetic=n_synthetic,
                           progress=_run_stage(progress, i, len(thetas), what), stop=stop)
        if row is None:
            stopped = True
            break
        rows.append({"theta": theta, "implicit": implicit, "seed": seed, **row})
    return _sweep_frame(rows, stopped)


def _run_stage(progress: Progress | None, run: int, runs: int, what: str) -> Progress | None:
    """``progress`` told that run ``run`` of ``runs`` starts; the callback of its training,
    which fills nine tenths of the run's share."""
    report(progress, run / runs, what)
    return stage(progress, run / runs, (run + 0.9) / runs, what)


def _trained_row(dataset: Dataset, *, sensitive: str, label: str, implicit: list[str], params: dict[str, Any],
                 classifier: str, settings: list[str], n_synthetic: int | None, progress: Progress | None,
                 stop: Stop | None) -> dict[str, float] | None:
    """Train a synthesizer with ``params`` (its ``random_state`` also seeds the evaluation)
    and score ``settings`` with one classifier: a sweep's row; None when ``stop`` ended the
    training."""
    model = ImposterSynthesizer(**params).fit(dataset, sensitive, implicit, progress=progress, stop=stop)
    if model.stopped_:
        return None
    syn = model.sample(n_synthetic or len(dataset.frame))
    table = evaluate_settings(dataset.frame, syn, sensitive=sensitive, label=label, implicit=implicit,
                              classifiers=[classifier], settings=settings, random_state=params["random_state"])
    return _sweep_row(table)


def _sweep_frame(rows: list[dict[str, Any]], stopped: bool) -> pd.DataFrame:
    """A sweep's rows as a frame; ``attrs["stopped"]`` says whether it ended early."""
    out = pd.DataFrame(rows)
    out.attrs["stopped"] = bool(stopped)
    return out


def _sweep_row(table: pd.DataFrame) -> dict[str, float]:
    """A one-classifier Table 1 as flat columns (``B_sensitive_accuracy``...) and its
    majority shares of the sensitive attribute."""
    row = {f"{setting}_{task}_{metric}": float(value)
           for (setting, task, metric), value in table.iloc[0].items()}
    row.update(majority_real=float(table.attrs["majority_real"]),
               majority_synthetic=float(table.attrs["majority_synthetic"]))
    return row


def lambda_sweep(
    dataset: Dataset,
    *,
    sensitive: str,
    label: str,
    implicit: Sequence[str],
    lambdas: Sequence[float] = (0.0, 0.5, 1.0, 2.0, 5.0, 10.0),
    classifier: str = "xgboost",
    synthesizer: dict[str, Any] | None = None,
    repetitions: int = 1,
    n_synthetic: int | None = None,
    random_state: RandomState = 0,
    progress: Progress | None = None,
    stop: Stop | None = None,
) -> pd.DataFrame:
    """Fig. 8: setting B accuracy / F1 of the sensitive attribute and the label per lambda
    (the synthesizer's ``d2_weight``).

    One row per (lambda, repetition), with TSTR scores beside setting B and the majority
    shares of the sensitive attribute (``majority_real``, ``majority_synthetic``).
    ``progress(fraction, message)`` is told before each training and after each of its
    iterations; setting ``stop`` ends the sweep early as in :func:`theta_sweep`.
    """
    rng = check_random_state(random_state)
    runs = [(lam, rep) for lam in lambdas for rep in range(repetitions)]
    rows, stopped = [], False
    for i, (lam, rep) in enumerate(runs):
        if stop_requested(stop):
            stopped = True
            break
        seed = draw_seed(rng)
        what = f"lambda={lam}, repetition {rep + 1}/{repetitions}"
        row = _trained_row(dataset, sensitive=sensitive, label=label, implicit=list(implicit),
                           params={**(synthesizer or {}), "d2_weight": lam, "random_state": seed},
                           classifier=classifier, settings=["B", "TSTR"], n_synthetic=n_synthetic,
                           progress=_run_stage(progress, i, len(runs), what), stop=stop)
        if row is None:
            stopped = True
            break
        rows.append({"lambda": lam, "repetition": rep, "seed": seed, **row})
    return _sweep_frame(rows, stopped)


# ---------------------------------------------------------------------- marginal fidelity
