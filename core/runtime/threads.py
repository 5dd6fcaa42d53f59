"""Thread limits for native libraries (BLAS, OpenMP).

Small products and many short fits run faster on one thread than on several that wait
for each other, especially on a machine whose cores are shared; one thread also makes
results deterministic.
"""
from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator

from threadpoolctl import ThreadpoolController, threadpool_limits

__all__ = ["blas_limit", "few_threads"]

_CONTROLLER: ThreadpoolController | None = None


def _controller() -> ThreadpoolController:
    """One controller per process (inspecting the loaded libraries costs ~1 ms)."""
    global _CONTROLLER
    if _CONTROLLER is None:
        _CONTROLLER = ThreadpoolController()
    return _CONTROLLER


def blas_limit(n: int = 1):
    """Context manager: at most ``n`` BLAS threads inside the block (cheap to enter)."""
    return _controller().limit(limits=n, user_api="blas")


@contextmanager
def few_threads(n: int = 1) -> Iterator[None]:
    """At most ``n`` OpenMP and BLAS threads inside the block.

    Histogram gradient boosting spins OpenMP threads that busy-wait; on shared cores that
    makes a 1-second fit take 30 seconds. One thread per fit is faster there and
    deterministic.
    """
    with threadpool_limits(limits=n):
        yield
