"""The Compare page says what MST and AIM will cost before the comparison starts."""
from __future__ import annotations

from dashboard.compare.cached import SLOW_SECONDS, slow_methods_note


def test_no_note_without_a_slow_method():
    assert slow_methods_note(("Raw table", "kRR"), epsilons=4, repetitions=3) is None


def test_the_note_counts_every_release_of_mst():
    note = slow_methods_note(("MST", "kRR"), epsilons=4, repetitions=3)
    assert "MST: 12 releases" in note and f"{12 * SLOW_SECONDS['MST'] / 60:.0f} min" in note
    assert "AIM:" not in note and "GB" not in note


def test_aim_says_its_memory():
    assert "4-5 GB" in slow_methods_note(("AIM",), epsilons=1, repetitions=1)
