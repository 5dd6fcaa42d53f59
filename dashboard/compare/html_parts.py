"""The HTML pieces Compare's report is made of: escaping and tables (pure, no streamlit)."""
from __future__ import annotations

import html
from typing import Any, Iterable

__all__ = ["escape", "html_table"]


def escape(value: Any) -> str:
    """``value`` as text safe inside HTML (quotes too): user text never becomes markup."""
    return html.escape(str(value), quote=True)


def html_table(header: Iterable[Any], rows: Iterable[Iterable[Any]], *, numeric: Iterable[int] = ()) -> str:
    """An HTML table, every header and cell escaped here; ``numeric`` column indices right-aligned."""
    nums = set(numeric)
    head = "".join(f"<th>{escape(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f'<td{" class=num" if i in nums else ""}>{escape(c)}</td>'
                                    for i, c in enumerate(row)) + "</tr>" for row in rows)
    return f'<div class="scroll"><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>'
