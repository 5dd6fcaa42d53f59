"""Real against release, seen: the one section every page that releases a table shares.

:func:`real_vs_release` draws, in an expander that computes nothing until it is opened:

- a table of the column-shape score of each column (KS complement for a numeric column, TV
  complement for a categorical one) and their mean;
- a chosen column, real and release overlaid (:func:`dashboard.shared.widgets.fidelity_charts.column_overlay`);
- the pairwise association of the real table minus the release's as a heatmap
  (:func:`dashboard.shared.widgets.fidelity_charts.association_difference`), the pair-trend score of
  each pair in a table and their mean;
- one line saying that these are SDMetrics' scores computed here (1 = the same
  distribution) and that they read the private rows: shown, not released;
- a note for each column whose scores say little: one that reads as an identifier (a row
  number, a key) or that holds one value in the real table
  (:func:`core.evaluation.fidelity.column_notes`).

Big tables are scored on a seeded sample of :data:`SAMPLE_ROWS` rows of each side (the same
positions when both sides have as many rows, so an aligned release equal to the real table
scores 1), and pairs among the first :data:`PAIR_COLUMNS` shared columns only; the section
says so. The scores are cached (``st.cache_data``, keyed by the sampled tables' content).
"""
from __future__ import annotations

from typing import Callable, Mapping, Union

import pandas as pd
import streamlit as st

from core.evaluation.fidelity import column_notes, column_shapes, halves_reference, pair_trends
from dashboard.shared.serving.cache import TTL
from dashboard.shared.widgets.chart_data import show_chart
from dashboard.shared.widgets.fidelity_charts import (
    SAMPLE_ROWS, SAMPLE_SEED, association_difference, column_overlay, overlay_data, sampled,
)
from dashboard.shared.safe import md

__all__ = ["PAIR_COLUMNS", "SAMPLE_ROWS", "SCORES_NOTE", "real_vs_release", "sampled", "scores"]

#: the pair scores and the heatmap cover the first this many shared columns (300 pairs)
PAIR_COLUMNS = 25
#: the one line under every such section
SCORES_NOTE = ("Scores as SDMetrics defines them, computed here: column shape (KS complement for numbers, TV "
               "complement for categories) and pair trend (correlation or contingency similarity); 1 = the same "
               "distribution. They read the private rows: shown, not released.")
_TEST = {"KSComplement": "KS complement", "TVComplement": "TV complement"}
_KIND = {"KSComplement": "numeric", "TVComplement": "categorical"}

TableOrMaker = Union[pd.DataFrame, Callable[[], pd.DataFrame]]


@st.cache_data(max_entries=8, ttl=TTL, show_spinner="Scoring the release against the real table...")
def scores(real: pd.DataFrame, release: pd.DataFrame,
           columns: tuple[str, ...]) -> tuple[pd.DataFrame, pd.DataFrame, dict[str, str], dict]:
    """(column shapes, pair trends, notes, reference) of ``columns`` (pairs among the first
    :data:`PAIR_COLUMNS`): the shapes with the column's ``kind`` and ``test`` in words, the
    notes what an identifier's or a constant column's scores cannot say
    (:func:`core.evaluation.fidelity.column_notes`), the reference two random halves of the
    real rows against each other (:func:`core.evaluation.fidelity.halves_reference`, on the
    first :data:`PAIR_COLUMNS` columns: sampling noise alone)."""
    shapes = column_shapes(real, release, list(columns))
    shapes.insert(1, "kind", shapes["metric"].map(_KIND))
    shapes["test"] = shapes["metric"].map(_TEST)
    trends = pair_trends(real, release, list(columns[:PAIR_COLUMNS]))
    reference = halves_reference(real, list(columns[:PAIR_COLUMNS]), random_state=SAMPLE_SEED)
    return shapes[["column", "kind", "score", "test"]], trends, column_notes(real, list(columns)), reference


def _mean(values: pd.Series) -> str:
    return f"{values.mean():.3f}" if values.notna().any() else "n/a"


def _against(reference: dict, which: str) -> str:
    """The mean's reference in words: two random halves of the real rows."""
    value = reference[which]
    return "" if pd.isna(value) else f"; two random halves of the real rows: {value:.3f}"


def _chosen(release: pd.DataFrame | Mapping[str, TableOrMaker], key: str) -> pd.DataFrame:
    """The release to show: the table itself, or the one picked from the mapping."""
    if isinstance(release, pd.DataFrame):
        return release
    names = list(release)
    name = names[0] if len(names) == 1 else st.selectbox("Release", names, key=f"{key}_release")
    table = release[name]
    return table() if callable(table) else table


