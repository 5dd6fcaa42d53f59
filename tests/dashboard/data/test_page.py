"""AppTest of the Data page: samples, upload, public data, roles, errors that keep data."""
from __future__ import annotations

from pathlib import Path

import pytest

from dashboard.data.schema_panel import DRAFT_WARNING, PRIVACY_WORDS
from tests.dashboard.conftest import assert_clean
from tests.dashboard.shared.widgets.test_chart_data import assert_every_chart_has_its_csv

GOOD_CSV = ("a,b,c\n" + "".join(f"{i},{i % 3},{'xy'[i % 2]}\n" for i in range(30))).encode()


def _upload(at, content: bytes, name: str = "mine.csv"):
    at.radio(key="data_source").set_value("Upload a CSV").run()
    at.file_uploader(key="data_upload").set_value((name, content, "text/csv")).run()
    return at


def test_default_is_the_supplier_sample(open_page):
    at = open_page("data")
    assert_clean(at)
    assert "Using **supplier**" in at.success[0].value
    assert len(at.dataframe) == 3  # preview, public schema (an editor) and column types


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
    assert list(at.dataframe[0].value.columns) == ["a", "b", "c"]  # the preview comes first


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
    ],
)
def test_each_bad_file_gets_its_message(open_page, content, message):
    at = _upload(open_page("data"), content)
    assert not at.exception
    assert message in at.error[0].value


def test_an_infinite_value_is_a_missing_cell_not_a_refusal(open_page):
    """One record's value never refuses the file (issue 36): it is that record's missing cell."""
    content = b"x,y\n" + b"".join(f"{'inf' if i == 2 else i},{i % 2}\n".encode() for i in range(20))
    at = _upload(open_page("data"), content)
    assert_clean(at)
    assert any("infinite or too large" in i.value for i in at.info)


def test_a_set_schema_reads_the_upload_again_record_by_record(open_page):
    """Once a schema is set, the upload is read again from its bytes by it: a junk cell is that
    record's missing number, and the declared category '1' matches the cell '1.0'."""
    rows = "".join(f"{i},{'x' if i == 4 else i % 5},{'1.0' if i == 3 else 1 + i % 2}\n" for i in range(30))
    at = _upload(open_page("data"), ("k,b,c\n" + rows).encode())
    from core.privacy.schema import PublicSchema
    from core.privacy.schema_columns import ColumnSchema
    from dashboard.data.schema_panel import UPLOAD_ID_KEY  # noqa: F401  (the panel's state)

    schema = PublicSchema((ColumnSchema("k", "numeric", lower=0, upper=100),
                           ColumnSchema("b", "numeric", lower=0, upper=10),
                           ColumnSchema("c", "categorical", categories=("1", "2"))), name="mine")
    upload = ("schema.json", schema.to_json().encode(), "application/json")
    at.file_uploader(key=f"schema_upload_{_schema_key(at)}").set_value(upload).run()
    assert_clean(at)
    chosen = at.session_state["pux_dataset"]
    assert chosen.declared and chosen.n_rows == 30
    assert chosen.frame["b"].isna().sum() == 1 and chosen.frame["c"].tolist()[3] == "1"
    assert _schema(at).is_public()


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


def test_no_data_directory_box_and_no_path_shown(open_page, monkeypatch, tmp_path):
    monkeypatch.setenv("PUX_DATA_DIR", str(tmp_path))
    at = open_page("data")
    at.radio(key="data_source").set_value("Adult (public data)").run()
    assert not at.exception
    assert not at.text_input, "viewers cannot type a server path"
    assert "Adult is not available on this server" in at.error[0].value
    shown = " ".join(str(e.value) for e in [*at.error, *at.info, *at.caption, *at.markdown])
    assert str(tmp_path) not in shown and "data_dir" not in shown
    assert any("Public datasets on this server" in c.value for c in at.caption)


def test_invalid_public_file_gives_one_sentence_without_path(open_page, monkeypatch, tmp_path, data_dir):
    raw = (data_dir / "adult.data").read_bytes()
    (tmp_path / "adult.data").write_bytes(b"".join(raw.splitlines(keepends=True)[:12_268]))
    (tmp_path / "adult.test").write_bytes((data_dir / "adult.test").read_bytes())
    monkeypatch.setenv("PUX_DATA_DIR", str(tmp_path))
    at = open_page("data")
    at.radio(key="data_source").set_value("Adult (public data)").run()
    assert not at.exception
    assert "12,268" in at.error[0].value and str(tmp_path) not in at.error[0].value
    assert at.session_state["pux_dataset"].name == "supplier"


