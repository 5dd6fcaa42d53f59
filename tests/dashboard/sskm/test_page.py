"""AppTest smoke tests of the SSKM_DP page on the census sample."""
from __future__ import annotations

import pandas as pd
import pytest

from tests.dashboard.conftest import assert_clean, assert_switched_to_census, finish_sweeps, dataset_state
from tests.dashboard.shared.widgets.test_chart_data import assert_every_chart_has_its_csv


@pytest.fixture
def sskm_page(open_page):
    return finish_sweeps(open_page("sskm", timeout=240))


def _charts(at):
    return at.get("plotly_chart")


def test_page_shows_grid_and_charts(sskm_page):
    at = sskm_page
    assert_clean(at)
    assert at.title[0].value == "SSKM_DP"
    assert at.multiselect(key="sskm_sensitive").value == ["sex"]  # the census sample by default
    # grid, training, MIC, epsilon curves, baselines (the sound mode's noisy map has no SFLA start)
    assert len(_charts(at)) >= 5
    assert any("Protected attributes" in m.value for m in at.markdown)
    labels = [m.label for m in at.metric]
    assert "MSE" in labels and "Record linkage" in labels


def test_sound_mode_takes_the_public_schema_and_says_what_is_private(sskm_page):
    at = sskm_page
    texts = [i.value for i in at.info] + [w.value for w in at.warning]
    assert any("public schema" in t and "1-differentially private" in t for t in texts), texts
    assert any("columns have public bounds or categories" in c.value for c in at.caption)
    assert any("evaluated on your private data, not released" in c.value for c in at.caption)
    assert any(m.label == "MSE" and "not released" in (m.help or "") for m in at.metric)


def test_every_chart_offers_its_data_as_csv(sskm_page):
    at = sskm_page
    assert_clean(at)
    assert_every_chart_has_its_csv(at)  # every tab: grid, SFLA, training, MIC, epsilon curves, baselines


def test_epsilon_and_threshold_sliders_move(sskm_page):
    at = sskm_page
    mse_before = next(m.value for m in at.metric if m.label == "MSE")
    at.select_slider(key="sskm_epsilon").set_value(0.05).run()
    assert_clean(at)
    mse_after = next(m.value for m in at.metric if m.label == "MSE")
    assert float(mse_after) > float(mse_before)
    at.slider(key="sskm_cs").set_value(0.0).run()
    assert_clean(at)
    protected = next(m.value for m in at.markdown if "Protected attributes" in m.value)
    assert protected.count("`") == 2 * len(at.multiselect(key="sskm_columns").value)


def test_grid_views_and_size_change(sskm_page):
    at = sskm_page
    at.slider(key="sskm_rows").set_value(5).run()
    at.radio(key="sskm_topology").set_value("hexagonal").run()
    for view in ("Hit map", "Released rows", "Component plane", "Sensitive share", "U-matrix"):
        at.radio(key="sskm_view").set_value(view).run()
        assert_clean(at)
    assert any(m.label == "Clusters (non-empty neurons)" and m.value.endswith("of 40") for m in at.metric)


def test_no_sensitive_attribute_gives_one_sentence(sskm_page):
    at = sskm_page
    at.multiselect(key="sskm_sensitive").set_value([]).run()
    assert not at.exception and not at.error
    assert len(at.info) == 1
    assert "sensitive" in at.info[0].value
    assert not at.get("plotly_chart")  # nothing is released until one is chosen


@pytest.mark.slow
@pytest.mark.parametrize("name", ["adult", "nltcs"])
def test_page_works_on_public_data(request, name):
    from streamlit.testing.v1 import AppTest

    from tests.dashboard.conftest import APP

    dataset = request.getfixturevalue(name)
    at = AppTest.from_file(str(APP), default_timeout=600)
    at.session_state["pux_dataset"] = dataset  # as if chosen on the Data page
    at.switch_page("sskm/sskm.py")
    at.run()
    assert_clean(at)
    assert len(_charts(at)) >= 5  # baselines are off by default on large tables
    if len(dataset.frame) > 20_000:
        at.toggle(key="sskm_run_baselines").set_value(True).run()
        assert_clean(at)
        assert len(_charts(at)) >= 6
    assert at.multiselect(key="sskm_sensitive").value == list(dataset.sensitive)


