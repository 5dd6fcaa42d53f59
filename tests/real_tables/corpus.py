"""The real-table corpus of the sweep (issue 39): public tables that ship inside installed
packages, plus Adult and NLTCS from the operator's data folder.

This module is the manifest: each :class:`Table` names its package, the loader that reads it
from the package's own files (never the network: statsmodels' and scikit-learn's bundled
CSVs, palmerpenguins' and vega_datasets' local files), the roles a user would give it on the
Data page, and what it covers. The tables themselves are never committed.

A table enters as an upload would (:func:`upload`): written to CSV bytes in memory, read by
:func:`core.data.csv_loader.load_csv`, then given its roles on top of the identifiers the
loader found (:meth:`core.data.Dataset.with_roles`, as the Data page's role widgets do). When
its package is absent (or Adult / NLTCS are not provided), :func:`frame` raises
:class:`Unavailable` with the reason, and the sweep skips that table.
"""
from __future__ import annotations

import importlib
import io
import os
import warnings
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from core.data import Dataset, load_csv

__all__ = ["Table", "CORPUS", "BY_NAME", "COVERAGE", "Unavailable", "frame", "upload", "csv_bytes"]

#: what the corpus must cover, with the rows that cover it (checked by a test)
COVERAGE = ("missing values", "text or name column", "identifier", "one-class label", "rare label",
            "many categories", "no label", "tiny", "wide", "large")


class Unavailable(RuntimeError):
    """The table cannot be read here (its package is not installed, or the data folder lacks it)."""


@dataclass(frozen=True)
class Table:
    """One real public table of the corpus.

    Attributes
    ----------
    name : str
        Its name in the sweep (also the dataset's display name).
    package : str
        The installed package (or ``"PUX_DATA_DIR"``) that ships it.
    loader : str
        How it is read: ``module:function`` returning a frame or a bunch (``.frame``), or a
        statsmodels dataset module (``load_pandas().data``); ``public:adult`` / ``public:nltcs``
        for the operator's data folder.
    label : str or None
        The column to predict (what the Data page's label box would hold).
    sensitive : tuple of str
        The columns to protect.
    covers : tuple of str
        Which of :data:`COVERAGE` it covers.
    index_as : str or None
        Write the frame's index as a first column of this name (R's ``rownames``, the state
        names of statsmodels' statecrime); None drops the index.
    refused : str or None
        When the Data page must refuse ``label`` (a one-class label): words its one-sentence
        refusal holds. The other pages then get the table without a label, as the Data page
        keeps the roles from before.
    rows : int
        Its number of rows (checked against the loaded table).
    """

    name: str
    package: str
    loader: str
    label: str | None
    sensitive: tuple[str, ...]
    covers: tuple[str, ...]
    rows: int
    index_as: str | None = None
    refused: str | None = None


def _sm(name: str) -> str:
    return f"statsmodels.datasets.{name}:load_pandas"


def _vega(name: str) -> str:
    return f"vega_datasets:local_data.{name}"


CORPUS: tuple[Table, ...] = (
    # ---- the operator's public data (PUX_DATA_DIR)
    Table("adult", "PUX_DATA_DIR", "public:adult", "income", ("sex",), rows=48_842,
          covers=("missing values", "many categories", "large")),
    Table("nltcs", "PUX_DATA_DIR", "public:nltcs", "x16", ("x1",), rows=21_574,
          covers=("large",)),
    # ---- palmerpenguins
    Table("penguins", "palmerpenguins", "palmerpenguins:load_penguins", "species", ("sex",), rows=344,
          covers=("missing values",)),
    # ---- vega_datasets' local files
    Table("cars", "vega_datasets", _vega("cars"), "Cylinders", ("Origin",), rows=406,
          covers=("missing values", "text or name column", "rare label")),
    Table("airports", "vega_datasets", _vega("airports"), "country", ("state",), rows=3_376,
          covers=("identifier", "text or name column", "rare label", "many categories", "missing values")),
    Table("seattle_weather", "vega_datasets", _vega("seattle_weather"), "weather", (), rows=1_461,
          covers=("rare label", "identifier")),
    Table("la_riots", "vega_datasets", _vega("la_riots"), "type", ("race",), rows=63,
          covers=("text or name column", "missing values")),
    Table("burtin", "vega_datasets", _vega("burtin"), "Gram_Staining", ("Genus",), rows=16,
          covers=("tiny", "identifier", "text or name column")),
    Table("barley", "vega_datasets", _vega("barley"), "site", ("variety",), rows=120,
          covers=("many categories",)),
    # ---- statsmodels' datasets
    Table("spector", "statsmodels", _sm("spector"), "GRADE", ("PSI",), rows=32, covers=("tiny",)),
    Table("anes96", "statsmodels", _sm("anes96"), "vote", ("PID",), rows=944, index_as="rownames",
          covers=("identifier",)),
    Table("fair", "statsmodels", _sm("fair"), "rate_marriage", ("religious",), rows=6_366, covers=()),
    Table("grunfeld", "statsmodels", _sm("grunfeld"), None, ("firm",), rows=220,
          covers=("no label", "text or name column")),
    Table("fertility", "statsmodels", _sm("fertility"), "Indicator Code", ("Country Name",), rows=219,
          refused="has a single value",
          covers=("one-class label", "missing values", "text or name column", "identifier",
                  "many categories", "wide")),
    Table("statecrime", "statsmodels", _sm("statecrime"), None, (), rows=51, index_as="state",
          covers=("no label", "identifier", "text or name column")),
    Table("modechoice", "statsmodels", _sm("modechoice"), "choice", ("mode",), rows=840, covers=()),
    Table("randhie", "statsmodels", _sm("randhie"), "hlthp", ("physlm",), rows=20_190,
          covers=("rare label", "large")),
    # ---- scikit-learn's bundled tables (load_*: local files)
    Table("iris", "scikit-learn", "sklearn.datasets:load_iris", "target", (), rows=150, covers=()),
    Table("breast_cancer", "scikit-learn", "sklearn.datasets:load_breast_cancer", "target", (), rows=569,
          covers=("wide",)),
    Table("digits", "scikit-learn", "sklearn.datasets:load_digits", "target", (), rows=1_797,
          covers=("wide", "many categories")),
    Table("linnerud", "scikit-learn", "sklearn.datasets:load_linnerud", None, (), rows=20,
          covers=("tiny", "no label")),
)

