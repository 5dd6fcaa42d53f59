"""Charts for a projector: larger type, taller plots (the "Present" switch).

Pure: :func:`for_projector` returns an enlarged copy and leaves the page's figure as it is;
the copy is laid out again for its larger type (:func:`dashboard.shared.widgets.layout.tidy`).
"""
from __future__ import annotations

import plotly.graph_objects as go

from dashboard.shared.widgets.layout import tidy

__all__ = ["for_projector", "FONT", "TITLE_FONT", "MIN_HEIGHT"]

#: base font and title sizes (pixels) on a projector; plotly's defaults are 12 and 17
FONT, TITLE_FONT = 20, 26
#: the shortest chart drawn when presenting, and how much taller charts get
MIN_HEIGHT, SCALE = 520, 1.35


def for_projector(fig: go.Figure) -> go.Figure:
    """A copy of ``fig`` with type readable from the back of a room.

    Every font at least :data:`FONT` pixels (titles :data:`TITLE_FONT`), axis titles and
    subplot titles included, and the height scaled by 1.35 (at least :data:`MIN_HEIGHT`);
    then :func:`dashboard.shared.widgets.layout.tidy` fits the larger text (titles wrapped, margins
    pushed, the legend beside the plot).
    """
    if not isinstance(fig, go.Figure):
        raise TypeError(f"fig must be a plotly Figure, got {type(fig).__name__}.")
    out = go.Figure(fig)
    height = out.layout.height
    out.update_layout(
        font=dict(size=FONT), title_font=dict(size=TITLE_FONT), legend_font=dict(size=FONT),
        height=max(MIN_HEIGHT, int(SCALE * height)) if height else MIN_HEIGHT,
        hoverlabel=dict(font_size=FONT),
    )
    out.update_xaxes(title_font=dict(size=FONT), tickfont=dict(size=FONT - 2))
    out.update_yaxes(title_font=dict(size=FONT), tickfont=dict(size=FONT - 2))
    out.update_annotations(font_size=FONT - 2)
    return tidy(out)