def test_sound_mode_is_the_default_and_says_dp(open_page):
    at = open_page("sskm", timeout=300)
    assert at.radio(key="sskm_mode").value == "sound"
    assert any(i.value.startswith("Sound mode") for i in at.info)


def test_paper_mode_is_labelled_not_dp_and_its_audit_finds_the_violation(open_page):
    at = open_page("sskm", timeout=300)
    at.radio(key="sskm_mode").set_value("paper").run()
    assert not at.exception
    assert any(w.value.startswith("Paper mode: not differentially private") for w in at.warning)
    at.button(key="sskm_paper_audit_run").click().run()
    assert dataset_state(at, "sskm_paper_audit_job").wait(120)
    at.run()
    assert any(e.value.startswith("VIOLATION") for e in at.error)


def test_two_downloads_add_up_in_the_session_ledger(open_page):
    from core.privacy.release_read import read_release

    at = open_page("sskm", timeout=300)
    at.button(key="sskm_prepare").click().run()
    first, _ = read_release(dataset_state(at, "sskm_prepared")["zip"])
    at.select_slider(key="sskm_epsilon").set_value(2.0).run()
    at.button(key="sskm_prepare").click().run()
    table, meta = read_release(dataset_state(at, "sskm_prepared")["zip"])
    assert meta["session_total_text"] == "epsilon = 3"
    assert "fresh operating-system entropy" in meta["noise"]
    assert not first.equals(table)
    assert "epsilon = 3 over 2 release(s)" in " ".join(c.value for c in at.sidebar.caption)


def test_a_prepared_release_is_not_offered_after_a_dataset_switch(open_page):
    from core.data import load_sample

    at = open_page("sskm", timeout=300)
    at.button(key="sskm_prepare").click().run()
    assert any("Release 1" in c.value for c in at.caption)
    at.session_state["pux_dataset"] = load_sample("census").head(1500)  # the Data page switches the table
    at.run()
    assert not any("Release 1" in c.value for c in at.caption)  # the release stays with its table
    assert "Nothing prepared yet" in " ".join(c.value for c in at.caption)


def test_reproducible_release_is_labelled_not_private(open_page):
    from core.privacy.release_read import read_release

    at = open_page("sskm", timeout=300)
    at.checkbox(key="sskm_reproducible").check().run()
    at.button(key="sskm_prepare").click().run()
    _, meta = read_release(dataset_state(at, "sskm_prepared")["zip"])
    assert meta["guarantee"].startswith("NOT PRIVATE as released")
    assert dataset_state(at, "sskm_prepared")["file_name"].endswith("-not-private-reproducible.zip")
    assert any(e.value.startswith("NOT PRIVATE") for e in at.error)


def test_bounds_editor_rows_become_public_bounds():
    import pandas as pd

    from dashboard.sskm.cached import parse_bounds

    edited = pd.DataFrame({"column": ["age", "hours"], "lo": [17, None], "hi": [90, None]}, dtype=object)
    assert parse_bounds(edited) == (("age", 17.0, 90.0),)
    with pytest.raises(ValueError, match="lo < hi"):
        parse_bounds(pd.DataFrame({"column": ["age"], "lo": [90], "hi": [17]}, dtype=object))


def test_guarantee_box_says_where_the_bounds_came_from(open_page):
    at = open_page("sskm", timeout=300)
    box = " ".join(m.value for m in at.markdown)
    assert "shipped with the dataset" in box  # the census sample's schema: bounds not read from the rows
    assert "held-out" not in box


def test_upload_without_a_sensitive_attribute_asks_for_one():
    """No silent default: the page asks, and releases once the user has chosen."""
    import dataclasses

    from streamlit.testing.v1 import AppTest

    from core.data import load_sample
    from tests.dashboard.conftest import APP

    upload = dataclasses.replace(load_sample("census"), sensitive=(), name="my upload")
    at = AppTest.from_file(str(APP), default_timeout=300)
    at.session_state["pux_dataset"] = upload
    at.switch_page("sskm/sskm.py")
    at.run()
    assert not at.exception and not at.error
    assert at.multiselect(key="sskm_sensitive").value == []
    assert any("Choose at least one sensitive attribute" in i.value and "marks none" in i.value
               for i in at.info)
    assert not at.get("plotly_chart")
    at.multiselect(key="sskm_sensitive").set_value(["sex"]).run()
    assert_clean(at)
    assert at.get("plotly_chart")


