"""Chart text that fits and stays text: two pure functions applied to every plotly figure.

:func:`tidy` lays a figure's text out so that nothing overlaps or is clipped: the title above
the plot (wrapped, with room reserved under it for the subtitle and subplot titles), axes that
push the margins for their labels (long axis titles wrapped), the legend beside the plot
(where it covers neither the title nor an axis), and long category labels shortened on the
axis with the full text kept in the hover.

:func:`inert` makes the data a user brings (category values, names, hover text) plain text:
plotly reads a few HTML tags in any string it draws, so ``<a href=...>`` in a category would
be a live link and ``<b>`` bold. It escapes &, < and > in the data strings of the figure;
titles, annotations and templates are ours and keep their ``<br>``.

Both return a new figure and leave the one passed in as it is;
:func:`dashboard.shared.widgets.chart_data.show_chart` applies them to every chart drawn, and the
exported reports call :func:`for_export` (both at once). They work on the figure's plain
dicts (:func:`figure_dict`) and build the result without plotly's property validation
(:func:`from_dict`): about 1 ms a chart where copying the figure as graph objects took 10 to
17 ms, paid on every slider move.
"""
from __future__ import annotations

import html
import re
from typing import Any

import numpy as np
import plotly.graph_objects as go

__all__ = ["tidy", "inert", "for_export", "figure_dict", "from_dict", "escape", "shorten", "wrap",
           "LABEL_CHARS", "LEGEND_CHARS", "ASSUMED_WIDTH"]

#: a category label longer than this is shortened on its axis (the hover keeps it whole)
LABEL_CHARS = 22
#: axes with more categories than this keep plotly's own labels (it shows only some)
_MAX_CATEGORIES = 200
#: a legend entry longer than this is wrapped onto more lines
LEGEND_CHARS = 40
#: the narrowest width (pixels) a chart is assumed to get: half a page at 1280 px
ASSUMED_WIDTH = 520
#: average width of a character as a share of the font size (bold titles included)
_CHAR = 0.48
#: plotly's default font sizes: text, title
_FONT, _TITLE = 12, 17

#: entities already written stay as they are, so escaping twice changes nothing
_AMP = re.compile(r"&(?!(?:[A-Za-z][A-Za-z0-9]*|#[0-9]+|#[xX][0-9A-Fa-f]+);)")
_BR = re.compile(r"<br\s*/?>", re.IGNORECASE)
_ESCAPED_BR = re.compile(r"&lt;br\s*/?&gt;", re.IGNORECASE)

#: trace fields that carry data (strings a user may have typed or uploaded), and the group
#: names plotly derives from them (escaped alike, so traces still group together)
_TRACE_KEYS = ("x", "y", "z", "text", "hovertext", "labels", "ids", "parents", "customdata", "name",
               "locations", "a", "b", "r", "theta", "legendgroup", "offsetgroup", "alignmentgroup")
_DATA_KEYS = frozenset(_TRACE_KEYS)
#: axis fields that carry category values
_AXIS_KEYS = ("ticktext", "tickvals", "categoryarray")


# ---------------------------------------------------------------- inert

def escape(value: str) -> str:
    """``value`` with &, < and > written as entities (``&amp;``, ``&lt;``, ``&gt;``); an
    entity already written (``&amp;``, ``&#38;``) is kept, so escaping twice is escaping once."""
    return _AMP.sub("&amp;", str(value)).replace("<", "&lt;").replace(">", "&gt;")


def _escape_data(value: str) -> str:
    """:func:`escape`, except a line break (``<br>``): harmless, and the dashboard's hover
    texts break their lines with it."""
    if not ("<" in value or ">" in value or "&" in value):
        return value
    return _ESCAPED_BR.sub("<br>", escape(value))


