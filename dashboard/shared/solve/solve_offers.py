"""The choice behind "use this epsilon", and the two sound ways to make it: the parts of the
solve panel (:mod:`dashboard.shared.solve.solve_panel`) that set the page's epsilon and say how it
was chosen.

* :class:`ApplyEpsilon` and :func:`apply_epsilon`: "use this epsilon" sets the page's epsilon
  widget and remembers an :class:`EpsilonChoice` (value, source, method, target, and the cost of
  a private selection) in the session.
* :func:`chosen_ledger`: the page's ledger at its epsilon, marked by
  :func:`core.decide.selection.mark_private_choice` when that epsilon was chosen on the private
  data, with the selection's cost added as a line when private selection chose it.
* :class:`ReferenceOffer` and :func:`reference_runs`: a public reference table the user uploads
  (the schema's columns), checked (:func:`reference_problems`) and handed to the page's own sweep.
* :class:`SelectionOffer` and :func:`selection_section`: private selection of the epsilon
  (:func:`core.decide.selection.liu_talwar_selection`,
  :func:`core.decide.selection.papernot_steinke_selection`) with its cost shown before it runs
  and as a ledger line after.
"""
from __future__ import annotations

import copy
import hashlib
import math
from dataclasses import dataclass
from typing import Any, Callable, Sequence

import pandas as pd
import streamlit as st

from core.data import Dataset
from core.decide import Target
from core.decide.rounds import expected_rounds
from core.decide.selection import (
    Selected, liu_talwar_selection, mark_private_choice, papernot_steinke_selection, selection_cost, target_runner,
)
from core.privacy.ledger import PrivacyLedger
from core.privacy.schema import PublicSchema
from core.runtime.randomness import RandomState
from core.validation import DataError
from dashboard.shared.serving.datasets import parse_upload
from dashboard.shared.safe import md

__all__ = [
    "CHOICES_KEY", "SELECTIONS", "ApplyEpsilon", "EpsilonChoice", "Mark", "Solved", "ReferenceOffer",
    "SelectionOffer", "apply_epsilon", "chosen_ledger", "epsilon_choice", "reference_problems", "read_reference", "reference_runs",
    "selection_section", "spent_on_choosing", "kept",
]

#: session state: the page's epsilon widget key -> the :class:`EpsilonChoice` "use this epsilon" made
CHOICES_KEY = "pux_epsilon_choices"
#: session state: the panel's widget values, kept across a run that does not draw them
KEPT_KEY = "pux_solve_kept"
#: the private selections offered, in words
SELECTIONS = {
    "liu_talwar": "Liu & Talwar 2019 (random stopping: 3 x the largest candidate)",
    "papernot_steinke": "Papernot & Steinke 2022 (truncated negative binomial: (2 + eta) x the largest candidate)",
}


@dataclass(frozen=True)
class ApplyEpsilon:
    """How "use this epsilon" sets the page's epsilon.

    Parameters
    ----------
    widget_key : str
        The key of the page's epsilon widget (set through its session state).
    snap : callable(float) -> float
        The solved epsilon as a value the widget offers, rounded up (the target then still holds
        on the curve).
    default : str, optional
        The method whose answer is offered first (the page's DP method).
    snap_down : callable(float) -> float, optional
        For an ``"up_to"`` answer (a privacy risk at most Z, met up to the solved epsilon): the
        solved epsilon rounded down to a value the widget offers, so the risk target still
        holds. None: no "use this epsilon" for such an answer (the panel says to set it by hand).
    """

    widget_key: str
    snap: Callable[[float], float]
    default: str | None = None
    snap_down: Callable[[float], float] | None = None


@dataclass(frozen=True)
class ReferenceOffer:
    """Solving on a public reference table: the page's own sweep on a table the user uploads.

    Parameters
    ----------
    schema : PublicSchema
        The shape the table must have (the schema's columns); its values are clipped into it.
    label : str or None
        The label column the page's task predicts.
    runs : callable(Dataset) -> DataFrame or None
        The page's sweep on the reference table, one row per (method, epsilon, repetition);
        None while it computes (the page draws its progress). Nothing of the private data is
        read: the answer costs it nothing, as long as the table really is public.
    """

    schema: PublicSchema
    label: str | None
    runs: Callable[[Dataset], pd.DataFrame | None]


