"""RoundDraws: every round's noise of an iterative mechanism from a few exact sampler calls."""
from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from core.privacy.discrete_noise import discrete_gaussian, discrete_laplace
from core.privacy.sampler import RoundDraws, gaussian_on_grid, laplace_on_grid


def test_the_rounds_are_the_rows_of_one_exact_draw():
    """Round r gets row r of one sampler call: the same exact values a direct call draws."""
    draws = RoundDraws(np.random.default_rng(3), rounds=5)
    rows = [draws.draw("gaussian", Fraction(1_500_000), 3) for _ in range(5)]
    direct = discrete_gaussian(Fraction(1_500_000), 15, random_state=np.random.default_rng(3))
    np.testing.assert_array_equal(np.vstack(rows), direct.reshape(5, 3))


def test_each_distribution_and_size_has_its_own_batches():
    rng = np.random.default_rng(4)
    draws = RoundDraws(rng, rounds=2)
    a1 = draws.draw("laplace", Fraction(7, 2), 4)
    b1 = draws.draw("laplace", Fraction(3), 1)
    a2 = draws.draw("laplace", Fraction(7, 2), 4)
    b2 = draws.draw("laplace", Fraction(3), 1)
    ref = np.random.default_rng(4)
    a = discrete_laplace(Fraction(7, 2), 8, random_state=ref)
    b = discrete_laplace(Fraction(3), 2, random_state=ref)
    np.testing.assert_array_equal(np.concatenate([a1, a2]), a)
    np.testing.assert_array_equal(np.concatenate([b1, b2]), b)


def test_rounds_beyond_the_announced_ones_still_draw():
    draws = RoundDraws(0, rounds=1)
    rows = [draws.draw("laplace", Fraction(2), 2) for _ in range(3)]
    assert all(r.shape == (2,) and r.dtype == np.int64 for r in rows)


def test_a_batch_holds_at_most_max_values():
    """Memory bound: 10 rounds of 4 values in batches of at most 8 values, same values."""
    small = RoundDraws(np.random.default_rng(5), rounds=10, max_values=8)
    rows = [small.draw("laplace", Fraction(5), 4) for _ in range(10)]
    ref = np.random.default_rng(5)
    chunks = [discrete_laplace(Fraction(5), 8, random_state=ref) for _ in range(5)]
    np.testing.assert_array_equal(np.concatenate(rows), np.concatenate(chunks))


@pytest.mark.parametrize("on_grid", [laplace_on_grid, gaussian_on_grid])
def test_the_grid_mechanisms_take_it_as_their_source(on_grid):
    kw = ({"sensitivity": 1.0, "epsilon": 1.0} if on_grid is laplace_on_grid
          else {"sigma": 2.0, "l2_sensitivity": 1.0})
    draws = RoundDraws(np.random.default_rng(6), rounds=3)
    batched = [on_grid(np.zeros(2), random_state=draws, **kw)[0] for _ in range(3)]
    single = on_grid(np.zeros(6), coordinates=2, random_state=np.random.default_rng(6), **kw)[0]
    np.testing.assert_array_equal(np.concatenate(batched), single)


@pytest.mark.parametrize("rounds, error", [(0, ValueError), (1.5, TypeError), (True, TypeError)])
def test_rejects_bad_rounds(rounds, error):
    with pytest.raises(error):
        RoundDraws(0, rounds=rounds)
