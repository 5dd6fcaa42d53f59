"""Input checks shared by every algorithm.

Each check raises ``TypeError`` for a value of the wrong type and ``ValueError`` with the
rule in words for a value of the right type that breaks the rule, so that the dashboard can
show the message as it is.
"""
from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np

__all__ = [
    "DataError",
    "RandomState",
    "check_epsilon",
    "check_delta",
    "check_sensitivity",
    "check_random_state",
    "check_positive_int",
    "check_probability",
    "check_matrix",
    "SEED_HIGH",
    "draw_seed",
    "draw_seeds",
    "spawn_seed",
]

RandomState = int | np.random.Generator | None


class DataError(ValueError):
    """A dataset cannot be used as given; the message says what is wrong and what to do."""


def _is_real(value: Any) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def check_epsilon(epsilon: Any, *, name: str = "epsilon") -> float:
    """Return ``epsilon`` as a float after checking it is a finite number > 0.

    Parameters
    ----------
    epsilon : float
        Privacy-loss budget. Smaller is more private; it must be strictly positive and
        finite (epsilon = inf would mean no privacy at all and is refused).
    name : str
        Name used in the error message.
    """
    if not _is_real(epsilon):
        raise TypeError(f"{name} must be a number, got {type(epsilon).__name__}.")
    value = float(epsilon)
    if math.isnan(value):
        raise ValueError(f"{name} must be a number greater than 0, got NaN.")
    if math.isinf(value):
        raise ValueError(f"{name} must be finite: an infinite {name} gives no privacy.")
    if value <= 0:
        raise ValueError(f"{name} must be greater than 0, got {value:g}.")
    return value


def check_delta(delta: Any, *, name: str = "delta") -> float:
    """Return ``delta`` as a float after checking 0 < delta < 1.

    Parameters
    ----------
    delta : float
        Probability with which the epsilon guarantee may fail (approximate DP). It must lie
        strictly between 0 and 1; in practice it should be well below 1 / n.
    """
    if not _is_real(delta):
        raise TypeError(f"{name} must be a number, got {type(delta).__name__}.")
    value = float(delta)
    if not (0.0 < value < 1.0):  # also false for NaN
        raise ValueError(f"{name} must lie strictly between 0 and 1, got {value:g}.")
    return value


def check_sensitivity(sensitivity: Any, *, name: str = "sensitivity") -> float:
    """Return ``sensitivity`` as a float after checking it is finite and >= 0.

    Parameters
    ----------
    sensitivity : float
        Largest change of the released value when one record (or, under correlated DP, one
        record with its correlated group) changes. Noise scales linearly with it.
    """
    if not _is_real(sensitivity):
        raise TypeError(f"{name} must be a number, got {type(sensitivity).__name__}.")
    value = float(sensitivity)
    if math.isnan(value) or math.isinf(value):
        raise ValueError(f"{name} must be a finite number, got {value}.")
    if value < 0:
        raise ValueError(f"{name} must be 0 or more, got {value:g}.")
    return value


