"""The settings of one solve as a file: what ``pux solve --config FILE`` runs.

A :class:`SolveConfig` (``"format": "pux-solve/1"``) names whose curve to solve on (the
``page``: ``cdp_lr``'s accuracy, ``publishing``'s MAE, or a ``compare`` measure), the
dataset, the methods, the epsilon grid, the repetitions, the seed, the target
(``"accuracy>=0.8"`` or ``{"measure": "accuracy", "at_least": 0.8}``), the confidence of the
intervals, the page's own settings (``settings``: the same defaults as the page) and,
optionally, a **public reference table** (``reference``: a CSV with the schema's shape):
then the curve is computed on that table instead of the private one, and the answer says so.

Typical use::

    config = SolveConfig.from_file("examples/solve.json")
    answer = core.decide.run.run_solve(config)      # the JSON ``pux solve`` prints
"""
from __future__ import annotations

import json
import numbers
import os
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from core.cdp.schedule import NOISE_METHODS, PRESETS
from core.compare.audits import check_audit_runs
from core.compare.measures import MEASURES
from core.compare.registry import METHODS
from core.compare.config import check_config_schema
from core.data.config_files import PUBLIC as _PUBLIC
from core.data.config_files import parse_json, read_config_text
from core.data.formats import check_format
from core.data.samples import SAMPLES
from core.decide.curve import _check_confidence
from core.decide.pages import PAGE_MEASURE, PAGES
from core.decide.target import Target
from core.limits import check_config_limits
from core.validation import check_choice, check_epsilons

__all__ = ["FORMAT", "PAGE_DEFAULTS", "SolveConfig"]

#: The ``format`` field of every solve config.
FORMAT = "pux-solve/1"
_CSV = "csv:"
#: Each page's settings and their defaults (the page's own defaults), with the repetitions per point.
PAGE_DEFAULTS: dict[str, dict[str, Any]] = {
    "cdp_lr": {"noise_method": 1, "preset": "sensible", "measure": "pearson", "threshold": 0.8, "tc": 40.0,
               "max_rows": 5000, "repetitions": 5},
    "publishing": {"measure": "pearson", "threshold": 0.8, "n_queries": 200, "budget": "per_query",
                   "use_products": True, "max_rows": 5000, "repetitions": 10},
    "compare": {"max_rows": None, "test_size": 0.25, "imposter_epochs": None, "audit_runs": 0, "dcr_records": None,
                "repetitions": 3},
}


# ----------------------------------------------------------------------------- checks
def _is_int(value: Any) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def _is_real(value: Any) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def _int(value: Any, *, name: str, minimum: int, optional: bool = False) -> int | None:
    if value is None and optional:
        return None
    if not _is_int(value):
        raise TypeError(f"{name} must be {'an int or null' if optional else 'an int'}, got {type(value).__name__}.")
    if value < minimum:
        raise ValueError(f"{name} must be at least {minimum}, got {value}.")
    return int(value)


def _real(value: Any, *, name: str, low: float, high: float, open_low: bool = False) -> float:
    if not _is_real(value):
        raise TypeError(f"{name} must be a number, got {type(value).__name__}.")
    v = float(value)
    if not (low < v <= high if open_low else low <= v <= high):
        raise ValueError(f"{name} must lie in {'(' if open_low else '['}{low:g}, {high:g}], got {value!r}.")
    return v


def _check_dataset(value: Any) -> str:
    if not isinstance(value, str):
        raise TypeError(f"dataset must be a string, got {type(value).__name__}.")
    if value in SAMPLES or value in _PUBLIC or (value.startswith(_CSV) and value[len(_CSV):].strip()):
        return value
    raise ValueError(f"dataset must be a sample ({', '.join(SAMPLES)}), a public dataset ({', '.join(_PUBLIC)}) "
                     f"or 'csv:<file name>', got {value!r}.")


