"""Neighbouring-dataset audits of Compare's DP releases, with pairs that move the encoders (issue 23).

Compare's "CDP-LR" and "IDP-KMeans" claim epsilon = 1. Their encoders (one-hot columns and
scaling of the model; bounds and category codes of the k-means table) come from the public
schema alone, so a replaced record that brings a category outside the declared list, or a
value far above the declared bound, changes its own row of the input and nothing else: the
release moves only within the noise the ledger pays for. Each audit runs the release as
Compare makes it (``METHODS[name].release`` on a context holding the dataset and the
schema). The mutants put the old leak back (the encoder fitted on the training rows) and
the same audit, with the same statistic, flags them.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import core.compare.context as compare_context
import core.compare.methods as compare_methods
from core.audit.auditor import audit
from core.audit.pairs import NeighbouringPair
from core.compare.context import RunContext
from core.compare.registry import METHODS
from core.data import Dataset, infer_column_types
from core.privacy.schema import PublicSchema
from core.privacy.schema_columns import ColumnSchema
from core.sskm.scaled_table import ScaledTable

EPS = 1.0
RUNS = 300
SCHEMA = PublicSchema((
    ColumnSchema("age", "numeric", lower=17, upper=90, integer=True),
    ColumnSchema("job", "categorical", categories=("A", "B", "C")),
    ColumnSchema("y", "categorical", categories=("no", "yes")),
), label="y")
PROBE = pd.DataFrame({"age": [50], "job": ["B"], "y": ["yes"]})


def _frame(age0: int, job0: str, n: int = 40, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    age = rng.integers(20, 70, n)
    job = rng.choice(["A", "B", "C"], n)
    y = np.where(age + rng.normal(0, 10, n) > 45, "yes", "no")
    age[0], job[0] = age0, job0
    return pd.DataFrame({"age": age, "job": job, "y": y})


HOLDOUT = _frame(30, "A", n=20, seed=1)
NEW_CATEGORY = NeighbouringPair(_frame(40, "A"), _frame(40, "Z"),
                                "record 0's job 'A' replaced by 'Z', a category outside the declared list")
OUT_OF_RANGE = NeighbouringPair(_frame(17, "A"), _frame(100_000, "A"),
                                "record 0's age 17 replaced by 100,000, far above the declared bound 90")


def _release(name: str, frame: pd.DataFrame, seed: int):
    numeric, categorical = infer_column_types(frame)
    data = Dataset(frame, name="audit", label="y", sensitive=(), numeric=numeric, categorical=categorical)
    ctx = RunContext(data, HOLDOUT, None, 0, SCHEMA)
    method = METHODS[name]
    fitted = method.fit(ctx, 0, None) if method.fit is not None else None
    return ctx, method.release(ctx, fitted, EPS, seed)


# --------------------------------------------------------------------------- CDP-LR
def _cdp_lr(frame, random_state):
    ctx, rel = _release("CDP-LR", frame, random_state)
    return rel.model, ctx.encoder()


def _cdp_statistic(out) -> float:
    """What a user of the release computes: the model's score of a probe record through the
    release's own encoder, plus terms that are constant unless the encoder moves (the
    number of weights, the encoded probe)."""
    model, encoder = out
    x = encoder.transform(PROBE)
    score = float(np.clip(model.decision_function(x)[0], -100, 100))
    return 1e6 * model.coef_.size + 1e3 * round(float(x.sum()), 6) + score


class RowsEncoder:
    """The leak put back: one-hot over the categories found in the training rows and
    standardisation by their mean and standard deviation."""

    def __init__(self, schema, features, label, train):
        self.features, self.label = list(features), label
        self.stats = {c: (train[c].mean(), train[c].std() or 1.0) for c in features if c in schema.numeric}
        self.cats = {c: sorted(train[c].astype(str).unique()) for c in features if c not in self.stats}

    def transform(self, frame):
        blocks = []
        for c in self.features:
            if c in self.stats:
                mu, sd = self.stats[c]
                blocks.append(((frame[c].to_numpy(float) - mu) / sd)[:, None])
            else:
                blocks.append((frame[c].astype(str).to_numpy()[:, None] == np.array(self.cats[c])[None, :])
                              .astype(float))
        return np.hstack(blocks)

    def labels(self, frame):
        return (frame[self.label] == "yes").to_numpy().astype(np.int64)


@pytest.fixture
def rows_encoder(monkeypatch):
    monkeypatch.setattr(compare_context, "model_encoder", RowsEncoder)


def test_compare_cdp_lr_claims_epsilon_one():
    _, rel = _release("CDP-LR", NEW_CATEGORY.d0, 0)
    assert rel.ledger.is_dp and rel.ledger.total() == (pytest.approx(EPS), 0.0)
    assert "covers one record" in " ".join(rel.ledger.assumptions)


@pytest.mark.parametrize("pair", [NEW_CATEGORY, OUT_OF_RANGE], ids=["new category", "out of range"])
def test_compare_cdp_lr_passes_audits_that_move_the_encoder(pair):
    res = audit(_cdp_lr, pair, claimed_epsilon=EPS, statistic=_cdp_statistic, runs=RUNS, random_state=0)
    assert not res.violation, res.verdict
    assert res.epsilon_lower < EPS


@pytest.mark.parametrize("pair", [NEW_CATEGORY, OUT_OF_RANGE], ids=["new category", "out of range"])
def test_compare_cdp_lr_with_the_encoder_fitted_on_the_rows_is_flagged(pair, rows_encoder):
    res = audit(_cdp_lr, pair, claimed_epsilon=EPS, statistic=_cdp_statistic, runs=RUNS, random_state=0)
    assert res.violation, res.verdict
    assert res.epsilon_lower > 2.0


# --------------------------------------------------------------------------- IDP-KMeans
def _idp(frame, random_state):
    return _release("IDP-KMeans", frame, random_state)[1].table


def _idp_statistic(table) -> float:
    """A million per released 'Z', plus the largest released age."""
    return 1e6 * float((table["job"] == "Z").sum()) + float(table["age"].max() if len(table) else 0)


@pytest.fixture
def table_from_rows(monkeypatch):
    """The leak put back: bounds and category lists read from the training rows."""
    monkeypatch.setattr(compare_methods, "schema_table", lambda frame, schema: ScaledTable(frame))


def test_compare_idp_kmeans_claims_epsilon_one():
    _, rel = _release("IDP-KMeans", NEW_CATEGORY.d0, 0)
    assert rel.ledger.is_dp and rel.ledger.total() == (pytest.approx(EPS), 0.0)


@pytest.mark.parametrize("pair", [NEW_CATEGORY, OUT_OF_RANGE], ids=["new category", "out of range"])
def test_compare_idp_kmeans_passes_audits_that_move_the_encoder(pair):
    res = audit(_idp, pair, claimed_epsilon=EPS, statistic=_idp_statistic, runs=RUNS, random_state=0)
    assert not res.violation, res.verdict
    assert res.epsilon_lower < EPS


@pytest.mark.parametrize("pair", [NEW_CATEGORY, OUT_OF_RANGE], ids=["new category", "out of range"])
def test_compare_idp_kmeans_with_the_table_scaled_on_the_rows_is_flagged(pair, table_from_rows):
    res = audit(_idp, pair, claimed_epsilon=EPS, statistic=_idp_statistic, runs=RUNS, random_state=0)
    assert res.violation, res.verdict
    assert res.epsilon_lower > 2.0
