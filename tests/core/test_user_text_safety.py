"""User text in files (issue 40, part 4): no CSV cell or name the project writes starts a
spreadsheet formula; a bundle's README, notebook and report show the names as text.

``HOSTILE`` and :func:`hostile_csv` are shared with the dashboard's and the browser's tests
of the same issue: column names and category values that are a URL, markdown, HTML and
spreadsheet formulas.
"""
from __future__ import annotations

import csv
import io
import json
import random
import re
import zipfile

import pytest

EVIL_HOST = "evil.example"
#: column names, each an attack: a bare URL, a markdown link, HTML, and four formulas
HOSTILE = {
    "url": f"http://{EVIL_HOST}/x",
    "mdlink": f"[click](http://{EVIL_HOST})",
    "html": f'<a href="http://{EVIL_HOST}/a">y</a>',
    "img": "<img src=x onerror=alert(1)>",
    "hyperlink": f'=HYPERLINK("http://{EVIL_HOST}")',
    "plus": "+1",
    "minus": "-1",
    "at": "@SUM(A1)",
}
#: category values of the same kinds
HOSTILE_VALUES = [f"http://{EVIL_HOST}/v", f"[v](http://{EVIL_HOST})", "=1+1", "@x", "<b>b</b>"]
FORMULA_START = ("=", "+", "-", "@")


def hostile_rows(n: int = 60) -> list[list]:
    """``n`` rows under :data:`HOSTILE`'s names: numbers, and categories from HOSTILE_VALUES."""
    rng = random.Random(0)
    k = len(HOSTILE_VALUES)
    return [[rng.randint(18, 90), HOSTILE_VALUES[i % k], rng.choice(["yes", "no"]), rng.randint(0, 9),
             HOSTILE_VALUES[(i * 3) % k], round(rng.random(), 3), rng.randint(1, 5), rng.choice(["a", "b"])]
            for i in range(n)]


def hostile_csv(n: int = 60) -> str:
    """A small CSV under the hostile names (see :func:`hostile_rows`)."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(list(HOSTILE.values()))
    writer.writerows(hostile_rows(n))
    return buf.getvalue()


def formula_cells(text: str) -> list[str]:
    """Every cell of CSV ``text`` that a spreadsheet would read as a formula."""
    return [cell for row in csv.reader(io.StringIO(text)) for cell in row
            if cell[:1] in FORMULA_START and not _number(cell)]


def _number(cell: str) -> bool:
    try:
        float(cell)
    except ValueError:
        return False
    return True


# ------------------------------------------------------------------ checks of files
def live_html(text: str) -> list[str]:
    """What an HTML page would make of a hostile name: a link to the attacker's host, an
    element the names carry (img, iframe, an event handler), or markup inside a plotly figure's
    data (plotly draws ``<a href>`` as a link). Scripts are the page's own; their figure data
    is read with JSON's ``\\u003c`` decoded."""
    import html.parser

    found: list[str] = []

    class Reader(html.parser.HTMLParser):
        def handle_starttag(self, tag, attrs):
            names = dict(attrs)
            if tag in ("img", "iframe", "object", "embed") or any(k.startswith("on") for k in names):
                found.append(f"<{tag} {attrs}>")
            if tag == "a" and EVIL_HOST in (names.get("href") or ""):
                found.append(f"link to {names['href']}")

    Reader().feed(text)
    for script in re.findall(r"<script\b[^>]*>(.*?)</script>", text, flags=re.S | re.I):
        if "plotly.js v" in script:  # the library itself
            continue
        decoded = script.replace("\\u003c", "<").replace("\\u003e", ">").replace("\\u002f", "/")
        found += [f"figure: {m}" for m in re.findall(r"<(?:a|img|script)\b[^>]{0,60}", decoded, flags=re.I)]
    return found


def live_markdown(text: str) -> list[str]:
    """What a markdown renderer (GitHub's, Jupyter's) would make of a hostile name outside
    inline code: a bare address (linked even when escaped), a link, HTML."""
    outside = re.sub(r"(?<!\\)`[^`\n]+`", "", text)
    shown = re.sub(r"\\(.)", "", outside)  # escaped characters make no markup
    return (re.findall(r"\S*(?:://|(?i:www)\.|@\w)\S*", shown) + re.findall(r"\]\(|<(?:a|img|script)\b", shown))


