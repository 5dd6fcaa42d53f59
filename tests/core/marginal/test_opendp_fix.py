"""core.marginal.opendp_fix: MST and AIM split their budget a hair more conservatively than
OpenDP 0.16.0, which refuses some of its own releases (opendp#2789).

If ``test_opendp_still_needs_the_fix`` fails, OpenDP has fixed the bug: remove the module.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from core.marginal import opendp_fix


def _release_ten_binary_columns() -> object:
    """MST at epsilon 1 on ten binary columns: the smallest release found that hits the bug."""
    import opendp.prelude as dp
    import polars as pl

    dp.enable_features("contrib")
    rng = np.random.default_rng(0)
    names = [f"c{i}" for i in range(10)]
    data = pl.LazyFrame({c: pl.Series(c, rng.integers(0, 2, 50), dtype=pl.Int64) for c in names})
    ctx = dp.Context.compositor(data=data, privacy_unit=dp.unit_of(contributions=2),
                                privacy_loss=dp.loss_of(epsilon=1.0), split_evenly_over=1)
    keys = {c: pl.Series(c, [0, None], dtype=pl.Int64) for c in names}
    return ctx.query().select(*names).contingency_table(keys=keys, algorithm=dp.mbi.MST()).release()


@pytest.mark.parametrize("x", [1e-300, 0.05, 0.049999999999999975, 1 / 3, 1.0, 7.5, 1e12])
def test_the_conservative_prior_is_below_opendps(x):
    from opendp.extras.mbi._utilities import prior

    assert opendp_fix.conservative_prior(x) <= prior(x) < x
    assert opendp_fix.conservative_prior(x) >= x * (1 - 2e-9)  # and only a hair below


@pytest.mark.parametrize("x", [0.0, -1.0])
def test_zero_and_negative_parts_stay_at_most_themselves(x):
    assert opendp_fix.conservative_prior(x) == math.nextafter(x, -math.inf)


def _noisy_counts(scale: float):
    """Discrete Laplace on a vector of counts (the noise of one OpenDP marginal)."""
    import opendp.prelude as dp

    dp.enable_features("contrib")
    return dp.m.make_laplace(dp.vector_domain(dp.atom_domain(T="i32")), dp.l1_distance(T="i32"), scale=scale)


@pytest.mark.parametrize("d_out", [0.05, 1 / 14, 1.0, 3.7])
def test_the_fast_search_finds_opendps_scale_and_passes_its_check(d_out):
    import opendp.prelude as dp

    scales = []
    fast = opendp_fix.fast_search_chain(lambda s: scales.append(s) or _noisy_counts(s), 2, d_out, T=float)
    exact = dp.binary_search_param(_noisy_counts, 2, d_out, T=float)
    chosen = scales[-2]  # the last build is the check that a hair less noise would overspend
    assert fast.check(2, d_out) and fast.map(2) <= d_out and len(scales) <= 5  # OpenDP's search: hundreds
    assert chosen == pytest.approx(exact, rel=1e-9) and chosen >= exact
    assert not _noisy_counts(exact * (1 - 1e-6)).check(2, d_out)  # a smaller scale would overspend


def test_the_fast_search_leaves_other_searches_to_opendp(monkeypatch):
    import opendp.mod

    calls = []
    real = opendp.mod.binary_search_chain
    monkeypatch.setattr(opendp.mod, "binary_search_chain", lambda *a, **k: calls.append(k) or real(*a, **k))
    # (fast_search_chain imports binary_search_chain from opendp.mod when it is called)
    opendp_fix.fast_search_chain(_noisy_counts, 2, 1.0, bounds=(0.5, 100.0), T=float)  # a bounded search
    scales = []
    chain = opendp_fix.fast_search_chain(lambda s: scales.append(s) or _noisy_counts(s * s), 2, 1.0, T=float)
    assert len(calls) == 2  # a loss proportional to 1/scale^2: the shortcut's scale is not the tightest
    assert chain.check(2, 1.0) and len(scales) > 5


def test_apply_is_idempotent():
    opendp_fix.apply()
    opendp_fix.apply()
    assert opendp_fix.is_applied()


@pytest.mark.slow  # about 15 s; the pin opendp[mbi]==0.16.0 keeps upstream from changing under CI
def test_opendp_still_needs_the_fix(monkeypatch):
    import opendp.extras.mbi._aim as aim
    import opendp.extras.mbi._mst as mst
    from opendp.extras.mbi._utilities import prior
    from opendp.mod import OpenDPException

    for module in (mst, aim):
        monkeypatch.setattr(module, "prior", prior)
    with pytest.raises(OpenDPException, match="insufficient budget"):
        _release_ten_binary_columns()


@pytest.mark.slow  # about 25 s; every MST release in test_synthesizer.py and test_marginal_methods.py goes through it
def test_with_the_fix_the_release_goes_through():
    opendp_fix.apply()
    table = _release_ten_binary_columns()
    assert len(table.marginals.flatten()) == 10 + 9  # every one-way marginal and a spanning tree
