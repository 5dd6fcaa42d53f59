"""The entry points a file takes to a release, each run from the file's bytes as users run it.

Each entry point takes the CSV bytes and the declared schema and returns a
:class:`PipelineView`: what the release that follows it can depend on (the schema it uses,
the identifiers it leaves out, the columns it keeps, n, and the table it releases from,
mapped into the public domain, with the held-out part where the entry holds one out). The
exact audit (:mod:`core.file_audit.exact`) compares the views of two neighbouring files.

* ``data page``: the Data page with a declared schema: the upload read again by it
  (:func:`core.privacy.schema_read.read_csv_by_schema`, as
  ``dashboard.data.sections.reread_upload`` does), identifiers left out as every page sees it;
* ``pux compare``: a ``pux-compare/1`` config naming the CSV, loaded by
  :func:`core.compare.config.load_dataset`, then Compare's schema check, identifiers and
  split (:func:`core.compare.run.run_context`);
* ``pux solve``: a ``pux-solve/1`` config, :func:`core.decide.run.load_solve_data` and the
  pages' row sample (:func:`core.decide.pages.limit_rows`);
* ``pux bundle``: a ``pux-page/1`` config, :func:`core.bundle.page_config.load_page_dataset`
  and its schema (what ``pux bundle`` and ``pux rerun`` read).
"""
from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import pandas as pd

from core.data import Dataset
from core.privacy.schema import PublicSchema

__all__ = ["PipelineView", "ENTRY_POINTS", "run_entry", "view_of"]

#: The seed every entry point runs with (the exact audit compares two files at one seed).
SEED = 0


@dataclass(frozen=True)
class PipelineView:
    """What a release after one entry point can depend on.

    Attributes
    ----------
    entry : str
        The entry point's name.
    schema : dict
        The public schema the release uses (:meth:`PublicSchema.to_dict`).
    identifiers : tuple of str
        The columns left out as identifiers.
    columns : tuple of str
        The columns the release sees.
    n : int
        Records the release reads from (training part and holdout together).
    train, holdout : DataFrame
        The part the release is made from and the held-out records, each mapped into the
        public domain record by record (:meth:`PublicSchema.conform`); ``holdout`` is empty
        where the entry holds nothing out.
    """

    entry: str
    schema: dict
    identifiers: tuple[str, ...]
    columns: tuple[str, ...]
    n: int
    train: pd.DataFrame
    holdout: pd.DataFrame


def view_of(entry: str, dataset: Dataset, schema: PublicSchema, holdout: pd.DataFrame | None = None,
            dropped: tuple[str, ...] = ()) -> PipelineView:
    """The view of ``dataset`` (the part releases are made from) under ``schema``."""
    cols = [c for c in dataset.frame.columns if c in schema and schema[c].kind != "identifier"]
    held = pd.DataFrame(columns=cols) if holdout is None else schema.conform(holdout, cols)
    return PipelineView(entry, schema.to_dict(), tuple(dropped), tuple(cols),
                        dataset.n_rows + (0 if holdout is None else len(holdout)),
                        schema.conform(dataset.frame, cols).reset_index(drop=True), held.reset_index(drop=True))


def _data_page(raw: bytes, schema: PublicSchema, folder: Path) -> PipelineView:
    from core.privacy.schema_read import read_csv_by_schema

    chosen = read_csv_by_schema(raw, schema, name="upload").without_identifiers()
    return view_of("data page", chosen, schema, dropped=_dropped(schema, chosen))


def _dropped(schema: PublicSchema, dataset: Dataset) -> tuple[str, ...]:
    """The schema's columns the entry left out of what releases see."""
    return tuple(c for c in schema.names if c not in dataset.frame.columns)


def _csv(raw: bytes, folder: Path) -> Path:
    path = folder / "table.csv"
    path.write_bytes(raw)
    return path


def _compare(raw: bytes, schema: PublicSchema, folder: Path) -> PipelineView:
    from core.compare.config import CompareConfig, load_dataset
    from core.compare.run import run_context

    config = CompareConfig(dataset="csv:table.csv", methods=("CDP-LR",), epsilons=(1.0,), seed=SEED,
                           label=schema.label, sensitive=tuple(schema.sensitive), schema=schema.to_dict())
    source = load_dataset(config, csv=_csv(raw, folder))
    ctx = run_context(source, schema=schema, random_state=config.seed)
    return view_of("pux compare", ctx.train, ctx.schema, ctx.holdout, dropped=_dropped(schema, ctx.train))


def _solve(raw: bytes, schema: PublicSchema, folder: Path) -> PipelineView:
    from core.decide.config import SolveConfig
    from core.decide.pages import limit_rows
    from core.decide.run import load_solve_data

    config = SolveConfig.from_dict({"format": "pux-solve/1", "dataset": "csv:table.csv", "page": "cdp_lr",
                                    "target": "accuracy>=0.6", "epsilons": [1.0], "schema": schema.to_dict(), "seed": SEED,
                                    "label": schema.label})
    dataset, used, _ = load_solve_data(config, csv=_csv(raw, folder))
    return view_of("pux solve", limit_rows(dataset, 5000, SEED), used, dropped=_dropped(schema, dataset))


def _bundle(raw: bytes, schema: PublicSchema, folder: Path) -> PipelineView:
    from core.bundle.page_config import PageConfig, load_page_dataset, page_schema

    config = PageConfig(page="sskm", dataset="csv:table.csv", seed=SEED, label=schema.label,
                        sensitive=tuple(schema.sensitive), schema=schema.to_dict())
    dataset = load_page_dataset(config, csv=_csv(raw, folder))
    return view_of("pux bundle", dataset, page_schema(config, dataset), dropped=_dropped(schema, dataset))


#: Every entry point by name: ``entry(raw, schema, folder) -> PipelineView``.
ENTRY_POINTS: dict[str, Callable[[bytes, PublicSchema, Path], PipelineView]] = {
    "data page": _data_page,
    "pux compare": _compare,
    "pux solve": _solve,
    "pux bundle": _bundle,
}


def run_entry(name: str, raw: bytes, schema: PublicSchema) -> PipelineView:
    """The view of ``raw`` through entry point ``name`` (a temporary folder holds the file)."""
    with tempfile.TemporaryDirectory(prefix="pux-file-audit-") as folder:
        return ENTRY_POINTS[name](raw, schema, Path(folder))