def _check_target(value: Any) -> Target:
    if isinstance(value, Target):
        return value
    if isinstance(value, str):
        return Target.parse(value)
    if isinstance(value, dict):
        return Target.from_dict(value)
    raise TypeError(f"target must be a string such as \"accuracy>=0.8\" or an object such as "
                    f"{{\"measure\": \"accuracy\", \"at_least\": 0.8}}, got {type(value).__name__}.")


def _check_names(value: Any, *, name: str) -> tuple[str, ...] | None:
    if value is None:
        return None
    if isinstance(value, str) or not isinstance(value, (list, tuple)):
        raise TypeError(f"{name} must be a list of names or null, got {type(value).__name__}.")
    if any(not isinstance(v, str) for v in value):
        raise TypeError(f"each entry of {name} must be a string.")
    if len(set(value)) != len(value):
        raise ValueError(f"each entry of {name} may appear only once.")
    return tuple(value)


def _check_optional_str(value: Any, *, name: str) -> str | None:
    if value is not None and not isinstance(value, str):
        raise TypeError(f"{name} must be a string or null, got {type(value).__name__}.")
    if value is not None and not value.strip():
        raise ValueError(f"{name} must not be empty (use null for none).")
    return value


_check_schema = check_config_schema  # the same field as pux-compare/1's


def _bool(value: Any) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"settings.use_products must be true or false, got {type(value).__name__}.")
    return value


def _setting(page: str, key: str, value: Any) -> Any:
    """One page setting, checked (the rules of the page's own widgets)."""
    if key in ("measure",):
        allowed = ["pearson", "mahalanobis", "both"] if page == "publishing" else ["pearson", "mahalanobis"]
        return check_choice(value, allowed, name="settings.measure", kind=str)
    checks = {
        "noise_method": lambda v: check_choice(v, list(NOISE_METHODS), name="settings.noise_method", kind=int),
        "preset": lambda v: check_choice(v, list(PRESETS), name="settings.preset", kind=str),
        "threshold": lambda v: _real(v, name="settings.threshold", low=0.0, high=1.0, open_low=True),
        "tc": lambda v: _real(v, name="settings.tc", low=0.0, high=1e9),
        "max_rows": lambda v: _int(v, name="settings.max_rows", minimum=10, optional=page == "compare"),
        "n_queries": lambda v: _int(v, name="settings.n_queries", minimum=1),
        "budget": lambda v: check_choice(v, ["per_query", "total"], name="settings.budget", kind=str),
        "use_products": _bool,
        "test_size": lambda v: _real(v, name="settings.test_size", low=0.0, high=0.99, open_low=True),
        "imposter_epochs": lambda v: _int(v, name="settings.imposter_epochs", minimum=1, optional=True),
        "audit_runs": check_audit_runs,
        "dcr_records": lambda v: _int(v, name="settings.dcr_records", minimum=10, optional=True),
    }
    return checks[key](value)


def _check_settings(page: str, value: Any) -> dict[str, Any]:
    if value is None:
        value = {}
    if not isinstance(value, dict):
        raise TypeError(f"settings must be a JSON object or null, got {type(value).__name__}.")
    allowed = [k for k in PAGE_DEFAULTS[page] if k != "repetitions"]
    unknown = sorted(str(k) for k in value if k not in allowed)
    if unknown:
        raise ValueError(f"settings has unknown key(s) {unknown} for the {page} page; its settings are {allowed}.")
    merged = {k: PAGE_DEFAULTS[page][k] for k in allowed}
    merged.update({k: _setting(page, k, v) for k, v in value.items()})
    return merged


