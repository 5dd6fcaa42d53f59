"""A target the user states: "accuracy at least 0.8", "MAE at most 0.5".

A :class:`Target` names a measure (a column of a comparison's runs, such as ``utility`` or
``ai_advantage``, or any measure of a curve) and one bound on it: ``at_least`` for a measure
where higher is better, ``at_most`` for an error or a risk. :func:`core.decide.solve.solve_epsilon`
finds the epsilon range over which a method meets it, in the target's :attr:`Target.direction`
(:func:`direction_of`, the one place that says it): a utility, a fidelity score or an error
improves with epsilon, so its target is met *from* an epsilon on (``"from"``); an attack's
success and the ledger's epsilon grow with epsilon, so a risk's at-most target is met *up to*
an epsilon (``"up_to"``).

Typical use::

    Target.parse("utility>=0.8")                              # accuracy at least 0.8
    Target.from_dict({"measure": "ai_advantage", "at_most": 0.05})
    Target("mae", at_most=0.5).met(0.42)                      # True
    direction_of("ai_advantage")                              # "up_to"
"""
from __future__ import annotations

import math
import numbers
import re
from dataclasses import dataclass
from typing import Any

from core.compare.measures import MEASURE_WORDS

__all__ = ["FROM", "UP_TO", "DIRECTIONS", "RISK_MEASURES", "RISK_PREFIXES", "direction_of", "Target"]

#: A target met from an epsilon on: the measure improves with epsilon (accuracy, an error).
FROM = "from"
#: A target met up to an epsilon: the measure is a risk that grows with epsilon.
UP_TO = "up_to"
#: The two directions, in :func:`direction_of`'s words.
DIRECTIONS = (FROM, UP_TO)
#: Risks that grow with epsilon: the attacks' advantages and success rates (attribute inference,
#: its version on the released people, distance to closest record, membership inference) and
#: the ledger's epsilon itself. More epsilon means more risk, so "at most Z" holds up to an epsilon.
RISK_MEASURES = frozenset({"ai_advantage", "ai_member", "dcr_risk", "dcr_excess", "normalised_excess", "mia_auc",
                           "mia_advantage", "ledger_epsilon"})
#: Per-attribute risks (``ai_advantage_<column>``, ``ai_member_<column>``).
RISK_PREFIXES = ("ai_advantage_", "ai_member_")

_PARSE = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*(>=|<=|≥|≤)\s*(\S+)\s*$")
_KEYS = ("measure", "at_least", "at_most")
#: Words of the curves' own measures (the comparison's come from MEASURE_WORDS).
_WORDS = {"accuracy": "accuracy", "mae": "MAE"}


