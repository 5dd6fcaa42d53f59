"""AppTest helpers: run the real app script and switch to a page.

Use ``open_page("cdp_lr")`` to get an ``AppTest`` already on ``views/cdp_lr.py``.
"""
from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

APP = Path(__file__).resolve().parents[2] / "dashboard" / "app.py"


def assert_clean(at: AppTest) -> None:
    """No uncaught exception and no error box on the page."""
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]


@pytest.fixture
def open_page():
    """Factory: ``open_page(name, timeout=120)`` -> AppTest on ``views/<name>.py``."""

    def _open(name: str = "data", *, timeout: float = 120) -> AppTest:
        at = AppTest.from_file(str(APP), default_timeout=timeout)
        at.run()
        if name != "data":
            at.switch_page(f"views/{name}.py")
            at.run()
        return at

    return _open


@pytest.fixture
def open_page_on_public():
    """Factory: ``open_page_on_public("adult", "cdp_lr", data_dir)`` -> AppTest on that page
    after choosing the public dataset on the Data page, as a user would."""

    def _open(dataset: str, name: str, data_dir, *, timeout: float = 900) -> AppTest:
        source = {"adult": "Adult (data directory)", "nltcs": "NLTCS (data directory)"}[dataset]
        at = AppTest.from_file(str(APP), default_timeout=timeout)
        at.run()
        at.radio(key="data_source").set_value(source).run()
        at.text_input(key="data_dir").set_value(str(data_dir)).run()
        assert at.session_state["pux_dataset"].name == dataset
        at.switch_page(f"views/{name}.py")
        at.run()
        return at

    return _open
