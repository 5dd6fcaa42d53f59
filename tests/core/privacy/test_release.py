"""Labelled release files (core.privacy.release, release_formulas, release_read)."""
from __future__ import annotations

import io
import json
import zipfile

import pandas as pd
import pytest

from core.privacy.ledger import PrivacyLedger
from core.privacy.release import (
    release_csv, release_file_name, release_files, release_header, release_metadata, release_zip,
)
from core.privacy.release_read import read_release
from core.privacy.noise_source import NoiseSource


def _ledger(eps=1.0) -> PrivacyLedger:
    led = PrivacyLedger()
    led.spend(eps, label="release")
    return led


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
    (_ledger(), NoiseSource(), 3, "out-release3-dp-eps1.csv"),
    (_not_dp(), NoiseSource(), 3, "out-release3-not-dp.csv"),
    (_not_dp(), NoiseSource(reproducible_seed=1), 1, "out-release1-not-dp-not-private-reproducible.csv"),
    (_ledger(), NoiseSource(reproducible_seed=1), None, "out-dp-eps1-not-private-reproducible.csv"),
])
def test_release_file_name_carries_the_guarantee(ledger, noise, number, name):
    assert release_file_name("out.csv", ledger=ledger, noise=noise, number=number) == name


def test_release_file_name_puts_the_dataset_first_and_drops_the_word_release():
    assert release_file_name("sskm_dp_release.csv", ledger=_ledger(), number=1,
                             dataset="supplier") == "supplier-sskm_dp-release1-dp-eps1.csv"
    assert release_file_name("census_imposter.csv", ledger=_not_dp(), number=2,
                             dataset="census") == "census_imposter-release2-not-dp.csv"


def test_release_file_name_of_a_delta_release_and_an_odd_dataset_name():
    led = PrivacyLedger()
    led.spend(0.5, 1e-5, label="release")
    assert release_file_name("x.csv", ledger=led, dataset="my data/../x") == "my_data_.._x-x-dp-eps0.5-delta1e-05.csv"


def test_release_file_name_refuses_a_non_ledger():
    with pytest.raises(TypeError):
        release_file_name("out.csv", ledger=None)


# ------------------------------------------------------------------ files other tools read
def _table() -> pd.DataFrame:
    """Numbers (negative ones too), text, a category and a flag: what a release holds."""
    return pd.DataFrame({
        "row": [3, 7, 12, 40],
        "income": [-1250.5, 0.0, 310.25, 98000.125],
        "region": ["north", "south", "north", "east"],
        "grade": pd.Categorical(["b", "a", "b", "c"], categories=["c", "b", "a"]),
        "member": [True, False, True, True],
    })


def _zip(frame=None, ledger=None, noise=None, name="t-release1-dp-eps1.csv", **kw) -> bytes:
    return release_zip(_table() if frame is None else frame, file_name=name, method="m",
                       ledger=_ledger() if ledger is None else ledger,
                       noise=NoiseSource() if noise is None else noise, **kw)


def _members(data: bytes) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        return {n: zf.read(n) for n in zf.namelist()}


def test_release_zip_holds_exactly_the_csv_its_sidecar_and_a_readme():
    assert sorted(_members(_zip())) == ["README.txt", "t-release1-dp-eps1.csv", "t-release1-dp-eps1.json"]


def test_released_csv_reads_back_with_plain_pandas_as_the_same_frame():
    frame = _table().drop(columns="grade")  # plain CSV has no category type
    csv = _members(_zip(frame))["t-release1-dp-eps1.csv"]
    assert csv.decode("utf-8").splitlines()[0] == "row,income,region,member"  # header on the first line
    pd.testing.assert_frame_equal(pd.read_csv(io.BytesIO(csv)), frame)


def test_read_release_gives_the_exact_frame_and_the_metadata_from_the_zip():
    frame, meta = read_release(_zip(session_total=(3.0, 0.0)))
    pd.testing.assert_frame_equal(frame, _table())
    assert meta["method"] == "m" and meta["is_dp"] is True and meta["epsilon"] == 1.0
    assert meta["session_total"] == {"epsilon": 3.0, "delta": 0.0}
    assert "fresh operating-system entropy" in meta["noise"]


