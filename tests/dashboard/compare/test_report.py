"""Honest wording of Compare (issue 23): the table, the method list, the chart and the report say
what each release delivers; a release that is not DP never shows its epsilon as a guarantee."""
from __future__ import annotations

import dataclasses

import pytest

from core.compare.run import compare
from core.compare.result import NOT_DP_BADGE, PRIVATE_MEASURES_NOTE, privacy_label
from core.compare.config import CompareConfig
from core.data import load_sample
from core.privacy.schema_builtin import schema_for
from core.privacy.schema_draft import draft_schema
from dashboard.compare.cached import EPSILON_SETTING, method_rows, table_rows
from dashboard.compare.charts import frontier_chart
from dashboard.compare.report import build_report

METHODS = ("Raw table", "MDAV_DP", "IDP-KMeans", "CDP-LR")


@pytest.fixture(scope="module")
def census():
    return load_sample("census")


@pytest.fixture(scope="module")
def result(census):
    return compare(census, methods=list(METHODS), epsilons=[1.0], repetitions=1, max_rows=200, random_state=0,
                   audit_runs=0)  # the audit's views: test_audit_views.py


@pytest.fixture(scope="module")
def drafted(census):
    """The same comparison on a schema drafted from the rows (every entry read from data)."""
    return compare(census, methods=["IDP-KMeans", "CDP-LR"], epsilons=[1.0], repetitions=1, max_rows=200,
                   random_state=0, schema=draft_schema(census))


def test_privacy_label_never_presents_a_nominal_epsilon_as_a_guarantee():
    assert privacy_label(True, 1.0, 0.0, 1.0) == "epsilon = 1"
    assert privacy_label(True, 1.0, 1e-5, 1.0) == "epsilon = 1, delta = 1e-05"
    assert privacy_label(False, float("inf"), 1.0, 2.0) == "not differentially private (epsilon 2 is nominal)"
    assert privacy_label(False, float("inf"), 1.0, float("nan")) == "not differentially private"


def test_table_badges_not_dp_rows_and_shows_each_ledger_sentence(result):
    rows = table_rows(result).set_index("method")
    assert rows.loc["MDAV_DP", "DP"] == NOT_DP_BADGE and rows.loc["IDP-KMeans", "DP"] == "yes"
    assert rows.loc["MDAV_DP", "guarantee"] == "not differentially private (epsilon 1 is nominal)"
    assert rows.loc["CDP-LR", "guarantee"] == "epsilon = 1"
    assert rows.loc["MDAV_DP", "ledger"].startswith("Not differentially private")
    assert "covers one record" in rows.loc["CDP-LR", "ledger"]  # the caveat beside the sentence
    assert EPSILON_SETTING in rows.columns and "epsilon" not in rows.columns


def test_a_drafted_schema_makes_every_release_say_not_dp(drafted):
    rows = table_rows(drafted).set_index("method")
    assert (rows["DP"] == NOT_DP_BADGE).all()
    assert all("read from your data" in text for text in rows["ledger"])
    assert not drafted.runs["is_dp"].any()


def test_method_rows_carry_the_badge_and_the_caveats(result):
    rows = method_rows(result).set_index("method")
    assert rows.loc["Raw table", "DP"] == NOT_DP_BADGE
    assert "shipped with the dataset" in rows.loc["IDP-KMeans", "not covered or taken as public"]


def test_the_chart_hover_gives_the_reason_and_calls_the_epsilon_nominal(drafted):
    fig = frontier_chart(drafted.summary(), risk="ai_advantage")
    hover = fig.data[0].hovertext[0]
    assert "nominal epsilon 1" in hover and "not differentially private" in hover.lower()
    assert "read from your data" in hover


def test_the_takeaway_calls_a_not_dp_epsilon_nominal(drafted):
    text = drafted.takeaway(risk="dcr_excess", below=1.0)
    assert "nominal epsilon 1 (not differentially private)" in text


