"""Compare's "Download bundle": the page's result as a zip whose script and notebook rerun it exactly."""
from __future__ import annotations

import json

from tests.core.bundle.support import assert_reruns
from tests.dashboard.conftest import assert_clean, finish_sweeps


def test_compare_bundle_reruns_to_the_pages_numbers(open_page, tmp_path):
    at = open_page("compare", timeout=300)
    at.multiselect(key="cmp_methods").set_value(["Raw table", "kRR", "CDP-LR"]).run()
    at.multiselect(key="cmp_eps").set_value(["1"]).run()
    at.number_input(key="cmp_reps").set_value(1).run()
    at.selectbox(key="cmp_rows").set_value("500").run()
    at = finish_sweeps(at)
    at.button(key="cmp_bundle_prepare").click().run()
    assert_clean(at)
    bundle = at.session_state["cmp_bundle"]
    assert bundle.manifest["kind"] == "colleague" and not bundle.ledger.is_dp
    result = assert_reruns(bundle.data, tmp_path)
    # the page's table and the bundle agree
    table = at.dataframe[0].value.set_index("method")
    shown = table.loc["CDP-LR", "utility"]
    bundled = [r for r in result["numbers"]["summary"] if r["method"] == "CDP-LR"][0]["utility_mean"]
    assert f"{bundled:.3f}" in str(shown)
    # the session's ledger counts the bundle (a colleague's bundle has no guarantee)
    assert any("bundle colleague" in c.value or "not differentially private" in c.value for c in at.caption)
    assert json.loads((tmp_path / "config.json").read_text())["format"] == "pux-compare/1"
