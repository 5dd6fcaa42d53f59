"""Compare's real against release, for the report and the page: each released table of a
comparison set against the training rows, column by column and pair by pair.

:func:`released_tables` lists the tables a :class:`~core.compare.result.ComparisonResult`
kept (the first repetition's release per method and epsilon, at most
``result.parameters["table_rows"]`` rows each, a seeded sample of the training part beside
them as ``result.real``), in the order of the frontier's table. :func:`score_tables` scores
each with SDMetrics' column-shape and pair-trend scores (:mod:`core.evaluation.fidelity`),
and :func:`fidelity_html` writes the report's section from them:

- what the scores are, which rows they read, and that they are evaluation of the private
  rows, not a release;
- one row per released table: its mean column-shape and pair-trend scores, its lowest
  column and pair, beside the reference (two random halves of the training rows against
  each other: what sampling noise alone scores);
- the column-shape score of every column for every released table (a compact grid);
- a note for a column whose scores say little (an identifier, a constant column);
- per method, at its middle epsilon: the heatmap of real minus release pairwise association
  and the overlay of its lowest-scoring column (embedded plotly; plotly.js is inlined once
  by the report's first figure, before this section).

Every string that came from the user (dataset, column names, categories) is HTML-escaped
here or, in the charts, by :func:`dashboard.shared.widgets.layout.for_export`. No streamlit import:
the command line builds the same report.
"""
from __future__ import annotations

import math
from typing import Any, Iterable, NamedTuple

import pandas as pd
import plotly.io as pio

from core.compare.measures import FIDELITY_ROWS
from core.compare.result import ComparisonResult
from core.evaluation.fidelity import capped, column_notes, column_shapes, halves_reference, pair_trends
from dashboard.compare.html_parts import escape, html_table
from dashboard.shared.widgets.fidelity_charts import association_difference, column_overlay
from dashboard.shared.widgets.layout import for_export

__all__ = ["REFERENCE_ROW", "Scored", "fidelity_html", "release_label", "released_tables", "score_tables"]

#: the reference row of the report's table
REFERENCE_ROW = "Reference: two random halves of the training rows"
#: the seed of the reference split and of any further sample (a display choice)
_SEED = 0
_NO_TABLE = "No released table was kept with this comparison"


class Scored(NamedTuple):
    """The scores of the released tables: ``summary`` (one row per table, the reference
    first), ``shapes`` (one row per column, one score column per table), ``trends`` (label ->
    :func:`core.evaluation.fidelity.pair_trends`), ``notes`` (column -> what its scores cannot say)."""

    summary: pd.DataFrame
    shapes: pd.DataFrame
    trends: dict[str, pd.DataFrame]
    notes: dict[str, str]


def _check(result: Any) -> ComparisonResult:
    if not isinstance(result, ComparisonResult):
        raise TypeError(f"result must be a ComparisonResult, got {type(result).__name__}.")
    return result


def release_label(method: str, epsilon: float | None) -> str:
    """A released table's name: the method, and its epsilon setting where it takes one."""
    return str(method) if epsilon is None or pd.isna(epsilon) else f"{method} at epsilon {float(epsilon):g}"


def released_tables(result: ComparisonResult) -> dict[str, tuple[str, float | None, pd.DataFrame]]:
    """Label -> (method, epsilon or None, table) of every kept released table, in the
    comparison's method order and by increasing epsilon; empty when the result kept none
    (models only, or a result made before tables were kept)."""
    result = _check(result)
    tables = getattr(result, "tables", None) or {}
    if getattr(result, "real", None) is None or not tables:
        return {}
    order = {m: i for i, m in enumerate(result.parameters.get("methods", []))}
    keys = sorted(tables, key=lambda k: (order.get(k[0], len(order)), str(k[0]),
                                         -math.inf if k[1] is None else float(k[1])))
    return {release_label(m, e): (m, e, tables[(m, e)]) for m, e in keys}