def _coverage(real: pd.DataFrame, release: pd.DataFrame, shared: list[str]) -> None:
    """What is not scored, in words: columns on one side only, the sample, the pairs left out."""
    notes = []
    missing = [c for c in real.columns if c not in release.columns]
    if missing:
        notes.append("Not in the release (not scored): " + ", ".join(md(c) for c in missing) + ".")
    if max(len(real), len(release)) > SAMPLE_ROWS:
        notes.append(f"Scored on a seeded sample of at most {SAMPLE_ROWS:,} rows of each side "
                     f"({len(real):,} real rows, {len(release):,} released).")
    if len(shared) > PAIR_COLUMNS:
        notes.append(f"Pairs among the first {PAIR_COLUMNS} columns only.")
    for note in notes:
        st.caption(note)


def _shapes_part(real: pd.DataFrame, release: pd.DataFrame, shapes: pd.DataFrame, *, key: str,
                 dataset: str, reference: dict) -> None:
    st.markdown(f"**Column shapes** (mean {_mean(shapes['score'])}{_against(reference, 'column_shapes')})")
    st.dataframe(shapes, hide_index=True, key=f"{key}_shapes",
                 column_config={"score": st.column_config.NumberColumn(format="%.3f")})
    column = st.selectbox("Column to overlay", list(shapes["column"]), key=f"{key}_column")
    show_chart(column_overlay(real[column], release[column], column=column, dataset=dataset),
               overlay_data(real[column], release[column]), name=f"{key}-overlay", key=f"{key}_overlay")


def _pairs_part(real: pd.DataFrame, release: pd.DataFrame, trends: pd.DataFrame, *, key: str,
                dataset: str, reference: dict) -> None:
    if trends.empty:
        st.info("One column only: there is no pair of columns to score.")
        return
    st.markdown(f"**Pair trends** (mean {_mean(trends['score'])}{_against(reference, 'pair_trends')})")
    show_chart(association_difference(real, release, dataset=dataset, trends=trends), trends,
               name=f"{key}-association-difference", key=f"{key}_heatmap")
    st.dataframe(trends, hide_index=True, key=f"{key}_pairs",
                 column_config={c: st.column_config.NumberColumn(format="%.3f")
                                for c in ("real", "release", "difference", "score")})


def _section(real: pd.DataFrame, release: pd.DataFrame, *, key: str, dataset: str) -> None:
    st.caption(SCORES_NOTE)
    shared = [c for c in real.columns if c in release.columns]
    if not shared:
        st.info("The release shares no column with the real table: nothing to compare.")
        return
    if len(real) == 0 or len(release) == 0:
        st.info("One of the tables has no rows: nothing to compare.")
        return
    _coverage(real, release, shared)
    real_s, release_s = sampled(real[shared], release[shared])
    shapes, trends, notes, reference = scores(real_s, release_s, tuple(shared))
    for column, note in notes.items():
        st.caption(f"{md(column)}: {md(note)}")
    if reference["rows"] >= 1:
        st.caption(f"Reference: two random halves of the real rows ({reference['rows']:,} each) against each "
                   "other, what sampling noise alone scores. A release that scores about as high is as close to the "
                   "real rows as a fresh sample of them; only a copy of the rows scores 1.")
    _shapes_part(real_s, release_s, shapes, key=key, dataset=dataset, reference=reference)
    _pairs_part(real_s, release_s, trends, key=key, dataset=dataset, reference=reference)


def real_vs_release(real: pd.DataFrame, release: pd.DataFrame | Mapping[str, TableOrMaker], *, key: str,
                    title: str = "Real against release", dataset: str = "", expanded: bool = False) -> None:
    """The real table against a released one, column by column and pair by pair, in an
    expander that computes nothing until it is opened.

    Parameters
    ----------
    real : DataFrame
        The private rows the release came from (read here for evaluation only: nothing of
        this section is released).
    release : DataFrame, or mapping of name to DataFrame or to a callable returning one
        The released table; with several, a selectbox picks one (a callable is called only
        when its table is shown).
    key : str
        Prefix of every widget key of the section (unique on the page).
    title : str
        The expander's label.
    dataset : str
        The dataset's name, for the chart titles.
    expanded : bool
        Whether the expander starts open.
    """
    if not isinstance(real, pd.DataFrame):
        raise TypeError(f"real must be a pandas DataFrame, got {type(real).__name__}.")
    with st.expander(title, expanded=expanded, key=f"{key}_open", on_change="rerun",
                     icon=":material/compare:") as box:
        if not box.open:
            return
        table = _chosen(release, key)
        if not isinstance(table, pd.DataFrame):
            raise TypeError(f"a release must be a pandas DataFrame, got {type(table).__name__}.")
        _section(real, table, key=key, dataset=dataset)
