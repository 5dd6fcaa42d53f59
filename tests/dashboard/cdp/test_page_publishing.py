"""Publishing page: MAE curves, Pearson vs Mahalanobis, product columns."""
from __future__ import annotations

import pytest

from tests.dashboard.conftest import assert_clean, finish_sweeps, dataset_state
from tests.dashboard.shared.widgets.test_chart_data import assert_every_chart_has_its_csv


def test_page_draws_the_mae_curves(open_page):
    at = finish_sweeps(open_page("publishing", timeout=300))
    assert_clean(at)
    assert len(at.get("plotly_chart")) == 1


def test_every_chart_offers_its_data_as_csv(open_page):
    at = finish_sweeps(open_page("publishing", timeout=300))  # the curves of the test above
    assert_clean(at)
    assert_every_chart_has_its_csv(at)  # the MAE curves


def test_both_measures_and_without_products(open_page):
    at = open_page("publishing", timeout=300)
    at.slider(key="pub_reps").set_value(2).run()
    at.radio(key="pub_measure").set_value("both").run()
    finish_sweeps(at)
    assert_clean(at)
    spec = at.get("plotly_chart")[0].proto.spec
    assert "Proposed (mahalanobis)" in spec and "Proposed (pearson)" in spec
    at.toggle(key="pub_products").set_value(False).run()
    finish_sweeps(at)
    assert_clean(at)


@pytest.mark.slow
def test_page_works_on_adult(open_page_on_public, data_dir):
    at = finish_sweeps(open_page_on_public("adult", "publishing", data_dir))
    assert_clean(at)
    assert at.get("plotly_chart")


def test_per_query_budget_shows_the_total_of_all_queries(open_page):
    at = open_page("publishing", timeout=300)
    at.slider(key="pub_queries").set_value(100).run()
    metric = next(m for m in at.metric if m.label.startswith("Guarantee of one release"))
    assert metric.value == "epsilon = 100"  # 100 queries at epsilon 1 each
    at.radio(key="pub_budget").set_value("total").run()
    metric = next(m for m in at.metric if m.label.startswith("Guarantee of one release"))
    assert metric.value == "epsilon = 1"


def test_the_papers_schemes_say_they_are_not_dp_beside_the_dp_reading(open_page):
    at = open_page("publishing", timeout=300)
    metric = next(m for m in at.metric if m.label.startswith("Guarantee of one release"))
    assert metric.value.startswith("epsilon")  # the DP reading, shown first
    at.radio(key="pub_scheme").set_value("Proposed").run()
    metric = next(m for m in at.metric if m.label.startswith("Guarantee of one release"))
    assert metric.value == "not differentially private"
    assert any("computed from your records" in w.value for w in at.warning)


def test_the_schema_follows_the_queried_table():
    from core.data import load_sample
    from core.privacy.schema_builtin import schema_for
    from dashboard.cdp import cached

    supplier = load_sample("supplier")
    without = cached.publishing_data(supplier, False, 0)
    sub = cached.schema_subset(schema_for(supplier), without)
    assert sub.names == list(without.frame.columns)
    assert sub.max_group_size == 45 and sub.label == supplier.label


def test_publishing_audit_finds_no_violation(open_page):
    at = open_page("publishing", timeout=300)
    at.button(key="pub_audit_run").click().run()
    assert dataset_state(at, "pub_audit_job").wait(120)
    at.run()
    assert not at.exception
    assert any(s.value.startswith("No violation") for s in at.success)
    assert_every_chart_has_its_csv(at)  # the audit's chart too


def _unlabelled(name: str = "my upload"):
    import dataclasses

    from core.data import load_sample

    return dataclasses.replace(load_sample("supplier"), label=None, name=name)


def test_no_label_error_says_what_publishing_needs():
    from streamlit.testing.v1 import AppTest

    from tests.dashboard.conftest import APP

    at = AppTest.from_file(str(APP), default_timeout=120)
    at.session_state["pux_dataset"] = _unlabelled()
    at.switch_page("cdp/publishing.py")
    at.run()
    assert not at.exception
    assert len(at.warning) == 1 and not at.error  # a step for the user, not a failure
    message = at.warning[0].value
    assert "Publishing" in message and "label" in message and "DC-FBFS" not in message


def test_dataset_name_is_shown_as_text_not_markdown():
    from streamlit.testing.v1 import AppTest

    from tests.dashboard.conftest import APP

    import dataclasses

    at = AppTest.from_file(str(APP), default_timeout=300)
    data = _unlabelled("**bold** [x](http://example.com)")
    at.session_state["pux_dataset"] = dataclasses.replace(data, label="listed")
    at.switch_page("cdp/publishing.py")
    at.run()
    captions = " ".join(c.value for c in at.caption)
    assert "\\*\\*bold\\*\\* \\[x\\]" in captions