#: the corpus by name
BY_NAME: dict[str, Table] = {t.name: t for t in CORPUS}


def _public(name: str) -> pd.DataFrame:
    from core.data import available_public, load_adult, load_nltcs
    from core.validation import DataError

    root = os.environ.get("PUX_DATA_DIR")
    if not root or not Path(root).is_dir() or not available_public(None).get(name):
        raise Unavailable(f"{name} needs PUX_DATA_DIR pointing at a folder with its files (README, Datasets)")
    try:
        return (load_adult if name == "adult" else load_nltcs)().frame
    except DataError as exc:  # pragma: no cover - a broken copy of the data folder
        raise Unavailable(f"{name} could not be read from PUX_DATA_DIR: {exc}") from exc


def frame(table: Table) -> pd.DataFrame:
    """The table as its package ships it (the index written as a column when ``index_as``).

    Raises
    ------
    Unavailable
        Its package is not installed here, or the data folder lacks it.
    """
    if not isinstance(table, Table):
        raise TypeError(f"table must be a Table, got {type(table).__name__}.")
    if table.loader.startswith("public:"):
        return _public(table.loader.split(":", 1)[1])
    module_name, attr = table.loader.split(":", 1)
    try:
        obj = importlib.import_module(module_name)
    except ImportError as exc:
        raise Unavailable(f"{table.package} is not installed ({exc}); pip install '.[dev]'") from exc
    for part in attr.split("."):
        obj = getattr(obj, part)
    with warnings.catch_warnings():  # vega_datasets reads its files with arguments pandas deprecates
        warnings.simplefilter("ignore", FutureWarning)
        warnings.simplefilter("ignore", DeprecationWarning)
        data = obj()
    if module_name.startswith("statsmodels."):
        data = data.data
    elif not isinstance(data, pd.DataFrame):  # a scikit-learn bunch
        data = obj(as_frame=True).frame
    data = data.copy()
    if table.index_as is not None:
        if pd.api.types.is_integer_dtype(data.index):
            data.index = data.index + 1  # R counts rows from 1
        data = data.rename_axis(table.index_as).reset_index()
    return data


def csv_bytes(table: Table) -> bytes:
    """The table written as a CSV file in memory (what a user would upload)."""
    buffer = io.StringIO()
    frame(table).to_csv(buffer, index=False)
    return buffer.getvalue().encode("utf-8")


def upload(table: Table) -> tuple[bytes, Dataset, Dataset]:
    """(content, loaded, dataset): the CSV bytes, the table as :func:`load_csv` reads an upload
    (no roles), and the same with the table's roles set as the Data page sets them (without
    the label when the Data page refuses it: ``refused``).

    The label and sensitive columns win over a detected identifier (as on the Data page,
    where a column given a role leaves 'Identifiers (left out)').
    """
    content = csv_bytes(table)
    loaded = load_csv(content, name=table.name)
    label = None if table.refused else table.label
    roles = {label, *table.sensitive}
    dataset = loaded.with_roles(label=label, sensitive=table.sensitive,
                                identifiers=tuple(i for i in loaded.identifiers if i not in roles))
    return content, loaded, dataset
