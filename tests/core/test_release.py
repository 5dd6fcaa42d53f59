"""Release noise and labelled release files (core.release)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from core.mechanisms import PrivacyLedger
from core.release import NoiseSource, display_seed, read_release, release_csv, release_header


def _ledger(eps=1.0) -> PrivacyLedger:
    led = PrivacyLedger()
    led.spend(eps, label="release")
    return led


def test_display_seed_is_stable_for_the_same_keys():
    assert display_seed(3, "SSKM_DP", 1.0) == display_seed(3, "SSKM_DP", 1.0)


def test_display_seed_differs_across_epsilon():
    assert display_seed(3, "SSKM_DP", 1.0) != display_seed(3, "SSKM_DP", 2.0)


def test_display_seed_refuses_a_negative_seed():
    with pytest.raises(TypeError):
        display_seed(-1, "x")


def test_fresh_noise_source_never_repeats():
    a = NoiseSource().generator().laplace(size=5)
    b = NoiseSource().generator().laplace(size=5)
    assert not np.array_equal(a, b)


def test_reproducible_noise_source_repeats_and_is_not_private():
    src = NoiseSource(reproducible_seed=7)
    assert not src.private
    np.testing.assert_array_equal(src.generator().laplace(size=5), src.generator().laplace(size=5))
    assert "NOT PRIVATE" in src.describe()


def test_header_says_not_private_for_a_reproducible_dp_release():
    lines = release_header(method="m", ledger=_ledger(), noise=NoiseSource(reproducible_seed=1))
    assert any(line.startswith("privacy: NOT PRIVATE as released") for line in lines)


def test_header_lists_assumptions_and_the_session_total():
    led = _ledger()
    led.assume("Bounds come from the data.")
    lines = release_header(method="m", ledger=led, noise=NoiseSource(), session_total=(3.0, 0.0))
    assert "not covered: Bounds come from the data." in lines
    assert "session total so far: epsilon = 3" in lines


def test_header_of_a_not_dp_release_says_so():
    led = _ledger()
    led.mark_not_dp("The map reads the raw records.")
    lines = release_header(method="m", ledger=led, noise=None, session_total=(float("inf"), 1.0))
    assert any(line.startswith("privacy: Not differentially private") for line in lines)
    assert any("no overall guarantee" in line or "none" in line for line in lines if line.startswith("session"))


def test_release_csv_round_trips_and_guards_formulas():
    frame = pd.DataFrame({"a": [1, 2], "b": ["=SUM(A1)", "x#y"]})
    header, table = read_release(release_csv(frame, method="m", ledger=_ledger(), noise=NoiseSource()))
    assert header[0] == "pux release: m"
    assert table["b"].tolist() == ["'=SUM(A1)", "x#y"]
    assert table["a"].tolist() == [1, 2]


def test_release_header_refuses_a_non_ledger():
    with pytest.raises(TypeError):
        release_header(method="m", ledger={"epsilon": 1}, noise=None)
