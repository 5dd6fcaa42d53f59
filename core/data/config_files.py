"""What the command line's config files share: reading a file, parsing its JSON, loading the
dataset a config names.

``pux compare`` (:class:`core.compare.config.CompareConfig`, ``pux-compare/1``) and ``pux solve``
(:class:`core.decide.config.SolveConfig`, ``pux-solve/1``) read their files the same way and name
their dataset the same way: a built-in sample, a public dataset from the data directory
(Adult, NLTCS) or ``csv:<file name>`` with the CSV's path given beside the config.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from core.data.csv_loader import load_csv
from core.data.dataset import Dataset
from core.data.public import load_adult, load_nltcs
from core.data.samples import SAMPLES, load_sample
from core.limits import MAX_JSON_BYTES, load_json
from core.validation import DataError

__all__ = ["PUBLIC", "parse_json", "read_config_text", "load_named"]

#: The public datasets a config can name, read from the data directory.
PUBLIC = {"adult": load_adult, "nltcs": load_nltcs}


def parse_json(text: str | bytes, *, what: str = "the config") -> Any:
    """A config's JSON text parsed, its size and depth checked first (:func:`core.limits.load_json`).

    TypeError for a non-string; ValueError in one sentence naming ``what`` for a file too
    large, nested too deep or not valid JSON.
    """
    if not isinstance(text, (str, bytes)):
        raise TypeError(f"text must be a string, got {type(text).__name__}.")
    return load_json(text, what=what)


def read_config_text(path: str | os.PathLike) -> tuple[str, Path]:
    """The UTF-8 text of a config file and the folder relative paths in it are read from
    (a missing, unreadable or too large file is a ValueError)."""
    p = Path(path)
    try:
        size = p.stat().st_size
        if size > MAX_JSON_BYTES:  # refused before a byte is read
            raise ValueError(f"the config file {p} is {size:,} bytes; the limit is {MAX_JSON_BYTES:,} bytes.")
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ValueError(f"there is no config file at {p}; check the path.") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"the config file {p} cannot be read ({type(exc).__name__}).") from None
    return text, p.resolve().parent


def load_named(dataset: str, *, csv_name: str | None, data_dir: str | os.PathLike | None,
               csv: str | os.PathLike | None, verb: str) -> Dataset:
    """The dataset a config names: a sample, a public dataset from ``data_dir``, or the CSV at
    ``csv`` for ``csv:<csv_name>`` (``verb`` says what the config does with it, for the error)."""
    if dataset in SAMPLES:
        return load_sample(dataset)
    if dataset in PUBLIC:
        return PUBLIC[dataset](data_dir)
    if csv is None:
        raise DataError(f"The config {verb} the CSV '{csv_name}': pass its path with --csv PATH "
                        "(or csv= in Python).")
    return load_csv(csv, name=csv_name, max_bytes=None)  # the browser's 50 MB limit is not the command line's
