"""The Compare report: self-contained HTML with every section, user strings escaped; CSV helpers."""
from __future__ import annotations

import dataclasses
import io
import re

import pandas as pd
import pytest

from core.compare.registry import METHODS
from core.compare.config import CompareConfig, load_dataset, run_config
from core.data import load_sample
from dashboard.compare.report import build_report, package_versions, runs_csv, summary_csv

EVIL = "<script>alert(1)</script>"
FILE = "evil<b>name</b>.csv"
METHOD_NAMES = ("Raw table", "MDAV_DP", "CDP-LR", "Logistic regression (non-private)")


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    """A tiny comparison of a CSV whose sensitive column is named like a script."""
    frame = load_sample("census").frame.rename(columns={"sex": EVIL})
    path = tmp_path_factory.mktemp("report") / "upload.csv"
    frame.to_csv(path, index=False)
    config = CompareConfig(dataset=f"csv:{FILE}", methods=METHOD_NAMES, epsilons=(1.0,), seed=1,
                           label="income", sensitive=(EVIL,), repetitions=2, max_rows=200,
                           risk=f"ai_advantage_{EVIL}")
    dataset = load_dataset(config, csv=path)
    result = run_config(config, csv=path)
    result = dataclasses.replace(result, skipped={**result.skipped, "kRR": "no implicit attributes (test)."})
    html = build_report(result, config=config, created="2030-01-02T03:04:05+00:00", dataset=dataset)
    return config, result, dataset, html


def test_takeaway_methods_fingerprint_and_guarantees(setup):
    config, result, _, html = setup
    import html as htmlmod

    assert htmlmod.escape(result.takeaway(utility=config.utility, risk=config.risk)) in html
    for name in METHOD_NAMES:
        assert htmlmod.escape(name) in html
        assert htmlmod.escape(METHODS[name].description) in html
    assert result.parameters["fingerprint"] in html
    for sentence in result.runs["guarantee"].unique():
        assert htmlmod.escape(sentence) in html
    assert "no implicit attributes (test)." in html and "Skipped" in html
    assert "2030-01-02T03:04:05+00:00" in html
    assert "not a private release" in html.replace("itself a private release", "not a private release")


def test_parameters_seed_versions_and_config(setup):
    config, result, dataset, html = setup
    import html as htmlmod

    for name, version in package_versions().items():
        assert htmlmod.escape(name) in html and htmlmod.escape(version) in html
    assert {"python", "numpy", "pandas", "scikit-learn", "torch", "plotly"} <= set(package_versions())
    assert htmlmod.escape(config.to_json()) in html
    assert "pux compare --config run.json --out report.html" in html
    assert f"<td>{dataset.n_rows}</td>" in html
    assert f"<td>seed</td><td>{result.parameters['seed']}</td>" in html


def test_every_measure_in_the_table(setup):
    _, result, _, html = setup
    summary = result.summary()
    row = summary[summary["method"] == "Raw table"].iloc[0]
    assert f"{row['utility_mean']:.3g} ± {row['utility_std']:.3g}" in html
    for measure in ("utility", "tv_one_way", "dcr_risk", "mia_auc", "ledger_epsilon"):
        assert f"<th>{measure}</th>" in html


def test_user_strings_are_escaped(setup):
    _, _, _, html = setup
    assert EVIL not in html and "<b>name</b>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "evil&lt;b&gt;name&lt;/b&gt;.csv" in html


def test_self_contained_plotly_once_and_no_network(setup):
    _, _, _, html = setup
    assert_offline_html(html)


def assert_offline_html(html: str) -> None:
    """One complete HTML page that loads nothing: plotly.js inlined once, no src/href, no
    remote style, no address outside the scripts."""
    assert html.count("plotly.js v") == 1  # the library's banner: embedded once
    assert html.count("Plotly.newPlot(") >= 1
    tags = re.findall(r"<(?:script|link|img|iframe|source|object|embed)\b[^>]*>", html, flags=re.I)
    assert not [t for t in tags if re.search(r"(?:src|href)\s*=", t, flags=re.I)]
    assert not re.search(r"@import|url\(\s*['\"]?https?:", html)
    markup = re.sub(r"<script\b[^>]*>.*?</script>", "", html, flags=re.S)  # the page outside scripts
    assert not re.search(r"https?://", markup)
    assert html.startswith("<!DOCTYPE html>") and html.rstrip().endswith("</html>")


def test_report_is_stable_for_a_fixed_time(setup):
    config, result, dataset, html = setup
    assert build_report(result, config=config, created="2030-01-02T03:04:05+00:00", dataset=dataset) == html


def test_report_refuses_wrong_types(setup):
    config, result, _, _ = setup
    with pytest.raises(TypeError, match="ComparisonResult"):
        build_report(result.runs, config=config)
    with pytest.raises(TypeError, match="CompareConfig"):
        build_report(result, config=config.to_dict())


def test_csv_helpers(setup):
    _, result, _, _ = setup
    summary = pd.read_csv(io.StringIO(summary_csv(result)))
    runs = pd.read_csv(io.StringIO(runs_csv(result)))
    assert len(summary) == len(result.summary()) and len(runs) == len(result.runs)
    assert list(runs["method"]) == list(result.runs["method"])
    assert runs["utility"].tolist() == pytest.approx(result.runs["utility"].tolist(), nan_ok=True)
    # formulas guarded: a column name or cell starting with '=' gets a quote
    evil = dataclasses.replace(result, runs=result.runs.assign(method="=HYPERLINK(1)"))
    assert "'=HYPERLINK(1)" in runs_csv(evil)
    with pytest.raises(TypeError):
        summary_csv(result.runs)
