"""Empirical privacy risk of a release: the same attacks on every release (issue 12).

Four measures, each run on real records the release was made from (``train``) and real
records it was not made from (``holdout``), so that a number is always read against a
baseline that needs no access to the generator:

- :func:`distance_to_closest_record` (DCR): are training records closer to the release
  than to other real records? (SDMetrics' DCROverfittingProtection, Anonymeter's
  holdout / control idea.)
- :func:`attribute_inference`: how well does a model trained on the release guess a
  sensitive column of real records, beyond always guessing the majority value?
- :func:`membership_inference_auc`: can the loss of a trained model tell its training
  records from others? (Yeom et al. 2018's loss-threshold attack.)
- :func:`nearest_distances` and :func:`encode_for_distance`: the nearest-neighbour search
  under DCR, in row blocks (never n x n in memory), on a Gower-like encoding.

None of these is a guarantee: a low empirical risk says that these attacks failed, not
that every attack would; only differential privacy bounds every attack.
"""
from __future__ import annotations

from collections.abc import Sequence as SequenceABC
from typing import Any, Sequence

import numpy as np
import pandas as pd
from sklearn.metrics import roc_auc_score, roc_curve

from core.data import Dataset
from core.imposter.classifiers import ALL_CLASSIFIERS
from core.imposter.evaluation import score_task
from core.evaluation.metrics import majority_share
from core.validation import DataError, check_matrix, check_positive_int
from core.runtime.randomness import RandomState, check_random_state

__all__ = [
    "encode_for_distance",
    "nearest_distances",
    "distance_to_closest_record",
    "DCRReference",
    "attribute_inference",
    "membership_inference_auc",
]

#: Bytes of one block of float32 squared distances in :func:`nearest_distances` (32 MB).
BLOCK_BYTES = 32_000_000
_MISSING = "(missing)"
_OTHER = "(other)"
#: Smallest probability used in a log-loss (a label the model never predicts costs -log of it).
_PROB_FLOOR = 1e-12


# ---------------------------------------------------------------------------------------
# Input checks
# ---------------------------------------------------------------------------------------

def _as_frame(data: Any, name: str) -> pd.DataFrame:
    """The frame of a Dataset or DataFrame; TypeError for anything else."""
    if isinstance(data, Dataset):
        return data.frame
    if isinstance(data, pd.DataFrame):
        return data
    raise TypeError(f"{name} must be a pandas DataFrame or a Dataset, got {type(data).__name__}.")


def _check_columns(columns: Any, reference: pd.DataFrame, frames: dict[str, pd.DataFrame]) -> list[str]:
    """``columns`` (default: every column of the reference) as a list present in every frame."""
    if columns is None:
        columns = list(reference.columns)
    elif isinstance(columns, (str, bytes)) or not isinstance(columns, (SequenceABC, pd.Index, np.ndarray)):
        raise TypeError(f"columns must be a list of column names or None, got {type(columns).__name__}.")
    columns = list(columns)
    if not columns:
        raise ValueError("columns must name at least one column to measure distances on.")
    if len(set(columns)) != len(columns):
        raise ValueError(f"columns must not repeat a name, got {columns}.")
    for name, frame in frames.items():
        missing = [c for c in columns if c not in frame.columns]
        if missing:
            raise DataError(f"The {name} table lacks the columns {missing}; pass tables with the same columns.")
    return columns


def _is_quantity(s: pd.Series) -> bool:
    return pd.api.types.is_numeric_dtype(s) and not pd.api.types.is_bool_dtype(s)


# ---------------------------------------------------------------------------------------
# Encoding and nearest-neighbour search
# ---------------------------------------------------------------------------------------

