"""The real-table sweep over the whole corpus (issue 39): every page on every table, timed.

Each table of :data:`tests.real_tables.corpus.CORPUS` (public tables that ship inside installed
packages, Adult and NLTCS from ``PUX_DATA_DIR``) is uploaded on the Data page in AppTest, then
every page runs at its defaults and with its main action, with the caps of
:class:`tests.real_tables.sweep.Caps`: Compare on at most 500 rows, 1 repetition, epsilon 1
alone, IMPOSTER 2 epochs (its page and Compare's). The Tour works on its own samples and runs once. The JSON
holds one row per page x table (seconds, what was shown, the warnings, the problems found)
and the same as a markdown table (``table``); issue 39's budget for the whole corpus is 45
minutes (``within_budget``; None for a part of the corpus). A table whose package is absent is listed under ``skipped``
with the reason.

``quick``: three small tables. ``PUX_REAL_TABLES=spector,cars`` runs the tables named;
``PUX_REAL_TABLES_PAGES=data,dc_fbfs`` the pages named.
"""
from __future__ import annotations

import os
import sys
import time

from tests.real_tables.corpus import BY_NAME, CORPUS, Unavailable
from tests.real_tables.sweep import TABLE_PAGES, Caps, Record, sweep

#: issue 39's budget for the whole corpus, in seconds
BUDGET_S = 45 * 60
QUICK = ("spector", "burtin", "cars")
_TOUR_TABLE = "spector"


def _stop_jobs() -> None:
    """AppTest has no runtime to end a session: stop the pages' jobs between tables."""
    from dashboard.shared.serving.jobs import POOL, SETUP_POOL

    POOL.stop_all()
    SETUP_POOL.stop_all()


def _cell(record: Record) -> str:
    mark = "FAIL" if record.problems else ("warn" if record.warnings else "ok")
    action = record.shown.get("action", "")
    return f"{record.seconds:.0f} s {mark}" + (f" ({action})" if action not in ("", "run", "defaults") else "")


def markdown(records: list[Record], pages) -> str:
    """The sweep's table: a row per table, a column per page, each cell 'seconds status'."""
    tables = list(dict.fromkeys(r.table for r in records))
    lines = ["| table | " + " | ".join(pages) + " |", "|---" * (len(pages) + 1) + "|"]
    for table in tables:
        cells = {r.page: _cell(r) for r in records if r.table == table}
        lines.append(f"| {table} | " + " | ".join(cells.get(p, "") for p in pages) + " |")
    return "\n".join(lines)


def _chosen(quick: bool) -> tuple[list[str], tuple[str, ...]]:
    names = os.environ.get("PUX_REAL_TABLES")
    tables = [n.strip() for n in names.split(",") if n.strip()] if names else (
        list(QUICK) if quick else [t.name for t in CORPUS])
    unknown = [n for n in tables if n not in BY_NAME]
    if unknown:
        raise ValueError(f"PUX_REAL_TABLES names tables the corpus lacks: {unknown}; it holds {list(BY_NAME)}.")
    pages = os.environ.get("PUX_REAL_TABLES_PAGES")
    return tables, tuple(p.strip() for p in pages.split(",")) if pages else TABLE_PAGES


def run(*, quick: bool = False) -> dict:
    tables, pages = _chosen(quick)
    caps = Caps()
    records: list[Record] = []
    skipped: dict[str, str] = {}
    start = time.perf_counter()
    for name in tables:
        def progress(page: str, name: str = name) -> None:
            print(f"[{time.perf_counter() - start:7.1f}s] {name} · {page}", file=sys.stderr, flush=True)

        try:
            done = sweep(BY_NAME[name], pages, caps=caps, progress=progress)
            records += done
            for record in done:  # each row as it comes: a long run can be read while it goes
                print(f"  {record.page} x {record.table}: {_cell(record)} {record.problems}", file=sys.stderr, flush=True)
        except Unavailable as exc:
            skipped[name] = str(exc)
        finally:
            _stop_jobs()
    if "tour" not in pages and not os.environ.get("PUX_REAL_TABLES_PAGES"):
        records += sweep(BY_NAME[_TOUR_TABLE], ("tour",), caps=caps)
        _stop_jobs()
    total = time.perf_counter() - start
    all_pages = list(pages) + (["tour"] if any(r.page == "tour" for r in records) else [])
    table = markdown(records, all_pages)
    print(table, file=sys.stderr, flush=True)
    failures = [f"{r.page} x {r.table}: {p}" for r in records for p in r.problems]
    return {
        "caps": {"rows": caps.rows, "epochs": caps.epochs, "repetitions": caps.repetitions,
                 "epsilons": list(caps.epsilons)},
        "tables": {n: {"package": BY_NAME[n].package, "rows": BY_NAME[n].rows, "label": BY_NAME[n].label,
                       "sensitive": list(BY_NAME[n].sensitive), "covers": list(BY_NAME[n].covers)}
                   for n in tables},
        "skipped": skipped, "pages": all_pages, "load_average": list(os.getloadavg()),
        "seconds_total": round(total, 1), "budget_s": BUDGET_S,
        # a part of the corpus has no budget of its own
        "within_budget": None if quick or os.environ.get("PUX_REAL_TABLES") else total <= BUDGET_S,
        "combinations": len(records), "failed": sum(bool(r.problems) for r in records),
        "failures": failures, "table": table, "rows": [r.to_dict() for r in records],
    }
