"""Charts of the Data page."""
from __future__ import annotations

import pandas as pd
import plotly.express as px
import plotly.graph_objects as go

from core.data import Dataset
from dashboard.shared.widgets.charts import plotly_text

__all__ = ["column_distribution", "column_distribution_data", "missing_by_column", "missing_data"]

#: the count column of a categorical distribution (a column of the table may already be
#: called so: then the count gets a longer name)
_ROWS = "rows"


def column_distribution_data(dataset: Dataset, column: str, *, max_categories: int = 30) -> pd.DataFrame:
    """What :func:`column_distribution` draws: a numeric column's values (with the label,
    one row per record: the histogram bins them), or a categorical column's row count per
    value (and label), for its ``max_categories`` commonest values."""
    frame = dataset.frame
    if column not in frame.columns:
        raise ValueError(f"There is no column '{column}'.")
    color = _split(dataset, column)
    keys = [column] + ([color] if color else [])
    if column in dataset.numeric:
        return frame[keys].reset_index(drop=True)
    rows = _ROWS if _ROWS not in keys else "number of rows"
    counts = frame.groupby(keys, dropna=False, observed=True).size().reset_index(name=rows)
    top = frame[column].value_counts().index[:max_categories]
    counts = counts[counts[column].isin(top)].reset_index(drop=True)
    counts[column] = counts[column].astype(str)
    return counts


def column_distribution(dataset: Dataset, column: str, *, max_categories: int = 30) -> go.Figure:
    """Histogram of a numeric column or bar chart of a categorical one, split by label
    (drawn from :func:`column_distribution_data`)."""
    data = column_distribution_data(dataset, column, max_categories=max_categories)
    color = _split(dataset, column)
    # the column names are the user's: plotly reads a link or bold in a title, an axis title,
    # the legend's title and a hover label, so each is shown through plotly_text
    labels = {c: plotly_text(c) for c in data.columns}
    by = f" by {plotly_text(color)}" if color else ""
    if column in dataset.numeric:
        fig = px.histogram(data, x=column, color=color, nbins=40, barmode="stack", labels=labels,
                           title=f"Distribution of {plotly_text(column)}{by}")
        fig.update_yaxes(title_text="rows")
    else:
        fig = px.bar(data, x=column, y=data.columns[-1], color=color, labels=labels,
                     title=f"Rows per value of {plotly_text(column)}{by}")
        fig.update_yaxes(title_text="rows", tickformat=",~r")
    fig.update_layout(height=340, margin=dict(l=10, r=10, t=50, b=10),
                      legend_title_text=plotly_text(color) if color else "")
    return fig


def _split(dataset: Dataset, column: str) -> str | None:
    """The column the distribution is split (coloured) by: the label, unless it is ``column``."""
    return dataset.label if dataset.label and dataset.label != column else None


def missing_data(dataset: Dataset) -> pd.DataFrame:
    """Share of missing cells per column: columns 'column' and 'missing share'."""
    share = dataset.frame.isna().mean()
    return pd.DataFrame({"column": [str(c) for c in share.index], "missing share": share.to_numpy()})


def missing_by_column(dataset: Dataset) -> go.Figure:
    """Share of missing cells per column (bars), to spot columns that need care."""
    share = missing_data(dataset)
    fig = px.bar(share, x="column", y="missing share", range_y=[0, 1], title="Share of missing cells per column")
    fig.update_yaxes(tickformat=".0%")
    fig.update_layout(height=280, margin=dict(l=10, r=10, t=50, b=10))
    return fig


