"""Settings that survive navigation and live in the URL (dashboard.shared.widgets.settings)."""
from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from dashboard.navigation import page_file

from dashboard.shared.widgets.settings import PAGE_SETTINGS, Setting, parse_params, url_params
from tests.dashboard.conftest import APP, assert_clean

#: one setting per page to move, and a value other than its default
MOVES = {
    "correlations": ("corr_n", 300),
    "dc_fbfs": ("fb_threshold", 0.6),
    "cdp_lr": ("lr_eps", 4.0),
    "publishing": ("pub_queries", 100),
    "imposter": ("imposter_beta", 0.5),
    "sskm": ("sskm_rows", 5),
    "compare": ("cmp_reps", 2),
    "tour": ("tour_large", True),
}


def _widget(at: AppTest, key: str):
    for kind in ("slider", "number_input", "select_slider", "selectbox", "radio", "multiselect",
                 "toggle", "checkbox"):
        found = [w for w in at.get(kind) if getattr(w, "key", None) == key]
        if found:
            return found[0]
    return None


def test_a_number_outside_its_bounds_is_refused():
    with pytest.raises(ValueError, match="must lie in"):
        Setting("lr_eps", "float", 0.1, 10.0).parse(["99"])


def test_a_flag_reads_only_true_or_false():
    assert Setting("lr_methods", "bool").parse(["true"]) is True
    with pytest.raises(ValueError, match="true or false"):
        Setting("lr_methods", "bool").parse(["yes"])


def test_url_drops_the_page_prefix_and_reads_back():
    state = {"lr_eps": 2.5, "lr_methods": True, "lr_reps": 3, "other": 1}
    params = url_params("cdp_lr", state, seed=7, data=("census", "income", ("sex",)))
    assert params["eps"] == "2.5" and params["methods"] == "true" and "other" not in params
    assert params["data"] == "census" and params["sensitive"] == ["sex"] and params["seed"] == "7"
    assert url_params("cdp_lr", {}, data=("census", None, ()))["sensitive"] == [""]  # none, said
    as_lists = {k: v if isinstance(v, list) else [v] for k, v in params.items()}
    values, ignored = parse_params("cdp_lr", as_lists)
    assert values == {"lr_eps": 2.5, "lr_methods": True, "lr_reps": 3} and ignored == []


def test_wrong_values_in_a_link_are_named_and_ignored():
    values, ignored = parse_params("cdp_lr", {"eps": ["nan"], "reps": ["two"], "method": ["3"]})
    assert values == {"lr_method": 3} and sorted(ignored) == ["eps", "reps"]


def test_a_link_reopens_the_view_with_its_dataset_seed_and_settings():
    at = AppTest.from_file(str(APP), default_timeout=120)
    for name, value in {"eps": "3.5", "reps": "2", "seed": "7", "data": "census", "label": "income"}.items():
        at.query_params[name] = value
    at.switch_page("cdp/cdp_lr.py")
    at.run()
    assert_clean(at)
    assert at.slider(key="lr_eps").value == 3.5 and at.slider(key="lr_reps").value == 2
    assert at.session_state["pux_seed"] == 7
    dataset = at.session_state["pux_dataset"]
    assert dataset.name == "census" and dataset.label == "income"
    assert dataset.sensitive == ("sex",)  # the link names no sensitive roles: the sample's own
    assert at.query_params["eps"] == "3.5"


def test_a_link_with_a_wrong_value_keeps_the_default_and_says_so():
    at = AppTest.from_file(str(APP), default_timeout=120)
    at.query_params["eps"] = "99"
    at.switch_page("cdp/cdp_lr.py")
    at.run()
    assert_clean(at)
    assert at.slider(key="lr_eps").value == 2.0
    assert any("eps" in t.value for t in at.toast)


def test_an_upload_is_never_named_in_the_url(open_page):
    at = open_page("data")
    assert at.query_params["data"] == "supplier"  # the sample in use can be linked
    at.radio(key="data_source").set_value("Upload a CSV").run()
    at.run()  # the URL follows on the run after a change made by a widget
    assert "data" not in at.query_params


@pytest.mark.parametrize("page", sorted(MOVES))
def test_page_settings_survive_navigation_and_match_the_widgets(open_page, page):
    at = open_page(page, timeout=300)
    assert_clean(at)
    for setting in PAGE_SETTINGS[page]:  # the registry's bounds are the widgets' bounds
        widget = _widget(at, setting.key)
        bounded = widget is not None and type(widget).__name__ in ("Slider", "NumberInput")
        if bounded and setting.lo is not None:
            assert (float(widget.min), float(widget.max)) == (setting.lo, setting.hi), setting.key
    key, value = MOVES[page]
    _widget(at, key).set_value(value).run()
    at.switch_page("data/data.py")
    at.run()
    assert key not in at.session_state or at.session_state[key] == value
    at.switch_page(page_file(page))
    at.run()
    assert_clean(at)
    assert _widget(at, key).value == value


