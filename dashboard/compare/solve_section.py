"""Solve for epsilon on the Compare page: a target on any of the comparison's measures (utility,
fidelity, MSE, the attacks' advantages), per method the epsilon range that meets it from the
per-repetition runs, marked on the curves it was solved on. A utility, fidelity or error target
is met from an epsilon on; an attack's risk grows with epsilon, so its target is met up to an
epsilon (:func:`core.decide.target.direction_of`), and the answers say so.

The answers come from :func:`core.decide.solve.solve_summary` on
:attr:`core.compare.result.ComparisonResult.runs`, the same as ``pux solve`` on the same config
and seed. The runs are measured on the private data, so the panel says that a choice read from
them is itself a use of it, and where the two sound ways are: a public reference table (run the
comparison, or ``pux solve``, on it), and private selection (on the CDP-LR and Publishing pages,
whose DP methods can be run afresh). Methods whose sampler cannot be seeded
(:data:`core.compare.audits.UNSEEDED`: MST and AIM, through OpenDP) say so, with their spread
over the repetitions: their answer varies from one run of the comparison to the next.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from core.compare.audits import UNSEEDED
from core.compare.measures import MEASURES
from core.decide import UP_TO
from core.decide.from_configs import solve_config_from_compare
from dashboard.shared.widgets.chart_data import show_chart
from dashboard.shared.widgets.charts import plotly_text
from dashboard.shared.safe import md
from dashboard.shared.solve.solve_charts import mark_solutions, solution_curve, solution_curve_data
from dashboard.shared.solve.solve_panel import SolveMeasure, Solved, solve_panel

__all__ = ["REFERENCE_WAY", "SELECTION_WAY", "UNSEEDED_NOTE", "ONE_RUN_NOTE", "UP_TO_NOTE", "solve_measures",
           "spread_rows", "solve_section"]

#: where the public-reference way is, from Compare
REFERENCE_WAY = ("A public reference table: choose a table with the schema's shape that you may publish on the "
                 "Data page and run the comparison on it, or set it as the \"reference\" of this solve's solve.json "
                 "and run pux solve on it; "
                 "its answer costs the private data nothing.")
#: where the private-selection way is, from Compare
SELECTION_WAY = ("Private selection runs a DP method afresh at randomly drawn candidates and pays for the choice "
                 "from the budget: the solve panels of the CDP-LR and Publishing pages offer it for their DP "
                 "readings.")
#: what an unseeded method's answer is worth
UNSEEDED_NOTE = ("{method}'s sampler (OpenDP) cannot be seeded: the same settings and seed give other releases, "
                 "so its solved epsilon varies from one run of the comparison to the next. Its spread over the "
                 "repetitions:")
#: why an unseeded method's spread is empty with one repetition
ONE_RUN_NOTE = ("One repetition per epsilon gives no spread (its standard deviation is undefined): run the "
                "comparison with 2 or more repetitions to see how much this method's answer moves.")
#: what an answer on a risk means (its target is met up to an epsilon, not from one)
UP_TO_NOTE = ("A privacy risk grows with epsilon: each answer is the largest epsilon up to which the method's mean "
              "stays within the target, at every smaller epsilon tried; a larger epsilon gives the attack more.")
#: measures whose per-attribute columns (``<name>_<attribute>``) are solvable too
_PER_ATTRIBUTE = ("ai_advantage", "ai_member")


def _has_values(runs: pd.DataFrame, column: str) -> bool:
    if column not in runs.columns:
        return False
    values = pd.to_numeric(runs[column], errors="coerce").to_numpy(dtype=float)
    return bool(np.isfinite(values).any())


def solve_measures(runs: pd.DataFrame) -> list[SolveMeasure]:
    """Every measure of ``runs`` a target can bound: those with a direction
    (:attr:`core.compare.measures.Measure.higher_is_better`) and at least one value, in the
    runs' order, each per-attribute advantage after its measure ("... (attribute)")."""
    out = []
    for name, m in MEASURES.items():
        if m.higher_is_better is None:
            continue
        words = m.words or name
        columns = [(name, words)]
        if name in _PER_ATTRIBUTE:
            columns += [(c, f"{words} ({c[len(name) + 1:]})") for c in runs.columns if c.startswith(f"{name}_")]
        out += [SolveMeasure(c, w, bool(m.higher_is_better), step=0.01) for c, w in columns if _has_values(runs, c)]
    return out


