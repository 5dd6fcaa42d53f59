"""What an audit measured: :class:`AuditResult`, its verdict in words, and :data:`UNBOUNDED_TEXT`.

:func:`core.audit.auditor.audit` returns an :class:`AuditResult`: the lower bound on
epsilon, the point estimate, the ceiling the runs allow, the chosen test, and a one-sentence
verdict that every page, chart and file shows.
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass

__all__ = ["AuditResult", "UNBOUNDED_TEXT"]


#: What an infinite point estimate ("inf") means, in words, for every page, chart and file.
UNBOUNDED_TEXT = (
    "unbounded (inf): in the evaluation runs the test made no error, so some output was seen on one "
    "dataset and never on the other; such a mechanism's epsilon has no finite bound from these runs, "
    "and the lower bound stays finite only because the number of runs limits it (the ceiling)"
)


def _fmt(x: float) -> str:
    return "unbounded (inf)" if math.isinf(x) else f"{x:.3g}"


@dataclass
class AuditResult:
    """What an audit measured.

    Attributes
    ----------
    claimed_epsilon, claimed_delta : float
        The guarantee checked (``claimed_epsilon`` is inf when nothing is claimed).
    epsilon_lower : float
        Lower bound on the true epsilon that holds with probability ``confidence``.
    epsilon_point : float
        The same formula with the plain rates on the evaluation half (no confidence; inf
        when the test made no error there: an output seen on one dataset and never on the
        other, unbounded, limited in the lower bound only by the number of runs; see
        ``point_text`` and :data:`UNBOUNDED_TEXT`).
    runs : int
        Runs per side that were done (``2 * runs`` mechanism calls).
    threshold : float
        The chosen test's threshold on the statistic.
    direction : str
        The chosen test in words, e.g. "statistic >= 0.53 on D1": the test says the run
        came from D1 when the statistic is at least 0.53 (the threshold at full precision).
    confidence : float
        Joint confidence of the two Clopper-Pearson bounds.
    violation : bool
        ``epsilon_lower > claimed_epsilon`` (beyond rounding): the claim is false.
    seconds : float
        Wall-clock time of the whole audit.
    description : str
        The pair's description.
    stopped : bool
        True when a stop event ended the audit early; the bounds come from the runs done.
    ceiling : float
        The largest lower bound an audit with these runs, confidence and delta could show
        (every evaluation run told apart; :func:`core.audit.bounds.audit_ceiling`). NaN when not computed.
    grid : float or None
        The declared output grid checked (``audit(..., grid=g)``), else None.
    off_grid : int or None
        Runs (both sides) whose output had a value off ``grid``; None when no grid was given.
    """

    claimed_epsilon: float
    claimed_delta: float
    epsilon_lower: float
    epsilon_point: float
    runs: int
    threshold: float
    direction: str
    confidence: float
    violation: bool
    seconds: float
    description: str
    stopped: bool = False
    ceiling: float = math.nan
    grid: float | None = None
    off_grid: int | None = None

    @property
    def saturated(self) -> bool:
        """The bound reached the ceiling: every run was told apart; more runs could show more."""
        return math.isfinite(self.ceiling) and self.epsilon_lower >= self.ceiling - 1e-9

    @property
    def ceiling_text(self) -> str:
        """'with 1,000 runs this audit cannot show more than 4.9' (and saturation, if so)."""
        if not math.isfinite(self.ceiling):
            return ""
        text = f"with {self.runs:,} runs per side this audit cannot show more than {_fmt(self.ceiling)}"
        if self.saturated:
            text += (" and its bound reaches that ceiling: the audit saturates (every run was told apart; "
                     "more runs could show more)")
        return text

    @property
    def point_text(self) -> str:
        """The point estimate in words: '0.7', or what an infinite estimate means."""
        if math.isinf(self.epsilon_point):
            return UNBOUNDED_TEXT[0].upper() + UNBOUNDED_TEXT[1:] + "."
        return f"{self.epsilon_point:.3g}"

    @property
    def runs_per_second(self) -> float:
        """Mechanism runs (both sides) per second of the audit."""
        return 2 * self.runs / self.seconds if self.seconds > 0 else math.inf

    @property
    def verdict(self) -> str:
        """The result in one sentence."""
        conf = f"{self.confidence:.0%}"
        delta = f", delta = {self.claimed_delta:.2g}" if self.claimed_delta > 0 else ""
        early = " (stopped early)" if self.stopped else ""
        where = f"{self.runs} runs per side{early}, {self.description}"
        return self._claim_sentence(conf, delta, where) + self._extra_sentences()

    def _extra_sentences(self) -> str:
        out = ""
        if self.ceiling_text:
            text = self.ceiling_text
            out += " " + text[0].upper() + text[1:] + "."
        if self.grid is not None and self.off_grid is not None:
            if self.off_grid:
                out += (f" {self.off_grid:,} of {2 * self.runs:,} outputs lie off the declared grid "
                        f"{self.grid:g}: the noise is not drawn on the grid the ledger states.")
            else:
                out += f" Every output lies on the declared grid {self.grid:g}."
        return out

    def _claim_sentence(self, conf: str, delta: str, where: str) -> str:
        if math.isinf(self.claimed_epsilon):
            return (
                f"No claim to check: the mechanism claims no epsilon; the {conf} lower bound "
                f"found is {_fmt(self.epsilon_lower)} ({where})."
            )
        if self.violation:
            return (
                f"VIOLATION: the measured lower bound {_fmt(self.epsilon_lower)} exceeds the "
                f"claimed epsilon {_fmt(self.claimed_epsilon)}{delta} with {conf} confidence "
                f"({where})."
            )
        return (
            f"No violation: the {conf} lower bound {_fmt(self.epsilon_lower)} <= claimed "
            f"{_fmt(self.claimed_epsilon)}{delta} ({where}); this does not prove the claim, "
            "an audit can only find violations."
        )

    def to_dict(self) -> dict:
        """All fields plus ``verdict``, ``runs_per_second``, ``saturated``,
        ``ceiling_text`` and ``point_text``, as plain Python values."""
        out = asdict(self)
        out["runs_per_second"] = self.runs_per_second
        out["saturated"] = self.saturated
        out["ceiling_text"] = self.ceiling_text
        out["point_text"] = self.point_text
        out["verdict"] = self.verdict
        return out