def test_releases_are_cached_by_protected_set_not_threshold(monkeypatch):
    """A CS_Tsh step that protects the same attributes recomputes nothing."""
    from core.data import load_sample
    from core.sskm.connection import ConnectionResult
    from core.sskm.paper_publisher import PaperSSKMDP
    from dashboard.sskm import cached

    frame = load_sample("census").frame[["age", "sex", "hours_per_week", "education_num"]].head(300)
    strengths = pd.DataFrame([[0.2, 1.0, 0.5, 0.1]], index=["sex"], columns=list(frame.columns))
    conn = ConnectionResult(strengths, ("sex",), 0.0, ("age", "sex", "hours_per_week", "education_num"), 300)
    pub = PaperSSKMDP(epsilon=1.0, sensitive=("sex",), rows=3, cols=3, iterations=500,
                      init="random", random_state=0).fit(frame, connections=conn)
    assert cached.protected_key(pub, 0.3) == cached.protected_key(pub, 0.45) == ("sex", "hours_per_week")
    assert cached.protected_key(pub, 0.55) == ("sex",)

    calls = []
    publish = PaperSSKMDP.publish
    monkeypatch.setattr(PaperSSKMDP, "publish", lambda self, **kw: calls.append(kw) or publish(self, **kw))
    cached._release_cached.clear()
    key = ("test-fit", 0)
    first = cached.release("fp", pub, key, 1.0, 0.3, 7)
    n = len(calls)
    again = cached.release("fp", pub, key, 1.0, 0.45, 7)  # same protected set
    assert len(calls) == n and again["mse"] == first["mse"]
    cached.release("fp", pub, key, 1.0, 0.55, 7)  # fewer protected: a new release
    assert len(calls) == n + 1
    # the curves' sweeps are keyed the same way: one finished curve serves both thresholds
    assert (cached.epsilon_curve("fp", pub, key, 0.3, (0.5, 1.0), 1, 7).key
            == cached.epsilon_curve("fp", pub, key, 0.45, (0.5, 1.0), 1, 7).key
            != cached.epsilon_curve("fp", pub, key, 0.55, (0.5, 1.0), 1, 7).key)
    assert (cached.baselines("fp", pub, key, 0.3, 1.0, (10,), 1, 7).key
            == cached.baselines("fp", pub, key, 0.45, 1.0, (10,), 1, 7).key)


def test_an_upload_without_a_sensitive_attribute_stays_and_asks(open_page):
    """The unified rule: a user's own table is never swapped for the census sample."""
    from tests.dashboard.imposter.test_page import _upload

    at = _upload(open_page("data"))
    at.switch_page("sskm/sskm.py")
    at.run()
    assert not at.exception and not at.error
    assert any(c.value.startswith("Dataset **mine**") for c in at.caption)
    assert not any("census" in c.value for c in at.caption)
    assert at.multiselect(key="sskm_sensitive").value == []
    assert any("Choose at least one sensitive attribute" in i.value and "marks none" in i.value
               for i in at.info)
    assert not at.get("plotly_chart")


def test_the_supplier_sample_switches_to_census_with_a_caption(open_page):
    at = open_page("data")  # the supplier sample: no sensitive attribute
    at.switch_page("sskm/sskm.py")
    at.run()
    assert_switched_to_census(at)
    assert at.multiselect(key="sskm_sensitive").value == ["sex"]


def test_map_views_are_built_from_the_fitted_publisher():
    import numpy as np

    from core.data import load_sample
    from core.sskm.paper_publisher import PaperSSKMDP
    from dashboard.sskm import cached

    census = load_sample("census")
    assert cached.feature_columns(census) == [c for c in census.frame.columns if c != "income"]
    columns = ("age", "sex", "hours_per_week")
    frame = census.frame[list(columns)].head(300)
    pub = PaperSSKMDP(epsilon=1.0, sensitive=("sex",), rows=3, cols=3, iterations=500,
                      init="random", random_state=0).fit(frame)
    hits, title = cached.hit_map(pub)
    assert title == "rows" and hits.shape == (3, 3)
    assert np.nansum(hits) == pub.som_.hit_map().sum() and not np.any(hits == 0)  # empty neurons are NaN
    plane, title = cached.component_plane(pub, columns, "hours_per_week")
    assert title == "hours_per_week (scaled)" and np.allclose(plane, pub.som_.component_plane(2))
    share, title, label = cached.sensitive_share(pub, "sex")
    assert title == "share" and label.startswith("sex = ")
    assert np.nanmin(share) >= 0 and np.nanmax(share) <= 1
    quality = cached.map_quality(pub)
    assert quality["clusters"] == int(np.count_nonzero(~np.isnan(hits)))
    assert quality["quantization_error"] >= 0 and 0 <= quality["topographic_error"] <= 1
    assert cached.u_matrix(pub)[1] == "mean distance"


