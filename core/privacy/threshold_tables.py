"""Threshold tables of the exact sampler: 64-bit floors of many probabilities at once.

A vectorised draw compares one word per value with a table of exact thresholds
(:mod:`core.privacy.exact_thresholds`): :class:`_CountTable` counts how many descending
thresholds a word is below (an inverse CDF through a guide table on the word's top 16
bits), :class:`_LookupTable` draws Bernoulli(S(d)) for many indices d. The lru_cache'd
builders make the tables of the discrete Laplace digits (:func:`_digit_table`,
:func:`_geometric_table`), of the Bernoulli factors (:func:`_bern_table`,
:func:`_whole_table`) and of the discrete Gaussian acceptance (:func:`_gauss_table`).
"""
from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from core.privacy.exact_thresholds import (
    _WORD_BITS, _WORD_MAX, _clip_word, _exact_floor, _exp_neg_bounds, _exp_pos_bounds,
    _less_than, _power_bounds, _settle, _spec_exp,
)

_GUIDE_BITS = 16  # guide tables index the top 16 bits of a word
_GUIDE_SHIFT = np.uint64(_WORD_BITS - _GUIDE_BITS)
#: The Gaussian table covers |Y| < _GAUSS_TABLE_SPAN * t (beyond: exact per value, rare).
_GAUSS_TABLE_SPAN = 12



