"""The settings of one comparison as a file: what the Compare page saves and ``pux compare`` runs.

A :class:`CompareConfig` names the dataset (a built-in sample, a public dataset read from
a data directory, or an uploaded CSV by its file name), the roles of its columns, the
methods, the epsilon grid, the repetitions, the seed and the options of
:func:`core.compare.run.compare`, plus the two measures on the frontier's axes. Its JSON
(:meth:`CompareConfig.to_json`, ``"format": "pux-compare/1"``) is what the page's "save
settings" button downloads; ``pux compare --config run.json --out report.html`` reruns it,
and the same config and seed give the same numbers (docs/design.md section 1: every seed of
a comparison derives from the one int seed).

The config carries the comparison's **public schema** (``schema``: an inline JSON object,
:meth:`core.privacy.schema.PublicSchema.to_dict`, or the path of a ``.json`` file holding
one, relative to the config file's folder; null means the dataset's shipped schema, or a
draft read from the data for an upload, which makes every release that uses it not DP).
Every encoder, bound and category list of the comparison comes from it.

When the config records the dataset's ``fingerprint`` (:meth:`core.data.Dataset.fingerprint`
of the table with its roles), :func:`load_dataset` refuses data that differs from the data it
was saved from, in one sentence.

Typical use::

    config = CompareConfig.from_file("run.json")
    result = run_config(config, data_dir="~/data")          # or csv="upload.csv"
    config_from_result(result, dataset="census")            # the config of what ran
"""
from __future__ import annotations

import json
import numbers
import os
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from core.compare.audits import DEFAULT_AUDIT_RUNS, check_audit_runs
from core.compare.measures import AXES
from core.compare.registry import METHODS
from core.compare.result import ComparisonResult
from core.compare.run import compare
from core.data import Dataset
from core.data.config_files import PUBLIC, parse_json, read_config_text
from core.data.formats import check_format
from core.data.samples import SAMPLES
from core.limits import check_config_limits
from core.privacy.schema import PublicSchema
from core.privacy.schema_builtin import schema_for
from core.privacy.schema_read import load_named_by_schema
from core.runtime.progress import Progress, Stop, watch
from core.validation import DataError, check_choice, check_epsilons

__all__ = [
    "FORMAT",
    "PUBLIC",
    "CompareConfig",
    "load_dataset",
    "run_config",
    "compare_dataset",
    "config_from_result",
    "load_schema",
]

#: The ``format`` field of every config file this module writes and reads.
FORMAT = "pux-compare/1"
#: Public datasets, read from a data directory (``--data-dir`` or ``PUX_DATA_DIR``).
_CSV = "csv:"
#: Frontier axes besides ``ai_advantage_<sensitive column>`` and ``ai_member_<sensitive column>``.
_AXES = tuple(AXES)


# ----------------------------------------------------------------------------- checks
def _is_int(value: Any) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def _is_real(value: Any) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def _check_dataset(value: Any) -> str:
    if not isinstance(value, str):
        raise TypeError(f"dataset must be a string, got {type(value).__name__}.")
    if value in SAMPLES or value in PUBLIC:
        return value
    if value.startswith(_CSV) and value[len(_CSV):].strip():
        return value
    raise ValueError(f"dataset must be a sample ({', '.join(SAMPLES)}), a public dataset "
                     f"({', '.join(PUBLIC)}) or 'csv:<file name>', got {value!r}.")


def _check_names(value: Any, *, name: str, allow_empty: bool) -> tuple[str, ...]:
    if isinstance(value, str) or not isinstance(value, (list, tuple)):
        raise TypeError(f"{name} must be a list of names, got {type(value).__name__}.")
    for item in value:
        if not isinstance(item, str):
            raise TypeError(f"each entry of {name} must be a string, got {type(item).__name__}.")
    if not value and not allow_empty:
        raise ValueError(f"{name} must list at least one name.")
    if len(set(value)) != len(value):
        raise ValueError(f"each entry of {name} may appear only once.")
    return tuple(value)


