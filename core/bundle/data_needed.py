"""What data a bundle's rerun needs, in one sentence, from its config's dataset name alone.

Light on purpose (no page, no model, no torch): ``pux rerun`` reads a bundle's listing and
its config's ``dataset`` with :func:`core.bundle.rerun.data_missing` and refuses, in the
sentence :func:`data_sentence` writes, before any work when the data is neither given
(``--data``), nor in the bundle, nor (for a public dataset) in ``$PUX_DATA_DIR``.
"""
from __future__ import annotations

import os
from typing import Mapping

from core.data.samples import SAMPLES

__all__ = ["CSV_PREFIX", "DATA_FOLDER", "csv_name", "data_sentence", "missing_data"]

#: How a config names an uploaded table: ``csv:<file name>``.
CSV_PREFIX = "csv:"
#: Where a bundle keeps its table (an upload's copy, in a colleague's bundle).
DATA_FOLDER = "data"


def csv_name(dataset: str) -> str | None:
    """The CSV's file name of ``dataset="csv:<file name>"``, else None."""
    return dataset[len(CSV_PREFIX):] if dataset.startswith(CSV_PREFIX) else None


def data_sentence(dataset: str, *, bundled: bool) -> str:
    """One sentence: what data the rerun of a bundle of ``dataset`` needs and how to give it
    (``bundled``: the bundle holds the table)."""
    if not isinstance(dataset, str):
        raise TypeError(f"dataset must be a str, got {type(dataset).__name__}.")
    if dataset in SAMPLES:
        return f"The data is the built-in sample {dataset!r}: the rerun needs nothing else."
    if bundled:
        return f"The data is in this bundle ({DATA_FOLDER}/): the rerun needs nothing else."
    name = csv_name(dataset)
    if name is None:
        return (f"This bundle does not hold the data: rerun with --data FOLDER, the folder that holds "
                f"{dataset} (or set PUX_DATA_DIR).")
    return f"This bundle does not hold the data: rerun with --data PATH, the CSV it was made from ({name})."


def missing_data(dataset: str, *, bundled: bool, given: bool, environ: Mapping[str, str] | None = None) -> str | None:
    """The sentence of :func:`data_sentence` when the rerun lacks its data, else None.

    Parameters
    ----------
    dataset : str
        The config's dataset: a built-in sample (needs nothing), ``csv:<file name>`` (the
        private table: ``--data`` or the bundle's own copy) or a public dataset's name (the
        folder from ``--data`` or ``$PUX_DATA_DIR``).
    bundled : bool
        The bundle holds a table.
    given : bool
        ``--data`` was given.
    environ : mapping, optional
        The environment to read ``PUX_DATA_DIR`` from (default: this process's).
    """
    if given or dataset in SAMPLES:
        return None
    if csv_name(dataset) is not None:
        return None if bundled else data_sentence(dataset, bundled=False)
    env = os.environ if environ is None else environ
    return None if env.get("PUX_DATA_DIR") else data_sentence(dataset, bundled=False)
