"""The steps a bundle's rerun script takes besides the page's own numbers: finding the data,
and describing releases by their guarantee and shape (their values come from fresh noise)."""
from __future__ import annotations

import io
import os
from pathlib import Path
from typing import Any, Sequence

from core.bundle.data_needed import DATA_FOLDER as _DATA_FOLDER
from core.bundle.data_needed import data_sentence as _data_sentence
from core.bundle.page_config import PageConfig, load_page_dataset, page_schema
from core.bundle.pages import BundleRelease
from core.data import Dataset
from core.data.samples import SAMPLES
from core.privacy.schema import PublicSchema
from core.validation import DataError

__all__ = ["DATA_FOLDER", "bundle_data", "bundled_table", "data_sentence", "release_shapes", "seeded",
           "unguarded_table"]

#: Where a bundle keeps the private data when the user ticked "include the data".
DATA_FOLDER = _DATA_FOLDER


def seeded(config: PageConfig) -> bool:
    """Whether the bundle has seeded numbers to rerun (a bundle to publish has none)."""
    return config.seed is not None


def data_sentence(config: PageConfig, *, bundled: bool) -> str:
    """One sentence: what data the rerun needs and how to give it
    (:func:`core.bundle.data_needed.data_sentence`)."""
    return _data_sentence(config.dataset, bundled=bundled)


def bundle_data(config: PageConfig, *, folder: str | os.PathLike, data: str | None) -> tuple[Dataset, PublicSchema]:
    """The dataset and public schema of a bundle unpacked in ``folder``.

    ``data`` is the ``--data`` argument: the CSV of an uploaded table or the folder of a
    public one (default ``$PUX_DATA_DIR``). Without it, an uploaded table's copy in the
    bundle's ``data/`` folder is used when there is one; otherwise a
    :class:`~core.validation.DataError` says, in one sentence, what to give.
    """
    if not isinstance(config, PageConfig):
        raise TypeError(f"config must be a PageConfig, got {type(config).__name__}.")
    bundled = Path(folder) / DATA_FOLDER
    csv = data_dir = None
    if config.csv_name is not None:
        own = None if data is not None else _bundled_file(bundled)
        csv = data if data is not None else (None if own is None else unguarded_table(Path(own).read_bytes()))
    elif config.dataset not in SAMPLES:
        data_dir = data  # None: $PUX_DATA_DIR (a public dataset is never copied into a bundle)
    if config.csv_name is not None and csv is None:
        raise DataError(data_sentence(config, bundled=False))
    dataset = load_page_dataset(config, data_dir=data_dir, csv=csv)
    return dataset, page_schema(config, dataset)


def bundled_table(frame: Any) -> bytes:
    """The table a colleague's bundle carries in ``data/``, as CSV a spreadsheet cannot run:
    every text cell or column name that starts with ``= + - @``, a tab, a carriage return or
    a quote gets a leading quote (:func:`core.privacy.release_formulas.guard_release_formulas`;
    numbers are left alone). :func:`unguarded_table` undoes it exactly, with no record."""
    from core.privacy.release_formulas import guard_release_formulas

    return guard_release_formulas(frame)[0].to_csv(index=False).encode("utf-8")


def unguarded_table(raw: bytes) -> bytes:
    """:func:`bundled_table`'s CSV as the table was: one leading quote taken off every cell and
    name that starts with one (only the guard puts it there: a text that began with a quote
    was given a second). The same bytes as the table's own CSV, so its fingerprint holds."""
    import pandas as pd

    frame = pd.read_csv(io.BytesIO(raw), dtype=str, keep_default_na=False, skip_blank_lines=False)
    if not (frame.columns.str.startswith("'").any() or frame.apply(lambda c: c.str.startswith("'")).any().any()):
        return raw
    frame.columns = [c[1:] if c.startswith("'") else c for c in frame.columns]
    frame = frame.apply(lambda c: c.where(~c.str.startswith("'"), c.str[1:]))
    return frame.to_csv(index=False).encode("utf-8")


def _bundled_file(folder: Path) -> str | None:
    files = sorted(folder.glob("*.csv")) if folder.is_dir() else []
    return str(files[0]) if files else None


def release_shapes(tables: Sequence[BundleRelease]) -> list[dict[str, Any]]:
    """Each release by what a rerun can check: name, method, rows (null when its count is drawn
    with its noise; ``any_rows`` then says that rows came out), columns, guarantee."""
    out = []
    for t in tables:
        eps, dlt = t.ledger.total() if t.ledger.is_dp else (None, None)
        rows = None if t.rows_drawn else int(len(t.frame))  # a noisy count differs at every draw
        out.append({"name": t.name, "method": t.method, "rows": rows, "rows_drawn": bool(t.rows_drawn),
                    "any_rows": bool(len(t.frame) > 0),
                    "columns": [str(c) for c in t.frame.columns], "is_dp": bool(t.ledger.is_dp),
                    "epsilon": eps, "delta": dlt, "guarantee": t.ledger.describe()})
    return out