def _check_methods(value: Any) -> tuple[str, ...]:
    names = _check_names(value, name="methods", allow_empty=False)
    unknown = [n for n in names if n not in METHODS]
    if unknown:
        raise ValueError(f"methods has unknown name(s) {unknown}; choose from {list(METHODS)}.")
    return names


def _check_int(value: Any, *, name: str, minimum: int, optional: bool = False) -> int | None:
    if value is None and optional:
        return None
    if not _is_int(value):
        kind = "an int or null" if optional else "an int"
        raise TypeError(f"{name} must be {kind}, got {type(value).__name__}.")
    if value < minimum:
        raise ValueError(f"{name} must be at least {minimum}, got {value}.")
    return int(value)


def _check_optional_str(value: Any, *, name: str) -> str | None:
    if value is not None and not isinstance(value, str):
        raise TypeError(f"{name} must be a string or null, got {type(value).__name__}.")
    if value is not None and not value:
        raise ValueError(f"{name} must not be empty (use null for none).")
    return value


def check_config_schema(value: Any) -> dict | str | None:
    """A config's ``schema`` field: None, a PublicSchema or its JSON object (checked), or the path of a .json file."""
    if value is None:
        return None
    if isinstance(value, PublicSchema):
        return value.to_dict()
    if isinstance(value, str):
        if not value.strip().lower().endswith(".json"):
            raise ValueError(f"schema must be a JSON object or the path of a .json file, got {value!r}.")
        return value
    if not isinstance(value, dict):
        raise TypeError(f"schema must be a JSON object, a path to a .json file or null, got {type(value).__name__}.")
    try:
        PublicSchema.from_dict(value)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"the config's schema is not valid: {exc}") from None
    return value


def _check_axis(value: Any, *, name: str, sensitive: tuple[str, ...]) -> str:
    allowed = [*_AXES, *(f"ai_advantage_{s}" for s in sensitive), *(f"ai_member_{s}" for s in sensitive)]
    return check_choice(value, allowed, name=name, kind=str)


