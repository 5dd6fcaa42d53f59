"""The identifier rule: row numbers, IDs and keys found; continuous measurements never."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from core.data.csv_loader import load_csv
from core.data.identifiers import (
    detect_identifiers,
    identifiers_by_name,
    looks_like_identifier_name,
    propose_identifiers,
)


def _frame(n: int = 60, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({
        "gappy": rng.permutation(np.arange(1, 2 * n))[:n],      # a row number, gaps, shuffled
        "key": [f"K{v:05d}" for v in rng.permutation(n)],       # a text key
        "income": rng.normal(5e4, 1e4, n).round(2),              # continuous, all distinct
        "age": rng.integers(18, 90, n),                          # a measurement with repeats
        "Unnamed: 0": rng.permutation(n),                        # pandas' written index
        "y": rng.integers(0, 2, n),
    })


def test_finds_row_numbers_keys_and_pandas_index_but_not_measurements():
    found = detect_identifiers(_frame())
    assert set(found) == {"gappy", "key", "Unnamed: 0"}
    assert "income" not in found and "age" not in found


def test_float_valued_whole_numbers_with_a_few_missing_are_found():
    frame = pd.DataFrame({"id": np.r_[np.nan, np.arange(1.0, 40.0)] * 13, "x": np.arange(40) % 3})
    assert list(detect_identifiers(frame)) == ["id"]
    assert "1 missing" in detect_identifiers(frame)["id"]


def test_too_many_missing_cells_is_not_a_key():
    ids = np.arange(40, dtype=float)
    ids[:5] = np.nan
    assert detect_identifiers(pd.DataFrame({"id": ids})) == {}


def test_sparse_unsorted_whole_numbers_without_an_id_name_are_measurements():
    rng = np.random.default_rng(1)
    frame = pd.DataFrame({"salary": rng.permutation(np.arange(20_000, 90_000))[:60]})
    assert detect_identifiers(frame) == {}
    assert list(detect_identifiers(frame.rename(columns={"salary": "PatientID"}))) == ["PatientID"]


def test_running_order_is_a_key():
    frame = pd.DataFrame({"ts": np.cumsum(np.arange(1, 41) * 1000)})
    assert list(detect_identifiers(frame)) == ["ts"]


def test_roles_and_small_tables_are_left_alone():
    frame = _frame()
    assert "key" not in detect_identifiers(frame, exclude=["key"])
    assert detect_identifiers(frame.head(10)) == {}


@pytest.mark.parametrize("name,expected", [
    ("id", True), ("ID", True), ("customer_id", True), ("PatientId", True), ("row", True),
    ("Unnamed: 0", True), ("", True), ("#", True), ("index", True),
    ("rownames", True), ("row.names", True), ("...1", True), ("...12", True), ("...", False),
    ("valid", False), ("paid", False), ("income", False), ("keyboard_hours", False),
])
def test_identifier_names(name, expected):
    assert looks_like_identifier_name(name) is expected


def test_wrong_arguments():
    with pytest.raises(TypeError):
        detect_identifiers([1, 2])
    with pytest.raises(ValueError, match="at least 2"):
        detect_identifiers(_frame(), min_rows=1)


def _r_export(header: str, n: int = 40, seed: int = 0) -> bytes:
    """A table as R's write.csv writes it: quoted row names first, unsorted with wide gaps
    (a subset of a larger table, shuffled) and one made unique by R ("17.1")."""
    rng = np.random.default_rng(seed)
    names = [str(v) for v in rng.choice(np.arange(1, 5000), n, replace=False)]
    names[3] = names[2] + ".1"
    lines = [f'"{header}","age","job"'] + [f'"{r}",{rng.integers(18, 90)},"{rng.choice(["a", "b"])}"'
                                            for r in names]
    return "\n".join(lines).encode()


@pytest.mark.parametrize("header,column", [("rownames", "rownames"), ("", "Unnamed: 0"), ("...1", "...1")])
def test_r_row_names_unsorted_with_gaps_are_an_identifier_by_name(header, column):
    ds = load_csv(_r_export(header))
    assert column in ds.frame.columns and ds.identifiers == (column,)
    assert detect_identifiers(ds.frame) == {}  # by its values alone: sparse, unsorted, decimals
    assert propose_identifiers(ds.frame) == {column: "a name like an ID"}
    assert identifiers_by_name(ds.frame.columns) == [column]
