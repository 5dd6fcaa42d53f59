"""Reference samplers for the tests: Canonne, Kamath & Steinke's Algorithms 1-2 as written.

The K-loop Bernoulli(exp(-gamma)) and the discrete Laplace built on it are a different
exact construction from the table-driven samplers of :mod:`core.privacy.discrete_noise`;
the tests compare the two distributions. Slow, and used nowhere else.
"""
from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np

from core.privacy.discrete_noise import (
    _check_bern_args,
    _check_rng,
    _check_scale,
    _check_size,
)
from core.runtime.randomness import RandomState


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


def _discrete_laplace_reference(scale: int | Fraction, size: int, *,
                                random_state: RandomState = None) -> np.ndarray:
    """Reference for the tests: CKS Algorithm 2 as written, with the K-loop Bernoullis (exact, slower).

    For the scale t = p / q (an int, or a Fraction; numerator below 2^40): U uniform on
    {0..p-1} kept with probability exp(-U / p), V the number of Bernoulli(exp(-1)) successes
    before the first failure, X = U + p V, Y = floor(X / q), a fair sign, and (negative, 0)
    drawn again. An integer scale (q = 1) draws as it always has.
    """
    t = _check_scale(scale)
    p, q = t.numerator, t.denominator
    if p >= 2**40:
        raise ValueError(f"the reference takes scales whose numerator is below 2^40, got {t}.")
    n = _check_size(size)
    rng = _check_rng(random_state)
    out = np.empty(n, dtype=np.int64)
    todo = np.arange(n)
    while todo.size:
        m = todo.size
        u = rng.integers(0, p, size=m, dtype=np.int64)
        d = _bern_exp_unit(u, p, rng)
        idx = todo[d]
        x = u[d] + p * _geometric_e(idx.size, rng)
        y = x // q if q > 1 else x
        negative = rng.integers(0, 2, size=idx.size, dtype=np.int8).astype(bool)
        good = ~(negative & (y == 0))
        out[idx[good]] = np.where(negative[good], -y[good], y[good])
        done = np.zeros(m, dtype=bool)
        done[np.flatnonzero(d)[good]] = True
        todo = todo[~done]
    return out