def _escape_any(value: Any) -> Any:
    """Strings escaped wherever they sit in lists, tuples, dicts and object arrays; numbers,
    dates and numeric arrays as they are."""
    if isinstance(value, str):
        return _escape_data(value)
    if isinstance(value, np.ndarray):
        if value.dtype.kind in "OUS":
            return np.array([_escape_any(v) for v in value.ravel().tolist()], dtype=object).reshape(value.shape)
        return value
    if isinstance(value, (list, tuple)):
        return [_escape_any(v) for v in value]
    if isinstance(value, dict):
        return {k: (_escape_any(v) if k in _DATA_KEYS else v) for k, v in value.items()}
    return value


def inert(fig: go.Figure) -> go.Figure:
    """A copy of ``fig`` whose data strings draw as the text they are, never as markup.

    Escapes &, < and > in what traces carry (x, y, text, hovertext, labels, ids, parents,
    customdata, trace names, table cells, dimension labels; a line break ``<br>`` stays one:
    it can neither link nor style), in the category values of the
    axes (``ticktext``, ``tickvals``, ``categoryarray``) and in the string positions of
    annotations and shapes (so they still meet their category). Titles, annotation texts and
    hover templates are the dashboard's own (user values in them go through
    :func:`dashboard.shared.widgets.charts.plotly_text`) and keep their ``<br>``.

    Works on the figure's plain dicts (:func:`figure_dict`) and builds the copy without
    plotly's property validation (:func:`from_dict`): the figure passed in was validated
    when it was built, and re-validating a copy on every slider move cost the server
    about 10 ms per chart.

    Raises
    ------
    TypeError
        When ``fig`` is not a plotly Figure.
    """
    _check(fig)
    out = figure_dict(fig)
    _inert(out)
    return from_dict(out)


def _inert(out: dict) -> None:
    """:func:`inert` on a figure dict, in place."""
    for trace in out["data"]:
        for key in _TRACE_KEYS:
            if trace.get(key) is not None:
                trace[key] = _escape_any(trace[key])
        for part in ("header", "cells"):  # tables
            if isinstance(trace.get(part), dict) and trace[part].get("values") is not None:
                trace[part]["values"] = _escape_any(trace[part]["values"])
        for dim in trace.get("dimensions") or ():  # splom, parcoords, parcats
            for key in ("label", "values", "ticktext"):
                if isinstance(dim.get(key), (str, tuple, list, np.ndarray)):
                    dim[key] = _escape_any(dim[key])
    layout = out["layout"]
    for _, axis in _axes(layout, "x") + _axes(layout, "y"):
        for field in _AXIS_KEYS:
            if axis.get(field) is not None:
                axis[field] = _escape_any(axis[field])
    for group in ("annotations", "shapes", "images"):
        for item in layout.get(group) or ():
            for field in ("x", "y", "x0", "x1", "y0", "y1"):
                if isinstance(item.get(field), str):
                    item[field] = _escape_data(item[field])


# ---------------------------------------------------------------- plain dicts

def figure_dict(fig: go.Figure) -> dict:
    """``fig`` as plain dicts, ``{"data": [trace, ...], "layout": {...}}``: deep copies of what
    was set (the figure passed in stays as it is), arrays left as they are (unlike
    ``Figure.to_dict``, which encodes numeric arrays in base64). A title or axis title set
    as a string is written ``{"text": ...}``, as plotly stores it."""
    out = {"data": [t.to_plotly_json() for t in fig.data], "layout": fig.layout.to_plotly_json()}
    if fig.frames:
        out["frames"] = [f.to_plotly_json() for f in fig.frames]
    grid = getattr(fig, "_grid_ref", None)
    if grid is not None:  # make_subplots' grid, kept as Figure(fig) keeps it
        out["_grid_ref"], out["_grid_str"] = grid, getattr(fig, "_grid_str", None)
    layout = out["layout"]
    _text_dict(layout, "title")
    for _, axis in _axes(layout, "x") + _axes(layout, "y"):
        _text_dict(axis, "title")
    return out


