"""Text from users (file names, column names, cell values) shown as text, never as markup.

Streamlit renders markdown in titles, captions, labels and ``st.write``; a column named
``![x](http://...)`` would make the browser fetch that address. :func:`md` escapes every
markdown character so the text shows as typed, and breaks what the markdown renderer would
turn into a link on its own (a bare ``http://...``, ``www.`` or ``name@host``, which GitHub
flavoured markdown links even when escaped) with an invisible word joiner.
"""
from __future__ import annotations

import re

__all__ = ["md", "JOINER"]

#: invisible, and not a character of a web address: GFM's autolinks stop at it
JOINER = "\u2060"

_SPECIAL = re.compile(r"([\\`*_{}\[\]()<>#+\-.!|$~:&])")
# what GFM turns into a link with no markup: a scheme's "://", "www." and an e-mail's "@";
# the joiner goes where the address's pattern needs its next character
_AUTOLINK = (
    (re.compile(r"://"), ":" + JOINER + "//"),
    (re.compile(r"(www)(?=\.)", re.IGNORECASE), r"\1" + JOINER),
    (re.compile(r"@"), "@" + JOINER),
)


def md(value: object) -> str:
    """``value`` as text that markdown shows literally: every special character escaped, no
    bare address left for the renderer to link, and line breaks as spaces."""
    text = str(value).replace("\r", " ").replace("\n", " ")
    for pattern, replacement in _AUTOLINK:
        text = pattern.sub(replacement, text)
    return _SPECIAL.sub(r"\\\1", text)