def _numeric_block(col: str, series: list[pd.Series], names: list[str]) -> list[np.ndarray]:
    """Min-max by the reference's range (clipped to [0, 1]); missing -> reference median
    plus a 0/1 indicator column (added only when some table has a missing value)."""
    values = []
    for s, name in zip(series, names):
        v = pd.to_numeric(s, errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
        if int(np.isnan(v).sum()) > int(s.isna().sum()):
            raise DataError(
                f"The column '{col}' is numeric in the reference table but has text in the {name} "
                "table; give it numbers (or missing values) there too."
            )
        if np.isinf(v).any():
            raise DataError(f"The column '{col}' of the {name} table has infinite values; drop or cap them first.")
        values.append(v)
    r = values[0]
    has_ref = bool(np.isfinite(r).any())
    lo, hi = (float(np.nanmin(r)), float(np.nanmax(r))) if has_ref else (0.0, 0.0)
    median = float(np.nanmedian(r)) if has_ref else 0.0
    span = hi - lo
    any_missing = any(np.isnan(v).any() for v in values)
    out = []
    for v in values:
        missing = np.isnan(v)
        filled = np.where(missing, median, v)
        scaled = np.clip((filled - lo) / span, 0.0, 1.0) if span > 0 else np.zeros_like(filled)
        out.append(np.column_stack([scaled, missing.astype(np.float64)]) if any_missing else scaled[:, None])
    return out


def _text_codes(s: pd.Series) -> tuple[np.ndarray, pd.Index]:
    """Codes of ``s`` into its distinct values as text (missing as ``(missing)``); only
    the distinct values are converted, so it costs one hashing pass."""
    codes, uniques = pd.factorize(s, use_na_sentinel=True)
    texts = [str(u) for u in uniques] + [_MISSING]
    return np.where(codes < 0, len(texts) - 1, codes), pd.Index(texts)


def _categorical_block(series: list[pd.Series]) -> list[np.ndarray]:
    """One-hot over the reference's values (missing is a value), scaled by 1/sqrt(2) so a
    mismatch costs 1; values the reference lacks share one more column, ``(other)``."""
    coded = [_text_codes(s) for s in series]
    ref_codes, ref_texts = coded[0]
    cats = pd.Index(sorted(set(ref_texts[np.unique(ref_codes)])))
    codes = [cats.get_indexer(texts)[c] for c, texts in coded]
    unseen = any((c < 0).any() for c in codes[1:])
    size = len(cats) + int(unseen)
    out = []
    for c in codes:
        onehot = np.zeros((len(c), size), dtype=np.float64)
        onehot[np.arange(len(c)), np.where(c < 0, len(cats), c)] = np.sqrt(0.5)
        out.append(onehot)
    return out


def encode_for_distance(reference: pd.DataFrame, *others: pd.DataFrame,
                        columns: Sequence[str] | None = None) -> tuple[np.ndarray, ...]:
    """Numeric matrices for nearest-neighbour search, all on the reference's scales.

    A Gower-like encoding (each attribute's largest difference costs 1), read with the
    Euclidean distance so that blocked matrix products find nearest rows:

    - a numeric column is min-max scaled by the *reference's* range and clipped to
      [0, 1], so a value beyond the reference's range is as far as its nearest end;
      a missing number is imputed to the reference's median and a 0/1 "missing" column
      is added (only when some table has a missing value in that column);
    - any other column (text, bool, category) is one-hot over the reference's values
      (missing is a value of its own) with entries 1/sqrt(2), so two different values
      are at distance 1, like the two ends of a numeric range. Values the reference lacks
      share one extra column ("other"), so they too are at distance 1 from every
      reference value (and at 0 from each other).

    The distance of two rows is then sqrt(sum over attributes of d_a^2) with every d_a in
    [0, 1]: 0 for identical rows (up to the clipping above), sqrt(#attributes) at most.
    SDMetrics' DCR metrics use the same per-attribute differences averaged (L1, Gower).

    Parameters
    ----------
    reference : DataFrame or Dataset
        The table whose ranges, medians and categories define the encoding (for DCR, the
        training records the release was made from).
    *others : DataFrame or Dataset
        Tables encoded on the reference's scales (a release, a holdout).
    columns : sequence of str, optional
        Columns to use (default: every column of ``reference``); all tables need them.
        Numeric or categorical is decided by the reference's dtype.

    Returns
    -------
    tuple of ndarray
        One float64 matrix per table (reference first), with the same columns.

    Raises
    ------
    TypeError
        A table is not a DataFrame / Dataset, or ``columns`` is not a list of names.
    DataError
        A table lacks a column, has text in a numeric column, or infinite numbers.
    """
    frames = [_as_frame(reference, "reference")] + [_as_frame(o, f"table {i + 1}") for i, o in enumerate(others)]
    names = ["reference"] + [f"table {i + 1}" for i in range(len(others))]
    columns = _check_columns(columns, frames[0], dict(zip(names, frames)))
    parts: list[list[np.ndarray]] = [[] for _ in frames]
    for col in columns:
        series = [f[col] for f in frames]
        blocks = (_numeric_block(col, series, names) if _is_quantity(series[0])
                  else _categorical_block(series))
        for p, b in zip(parts, blocks):
            p.append(b)
    return tuple(np.hstack(p) if p else np.zeros((len(f), 0)) for p, f in zip(parts, frames))


def nearest_distances(queries: np.ndarray, reference: np.ndarray, *, exclude_self: bool = False,
                      block_rows: int | None = None) -> np.ndarray:
    """Euclidean distance from each query row to its nearest reference row.

    Computed in blocks of query rows (never n x m in memory): each block ranks the
    reference rows by ``|b|^2 - 2 a.b`` (the squared distance less the row constant
    ``|a|^2``) from one float32 matrix product of augmented matrices, on data centred on
    the reference mean to keep the rounding small; the nearest row found is then
    measured again exactly in float64, so an exact copy is at distance 0 and equal rows
    give equal distances. The row found is the nearest up to float32 rounding: its
    squared distance exceeds the true minimum by at most about 1e-6 times the squared
    norms (on :func:`encode_for_distance`'s scale of 0..1 per attribute, a distance
    moves by less than 1e-3 near 0 and far less elsewhere). Float32 halves the time of
    the float64 product; on Adult it is about half of scikit-learn's brute search.

    Parameters
    ----------
    queries : array_like of shape (n, p)
    reference : array_like of shape (m, p)
        Finite numbers (encode tables with :func:`encode_for_distance`).
    exclude_self : bool
        ``queries`` and ``reference`` are the same records (row i is row i): skip each
        record itself and give the distance to its nearest *other* record (a duplicate
        record still counts, at distance 0).
    block_rows : int, optional
        Query rows per block; default keeps a block near 32 MB (8 million distances).

    Returns
    -------
    ndarray of shape (n,)
        The distances (float64).

    Raises
    ------
    TypeError
        A matrix is not numeric, ``exclude_self`` is not a bool, ``block_rows`` not an int.
    ValueError
        The matrices have different numbers of columns, or (``exclude_self``) rows.
    DataError
        A matrix has missing or infinite values, or the reference has too few rows.
    """
    if not isinstance(exclude_self, (bool, np.bool_)):
        raise TypeError(f"exclude_self must be True or False, got {type(exclude_self).__name__}.")
    A = check_matrix(queries, name="queries", min_rows=0, min_columns=0)
    B = check_matrix(reference, name="reference", min_rows=2 if exclude_self else 1, min_columns=0)
    if A.shape[1] != B.shape[1]:
        raise ValueError(f"queries and reference must have the same columns, got {A.shape[1]} and {B.shape[1]}.")
    if exclude_self and len(A) != len(B):
        raise ValueError(
            f"exclude_self needs queries and reference to be the same records (row i is row i), "
            f"got {len(A)} and {len(B)} rows."
        )
    m = len(B)
    if block_rows is None:
        block_rows = max(1, (BLOCK_BYTES // 4) // m)
    else:
        block_rows = check_positive_int(block_rows, name="block_rows")
    out = np.empty(len(A), dtype=np.float64)
    if len(A) == 0:
        return out
    mu = B.mean(axis=0)
    Bc = B - mu
    # augmented so that one float32 product gives |b|^2 - 2 a.b, which orders the
    # reference rows like |a - b|^2 (|a|^2 is the same along a row and is left out)
    B32 = np.empty((m, B.shape[1] + 1), dtype=np.float32)
    B32[:, :-1] = Bc
    B32[:, -1] = np.einsum("ij,ij->i", Bc, Bc)
    for start in range(0, len(A), block_rows):
        a64 = A[start:start + block_rows]
        a32 = np.empty((len(a64), A.shape[1] + 1), dtype=np.float32)
        a32[:, :-1] = -2.0 * (a64 - mu)
        a32[:, -1] = 1.0
        d = a32 @ B32.T                      # (rows, m) float32: the only large array
        if exclude_self:
            rows = np.arange(len(a64))
            d[rows, start + rows] = np.inf
        nearest = d.argmin(axis=1)
        diff = a64 - B[nearest]
        out[start:start + len(a64)] = np.sqrt(np.einsum("ij,ij->i", diff, diff))
    return out


# ---------------------------------------------------------------------------------------
# Distance to closest record
# ---------------------------------------------------------------------------------------

def _row_keys(frames: list[pd.DataFrame], columns: list[str], numeric: set[str]) -> list[np.ndarray]:
    """A 64-bit hash of each row's values in each frame: numbers as float64, any other
    column as one integer code per distinct text shared by the frames."""
    canon: list[dict[str, np.ndarray]] = [{} for _ in frames]
    for c in columns:
        if c in numeric:
            for out, f in zip(canon, frames):
                out[c] = pd.to_numeric(f[c], errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
            continue
        coded = [_text_codes(f[c]) for f in frames]
        shared, _ = pd.factorize(pd.Index(np.concatenate([np.asarray(t, dtype=object) for _, t in coded])))
        offset = 0
        for out, (codes, texts) in zip(canon, coded):
            out[c] = shared[offset:offset + len(texts)][codes]
            offset += len(texts)
    return [pd.util.hash_pandas_object(pd.DataFrame(d, columns=columns), index=False).to_numpy()
            for d in canon]


def distance_to_closest_record(release: pd.DataFrame, train: pd.DataFrame, holdout: pd.DataFrame, *,
                               columns: Sequence[str] | None = None, block_rows: int | None = None,
                               max_records: int | None = None,
                               random_state: RandomState = None) -> dict[str, Any]:
    """Distance to closest record (DCR): is the release closer to its training records
    than to other real records?

    For each real *training* record t (the records the release was made from) let
    d_R(t) be the distance to its nearest released row and d_H(t) the distance to its
    nearest *holdout* record (real records drawn like the training ones but not used).
    Distances are Euclidean on :func:`encode_for_distance` with ``train`` as the
    reference. The risk is the share of training records with d_R(t) < d_H(t) (ties
    count one half).

    Baseline: if the released rows were drawn independently of the training records,
    from the same distribution as the holdout (the ideal generalising generator), the
    nearest of the n_R + n_H rows of release and holdout to a training record would be
    any one of them with equal chance, so the expected share is n_R / (n_R + n_H) (0.5
    for equal sizes), with no second real sample and no assumption about the data.
    Counting ties one half keeps it exact for equal sizes even on discrete data; with
    unequal sizes and many ties (few distinct rows) the expected share moves towards
    0.5, so prefer a release of the holdout's size. ``excess = risk - baseline``: 0 for
    a release that generalises, up to ``1 - baseline`` for an exact copy of the training
    records (every training record at distance 0 from the release); negative when the
    release is farther from the training records than fresh real data (noisy or coarse
    releases).

    Mapping to the references: SDMetrics' DCROverfittingProtection asks the same
    question from the other side (the share of *synthetic* rows closer to the training
    data than to a validation set of equal size, ideal 50 %, per-attribute Gower
    distances averaged); asking it per training record measures how many *people* have a
    row made close to them. Anonymeter (Giomi et al. 2023, PoPETs) compares an attack on
    training records with the same attack on control (holdout) records and reports
    (r_train - r_control) / (1 - r_control); ``normalised_excess`` is that ratio for
    this attack, ``excess / (1 - baseline)``. SDMetrics' DCRBaselineProtection (a
    release against uniform random data) is not computed: it says how far the release
    is from the data, not whether it is closer to the training records.

    Parameters
    ----------
    release : DataFrame or Dataset
        The published (synthetic, perturbed) table.
    train : DataFrame or Dataset
        The real records the release was made from.
    holdout : DataFrame or Dataset
        Real records from the same population, not used to make the release.
    columns : sequence of str, optional
        Columns to measure on (default: every column of ``train``).
    block_rows : int, optional
        Query rows per block of the search (see :func:`nearest_distances`).
    max_records : int, optional
        Measure a seeded sample of this many training records instead of all of them
        (the risk is then an estimate, standard error at most 0.5 / sqrt(max_records);
        the baseline does not change). To measure many releases against the same
        records, build a :class:`DCRReference` once.
    random_state : int, Generator or None
        Draws the sample of ``max_records`` (no effect without it).

    Returns
    -------
    dict
        ``risk``: share in [0, 1] of training records closer to the release than to the
        holdout, ties one half (higher is worse; an exact copy gives 1). ``baseline``: n_R / (n_R + n_H),
        the risk of a release that does not depend on the training records.
        ``excess``: risk - baseline (0 is ideal; positive means training records are
        reproduced). ``normalised_excess``: excess / (1 - baseline), at most 1 (an exact
        copy). ``median_dcr_train_to_release`` and ``median_dcr_train_to_holdout``: median
        d_R and d_H (a release much closer than the holdout copies records).
        ``exact_copies``: share of released rows equal to some training row in every
        column (0 is ideal; a copy gives 1; discrete data can reach it by chance; always
        over every training record). ``n_release``, ``n_train``, ``n_holdout``,
        ``n_measured`` (training records measured), ``columns``.

    Raises
    ------
    TypeError
        A table is not a DataFrame / Dataset.
    ValueError
        ``max_records`` below 1.
    DataError
        A table is empty or lacks a column.
    """
    reference = DCRReference(train, holdout, columns=columns, block_rows=block_rows,
                             max_records=max_records, random_state=random_state)
    return reference.measure(release)


class DCRReference:
    """The training and holdout side of :func:`distance_to_closest_record`, done once.

    Each measured training record's distance to its nearest holdout record does not
    depend on the release, so a comparison that measures many releases of the same
    split computes it once here and then calls :meth:`measure` per release: the result
    is the same as :func:`distance_to_closest_record` with the same arguments.

    Parameters
    ----------
    train, holdout, columns, block_rows, max_records, random_state
        As in :func:`distance_to_closest_record`.

    Attributes
    ----------
    records_ : ndarray of int
        Row positions (in ``train``) of the training records measured, sorted.
    holdout_distances_ : ndarray
        Their distances to the nearest holdout record.
    """

    def __init__(self, train: pd.DataFrame, holdout: pd.DataFrame, *, columns: Sequence[str] | None = None,
                 block_rows: int | None = None, max_records: int | None = None,
                 random_state: RandomState = None) -> None:
        tr, ho = _as_frame(train, "train"), _as_frame(holdout, "holdout")
        for name, frame in (("train", tr), ("holdout", ho)):
            if len(frame) == 0:
                raise DataError(f"The {name} table is empty; DCR needs at least one row in each table.")
        self.columns = _check_columns(columns, tr, {"train": tr, "holdout": ho})
        self.block_rows = None if block_rows is None else check_positive_int(block_rows, name="block_rows")
        n = len(tr)
        if max_records is not None and check_positive_int(max_records, name="max_records") < n:
            rng = check_random_state(random_state)
            self.records_ = np.sort(rng.choice(n, size=max_records, replace=False))
        else:
            self.records_ = np.arange(n)
        self._train, self._n_holdout = tr, len(ho)
        T, H = encode_for_distance(tr, ho, columns=self.columns)
        self.holdout_distances_ = nearest_distances(T[self.records_], H, block_rows=self.block_rows)

    def measure(self, release: pd.DataFrame) -> dict[str, Any]:
        """DCR of one release against this reference (the keys of
        :func:`distance_to_closest_record`)."""
        rel, tr = _as_frame(release, "release"), self._train
        if len(rel) == 0:
            raise DataError("The release table is empty; DCR needs at least one row in each table.")
        cols = _check_columns(self.columns, tr, {"release": rel})
        # the release is encoded on the training records' scales, as the holdout was: each
        # attribute's distance is defined the same way in both pairs
        T, R = encode_for_distance(tr, rel, columns=cols)
        d_rel = nearest_distances(T[self.records_], R, block_rows=self.block_rows)
        d_hold = self.holdout_distances_
        risk = float(np.mean(d_rel < d_hold) + 0.5 * np.mean(d_rel == d_hold))
        baseline = len(rel) / (len(rel) + self._n_holdout)
        numeric = {c for c in cols if _is_quantity(tr[c])}
        rel_keys, tr_keys = _row_keys([rel, tr], cols, numeric)
        copies = np.isin(rel_keys, tr_keys)
        return {
            "risk": risk,
            "baseline": float(baseline),
            "excess": risk - baseline,
            "normalised_excess": (risk - baseline) / (1.0 - baseline),
            "median_dcr_train_to_release": float(np.median(d_rel)),
            "median_dcr_train_to_holdout": float(np.median(d_hold)),
            "exact_copies": float(copies.mean()),
            "n_release": len(rel), "n_train": len(tr), "n_holdout": self._n_holdout,
            "n_measured": len(self.records_),
            "columns": cols,
        }


# ---------------------------------------------------------------------------------------
# Attribute inference
# ---------------------------------------------------------------------------------------

def attribute_inference(release: pd.DataFrame, holdout: pd.DataFrame, *, target: str,
                        features: Sequence[str] | None = None, classifier: str = "gbdt",
                        random_state: RandomState = None, members: pd.DataFrame | None = None) -> dict[str, Any]:
    """Attribute inference: a model trained on the release guesses ``target`` of real records.

    The attacker knows every other attribute of a person (``features``) and wants the
    sensitive one (``target``). It trains ``classifier`` on the release only and is
    tested on real records it has not seen: this is the train-on-synthetic / test-on-real
    task of :func:`core.imposter.evaluation.score_task` (paper 002's "sensitive" task;
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
    if not isinstance(classifier, str):
        raise TypeError(f"classifier must be a name (str), got {type(classifier).__name__}.")
    if classifier not in ALL_CLASSIFIERS:
        raise ValueError(f"classifier must be one of {ALL_CLASSIFIERS}, got {classifier!r}.")
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
    """:func:`core.imposter.evaluation.score_task` on ``holdout`` and on ``members`` from one
    fitted attacker: the holdout's scores equal ``score_task``'s (same classes, same seed)."""
    from core.imposter.classifiers import encode_target, few_threads, make_classifier, prepare_frame
    from core.imposter.evaluation import _scores

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


# ---------------------------------------------------------------------------------------
# Membership inference
# ---------------------------------------------------------------------------------------

def _true_label_log_prob(model: Any, X: Any, y: Any, name: str) -> np.ndarray:
    """log P(true label) under ``model.predict_proba`` (floored at 1e-12)."""
    if isinstance(y, (str, bytes)) or y is None:
        raise TypeError(f"{name}_y must be an array of labels, got {type(y).__name__}.")
    labels = np.asarray(y).ravel()
    if len(labels) == 0:
        raise DataError(f"{name} needs at least one record.")
    proba = np.asarray(model.predict_proba(X), dtype=np.float64)
    if proba.ndim != 2 or proba.shape[0] != len(labels):
        raise ValueError(
            f"{name}_X and {name}_y must have one row per record: predict_proba gave "
            f"{proba.shape[0] if proba.ndim else 0} rows for {len(labels)} labels."
        )
    index = {c: i for i, c in enumerate(np.asarray(model.classes_).tolist())}
    col = np.fromiter((index.get(v, -1) for v in labels.tolist()), dtype=np.int64, count=len(labels))
    p = np.where(col >= 0, proba[np.arange(len(labels)), np.maximum(col, 0)], 0.0)
    return np.log(np.maximum(p, _PROB_FLOOR))


def membership_inference_auc(model: Any, members_X: Any, members_y: Any, nonmembers_X: Any,
                             nonmembers_y: Any) -> dict[str, float]:
    """Loss-threshold membership inference (Yeom et al. 2018, CSF, "Privacy Risk in
    Machine Learning: Analyzing the Connection to Overfitting").

    The attacker scores each record by minus the model's log-loss on it,
    ``log P(true label | x)``, and calls it a member (a training record) when the score is
    high: an overfit model is more confident on the records it was trained on. Yeom et
    al. threshold at the mean training loss; here every threshold is tried (the ROC
    curve), so ``advantage`` is the best any threshold achieves (an upper bound on the
    fixed-threshold attack, and Yeom et al.'s membership advantage TPR - FPR at that
    threshold). Under epsilon-DP the advantage is at most e^epsilon - 1 (Yeom et al.,
    Theorem 1).

    Parameters
    ----------
    model : fitted classifier
        Anything with ``predict_proba(X)`` and ``classes_`` (scikit-learn classifiers,
        pipelines, :class:`core.cdp.logistic.CDPLogisticRegression`).
    members_X, members_y : array_like
        Records the model was trained on, and their labels.
    nonmembers_X, nonmembers_y : array_like
        Records from the same population it was not trained on. Balanced sizes make the
        AUC easiest to read, but it does not depend on them.

    Returns
    -------
    dict
        ``auc``: area under the ROC curve with members as positives, in [0, 1]: 0.5 means
        the loss says nothing about membership (no leak seen), 1 means it separates
        members perfectly. ``advantage``: max over thresholds of TPR - FPR, in [0, 1]:
        0 no leak, 1 every record's membership revealed. ``mean_loss_members``,
        ``mean_loss_nonmembers``: mean log-loss of each group (a gap is overfitting).
        ``n_members``, ``n_nonmembers``.

    Raises
    ------
    TypeError
        ``model`` lacks ``predict_proba`` or ``classes_``, or labels are not an array.
    ValueError
        X and y have different numbers of records.
    DataError
        A group has no record.
    """
    if not callable(getattr(model, "predict_proba", None)) or not hasattr(model, "classes_"):
        raise TypeError(
            f"model must be a fitted classifier with predict_proba and classes_, got {type(model).__name__}."
        )
    s_in = _true_label_log_prob(model, members_X, members_y, "members")
    s_out = _true_label_log_prob(model, nonmembers_X, nonmembers_y, "nonmembers")
    scores = np.concatenate([s_in, s_out])
    is_member = np.concatenate([np.ones(len(s_in)), np.zeros(len(s_out))])
    fpr, tpr, _ = roc_curve(is_member, scores)
    return {
        "auc": float(roc_auc_score(is_member, scores)),
        "advantage": float(max(0.0, np.max(tpr - fpr))),
        "mean_loss_members": float(-s_in.mean()),
        "mean_loss_nonmembers": float(-s_out.mean()),
        "n_members": len(s_in), "n_nonmembers": len(s_out),
    }
