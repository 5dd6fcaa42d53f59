import math

import numpy as np
import pytest

from core.validation import (
    DataError, check_delta, check_epsilon, check_matrix, check_positive_int, check_sensitivity,
)
from core.runtime.randomness import (
    SEED_HIGH, check_random_state, draw_seed, draw_seeds, spawn_seed,
)


@pytest.mark.parametrize("bad", [0, -1, -0.5])
def test_epsilon_must_be_positive(bad):
    with pytest.raises(ValueError, match="greater than 0"):
        check_epsilon(bad)


def test_epsilon_nan_is_refused():
    with pytest.raises(ValueError, match="NaN"):
        check_epsilon(float("nan"))


def test_epsilon_inf_is_refused():
    with pytest.raises(ValueError, match="finite"):
        check_epsilon(math.inf)


@pytest.mark.parametrize("bad", ["1", None, True, [1.0]])
def test_epsilon_wrong_type(bad):
    with pytest.raises(TypeError, match="must be a number"):
        check_epsilon(bad)


def test_epsilon_accepts_numpy_scalars():
    assert check_epsilon(np.float32(0.5)) == pytest.approx(0.5)


@pytest.mark.parametrize("bad", [0.0, 1.0, -0.1, 1.5, float("nan")])
def test_delta_outside_open_unit_interval(bad):
    with pytest.raises(ValueError, match="strictly between 0 and 1"):
        check_delta(bad)


def test_negative_sensitivity_is_refused():
    with pytest.raises(ValueError, match="0 or more"):
        check_sensitivity(-1.0)


def test_infinite_sensitivity_is_refused():
    with pytest.raises(ValueError, match="finite"):
        check_sensitivity(float("inf"))


def test_positive_int_rules():
    assert check_positive_int(3, name="k") == 3
    with pytest.raises(ValueError, match="at least 1"):
        check_positive_int(0, name="k")
    with pytest.raises(TypeError):
        check_positive_int(2.5, name="k")


def test_random_state_int_is_reproducible():
    a = check_random_state(7).random(5)
    b = check_random_state(7).random(5)
    assert np.array_equal(a, b)


def test_random_state_generator_is_passed_through():
    g = np.random.default_rng(1)
    assert check_random_state(g) is g


def test_random_state_none_gives_a_generator():
    assert isinstance(check_random_state(None), np.random.Generator)


@pytest.mark.parametrize("bad", ["1", 1.5, True, np.random.RandomState(0)])
def test_random_state_wrong_type(bad):
    with pytest.raises(TypeError, match="random_state"):
        check_random_state(bad)


def test_random_state_negative_int():
    with pytest.raises(ValueError, match="0 or more"):
        check_random_state(-3)


# --- check_matrix: one check for every records x attributes matrix ---------------------


def test_matrix_is_returned_as_float64_without_copy():
    X = np.arange(6.0).reshape(3, 2)
    out = check_matrix(X)
    assert out is X


def test_matrix_of_ints_becomes_float64():
    out = check_matrix([[1, 2], [3, 4]])
    assert out.dtype == np.float64 and out.shape == (2, 2)


@pytest.mark.parametrize("bad, got", [(None, "NoneType"), ("abc", "str"), (b"abc", "bytes")])
def test_matrix_of_wrong_type_names_the_type(bad, got):
    with pytest.raises(TypeError, match=f"X must be a 2-D numeric array, got {got}"):
        check_matrix(bad)


@pytest.mark.parametrize("bad", [[[1, 2], [3]], np.array([["a", "b"]])])
def test_matrix_of_non_numbers_is_a_type_error(bad):
    with pytest.raises(TypeError, match="must be a 2-D numeric array"):
        check_matrix(bad)


@pytest.mark.parametrize("shape, dims", [((5,), 1), ((2, 2, 2), 3)])
def test_matrix_must_have_two_dimensions(shape, dims):
    with pytest.raises(ValueError, match=rf"must be 2-D \(records x attributes\), got {dims} dimension"):
        check_matrix(np.ones(shape))


def test_matrix_error_names_the_argument():
    with pytest.raises(ValueError, match="^weights must be 2-D"):
        check_matrix(np.ones(3), name="weights")


@pytest.mark.parametrize("shape", [(0, 3), (3, 0)])
def test_empty_matrix_is_a_data_error(shape):
    with pytest.raises(DataError, match=r"needs at least one record and one attribute, got shape"):
        check_matrix(np.ones(shape))


