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
