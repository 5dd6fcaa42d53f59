"""MST and AIM in the comparison (core.compare.marginal_methods and their registry entries).

MST runs in :func:`core.compare.run.compare` on the census sample cut to four columns (about
15 s, most of it OpenDP's and JAX's setup); the whole sample at the page's settings is slow.
"""
from __future__ import annotations

import math

import pytest

from core.audit.bounds import MIN_RUNS  # the audit is wired, not sized: the fewest runs it takes
from core.compare.context import RunContext
from core.compare.marginal_methods import marginal_columns, needs_columns
from core.compare.registry import DEFAULT_METHODS, METHODS
from core.compare.run import compare
from core.data import load_sample
from core.privacy.schema_builtin import schema_for

COLUMNS = ["age", "workclass", "sex", "income"]


@pytest.fixture(scope="module")
def small():
    data = load_sample("census")
    return data.subset(COLUMNS), schema_for(data)


@pytest.fixture(scope="module")
def mst(small):
    data, schema = small
    return compare(data, methods=["Raw table", "MST"], epsilons=[2.0], repetitions=1, max_rows=400,
                   random_state=0, schema=schema, audit_runs=MIN_RUNS)


def test_mst_and_aim_are_dp_table_releases_that_take_epsilon():
    for name in ("MST", "AIM"):
        method = METHODS[name]
        assert (method.kind, method.takes_epsilon, method.dp) == ("table", True, True)
        assert method.fit is not None and method.requires is needs_columns


def test_aim_is_opt_in_and_says_its_cost_before_it_starts():
    assert "AIM" not in DEFAULT_METHODS
    words = METHODS["AIM"].description
    assert "minutes" in words and "GB" in words


def test_mst_is_the_default_dp_synthesizer_and_says_its_workload():
    assert "MST" in DEFAULT_METHODS
    words = METHODS["MST"].description
    assert "2-way marginal of the label with every other column" in words and "no one-way marginals" in words


def test_the_page_gets_the_workload_and_the_bins_from_the_schema(small):
    from core.compare.marginal_methods import marginal_settings

    _, schema = small
    workload, bins = marginal_settings(schema, COLUMNS, algorithm="MST", n=400, epsilon=2.0)
    assert list(workload["marginal"]) == ["income x age", "income x workclass", "income x sex"]
    assert list(bins["column"]) == COLUMNS and bins.set_index("column").loc["sex", "cells"] == 3


def test_mst_says_its_time_and_memory():
    words = METHODS["MST"].description
    assert " s " in words and "GB" in words and "not be seeded" in words


def test_mst_runs_in_a_comparison_with_the_ledgers_epsilon(mst):
    runs = mst.runs[mst.runs["method"] == "MST"]
    assert mst.skipped == {} and list(runs["epsilon"]) == [2.0]
    assert runs["is_dp"].all()
    assert (runs["ledger_epsilon"] == runs["epsilon"]).all() and (runs["ledger_delta"] == 0).all()
    assert runs["utility"].between(0, 1).all() and runs["rows_released"].gt(0).all()


def test_mst_points_carry_their_audit(mst):
    audits = mst.audits.set_index("epsilon")
    assert list(audits["method"]) == ["MST"]
    assert (audits["audit_claim"] == audits.index).all() and not audits["audit_violation"].any()


def test_the_released_columns_are_the_schemas(small):
    data, schema = small
    ctx = RunContext(data, data.frame.iloc[:2], None, 0, schema)
    assert marginal_columns(ctx) == COLUMNS and needs_columns(ctx) is None


@pytest.mark.slow
def test_mst_on_the_whole_census_sample_at_the_pages_settings():
    """The page's default data (the census sample, 5,000 rows asked for: all 3,000), one epsilon."""
    data = load_sample("census")
    result = compare(data, methods=["MST"], epsilons=[1.0], repetitions=1, max_rows=5000, random_state=0,
                     audit_runs=0)
    runs = result.runs
    assert runs["is_dp"].all() and math.isclose(runs["ledger_epsilon"].iloc[0], 1.0)
    assert result.seconds["MST"] < 180
