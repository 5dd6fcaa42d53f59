"""A bundle's ``config.json``: a page config (``pux-page/1``), or for Compare the
``pux-compare/1`` config that ``pux compare`` also runs; read either as a :class:`PageConfig`."""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from core.bundle.page_config import PageConfig
from core.bundle.pages.compare_page import compare_config, from_compare_config
from core.compare.config import CompareConfig
from core.data.config_files import parse_json, read_config_text
from core.data.formats import format_version

__all__ = ["read_bundle_config", "config_dict", "as_page_config"]


def as_page_config(config: PageConfig | CompareConfig) -> PageConfig:
    """``config`` as a page config (a compare config becomes ``page="compare"``)."""
    if isinstance(config, PageConfig):
        return config
    if isinstance(config, CompareConfig):
        return PageConfig(**from_compare_config(config))
    raise TypeError(f"config must be a PageConfig or a CompareConfig, got {type(config).__name__}.")


def read_bundle_config(source: str | os.PathLike | dict[str, Any]) -> PageConfig:
    """A config file (or its parsed JSON) of either format as a :class:`PageConfig`.

    Raises
    ------
    TypeError, ValueError
        One sentence: an unreadable file, not JSON, another kind of file, a format this
        version cannot read (:func:`core.data.formats.check_format` says what to change).
    """
    if isinstance(source, dict):
        data = source
    elif isinstance(source, (str, os.PathLike)):
        data = parse_json(read_config_text(Path(source))[0])
    else:
        raise TypeError(f"source must be a path or a JSON object, got {type(source).__name__}.")
    if not isinstance(data, dict):
        raise TypeError(f"a config must be a JSON object, got {type(data).__name__}.")
    parsed = format_version(data.get("format"))
    if parsed is not None and parsed[0] == "pux-compare":
        return as_page_config(CompareConfig.from_dict(data))
    return PageConfig.from_dict(data)


def config_dict(config: PageConfig) -> dict[str, Any]:
    """What ``config.json`` holds: the ``pux-compare/1`` config for Compare, else the page config."""
    if not isinstance(config, PageConfig):
        raise TypeError(f"config must be a PageConfig, got {type(config).__name__}.")
    if config.page != "compare":
        return config.to_dict()
    if config.seed is None:  # to publish: a compare config needs a seed, and a published bundle holds none
        return config.to_dict()
    return compare_config(config.dataset, seed=config.seed, label=config.label, sensitive=config.sensitive,
                          settings=config.settings, schema=config.schema, fingerprint=config.fingerprint).to_dict()