# ----------------------------------------------------------------------------- config
@dataclass(frozen=True, kw_only=True)
class CompareConfig:
    """Everything that reruns one comparison (keyword-only; validated on creation).

    Parameters
    ----------
    dataset : str
        ``"supplier"`` or ``"census"`` (built-in samples), ``"adult"`` or ``"nltcs"``
        (public, read from a data directory), or ``"csv:<file name>"`` (an uploaded or local
        CSV: its path is given when the config is run).
    methods : sequence of str
        Names from :data:`core.compare.registry.METHODS`, each once.
    epsilons : sequence of float
        Privacy budgets of the methods that take one: each finite and above 0, each once.
    seed : int
        The comparison's one seed (0 or more): the same config and seed give the same runs.
    label : str or None
        The column every utility measure predicts.
    sensitive : sequence of str
        The columns attacked by attribute inference (the first is the one IMPOSTER, kRR and
        SSKM_DP protect); not the label.
    repetitions : int
        Releases per (method, epsilon), 1 or more.
    max_rows : int or None
        Rows sampled (seeded) before the split, 10 or more; None keeps every row.
    dcr_records : int or None
        Training records DCR measures (a seeded sample, 10 or more); None measures every
        one. An optional field of ``pux-compare/1``.
    test_size : float in (0, 1)
        Share of the rows held out (never released).
    imposter_epochs : int or None
        Training epochs of IMPOSTER and the VAE-GAN (None: the synthesizer's default).
    audit_runs : int
        Runs per side of the privacy audit beside every DP point (0: no audit; else at least
        20; default 500). The audited lower bound can never exceed
        :func:`core.audit.bounds.audit_ceiling` of it (2.6 at 100, 3.3 at 200, 4.2 at 500, 4.9
        at 1,000): a claim above it cannot be tested. An optional field of ``pux-compare/1``.
    utility, risk : str
        The frontier's axes: measures of :data:`core.compare.measures.MEASURES`, ``ledger_epsilon``,
        ``ai_advantage_<sensitive column>`` or ``ai_member_<sensitive column>`` (optional
        fields of ``pux-compare/1``: older configs read as before).
    fingerprint : str or None
        :meth:`core.data.Dataset.fingerprint` of the data (with its roles) the config was
        saved from; when set, :func:`load_dataset` checks that the data matches.
    schema : dict, str or None
        The public schema: a JSON object (:meth:`PublicSchema.to_dict`; a PublicSchema is
        turned into one), the path of a ``.json`` file (relative paths are read from the
        config file's folder, else the working directory), or None for the dataset's
        shipped schema (a draft read from the data for an upload: not DP until confirmed).
        It is the only source of bounds, category lists and encoders (:func:`load_schema`).

    Raises
    ------
    TypeError, ValueError
        One sentence naming the field and the rule it breaks.
    """

    dataset: str
    methods: tuple[str, ...]
    epsilons: tuple[float, ...]
    seed: int
    label: str | None = None
    sensitive: tuple[str, ...] = ()
    repetitions: int = 3
    max_rows: int | None = None
    dcr_records: int | None = None
    test_size: float = 0.25
    imposter_epochs: int | None = None
    audit_runs: int = DEFAULT_AUDIT_RUNS
    utility: str = "utility"
    risk: str = "ai_advantage"
    fingerprint: str | None = None
    schema: dict | str | None = None

    def __post_init__(self) -> None:
        check_config_limits({f.name: getattr(self, f.name) for f in fields(self)})  # before any work
        sensitive = _check_names(self.sensitive, name="sensitive", allow_empty=True)
        label = _check_optional_str(self.label, name="label")
        if label is not None and label in sensitive:
            raise ValueError(f"label {label!r} cannot also be in sensitive; give it one role.")
        values = {
            "dataset": _check_dataset(self.dataset),
            "methods": _check_methods(self.methods),
            "epsilons": check_epsilons(self.epsilons),
            "seed": _check_int(self.seed, name="seed", minimum=0),
            "sensitive": sensitive,
            "repetitions": _check_int(self.repetitions, name="repetitions", minimum=1),
            "max_rows": _check_int(self.max_rows, name="max_rows", minimum=10, optional=True),
            "dcr_records": _check_int(self.dcr_records, name="dcr_records", minimum=10, optional=True),
            "test_size": self._test_size(),
            "imposter_epochs": _check_int(self.imposter_epochs, name="imposter_epochs", minimum=1,
                                          optional=True),
            "audit_runs": check_audit_runs(self.audit_runs),
            "utility": _check_axis(self.utility, name="utility", sensitive=sensitive),
            "risk": _check_axis(self.risk, name="risk", sensitive=sensitive),
            "fingerprint": _check_optional_str(self.fingerprint, name="fingerprint"),
            "schema": check_config_schema(self.schema),
        }
        for key, value in values.items():
            object.__setattr__(self, key, value)

    def _test_size(self) -> float:
        if not _is_real(self.test_size):
            raise TypeError(f"test_size must be a number, got {type(self.test_size).__name__}.")
        if not 0 < float(self.test_size) < 1:
            raise ValueError(f"test_size must lie strictly between 0 and 1, got {self.test_size!r}.")
        return float(self.test_size)

    # ------------------------------------------------------------------- JSON
    def to_dict(self) -> dict[str, Any]:
        """``format`` first, then every field in declaration order (tuples as lists)."""
        out: dict[str, Any] = {"format": FORMAT}
        for f in fields(self):
            value = getattr(self, f.name)
            out[f.name] = list(value) if isinstance(value, tuple) else value
        return out

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, CompareConfig):
            return NotImplemented
        return self.to_dict() == other.to_dict()

    def __hash__(self) -> int:
        return hash(self.to_json())

    def to_json(self) -> str:
        """Indented JSON, the same text for the same config (what "save settings" downloads)."""
        return json.dumps(self.to_dict(), indent=2, ensure_ascii=False) + "\n"

    @classmethod
    def from_dict(cls, data: Any) -> "CompareConfig":
        """The config of a parsed JSON object (see :meth:`from_json`)."""
        data = check_format(data, "pux-compare")  # current, migrated, or refused in one sentence
        known = {f.name for f in fields(cls)}
        unknown = sorted(k for k in data if k not in known and k != "format")
        if unknown:
            raise ValueError(f"the config has unknown field(s) {unknown}; the fields are {sorted(known)}.")
        required = ("dataset", "methods", "epsilons", "seed")
        missing = [k for k in required if k not in data]
        if missing:
            raise ValueError(f"the config lacks the field(s) {missing}, which have no default.")
        return cls(**{k: v for k, v in data.items() if k != "format"})

    @classmethod
    def from_json(cls, text: str) -> "CompareConfig":
        """Parse :meth:`to_json`'s text.

        Raises
        ------
        TypeError, ValueError
            Text that is not JSON, not an object, without ``"format": "pux-compare/1"``,
            with unknown or missing fields, or with a field of the wrong type or value.
        """
        return cls.from_dict(parse_json(text))

    @classmethod
    def from_file(cls, path: str | os.PathLike) -> "CompareConfig":
        """Read a config file (UTF-8 JSON); a missing or unreadable file is a ValueError."""
        text, folder = read_config_text(path)
        config = cls.from_json(text)
        object.__setattr__(config, "_folder", folder)  # where a relative schema path lives
        return config

    # ---------------------------------------------------------------- helpers
    @property
    def csv_name(self) -> str | None:
        """The CSV's file name for ``dataset="csv:<file name>"``, else None."""
        return self.dataset[len(_CSV):] if self.dataset.startswith(_CSV) else None


