"""Decide: solve for the epsilon that meets a target, and say what choosing it costs.

API summary (stable names; every result has ``to_dict()`` for JSON)
--------------------------------------------------------------------
* :class:`~core.decide.target.Target` ``(measure, at_least=None, at_most=None)`` -- exactly one
  bound. ``Target.parse("utility>=0.8")``, ``Target.from_dict({...})``, ``.describe()``
  ("accuracy at least 0.8"), ``.met(value)``, ``.threshold``, ``.higher_is_better``, ``.direction``,
  ``.to_dict()``. :func:`~core.decide.target.direction_of` ``(measure) -> "from" | "up_to"`` is the
  one place that says which way a target is met: ``"from"`` an epsilon on (utility, accuracy,
  errors, fidelity scores: more epsilon helps), ``"up_to"`` an epsilon (the privacy risks of
  :data:`~core.decide.target.RISK_MEASURES` and ``ai_advantage_<col>``/``ai_member_<col>``:
  risk grows with epsilon). ``Target.direction`` is it for an at-most target (``"from"`` for at least).
* :func:`~core.decide.solve.solve_epsilon` ``(curve, target, *, method="", confidence=0.95)
  -> Solution``: ``curve`` is a DataFrame with columns ``epsilon`` and ``value``, one row per
  (epsilon, repetition).
* :func:`~core.decide.solve.solve_summary` ``(runs, target, *, confidence=0.95) -> list[Solution]``:
  one per method of a comparison's runs (columns ``method``, ``epsilon``, the target's measure;
  a method without that measure gets a "does not apply" Solution, one without epsilon a
  "takes no epsilon" one).
* :class:`~core.decide.solve.Solution` fields: ``method, target, met, epsilon, epsilon_low,
  epsilon_high, grid, means, lows, highs, repetitions, confidence, reason, value`` and the
  property ``direction`` (in ``to_dict`` too). ``epsilon`` is the point to mark on the curve:
  met from there on (``"from"``) or up to there (``"up_to"``); None: "no epsilon in range meets
  it", the reason says so. ``epsilon_low``/``epsilon_high`` are the lower/upper end of its
  uncertainty (where the optimistic / pessimistic bound of the means' t intervals cross;
  ``epsilon_high`` is ``math.inf`` (None in ``to_dict``, ``epsilon_high_beyond_range`` True)
  when the upper end lies beyond the range).
* :func:`~core.decide.curve.curve_points` ``(curve, *, confidence) -> CurvePoints`` (grid, means,
  lows, highs, counts) and :func:`~core.decide.curve.crossing` for charts.
* :data:`~core.decide.selection.PRIVATE_CHOICE_NOTE` -- the sentence every answer shows.
  :func:`~core.decide.selection.mark_private_choice` ``(ledger) -> PrivacyLedger`` marks a release
  whose epsilon was chosen on the private data (no guarantee any more).
  :func:`~core.decide.selection.liu_talwar_selection` ``(run, candidates, *, gamma, random_state=None)``
  (3 max(candidates)) and :func:`~core.decide.selection.papernot_steinke_selection` ``(run, candidates,
  *, gamma, eta=0, random_state=None)`` ((2 + eta) max(candidates)) -> :class:`~core.decide.selection.Selected`
  (``candidate, score, rounds, ledger, algorithm, expected_rounds``; ``ledger.total()`` is the cost):
  private selection among candidate epsilons, ``run(epsilon, random_state) -> score`` (higher better);
  :func:`~core.decide.selection.target_runner` ``(measure, target)`` scores by a target;
  :func:`~core.decide.selection.selection_cost` ``(epsilon, *, eta=1.0)``.
* :mod:`core.decide.pages` -- the pages' runs, with the pages' own functions and seeds:
  ``cdp_lr_runs(dataset, schema, *, epsilons, repetitions, seed, noise_method=1, preset="sensible",
  measure="pearson", threshold=0.8, tc=40.0, max_rows=5000)`` and ``publishing_runs(dataset, schema, *,
  epsilons, repetitions, seed, measures=("pearson",), threshold=0.8, n_queries=200, budget="per_query",
  use_products=True, max_rows=5000)``; ``scheme_runs(runs)`` turns a page's own runs (column ``scheme``,
  as ``dashboard.cdp.jobs.run_curves`` / ``run_mae`` return) into a solver's runs (``method``, ``is_dp``):
  a page solves with ``solve_summary(scheme_runs(runs), target)`` and gets what ``pux solve`` prints.
* :class:`~core.decide.config.SolveConfig` (``"format": "pux-solve/1"``) and
  :func:`~core.decide.run.run_solve` ``(config, *, data_dir=None, csv=None, progress=None) -> dict``
  (``{"schema": "pux-solve/1", ...}``) -- what ``pux solve --config FILE`` prints;
  :func:`~core.decide.run.solution_entry` ``(solution, *, seeded=True, is_dp=None, spread=None)``
  is one method's entry of it.
"""
from __future__ import annotations

from core.decide.curve import Crossing, CurvePoints, crossing, curve_points
from core.decide.selection import (
    PRIVATE_CHOICE_NOTE,
    Selected,
    liu_talwar_selection,
    mark_private_choice,
    papernot_steinke_selection,
    selection_cost,
)
from core.decide.solve import Solution, solve_epsilon, solve_summary
from core.decide.target import DIRECTIONS, FROM, RISK_MEASURES, UP_TO, Target, direction_of

__all__ = ["Crossing", "CurvePoints", "DIRECTIONS", "FROM", "PRIVATE_CHOICE_NOTE", "RISK_MEASURES", "Selected",
           "Solution", "Target", "UP_TO", "crossing", "curve_points", "direction_of", "liu_talwar_selection",
           "mark_private_choice", "papernot_steinke_selection", "selection_cost", "solve_epsilon", "solve_summary"]
