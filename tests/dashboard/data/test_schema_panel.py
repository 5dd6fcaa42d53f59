"""AppTest of the Data page's schema panel: drafts that do not invite a leak."""
from __future__ import annotations

from tests.dashboard.conftest import assert_clean
from tests.dashboard.data.test_page import _button, _schema, _schema_key, _upload

#: x: 0.25 .. 79.5 (exact extremes never shown); c: "Zell" held by 2 records (rare)
RARE_CSV = ("x,c\n" + "".join(f"{0.25 + i * 2.45 if i < 30 else 79.5},{'Zell' if i < 2 else 'uv'[i % 2]}\n"
                              for i in range(40))).encode()


def _texts(at) -> str:
    return " ".join(e.value for kind in (at.info, at.warning, at.success, at.caption, at.markdown)
                    for e in kind)


def test_the_page_shows_no_exact_extreme_of_a_drafted_number(open_page):
    at = _upload(open_page("data"), RARE_CSV)
    assert_clean(at)
    row = at.data_editor[0].value.set_index("column").loc["x"]
    assert row[["lower", "upper"]].isna().all()
    assert "79.5" not in _texts(at) and "0.25" not in _texts(at)
    assert any("No public range yet for 'x'" in i.value for i in at.info)


def test_the_rare_values_are_shown_to_the_curator_and_left_out_of_a_bulk_confirm(open_page):
    at = _upload(open_page("data"), RARE_CSV)
    assert any("'c' holds values" in w.value and "Zell" in w.value for w in at.warning)
    _button(at, "Confirm as public knowledge").click().run()
    assert_clean(at)
    assert _schema(at).read_from_data() == ["x", "c"]
    assert any("2 left out" in i.value and "Zell" not in i.value for i in at.info)


def test_a_chosen_rare_list_is_declared_once_the_box_is_ticked(open_page):
    at = _upload(open_page("data"), RARE_CSV)
    key = _schema_key(at)
    at.multiselect(key=f"schema_columns_{key}").set_value(["c"]).run()
    _button(at, "Confirm as public knowledge").click().run()
    assert _schema(at)["c"].source == "read from data"
    at.multiselect(key=f"schema_columns_{key}").set_value(["c"]).run()
    at.checkbox(key=f"schema_rare_ok_{key}").check().run()
    _button(at, "Confirm as public knowledge").click().run()
    assert_clean(at)
    assert _schema(at)["c"].source == "declared"


def test_editing_another_cell_keeps_the_drafted_number(open_page):
    at = _upload(open_page("data"), RARE_CSV)
    version = at.session_state["pux_schema_version"] if "pux_schema_version" in at.session_state else 0
    key = f"schema_editor_{_schema_key(at)}_{version}"
    at.session_state[key] = {"edited_rows": {1: {"categories": "u, v, Zell"}}, "added_rows": [],
                             "deleted_rows": []}
    at.run()
    assert_clean(at)
    schema = _schema(at)
    assert schema["c"].source == "declared" and schema.read_from_data() == ["x"]


def _count(texts, noun: str) -> tuple[int, int]:
    """(read, of) from the first 'X of Y <noun>' among ``texts``."""
    import re

    found = [m for t in texts if (m := re.search(rf"(\d+) of (\d+) {noun}", t.replace("\\", "")))]
    assert found, texts
    return int(found[0].group(1)), int(found[0].group(2))


def test_compare_counts_the_entries_the_data_page_counts_with_a_marked_identifier(open_page):
    """Issue 39: with a column the user marked as an identifier on a drafted schema, the Data page
    counted '4 of 5 entries' and Compare '4 of 4 columns' (its schema came from the stored draft,
    where the column is a feature, and so left the identifier's entry out)."""
    from dashboard.navigation import page_file
    from dashboard.shared.serving.schemas import identifiers_widget_key

    rows = "".join(f"C{i % 40},{20 + (i * 7) % 30},{'AB'[i % 2]}town,{'yes' if i % 3 else 'no'},"
                   f"{'FM'[i % 2 if i % 5 else 0]}\n" for i in range(60))
    at = _upload(open_page("data"), ("code,age,city,smoker,sex\n" + rows).encode(), "people.csv")
    name = at.session_state["pux_dataset"].name
    at.selectbox(key=f"data_label_{name}").set_value("smoker").run()
    at.multiselect(key=f"data_sensitive_{name}").set_value(["sex"]).run()
    at.multiselect(key=identifiers_widget_key(at.session_state["pux_dataset"])).set_value(["code"]).run()
    assert_clean(at)
    assert at.session_state["pux_dataset"].identifiers == ("code",)
    on_data = _count([w.value for w in at.warning], "entries")
    at.switch_page(page_file("compare"))
    at.run()
    assert not at.exception
    assert _count([w.value for w in at.warning], "columns") == on_data == (4, 5)
