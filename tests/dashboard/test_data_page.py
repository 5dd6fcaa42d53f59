"""AppTest of the Data page: samples, upload, public data, roles, errors that keep data."""
from __future__ import annotations

import pytest

from tests.dashboard.conftest import assert_clean

GOOD_CSV = ("a,b,c\n" + "".join(f"{i},{i % 3},{'xy'[i % 2]}\n" for i in range(30))).encode()


def _upload(at, content: bytes, name: str = "mine.csv"):
    at.radio(key="data_source").set_value("Upload a CSV").run()
    at.file_uploader(key="data_upload").set_value((name, content, "text/csv")).run()
    return at


def test_default_is_the_supplier_sample(open_page):
    at = open_page("data")
    assert_clean(at)
    assert "Using **supplier**" in at.success[0].value
    assert len(at.dataframe) == 2  # preview and schema


def test_census_sample_has_a_sensitive_column(open_page):
    at = open_page("data")
    at.selectbox(key="data_sample").set_value("census").run()
    assert_clean(at)
    assert "sensitive sex" in at.success[0].value


def test_upload_shows_preview_and_notes(open_page):
    at = _upload(open_page("data"), GOOD_CSV.replace(b",", b";"))
    assert_clean(at)
    assert "Using **mine**" in at.success[0].value
    assert any("separated by ';'" in i.value for i in at.info)
    assert list(at.dataframe[0].value.columns) == ["a", "b", "c"]


def test_bad_upload_shows_one_sentence_and_keeps_the_data(open_page):
    at = _upload(open_page("data"), GOOD_CSV)
    at.file_uploader(key="data_upload").set_value(("bad.csv", b"x,y\n1,2\n", "text/csv")).run()
    assert not at.exception
    assert "only 1 row" in at.error[0].value
    assert any("Still using the dataset loaded before: **mine**" in i.value for i in at.info)
    assert at.session_state["pux_dataset"].name == "mine"


@pytest.mark.parametrize(
    "content,message",
    [
        (b"", "The file is empty"),
        (b"PK\x03\x04\x00\x00" * 30, "binary data"),
        (b"x,y\n" + b"".join(f"{'inf' if i == 2 else i},{i % 2}\n".encode() for i in range(20)), "infinite"),
        (b"x,y\n" + b"".join(f"{'1e300' if i == 2 else i},{i % 2}\n".encode() for i in range(20)), "too large"),
    ],
)
def test_each_bad_file_gets_its_message(open_page, content, message):
    at = _upload(open_page("data"), content)
    assert not at.exception
    assert message in at.error[0].value


def test_invalid_role_keeps_previous_roles(open_page):
    content = ("x,y,id50\n" + "".join(f"{i},{i % 2},c{i % 50}\n" for i in range(120))).encode()
    at = _upload(open_page("data"), content)
    at.selectbox(key="data_label_mine").set_value("id50").run()
    assert not at.exception
    assert "50 distinct values" in at.error[0].value
    assert at.session_state["pux_dataset"].label is None


def test_label_and_sensitive_roles_apply(open_page):
    at = open_page("data")
    at.selectbox(key="data_sample").set_value("census").run()
    at.multiselect(key="data_sensitive_census").set_value(["sex", "relationship"]).run()
    assert_clean(at)
    assert at.session_state["pux_dataset"].sensitive == ("sex", "relationship")


def test_missing_data_directory_is_explained(open_page, tmp_path):
    at = open_page("data")
    at.radio(key="data_source").set_value("Adult (data directory)").run()
    at.text_input(key="data_dir").set_value(str(tmp_path)).run()
    assert not at.exception
    assert "No adult files" in at.error[0].value


def test_adult_loads_from_the_data_directory(open_page, data_dir):
    at = open_page("data")
    at.radio(key="data_source").set_value("Adult (data directory)").run()
    at.text_input(key="data_dir").set_value(str(data_dir)).run()
    assert_clean(at)
    assert "48,842 rows" in at.success[0].value


def test_nltcs_loads_from_the_data_directory(open_page, data_dir):
    at = open_page("data")
    at.radio(key="data_source").set_value("NLTCS (data directory)").run()
    at.text_input(key="data_dir").set_value(str(data_dir)).run()
    assert_clean(at)
    assert "21,574 rows" in at.success[0].value


def test_download_is_offered(open_page):
    at = open_page("data")
    assert_clean(at)
    assert at.get("download_button"), "the table can be downloaded"
