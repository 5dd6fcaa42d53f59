"""Audit case of paper 002's local randomizer: k-ary randomized response (kRR) on one value."""
from __future__ import annotations

from functools import partial
from typing import Any, Sequence

import numpy as np

from core.audit_cases.case import AuditCase
from core.audit.pairs import NeighbouringPair
from core.privacy.mechanisms import krr
from core.validation import check_epsilon, check_positive_int

__all__ = ["krr_case"]


def _krr_report(value: np.ndarray, random_state: int, *, categories: tuple, epsilon: float) -> float:
    out = krr(value, categories=list(categories), epsilon=epsilon, random_state=random_state)
    return float(out[0] == categories[0])


def krr_case(categories: Sequence[Any], *, epsilon: float) -> AuditCase:
    """kRR on one value: the record's true category is the first one in D0, another in D1.

    kRR is local DP: each reported value on its own is epsilon-DP, so the pair is a
    one-record dataset and the statistic whether the report is the first category.
    """
    eps = check_epsilon(epsilon)
    cats = tuple(dict.fromkeys(categories))
    check_positive_int(len(cats), name="number of categories", minimum=2)
    pair = NeighbouringPair(np.array([cats[0]], dtype=object), np.array([cats[1]], dtype=object),
                            f"one value: {cats[0]!s} vs {cats[1]!s}")
    note = (f"k-ary randomized response over {len(cats)} categories on one value; statistic: whether "
            "the report is the first category.")
    return AuditCase("kRR", partial(_krr_report, categories=cats, epsilon=eps), pair, None, eps, 0.0, note)
