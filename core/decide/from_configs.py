"""The ``pux solve`` config of what a page shows: its answer again from the command line.

A solve panel's answer is read from runs the page computed with its settings and seed; the
config these functions return computes the same runs (:mod:`core.decide.run`), so the same
epsilons for every seeded method:

* :func:`solve_config_from_compare`: Compare's solve panel, from the comparison's settings
  (the page's run.json, a :class:`core.compare.config.CompareConfig`);
* :func:`solve_config_from_page`: CDP-LR's and Publishing's solve panels, from the page's
  settings (a :class:`core.bundle.page_config.PageConfig`, the bundle's ``pux-page/1``).

Typical use::

    solve = solve_config_from_compare(run_config, "utility>=0.8")
    Path("solve.json").write_text(solve.to_json())      # pux solve --config solve.json
"""
from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from core.compare.config import CompareConfig
from core.decide.config import SolveConfig
from core.decide.pages import PAGE_MEASURE
from core.decide.target import Target

__all__ = ["PageSettings", "solve_config_from_compare", "solve_config_from_page"]


@runtime_checkable
class PageSettings(Protocol):
    """What a solve reads of a page config: the fields of :class:`core.bundle.page_config.PageConfig`
    (``pux-page/1``). The bundle imports :mod:`core.decide` (its pages' solve panels), so the
    solver names the fields it reads rather than the bundle's class: the package graph stays
    one-way (bundle -> decide)."""

    page: str
    dataset: str
    seed: int | None
    label: str | None
    sensitive: tuple[str, ...]
    settings: dict
    schema: dict | None
    fingerprint: str | None

#: The settings of a solve on each paper page, taken from the page's settings of the same name.
_PAGE_SETTINGS = {
    "cdp_lr": ("noise_method", "preset", "measure", "threshold", "tc", "max_rows"),
    "publishing": ("measure", "threshold", "n_queries", "budget", "use_products"),
}


def solve_config_from_compare(config: CompareConfig, target: Any, *, confidence: float = 0.95) -> SolveConfig:
    """The ``pux solve`` config that solves ``target`` on the comparison ``config`` runs: the
    same dataset, roles, methods, epsilons, seed, repetitions, rows, test part, DCR records,
    IMPOSTER epochs, audit runs, schema and fingerprint, so the same runs and the same answers
    as the Compare page's solve panel on that comparison (seeded methods exactly; MST and AIM,
    whose noise cannot be seeded, up to their spread).

    Parameters
    ----------
    config : CompareConfig
        The comparison (the page's "Settings (run.json)").
    target : Target, str or dict
        What to solve for, as in :class:`core.decide.config.SolveConfig`.
    confidence : float in (0, 1)
        Coverage of each mean's interval.
    """
    if not isinstance(config, CompareConfig):
        raise TypeError(f"config must be a CompareConfig, got {type(config).__name__}.")
    return SolveConfig(page="compare", dataset=config.dataset, target=target, epsilons=config.epsilons,
                       seed=config.seed, methods=config.methods, repetitions=config.repetitions,
                       confidence=confidence, label=config.label, sensitive=config.sensitive,
                       settings={"max_rows": config.max_rows, "test_size": config.test_size,
                                 "imposter_epochs": config.imposter_epochs, "audit_runs": config.audit_runs,
                                 "dcr_records": config.dcr_records},
                       schema=config.schema, fingerprint=config.fingerprint)


def _page_target(page: str, target: Any) -> Any:
    """A panel's target under the name its page's curve has in configs (the Publishing panel
    says "MAE"; the curve's measure is ``mae``)."""
    if isinstance(target, Target) and target.measure.lower() == PAGE_MEASURE[page]:
        bound = {"at_least" if target.higher_is_better else "at_most": target.threshold}
        return Target(PAGE_MEASURE[page], **bound)
    return target


def solve_config_from_page(config: PageSettings, target: Any, *, confidence: float = 0.95) -> SolveConfig:
    """The ``pux solve`` config that solves ``target`` on the curve a CDP-LR or Publishing page
    shows: the page's dataset, roles, seed, curve grid (``settings["epsilons"]``), repetitions,
    the settings the curve depends on, schema and fingerprint.

    Parameters
    ----------
    config : PageConfig
        The page's settings (``page`` ``"cdp_lr"`` or ``"publishing"``; its ``settings`` as the
        page's bundle writes them, with a ``seed``: a bundle to publish has none).
    target : Target, str or dict
        The page's measure: ``"accuracy>=..."`` on CDP-LR, ``"mae<=..."`` on Publishing.
    confidence : float in (0, 1)
        Coverage of each mean's interval.

    Raises
    ------
    TypeError
        ``config`` is not a page config.
    ValueError
        A page without a solve panel, or a config without a seed.
    """
    if not isinstance(config, PageSettings):  # a PageConfig has every field
        raise TypeError(f"config must be a PageConfig, got {type(config).__name__}.")
    if config.page not in _PAGE_SETTINGS:
        raise ValueError(f"only the {' and '.join(_PAGE_SETTINGS)} pages solve their own curve, got {config.page!r}.")
    if config.seed is None:
        raise ValueError("the page config has no seed (a bundle to publish): a solve reruns seeded curves.")
    s = config.settings  # checked, with the page's defaults filled in, by PageConfig
    return SolveConfig(page=config.page, dataset=config.dataset, target=_page_target(config.page, target),
                       epsilons=s["epsilons"], seed=config.seed, repetitions=s["repetitions"], confidence=confidence,
                       label=config.label, sensitive=config.sensitive,
                       settings={k: s[k] for k in _PAGE_SETTINGS[config.page]},
                       schema=config.schema, fingerprint=config.fingerprint)
