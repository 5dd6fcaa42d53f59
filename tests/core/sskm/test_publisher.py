"""SSKM_DP publishing: the paper's publisher (PaperSSKMDP, Eq. 18-19, not DP) and the sound one (SSKMDP)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from core.evaluation.metrics import mse, record_linkage
from core.sskm.cluster_release import cluster_release_metrics
from core.sskm.connection import mic_connections
from core.sskm.histogram_release import EMIT_THRESHOLD, apportion_rows, project_simplex, record_cells
from core.sskm.paper_publisher import PAPER_NOT_DP_REASON, PaperSSKMDP
from core.sskm.scaled_table import ScaledTable
from core.sskm.sound import SSKMDP, map_grid
from core.sskm.variants import SSKM_VARIANTS
from core.validation import DataError

FAST = {"rows": 6, "cols": 6, "iterations": 4000, "sfla_params": {"iterations": 5, "n_frogs": 6}, "mic_max_rows": 600}


@pytest.fixture(scope="module")
def fitted(census_frame):
    """The paper's publisher (today's algorithm)."""
    return PaperSSKMDP(epsilon=1.0, sensitive="sex", cs_threshold=0.3, random_state=0,
                       **FAST).fit(census_frame)


@pytest.fixture(scope="module")
def sound(census_frame, census_schema):
    """The sound mode with the census schema (public bounds and categories) and a noisy map."""
    return SSKMDP(epsilon=1.0, sensitive="sex", schema=census_schema, random_state=0, **FAST).fit(census_frame)


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
    a = SSKM_VARIANTS[mode](epsilon=1.0, sensitive="sex", random_state=4, **FAST).fit_transform(small)
    b = SSKM_VARIANTS[mode](epsilon=1.0, sensitive="sex", random_state=4, **FAST).fit_transform(small)
    c = SSKM_VARIANTS[mode](epsilon=1.0, sensitive="sex", random_state=5, **FAST).fit_transform(small)
    pd.testing.assert_frame_equal(a, b)
    assert not a.equals(c)


def test_precomputed_connections_are_reused(census_frame):
    small = census_frame.head(300)
    conn = mic_connections(small, "sex", threshold=0.3, max_rows=None)
    pub = PaperSSKMDP(epsilon=1.0, sensitive="sex", cs_threshold=0.0, random_state=0, **FAST)
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
    """One random_state at epsilon 1 and 2: 2 y(2) - y(1) must not cancel the noise. (The
    sound publisher's centres release keeps one map size at both epsilons; the cell release
    sizes its map per epsilon, and its noise comes from the same keyed generator.)"""
    extra = {"release": "centres"} if mode == "sound" else {}
    pub = SSKM_VARIANTS[mode](sensitive="sex", random_state=0, **FAST, **extra).fit(census_frame.head(400))
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


def test_the_two_publishers_are_separate_classes_without_a_mode():
    assert SSKM_VARIANTS == {"sound": SSKMDP, "paper": PaperSSKMDP}
    assert not issubclass(PaperSSKMDP, SSKMDP) and not issubclass(SSKMDP, PaperSSKMDP)
    for cls in (SSKMDP, PaperSSKMDP):
        assert "mode" not in cls().get_params()
        with pytest.raises(TypeError):
            cls(mode="paper")
    assert {"map_fit", "map_share", "map_iterations"} <= set(SSKMDP().get_params())
    assert not {"map_fit", "map_share", "map_iterations"} & set(PaperSSKMDP().get_params())
    from core.sskm.variants import sskm_variant

    assert sskm_variant("paper") is PaperSSKMDP
    with pytest.raises(ValueError, match="mode must be one of 'sound', 'paper'"):
        sskm_variant("loose")


@pytest.mark.parametrize("cls", [SSKMDP, PaperSSKMDP])
def test_publishers_follow_the_scikit_learn_contract(census_frame, census_schema, cls):
    """get_params returns every __init__ argument unchanged; clone gives an unfitted twin that
    publishes the same rows for the same seed; bad values are refused in fit, not __init__."""
    from sklearn.base import clone

    kw = dict(epsilon=2.0, sensitive=("sex",), schema=census_schema, random_state=4, **FAST)
    pub = cls(**kw)
    params = pub.get_params()
    assert all(params[k] is v for k, v in kw.items())
    twin = clone(pub)
    assert twin is not pub and twin.get_params()["sensitive"] == ("sex",)
    assert not hasattr(twin, "table_")
    small = census_frame.head(300)
    pd.testing.assert_frame_equal(pub.fit_transform(small), twin.fit_transform(small))
    assert not hasattr(clone(pub), "table_")  # a fitted estimator clones unfitted
    bad = cls(epsilon=-1.0, sensitive="sex")  # stored as given
    assert bad.epsilon == -1.0
    with pytest.raises(ValueError):
        bad.fit(small)
    fitted_names = [a for a in vars(pub) if not a.startswith("_") and a not in params]
    assert fitted_names and all(a.endswith("_") for a in fitted_names)


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


def test_sound_mode_with_a_schema_is_dp_and_costs_epsilon(sound):
    sound.publish(epsilon=0.8, random_state=0)
    led = sound.ledger_
    assert led.is_dp, led.not_dp_reasons
    assert led.total() == (pytest.approx(0.8), 0.0)
    m = sound.table_.X.shape[1]
    its, share = sound.map_iterations, sound.map_share
    eps = [e.epsilon for e in led.entries]
    assert len(eps) == 2 * its + 2  # counts and sums of each map step, then of the release
    assert sum(eps[:-2]) == pytest.approx(0.8 * share)
    assert eps[-2:] == [pytest.approx(0.8 * (1 - share) / (m + 1)), pytest.approx(0.8 * (1 - share) * m / (m + 1))]
    assert all(e.parallel_group is None for e in led.entries)  # not per-cluster parallel
    assert all("discrete Laplace" in e.noise for e in led.entries)  # the exact sampler, with its grid
    assert "one vector release" in led.entries[-1].label
    assert sound.protected_ == tuple(sound.table_.columns)  # every attribute is noised
    rows, cols, _, _ = map_grid(len(sound.table_.X), sound.layout_, sound.epsilon * (1 - share), rows=sound.rows,
                                cols=sound.cols)
    assert len(sound.noise_scale_) == rows * cols  # every neuron, empty ones too
    assert np.allclose(list(sound.noise_scale_.values()), 2 * (m + 1) / (0.8 * (1 - share)))
    assert any("shipped with the dataset" in a for a in led.assumptions)
    assert not any("held-out" in a.lower() for a in led.assumptions)


def test_sound_mode_without_a_schema_says_it_is_not_dp(census_frame):
    pub = SSKMDP(sensitive="sex", random_state=0, **FAST).fit(census_frame.head(300))
    pub.publish(epsilon=1.0, random_state=0)
    assert not pub.ledger_.is_dp
    assert pub.ledger_.total() == (float("inf"), 1.0)
    assert "read from your data" in pub.ledger_.describe()
    assert pub.ledger_.nominal()[0] == pytest.approx(1.0)


def test_a_schema_read_from_the_data_is_not_dp_until_confirmed(census_frame):
    from core.data import Dataset
    from core.privacy.schema_draft import draft_schema

    frame = census_frame.head(300)
    numeric = tuple(c for c in frame.columns if frame[c].dtype.kind in "if")
    categorical = tuple(c for c in frame.columns if c not in numeric)
    draft = draft_schema(Dataset(frame, label=None, sensitive=("sex",), numeric=numeric,
                                 categorical=categorical, name="upload"))
    pub = SSKMDP(sensitive="sex", schema=draft, random_state=0, **FAST).fit(frame)
    pub.publish(random_state=0)
    assert not pub.ledger_.is_dp
    assert draft.not_dp_reason(list(frame.columns)) in pub.ledger_.not_dp_reasons
    confirmed = SSKMDP(sensitive="sex", schema=draft.confirm(), random_state=0, **FAST).fit(frame)
    confirmed.publish(random_state=0)
    assert confirmed.ledger_.is_dp


def test_schema_bounds_clip_and_categories_stay_in_the_declared_domain(census_frame, census_schema):
    frame = census_frame.head(300).copy()
    frame.loc[0, "age"] = 500
    frame.loc[0, "occupation"] = "Astronaut"  # not in the declared list
    pub = SSKMDP(sensitive="sex", schema=census_schema, random_state=0, **FAST).fit(frame)
    j = pub.table_.columns.index("age")
    assert pub.table_.X[0, j] == 1.0  # clipped to the declared 90
    assert pub.table_.categories["occupation"][-1] == "(other)"
    out = pub.publish(epsilon=1e6, random_state=0)
    assert out["age"].between(17, 90).all()
    assert set(out["occupation"]) <= set(census_schema["occupation"].domain)
    assert "Astronaut" not in set(out["occupation"])


def test_user_bounds_without_a_schema_clip_but_the_release_is_not_dp(census_frame, census_schema):
    frame = census_frame.head(300).copy()
    pub = SSKMDP(sensitive="sex", bounds={"age": (20, 60)}, random_state=1, **FAST).fit(frame)
    assert pub.table_.bounds_source["age"] == "user"
    out = pub.publish(epsilon=1e6, random_state=0)
    assert out["age"].between(20, 60).all()
    assert any("given by the user" in a and "age" in a for a in pub.ledger_.assumptions)
    assert not pub.ledger_.is_dp  # the categories were read from the data
    with pytest.raises(DataError, match="numeric"):
        SSKMDP(sensitive="sex", bounds={"sex": (0, 1)}, **FAST).fit(frame)
    with pytest.raises(DataError, match="lo <= hi"):
        SSKMDP(sensitive="sex", bounds={"age": (60, 20)}, **FAST).fit(frame)
    with pytest.raises(ValueError, match="in the schema"):
        SSKMDP(sensitive="sex", schema=census_schema, bounds={"age": (20, 60)}, **FAST).fit(frame)


def test_every_record_is_behind_the_release_and_none_is_held_out(sound, census_frame):
    sound.publish(epsilon=1e9, random_state=0)
    assert len(sound.holdout_index_) == 0
    assert np.array_equal(sound.published_index_, np.arange(len(census_frame)))
    assert sound._counts.sum() == len(census_frame)
    # each record in one cell of every column of its neuron
    assert np.array_equal(sound._sums.sum(axis=1), sound._counts * len(sound.layout_.counted))
    # counts lie on the integer grid, so even a huge epsilon leaves noise of one step
    assert np.abs(sound.noisy_counts_ - sound._counts).mean() < 2


def test_the_noisy_map_reads_the_rows_only_through_its_noisy_measurements(census_frame, census_schema,
                                                                          monkeypatch):
    """Replace the noisy measurement by a fixed answer: two different tables then get the same map
    (the start is data-independent and the weights are post-processing of the measurements)."""
    from core.sskm import noisy_som as som_module

    def fixed(X, labels, K, epsilon, noise):
        m = X.shape[1]
        return np.full(K, 5.0), np.full((K, m), 2.0), [(epsilon / 2, "fixed"), (epsilon / 2, "fixed")]

    monkeypatch.setattr(som_module, "noisy_counts_sums", fixed)
    other = census_frame.copy()
    other["age"] = other["age"].to_numpy()[::-1]
    other["sex"] = "Female"
    a = SSKMDP(sensitive="sex", schema=census_schema, random_state=3, **FAST).fit(census_frame)
    b = SSKMDP(sensitive="sex", schema=census_schema, random_state=3, **FAST).fit(other)
    assert np.array_equal(a.som_.weights_, b.som_.weights_)
    assert a.som_.sfla_ is None  # no SFLA on the rows


def test_a_public_reference_map_reads_only_the_reference(census_frame, census_schema):
    reference = census_frame.tail(200).reset_index(drop=True)
    private = census_frame.head(500)
    other = private.copy()
    other["age"] = 90
    kw = dict(sensitive="sex", schema=census_schema, map_fit="reference", random_state=3, **FAST)
    a = SSKMDP(**kw).fit(private, reference=reference)
    b = SSKMDP(**kw).fit(other, reference=reference)
    assert np.array_equal(a.som_.weights_, b.som_.weights_)
    pd.testing.assert_frame_equal(a.connections_.strengths, b.connections_.strengths)  # MIC on the reference
    a.publish(epsilon=0.5, random_state=0)
    assert a.ledger_.is_dp and a.ledger_.total()[0] == pytest.approx(0.5)
    assert len(a.ledger_.entries) == 2  # all of epsilon on the release
    assert any("reference table of 200 rows" in x and "public" in x for x in a.ledger_.assumptions)
    with pytest.raises(ValueError, match="reference"):
        SSKMDP(**kw).fit(private)
    with pytest.raises(ValueError, match="map_fit"):
        SSKMDP(sensitive="sex", map_fit="sfla", **FAST).fit(private)


def test_sound_release_rows_are_shuffled_and_number_exactly_n(sound):
    n = len(sound.table_.X)
    out = sound.publish(epsilon=1e6, random_state=0)
    assert len(out) == n  # n is public: the noisy counts are apportioned to n rows
    assert np.array_equal(np.bincount(sound.row_neuron_, minlength=len(sound.clusters_)), sound.row_counts_)
    assert np.abs(sound.row_counts_ - sound._counts).max() <= 10  # rows follow the (noisy) neuron sizes
    assert not np.all(np.diff(sound.row_neuron_) >= 0)  # nor are rows grouped by neuron
    out = sound.publish(epsilon=0.5, random_state=0)
    assert len(out) == sound.row_counts_.sum() == n
    b = sound.noise_scale_[0]
    assert np.array_equal(sound.row_counts_, apportion_rows(sound.noisy_counts_, n, threshold=EMIT_THRESHOLD * b))
    assert (sound.row_counts_[sound.noisy_counts_ < EMIT_THRESHOLD * b] == 0).all()


def test_sound_centres_release_is_post_processing_of_the_noisy_vector(census_frame, census_schema):
    sound = SSKMDP(sensitive="sex", schema=census_schema, random_state=0, release="centres",
                   **FAST).fit(census_frame.head(400))
    out = sound.publish(epsilon=2.0, random_state=5)
    counts, sums = sound.release_aggregates(epsilon=2.0, random_state=5)
    assert np.array_equal(counts, sound.noisy_counts_) and np.array_equal(sums, sound.noisy_sums_)
    centres = np.clip(sums / np.maximum(counts, 1)[:, None], 0, 1)
    assert np.allclose(sound.released_centres_, centres)
    assert np.allclose(sound.published_scaled_, centres[sound.row_neuron_])
    assert list(out.columns) == list(sound.table_.columns)


def test_sound_cell_release_draws_its_rows_from_the_noisy_vector(sound):
    """Every released row lies in cells that the noisy vector, projected, gives mass: the
    rows read the records only through it."""
    out = sound.publish(epsilon=2.0, random_state=5)
    counts, cells = sound.release_aggregates(epsilon=2.0, random_state=5)
    assert np.array_equal(counts, sound.noisy_counts_) and np.array_equal(cells, sound.noisy_sums_)
    layout = sound.layout_
    kept = project_simplex_columns(cells, counts, layout)
    row_cells = record_cells(ScaledTable(out, schema=sound.schema), layout)
    for j in range(row_cells.shape[1]):
        assert (kept[sound.row_neuron_, row_cells[:, j]] > 0).all()
    assert list(out.columns) == list(sound.table_.columns)


def project_simplex_columns(cells, counts, layout):
    """The noisy cells projected column by column onto the simplex of the noisy count."""
    out = np.zeros_like(cells)
    for j, start in zip(layout.counted, layout.offsets[list(layout.counted)]):
        k = layout.cells[j]
        out[:, start:start + k] = project_simplex(cells[:, start:start + k], np.maximum(counts, 1))
    return out


def test_sound_noise_is_laplace_of_scale_two_m_plus_one_over_the_release_epsilon(sound):
    eps = 1.5
    m = sound.table_.X.shape[1]
    b = 2 * (m + 1) / (eps * (1 - sound.map_share))
    draws = []
    for seed in range(20):
        counts, sums = sound.release_aggregates(epsilon=eps, random_state=seed)
        draws.append(((sums - sound._sums) / b).ravel())  # _sums: the exact sums under this release's map
        assert np.array_equal(counts, np.round(counts))  # counts lie on the integer grid
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


def test_map_settings_are_checked(census_frame, census_schema):
    frame = census_frame.head(50)
    with pytest.raises(ValueError, match="map_share"):
        SSKMDP(sensitive="sex", schema=census_schema, map_share=1.0, **FAST).fit(frame)
    with pytest.raises(ValueError, match="map_iterations"):
        SSKMDP(sensitive="sex", schema=census_schema, map_iterations=0, **FAST).fit(frame)
    with pytest.raises(TypeError, match="PublicSchema"):
        SSKMDP(sensitive="sex", schema={"age": (0, 1)}, **FAST).fit(frame)
    with pytest.raises(TypeError, match="reference"):  # the paper's publisher fits its map on the records
        PaperSSKMDP(sensitive="sex", **FAST).fit(frame, reference=frame)


def test_fit_progress_covers_the_map_then_mic_and_changes_nothing(census_frame, census_schema):
    seen = []
    kw = dict(epsilon=1.0, sensitive="sex", schema=census_schema, random_state=0, **FAST)
    plain = SSKMDP(**kw).fit(census_frame)
    told = SSKMDP(**kw).fit(census_frame, progress=lambda f, m: seen.append((f, m)))
    assert np.array_equal(told.som_.weights_, plain.som_.weights_)
    assert np.array_equal(told.labels_, plain.labels_)
    fractions = [f for f, _ in seen]
    assert fractions == sorted(fractions) and 0.0 < fractions[-1] <= 1.0
    assert seen[0][1].startswith("Training the map") and seen[-1][1].startswith("Measuring connections (MIC): pair")


# --------------------------------------------------------------------------- ScaledTable with a schema


def test_scaled_table_with_a_schema_uses_declared_bounds_and_domain(census_schema):
    frame = pd.DataFrame({"age": [17, 90, 500, None], "sex": ["Male", "Female", "Alien", None]})
    t = ScaledTable(frame, schema=census_schema)
    assert t.X[:, 0].tolist() == [0.0, 1.0, 1.0, pytest.approx((54 - 17) / 73)]  # missing -> middle, not a median
    assert t.categories["sex"] == ["Male", "Female", "(other)"]
    assert t.X[:, 1].tolist() == [0.0, 0.5, 1.0, 1.0]
    assert t.is_public and t.not_dp_reason is None
    assert t.bounds_source == {"age": "built-in", "sex": "built-in"}
    back = t.decode(t.X)
    assert back["sex"].tolist() == ["Male", "Female", "(other)", "(other)"]
    assert back["age"].tolist() == [17, 90, 90, 54]


def test_scaled_table_one_record_changes_one_row_only(census_schema):
    a = pd.DataFrame({"age": [20, 30, 40], "occupation": ["Sales", "Sales", "Sales"]})
    b = a.copy()
    b.loc[2] = [900, "Astronaut"]
    ta, tb = ScaledTable(a, schema=census_schema), ScaledTable(b, schema=census_schema)
    assert np.array_equal(ta.lo, tb.lo) and np.array_equal(ta.hi, tb.hi)
    assert ta.categories == tb.categories
    assert np.array_equal(ta.X[:2], tb.X[:2])


def test_scaled_table_drops_identifiers_and_refuses_unlisted_columns(census_schema):
    from dataclasses import replace

    from core.privacy.schema_columns import ColumnSchema

    schema = replace(census_schema, columns=census_schema.columns + (ColumnSchema("id", "identifier"),))
    t = ScaledTable(pd.DataFrame({"id": [1, 2], "age": [20, 30]}), schema=schema)
    assert t.columns == ["age"]
    with pytest.raises(DataError, match="does not list"):
        ScaledTable(pd.DataFrame({"age": [20, 30], "salary": [1, 2]}), schema=census_schema)
    with pytest.raises(ValueError, match="come from it"):
        ScaledTable(pd.DataFrame({"age": [20, 30]}), schema=census_schema, bounds={"age": (0, 1)})


def test_scaled_table_without_a_schema_says_what_it_read_from_the_data():
    t = ScaledTable(pd.DataFrame({"x": [1.0, 2.0], "c": ["a", "b"]}))
    assert t.read_from_data == ["x", "c"]
    assert "read from your data" in t.not_dp_reason
    u = ScaledTable(pd.DataFrame({"x": [1.0, 2.0]}), bounds={"x": (0, 10)})
    assert u.read_from_data == [] and u.is_public
