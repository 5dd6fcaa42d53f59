"""SFLA search for initial SOM weights (Algorithm 2 of paper 003)."""
from __future__ import annotations

import numpy as np
import pytest

from core.sskm.grid import grid_coordinates, grid_sq_distances, neighbourhood
from core.sskm.sfla import sfla_initial_weights, som_fitness


def test_best_fitness_improves_over_the_initial_population(blobs):
    res = sfla_initial_weights(blobs, rows=4, cols=4, n_frogs=10, iterations=15, random_state=0)
    assert res.best_fitness[-1] > res.best_fitness[0] * 1.05


def test_best_fitness_never_decreases(blobs):
    res = sfla_initial_weights(blobs, rows=3, cols=3, n_frogs=8, n_memeplexes=2, iterations=10, random_state=1)
    assert np.all(np.diff(res.best_fitness) >= 0)
    assert len(res.best_fitness) == len(res.mean_fitness) == 11


def test_mean_fitness_rises(blobs):
    res = sfla_initial_weights(blobs, rows=3, cols=3, n_frogs=10, iterations=20, random_state=2)
    assert res.mean_fitness[-1] > res.mean_fitness[0]


def test_returned_weights_are_the_best_frog(blobs):
    res = sfla_initial_weights(blobs, rows=3, cols=4, n_frogs=6, iterations=5, sample_size=10_000, random_state=3)
    assert res.weights.shape == (3, 4, blobs.shape[1])
    h = neighbourhood(grid_sq_distances(grid_coordinates(3, 4)), 1.0, None)
    h /= h.sum(axis=1, keepdims=True)
    assert som_fitness(res.weights, blobs, h) == pytest.approx(res.best_fitness[-1])


def test_same_seed_same_weights(blobs):
    a = sfla_initial_weights(blobs, rows=3, cols=3, n_frogs=6, iterations=4, random_state=11)
    b = sfla_initial_weights(blobs, rows=3, cols=3, n_frogs=6, iterations=4, random_state=11)
    c = sfla_initial_weights(blobs, rows=3, cols=3, n_frogs=6, iterations=4, random_state=12)
    assert np.array_equal(a.weights, b.weights)
    assert not np.array_equal(a.weights, c.weights)


def test_frogs_must_split_evenly_into_memeplexes(blobs):
    with pytest.raises(ValueError, match="multiple of n_memeplexes"):
        sfla_initial_weights(blobs, rows=2, cols=2, n_frogs=10, n_memeplexes=3, random_state=0)


def test_rejects_non_finite_data():
    X = np.array([[0.0, 1.0], [np.nan, 0.5], [0.2, 0.3]])
    with pytest.raises(ValueError, match="finite"):
        sfla_initial_weights(X, rows=2, cols=2, random_state=0)


def test_rejects_wrong_type_for_rows(blobs):
    with pytest.raises(TypeError):
        sfla_initial_weights(blobs, rows=2.5, cols=2, random_state=0)