class _CountTable:
    """Descending probabilities S(1) > S(2) > ... and their 64-bit floors T_k, to draw
    ``count(R) = #{k : R < S(k)}`` for many uniform R at once.

    For a digit D with P(D >= k) = S(k) this count is D (inverse CDF). A guide table on the
    top 16 bits of R gives the count with two lookups and one compare; buckets holding
    several thresholds, and ties R == T_k, go to slower exact paths.
    """

    def __init__(self, floors: list[int], spec_of, infinite: bool):
        self.k = len(floors)
        self.spec_of = spec_of  # k -> spec of S(k)
        self.infinite = infinite  # S(k) > 0 for every k > K as well (their floors are 0)
        desc = np.array(floors, dtype=np.uint64)
        self.asc = desc[::-1].copy()
        buckets = (self.asc >> _GUIDE_SHIFT).astype(np.intp)
        counts = np.bincount(buckets, minlength=1 << _GUIDE_BITS)
        pos_lo = np.concatenate(([0], np.cumsum(counts)[:-1]))
        guide_val = (self.k - pos_lo).astype(np.int64)
        multi = counts >= 2
        if infinite:
            multi[0] = True  # R < 2^48 may be R == 0, a tie with every floor 0 beyond K
        guide_val[multi] = -1
        self.has_multi = bool(multi.any())
        first = np.full(1 << _GUIDE_BITS, _WORD_MAX, dtype=np.uint64)
        single = counts >= 1
        if self.k:
            first[single] = self.asc[np.minimum(pos_lo[single], self.k - 1)]
        self.guide_val = guide_val
        self.first = first

    def count(self, r: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """count(R) for the words ``r`` (the first word of each R); exact."""
        j = (r >> _GUIDE_SHIFT).view(np.intp)  # below 2^16: the same bits
        f = self.first.take(j)
        out = self.guide_val.take(j)
        out -= f <= r
        slow = np.flatnonzero(f == r)
        if self.has_multi:
            multi = np.flatnonzero(out < 0)
            if multi.size:
                rs = r[multi]
                pos = np.searchsorted(self.asc, rs, side="right")
                out[multi] = self.k - pos
                tie = (pos > 0) & (self.asc[np.maximum(pos - 1, 0)] == rs)
                if self.infinite:
                    tie |= rs == 0
                slow = np.union1d(slow, multi[tie])
        for i in slow:
            out[i] = self._count_exact(int(r[i]), rng)
        return out

    def _count_exact(self, w1: int, rng: np.random.Generator) -> int:
        """count(R) for one R whose first word ties a threshold: later words settle it."""
        words = [w1]
        key = np.uint64(w1)
        count = self.k - int(np.searchsorted(self.asc, key, side="right"))  # T_k > w1
        last = self.k - int(np.searchsorted(self.asc, key, side="left"))  # T_k >= w1
        endless = self.infinite and w1 == 0
        k = count + 1
        while k <= last or endless:
            if not _less_than(self.spec_of(k), words, rng):
                break
            count += 1
            k += 1
        return count


class _LookupTable:
    """64-bit floors T[d] of probabilities S(d), to draw Bernoulli(S(d)) for many d at once."""

    def __init__(self, floors: list[int], spec_of):
        self.t = np.array([_clip_word(f) for f in floors], dtype=np.uint64)
        self.spec_of = spec_of

    def bernoulli(self, d: np.ndarray, r: np.ndarray, rng: np.random.Generator,
                  spec_of_index=None) -> np.ndarray:
        """R < S(d) for words ``r``; ties R == T[d] are settled exactly."""
        t = self.t.take(d)
        out = r < t
        for i in np.flatnonzero(r == t):
            spec = spec_of_index(i) if spec_of_index is not None else self.spec_of(int(d[i]))
            out[i] = _less_than(spec, [int(r[i])], rng)
        return out


@lru_cache(maxsize=48)  # a count table holds 1 MB of guide arrays
def _digit_table(p: int, q: int, c: int) -> _CountTable:
    """P(D >= k) for D on {0..c-1} with P(D = d) proportional to exp(-d p / q)."""
    g = math.gcd(p, q)
    p, q = p // g, q // g
    bits = 2 * _WORD_BITS + c.bit_length() + 8
    shift = bits - _WORD_BITS
    pw = list(_power_bounds(p, q, c, bits))
    c_lo, c_hi = pw[c]
    one = 1 << bits
    den_lo, den_hi = one - c_hi, one - c_lo
    floors = []
    for k in range(1, c):
        a_lo, a_hi = pw[k]
        s_lo = max(0, a_lo - c_hi) * one // den_hi
        s_hi = -((-(a_hi - c_lo) * one) // den_lo)
        floors.append(_settle(s_lo, s_hi, shift, ("trunc", p, q, k, c)))
    return _CountTable(floors, lambda k, p=p, q=q, c=c: ("trunc", p, q, k, c), infinite=False)


@lru_cache(maxsize=48)
def _geometric_table(p: int, q: int) -> _CountTable:
    """P(V >= k) = exp(-k p / q) for a geometric V on {0, 1, ...} (p / q >= 1/64)."""
    g = math.gcd(p, q)
    p, q = p // g, q // g
    bits = 2 * _WORD_BITS + 24
    shift = bits - _WORD_BITS
    floors = []
    k = 0
    for lo, hi in _power_bounds(p, q, 1 << 20, bits):
        if k:
            f = _settle(lo, hi, shift, ("exp", k * p, q))
            if f == 0:
                break
            floors.append(f)
        k += 1
    return _CountTable(floors, lambda k, p=p, q=q: ("exp", k * p, q), infinite=True)


@lru_cache(maxsize=256)
def _bern_table(p: int, q: int, c: int) -> _LookupTable:
    """T[d] = floor(exp(-d p / q) 2^64) for d = 0..c-1 (T[0] clipped to 2^64 - 1)."""
    bits = 2 * _WORD_BITS + c.bit_length() + 8
    shift = bits - _WORD_BITS
    floors = []
    for d, (lo, hi) in enumerate(_power_bounds(p, q, c - 1, bits)):
        floors.append(_settle(lo, hi, shift, _spec_exp(d * p, q)))
    return _LookupTable(floors, lambda d, p=p, q=q: _spec_exp(d * p, q))


#: exp(-w) for w = 0..45 (floor(e^-45 2^64) = 0: larger w are settled exactly on R == 0).
_WHOLE_MAX = 45


@lru_cache(maxsize=1)
def _whole_table() -> _LookupTable:
    floors = [_exact_floor(_spec_exp(w, 1), _WORD_BITS) for w in range(_WHOLE_MAX + 1)]
    return _LookupTable(floors, lambda w: _spec_exp(w, 1))


def _digits_for(bit_count: int, max_bits: int = 12) -> tuple[int, int]:
    """(m, b): m digits of b bits, m b >= bit_count, b <= max_bits."""
    m = max(1, -(-bit_count // max_bits))
    return m, max(1, -(-bit_count // m))


@lru_cache(maxsize=64)
def _gauss_table(a: int, b: int, t: int) -> _LookupTable:
    """T[y] = floor(exp(-(y t b - a)^2 / (2 a b t^2)) 2^64) for y = 0.._GAUSS_TABLE_SPAN t.

    The exponent grows by a linear step in y, so each entry is the previous one times a
    ratio that is itself multiplied by a constant: two exponentials, then products of
    integer bounds; an entry whose bounds straddle an integer is computed on its own.
    """
    den = 2 * a * b * t * t
    size = _GAUSS_TABLE_SPAN * t + 1
    bits = 2 * _WORD_BITS + size.bit_length() + 16
    shift = bits - _WORD_BITS
    one = 1 << bits
    # A_0 = exp(-a^2 / den); ratio_y = A_{y+1} / A_y = exp((2abt - t^2 b^2) / den) h^y,
    # h = exp(-2 t^2 b^2 / den)
    a_lo, a_hi = _exp_neg_bounds(a * a, den, bits)
    step = 2 * a * b * t - t * t * b * b
    if step >= 0:
        g_lo, g_hi = _exp_pos_bounds(step, den, bits)
    else:
        g_lo, g_hi = _exp_neg_bounds(-step, den, bits)
    h_lo, h_hi = _exp_neg_bounds(2 * t * t * b * b, den, bits)
    floors = []
    for y in range(size):
        floors.append(_settle(a_lo, a_hi, shift, _spec_exp((y * t * b - a) ** 2, den)))
        a_lo = (a_lo * g_lo) >> bits
        a_hi = -((-a_hi * g_hi) >> bits)
        a_hi = min(a_hi, one)
        g_lo = (g_lo * h_lo) >> bits
        g_hi = -((-g_hi * h_hi) >> bits)
    return _LookupTable(
        floors, lambda y, a=a, b=b, t=t, den=den: _spec_exp((y * t * b - a) ** 2, den))
