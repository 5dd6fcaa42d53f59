"""Results as they come: a comparison hands over each method as soon as it is measured."""
from __future__ import annotations

import pandas as pd
import pytest

from core.audit.bounds import MIN_RUNS
from core.compare.progressive import FIT_WEIGHT, LONG_METHODS, PartialComparison, run_order, task_weight
from core.compare.run import compare
from core.data import load_sample

METHODS = ["Raw table", "kRR", "MDAV", "CDP-LR"]
SETTINGS = dict(methods=METHODS, epsilons=[1.0], repetitions=2, max_rows=400, random_state=3)


@pytest.fixture(scope="module")
def census():
    return load_sample("census")


@pytest.fixture(scope="module")
def partials(census):
    seen: list[PartialComparison] = []
    final = compare(census, **SETTINGS, audit_runs=MIN_RUNS, on_partial=seen.append)
    return seen, final


def test_long_methods_run_last_and_the_others_keep_their_order():
    names = ["Raw table", "IMPOSTER", "kRR", "MST", "CDP-LR"]
    assert [names[i] for i in run_order(names)] == ["Raw table", "kRR", "CDP-LR", "IMPOSTER", "MST"]
    assert set(LONG_METHODS) >= {"IMPOSTER", "MST"}


def test_each_method_comes_once_all_its_repetitions_are_in(partials):
    seen, _ = partials
    assert [p.done for p in seen] == [tuple(METHODS[:k]) for k in range(1, len(METHODS) + 1)]
    for p in seen:
        counts = p.result.runs.groupby("method").size()
        assert set(counts.index) == set(p.done) and (counts == 2).all()
        assert p.pending == tuple(m for m in METHODS if m not in p.done)


def test_the_audits_come_after_the_last_partial(partials):
    seen, final = partials
    assert all(p.audits_pending and p.result.audits.empty for p in seen)
    assert not final.audits.empty


def test_partials_hold_the_final_numbers(partials):
    seen, final = partials
    last = seen[-1].result.runs.reset_index(drop=True)
    pd.testing.assert_frame_equal(last, final.runs.reset_index(drop=True))
    assert seen[-1].result.references == final.references


def test_asking_for_partials_changes_no_number(census, partials):
    _, final = partials
    plain = compare(census, **SETTINGS, audit_runs=MIN_RUNS)
    pd.testing.assert_frame_equal(plain.runs, final.runs)
    pd.testing.assert_frame_equal(plain.audits.drop(columns="audit_seconds"), final.audits.drop(columns="audit_seconds"))


def test_the_sentence_says_what_is_still_to_come(partials):
    seen, _ = partials
    words = seen[0].words()
    assert "1 of 4 methods measured" in words and "still running: kRR, MDAV, CDP-LR" in words
    assert "audits come last" in words and "takeaway waits" in words


def test_with_audits_each_step_fills_the_bar_and_says_which_it_is(census):
    seen = []
    compare(census, **{**SETTINGS, "methods": ["Raw table", "CDP-LR"]}, audit_runs=MIN_RUNS,
            progress=lambda f, m: seen.append((f, m)))
    steps = [[f for f, m in seen if m.startswith(f"Step {k} of 2")] for k in (1, 2)]
    for fractions in steps:
        assert fractions and fractions == sorted(fractions) and fractions[-1] == 1.0
    first_audit = next(i for i, (_, m) in enumerate(seen) if m.startswith("Step 2"))
    assert all(not m.startswith("Step 2") for _, m in seen[:first_audit])
    assert seen[-1] == (1.0, "Comparison done")


def test_a_long_fit_weighs_on_the_bar_by_its_epochs_or_releases():
    assert task_weight("kRR", releases=3, epochs=None) == 3.0
    assert task_weight("IMPOSTER", releases=3, epochs=30) == 3.0 + 2 * FIT_WEIGHT["IMPOSTER"]
    assert task_weight("IMPOSTER", releases=3, epochs=None) == 3.0 + FIT_WEIGHT["IMPOSTER"]
    assert task_weight("MST", releases=2, epochs=200) == 2.0 + 2 * FIT_WEIGHT["MST"]
