"""Compare page: the training rows against a released table of the comparison, column by
column and pair by pair (the shared :func:`dashboard.shared.widgets.fidelity_view.real_vs_release`).

The tables are the ones the comparison kept (:func:`dashboard.compare.report_fidelity.released_tables`:
the first repetition's release per method and epsilon, a seeded sample of at most
``result.parameters["table_rows"]`` rows, beside a sample of the training part as large).
Nothing is computed until the section is opened.
"""
from __future__ import annotations

import streamlit as st

from dashboard.compare.report_fidelity import released_tables
from dashboard.shared.widgets.fidelity_view import real_vs_release

__all__ = ["NOTHING_KEPT", "real_vs_release_section", "section_caption"]

#: said where the comparison kept no released table
NOTHING_KEPT = ("No method of this comparison releases a table (models only): there is no released table to set "
                "against the training rows.")


def section_caption(result) -> str:
    """What the section sets against what, in words (no user text in it)."""
    rows = result.parameters.get("table_rows")
    cap = f"at most {rows:,} rows of each side (a seeded sample above it)" if isinstance(rows, int) else \
        "a seeded sample of rows of each side"
    return ("The training rows every method released against the table one method released: the first "
            f"repetition's release at each epsilon, {cap}. The table of every measure gives the same two means "
            "(column_shape, pair_trend) averaged over the repetitions.")


def real_vs_release_section(result) -> None:
    """The "Real against release" subheader and section of the Compare page: pick a released
    table, see each column's distribution and the pairwise association against the training
    rows, with SDMetrics' column-shape and pair-trend scores (computed only when opened)."""
    st.subheader("Real against release")
    tables = released_tables(result)
    if not tables:
        st.info(NOTHING_KEPT, icon=":material/info:")
        return
    st.caption(section_caption(result))
    real_vs_release(result.real, {label: table for label, (_, _, table) in tables.items()}, key="cmp_rvr",
                    title="Each column and pair of a released table against the training rows",
                    dataset=str(result.parameters.get("dataset", "")))