def test_adult_loads_from_the_operators_data_directory(open_page, data_dir, monkeypatch):
    monkeypatch.setenv("PUX_DATA_DIR", str(data_dir))
    at = open_page("data")
    at.radio(key="data_source").set_value("Adult (public data)").run()
    assert_clean(at)
    assert "48,842 rows" in at.success[0].value
    assert any("Adult (available)" in c.value for c in at.caption)


def test_nltcs_loads_from_the_operators_data_directory(open_page, data_dir, monkeypatch):
    monkeypatch.setenv("PUX_DATA_DIR", str(data_dir))
    at = open_page("data")
    at.radio(key="data_source").set_value("NLTCS (public data)").run()
    assert_clean(at)
    assert "21,574 rows" in at.success[0].value


def test_a_ragged_line_is_one_record_not_a_refusal(open_page):
    """Issue 36: one record's line never refuses the file (its extra cells are not read)."""
    content = b"a,b\n" + b"1,2\n" * 20 + b"secret,value,3,4\n"
    at = _upload(open_page("data"), content)
    assert_clean(at)
    assert at.session_state["pux_dataset"].n_rows == 21


def test_markup_in_names_is_shown_as_text(open_page):
    content = ("![x](http://evil.example/a),y\n" + "".join(f"{i},{i % 2}\n" for i in range(20))).encode()
    at = _upload(open_page("data"), content, name="**bold**.csv")
    assert_clean(at)
    assert "\\*\\*bold\\*\\*" in at.success[0].value


def test_integer_column_downloads_as_integers(open_page):
    content = ("n,m,y\n" + "".join(f"{i},{'' if i == 3 else i * 2},{i % 2}\n" for i in range(20))).encode()
    at = _upload(open_page("data"), content)
    assert_clean(at)
    from dashboard.shared.serving.datasets import csv_bytes

    out = csv_bytes(at.session_state["pux_dataset"]).decode()
    assert "\n4,8,0\n" in out and ".0" not in out


def test_upload_is_parsed_once_and_kept_in_the_session(open_page, monkeypatch):
    import dashboard.shared.serving.datasets as cached

    calls = []
    real = cached.parse_upload
    monkeypatch.setattr(cached, "parse_upload", lambda *a, **k: calls.append(1) or real(*a, **k))
    at = _upload(open_page("data"), GOOD_CSV)
    at.multiselect(key="data_sensitive_mine").set_value(["c"]).run()
    at.run()
    assert_clean(at)
    assert len(calls) == 1
    assert at.session_state["pux_data_upload"]["dataset"].name == "mine"


def test_choices_survive_navigation(open_page):
    at = open_page("data")
    at.selectbox(key="data_sample").set_value("census").run()
    at.selectbox(key="data_label_census").set_value("sex").run()
    at.multiselect(key="data_sensitive_census").set_value(["relationship"]).run()
    assert_clean(at)
    before = at.session_state["pux_dataset"]
    at.switch_page("cdp/cdp_lr.py").run()
    at.switch_page("data/data.py").run()
    assert_clean(at)
    after = at.session_state["pux_dataset"]
    assert after.name == "census" and after.label == "sex" and after.sensitive == ("relationship",)
    assert after.fingerprint() == before.fingerprint()
    assert at.radio(key="data_source").value == "Built-in sample"
    assert at.selectbox(key="data_sample").value == "census"
    assert at.selectbox(key="data_label_census").value == "sex"
    assert at.multiselect(key="data_sensitive_census").value == ["relationship"]


def test_uploaded_dataset_survives_navigation(open_page):
    at = _upload(open_page("data"), GOOD_CSV)
    at.selectbox(key="data_label_mine").set_value("b").run()
    at.switch_page("cdp/cdp_lr.py").run()
    at.switch_page("data/data.py").run()
    assert_clean(at)
    assert at.radio(key="data_source").value == "Upload a CSV"
    assert at.session_state["pux_dataset"].name == "mine"
    assert at.session_state["pux_dataset"].label == "b"
    assert "Using **mine**" in at.success[0].value