def test_fig56_tab_waits_for_its_button_then_draws_both_figures_with_claims(sskm_page):
    """A tiny sweep (one m, two maps, one repetition) runs to its charts and the paper's claims."""
    at = sskm_page
    assert at.multiselect(key="sskm_sweep_m").value == [5, 9]  # the paper's 5 and 10; census has 9 chosen
    assert at.multiselect(key="sskm_sweep_grids").value == ["4x4", "6x6", "8x8", "10x10"]
    assert at.button(key="sskm_sweep_run")
    before = len(_charts(at))
    at.multiselect(key="sskm_sweep_m").set_value([2]).run()
    at.multiselect(key="sskm_sweep_grids").set_value(["4x4", "3x3"]).run()
    at.number_input(key="sskm_sweep_reps").set_value(1).run()
    at.number_input(key="sskm_sweep_iterations").set_value(1000).run()
    assert len(_charts(at)) == before  # nothing runs until the button is pressed
    at.button(key="sskm_sweep_run").click().run()
    finish_sweeps(at)
    assert_clean(at)
    assert_every_chart_has_its_csv(at)  # the two new charts too: titles, named axes, data
    titles = [c.proto.spec for c in _charts(at)]
    assert any("Fig. 5: Information loss (MSE) of SSKM_DP (sound mode)" in t for t in titles)
    assert any("Fig. 6: Record linkage" in t for t in titles)
    boxes = [b.value.replace("\\", "") for kind in ("success", "warning", "info") for b in getattr(at, kind)]
    for fig in ("Fig. 5", "Fig. 6"):
        box = next(b for b in boxes if f"Paper 003, {fig}" in b)
        assert "Sound mode (epsilon-DP)" in box and "*The paper:*" in box


def test_a_public_reference_table_fits_the_map(sskm_page):
    """The map choice: an uploaded reference (declared public) takes all of epsilon to the release
    and the guarantee box says the reference is public."""
    at = sskm_page
    at.radio(key="sskm_map").set_value("reference").run()
    assert_clean(at)
    assert any("Until a reference table is uploaded" in c.value for c in at.caption)


def test_reference_csv_is_read_and_checked():
    from dashboard.sskm.cached import read_reference

    frame = read_reference(b"age,sex\n30,Male\n40,Female\n")
    assert list(frame.columns) == ["age", "sex"] and len(frame) == 2
    with pytest.raises(ValueError, match="at least 2 rows"):
        read_reference(b"age,sex\n30,Male\n")


# ---------------------------------------------------------------- issue 24: references, identifiers, layout
def _sskm_on(dataset, *, present: bool = False):
    from streamlit.testing.v1 import AppTest

    from tests.dashboard.conftest import APP

    at = AppTest.from_file(str(APP), default_timeout=300)
    at.session_state["pux_dataset"] = dataset
    if present:
        at.session_state["present"] = True
    at.switch_page("sskm/sskm.py")
    at.run()
    return at


def _with_row_numbers(n: int = 240):
    """A small table with a row-number column with gaps (marked identifier), two numbers and a
    sensitive category."""
    import numpy as np

    from core.data import Dataset

    rng = np.random.default_rng(3)
    frame = pd.DataFrame({"row_id": np.sort(rng.choice(20 * n, size=n, replace=False)) + 1,
                          "age": rng.integers(18, 90, n), "hours": rng.integers(1, 80, n),
                          "sex": rng.choice(["F", "M"], n)})
    return Dataset(frame, label=None, sensitive=("sex",), numeric=("row_id", "age", "hours"),
                   categorical=("sex",), name="row numbers", identifiers=("row_id",))


def test_an_identifier_column_is_neither_offered_nor_published():
    at = _sskm_on(_with_row_numbers())
    assert_clean(at)
    box = at.multiselect(key="sskm_columns")
    assert "row_id" not in box.options and "row_id" not in box.value
    published = next(d.value for d in at.dataframe if "age" in d.value.columns)  # the published table
    assert "row_id" not in published.columns


