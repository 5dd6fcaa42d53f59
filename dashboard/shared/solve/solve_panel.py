"""Solve for epsilon from a target, honestly: the widget every page that draws a measure
against epsilon shares (CDP-LR's accuracy, Publishing's MAE, Compare's measures).

The user states a target with a number input (accuracy at least X, MAE at most Y, an
attack's advantage at most Z; never text that is rendered). :func:`solve_runs` asks
:func:`core.decide.solve.solve_summary` for each method's epsilon on the per-repetition runs;
:func:`solve_panel` shows the answers in a table with their uncertainty (repetitions and the
interval of the solved epsilon), "no epsilon in range meets it" where none does, and returns
them for the page to mark on its curve (:func:`dashboard.shared.solve.solve_charts.mark_solutions`).
Each answer reads in its target's direction (:attr:`core.decide.solve.Solution.direction`):
"from epsilon X" where more epsilon helps (accuracy, an error), "up to epsilon X" for a privacy
risk, which grows with epsilon.

Choosing epsilon from results on the private data is itself a use of the private data
(:data:`core.decide.selection.PRIVATE_CHOICE_NOTE`, said beside every answer). The panel
offers the two sound ways where the page gives them: solving on a public reference table the
user uploads (:class:`ReferenceOffer`: the page's own sweep on that table), and paying for the
choice with private selection (:class:`SelectionOffer`: Liu and Talwar 2019 or Papernot and
Steinke 2022, whose cost is a line of the ledger). "Use this epsilon" sets the page's epsilon
(:class:`ApplyEpsilon`); :func:`chosen_ledger` then marks the page's ledger when the choice was
made on the private data (:func:`core.decide.selection.mark_private_choice`), or adds the
selection's cost to it.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, Sequence

import pandas as pd
import streamlit as st

from core.decide import UP_TO, Solution, Target, solve_summary
from core.decide.selection import PRIVATE_CHOICE_NOTE
from dashboard.shared.safe import md
from dashboard.shared.solve.solve_offers import (
    CHOICES_KEY, SELECTIONS, ApplyEpsilon, EpsilonChoice, Mark, ReferenceOffer, SelectionOffer, Solved, apply_epsilon,
    chosen_ledger, kept, read_reference, reference_problems, reference_runs, selection_section,
)

__all__ = [
    "CHOICES_KEY", "SOURCES", "SELECTIONS", "SolveMeasure", "ApplyEpsilon", "ReferenceOffer", "SelectionOffer",
    "Mark", "Solved", "EpsilonChoice", "solve_runs", "solution_rows", "reference_problems", "read_reference",
    "snap_up", "snap_down", "target_input", "solve_panel", "chosen_ledger",
]

#: where an answer comes from, in words
SOURCES = {
    "private": "the curve on your private data",
    "reference": "a public reference table you upload",
    "selection": "private selection (paid from the budget)",
}


@dataclass(frozen=True)
class SolveMeasure:
    """A measure a target can bound.

    Parameters
    ----------
    column : str
        Its column in the runs.
    words : str
        What it is, in words ("test accuracy"); escaped wherever it is shown.
    higher_is_better : bool
        True: the target reads "at least" (accuracy); False: "at most" (an error, an attack's
        advantage). Choosing epsilon on it from the private data is itself a use of the
        private data.
    low, high : float, optional
        The number input's range.
    step : float
        The number input's step.
    name : str, optional
        The target's measure name (what its sentences call it); default ``column``.
    """

    column: str
    words: str
    higher_is_better: bool
    low: float | None = None
    high: float | None = None
    step: float = 0.01
    name: str | None = None

    @property
    def measure(self) -> str:
        """The name the :class:`~core.decide.target.Target` carries."""
        return self.name or self.column

    @property
    def side(self) -> str:
        """'at least' or 'at most'."""
        return "at least" if self.higher_is_better else "at most"

    def target(self, value: float) -> Target:
        """The target "this measure at least / at most ``value``"."""
        return Target(self.measure, at_least=value) if self.higher_is_better else Target(self.measure, at_most=value)


# ----------------------------------------------------------------------------- pure parts
def solve_runs(runs: pd.DataFrame, target: Target, *, group: str = "scheme", column: str | None = None,
               confidence: float = 0.95) -> list[Solution]:
    """:func:`core.decide.solve.solve_summary` on a page's runs: ``group`` names the method
    column, ``column`` the measure's (renamed to the target's measure)."""
    if not isinstance(runs, pd.DataFrame):
        raise TypeError(f"runs must be a pandas DataFrame, got {type(runs).__name__}.")
    names = {}
    if group != "method":
        names[group] = "method"
    if column is not None and column != target.measure:
        names[column] = target.measure
    return solve_summary(runs.rename(columns=names), target, confidence=confidence)


def _num(value: float) -> str:
    return f"{value:.3g}"


def _answer(s: Solution) -> str:
    if s.value is not None:
        return "takes no epsilon: " + ("meets it" if s.met else "does not meet it")
    if not s.grid:
        return "does not apply"
    if not s.met or s.epsilon is None:
        return "no epsilon in range meets it"
    if s.direction == UP_TO:
        if s.epsilon >= s.grid[-1]:
            return f"at or above {_num(s.grid[-1])} (the largest tried)"
        return f"up to epsilon {_num(s.epsilon)}"
    if s.epsilon <= s.grid[0]:
        return f"at or below {_num(s.grid[0])} (the smallest tried)"
    return f"from epsilon {_num(s.epsilon)}"


def _interval(s: Solution) -> str:
    if not s.grid or s.value is not None:
        return ""
    if s.epsilon_low is None and s.epsilon_high is None:
        return "unknown (run at least two repetitions)" if s.repetitions < 2 else "none in range"
    low = _num(s.epsilon_low) if s.epsilon_low is not None else f"{_num(s.grid[0])} or below"
    if s.epsilon_high is None:
        high = "unknown"
    elif math.isinf(s.epsilon_high):
        high = f"beyond {_num(s.grid[-1])}"
    else:
        high = _num(s.epsilon_high)
    return f"{low} to {high}"


def solution_rows(solutions: Sequence[Solution], *, labels: dict | None = None) -> pd.DataFrame:
    """One row per answer, plain text and numbers (nothing rendered): the method, the answer in
    words ("from epsilon 0.53"; "up to epsilon 1.5" for a risk, which grows with epsilon; "no
    epsilon in range meets it"), the solved epsilon (NaN where none), its interval, the fewest
    repetitions behind a point, and the reason in one sentence."""
    conf = f"{solutions[0].confidence:.0%}" if solutions else "95%"
    rows = [{
        "method": str((labels or {}).get(s.method, s.method)),
        "meets the target": _answer(s),
        "epsilon": float(s.epsilon) if s.epsilon is not None else math.nan,
        f"{conf} interval of that epsilon": _interval(s),
        "repetitions": int(s.repetitions),
        "reading": s.reason,
    } for s in solutions]
    return pd.DataFrame(rows, columns=["method", "meets the target", "epsilon", f"{conf} interval of that epsilon",
                                       "repetitions", "reading"])


def snap_up(epsilon: float, options: Sequence[float]) -> float:
    """The smallest of ``options`` at or above ``epsilon`` (the largest when none is): a solved
    epsilon as a value a widget offers, rounded up so the target still holds on the curve."""
    values = sorted(float(o) for o in options)
    if not values:
        raise ValueError("options must list at least one epsilon.")
    return next((v for v in values if v >= float(epsilon) - 1e-12), values[-1])


def snap_down(epsilon: float, options: Sequence[float]) -> float:
    """The largest of ``options`` at or below ``epsilon`` (the smallest when none is): an
    ``"up_to"`` answer (a risk at most Z) as a value a widget offers, rounded down so the risk
    target still holds on the curve."""
    values = sorted(float(o) for o in options)
    if not values:
        raise ValueError("options must list at least one epsilon.")
    return next((v for v in reversed(values) if v <= float(epsilon) + 1e-12), values[0])


# ----------------------------------------------------------------------------- widgets
def target_input(key: str, measures: Sequence[SolveMeasure]) -> tuple[SolveMeasure, Target] | None:
    """The target: which measure (when there are several) and its bound, a number input that
    starts empty. None until a number is given."""
    if not measures:
        raise ValueError("measures must list at least one measure.")
    chosen = measures[0]
    if len(measures) > 1:
        by_name = {m.column: m for m in measures}
        chosen = by_name[kept(f"{key}_measure", lambda: st.selectbox(
            "Target on", list(by_name), key=f"{key}_measure", format_func=lambda c: by_name[c].words),
            list(by_name))]
    value = kept(f"{key}_target_{chosen.column}", lambda: st.number_input(
        f"{md(chosen.words)} {chosen.side}", min_value=chosen.low, max_value=chosen.high, value=None,
        step=chosen.step, key=f"{key}_target_{chosen.column}", placeholder="a number", format="%g"))
    if value is None:
        return None
    return chosen, chosen.target(float(value))


def solve_panel(runs: pd.DataFrame, *, key: str, measures: Sequence[SolveMeasure], group: str = "scheme",
                labels: dict | None = None, apply: ApplyEpsilon | None = None,
                reference: ReferenceOffer | str | None = None, selection: SelectionOffer | str | None = None,
                confidence: float = 0.95, solve_file: Callable[[Target, float], Any] | None = None) -> Solved | None:
    """The target, each method's epsilon with its uncertainty, the note on choosing it on the
    private data with the two sound ways, and "use this epsilon".

    Parameters
    ----------
    runs : DataFrame
        One row per (method, epsilon, repetition): ``group``, ``epsilon`` and each measure's
        column. They come from the private data: an answer read from them is a use of it.
    key : str
        Prefix of the widget keys (one panel per page).
    measures : sequence of SolveMeasure
        What a target can bound (a choice is offered when there are several).
    group : str
        The runs' method column (``scheme`` on the CDP pages, ``method`` on Compare).
    labels : dict, optional
        A method's name in the table when it differs from the runs'.
    apply : ApplyEpsilon, optional
        "Use this epsilon" for a page with an epsilon widget.
    reference, selection : offer, str or None
        The two sound ways where the page gives them, or a sentence (our own) saying where else
        they are; None leaves them unsaid.
    confidence : float
        Coverage of each mean's interval.
    solve_file : callable, optional
        ``(target, confidence) -> SolveConfig``: the ``pux solve`` config that computes the
        same runs (:mod:`core.decide.from_configs`); with it, an answer on the private curve
        can be downloaded as that config, so the command line gives it again.

    Returns
    -------
    Solved or None
        The answers to mark on the page's curve; None until a target is given (or while the
        reference sweep runs, or before the selection ran).
    """
    asked = target_input(key, measures)
    if asked is None:
        st.caption("Type a target to get, for each method, the epsilon range that meets it.")
        return None
    measure, target = asked
    sources = ["private"] + [s for s, o in (("reference", reference), ("selection", selection))
                             if isinstance(o, (ReferenceOffer, SelectionOffer))]
    source = sources[0] if len(sources) == 1 else kept(f"{key}_source", lambda: st.radio(
        "Solve on", sources, key=f"{key}_source", horizontal=True, format_func=SOURCES.get), sources)
    if source == "selection":
        return selection_section(key, selection, target, apply)  # type: ignore[arg-type]
    if source == "reference":
        found = reference_runs(key, reference)  # type: ignore[arg-type]
        if found is None:
            return None
        solutions = solve_runs(found, target, group=group, column=measure.column, confidence=confidence)
        st.success("Solved on the public reference table you uploaded: this choice costs the private data "
                   "nothing, as long as the table is public (not a sample of the private rows).",
                   icon=":material/public:")
    else:
        solutions = solve_runs(runs, target, group=group, column=measure.column, confidence=confidence)
    st.dataframe(solution_rows(solutions, labels=labels), hide_index=True, width="stretch")
    if source == "private":
        _private_note(reference, selection)
        if solve_file is not None:
            _download_solve(key, solve_file(target, confidence))
    if apply is not None:
        _apply_answer(key, solutions, apply, target, source, labels)
    return Solved(target, tuple(solutions), source)


def _download_solve(key: str, config: Any) -> None:
    """The answer as a ``pux solve`` config (same settings and seed: the same epsilons)."""
    command = "pux solve --config solve.json" + (" --csv YOUR_FILE.csv" if config.dataset.startswith("csv:") else "")
    st.download_button("This solve (solve.json)", config.to_json(), file_name="solve.json", mime="application/json",
                       icon=":material/settings:", key=f"{key}_config", on_click="ignore",
                       help=f"Run it from the command line: {command}. The same settings and seed give the same "
                            "epsilons for every seeded method. Set its \"reference\" to a public table's CSV to "
                            "solve on that table instead of the private one.")


def _private_note(reference: Any, selection: Any) -> None:
    """The note beside every answer on the private data, with where the sound ways are."""
    st.warning(md(PRIVATE_CHOICE_NOTE), icon=":material/policy:")
    ways = [offer for offer in (reference, selection) if isinstance(offer, str)]
    here = [f"'{SOURCES[kind]}'" for offer, kind in ((reference, "reference"), (selection, "selection"))
            if offer is not None and not isinstance(offer, str)]
    if here:
        ways.append(f"Here: choose {' or '.join(here)} under Solve on.")
    if ways:
        st.caption(" ".join(md(w) for w in ways))


def _apply_answer(key: str, solutions: Sequence[Solution], apply: ApplyEpsilon, target: Target, source: str,
                  labels: dict | None) -> None:
    """The method whose answer to use, and the button that sets the page's epsilon to it."""
    usable = {s.method: s for s in solutions if s.met and s.epsilon is not None}
    if not usable:
        st.caption("No method meets the target in range: there is no epsilon to use.")
        return
    names = list(usable)
    index = names.index(apply.default) if apply.default in usable else 0
    method = names[index] if len(names) == 1 else st.selectbox(
        "Use the answer of", names, index=index, key=f"{key}_use_method",
        format_func=lambda m: str((labels or {}).get(m, m)))
    solved = float(usable[method].epsilon)  # type: ignore[arg-type]
    up_to = target.direction == UP_TO
    snap = apply.snap_down if up_to else apply.snap
    if snap is None:
        st.caption(f"A risk grows with epsilon and this page rounds its epsilon up: set it by hand at or below "
                   f"{solved:.3g}, where the target still holds.")
        return
    value = snap(solved)
    choice = EpsilonChoice(value, source, method, target.describe())
    st.button(f"Use this epsilon ({value:g})", key=f"{key}_use", on_click=apply_epsilon,
              args=(apply.widget_key, value, choice))
    words = ("the page's ledger is marked: its epsilon was chosen on the private data" if source == "private"
             else "solved on the public reference, so the page's ledger keeps its guarantee")
    st.caption(f"Sets the page's epsilon to {value:g} (the solved {solved:.3g} rounded {'down' if up_to else 'up'} "
               f"to a value the page offers, so the target still holds on the curve); {words}.")

