"""The Tour as one offline HTML page, in the Compare report's format (:mod:`dashboard.compare.report`).

Every step in order: its chapter and title, our text, the chart (plotly.js inlined once,
nothing fetched from the network), the computed facts, the paper's claim with our verdict,
each audit's verdict, and the chart's numbers as a CSV link; then the package versions.
Everything is escaped here; the steps' texts are our own markdown, shown as plain
paragraphs (bold marks dropped).
"""
from __future__ import annotations

from datetime import datetime, timezone
from typing import Iterable

from dashboard.compare.report import _download, _e, _figures_html, _pairs, html_document, package_versions
from dashboard.tour.steps import StepView, TourStep

__all__ = ["build_tour_report"]

_CSS = """
.chapter { color: #4c78a8; font-size: 0.9em; text-transform: uppercase; letter-spacing: 0.04em; margin-top: 2.5em; }
.claim { padding: 0.6em 1em; border-left: 4px solid #999; background: #f7f7f7; }
.claim.holds { border-color: #2ca02c; } .claim.fails { border-color: #ff7f0e; } .claim.open { border-color: #4c78a8; }
.audit { padding: 0.4em 1em; border-left: 4px solid #2ca02c; } .audit.violation { border-color: #d62728; }
"""


def _paragraphs(text: str) -> list[str]:
    return [f"<p>{_e(part.replace('**', ''))}</p>" for part in text.split("\n\n") if part.strip()]


def _step_html(i: int, n: int, step: TourStep, view: StepView, figure_html: str | None) -> list[str]:
    out = [f'<p class="chapter">{_e(step.chapter)} · step {i + 1} of {n}</p>', f"<h2>{_e(step.title)}</h2>",
           *_paragraphs(step.text)]
    if figure_html is not None:
        out.append(figure_html)
    if view.facts:
        out.append("<ul>" + "".join(f"<li>{_e(f)}</li>" for f in view.facts) + "</ul>")
    if view.claim is not None:
        c = view.claim
        kind = {True: "holds", False: "fails", None: "open"}[c.holds]
        out.append(f'<div class="claim {kind}"><p><b>{_e(c.figure)} · {_e(c.verdict)}.</b> {_e(c.finding)}</p>'
                   f"<p><i>The paper:</i> {_e(c.paper)}</p></div>")
    for what, audit in view.audits:
        cls = "audit violation" if audit.violation else "audit"
        out.append(f'<p class="{cls}"><b>Audit, {_e(what)}:</b> {_e(audit.verdict)}</p>')
    if view.data is not None:
        from dashboard.shared.widgets.chart_data import chart_csv

        out.append('<p class="note">' + _download(chart_csv(view.data).decode("utf-8"), filename=f"{view.name}.csv",
                                                  mime="text/csv", words="This chart's numbers as CSV") + "</p>")
    return out


def build_tour_report(views: Iterable[tuple[TourStep, StepView]], *, created: str | None = None) -> str:
    """One self-contained HTML page of the Tour's steps (see the module docstring).

    Parameters
    ----------
    views : iterable of (TourStep, StepView)
        Every step with what it shows (:func:`dashboard.tour.cached.all_views`).
    created : str, optional
        The creation time shown (default now, UTC); a fixed one gives a byte-identical page.

    Returns
    -------
    str
        A complete HTML document that loads nothing from the network.
    """
    views = list(views)
    for pair in views:
        if not (isinstance(pair, tuple) and len(pair) == 2 and isinstance(pair[0], TourStep)
                and isinstance(pair[1], StepView)):
            raise TypeError("views must hold (TourStep, StepView) pairs.")
    if created is None:
        created = datetime.now(timezone.utc).isoformat(timespec="seconds")
    figures = _figures_html([(f"tour-{s.key}", v.figure) for s, v in views if v.figure is not None])
    figs = iter(figures)
    body = [
        "<h1>The privacy-utility explorer: a guided tour</h1>",
        f'<p class="meta">Created {_e(created)} by the privacy-utility explorer (Tour page). Every number was '
        "computed on the built-in synthetic samples with the seed 0: display measurements of seeded runs, "
        "not private releases.</p>",
    ]
    for i, (step, view) in enumerate(views):
        body += _step_html(i, len(views), step, view, next(figs) if view.figure is not None else None)
    body += ["<h2>Package versions</h2>", _pairs(package_versions())]
    return html_document("Privacy-utility explorer: the Tour", body, css=_CSS)
