"""The Compare page in a real browser: a small comparison on the built-in sample, then the
report downloaded and checked to stand alone; and one on an uploaded CSV, whose saved
settings rerun from the command line to the page's numbers."""
from __future__ import annotations

import json
import subprocess
import sys
from urllib.parse import urlencode

import numpy as np
import pandas as pd
import pytest

from tests.e2e.conftest import ROOT, goto, screenshot, wait_idle, wait_laid_out

pytestmark = pytest.mark.e2e

METHODS = ["Raw table", "kRR", "MDAV", "IDP-KMeans", "CDP-LR", "Logistic regression (non-private)"]


def test_a_small_comparison_draws_its_frontier_and_hands_over_a_report(browser, app_url, tmp_path):
    # no audit: the report and the frontier are checked here (test_audit_browser.py audits in the browser)
    query = urlencode([("methods", m) for m in METHODS] + [("eps", "0.5"), ("eps", "2"), ("reps", "1"),
                                                           ("rows", "500"), ("audit_runs", "0")])
    context = browser.new_context(viewport={"width": 1400, "height": 1000}, accept_downloads=True)
    pg = context.new_page()
    pg.set_default_timeout(60_000)
    pg.goto(f"{app_url}/compare?{query}")
    wait_idle(pg)
    pg.get_by_role("heading", name="Compare").first.wait_for()
    pg.locator('.st-key-cmp_frontier [data-testid="stPlotlyChart"]').first.wait_for(timeout=240_000)
    wait_idle(pg)
    assert sum(pg.get_by_text(t).count() for t in ("keeps the most utility", "No method", "No recommendation")) >= 1
    assert pg.get_by_text("Traceback").count() == 0
    screenshot(pg, "compare")
    with pg.expect_download(timeout=120_000) as info:
        pg.get_by_role("button", name="Report (HTML)").click()
    path = tmp_path / "comparison.html"
    info.value.save_as(path)
    html = path.read_text(encoding="utf-8")
    assert html.lstrip().lower().startswith("<!doctype html")
    assert "Takeaway" in html and all(m.split(" (")[0] in html for m in METHODS)
    assert '<script src="http' not in html and "<link" not in html.lower().split("<script")[0]
    context.close()


# ------------------------------------------------------------------ an uploaded CSV, end to end
UPLOAD_METHODS = ["Raw table", "kRR", "MDAV", "IDP-KMeans", "CDP-LR"]


def _people_csv(path) -> None:
    """600 people: two numeric and two categorical features, a binary label, and a sensitive
    'sex' that leaks through 'job'."""
    rng = np.random.default_rng(7)
    n = 600
    sex = rng.choice(["female", "male"], n)
    male = sex == "male"
    age = rng.integers(18, 70, n)
    hours = np.clip(np.round(rng.normal(38 + 6 * male, 8)), 5, 80).astype(int)
    typical = np.where(male, rng.choice(["mechanic", "driver"], n), rng.choice(["nurse", "clerk"], n))
    job = np.where(rng.random(n) < 0.8, typical, rng.choice(["mechanic", "driver", "nurse", "clerk"], n))
    score = 0.04 * (age - 40) + 0.06 * (hours - 38) + 0.5 * male + rng.normal(0, 1, n)
    pd.DataFrame({"age": age, "hours": hours, "job": job, "region": rng.choice(["north", "south", "east"], n),
                  "sex": sex, "income": np.where(score > 0.3, "high", "low")}).to_csv(path, index=False)


def _pick(pg, box: str, option: str) -> None:
    """Choose ``option`` in the selectbox or multiselect labelled ``box``, as a user does."""
    combo = pg.get_by_role("combobox", name=box, exact=True)
    combo.click()
    pg.get_by_role("option", name=option, exact=True).click()
    if combo.get_attribute("aria-expanded") == "true":  # a multiselect's list stays open
        combo.press("Escape")
    wait_idle(pg)


def _clear(pg, box: str) -> None:
    """Empty the multiselect labelled ``box`` with its "Clear all" button."""
    pg.locator('[data-testid="stMultiSelect"]').filter(
        has=pg.get_by_role("combobox", name=box, exact=True)).get_by_role("button", name="Clear all").click()
    wait_idle(pg)


def _download(pg, button: str, path):
    with pg.expect_download(timeout=120_000) as info:
        pg.get_by_role("button", name=button).click()
    info.value.save_as(path)
    return path


