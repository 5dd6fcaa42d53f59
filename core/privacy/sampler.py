"""The project's one exact noise sampler: discrete Laplace and discrete Gaussian on a grid.

Why not ``numpy``'s ``rng.laplace`` or ``rng.normal``? A floating-point sampler does not
draw from the distribution its formula names: it computes ``scale * log(u)`` on a float
``u``, and the set of doubles it can return depends on the value the noise is added to.
Mironov (2012, "On significance of the least significant bits for differential privacy")
showed that for most outputs ``x + noise`` one of two neighbouring inputs is simply
impossible, so the privacy loss is unbounded however large the scale. Rounding the float
draw afterwards, or differencing ``rng.geometric`` (a float logarithm inside), keeps holes of
the same kind.

This module draws noise with integer arithmetic only (the distributions of Canonne, Kamath
& Steinke 2020, "The Discrete Gaussian for Differential Privacy"):

* :func:`bernoulli_exp` -- Bernoulli(exp(-gamma)) for a rational gamma;
* :func:`discrete_laplace` -- P(y) proportional to exp(-|y| / t) on the integers, for an
  integer scale t;
* :func:`discrete_gaussian` -- P(y) proportional to exp(-y^2 / (2 sigma^2)) on the integers,
  for a rational sigma^2 (CKS Algorithm 3: discrete Laplace proposals, exact acceptance).

How a draw stays exact and fast. Every random decision is "is R < S?" for a uniform real
R and a probability S defined exactly (exp(-p/q), or a ratio of such). R is read as 64-bit
words from ``Generator.integers(0, 2**64, dtype=uint64)``; floor(S 2^64) is computed once
with Python integers (interval arithmetic: Taylor series with rounding bounds, precision
raised until the floor is certain) and cached in a table. One vectorised compare decides
every value whose word differs from the threshold; a word equal to it (probability 2^-64)
is settled by the next word against the next 64 bits of S, and so on (a scalar path). The
geometric magnitude of the discrete Laplace is split into base-2^b digits, which are
independent truncated geometrics (exp(-g / t) factorises over them): each digit is one word
and an inverse-CDF lookup through a guide table on the word's top 16 bits. A Bernoulli with
exponent num / den is the AND of independent Bernoullis: exp(-w) for the whole part w, and
one per base-2^b digit of the remainder.

Every word comes from the one :class:`numpy.random.Generator` passed in: one seed gives the
same noise everywhere (the pages' pictures), a generator from fresh entropy gives noise
nobody can regenerate (releases). 10^6 discrete Laplace values cost about 2-3 times
``rng.laplace`` (``python -m benchmarks --only sampler``). ``_discrete_laplace_reference``
and ``_bernoulli_exp_reference`` keep CKS's Algorithms 1-2 (the K-loop, a different exact
construction) for the tests.

The mechanisms in :mod:`core.privacy.mechanisms` put values on a grid of spacing ``g`` (a power of
two, so ``k * g`` is an exact double) and add ``g`` times integer noise: outputs are exact
grid points, and the rounding of the true value is paid for in the sensitivity (see
:func:`grid_sensitivity`).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Any

import numpy as np

from core.runtime.randomness import RandomState, check_random_state

__all__ = [
    "GRID_STEPS",
    "GridNoise",
    "bernoulli_exp",
    "discrete_gaussian",
    "discrete_laplace",
    "grid_for",
    "grid_sensitivity",
    "laplace_on_grid",
    "gaussian_on_grid",
]

#: The sensitivity spans at least this many grid steps (the rounding then costs < 0.1 %).
GRID_STEPS = 1024
#: Integers stay below this in every product the samplers form (int64 with headroom).
_INT_LIMIT = 2**62


def _check_rng(random_state: RandomState) -> np.random.Generator:
    return check_random_state(random_state)


def _check_size(size: Any) -> int:
    if isinstance(size, bool) or not isinstance(size, (int, np.integer)):
        raise TypeError(f"size must be an int, got {type(size).__name__}.")
    if size < 0:
        raise ValueError(f"size must be 0 or more, got {size}.")
    return int(size)


# --------------------------------------------------------------------------- exact thresholds
#
# Every random decision below is "is R < S?" for a uniform real R in [0, 1) and an exactly
# defined real S (exp(-p/q), or a ratio of such). R is drawn lazily as 64-bit words
# R = 0.w1 w2 w3 ... (base 2^64) from ``Generator.integers(0, 2**64, dtype=uint64)``; S is
# known through floor(S 2^(64 L)), computed exactly with Python integers (interval
# arithmetic, precision raised until the floor is certain; S is irrational, so this ends).
# w1 < floor(S 2^64) means yes, w1 > it means no, and only w1 == floor(S 2^64) (probability
# 2^-64) needs the next word: a scalar exact path (:func:`_less_than`).

_WORD_BITS = 64
_WORD_MAX = (1 << 64) - 1
_GUIDE_BITS = 16  # guide tables index the top 16 bits of a word
_GUIDE_SHIFT = np.uint64(_WORD_BITS - _GUIDE_BITS)
_MAX_GUARD = 1 << 16


def _words(rng: np.random.Generator, n: int) -> np.ndarray:
    """n uniform 64-bit words from the generator (its exact full-range integers)."""
    return rng.integers(0, 1 << 64, size=n, dtype=np.uint64)


def _word(rng: np.random.Generator) -> int:
    return int(rng.integers(0, 1 << 64, dtype=np.uint64))


def _exp_pos_bounds(p: int, q: int, bits: int) -> tuple[int, int]:
    """Integers lo <= e^(p/q) 2^bits <= hi for p >= 0, q > 0 (Taylor series, then squaring).

    z = p / (q 2^s) <= 1/2; every term of the series is rounded down for lo and up for hi,
    the tail after a term h <= 1 is below h (the ratio of terms is below 1/2), and s
    squarings of positive bounds keep them bounds.
    """
    s = (p // q).bit_length() + 1
    work = bits + 2 * s + 16
    den = q << s
    lo_t = hi_t = lo = hi = 1 << work
    k = 1
    while True:
        lo_t = lo_t * p // (den * k)
        hi_t = -((-hi_t * p) // (den * k))
        lo += lo_t
        hi += hi_t
        if hi_t <= 1:
            hi += 1  # the tail
            break
        k += 1
    for _ in range(s):
        lo = (lo * lo) >> work
        hi = -((-hi * hi) >> work)
    shift = work - bits
    return lo >> shift, -((-hi) >> shift)


def _exp_neg_bounds(p: int, q: int, bits: int) -> tuple[int, int]:
    """Integers lo <= e^(-p/q) 2^bits <= hi (p >= 0, q > 0)."""
    if p == 0:
        return 1 << bits, 1 << bits
    if p > q * (bits + 1):  # e^(-p/q) < 2^-(bits + 1)
        return 0, 1
    work = bits + 8
    e_lo, e_hi = _exp_pos_bounds(p, q, work)
    top = 1 << (bits + work)
    return top // e_hi, -((-top) // e_lo)


def _bounds(spec: tuple, bits: int) -> tuple[int, int]:
    """Integer bounds on S 2^bits for an exactly defined probability S.

    ``("exp", p, q)``: S = exp(-p / q). ``("trunc", p, q, k, c)``: with r = exp(-p / q),
    S = (r^k - r^c) / (1 - r^c), the chance that a geometric digit on {0..c-1} with ratio
    r is at least k.
    """
    if spec[0] == "exp":
        return _exp_neg_bounds(spec[1], spec[2], bits)
    _, p, q, k, c = spec
    work = bits + 8
    a_lo, a_hi = _exp_neg_bounds(p * k, q, work)
    c_lo, c_hi = _exp_neg_bounds(p * c, q, work)
    one = 1 << work
    num_lo, num_hi = max(0, a_lo - c_hi), a_hi - c_lo
    den_lo, den_hi = one - c_hi, one - c_lo
    if den_lo <= 0:
        return 0, 1 << bits  # too coarse: the caller raises the precision
    top = 1 << bits
    return num_lo * top // den_hi, -((-num_hi * top) // den_lo)


@lru_cache(maxsize=65536)
def _exact_floor(spec: tuple, bits: int) -> int:
    """floor(S 2^bits), exactly."""
    guard = 32
    while guard <= _MAX_GUARD:
        lo, hi = _bounds(spec, bits + guard)
        if lo >> guard == hi >> guard:
            return lo >> guard
        guard *= 2
    raise ArithmeticError(f"could not settle floor(S 2^{bits}) for {spec}")  # pragma: no cover


def _less_than(spec: tuple, words: list[int], rng: np.random.Generator) -> bool:
    """Whether R < S exactly, R = 0.words[0] words[1] ... in base 2^64, drawing further
    words from ``rng`` (appended to ``words``, so later comparisons see the same R)."""
    level = 1
    while True:
        while len(words) < level:
            words.append(_word(rng))
        r = 0
        for w in words[:level]:
            r = (r << _WORD_BITS) | w
        f = _exact_floor(spec, _WORD_BITS * level)
        if r != f:
            return r < f
        level += 1


def _spec_exp(p: int, q: int) -> tuple:
    g = math.gcd(p, q) or 1
    return ("exp", p // g, q // g)


def _clip_word(value: int) -> int:
    return min(value, _WORD_MAX)


# --------------------------------------------------------------------------- threshold tables


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


def _settle(bounds_lo: int, bounds_hi: int, shift: int, spec: tuple) -> int:
    """floor(S 2^64) from bounds at 64 + shift bits, or exactly when they disagree."""
    lo, hi = bounds_lo >> shift, bounds_hi >> shift
    return lo if lo == hi else _exact_floor(spec, _WORD_BITS)


def _power_bounds(p: int, q: int, count: int, bits: int):
    """Bounds on exp(-k p / q) 2^bits for k = 0..count (one exp, then products)."""
    r_lo, r_hi = _exp_neg_bounds(p, q, bits)
    lo, hi = 1 << bits, 1 << bits
    yield lo, hi
    for _ in range(count):
        lo = (lo * r_lo) >> bits
        hi = -((-hi * r_hi) >> bits)
        yield lo, hi


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
# --------------------------------------------------------------------------- Bernoulli


def _check_bern_args(numerator: Any, denominator: Any) -> tuple[np.ndarray, int]:
    num = np.asarray(numerator)
    if num.dtype.kind not in "iu":
        raise TypeError("numerator must hold integers (exact arithmetic, no floats).")
    if isinstance(denominator, bool) or not isinstance(denominator, (int, np.integer)):
        raise TypeError(f"denominator must be an int, got {type(denominator).__name__}.")
    den = int(denominator)
    if den <= 0:
        raise ValueError(f"denominator must be positive, got {den}.")
    if den >= _INT_LIMIT:
        raise ValueError(f"denominator must be below 2^62, got {den}.")
    if num.size and int(num.min()) < 0:
        raise ValueError("numerator must be 0 or more (gamma >= 0).")
    if num.size and int(num.max()) >= _INT_LIMIT:
        raise ValueError("numerator must be below 2^62.")
    return num, den


def _bern_exp_fast(num: np.ndarray, den: int, rng: np.random.Generator) -> np.ndarray:
    """Bernoulli(exp(-num / den)) for a flat int64 array ``num`` >= 0 (exact).

    exp(-x) = exp(-w) * prod_i exp(-f_i c^i / den) with w = floor(x) and f_i the base-c
    digits of the remainder: one independent Bernoulli per factor, each a table lookup
    and a 64-bit compare, and the draw says yes when every factor does.
    """
    n = num.shape[0]
    whole, frac = np.divmod(num, den)
    out = np.ones(n, dtype=bool)
    if n == 0:
        return out
    if whole.any():
        w = np.minimum(whole, _WHOLE_MAX).astype(np.intp)
        out &= _whole_table().bernoulli(
            w, _words(rng, n), rng, spec_of_index=lambda i: _spec_exp(int(whole[i]), 1))
    m, b = _digits_for(den.bit_length())
    c = 1 << b
    mask = c - 1
    for i in range(m):
        d = ((frac >> (b * i)) & mask).astype(np.intp)
        out &= _bern_table(c**i, den, c).bernoulli(d, _words(rng, n), rng)
    return out


def _bern_exp_scaled(n: np.ndarray, p: int, q: int, rng: np.random.Generator) -> np.ndarray:
    """Bernoulli(exp(-n p / q)) for a flat int64 array ``n`` >= 0 and Python integers p, q.

    exp(-n p / q) = prod_i exp(-n_i c^i p / q) over the base-c digits n_i of n: one
    Bernoulli per digit, each a lookup in an exact table (p and q may be any size).
    """
    out = np.ones(n.shape[0], dtype=bool)
    top = int(n.max()) if n.size else 0
    if top == 0 or p == 0:
        return out
    m, b = _digits_for(top.bit_length())
    c = 1 << b
    mask = c - 1
    for i in range(m):
        d = ((n >> (b * i)) & mask).astype(np.intp)
        out &= _bern_table(c**i * p, q, c).bernoulli(d, _words(rng, n.shape[0]), rng)
    return out


def bernoulli_exp(
    numerator: Any, denominator: int, *, random_state: RandomState = None
) -> np.ndarray:
    """Exact Bernoulli(exp(-numerator / denominator)) draws, one per numerator.

    Each draw compares uniform 64-bit words from the generator with the binary expansion
    of exp(-gamma), computed exactly with Python integers; a word equal to the expansion's
    (probability 2^-64) is followed by the next word, so the probability is exactly
    exp(-gamma) (up to the generator's own uniformity).

    Parameters
    ----------
    numerator : array_like of int
        Non-negative integers below 2^62; gamma = numerator / denominator may exceed 1.
    denominator : int
        Positive integer below 2^62 shared by every draw.
    random_state : int, Generator or None
        Source of the uniform integers.

    Returns
    -------
    ndarray of bool
        True with probability exactly exp(-gamma).
    """
    num, den = _check_bern_args(numerator, denominator)
    rng = _check_rng(random_state)
    flat = num.astype(np.int64).ravel()
    return _bern_exp_fast(flat, den, rng).reshape(num.shape)


# --------------------------------------------------------------------------- discrete Laplace


def _check_scale(scale: Any) -> int:
    if isinstance(scale, bool) or not isinstance(scale, (int, np.integer)):
        raise TypeError(
            f"scale must be an int number of grid steps, got {type(scale).__name__}; "
            "round it up (a larger scale only adds privacy)."
        )
    t = int(scale)
    if t < 1:
        raise ValueError(f"scale must be at least 1 grid step, got {t}.")
    if t > 2**40:
        raise ValueError(f"scale must be at most 2^40 grid steps (got {t}); choose a coarser grid.")
    return t


@lru_cache(maxsize=24)
def _laplace_plan(t: int) -> tuple[int, list[_CountTable], _CountTable]:
    """The digit tables of a geometric G with P(G = g) proportional to exp(-g / t).

    G = sum_i D_i c^i + c^m V, digits D_i on {0..c-1} and V on {0, 1, ...}: since
    exp(-g / t) factorises over the digits, they are independent, D_i geometric with ratio
    exp(-c^i / t) truncated to {0..c-1}, and V geometric with ratio exp(-c^m / t) <= e^-1.
    """
    m, b = _digits_for(t.bit_length())
    c = 1 << b
    digits = [_digit_table(c**i, t, c) for i in range(m)]
    return b, digits, _geometric_table(c**m, t)


def _sign_bits(rng: np.random.Generator, n: int) -> np.ndarray:
    """n fair bits, 64 per word of the generator."""
    words = _words(rng, -(-n // 64))
    return np.unpackbits(words.view(np.uint8), count=n).view(bool)


def _geometric_t(t: int, n: int, rng: np.random.Generator) -> np.ndarray:
    """n exact draws of G, P(G = g) proportional to exp(-g / t) on {0, 1, ...}."""
    b, digits, top = _laplace_plan(t)
    g = digits[0].count(_words(rng, n), rng)
    for i, table in enumerate(digits[1:], start=1):
        g += table.count(_words(rng, n), rng) << (b * i)
    g += top.count(_words(rng, n), rng) << (b * len(digits))
    return g


def discrete_laplace(scale: int, size: int, *, random_state: RandomState = None) -> np.ndarray:
    """Exact discrete Laplace noise: P(y) = (e^(1/t) - 1) / (e^(1/t) + 1) e^(-|y| / t), y integer.

    |Y| is drawn as a geometric G with ratio exp(-1/t) (its base-2^b digits are independent
    truncated geometrics, each drawn by inverse CDF against exactly computed 64-bit
    thresholds, see :class:`_CountTable`), a fair sign is attached and (negative, 0) is
    drawn again, so 0 is not counted twice (as in Canonne, Kamath & Steinke 2020,
    Algorithm 2). Only uniform 64-bit integers and integer comparisons: no float draws.

    Parameters
    ----------
    scale : int
        t, in grid steps. Adding this noise to an integer query of sensitivity S steps is
        (S / t)-differentially private.
    size : int
        Number of independent values.
    random_state : int, Generator or None
        Source of the uniform integers (seeded for what a page shows, fresh entropy for a
        release).

    Returns
    -------
    ndarray of int64
    """
    t = _check_scale(scale)
    n = _check_size(size)
    rng = _check_rng(random_state)
    out = _geometric_t(t, n, rng)
    neg = _sign_bits(rng, n)
    np.negative(out, out=out, where=neg)
    redo = np.flatnonzero(neg & (out == 0))
    while redo.size:
        g = _geometric_t(t, redo.size, rng)
        s = _sign_bits(rng, redo.size)
        out[redo] = np.where(s, -g, g)
        redo = redo[s & (g == 0)]
    return out


# --------------------------------------------------------------------------- references


def _bern_exp_unit(num: np.ndarray, den: int, rng: np.random.Generator) -> np.ndarray:
    """Reference: Bernoulli(exp(-num / den)) for 0 <= num <= den (CKS Algorithm 1, gamma <= 1).

    K = 1, 2, ...: draw A ~ Bernoulli(gamma / K) as ``integers(0, den K) < num``; stop at
    the first A = 0 and return whether K is odd.
    """
    n = num.shape[0]
    out = np.empty(n, dtype=bool)
    todo = np.arange(n)
    k = 1
    while todo.size:
        a = rng.integers(0, den * k, size=todo.size, dtype=np.int64) < num[todo]
        stop = ~a
        out[todo[stop]] = (k % 2) == 1
        todo = todo[a]
        k += 1
    return out


def _bern_exp_one(n: int, rng: np.random.Generator) -> np.ndarray:
    """Reference: n draws of Bernoulli(exp(-1)) (Algorithm 1 with gamma = 1)."""
    out = np.empty(n, dtype=bool)
    todo = np.arange(n)
    k = 2
    while todo.size:
        a = rng.integers(0, k, size=todo.size, dtype=np.int64) == 0  # Bernoulli(1 / k)
        out[todo[~a]] = (k % 2) == 1
        todo = todo[a]
        k += 1
    return out


def _bernoulli_exp_reference(numerator: Any, denominator: int, *,
                             random_state: RandomState = None) -> np.ndarray:
    """Reference for the tests: CKS Algorithm 1 (a different exact construction)."""
    num, den = _check_bern_args(numerator, denominator)
    rng = _check_rng(random_state)
    flat = num.astype(np.int64).ravel()
    whole, frac = np.divmod(flat, den)
    out = _bern_exp_unit(frac, den, rng)
    todo = np.flatnonzero(out & (whole > 0))
    left = whole[todo]
    while todo.size:
        ok = _bern_exp_one(todo.size, rng)
        out[todo[~ok]] = False
        left = left[ok] - 1
        todo = todo[ok]
        keep = left > 0
        todo, left = todo[keep], left[keep]
    return out.reshape(num.shape)


def _geometric_e(n: int, rng: np.random.Generator) -> np.ndarray:
    """Reference: number of Bernoulli(exp(-1)) successes before the first failure."""
    v = np.zeros(n, dtype=np.int64)
    todo = np.arange(n)
    while todo.size:
        ok = _bern_exp_one(todo.size, rng)
        todo = todo[ok]
        v[todo] += 1
    return v


def _discrete_laplace_reference(scale: int, size: int, *,
                                random_state: RandomState = None) -> np.ndarray:
    """Reference for the tests: CKS Algorithm 2 with the K-loop Bernoullis (exact, slower)."""
    t = _check_scale(scale)
    n = _check_size(size)
    rng = _check_rng(random_state)
    out = np.empty(n, dtype=np.int64)
    todo = np.arange(n)
    while todo.size:
        m = todo.size
        u = rng.integers(0, t, size=m, dtype=np.int64)
        d = _bern_exp_unit(u, t, rng)
        idx = todo[d]
        x = u[d] + t * _geometric_e(idx.size, rng)
        negative = rng.integers(0, 2, size=idx.size, dtype=np.int8).astype(bool)
        good = ~(negative & (x == 0))
        out[idx[good]] = np.where(negative[good], -x[good], x[good])
        done = np.zeros(m, dtype=bool)
        done[np.flatnonzero(d)[good]] = True
        todo = todo[~done]
    return out


# --------------------------------------------------------------------------- discrete Gaussian


def _as_fraction(value: Any, name: str) -> Fraction:
    if isinstance(value, bool):
        raise TypeError(f"{name} must be a number, got bool.")
    if isinstance(value, Fraction):
        frac = value
    elif isinstance(value, (int, np.integer)):
        frac = Fraction(int(value))
    elif isinstance(value, (float, np.floating)):
        if not math.isfinite(value):
            raise ValueError(f"{name} must be finite, got {value}.")
        frac = Fraction(float(value))
    else:
        raise TypeError(f"{name} must be an int, float or Fraction, got {type(value).__name__}.")
    if frac <= 0:
        raise ValueError(f"{name} must be positive, got {value}.")
    return frac


#: Up to this Laplace scale the Gaussian acceptance uses a table of thresholds over |Y|.
_GAUSS_TABLE_T = 4096
#: The table covers |Y| < _GAUSS_TABLE_SPAN * t (beyond: exact per value, rare).
_GAUSS_TABLE_SPAN = 12


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


def _gauss_keep(ay: np.ndarray, a: int, b: int, t: int,
                rng: np.random.Generator) -> np.ndarray:
    """Bernoulli(exp(-(|y| t b - a)^2 / (2 a b t^2))) for each |y| in ``ay`` (exact)."""
    den = 2 * a * b * t * t
    n = ay.shape[0]

    def spec(i: int) -> tuple:
        return _spec_exp((int(ay[i]) * t * b - a) ** 2, den)

    if t <= _GAUSS_TABLE_T:
        table = _gauss_table(a, b, t)
        last = table.t.shape[0] - 1
        r = _words(rng, n)
        keep = table.bernoulli(np.minimum(ay, last).astype(np.intp), r, rng, spec_of_index=spec)
        for i in np.flatnonzero(ay > last):
            keep[i] = _less_than(spec(i), [int(r[i])], rng)
        return keep
    return _gauss_keep_split(ay, a, b, t, rng)


def _gauss_keep_split(ay: np.ndarray, a: int, b: int, t: int,
                      rng: np.random.Generator) -> np.ndarray:
    """The acceptance of :func:`_gauss_keep` for any t, without a table over |y|.

    With mu = sigma^2 / t and m0 = ceil(mu): for |y| >= m0, |y| - mu = u + e with the
    integer u = |y| - m0 and e = m0 - mu in [0, 1); below, mu - |y| = u + e with
    u = m0 - 1 - |y| and e = 1 - (m0 - mu) in (0, 1]. Then (u + e)^2 / (2 sigma^2) =
    u^2 / (2 sigma^2) + e (2u + e) / (2 sigma^2), two non-negative exponents of the form
    n p / q with an integer n: the AND of two :func:`_bern_exp_scaled` draws.
    """
    den = 2 * a * b * t * t
    bt = b * t
    m0 = -(-a // bt)
    e_right = m0 * bt - a  # e = e_num / (b t)
    ay = ay.astype(np.int64)
    right = ay >= m0
    u = np.where(right, ay - m0, m0 - 1 - ay)
    keep = np.ones(ay.shape[0], dtype=bool)
    cap = min(1 << 30, (1 << 61) // (bt + 1))  # keeps u^2 and 2 b t u in int64
    big = np.flatnonzero(u >= cap)  # exact per value (rare below sigma ~ 2^26 steps)
    u_c = np.minimum(u, cap - 1)
    keep &= _bern_exp_scaled(u_c * u_c, b, 2 * a, rng)
    for side, e_num in ((right, e_right), (~right, bt - e_right)):
        idx = np.flatnonzero(side)
        if idx.size and e_num:
            keep[idx] &= _bern_exp_scaled(2 * bt * u_c[idx] + e_num, e_num, den, rng)
    for i in big:
        keep[i] = _less_than(_spec_exp((int(ay[i]) * bt - a) ** 2, den), [_word(rng)], rng)
    return keep


def discrete_gaussian(sigma2: Any, size: int, *, random_state: RandomState = None) -> np.ndarray:
    """Exact discrete Gaussian noise: P(y) proportional to exp(-y^2 / (2 sigma^2)), y integer.

    Canonne, Kamath & Steinke (2020), Algorithm 3: Y from the discrete Laplace of scale
    t = floor(sigma) + 1, kept with probability exp(-(|Y| - sigma^2 / t)^2 / (2 sigma^2)),
    decided exactly against that probability's binary expansion (a table of thresholds over
    |Y| for t <= 4096; beyond, the exponent is split into two products of an integer and
    a fixed rational, each drawn over its base-2^b digits). Values are vectorised up to
    sigma of about 2^26 steps; beyond that (or for |Y| that far out) each value is decided
    by the scalar exact path.

    Parameters
    ----------
    sigma2 : int, Fraction or float
        sigma^2 in grid steps squared (a float is taken at its exact binary value).
    size : int
        Number of independent values.
    random_state : int, Generator or None
        Source of the uniform integers.

    Returns
    -------
    ndarray of int64
    """
    s2 = _as_fraction(sigma2, "sigma2")
    n = _check_size(size)
    rng = _check_rng(random_state)
    a, b = s2.numerator, s2.denominator
    t = math.isqrt(a // b) + 1  # floor(sigma) + 1
    while (t - 1) ** 2 * b > a:  # isqrt of the floor can overshoot by one for non-integers
        t -= 1
    _check_scale(t)
    out = np.empty(n, dtype=np.int64)
    filled = 0
    while filled < n:
        # a third more candidates than values missing (acceptance is about 3/4): usually
        # one round; the first accepted candidates, in order, are i.i.d. discrete Gaussian
        m = n - filled
        y = discrete_laplace(t, m + m // 3 + 32, random_state=rng)
        kept = y[_gauss_keep(np.abs(y), a, b, t, rng)][:m]
        out[filled:filled + kept.size] = kept
        filled += kept.size
    return out


# --------------------------------------------------------------------------- grids


def grid_for(sensitivity: float, *, coordinates: int = 1) -> float:
    """The grid spacing for a query: the largest power of two g with
    ``sensitivity / g >= GRID_STEPS * coordinates``.

    A power of two makes every grid point ``k g`` an exact double, so the output is exactly
    on the declared grid; ``coordinates`` is how many coordinates one replaced record can
    move (each one's rounding can add one step, see :func:`grid_sensitivity`).
    """
    if not (isinstance(sensitivity, (int, float, np.floating, np.integer))
            and math.isfinite(sensitivity) and sensitivity > 0):
        raise ValueError(f"sensitivity must be a finite number above 0, got {sensitivity!r}.")
    exponent = math.floor(math.log2(float(sensitivity) / (GRID_STEPS * max(1, coordinates))))
    g = math.ldexp(1.0, exponent)
    while float(sensitivity) / g < GRID_STEPS * max(1, coordinates):  # log2 rounding
        g /= 2.0
    return g


def grid_sensitivity(sensitivity: float, grid: float, *, coordinates: int = 1,
                     on_grid: bool = False) -> int:
    """The query's sensitivity in grid steps after rounding to the grid.

    Rounding ``round(x / g)`` is monotone and commutes with integer shifts, so a scalar
    that moves by at most ``sensitivity`` moves by at most ``ceil(sensitivity / g)`` steps.
    A vector rounded coordinate by coordinate can gain one more step in each coordinate
    that moves: ``ceil(sensitivity / g) + coordinates - 1`` at most... bounded here by
    ``ceil(sensitivity / g) + coordinates`` (one spare step), unless ``on_grid``: values
    already on the grid (counts on the grid 1) are not rounded and gain nothing.
    """
    steps = math.ceil(Fraction(float(sensitivity)) / Fraction(float(grid)))
    if on_grid or coordinates <= 1:
        return max(1, steps)
    return steps + coordinates


@dataclass(frozen=True)
class GridNoise:
    """What one noise draw was: the sampler, its grid and its scale, for the ledger.

    Attributes
    ----------
    kind : {"discrete Laplace", "discrete Gaussian"}
    grid : float
        Spacing of the output grid (a power of two, or 1 for counts).
    scale : float
        The Laplace scale t or the Gaussian sigma, in grid steps.
    steps : int
        The query's sensitivity in grid steps, rounding included.
    epsilon : float
        The epsilon this noise delivers at that sensitivity (never above the one asked for:
        scales are rounded up).
    """

    kind: str
    grid: float
    scale: float
    steps: int
    epsilon: float

    def describe(self) -> str:
        """One sentence for a ledger entry: sampler, grid, scale."""
        what = "scale" if self.kind == "discrete Laplace" else "sigma"
        return (f"exact {self.kind} noise (integer arithmetic, no floating-point draws) on the "
                f"grid {self.grid:.6g}, {what} {self.scale:.6g} grid steps for a sensitivity "
                f"of {self.steps} steps")


def _round_to_grid(values: np.ndarray, grid: float, on_grid: bool) -> np.ndarray:
    scaled = values / grid
    units = np.floor(scaled + 0.5)
    if on_grid and not np.array_equal(units, scaled):
        raise ValueError("on_grid=True, but some values are not multiples of the grid.")
    if units.size and np.max(np.abs(units)) > 2**52:
        raise ValueError("the values are too large for this grid (more than 2^52 steps); "
                         "choose a coarser grid.")
    return units.astype(np.int64)


def laplace_on_grid(values: Any, *, sensitivity: float, epsilon: float, grid: float | None = None,
                    on_grid: bool = False, coordinates: int | None = None,
                    random_state: RandomState = None) -> tuple[np.ndarray, GridNoise]:
    """``values`` rounded to the grid plus exact discrete Laplace noise: epsilon-DP.

    Parameters
    ----------
    values : ndarray of float
        The exact answers (finite).
    sensitivity : float
        L1 sensitivity of the whole vector under the project's relation.
    epsilon : float
        The budget this release spends.
    grid : float or None
        Output spacing; None picks :func:`grid_for`. Give 1.0 with ``on_grid=True`` for
        integer counts.
    on_grid : bool
        The values are already grid multiples (declared, checked): no rounding slack.
    coordinates : int or None
        How many coordinates one replaced record can move; None means all of them.
    random_state : int, Generator or None

    Returns
    -------
    noisy : ndarray of float, exact multiples of the grid
    noise : GridNoise, for the ledger
    """
    arr = np.asarray(values, dtype=float)
    coords = arr.size if coordinates is None else int(coordinates)
    g = grid_for(sensitivity, coordinates=1 if on_grid else coords) if grid is None else float(grid)
    steps = grid_sensitivity(sensitivity, g, coordinates=coords, on_grid=on_grid)
    t = math.ceil(Fraction(steps) / Fraction(float(epsilon)))
    units = _round_to_grid(arr.ravel(), g, on_grid)
    noise = discrete_laplace(t, units.size, random_state=random_state)
    noisy = ((units + noise).astype(float) * g).reshape(arr.shape)
    return noisy, GridNoise("discrete Laplace", g, float(t), steps, steps / t)


def gaussian_on_grid(values: Any, *, sigma: float, l2_sensitivity: float, grid: float | None = None,
                     coordinates: int | None = None,
                     random_state: RandomState = None) -> tuple[np.ndarray, GridNoise]:
    """``values`` rounded to the grid plus exact discrete Gaussian noise of at least ``sigma``.

    Rounding each coordinate to the grid moves it by at most g / 2, so two neighbouring
    answers at L2 distance ``l2_sensitivity`` end at most ``l2_sensitivity + sqrt(k) g``
    apart, k the number of coordinates one replaced record can move (``coordinates``,
    default all). sigma is enlarged by that ratio, so the caller's calibration of sigma to
    ``l2_sensitivity`` still holds. The grid is a power of two with at least 1,024 steps per
    sigma and per ``l2_sensitivity / sqrt(k)`` (the enlargement is then under 0.1 %), and
    sigma^2 in steps is rounded up to an integer. The discrete Gaussian with sigma of a
    thousand steps or more has the privacy curve of the continuous one for integer shifts,
    up to terms far below 1e-100 (Canonne, Kamath & Steinke 2020, section 4).

    Returns
    -------
    noisy : ndarray of float on the grid
    noise : GridNoise (``scale`` = sigma in steps; ``epsilon`` = nan: the caller's (eps, delta))
    """
    arr = np.asarray(values, dtype=float)
    if not (math.isfinite(sigma) and sigma > 0):
        raise ValueError(f"sigma must be a finite number above 0, got {sigma!r}.")
    if not (math.isfinite(l2_sensitivity) and l2_sensitivity > 0):
        raise ValueError(f"l2_sensitivity must be a finite number above 0, got {l2_sensitivity!r}.")
    k = max(1, arr.size if coordinates is None else int(coordinates))
    g = grid_for(min(sigma, l2_sensitivity / math.sqrt(k))) if grid is None else float(grid)
    inflate = (float(l2_sensitivity) + math.sqrt(k) * g) / float(l2_sensitivity)
    sigma_steps = sigma * inflate / g
    sigma2 = Fraction(math.ceil(sigma_steps * sigma_steps * (1 + 1e-12)))  # rounded up
    units = _round_to_grid(arr.ravel(), g, False)
    noise = discrete_gaussian(sigma2, units.size, random_state=random_state)
    noisy = ((units + noise).astype(float) * g).reshape(arr.shape)
    steps = math.ceil(Fraction(float(l2_sensitivity)) / Fraction(g))
    return noisy, GridNoise("discrete Gaussian", g, math.sqrt(sigma2), steps, float("nan"))