def test_report_badges_sentences_measures_note_and_schema(result, census):
    config = CompareConfig(dataset="census", methods=METHODS, epsilons=(1.0,), seed=0, label="income",
                           sensitive=("sex",), repetitions=1, max_rows=200)
    html = build_report(result, config=config, created="2030-01-01T00:00:00+00:00", dataset=census)
    assert '<span class="notdp">not differentially private</span>' in html
    assert "<th>epsilon (setting)</th>" in html and "<th>guarantee</th>" in html
    assert "not differentially private (epsilon 1 is nominal)" in html
    assert "evaluated on your private data" in html and PRIVATE_MEASURES_NOTE.split(":")[0] in html
    assert "<h2>Public schema</h2>" in html and "the generator core.data.samples.make_census" in html
    assert "Not covered or taken as public:" in html
    assert "<th>nominal_epsilon</th>" not in html


def test_the_result_carries_its_schema(result, census):
    assert result.schema == schema_for(census)
    assert result.to_dict()["parameters"]["schema"] == schema_for(census).to_dict()
    assert dataclasses.replace(result, parameters={}).schema is None


# ----------------------------------------------------------------------------- references (issue 24)
def _noise_dataset():
    import numpy as np
    import pandas as pd

    from core.data import Dataset

    rng = np.random.default_rng(1)
    n = 400
    frame = pd.DataFrame({"a": rng.choice(["x", "y", "z"], n), "c": rng.integers(0, 4, n).astype(float),
                          "label": rng.choice(["no", "yes"], n, p=[0.9, 0.1]), "s": rng.choice(["f", "m"], n)})
    return Dataset(frame, name="noise", label="label", sensitive=("s",), numeric=("c",),
                   categorical=("a", "label", "s"))


@pytest.fixture(scope="module")
def noise():
    return compare(_noise_dataset(), methods=["Raw table", "MDAV", "IDP-KMeans"], epsilons=[1.0], repetitions=1,
                   random_state=0)


def test_the_table_says_the_utility_against_the_constant_guess(noise):
    from dashboard.compare.cached import BELOW_GUESS

    table = table_rows(noise)
    columns = list(table.columns)
    assert columns.index(BELOW_GUESS) > columns.index("runs")  # the measures come first in the grid
    rows = table.set_index("method")
    assert rows[BELOW_GUESS].str.contains("constant guess").all()
    assert rows[BELOW_GUESS].str.contains("equals the constant guess|is below the constant guess").any()


def test_the_page_says_when_the_attack_has_no_power(noise):
    from dashboard.compare.cached import below_guess, power_note, reference_rows

    note = power_note(noise, "ai_advantage")
    assert note.startswith("The attack has no power on this table.") and "Even the raw table" in note
    refs = reference_rows(noise)
    assert refs.loc[refs["measure"] == "attribute-inference advantage", "attack has power"].iloc[0].startswith("no")
    assert any("constant guess" in t for t in below_guess(noise))


def test_the_report_shows_the_references_and_the_missing_power(noise):
    config = CompareConfig(dataset="csv:noise.csv", methods=("Raw table", "MDAV", "IDP-KMeans"), epsilons=(1.0,),
                           seed=0, label="label", sensitive=("s",), repetitions=1)
    html = build_report(noise, config=config, created="2030-01-01T00:00:00+00:00")
    assert "<h2>References</h2>" in html
    assert "The attack has no power on this table for the frontier's risk." in html
    assert "No recommendation from attribute-inference advantage" in html
    assert "majority class (constant guess)" in html and "non-private model" in html  # the chart's lines
    assert "No better than the constant guess:" in html


def test_the_cdp_lr_row_names_its_reading(result):
    rows = table_rows(result).set_index("method")
    assert rows.loc["CDP-LR", "reading"].startswith("the CDP-LR page's DP reading")
    assert rows.loc["Raw table", "reading"] == ""
