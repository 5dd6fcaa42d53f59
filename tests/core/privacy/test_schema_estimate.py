"""Paid schema entries: private bounds (OpenDP quantiles) and thresholded category discovery.

The audits attack the step that reads the rows: a record that brings a new, rare category,
and a record far above every other value. The mutants put the leak back (no threshold;
bounds read from the rows) and the same audits catch them.
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import core.privacy.schema_estimate as est
from core.audit.auditor import audit
from core.audit.pairs import NeighbouringPair
from core.data import Dataset, load_sample
from core.privacy.schema_builtin import schema_for
from core.privacy.schema_draft import draft_schema
from core.privacy.schema_columns import OTHER
from core.privacy.schema_estimate import (
    category_threshold,
    default_candidates,
    estimate_schema,
    private_bounds,
    private_categories,
    range_candidates,
    single_record_release_probability,
)
from core.privacy.ledger import PrivacyLedger


def _table(values: dict, name: str = "t") -> Dataset:
    frame = pd.DataFrame(values)
    numeric = tuple(c for c in frame.columns if pd.api.types.is_numeric_dtype(frame[c]))
    categorical = tuple(c for c in frame.columns if c not in numeric)
    return Dataset(frame, None, (), numeric, categorical, name=name)


@pytest.fixture(scope="module")
def census():
    return load_sample("census")


# --------------------------------------------------------------------------- the estimate


def test_estimated_entries_say_private_estimate(census):
    out = estimate_schema(census, epsilon=2.0, schema=draft_schema(census), random_state=0)
    assert {c.source for c in out.columns} == {"private estimate"}
    assert out.is_public()


def test_estimate_ledger_splits_epsilon_evenly_and_sums_to_it(census):
    out = estimate_schema(census, epsilon=1.5, columns=["age", "sex", "income"],
                          schema=draft_schema(census), delta=1e-6, random_state=0)
    eps = [e.epsilon for e in out.estimate.entries]
    assert eps == pytest.approx([0.5, 0.5, 0.5])
    assert out.estimate.nominal() == pytest.approx((1.5, 1e-6))
    assert [e.delta for e in out.estimate.entries] == pytest.approx([0.0, 5e-7, 5e-7])


def test_unnamed_columns_keep_their_entries(census):
    draft = draft_schema(census)
    out = estimate_schema(census, epsilon=1.0, columns=["age"], schema=draft, random_state=0)
    assert out["sex"] == draft["sex"]
    assert out.read_from_data() == [c for c in draft.names if c != "age"]


def test_charge_adds_the_estimates_spend(census):
    out = estimate_schema(census, epsilon=1.0, columns=["age"], schema=draft_schema(census), random_state=0)
    ledger = out.charge(PrivacyLedger(), ["age"])
    assert ledger.is_dp
    assert ledger.total() == pytest.approx((1.0, 0.0))


def test_a_second_estimate_keeps_the_first_ones_spend(census):
    first = estimate_schema(census, epsilon=1.0, columns=["age"], schema=draft_schema(census), random_state=0)
    second = estimate_schema(census, epsilon=0.5, columns=["sex"], schema=first, random_state=1)
    assert second.estimate.nominal()[0] == pytest.approx(1.5)


def test_categories_follow_the_seed(census):
    a = estimate_schema(census, epsilon=1.0, columns=["occupation"], schema=draft_schema(census), random_state=3)
    b = estimate_schema(census, epsilon=1.0, columns=["occupation"], schema=draft_schema(census), random_state=3)
    assert a["occupation"].categories == b["occupation"].categories


def test_bounds_are_public_candidates_never_data_values():
    rng = np.random.default_rng(0)
    values = rng.uniform(13.37, 77.77, 2000)  # no data value is a candidate
    lo, hi = private_bounds(values, epsilon=4.0)
    grid = default_candidates()
    assert lo in grid and hi in grid and lo < hi
    assert lo not in values and hi not in values


def test_public_range_gives_tight_bounds():
    rng = np.random.default_rng(1)
    values = np.round(rng.normal(40, 10, 5000))
    lo, hi = private_bounds(values, epsilon=4.0, candidates=range_candidates(0, 150, integer=True),
                            integer=True)
    assert 5 <= lo <= 25 and 55 <= hi <= 75


def test_identifier_cannot_be_estimated(census):
    frame = census.frame.assign(row=np.arange(census.n_rows))
    ds = Dataset(frame, None, (), census.numeric + ("row",), census.categorical, name="x")
    with pytest.raises(ValueError, match="identifier"):
        estimate_schema(ds, epsilon=1.0, columns=["row"])


def test_nothing_to_estimate_says_so(census):
    with pytest.raises(ValueError, match="already public"):
        estimate_schema(census, epsilon=1.0)  # the shipped census schema


def test_wrong_types_raise_type_error(census):
    with pytest.raises(TypeError, match="Dataset"):
        estimate_schema(census.frame, epsilon=1.0)
    with pytest.raises(TypeError, match="list of column names"):
        estimate_schema(census, epsilon=1.0, columns="age")
    with pytest.raises(TypeError, match="number"):
        estimate_schema(census, epsilon="1", columns=["age"])


def test_bad_values_raise_value_error_with_the_rule(census):
    with pytest.raises(ValueError, match="not a column"):
        estimate_schema(census, epsilon=1.0, columns=["nope"])
    with pytest.raises(ValueError, match="0 < low < high < 1"):
        private_bounds([1.0, 2.0], epsilon=1.0, quantiles=(0.9, 0.1))
    with pytest.raises(ValueError, match="lower below the upper"):
        range_candidates(5, 1)


def test_progress_reports_each_column(census):
    seen = []
    estimate_schema(census, epsilon=1.0, columns=["age", "sex"], schema=draft_schema(census),
                    random_state=0, progress=lambda f, m: seen.append((f, m)))
    assert seen[0][0] == 0.0 and seen[-1][0] == 1.0 and len(seen) == 3


# --------------------------------------------------------------------------- the threshold


@pytest.mark.parametrize("scale,delta", [(2.0, 1e-6), (20.0, 1e-5), (1.0, 0.01)])
def test_threshold_is_the_smallest_that_holds_a_single_record_under_delta(scale, delta):
    tau = category_threshold(scale, delta)
    assert single_record_release_probability(scale, tau) <= delta / 2
    assert single_record_release_probability(scale, tau - 1) > delta / 2


def _single_record_rate(runs: int, delta: float) -> float:
    values = ["a"] * 50 + ["rare"]
    rng = np.random.default_rng(0)
    hits = sum("rare" in private_categories(values, epsilon=1.0, delta=delta, random_state=rng)[0]
               for _ in range(runs))
    return hits / runs


def test_a_value_held_by_one_record_passes_at_the_stated_rate():
    """Statistical check of the threshold at a loose delta: the rate matches the formula."""
    delta, runs = 0.2, 2000
    _, info = private_categories(["a", "rare"], epsilon=1.0, delta=delta, random_state=0)
    p = info["p_single"]
    assert p <= delta / 2
    assert abs(_single_record_rate(runs, delta) - p) < 4 * math.sqrt(p * (1 - p) / runs)


def test_a_threshold_one_count_lower_lets_a_single_record_through_too_often(monkeypatch):
    """The wrong threshold (one count lower) breaks the delta / 2 promise, and this sees it."""
    delta, runs = 0.2, 2000
    real = est.category_threshold
    monkeypatch.setattr(est, "category_threshold", lambda scale, d: real(scale, d) - 1)
    rate = _single_record_rate(runs, delta)
    assert rate > delta / 2 + 3 * math.sqrt(0.1 * 0.9 / runs)


def test_no_category_passes_gives_other():
    cats, _ = private_categories(["a", "b", "c"], epsilon=0.1, delta=1e-9, random_state=0)
    assert cats == (OTHER,)


# --------------------------------------------------------------------------- audits


def _rare_pair(n: int = 200) -> NeighbouringPair:
    values = ["a", "b"] * (n // 2)
    d0 = _table({"c": values}, "d0")
    d1 = _table({"c": ["rare"] + values[1:]}, "d1")
    return NeighbouringPair(d0, d1, "record 0 replaced by one holding a category no other record has")


def _discover(ds: Dataset, random_state=None):
    return estimate_schema(ds, epsilon=1.0, delta=1e-6, random_state=random_state)


def _has_rare(schema) -> float:
    return float("rare" in schema["c"].categories)


def test_audit_category_discovery_stays_within_its_claim():
    result = audit(_discover, _rare_pair(), claimed_epsilon=1.0, claimed_delta=1e-6,
                   statistic=_has_rare, runs=400, random_state=0)
    assert not result.violation, result.verdict


def test_audit_catches_category_discovery_without_threshold(monkeypatch):
    monkeypatch.setattr(est, "category_threshold", lambda scale, delta: -10**9)
    result = audit(_discover, _rare_pair(), claimed_epsilon=1.0, claimed_delta=1e-6,
                   statistic=_has_rare, runs=400, random_state=0)
    assert result.violation and result.epsilon_lower > 3


def _far_pair(n: int = 200) -> NeighbouringPair:
    rng = np.random.default_rng(0)
    values = np.round(rng.uniform(20, 60, n))
    far = values.copy()
    far[0] = 900.0
    return NeighbouringPair(_table({"x": values}, "d0"), _table({"x": far}, "d1"),
                            "record 0 replaced by one far above every other value")


def _bounds(ds: Dataset, random_state=None):
    return estimate_schema(ds, epsilon=1.0, random_state=random_state)


def _upper(schema) -> float:
    return schema["x"].upper


def test_audit_private_bounds_stay_within_their_claim():
    """OpenDP cannot be seeded: this audit is not bit-for-bit repeatable, but the true
    epsilon of the upper bound's shift is far below the claim."""
    result = audit(_bounds, _far_pair(), claimed_epsilon=1.0, statistic=_upper, runs=300,
                   random_state=0)
    assert not result.violation, result.verdict


def test_audit_catches_bounds_read_from_the_rows(monkeypatch):
    def from_rows(values, *, epsilon, candidates=None, quantiles=(0.01, 0.99), integer=False):
        arr = np.asarray(values, dtype=float)
        return float(arr.min()), float(arr.max())

    monkeypatch.setattr(est, "private_bounds", from_rows)
    result = audit(_bounds, _far_pair(), claimed_epsilon=1.0, statistic=_upper, runs=300,
                   random_state=0)
    assert result.violation and result.epsilon_lower > 3


def test_schema_for_an_upload_is_estimated_not_read(census):
    """The whole path an upload takes: draft, estimate, then charge: DP, with the spend."""
    ds = Dataset(census.frame, "income", ("sex",), census.numeric, census.categorical, name="upload")
    draft = schema_for(ds)
    assert not draft.is_public()
    out = estimate_schema(ds, epsilon=1.0, random_state=0)
    ledger = out.charge(PrivacyLedger())
    assert ledger.is_dp and ledger.total()[0] == pytest.approx(1.0)
