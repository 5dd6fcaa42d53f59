"""A paper's claim beside ours: the paper's words, our verdict and the sentence that decides it.

:func:`claim_box` is the one way a page shows a :class:`core.claims.claim.Claim`. The finding may
name the user's columns, so it is escaped (:func:`dashboard.shared.safe.md`): it shows as typed.
"""
from __future__ import annotations

import streamlit as st

from core.claims.claim import Claim
from dashboard.shared.safe import md

__all__ = ["claim_box", "ICONS"]

ICONS = {True: ":material/check_circle:", False: ":material/cancel:", None: ":material/help:"}


def claim_box(claim: Claim, *, where=None) -> None:
    """Draw ``claim``: green when it holds here, orange when it does not, blue when our
    numbers cannot decide; the paper's claim in words underneath.

    Parameters
    ----------
    claim : Claim
    where : container, optional
        A Streamlit container (a column); the page's main area by default.
    """
    if not isinstance(claim, Claim):
        raise TypeError(f"claim must be a core.claims.claim.Claim, got {type(claim).__name__}.")
    box = where if where is not None else st
    show = {True: box.success, False: box.warning, None: box.info}[claim.holds]
    show(f"**{md(claim.figure)} · {claim.verdict}.** {md(claim.finding)}  \n"
         f"*The paper:* {md(claim.paper)}", icon=ICONS[claim.holds])
