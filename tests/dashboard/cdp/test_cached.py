"""What the paper-000 pages keep between reruns (dashboard.cdp.cached): the slider's path."""
from __future__ import annotations

import numpy as np
import pytest

from core.cdp.sweeps import Reference
from dashboard.cdp import cached


def test_the_curve_figure_is_built_once_per_key():
    built = []

    def build():
        built.append(1)
        return {"data": [], "layout": {"title": {"text": "t"}}}

    key = ("test-curve-figure", object())
    first, second = cached.curve_figure(key, build), cached.curve_figure(key, build)
    assert first is second and built == [1]
    cached.curve_figure(("test-curve-figure", "other"), build)
    assert built == [1, 1]


def test_references_with_a_nan_interval_make_an_equal_key():
    refs = (Reference("mean true count", 80.0, np.nan, np.nan, 2),)
    again = (Reference("mean true count", 80.0, np.nan, np.nan, 2),)
    assert cached.references_key(refs) == cached.references_key(again)
    assert cached.references_key(refs) != cached.references_key((Reference("mean true count", 81.0, np.nan,
                                                                            np.nan, 2),))


@pytest.fixture(scope="module")
def supplier_setup():
    from core.cdp.baselines import prepare_schemes
    from core.data import load_sample

    setup = prepare_schemes(load_sample("supplier"), threshold=0.8, measure="pearson", tc=40.0, random_state=0)
    return setup, {s: setup.matrices(s) for s in setup.columns}


def test_live_trainings_are_kept_by_the_setups_key_and_equal_a_fresh_fit(supplier_setup):
    setup, mats = supplier_setup
    args = dict(epsilon=2.3, noise_method=1, preset="sensible", repetitions=2, seed=0)
    kept, _ = cached.live_accuracy(setup, mats, **args, key=("test-live", 1))
    again, _ = cached.live_accuracy(setup, mats, **args, key=("test-live", 1))
    fresh, _ = cached.live_accuracy(setup, mats, **args)
    assert again is kept  # shared read-only: nothing refitted
    assert fresh is not kept and fresh["accuracy"].tolist() == kept["accuracy"].tolist()


def test_fig4_caption_says_no_scheme_is_dp_while_the_schema_is_drafted():
    from dashboard.cdp.cached import fig4_caption

    assert "Only the DP reading is differentially private at that epsilon" in fig4_caption(True)
    drafted = fig4_caption(False)
    assert "Only the DP reading" not in drafted and "No scheme is differentially private here" in drafted