# ----------------------------------------------------------------------------- running
def _raw_dataset(config: CompareConfig, data_dir: str | os.PathLike | None,
                 csv: str | os.PathLike | None) -> Dataset:
    """The config's table, read by its declared schema when it has one (never by inference)."""
    schema = None if config.schema is None else load_schema(config, None)
    return load_named_by_schema(config.dataset, schema=schema, csv_name=config.csv_name, data_dir=data_dir,
                                csv=csv, verb="compares")


def load_dataset(config: CompareConfig, *, data_dir: str | os.PathLike | None = None,
                 csv: str | os.PathLike | None = None) -> Dataset:
    """The config's dataset with its label and sensitive columns, checked against its fingerprint.

    Parameters
    ----------
    config : CompareConfig
    data_dir : path, optional
        Folder of the public datasets (default ``$PUX_DATA_DIR``).
    csv : path, optional
        The CSV file of a ``"csv:<file name>"`` config (any path: the file name in the
        config is only its display name).

    Raises
    ------
    DataError
        One sentence: a public dataset that is not there (and how to provide it), a CSV
        config without ``csv``, a column of the roles that is not in the data, or data
        that differs from the data the config was saved from.
    """
    if not isinstance(config, CompareConfig):
        raise TypeError(f"config must be a CompareConfig, got {type(config).__name__}.")
    dataset = _raw_dataset(config, data_dir, csv).with_roles(label=config.label, sensitive=config.sensitive)
    # as the dashboard's pages see it: the identifiers the schema declares left out (with a
    # declared schema nothing is detected from the values, so no declared column is dropped)
    dataset = dataset.without_identifiers()
    if config.fingerprint is not None and dataset.fingerprint() != config.fingerprint:
        raise DataError(f"The data differs from the data this config was saved from (fingerprint "
                        f"{dataset.fingerprint()}, the config expects {config.fingerprint}): load the same "
                        "file, or remove the config's fingerprint to run it on this data.")
    return dataset


def load_schema(config: CompareConfig, dataset: Dataset | None) -> PublicSchema:
    """The config's public schema: inline, read from its ``.json`` path, or (None) the
    dataset's :func:`core.privacy.schema_builtin.schema_for`.

    Raises
    ------
    ValueError
        A schema file that is missing, unreadable or not a valid schema, in one sentence.
    """
    if not isinstance(config, CompareConfig):
        raise TypeError(f"config must be a CompareConfig, got {type(config).__name__}.")
    if config.schema is None:
        if dataset is None:
            raise ValueError("the config declares no schema, so it needs the dataset to draft one from.")
        return schema_for(dataset)
    if isinstance(config.schema, dict):
        return PublicSchema.from_dict(config.schema)
    path = Path(config.schema).expanduser()
    if not path.is_absolute():
        path = getattr(config, "_folder", Path.cwd()) / path
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ValueError(f"there is no schema file at {path}; check the config's schema path.") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"the schema file {path} cannot be read ({type(exc).__name__}).") from None
    try:
        return PublicSchema.from_json(text)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"the schema file {path} is not a valid schema: {exc}") from None


