"""Pure chart builders: results in, plotly / altair figures out (no streamlit).

One module per area (``data``, and one per paper), each testable without a server. Every
figure carries a title and named axes, so a downloaded PNG stands alone; colours of
schemes and methods come from :mod:`dashboard.shared.widgets.palette`.
"""
from __future__ import annotations

import html
import math

__all__ = ["number", "plotly_text"]


def number(value: float, *, decimals: int = 2) -> str:
    """A number as the dashboard writes it: thousands separators, no trailing zeros.

    1639.0 -> '1,639'; 3.5 -> '3.5'; 0.123456 -> '0.12'; 12345.678 -> '12,345.68'.
    """
    v = float(value)
    if not math.isfinite(v):
        return str(v)
    if v == int(v) and abs(v) < 1e15:
        return f"{int(v):,}"
    text = f"{v:,.{decimals}f}".rstrip("0").rstrip(".")
    if text in ("0", "-0") and v != 0:  # tiny values keep their significant digits
        return f"{v:.{decimals}g}"
    return text


def plotly_text(value: object) -> str:
    """``value`` (a dataset or column name a user chose) as text plotly shows as typed:
    plotly reads a few HTML tags in titles and labels (a link among them), so &, < and >
    are escaped and line breaks become spaces. (The data a figure draws needs no call: every
    chart is drawn through :func:`dashboard.shared.widgets.layout.inert`, which escapes its category
    values, names and hover texts.)"""
    return html.escape(str(value), quote=False).replace("\n", " ")
