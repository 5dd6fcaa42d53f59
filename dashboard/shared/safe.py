"""Text from users (file names, column names, cell values) shown as text, never as markup.

Streamlit renders markdown in titles, captions, labels and ``st.write``; a column named
``![x](http://...)`` would make the browser fetch that address. :func:`md` escapes every
markdown character so the text shows as typed.
"""
from __future__ import annotations

import re

__all__ = ["md"]

_SPECIAL = re.compile(r"([\\`*_{}\[\]()<>#+\-.!|$~:])")


def md(value: object) -> str:
    """``value`` as text that markdown shows literally (every special character escaped)."""
    return _SPECIAL.sub(r"\\\1", str(value)).replace("\n", " ")
