"""A method page's settings as a file (``pux-page/1``): what a bundle reruns for that page.

A :class:`PageConfig` names the page (:data:`core.bundle.pages.PAGES`), the dataset the way
``pux compare`` configs name it (a built-in sample, ``adult``/``nltcs`` from the data
directory, or ``csv:<file name>``), the roles of its columns, the public schema (inline, or
null for the dataset's shipped schema), the one seed every seeded number derives from, and
the page's own settings (checked by the page's module; missing ones take the page's
defaults). A bundle "to publish" holds its config without the seed (``seed: null``): its
releases come from fresh entropy and nothing seeded is in it.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, field, fields
from typing import Any

from core.compare.config import _check_dataset, _check_int, _check_names, _check_optional_str, check_config_schema
from core.data import Dataset
from core.data.config_files import parse_json, read_config_text
from core.data.formats import check_format
from core.limits import check_config_limits
from core.privacy.schema import PublicSchema
from core.privacy.schema_builtin import schema_for
from core.privacy.schema_read import load_named_by_schema
from core.validation import DataError

__all__ = ["FORMAT", "PageConfig", "load_page_dataset", "page_schema"]

#: The ``format`` field of every page config.
FORMAT = "pux-page/1"
_CSV = "csv:"


@dataclass(frozen=True, kw_only=True)
class PageConfig:
    """Everything that reruns one method page's numbers (keyword-only; validated on creation).

    Parameters
    ----------
    page : str
        The page (:data:`core.bundle.pages.PAGES`: ``correlations``, ``dc_fbfs``, ``cdp_lr``,
        ``publishing``, ``imposter``, ``sskm``, ``tour``).
    dataset : str
        A sample, ``adult``/``nltcs`` (read from the data directory) or ``csv:<file name>``.
    seed : int or None
        The page's seed (0 or more): every seeded number and picture derives from it. None in a
        bundle to publish, which holds nothing seeded.
    label : str or None
        The column the page's models predict.
    sensitive : sequence of str
        The columns the page protects or attacks.
    settings : dict
        The page's own settings (the page module's ``check_settings`` reads them; a missing one
        takes its default).
    schema : dict or None
        The public schema (:meth:`PublicSchema.to_dict`), the only source of bounds, category
        lists and encoders; None for the dataset's shipped schema (a draft read from the data
        for an upload, which makes every release that uses it not DP).
    fingerprint : str or None
        The data's :meth:`Dataset.fingerprint` when saved: other data is refused in one sentence.
    """

    page: str
    dataset: str
    seed: int | None
    label: str | None = None
    sensitive: tuple[str, ...] = ()
    settings: dict = field(default_factory=dict)
    schema: dict | None = None
    fingerprint: str | None = None

    def __post_init__(self) -> None:
        from core.bundle.pages import page_module

        module = page_module(self.page)  # ValueError naming the pages for an unknown one
        if not isinstance(self.settings, dict):
            raise TypeError(f"settings must be a JSON object, got {type(self.settings).__name__}.")
        check_config_limits(self.settings, what="the page config")  # repetitions, epochs, grids...
        schema = check_config_schema(self.schema)
        if isinstance(schema, str):
            raise ValueError("a page config's schema must be inline (a JSON object) or null, not a path.")
        values = {
            "dataset": _check_dataset(self.dataset),
            "seed": _check_int(self.seed, name="seed", minimum=0, optional=True),
            "label": _check_optional_str(self.label, name="label"),
            "sensitive": _check_names(self.sensitive, name="sensitive", allow_empty=True),
            "settings": module.check_settings(self.settings),
            "schema": schema,
            "fingerprint": _check_optional_str(self.fingerprint, name="fingerprint"),
        }
        for key, value in values.items():
            object.__setattr__(self, key, value)

    def to_dict(self) -> dict[str, Any]:
        """``format`` first, then every field in declaration order (tuples as lists)."""
        out: dict[str, Any] = {"format": FORMAT}
        for f in fields(self):
            value = getattr(self, f.name)
            out[f.name] = list(value) if isinstance(value, tuple) else value
        return out

    def to_json(self) -> str:
        """Indented JSON, the same text for the same config."""
        return json.dumps(self.to_dict(), indent=2, ensure_ascii=False) + "\n"

    @classmethod
    def from_dict(cls, data: Any) -> "PageConfig":
        """The config of a parsed JSON object (``"format": "pux-page/1"``, no unknown field)."""
        data = check_format(data, "pux-page")
        known = {f.name for f in fields(cls)}
        unknown = sorted(str(k) for k in data if k not in known and k != "format")
        if unknown:
            raise ValueError(f"the config has unknown field(s) {unknown}; the fields are {sorted(known)}.")
        missing = [k for k in ("page", "dataset", "seed") if k not in data]
        if missing:
            raise ValueError(f"the config lacks the field(s) {missing}, which have no default.")
        return cls(**{k: v for k, v in data.items() if k != "format"})

    @classmethod
    def from_file(cls, path: str | os.PathLike) -> "PageConfig":
        """Read a page config file (UTF-8 JSON); a missing or unreadable file is a ValueError."""
        text, _ = read_config_text(path)
        return cls.from_dict(parse_json(text))

    @property
    def csv_name(self) -> str | None:
        """The CSV's file name for ``dataset="csv:<file name>"``, else None."""
        return self.dataset[len(_CSV):] if self.dataset.startswith(_CSV) else None


def load_page_dataset(config: PageConfig, *, data_dir: str | os.PathLike | None = None,
                      csv: str | os.PathLike | None = None) -> Dataset:
    """The config's dataset with its roles, identifiers left out as the pages do, checked
    against its fingerprint (a :class:`~core.validation.DataError` in one sentence otherwise)."""
    if not isinstance(config, PageConfig):
        raise TypeError(f"config must be a PageConfig, got {type(config).__name__}.")
    schema = None if config.schema is None else PublicSchema.from_dict(config.schema)
    raw = load_named_by_schema(config.dataset, schema=schema, csv_name=config.csv_name, data_dir=data_dir,
                               csv=csv, verb="reruns")  # a CSV with a declared schema is read by it
    dataset = raw.with_roles(label=config.label, sensitive=config.sensitive).without_identifiers()
    if config.fingerprint is not None and dataset.fingerprint() != config.fingerprint:
        raise DataError(f"The data differs from the data this bundle was made from (fingerprint "
                        f"{dataset.fingerprint()}, the bundle expects {config.fingerprint}): give the same file.")
    return dataset


def page_schema(config: PageConfig, dataset: Dataset) -> PublicSchema:
    """The config's public schema, or the dataset's shipped one when it holds none."""
    return PublicSchema.from_dict(config.schema) if config.schema is not None else schema_for(dataset)
