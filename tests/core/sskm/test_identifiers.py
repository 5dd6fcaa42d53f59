"""SSKM_DP never clusters, measures or publishes a column the public schema marks identifier
(a row number with gaps here), in either mode; nor do the baselines that reuse its records."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from core.data import Dataset
from core.privacy.schema_draft import draft_schema
from core.privacy.schema_columns import ColumnSchema
from core.sskm.paper_publisher import PaperSSKMDP
from core.sskm.sweeps import baselines_vs_clusters, clusters_sweep
from core.sskm.variants import SSKM_VARIANTS


@pytest.fixture(scope="module")
def table():
    rng = np.random.default_rng(0)
    n = 300
    row = np.sort(rng.choice(10 * n, size=n, replace=False)) + 1  # a row number with gaps
    frame = pd.DataFrame({"row": row, "age": rng.integers(18, 80, n), "hours": rng.integers(1, 60, n),
                          "sex": rng.choice(["F", "M"], n)})
    data = Dataset(frame, label=None, sensitive=("sex",), numeric=("row", "age", "hours"), categorical=("sex",),
                   name="ids-with-gaps")
    schema = draft_schema(data)
    if "row" not in schema.identifiers:  # the detection on load is another module's: mark it here
        schema = schema.replace_column(ColumnSchema("row", "identifier", source="declared"))
    assert schema.identifiers == ["row"]
    return frame, schema


@pytest.mark.parametrize("mode", ["sound", "paper"])
def test_the_identifier_is_neither_fitted_nor_published(table, mode):
    frame, schema = table
    pub = SSKM_VARIANTS[mode](epsilon=1.0, sensitive="sex", rows=3, cols=3, schema=schema, iterations=1000,
                              random_state=0).fit(frame)
    assert "row" not in pub.table_.columns
    assert "row" not in pub.connections_.strengths.columns
    out = pub.publish(epsilon=1.0)
    assert "row" not in out.columns and list(out.columns) == ["age", "hours", "sex"]


def test_the_baselines_cluster_the_same_records_without_it(table):
    frame, schema = table
    pub = PaperSSKMDP(epsilon=1.0, sensitive="sex", rows=3, cols=3, schema=schema, iterations=1000,
                      random_state=0).fit(frame)
    assert pub.table_.X.shape[1] == 3  # MDAV, MDAV_DP and IDP-KMeans read pub.table_.X
    out = baselines_vs_clusters(pub, epsilon=1.0, a_values=(5,), repetitions=1, cs_threshold=0.3, random_state=0)
    assert set(out["method"]) == {"MDAV", "MDAV_DP", "IDP-KMeans", "SSKM_DP"}


def test_the_sweep_leaves_it_out_in_the_paper_mode(table):
    frame, schema = table
    runs = clusters_sweep(frame, sensitive="sex", m_values=(4,), grids=("2x2",), epsilons=(1.0,), repetitions=1,
                          mode="paper", iterations=1000, random_state=0, schema=schema)
    assert "row" not in runs["protected"].iloc[0].split(",")
    assert np.isfinite(runs["random_mse"]).all()


def test_a_sensitive_identifier_is_refused_in_words(table):
    frame, schema = table
    with pytest.raises(ValueError, match="identifier"):
        PaperSSKMDP(epsilon=1.0, sensitive=("row",), rows=2, cols=2, schema=schema).fit(frame)


def test_without_a_schema_the_paper_mode_publishes_every_column(table):
    frame, _ = table  # the faithful algorithm, as printed: nothing says which column is a key
    pub = PaperSSKMDP(epsilon=1.0, sensitive="sex", rows=2, cols=2, iterations=1000,
                      random_state=0).fit(frame)
    assert "row" in pub.table_.columns
