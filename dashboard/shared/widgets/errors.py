"""One way for a page to show a problem with the user's data or settings: ``page_errors``."""
from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import streamlit as st

from core.validation import DataError
from dashboard.shared.serving.state import show_error

#: what a page shows as one sentence (DataError is a ValueError; listed for the reader)
PAGE_ERRORS = (DataError, ValueError, TypeError)


@contextmanager
def page_errors(*, stop: bool = False) -> Iterator[None]:
    """Show a DataError (as a warning: the user's step), ValueError or TypeError raised in the
    block through :func:`dashboard.shared.serving.state.show_error` (escaped, one sentence) and
    go on after the block;
    with ``stop=True`` the page ends there (``st.stop()``), for blocks whose results the
    rest of the page needs.

    Anything else propagates, Streamlit's ``st.stop()`` / ``st.rerun()`` included (they
    raise BaseException subclasses that are none of these).
    """
    try:
        yield
    except PAGE_ERRORS as exc:
        show_error(exc)
        if stop:
            st.stop()
