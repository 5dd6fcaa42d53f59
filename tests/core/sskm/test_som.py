"""Self-organising map (Algorithm 3 of paper 003)."""
from __future__ import annotations

import numpy as np
import pytest

from core.data import encode, load_sample
from core.sskm.som import SelfOrganizingMap


def _som(**kw):
    params = dict(sigma=1.5, iterations=3000, random_state=0, sfla_params={"iterations": 5, "n_frogs": 6})
    params.update(kw)
    return SelfOrganizingMap(4, 5, **params)


def test_same_seed_same_map(blobs):
    a = _som().fit(blobs)
    b = _som().fit(blobs)
    assert np.array_equal(a.weights_, b.weights_)
    assert np.array_equal(a.labels_, b.labels_)


def test_training_lowers_quantization_error(blobs):
    som = _som(init="random").fit(blobs)
    qe = som.history_["quantization_error"]
    assert qe[-1] < 0.5 * qe[0]
    assert som.quantization_error(blobs) == pytest.approx(qe[-1], rel=1e-9)


def test_learning_rate_and_sigma_decay_exponentially(blobs):
    som = _som(learning_rate=0.4, sigma=2.0).fit(blobs)
    h = som.history_
    assert h["learning_rate"][0] == pytest.approx(0.4)
    assert h["learning_rate"][-1] == pytest.approx(0.4 * np.exp(-1))
    assert h["sigma"][-1] == pytest.approx(2.0 * np.exp(-1))


@pytest.mark.parametrize("init", ["sfla", "random", "pca"])
@pytest.mark.parametrize("method", ["batch", "online"])
def test_every_init_and_method_clusters_blobs(blobs, init, method):
    som = _som(init=init, method=method, iterations=1500).fit(blobs)
    assert som.quantization_error(blobs) < 0.12
    assert set(np.unique(som.labels_)) <= set(range(20))


def test_hexagonal_topology_has_six_neighbours(blobs):
    som = _som(topology="hexagonal").fit(blobs)
    inner = som._adj.sum(axis=1).reshape(4, 5)[1:-1, 1:-1]
    assert np.all(inner == 6)
    assert 0.0 <= som.topographic_error(blobs) <= 1.0


def test_hit_map_counts_every_row(blobs):
    som = _som().fit(blobs)
    hits = som.hit_map()
    assert hits.shape == (4, 5)
    assert hits.sum() == len(blobs)
    assert np.array_equal(hits.ravel(), np.bincount(som.predict(blobs), minlength=20))


def test_u_matrix_and_component_planes_shapes(blobs):
    som = _som().fit(blobs)
    assert som.u_matrix().shape == (4, 5)
    assert np.all(som.u_matrix() >= 0)
    assert som.component_planes().shape == (4, 4, 5)
    assert np.array_equal(som.component_plane(2), som.weights_[:, :, 2])


def test_share_per_neuron_is_nan_on_empty_neurons(blobs):
    som = SelfOrganizingMap(6, 6, iterations=500, init="random", random_state=0).fit(blobs[:20])
    share = som.share_per_neuron((blobs[:20, 0] > 0.5).astype(float))
    hits = som.hit_map()
    assert np.all(np.isnan(share[hits == 0]))
    assert np.all((share[hits > 0] >= 0) & (share[hits > 0] <= 1))


def test_topographic_error_counts_non_adjacent_pairs():
    som = SelfOrganizingMap(1, 3, iterations=1, init="random", random_state=0, track_every=None)
    som.fit(np.array([[0.0], [1.0]]))
    som.weights_ = np.array([[[0.0], [10.0], [1.0]]])  # neurons 0 and 2 are not adjacent
    assert som.topographic_error(np.array([[0.4]])) == 1.0
    assert som.topographic_error(np.array([[6.0]])) == 0.0


def test_predict_needs_fit():
    with pytest.raises(ValueError, match="not trained"):
        SelfOrganizingMap(2, 2).predict(np.zeros((3, 2)))


@pytest.mark.parametrize(
    "kw, exc",
    [({"init": "kmeans"}, ValueError), ({"learning_rate": 1.5}, ValueError),
     ({"method": "gpu"}, ValueError), ({"iterations": 0}, ValueError), ({"iterations": 1.5}, TypeError)],
)
def test_bad_parameters_are_refused(blobs, kw, exc):
    with pytest.raises(exc):
        SelfOrganizingMap(3, 3, **kw).fit(blobs)


def test_quality_matches_minisom_on_the_same_data():
    minisom = pytest.importorskip("minisom", reason="minisom (bench extra) is not installed")
    ds = load_sample("census")
    X = encode(ds).X[:1500]
    T = 6000
    ref = minisom.MiniSom(6, 6, X.shape[1], sigma=1.0, learning_rate=0.5, random_seed=0)
    ref.random_weights_init(X)
    ref.train_batch(X, T)
    ours = SelfOrganizingMap(6, 6, sigma=1.0, learning_rate=0.5, iterations=T, decay="asymptotic",
                             batch_size=32, random_state=0).fit(X)
    assert ours.quantization_error(X) <= 1.05 * ref.quantization_error(X)
    assert ours.topographic_error(X) <= ref.topographic_error(X) + 0.05


def test_the_map_follows_the_scikit_learn_contract(blobs):
    """get_params returns every __init__ argument unchanged; clone gives an unfitted twin that
    trains to the same weights; a bad choice is refused in fit, in the project's words."""
    from sklearn.base import clone

    som = SelfOrganizingMap(3, 3, iterations=500, sfla_params={"iterations": 2, "n_frogs": 6}, random_state=1)
    assert som.get_params()["sfla_params"] is som.sfla_params
    twin = clone(som)
    assert np.array_equal(som.fit(blobs).weights_, twin.fit(blobs).weights_)
    assert not hasattr(clone(som), "weights_")
    bad = SelfOrganizingMap(2, 2, topology="triangle")
    assert bad.topology == "triangle"
    with pytest.raises(ValueError, match="topology must be one of 'rectangular', 'hexagonal'"):
        bad.fit(blobs)
