"""A workaround for OpenDP's rounding bug in MST and AIM (opendp#2789), applied once.

OpenDP 0.16.0's MST and AIM split their budget with ``prior(x)``, the next float below
``x`` (:func:`opendp.extras.mbi._utilities.prior`), so that the parts add up to no more
than the whole. One float step is not always enough: the adaptive composition then sums
the parts with its own rounding and refuses the release ("insufficient budget for query:
0.04999999999999999 > 0.049999999999999975", at epsilon 1 on the census sample).
:func:`apply` replaces the ``prior`` that the MST and AIM modules call with
:func:`conservative_prior`, which is never above OpenDP's and is lower by a relative 1e-9
for every positive part: each part spends slightly less, and OpenDP's composition still
checks that the parts add up to no more than the budget. The privacy guarantee is
OpenDP's own (the measurement's privacy map); only the split is a hair more conservative.

``tests/core/marginal/test_opendp_fix.py`` fails once OpenDP no longer needs this (the
unpatched release then succeeds): remove the module then.
"""
from __future__ import annotations

import math
import threading

__all__ = ["PATCHED_MODULES", "apply", "conservative_prior", "is_applied"]

#: The OpenDP modules whose ``prior`` is replaced.
PATCHED_MODULES = ("opendp.extras.mbi._mst", "opendp.extras.mbi._aim")
#: The relative margin taken off every positive budget part.
MARGIN = 1e-9
_LOCK = threading.Lock()


def conservative_prior(x: float) -> float:
    """A float below ``x``: OpenDP's ``prior(x)`` (the next float down) or ``x (1 - 1e-9)``
    for positive ``x``, whichever is lower. Never above OpenDP's own ``prior``."""
    down = math.nextafter(float(x), -math.inf)
    return min(down, float(x) * (1.0 - MARGIN)) if x > 0 else down


def _modules() -> list:
    import importlib

    return [importlib.import_module(name) for name in PATCHED_MODULES]


def is_applied() -> bool:
    """True when every module of :data:`PATCHED_MODULES` calls :func:`conservative_prior`."""
    return all(getattr(module, "prior", None) is conservative_prior for module in _modules())


def apply() -> None:
    """Make MST and AIM call :func:`conservative_prior` (idempotent, thread-safe)."""
    with _LOCK:
        for module in _modules():
            if not hasattr(module, "prior"):
                raise RuntimeError(f"{module.__name__} has no 'prior' any more: OpenDP changed; "
                                   "check whether opendp#2789 is fixed and remove core.marginal.opendp_fix.")
            module.prior = conservative_prior
