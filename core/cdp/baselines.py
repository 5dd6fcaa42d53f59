"""The four schemes of Fig. 4 of paper 000, their DP reading, and the sweeps behind Fig. 4 and 5.

Non-private: all attributes, ordinary logistic regression (scikit-learn, no clipping, no noise). Group: all attributes, group sensitivity GS (Chen
et al. 2014). Zhang CR-FS: attributes kept by random-forest importance alone (the best
forward-traversal prefix), correlated sensitivity CS. Proposed: DC-FBFS, then CS.

As in the paper, the faithful schemes compute the sensitivity on the raw training records,
choose their features there and standardise the features with the records' mean and spread.
One record can move each of those (a hub record correlated with many others moves GS from 1 to
8), so the faithful schemes are **not differentially private**: their ledgers say why, in one
sentence each (:data:`NOT_DP_REASONS`). Beside them, :data:`DP_SCHEME` is the DP reading
(:mod:`core.cdp.dp_reading`): every schema feature scaled by its declared bounds, CS the
schema's declared group bound (one record without one). All schemes share one public split
(a seeded permutation of the row numbers, not stratified on the labels).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Iterable, Sequence

import numpy as np
import pandas as pd
from sklearn.linear_model import LogisticRegression

from core.cdp.dc_fbfs import DCFBFSResult, dc_fbfs
from core.cdp.dp_reading import (
    GroupBound,
    charge_reading,
    group_bound,
    public_split,
    reading_columns,
    schema_labels,
    schema_matrix,
)
from core.cdp.logistic import CDPLogisticRegression
from core.cdp.schedule import DEFAULT_NOISE_METHOD, PRESETS
from core.cdp.sensitivity import record_matrix
from core.correlation.records import correlated_sensitivity
from core.data import Dataset, encode
from core.privacy.schema import PublicSchema
from core.privacy.schema_builtin import schema_for
from core.runtime.experiments import summarize, sweep
from core.runtime.progress import Progress, Stop, check_stop, report, stage
from core.runtime.randomness import RandomState, check_random_state, spawn_seed
from core.validation import DataError, check_choice

__all__ = [
    "SCHEMES",
    "DP_SCHEME",
    "ALL_SCHEMES",
    "NOT_DP_REASONS",
    "mark_scheme",
    "SchemeSetup",
    "model_matrix",
    "prepare_schemes",
    "fit_scheme",
    "scheme_curve",
    "method_curve",
]

#: Paper 000's four schemes (faithful: Group, Zhang and Proposed read the records, not DP).
SCHEMES = ("Non-private", "Group", "Zhang", "Proposed")
#: The DP reading's name beside them.
DP_SCHEME = "DP reading"
ALL_SCHEMES = SCHEMES + (DP_SCHEME,)
#: Why each faithful scheme is not differentially private, beyond its sensitivity (which
#: :class:`~core.cdp.logistic.CDPLogisticRegression` reports as read from the records).
NOT_DP_REASONS = {
    "Group": "The features are standardised with the mean and spread of your records.",
    "Zhang": "The features are chosen by random-forest importance on your records and scaled on them.",
    "Proposed": "The features are chosen by DC-FBFS on your records and scaled on them.",
}


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
    schema: PublicSchema | None = None
    bound: GroupBound | None = None
    dp_y: np.ndarray | None = None
    _nonprivate: dict = field(default_factory=dict, repr=False)

    def matrices(self, scheme: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(X_train, X_test, y_train, y_test) on the scheme's attributes: standardised on the
        records for the faithful schemes, from the public schema for :data:`DP_SCHEME`."""
        if scheme == DP_SCHEME:
            X = schema_matrix(self.dataset, self.schema, self.columns[scheme]).X
            return X[self.train], X[self.test], self.dp_y[self.train], self.dp_y[self.test]
        X = model_matrix(self.dataset, self.columns[scheme])
        return X[self.train], X[self.test], self.y[self.train], self.y[self.test]

    def source(self, scheme: str) -> str:
        """Where ``scheme``'s sensitivity comes from: "read from data" for the faithful
        schemes, the schema's source of the group bound for the DP reading."""
        return self.bound.source if scheme == DP_SCHEME and self.bound is not None else "read from data"

    def covers(self, scheme: str) -> str:
        """What ``scheme``'s sensitivity is, for a table: "GS from the records", "45 (declared)"."""
        if scheme == "Non-private":
            return "none"
        if scheme == DP_SCHEME:
            b = self.bound
            return (f"{b.value:g} (declared group bound, {b.source})" if b.covers_group
                    else "1 (one record: no group bound declared)")
        return f"{self.sensitivity[scheme]:.4g} ({'GS' if scheme == 'Group' else 'CS'} read from the records)"


