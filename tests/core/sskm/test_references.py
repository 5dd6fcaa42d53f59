"""The references SSKM_DP's MSE and record linkage are read against: the raw table and a
random release (core.sskm.references), with their use in the epsilon curve and the claims."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from core.sskm.claims import fig5_claim, fig6_claim, fig7_claim
from core.sskm.scaled_table import ScaledTable
from core.sskm.sound import SSKMDP
from core.sskm.references import (RANDOM, RAW, linkage, random_rows, raw_linkage, reference_scope,
                                  reference_sentences, references, table_levels, table_references)
from core.sskm.sweeps import epsilon_curve, release_references
from core.evaluation.metrics import record_linkage


def test_raw_linkage_is_the_share_of_distinct_records():
    X = np.array([[0.0, 0.0], [0.0, 0.0], [1.0, 0.5], [0.2, 0.3]])
    assert raw_linkage(X) == pytest.approx(3 / 4)
    assert raw_linkage(X) == pytest.approx(record_linkage(X, X))  # publishing the records as they are


def test_linkage_equals_record_linkage_and_a_sample_estimates_it():
    rng = np.random.default_rng(0)
    X, R = rng.random((300, 3)), rng.random((300, 3))
    R[:100] = X[:100] + 0.001  # a third of the records published almost as they are
    assert linkage(X, R) == pytest.approx(record_linkage(X, R))
    sample = np.sort(rng.choice(300, size=150, replace=False))
    assert abs(linkage(X, R, rows=sample) - linkage(X, R)) < 0.12


def test_random_rows_stay_within_the_bounds_and_on_the_categories():
    R = random_rows([None, 3, 1], 2000, random_state=1)
    assert R.shape == (2000, 3)
    assert R[:, 0].min() >= 0 and R[:, 0].max() <= 1
    assert set(np.unique(R[:, 1])) == {0.0, 0.5, 1.0}
    assert np.all(R[:, 2] == 0)  # a constant column stays constant


def test_a_random_release_links_by_chance_and_loses_more_than_a_close_one():
    rng = np.random.default_rng(2)
    X = rng.random((400, 4))
    refs = references(X, [None] * 4, repetitions=4, random_state=3)
    raw, rand = refs.set_index("reference").loc[RAW], refs.set_index("reference").loc[RANDOM]
    assert raw["mse_mean"] == 0 and raw["rl_mean"] == pytest.approx(1.0)  # distinct records: all linked
    assert rand["rl_mean"] < 0.05  # about 1 / n: luck only
    # uniform vs uniform in 4 dimensions: 4 x 1/6 expected squared distance
    assert rand["mse_lo"] <= 4 / 6 <= rand["mse_hi"] or abs(rand["mse_mean"] - 4 / 6) < 0.03
    assert rand["mse_lo"] < rand["mse_mean"] < rand["mse_hi"]


def test_large_tables_estimate_linkage_on_a_sample():
    X = np.random.default_rng(4).random((3000, 2))
    refs = references(X, [None, None], repetitions=2, max_rows=500, random_state=5)
    assert refs.loc[refs["reference"] == RANDOM, "rl_mean"].iloc[0] < 0.05


def test_sentences_say_when_a_release_is_no_better_than_a_reference():
    refs = pd.DataFrame([
        {"reference": RAW, "mse_mean": 0.0, "mse_lo": 0.0, "mse_hi": 0.0, "rl_mean": 0.9, "rl_lo": 0.9,
         "rl_hi": 0.9, "repetitions": 1},
        {"reference": RANDOM, "mse_mean": 0.5, "mse_lo": 0.45, "mse_hi": 0.55, "rl_mean": 0.001, "rl_lo": 0.0,
         "rl_hi": 0.002, "repetitions": 5},
    ])
    assert reference_sentences(0.1, 0.2, refs) == []
    utility = reference_sentences(0.6, 0.2, refs)
    assert len(utility) == 1 and "no better than a random release on utility" in utility[0]
    privacy = reference_sentences(0.1, 0.95, refs)
    assert len(privacy) == 1 and "no more private than the raw table" in privacy[0]


def test_table_references_use_the_schema_bounds_and_leave_identifiers_out(census_frame, census_schema):
    table = ScaledTable(census_frame[["age", "sex", "hours_per_week"]], schema=census_schema)
    refs = table_references(table, repetitions=2, random_state=0)
    assert list(refs["reference"]) == [RAW, RANDOM]
    assert np.isfinite(refs[["mse_mean", "rl_mean"]].to_numpy()).all()


def test_the_scope_names_the_attributes_and_records_a_random_release_is_measured_on(census_frame, census_schema):
    """Issue 39: SSKM_DP's random release (0.5965) and Compare's (0.6983) differed on one table:
    SSKM_DP's covers the attributes it publishes (no label) of every record, so the page says so."""
    features = [c for c in census_frame.columns if c != "income"]
    table = ScaledTable(census_frame[features], schema=census_schema)
    assert reference_scope(table) == f"{len(features)} attributes of {len(census_frame):,} records"
    with pytest.raises(TypeError):
        reference_scope(census_frame)


