"""SSKM_DP publishing: the paper's mode (Eq. 18-19, not DP) and the sound mode (the default)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from core.metrics import mse, record_linkage
from core.sskm.connection import mic_connections
from core.sskm.publisher import PAPER_NOT_DP_REASON, SSKMDP, ScaledTable, cluster_release_metrics
from core.validation import DataError

FAST = dict(rows=6, cols=6, iterations=4000, sfla_params={"iterations": 5, "n_frogs": 6}, mic_max_rows=600)


@pytest.fixture(scope="module")
def fitted(census_frame):
    """The paper's mode (today's algorithm)."""
    return SSKMDP(epsilon=1.0, sensitive="sex", cs_threshold=0.3, mode="paper", random_state=0,
                  **FAST).fit(census_frame)


@pytest.fixture(scope="module")
def sound(census_frame):
    return SSKMDP(epsilon=1.0, sensitive="sex", random_state=0, **FAST).fit(census_frame)


def test_published_frame_has_the_original_columns_and_values(fitted, census_frame):
    out = fitted.publish(random_state=1)
    assert list(out.columns) == list(census_frame.columns)
    assert len(out) == len(census_frame)
    for col in ("sex", "relationship", "occupation"):
        assert set(out[col]) <= set(census_frame[col])
    assert out["age"].dtype.kind == "i"
    assert out["age"].between(census_frame["age"].min(), census_frame["age"].max()).all()


def test_paper_mode_ledger_is_not_dp_and_keeps_the_nominal_epsilon(fitted):
    fitted.publish(epsilon=0.7, random_state=0)
    assert len(fitted.ledger_) == len(fitted.clusters_)
    assert {e.parallel_group for e in fitted.ledger_.entries} == {"sskm_dp clusters"}
    assert not fitted.ledger_.is_dp
    assert fitted.ledger_.not_dp_reasons == [PAPER_NOT_DP_REASON]
    assert fitted.ledger_.nominal() == (pytest.approx(0.7), 0.0)
    assert fitted.ledger_.total() == (float("inf"), 1.0)
    assert "nominal" in fitted.ledger_.describe()


def test_noise_scale_is_range_over_size_times_protected_over_epsilon(fitted):
    fitted.publish(epsilon=0.5, random_state=0)
    q = len(fitted.protected_)
    for c, size in fitted.cluster_sizes_.items():
        assert fitted.noise_scale_[c] == pytest.approx(q / (size * 0.5))


def test_noise_is_laplace_of_the_stated_scale(fitted):
    """Statistical check: the right scale passes a KS test, a scale without q fails."""
    eps = 2.0
    idx = [fitted.table_.columns.index(c) for c in fitted.connections_.protected]
    q = len(idx)
    sizes = fitted._counts.astype(float)
    draws, wrong = [], []
    for seed in range(60):
        fitted.publish(epsilon=eps, random_state=seed)
        noise = fitted.noisy_centres_[:, idx] - fitted.centres_[:, idx]
        draws.append((noise * sizes[:, None] * eps / q).ravel())
        wrong.append((noise * sizes[:, None] * eps).ravel())
    right_p = stats.kstest(np.concatenate(draws), stats.laplace.cdf).pvalue
    wrong_p = stats.kstest(np.concatenate(wrong), stats.laplace.cdf).pvalue
    assert right_p > 0.01
    assert wrong_p < 1e-6


def test_unprotected_attributes_are_exact_cluster_centres(fitted):
    fitted.publish(random_state=0)
    free = [j for j, c in enumerate(fitted.table_.columns) if c not in fitted.protected_]
    assert free
    expected = np.clip(fitted.centres_[fitted._inverse][:, free], 0, 1)
    assert np.array_equal(fitted.published_scaled_[:, free], expected)


def test_mse_falls_and_rl_rises_as_epsilon_grows(fitted):
    X = fitted.table_.X
    res = {}
    for eps in (0.05, 1.0, 5.0):
        m, r = [], []
        for seed in range(5):
            fitted.publish(epsilon=eps, random_state=seed)
            m.append(mse(X, fitted.published_scaled_))
            r.append(record_linkage(X, fitted.published_scaled_))
        res[eps] = (np.mean(m), np.mean(r))
    assert res[0.05][0] > res[1.0][0] > res[5.0][0]
    assert res[0.05][1] <= res[1.0][1] <= res[5.0][1]
    assert res[0.05][1] < res[5.0][1]


@pytest.mark.parametrize("mode", ["paper", "sound"])
def test_same_seed_same_release(census_frame, mode):
    small = census_frame.head(300)
    a = SSKMDP(epsilon=1.0, sensitive="sex", mode=mode, random_state=4, **FAST).fit_transform(small)
    b = SSKMDP(epsilon=1.0, sensitive="sex", mode=mode, random_state=4, **FAST).fit_transform(small)
    c = SSKMDP(epsilon=1.0, sensitive="sex", mode=mode, random_state=5, **FAST).fit_transform(small)
    pd.testing.assert_frame_equal(a, b)
    assert not a.equals(c)


def test_precomputed_connections_are_reused(census_frame):
    small = census_frame.head(300)
    conn = mic_connections(small, "sex", threshold=0.3, max_rows=None)
    pub = SSKMDP(epsilon=1.0, sensitive="sex", cs_threshold=0.0, mode="paper", random_state=0, **FAST)
    pub.fit(small, connections=conn)
    assert pub.connections_.strengths is conn.strengths
    assert set(pub.connections_.protected) == set(small.columns)


def test_needs_a_sensitive_attribute(census_frame):
    with pytest.raises(ValueError, match="at least one sensitive"):
        SSKMDP(epsilon=1.0, **FAST).fit(census_frame)
    with pytest.raises(DataError, match="not in the data"):
        SSKMDP(epsilon=1.0, sensitive="salary", **FAST).fit(census_frame)


@pytest.mark.parametrize("eps", [0, -1.0, float("nan")])
def test_bad_epsilon_is_refused(census_frame, eps):
    with pytest.raises(ValueError):
        SSKMDP(epsilon=eps, sensitive="sex", **FAST).fit(census_frame)


def test_scaled_table_round_trips_and_fills_missing():
    frame = pd.DataFrame({"x": [1.0, np.nan, 3.0, 5.0], "c": ["b", "a", None, "b"], "k": [0, 0, 0, 0]})
    t = ScaledTable(frame)
    assert np.all((t.X >= 0) & (t.X <= 1))
    back = t.decode(t.X)
    assert back["x"].tolist() == [1.0, 3.0, 3.0, 5.0]
    assert back["c"].tolist() == ["b", "a", "b", "b"]
    assert back["k"].tolist() == [0, 0, 0, 0]
    assert t.unit_range.tolist() == [1.0, 1.0, 0.0]


def test_scaled_table_refuses_infinite_values():
    with pytest.raises(DataError, match="infinite"):
        ScaledTable(pd.DataFrame({"x": [1.0, np.inf, 2.0]}))


# --------------------------------------------------------------------------- both modes


@pytest.mark.parametrize("mode", ["paper", "sound"])
def test_no_noise_draw_is_reused_across_epsilons(census_frame, mode):
    """One random_state at epsilon 1 and 2: 2 y(2) - y(1) must not cancel the noise."""
    pub = SSKMDP(sensitive="sex", mode=mode, random_state=0, **FAST).fit(census_frame.head(400))
    pub.publish(epsilon=1.0, random_state=7)
    n1 = pub.noisy_centres_ - pub.centres_
    pub.publish(epsilon=2.0, random_state=7)
    n2 = pub.noisy_centres_ - pub.centres_
    if mode == "sound":  # the DP vector itself
        pub.publish(epsilon=1.0, random_state=7)
        c1 = pub.noisy_counts_ - pub._counts
        pub.publish(epsilon=2.0, random_state=7)
        c2 = pub.noisy_counts_ - pub._counts
        assert not np.allclose(c1, 2 * c2)
        assert abs(np.corrcoef(c1, c2)[0, 1]) < 0.5
    moved = n1 != 0
    assert moved.any()
    assert not np.allclose(n1[moved], 2 * n2[moved])  # a standard draw scaled by 1/eps would match
    # the same epsilon and seed give the same draws (reproducible display)
    pub.publish(epsilon=2.0, random_state=7)
    assert np.array_equal(pub.noisy_centres_ - pub.centres_, n2)


def test_mode_is_checked(census_frame):
    with pytest.raises(ValueError, match="mode"):
        SSKMDP(sensitive="sex", mode="loose", **FAST).fit(census_frame)
    assert SSKMDP().mode == "sound"


def test_paper_mode_metrics_are_eq_22_23(fitted):
    fitted.publish(epsilon=1.0, random_state=3)
    X = fitted.table_.X
    assert fitted.release_metrics() == (mse(X, fitted.published_scaled_),
                                        record_linkage(X, fitted.published_scaled_))


def test_cluster_metrics_equal_eq_22_23_for_an_in_place_release():
    rng = np.random.default_rng(0)
    X = rng.random((200, 3))
    labels = rng.integers(0, 7, 200)
    labels[:7] = np.arange(7)
    centres = rng.random((7, 3))
    centres[3] = centres[5]  # two clusters at one point: ties
    counts = np.bincount(labels, minlength=7)
    m, r = cluster_release_metrics(X, labels, centres, counts)
    assert m == pytest.approx(mse(X, centres[labels]))
    assert r == pytest.approx(record_linkage(X, centres[labels]))


def test_cluster_metrics_count_emitted_rows_only():
    X = np.array([[0.0], [0.1], [1.0]])
    centres = np.array([[0.05], [0.95]])
    # cluster 0 emitted 4 rows, cluster 1 none: the third record cannot be linked
    m, r = cluster_release_metrics(X, [0, 0, 1], centres, [4, 0])
    assert r == pytest.approx((0.25 + 0.25 + 0.0) / 3)
    assert m == pytest.approx((0.05**2 + 0.05**2 + 0.05**2) / 3)


# --------------------------------------------------------------------------- sound mode


def test_sound_mode_is_dp_and_costs_epsilon_in_one_vector_release(sound):
    sound.publish(epsilon=0.8, random_state=0)
    led = sound.ledger_
    assert led.is_dp
    assert led.total() == (pytest.approx(0.8), 0.0)
    m = sound.table_.X.shape[1]
    assert [e.epsilon for e in led.entries] == [pytest.approx(0.8 / (m + 1)), pytest.approx(0.8 * m / (m + 1))]
    assert all(e.parallel_group is None for e in led.entries)  # not per-cluster parallel
    assert "one vector release" in led.entries[1].label
    assert sound.protected_ == tuple(sound.table_.columns)  # every attribute is noised
    assert len(sound.noise_scale_) == sound.rows * sound.cols  # every neuron, empty ones too
    assert np.allclose(list(sound.noise_scale_.values()), 2 * (m + 1) / 0.8)


def test_sound_mode_assumptions_name_the_held_out_part_categories_and_bounds(sound):
    sound.publish(random_state=0)
    text = " ".join(sound.ledger_.assumptions)
    assert "Held-out part: 200 of the 1000 records" in text
    assert "never published" in text
    assert "category lists" in text and "sex" in text
    assert "held-out part" in text and "age" in text  # bounds from the held-out part


def test_bounds_given_by_the_user_are_recorded_and_clip(census_frame):
    frame = census_frame.head(300).copy()
    pub = SSKMDP(sensitive="sex", bounds={"age": (20, 60)}, random_state=1, **FAST).fit(frame)
    assert pub.table_.bounds_source["age"] == "user"
    out = pub.publish(epsilon=1e6, random_state=0)
    assert out["age"].between(20, 60).all()
    assert any("given by the user" in a and "age" in a for a in pub.ledger_.assumptions)
    with pytest.raises(DataError, match="numeric"):
        SSKMDP(sensitive="sex", bounds={"sex": (0, 1)}, **FAST).fit(frame)
    with pytest.raises(DataError, match="lo <= hi"):
        SSKMDP(sensitive="sex", bounds={"age": (60, 20)}, **FAST).fit(frame)


def test_held_out_part_is_never_released(sound, census_frame):
    n = len(census_frame)
    hold, pub_idx = sound.holdout_index_, sound.published_index_
    assert len(hold) == 200 and len(pub_idx) == 800
    assert np.intersect1d(hold, pub_idx).size == 0 and len(np.union1d(hold, pub_idx)) == n
    # the aggregates that get noise are those of the published part only
    X = sound.table_.X
    assert sound._counts.sum() == len(pub_idx)
    assert np.allclose(sound._sums.sum(axis=0), X[pub_idx].sum(axis=0))
    counts, sums = sound.release_aggregates(epsilon=1e9, random_state=0)
    assert np.allclose(counts, sound._counts, atol=1e-4)
    # changing every held-out record's sex changes nothing the noise is added to
    flipped = census_frame.copy()
    flipped.loc[hold, "sex"] = np.where(flipped.loc[hold, "sex"] == "Male", "Female", "Male")
    other = SSKMDP(sensitive="sex", random_state=0, **FAST).fit(flipped, holdout_index=hold)
    assert np.array_equal(other.published_index_, pub_idx)
    s = sound.table_.columns.index("sex")
    assert np.allclose(other.table_.X[pub_idx, s], X[pub_idx, s])


def test_the_map_reads_only_the_held_out_part(census_frame):
    """Same held-out rows, different published rows: the same map and bounds."""
    hold = np.arange(0, 1000, 5)
    other = census_frame.copy()
    rest = np.setdiff1d(np.arange(1000), hold)
    other.loc[rest, "age"] = other.loc[rest, "age"].to_numpy()[::-1]
    other.loc[rest, "hours_per_week"] = 99
    a = SSKMDP(sensitive="sex", random_state=3, **FAST).fit(census_frame, holdout_index=hold)
    b = SSKMDP(sensitive="sex", random_state=3, **FAST).fit(other, holdout_index=hold)
    assert np.array_equal(a.som_.weights_, b.som_.weights_)
    assert np.array_equal(a.som_index_, hold) and len(a.som_.labels_) == len(hold)
    assert np.array_equal(a.table_.lo, b.table_.lo) and np.array_equal(a.table_.hi, b.table_.hi)
    pd.testing.assert_frame_equal(a.connections_.strengths, b.connections_.strengths)


def test_sound_release_rows_are_shuffled_and_not_n(sound):
    out = sound.publish(epsilon=1e6, random_state=0)
    n_pub = len(sound.published_index_)
    assert len(out) == n_pub != len(sound.table_.X)  # held-out rows are not there
    assert np.array_equal(np.sort(sound.row_neuron_), np.sort(sound.labels_))
    assert not np.array_equal(sound.row_neuron_, sound.labels_)  # no record keeps its row
    assert not np.all(np.diff(sound.row_neuron_) >= 0)  # nor are rows grouped by neuron
    out = sound.publish(epsilon=0.5, random_state=0)
    assert len(out) == sound.row_counts_.sum()
    assert len(out) != n_pub  # the row count comes from the noisy counts
    assert np.array_equal(sound.row_counts_, np.rint(np.maximum(sound.noisy_counts_, 0)))


def test_sound_release_is_post_processing_of_the_noisy_vector(sound):
    out = sound.publish(epsilon=2.0, random_state=5)
    counts, sums = sound.release_aggregates(epsilon=2.0, random_state=5)
    assert np.array_equal(counts, sound.noisy_counts_) and np.array_equal(sums, sound.noisy_sums_)
    centres = np.clip(sums / np.maximum(counts, 1)[:, None], 0, 1)
    assert np.allclose(sound.released_centres_, centres)
    assert np.allclose(sound.published_scaled_, centres[sound.row_neuron_])
    assert list(out.columns) == list(sound.table_.columns)


def test_sound_noise_is_laplace_of_scale_two_m_plus_one_over_epsilon(sound):
    eps = 1.5
    m = sound.table_.X.shape[1]
    b = 2 * (m + 1) / eps
    draws = []
    for seed in range(20):
        counts, sums = sound.release_aggregates(epsilon=eps, random_state=seed)
        draws += [(counts - sound._counts) / b, ((sums - sound._sums) / b).ravel()]
    draws = np.concatenate(draws)
    assert stats.kstest(draws, stats.laplace.cdf).pvalue > 0.01
    assert stats.kstest(draws * 2, stats.laplace.cdf).pvalue < 1e-6  # the add/remove scale fails


def test_sound_mse_falls_as_epsilon_grows(sound):
    res = {}
    for eps in (0.1, 1.0, 100.0):
        values = []
        for seed in range(3):
            sound.publish(epsilon=eps, random_state=seed)
            values.append(sound.release_metrics()[0])
        res[eps] = np.mean(values)
    assert res[0.1] > res[1.0] > res[100.0]


def test_sound_mode_needs_enough_rows_and_a_valid_holdout(census_frame):
    with pytest.raises(DataError, match="at least 5 rows"):
        SSKMDP(sensitive="sex", **FAST).fit(census_frame.head(4))
    with pytest.raises(ValueError):
        SSKMDP(sensitive="sex", holdout=1.0, **FAST).fit(census_frame.head(50))
    with pytest.raises(DataError, match="hold out at least 4"):
        SSKMDP(sensitive="sex", **FAST).fit(census_frame.head(50), holdout_index=[0, 1])
    with pytest.raises(ValueError, match="holdout_index is for"):
        SSKMDP(sensitive="sex", mode="paper", **FAST).fit(census_frame.head(50), holdout_index=[0, 1, 2, 3])


def test_fit_progress_covers_the_map_then_mic_and_changes_nothing(sound, census_frame):
    seen = []
    told = SSKMDP(epsilon=1.0, sensitive="sex", random_state=0, **FAST).fit(
        census_frame, progress=lambda f, m: seen.append((f, m)))
    assert np.array_equal(told.som_.weights_, sound.som_.weights_)
    assert np.array_equal(told.labels_, sound.labels_)
    fractions = [f for f, _ in seen]
    assert fractions == sorted(fractions) and 0.0 < fractions[-1] <= 1.0
    assert seen[0][1].startswith("Training the map") and seen[-1][1].startswith("Measuring connections (MIC): pair")