@dataclass(frozen=True)
class SelectionOffer:
    """Paying for the choice with private selection.

    Parameters
    ----------
    method : str
        The DP method whose epsilon is chosen.
    measure : callable(epsilon, random_state) -> float
        One fresh run at a candidate ``epsilon`` that is ``epsilon``-DP as a whole (its release
        and the score measured on it, noise included) and returns the measured value.
    candidates : tuple of float
        The epsilons to choose among, in what one run spends (the selection costs (2 + eta)
        times the largest).
    words : str
        What one run does and spends, in words (our own text).
    to_page : callable(float) -> float, optional
        A chosen candidate as the page's epsilon (default: the same number).
    random_state : int, Generator or None
        The selection's randomness: None (fresh entropy) for a real choice; a seed repeats it.
    """

    method: str
    measure: Callable[[float, int], float]
    candidates: tuple[float, ...]
    words: str
    to_page: Callable[[float], float] | None = None
    random_state: RandomState = None


@dataclass(frozen=True)
class Mark:
    """A chosen epsilon to mark on a curve (the fields :func:`~dashboard.shared.solve.solve_charts.mark_solutions` reads)."""

    method: str
    epsilon: float
    epsilon_low: float | None = None
    epsilon_high: float | None = None


@dataclass(frozen=True)
class Solved:
    """What the panel answered: the target, one answer per method, and where it comes from."""

    target: Target
    solutions: tuple[Any, ...]
    source: str


@dataclass(frozen=True)
class EpsilonChoice:
    """An epsilon "use this epsilon" set: its value, how it was chosen, and the cost of the
    choice when private selection paid for it."""

    epsilon: float
    source: str
    method: str
    target: str
    cost: PrivacyLedger | None = None


def reference_problems(dataset: Dataset, schema: PublicSchema, label: str | None) -> list[str]:
    """Why an uploaded reference table cannot stand in for the private one (empty: it can):
    the schema's column problems, and a missing label column."""
    problems = schema.check(dataset)
    if label is not None and label not in dataset.frame.columns:
        problems.append(f"The reference table has no label column '{label}', which the page predicts.")
    return problems


def read_reference(content: bytes, file_name: str, *, label: str | None) -> Dataset:
    """An uploaded reference table as a dataset with the page's label (raises DataError)."""
    dataset = parse_upload(content, file_name)
    return dataset.with_roles(label=label if label in dataset.frame.columns else None)


def kept(widget_key: str, make: Callable[[], Any], options: Sequence[Any] | None = None) -> Any:
    """``make()``, a widget keyed ``widget_key``, whose value outlives a run that does not draw
    it (Streamlit forgets such a widget's value: a target typed before the curve was recomputed
    would be lost). A kept value no longer among ``options`` is dropped."""
    store = st.session_state.setdefault(KEPT_KEY, {})
    if widget_key not in st.session_state and widget_key in store:
        if options is None or store[widget_key] in list(options):
            st.session_state[widget_key] = store[widget_key]
    value = make()
    store[widget_key] = value
    return value


# ----------------------------------------------------------------------------- the page's ledger
def chosen_ledger(widget_key: str, epsilon: float, ledger: PrivacyLedger) -> PrivacyLedger:
    """The page's ledger at ``epsilon``, honest about how that epsilon was chosen.

    Where "use this epsilon" set the widget to ``epsilon`` from an answer on the private data,
    a copy marked by :func:`core.decide.selection.mark_private_choice` (no guarantee any more);
    from private selection, a copy with the selection's cost added as a line; otherwise (a
    public reference, or an epsilon set by hand) ``ledger`` itself.
    """
    choice = st.session_state.get(CHOICES_KEY, {}).get(widget_key)
    if choice is None or not math.isclose(choice.epsilon, float(epsilon), rel_tol=1e-9, abs_tol=1e-12):
        return ledger
    if choice.source == "private":
        return mark_private_choice(ledger)
    if choice.source == "selection" and choice.cost is not None:
        out = copy.deepcopy(ledger)
        out.extend(choice.cost, prefix="choosing epsilon")
        return out
    return ledger


