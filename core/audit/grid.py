"""The exact grid check: whether a mechanism's outputs lie on the grid its ledger declares.

An exact sampler (:mod:`core.privacy.sampler`) puts every output on a grid ``k * grid``; a
floating-point draw, or a step after the noise that rescales or averages, leaves values
between the grid points, whose low bits can betray the data (Mironov 2012).
:func:`off_grid_share` measures that share; ``audit(..., grid=g)`` counts the runs with an
output off the grid.
"""
from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np

__all__ = ["check_grid", "has_off_grid", "off_grid_share"]


def _grid_values(output: Any) -> np.ndarray:
    try:
        values = np.asarray(output, dtype=float).ravel()
    except (TypeError, ValueError) as exc:
        raise TypeError(
            "grid= checks the mechanism's outputs: they must be numbers or arrays of numbers, "
            f"got {type(output).__name__}."
        ) from exc
    return values


def _off_grid(values: np.ndarray, grid: float) -> np.ndarray:
    """True where a finite value is not an exact multiple of ``grid`` (no tolerance)."""
    with np.errstate(invalid="ignore", over="ignore"):
        k = np.round(values / grid)
        return np.isfinite(values) & (k * grid != values)


def off_grid_share(outputs: Any, grid: float) -> float:
    """The share of the numbers in ``outputs`` that are not exact multiples of ``grid``.

    An exact sampler (:mod:`core.privacy.sampler`) puts every output on its grid, ``k * grid`` with
    an integer ``k`` (a power-of-two grid makes that product exact); a floating-point draw,
    or a step after the sampler that rescales or averages, leaves values between the grid
    points, and those low bits can betray the data (Mironov 2012). The comparison is exact:
    a value is on the grid when ``round(v / grid) * grid == v``; non-finite values count as
    on it (they are not noise).

    Parameters
    ----------
    outputs : number or array_like of numbers
        One or more outputs of a mechanism, any shape.
    grid : float
        The declared spacing, > 0.

    Returns
    -------
    float
        Between 0 (all on the grid) and 1; 0 for an empty input.
    """
    g = check_grid(grid)
    values = _grid_values(outputs)
    if values.size == 0:
        return 0.0
    return float(_off_grid(values, g).mean())


def has_off_grid(output: Any, grid: float) -> bool:
    """True when some finite number of one output (a number or an array) is off ``grid``."""
    return bool(_off_grid(_grid_values(output), grid).any())


def check_grid(grid: Any) -> float:
    """``grid`` as a positive finite float (TypeError / ValueError otherwise)."""
    if isinstance(grid, bool) or not isinstance(grid, numbers.Real):
        raise TypeError(f"grid must be a number, got {type(grid).__name__}.")
    if not (math.isfinite(grid) and grid > 0):
        raise ValueError(f"grid must be a positive finite spacing, got {grid}.")
    return float(grid)
