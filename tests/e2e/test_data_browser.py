"""The Data page in a real browser: load the app, upload a CSV, see its preview."""
from __future__ import annotations

import pytest

from tests.e2e.conftest import goto, screenshot, wait_idle

pytestmark = pytest.mark.e2e


def test_app_loads_on_sample_data(page):
    page.get_by_role("heading", name="Data").first.wait_for()
    page.get_by_text("Using supplier").wait_for()
    screenshot(page, "data_sample")


def test_upload_csv_shows_preview(page, tmp_path):
    csv = tmp_path / "tiny_people.csv"
    rows = ["id;age;city;smoker"] + [f"P{(i * 17) % 40:03d};{20 + (i * 7) % 30};{'AB'[i % 2]}town;"
                                      f"{'yes' if i % 3 else 'no'}" for i in range(40)]
    csv.write_text("\n".join(rows) + "\n")
    goto(page, "Data")
    page.get_by_text("Upload a CSV").click()
    wait_idle(page)
    page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(str(csv))
    page.get_by_text("Using tiny_people").wait_for(timeout=60_000)
    page.get_by_text("Columns are separated by ';'").wait_for()
    # the preview grid shows the uploaded columns
    headers = page.locator('[data-testid="stDataFrame"]').first.locator('[role="columnheader"]')
    headers.first.wait_for(state="attached")
    names = [(h.text_content() or "").strip() for h in headers.all()]
    assert {"id", "age", "city", "smoker"} <= set(names)
    page.get_by_text("Identifier column found on loading").wait_for()  # the key, left out
    screenshot(page, "data_upload")


def test_bad_upload_shows_one_sentence_and_keeps_data(page, tmp_path):
    bad = tmp_path / "empty.csv"
    bad.write_text("")
    page.get_by_text("Upload a CSV").click()
    wait_idle(page)
    page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(str(bad))
    page.get_by_text("The file is empty").wait_for(timeout=60_000)
    assert page.get_by_text("Traceback").count() == 0


def test_an_upload_is_read_again_by_its_uploaded_schema(page, tmp_path):
    """Issue 36: once a schema is set, the upload is read again from its bytes by it, one data
    line one record; the drafted number showed no exact extremes before."""
    import json

    csv = tmp_path / "visits.csv"
    rows = ["visit,age,ward,outcome"] + [f"{i},{30 + (i * 7) % 50 if i != 5 else 'n/a'},"
                                         f"{'AB'[i % 2]},{'yes' if i % 3 else 'no'}" for i in range(40)]
    csv.write_text("\n".join(rows) + "\n")
    schema = {"version": 1, "name": "visits", "label": "outcome", "sensitive": [], "columns": [
        {"name": "visit", "kind": "identifier"},
        {"name": "age", "kind": "numeric", "lower": 0, "upper": 120, "integer": True},
        {"name": "ward", "kind": "categorical", "categories": ["A", "B"]},
        {"name": "outcome", "kind": "categorical", "categories": ["no", "yes"]}]}
    schema_file = tmp_path / "visits.schema.json"
    schema_file.write_text(json.dumps(schema))
    goto(page, "Data")
    page.get_by_text("Upload a CSV").click()
    wait_idle(page)
    page.locator('[data-testid="stFileUploaderDropzoneInput"]').first.set_input_files(str(csv))
    page.get_by_text("Using visits").wait_for(timeout=60_000)
    wait_idle(page)
    page.locator('[data-testid="stFileUploaderDropzoneInput"]').last.set_input_files(str(schema_file))
    page.get_by_text("Schema loaded from visits.schema.json").wait_for(timeout=60_000)
    page.get_by_text("Read by its public schema: 40 records").wait_for(timeout=60_000)
    assert page.get_by_text("Traceback").count() == 0
    screenshot(page, "data_read_by_schema")