def compare_dataset(config: CompareConfig, dataset: Dataset, *, progress: Progress | None = None,
                    stop: Stop | None = None, schema: PublicSchema | None = None) -> ComparisonResult:
    """:func:`core.compare.run.compare` of a loaded dataset with the config's settings.

    The page calls this with the dataset it holds in memory; :func:`run_config` with the one
    :func:`load_dataset` reads. ``random_state`` is ``config.seed``; the schema is
    ``schema`` when given, else :func:`load_schema` of the config. ``progress`` and ``stop`` (a
    ``threading.Event``: once set, the comparison ends at its next progress report with
    :class:`core.runtime.progress.Stopped`) are the comparison's.
    """
    progress = watch(progress, stop)
    if not isinstance(config, CompareConfig):
        raise TypeError(f"config must be a CompareConfig, got {type(config).__name__}.")
    if schema is None:
        schema = load_schema(config, dataset)
    return compare(dataset, methods=list(config.methods), epsilons=list(config.epsilons),
                   repetitions=config.repetitions, test_size=config.test_size, max_rows=config.max_rows,
                   imposter_epochs=config.imposter_epochs, random_state=config.seed, progress=progress,
                   schema=schema, stop=stop, audit_runs=config.audit_runs, dcr_records=config.dcr_records)


def run_config(config: CompareConfig, *, data_dir: str | os.PathLike | None = None,
               csv: str | os.PathLike | None = None, progress: Progress | None = None,
               stop: Stop | None = None) -> ComparisonResult:
    """Load the config's dataset (:func:`load_dataset`) and compare it (:func:`compare_dataset`,
    which ``progress`` and ``stop`` are handed to)."""
    progress = watch(progress, stop)
    return compare_dataset(config, load_dataset(config, data_dir=data_dir, csv=csv), progress=progress,
                           stop=stop)


def config_from_result(result: ComparisonResult, *, dataset: str | None = None, utility: str = "utility",
                       risk: str = "ai_advantage") -> CompareConfig:
    """The config that reruns ``result`` (what the page's "save settings" button downloads).

    Parameters
    ----------
    result : ComparisonResult
        Its ``parameters`` give the roles, methods, epsilons, repetitions, seed, options,
        the fingerprint and the public schema (inline).
    dataset : str, optional
        The config's dataset field. Default: the result's dataset name when it is a sample
        or a public dataset; an uploaded CSV must be named here (``"csv:<file name>"``),
        since a Dataset's display name is not always its file name.
    utility, risk : str
        The frontier's axes as the page shows them.
    """
    if not isinstance(result, ComparisonResult):
        raise TypeError(f"result must be a ComparisonResult, got {type(result).__name__}.")
    p = result.parameters
    if dataset is None:
        name = p.get("dataset")
        if name not in SAMPLES and name not in PUBLIC:
            raise ValueError(f"the result's dataset {name!r} is not a sample or a public dataset; "
                             "pass dataset='csv:<file name>'.")
        dataset = name
    return CompareConfig(dataset=dataset, methods=tuple(p["methods"]), epsilons=tuple(p["epsilons"]),
                         seed=p["seed"], label=p["label"], sensitive=tuple(p["sensitive"]),
                         repetitions=p["repetitions"], max_rows=p["max_rows"], test_size=p["test_size"],
                         dcr_records=p.get("dcr_records"),
                         imposter_epochs=p["imposter_epochs"], audit_runs=p.get("audit_runs", DEFAULT_AUDIT_RUNS),
                         utility=utility, risk=risk,
                         fingerprint=p["fingerprint"], schema=p.get("schema"))
