"""Attribute association: |Pearson r|, normalised mutual information and MIC (paper 000)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from core.correlation.association import attribute_association


def _frame():
    rng = np.random.default_rng(0)
    a = rng.normal(size=300)
    return pd.DataFrame(
        {"a": a, "b": 2 * a + 0.01 * rng.normal(size=300), "c": rng.normal(size=300),
         "d": np.where(a > 0, "hi", "lo")}
    )


def test_pearson_association_is_absolute_correlation():
    f = _frame()
    out = attribute_association(f, method="pearson")
    ref = np.abs(np.corrcoef(f[["a", "b", "c"]].to_numpy(), rowvar=False))
    np.testing.assert_allclose(out.loc[["a", "b", "c"], ["a", "b", "c"]].to_numpy(), ref, atol=1e-9)
    np.testing.assert_allclose(out.to_numpy(), out.to_numpy().T)


def test_nmi_association_finds_a_dependence_and_ignores_noise():
    out = attribute_association(_frame(), method="nmi")
    assert out.loc["a", "d"] > 0.2
    assert out.loc["a", "c"] < 0.1
    assert np.all(np.diag(out.to_numpy()) == 1.0)


def test_mic_association_on_a_row_sample():
    out = attribute_association(_frame(), method="mic", max_rows=100, random_state=0)
    assert out.loc["a", "b"] > 0.9
    assert out.loc["a", "c"] < out.loc["a", "b"]


def test_association_refuses_unknown_method():
    with pytest.raises(ValueError):
        attribute_association(_frame(), method="spearman")
    with pytest.raises(TypeError):
        attribute_association(np.ones((5, 2)))


@pytest.mark.parametrize("method", ["mic", "nmi"])
def test_association_progress_is_reported_and_changes_nothing(method):
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"a": rng.normal(size=200), "b": rng.integers(0, 3, 200), "c": rng.normal(size=200)})
    seen = []
    quiet = attribute_association(frame, method=method, random_state=1)
    told = attribute_association(frame, method=method, random_state=1, progress=lambda f, m: seen.append((f, m)))
    pd.testing.assert_frame_equal(quiet, told)
    fractions = [f for f, _ in seen]
    assert fractions == sorted(fractions) and len(seen) == 3
