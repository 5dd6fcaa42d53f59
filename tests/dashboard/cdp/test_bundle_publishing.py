"""The Publishing page's "Download bundle": a colleague's zip whose script and notebook rerun
the page's numbers exactly (the same rows, queries, seeds and noise draws as the page)."""
from __future__ import annotations

import json

from tests.core.bundle.support import assert_reruns
from tests.dashboard.conftest import assert_clean, finish_sweeps


def _metric(at, start: str):
    return next(m for m in at.metric if m.label.startswith(start))


def test_the_page_grid_is_the_bundles_default():
    from core.bundle.pages import publishing
    from dashboard.cdp import publishing_panels

    assert tuple(publishing.DEFAULTS["epsilons"]) == publishing_panels.EPS_GRID
    assert set(publishing.SCHEMES) == {publishing_panels.cached.DP_READING, "Proposed", "Zhang", "Group"}


def test_publishing_bundle_reruns_to_the_pages_numbers(open_page, tmp_path):
    from dashboard.shared.widgets.charts import number

    at = open_page("publishing", timeout=300)
    at.slider(key="pub_queries").set_value(20).run()
    at.slider(key="pub_reps").set_value(2).run()
    at.select_slider(key="pub_epsilon").set_value(2.0).run()
    finish_sweeps(at)
    at.button(key="pub_bundle_prepare").click().run()
    assert_clean(at)
    bundle = at.session_state["pub_bundle"]
    assert bundle.manifest["kind"] == "colleague" and not bundle.ledger.is_dp
    result = assert_reruns(bundle.data, tmp_path)
    settings = json.loads((tmp_path / "config.json").read_text())["settings"]
    assert (settings["n_queries"], settings["repetitions"], settings["epsilon"]) == (20, 2, 2.0)
    reading = result["numbers"]["reading"]
    # the metrics beside the MAE chart: the DP reading's MAE at epsilon 2 and the mean true count
    assert _metric(at, "MAE of DP reading at epsilon = 2").value == number(reading["MAE at epsilon"])
    assert _metric(at, "Mean true count of the queries").value == number(reading["mean true count"])
    guarantee = reading["guarantee of one release"]
    assert _metric(at, "Guarantee of one release").value == f"epsilon = {guarantee['epsilon']:.3g}" == "epsilon = 40"
