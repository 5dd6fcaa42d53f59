"""Tests of core.evaluation.classifiers (the factory and the native-categorical GBDT, "hgb") and of
core.evaluation.tasks.score_task, which fits them."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from core.evaluation.classifiers import ALL_CLASSIFIERS, CLASSIFIERS, CategoryCodes, make_classifier
from core.data import load_sample
from core.evaluation.tasks import score_task


@pytest.fixture(scope="module")
def census():
    """The census sample (3,000 rows, 'sex' sensitive, 'income' label)."""
    return load_sample("census")


def test_hgb_is_offered_beside_table_1s_classifiers():
    assert "hgb" in ALL_CLASSIFIERS and "hgb" not in CLASSIFIERS


def test_hgb_scores_like_one_hot_gbdt(census):
    frame = census.frame
    train, test = frame.iloc[:2000], frame.iloc[2000:]
    features = [c for c in frame.columns if c != "income"]
    native = score_task(train, test, "income", features, classifier="hgb", random_state=0)
    one_hot = score_task(train, test, "income", features, classifier="gbdt", random_state=0)
    assert native["accuracy"] == pytest.approx(one_hot["accuracy"], abs=0.02)


def test_hgb_predicts_unseen_categories_and_missing_values():
    rng = np.random.default_rng(0)
    x = rng.choice(["a", "b"], size=300)
    train = pd.DataFrame({"x": x, "z": rng.normal(size=300), "y": (x == "a").astype(int)})
    test = pd.DataFrame({"x": ["a", "b", "never seen", None], "z": [0.0, 0.0, 0.0, 0.0]})
    model = make_classifier("hgb", train, ["x", "z"], random_state=0).fit(train[["x", "z"]], train["y"])
    pred = model.predict(test)
    assert list(pred[:2]) == [1, 0] and len(pred) == 4


def test_category_codes_keep_the_most_frequent_values():
    column = pd.DataFrame({"c": ["a"] * 5 + ["b"] * 3 + ["c"]})
    codes = CategoryCodes(max_categories=2).fit(column)
    out = codes.transform(pd.DataFrame({"c": ["a", "b", "c", "d"]}))
    assert out[:2, 0].tolist() == [0.0, 1.0]
    assert np.isnan(out[2:, 0]).all()


def test_hgb_is_seeded(census):
    frame = census.frame.iloc[:800]
    features = [c for c in frame.columns if c != "income"]
    runs = [score_task(frame, frame, "income", features, classifier="hgb", random_state=3) for _ in range(2)]
    assert runs[0] == runs[1]
