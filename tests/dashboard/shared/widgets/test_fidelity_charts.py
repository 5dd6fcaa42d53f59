"""dashboard.shared.widgets.fidelity_charts: real against release, drawn from core.evaluation.fidelity's scores."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from dashboard.shared.widgets.fidelity_charts import association_difference, column_overlay, overlay_data


def _tables():
    x = np.arange(20.0)
    real = pd.DataFrame({"x": x, "c": ["a"] * 10 + ["b"] * 10})
    release = pd.DataFrame({"x": x + 100, "c": ["a", "b"] * 10})
    return real, release


def test_a_numeric_overlay_gives_each_side_shares_that_sum_to_one_even_out_of_range():
    real, release = _tables()
    data = overlay_data(real["x"], release["x"])
    assert data["real"].sum() == pytest.approx(1.0) and data["release"].sum() == pytest.approx(1.0)
    assert data["value"].iloc[-1].endswith("and above") and data["release"].iloc[-1] == pytest.approx(1.0)


def test_a_categorical_overlay_lists_every_category_of_both_sides():
    data = overlay_data(pd.Series(list("aab")), pd.Series(list("abz")))
    assert set(data["value"]) == {"a", "b", "z"}
    assert data.set_index("value").loc["z", "release"] == pytest.approx(1 / 3)


def test_the_overlay_title_carries_the_column_shape_score():
    real, release = _tables()
    fig = column_overlay(real["c"], release["c"], column="c", dataset="census")
    assert "TVComplement) 1.000" in fig.layout.title.subtitle.text
    assert [t.name for t in fig.data] == ["real", "release"]


def test_the_heatmap_is_real_minus_release_and_symmetric():
    real, release = _tables()
    release = release.assign(x=real["x"])  # in range: only the x / c link is lost
    fig = association_difference(real, release)
    z = np.asarray(fig.data[0].z, dtype=float)
    assert z[0, 1] == pytest.approx(z[1, 0]) and z[0, 1] > 0.5  # the release lost the x / c link
    assert np.isnan(z[0, 0])
    assert "real - release" in fig.data[0].colorbar.title.text


def test_user_text_in_names_is_escaped():
    real = pd.DataFrame({"<b>x</b>": [1.0, 2.0, 3.0], "c": list("aba")})
    fig = association_difference(real, real, dataset="<a href=x>d</a>")
    assert "<a href" not in fig.layout.title.text and "&lt;b&gt;" in fig.data[0].x[0]