def from_dict(figure: dict) -> go.Figure:
    """A Figure of ``figure`` (plain dicts: ``data`` and ``layout``) built without plotly's
    property validation (the ``_validate=False`` of ``go.Figure``; plotly's own advice for
    figures built in bulk): about 1 ms where a validated build of the same chart takes
    5 to 15 ms. The dicts must be what plotly stores (:func:`figure_dict`'s form: nested
    dicts, ``{"text": ...}`` titles, each trace with its ``type``); nothing checks them.
    ``figure`` is left as it is (plotly takes each trace's ``type`` out of the dict it is given
    and puts it back: each trace is handed over as a copy, so dicts that threads share are
    never changed), and the Figure holds copies of it."""
    fresh = dict(figure, data=[dict(t) for t in figure.get("data") or ()], layout=dict(figure.get("layout") or {}))
    return go.Figure(fresh, _validate=False)


def _text_dict(parent: dict, key: str) -> None:
    """``parent[key]`` as ``{"text": ...}`` when it was set as a plain string."""
    if isinstance(parent.get(key), str):
        parent[key] = {"text": parent[key]}


def _merge(into: dict, updates: dict) -> None:
    """``updates`` written into ``into``, nested dicts merged (as ``update_layout`` does)."""
    for key, value in updates.items():
        if isinstance(value, dict) and isinstance(into.get(key), dict):
            _merge(into[key], value)
        else:
            into[key] = value


# ---------------------------------------------------------------- tidy

def wrap(text: str, chars: int) -> str:
    """``text`` with ``<br>`` between words so that no line is longer than ``chars``
    characters (an entity counts as one); breaks already there are kept."""
    lines = []
    for part in _BR.split(str(text)):
        plain = html.unescape(part)
        if len(plain) <= chars:
            lines.append(part)
            continue
        # entities hold no spaces, so splitting the written text on spaces never cuts one
        words, line, width = part.split(" "), [], 0
        for word in words:
            w = len(html.unescape(word))
            if line and width + 1 + w > chars:
                lines.append(" ".join(line))
                line, width = [word], w
            else:
                line.append(word)
                width += w + (1 if len(line) > 1 else 0)
        lines.append(" ".join(line))
    return "<br>".join(lines)


def shorten(text: str, chars: int = LABEL_CHARS) -> str:
    """``text`` cut to ``chars`` characters with an ellipsis (entities count as one and are
    never cut)."""
    plain = html.unescape(str(text))
    if len(plain) <= chars:
        return str(text)
    return escape(plain[: max(chars - 1, 1)].rstrip()) + "…"


def _lines(text: str | None) -> int:
    return len(_BR.split(text)) if text else 0


def _size(font: Any, default: float) -> float:
    size = font.get("size") if isinstance(font, dict) else None
    return float(size) if size else float(default)


def tidy(fig: go.Figure, *, width: int = ASSUMED_WIDTH) -> go.Figure:
    """A copy of ``fig`` whose text fits: no label over another, none cut by the chart's edge.

    - the title (and subtitle) wrapped to ``width`` pixels, above the plot, pushing the top
      margin for itself (plotly's title ``automargin``) and, through its bottom padding, for
      the subtitle and the subplot titles under it;
    - every axis pushes the margins for its tick labels and title (``automargin``); a long
      axis title is wrapped to the length of its side;
    - the legend (when shown) beside the plot, top-aligned: it covers neither the title above
      nor the axes, and long entries are wrapped;
    - category labels longer than :data:`LABEL_CHARS` shortened on their axis (``ticktext``),
      the full value still in the hover;
    - subplot titles side by side wrapped to their share of the width; a note hung under the
      plot (``yref='paper'``, ``y=0``, ``yanchor='top'``) lifted inside it, off the tick labels.

    Works on the figure's plain dicts and builds the copy without plotly's property
    validation, as :func:`inert` does.

    Parameters
    ----------
    fig : plotly Figure
    width : int, default :data:`ASSUMED_WIDTH`
        The narrowest width in pixels the chart may be drawn at; titles wrap to it.

    Raises
    ------
    TypeError
        When ``fig`` is not a plotly Figure.
    ValueError
        When ``width`` is not positive.
    """
    _check(fig)
    _check_width(width)
    out = figure_dict(fig)
    _tidy(out, width)
    return from_dict(out)


