"""The four schemes of Fig. 4 of paper 000 and the sweeps behind Fig. 4 and Fig. 5.

Non-private: all attributes, ordinary logistic regression (scikit-learn, no clipping, no noise). Group: all attributes, group sensitivity GS (Chen
et al. 2014). Zhang CR-FS: attributes kept by random-forest importance alone (the best
forward-traversal prefix), correlated sensitivity CS. Proposed: DC-FBFS, then CS.
Feature selection and the sensitivities read the raw training data, as in the paper; the
privacy guarantee is that of the model training given those choices.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Iterable, Sequence

import numpy as np
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split

from core.cdp.dc_fbfs import DCFBFSResult, dc_fbfs
from core.cdp.logistic import DEFAULT_NOISE_METHOD, PRESETS, CDPLogisticRegression
from core.cdp.sensitivity import record_matrix
from core.correlation.records import correlated_sensitivity
from core.data import Dataset, encode
from core.experiments import summarize, sweep
from core.progress import Progress, report, stage
from core.validation import DataError, RandomState, check_random_state, spawn_seed

__all__ = [
    "SCHEMES",
    "SchemeSetup",
    "model_matrix",
    "prepare_schemes",
    "fit_scheme",
    "scheme_curve",
    "method_curve",
]

SCHEMES = ("Non-private", "Group", "Zhang", "Proposed")


def model_matrix(dataset: Dataset, columns: Sequence[str]) -> np.ndarray:
    """Training features of the logistic model: standardised numerics, one-hot categoricals."""
    return encode(dataset, scale="standard", one_hot=True, columns=list(columns)).X


@dataclass
class SchemeSetup:
    """Everything the four schemes share for one dataset: split, selection, sensitivities."""

    dataset: Dataset
    train: np.ndarray
    test: np.ndarray
    y: np.ndarray
    selection: DCFBFSResult
    columns: dict[str, list[str]]
    sensitivity: dict[str, float]
    reports: dict[str, dict[str, float]]
    measure: str
    threshold: float
    _nonprivate: dict = field(default_factory=dict, repr=False)

    def matrices(self, scheme: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(X_train, X_test, y_train, y_test) on the scheme's attributes."""
        X = model_matrix(self.dataset, self.columns[scheme])
        return X[self.train], X[self.test], self.y[self.train], self.y[self.test]


def prepare_schemes(
    dataset: Dataset,
    *,
    threshold: float = 0.8,
    measure: str = "pearson",
    tc: float = 40.0,
    test_size: float = 0.2,
    random_state: RandomState = None,
    progress: Progress | None = None,
) -> SchemeSetup:
    """Split the data, run DC-FBFS on the training part and compute each scheme's sensitivity.

    Parameters
    ----------
    dataset : Dataset
        Needs a label with two classes.
    threshold, measure : float, str
        delta0 and the record-correlation measure.
    tc : float
        T_c of DC-FBFS, in units of C(x).
    test_size : float
        Share of records held out for accuracy.
    random_state : int, Generator or None
        Seeds the split and DC-FBFS.
    progress : callable(fraction, message), optional
        Told each step of DC-FBFS and the sensitivities (:mod:`core.progress`).
    """
    if dataset.label is None:
        raise DataError("Choose a label column: the schemes train a classifier.")
    rng = check_random_state(random_state)
    # integer class codes over the sorted labels: cheap to compare on every refit
    labels = np.unique(dataset.frame[dataset.label].astype(str).to_numpy(), return_inverse=True)[1]
    if len(np.unique(labels)) != 2:
        raise DataError(
            f"CDP-LR needs a label with two classes; '{dataset.label}' has {len(np.unique(labels))}."
        )
    idx = np.arange(dataset.n_rows)
    train, test = train_test_split(
        idx, test_size=test_size, stratify=labels, random_state=spawn_seed(rng) % (2**32)
    )
    train, test = np.sort(train), np.sort(test)
    rm = record_matrix(dataset)
    sel = dc_fbfs(
        rm.X[train], labels[train], rm.names, tc=tc, threshold=threshold, measure=measure,
        random_state=rng, progress=stage(progress, 0.0, 0.92, "Feature selection"),
    )
    columns = {
        "Non-private": list(rm.names),
        "Group": list(rm.names),
        "Zhang": sel.importance_selected,
        "Proposed": sel.selected,
    }
    reports: dict[str, dict[str, float]] = {}
    cache: dict[tuple[str, ...], dict[str, float]] = {}
    for i, (scheme, cols) in enumerate(columns.items()):
        key = tuple(cols)
        if key not in cache:
            pos = [rm.names.index(c) for c in cols]
            rep = correlated_sensitivity(
                rm.X[np.ix_(train, pos)], measure=measure, threshold=threshold,
                progress=stage(progress, 0.92 + 0.02 * i, 0.94 + 0.02 * i, f"Sensitivity of {scheme}"),
            )
            cache[key] = {"CS": rep.correlated, "GS": rep.group}
        reports[scheme] = cache[key]
    sensitivity = {
        "Non-private": 0.0,
        "Group": reports["Group"]["GS"],
        "Zhang": reports["Zhang"]["CS"],
        "Proposed": reports["Proposed"]["CS"],
    }
    report(progress, 1.0, "Schemes ready")
    return SchemeSetup(
        dataset, train, test, labels, sel, columns, sensitivity, reports, measure, threshold
    )


