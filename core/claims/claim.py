"""A paper's claim, checked on our data: one computed sentence per figure or table.

Every figure and table the dashboard reproduces carries a :class:`Claim`: what the paper
says (quoted from the reproduction registry, ``core/<paper>/reproduce.py``, the one source
the command line, the tests and the pages read), whether it holds on the data at hand, and
one sentence with the numbers that decide it. ``holds`` is ``None`` where the data cannot
decide (too few points, a measure that is undefined): the sentence then says why.

No streamlit here: :func:`dashboard.shared.widgets.claims.claim_box` draws a claim, and the
command line and the tests read the same object.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

import pandas as pd

__all__ = ["Claim", "VERDICTS", "check_table"]

#: the words that open a claim's sentence, by ``holds``
VERDICTS = {True: "Holds here", False: "Does not hold here", None: "Cannot be judged here"}


@dataclass(frozen=True)
class Claim:
    """The verdict on one claim of a paper's figure or table, on our data.

    Parameters
    ----------
    figure : str
        The paper and figure, e.g. ``"Paper 000, Fig. 4"``.
    paper : str
        The paper's claim in words (from the reproduction registry).
    holds : bool or None
        Whether our numbers bear the claim out; None where they cannot decide.
    finding : str
        One sentence with the numbers that decide it ("Proposed averages 0.71, Group 0.64").
        It may name the user's columns: whoever shows it must show it as text, not markup.
    """

    figure: str
    paper: str
    holds: bool | None
    finding: str

    def __post_init__(self) -> None:
        for name in ("figure", "paper", "finding"):
            if not isinstance(getattr(self, name), str):
                raise TypeError(f"{name} must be a str, got {type(getattr(self, name)).__name__}.")
        if self.holds is not None and not isinstance(self.holds, bool):
            raise TypeError(f"holds must be a bool or None, got {type(self.holds).__name__}.")
        if not self.finding.strip():
            raise ValueError("finding must say what was measured (it is empty).")

    @property
    def verdict(self) -> str:
        """"Holds here", "Does not hold here" or "Cannot be judged here"."""
        return VERDICTS[self.holds]

    def sentence(self) -> str:
        """The verdict and the finding in one line: "Holds here: Proposed averages 0.71, ..."."""
        return f"{self.verdict}: {self.finding}"

    def to_dict(self) -> dict:
        """JSON-ready: figure, paper, holds, verdict, finding."""
        return {"figure": self.figure, "paper": self.paper, "holds": self.holds,
                "verdict": self.verdict, "finding": self.finding}


def check_table(table, columns: Iterable[str], *, name: str = "table") -> pd.DataFrame:
    """``table`` when it is a DataFrame holding every one of ``columns`` (what a claim reads);
    TypeError for another type, ValueError naming the missing columns."""
    if not isinstance(table, pd.DataFrame):
        raise TypeError(f"{name} must be a pandas DataFrame, got {type(table).__name__}.")
    missing = [c for c in columns if c not in table.columns]
    if missing:
        raise ValueError(f"{name} lacks the column(s) {missing}.")
    return table
