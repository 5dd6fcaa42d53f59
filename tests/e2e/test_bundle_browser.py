"""A bundle through the real browser: open "Download bundle", prepare it, download the zip,
and rerun it in a fresh process."""
from __future__ import annotations

import zipfile

import pytest

from core.bundle.rerun import rerun_bundle
from tests.e2e.conftest import goto, screenshot, wait_idle

pytestmark = pytest.mark.e2e


def test_correlations_bundle_downloads_and_reruns(page, tmp_path):
    page.set_viewport_size({"width": 1280, "height": 720})
    goto(page, "Correlations")
    page.get_by_text("Correlated sensitivity CS", exact=True).first.wait_for(timeout=180_000)
    page.get_by_text("Download bundle", exact=False).first.click()
    page.get_by_role("button", name="Prepare bundle").click()
    wait_idle(page)
    button = page.get_by_role("button", name="Download bundle (zip)")
    button.wait_for(timeout=120_000)
    button.scroll_into_view_if_needed()
    screenshot(page, "correlations_bundle")
    with page.expect_download(timeout=60_000) as info:
        button.click()
    path = tmp_path / info.value.suggested_filename
    info.value.save_as(path)
    assert path.name.endswith("-correlations-bundle-colleague.zip")
    with zipfile.ZipFile(path) as archive:
        assert {"README.md", "rerun.py", "rerun.ipynb", "result.json", "config.json"} <= set(archive.namelist())
    rerun = rerun_bundle(path)
    assert rerun.ok, rerun.output
    assert page.get_by_text("Traceback").count() == 0