def _lowest(frame: pd.DataFrame, name: Any) -> str:
    """The lowest score of a scores frame, with what it belongs to ("" when none)."""
    scored = frame.dropna(subset=["score"])
    if scored.empty:
        return ""
    row = scored.loc[scored["score"].idxmin()]
    return f"{name(row)} ({row['score']:.3f})"


def _mean(values: pd.Series) -> float:
    return float(values.mean()) if values.notna().any() else math.nan


def score_tables(result: ComparisonResult) -> Scored:
    """Every kept released table scored against the training rows (at most
    :data:`core.compare.measures.FIDELITY_ROWS` rows of each side), with the reference.

    The scores read the private training rows: they are evaluation, shown in the report and
    on the page, never released.
    """
    tables = released_tables(result)
    if not tables:
        return Scored(pd.DataFrame(), pd.DataFrame(), {}, {})
    real = result.real
    rows, shapes, trends = [], {}, {}
    ref = halves_reference(real, random_state=_SEED)
    rows.append({"release": REFERENCE_ROW, "rows": f"{ref['rows']:,} and {ref['rows']:,}",
                 "column shape": ref["column_shapes"], "pair trend": ref["pair_trends"],
                 "lowest column": "", "lowest pair": ""})
    kinds: dict[str, str] = {}
    for label, (_, _, table) in tables.items():
        shared = [c for c in real.columns if c in table.columns]
        if not shared or len(table) == 0:
            rows.append({"release": label, "rows": f"{len(table):,}", "column shape": math.nan,
                         "pair trend": math.nan, "lowest column": "no column or row to compare", "lowest pair": ""})
            continue
        a, b = capped(real[shared], table[shared], max_rows=FIDELITY_ROWS, random_state=_SEED)
        cs, pt = column_shapes(a, b), pair_trends(a, b)
        kinds.update({c: "numeric" if m == "KSComplement" else "categorical"
                      for c, m in zip(cs["column"], cs["metric"])})
        shapes[label], trends[label] = dict(zip(cs["column"], cs["score"])), pt
        rows.append({"release": label, "rows": f"{len(b):,}", "column shape": _mean(cs["score"]),
                     "pair trend": _mean(pt["score"]), "lowest column": _lowest(cs, lambda r: r["column"]),
                     "lowest pair": _lowest(pt, lambda r: f"{r['left']} / {r['right']}")})
    grid = pd.DataFrame({"column": list(real.columns), "kind": [kinds.get(c, "") for c in real.columns]})
    for label, scores in shapes.items():
        grid[label] = [scores.get(c, math.nan) for c in real.columns]
    return Scored(pd.DataFrame(rows), grid, trends, column_notes(real))


# ----------------------------------------------------------------------------- HTML
_e = escape


def _cell(value: Any) -> str:
    if isinstance(value, float):
        return "" if math.isnan(value) else f"{value:.3f}"
    return str(value)


def _table(header: Iterable[Any], rows: Iterable[Iterable[Any]], *, numeric: Iterable[int] = ()) -> str:
    """:func:`~dashboard.compare.html_parts.html_table` with numbers to three decimals, NaN empty."""
    return html_table(header, ([_cell(c) for c in row] for row in rows), numeric=numeric)