def test_read_release_reads_the_csv_path_with_its_sidecar_beside_it(tmp_path):
    for name, data in _members(_zip()).items():
        (tmp_path / name).write_bytes(data)
    frame, meta = read_release(tmp_path / "t-release1-dp-eps1.csv")
    pd.testing.assert_frame_equal(frame, _table())
    assert meta["file"] == "t-release1-dp-eps1.csv"


def test_read_release_refuses_a_csv_without_its_sidecar(tmp_path):
    (tmp_path / "t.csv").write_bytes(_members(_zip())["t-release1-dp-eps1.csv"])
    with pytest.raises(ValueError, match="sidecar"):
        read_release(tmp_path / "t.csv")


def test_read_release_still_reads_an_old_file_with_hash_lines():
    old = b"# pux release: m\n# privacy: Not differentially private.\n# is_dp: false\na,b\n1,x\n"
    frame, meta = read_release(old)
    assert frame.to_dict("list") == {"a": [1], "b": ["x"]}
    assert meta["is_dp"] is False and meta["header"][0] == "pux release: m"


def test_sidecar_holds_the_guarantee_schema_noise_and_session_total():
    from core.data import Dataset
    from core.privacy.schema_draft import draft_schema

    table = _table()[["row", "income", "region"]]
    schema = draft_schema(Dataset(table, None, (), ("row", "income"), ("region",), name="t"))
    meta = json.loads(_members(_zip(ledger=_not_dp(), name="t-not-dp.csv", schema=schema,
                                    session_total=(float("inf"), 1.0)))["t-not-dp.json"])
    assert meta["is_dp"] is False and meta["not_dp_reason"] == "Bounds read from your data."
    assert meta["guarantee"].startswith("Not differentially private")
    assert [c["name"] for c in meta["public_schema"]["columns"]] == ["row", "income", "region"]
    assert meta["session_total"] is None and "none" in meta["session_total_text"]
    assert meta["noise"].startswith("Noise drawn from fresh")


def test_readme_states_the_guarantee_and_how_to_read_the_table():
    readme = _members(_zip(noise=NoiseSource(reproducible_seed=4)))["README.txt"].decode("utf-8")
    assert "Privacy: NOT PRIVATE as released" in readme
    assert 'pandas.read_csv("t-release1-dp-eps1.csv")' in readme


def _formulas() -> pd.DataFrame:
    return pd.DataFrame({"=2+3*7": ["=HYPERLINK(\"http://x\")", "+1", "plain", "'quoted"],
                         "note": ["-3", "@SUM(A1)", "\tx", "\rx"],
                         "change": [-5.5, -1.0, 2.0, 0.0]})


def test_formula_cells_and_column_names_are_neutralised_in_the_csv():
    csv = _members(_zip(_formulas()))["t-release1-dp-eps1.csv"].decode("utf-8")
    table = pd.read_csv(io.StringIO(csv), keep_default_na=False)
    assert list(table.columns) == ["'=2+3*7", "note", "change"]
    assert table["'=2+3*7"].tolist() == ["'=HYPERLINK(\"http://x\")", "'+1", "plain", "''quoted"]
    assert table["note"].tolist() == ["'-3", "'@SUM(A1)", "'\tx", "'\rx"]
    assert table["change"].tolist() == [-5.5, -1.0, 2.0, 0.0]  # negative numbers are numbers, untouched


def test_sidecar_records_the_formula_guard_and_read_release_undoes_it():
    data = _zip(_formulas())
    meta = json.loads(_members(data)["t-release1-dp-eps1.json"])
    assert meta["formula_guard"]["columns"] == ["=2+3*7", "note"] and meta["formula_guard"]["header"] == ["=2+3*7"]
    frame, _ = read_release(data)
    pd.testing.assert_frame_equal(frame, _formulas())


def test_release_csv_refuses_a_non_frame():
    with pytest.raises(TypeError):
        release_csv([[1, 2]])


def test_release_files_refuses_a_name_that_is_not_a_csv():
    with pytest.raises(ValueError):
        release_files(_table(), file_name="x.txt", method="m", ledger=_ledger(), noise=None)
