"""The pages' runs: the solver's shape and the pages' data preparation."""
from __future__ import annotations

import pandas as pd
import pytest

from core.data import load_sample
from core.decide.pages import cdp_lr_runs, limit_rows, publishing_data, publishing_runs, scheme_runs, schema_subset
from core.privacy.schema_builtin import schema_for


@pytest.fixture(scope="module")
def supplier():
    ds = load_sample("supplier").without_identifiers()
    return ds, schema_for(ds)


def test_scheme_runs_names_methods_and_marks_only_the_dp_reading():
    runs = scheme_runs(pd.DataFrame({"scheme": ["Proposed", "DP reading", "Proposed (pearson)"],
                                     "epsilon": [1.0, 1.0, 1.0], "accuracy": [0.5, 0.6, 0.7]}))
    assert list(runs["method"]) == ["Proposed", "DP reading", "Proposed (pearson)"]
    assert list(runs["is_dp"]) == [False, True, False]
    with pytest.raises(ValueError, match="scheme"):
        scheme_runs(pd.DataFrame({"method": ["x"]}))


def test_data_preparation_matches_the_pages_rules(supplier):
    ds, schema = supplier
    assert limit_rows(ds, 10**6, 0) is ds and limit_rows(ds, 100, 0).n_rows == 100
    without = publishing_data(ds, False, 0)
    assert not any(c.startswith("product_") for c in without.frame.columns)
    sub = schema_subset(schema, without)
    assert sub.names == list(without.frame.columns)


def test_cdp_lr_runs_have_every_scheme_epsilon_and_repetition(supplier):
    ds, schema = supplier
    runs = cdp_lr_runs(ds, schema, epsilons=(0.5, 2.0), repetitions=2, seed=0, max_rows=400)
    assert set(runs["method"]) == {"Non-private", "Group", "Zhang", "Proposed", "DP reading"}
    assert len(runs) == 5 * 2 * 2 and runs["accuracy"].between(0, 1).all()


def test_publishing_runs_with_both_measures_name_the_schemes_once(supplier):
    ds, schema = supplier
    runs = publishing_runs(ds, schema, epsilons=(1.0,), repetitions=2, seed=0, n_queries=20,
                           measures=("pearson", "mahalanobis"), max_rows=300)
    names = set(runs["method"])
    assert {"Group", "DP reading", "Proposed (pearson)", "Proposed (mahalanobis)"} <= names
    assert (runs["mae"] >= 0).all() and runs.loc[runs["method"] == "DP reading", "is_dp"].all()
