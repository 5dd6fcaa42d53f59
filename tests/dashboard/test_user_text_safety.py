"""User text is never markup on the pages (issue 40, part 4), at the AppTest level.

:func:`dashboard.shared.safe.md` is the one way user text reaches a message: its escaping is
tested on URLs, markdown, HTML and LaTeX. Then every page runs on a table whose file name is a
bare address and whose column names (the label and the sensitive attribute among them) and
category values hold a URL, markdown, HTML and formulas; every text Streamlit renders as
markdown must hold the names escaped (an escaped name never shows ``evil.example`` with a bare
dot), and no plotly figure may carry a link or an image tag. The browser test
(``tests/e2e/test_user_text_browser.py``) looks at the rendered pages.
"""
from __future__ import annotations

import json
import re

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from dashboard.navigation import PAGES, page_file
from dashboard.shared.safe import JOINER, md
from tests.core.test_user_text_safety import EVIL_HOST, HOSTILE, formula_cells, hostile_csv, live_html
from tests.dashboard.conftest import APP

#: markdown, HTML, LaTeX, Streamlit's own directives, and what GFM links with no markup at all
MD_ATTACKS = [
    "http://evil.example/x", "HTTPS://EVIL.EXAMPLE", "www.evil.example", "WWW.evil.example", "me@evil.example",
    "mailto:me@evil.example", "[click](http://evil.example)", "![x](http://evil.example/i.png)",
    "<http://evil.example>", "**b** __b__ _i_ *i* ~~s~~", "`code`", "# heading", "> quote", "| a | b |",
    "- item", "1. item", "<a href=x>y</a>", "<script>alert(1)</script>", "<img src=x onerror=alert(1)>",
    "$x^2$ and $$y$$", ":red[x] :material/home:", "a\nb\r\n# c", "&lt;b&gt;", "back\\slash\\*",
]
#: what markdown (CommonMark, GFM, Streamlit's directives and math) reads as markup
_META = set("\\`*_{}[]()<>#+-.!|$~:&")


def _unescaped(out: str) -> list[str]:
    """The markup characters of ``out`` that no backslash escapes."""
    found, i = [], 0
    while i < len(out):
        if out[i] == "\\":
            i += 2
            continue
        if out[i] in _META:
            found.append(out[i])
        i += 1
    return found


@pytest.mark.parametrize("text", MD_ATTACKS)
def test_md_leaves_nothing_the_renderer_reads_as_markup(text):
    out = md(text)
    assert not _unescaped(out), (text, out)
    shown = re.sub(r"\\(.)", r"\1", out)  # what the reader sees
    assert "://" not in shown and not re.search(r"(?i)www\.|@\w", shown), shown  # no bare address
    assert "\n" not in out and "\r" not in out
    # and it is the text as typed: the escapes and the invisible joiner are all md() added
    assert shown.replace(JOINER, "") == text.replace("\r", " ").replace("\n", " ")


def test_md_keeps_plain_text_and_numbers():
    assert md("age 42, epsilon 0.5") == r"age 42, epsilon 0\.5"
    assert md(3.25) == r"3\.25"


# ------------------------------------------------------------------ every page
#: element kinds whose options are shown as plain text (the rest render their texts as markdown)
_PLAIN_OPTIONS = {"selectbox", "multiselect", "select_slider"}
#: proto fields Streamlit renders as markdown
_MARKDOWN_FIELDS = {"body", "label", "help", "options", "delta", "text", "placeholder"}
_SKIP = {"dataframe", "arrow_data_frame", "code", "json", "text_input", "text_area", "plotly_chart"}
#: inline code shows its text as typed (no escape, link or tag inside it works)
_CODE_SPAN = re.compile(r"(?<!\\)`[^`]+`")
_MARKUP = re.compile(r"(?<!\\)<\s*(a|img|script)\b", re.IGNORECASE)


def _strings(message, fields):
    """Every string of protobuf ``message`` under a field named in ``fields`` (at any depth)."""
    for field, value in message.ListFields():
        repeated = getattr(field, "is_repeated", None)
        items = value if (field.label == 3 if repeated is None else repeated) else [value]
        for item in items:
            if isinstance(item, str) and field.name in fields:
                yield item
            elif hasattr(item, "ListFields"):
                yield from _strings(item, fields)