def _bound(value: Any, name: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a number, got {type(value).__name__}.")
    if not math.isfinite(float(value)):
        raise ValueError(f"{name} must be a finite number, got {value!r}.")
    return float(value)


def direction_of(measure: str) -> str:
    """Whether the usual target on ``measure`` (at least for a utility, at most for an error or a
    risk) is met from an epsilon on or up to one: the one place that says it.

    Parameters
    ----------
    measure : str
        A measure's name: a column of a comparison's runs or of a curve.

    Returns
    -------
    {"from", "up_to"}
        ``"up_to"`` for a privacy risk (:data:`RISK_MEASURES` and the per-attribute
        ``ai_advantage_<column>``, ``ai_member_<column>``): risk grows with epsilon, so the
        answer is the largest epsilon up to which the mean meets the target (more epsilon
        means less privacy). ``"from"`` for everything else (utility, accuracy, MAE, MSE,
        column_shape, pair_trend, tv_*...): more epsilon helps, so the answer is the smallest
        epsilon from which the mean meets it.

    Raises
    ------
    TypeError
        A measure that is not a string.
    """
    if not isinstance(measure, str):
        raise TypeError(f"measure must be a string, got {type(measure).__name__}.")
    return UP_TO if measure in RISK_MEASURES or measure.startswith(RISK_PREFIXES) else FROM


@dataclass(frozen=True)
class Target:
    """A bound one measure must meet.

    Parameters
    ----------
    measure : str
        The measure's name: a column of the runs (``utility``, ``ai_advantage``, ``mia_auc``...)
        or of a curve. Choosing epsilon from this measure on the private data is itself a use
        of the private data (:data:`core.decide.selection.PRIVATE_CHOICE_NOTE`).
    at_least : float, optional
        The measure must be at least this (higher is better: accuracy).
    at_most : float, optional
        The measure must be at most this (lower is better: an error, an attack's advantage).
        Exactly one of ``at_least`` and ``at_most`` is given.

    Raises
    ------
    TypeError
        A measure that is not a string, a bound that is not a number.
    ValueError
        An empty measure, no bound or both, a bound that is not finite.
    """

    measure: str
    at_least: float | None = None
    at_most: float | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.measure, str):
            raise TypeError(f"measure must be a string, got {type(self.measure).__name__}.")
        if not self.measure.strip():
            raise ValueError("measure must name a measure, got an empty string.")
        low, high = _bound(self.at_least, "at_least"), _bound(self.at_most, "at_most")
        if (low is None) == (high is None):
            raise ValueError("give exactly one bound: at_least (higher is better) or at_most (lower is "
                             "better).")
        object.__setattr__(self, "at_least", low)
        object.__setattr__(self, "at_most", high)

    # ------------------------------------------------------------------ reading
    @property
    def threshold(self) -> float:
        """The bound's value, whichever side it is on."""
        return self.at_least if self.at_least is not None else self.at_most  # type: ignore[return-value]

    @property
    def higher_is_better(self) -> bool:
        """True for an ``at_least`` target."""
        return self.at_least is not None

    @property
    def direction(self) -> str:
        """``"up_to"`` for an at-most target on a risk (:func:`direction_of`): met up to an
        epsilon, the largest epsilon up to which the mean meets it is the answer; ``"from"``
        otherwise: met from an epsilon on (an at-least target on a risk, "the attack succeeds at
        least this much", grows into being met with epsilon, so it reads ``"from"`` too)."""
        if self.higher_is_better:
            return FROM
        return direction_of(self.measure)

    def met(self, value: Any) -> bool:
        """Whether ``value`` meets the target (a missing or NaN value never does)."""
        if value is None or isinstance(value, bool) or not isinstance(value, numbers.Real):
            return False
        v = float(value)
        if math.isnan(v):
            return False
        return v >= self.threshold if self.higher_is_better else v <= self.threshold

    def describe(self) -> str:
        """The target in words: "accuracy at least 0.8" (the measure's words where it has them)."""
        words = MEASURE_WORDS.get(self.measure) or _WORDS.get(self.measure, self.measure)
        side = "at least" if self.higher_is_better else "at most"
        return f"{words} {side} {self.threshold:g}"

    # --------------------------------------------------------------------- JSON
    def to_dict(self) -> dict[str, Any]:
        """``{"measure": ..., "at_least": ...}`` or ``{"measure": ..., "at_most": ...}``."""
        side = "at_least" if self.higher_is_better else "at_most"
        return {"measure": self.measure, side: self.threshold}

    @classmethod
    def from_dict(cls, data: Any) -> "Target":
        """The target of :meth:`to_dict`'s object; unknown keys are refused in one sentence."""
        if not isinstance(data, dict):
            raise TypeError(f"a target must be an object such as {{\"measure\": \"utility\", \"at_least\": 0.8}}, "
                            f"got {type(data).__name__}.")
        unknown = sorted(str(k) for k in data if k not in _KEYS)
        if unknown:
            raise ValueError(f"a target has unknown key(s) {unknown}; its keys are measure and one of at_least "
                             "or at_most.")
        if "measure" not in data:
            raise ValueError("a target needs a measure, such as {\"measure\": \"utility\", \"at_least\": 0.8}.")
        return cls(data["measure"], at_least=data.get("at_least"), at_most=data.get("at_most"))

    @classmethod
    def parse(cls, text: str) -> "Target":
        """The target of ``"utility>=0.8"`` or ``"mae<=0.5"`` (also with ≥ and ≤)."""
        if not isinstance(text, str):
            raise TypeError(f"text must be a string, got {type(text).__name__}.")
        match = _PARSE.match(text)
        if match is None:
            raise ValueError(f"a target reads like 'utility>=0.8' or 'mae<=0.5', got {text!r}.")
        name, op, number = match.groups()
        try:
            value = float(number)
        except ValueError:
            raise ValueError(f"the bound of {text!r} is not a number.") from None
        if op in (">=", "≥"):
            return cls(name, at_least=value)
        return cls(name, at_most=value)
