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
    "check_epsilon",
    "check_delta",
    "check_sensitivity",
    "check_positive_int",
    "check_probability",
    "check_matrix",
    "check_choice",
    "check_epsilons",
]



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


def check_choice(value: Any, choices: Any, *, name: str, kind: type | tuple[type, ...] | None = None) -> Any:
    """Check that ``value`` is one of ``choices`` and return it.

    The one "must be one of" check of the project: every option given by name or code
    (a noise method, a classifier, a topology, a query source) goes through here, so each
    message has the same shape and lists what is allowed.

    Parameters
    ----------
    value : object
        What the caller passed.
    choices : iterable
        The allowed values, in the order the message lists them (a mapping: its keys).
    name : str
        The parameter's name, as the caller wrote it.
    kind : type or tuple of type, optional
        The type ``value`` must have (``str`` for names); None: no type check.

    Raises
    ------
    TypeError
        ``kind`` is given and ``value`` is not of that type (a bool is never an int here).
    ValueError
        ``value`` is not among ``choices``.
    """
    allowed = tuple(choices)
    if kind is not None:
        wrong_bool = isinstance(value, bool) and bool not in (kind if isinstance(kind, tuple) else (kind,))
        if wrong_bool or not isinstance(value, kind):
            names = " or ".join(k.__name__ for k in (kind if isinstance(kind, tuple) else (kind,)))
            raise TypeError(f"{name} must be a {names}, got {type(value).__name__}.")
    try:
        found = value in allowed
    except TypeError:  # an unhashable value against a set-like container
        found = False
    if not found:
        listed = ", ".join(repr(c) for c in allowed)
        raise ValueError(f"{name} must be one of {listed}; got {value!r}.")
    return value


def check_epsilons(value: Any, *, name: str = "epsilons") -> tuple[float, ...]:
    """Return a grid of privacy budgets as a tuple of floats after checking it.

    Parameters
    ----------
    value : sequence of float
        The budgets (a list, a tuple or a 1-D array, not a string): each a finite number
        greater than 0, at least one, each once (1 and 1.0 are the same budget).
    name : str
        Name used in the error messages.

    Returns
    -------
    tuple of float
        The budgets in the order given.

    Raises
    ------
    TypeError
        ``value`` is not a sequence, or one of its entries is not a number (a bool is not).
    ValueError
        An entry is not finite or not above 0, the grid is empty, or a budget repeats.
    """
    if isinstance(value, (str, bytes)) or not isinstance(value, (list, tuple, np.ndarray)):
        raise TypeError(f"{name} must be a list of numbers, got {type(value).__name__}.")
    grid = []
    for entry in value:
        if not _is_real(entry):
            raise TypeError(f"each entry of {name} must be a number, got {type(entry).__name__}.")
        if not (math.isfinite(float(entry)) and float(entry) > 0):
            raise ValueError(f"each entry of {name} must be a finite number greater than 0, got {entry!r}.")
        grid.append(float(entry))
    if not grid:
        raise ValueError(f"{name} must list at least one epsilon (a privacy budget), got none.")
    if len(set(grid)) != len(grid):
        raise ValueError(f"each epsilon may appear only once in {name}.")
    return tuple(grid)
