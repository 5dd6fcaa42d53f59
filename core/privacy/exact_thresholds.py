"""Exact thresholds: floor(S 2^64) of a probability S, and the comparison "is R < S?".

Every random decision of the exact sampler (:mod:`core.privacy.sampler`) is "is R < S?"
for a uniform real R read as 64-bit words and a probability S defined exactly (exp(-p/q),
or a ratio of such). This module holds the integer arithmetic behind it: interval bounds
on exp(-p/q) 2^bits (Taylor series, squaring), the cached exact floor of S 2^bits
(:func:`_exact_floor`), the scalar exact comparison that reads further words on a tie
(:func:`_less_than`), and the words themselves (:func:`_words`).
"""
from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

# Every random decision below is "is R < S?" for a uniform real R in [0, 1) and an exactly
# defined real S (exp(-p/q), or a ratio of such). R is drawn lazily as 64-bit words
# R = 0.w1 w2 w3 ... (base 2^64) from ``Generator.integers(0, 2**64, dtype=uint64)``; S is
# known through floor(S 2^(64 L)), computed exactly with Python integers (interval
# arithmetic, precision raised until the floor is certain; S is irrational, so this ends).
# w1 < floor(S 2^64) means yes, w1 > it means no, and only w1 == floor(S 2^64) (probability
# 2^-64) needs the next word: a scalar exact path (:func:`_less_than`).

_WORD_BITS = 64
_WORD_MAX = (1 << 64) - 1
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

