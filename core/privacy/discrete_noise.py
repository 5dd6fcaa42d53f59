"""Exact discrete noise on the integers: Bernoulli(exp(-gamma)), discrete Laplace, discrete Gaussian.

The three samplers of Canonne, Kamath & Steinke (2020), drawn with integer arithmetic
only (why, and how a draw stays exact and fast: :mod:`core.privacy.sampler`):
:func:`bernoulli_exp` as the AND of per-digit Bernoullis, :func:`discrete_laplace` (any
positive rational scale) as a geometric magnitude split into independent base-2^b digits
with a fair sign, and
:func:`discrete_gaussian` as discrete Laplace proposals kept with an exact acceptance.
Every word comes from the one generator passed in (:func:`_words`).
"""
from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache
from typing import Any

import numpy as np

from core.privacy.exact_thresholds import _less_than, _spec_exp, _word, _words
from core.privacy.threshold_tables import (
    _WHOLE_MAX,
    _bern_table,
    _CountTable,
    _digit_table,
    _digits_for,
    _gauss_table,
    _geometric_table,
    _whole_table,
)
from core.runtime.randomness import RandomState, check_random_state

__all__ = ["bernoulli_exp", "discrete_gaussian", "discrete_laplace"]

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

#: The largest Laplace scale, in grid steps (its digit tables stay a few tens of entries).
_SCALE_MAX = 2**40


def _check_scale(scale: Any) -> Fraction:
    """``scale`` as an exact positive Fraction (an int or a Fraction; a float is refused)."""
    if isinstance(scale, bool) or not isinstance(scale, (int, np.integer, Fraction)):
        raise TypeError(
            f"scale must be an int or a Fraction of grid steps (exact), got {type(scale).__name__}; "
            "pass Fraction(x) to take a float at its exact binary value."
        )
    t = Fraction(scale) if not isinstance(scale, Fraction) else scale
    if t <= 0:
        raise ValueError(f"scale must be above 0 grid steps, got {t}.")
    if t > _SCALE_MAX:
        raise ValueError(f"scale must be at most 2^40 grid steps (got {t}); choose a coarser grid.")
    return t


@lru_cache(maxsize=24)
def _laplace_plan(p: int, q: int = 1) -> tuple[int, list[_CountTable], _CountTable]:
    """The digit tables of a geometric G with P(G = g) proportional to exp(-g q / p).

    That is the magnitude of the discrete Laplace of scale t = p / q (p, q coprime).
    G = sum_i D_i c^i + c^m V, digits D_i on {0..c-1} and V on {0, 1, ...}: since
    exp(-g q / p) factorises over the digits, they are independent, D_i geometric with
    ratio exp(-c^i q / p) truncated to {0..c-1}, and V geometric with ratio
    exp(-c^m q / p) < e^-1 (c^m > floor(t), so c^m > t). A scale below 1 needs no digit:
    G = V, with ratio exp(-q / p) < e^-1. For an integer t (q = 1) these are the tables of
    ratio exp(-c^i / t).
    """
    if p < q:
        return 0, [], _geometric_table(q, p)
    m, b = _digits_for((p // q).bit_length())
    c = 1 << b
    digits = [_digit_table(c**i * q, p, c) for i in range(m)]
    return b, digits, _geometric_table(c**m * q, p)


def _sign_bits(rng: np.random.Generator, n: int) -> np.ndarray:
    """n fair bits, 64 per word of the generator."""
    words = _words(rng, -(-n // 64))
    return np.unpackbits(words.view(np.uint8), count=n).view(bool)


def _geometric_t(p: int, q: int, n: int, rng: np.random.Generator) -> np.ndarray:
    """n exact draws of G, P(G = g) proportional to exp(-g q / p) on {0, 1, ...}."""
    b, digits, top = _laplace_plan(p, q)
    if not digits:
        return top.count(_words(rng, n), rng)
    g = digits[0].count(_words(rng, n), rng)
    for i, table in enumerate(digits[1:], start=1):
        g += table.count(_words(rng, n), rng) << (b * i)
    g += top.count(_words(rng, n), rng) << (b * len(digits))
    return g


def discrete_laplace(scale: int | Fraction, size: int, *,
                     random_state: RandomState = None) -> np.ndarray:
    """Exact discrete Laplace noise: P(y) = (e^(1/t) - 1) / (e^(1/t) + 1) e^(-|y| / t), y integer.

    The scale t is any positive rational (an int, or a Fraction such as steps / epsilon),
    below 1 included. |Y| is drawn as a geometric G with ratio exp(-1/t) = exp(-q/p) for
    t = p/q (its base-2^b digits are independent truncated geometrics, each drawn by
    inverse CDF against exactly computed 64-bit thresholds, see :class:`_CountTable`), a
    fair sign is attached and (negative, 0) is drawn again, so 0 is not counted twice.
    This is Canonne, Kamath & Steinke 2020, Algorithm 2, with its magnitude drawn in one
    piece: there X = U + p V has P(X = x) proportional to exp(-x / p), and
    Y = floor(X / q) then has P(Y = y) proportional to the sum over j < q of
    exp(-(y q + j) / p), that is to exp(-y q / p): the G drawn here (the algorithm as
    written is :func:`core.privacy.sampler_reference._discrete_laplace_reference`). Only
    uniform 64-bit integers and integer comparisons: no float draws. An integer scale
    draws exactly what it drew before rational scales existed (same seed, same values).

    Parameters
    ----------
    scale : int or Fraction
        t, in grid steps, above 0 and at most 2^40. Adding this noise to an integer query of
        sensitivity S steps is (S / t)-differentially private, exactly: t = S / epsilon needs
        no rounding. A float is refused (TypeError): pass ``Fraction(x)`` for its exact value.
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
    p, q = t.numerator, t.denominator
    n = _check_size(size)
    rng = _check_rng(random_state)
    out = _geometric_t(p, q, n, rng)
    neg = _sign_bits(rng, n)
    np.negative(out, out=out, where=neg)
    redo = np.flatnonzero(neg & (out == 0))
    while redo.size:
        g = _geometric_t(p, q, redo.size, rng)
        s = _sign_bits(rng, redo.size)
        out[redo] = np.where(s, -g, g)
        redo = redo[s & (g == 0)]
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

