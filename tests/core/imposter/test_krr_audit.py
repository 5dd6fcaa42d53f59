"""Neighbouring-dataset audits of kRR with a public schema (issue 23).

The pairs move what a data-read domain depends on: the replaced record brings a category
that is not in the declared list, or a value far above the public bound. With the schema
the domain and the bins stay fixed (the new category is reported as OTHER, the value is
clipped into the top public bin), so only the replaced record's own report changes, by at
most its epsilon. The mutant reads the domain from the data (the old default): the new
category (or the stretched top bin) shows in the release on one dataset only, and the same
audit flags it.
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from core.audit.auditor import audit
from core.audit.pairs import NeighbouringPair
from core.privacy.schema import PublicSchema
from core.privacy.schema_columns import ColumnSchema
import importlib
from core.imposter.krr_baseline import krr_ledger, krr_perturb

EPS = 1.0
RUNS = 600
SCHEMA = PublicSchema((
    ColumnSchema("job", "categorical", categories=("A", "B", "C")),
    ColumnSchema("age", "numeric", lower=0, upper=100, integer=True),
))


@pytest.fixture
def data_domain(monkeypatch):
    """Mutant: the domain of every column read from the rows (observed categories,
    quantile bins), as krr_perturb does without a schema, behind the schema's DP label."""
    def from_rows(schema, column, values, *, bins):
        if schema[column].kind == "categorical":
            cats = sorted(values.astype(str).unique())
            return np.array([cats.index(str(v)) for v in values]), cats
        edges = np.unique(np.quantile(values.to_numpy(float), np.linspace(0, 1, bins + 1)))
        codes = np.clip(np.searchsorted(edges, values.to_numpy(float), side="right") - 1, 0, len(edges) - 2)
        return codes, ((edges[:-1] + edges[1:]) / 2).tolist()

    monkeypatch.setattr(importlib.import_module("core.imposter.krr_baseline"), "schema_domain", from_rows)


def _frame(job, age):
    rng = np.random.default_rng(0)
    return pd.DataFrame({"job": [job] + list(rng.choice(["A", "B", "C"], 19)),
                         "age": [age] + list(rng.integers(20, 70, 19))})


def _mechanism(column):
    def run(frame, random_state):
        return krr_perturb(frame, columns=[column], epsilon=EPS, schema=SCHEMA, random_state=random_state)
    return run


def _category_statistic(out) -> float:
    """Record 0 reported as 'A' (what kRR itself may leak), plus 10 per reported 'Z' (what a
    data-read domain leaks)."""
    return float(out["job"].iloc[0] == "A") + 10.0 * float((out["job"] == "Z").sum())


def _age_statistic(out) -> float:
    return float(out["age"].max())


CATEGORY_PAIR = NeighbouringPair(_frame("A", 40), _frame("Z", 40),
                                 "record 0's job 'A' replaced by 'Z', a category outside the declared list")
AGE_PAIR = NeighbouringPair(_frame("A", 99), _frame("A", 100_000),
                            "record 0's age 99 replaced by 100,000, far above the public bound 100")


def test_the_claim_is_epsilon_per_column():
    assert krr_ledger(["job"], EPS, schema=SCHEMA).total() == (pytest.approx(EPS), 0.0)


def test_krr_with_the_schema_passes_the_new_category_audit():
    res = audit(_mechanism("job"), CATEGORY_PAIR, claimed_epsilon=EPS, statistic=_category_statistic,
                runs=RUNS, random_state=0)
    assert not res.violation, res.verdict
    assert res.epsilon_lower < EPS


def test_krr_with_the_domain_read_from_the_data_fails_the_new_category_audit(data_domain):
    res = audit(_mechanism("job"), CATEGORY_PAIR, claimed_epsilon=EPS, statistic=_category_statistic,
                runs=RUNS, random_state=0)
    assert res.violation, res.verdict
    assert res.epsilon_lower > 2.0


def test_krr_with_the_schema_passes_the_out_of_range_audit():
    res = audit(_mechanism("age"), AGE_PAIR, claimed_epsilon=EPS, statistic=_age_statistic,
                runs=RUNS, random_state=0)
    assert not res.violation, res.verdict
    assert res.epsilon_lower < EPS


def test_krr_with_quantile_bins_of_the_data_fails_the_out_of_range_audit(data_domain):
    res = audit(_mechanism("age"), AGE_PAIR, claimed_epsilon=EPS, statistic=_age_statistic,
                runs=RUNS, random_state=0)
    assert res.violation, res.verdict
    assert res.epsilon_lower > 2.0 and math.isfinite(res.epsilon_lower)
