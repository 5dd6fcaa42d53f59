"""What each page computes, with this project's core only: the numbers a bundle's script reruns.

One module per page, each with the same five names:

``TITLE`` : str
    The page's title (the bundle's README and report say it).
``check_settings(settings) -> dict``
    The page's settings, missing ones filled from its defaults; TypeError or ValueError in
    one sentence for a wrong one.
``numbers(dataset, schema, *, seed, settings, progress=None) -> dict``
    Every number of the page's report as a JSON tree (lists, dicts, numbers, strings), each
    beside its reference, computed from the seed. Same data, seed and settings: the same tree.
``releases(dataset, schema, *, noise, settings) -> list[BundleRelease]``
    The tables the page releases, their noise drawn from ``noise`` (a
    :class:`~core.privacy.noise_source.NoiseSource`: fresh entropy for a bundle to publish),
    each with its ledger. Empty for a page that releases no table.
``describe(settings) -> str``
    One sentence on what the numbers are (the README and the report).
``PRIVATE_SETTINGS`` : tuple of str, optional
    Settings whose values the page read off the private rows (IMPOSTER's detected
    ``implicit`` attributes): a bundle to publish sets them to null, so that its config
    holds no statistic of the rows (null asks the module to decide again from the data).

Modules load when first asked for (:func:`page_module`), so that reading a config does not
import torch.
"""
from __future__ import annotations

import importlib
import math
import numbers as _numbers
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import numpy as np
import pandas as pd

from core.privacy.ledger import PrivacyLedger
from core.validation import check_choice

__all__ = ["PAGES", "BundleRelease", "page_module", "plain", "records", "check_number"]

#: Every page a bundle can come from, and its module under ``core.bundle.pages``.
PAGES: dict[str, str] = {
    "compare": "compare_page",
    "correlations": "correlations",
    "dc_fbfs": "dc_fbfs",
    "cdp_lr": "cdp_lr",
    "publishing": "publishing",
    "imposter": "imposter",
    "sskm": "sskm",
    "tour": "tour",
}


@dataclass(frozen=True)
class BundleRelease:
    """One released table of a page.

    Attributes
    ----------
    name : str
        The table's file stem (``"sskm_dp_release"``); the guarantee is added to the file name.
    method : str
        What produced it, for the sidecar and the README.
    frame : DataFrame
        The released table.
    ledger : PrivacyLedger
        Its guarantee (``is_dp`` False when it has none).
    rows_drawn : bool
        Its row count is drawn with its noise (noisy counts, rounded): a rerun checks that
        rows were released, not how many.
    """

    name: str
    method: str
    frame: pd.DataFrame
    ledger: PrivacyLedger
    rows_drawn: bool = False


def page_module(page: str) -> ModuleType:
    """The module of ``page`` (a key of :data:`PAGES`; ValueError naming them otherwise)."""
    check_choice(page, PAGES, name="page")
    return importlib.import_module(f"core.bundle.pages.{PAGES[page]}")


def plain(value: Any) -> Any:
    """``value`` as JSON writes it, the same in every process: numpy and pandas scalars as
    Python ones, tuples and arrays as lists, dict keys as strings, missing values as None
    (NaN and infinities kept), anything else that is not a string as its text."""
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, np.ndarray)):
        return [plain(v) for v in value]
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return float(value)
    if value is None or value is pd.NA or value is pd.NaT:
        return None
    return value if isinstance(value, str) else str(value)


def records(frame: pd.DataFrame) -> list[dict[str, Any]]:
    """One :func:`plain` record per row of ``frame``."""
    return [plain(row) for row in frame.to_dict(orient="records")]


def check_number(value: Any, *, name: str, lo: float, hi: float) -> float:
    """A page setting that is a finite number in [``lo``, ``hi``] (TypeError for a non-number,
    ValueError with the range in words)."""
    if isinstance(value, bool) or not isinstance(value, _numbers.Real):
        raise TypeError(f"{name} must be a number, got {type(value).__name__}.")
    if not (math.isfinite(float(value)) and lo <= float(value) <= hi):
        raise ValueError(f"{name} must lie in [{lo:g}, {hi:g}], got {float(value):g}.")
    return float(value)