def test_theme_follows_the_viewer_and_streamlit_is_recent():
    import tomllib
    from pathlib import Path

    root = Path(__file__).resolve().parents[3]
    config = tomllib.loads((root / ".streamlit" / "config.toml").read_text())
    assert "base" not in config.get("theme", {})
    assert "server.address" in (root / ".streamlit" / "config.toml").read_text() or "address" in (
        root / ".streamlit" / "config.toml").read_text()
    deps = tomllib.loads((root / "pyproject.toml").read_text())["project"]["dependencies"]
    assert "streamlit>=1.54" in deps


def test_every_chart_offers_its_data_as_csv(open_page):
    at = open_page("data")
    assert_clean(at)
    assert_every_chart_has_its_csv(at)
    holes = GOOD_CSV.replace(b",0,x\n", b",,x\n")  # empty cells: the missing-share chart too
    at = _upload(at, holes)
    assert_clean(at)
    assert {c.key for c in at.get("plotly_chart")} == {"data_dist_chart", "data_missing_chart"}
    assert_every_chart_has_its_csv(at)


def test_download_is_offered(open_page):
    at = open_page("data")
    assert_clean(at)
    assert at.get("download_button"), "the table can be downloaded"


# --------------------------------------------------------------------------- the public schema

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"


def _schema(at):
    """The schema the other pages read for the dataset in use (what the panel stored)."""
    from dashboard.shared.serving.schemas import schema_key

    dataset = at.session_state["pux_dataset"]
    return at.session_state["pux_schemas"][schema_key(dataset)]


def _schema_key(at) -> str:
    from dashboard.shared.serving.schemas import schema_key

    return schema_key(at.session_state["pux_dataset"])


def _button(at, label: str):
    return next(b for b in at.button if b.label.startswith(label))


def test_upload_gets_a_drafted_schema_read_from_your_data(open_page):
    at = _upload(open_page("data"), GOOD_CSV)
    assert_clean(at)
    assert any(DRAFT_WARNING in w.value for w in at.warning)
    table = at.data_editor[0].value
    assert list(table["column"]) == ["a", "b", "c"]
    assert set(table["privacy"]) == {PRIVACY_WORDS["read from data"]}
    assert not _schema(at).is_public()


def test_confirm_flips_every_drafted_entry_to_declared(open_page):
    """With a public range typed for the number (its drafted bounds are never declared)."""
    at = _upload(open_page("data"), GOOD_CSV)
    at.text_input(key=f"schema_ranges_{_schema_key(at)}").set_value("b: 0, 2").run()
    _button(at, "Confirm as public knowledge").click().run()
    assert_clean(at)
    assert {c.source for c in _schema(at).columns} == {"declared"}
    assert not any(DRAFT_WARNING in w.value for w in at.warning)
    assert any("declared public knowledge" in s.value for s in at.success)
    assert set(at.data_editor[0].value["source"]) == {"declared"}


def test_bulk_confirm_leaves_the_drafted_number_out_and_says_so(open_page):
    at = _upload(open_page("data"), GOOD_CSV)
    _button(at, "Confirm as public knowledge").click().run()
    assert_clean(at)
    schema = _schema(at)
    assert schema.read_from_data() == ["b"] and schema["c"].source == "declared"
    assert any("2 entries declared" in s.value and "1 left out" in s.value for s in at.success)
    assert at.data_editor[0].value.set_index("column").loc["b", ["lower", "upper"]].isna().all()


def test_confirm_only_the_chosen_columns(open_page):
    at = _upload(open_page("data"), GOOD_CSV)
    at.multiselect(key=f"schema_columns_{_schema_key(at)}").set_value(["a"]).run()
    _button(at, "Confirm as public knowledge").click().run()
    assert_clean(at)
    schema = _schema(at)
    assert schema["a"].source == "declared" and schema.read_from_data() == ["b", "c"]


def test_estimate_replaces_the_draft_and_shows_its_cost(open_page):
    at = _upload(open_page("data"), GOOD_CSV)
    _button(at, "Estimate privately with epsilon = 1").click().run()
    assert_clean(at)
    schema = _schema(at)
    assert schema["a"].kind == "identifier"  # a row number: never used, nothing to estimate
    assert {schema[c].source for c in ("b", "c")} == {"private estimate"}
    assert schema.estimate.nominal()[0] == pytest.approx(1.0)
    assert any("privately with epsilon = 1" in s.value for s in at.success)


