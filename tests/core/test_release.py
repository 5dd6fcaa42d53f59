"""Release noise and labelled release files (core.release)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from core.mechanisms import PrivacyLedger
from core.release import (
    NoiseSource, display_seed, read_release, release_csv, release_file_name, release_header, release_metadata,
)


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


def _not_dp() -> PrivacyLedger:
    led = _ledger()
    led.mark_not_dp("Bounds read from your data.")
    return led


def test_header_of_a_not_dp_release_states_is_dp_false_and_the_reason():
    lines = release_header(method="m", ledger=_not_dp(), noise=NoiseSource())
    assert "is_dp: false" in lines
    assert "not differentially private: Bounds read from your data." in lines
    assert "is_dp: true" in release_header(method="m", ledger=_ledger(), noise=NoiseSource())


def test_metadata_of_a_not_dp_release_has_no_epsilon_and_the_reason():
    import json

    meta = release_metadata(method="m", ledger=_not_dp(), noise=NoiseSource())
    assert meta["is_dp"] is False and meta["not_dp_reason"] == "Bounds read from your data."
    assert meta["epsilon"] is None and meta["nominal_epsilon"] == 1.0
    assert meta["guarantee"].startswith("Not differentially private")
    json.dumps(meta, allow_nan=False)  # JSON-ready


def test_metadata_of_a_dp_release():
    meta = release_metadata(method="m", ledger=_ledger(2.0), noise=NoiseSource(reproducible_seed=1))
    assert meta["is_dp"] is True and meta["not_dp_reason"] is None and meta["epsilon"] == 2.0
    assert meta["private"] is False and "NOT PRIVATE" in meta["noise"]


@pytest.mark.parametrize("ledger, noise, number, name", [
    (_ledger(), NoiseSource(), 3, "out_release3.csv"),
    (_not_dp(), NoiseSource(), 3, "out_release3_NOT-DP.csv"),
    (_not_dp(), NoiseSource(reproducible_seed=1), 1, "out_release1_NOT-DP_NOT_PRIVATE.csv"),
    (_ledger(), NoiseSource(reproducible_seed=1), None, "out_NOT_PRIVATE.csv"),
])
def test_release_file_name_labels_what_is_not_dp_or_not_private(ledger, noise, number, name):
    assert release_file_name("out.csv", ledger=ledger, noise=noise, number=number) == name


def test_release_file_name_refuses_a_non_ledger():
    with pytest.raises(TypeError):
        release_file_name("out.csv", ledger=None)