def _check_measure(page: str, target: Target, sensitive: tuple[str, ...] | None) -> None:
    if page in PAGE_MEASURE:
        if target.measure != PAGE_MEASURE[page]:
            raise ValueError(f"the {page} page's curve is {PAGE_MEASURE[page]}: the target must name it "
                             f"(such as \"{PAGE_MEASURE[page]}{'>=' if page == 'cdp_lr' else '<='}...\"), got "
                             f"{target.measure!r}.")
        return
    allowed = [m for m in MEASURES if m != "rows_released"]
    allowed += [f"{p}_{s}" for s in (sensitive or ()) for p in ("ai_advantage", "ai_member")]
    if target.measure not in allowed and not target.measure.startswith(("ai_advantage_", "ai_member_")):
        raise ValueError(f"the target's measure {target.measure!r} is not a measure of a comparison; choose from "
                         f"{allowed}.")


def _check_methods(page: str, methods: tuple[str, ...] | None) -> tuple[str, ...] | None:
    if page == "compare":
        if not methods:
            raise ValueError("a compare solve must list its methods (names of the Compare page).")
        unknown = [m for m in methods if m not in METHODS]
        if unknown:
            raise ValueError(f"methods has unknown name(s) {unknown}; choose from {list(METHODS)}.")
        return tuple(m for m in METHODS if m in methods)  # the registry's order, as the page runs them
    if methods is not None and not methods:
        raise ValueError("methods must list at least one scheme, or be null for every scheme of the page.")
    return methods


