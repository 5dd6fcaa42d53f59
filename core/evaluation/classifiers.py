"""The five classifiers of paper 002's Table 1, behind one factory.

Every classifier is a scikit-learn pipeline: categorical columns one-hot encoded (unknown
categories ignored, so a model trained on synthetic data can score real data), numeric
columns min-max scaled. "gbdt" is scikit-learn's histogram gradient-boosted trees (the
same model family as the paper's GBDT, much faster on 48,842 rows).

Beyond Table 1, "hgb" is the same boosted trees reading categorical columns natively
(ordinal codes split by category sets, unknown categories as missing) instead of one-hot:
about 4x faster on Adult at the same accuracy (0.867 against 0.870 for income). The
comparison (:mod:`core.compare.run`) uses it for every utility measure and attack.

They live in :mod:`core.evaluation`, below IMPOSTER: the attacks (:mod:`core.evaluation.attacks`)
and :func:`core.evaluation.tasks.score_task` read them as much as paper 002's Table 1 does.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd
from sklearn.compose import ColumnTransformer
from sklearn.ensemble import HistGradientBoostingClassifier, RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.neural_network import MLPClassifier
from sklearn.pipeline import Pipeline
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.preprocessing import MinMaxScaler, OneHotEncoder

from core.runtime.threads import few_threads
from core.runtime.randomness import RandomState, check_random_state, spawn_seed
from core.validation import check_choice

__all__ = ["CLASSIFIERS", "ALL_CLASSIFIERS", "CLASSIFIER_LABELS", "make_classifier", "feature_pipeline",
           "few_threads", "MISSING_TEXT", "as_text"]

#: Short names, in Table 1's order.
CLASSIFIERS = ("xgboost", "gbdt", "rf", "mlp", "lr")
#: Table 1's classifiers and "hgb" (GBDT with native categorical splits).
ALL_CLASSIFIERS = CLASSIFIERS + ("hgb",)
CLASSIFIER_LABELS = {"xgboost": "XGBoost", "gbdt": "GBDT", "rf": "RF", "mlp": "MLP", "lr": "LR",
                     "hgb": "GBDT (native categorical)"}
#: Most categories "hgb" keeps per column (histogram gradient boosting bins at most 255
#: values); rarer ones share one code.
MAX_NATIVE_CATEGORIES = 250


def _estimator(name: str, seed: int):
    if name == "xgboost":
        from xgboost import XGBClassifier

        return XGBClassifier(
            n_estimators=200, max_depth=6, learning_rate=0.1, tree_method="hist",
            n_jobs=1, random_state=seed % (2**31), verbosity=0,
        )
    if name == "gbdt":
        return HistGradientBoostingClassifier(max_iter=200, random_state=seed % (2**31))
    if name == "rf":
        return RandomForestClassifier(
            n_estimators=100, min_samples_leaf=2, n_jobs=1, random_state=seed % (2**31)
        )
    if name == "mlp":
        return MLPClassifier(
            hidden_layer_sizes=(64,), max_iter=200, early_stopping=True,
            random_state=seed % (2**31),
        )
    return LogisticRegression(max_iter=1000)  # "lr": make_classifier checked the name


def _split_columns(frame: pd.DataFrame, columns: Sequence[str]) -> tuple[list[str], list[str]]:
    """(numeric, categorical) names among ``columns``: bools count as categorical."""
    numeric = [c for c in columns if pd.api.types.is_numeric_dtype(frame[c])
               and not pd.api.types.is_bool_dtype(frame[c])]
    return numeric, [c for c in columns if c not in numeric]


class CategoryCodes(TransformerMixin, BaseEstimator):
    """Integer codes of each column's most frequent values, NaN for any other value.

    Fit keeps, per column, the ``max_categories`` most frequent values (ties by first
    appearance); transform gives each kept value its code and anything else (unseen,
    infrequent, missing) NaN, which histogram gradient boosting treats as missing. One
    pandas hashing pass per column (scikit-learn's OrdinalEncoder counts object columns
    in Python, about 1 s on Adult).
    """

    def __init__(self, max_categories: int = MAX_NATIVE_CATEGORIES) -> None:
        self.max_categories = max_categories

    def fit(self, X, y=None) -> "CategoryCodes":
        frame = pd.DataFrame(X)
        self.categories_ = [pd.Index(frame[c].value_counts(sort=True, dropna=True).index[:self.max_categories])
                            for c in frame.columns]
        self.n_features_in_ = frame.shape[1]
        return self

    def transform(self, X) -> np.ndarray:
        frame = pd.DataFrame(X)
        out = np.empty(frame.shape, dtype=np.float64)
        for j, (c, cats) in enumerate(zip(frame.columns, self.categories_)):
            codes = cats.get_indexer(frame[c])
            out[:, j] = np.where(codes < 0, np.nan, codes)
        return out


def _native_gbdt(frame: pd.DataFrame, columns: Sequence[str], seed: int) -> Pipeline:
    """Codes for categorical columns (unknown or infrequent values as missing), numbers as
    they are, and boosted trees that split the codes as categories."""
    numeric, categorical = _split_columns(frame, columns)
    parts = []
    if categorical:
        parts.append(("cat", CategoryCodes(), categorical))
    if numeric:
        parts.append(("num", "passthrough", numeric))
    mask = [True] * len(categorical) + [False] * len(numeric)
    model = HistGradientBoostingClassifier(max_iter=200, categorical_features=mask if categorical else None,
                                           random_state=seed % (2**31))
    return Pipeline([("encode", ColumnTransformer(parts, sparse_threshold=0.0)), ("model", model)])


def feature_pipeline(frame: pd.DataFrame, columns: Sequence[str]) -> ColumnTransformer:
    """One-hot for non-numeric columns, min-max for numeric ones, over ``columns``."""
    numeric, categorical = _split_columns(frame, columns)
    parts = []
    if categorical:
        parts.append(("cat", OneHotEncoder(handle_unknown="ignore"), categorical))
    if numeric:
        parts.append(("num", MinMaxScaler(), numeric))
    return ColumnTransformer(parts, sparse_threshold=0.0)


def make_classifier(
    name: str, frame: pd.DataFrame, columns: Sequence[str], *, random_state: RandomState = None
) -> Pipeline:
    """An unfitted pipeline (encoding + classifier ``name``) reading ``columns`` of a frame.

    Parameters
    ----------
    name : {"xgboost", "gbdt", "rf", "mlp", "lr", "hgb"}
        The attacker's (or the analyst's) model.
    frame : DataFrame
        A frame with the columns, used only to tell numeric from categorical.
    columns : sequence of str
        Features the model reads.
    random_state : int, Generator or None
        Seeds the model.
    """
    check_choice(name, ALL_CLASSIFIERS, name="classifier", kind=str)
    seed = spawn_seed(check_random_state(random_state))
    if name == "hgb":
        return _native_gbdt(frame, columns, seed)
    return Pipeline([("encode", feature_pipeline(frame, columns)), ("model", _estimator(name, seed))])


#: A missing value read as a category (features, strata): a value of its own.
MISSING_TEXT = "(missing)"


def as_text(values: pd.Series) -> pd.Series:
    """Each value as text, a missing one as :data:`MISSING_TEXT`.

    ``Series.astype(str)`` keeps a missing value missing (pandas 3's string dtype), and
    scikit-learn refuses a NaN among categories ("Input contains NaN"): every column read
    as categories, and every stratification, goes through here.
    """
    return values.astype(object).where(values.notna(), MISSING_TEXT).astype(str)


def prepare_frame(frame: pd.DataFrame, columns: Sequence[str]) -> pd.DataFrame:
    """``frame[columns]`` with missing text as the category :data:`MISSING_TEXT` and numbers imputed."""
    out = frame[list(columns)].copy()
    for c in out.columns:
        s = out[c]
        if pd.api.types.is_numeric_dtype(s) and not pd.api.types.is_bool_dtype(s):
            if s.isna().any():
                out[c] = s.fillna(s.median() if s.notna().any() else 0.0)
        else:
            out[c] = as_text(s)
    return out


def encode_target(y: pd.Series, classes: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Integer codes of a target over ``classes`` (sorted distinct values by default)."""
    values = y.astype(str).to_numpy()
    if classes is None:
        classes = np.array(sorted(set(values)))
    index = {c: i for i, c in enumerate(classes)}
    codes = np.array([index.get(v, -1) for v in values], dtype=np.int64)
    return codes, classes
