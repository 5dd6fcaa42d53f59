"""Choosing epsilon on the private data, and the two sound ways to do it.

Reading a curve computed on the private data and picking the epsilon where it meets a
target is itself a use of the private data: the release at that epsilon no longer has the
epsilon it states as its guarantee (the choice leaks through which epsilon was picked).
:data:`PRIVATE_CHOICE_NOTE` says so in one sentence, beside every solved epsilon;
:func:`mark_private_choice` marks the ledger of a release whose epsilon was chosen that way.

The two sound ways:

* solve on a **public reference table** (the schema's shape, not the private rows): the
  choice then costs the private data nothing (:class:`core.decide.config.SolveConfig`'s
  ``reference``);
* pay for the choice with **private selection**: run randomly chosen candidates a random,
  secret number of times and keep the best, each run differentially private on its own.

  - :func:`liu_talwar_selection` -- Liu & Talwar, "Private selection from private
    candidates", STOC 2019 (arXiv:1811.07971), random stopping: a geometric number of
    rounds, P(K = k) = gamma (1 - gamma)^(k - 1); if every run is epsilon-DP the selection
    is 3 epsilon-DP, whatever gamma (the bound Papernot & Steinke's Corollary 3 recovers
    with eta = 1).
  - :func:`papernot_steinke_selection` -- Papernot & Steinke, "Hyperparameter tuning with
    Renyi differential privacy", ICLR 2022 (arXiv:2110.03620), Theorem 2: K from the
    truncated negative binomial D_{eta, gamma} (Definition 1). Its bound, eps + (1 + eta)
    (1 - 1/l^) eps^ + (1 + eta) log(1/gamma)/l^ + log E[K]/(l - 1) in Renyi DP of orders
    l, l^, is for epsilon-DP runs (Corollary 3, pure DP) (2 + eta) epsilon: 3 epsilon for
    eta = 1 (the geometric, Liu & Talwar's bound again), 2 epsilon for eta = 0 (the
    logarithmic distribution). OpenDP's ``make_select_private_candidate`` charges the same.

Both return a :class:`Selected` whose ledger total is the selection's cost. The number of
rounds is drawn exactly (:mod:`core.decide.rounds`) and must stay secret: the guarantee
covers the chosen candidate and its score, not how many runs were made.
"""
from __future__ import annotations

import copy
import math
import numbers
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Callable, Sequence

import numpy as np

from core.decide.rounds import (
    as_fraction,
    draw_geometric,
    draw_truncated_negative_binomial,
    expected_rounds,
)
from core.privacy.ledger import PrivacyLedger
from core.runtime.randomness import RandomState, check_random_state, draw_seeds
from core.validation import check_epsilon

__all__ = ["PRIVATE_CHOICE_NOTE", "PRIVATE_CHOICE_REASON", "Selected", "mark_private_choice",
           "selection_cost", "liu_talwar_selection", "papernot_steinke_selection", "target_runner",
           "CHOICE_SOURCES", "check_epsilon_choice", "apply_epsilon_choice"]

#: The sentence shown beside every epsilon solved on the private data.
PRIVATE_CHOICE_NOTE = (
    "Choosing epsilon from results on the private data is itself a use of the private data, so a release at "
    "the epsilon chosen this way no longer has that epsilon as its guarantee; the two sound ways are to solve "
    "on a public reference table with the schema's shape, or to pay for the choice with private selection "
    "(Liu and Talwar 2019; Papernot and Steinke 2022), whose cost the ledger shows."
)

#: The reason :func:`mark_private_choice` writes into a ledger.
PRIVATE_CHOICE_REASON = (
    "Its epsilon was chosen on the private data without a public reference or private selection, so the "
    "epsilon it states is no longer its guarantee (the choice itself used the private data)."
)

#: A candidate runner: ``run(epsilon, random_state) -> score`` (higher is better).
Runner = Callable[[float, int], Any]


def mark_private_choice(ledger: PrivacyLedger) -> PrivacyLedger:
    """A copy of ``ledger`` marked "epsilon chosen on the private data without a public
    reference or private selection".

    The honest reading: the release's stated epsilon is no longer its guarantee, and what
    the choice cost is not accounted anywhere, so the copy is not DP (:attr:`PrivacyLedger.is_dp`
    False, :meth:`~PrivacyLedger.total` (inf, 1)); :meth:`~PrivacyLedger.nominal` still adds
    up the spends, which the ledger's description calls nominal.

    Parameters
    ----------
    ledger : PrivacyLedger
        The release's ledger (left unchanged).
    """
    if not isinstance(ledger, PrivacyLedger):
        raise TypeError(f"ledger must be a PrivacyLedger, got {type(ledger).__name__}.")
    marked = copy.deepcopy(ledger)
    marked.mark_not_dp(PRIVATE_CHOICE_REASON)
    return marked