def test_the_queried_table_is_built_outside_the_page():
    from core.data import load_sample
    from dashboard.cdp import cached

    supplier = load_sample("supplier")
    products = cached.product_columns(supplier)
    assert products and all(c.startswith("product_") for c in products)
    assert cached.product_columns(load_sample("census")) == []
    full = cached.publishing_data(supplier, True, 0)
    assert list(full.frame.columns) == list(supplier.frame.columns) and full.n_rows == supplier.n_rows
    without = cached.publishing_data(supplier, False, 0)
    assert list(without.frame.columns) == [c for c in supplier.frame.columns if c not in products]
    assert without.label == supplier.label
    assert cached.publishing_data(supplier, True, 0, max_rows=100).n_rows == 100


def _claim(at, label: str):
    return next(e for kind in ("success", "warning", "info") for e in getattr(at, kind)
                if e.value.startswith(f"**Paper 000, {label} ·"))


def test_fig6_judged_and_fig7_fig8_say_what_to_do(open_page):
    at = finish_sweeps(open_page("publishing", timeout=300))
    assert_clean(at)
    assert "Proposed" in _claim(at, r"Fig\. 6").value
    assert "both" in _claim(at, r"Fig\. 8").value and _claim(at, r"Fig\. 8") in at.info
    assert "Compare with and without" in _claim(at, r"Fig\. 7").value


def test_fig7_and_fig8_are_judged_when_asked(open_page):
    at = open_page("publishing", timeout=300)
    at.slider(key="pub_reps").set_value(2).run()
    at.radio(key="pub_measure").set_value("both").run()
    at.toggle(key="pub_fig7").set_value(True).run()
    finish_sweeps(at)
    assert_clean(at)
    assert _claim(at, r"Fig\. 8") not in at.info and _claim(at, r"Fig\. 7") not in at.info
    assert any("(Fig. 7)" in c.proto.spec for c in at.get("plotly_chart"))  # long titles wrap at a space


# --- references: the MAE beside the true count and a release without noise ----------------

def _on_skewed(*, present: bool = False):
    from streamlit.testing.v1 import AppTest

    from tests.dashboard.conftest import APP
    from tests.dashboard.skewed_table import skewed_dataset

    at = AppTest.from_file(str(APP), default_timeout=300)
    at.session_state["pux_dataset"] = skewed_dataset()
    if present:
        at.session_state["present"] = True
    at.switch_page("cdp/publishing.py")
    at.run()
    at.slider(key="pub_reps").set_value(2).run()
    return finish_sweeps(at)


def test_the_mae_is_read_against_the_mean_true_count_and_a_zero_noise_release():
    at = _on_skewed()
    assert_clean(at)
    labels = {m.label: m for m in at.metric}
    true = labels["Mean true count of the queries"]
    assert "over 200 queries on 300 records" in true.proto.delta
    reading = next(m for m in at.metric if m.label.startswith("MAE of DP reading at epsilon = 1"))
    assert reading.proto.delta.endswith("% of the mean true count")
    assert "Zero-noise release of DP reading" in labels  # it keeps every attribute: 0
    assert labels["Zero-noise release of DP reading"].value == "0"


def test_the_mae_chart_draws_the_mean_true_count_and_the_epsilon_marker():
    import json

    at = _on_skewed()
    spec = json.loads(next(c.proto.spec for c in at.get("plotly_chart") if c.key == "pub_curve"))
    names = [t.get("name") for t in spec["data"]]
    assert "mean true count" in names
    assert any(a.get("text") == "epsilon = 1" for a in spec["layout"]["annotations"])


def test_the_fig6_verdict_gives_the_mae_as_a_share_of_the_true_count():
    at = _on_skewed()
    fig6 = next(e.value for e in [*at.success, *at.warning, *at.info] if e.value.startswith("**Paper 000, Fig\\. 6"))
    assert "of the mean true count" in fig6


def test_epsilon_and_the_mae_chart_come_first_side_by_side():
    """Chart first: the page's first columns hold the epsilon slider and the MAE chart."""
    at = _on_skewed()
    first = at.main.columns[0], at.main.columns[1]
    assert [s.key for s in first[0].select_slider] == ["pub_epsilon"]
    assert [c.key for c in first[1].get("plotly_chart")] == ["pub_curve"]


def test_presenting_shows_the_chart_and_no_caption_that_points_at_a_control():
    at = _on_skewed(present=True)
    assert_clean(at)
    assert any(c.key == "pub_curve" for c in at.get("plotly_chart"))
    captions = " ".join(c.value for c in at.caption)
    assert "Move epsilon" not in captions
    fig8 = next(e.value for e in at.info if e.value.startswith("**Paper 000, Fig\\. 8"))
    assert "Choose" not in fig8 and "above" not in fig8


