"""The cell release of cluster rows (core.sskm.histogram_release) and its users: SSKM_DP's
map split by the label, IDP-KMeans with ``release="cells"``."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from core.data import load_sample
from core.privacy.schema import PublicSchema
from core.privacy.schema_columns import ColumnSchema
from core.sskm.dp_kmeans import idp_kmeans
from core.sskm.histogram_release import (
    EMIT_THRESHOLD,
    NUMERIC_BINS,
    RECORDS_PER_NOISE,
    apportion_rows,
    cell_layout,
    cluster_count,
    emit_rows,
    exact_cells,
    noisy_cells,
    project_simplex,
    record_cells,
    record_strata,
    stratum_clusters,
)
from core.sskm.noisy_som import noisy_batch_som
from core.sskm.scaled_table import ScaledTable
from core.sskm.sound import SSKMDP

SCHEMA = PublicSchema((ColumnSchema("x", "numeric", lower=0.0, upper=1.0, source="declared"),
                       ColumnSchema("k", "numeric", lower=1.0, upper=4.0, integer=True, source="declared"),
                       ColumnSchema("age", "numeric", lower=17.0, upper=90.0, integer=True, source="declared"),
                       ColumnSchema("c", "categorical", categories=("a", "b", "c"), source="declared"),
                       ColumnSchema("y", "categorical", categories=("no", "yes"), source="declared")),
                      label="y", sensitive=("c",), name="cells")


def _frame(n: int = 400, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.3
    return pd.DataFrame({"x": np.clip(rng.normal(0.3 + 0.4 * y, 0.1), 0, 1), "k": rng.integers(1, 5, n),
                         "age": rng.integers(17, 91, n), "c": np.where(y, "c", rng.choice(["a", "b"], n)),
                         "y": np.where(y, "yes", "no")})


@pytest.fixture(scope="module")
def table():
    return ScaledTable(_frame(), schema=SCHEMA)


def test_layout_splits_by_the_schemas_label_and_counts_the_other_columns(table):
    layout = cell_layout(table)
    assert layout.label == table.columns.index("y") and layout.strata == 3  # no, yes, (other)
    assert layout.kinds == ("bin", "value", "bin", "category", "label")
    assert layout.cells == (NUMERIC_BINS, 4, NUMERIC_BINS, 4, 0)  # k: one cell per value; c: a, b, c, (other)
    assert layout.sensitivity == 2 * (1 + 4)
    plain = cell_layout(table, stratify=False)
    assert plain.label is None and plain.cells[-1] == 3 and plain.sensitivity == 2 * (1 + 5)


def test_a_records_cells_and_stratum_are_its_own(table):
    layout = cell_layout(table)
    cells, strata = record_cells(table, layout), record_strata(table, layout)
    other = _frame().copy()
    other.iloc[0] = [0.99, 4, 90, "b", "no"]
    moved = ScaledTable(other, schema=SCHEMA)
    assert np.array_equal(record_cells(moved, layout)[1:], cells[1:])  # one record, one row
    assert np.array_equal(record_strata(moved, layout)[1:], strata[1:])
    assert set(strata) <= {0, 1} and (strata == 1).sum() == (_frame()["y"] == "yes").sum()


def test_replacing_one_record_moves_counts_and_cells_by_the_sensitivity_at_most(table):
    layout = cell_layout(table, stratify=False)
    cells = record_cells(table, layout)
    labels = np.arange(len(cells)) % 5
    c0, t0 = exact_cells(cells, labels, 5, layout.width)
    moved = labels.copy()
    moved[0] = 4 if labels[0] != 4 else 3
    other = cells.copy()
    other[0] = cells[1]
    c1, t1 = exact_cells(other, moved, 5, layout.width)
    assert np.abs(c0 - c1).sum() + np.abs(t0 - t1).sum() <= layout.sensitivity


def test_noisy_cells_have_laplace_noise_of_the_sensitivity_over_epsilon(table):
    layout = cell_layout(table)
    cells, labels = record_cells(table, layout), np.arange(len(table.X)) % 6
    _, exact = exact_cells(cells, labels, 6, layout.width)
    eps = 0.1  # a scale of 100 grid steps: the integer grid is fine beside it
    b = layout.sensitivity / eps
    draws = []
    for seed in range(10):
        _, noisy_t, parts = noisy_cells(cells, labels, 6, layout, eps, np.random.default_rng(seed))
        assert sum(e for e, _ in parts) == pytest.approx(eps)
        assert np.array_equal(noisy_t, np.round(noisy_t))  # integer counts on the integer grid
        draws.append(((noisy_t - exact) / b).ravel())
    draws = np.concatenate(draws)
    assert stats.kstest(draws, stats.laplace.cdf).pvalue > 0.01
    assert stats.kstest(draws * 2, stats.laplace.cdf).pvalue < 1e-6  # half the noise fails


def test_projection_onto_the_simplex_keeps_the_total_and_clears_the_noise():
    H = np.array([[30.0, -4.0, 3.0, 1.0], [-2.0, -1.0, -3.0, -5.0]])
    P = project_simplex(H, np.array([30.0, 0.0]))
    assert np.allclose(P.sum(axis=1), [30.0, 0.0]) and (P >= 0).all()
    assert P[0, 1] == 0 and P[0, 0] > P[0, 2]  # the largest keeps most of it
    # the nearest point: no other non-negative vector with the same total is closer
    rng = np.random.default_rng(0)
    for _ in range(200):
        q = rng.dirichlet(np.ones(4)) * 30
        assert np.sum((H[0] - P[0]) ** 2) <= np.sum((H[0] - q) ** 2) + 1e-9


def test_clusters_grow_with_n_and_epsilon_and_split_among_the_categories(table):
    layout = cell_layout(table)
    small, big = cluster_count(400, layout, 1.0, max_clusters=100), cluster_count(40_000, layout, 1.0, max_clusters=100)
    assert small == max(1, int(400 / (RECORDS_PER_NOISE * layout.sensitivity)))
    assert small < cluster_count(400, layout, 20.0, max_clusters=100) and big == 100
    assert stratum_clusters(10, layout).tolist() == [5, 5, 1]  # (other) gets one
    assert stratum_clusters(1, layout).tolist() == [1, 1, 1]


def test_rows_come_from_clusters_above_the_threshold_and_carry_their_category(table):
    layout = cell_layout(table)
    cells = np.zeros((3, layout.width))
    cells[:, layout.offsets[3] + 2] = 40  # every cluster: c = "c"
    counts = np.array([40.0, 15.0, 40.0])
    out = emit_rows(layout, counts, cells, np.array([0, 1, 1]), n=80, scale=10.0, random_state=0)
    assert out.row_counts.tolist() == [40, 0, 40]  # 15 < 2 noise scales
    assert 15 < EMIT_THRESHOLD * 10.0
    back = table.decode(out.rows)
    assert set(back["c"]) == {"c"}
    assert (back["y"][out.row_cluster == 0] == "no").all() and (back["y"][out.row_cluster == 2] == "yes").all()
    assert back["k"].between(1, 4).all() and back["age"].between(17, 90).all()
    # a whole number stays in the bin it was drawn from
    j = table.columns.index("age")
    age_cells = np.minimum((out.rows[:, j] * NUMERIC_BINS).astype(int), NUMERIC_BINS - 1)
    redone = ScaledTable(back, schema=SCHEMA).X[:, j]
    assert np.array_equal(np.minimum((redone * NUMERIC_BINS).astype(int), NUMERIC_BINS - 1), age_cells)


def test_rows_share_n_among_the_clusters_above_the_threshold_by_largest_remainders():
    # n is public: exactly n rows, in proportion to the noisy counts that reach the threshold
    rows = apportion_rows(np.array([52.4, 15.0, 31.3, -3.0]), 100, threshold=20.0)
    assert rows.sum() == 100 and rows.tolist() == [63, 0, 37, 0]  # quotas 62.6, 37.4
    # a tie in the remainders goes to the lower cluster index (no draw)
    assert apportion_rows(np.array([30.0, 30.0, 30.0]), 100, threshold=0.0).tolist() == [34, 33, 33]
    # no cluster reaches it: all share by their clipped counts, equally when those are all 0
    assert apportion_rows(np.array([3.0, -1.0, 1.0]), 10, threshold=20.0).tolist() == [8, 0, 2]
    assert apportion_rows(np.array([-3.0, -1.0]), 5, threshold=20.0).tolist() == [3, 2]
    assert apportion_rows(np.array([7.0]), 1, threshold=2.0).tolist() == [1]
    with pytest.raises(ValueError, match="finite noisy count"):
        apportion_rows(np.array([np.nan, 3.0]), 10, threshold=2.0)
    with pytest.raises(ValueError, match="finite noisy count"):
        apportion_rows(np.array([]), 10, threshold=2.0)
    with pytest.raises(ValueError, match="threshold"):
        apportion_rows(np.array([1.0]), 10, threshold=np.inf)
    with pytest.raises((TypeError, ValueError)):
        apportion_rows(np.array([1.0]), 0, threshold=2.0)


def test_emitted_rows_number_n_whatever_the_noise_adds(table):
    layout = cell_layout(table)
    cells = np.zeros((3, layout.width))
    cells[:, layout.offsets[3]] = 40
    for counts in (np.array([60.0, 15.0, 70.0]), np.array([5.0, 1.0, -2.0])):
        out = emit_rows(layout, counts, cells, np.array([0, 1, 1]), n=len(table.X), scale=10.0, random_state=0)
        assert len(out.rows) == len(table.X) == out.row_counts.sum()
        assert np.array_equal(np.bincount(out.row_cluster, minlength=3), out.row_counts)


def test_sskm_and_idp_kmeans_cell_releases_hold_exactly_n_rows_deterministically():
    frame = _frame(700, seed=3)
    pub = SSKMDP(sensitive="c", schema=SCHEMA, random_state=0).fit(frame)
    for eps in (0.3, 2.0):
        out = pub.publish(epsilon=eps, random_state=1)
        assert len(out) == len(frame) and pub.row_counts_.sum() == len(frame)
        assert abs(pub.noisy_counts_.sum() - len(frame)) > 0  # the noisy counts alone would not give n
        pd.testing.assert_frame_equal(out, pub.publish(epsilon=eps, random_state=1))
    table = ScaledTable(frame, schema=SCHEMA)
    res = idp_kmeans(table, 20, 0.5, release="cells", random_state=0)
    assert len(res.published) == len(frame) == res.row_counts.sum()
    again = idp_kmeans(table, 20, 0.5, release="cells", random_state=0)
    assert np.array_equal(res.published, again.published)


def test_a_split_map_puts_each_record_in_a_neuron_of_its_stratum(table):
    strata = record_strata(table, cell_layout(table))
    neurons = np.array([0, 0, 1, 1])
    som, spends = noisy_batch_som(table.X[:, :4], 2, 2, epsilon=1.0, iterations=2, random_state=0, track=False,
                                  strata=strata, neuron_strata=neurons)
    assert np.array_equal(neurons[som.labels_], strata)
    assert sum(e for e, _, _ in spends) == pytest.approx(1.0)
    with pytest.raises(ValueError, match="neither"):
        noisy_batch_som(table.X, 2, 2, epsilon=1.0, strata=strata)


def test_sskm_cell_release_with_a_label_is_dp_and_its_rows_carry_the_label():
    frame = _frame(1500)
    pub = SSKMDP(sensitive="c", schema=SCHEMA, random_state=0).fit(frame)
    out = pub.publish(epsilon=2.0, random_state=1)
    led = pub.ledger_
    assert led.is_dp and led.total()[0] == pytest.approx(2.0)
    assert "split by the label 'y'" in led.entries[-1].label
    assert set(out["y"]) <= {"no", "yes", "(other)"} and {"no", "yes"} <= set(out["y"])
    # the label's relation survives: x is higher where y is yes, as in the records
    assert out.loc[out["y"] == "yes", "x"].mean() > out.loc[out["y"] == "no", "x"].mean() + 0.2
    assert np.array_equal(pub._neuron_strata[pub.labels_], record_strata(pub.table_, pub.layout_))


def test_idp_kmeans_cells_release_costs_epsilon_and_keeps_the_label():
    table = ScaledTable(_frame(1500), schema=SCHEMA)
    res = idp_kmeans(table, 20, 2.0, release="cells", random_state=0)
    assert res.ledger.is_dp and res.ledger.total()[0] == pytest.approx(2.0)
    out = table.decode(res.published)
    assert out.loc[out["y"] == "yes", "x"].mean() > out.loc[out["y"] == "no", "x"].mean() + 0.2
    with pytest.raises(TypeError, match="ScaledTable"):
        idp_kmeans(table.X, 20, 2.0, release="cells")
    with pytest.raises(ValueError, match="uniform"):
        idp_kmeans(table, 20, 2.0, release="cells", init="canopy")
    with pytest.raises(ValueError, match="release"):
        idp_kmeans(table, 20, 2.0, release="rows")


def test_the_census_sample_release_keeps_the_schema_label(census_schema):
    frame = load_sample("census").frame.head(600)
    pub = SSKMDP(sensitive="sex", schema=census_schema, random_state=0).fit(frame)
    assert pub.layout_.label == pub.table_.columns.index("income")
    out = pub.publish(epsilon=4.0, random_state=0)
    assert set(out["income"]) <= set(census_schema["income"].domain)