def fit_scheme(
    setup: SchemeSetup,
    scheme: str,
    *,
    epsilon: float,
    noise_method: int | str = DEFAULT_NOISE_METHOD,
    preset: str = "sensible",
    random_state: RandomState = None,
    matrices: tuple | None = None,
    **params,
) -> tuple[CDPLogisticRegression, float]:
    """Train one scheme and return the model and its test accuracy."""
    if scheme not in SCHEMES:
        raise ValueError(f"scheme must be one of {SCHEMES}, got {scheme!r}.")
    Xtr, Xte, ytr, yte = matrices if matrices is not None else setup.matrices(scheme)
    if scheme == "Non-private":
        # the ceiling of Fig. 4: ordinary (unclipped, converged) logistic regression; it does
        # not depend on epsilon or the seed, so it is fitted once per setup and matrix
        key = id(Xtr)
        if key not in setup._nonprivate:
            model = LogisticRegression(max_iter=1000).fit(Xtr, ytr)
            setup._nonprivate[key] = (model, float(np.mean(model.predict(Xte) == yte)))
        return setup._nonprivate[key]
    kw = {**PRESETS[preset], **params}
    model = CDPLogisticRegression(
        epsilon=epsilon, noise_method=noise_method, sensitivity=setup.sensitivity[scheme],
        random_state=random_state, **kw,
    ).fit(Xtr, ytr)
    return model, float(model.score(Xte, yte))


def scheme_curve(
    setup: SchemeSetup,
    *,
    epsilons: Iterable[float],
    schemes: Sequence[str] = SCHEMES,
    noise_method: int | str = DEFAULT_NOISE_METHOD,
    preset: str = "sensible",
    repetitions: int = 10,
    random_state: RandomState = None,
    progress: Callable[[float, str], None] | None = None,
    **params,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Accuracy of each scheme at each epsilon, ``repetitions`` noise draws per point (Fig. 4).

    Returns
    -------
    (summary, runs)
        ``summary`` has scheme, epsilon, accuracy_mean, accuracy_std, accuracy_n;
        ``runs`` one row per run.
    """
    mats = {s: setup.matrices(s) for s in schemes}

    def one(*, epsilon: float, random_state: int) -> dict:
        # common random numbers: every scheme gets the same seed at a given (epsilon, run),
        # so the schemes differ by their sensitivity and features, not by the luck of the draw
        return {
            scheme: fit_scheme(
                setup, scheme, epsilon=epsilon, noise_method=noise_method, preset=preset,
                random_state=random_state, matrices=mats[scheme], **params,
            )[1]
            for scheme in schemes
        }

    runs = epsilon_runs(one, schemes, "scheme", "accuracy", epsilons=epsilons,
                        repetitions=repetitions, random_state=random_state, progress=progress)
    return summarize(runs, ["scheme", "epsilon"], "accuracy"), runs


def epsilon_runs(
    one: Callable[..., dict],
    names: Sequence,
    key: str,
    value: str,
    *,
    epsilons: Iterable[float],
    repetitions: int,
    random_state: RandomState,
    progress: Callable[[float, str], None] | None,
    sort: bool = True,
) -> pd.DataFrame:
    """Run ``one(epsilon=, random_state=)`` at every epsilon, ``repetitions`` times each.

    ``one`` returns a value per name (common random numbers: every name sees the same seed
    at a given run). Returns one row per (name, epsilon, repetition): ``key``, epsilon,
    repetition, seed, ``value``. ``sort`` orders the rows by name, epsilon and repetition;
    without it they stay name by name in the order of the runs.
    """
    wide = sweep(
        one, {"epsilon": [float(e) for e in epsilons]},
        repetitions=repetitions, random_state=random_state, progress=progress,
    )
    names = list(names)
    long = wide.melt(id_vars=["epsilon", "repetition", "seed"], value_vars=names, var_name=key,
                     value_name=value)
    if sort:
        long[key] = pd.Categorical(long[key], categories=names, ordered=True)
        long = long.sort_values([key, "epsilon", "repetition"]).reset_index(drop=True)
        long[key] = long[key].astype(object)
    return long[[key, "epsilon", "repetition", "seed", value]]


def method_curve(
    setup: SchemeSetup,
    *,
    epsilons: Iterable[float],
    methods: Sequence[int] = tuple(range(7)),
    scheme: str = "Proposed",
    preset: str = "sensible",
    repetitions: int = 10,
    random_state: RandomState = None,
    progress: Callable[[float, str], None] | None = None,
    **params,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Accuracy of each noise method (Table 3) at each epsilon on one scheme (Fig. 5)."""
    mats = setup.matrices(scheme)
    sens = setup.sensitivity[scheme] if scheme != "Non-private" else setup.reports[scheme]["CS"]
    kw = {**PRESETS[preset], **params}

    def one(*, epsilon: float, random_state: int) -> dict:
        out = {}
        for method in methods:  # common random numbers across methods
            model = CDPLogisticRegression(
                epsilon=epsilon, noise_method=method, sensitivity=sens, random_state=random_state,
                **kw,
            ).fit(mats[0], mats[2])
            out[method] = float(model.score(mats[1], mats[3]))
        return out

    runs = epsilon_runs(one, methods, "method", "accuracy", epsilons=epsilons,
                        repetitions=repetitions, random_state=random_state, progress=progress)
    runs["method"] = runs["method"].astype(int)
    return summarize(runs, ["method", "epsilon"], "accuracy"), runs
