"""The privacy ledger (core.privacy.ledger): composition, not-DP releases, assumptions."""
from __future__ import annotations

import pytest

from core.privacy.ledger import PrivacyLedger


def test_ledger_sequential_composition_adds():
    led = PrivacyLedger()
    led.spend(0.5, label="epoch 1")
    led.spend(0.25, 1e-6, label="epoch 2")
    assert led.total() == pytest.approx((0.75, 1e-6))


def test_ledger_parallel_composition_takes_the_max():
    led = PrivacyLedger()
    for i, eps in enumerate([1.0, 0.5, 1.0]):
        led.spend(eps, label=f"cluster {i}", parallel_group="clusters")
    led.spend(0.2, label="count")
    assert led.total() == pytest.approx((1.2, 0.0))
    assert len(led) == 4
    assert list(led.to_frame().columns) == ["label", "epsilon", "delta", "parallel_group", "noise"]


def test_ledger_rejects_bad_spend():
    with pytest.raises(ValueError):
        PrivacyLedger().spend(0.0, label="nothing")


def test_ledger_marked_not_dp_has_no_total_but_keeps_the_nominal():
    led = PrivacyLedger()
    led.spend(1.0, label="paper's release")
    led.mark_not_dp("The partition reads the raw records.")
    assert not led.is_dp
    assert led.total() == (float("inf"), 1.0)
    assert led.nominal() == (1.0, 0.0)
    assert led.describe().startswith("Not differentially private (the epsilon = 1 it names is nominal)")


def test_ledger_refuses_an_empty_reason():
    with pytest.raises(ValueError, match="reason"):
        PrivacyLedger().mark_not_dp("  ")


def test_ledger_extend_composes_releases_sequentially_even_per_cluster():
    one = PrivacyLedger()
    for c in range(3):
        one.spend(1.0, label=f"cluster {c}", parallel_group="clusters")
    two = PrivacyLedger()
    for c in range(3):
        two.spend(2.0, label=f"cluster {c}", parallel_group="clusters")
    session = PrivacyLedger()
    session.extend(one, prefix="release 1")
    session.extend(two, prefix="release 2")
    assert session.total() == (3.0, 0.0)


def test_ledger_extend_carries_not_dp_and_assumptions():
    other = PrivacyLedger()
    other.mark_not_dp("No noise.")
    other.assume("Bounds from the data.")
    session = PrivacyLedger()
    session.extend(other, prefix="r")
    assert not session.is_dp and session.assumptions == ["Bounds from the data."]


def test_ledger_describe_names_delta_when_there_is_one():
    led = PrivacyLedger()
    led.spend(1.0, 1e-5, label="gaussian")
    assert led.describe().startswith("(1, 1e-05)-differentially private")