def _nodes(node):
    yield node
    children = getattr(node, "children", None)
    for child in (children.values() if isinstance(children, dict) else []):
        yield from _nodes(child)


def rendered_markdown(at: AppTest) -> list[tuple[str, str]]:
    """(element kind, text) for every text the page renders as markdown."""
    out = []
    for node in _nodes(at._tree):
        kind, proto = getattr(node, "type", ""), getattr(node, "proto", None)
        if proto is None or kind in _SKIP or not hasattr(proto, "ListFields"):
            continue
        fields = _MARKDOWN_FIELDS - ({"options"} if kind in _PLAIN_OPTIONS else set())
        out += [(kind, s) for s in _strings(proto, fields)]
    return out


def plotly_strings(at: AppTest) -> list[str]:
    """Every string of every plotly figure on the page."""
    def walk(value):
        if isinstance(value, str):
            yield value
        elif isinstance(value, dict):
            for v in value.values():
                yield from walk(v)
        elif isinstance(value, list):
            for v in value:
                yield from walk(v)
    return [s for chart in at.get("plotly_chart") for s in walk(json.loads(chart.proto.spec))]


def live_markup(at: AppTest) -> list[str]:
    """What on the page shows a hostile name as markup (empty when everything is escaped)."""
    texts = [(kind, _CODE_SPAN.sub("", text)) for kind, text in rendered_markdown(at)]
    found = [f"{kind}: {text[:160]!r}" for kind, text in texts if EVIL_HOST in text or _MARKUP.search(text)]
    return found + [f"plotly: {s[:160]!r}" for s in plotly_strings(at) if _MARKUP.search(s)]


def hostile_app(*, timeout: float = 300) -> AppTest:
    """AppTest on the Data page with the hostile table uploaded (its file name a bare
    address) and its label and sensitive attribute named by the attack, as a user sets them."""
    from dashboard.data.sections import UPLOAD_KEY
    from dashboard.shared.serving.datasets import parse_upload

    content = hostile_csv().encode()
    dataset = parse_upload(content, f"www.{EVIL_HOST}.csv")
    at = AppTest.from_file(str(APP), default_timeout=timeout)
    at.run()
    # what the Data page keeps of an upload (AppTest cannot drive the file uploader)
    at.session_state[UPLOAD_KEY] = {"key": None, "dataset": dataset, "content": content, "max_rows": None}
    at.radio(key="data_source").set_value("Upload a CSV").run()
    at.selectbox(key=f"data_label_{dataset.name}").set_value(HOSTILE["html"]).run()
    at.multiselect(key=f"data_sensitive_{dataset.name}").set_value([HOSTILE["mdlink"]]).run()
    assert at.session_state["pux_dataset"].label == HOSTILE["html"]
    return at


def test_no_page_renders_a_hostile_name_as_markup():
    """Every page's first view (one session, so the jobs a page starts are stopped once)."""
    at, problems = hostile_app(), {}
    for name in PAGES:
        if name != "data":
            at.switch_page(page_file(name)).run()
        found = [e.value for e in at.exception] + live_markup(at)
        if found or not rendered_markdown(at):
            problems[name] = found or ["the page rendered nothing"]
    assert not problems, problems


# ------------------------------------------------------------------ reports and downloads
@pytest.fixture(scope="module")
def compared(tmp_path_factory):
    """``pux compare`` on the hostile CSV: its config, result, dataset and report."""
    from core.compare.config import CompareConfig, load_dataset, run_config
    from dashboard.cli import main

    folder = tmp_path_factory.mktemp("hostile")
    path = folder / f"www.{EVIL_HOST}.csv"
    path.write_text(hostile_csv(), encoding="utf-8")
    config = CompareConfig(dataset=f"csv:{path.name}", methods=("Raw table", "kRR", "MDAV_DP"), epsilons=(1.0,),
                           seed=1, label=HOSTILE["html"], sensitive=(HOSTILE["mdlink"],), repetitions=1,
                           audit_runs=0)
    (folder / "run.json").write_text(config.to_json(), encoding="utf-8")
    assert main(["compare", "--config", str(folder / "run.json"), "--out", str(folder / "report.html"),
                 "--csv", str(path)]) == 0
    return config, run_config(config, csv=path), load_dataset(config, csv=path), (folder / "report.html").read_text()


