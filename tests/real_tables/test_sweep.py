"""The real-table sweep (issue 39): pages in AppTest on real public tables uploaded on the Data
page, with no exception, no error box, no "Holds here" on a degenerate number and a reference
beside every metric (:func:`tests.real_tables.sweep.problems`).

The fast subset (``make test``) runs a few small tables on the cheap pages; the whole corpus
on every page is marked slow (``pytest -m slow tests/real_tables``), and
``python -m benchmarks --only real_tables`` times it and writes its table.
"""
from __future__ import annotations

import pytest

from tests.real_tables.corpus import BY_NAME, CORPUS, Unavailable
from tests.real_tables.sweep import TABLE_PAGES, Caps, sweep

#: the fast subset: small tables on pages that compute on opening (about 20 s together)
FAST = {
    "spector": ("data", "dc_fbfs"),
    "cars": ("data", "correlations"),
    "burtin": ("data", "dc_fbfs"),
    "fertility": ("data",),
    "penguins": ("data", "correlations", "dc_fbfs"),
    "la_riots": ("data", "dc_fbfs"),
}


def _sweep(name: str, pages) -> None:
    try:
        records = sweep(BY_NAME[name], pages, caps=Caps(timeout=900))
    except Unavailable as exc:
        pytest.skip(str(exc))
    failures = [f"{r.page} x {r.table}: {p}" for r in records for p in r.problems]
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("name", list(FAST))
def test_small_tables_on_the_cheap_pages(name):
    _sweep(name, FAST[name])


@pytest.mark.slow
@pytest.mark.parametrize("name", [t.name for t in CORPUS])
def test_every_page_on_every_table(name):
    _sweep(name, TABLE_PAGES)


@pytest.mark.slow
def test_the_tour_on_its_own_samples():
    _sweep("spector", ("data", "tour"))
