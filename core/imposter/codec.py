"""Table <-> matrix for the synthesizer: one-hot blocks for categories and for the modes
of numeric columns, and back.

Categorical attributes become one block of one-hot columns (a missing value is its own
category and decodes back to missing). A numeric attribute (missing values imputed with
the median) becomes one block of one-hot *modes*:

- its *point masses*: the values that hold at least ``mass_share`` of the training rows
  (and at least ``mass_rows`` rows), e.g. the zeros of a zero-inflated column such as
  Adult's capital_gain, each decoded back to exactly that value (a column with at most
  ``bins`` distinct values other than those keeps every value as a point of its own);
- then ``bins`` quantile bins of the other values: the piecewise-linear empirical CDF of
  those values maps them to [0, 1], cut into ``bins`` equal parts (so a skewed or
  multimodal column is spread evenly over its modes instead of being squeezed into a
  corner by min-max scaling).

The networks give every block a softmax, so a generated numeric value is *drawn* (its
mode from the softmax, its place inside a bin uniformly on the CDF scale:
``mode="sample"``) instead of being the regression-to-the-mean output of a sigmoid. With
``mode="argmax"`` a bin decodes to its middle. Integers are rounded; values stay inside
the training range. ``inverse(..., calibrate=True)`` re-weights every softmax so that its
mean over the generated rows matches the training shares (each category's, each point
mass's and each bin's share is kept; which row gets which is still the generator's).
``bins=None`` is the earlier encoding: one min-max scaled column per numeric attribute
(sigmoid output, no point masses).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, TransformerMixin

from core.runtime.randomness import check_random_state

__all__ = ["Block", "TableCodec", "calibrate_shares"]

_MISSING = "__pux_missing__"
_N_QUANTILES = 256


@dataclass(frozen=True)
class Block:
    """Where one attribute lives in the matrix.

    A numeric block of modes holds ``len(masses)`` point columns (value ``masses[i]``)
    then ``bins`` bin columns (the quantile map ``knots[i]`` <-> ``levels[i]`` in [0, 1],
    cut into ``bins`` equal parts); without modes (``bins=None`` codec) it is one min-max
    column. ``shares``: training shares of the categories, or of the modes.
    """

    name: str
    kind: str  # "numeric" or "categorical"
    start: int
    width: int
    categories: tuple = ()
    low: float = 0.0
    high: float = 1.0
    dtype: object = None
    integer: bool = False
    masses: tuple = ()
    bins: int = 0
    knots: tuple = ()
    levels: tuple = ()
    shares: tuple = ()

    @property
    def stop(self) -> int:
        return self.start + self.width

    @property
    def n_modes(self) -> int:
        """Width of the block's softmax: the categories, or the points and bins of a
        numeric block (0 for a min-max numeric column, which has a sigmoid)."""
        if self.kind == "categorical":
            return self.width
        return len(self.masses) + self.bins

    def to_unit(self, values: np.ndarray) -> np.ndarray:
        """Values -> [0, 1] on the quantile map of the binned values (min-max without one)."""
        if len(self.knots) >= 2:
            return np.interp(values, self.knots, self.levels)
        if self.knots:
            return np.zeros(len(values))
        span = self.high - self.low
        return np.clip((values - self.low) / span, 0, 1) if span > 0 else np.zeros(len(values))

    def from_unit(self, u: np.ndarray) -> np.ndarray:
        """[0, 1] -> values (inverse of :meth:`to_unit`)."""
        u = np.clip(u, 0, 1)
        if len(self.knots) >= 2:
            return np.interp(u, self.levels, self.knots)
        if self.knots:
            return np.full(len(u), self.knots[0], dtype=float)
        return self.low + u * (self.high - self.low)


def _quantile_map(rest: np.ndarray) -> tuple[tuple, tuple]:
    """Strictly increasing knots (quantiles of ``rest``) and their levels in [0, 1]."""
    if rest.size == 0:
        return (), ()
    q = np.linspace(0, 1, _N_QUANTILES + 1)
    knots, first = np.unique(np.quantile(rest, q), return_index=True)
    if len(knots) == 1:
        return (float(knots[0]),), (0.0,)
    levels = q[first]
    levels = (levels - levels[0]) / (levels[-1] - levels[0])
    return tuple(float(v) for v in knots), tuple(float(v) for v in levels)


def calibrate_shares(P: np.ndarray, target, *, iterations: int = 50) -> np.ndarray:
    """Row-stochastic ``P`` re-weighted per column (the same factor for every row) so
    that its column means approach ``target`` (iterative proportional fitting of one
    margin); columns with target 0 get probability 0."""
    P = np.clip(np.asarray(P, dtype=np.float64), 0, None)
    P = P / np.maximum(P.sum(axis=1, keepdims=True), 1e-300)
    target = np.asarray(target, dtype=np.float64)
    w = np.ones(P.shape[1])
    Q = P
    for _ in range(iterations):
        Q = P * w
        Q = Q / np.maximum(Q.sum(axis=1, keepdims=True), 1e-300)
        mean = Q.mean(axis=0)
        if np.allclose(mean, target, atol=1e-4):
            break
        w = w * np.where(mean > 0, target / np.maximum(mean, 1e-300), 0.0)
    return Q


class TableCodec(TransformerMixin, BaseEstimator):
    """Encode ``columns`` of a frame for the networks and decode generated rows.

    A scikit-learn transformer: ``clone`` and ``get_params`` work; ``fit(frame, columns)``
    learns the blocks, ``transform(frame)`` encodes, :meth:`inverse` decodes.

    Parameters
    ----------
    numeric : sequence of str
        Columns treated as quantities (one-hot point masses and quantile bins); a column
        in neither list is treated as numeric too.
    categorical : sequence of str
        Columns treated as categories (one-hot, softmax output).
    mass_share : float or None
        A numeric value holding at least this share of the training rows (and at least
        ``mass_rows`` rows) is a point mass; None: no point masses.
    mass_rows : int
        The fewest rows a point mass holds.
    max_masses : int
        At most this many point masses per column (the most frequent ones).
    bins : int or None
        Quantile bins of the values that are not point masses (a column with at most this
        many such distinct values keeps each as a point instead). None: the earlier
        encoding, one min-max column per numeric attribute.

    Attributes
    ----------
    blocks_ : tuple of Block
        Where each column lives in the matrix, in the order of ``columns_``.
    columns_ : tuple of str
        The encoded columns.
    width_ : int
        Columns of the matrix.
    medians_ : dict
        Each numeric column's median (what a missing value is encoded as).
    """

    def __init__(self, numeric=(), categorical=(), *, mass_share: float | None = 0.05,
                 mass_rows: int = 20, max_masses: int = 10, bins: int | None = 20) -> None:
        self.numeric = numeric
        self.categorical = categorical
        self.mass_share = mass_share
        self.mass_rows = mass_rows
        self.max_masses = max_masses
        self.bins = bins

    def _masses(self, vals: np.ndarray) -> tuple:
        if self.mass_share is None or vals.size == 0:
            return ()
        uniq, counts = np.unique(vals, return_counts=True)
        ok = (counts >= self.mass_share * vals.size) & (counts >= self.mass_rows)
        order = np.argsort(-counts[ok], kind="stable")[: self.max_masses]
        return tuple(sorted(float(v) for v in uniq[ok][order]))

    def _numeric_block(self, col: str, s: pd.Series, pos: int) -> Block:
        vals = pd.to_numeric(s, errors="coerce").to_numpy(dtype=float)
        finite = vals[np.isfinite(vals)]
        median = float(np.median(finite)) if finite.size else 0.0
        self.medians_[col] = median
        lo, hi = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
        integer = bool(pd.api.types.is_integer_dtype(s) or (
            finite.size > 0 and np.all(np.equal(np.mod(finite, 1), 0))))
        common = dict(low=lo, high=hi, dtype=s.dtype, integer=integer)
        if self.bins is None:
            return Block(col, "numeric", pos, 1, **common)
        filled = np.where(np.isfinite(vals), vals, median)
        masses = self._masses(filled)
        rest = filled[~np.isin(filled, masses)]
        others = np.unique(rest)
        if len(others) <= self.bins:  # few values: each one a point of its own
            masses, rest, bins = tuple(sorted(masses + tuple(float(v) for v in others))), rest[:0], 0
        else:
            bins = int(self.bins)
        knots, levels = _quantile_map(rest)
        codes = self._mode_codes(filled, masses, bins, knots, levels)
        shares = tuple(np.bincount(codes, minlength=len(masses) + bins) / max(len(codes), 1))
        return Block(col, "numeric", pos, len(masses) + bins, masses=masses, bins=bins,
                     knots=knots, levels=levels, shares=tuple(float(x) for x in shares), **common)

    @staticmethod
    def _mode_codes(vals: np.ndarray, masses: tuple, bins: int, knots: tuple, levels: tuple) -> np.ndarray:
        """The mode of each value: the index of its point mass, else len(masses) + its bin."""
        codes = np.full(len(vals), -1, dtype=np.int64)
        for i, m in enumerate(masses):
            codes[vals == m] = i
        left = codes < 0
        if bins and left.any():
            u = np.interp(vals[left], knots, levels) if len(knots) >= 2 else np.zeros(int(left.sum()))
            codes[left] = len(masses) + np.minimum((u * bins).astype(np.int64), bins - 1)
        elif left.any():  # a value unseen in training with no bins: the nearest point
            m = np.asarray(masses)
            codes[left] = np.abs(vals[left][:, None] - m[None, :]).argmin(axis=1)
        return codes

    def fit(self, frame: pd.DataFrame, columns=None) -> "TableCodec":
        """Learn the blocks of ``columns`` (default: every column of ``frame``)."""
        columns = list(frame.columns) if columns is None else list(columns)
        categorical = set(self.categorical)
        blocks = []
        pos = 0
        self.medians_ = {}
        for col in columns:
            s = frame[col]
            if col in categorical:
                values = s.astype(object).where(s.notna(), _MISSING)
                cats = tuple(sorted(values.unique(), key=lambda v: (v == _MISSING, str(v))))
                counts = values.value_counts()
                shares = tuple(float(counts.get(c, 0)) / max(len(values), 1) for c in cats)
                blocks.append(Block(col, "categorical", pos, len(cats), categories=cats, dtype=s.dtype,
                                    shares=shares))
            else:
                blocks.append(self._numeric_block(col, s, pos))
            pos += blocks[-1].width
        self.blocks_ = tuple(blocks)
        self.columns_ = tuple(columns)
        self.width_ = pos
        return self

    def block(self, name: str) -> Block:
        for b in self.blocks_:
            if b.name == name:
                return b
        raise KeyError(name)

    def indices(self, names) -> list[int]:
        """Matrix columns of the attributes ``names`` (every column of their blocks)."""
        out: list[int] = []
        for n in names:
            b = self.block(n)
            out.extend(range(b.start, b.stop))
        return out

    def transform(self, frame: pd.DataFrame) -> np.ndarray:
        X = np.zeros((len(frame), self.width_), dtype=np.float32)
        rows = np.arange(len(frame))
        for b in self.blocks_:
            s = frame[b.name]
            if b.kind == "categorical":
                values = s.astype(object).where(s.notna(), _MISSING)
                index = {c: i for i, c in enumerate(b.categories)}
                codes = values.map(index).fillna(-1).to_numpy(dtype=np.int64)
                ok = codes >= 0
                X[np.flatnonzero(ok), b.start + codes[ok]] = 1.0
                continue
            vals = pd.to_numeric(s, errors="coerce").to_numpy(dtype=float)
            vals = np.where(np.isfinite(vals), vals, self.medians_[b.name])
            if b.n_modes:
                codes = self._mode_codes(vals, b.masses, b.bins, b.knots, b.levels)
                X[rows, b.start + codes] = 1.0
            else:
                X[:, b.start] = b.to_unit(vals)
        return X

    @staticmethod
    def _draw(P: np.ndarray, rng, mode: str) -> np.ndarray:
        if mode == "sample":
            P = np.clip(P, 0, None)
            P = P / np.maximum(P.sum(axis=1, keepdims=True), 1e-300)
            u = rng.random(len(P))[:, None]
            codes = (P.cumsum(axis=1) < u).sum(axis=1)
            return np.minimum(codes, P.shape[1] - 1)
        return P.argmax(axis=1)

    def inverse(self, X: np.ndarray, *, rng: np.random.Generator | None = None,
                mode: str = "sample", calibrate: bool = False) -> pd.DataFrame:
        """Rows of generator output (softmax probabilities / [0, 1] values) back to a frame.

        ``mode="sample"`` draws each category and each numeric mode from its softmax
        (keeps rare categories) and a binned value uniformly inside its bin on the CDF
        scale; ``"argmax"`` takes the most likely mode and a bin's middle.
        ``calibrate=True`` first re-weights every softmax so that its mean over the rows
        matches the training shares (see :func:`calibrate_shares`).
        """
        if mode == "sample" and rng is None:
            rng = check_random_state(None)
        out = {}
        for b in self.blocks_:
            if b.n_modes:
                P = np.asarray(X[:, b.start:b.start + b.n_modes], dtype=np.float64)
                if calibrate and b.shares and len(P):
                    P = calibrate_shares(P, b.shares)
                codes = self._draw(P, rng, mode)
            if b.kind == "categorical":
                cats = np.empty(b.width, dtype=object)
                cats[:] = b.categories
                values = pd.Series(cats[codes]).replace({_MISSING: np.nan})
                try:
                    values = values.astype(b.dtype)
                except (TypeError, ValueError):
                    pass
                out[b.name] = values
                continue
            if b.n_modes:
                k = len(b.masses)
                j = np.maximum(codes - k, 0)
                inside = rng.random(len(codes)) if mode == "sample" else np.full(len(codes), 0.5)
                v = b.from_unit((j + inside) / max(b.bins, 1)) if b.bins else np.zeros(len(codes))
                if b.integer:
                    v = np.round(v)
                if k:
                    v = np.where(codes < k, np.asarray(b.masses)[np.minimum(codes, k - 1)], v)
            else:
                v = b.from_unit(np.asarray(X[:, b.start], dtype=np.float64))
                if b.integer:
                    v = np.round(v)
            series = pd.Series(v)
            try:
                series = series.astype(b.dtype)
            except (TypeError, ValueError):
                pass
            out[b.name] = series
        return pd.DataFrame(out, columns=list(self.columns_))
