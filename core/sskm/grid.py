"""Geometry of a SOM's competition layer: neuron positions, grid distances, neighbourhood."""
from __future__ import annotations

import numpy as np

from core.validation import check_choice

__all__ = ["TOPOLOGIES", "grid_coordinates", "grid_sq_distances", "neighbourhood", "adjacency"]

TOPOLOGIES = ("rectangular", "hexagonal")


def grid_coordinates(rows: int, cols: int, topology: str = "rectangular") -> np.ndarray:
    """Plane coordinates (x, y) of each neuron, row-major, shape (rows * cols, 2).

    On the hexagonal grid odd rows are shifted right by half a cell and rows are
    sqrt(3)/2 apart, so each inner neuron has six neighbours at distance 1.
    """
    check_choice(topology, TOPOLOGIES, name="topology", kind=str)
    r, c = np.divmod(np.arange(rows * cols), cols)
    x = c.astype(float)
    y = r.astype(float)
    if topology == "hexagonal":
        x = x + 0.5 * (r % 2)
        y = y * (np.sqrt(3.0) / 2.0)
    return np.column_stack([x, y])


def grid_sq_distances(coords: np.ndarray) -> np.ndarray:
    """Squared plane distances between every pair of neurons, shape (K, K)."""
    diff = coords[:, None, :] - coords[None, :, :]
    return np.einsum("ijk,ijk->ij", diff, diff)


def neighbourhood(sq_dist: np.ndarray, sigma: float, cutoff: float | None) -> np.ndarray:
    """Gaussian neighbourhood exp(-d^2 / (2 sigma^2)), zero beyond ``cutoff`` (Eq. 12).

    Parameters
    ----------
    sq_dist : ndarray
        Squared grid distances from the winning neuron(s).
    sigma : float
        Width of the Gaussian (delta in Eq. 12 of paper 003).
    cutoff : float or None
        Neurons farther than this grid distance get no update; None keeps the whole
        Gaussian. The winning neuron itself always has weight 1.
    """
    h = np.exp(-sq_dist / (2.0 * sigma * sigma))
    if cutoff is not None:
        h = np.where(sq_dist <= cutoff * cutoff + 1e-12, h, 0.0)
    return h


def adjacency(coords: np.ndarray, topology: str) -> np.ndarray:
    """Boolean (K, K) matrix of immediate grid neighbours (8 on squares, 6 on hexagons)."""
    sq = grid_sq_distances(coords)
    limit = 2.0 if topology == "rectangular" else 1.0
    return (sq > 1e-12) & (sq <= limit + 1e-9)
