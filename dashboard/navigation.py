"""The app's pages as data: each page's address, file, title and icon, grouped in sections.

:mod:`dashboard.app` turns this into ``st.navigation``; tests and the Tour look pages up
here by name (the address in the URL), so a page's file can move without touching them.
No streamlit here.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class PageSpec:
    """One page of the app.

    Attributes
    ----------
    name : str
        Its address (``/<name>``); the default page, ``data``, is also served at ``/``.
    file : str
        The page script, relative to ``dashboard/`` (layout only): ``<feature>/<name>.py``,
        so that streamlit derives the address from the file's name.
    title, icon : str
        What the navigation shows.
    """

    name: str
    file: str
    title: str
    icon: str


SECTIONS: dict[str, tuple[PageSpec, ...]] = {
    "Start": (
        PageSpec("data", "data/data.py", "Data", ":material/table:"),
        PageSpec("tour", "tour/tour.py", "Tour", ":material/school:"),
    ),
    "Paper 000 · CDP-LR": (
        PageSpec("correlations", "cdp/correlations.py", "Correlations", ":material/hub:"),
        PageSpec("dc_fbfs", "cdp/dc_fbfs.py", "DC-FBFS", ":material/filter_alt:"),
        PageSpec("cdp_lr", "cdp/cdp_lr.py", "CDP-LR", ":material/tune:"),
        PageSpec("publishing", "cdp/publishing.py", "Publishing", ":material/query_stats:"),
    ),
    "Paper 002 · IMPOSTER": (
        PageSpec("imposter", "imposter/imposter.py", "IMPOSTER", ":material/theater_comedy:"),
    ),
    "Paper 003 · SSKM_DP": (
        PageSpec("sskm", "sskm/sskm.py", "SSKM_DP", ":material/grid_view:"),
    ),
    "Beyond the papers": (
        PageSpec("compare", "compare/compare.py", "Compare", ":material/compare_arrows:"),
    ),
}

#: every page by name
PAGES: dict[str, PageSpec] = {p.name: p for section in SECTIONS.values() for p in section}
DEFAULT_PAGE = "data"


def page_file(name: str) -> str:
    """The script of page ``name`` relative to ``dashboard/`` (what ``st.switch_page`` takes)."""
    try:
        return PAGES[name].file
    except KeyError:
        raise ValueError(f"There is no page {name!r}; the pages are {', '.join(PAGES)}.") from None