# ----------------------------------------------------------------------------- config
@dataclass(frozen=True, kw_only=True)
class SolveConfig:
    """Everything that reruns one solve (keyword-only; validated on creation).

    Parameters
    ----------
    page : {"cdp_lr", "publishing", "compare"}
        Whose curve: CDP-LR's accuracy (Fig. 4), Publishing's count-query MAE (Fig. 6), or
        a measure of a comparison's runs.
    dataset : str
        A sample (``supplier``, ``census``), a public dataset (``adult``, ``nltcs``, read
        from the data directory) or ``csv:<file name>`` (its path given when run).
    target : Target, str or dict
        ``"accuracy>=0.8"``, ``"mae<=0.5"``, ``{"measure": "ai_advantage", "at_most": 0.05}``;
        the measure must be the page's (``accuracy``, ``mae``) or a comparison's measure.
    epsilons : sequence of float
        The grid the curve is computed on (the answer lies in its range or is "none").
    seed : int
        The page's seed: the same seed gives the same runs, so the same epsilon, as the page.
    methods : sequence of str or None
        The schemes or methods to report (None: every scheme of a paper page); a compare
        solve must list the methods to run.
    repetitions : int or None
        Runs per epsilon (None: the page's default, 5 on CDP-LR, 10 on Publishing, 3 on
        Compare); their spread is the answer's uncertainty (2 or more to know it).
    confidence : float in (0, 1)
        Coverage of each mean's t interval.
    label, sensitive : str or None, sequence of str
        The columns' roles (None: the dataset's own).
    settings : dict or None
        The page's settings (:data:`PAGE_DEFAULTS`, the page's defaults for what is left out).
    schema : dict, str or None
        The public schema, as in :class:`core.compare.config.CompareConfig` (None: the
        dataset's shipped schema, a draft for an upload).
    reference : str or None
        Path of a public reference table (CSV, the schema's columns; relative to the config's
        folder): the curve is computed on it instead of the private data, so the choice costs
        the private data nothing.
    fingerprint : str or None
        The private data's :meth:`core.data.Dataset.fingerprint`, checked when set.

    Raises
    ------
    TypeError, ValueError
        One sentence naming the field and the rule it breaks.
    """

    page: str
    dataset: str
    target: Any
    epsilons: tuple[float, ...]
    seed: int
    methods: tuple[str, ...] | None = None
    repetitions: int | None = None
    confidence: float = 0.95
    label: str | None = None
    sensitive: tuple[str, ...] | None = None
    settings: dict | None = None
    schema: dict | str | None = None
    reference: str | None = None
    fingerprint: str | None = None

    def __post_init__(self) -> None:
        check_config_limits({f.name: getattr(self, f.name) for f in fields(self)})  # before any work
        page = check_choice(self.page, list(PAGES), name="page", kind=str)
        sensitive = _check_names(self.sensitive, name="sensitive")
        target = _check_target(self.target)
        _check_measure(page, target, sensitive)
        reps = _int(self.repetitions, name="repetitions", minimum=1, optional=True)
        values = {
            "page": page, "dataset": _check_dataset(self.dataset), "target": target,
            "epsilons": tuple(sorted(check_epsilons(self.epsilons))), "seed": _int(self.seed, name="seed", minimum=0),
            "methods": _check_methods(page, _check_names(self.methods, name="methods")),
            "repetitions": PAGE_DEFAULTS[page]["repetitions"] if reps is None else reps,
            "confidence": _check_confidence(self.confidence),
            "label": _check_optional_str(self.label, name="label"), "sensitive": sensitive,
            "settings": _check_settings(page, self.settings), "schema": _check_schema(self.schema),
            "reference": _check_optional_str(self.reference, name="reference"),
            "fingerprint": _check_optional_str(self.fingerprint, name="fingerprint"),
        }
        if values["label"] is not None and sensitive and values["label"] in sensitive:
            raise ValueError(f"label {values['label']!r} cannot also be in sensitive; give it one role.")
        for key, value in values.items():
            object.__setattr__(self, key, value)

    # ------------------------------------------------------------------- JSON
    def to_dict(self) -> dict[str, Any]:
        """``format`` first, then every field (the target as a string such as ``"accuracy>=0.8"``)."""
        out: dict[str, Any] = {"format": FORMAT}
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, Target):
                value = f"{value.measure}{'>=' if value.higher_is_better else '<='}{value.threshold!r}"
            out[f.name] = list(value) if isinstance(value, tuple) else value
        return out

    def to_json(self) -> str:
        """Indented JSON, the same text for the same config."""
        return json.dumps(self.to_dict(), indent=2, ensure_ascii=False) + "\n"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SolveConfig):
            return NotImplemented
        return self.to_dict() == other.to_dict()

    def __hash__(self) -> int:
        return hash(self.to_json())

    @classmethod
    def from_dict(cls, data: Any) -> "SolveConfig":
        """The config of a parsed JSON object: ``"format": "pux-solve/1"``, no unknown field,
        ``page``, ``dataset``, ``target``, ``epsilons`` and ``seed`` present."""
        if not isinstance(data, dict):
            raise TypeError(f"a solve config must be a JSON object, got {type(data).__name__}.")
        data = check_format(data, "pux-solve")  # current, migrated, or refused in one sentence
        known = {f.name for f in fields(cls)}
        unknown = sorted(str(k) for k in data if k not in known and k != "format")
        if unknown:
            raise ValueError(f"the config has unknown field(s) {unknown}; the fields are {sorted(known)}.")
        missing = [k for k in ("page", "dataset", "target", "epsilons", "seed") if k not in data]
        if missing:
            raise ValueError(f"the config lacks the field(s) {missing}, which have no default.")
        return cls(**{k: v for k, v in data.items() if k != "format"})

    @classmethod
    def from_json(cls, text: str) -> "SolveConfig":
        """Parse a config's JSON text (not JSON, not an object: a ValueError in one sentence)."""
        return cls.from_dict(parse_json(text))

    @classmethod
    def from_file(cls, path: str | os.PathLike) -> "SolveConfig":
        """Read a config file (UTF-8 JSON); relative ``schema`` and ``reference`` paths are read
        from its folder. A missing or unreadable file is a ValueError."""
        text, folder = read_config_text(path)
        config = cls.from_json(text)
        object.__setattr__(config, "_folder", folder)
        return config

    # ---------------------------------------------------------------- helpers
    @property
    def folder(self) -> Path:
        """Where relative paths are read from: the config file's folder, else the working directory."""
        return getattr(self, "_folder", Path.cwd())

    @property
    def csv_name(self) -> str | None:
        """The CSV's file name for ``dataset="csv:<file name>"``, else None."""
        return self.dataset[len(_CSV):] if self.dataset.startswith(_CSV) else None
