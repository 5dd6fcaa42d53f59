"""Two workarounds in OpenDP's marginal synthesizers, applied once: a rounding bug in MST and
AIM (opendp#2789), and the time their noise-scale searches take.

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
unpatched release then succeeds): remove the workaround then.

**The noise-scale search.** ``Fixed`` (the label's 2-way marginals, this project's MST), MST
and AIM find each noise scale with ``binary_search_chain``, which builds the whole measurement
again at every step of a bisection down to the last float: about 1,100 builds of 14 noisy
marginals for one ``Fixed`` release of Adult, 80 % of its time. :func:`fast_search_chain`
replaces it in those modules: for a pure-DP budget (a float epsilon, a float scale) it
builds the measurement once at scale 1, takes the scale at which a loss proportional to
1/scale meets the budget (Laplace noise, report-noisy-max), and returns the measurement at
that scale, nudged up by a few parts in 10^12 until OpenDP's own check (``check(d_in,
d_out)``, the measurement's privacy map) passes, and only if a scale smaller by one part in
10^9 fails it (so the answer is OpenDP's to within 10^-9). Anything else (a bounded or
integer search, an approximate-DP budget, a loss not proportional to 1/scale, a check that
still fails) goes to OpenDP's search. The scale found
is at most a hair above OpenDP's, never below what OpenDP's map accepts, and OpenDP's
compositor checks every measurement against its share again: the guarantee is OpenDP's, and
the noise is the noise OpenDP's search would give (OpenDP's MST at its defaults, the
benchmark's anchor, measures what it measured before, faster).
"""
from __future__ import annotations

import math
import threading
from collections.abc import Callable
from typing import Any

__all__ = ["PATCHED_MODULES", "SEARCH_MODULES", "apply", "conservative_prior", "fast_search_chain", "is_applied"]

#: The OpenDP modules whose ``prior`` is replaced.
PATCHED_MODULES = ("opendp.extras.mbi._mst", "opendp.extras.mbi._aim")
#: The OpenDP modules whose ``binary_search_chain`` is :func:`fast_search_chain`.
SEARCH_MODULES = ("opendp.extras.mbi._fixed", "opendp.extras.mbi._mst", "opendp.extras.mbi._aim")
#: Nudges of the computed scale before OpenDP's search takes over.
NUDGES = 8
#: The shortcut's scale must be this close to the smallest that passes (relative), else OpenDP's search.
TIGHT = 1e-9
#: The relative margin taken off every positive budget part.
MARGIN = 1e-9
_LOCK = threading.Lock()


def conservative_prior(x: float) -> float:
    """A float below ``x``: OpenDP's ``prior(x)`` (the next float down) or ``x (1 - 1e-9)``
    for positive ``x``, whichever is lower. Never above OpenDP's own ``prior``."""
    down = math.nextafter(float(x), -math.inf)
    return min(down, float(x) * (1.0 - MARGIN)) if x > 0 else down


def fast_search_chain(make_chain: Callable[[float], Any], d_in: Any, d_out: Any,
                      bounds: Any = (None, None), T: Any = None) -> Any:
    """OpenDP's ``binary_search_chain`` (same arguments and answer), in two or three builds
    where the privacy loss is proportional to 1/scale (see the module's docstring).

    The measurement returned always passes OpenDP's ``check(d_in, d_out)``; where the shortcut
    does not apply or does not pass, OpenDP's own search answers (and raises as it does).
    """
    from opendp.mod import binary_search_chain

    if T is float and bounds in (None, (None, None)) and isinstance(d_out, float) and d_out > 0:
        chain = _shortcut(make_chain, d_in, d_out)
        if chain is not None:
            return chain
    return binary_search_chain(make_chain, d_in, d_out, bounds=bounds, T=T)


def _shortcut(make_chain: Callable[[float], Any], d_in: Any, d_out: float) -> Any:
    """The measurement at the scale where a loss proportional to 1/scale meets ``d_out``, nudged
    up until OpenDP's check passes; None where it does not (then OpenDP's search decides)."""
    try:
        scale = float(make_chain(1.0).map(d_in)) / d_out
        for step in range(NUDGES):
            if not (math.isfinite(scale) and scale > 0):
                return None
            chain = make_chain(scale)
            if chain.check(d_in, d_out):
                # as tight as OpenDP's answer: a scale a hair smaller must overspend
                return None if make_chain(scale * (1.0 - TIGHT)).check(d_in, d_out) else chain
            scale *= 1.0 + 4.0 ** step * 1e-12
    except Exception:  # noqa: BLE001 - any failure of the shortcut: OpenDP's search decides
        return None
    return None


def _modules(names: tuple[str, ...] = PATCHED_MODULES) -> list:
    import importlib

    return [importlib.import_module(name) for name in names]


def is_applied() -> bool:
    """True when every module of :data:`PATCHED_MODULES` calls :func:`conservative_prior` and
    every one of :data:`SEARCH_MODULES` :func:`fast_search_chain`."""
    return (all(getattr(module, "prior", None) is conservative_prior for module in _modules())
            and all(getattr(module, "binary_search_chain", None) is fast_search_chain
                    for module in _modules(SEARCH_MODULES)))


def apply() -> None:
    """Make MST and AIM call :func:`conservative_prior`, Fixed, MST and AIM :func:`fast_search_chain`
    (idempotent, thread-safe)."""
    with _LOCK:
        for module in _modules():
            if not hasattr(module, "prior"):
                raise RuntimeError(f"{module.__name__} has no 'prior' any more: OpenDP changed; "
                                   "check whether opendp#2789 is fixed and remove core.marginal.opendp_fix.")
            module.prior = conservative_prior
        for module in _modules(SEARCH_MODULES):
            if not hasattr(module, "binary_search_chain"):
                raise RuntimeError(f"{module.__name__} has no 'binary_search_chain' any more: OpenDP changed; "
                                   "check core.marginal.opendp_fix.fast_search_chain.")
            module.binary_search_chain = fast_search_chain
