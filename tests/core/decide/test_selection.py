"""Private selection (Liu & Talwar 2019; Papernot & Steinke 2022): the choice, the cost in the ledger,
and the mark of an epsilon chosen on the private data without either."""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from core.decide.rounds import expected_rounds
from core.decide.selection import (
    PRIVATE_CHOICE_NOTE,
    liu_talwar_selection,
    mark_private_choice,
    papernot_steinke_selection,
    selection_cost,
    target_runner,
)
from core.decide.target import Target
from core.privacy.ledger import PrivacyLedger

CANDIDATES = (0.5, 1.0, 2.0, 4.0)


def _score(epsilon: float, random_state: int) -> float:
    return -epsilon  # the smallest epsilon is the best


@pytest.mark.parametrize("eta, factor", [(0, 2.0), (Fraction(1, 2), 2.5), (1, 3.0)])
def test_papernot_steinke_cost_is_the_theorems(eta, factor):
    sel = papernot_steinke_selection(_score, CANDIDATES, gamma=0.2, eta=eta, random_state=0)
    eps, delta = sel.ledger.total()
    assert sel.ledger.is_dp and delta == 0 and eps == pytest.approx(factor * max(CANDIDATES))
    assert selection_cost(max(CANDIDATES), eta=float(eta)) == pytest.approx(eps)


def test_liu_talwar_cost_is_three_times_the_largest_candidate():
    sel = liu_talwar_selection(_score, CANDIDATES, gamma=0.25, random_state=0)
    assert sel.ledger.total() == (pytest.approx(12.0), 0.0)
    assert "Liu & Talwar" in sel.algorithm and sel.expected_rounds == pytest.approx(4.0)
    assert any("not released" in a for a in sel.ledger.assumptions)


def test_liu_talwar_rounds_are_geometric_with_the_right_gamma_only():
    rounds = np.array([liu_talwar_selection(_score, CANDIDATES, gamma=0.25, random_state=s).rounds
                       for s in range(3000)])
    se = math.sqrt(0.75 / 0.25**2 / len(rounds))
    assert abs(rounds.mean() - 4.0) < 4 * se
    assert abs(rounds.mean() - expected_rounds(0.2)) > 6 * se


def test_the_runner_is_called_once_per_round_and_the_best_is_kept():
    calls = []

    def run(epsilon: float, random_state: int) -> float:
        calls.append((epsilon, random_state))
        return -epsilon

    sel = papernot_steinke_selection(run, CANDIDATES, gamma=0.02, eta=1, random_state=5)
    assert len(calls) == sel.rounds and sel.rounds > 10
    assert sel.candidate == min(e for e, _ in calls) and sel.score == -sel.candidate
    assert len({s for _, s in calls}) == len(calls)  # a fresh seed per run


def test_target_runner_picks_the_smallest_epsilon_that_meets():
    # the Laplace mechanism's MAE is 1/epsilon in expectation; here its exact value
    run = target_runner(lambda eps, seed: 1.0 / eps, Target.parse("mae<=0.5"))
    sel = liu_talwar_selection(run, CANDIDATES, gamma=0.02, random_state=1)
    assert sel.candidate == 2.0 and sel.met
    never = liu_talwar_selection(target_runner(lambda e, s: 9.0, Target.parse("mae<=0.5")), CANDIDATES,
                                 gamma=0.5, random_state=1)
    assert not never.met and never.to_dict()["score"] is None


def test_to_dict_keeps_the_rounds_out_unless_asked():
    sel = liu_talwar_selection(_score, CANDIDATES, gamma=0.5, random_state=2)
    assert "rounds" not in sel.to_dict() and sel.to_dict(with_rounds=True)["rounds"] == sel.rounds
    assert sel.to_dict()["cost_epsilon"] == pytest.approx(12.0)


@pytest.mark.parametrize("call, error", [
    (lambda: liu_talwar_selection(_score, [], gamma=0.5), ValueError),
    (lambda: liu_talwar_selection(_score, [1.0, -1.0], gamma=0.5), ValueError),
    (lambda: liu_talwar_selection(_score, "1.0", gamma=0.5), TypeError),
    (lambda: liu_talwar_selection(_score, CANDIDATES, gamma=0), ValueError),
    (lambda: papernot_steinke_selection(_score, CANDIDATES, gamma=1), ValueError),
    (lambda: papernot_steinke_selection(_score, CANDIDATES, gamma=0.5, eta=2), ValueError),
    (lambda: liu_talwar_selection(lambda e, s: math.nan, CANDIDATES, gamma=0.5), ValueError),
    (lambda: liu_talwar_selection(lambda e, s: "good", CANDIDATES, gamma=0.5), TypeError),
    (lambda: liu_talwar_selection("run", CANDIDATES, gamma=0.5), TypeError),
    (lambda: selection_cost(1.0, eta=-0.5), ValueError),
])
def test_bad_arguments_are_refused(call, error):
    with pytest.raises(error):
        call()


def test_mark_private_choice_takes_the_guarantee_away_on_a_copy():
    ledger = PrivacyLedger()
    ledger.spend(1.0, label="training")
    marked = mark_private_choice(ledger)
    assert ledger.is_dp and ledger.total() == (1.0, 0.0)
    assert not marked.is_dp and marked.total() == (math.inf, 1.0) and marked.nominal() == (1.0, 0.0)
    assert "chosen on the private data without a public reference or private selection" in marked.describe()
    with pytest.raises(TypeError):
        mark_private_choice("ledger")


def test_the_note_names_both_sound_ways():
    assert "public reference table" in PRIVATE_CHOICE_NOTE and "private selection" in PRIVATE_CHOICE_NOTE
    assert "Liu and Talwar 2019" in PRIVATE_CHOICE_NOTE and "Papernot and Steinke 2022" in PRIVATE_CHOICE_NOTE


def test_epsilon_choice_marks_or_adds_its_cost():
    from core.decide.selection import apply_epsilon_choice
    from core.privacy.ledger import PrivacyLedger

    ledger = PrivacyLedger()
    ledger.spend(1.0, label="release")
    assert apply_epsilon_choice(ledger, None) is ledger
    assert not apply_epsilon_choice(ledger, {"source": "private"}).is_dp
    paid = apply_epsilon_choice(ledger, {"source": "selection", "cost": [3.0, 0.0]})
    assert paid.is_dp and paid.total() == (4.0, 0.0) and ledger.total() == (1.0, 0.0)


def test_epsilon_choice_of_another_source_is_refused():
    from core.decide.selection import check_epsilon_choice

    with pytest.raises(ValueError, match="source"):
        check_epsilon_choice({"source": "guess"})
