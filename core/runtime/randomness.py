"""Randomness, in one place: a ``random_state`` becomes a generator here and nowhere else.

Every function that draws takes ``random_state`` (an int, a ``numpy.random.Generator`` or
None) and turns it into one generator with :func:`check_random_state`, then threads that
generator through its steps; a step or library that takes an int seed gets a child seed
from :func:`draw_seed` / :func:`draw_seeds`. A picture on a page gets a generator from
:func:`display_rng`: the sidebar seed mixed with what the picture depends on.

These generators serve evaluation, splits and the display of seeded pictures. Noise behind
a result that claims differential privacy is drawn by :mod:`core.privacy.sampler` (exact,
floating-point safe), fed from a :class:`core.privacy.noise_source.NoiseSource`.
"""
from __future__ import annotations

import hashlib
import numbers
from typing import Any

import numpy as np

__all__ = ["RandomState", "SEED_HIGH", "check_random_state", "display_rng", "display_seed", "draw_seed",
           "draw_seeds", "rng_from_keys", "spawn_seed"]

#: what every ``random_state`` parameter accepts
RandomState = int | np.random.Generator | None


def check_random_state(random_state: RandomState) -> np.random.Generator:
    """Turn ``random_state`` into one ``numpy.random.Generator``.

    Parameters
    ----------
    random_state : int, numpy.random.Generator or None
        An int seeds a new PCG64 generator (same seed, same draws, bit for bit on one
        machine); a Generator is used as it is (so callers can thread one generator through
        several steps); None draws fresh OS entropy (not reproducible).
    """
    if random_state is None:
        return np.random.default_rng()
    if isinstance(random_state, np.random.Generator):
        return random_state
    if isinstance(random_state, (bool, np.bool_)):
        raise TypeError("random_state must be an int, a numpy Generator or None, got bool.")
    if isinstance(random_state, numbers.Integral):
        if random_state < 0:
            raise ValueError(f"random_state must be 0 or more, got {random_state}.")
        return np.random.default_rng(int(random_state))
    raise TypeError(
        "random_state must be an int, a numpy Generator or None, "
        f"got {type(random_state).__name__}."
    )


#: Exclusive upper bound of the child seeds drawn by :func:`draw_seed` and :func:`draw_seeds`
#: (the largest 32-bit signed int; scikit-learn, pandas and XGBoost take any seed below it).
SEED_HIGH = 2**31 - 1


def _check_generator(rng: Any) -> np.random.Generator:
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy Generator, got {type(rng).__name__}.")
    return rng


def _check_high(high: Any) -> int:
    if isinstance(high, (bool, np.bool_)) or not isinstance(high, numbers.Integral):
        raise TypeError(f"high must be an integer, got {type(high).__name__}.")
    if high < 1 or high > 2**63 - 1:
        raise ValueError(f"high must lie between 1 and 2**63 - 1, got {high}.")
    return int(high)


def draw_seed(rng: np.random.Generator, *, high: int = SEED_HIGH) -> int:
    """Draw one child seed from ``rng`` for a step or library that takes an int seed.

    One generator seeds a whole run; each step that takes its own int seed (a scikit-learn
    ``random_state``, ``DataFrame.sample``, a synthesizer, one repetition of a sweep) gets
    a child seed drawn here, so the run stays reproducible from its one seed.

    Parameters
    ----------
    rng : numpy.random.Generator
        The run's generator; the draw advances it.
    high : int
        Exclusive upper bound: the seed lies in ``[0, high)``. The default,
        :data:`SEED_HIGH` = 2**31 - 1, suits every library used here.

    Returns
    -------
    int
        The seed. The draw is exactly ``int(rng.integers(0, high))`` (the same as
        ``int(rng.integers(high))``), so it consumes the generator like the ad-hoc calls it
        replaces and published numbers do not change.

    Raises
    ------
    TypeError
        ``rng`` is not a Generator or ``high`` is not an integer.
    ValueError
        ``high`` is below 1 or above 2**63 - 1.
    """
    return int(_check_generator(rng).integers(0, _check_high(high)))


def draw_seeds(rng: np.random.Generator, size: int | tuple[int, ...], *,
               high: int = SEED_HIGH) -> np.ndarray:
    """Draw an array of child seeds at once, one per run of a sweep (see :func:`draw_seed`).

    Parameters
    ----------
    rng : numpy.random.Generator
        The run's generator; the draw advances it.
    size : int or tuple of int
        Shape of the array (for example ``(points, repetitions)``).
    high : int
        Exclusive upper bound of every seed (default :data:`SEED_HIGH`).

    Returns
    -------
    numpy.ndarray of int64
        The seeds: exactly ``rng.integers(0, high, size=size)``, so the generator is consumed
        as by the ad-hoc calls this replaces and published numbers do not change.

    Raises
    ------
    TypeError
        ``rng`` is not a Generator or ``high`` is not an integer.
    ValueError
        ``high`` is below 1 or above 2**63 - 1, or ``size`` is negative.
    """
    return _check_generator(rng).integers(0, _check_high(high), size=size)


def spawn_seed(rng: np.random.Generator) -> int:
    """Draw a 63-bit integer seed from ``rng`` for a library that takes an int seed.

    The same as :func:`draw_seed` with ``high=2**63 - 1``.
    """
    return draw_seed(rng, high=2**63 - 1)


def _key_int(key: Any) -> int:
    digest = hashlib.sha256(repr(key).encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "little")


def display_seed(seed: int, *keys: Any) -> int:
    """A seed for an on-screen picture: the sidebar ``seed`` mixed with ``keys``.

    The same (seed, keys) gives the same int on every machine and in every process (keys
    are hashed through their ``repr``, not Python's salted ``hash``); any change in a key
    (epsilon 1 vs 2) gives unrelated draws.

    Parameters
    ----------
    seed : int
        The sidebar seed, 0 or more.
    *keys
        What the picture depends on: method name, epsilon, ...
    """
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise TypeError(f"seed must be an int of 0 or more, got {seed!r}.")
    ss = np.random.SeedSequence([int(seed), *(_key_int(k) for k in keys)])
    return int(ss.generate_state(1, dtype=np.uint32)[0])


def display_rng(seed: int, *keys: Any) -> np.random.Generator:
    """The generator of an on-screen picture: ``default_rng(display_seed(seed, *keys))``."""
    return np.random.default_rng(display_seed(seed, *keys))


def rng_from_keys(seed: int, *keys: Any) -> np.random.Generator:
    """A generator from a drawn ``seed`` mixed with ``keys``: ``default_rng([seed, display_seed(0, *keys)])``.

    For noise that must never repeat across settings: pass a seed drawn from the run's
    generator (:func:`spawn_seed`) and what the draw depends on (method, epsilon) as
    ``keys``; the same seed then gives unrelated draws at epsilon 1 and 2. Keys are hashed
    as in :func:`display_seed` (stable across processes).
    """
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise TypeError(f"seed must be an int of 0 or more, got {seed!r}.")
    return np.random.default_rng([int(seed), display_seed(0, *keys)])