def spread_rows(runs: pd.DataFrame, method: str, measure: str) -> pd.DataFrame:
    """``method``'s ``measure`` over the repetitions at each epsilon: mean, standard deviation,
    smallest, largest and the number of repetitions."""
    rows = runs[runs["method"] == method]
    values = pd.to_numeric(rows[measure], errors="coerce")
    frame = pd.DataFrame({"epsilon": rows["epsilon"], "value": values}).dropna(subset=["value"])
    grouped = frame.groupby("epsilon", dropna=False)["value"]
    out = grouped.agg(["mean", "std", "min", "max", "count"]).reset_index()
    return out.rename(columns={"std": "standard deviation", "min": "smallest", "max": "largest",
                               "count": "repetitions"})


def _unseeded(result, solved: Solved) -> None:
    """Each unseeded method of the comparison: that it cannot be seeded, and its spread."""
    present = [m for m in dict.fromkeys(result.runs["method"]) if m in UNSEEDED]
    for method in present:
        st.info(md(UNSEEDED_NOTE.format(method=method)), icon=":material/shuffle:")
        rows = spread_rows(result.runs, method, solved.target.measure)
        st.dataframe(rows, hide_index=True, width="stretch")
        if len(rows) and int(rows["repetitions"].max()) < 2:
            st.caption(ONE_RUN_NOTE)


def _chart(solved: Solved, words: str) -> None:
    """The curves the answers were solved on, the target and each solved epsilon marked."""
    if not any(s.grid for s in solved.solutions):
        return
    text = plotly_text(words)  # a per-attribute measure names a column of the user's table
    fig = solution_curve(solved.solutions, title=f"{text[:1].upper() + text[1:]} against epsilon, the solved "
                                                 "epsilons marked", y_title=text)
    fig = mark_solutions(fig, solved.solutions, target_value=solved.target.threshold,
                         target_text=solved.target.describe())
    show_chart(fig, solution_curve_data(solved.solutions), name="compare-solved-epsilon", key="cmp_solve_chart",
               width="stretch")
    conf = f"{solved.solutions[0].confidence:.0%}"
    st.caption(f"Lines are each method's mean over its repetitions, bands the {conf} interval of that mean; the "
               "dashed line is the target; each diamond is a solved epsilon and its shaded band the interval of "
               "that epsilon (where the optimistic and the pessimistic bound of the means cross the target).")


def solve_section(result, *, config=None) -> Solved | None:
    """Solve for epsilon from a target on the comparison's runs: the target, each method's
    epsilon range with its uncertainty, the note on choosing on the private data and the two
    sound ways, the unseeded methods' spread, the curves with the answers marked, and the
    answer as a ``pux solve`` config.

    Parameters
    ----------
    result : ComparisonResult
        The comparison: its ``runs`` (one row per method, epsilon and repetition) are solved on.
    config : CompareConfig, optional
        The settings that rerun the comparison (the page's run.json); with it the answer can be
        downloaded as the ``pux solve`` config that gives it again.

    Returns
    -------
    Solved or None
        The answers (None until a target is given).
    """
    st.subheader("Solve for epsilon")
    st.caption("State a target and get, for each method, the smallest epsilon from which its mean meets it (for "
               "an attack's risk, which grows with epsilon: the largest epsilon up to which it does), with the "
               "interval of that epsilon over the repetitions.")
    runs = result.runs
    measures = solve_measures(runs) if isinstance(runs, pd.DataFrame) and "method" in runs.columns else []
    if not measures:
        st.info("The comparison has no measure to solve on.", icon=":material/info:")
        return None
    solve_file = None if config is None else (
        lambda target, confidence: solve_config_from_compare(config, target, confidence=confidence))
    solved = solve_panel(runs, key="cmp_solve", measures=measures, group="method", reference=REFERENCE_WAY,
                         selection=SELECTION_WAY, solve_file=solve_file)
    if solved is None:
        return None
    if solved.target.direction == UP_TO:
        st.caption(UP_TO_NOTE)
    _unseeded(result, solved)
    words = next((m.words for m in measures if m.measure == solved.target.measure), solved.target.measure)
    _chart(solved, words)
    return solved