def test_bad_schema_file_gives_one_sentence_and_keeps_the_schema(open_page):
    at = _upload(open_page("data"), GOOD_CSV)
    _button(at, "Confirm as public knowledge").click().run()
    before = _schema(at)
    key = f"schema_upload_{_schema_key(at)}"
    at.file_uploader(key=key).set_value(("mine.schema.json", b"{not json", "application/json")).run()
    assert not at.exception
    assert len(at.error) == 1
    message = at.error[0].value
    assert "schema before is kept" in message and "not valid JSON" in message
    assert message.count(". ") == 0  # one sentence
    assert _schema(at) == before


def test_schema_file_for_another_table_is_refused(open_page):
    at = _upload(open_page("data"), GOOD_CSV)
    other = (EXAMPLES / "census.schema.json").read_bytes()
    at.file_uploader(key=f"schema_upload_{_schema_key(at)}").set_value(
        ("census.schema.json", other, "application/json")).run()
    assert not at.exception
    assert "which the table does not have" in at.error[0].value
    assert not _schema(at).is_public()


def test_schema_file_that_fits_is_applied(open_page):
    at = open_page("data")
    at.selectbox(key="data_sample").set_value("census").run()
    content = (EXAMPLES / "census.schema.json").read_bytes()
    at.file_uploader(key=f"schema_upload_{_schema_key(at)}").set_value(
        ("census.schema.json", content, "application/json")).run()
    assert_clean(at)
    assert {c.source for c in _schema(at).columns} == {"declared"}


def test_built_in_census_schema_shows_as_built_in(open_page):
    at = open_page("data")
    at.selectbox(key="data_sample").set_value("census").run()
    assert_clean(at)
    assert any("ships its schema" in i.value for i in at.info)
    table = at.data_editor[0].value
    assert set(table["source"]) == {"built-in"}
    assert table.set_index("column").loc["age", ["lower", "upper"]].tolist() == [17.0, 90.0]
    assert not any(DRAFT_WARNING in w.value for w in at.warning)


def test_an_edited_cell_is_declared(open_page):
    at = _upload(open_page("data"), GOOD_CSV)
    version = at.session_state["pux_schema_version"] if "pux_schema_version" in at.session_state else 0
    key = f"schema_editor_{_schema_key(at)}_{version}"
    at.session_state[key] = {"edited_rows": {1: {"lower": 0.0, "upper": 100.0}}, "added_rows": [],
                             "deleted_rows": []}
    at.run()
    assert_clean(at)
    schema = _schema(at)
    assert schema["b"].upper == 100.0 and schema["b"].source == "declared"
    assert schema.read_from_data() == ["a", "c"]
    assert any("declared public knowledge" in s.value for s in at.success)


def test_schema_survives_navigation_and_role_changes(open_page):
    at = _upload(open_page("data"), GOOD_CSV)
    at.text_input(key=f"schema_ranges_{_schema_key(at)}").set_value("b: 0, 2").run()
    _button(at, "Confirm as public knowledge").click().run()
    at.selectbox(key="data_label_mine").set_value("c").run()
    at.switch_page("cdp/cdp_lr.py").run()
    at.switch_page("data/data.py").run()
    assert_clean(at)
    schema = _schema(at)
    assert schema.is_public()
    assert set(at.data_editor[0].value["source"]) == {"declared"}


def test_a_drafted_identifier_given_a_role_is_drafted_again_as_a_feature(open_page):
    at = _upload(open_page("data"), GOOD_CSV)
    assert _schema(at)["a"].kind == "identifier"
    at.multiselect(key="data_sensitive_mine").set_value(["a"]).run()
    assert_clean(at)
    from dashboard.shared.serving.schemas import _fit_roles

    fitted = _fit_roles(_schema(at), at.session_state["pux_dataset"])
    assert fitted["a"].kind == "numeric" and fitted["a"].source == "read from data"
    assert fitted.sensitive == ("a",)
    assert at.data_editor[0].value.set_index("column").loc["a", "kind"] == "numeric"


