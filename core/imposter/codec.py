"""Table <-> matrix for the synthesizer: one-hot blocks and min-max numerics, and back.

Categorical attributes become one block of one-hot columns (a missing value is its own
category and decodes back to missing); numeric attributes become one column scaled to
[0, 1] by the training minimum and maximum (missing values imputed with the median).
Decoding turns generator outputs (softmax blocks, sigmoid numerics) back into the
original columns with their original dtypes: integers are rounded, values stay inside
the range seen in training.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

__all__ = ["Block", "TableCodec"]

_MISSING = "__pux_missing__"


@dataclass(frozen=True)
class Block:
    """Where one attribute lives in the matrix."""

    name: str
    kind: str  # "numeric" or "categorical"
    start: int
    width: int
    categories: tuple = ()
    low: float = 0.0
    high: float = 1.0
    dtype: object = None
    integer: bool = False

    @property
    def stop(self) -> int:
        return self.start + self.width


class TableCodec:
    """Encode ``columns`` of a frame for the networks and decode generated rows.

    Parameters
    ----------
    numeric : sequence of str
        Columns treated as quantities (min-max scaled, sigmoid output).
    categorical : sequence of str
        Columns treated as categories (one-hot, softmax output).
    """

    def __init__(self, numeric, categorical) -> None:
        self.numeric = tuple(numeric)
        self.categorical = tuple(categorical)

    def fit(self, frame: pd.DataFrame, columns) -> "TableCodec":
        blocks = []
        pos = 0
        for col in columns:
            s = frame[col]
            if col in self.categorical:
                values = s.astype(object).where(s.notna(), _MISSING)
                cats = tuple(sorted(values.unique(), key=lambda v: (v == _MISSING, str(v))))
                blocks.append(Block(col, "categorical", pos, len(cats), categories=cats, dtype=s.dtype))
                pos += len(cats)
            else:
                vals = pd.to_numeric(s, errors="coerce").to_numpy(dtype=float)
                finite = vals[np.isfinite(vals)]
                lo, hi = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
                integer = pd.api.types.is_integer_dtype(s) or (
                    finite.size > 0 and np.all(np.equal(np.mod(finite, 1), 0))
                )
                blocks.append(Block(col, "numeric", pos, 1, low=lo, high=hi, dtype=s.dtype,
                                    integer=bool(integer)))
                pos += 1
        self.blocks_ = tuple(blocks)
        self.columns_ = tuple(columns)
        self.width_ = pos
        self.medians_ = {
            b.name: float(np.nanmedian(pd.to_numeric(frame[b.name], errors="coerce")))
            if frame[b.name].notna().any() else 0.0
            for b in blocks if b.kind == "numeric"
        }
        return self

    def block(self, name: str) -> Block:
        for b in self.blocks_:
            if b.name == name:
                return b
        raise KeyError(name)

    def indices(self, names) -> list[int]:
        """Matrix columns of the attributes ``names``."""
        out: list[int] = []
        for n in names:
            b = self.block(n)
            out.extend(range(b.start, b.stop))
        return out

    def transform(self, frame: pd.DataFrame) -> np.ndarray:
        X = np.zeros((len(frame), self.width_), dtype=np.float32)
        for b in self.blocks_:
            s = frame[b.name]
            if b.kind == "categorical":
                values = s.astype(object).where(s.notna(), _MISSING)
                index = {c: i for i, c in enumerate(b.categories)}
                codes = values.map(index).fillna(-1).to_numpy(dtype=np.int64)
                ok = codes >= 0
                X[np.flatnonzero(ok), b.start + codes[ok]] = 1.0
            else:
                vals = pd.to_numeric(s, errors="coerce").to_numpy(dtype=float)
                vals = np.where(np.isfinite(vals), vals, self.medians_[b.name])
                span = b.high - b.low
                X[:, b.start] = np.clip((vals - b.low) / span, 0, 1) if span > 0 else 0.0
        return X

    def inverse(self, X: np.ndarray, *, rng: np.random.Generator | None = None,
                mode: str = "sample") -> pd.DataFrame:
        """Rows of generator output (probabilities / [0, 1] values) back to a frame.

        ``mode="sample"`` draws each category from its softmax block (keeps rare
        categories); ``"argmax"`` takes the most likely one.
        """
        out = {}
        for b in self.blocks_:
            if b.kind == "categorical":
                P = np.asarray(X[:, b.start:b.stop], dtype=np.float64)
                if mode == "sample":
                    P = np.clip(P, 0, None)
                    P = P / P.sum(axis=1, keepdims=True)
                    u = rng.random(len(P))[:, None]
                    codes = (P.cumsum(axis=1) < u).sum(axis=1)
                    codes = np.minimum(codes, b.width - 1)
                else:
                    codes = P.argmax(axis=1)
                cats = np.empty(b.width, dtype=object)
                cats[:] = b.categories
                values = pd.Series(cats[codes]).replace({_MISSING: np.nan})
                try:
                    values = values.astype(b.dtype)
                except (TypeError, ValueError):
                    pass
                out[b.name] = values
            else:
                v = np.clip(np.asarray(X[:, b.start], dtype=np.float64), 0, 1)
                v = b.low + v * (b.high - b.low)
                if b.integer:
                    v = np.round(v)
                series = pd.Series(v)
                try:
                    series = series.astype(b.dtype)
                except (TypeError, ValueError):
                    pass
                out[b.name] = series
        return pd.DataFrame(out, columns=list(self.columns_))
