"""Every bad input of docs/design.md section 5 gets one clear sentence (or a repair and a note)."""
from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest

from core.data import MIN_ROWS, frame_to_dataset, load_csv
from core.validation import DataError


def _csv(rows: int = 30, sep: str = ",") -> str:
    lines = [sep.join(["age", "city", "income", "label"])]
    for i in range(rows):
        lines.append(sep.join([str(20 + i % 25), "AB"[i % 2] + "town", str(1000 * (i % 7)), "yn"[i % 2]]))
    return "\n".join(lines) + "\n"


def test_good_csv_is_read_with_types():
    ds = load_csv(_csv().encode(), label="label")
    assert ds.n_rows == 30
    assert ds.numeric == ("age", "income")
    assert ds.categorical == ("city", "label")
    assert ds.notes == ()


def test_path_and_file_object_are_accepted(tmp_path):
    p = tmp_path / "people.csv"
    p.write_text(_csv())
    assert load_csv(p).name == "people"
    assert load_csv(io.BytesIO(_csv().encode())).n_rows == 30
    assert load_csv(io.StringIO(_csv())).n_rows == 30


def test_wrong_source_type():
    with pytest.raises(TypeError, match="path, bytes or a file-like"):
        load_csv(123)


def test_missing_path(tmp_path):
    with pytest.raises(DataError, match="No file at"):
        load_csv(tmp_path / "nope.csv")


def test_empty_file():
    with pytest.raises(DataError, match="The file is empty"):
        load_csv(b"")


def test_whitespace_only_file():
    with pytest.raises(DataError, match="The file is empty"):
        load_csv(b"  \n\n ")


def test_header_without_rows():
    with pytest.raises(DataError, match="header but no rows"):
        load_csv(b"a,b,c\n")


def test_one_row():
    with pytest.raises(DataError, match=f"only 1 row.*at least {MIN_ROWS}"):
        load_csv(b"a,b\n1,2\n")


@pytest.mark.parametrize("sep,word", [(";", "';'"), ("\t", "tab"), ("|", "'|'")])
def test_other_delimiters_are_detected_and_noted(sep, word):
    ds = load_csv(_csv(sep=sep).encode())
    assert list(ds.frame.columns) == ["age", "city", "income", "label"]
    assert any(word in n for n in ds.notes)


def test_legacy_encoding_is_read_and_noted():
    text = _csv().replace("Atown", "Zürich").encode("cp1252")
    ds = load_csv(text)
    assert "Zürich" in set(ds.frame["city"])
    assert any("not UTF-8" in n for n in ds.notes)


def test_binary_file():
    with pytest.raises(DataError, match="binary data"):
        load_csv(b"PK\x03\x04\x00\x00junk" * 20)


def test_a_ragged_row_is_one_record_and_refuses_nothing():
    """n is the number of data lines: a line with more cells has its extra cells ignored, one
    with fewer has the rest missing (issue 36: one record never refuses a file)."""
    text = "a,b\n" + "1,2\n" * 20 + "1,2,3,4\n" + "7\n"
    ds = load_csv(text.encode())
    assert ds.n_rows == 22 and list(ds.frame.columns) == ["a", "b"]
    assert ds.frame["b"].isna().tolist()[-1] and ds.frame["a"].tolist()[-1] == 7


def test_label_with_one_class():
    text = "x,y\n" + "".join(f"{i},same\n" for i in range(20))
    with pytest.raises(DataError, match="single value.*at least two classes"):
        load_csv(text.encode(), label="y")


def test_label_with_fifty_classes():
    text = "x,y\n" + "".join(f"{i},c{i % 50}\n" for i in range(200))
    with pytest.raises(DataError, match="50 distinct values"):
        load_csv(text.encode(), label="y")


def test_constant_column_is_kept_with_a_note():
    text = "x,k,y\n" + "".join(f"{i},7,{i % 2}\n" for i in range(20))
    ds = load_csv(text.encode())
    assert "k" in ds.frame.columns
    assert any("'k' has a single value" in n for n in ds.notes)


def test_constant_sensitive_column_is_an_error():
    text = "x,k\n" + "".join(f"{i},7\n" for i in range(20))
    with pytest.raises(DataError, match="sensitive column 'k' has a single value"):
        load_csv(text.encode(), sensitive=["k"])


def test_all_missing_column_is_kept_with_a_note():
    text = "x,empty,y\n" + "".join(f"{i},,{i % 2}\n" for i in range(20))
    ds = load_csv(text.encode())
    assert "empty" in ds.frame.columns
    assert any("'empty' is empty" in n for n in ds.notes)


def test_all_missing_label_is_an_error():
    text = "x,y\n" + "".join(f"{i},\n" for i in range(20))
    with pytest.raises(DataError, match="Column 'y' is empty"):
        load_csv(text.encode(), label="y")