def test_estimate_uses_the_coarse_public_ranges_typed(open_page):
    content = ("x,c\n" + "".join(f"{20 + i % 40},{'uv'[i % 2]}\n" for i in range(400))).encode()
    at = _upload(open_page("data"), content)
    at.text_input(key=f"schema_ranges_{_schema_key(at)}").set_value("x: 0, 150").run()
    _button(at, "Estimate privately with epsilon = 1").click().run()
    assert_clean(at)
    x = _schema(at)["x"]
    assert x.source == "private estimate" and 0 <= x.lower < x.upper <= 150


def test_bad_ranges_give_one_sentence_and_no_estimate(open_page):
    at = _upload(open_page("data"), GOOD_CSV)
    at.text_input(key=f"schema_ranges_{_schema_key(at)}").set_value("c: 0, 1").run()
    _button(at, "Estimate privately with epsilon = 1").click().run()
    assert not at.exception
    assert "not a numeric column" in at.error[0].value
    assert _schema(at).estimate is None


def test_the_draft_is_made_once_per_table(open_page, monkeypatch):
    import core.privacy.schema_builtin as schema_module

    calls = []
    real = schema_module.draft_schema
    monkeypatch.setattr(schema_module, "draft_schema", lambda ds: calls.append(1) or real(ds))
    at = _upload(open_page("data"), GOOD_CSV)
    at.multiselect(key="data_sensitive_mine").set_value(["c"]).run()
    at.run()
    assert_clean(at)
    assert len(calls) == 1


def test_a_refused_schema_file_is_not_read_again_and_its_sentence_stays(open_page, monkeypatch):
    import dashboard.data.schema_panel as panel

    calls = []
    real = panel.parse_schema
    monkeypatch.setattr(panel, "parse_schema", lambda content: calls.append(1) or real(content))
    at = _upload(open_page("data"), GOOD_CSV)
    at.file_uploader(key=f"schema_upload_{_schema_key(at)}").set_value(
        ("x.schema.json", b"[]", "application/json")).run()
    at.run()
    assert not at.exception
    assert len(calls) == 1 and "JSON object" in at.error[0].value


def test_a_page_working_on_part_of_the_table_reads_the_reviewed_schema():
    from streamlit.testing.v1 import AppTest

    def script():
        import streamlit as st

        from core.data import load_sample
        from core.privacy.schema_draft import draft_schema
        from dashboard.shared.serving.state import set_dataset
        from dashboard.shared.serving.schemas import current_schema, set_schema

        census = load_sample("census")
        upload = census.subset(census.frame.columns)  # same table, as an upload would be
        set_dataset(upload)
        set_schema(draft_schema(upload).confirm(["age"]), upload)
        part = upload.head(100).subset(["age", "sex", "income"])
        schema = current_schema(part)
        st.text(f"{schema.names} {schema['age'].source} {schema['sex'].source}")

    at = AppTest.from_function(script).run()
    assert not at.exception
    assert at.text[0].value == "['age', 'sex', 'income'] declared read from data"


def test_an_identifier_role_read_from_the_rows_reaches_the_ledger_of_a_page():
    """Issue 36: the pages work on the table without its identifiers; the schema they read
    keeps an identifier entry read from the rows, so PublicSchema.charge says not DP."""
    from streamlit.testing.v1 import AppTest

    def script():
        from dataclasses import replace

        import streamlit as st

        from core.data import load_sample
        from core.privacy.ledger import PrivacyLedger
        from core.privacy.schema_builtin import schema_for
        from core.privacy.schema_columns import ColumnSchema
        from dashboard.shared.serving.schemas import current_schema, set_schema
        from dashboard.shared.serving.state import current_dataset, set_dataset

        census = load_sample("census").head(60)
        frame = census.frame.assign(code=[f"k{i}" for i in range(60)])
        upload = replace(census, name="upload", frame=frame, categorical=census.categorical + ("code",),
                         identifiers=("code",))
        built = schema_for(census)
        found = ColumnSchema("code", "identifier", source="read from data", note="all distinct")
        set_dataset(upload)
        set_schema(replace(built, columns=built.columns + (found,), name="upload"), upload)
        schema = current_schema(current_dataset())
        ledger = schema.charge(PrivacyLedger(), schema.features)
        st.text(f"{'code' in schema.names} {ledger.is_dp}")

    at = AppTest.from_function(script).run()
    assert not at.exception, at.exception
    assert at.text[0].value == "True False"


# --------------------------------------------------------------------------- identifiers