def epsilon_choice(widget_key: str, epsilon: float) -> dict[str, Any] | None:
    """How the page's ``epsilon`` was chosen, as a bundle's ``epsilon_choice`` setting
    (:func:`core.decide.selection.check_epsilon_choice`): what :func:`chosen_ledger` reads."""
    choice = st.session_state.get(CHOICES_KEY, {}).get(widget_key)
    if choice is None or not math.isclose(choice.epsilon, float(epsilon), rel_tol=1e-9, abs_tol=1e-12):
        return None
    if choice.source == "private":
        return {"source": "private"}
    if choice.source == "selection" and choice.cost is not None:
        return {"source": "selection", "cost": [float(v) for v in choice.cost.total()]}
    return None


def apply_epsilon(widget_key: str, value: float, choice: EpsilonChoice) -> None:
    """The button's callback: set the page's epsilon and remember how it was chosen."""
    st.session_state[widget_key] = value
    st.session_state.setdefault(CHOICES_KEY, {})[widget_key] = choice


# ----------------------------------------------------------------------------- the sound ways
def reference_runs(key: str, offer: ReferenceOffer) -> pd.DataFrame | None:
    """The uploaded reference table (kept for the session), checked against the schema, and
    the page's sweep on it; None until both are there."""
    slot = f"{key}_reference"
    upload = st.file_uploader("Public reference table (CSV with the schema's columns)", type="csv",
                              key=f"{key}_reference_upload",
                              help="A table you may publish (a codebook's example, an earlier public release, "
                                   "synthetic data made without the private rows): never a sample of them.")
    if upload is not None:
        content = upload.getvalue()
        digest = hashlib.sha256(content).hexdigest()[:16]
        if (st.session_state.get(slot) or (None,))[0] != digest:
            try:
                st.session_state[slot] = (digest, read_reference(content, upload.name, label=offer.label))
            except DataError as exc:
                st.error(md(exc), icon=":material/error:")
                return None
    stored = st.session_state.get(slot)
    if stored is None:
        st.caption("Upload a public table with the schema's columns: the page runs its curve on it and solves "
                   "there.")
        return None
    problems = reference_problems(stored[1], offer.schema, offer.label)
    if problems:
        st.error(md(" ".join(problems)), icon=":material/table_view:")
        return None
    return offer.runs(stored[1])