def _check_width(width: Any) -> None:
    if isinstance(width, bool) or not isinstance(width, (int, float)):
        raise TypeError(f"width must be a number of pixels, got {type(width).__name__}.")
    if width <= 0:
        raise ValueError(f"width must be positive (pixels), got {width}.")


def _tidy(out: dict, width: float) -> None:
    """:func:`tidy` on a figure dict, in place."""
    layout = out["layout"]
    base = _size(layout.get("font"), _FONT)
    margin = layout.setdefault("margin", {})
    head = _fit_subplot_titles(layout, width, base)
    top = _fit_title(layout, width, base, head)
    margin.update(l=max(margin.get("l") or 0, 10), r=max(margin.get("r") or 0, 10),
                  b=max(margin.get("b") or 0, 10))
    _fit_axes(layout, width, base, top)
    _shorten_categories(out)
    _fit_legend(out)


def _fit_subplot_titles(layout: dict, width: float, base: float) -> float:
    """Wrap subplot titles side by side to their share of the width, lift a note hung under
    the plot inside it (off the x tick labels); returns the height the titles take."""
    notes = layout.get("annotations") or ()
    heads = [a for a in notes
             if a.get("yref") == "paper" and a.get("y") is not None and a["y"] >= 0.999
             and a.get("yanchor") == "bottom"]
    for a in notes:  # a note hung under the plot would sit on the x tick labels: lift it inside
        if a.get("yref") == "paper" and a.get("y") is not None and a["y"] <= 0.001 and a.get("yanchor") == "top":
            a.update(y=0.0, yanchor="bottom")
    for a in heads:  # subplot titles side by side share the width
        beside = sum(1 for b in heads if abs(b["y"] - a["y"]) < 1e-6)
        if a.get("text") and a.get("xref") == "paper":
            a["text"] = wrap(a["text"], max(int(0.9 * width / beside / (_CHAR * _size(a.get("font"), base + 4))), 10))
    return max((_lines(a.get("text")) * _size(a.get("font"), base + 4) * 1.3 for a in heads), default=0.0)


def _fit_title(layout: dict, width: float, base: float, head: float) -> float:
    """The title above the plot, wrapped; it pushes the top margin for itself (and, with its
    bottom padding, for the subtitle and subplot titles under it). Returns the top margin."""
    margin = layout["margin"]
    title = layout.get("title") or {}
    if not title.get("text"):
        top = max(float(margin.get("t") or 0), head + 16, 20.0)
        margin["t"] = int(top)
        return top
    size = _size(title.get("font"), base * _TITLE / _FONT)
    updates = dict(text=wrap(title["text"], max(int(width / (_CHAR * size)), 12)), x=0.0, xanchor="left",
                   xref="container", y=1.0, yanchor="bottom", yref="paper", automargin=True,
                   pad=dict(t=6, l=10, r=10, b=int(head + 8)))
    sub = title.get("subtitle")
    sub_text = sub.get("text") if isinstance(sub, dict) else None
    if sub_text:  # drawn under the title: the title's padding makes room for it too
        sub_size = _size(sub.get("font"), base)
        sub_wrapped = wrap(sub_text, max(int(width / (_CHAR * sub_size)), 12))
        updates["subtitle"] = dict(text=sub_wrapped)
        head += _lines(sub_wrapped) * sub_size * 1.3 + 6
        updates["pad"]["b"] = int(head + 8)
    _merge(layout.setdefault("title", {}), updates)
    margin["t"] = 10
    return 10 + 1.3 * size * _lines(updates["text"]) + head + 20


def _fit_axes(layout: dict, width: float, base: float, top: float) -> None:
    """Every axis pushes the margins for its labels; a long axis title wraps to its side."""
    height = float(layout.get("height") or 450)
    for kind, side in (("x", width), ("y", height - top - (layout["margin"].get("b") or 0) - 40)):
        for _, axis in _axes(layout, kind):
            axis["automargin"] = True
            title = axis.get("title")
            if isinstance(title, dict) and title.get("text"):
                lo, hi = axis.get("domain") or (0.0, 1.0)
                tsize = _size(title.get("font"), base)
                chars = int(0.85 * max(side, 60) * (hi - lo) / (_CHAR * tsize))
                title["text"] = wrap(title["text"], max(chars, 10))