def selection_cost(epsilon: float, *, eta: float = 1.0) -> float:
    """The pure-DP cost of a private selection whose runs are each ``epsilon``-DP:
    (2 + eta) epsilon (Papernot & Steinke 2022, Corollary 3 of Theorem 2; eta = 1 is Liu &
    Talwar 2019's 3 epsilon, eta = 0 gives 2 epsilon).

    Parameters
    ----------
    epsilon : float
        The largest epsilon of any one run (each candidate's run is DP at its own epsilon).
    eta : float in [0, 1]
        The shape of the truncated negative binomial number of rounds.
    """
    eps = check_epsilon(epsilon)
    if isinstance(eta, bool) or not isinstance(eta, (numbers.Real, np.floating)):
        raise TypeError(f"eta must be a number, got {type(eta).__name__}.")
    if not 0 <= float(eta) <= 1:
        raise ValueError(f"eta must lie in [0, 1], got {eta!r}.")
    return (2.0 + float(eta)) * eps


@dataclass(frozen=True)
class Selected:
    """The outcome of a private selection.

    Attributes
    ----------
    candidate : float
        The chosen candidate (an epsilon) -- what the selection releases, with ``score``.
    score : float
        Its score (higher is better; ``-inf`` when no run met what the runner asks).
    rounds : int
        How many runs were made. Keep it secret: the guarantee covers the candidate and its
        score, not the number of rounds (it is the selection's compute).
    ledger : PrivacyLedger
        Its total is the selection's cost, (2 + eta) times the largest candidate.
    algorithm : str
        Which theorem the cost comes from.
    expected_rounds : float
        E[K], the average number of runs of this setting (compute, not privacy).
    """

    candidate: float
    score: float
    rounds: int
    ledger: PrivacyLedger
    algorithm: str
    expected_rounds: float

    @property
    def met(self) -> bool:
        """False when every run scored ``-inf`` (none met the target of a :func:`target_runner`)."""
        return not (isinstance(self.score, float) and math.isinf(self.score) and self.score < 0)

    def to_dict(self, *, with_rounds: bool = False) -> dict[str, Any]:
        """JSON-safe: candidate, score (None for -inf), cost, algorithm, the ledger's sentence;
        ``rounds`` only when asked (it is not part of what the guarantee covers)."""
        eps, _ = self.ledger.total()
        out = {"candidate": float(self.candidate), "score": None if not math.isfinite(self.score) else self.score,
               "met": self.met, "cost_epsilon": eps, "algorithm": self.algorithm,
               "expected_rounds": self.expected_rounds, "guarantee": self.ledger.describe()}
        if with_rounds:
            out["rounds"] = int(self.rounds)
        return out


# ----------------------------------------------------------------------------- checks
def _check_candidates(candidates: Any) -> tuple[float, ...]:
    if isinstance(candidates, (str, bytes)) or not isinstance(candidates, (Sequence, np.ndarray)):
        raise TypeError(f"candidates must be a list of epsilons, got {type(candidates).__name__}.")
    if len(candidates) == 0:
        raise ValueError("candidates must list at least one epsilon.")
    return tuple(check_epsilon(c) for c in candidates)


def _check_score(score: Any, candidate: float) -> float:
    if isinstance(score, bool) or not isinstance(score, (numbers.Real, np.floating)):
        raise TypeError(f"the runner must return a number (its score), got {type(score).__name__} at "
                        f"epsilon {candidate:g}.")
    value = float(score)
    if math.isnan(value) or value == math.inf:
        raise ValueError(f"the runner's score must be a number or -inf, got {value} at epsilon {candidate:g}.")
    return value