def test_an_error_as_large_as_the_answers_is_said_in_words():
    at = _on_skewed()
    at.select_slider(key="pub_epsilon").set_value(0.1).run()
    assert_clean(at)
    warning = next(w.value for w in at.warning if w.value.startswith("At epsilon = 0.1 the error of"))
    assert "Group" in warning and "mean true count" in warning


# --- solve for epsilon: a target MAE, each scheme's epsilon, marked on Fig. 6 ----------------

def _solve_rows(at):
    return next(d.value for d in at.dataframe if "meets the target" in d.value.columns).set_index("method")


def _solved(open_page, target: float = 100.0):
    at = open_page("publishing", timeout=300)
    at.slider(key="pub_reps").set_value(2).run()
    finish_sweeps(at)
    at.number_input(key="pub_solve_target_mae").set_value(target).run()
    assert_clean(at)
    return at


def test_the_solve_panel_marks_fig6_and_use_this_epsilon_marks_the_release(open_page):
    import json

    from core.decide.selection import PRIVATE_CHOICE_NOTE
    from dashboard.cdp.publishing_panels import EPS_GRID
    from dashboard.shared.safe import md
    from dashboard.shared.solve.solve_panel import snap_up

    at = _solved(open_page)
    rows = _solve_rows(at)
    assert {"Group", "Zhang", "Proposed", "DP reading"} <= set(rows.index)
    assert any(w.value == md(PRIVATE_CHOICE_NOTE) for w in at.warning)
    spec = json.loads(next(c.proto.spec for c in at.get("plotly_chart") if c.key == "pub_curve"))
    assert any(str(t.get("name")).startswith("DP reading: solved epsilon") for t in spec["data"])
    assert any(a.get("text") == "target: MAE at most 100" for a in spec["layout"]["annotations"])
    at.button(key="pub_solve_use").click().run()
    assert_clean(at)
    assert at.select_slider(key="pub_epsilon").value == snap_up(rows.loc["DP reading", "epsilon"], EPS_GRID)
    metric = next(m for m in at.metric if m.label.startswith("Guarantee of one release"))
    assert metric.value == "not differentially private"  # chosen on the private data


def test_the_pages_solved_epsilon_is_pux_solves_on_the_solve_json_it_hands_out(open_page, downloads):
    import math

    from core.decide.config import SolveConfig
    from core.decide.run import run_solve

    at = _solved(open_page)
    rows = _solve_rows(at)
    solve = SolveConfig.from_json(downloads(at, "pub_solve_config").decode("utf-8"))
    assert solve.page == "publishing" and solve.target.describe() == "MAE at most 100"
    cli = {m["method"]: m["epsilon"] for m in run_solve(solve)["methods"]}
    assert list(cli) == list(rows.index)
    for method, epsilon in cli.items():
        page = rows.loc[method, "epsilon"]
        assert (epsilon is None and math.isnan(page)) or epsilon == page, method


def test_private_selection_counts_what_the_whole_release_spends(open_page):
    at = _solved(open_page)
    at.radio(key="pub_solve_source").set_value("selection").run()
    assert_clean(at)
    cost = next(m for m in at.metric if m.label == "Cost of the choice")
    assert cost.value == "epsilon = 1.2e+03"  # 3 x 200 queries x the largest per-query candidate, 2
    at.radio(key="pub_budget").set_value("total").run()
    finish_sweeps(at)  # the curve of the other reading of epsilon
    cost = next(m for m in at.metric if m.label == "Cost of the choice")
    assert cost.value == "epsilon = 6"


def test_a_public_reference_table_is_solved_on_with_the_pages_own_sweep(open_page):
    from core.data import load_sample

    at = _solved(open_page)
    at.session_state["pub_solve_reference"] = ("test", load_sample("supplier").sample(600, random_state=1))
    at.radio(key="pub_solve_source").set_value("reference").run()
    finish_sweeps(at)
    assert_clean(at)
    assert any(s.value.startswith("Solved on the public reference table") for s in at.success)
    assert "DP reading" in _solve_rows(at).index


def test_the_audit_text_names_the_runs_its_control_holds(open_page):
    """Issue 39: the text named 1,000 runs (ceiling 4.9) beside a control at 2,000."""
    from core.audit.bounds import audit_ceiling

    at = open_page("publishing", timeout=300)

    def said() -> str:
        return next(c.value for c in at.caption if "runs per side" in c.value)

    runs = at.select_slider(key="pub_audit_runs").value
    assert runs == 2000 and f"({audit_ceiling(2000):.2g} with 2,000 runs per side)" in said()
    at.select_slider(key="pub_audit_runs").set_value(500).run()
    assert f"({audit_ceiling(500):.2g} with 500 runs per side)" in said() and "2,000" not in said()
