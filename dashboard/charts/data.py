"""Charts of the Data page."""
from __future__ import annotations

import plotly.express as px
import plotly.graph_objects as go

from core.data import Dataset

__all__ = ["column_distribution", "missing_by_column"]


def column_distribution(dataset: Dataset, column: str, *, max_categories: int = 30) -> go.Figure:
    """Histogram of a numeric column or bar chart of a categorical one, split by label."""
    frame = dataset.frame
    if column not in frame.columns:
        raise ValueError(f"There is no column '{column}'.")
    color = dataset.label if dataset.label and dataset.label != column else None
    if column in dataset.numeric:
        fig = px.histogram(frame, x=column, color=color, nbins=40, barmode="stack",
                           title=f"Distribution of {column}" + (f" by {color}" if color else ""))
        fig.update_yaxes(title_text="rows")
    else:
        counts = (
            frame.groupby([column] + ([color] if color else []), dropna=False, observed=True)
            .size()
            .reset_index(name="count")
        )
        top = frame[column].value_counts().index[:max_categories]
        counts = counts[counts[column].isin(top)]
        counts[column] = counts[column].astype(str)
        fig = px.bar(counts, x=column, y="count", color=color,
                     title=f"Rows per value of {column}" + (f" by {color}" if color else ""))
        fig.update_yaxes(title_text="rows", tickformat=",~r")
    fig.update_layout(height=340, margin=dict(l=10, r=10, t=50, b=10), legend_title_text=color or "")
    return fig


def missing_by_column(dataset: Dataset) -> go.Figure:
    """Share of missing cells per column (bars), to spot columns that need care."""
    share = dataset.frame.isna().mean().rename("missing share").reset_index()
    share.columns = ["column", "missing share"]
    fig = px.bar(share, x="column", y="missing share", range_y=[0, 1], title="Share of missing cells per column")
    fig.update_yaxes(tickformat=".0%")
    fig.update_layout(height=280, margin=dict(l=10, r=10, t=50, b=10))
    return fig