def prepare_schemes(
    dataset: Dataset,
    *,
    schema: PublicSchema | None = None,
    features: Sequence[str] | None = None,
    threshold: float = 0.8,
    measure: str = "pearson",
    tc: float = 40.0,
    test_size: float = 0.2,
    random_state: RandomState = None,
    progress: Progress | None = None,
    stop: Stop | None = None,
) -> SchemeSetup:
    """Split the data, run DC-FBFS on the training part and compute each scheme's sensitivity.

    Parameters
    ----------
    dataset : Dataset
        Needs a label with two classes.
    schema : PublicSchema, optional
        The public facts the DP reading uses (bounds, categories, the group bound); default
        :func:`core.privacy.schema_builtin.schema_for` (shipped for a built-in dataset, else a draft
        read from the data, which the DP reading's ledger then marks not DP).
    features : sequence of str, optional
        The DP reading's user-declared features; default every schema feature.
    threshold, measure : float, str
        delta0 and the record-correlation measure.
    tc : float
        T_c of DC-FBFS, in units of C(x).
    test_size : float
        Share of records held out for accuracy (a seeded permutation: public).
    random_state : int, Generator or None
        Seeds the split and DC-FBFS.
    progress : callable(fraction, message), optional
        Told each step of DC-FBFS and the sensitivities (:mod:`core.runtime.progress`).
    stop : threading.Event, optional
        Checked before the feature selection and each sensitivity: once set, raises
        :class:`core.runtime.progress.Stopped` (nothing to keep).
    """
    if dataset.label is None:
        raise DataError("Choose a label column: the schemes train a classifier.")
    rng = check_random_state(random_state)
    labels = _class_codes(dataset)
    schema = schema_for(dataset) if schema is None else schema
    if not isinstance(schema, PublicSchema):
        raise TypeError(f"schema must be a PublicSchema, got {type(schema).__name__}.")
    dp_columns = reading_columns(schema, dataset.label, features)
    dp_y = schema_labels(dataset, schema, dataset.label)
    # one public split for every scheme: a permutation of the row numbers, never the labels
    train, test = public_split(dataset.n_rows, test_size=test_size,
                               random_state=check_random_state(spawn_seed(rng)))
    if len(np.unique(labels[train])) != 2:
        raise DataError("The training part holds one class only; use more rows.")
    rm = record_matrix(dataset)
    check_stop(stop, "Preparing the schemes")
    sel = dc_fbfs(
        rm.X[train], labels[train], rm.names, tc=tc, threshold=threshold, measure=measure,
        random_state=rng, progress=stage(progress, 0.0, 0.92, "Feature selection"),
    )
    columns = {
        "Non-private": list(rm.names),
        "Group": list(rm.names),
        "Zhang": sel.importance_selected,
        "Proposed": sel.selected,
        DP_SCHEME: dp_columns,
    }
    reports = _scheme_reports(rm, train, columns, measure=measure, threshold=threshold, progress=progress,
                              stop=stop)
    sensitivity = {
        "Non-private": 0.0,
        "Group": reports["Group"]["GS"],
        "Zhang": reports["Zhang"]["CS"],
        "Proposed": reports["Proposed"]["CS"],
    }
    bound = group_bound(schema)
    sensitivity[DP_SCHEME] = bound.value
    report(progress, 1.0, "Schemes ready")
    return SchemeSetup(
        dataset, train, test, labels, sel, columns, sensitivity, reports, measure, threshold,
        schema=schema, bound=bound, dp_y=dp_y,
    )


def _class_codes(dataset: Dataset) -> np.ndarray:
    """Integer class codes over the sorted labels (cheap to compare on every refit); the
    label must have two classes."""
    labels = np.unique(dataset.frame[dataset.label].astype(str).to_numpy(), return_inverse=True)[1]
    if len(np.unique(labels)) != 2:
        raise DataError(
            f"CDP-LR needs a label with two classes; '{dataset.label}' has {len(np.unique(labels))}."
        )
    return labels