def test_matrix_min_rows_is_enforced():
    with pytest.raises(DataError, match="needs at least 4 records"):
        check_matrix(np.ones((3, 2)), min_rows=4)
    assert check_matrix(np.ones((4, 2)), min_rows=4).shape == (4, 2)


def test_matrix_with_no_attribute_passes_when_min_columns_is_zero():
    assert check_matrix(np.ones((3, 0)), min_columns=0).shape == (3, 0)


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_matrix_with_missing_or_infinite_values_is_refused(bad):
    X = np.ones((3, 2))
    X[1, 0] = bad
    with pytest.raises(DataError, match="must be finite.*missing or infinite"):
        check_matrix(X)


def test_matrix_non_finite_values_pass_when_finite_is_false():
    X = np.array([[1.0, np.nan], [np.inf, 2.0]])
    assert check_matrix(X, finite=False) is X


def test_column_vector_is_one_attribute():
    out = check_matrix(np.arange(4.0), column_vector=True)
    assert out.shape == (4, 1)


def test_column_vector_still_refuses_three_dimensions():
    with pytest.raises(ValueError, match="must be 1-D or 2-D"):
        check_matrix(np.ones((2, 2, 2)), column_vector=True)


# --- child seeds -------------------------------------------------------------------------


@pytest.mark.parametrize("seed", [0, 7, 2024])
def test_draw_seed_draws_what_the_old_ad_hoc_calls_drew(seed):
    a, b, c = (np.random.default_rng(seed) for _ in range(3))
    for _ in range(5):
        s = draw_seed(a)
        assert s == int(b.integers(2**31 - 1)) == int(c.integers(0, 2**31 - 1))
        assert type(s) is int
    # and the generators are left in the same state
    assert a.random() == b.random() == c.random()


def test_draw_seed_keeps_another_bound_when_asked():
    a, b = np.random.default_rng(3), np.random.default_rng(3)
    assert [draw_seed(a, high=2**31) for _ in range(4)] == [int(b.integers(2**31)) for _ in range(4)]


def test_draw_seeds_draws_what_the_old_array_call_drew():
    a, b = np.random.default_rng(11), np.random.default_rng(11)
    seeds = draw_seeds(a, (3, 4))
    old = b.integers(0, 2**31 - 1, size=(3, 4))
    assert seeds.shape == (3, 4) and seeds.dtype == old.dtype
    assert np.array_equal(seeds, old)
    assert a.random() == b.random()


def test_spawn_seed_is_draw_seed_with_a_63_bit_bound():
    a, b = np.random.default_rng(5), np.random.default_rng(5)
    assert spawn_seed(a) == int(b.integers(0, 2**63 - 1))


def test_seeds_lie_below_their_bound():
    rng = np.random.default_rng(1)
    assert SEED_HIGH == 2**31 - 1
    assert all(0 <= draw_seed(rng) < SEED_HIGH for _ in range(200))
    assert all(0 <= draw_seed(rng, high=3) < 3 for _ in range(200))
    assert {draw_seed(rng, high=1) for _ in range(5)} == {0}
    seeds = draw_seeds(rng, 500, high=10)
    assert seeds.min() >= 0 and seeds.max() < 10


@pytest.mark.parametrize("bad", [None, 3, np.random.RandomState(0)])
def test_seed_helpers_refuse_what_is_not_a_generator(bad):
    with pytest.raises(TypeError, match="Generator"):
        draw_seed(bad)
    with pytest.raises(TypeError, match="Generator"):
        draw_seeds(bad, 2)


@pytest.mark.parametrize("bad", [1.5, "10", True, None])
def test_seed_bound_must_be_an_integer(bad):
    with pytest.raises(TypeError, match="high"):
        draw_seed(np.random.default_rng(0), high=bad)
    with pytest.raises(TypeError, match="high"):
        draw_seeds(np.random.default_rng(0), 2, high=bad)


@pytest.mark.parametrize("bad", [0, -5, 2**63])
def test_seed_bound_must_lie_in_range(bad):
    with pytest.raises(ValueError, match="high"):
        draw_seed(np.random.default_rng(0), high=bad)
    with pytest.raises(ValueError, match="high"):
        draw_seeds(np.random.default_rng(0), 2, high=bad)


def test_seed_bound_check_leaves_the_generator_untouched():
    a, b = np.random.default_rng(9), np.random.default_rng(9)
    with pytest.raises(ValueError):
        draw_seed(a, high=0)
    assert a.random() == b.random()
