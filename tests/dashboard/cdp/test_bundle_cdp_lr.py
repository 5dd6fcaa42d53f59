"""The CDP-LR page's "Download bundle": a colleague's zip whose script and notebook rerun the
page's numbers exactly (the same rows, schemes, seeds and trainings as the page)."""
from __future__ import annotations

import base64
import json

import numpy as np

from tests.core.bundle.support import assert_reruns
from tests.dashboard.conftest import assert_clean


def _bars(at) -> dict:
    """The live bars' mean accuracy per scheme, as the page's chart holds them."""
    spec = json.loads(next(c.proto.spec for c in at.get("plotly_chart") if c.key == "lr_live"))
    bar = spec["data"][0]
    y = bar["y"]
    if isinstance(y, dict):  # plotly encodes numpy arrays as typed bdata
        y = np.frombuffer(base64.b64decode(y["bdata"]), dtype=y["dtype"]).tolist()
    return dict(zip(bar["x"], y))


def test_the_page_grid_is_the_bundles_default():
    from core.bundle.pages import cdp_lr
    from dashboard.cdp import lr_panels

    assert tuple(cdp_lr.DEFAULTS["epsilons"]) == lr_panels.EPS_GRID
    assert cdp_lr.DEFAULTS["noise_method"] == lr_panels.PAGE_METHOD
    assert cdp_lr.DEFAULTS["preset"] == lr_panels.DEFAULT_PRESET


def test_cdp_lr_bundle_reruns_to_the_pages_numbers(open_page, tmp_path):
    at = open_page("cdp_lr", timeout=300)
    at.number_input(key="lr_rows").set_value(300).run()
    at.slider(key="lr_reps").set_value(1).run()
    at.slider(key="lr_eps").set_value(1.5).run()
    at.button(key="lr_bundle_prepare").click().run()
    assert_clean(at)
    bundle = at.session_state["lr_bundle"]
    assert bundle.manifest["kind"] == "colleague" and not bundle.ledger.is_dp
    result = assert_reruns(bundle.data, tmp_path)
    config = json.loads((tmp_path / "config.json").read_text())
    assert config["settings"]["max_rows"] == 300 and config["settings"]["epsilon"] == 1.5
    assert config["schema"] is not None  # the page's public schema, inline
    live = result["numbers"]["at the slider's epsilon"]
    schemes = {r["scheme"]: r for r in live["schemes"]}
    # the bars the page draws at epsilon 1.5 (off the curve's grid) are the bundle's, exactly
    assert _bars(at) == {k: r["mean accuracy"] for k, r in schemes.items()}
    guess = next(m for m in at.metric if m.label.startswith("Majority class"))
    assert guess.value == f"{live['references'][0]['value']:.3f}"
    table = next(t.value for t in at.table if "features" in t.value.columns).set_index("scheme")
    assert table.loc["DP reading", "features"] == schemes["DP reading"]["features"]
