"""The k-ary randomized-response baseline of paper 002 (Eq. 1, Section 5.6, Fig. 7).

Each implicit attribute of every record is reported through kRR with budget epsilon:
kept with probability e^eps / (k - 1 + e^eps), otherwise replaced by one of the other
k - 1 values. Numeric implicit attributes are first cut into quantile bins (the domain
kRR needs is finite) and reported as the midpoint of the reported bin. The sensitive
attribute itself and the other attributes are left as they are. The perturbed table is
then evaluated like IMPOSTER's synthetic one in setting B: classifiers trained and tested
on it (if the label is an implicit attribute it is perturbed too, as in the paper).

Privacy meaning: each implicit value is epsilon-locally-DP on its own; a record with j
perturbed attributes spends j * epsilon in total (sequential composition). Nothing else
of the record is protected.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Callable, Sequence

import numpy as np
import pandas as pd

from core.data import Dataset, infer_column_types
from core.imposter.evaluation import _split, score_task
from core.mechanisms import PrivacyLedger, krr
from core.validation import (
    DataError,
    RandomState,
    check_epsilon,
    check_positive_int,
    check_random_state,
    draw_seed,
)

__all__ = ["krr_perturb", "krr_ledger", "krr_baseline", "krr_sweep", "FIG7_EPSILONS"]

#: The privacy budgets of Fig. 7 (the paper sweeps epsilon from 1 to 100).
FIG7_EPSILONS = (1.0, 2.0, 3.0, 5.0, 7.0, 10.0, 20.0, 50.0, 100.0)

_MISSING = "__pux_missing__"


def _numeric_columns(data) -> tuple[pd.DataFrame, tuple[str, ...]]:
    if isinstance(data, Dataset):
        return data.frame, data.numeric
    if isinstance(data, pd.DataFrame):
        return data, infer_column_types(data)[0]
    raise TypeError(f"expected a Dataset or DataFrame, got {type(data).__name__}.")


def krr_perturb(
    data: pd.DataFrame | Dataset,
    *,
    columns: Sequence[str],
    epsilon: float,
    bins: int = 10,
    random_state: RandomState = None,
) -> pd.DataFrame:
    """A copy of the table with ``columns`` perturbed by k-ary randomized response.

    Parameters
    ----------
    data : DataFrame or Dataset
        The real table.
    columns : sequence of str
        Attributes to perturb (the implicit-privacy attributes).
    epsilon : float
        Local privacy budget per perturbed value (Eq. 1). Smaller means more values
        replaced at random.
    bins : int
        Quantile bins for a numeric attribute with more than ``bins`` distinct values.
    random_state : int, Generator or None
        Source of the randomness.
    """
    frame, numeric = _numeric_columns(data)
    eps = check_epsilon(epsilon)
    bins = check_positive_int(bins, name="bins", minimum=2)
    rng = check_random_state(random_state)
    out = frame.copy()
    for col in columns:
        if col not in frame.columns:
            raise DataError(f"The column '{col}' is not in the data.")
        s = frame[col]
        if col in numeric and s.nunique(dropna=True) > bins:
            vals = pd.to_numeric(s, errors="coerce")
            codes, edges = pd.qcut(vals, q=bins, labels=False, retbins=True, duplicates="drop")
            mids = (edges[:-1] + edges[1:]) / 2.0
            codes = codes.fillna(-1).astype(np.int64).to_numpy()
            cats = sorted(set(codes.tolist()))
            if len(cats) < 2:
                continue
            noisy = krr(codes, categories=cats, epsilon=eps, random_state=rng).astype(np.int64)
            values = np.where(noisy >= 0, mids[np.clip(noisy, 0, len(mids) - 1)], np.nan)
            if pd.api.types.is_integer_dtype(s):
                values = np.round(values)
                out[col] = values.astype(s.dtype) if not np.isnan(values).any() else values
            else:
                out[col] = values
        else:
            filled = s.astype(object).where(s.notna(), _MISSING)
            cats = sorted(filled.unique(), key=str)
            if len(cats) < 2:
                continue
            noisy = pd.Series(krr(filled.to_numpy(), categories=cats, epsilon=eps,
                                  random_state=rng), index=s.index)
            noisy = noisy.where(noisy != _MISSING, np.nan)
            try:
                noisy = noisy.astype(s.dtype)
            except (TypeError, ValueError):
                pass
            out[col] = noisy
    return out


def krr_ledger(columns: Sequence[str], epsilon: float, *, table_columns: Sequence[str] = ()) -> PrivacyLedger:
    """The ledger of a table released by :func:`krr_perturb`.

    Each perturbed value is epsilon-locally-DP, so one record spends len(columns) x epsilon
    (sequential composition). When the table has other columns, published exactly, the
    release as a whole is not DP under the project's relation (replacing a record changes
    them visibly): the ledger says so and keeps the spends as nominal.

    Parameters
    ----------
    columns : sequence of str
        The perturbed attributes.
    epsilon : float
        Budget of each perturbed value.
    table_columns : sequence of str
        Every column of the released table.
    """
    eps = check_epsilon(epsilon)
    ledger = PrivacyLedger()
    for col in columns:
        ledger.spend(eps, label=f"kRR on '{col}' (every record)")
    exact = [c for c in table_columns if c not in set(columns)]
    if exact:
        ledger.mark_not_dp(
            f"kRR perturbs only {len(list(columns))} column(s); the other {len(exact)} are published "
            "exactly, so a replaced record shows in the release."
        )
    ledger.assume("Numeric columns are cut into quantile bins computed from the raw data; the bins are "
                  "taken as public.")
    return ledger


def krr_baseline(
    data: pd.DataFrame | Dataset,
    *,
    sensitive: str,
    label: str,
    implicit: Sequence[str],
    epsilon: float,
    classifier: str = "gbdt",
    bins: int = 10,
    test_size: float = 0.3,
    random_state: RandomState = None,
) -> dict[str, float]:
    """Perturb the implicit attributes with kRR, then train and test on the result.

    Returns accuracy and macro F1 of ``classifier`` predicting ``sensitive`` from the
    perturbed implicit attributes and ``label`` from every other attribute (keys
    ``sensitive_accuracy``, ``sensitive_f1``, ``label_accuracy``, ``label_f1``).
    """
    frame, _ = _numeric_columns(data)
    rng = check_random_state(random_state)
    noisy = krr_perturb(data, columns=implicit, epsilon=epsilon, bins=bins, random_state=rng)
    out: dict[str, float] = {}
    features = {"sensitive": list(implicit), "label": [c for c in frame.columns if c != label]}
    for task, target in (("sensitive", sensitive), ("label", label)):
        train, test = _split(noisy, target, test_size, draw_seed(rng))
        res = score_task(train, test, target, features[task], classifier=classifier,
                         random_state=draw_seed(rng))
        out[f"{task}_accuracy"] = res["accuracy"]
        out[f"{task}_f1"] = res["f1"]
    return out


def krr_sweep(
    data: pd.DataFrame | Dataset,
    *,
    sensitive: str,
    label: str,
    implicit: Sequence[str],
    epsilons: Sequence[float] = FIG7_EPSILONS,
    classifier: str = "gbdt",
    repetitions: int = 1,
    bins: int = 10,
    max_rows: int | None = None,
    random_state: RandomState = 0,
    progress: Callable[[float, str], None] | None = None,
) -> pd.DataFrame:
    """Fig. 7: the kRR baseline over a range of epsilon, ``repetitions`` runs each.

    Returns one row per (epsilon, repetition) with the four scores of
    :func:`krr_baseline`.
    """
    frame, _ = _numeric_columns(data)
    reps = check_positive_int(repetitions, name="repetitions")
    rng = check_random_state(random_state)
    if max_rows is not None and len(frame) > max_rows:
        idx = np.sort(rng.choice(len(frame), size=max_rows, replace=False))
        sub = frame.iloc[idx].reset_index(drop=True)
        data = replace(data, frame=sub) if isinstance(data, Dataset) else sub
    rows = []
    total = len(epsilons) * reps
    for i, eps in enumerate(epsilons):
        for rep in range(reps):
            seed = draw_seed(rng)
            res = krr_baseline(data, sensitive=sensitive, label=label, implicit=implicit,
                               epsilon=eps, classifier=classifier, bins=bins, random_state=seed)
            rows.append({"epsilon": float(eps), "repetition": rep, "seed": seed, **res})
            if progress is not None:
                progress((i * reps + rep + 1) / total, f"epsilon={eps:g}, run {rep + 1}")
    return pd.DataFrame(rows)