def _id_table() -> bytes:
    """60 rows: a shuffled pandas index with gaps, a text key, a continuous float with all
    distinct values (not an identifier), a category and a label."""
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(5)
    frame = pd.DataFrame({
        "Unnamed: 0": rng.permutation(np.arange(100))[:60],
        "code": [f"R{v:04d}" for v in rng.permutation(60)],
        "weight": rng.normal(70, 12, 60).round(3),
        "colour": rng.choice(["red", "blue"], 60),
        "y": rng.choice(["no", "yes"], 60),
    })
    return frame.to_csv(index=False).encode()


def _fitted(at):
    """The schema every page reads: the stored one with the Data page's roles and marks."""
    from dashboard.shared.serving.schemas import _fit_roles

    return _fit_roles(_schema(at), at.session_state["pux_dataset"])


def _id_line(at) -> str:
    lines = [i.value for i in at.info if "Identifier column" in i.value]
    assert len(lines) == 1, [i.value for i in at.info]
    return lines[0]


def test_identifiers_are_found_on_upload_and_named_in_one_line(open_page):
    at = _upload(open_page("data"), _id_table())
    assert_clean(at)
    line = _id_line(at)
    assert "Unnamed" in line and "'code'" in line and "weight" not in line
    assert at.session_state["pux_dataset"].identifiers == ("Unnamed: 0", "code")
    assert set(_fitted(at).identifiers) == {"Unnamed: 0", "code"}
    assert _fitted(at)["weight"].kind == "numeric"


def test_an_identifier_marked_as_data_is_kept_per_dataset(open_page):
    at = _upload(open_page("data"), _id_table())
    key = next(w.key for w in at.multiselect if w.key.startswith("data_identifiers_"))
    at.multiselect(key=key).set_value(["Unnamed: 0"]).run()  # 'code' is data after all
    assert_clean(at)
    assert at.session_state["pux_dataset"].identifiers == ("Unnamed: 0",)
    assert _fitted(at)["code"].kind == "categorical"
    at.radio(key="data_source").set_value("Built-in sample").run()
    assert at.session_state["pux_dataset"].identifiers == ()
    at.radio(key="data_source").set_value("Upload a CSV").run()
    at.switch_page("cdp/cdp_lr.py").run()
    at.switch_page("data/data.py").run()
    assert_clean(at)
    assert at.session_state["pux_dataset"].identifiers == ("Unnamed: 0",)  # the mark held
    assert at.multiselect(key=key).value == ["Unnamed: 0"]


def test_a_column_marked_as_identifier_leaves_every_page(open_page):
    at = _upload(open_page("data"), _id_table())
    at.selectbox(key="data_label_mine").set_value("y").run()
    key = next(w.key for w in at.multiselect if w.key.startswith("data_identifiers_"))
    at.multiselect(key=key).set_value(["Unnamed: 0", "code", "weight"]).run()
    assert_clean(at)
    assert "marked by you" in _id_line(at)
    entry = _fitted(at)["weight"]
    assert entry.kind == "identifier" and entry.source == "declared"
    at.switch_page("compare/compare.py").run()
    options = at.multiselect(key="cmp_sensitive").options
    assert set(options) == {"colour"}  # no identifier is offered to a method


def test_a_kind_set_to_identifier_in_the_schema_table_marks_it(open_page):
    at = _upload(open_page("data"), GOOD_CSV)
    version = at.session_state["pux_schema_version"] if "pux_schema_version" in at.session_state else 0
    key = f"schema_editor_{_schema_key(at)}_{version}"
    at.session_state[key] = {"edited_rows": {2: {"kind": "identifier"}}, "added_rows": [], "deleted_rows": []}
    at.run()
    assert_clean(at)
    assert at.session_state["pux_dataset"].identifiers == ("a", "c")


def test_a_sample_has_no_identifier_and_says_so(open_page):
    at = open_page("data")
    assert_clean(at)
    assert at.session_state["pux_dataset"].identifiers == ()
    assert any("No identifier column found" in c.value for c in at.caption)


def test_the_label_list_leaves_out_the_identifiers():
    from dashboard.data.sections import role_options

    cols = ["rownames", "id", "age", "income"]
    assert role_options(cols, ("rownames", "id")) == ["age", "income"]
    assert role_options(cols, ("rownames", "id"), keep="id") == ["id", "age", "income"]  # a role given stays
    assert role_options(cols, ("id",), keep=("id", "age")) == cols
