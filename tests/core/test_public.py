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


def test_missing_directory_says_where_it_looked(tmp_path):
    with pytest.raises(DataError, match="Looked for .*adult.data.*PUX_DATA_DIR"):
        load_adult(tmp_path)


def test_no_directory_set_says_how_to_get_data(monkeypatch):
    monkeypatch.delenv("PUX_DATA_DIR", raising=False)
    with pytest.raises(DataError, match="set PUX_DATA_DIR"):
        load_nltcs(None)


def test_data_dir_falls_back_to_environment(monkeypatch, tmp_path):
    (tmp_path / "nltcs.csv").write_text("x1,x2\n0,1\n1,0\n")
    monkeypatch.setenv("PUX_DATA_DIR", str(tmp_path))
    assert available_public() == {"adult": False, "nltcs": True}
    assert load_nltcs().n_rows == 2