def _selection_settings(key: str, offer: SelectionOffer) -> tuple[str, float, float, tuple[float, ...]]:
    """The algorithm, gamma, eta and the candidates (up to the largest the user allows)."""
    c1, c2, c3 = st.columns([2, 1, 1])
    algorithm = kept(f"{key}_sel_algorithm", lambda: c1.radio(
        "Private selection", list(SELECTIONS), key=f"{key}_sel_algorithm", format_func=SELECTIONS.get),
        list(SELECTIONS))
    gamma = kept(f"{key}_sel_gamma", lambda: c2.number_input(
        "gamma", 0.05, 0.95, 0.1, 0.05, key=f"{key}_sel_gamma", format="%g",
        help="Smaller gamma: more runs on average (more compute), the same cost."))
    eta = 1.0
    if algorithm == "papernot_steinke":
        eta = kept(f"{key}_sel_eta", lambda: c3.number_input(
            "eta", 0.0, 1.0, 0.0, 0.5, key=f"{key}_sel_eta", format="%g",
            help="0: the logarithmic number of runs, the selection costs 2 x the largest candidate; 1: the "
                 "geometric, 3 x."))
    cands = sorted(offer.candidates)
    largest = kept(f"{key}_sel_largest", lambda: st.select_slider(
        "Largest candidate epsilon", cands, value=cands[len(cands) // 2], key=f"{key}_sel_largest",
        help="The selection costs (2 + eta) times the largest candidate: smaller candidates make a cheaper "
             "choice."), cands)
    return algorithm, float(gamma), float(eta), tuple(c for c in cands if c <= largest)


def spent_on_choosing(key: str) -> PrivacyLedger:
    """Every private selection this session ran in the panel ``key``, composed: each press of
    "Run the private selection" spends its cost again, whether or not its answer is used."""
    total = PrivacyLedger()
    for i, ledger in enumerate(st.session_state.get(f"{key}_sel_spent", []), start=1):
        total.extend(ledger, prefix=f"selection {i}")
    return total


def selection_section(key: str, offer: SelectionOffer, target: Target, apply: ApplyEpsilon | None) -> Solved | None:
    """Private selection of epsilon for ``offer.method``: its settings, its cost before it runs,
    the run, its cost as ledger lines (every selection run in this panel, composed), and "use this
    epsilon" with that cost added to the page's ledger."""
    st.caption(md(offer.words) + " The selection covers the epsilon it chooses, not what you read off the "
               "curves on this page (they are computed on the private data too), and every press spends its "
               "cost again.")
    algorithm, gamma, eta, cands = _selection_settings(key, offer)
    cost = selection_cost(max(cands), eta=eta)
    st.metric("Cost of the choice", f"epsilon = {cost:.3g}",
              f"{2 + eta:g} x the largest candidate {max(cands):g}; about {expected_rounds(gamma, eta):.3g} runs "
              "on average", delta_color="off", delta_arrow="off")
    settings = (target, algorithm, gamma, eta, cands, offer.method)
    slot = f"{key}_selected"
    if st.button("Run the private selection", key=f"{key}_sel_run", icon=":material/casino:"):
        runner = target_runner(offer.measure, target)
        with st.spinner("Running the candidates..."):
            picked = (liu_talwar_selection(runner, cands, gamma=gamma, random_state=offer.random_state)
                      if algorithm == "liu_talwar" else
                      papernot_steinke_selection(runner, cands, gamma=gamma, eta=eta,
                                                 random_state=offer.random_state))
        st.session_state[slot] = (settings, picked)
        st.session_state.setdefault(f"{key}_sel_spent", []).append(picked.ledger)
    stored = st.session_state.get(slot)
    if stored is None or stored[0] != settings:
        return None
    return _selected(key, stored[1], offer, target, apply)


def _selected(key: str, picked: Selected, offer: SelectionOffer, target: Target,
              apply: ApplyEpsilon | None) -> Solved | None:
    """The selection's outcome, what choosing has cost so far, and "use this epsilon"."""
    spent = spent_on_choosing(key)
    if not picked.met:
        st.warning(f"No run of the selection met {md(target.describe())}: no epsilon is chosen (its cost is "
                   "spent all the same).", icon=":material/block:")
    else:
        page_eps = offer.to_page(picked.candidate) if offer.to_page is not None else picked.candidate
        st.success(f"Private selection chose epsilon {page_eps:g} for {md(offer.method)}: a run there met "
                   f"{md(target.describe())}.", icon=":material/verified_user:")
    st.dataframe(spent.to_frame(), hide_index=True, width="stretch")
    st.caption(f"What choosing has cost: {len(spent)} selection(s) run in this session, epsilon = "
               f"{spent.total()[0]:.3g} together; 'use this epsilon' adds it to the page's ledger. How many runs "
               "each made stays secret: its guarantee covers the chosen epsilon only.")
    if not picked.met:
        return None
    if apply is not None:
        value = apply.snap(page_eps)
        choice = EpsilonChoice(value, "selection", offer.method, target.describe(), spent)
        st.button(f"Use this epsilon ({value:g})", key=f"{key}_use", on_click=apply_epsilon,
                  args=(apply.widget_key, value, choice))
    return Solved(target, (Mark(offer.method, float(page_eps)),), "selection")