def test_the_schema_marking_an_identifier_keeps_it_out_of_the_columns():
    from core.data import load_sample
    from core.privacy.schema_builtin import schema_for
    from core.privacy.schema_columns import ColumnSchema
    from dashboard.sskm.cached import feature_columns

    census = load_sample("census")
    schema = schema_for(census).replace_column(ColumnSchema("age", "identifier", source="declared"))
    assert "age" not in feature_columns(census, schema)
    assert "age" in feature_columns(census)


def test_epsilon_and_the_som_grid_come_first_side_by_side(sskm_page):
    import json

    at = sskm_page
    control = at.main.columns[0]
    chart = next(c for c in at.main.columns if c.get("plotly_chart"))  # the first column with a chart
    assert control.select_slider[0].key == "sskm_epsilon"
    grid = chart.get("plotly_chart")
    assert [c.key for c in grid] == ["sskm_grid_chart"]
    assert _charts(at)[0].key == "sskm_grid_chart"  # the page's first chart
    assert "SOM grid" in json.loads(grid[0].proto.spec)["layout"]["title"]["text"]
    assert {m.label for m in control.metric} >= {"MSE", "Record linkage"}
    assert at.expander  # the other settings fold away


def test_the_release_is_set_beside_the_raw_table_and_a_random_release(sskm_page):
    at = sskm_page
    table = next(d.value for d in at.dataframe if "release" in d.value.columns)
    assert list(table["release"]) == ["this release", "raw table (no protection)", "random release (no information)"]
    spec = next(c.proto.spec for c in _charts(at) if c.key == "sskm_eps_curve")
    assert "raw table (no protection)" in spec and "random release (no information)" in spec
    assert any(c.value.startswith("Raw table: MSE 0") for c in at.caption)


def test_a_release_no_better_than_random_is_said_in_words(sskm_page):
    at = sskm_page
    at.select_slider(key="sskm_epsilon").set_value(0.05).run()  # 3,000 rows, 81 numbers per neuron: noise wins
    assert_clean(at)
    mse = float(next(m.value for m in at.metric if m.label == "MSE"))
    table = next(d.value for d in at.dataframe if "release" in d.value.columns).set_index("release")
    floor = float(table.loc["random release (no information)", "MSE 95% interval"].split(" to ")[0])
    said = any("no better than a random release on utility" in w.value for w in at.warning)
    assert said == (mse >= floor)


def test_presenting_shows_the_grid_and_no_caption_points_at_a_control():
    from core.data import load_sample

    at = _sskm_on(load_sample("census"), present=True)
    assert_clean(at)
    assert any(c.key == "sskm_grid_chart" for c in _charts(at))
    hints = ("Press the button", "Pick at least", "Switch 'Compute", "review it on the Data page",
             "Until a reference", "'Initial weights' applies")
    assert not [c.value for c in at.caption if any(h in c.value for h in hints)]


def test_the_release_tab_sets_the_real_rows_against_the_release_and_the_baselines(sskm_page):
    at = sskm_page
    assert any(e.label == "Real against release" for e in at.expander)
    assert not any(c.key.startswith("sskm_rvr") for c in _charts(at))  # closed: nothing computed
    at.session_state["sskm_rvr_open"] = True
    at.run()
    assert_clean(at)
    assert {"sskm_rvr_overlay", "sskm_rvr_heatmap"} <= {c.key for c in _charts(at)}
    assert_every_chart_has_its_csv(at)
    picker = at.selectbox(key="sskm_rvr_release")
    assert picker.options[0].startswith("SSKM_DP (sound mode) at epsilon")
    assert [o.split(" ")[0] for o in picker.options[1:]] == ["MDAV", "MDAV_DP", "IDP-KMeans"]
    for option in picker.options[1:]:
        at.selectbox(key="sskm_rvr_release").set_value(option).run()
        assert_clean(at)
        shapes = next(d.value for d in at.dataframe if list(d.value.columns) == ["column", "kind", "score", "test"])
        assert shapes["score"].between(0, 1).all()


