"""Every page of the app loads; placeholder pages say which issue brings them."""
from __future__ import annotations

import pytest

from tests.dashboard.conftest import assert_clean

PAGES = ["data", "correlations", "dc_fbfs", "cdp_lr", "publishing", "imposter", "sskm"]


@pytest.mark.parametrize("name", PAGES)
def test_page_loads_without_error(open_page, name):
    at = open_page(name, timeout=300)
    assert_clean(at)
    assert at.title, "every page has a title"


def test_sidebar_seed_is_shared(open_page):
    at = open_page("data")
    at.number_input(key="pux_seed").set_value(42).run()
    assert at.session_state["pux_seed"] == 42


@pytest.mark.parametrize("name", ["data", "imposter"])
def test_sidebar_names_the_dataset_in_use(open_page, name):
    at = open_page(name, timeout=300)
    assert any(c.value.startswith("Chosen dataset: ") for c in at.sidebar.caption)
