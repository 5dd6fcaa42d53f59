"""The DC-FBFS page's "Download bundle": a colleague's zip whose script and notebook rerun the
page's numbers exactly (the same rows, selection, T_c and tables as the page)."""
from __future__ import annotations

import json

from tests.core.bundle.support import assert_reruns
from tests.dashboard.conftest import assert_clean


def test_dc_fbfs_bundle_reruns_to_the_pages_numbers(open_page, tmp_path):
    at = open_page("dc_fbfs", timeout=300)
    at.number_input(key="fb_rows").set_value(300).run()
    slider = next(s for s in at.slider if s.key and s.key.startswith("fb_tc_"))
    slider.set_value(round(slider.max / 2, 2)).run()
    at.button(key="fb_bundle_prepare").click().run()
    assert_clean(at)
    bundle = at.session_state["fb_bundle"]
    assert bundle.manifest["kind"] == "colleague" and not bundle.ledger.is_dp
    result = assert_reruns(bundle.data, tmp_path)
    settings = json.loads((tmp_path / "config.json").read_text())["settings"]
    assert settings["max_rows"] == 300 and settings["tc"] == round(slider.max / 2, 2)
    numbers = result["numbers"]
    assert numbers["rows used"] == 300
    # Table 1 (the deleted sets) and Table 2 (GS and CS after each stage) as the page shows them
    table1 = at.dataframe[0].value
    assert table1["n"].tolist() == [numbers["selection"]["sets"][k]["n"]
                                    for k in ("F_fb_del", "F_c_del", "F_del", "selected")]
    table2 = at.dataframe[1].value
    ours = numbers["sensitivity after each stage (Table 2)"]["ours"]
    assert table2["features deleted"].tolist() == [r["features deleted"] for r in ours]
    assert table2["CS"].tolist() == [r["CS"] for r in ours] and table2["GS"].tolist() == [r["GS"] for r in ours]
