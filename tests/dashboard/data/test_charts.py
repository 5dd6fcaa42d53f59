"""Charts of the Data page (dashboard.data.charts): the rows drawn, split by label."""
import pandas as pd
import pytest

from core.data import Dataset
from dashboard.data.charts import column_distribution, missing_by_column


def _dataset() -> Dataset:
    frame = pd.DataFrame({"age": [20.0, 30.0, 40.0, 50.0, 60.0],
                          "job": ["a", "b", "a", None, "a"],
                          "income": ["low", "high", "low", "low", "high"]})
    return Dataset(frame=frame, label="income", sensitive=(), numeric=("age",),
                   categorical=("job", "income"), name="tiny")


def test_numeric_column_is_a_histogram_with_one_trace_per_label():
    fig = column_distribution(_dataset(), "age")
    assert {t.type for t in fig.data} == {"histogram"}
    assert {t.name: list(t.x) for t in fig.data} == {"low": [20.0, 40.0, 50.0], "high": [30.0, 60.0]}


def test_categorical_column_counts_the_rows_per_value_and_label():
    fig = column_distribution(_dataset(), "job")
    assert {t.type for t in fig.data} == {"bar"}
    # the missing job is not a category of its own
    drawn = {(t.name, x): y for t in fig.data for x, y in zip(t.x, t.y)}
    assert drawn == {("low", "a"): 2, ("high", "a"): 1, ("high", "b"): 1}


def test_categorical_column_keeps_only_the_most_frequent_values():
    fig = column_distribution(_dataset(), "job", max_categories=1)
    assert {x for t in fig.data for x in t.x} == {"a"}


def test_unknown_column():
    with pytest.raises(ValueError, match="no column"):
        column_distribution(_dataset(), "nope")


def test_missing_share_bars_show_each_columns_share():
    fig = missing_by_column(_dataset())
    assert list(fig.data[0].x) == ["age", "job", "income"]
    assert list(fig.data[0].y) == [0.0, 0.2, 0.0]
    assert tuple(fig.layout.yaxis.range) == (0, 1)


@pytest.mark.parametrize("column, title, x_title", [
    ("age", "Distribution of age by income", "age"),
    ("job", "Rows per value of job by income", "job"),
])
def test_distribution_titles_name_the_column_and_the_split(column, title, x_title):
    fig = column_distribution(_dataset(), column)
    assert fig.layout.title.text == title
    assert fig.layout.xaxis.title.text == x_title and fig.layout.yaxis.title.text == "rows"


def test_missing_share_chart_title_and_axes():
    fig = missing_by_column(_dataset())
    assert fig.layout.title.text == "Share of missing cells per column"
    assert fig.layout.xaxis.title.text == "column" and fig.layout.yaxis.title.text == "missing share"
