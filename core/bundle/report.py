"""A page bundle's report: one offline HTML page of every number in ``result.json``.

Lists of records become tables, other values a name-value list, each number as computed
(the rounding is the reader's); everything is escaped, so no name or value of an uploaded
table can run as HTML. Compare's bundle uses Compare's own report instead.
"""
from __future__ import annotations

import math
from html import escape
from typing import Any, Iterable, Mapping

__all__ = ["page_report"]

_CSS = ("body{font-family:system-ui,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222;"
        "line-height:1.45}table{border-collapse:collapse;margin:.5em 0 1.2em}td,th{border:1px solid #ccc;"
        "padding:.2em .5em;text-align:left;font-size:.9em}th{background:#f4f4f4}.note{color:#555}"
        ".warn{background:#fff4e5;border-left:4px solid #e8a33d;padding:.5em 1em}")


def _cell(value: Any) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if isinstance(value, float):
        return escape(f"{value:.6g}")
    if isinstance(value, (dict, list)):
        return escape(str(value))
    return escape(str(value))


def _records_table(rows: list[dict]) -> str:
    columns: list[str] = []
    for row in rows:
        columns += [str(k) for k in row if str(k) not in columns]
    head = "".join(f"<th>{escape(c)}</th>" for c in columns)
    body = "".join("<tr>" + "".join(f"<td>{_cell(row.get(c))}</td>" for c in columns) + "</tr>" for row in rows)
    return f"<table><tr>{head}</tr>{body}</table>"


def _section(name: str, value: Any, depth: int) -> Iterable[str]:
    level = min(2 + depth, 5)
    if isinstance(value, list) and value and all(isinstance(r, dict) for r in value):
        yield f"<h{level}>{escape(name)}</h{level}>"
        yield _records_table(value)
    elif isinstance(value, dict):
        yield f"<h{level}>{escape(name)}</h{level}>"
        flat = {k: v for k, v in value.items() if not isinstance(v, (dict, list)) or not v}
        if flat:
            yield _records_table([{"name": k, "value": v} for k, v in flat.items()])
        for key, sub in value.items():
            if key not in flat:
                yield from _section(str(key), sub, depth + 1)
    else:
        yield f"<p><b>{escape(name)}</b>: {_cell(value)}</p>"


def page_report(*, title: str, disclosure: str, description: str, result: Mapping[str, Any],
                settings: Mapping[str, Any], versions: Mapping[str, str], created: str) -> str:
    """The report's HTML (a complete page; every value escaped).

    Parameters
    ----------
    title : str
        The page's title.
    disclosure : str
        What the bundle discloses, in words (shown first, in a box).
    description : str
        One sentence on what the numbers are.
    result : mapping
        ``result.json``'s tree: ``numbers`` (the seeded evaluation, absent in a bundle to
        publish) and ``releases`` (each release's guarantee and shape).
    settings : mapping
        The config's fields, shown as they are.
    versions : mapping
        Python and package versions.
    created : str
        When the bundle was made (UTC, ISO 8601).
    """
    body = [f"<h1>{escape(title)}</h1>", f"<p class='note'>Made {escape(created)}. {escape(description)}</p>",
            f"<p class='warn'>{escape(disclosure)}</p>"]
    if "numbers" in result:
        body += list(_section("Numbers", result["numbers"], 0))
    releases = result.get("releases") or []
    body.append("<h2>Releases</h2>")
    body.append(_records_table(releases) if releases else "<p>This page releases no table.</p>")
    body += list(_section("Settings", dict(settings), 0))
    body += list(_section("Versions", dict(versions), 0))
    return ("<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>"
            f"<title>{escape(title)}</title><style>{_CSS}</style></head><body>\n" + "\n".join(body)
            + "\n</body></html>\n")
