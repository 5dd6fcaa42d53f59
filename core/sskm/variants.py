"""The two SSKM_DP publishers by name, for callers that pick one from a user's choice.

A page's radio button or a sweep's ``mode`` says "sound" or "paper";
:data:`SSKM_VARIANTS` maps that name to the class (:class:`core.sskm.sound.SSKMDP`, the
epsilon-DP mechanism, or :class:`core.sskm.paper_publisher.PaperSSKMDP`, the paper's
algorithm, not differentially private), and :func:`sskm_variant` checks the name first.
"""
from __future__ import annotations

from core.sskm.paper_publisher import PaperSSKMDP
from core.sskm.publisher_base import SSKMPublisherBase
from core.sskm.sound import SSKMDP
from core.validation import check_choice

__all__ = ["SSKM_VARIANTS", "sskm_variant"]

#: the publisher of each name: the sound mechanism (epsilon-DP) and the paper's (not DP)
SSKM_VARIANTS: dict[str, type[SSKMPublisherBase]] = {"sound": SSKMDP, "paper": PaperSSKMDP}


def sskm_variant(name: str, *, argument: str = "mode") -> type[SSKMPublisherBase]:
    """The publisher class named ``name`` ("sound" or "paper").

    Raises
    ------
    TypeError
        ``name`` is not a str.
    ValueError
        It is neither "sound" nor "paper" (the message names ``argument``).
    """
    return SSKM_VARIANTS[check_choice(name, SSKM_VARIANTS, name=argument, kind=str)]