def _run_rounds(run: Runner, candidates: tuple[float, ...], rounds: int,
                rng: np.random.Generator) -> tuple[float, float]:
    """``rounds`` runs of a uniformly drawn candidate, each on its own seed; the best (first on ties)."""
    if not callable(run):
        raise TypeError(f"run must be a callable run(epsilon, random_state) -> score, got {type(run).__name__}.")
    best_eps, best_score = candidates[0], -math.inf
    seeds = draw_seeds(rng, rounds)
    for k in range(rounds):
        eps = candidates[int(rng.integers(len(candidates)))]
        score = _check_score(run(eps, int(seeds[k])), eps)
        if k == 0 or score > best_score:
            best_eps, best_score = eps, score
    return best_eps, best_score


def _ledger(candidates: tuple[float, ...], eta: Fraction, gamma: Fraction, algorithm: str) -> PrivacyLedger:
    ledger = PrivacyLedger()
    listed = ", ".join(f"{c:g}" for c in candidates)
    rounds = ("geometric (stop with probability gamma after each run)" if eta == 1 else
              "logarithmic" if eta == 0 else f"truncated negative binomial with eta = {float(eta):g}")
    ledger.spend(selection_cost(max(candidates), eta=float(eta)),
                 label=f"private selection of epsilon among {listed} ({algorithm})",
                 noise=f"number of runs {rounds}, gamma = {float(gamma):g}, drawn exactly from rational "
                       "Bernoulli trials and kept secret")
    ledger.assume("Each run at epsilon e is e-differentially private on its own (pure DP), and its score is "
                  "computed from that run's release only.")
    ledger.assume("The number of runs is not released: the guarantee covers the chosen epsilon and its score.")
    return ledger


# ----------------------------------------------------------------------------- selections
def liu_talwar_selection(run: Runner, candidates: Sequence[float], *, gamma: float | Fraction,
                         random_state: RandomState = None) -> Selected:
    """Liu & Talwar's random stopping (STOC 2019): 3 max(candidates)-DP.

    Each round draws a candidate epsilon uniformly, runs it on a fresh seed and keeps the
    best score so far; after each round it stops with probability ``gamma`` (so the number
    of rounds is geometric, E[K] = 1 / gamma). Whatever gamma, the selection costs three
    times the largest candidate: gamma trades compute for the chance of seeing a good one.

    Parameters
    ----------
    run : callable(epsilon, random_state) -> float
        One epsilon-DP run at ``epsilon`` (its noise from ``random_state``, an int seed)
        returning its score, higher is better (``-inf`` allowed: "did not qualify"). The
        score must be computed from that run's DP release only (an accuracy measured on the
        private holdout is part of the run, inside its epsilon).
    candidates : sequence of float
        The epsilons to choose among (each above 0).
    gamma : float or Fraction in (0, 1]
        Stopping probability (0.1 is read as exactly 1/10).
    random_state : int, Generator or None
        The selection's randomness (which candidate, each run's seed, when to stop). A real
        choice draws fresh entropy (None); a seed makes a test repeat.

    Returns
    -------
    Selected
        The chosen epsilon, its score, the (secret) number of rounds and a ledger whose
        total is 3 max(candidates).
    """
    cands = _check_candidates(candidates)
    g = as_fraction(gamma, name="gamma", low=Fraction(0), high=Fraction(1), closed_low=False, closed_high=True)
    rng = check_random_state(random_state)
    rounds = draw_geometric(g, rng) if g < 1 else 1
    best, score = _run_rounds(run, cands, rounds, rng)
    algorithm = "Liu & Talwar 2019, random stopping: 3 epsilon"
    return Selected(best, score, rounds, _ledger(cands, Fraction(1), g, algorithm), algorithm,
                    1.0 / float(g))