def _fit_legend(out: dict) -> None:
    """The legend (when shown) beside the plot, top-aligned, long entries wrapped."""
    if not _has_legend(out):
        return
    _merge(out["layout"].setdefault("legend", {}),
           dict(orientation="v", x=1.02, xanchor="left", xref="paper", y=1.0, yanchor="top", yref="paper"))
    for trace in out["data"]:
        name = trace.get("name")
        if isinstance(name, str) and len(html.unescape(name)) > LEGEND_CHARS and "<br>" not in name:
            trace["name"] = wrap(name, LEGEND_CHARS)


def for_export(fig: go.Figure) -> go.Figure:
    """``fig`` as an exported report (and every chart on a page) draws it: :func:`inert`,
    then :func:`tidy`, in one pass over the figure's dicts."""
    _check(fig)
    out = figure_dict(fig)
    _inert(out)
    _tidy(out, ASSUMED_WIDTH)
    return from_dict(out)


_AXIS_NAME = re.compile(r"([xy])axis([0-9]*)")


def _axes(layout: dict, kind: str) -> list[tuple[str, dict]]:
    """(name, axis dict) of every ``kind`` ('x' or 'y') axis of a layout dict, the first one
    ('xaxis') always among them (created empty when unset, as plotly's layout always has it)."""
    found = {f"{kind}axis": layout.setdefault(f"{kind}axis", {})}
    for key, value in layout.items():
        m = _AXIS_NAME.fullmatch(key)
        if m and m.group(1) == kind and isinstance(value, dict):
            found[key] = value
    return sorted(found.items(), key=lambda kv: int(kv[0][5:] or 1))


def _has_legend(out: dict) -> bool:
    showlegend = out["layout"].get("showlegend")
    if showlegend is False:
        return False
    shown = [t for t in out["data"] if t.get("showlegend") is not False and t.get("name")]
    return len(shown) >= (1 if showlegend else 2)


#: trace types whose x / y may be text categories on an axis
_CATEGORY_TRACES = ("bar", "scatter", "box", "violin", "heatmap", "histogram", "scattergl", "funnel", "waterfall")


def _categories(out: dict) -> dict[str, list[str]]:
    """Per axis name, the text categories the traces draw on it, in order, once each."""
    values: dict[str, dict[str, None]] = {}
    for trace in out["data"]:
        if trace.get("type", "scatter") not in _CATEGORY_TRACES:
            continue
        for kind in ("x", "y"):
            data = trace.get(kind)
            if data is None or isinstance(data, dict):  # (a dict: an encoded numeric array)
                continue
            ref = trace.get(f"{kind}axis") or kind
            seq = list(data) if not isinstance(data, str) else [data]
            if seq and all(isinstance(v, str) for v in seq):
                values.setdefault(f"{kind}axis{ref[1:]}", {}).update(dict.fromkeys(seq))
    return {name: list(found) for name, found in values.items()}


def _shorten_categories(out: dict) -> None:
    """Axes that draw text categories longer than :data:`LABEL_CHARS`: their labels shortened
    (``tickvals`` the values, ``ticktext`` the short text); the hover still shows the value."""
    layout = out["layout"]
    for name, cats in _categories(out).items():
        axis = layout.setdefault(name, {})
        if axis.get("ticktext") is not None or axis.get("tickvals") is not None:
            continue
        if axis.get("type") not in (None, "-", "category", "multicategory"):
            continue
        if len(cats) > _MAX_CATEGORIES or not any(len(html.unescape(c)) > LABEL_CHARS for c in cats):
            continue  # (so many categories that plotly thins their labels: left to it)
        axis.update(tickmode="array", tickvals=cats, ticktext=[shorten(c) for c in cats])


def _check(fig: Any) -> None:
    if not isinstance(fig, go.Figure):
        raise TypeError(f"fig must be a plotly Figure, got {type(fig).__name__}.")