def test_an_uploaded_csv_compares_and_its_settings_rerun_from_the_command_line(browser, app_url, tmp_path):
    """Issue 12's bar on an uploaded CSV: upload, roles, methods, frontier, table, takeaway,
    a report that stands alone, and run.json + the same file through `pux compare` give the
    page's every run."""
    csv = tmp_path / "people.csv"
    _people_csv(csv)
    context = browser.new_context(viewport={"width": 1400, "height": 1000}, accept_downloads=True)
    pg = context.new_page()
    pg.set_default_timeout(60_000)
    pg.goto(app_url)
    wait_idle(pg)

    # Data page: upload the file and say which column is the label
    pg.get_by_text("Upload a CSV").click()
    wait_idle(pg)
    pg.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(str(csv))
    pg.get_by_text("Using people").wait_for(timeout=60_000)
    wait_idle(pg)
    _pick(pg, "Label (predicted)", "income")
    pg.get_by_text("label income").first.wait_for()

    # Compare page: the uploaded table is the one in use; tick the methods, then mark the sensitive column
    goto(pg, "Compare")
    pg.get_by_text("Dataset people").first.wait_for()
    pg.get_by_text("Choose at least one sensitive attribute").wait_for()
    _clear(pg, "Methods")
    for method in UPLOAD_METHODS:
        _pick(pg, "Methods", method)
    _pick(pg, "Sensitive attributes (attacked)", "sex")
    # one epsilon, one repetition (each change stops the run of the settings before it)
    _clear(pg, "epsilon grid")
    _pick(pg, "epsilon grid", "1")
    reps = pg.get_by_label("Repetitions", exact=True)
    reps.fill("1")
    reps.press("Enter")
    wait_idle(pg)
    _pick(pg, "Audit runs", "0 (no audit)")  # the command line reruns the same settings

    pg.locator('.st-key-cmp_frontier [data-testid="stPlotlyChart"]').first.wait_for(timeout=240_000)
    wait_idle(pg)
    assert pg.get_by_text("Traceback").count() == 0
    assert sum(pg.get_by_text(t).count() for t in ("keeps the most utility", "No method", "No recommendation")) >= 1
    pg.get_by_role("heading", name="Every measure").wait_for()
    headers = pg.locator('[data-testid="stDataFrame"]').first.locator('[role="columnheader"]')
    headers.first.wait_for(state="attached")
    # the grid lists the columns in view only: the first ones (attribute inference follows the
    # three utility scores and their spreads, beyond the first screen's width)
    assert {"method", "epsilon (setting)", "DP", "guarantee", "utility", "ROC AUC"} <= {
        (h.text_content() or "").strip() for h in headers.all()}
    # the app scrolls inside its own container: bring the frontier, takeaway and table into view
    pg.locator('[data-testid="stPlotlyChart"]').first.evaluate("e => e.scrollIntoView({block: 'start'})")
    wait_laid_out(pg)
    screenshot(pg, "compare_upload")

    report = _download(pg, "Report (HTML)", tmp_path / "comparison.html").read_text(encoding="utf-8")
    config_path = _download(pg, "Settings (run.json)", tmp_path / "run.json")
    runs_path = _download(pg, "Every run (CSV)", tmp_path / "comparison-runs.csv")
    context.close()

    assert report.lstrip().lower().startswith("<!doctype html") and "Takeaway" in report
    assert all(m in report for m in UPLOAD_METHODS)
    assert '<script src="http' not in report and "<link" not in report.lower().split("<script")[0]
    config = json.loads(config_path.read_text(encoding="utf-8"))
    assert config["dataset"] == "csv:people" and config["fingerprint"] in report
    assert (config["methods"], config["epsilons"], config["repetitions"]) == (UPLOAD_METHODS, [1.0], 1)
    assert (config["label"], config["sensitive"]) == ("income", ["sex"])

    # the saved settings rerun from the command line, with the uploaded file, to the same numbers
    done = subprocess.run(
        [sys.executable, "-m", "dashboard.cli", "compare", "--config", str(config_path), "--csv", str(csv),
         "--out", str(tmp_path / "rerun.html"), "--json", str(tmp_path / "rerun.json")],
        cwd=ROOT, capture_output=True, text=True, timeout=600,
    )
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr and (tmp_path / "rerun.html").is_file()
    page_runs = pd.read_csv(runs_path)
    cli_runs = pd.DataFrame(json.loads((tmp_path / "rerun.json").read_text())["runs"])
    assert len(page_runs) == len(UPLOAD_METHODS) and len(cli_runs) == len(page_runs)
    assert list(page_runs["method"]) == list(cli_runs["method"]) == UPLOAD_METHODS
    assert list(page_runs["seed"]) == list(cli_runs["seed"])
    assert list(page_runs["is_dp"]) == list(cli_runs["is_dp"])
    assert list(page_runs["guarantee"]) == list(cli_runs["guarantee"])
    # an upload's drafted schema is read from the data: no release from it claims DP
    assert not page_runs["is_dp"].any() and page_runs["guarantee"].str.contains("read from your data").any()
    text = ("method", "kind", "guarantee", "is_dp", "caveats", "reading")
    for col in [c for c in page_runs.columns if c not in text]:
        # the JSON writes a non-finite number (a ledger's infinite epsilon) as null
        ours = page_runs[col].astype(float).replace([np.inf, -np.inf], np.nan)
        assert np.allclose(ours, cli_runs[col].astype(float), rtol=1e-9, atol=0, equal_nan=True), col