def test_pux_compares_report_holds_no_markup_from_the_names(compared):
    report = compared[3]
    assert HOSTILE["img"].replace("<", "&lt;").replace(">", "&gt;") in report  # shown, as text
    assert not live_html(report), live_html(report)


def test_the_compare_pages_report_holds_no_markup_from_the_names(compared):
    from dashboard.compare.report import build_report

    config, result, dataset, _ = compared
    report = build_report(result, config=config, dataset=dataset)
    assert not live_html(report), live_html(report)


def test_the_compare_pages_csvs_start_no_formula(compared):
    from dashboard.compare.report import runs_csv, summary_csv

    result = compared[1]
    for text in (summary_csv(result), runs_csv(result)):
        assert not formula_cells(text), formula_cells(text)


def test_the_data_pages_csv_and_a_charts_csv_start_no_formula():
    from dashboard.data.charts import column_distribution_data
    from dashboard.shared.widgets.chart_data import chart_csv
    from dashboard.shared.serving.datasets import csv_bytes, parse_upload

    dataset = parse_upload(hostile_csv().encode(), f"www.{EVIL_HOST}.csv").with_roles(label=HOSTILE["hyperlink"])
    texts = [csv_bytes(dataset).decode("utf-8"), csv_bytes(dataset, block_rows=7).decode("utf-8")]
    texts += [chart_csv(column_distribution_data(dataset, c)).decode("utf-8") for c in (HOSTILE["at"], HOSTILE["plus"])]
    for text in texts:
        assert text.count("\n") > 1 and not formula_cells(text), formula_cells(text)


def _guarantee_of_a_scheme_reading_hostile_columns():
    """The 'not differentially private' box of a scheme that read columns named by the attack
    (the warning Publishing shows for the paper's schemes)."""
    from core.privacy.ledger import PrivacyLedger
    from dashboard.shared.widgets.privacy import guarantee_box
    from tests.core.test_user_text_safety import HOSTILE

    ledger = PrivacyLedger()
    ledger.mark_not_dp("chooses its attributes on the records: " + ", ".join(HOSTILE.values()))
    guarantee_box(ledger, reads_raw=[f"www.{HOSTILE['url']}"], expanded=True)


def test_the_not_private_warning_shows_column_names_as_text():
    at = AppTest.from_function(_guarantee_of_a_scheme_reading_hostile_columns).run()
    assert at.warning and "differentially private" in at.warning[0].value
    assert not live_markup(at), live_markup(at)


def test_charts_drawn_after_a_sweep_show_column_names_as_text():
    """IMPOSTER's sweep charts name the sensitive attribute and the label in annotations and
    panel titles, SSKM_DP's grid an attribute in its colour bar, where plotly reads a link
    (the page views above end before the sweeps)."""
    from dashboard.imposter import charts, charts_training
    from dashboard.shared.widgets.layout import for_export
    from dashboard.sskm.charts import som_grid
    from tests.dashboard.imposter.test_charts import _curve, _lambda_runs, _theta_runs

    s, label = HOSTILE["html"], HOSTILE["img"]
    figures = [charts.krr_vs_epsilon(_curve(), imposter=(0.6, 0.8), sensitive=s, label=label, majority=0.5,
                                     label_majority=0.7, real=(0.7, 0.9), data=f"www.{EVIL_HOST}"),
               charts_training.table2_chart(_theta_runs(), sensitive=s, label=label, data=HOSTILE["url"]),
               charts_training.fig8_chart(_lambda_runs(), sensitive=s, label=label, data=HOSTILE["mdlink"])]
    figures.append(som_grid(np.full((3, 3), 0.5), colorbar=f"{s} (scaled)", dataset=HOSTILE["url"]))
    for fig in figures:
        texts = [t for t in _walk(for_export(fig).to_plotly_json()) if _MARKUP.search(t)]
        assert not texts, texts


def _walk(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _walk(v)
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from _walk(v)
