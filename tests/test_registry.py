"""Every method the app offers has a page, a reproduction, a ledger and an audit case.

One row of :data:`METHODS` per paper package ``core/<paper>``: the pages that show it
(``dashboard/<feature>/page*.py``, listed in ``dashboard/navigation.py``), the estimator
whose fit (and publish) leaves a :class:`core.privacy.ledger.PrivacyLedger` in ``ledger_``,
and the audit-case builders of :mod:`core.audit_cases` that the page's "Privacy audit"
panel runs. Reproductions are found through :func:`core.papers.reproductions.reproductions`. Adding a
paper, a page or an audit case without its row makes a test here fail (see
docs/newcomers.md). Fast: tiny fits only, no page is run.
"""
from __future__ import annotations

import ast
import importlib
import inspect
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[1]


# ------------------------------------------------------------------ tiny fits, one per paper
def _rng():
    return np.random.default_rng(0)


def _fit_cdp() -> Any:
    from core.cdp import CDPLogisticRegression

    X = _rng().normal(size=(40, 3))
    y = (X[:, 0] > 0).astype(int)
    return CDPLogisticRegression(epsilon=1.0, noise_method=1, sensitivity=1.0, epochs=1,
                                 random_state=0).fit(X, y)


def _fit_imposter() -> Any:
    from core.imposter import ImposterSynthesizer

    rng = _rng()
    frame = pd.DataFrame({"a": rng.choice(["x", "y"], 40), "b": rng.normal(size=40),
                          "s": rng.choice(["m", "f"], 40)})
    return ImposterSynthesizer(epochs=1, batch_size=20, latent_dim=4, hidden=(8,), disc_hidden=(8,),
                               random_state=0).fit(frame, sensitive="s", implicit=["a"])


def _sskm_frame() -> pd.DataFrame:
    rng = _rng()
    return pd.DataFrame({"age": rng.normal(40, 10, 40), "hours": rng.normal(40, 5, 40),
                         "sex": rng.integers(0, 2, 40).astype(float)})


def _fit_sskm() -> Any:
    from core.privacy.schema import PublicSchema
    from core.privacy.schema_columns import ColumnSchema
    from core.sskm import SSKMDP

    schema = PublicSchema((ColumnSchema("age", "numeric", lower=0, upper=100), ColumnSchema("hours", "numeric", lower=0,
                           upper=100), ColumnSchema("sex", "categorical", categories=(0.0, 1.0))), sensitive=("sex",))
    pub = SSKMDP(epsilon=1.0, sensitive=("sex",), rows=2, cols=2, init="random", iterations=1000, schema=schema,
                 random_state=0).fit(_sskm_frame())
    pub.publish(random_state=0)  # the ledger is the release's
    return pub


# ------------------------------------------------------------------ the registry
@dataclass(frozen=True)
class Method:
    """What one paper package brings to the app.

    views : the pages (names in :data:`dashboard.navigation.PAGES`) that show the paper.
    estimator : the public name (in ``core.<paper>.__all__``) whose fit leaves ``ledger_``.
    fit : a tiny fit (and publish) of that estimator; returns the fitted object.
    is_dp : what that tiny fit's ledger says (``PrivacyLedger.is_dp``).
    audit_cases : names of builders in :mod:`core.audit_cases` for the paper's mechanisms.
    """

    views: tuple[str, ...]
    estimator: str
    fit: Callable[[], Any]
    is_dp: bool
    audit_cases: tuple[str, ...]


METHODS: dict[str, Method] = {
    "cdp": Method(views=("correlations", "dc_fbfs", "cdp_lr", "publishing"),
                  estimator="CDPLogisticRegression", fit=_fit_cdp, is_dp=True,
                  audit_cases=("cdp_lr_case", "count_query_case", "dpsgd_case")),
    "imposter": Method(views=("imposter",), estimator="ImposterSynthesizer", fit=_fit_imposter,
                       is_dp=False, audit_cases=("krr_case",)),
    "sskm": Method(views=("sskm",), estimator="SSKMDP", fit=_fit_sskm, is_dp=True,
                   audit_cases=("sskm_sound_case", "sskm_paper_case")),
}
#: pages that show no paper's method
SHARED_VIEWS = ("data", "tour", "compare")  # the data page, the guided tour, the page that compares every method

REPRODUCTION_KWARGS = {"data_dir", "quick", "random_state", "progress"}


# ------------------------------------------------------------------ helpers
def _navigation() -> dict[str, list[str]]:
    """The app's navigation (:mod:`dashboard.navigation`, which dashboard/app.py registers):
    {section: [page name, ...]}."""
    from dashboard.navigation import SECTIONS

    return {section: [spec.name for spec in specs] for section, specs in SECTIONS.items()}


def _nav_views() -> list[str]:
    return [v for views in _navigation().values() for v in views]