def _scheme_reports(rm, train: np.ndarray, columns: dict[str, list[str]], *, measure: str, threshold: float,
                    progress: Progress | None, stop: Stop | None) -> dict[str, dict[str, float]]:
    """CS and GS of each faithful scheme's attributes on the training records (schemes with
    the same attributes share one computation; the DP reading reads none)."""
    reports: dict[str, dict[str, float]] = {}
    cache: dict[tuple[str, ...], dict[str, float]] = {}
    for i, (scheme, cols) in enumerate(columns.items()):
        if scheme == DP_SCHEME:
            continue  # its sensitivity is the schema's bound, never the records'
        key = tuple(cols)
        if key not in cache:
            check_stop(stop, "Preparing the schemes")
            pos = [rm.names.index(c) for c in cols]
            rep = correlated_sensitivity(
                rm.X[np.ix_(train, pos)], measure=measure, threshold=threshold,
                progress=stage(progress, 0.92 + 0.02 * i, 0.94 + 0.02 * i, f"Sensitivity of {scheme}"),
            )
            cache[key] = {"CS": rep.correlated, "GS": rep.group}
        reports[scheme] = cache[key]
    return reports


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
    """Train one scheme and return the model and its test accuracy.

    The model's ``ledger_`` says what the scheme's guarantee is: a faithful scheme (Group,
    Zhang, Proposed) is marked not differentially private with its reasons (sensitivity,
    features and scaling from the records); the DP reading carries the schema's charges and
    what its group bound covers. The accuracy is on the held-out private records (shown, not
    released).
    """
    check_choice(scheme, setup.columns, name="scheme")
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
        sensitivity_source=setup.source(scheme), random_state=random_state, **kw,
    ).fit(Xtr, ytr)
    mark_scheme(model.ledger_, setup, scheme)
    return model, float(model.score(Xte, yte))


def mark_scheme(ledger, setup: SchemeSetup, scheme: str):
    """Write what ``scheme`` read besides its noise into ``ledger`` (returned): a faithful
    scheme's reasons it is not DP, or the DP reading's schema charges."""
    if scheme == DP_SCHEME:
        return charge_reading(ledger, setup.schema, [*setup.columns[scheme], setup.dataset.label], setup.bound)
    if scheme in NOT_DP_REASONS:
        ledger.mark_not_dp(NOT_DP_REASONS[scheme])
    return ledger


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
    stop: Stop | None = None,
    **params,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Accuracy of each scheme at each epsilon, ``repetitions`` noise draws per point (Fig. 4).

    ``progress`` is told each run; ``stop`` (a ``threading.Event``), once set, ends the
    sweep with :class:`core.runtime.progress.Stopped` (:func:`epsilon_runs`).

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
                        repetitions=repetitions, random_state=random_state, progress=progress, stop=stop)
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
    stop: Stop | None = None,
) -> pd.DataFrame:
    """Run ``one(epsilon=, random_state=)`` at every epsilon, ``repetitions`` times each.

    ``one`` returns a value per name (common random numbers: every name sees the same seed
    at a given run). Returns one row per (name, epsilon, repetition): ``key``, epsilon,
    repetition, seed, ``value``. ``sort`` orders the rows by name, epsilon and repetition;
    without it they stay name by name in the order of the runs. ``stop`` (a
    ``threading.Event``) is checked after every run: once set, the sweep raises
    :class:`core.runtime.progress.Stopped`.
    """
    check_stop(stop, "The sweep")
    told = progress if stop is None else (lambda fraction, message: report(progress, fraction, message, stop=stop))
    wide = sweep(
        one, {"epsilon": [float(e) for e in epsilons]},
        repetitions=repetitions, random_state=random_state, progress=told,
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
    stop: Stop | None = None,
    **params,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Accuracy of each noise method (Table 3) at each epsilon on one scheme (Fig. 5);
    ``progress`` and ``stop`` as in :func:`scheme_curve`."""
    mats = setup.matrices(scheme)
    sens = setup.sensitivity[scheme] if scheme != "Non-private" else setup.reports[scheme]["CS"]
    kw = {**PRESETS[preset], **params}

    def one(*, epsilon: float, random_state: int) -> dict:
        out = {}
        for method in methods:  # common random numbers across methods
            model = CDPLogisticRegression(
                epsilon=epsilon, noise_method=method, sensitivity=sens,
                sensitivity_source=setup.source(scheme), random_state=random_state, **kw,
            ).fit(mats[0], mats[2])
            out[method] = float(model.score(mats[1], mats[3]))
        return out

    runs = epsilon_runs(one, methods, "method", "accuracy", epsilons=epsilons,
                        repetitions=repetitions, random_state=random_state, progress=progress, stop=stop)
    runs["method"] = runs["method"].astype(int)
    return summarize(runs, ["method", "epsilon"], "accuracy"), runs