def papernot_steinke_selection(run: Runner, candidates: Sequence[float], *, gamma: float | Fraction,
                               eta: float | Fraction = 0, random_state: RandomState = None) -> Selected:
    """Papernot & Steinke's selection (ICLR 2022, Theorem 2, Corollary 3): (2 + eta) max(candidates)-DP.

    The number of rounds K is drawn from the truncated negative binomial D_{eta, gamma}
    (Definition 1; eta = 0 the logarithmic distribution, eta = 1 the geometric), then K
    runs of uniformly drawn candidates are made and the best is kept. For pure-DP runs the
    theorem's bound is (2 + eta) epsilon: eta = 0 costs 2 epsilon, less than Liu & Talwar's
    3 epsilon, for a number of rounds with a heavier tail.

    Parameters
    ----------
    run, candidates, random_state
        As :func:`liu_talwar_selection`.
    gamma : float or Fraction in (0, 1)
        The distribution's parameter: smaller gamma, more rounds on average
        (:func:`core.decide.rounds.expected_rounds`).
    eta : float or Fraction in [0, 1]
        The shape (this exact sampler covers [0, 1], the range where the cost is 2 to 3 epsilon).

    Returns
    -------
    Selected
        Its ledger's total is (2 + eta) max(candidates).
    """
    cands = _check_candidates(candidates)
    g = as_fraction(gamma, name="gamma", low=Fraction(0), high=Fraction(1), closed_low=False, closed_high=False)
    e = as_fraction(eta, name="eta", low=Fraction(0), high=Fraction(1), closed_low=True, closed_high=True)
    rng = check_random_state(random_state)
    rounds = draw_truncated_negative_binomial(g, e, rng)
    best, score = _run_rounds(run, cands, rounds, rng)
    algorithm = f"Papernot & Steinke 2022, Corollary 3 (pure DP) with eta = {float(e):g}: {2 + float(e):g} epsilon"
    return Selected(best, score, rounds, _ledger(cands, e, g, algorithm), algorithm,
                    expected_rounds(float(g), float(e)))


def target_runner(measure: Callable[[float, int], Any], target: Any) -> Runner:
    """A runner that scores a run by a target: ``-epsilon`` when the run's measured value
    meets ``target`` (the smallest qualifying epsilon wins), ``-inf`` when it does not; for a
    privacy-risk target met *up to* an epsilon (``target.direction == "up_to"``), ``+epsilon``
    (the largest qualifying epsilon wins).

    Parameters
    ----------
    measure : callable(epsilon, random_state) -> float
        One DP run at ``epsilon`` and its measured value (an accuracy, an MAE...), computed
        from that run's DP release only.
    target : Target
        What the value must meet (:class:`core.decide.target.Target`).
    """
    from core.decide.target import Target

    if not callable(measure):
        raise TypeError(f"measure must be a callable measure(epsilon, random_state) -> value, got "
                        f"{type(measure).__name__}.")
    if not isinstance(target, Target):
        raise TypeError(f"target must be a Target, got {type(target).__name__}.")

    sign = 1.0 if target.direction == "up_to" else -1.0

    def run(epsilon: float, random_state: int) -> float:
        return sign * float(epsilon) if target.met(measure(epsilon, random_state)) else -math.inf

    return run


#: How a page's epsilon was chosen, as a setting a bundle carries: by hand or on a public
#: reference (None), on the private data, or by private selection (with its cost).
CHOICE_SOURCES = ("private", "selection")


def check_epsilon_choice(value: Any) -> dict[str, Any] | None:
    """A bundle's ``epsilon_choice`` setting: None (by hand, or solved on a public reference),
    ``{"source": "private"}`` (solved on the private data) or ``{"source": "selection",
    "cost": [epsilon, delta]}`` (paid for by private selection)."""
    if value is None:
        return None
    if not isinstance(value, dict):
        raise TypeError(f"epsilon_choice must be null or a JSON object, got {type(value).__name__}.")
    from core.validation import check_choice

    source = check_choice(value.get("source"), CHOICE_SOURCES, name="epsilon_choice source", kind=str)
    if source == "private":
        if set(value) != {"source"}:
            raise ValueError('epsilon_choice {"source": "private"} takes no other field.')
        return {"source": source}
    cost = value.get("cost")
    if set(value) != {"source", "cost"} or not isinstance(cost, list) or len(cost) != 2:
        raise ValueError('epsilon_choice {"source": "selection"} needs "cost": [epsilon, delta].')
    return {"source": source, "cost": [check_epsilon(cost[0]), float(cost[1])]}


def apply_epsilon_choice(ledger: PrivacyLedger, choice: dict[str, Any] | None) -> PrivacyLedger:
    """``ledger`` as honest about how its epsilon was chosen as the page is: marked (no
    guarantee) when chosen on the private data, with the selection's cost added when private
    selection paid for it, unchanged otherwise (:func:`check_epsilon_choice`'s forms)."""
    if not isinstance(ledger, PrivacyLedger):
        raise TypeError(f"ledger must be a PrivacyLedger, got {type(ledger).__name__}.")
    choice = check_epsilon_choice(choice)
    if choice is None:
        return ledger
    if choice["source"] == "private":
        return mark_private_choice(ledger)
    out = copy.deepcopy(ledger)
    out.spend(choice["cost"][0], choice["cost"][1], label="choosing epsilon: private selection")
    return out