def test_everything_constant_is_kept():
    text = "a,b\n" + "1,2\n" * 20
    assert list(load_csv(text.encode()).frame.columns) == ["a", "b"]


def test_non_numeric_junk_in_a_numeric_column_becomes_missing():
    values = [str(i) for i in range(40)]
    values[5] = "abc"
    text = "x,y\n" + "".join(f"{v},{i % 2}\n" for i, v in enumerate(values))
    ds = load_csv(text.encode())
    assert "x" in ds.numeric
    assert np.isnan(ds.frame.loc[5, "x"])
    assert any("'abc'" in n and "treated as missing" in n for n in ds.notes)


def test_mostly_text_column_stays_categorical():
    text = "x,y\n" + "".join(f"{'a' if i % 3 else i},{i % 2}\n" for i in range(30))
    ds = load_csv(text.encode())
    assert "x" in ds.categorical


def test_an_infinite_value_is_missing_not_a_refusal():
    text = "x,y\n" + "".join(f"{'inf' if i == 3 else i},{i % 2}\n" for i in range(20))
    ds = load_csv(text.encode())
    assert np.isnan(ds.frame["x"][3]) and ds.frame["x"].notna().sum() == 19
    assert any("'x' has 1 infinite or too large" in n for n in ds.notes)


def test_a_huge_value_is_missing_not_a_refusal():
    text = "x,y\n" + "".join(f"{'1e300' if i == 3 else i},{i % 2}\n" for i in range(20))
    ds = load_csv(text.encode())
    assert np.isnan(ds.frame["x"][3]) and ds.frame["x"][4] == 4


def test_question_marks_are_missing():
    text = "x,c\n" + "".join(f"{'?' if i == 2 else i},{'?' if i == 4 else 'ab'[i % 2]}\n" for i in range(20))
    ds = load_csv(text.encode())
    assert ds.frame["x"].isna().sum() == 1
    assert ds.frame["c"].isna().sum() == 1


def test_text_identifier_is_marked_with_a_note_and_kept_out_of_features():
    text = "id,x\n" + "".join(f"person-{i},{i % 3}\n" for i in range(30))
    ds = load_csv(text.encode())
    assert ds.identifiers == ("id",)
    assert ds.features == ("x",)
    assert list(ds.without_identifiers().frame.columns) == ["x"]
    assert any("'id'" in n and "marked as an identifier" in n for n in ds.notes)


def test_unsorted_row_number_with_gaps_is_an_identifier():
    rng = np.random.default_rng(3)
    rows = rng.permutation(np.arange(1, 90))[:60]  # a row number after rows were dropped, shuffled
    text = "n,x\n" + "".join(f"{r},{i % 3}\n" for i, r in enumerate(rows))
    assert load_csv(text.encode()).identifiers == ("n",)


def test_pandas_written_index_is_an_identifier():
    frame = pd.DataFrame({"x": np.arange(40) % 4, "y": ["a", "b"] * 20})
    ds = load_csv(frame.sample(frac=1, random_state=0).to_csv().encode())  # index written, shuffled
    assert ds.identifiers == ("Unnamed: 0",)
    assert "Unnamed: 0" not in ds.features


def test_continuous_column_with_all_distinct_values_is_not_an_identifier():
    rng = np.random.default_rng(0)
    text = "income,x\n" + "".join(f"{v:.2f},{i % 3}\n" for i, v in enumerate(rng.normal(5e4, 1e4, 60)))
    ds = load_csv(text.encode())
    assert ds.identifiers == ()
    assert "income" in ds.features


def test_identifier_with_a_few_missing_cells_is_still_an_identifier():
    text = "customer_id,x\n" + "".join(f"{'' if i == 5 else 1000 + 7 * i},{i % 3}\n" for i in range(40))
    ds = load_csv(text.encode())
    assert ds.frame["customer_id"].dtype.kind == "f"  # whole numbers with a missing cell
    assert ds.identifiers == ("customer_id",)


def test_label_or_sensitive_column_is_never_an_identifier():
    text = "code,x\n" + "".join(f"c{i},{i % 3}\n" for i in range(30))
    assert load_csv(text.encode(), sensitive=["code"]).identifiers == ()


def test_identifiers_given_skip_detection():
    frame = pd.DataFrame({"row": np.arange(30), "x": np.arange(30) % 3})
    assert frame_to_dataset(frame, identifiers=[]).identifiers == ()
    assert frame_to_dataset(frame, identifiers=["x"]).identifiers == ("x",)


def test_max_rows_caps_and_notes():
    ds = load_csv(_csv(rows=50).encode(), max_rows=20)
    assert ds.n_rows == 20
    assert any("first 20 rows" in n for n in ds.notes)


def test_max_rows_validation():
    with pytest.raises(ValueError, match="at least"):
        load_csv(_csv().encode(), max_rows=2)


def test_unknown_label_column():
    with pytest.raises(DataError, match="no column 'nope'"):
        load_csv(_csv().encode(), label="nope")