# ------------------------------------------------------------------ the tests
def hostile_dataset(n: int = 60):
    """The hostile table as loaded from an upload named ``www.evil.example.csv``, with its label
    and sensitive attribute named by the attack."""
    from core.data.csv_loader import load_csv

    data = load_csv(hostile_csv(n).encode(), name=f"www.{EVIL_HOST}")
    return data.with_roles(label=HOSTILE["html"], sensitive=[HOSTILE["mdlink"]])


def test_the_checks_find_what_they_look_for():
    """The checks below would see a formula, a link and markup (else they prove nothing)."""
    assert formula_cells(hostile_csv()) and live_html(f"<a href='http://{EVIL_HOST}'>x</a><img src=x>")
    assert live_markdown(f"# on www.{EVIL_HOST}: [x](y)") and not live_markdown("`http://x.y` a\\[b\\]\\(c\\)")


def test_a_guarded_csv_starts_no_formula():
    import pandas as pd

    from core.data.export import guard_formulas, to_csv_bytes

    frame = pd.read_csv(io.StringIO(hostile_csv()))
    text = to_csv_bytes(frame).decode("utf-8")
    assert not formula_cells(text), formula_cells(text)
    header = next(csv.reader(io.StringIO(text)))
    assert header[4:] == [f"'{HOSTILE['hyperlink']}", "'+1", "'-1", "'@SUM(A1)"]
    assert guard_formulas(frame)["'-1"].equals(frame["-1"])  # a number is no formula: it stays


def test_the_release_zip_csv_starts_no_formula():
    from core.privacy.ledger import PrivacyLedger
    from core.privacy.release import release_files

    data = hostile_dataset()
    ledger = PrivacyLedger()
    ledger.mark_not_dp(f"reads {HOSTILE['url']}")
    files = release_files(data.frame, file_name="www.evil.example-release1.csv", method="m", ledger=ledger,
                          noise=None)
    text = files["www.evil.example-release1.csv"].decode("utf-8")
    assert not formula_cells(text), formula_cells(text)


@pytest.fixture(scope="module")
def hostile_bundle():
    """A colleague's bundle of the Correlations page on the hostile upload, its data included."""
    from core.bundle.build import build_bundle
    from core.bundle.page_config import PageConfig

    data = hostile_dataset()
    config = PageConfig(page="correlations", dataset=f"csv:www.{EVIL_HOST}.csv", seed=1, label=data.label,
                        sensitive=tuple(data.sensitive), settings={"heatmap_records": 20, "mic_rows": 60},
                        fingerprint=data.fingerprint())
    return build_bundle(config, data, include_data=True)


def _members(data: bytes) -> dict[str, str]:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return {n: archive.read(n).decode("utf-8") for n in archive.namelist()}


def test_a_bundles_readme_shows_the_names_as_typed(hostile_bundle):
    readme = _members(hostile_bundle.data)["README.md"]
    assert EVIL_HOST.replace(".", "") in readme.replace(".", "")  # the name is there, as text
    assert not live_markdown(readme), live_markdown(readme)


def test_a_bundles_notebook_has_no_user_text_in_its_markdown(hostile_bundle):
    notebook = json.loads(_members(hostile_bundle.data)["rerun.ipynb"])
    cells = ["".join(c["source"]) for c in notebook["cells"] if c["cell_type"] == "markdown"]
    assert cells and not [c for c in cells if live_markdown(c) or EVIL_HOST in c]


def test_a_bundles_report_holds_no_markup_from_the_names(hostile_bundle):
    report = _members(hostile_bundle.data)["report.html"]
    assert not live_html(report), live_html(report)


def test_every_csv_of_a_bundle_starts_no_formula(hostile_bundle):
    found = {n: formula_cells(t) for n, t in _members(hostile_bundle.data).items() if n.endswith(".csv")}
    assert found and not any(found.values()), found
