"""core.decide.from_configs: a page's or a comparison's settings become the solve of the same runs."""
from __future__ import annotations

import pytest

from core.bundle.page_config import PageConfig
from core.bundle.pages import cdp_lr, publishing
from core.compare.config import CompareConfig
from core.decide.config import SolveConfig
from core.decide.from_configs import solve_config_from_compare, solve_config_from_page
from core.decide.target import Target


def _page(page: str, **changes) -> PageConfig:
    settings = {"cdp_lr": cdp_lr.DEFAULTS, "publishing": publishing.DEFAULTS}[page]
    fields = dict(page=page, dataset="supplier", seed=3, label="label", sensitive=(),
                  settings={**settings, "repetitions": 2}, fingerprint="abc")
    fields.update(changes)
    return PageConfig(**fields)


def test_a_compare_config_becomes_the_solve_of_the_same_runs():
    compare = CompareConfig(dataset="census", methods=("CDP-LR", "kRR"), epsilons=(1.0, 2.0), seed=7,
                            sensitive=("sex",), repetitions=2, max_rows=400, test_size=0.3, dcr_records=50,
                            audit_runs=200, fingerprint="abc")
    solve = solve_config_from_compare(compare, "utility>=0.7", confidence=0.9)
    assert solve.page == "compare" and solve.target == Target("utility", at_least=0.7)
    assert (solve.dataset, solve.methods, solve.epsilons, solve.seed, solve.repetitions, solve.sensitive) == (
        "census", ("kRR", "CDP-LR"), (1.0, 2.0), 7, 2, ("sex",))
    assert solve.settings == {"max_rows": 400, "test_size": 0.3, "imposter_epochs": None, "audit_runs": 200,
                              "dcr_records": 50}
    assert solve.confidence == 0.9 and solve.fingerprint == "abc"
    assert SolveConfig.from_json(solve.to_json()) == solve


def test_a_compare_solve_needs_a_compare_config():
    with pytest.raises(TypeError, match="CompareConfig"):
        solve_config_from_compare(_page("cdp_lr"), "utility>=0.7")


def test_the_cdp_lr_page_becomes_the_solve_of_its_fig4_curve():
    solve = solve_config_from_page(_page("cdp_lr", settings={**cdp_lr.DEFAULTS, "repetitions": 2, "tc": 30.0}),
                                   Target("accuracy", at_least=0.6))
    assert (solve.page, solve.dataset, solve.seed, solve.repetitions) == ("cdp_lr", "supplier", 3, 2)
    assert solve.epsilons == tuple(cdp_lr.EPS_GRID) and solve.settings["tc"] == 30.0
    assert set(solve.settings) == {"noise_method", "preset", "measure", "threshold", "tc", "max_rows"}
    assert solve.label == "label" and solve.sensitive == () and solve.fingerprint == "abc"


def test_the_publishing_panels_mae_target_is_the_curves_mae():
    solve = solve_config_from_page(_page("publishing"), Target("MAE", at_most=100.0))
    assert solve.target == Target("mae", at_most=100.0)
    assert solve.settings["n_queries"] == publishing.DEFAULTS["n_queries"] and solve.repetitions == 2


@pytest.mark.parametrize("config, words", [
    (_page("cdp_lr", seed=None), "no seed"),
    (PageConfig(page="sskm", dataset="census", seed=0), "only the cdp_lr and publishing pages"),
])
def test_a_page_config_that_cannot_be_solved_is_refused_in_words(config, words):
    with pytest.raises(ValueError, match=words):
        solve_config_from_page(config, "accuracy>=0.6")


def test_settings_left_out_are_the_pages_defaults():
    solve = solve_config_from_page(_page("cdp_lr", settings={"epsilon": 1.0}), "accuracy>=0.6")
    assert solve.repetitions == cdp_lr.DEFAULTS["repetitions"] and solve.settings["tc"] == cdp_lr.DEFAULTS["tc"]


def test_a_page_solve_needs_a_page_config():
    with pytest.raises(TypeError, match="PageConfig"):
        solve_config_from_page({"page": "cdp_lr"}, "accuracy>=0.6")