def test_label_cannot_also_be_sensitive():
    with pytest.raises(DataError, match="both the label and a sensitive"):
        load_csv(_csv().encode(), label="label", sensitive=["label"])


def test_duplicate_column_names_in_a_frame():
    frame = pd.DataFrame(np.arange(40).reshape(20, 2), columns=["a", "a"])
    with pytest.raises(DataError, match="more than once"):
        frame_to_dataset(frame)


def test_frame_to_dataset_needs_a_frame():
    with pytest.raises(TypeError, match="DataFrame"):
        frame_to_dataset([[1, 2]])


# --------------------------------------------------------------- input notes (issue)
def test_utf16_with_bom_is_read_with_a_note():
    for enc in ("utf-16", "utf-16-be"):
        raw = _csv().replace("Atown", "Zürich").encode(enc)
        if enc == "utf-16-be":
            raw = b"\xfe\xff" + raw
        ds = load_csv(raw)
        assert ds.n_rows == 30 and "Zürich" in set(ds.frame["city"])
        assert any("UTF-16" in n for n in ds.notes)


def test_utf16_without_bom_is_read_too():
    ds = load_csv(_csv().encode("utf-16-le"))
    assert list(ds.frame.columns) == ["age", "city", "income", "label"]
    assert any("UTF-16" in n for n in ds.notes)


def test_numeric_column_with_a_few_percent_text_becomes_numeric_with_a_note():
    values = [str(i) for i in range(100)]
    for i in range(0, 100, 13):  # 8 cells of 100 are text
        values[i] = "n/a-ish"
    text = "x,y\n" + "".join(f"{v},{i % 2}\n" for i, v in enumerate(values))
    ds = load_csv(text.encode())
    assert "x" in ds.numeric
    assert ds.frame["x"].isna().sum() == 8
    note = next(n for n in ds.notes if "'x'" in n)
    assert "8 of its 100" in note and "missing" in note


def test_duplicate_column_names_are_renamed_with_a_note():
    text = "a,b,a\n" + "".join(f"{i},{i % 2},{i * 3}\n" for i in range(20))
    ds = load_csv(text.encode())
    assert list(ds.frame.columns) == ["a", "b", "a.1"]
    assert any("'a' appears 2 times" in n and "'a.1'" in n for n in ds.notes)


def test_integer_columns_stay_integers():
    text = "n,m,y\n" + "".join(f"{i},{'' if i == 3 else i * 2},{i % 2}\n" for i in range(20))
    ds = load_csv(text.encode())
    assert pd.api.types.is_integer_dtype(ds.frame["n"])
    from core.data import export_frame

    out = export_frame(ds.frame).to_csv(index=False)
    assert "\n4,8,0\n" in out and "\n3,,1\n" in out and ".0" not in out


def test_bytes_over_the_limit_are_refused(monkeypatch):
    import core.data.csv_loader as cl

    monkeypatch.setattr(cl, "MAX_BYTES", 100)
    with pytest.raises(DataError, match="upload limit"):
        load_csv(_csv().encode())


def test_upload_limit_is_one_number_shared_with_streamlit():
    import tomllib
    from pathlib import Path

    from core.data import MAX_BYTES, MAX_UPLOAD_MB

    config = Path(__file__).resolve().parents[3] / ".streamlit" / "config.toml"
    server = tomllib.loads(config.read_text())["server"]
    assert server["maxUploadSize"] == MAX_UPLOAD_MB
    assert MAX_BYTES == MAX_UPLOAD_MB * 2**20  # Streamlit's MB


def test_wide_file_keeps_the_first_columns_with_a_note():
    from core.data import MAX_COLUMNS

    ncol = MAX_COLUMNS + 50
    header = ",".join(f"c{j}" for j in range(ncol))
    rows = "".join(",".join(str((i * (j + 1)) % 7) for j in range(ncol)) + "\n" for i in range(20))
    ds = load_csv((header + "\n" + rows).encode())
    assert ds.frame.shape[1] <= MAX_COLUMNS
    assert any(f"{ncol} columns" in n and f"first {MAX_COLUMNS}" in n for n in ds.notes)


def test_an_open_quote_swallows_no_other_line():
    text = "a,b\n" + "1,2\n" * 10 + '"secret,value\n' + "3,4\n" * 10
    ds = load_csv(text.encode())
    assert ds.n_rows == 21 and ds.frame["a"].tolist()[-1] == 3


def test_the_command_line_reads_a_file_over_the_upload_limit(monkeypatch, tmp_path):
    import core.data.csv_loader as cl

    monkeypatch.setattr(cl, "MAX_BYTES", 100)
    path = tmp_path / "big.csv"
    path.write_text(_csv())
    with pytest.raises(DataError, match="upload limit"):
        load_csv(path)
    assert load_csv(path, max_bytes=None).n_rows == load_csv(_csv().encode(), max_bytes=None).n_rows
