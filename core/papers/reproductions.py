"""Every reproduction of a paper's figure or table, by name, and how its result becomes JSON.

Each paper package registers its reproductions in ``core/<paper>/reproduce.py``
(``REPRODUCTIONS``: name -> function returning a
:class:`core.runtime.experiments.Reproduction`); :func:`reproductions` collects them for
the command line (``pux reproduce``), the tests and the registry of figures.
"""
from __future__ import annotations

import importlib
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

import numpy as np
import pandas as pd

if TYPE_CHECKING:
    from core.runtime.experiments import Reproduction

__all__ = ["REPRODUCTION_MODULES", "json_default", "reproductions"]

#: the paper packages' registries, in the order ``pux reproduce list`` prints them
REPRODUCTION_MODULES = ["core.cdp.reproduce", "core.imposter.reproduce", "core.sskm.reproduce"]


def reproductions() -> dict[str, Callable[..., Reproduction]]:
    """Every registered reproduction, by name (a paper package that fails to import is
    skipped with one line on stderr, so it cannot hide the others)."""
    found: dict[str, Callable[..., Reproduction]] = {}
    for mod_name in REPRODUCTION_MODULES:
        try:
            mod = importlib.import_module(mod_name)
        except ImportError as exc:  # one broken paper package must not hide the others
            print(f"pux: skipping {mod_name}: {exc}", file=sys.stderr)
            continue
        found.update(getattr(mod, "REPRODUCTIONS", {}))
    return found


def json_default(obj: Any) -> Any:
    """``json.dumps(..., default=json_default)``: numpy numbers and arrays, frames and paths
    as plain JSON values."""
    if isinstance(obj, (np.integer,)):
        return int(obj)
    if isinstance(obj, (np.floating,)):
        return float(obj)
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    if isinstance(obj, pd.DataFrame):
        return obj.to_dict(orient="records")
    if isinstance(obj, Path):
        return str(obj)
    raise TypeError(f"cannot write {type(obj).__name__} as JSON")
