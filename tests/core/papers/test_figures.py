"""core.papers.figures: every figure and table of the three papers, and where it lives."""
from __future__ import annotations

from pathlib import Path

import pytest

from core.papers.figures import FIGURES, PAPERS, PaperFigure, results

from dashboard.navigation import PAGES

DASHBOARD = Path(__file__).resolve().parents[3] / "dashboard"


def _feature_source(page: str) -> str:
    """The text of the feature folder that holds ``page``: its page script and the panels it lays out."""
    folder = (DASHBOARD / PAGES[page].file).parent
    return "\n".join(p.read_text(encoding="utf-8") for p in sorted(folder.glob("*.py")))


@pytest.mark.parametrize("fig", results(), ids=lambda f: f"{f.paper}-{f.label}")
def test_each_result_is_named_on_its_page(fig):
    source = _feature_source(fig.page)
    assert fig.label in source, f"{fig.page} does not name {fig.label}"


@pytest.mark.parametrize("fig", [f for f in FIGURES if f.page], ids=lambda f: f"{f.paper}-{f.label}")
def test_every_named_page_exists(fig):
    assert (DASHBOARD / PAGES[fig.page].file).is_file()


@pytest.mark.parametrize("fig", [f for f in FIGURES if f.reproduction], ids=lambda f: f"{f.paper}-{f.label}")
def test_every_reproduction_is_in_the_registry(fig):
    from core.papers.reproductions import reproductions

    assert fig.reproduction in reproductions()


def test_each_paper_lists_each_label_once():
    seen = [(f.paper, f.label) for f in FIGURES]
    assert len(seen) == len(set(seen))
    assert {f.paper for f in FIGURES} == set(PAPERS)


def test_every_result_has_a_reproduction():
    assert all(f.reproduction for f in results())


def test_a_result_needs_a_page():
    with pytest.raises(ValueError, match="needs the page"):
        PaperFigure("000", "Fig. 9", "x", "result", "")


def test_an_unknown_paper_is_refused():
    with pytest.raises(ValueError, match="paper must be one of"):
        PaperFigure("001", "Fig. 1", "x", "description", "")
