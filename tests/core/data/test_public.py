from __future__ import annotations

import pytest

from core.data import available_public, load_adult, load_nltcs
from core.validation import DataError


def test_adult_has_both_files_and_two_income_classes(adult):
    assert adult.n_rows == 48_842
    assert set(adult.frame["income"].unique()) == {"<=50K", ">50K"}
    assert adult.dropna().n_rows == 45_222
    assert adult.sensitive == ("sex",)
    assert adult.frame["sex"].eq("Male").mean() == pytest.approx(0.668, abs=0.001)


def test_nltcs_is_binary(nltcs):
    assert nltcs.frame.shape == (21_574, 16)
    assert set(nltcs.frame.stack().unique()) <= {0, 1}


def test_missing_directory_says_what_it_looked_for_never_the_path(tmp_path):
    with pytest.raises(DataError, match="Looked for .*adult.data.*PUX_DATA_DIR") as info:
        load_adult(tmp_path)
    assert str(tmp_path) not in str(info.value)


def test_no_directory_set_says_how_to_get_data(monkeypatch):
    monkeypatch.delenv("PUX_DATA_DIR", raising=False)
    with pytest.raises(DataError, match="set PUX_DATA_DIR"):
        load_nltcs(None)


def _nltcs_text(rows: int = 21_574) -> str:
    header = ",".join(f"x{i}" for i in range(1, 17))
    return header + "\n" + "".join(",".join("01"[(r >> i) & 1] for i in range(16)) + "\n" for r in range(rows))


def test_data_dir_falls_back_to_environment(monkeypatch, tmp_path):
    (tmp_path / "nltcs.csv").write_text(_nltcs_text())
    monkeypatch.setenv("PUX_DATA_DIR", str(tmp_path))
    assert available_public() == {"adult": False, "nltcs": True}
    assert load_nltcs().n_rows == 21_574


def _adult_dir(tmp_path, data_dir, *, data: bytes | None = None, test: bytes | None = None):
    for name, content in (("adult.data", data), ("adult.test", test)):
        real = (data_dir / name).read_bytes()
        (tmp_path / name).write_bytes(real if content is None else content)
    return tmp_path


def _one_sentence_without_path_or_contents(exc: DataError, tmp_path) -> str:
    text = str(exc)
    assert str(tmp_path) not in text and "\n" not in text
    assert text.count(". ") == 0 and text.endswith(".")
    return text


def test_truncated_adult_data_does_not_load_silently(tmp_path, data_dir):
    lines = (data_dir / "adult.data").read_bytes().splitlines(keepends=True)
    _adult_dir(tmp_path, data_dir, data=b"".join(lines[:12_268]))
    with pytest.raises(DataError, match=r"adult.data .*12,268 data rows.*32,561") as info:
        load_adult(tmp_path)
    _one_sentence_without_path_or_contents(info.value, tmp_path)


def test_adult_test_must_have_all_its_rows(tmp_path, data_dir):
    lines = (data_dir / "adult.test").read_bytes().splitlines(keepends=True)
    _adult_dir(tmp_path, data_dir, test=b"".join(lines[:-1]))
    with pytest.raises(DataError, match=r"adult.test .*16,280 data rows.*16,281"):
        load_adult(tmp_path)


def test_row_cut_mid_line_is_explained(tmp_path, data_dir):
    raw = (data_dir / "adult.data").read_bytes()
    _adult_dir(tmp_path, data_dir, data=raw[: len(raw) // 2])
    with pytest.raises(DataError, match="adult.data.*cannot be used"):
        load_adult(tmp_path)


def test_garbage_adult_file_gives_one_sentence(tmp_path, data_dir):
    garbage = bytes(range(256)) * 400
    _adult_dir(tmp_path, data_dir, data=garbage)
    with pytest.raises(DataError, match="adult.data .*401 data rows") as info:
        load_adult(tmp_path)
    _one_sentence_without_path_or_contents(info.value, tmp_path)


def test_text_garbage_adult_file_does_not_echo_its_contents(tmp_path, data_dir):
    _adult_dir(tmp_path, data_dir, data=b"secret-value-123;other\n" * 50)
    with pytest.raises(DataError, match="adult.data") as info:
        load_adult(tmp_path)
    assert "secret" not in str(info.value)


def test_empty_adult_file_says_it_is_empty(tmp_path, data_dir):
    _adult_dir(tmp_path, data_dir, test=b"")
    with pytest.raises(DataError, match="adult.test .*is empty"):
        load_adult(tmp_path)


@pytest.mark.parametrize(
    "text,message",
    [
        ("", "is empty"),
        ("a,b\n1,2\n", "header is not x1"),
        (_nltcs_text(100), "100 data rows where the published file has 21,574"),
    ],
)
def test_bad_nltcs_file_gives_one_sentence(tmp_path, text, message):
    (tmp_path / "nltcs.csv").write_text(text)
    with pytest.raises(DataError, match=message) as info:
        load_nltcs(tmp_path)
    _one_sentence_without_path_or_contents(info.value, tmp_path)


def test_a_junk_cell_changes_only_its_own_record(tmp_path):
    """n is public and the file's format fixed: one record's content never refuses the file."""
    (tmp_path / "nltcs.csv").write_text(_nltcs_text())
    clean = load_nltcs(tmp_path).frame
    lines = _nltcs_text().splitlines(keepends=True)
    lines[5] = "x,7,\"oops,\n"
    (tmp_path / "nltcs.csv").write_text("".join(lines))
    junk = load_nltcs(tmp_path).frame
    assert junk.shape == clean.shape
    changed = ~((junk == clean) | (junk.isna() & clean.isna())).all(axis=1)
    assert list(changed[changed].index) == [4]
    assert junk.iloc[4, 1] == 1.0 and junk.iloc[4, :].isna().sum() == 15


def test_nltcs_has_no_identifier(monkeypatch, tmp_path):
    (tmp_path / "nltcs.csv").write_text(_nltcs_text())
    ds = load_nltcs(tmp_path)
    assert ds.identifiers == () and ds.features == tuple(f"x{i}" for i in range(1, 17))