def test_a_sensitive_column_after_the_tenth_is_chosen_by_default():
    from dashboard.sskm.settings import default_attributes

    features = [f"c{i}" for i in range(14)]
    chosen = default_attributes(features, ("c12",))
    assert "c12" in chosen and len(chosen) == 10 and chosen == sorted(chosen, key=features.index)
    assert default_attributes(features[:4], ()) == features[:4]
    assert default_attributes(features, ("label_not_a_feature",)) == features[:10]


def test_the_references_say_which_attributes_and_records_they_are_measured_on(open_page):
    """Issue 39: SSKM_DP's random release (MSE 0.5965) and Compare's (0.6983) measure other
    columns and rows of one table; this page names its own: the attributes it publishes (not
    the label) of every record."""
    from core.data import load_sample

    at = open_page("sskm", timeout=300)
    assert_clean(at)
    census = load_sample("census")
    said = next(c.value for c in at.caption if c.value.startswith("Raw table: MSE 0"))
    assert (f"on the {census.frame.shape[1] - 1} attributes of {census.n_rows:,} records it publishes; "
            f"the label '{census.label}' is not among them") in said
    assert "each category uniformly over its list" in said


def test_the_published_table_holds_n_rows_and_says_the_label_is_not_in_it():
    """Issue 39: the sound release's row count was the rounded noisy counts (not n), and the
    label's absence from the released table went unsaid. n is public: exactly n rows. (The
    real-table sweep: every metric on the page has its reference, a delta or a help.)"""
    import numpy as np
    from streamlit.testing.v1 import AppTest

    from core.data.csv_loader import frame_to_dataset
    from tests.dashboard.conftest import APP

    rng = np.random.default_rng(4)
    n = 613
    frame = pd.DataFrame({"age": rng.integers(18, 80, n), "hours": rng.integers(10, 60, n),
                          "sex": rng.choice(["f", "m"], n), "job": rng.choice(["a", "b", "c"], n),
                          "paid": rng.choice(["low", "high"], n)})
    at = AppTest.from_file(str(APP), default_timeout=300)
    at.session_state["pux_dataset"] = frame_to_dataset(frame, label="paid", sensitive=["sex"], name="built")
    at.switch_page("sskm/sskm.py")
    at.run()
    assert_clean(at)
    said = next(c.value for c in at.caption if "The table above is drawn with the sidebar seed" in c.value)
    assert f"It holds exactly {n} rows, as many as the table has records: n is public" in said
    assert "the label 'paid' is not in it" in said
    assert all(m.delta or m.help for m in at.metric), [m.label for m in at.metric if not (m.delta or m.help)]


def test_other_rows_are_explained_and_mixed_columns_shown_as_text():
    """Issue 39 (the real-table sweep, NLTCS): '(other)' rows appeared in 0/1 columns with no
    word why, and a column of 0, 1 and '(other)' could not be drawn as a table (Arrow)."""
    from types import SimpleNamespace

    import numpy as np

    from dashboard.sskm.sections import published_words, shown_rows

    frame = pd.DataFrame({"x1": pd.Series([0, 1, "(other)", 0], dtype=object), "x2": [1.0, 2.0, 3.0, 4.0]})
    r = SimpleNamespace(result={"frame": frame}, dataset=SimpleNamespace(label=None),
                        pub=SimpleNamespace(table_=SimpleNamespace(X=np.zeros((4, 2)))),
                        settings=SimpleNamespace(mode="sound"))
    words = published_words(r)
    assert "'(other)' in x1: each category column keeps a cell for values outside its declared list" in words
    shown = shown_rows(frame)
    assert shown["x1"].tolist() == ["0", "1", "(other)", "0"] and shown["x2"].dtype == float
    assert "(other)" not in published_words(SimpleNamespace(**{**vars(r), "result": {"frame": frame[frame.x1 != "(other)"].head(3)}}))


def test_the_grid_title_names_the_drawn_map_not_the_sidebars():
    """In the browser on 344 penguins the title read 'SOM grid (8 x 8)' over a 2 x 2 map: the
    sound mode sizes its map from n, m and epsilon."""
    from types import SimpleNamespace

    from dashboard.sskm.sections import grid_words

    asked = SimpleNamespace(rows=8, cols=8)
    assert grid_words(SimpleNamespace(rows=2, cols=2), asked) == "2 x 2, sized from n, m and epsilon; 8 x 8 asked"
    assert grid_words(SimpleNamespace(rows=8, cols=8), asked) == "8 x 8"
