"""Bounded caches of the dashboard: the settings of every ``st.cache_data`` wrapper and the one
in-process cache (:class:`BoundedCache`) for what ``st.cache_data`` cannot hold.

Each feature's ``cached`` module is the layer through which its pages call core: thin
wrappers keyed on the dataset (hashed by content) and the parameters, with
``max_entries`` and ``ttl`` so memory stays bounded.
"""
from __future__ import annotations

import threading
import time
import weakref
from typing import Any, Hashable

import cachetools

from core.data import Dataset

#: seconds a cached result lives (``ttl`` of every st.cache_data / st.cache_resource here)
TTL = 3600

#: ``hash_funcs`` for st.cache_data / st.cache_resource: a Dataset is keyed by its content
#: fingerprint (computed once per object) instead of pickling the whole frame on each call.
HASH_FUNCS = {Dataset: lambda d: d.fingerprint()}


class BoundedCache:
    """The one in-process bounded cache of the dashboard: least recently used entries go
    first, an entry older than ``ttl`` seconds is gone, and every access holds a lock (jobs
    finish on other threads).

    Built on ``cachetools`` (``TTLCache``; ``LRUCache`` without ``ttl``). Use it where
    ``st.cache_data`` does not fit: results that a background job puts, keys a page hashes
    once, finished trainings.

    Parameters
    ----------
    max_entries : int
        How many entries it keeps at most.
    ttl : float, optional
        Seconds an entry lives; None keeps it until it is the least recently used one.
    """

    def __init__(self, max_entries: int, ttl: float | None = None) -> None:
        if max_entries < 1:
            raise ValueError(f"max_entries must be 1 or more, got {max_entries}.")
        self.max_entries, self.ttl = int(max_entries), ttl
        self._items = (cachetools.LRUCache(self.max_entries) if ttl is None
                       else cachetools.TTLCache(self.max_entries, float(ttl), timer=time.monotonic))
        self._lock = threading.Lock()
        _ALL.add(self)

    def get(self, key: Hashable, default: Any = None) -> Any:
        """The entry under ``key`` (and it becomes the most recently used), else ``default``."""
        with self._lock:
            return self._items.get(key, default)

    def put(self, key: Hashable, value: Any) -> None:
        """Keep ``value`` under ``key``; the least recently used entry goes when it is full."""
        with self._lock:
            self._items[key] = value

    def pop(self, key: Hashable, default: Any = None) -> Any:
        """Remove and return the entry under ``key`` (``default`` when there is none)."""
        with self._lock:
            return self._items.pop(key, default)

    def items(self) -> list[tuple[Hashable, Any]]:
        """A snapshot of the (key, value) pairs, least recently used first."""
        with self._lock:
            return list(self._items.items())

    def forget(self, token: str) -> int:
        """Drop the entries whose key mentions ``token`` (a dataset's fingerprint): a key
        that is ``token``, a string holding it (:func:`dashboard.shared.serving.state.scoped_key`),
        or a tuple with such an element. Returns how many went."""
        with self._lock:
            keys = [k for k in list(self._items.keys()) if _mentions(k, token)]
            for k in keys:
                self._items.pop(k, None)
        return len(keys)

    def clear(self) -> None:
        """Forget every entry."""
        with self._lock:
            self._items.clear()

    def __len__(self) -> int:
        with self._lock:
            return len(self._items)

    def __contains__(self, key: Hashable) -> bool:
        with self._lock:
            return key in self._items


#: every BoundedCache of the server (weakly), for :func:`forget_dataset`
_ALL: "weakref.WeakSet[BoundedCache]" = weakref.WeakSet()


def _mentions(key: Any, token: str, depth: int = 0) -> bool:
    if isinstance(key, str):
        return token in key
    if isinstance(key, (tuple, frozenset)) and depth < 3:
        return any(_mentions(k, token, depth + 1) for k in key)
    return False


def forget_dataset(fingerprint: str) -> int:
    """Drop the entries of every :class:`BoundedCache` keyed by ``fingerprint`` (see
    :meth:`BoundedCache.forget`): what a closed session computed on its upload goes with
    it (:mod:`dashboard.shared.serving.memory`). Returns how many entries went."""
    if not isinstance(fingerprint, str) or not fingerprint:
        raise ValueError("fingerprint must be a non-empty str (Dataset.fingerprint()).")
    return sum(cache.forget(fingerprint) for cache in list(_ALL))
