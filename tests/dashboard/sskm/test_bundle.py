"""The SSKM_DP page's "Download bundle": a colleague's zip whose script and notebook rerun the
page's numbers exactly (the paper mode, whose release has a fixed shape: the sound mode's rows
are drawn with its noise, see tests/core/bundle/test_pages_sskm.py)."""
from __future__ import annotations

import json

from tests.core.bundle.support import assert_reruns
from tests.dashboard.conftest import assert_clean, finish_sweeps


def test_sskm_bundle_reruns_to_the_pages_numbers(open_page, tmp_path):
    at = finish_sweeps(open_page("sskm", timeout=240))
    # the paper mode (it enables the iterations), then every other setting before one run (each
    # run between them would compute a map only to drop it)
    at.radio(key="sskm_mode").set_value("paper").run()
    at.number_input(key="sskm_iterations").set_value(2000)
    at.multiselect(key="sskm_a_values").set_value([10])  # one a: the baselines are wired, not swept
    # a tiny Fig. 5-6 sweep, run: the bundle holds it too
    at.multiselect(key="sskm_sweep_m").set_value([2])
    at.multiselect(key="sskm_sweep_grids").set_value(["3x3"])
    at.number_input(key="sskm_sweep_reps").set_value(1)
    at.number_input(key="sskm_sweep_iterations").set_value(1000).run()
    at.button(key="sskm_sweep_run").click().run()
    finish_sweeps(at)
    assert_clean(at)
    at.button(key="sskm_bundle_prepare").click().run()
    assert_clean(at)
    bundle = at.session_state["sskm_bundle"]
    assert bundle.manifest["kind"] == "colleague" and not bundle.ledger.is_dp  # the paper mode is not DP
    result = assert_reruns(bundle.data, tmp_path)
    settings = json.loads((tmp_path / "config.json").read_text())["settings"]
    assert (settings["mode"], settings["iterations"], settings["a_values"]) == ("paper", 2000, [10])
    assert settings["baselines"] is True and settings["sweep"] is True and settings["sweep_grids"] == ["3x3"]
    numbers = result["numbers"]
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["MSE"] == f"{numbers['release']['MSE']:.4f}"
    assert metrics["Quantisation error"] == f"{numbers['map']['quantization error']:.4f}"
    # the baselines of Fig. 7, computed by a sweep job in its own process, as the page shows them
    shown = next(d.value for d in at.dataframe if list(d.value.columns) == ["method", "a", "mse_mean", "mse_std"])
    assert shown.to_dict("records") == numbers["baselines (Fig. 7)"]["rows"]
    boxes = [b.value.replace("\\", "") for b in (*at.success, *at.warning, *at.info)]
    for claim in numbers["across a and m (Fig. 5-6)"]["claims"]:  # the claim boxes under Fig. 5 and 6
        assert any(claim["finding"] in box for box in boxes), claim["finding"]
    assert result["releases"][0]["rows"] == numbers["rows used"] == 3000
