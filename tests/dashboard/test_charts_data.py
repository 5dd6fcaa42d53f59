import pytest

from core.data import load_sample
from dashboard.charts.data import column_distribution, missing_by_column


def test_numeric_column_is_a_histogram():
    fig = column_distribution(load_sample("census"), "age")
    assert fig.data[0].type == "histogram"
    assert {t.name for t in fig.data} == {"<=50K", ">50K"}  # split by label


def test_categorical_column_is_a_bar_chart():
    fig = column_distribution(load_sample("census"), "occupation")
    assert fig.data[0].type == "bar"


def test_unknown_column():
    with pytest.raises(ValueError, match="no column"):
        column_distribution(load_sample("census"), "nope")


def test_missing_share_bars():
    fig = missing_by_column(load_sample("supplier"))
    assert len(fig.data[0].x) == 13


def test_data_charts_have_titles_and_axis_names():
    data = load_sample("census")
    for fig in (column_distribution(data, "age"), column_distribution(data, "occupation"),
                missing_by_column(data)):
        assert fig.layout.title.text
        assert fig.layout.xaxis.title.text and fig.layout.yaxis.title.text
    assert "age" in column_distribution(data, "age").layout.title.text