def _imported_names(path: Path) -> set[str]:
    """Every ``module.name`` that ``from module import name`` in ``path`` brings in."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {f"{n.module}.{a.name}" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module
            for a in n.names}


# ------------------------------------------------------------------ every paper package has a row
def test_every_paper_package_has_a_row():
    packages = {p.parent.name for p in (ROOT / "core").glob("*/reproduce.py")}
    assert packages == set(METHODS)


def test_every_page_in_the_navigation_shows_a_method_or_is_shared():
    claimed = [v for m in METHODS.values() for v in m.views] + list(SHARED_VIEWS)
    assert sorted(_nav_views()) == sorted(claimed)


def test_every_page_file_is_in_the_navigation():
    from dashboard.navigation import PAGES

    for spec in PAGES.values():
        assert (ROOT / "dashboard" / spec.file).is_file(), spec.file
        assert Path(spec.file).stem == spec.name, f"{spec.file}: a page's file is named for its address"


# ------------------------------------------------------------------ per paper
@pytest.mark.parametrize("paper", sorted(METHODS))
def test_paper_has_pages_in_the_navigation(paper):
    nav = _nav_views()
    for view in METHODS[paper].views:
        assert view in nav, f"page {view!r} is not listed in dashboard/navigation.py's SECTIONS"
        from dashboard.navigation import page_file

        assert (ROOT / "dashboard" / page_file(view)).is_file(), view


@pytest.mark.parametrize("paper", sorted(METHODS))
def test_paper_has_a_registered_reproduction(paper):
    from core.papers.reproductions import REPRODUCTION_MODULES, reproductions

    module = f"core.{paper}.reproduce"
    assert module in REPRODUCTION_MODULES, f"add {module} to core/papers/reproductions.py's REPRODUCTION_MODULES"
    own = importlib.import_module(module).REPRODUCTIONS
    assert own, f"{module}.REPRODUCTIONS is empty"
    registry = reproductions()
    for name, fn in own.items():
        assert registry.get(name) is fn, f"'{name}' is not reachable through `pux reproduce`"
        params = set(inspect.signature(fn).parameters)
        assert REPRODUCTION_KWARGS <= params, f"{name} lacks {sorted(REPRODUCTION_KWARGS - params)}"


@pytest.mark.parametrize("paper", sorted(METHODS))
def test_paper_estimator_leaves_a_privacy_ledger(paper):
    from core.privacy.ledger import PrivacyLedger

    method = METHODS[paper]
    package = importlib.import_module(f"core.{paper}")
    assert method.estimator in package.__all__, f"core.{paper} does not export {method.estimator}"
    fitted = method.fit()
    assert type(fitted).__name__ == method.estimator
    assert isinstance(fitted.ledger_, PrivacyLedger)
    assert fitted.ledger_.is_dp is method.is_dp
    if not method.is_dp:
        assert fitted.ledger_.not_dp_reasons, "a release without a guarantee says why"


@pytest.mark.parametrize("paper", sorted(METHODS))
def test_paper_has_audit_cases_that_its_pages_use(paper):
    import core.audit_cases as cases

    method = METHODS[paper]
    assert method.audit_cases, f"{paper} names no audit case"
    cached = set().union(*(_imported_names(f) for f in (ROOT / "dashboard" / paper).glob("*.py")))
    for name in method.audit_cases:
        assert name in cases.__all__ and callable(getattr(cases, name)), name
        assert f"core.audit_cases.{name}" in cached, f"dashboard/{paper}/ does not build {name}"
    pages = [f.read_text(encoding="utf-8") for f in (ROOT / "dashboard" / paper).glob("*.py")]
    assert any("audit_panel(" in text for text in pages), f"no page of {paper} draws an audit panel"


def test_every_audit_case_belongs_to_a_paper():
    import core.audit_cases as cases

    builders = {n for n in cases.__all__ if n.endswith("_case") and n != "run_case"}
    # Compare's own peers (MST, AIM) are audited beside their frontier points, not on a paper's page
    compare_audits = (ROOT / "core" / "compare" / "audits.py").read_text(encoding="utf-8")
    peers = {n for n in builders if f"import {n}" in compare_audits}
    assert peers == {"mst_case"}
    assert builders == {c for m in METHODS.values() for c in m.audit_cases} | peers


def test_an_audit_case_claims_what_the_ledger_reports():
    """The cheap builders give an AuditCase whose claim is the mechanism's ledger total."""
    from core.audit_cases import AuditCase, cdp_lr_case, count_query_case, dpsgd_case, krr_case, sskm_sound_case

    X = _rng().normal(size=(40, 3))
    y = (X[:, 0] > 0).astype(int)
    built = {
        "cdp_lr_case": cdp_lr_case(X, y, sensitivity=1.0, epsilon=1.0),
        "count_query_case": count_query_case([True, False] * 4, sensitivity=2.0, epsilon=0.5),
        "dpsgd_case": dpsgd_case(X, y, epsilon=1.5),
        "krr_case": krr_case(["a", "b", "c"], epsilon=2.0),
        "sskm_sound_case": sskm_sound_case(_fit_sskm(), _sskm_frame(), epsilon=1.0),
    }
    claims = {name: case.claimed_epsilon for name, case in built.items()}
    assert all(isinstance(case, AuditCase) for case in built.values())
    claims["dpsgd_case"] = round(claims["dpsgd_case"], 4)  # the PLD accountant's, just below 1.5
    assert claims == {"cdp_lr_case": 1.0, "count_query_case": 0.5, "dpsgd_case": 1.5, "krr_case": 2.0,
                      "sskm_sound_case": 1.0}


# ------------------------------------------------------------------ pages' tests know every page
def test_every_page_has_a_load_test():
    from tests.dashboard.test_app_shell import PAGES

    assert sorted(PAGES) == sorted(_nav_views())


def test_every_page_with_settings_is_in_the_navigation_and_the_settings_test():
    from dashboard.shared.widgets.settings import PAGE_SETTINGS
    from tests.dashboard.shared.widgets.test_settings import MOVES

    assert set(PAGE_SETTINGS) <= set(_nav_views())
    assert set(MOVES) == set(PAGE_SETTINGS), "tests/dashboard/shared/widgets/test_settings.py MOVES needs a row per page"