def _middle(labels: list[str], tables: dict) -> list[str]:
    """Per method, the label of its release at the middle of its epsilons (the lower middle)."""
    by_method: dict[str, list[str]] = {}
    for label in labels:
        by_method.setdefault(tables[label][0], []).append(label)
    return [names[(len(names) - 1) // 2] for names in by_method.values()]


def _charts(result: ComparisonResult, scored: Scored) -> list[str]:
    """Per method at its middle epsilon: the association heatmap and the overlay of its
    lowest-scoring column, each as an embedded plotly div (plotly.js not included)."""
    tables = released_tables(result)
    dataset = str(result.parameters.get("dataset", ""))
    out = []
    for i, label in enumerate(_middle(list(scored.trends), tables)):
        table, trends = tables[label][2], scored.trends[label]
        shared = [c for c in result.real.columns if c in table.columns]
        real, release = capped(result.real[shared], table[shared], max_rows=FIDELITY_ROWS, random_state=_SEED)
        figures = []
        if not trends.empty:
            figures.append((f"rvr-pairs-{i}", association_difference(real, release, dataset=dataset, trends=trends)))
        column = scored.shapes.set_index("column")[label].dropna()
        if len(column):
            worst = column.idxmin()
            figures.append((f"rvr-column-{i}", column_overlay(real[worst], release[worst], column=worst,
                                                              dataset=dataset)))
        out.append(f"<h3>{_e(label)}</h3>")
        out += [pio.to_html(for_export(fig), full_html=False, include_plotlyjs=False, div_id=div_id,
                            config={"displaylogo": False, "responsive": True}) for div_id, fig in figures]
    return out


def _intro(result: ComparisonResult) -> str:
    rows = result.parameters.get("table_rows", FIDELITY_ROWS)
    return ('<p class="note">Each released table against the training rows it came from: the first repetition\'s '
            f"release per method and epsilon, at most {_e(f'{rows:,}')} rows of each side (a seeded sample "
            "above it). Scores as SDMetrics defines them, computed here: column shape (KS complement for a "
            "numeric column, TV complement for a categorical one) and pair trend (correlation similarity for "
            "two numbers, contingency similarity otherwise, numbers in 10 equal-width bins); 1 = the same "
            "distribution. The reference row is two random halves of the training rows against each other: what "
            "sampling noise alone scores (at half the rows). A synthetic table that scores about as high is as close "
            "to the training rows as fresh data from their distribution; a release that perturbs or groups the "
            "real rows themselves can score above it, and a copy scores 1. The table "
            "of every measure gives the same two means over all repetitions (column_shape, pair_trend). These "
            "scores read the private rows: they are evaluation, shown here, not released.</p>")


def fidelity_html(result: ComparisonResult, *, charts: bool = True) -> str:
    """The report's "Real against release" section, its ``<h2>`` heading included.

    Parameters
    ----------
    result : ComparisonResult
        The comparison; its ``tables`` and ``real`` (kept in memory, not in its JSON) are
        what the section reads. The training rows in them are private: every number here is
        evaluation, never a release.
    charts : bool
        Whether to embed, per method, the association heatmap and the overlay of its
        lowest-scoring column (plotly divs that need plotly.js loaded earlier in the page, as
        the report's frontier loads it).

    Returns
    -------
    str
        HTML, every user string escaped.
    """
    result = _check(result)
    parts = ["<h2>Real against release</h2>"]
    scored = score_tables(result)
    if scored.summary.empty:
        why = ("no method of this comparison releases a table" if getattr(result, "real", None) is not None
               else "this result keeps no table")
        return "\n".join(parts + [f"<p>{_NO_TABLE}: {_e(why)}.</p>"])
    summary = scored.summary
    parts += [_intro(result), _table(["release", "rows compared", "mean column shape", "mean pair trend",
                                      "lowest column (score)", "lowest pair (score)"],
                                     summary[["release", "rows", "column shape", "pair trend", "lowest column",
                                              "lowest pair"]].itertuples(index=False), numeric=[2, 3]),
              "<h3>Column shape of each column</h3>",
              _table(list(scored.shapes.columns), scored.shapes.itertuples(index=False),
                     numeric=range(2, len(scored.shapes.columns)))]
    parts += [f'<p class="note"><b>{_e(c)}</b>: {_e(n)}</p>' for c, n in scored.notes.items()]
    if charts:
        parts += ['<p class="note">Per method at its middle epsilon: the pairwise association of the training '
                  "rows minus the release's (0: kept; red: lost; blue: made up) and the column it keeps worst.</p>",
                  *_charts(result, scored)]
    return "\n".join(parts)