def test_a_link_that_names_no_sensitive_attribute_chooses_none():
    at = AppTest.from_file(str(APP), default_timeout=120)
    at.query_params["data"] = "census"
    at.query_params["sensitive"] = ""
    at.switch_page("cdp/cdp_lr.py")
    at.run()
    assert_clean(at)
    assert at.session_state["pux_dataset"].sensitive == ()


# --------------------------------------------------------------------------- one dataset, one state

def test_another_dataset_drops_every_column_setting_and_keeps_the_rest():
    from dashboard.shared.widgets.settings import DATASET_SEEN, settle_dataset

    state = {DATASET_SEEN: "A", "imposter_sensitive": "sex", "sskm_columns": ["age", "sex"],
             "imposter_implicit_sex_0.1": ["age"], "lr_eps": 2.0, "data_dist_col_t": "age"}
    kept = dict(state)
    del kept[DATASET_SEEN]
    dropped = settle_dataset(state, kept, "B", ["colour", "y"])
    assert set(dropped) == {"imposter_sensitive", "sskm_columns", "imposter_implicit_sex_0.1", "data_dist_col_t"}
    assert state == {DATASET_SEEN: "B", "lr_eps": 2.0} and kept == {"lr_eps": 2.0}


def test_the_same_dataset_keeps_a_page_override():
    from dashboard.shared.widgets.settings import DATASET_SEEN, settle_dataset

    state = {DATASET_SEEN: "A", "imposter_sensitive": "race", "data_dist_col_t": "age"}
    assert settle_dataset(state, {}, "A", ["age", "race"]) == []
    assert state["imposter_sensitive"] == "race"


def test_a_links_first_run_keeps_its_column_settings():
    from dashboard.shared.widgets.settings import DATASET_SEEN, settle_dataset

    state = {"imposter_sensitive": "race"}
    assert settle_dataset(state, {}, "A", ["race"], reset=False) == []
    assert state == {DATASET_SEEN: "A", "imposter_sensitive": "race"}


def test_every_setting_that_names_columns_is_marked():
    from dashboard.shared.widgets.settings import COLUMN_SETTINGS

    assert {"imposter_sensitive", "imposter_label", "sskm_columns", "sskm_sensitive", "sskm_component",
            "sskm_share_attr", "cmp_sensitive"} <= COLUMN_SETTINGS
    assert "lr_eps" not in COLUMN_SETTINGS


def test_results_are_kept_per_dataset():
    from core.data import load_sample
    from dashboard.shared.serving.state import results_for, scoped_key

    census, supplier = load_sample("census"), load_sample("supplier")
    results_for(census)["curve"] = "census result"
    assert "curve" not in results_for(supplier)
    assert results_for(census)["curve"] == "census result"
    assert scoped_key("job", census, s="sex") != scoped_key("job", supplier, s="sex")
    assert scoped_key("job", census, s="sex") != scoped_key("job", census, s="race")
    assert scoped_key("job", census, s="sex") == scoped_key("job", census, s="sex")


#: dataset B: other columns than census (a row number, a colour, a size and a label)
B_CSV = ("n,colour,size,grp\n" + "".join(
    f"{i},{'rgb'[i % 3]},{(i * 7) % 11},{'ab'[(i // 2) % 2]}\n" for i in range(60))).encode()


def test_switching_dataset_leaves_no_setting_of_the_old_one(open_page):
    at = open_page("data")
    at.selectbox(key="data_sample").set_value("census").run()  # dataset A, sensitive sex
    at.switch_page("compare/compare.py").run()
    at.multiselect(key="cmp_sensitive").set_value(["sex", "age"]).run()  # the page's own override
    at.session_state["imposter_sensitive"] = "sex"  # as the IMPOSTER page leaves it
    at.session_state["sskm_columns"] = ["age", "sex"]
    at.switch_page("data/data.py").run()
    at.switch_page("compare/compare.py").run()
    assert at.multiselect(key="cmp_sensitive").value == ["sex", "age"]  # same dataset: kept
    at.switch_page("data/data.py").run()
    at.radio(key="data_source").set_value("Upload a CSV").run()  # dataset B
    at.file_uploader(key="data_upload").set_value(("b.csv", B_CSV, "text/csv")).run()
    at.selectbox(key="data_label_b").set_value("grp").run()
    at.multiselect(key="data_sensitive_b").set_value(["colour"]).run()
    assert at.session_state["pux_dataset"].identifiers == ("n",)
    at.switch_page("compare/compare.py").run()
    assert_clean(at)
    assert at.multiselect(key="cmp_sensitive").value == ["colour"]  # B's Data page marks
    assert "n" not in at.multiselect(key="cmp_sensitive").options
    kept = at.session_state["pux_kept_settings"]
    for key in ("imposter_sensitive", "sskm_columns"):
        assert key not in at.session_state and key not in kept


def test_a_page_override_of_the_roles_is_said_in_words():
    from core.data import load_sample
    from dashboard.shared.serving.state import role_override_text

    census = load_sample("census")  # label income, sensitive sex
    assert role_override_text(census, label="income", sensitive=["sex"]) is None
    text = role_override_text(census, sensitive="race")
    assert "sensitive 'race' (the Data page marks 'sex')" in text
    assert "label" not in text.split(";")[0]
