"""dashboard.compare.fidelity_section: the Compare page's real-against-release section."""
from __future__ import annotations

import pandas as pd
from streamlit.testing.v1 import AppTest

from core.compare.result import ComparisonResult
from dashboard.compare.fidelity_section import NOTHING_KEPT, section_caption
from tests.dashboard.conftest import assert_clean


def _script(kept: bool) -> None:
    import numpy as np
    import pandas as pd

    from core.compare.result import ComparisonResult
    from dashboard.compare.fidelity_section import real_vs_release_section

    x = np.arange(60.0)
    real = pd.DataFrame({"x": x, "c": ["a", "b", "c"] * 20})
    tables = {("MDAV", None): real.copy(), ("kRR", 1.0): real.assign(c="a")} if kept else {}
    real_vs_release_section(ComparisonResult(pd.DataFrame(), {}, {"methods": ["kRR", "MDAV"], "dataset": "toy",
                                                                   "table_rows": 5000}, tables=tables, real=real))


def _run(kept: bool, *, opened: bool) -> AppTest:
    at = AppTest.from_function(_script, kwargs={"kept": kept}, default_timeout=60)
    if opened:
        at.session_state["cmp_rvr_open"] = True
    return at.run()


def test_the_caption_names_the_rows_and_the_repetition():
    result = ComparisonResult(pd.DataFrame(), {}, {"table_rows": 5000})
    assert "first repetition's release" in section_caption(result)
    assert "at most 5,000 rows of each side" in section_caption(result)


def test_closed_it_lists_nothing_and_computes_nothing():
    at = _run(True, opened=False)
    assert_clean(at)
    assert at.subheader[0].value == "Real against release"
    assert not at.dataframe and not at.get("plotly_chart")


def test_opened_it_offers_every_kept_table_in_the_comparisons_order():
    at = _run(True, opened=True)
    assert_clean(at)
    assert at.selectbox(key="cmp_rvr_release").options == ["kRR at epsilon 1", "MDAV"]
    assert {"cmp_rvr_overlay", "cmp_rvr_heatmap"} <= {c.key for c in at.get("plotly_chart")}
    at.selectbox(key="cmp_rvr_release").set_value("MDAV").run()
    assert at.dataframe[0].value["score"].tolist() == [1.0, 1.0]  # a copy of the training rows


def test_models_only_say_there_is_no_table():
    at = _run(False, opened=True)
    assert_clean(at)
    assert at.info[0].value == NOTHING_KEPT
