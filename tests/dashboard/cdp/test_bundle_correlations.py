"""The Correlations page's "Download bundle": a colleague's zip whose script and notebook rerun
the page's numbers exactly, and the numbers the page shows."""
from __future__ import annotations

import json

from dashboard.shared.widgets.charts import number
from tests.core.bundle.support import assert_reruns
from tests.dashboard.conftest import assert_clean


def test_correlations_bundle_reruns_to_the_pages_numbers(open_page, tmp_path):
    at = open_page("correlations", timeout=300)
    at.slider(key="corr_n").set_value(50).run()
    at.slider(key="corr_threshold").set_value(0.7).run()
    assert [len(r.options) for r in at.radio if r.key == "corr_bundle_kind"] == [1]  # only for a colleague
    at.button(key="corr_bundle_prepare").click().run()
    assert_clean(at)
    bundle = at.session_state["corr_bundle"]
    assert bundle.manifest["kind"] == "colleague" and not bundle.ledger.is_dp
    result = assert_reruns(bundle.data, tmp_path)
    settings = json.loads((tmp_path / "config.json").read_text())["settings"]
    assert settings["heatmap_records"] == 50 and settings["threshold"] == 0.7
    # what the page shows is what the bundle holds
    sens = result["numbers"]["sensitivity"]
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Correlated sensitivity CS"] == number(sens["correlated sensitivity CS"])
    assert metrics["Group sensitivity GS"] == number(sens["group sensitivity GS"])
    assert metrics["Data correlation C(x)"] == number(sens["data correlation C(x)"], decimals=1)
    assert result["numbers"]["record heatmap"]["records"] == 50