def test_a_random_release_draws_each_category_on_one_of_its_codes(census_frame, census_schema):
    """Within the public domain: a category is one of its list's codes (with '(other)'), never a
    point between two, so its expected loss is the discrete one (a uniform number on [0, 1]
    would understate it)."""
    table = ScaledTable(census_frame[["age", "sex"]], schema=census_schema)
    levels = table_levels(table)
    assert levels == [None, len(table.categories["sex"])]
    drawn = random_rows(levels, 3000, random_state=0)[:, 1]
    k = levels[1]
    assert set(np.unique(drawn)) == {j / (k - 1) for j in range(k)}


def test_epsilon_curve_carries_intervals_over_repetitions(census_frame, census_schema):
    frame = census_frame[["age", "sex", "hours_per_week"]].head(400)
    pub = SSKMDP(epsilon=1.0, sensitive="sex", rows=3, cols=3, schema=census_schema, random_state=0).fit(frame)
    curve = epsilon_curve(pub, epsilons=(0.1, 5.0), repetitions=3, cs_threshold=0.3, random_state=1)
    for m in ("mse", "rl"):
        assert (curve[f"{m}_lo"] <= curve[f"{m}_mean"] + 1e-12).all()
        assert (curve[f"{m}_mean"] <= curve[f"{m}_hi"] + 1e-12).all()
    refs = release_references(pub, repetitions=3, random_state=2)
    rand = refs.set_index("reference").loc[RANDOM]
    # at epsilon 0.1 on 400 rows the sound release is no closer to the records than noise
    assert curve["mse_mean"].iloc[-1] < rand["mse_mean"]


# ---------------------------------------------------------------- claims read against the references
_EPS = (0.05, 0.1, 1.0, 5.0)


def _summary(mse, rl, *, random_mse=0.3, random_rl=0.001):
    rows = []
    for g, a in (("4x4", 14.0), ("6x6", 33.0)):
        for e in _EPS:
            rows.append({"m": 5, "grid": g, "epsilon": e, "a_mean": a, "mse_mean": mse(a, e), "rl_mean": rl(a, e),
                         "random_mse": random_mse, "random_mse_lo": random_mse - 0.01, "random_rl": random_rl,
                         "random_rl_hi": random_rl * 1.5})
    return pd.DataFrame(rows)


def test_fig5_cannot_be_judged_when_every_release_loses_as_much_as_a_random_one():
    table = _summary(lambda a, e: 0.5 + 0.1 / e, lambda a, e: 0.01 * e)
    claim = fig5_claim(table, mode="sound")
    assert claim.holds is None and "cannot be judged" in claim.finding and "random release" in claim.finding
    # the same shape under the random release's MSE is judged
    assert fig5_claim(_summary(lambda a, e: 0.1 + 0.01 / e, lambda a, e: 0.01 * e), mode="sound").holds is True


def test_fig6_cannot_be_judged_when_nothing_links_beyond_chance():
    table = _summary(lambda a, e: 0.1, lambda a, e: 0.001)
    claim = fig6_claim(table, mode="sound")
    assert claim.holds is None and "cannot be judged" in claim.finding and "chance" in claim.finding
    judged = fig6_claim(_summary(lambda a, e: 0.1, lambda a, e: 0.0001 if e <= 0.1 else a * e / 1000),
                        mode="sound")
    assert judged.holds is True


def test_fig7_cannot_be_judged_when_sskm_is_no_better_than_a_random_release():
    table = pd.DataFrame([{"method": "MDAV", "a": 10, "mse_mean": 0.9}, {"method": "MDAV", "a": 25, "mse_mean": 0.8},
                          {"method": "SSKM_DP", "a": 12, "mse_mean": 0.6}])
    claim = fig7_claim(table, mode="sound", epsilon=1.0, random_mse=0.5)
    assert claim.holds is None and "cannot be judged" in claim.finding
    assert fig7_claim(table, mode="sound", epsilon=1.0, random_mse=0.7).holds is True
    with pytest.raises(TypeError):
        fig7_claim(table, mode="sound", epsilon=1.0, random_mse="0.5")
