"""Every chart with its data: the figure, and right under it a small "Chart data (CSV)" button.

The CSV is the tidy frame the chart is drawn from (one column per quantity, named in words,
no index column), built only when the button is clicked. The frames come from the pure
``*_data`` functions of :mod:`dashboard.shared.widgets.charts`, which the chart builders draw from, so what
is downloaded is what is drawn.
"""
from __future__ import annotations

import re
from typing import Any, Callable, Union

import pandas as pd
import streamlit as st

from core.data.export import to_csv_bytes
from dashboard.shared.widgets.layout import for_export, inert
from dashboard.shared.widgets.present_chart import for_projector
from dashboard.shared.widgets.present import is_presenting

__all__ = ["show_chart", "chart_csv", "csv_key", "CSV_LABEL"]

CSV_LABEL = "Chart data (CSV)"

ChartData = Union[pd.DataFrame, Callable[[], pd.DataFrame]]

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def chart_csv(frame: pd.DataFrame) -> bytes:
    """UTF-8 CSV of ``frame`` without its index; text cells a spreadsheet would run as
    formulas get a leading quote (:func:`core.data.export.to_csv_bytes`)."""
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"chart data must be a pandas DataFrame, got {type(frame).__name__}.")
    return to_csv_bytes(frame)


def file_stem(name: str) -> str:
    """``name`` as a portable file name: runs of other characters than letters, digits,
    '.', '_' and '-' become one '-' ('distribution of age%' -> 'distribution-of-age')."""
    stem = _UNSAFE.sub("-", str(name)).strip("-.")
    return stem or "chart"


def csv_key(chart_key: str) -> str:
    """Widget key of the CSV button under the chart whose key is ``chart_key``."""
    return f"{chart_key}_csv"


def show_chart(chart: Any, data: ChartData, *, name: str, key: str | None = None, **kwargs: Any) -> None:
    """Draw ``chart`` (plotly or altair) and under it a compact download of ``data`` as CSV.

    A plotly figure is drawn as :func:`dashboard.shared.widgets.layout.inert` (user values as text,
    never markup) and :func:`dashboard.shared.widgets.layout.tidy` (no text over other text or cut
    by the edge) make it (:func:`dashboard.shared.widgets.layout.for_export`: both in one pass over
    the figure's dicts, a millisecond or two), enlarged by
    :func:`dashboard.shared.widgets.present_chart.for_projector` while presenting; the figure passed
    in is left as it is. Pass ``data`` as a callable where building the frame costs
    something: a chart redrawn on every slider move then builds it only on download.

    Parameters
    ----------
    chart : plotly Figure or altair Chart
    data : DataFrame or callable returning one
        The tidy frame the chart is drawn from; a callable is called only on download.
    name : str
        The CSV's file name without '.csv' (made portable); also names the widget keys
        when ``key`` is not given, so it must be unique on the page.
    key : str, optional
        The chart's key; the button's key is ``key + '_csv'``.
    **kwargs
        Passed on to ``st.plotly_chart`` / ``st.altair_chart`` (``width``, ...).
    """
    key = key or f"chart_{file_stem(name)}"
    if _is_plotly(chart):
        # the data drawn as text, never markup; then laid out so no text overlaps or is cut
        # (both on the figure's plain dicts, in one pass, without re-validating it)
        chart = for_projector(inert(chart)) if is_presenting() else for_export(chart)
        st.plotly_chart(chart, key=key, **kwargs)
    else:
        st.altair_chart(chart, key=key, **kwargs)
    build = data if callable(data) else (lambda: data)
    st.download_button(
        CSV_LABEL, lambda: chart_csv(build()), file_name=f"{file_stem(name)}.csv", mime="text/csv",
        key=csv_key(key), type="tertiary", icon=":material/download:", on_click="ignore",
        help="The numbers this chart draws, one row per point or bar.",
    )


def _is_plotly(chart: Any) -> bool:
    try:
        import plotly.graph_objects as go
    except ImportError:  # pragma: no cover - plotly is a dependency
        return False
    return isinstance(chart, go.Figure)