def check_positive_int(value: Any, *, name: str, minimum: int = 1) -> int:
    """Return ``value`` as an int after checking it is an integer >= ``minimum``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {type(value).__name__}.")
    if value < minimum:
        raise ValueError(f"{name} must be at least {minimum}, got {value}.")
    return int(value)


def check_probability(value: Any, *, name: str, inclusive: bool = True) -> float:
    """Return ``value`` as a float in [0, 1] (or (0, 1) when ``inclusive`` is False)."""
    if not _is_real(value):
        raise TypeError(f"{name} must be a number, got {type(value).__name__}.")
    v = float(value)
    ok = (0.0 <= v <= 1.0) if inclusive else (0.0 < v < 1.0)
    if not ok:
        bounds = "between 0 and 1" if inclusive else "strictly between 0 and 1"
        raise ValueError(f"{name} must lie {bounds}, got {v:g}.")
    return v


def check_matrix(
    X: Any,
    *,
    name: str = "X",
    finite: bool = True,
    min_rows: int = 1,
    min_columns: int = 1,
    column_vector: bool = False,
) -> np.ndarray:
    """Return ``X`` as a float64 matrix, one row per record and one column per attribute.

    No copy is made when ``X`` already is a float64 array.

    Parameters
    ----------
    X : array_like of shape (n, m)
        The data.
    name : str
        Name used in the error messages.
    finite : bool
        Refuse missing (NaN) and infinite values.
    min_rows, min_columns : int
        Fewest records and attributes accepted (0 accepts an empty axis).
    column_vector : bool
        Take a 1-D array of n values as n records of one attribute (shape (n, 1)).

    Raises
    ------
    TypeError
        ``X`` is None, a string or not numeric.
    ValueError
        ``X`` has the wrong number of dimensions.
    DataError
        ``X`` has too few records or attributes, or (``finite``) missing or infinite values.
    """
    dims = "1-D or 2-D" if column_vector else "2-D"
    if isinstance(X, (str, bytes)) or X is None:
        raise TypeError(f"{name} must be a {dims} numeric array, got {type(X).__name__}.")
    try:
        matrix = np.asarray(X, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be a {dims} numeric array.") from exc
    if column_vector and matrix.ndim == 1:
        matrix = matrix[:, None]
    if matrix.ndim != 2:
        raise ValueError(
            f"{name} must be {dims} (records x attributes), got {matrix.ndim} dimension(s)."
        )
    n_rows, n_columns = matrix.shape
    if n_rows < min_rows or n_columns < min_columns:
        raise DataError(
            f"{name} needs at least {_count_words(min_rows, 'record')}"
            + (f" and {_count_words(min_columns, 'attribute')}" if min_columns > 0 else "")
            + f", got shape {matrix.shape}."
        )
    if finite and not np.all(np.isfinite(matrix)):
        raise DataError(
            f"{name} must be finite, but it has missing or infinite values; drop or fill them first."
        )
    return matrix


def _count_words(count: int, noun: str) -> str:
    """'one record' or '5 records'."""
    return f"one {noun}" if count == 1 else f"{count} {noun}s"


def check_random_state(random_state: RandomState) -> np.random.Generator:
    """Turn ``random_state`` into one ``numpy.random.Generator``.

    Parameters
    ----------
    random_state : int, numpy.random.Generator or None
        An int seeds a new PCG64 generator (same seed, same draws, bit for bit on one
        machine); a Generator is used as it is (so callers can thread one generator through
        several steps); None draws fresh OS entropy (not reproducible).
    """
    if random_state is None:
        return np.random.default_rng()
    if isinstance(random_state, np.random.Generator):
        return random_state
    if isinstance(random_state, (bool, np.bool_)):
        raise TypeError("random_state must be an int, a numpy Generator or None, got bool.")
    if isinstance(random_state, numbers.Integral):
        if random_state < 0:
            raise ValueError(f"random_state must be 0 or more, got {random_state}.")
        return np.random.default_rng(int(random_state))
    raise TypeError(
        "random_state must be an int, a numpy Generator or None, "
        f"got {type(random_state).__name__}."
    )


#: Exclusive upper bound of the child seeds drawn by :func:`draw_seed` and :func:`draw_seeds`
#: (the largest 32-bit signed int; scikit-learn, pandas and XGBoost take any seed below it).
SEED_HIGH = 2**31 - 1


def _check_generator(rng: Any) -> np.random.Generator:
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy Generator, got {type(rng).__name__}.")
    return rng


def _check_high(high: Any) -> int:
    if isinstance(high, (bool, np.bool_)) or not isinstance(high, numbers.Integral):
        raise TypeError(f"high must be an integer, got {type(high).__name__}.")
    if high < 1 or high > 2**63 - 1:
        raise ValueError(f"high must lie between 1 and 2**63 - 1, got {high}.")
    return int(high)


def draw_seed(rng: np.random.Generator, *, high: int = SEED_HIGH) -> int:
    """Draw one child seed from ``rng`` for a step or library that takes an int seed.

    One generator seeds a whole run; each step that takes its own int seed (a scikit-learn
    ``random_state``, ``DataFrame.sample``, a synthesizer, one repetition of a sweep) gets
    a child seed drawn here, so the run stays reproducible from its one seed.

    Parameters
    ----------
    rng : numpy.random.Generator
        The run's generator; the draw advances it.
    high : int
        Exclusive upper bound: the seed lies in ``[0, high)``. The default,
        :data:`SEED_HIGH` = 2**31 - 1, suits every library used here.

    Returns
    -------
    int
        The seed. The draw is exactly ``int(rng.integers(0, high))`` (the same as
        ``int(rng.integers(high))``), so it consumes the generator like the ad-hoc calls it
        replaces and published numbers do not change.

    Raises
    ------
    TypeError
        ``rng`` is not a Generator or ``high`` is not an integer.
    ValueError
        ``high`` is below 1 or above 2**63 - 1.
    """
    return int(_check_generator(rng).integers(0, _check_high(high)))


def draw_seeds(rng: np.random.Generator, size: int | tuple[int, ...], *,
               high: int = SEED_HIGH) -> np.ndarray:
    """Draw an array of child seeds at once, one per run of a sweep (see :func:`draw_seed`).

    Parameters
    ----------
    rng : numpy.random.Generator
        The run's generator; the draw advances it.
    size : int or tuple of int
        Shape of the array (for example ``(points, repetitions)``).
    high : int
        Exclusive upper bound of every seed (default :data:`SEED_HIGH`).

    Returns
    -------
    numpy.ndarray of int64
        The seeds: exactly ``rng.integers(0, high, size=size)``, so the generator is consumed
        as by the ad-hoc calls this replaces and published numbers do not change.

    Raises
    ------
    TypeError
        ``rng`` is not a Generator or ``high`` is not an integer.
    ValueError
        ``high`` is below 1 or above 2**63 - 1, or ``size`` is negative.
    """
    return _check_generator(rng).integers(0, _check_high(high), size=size)


def spawn_seed(rng: np.random.Generator) -> int:
    """Draw a 63-bit integer seed from ``rng`` for a library that takes an int seed.

    The same as :func:`draw_seed` with ``high=2**63 - 1``.
    """
    return draw_seed(rng, high=2**63 - 1)
