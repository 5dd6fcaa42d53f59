import math

import numpy as np
import pytest

from core.validation import (
    check_delta,
    check_epsilon,
    check_positive_int,
    check_random_state,
    check_sensitivity,
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
