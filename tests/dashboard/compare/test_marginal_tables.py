"""dashboard.compare.cached.marginal_tables: the Compare page lays out what MST and AIM measured
(the workload and each column's cells) from the result's public schema alone."""
from __future__ import annotations

from types import SimpleNamespace

import pandas as pd

from core.privacy.schema_builtin import BUILT_IN_SCHEMAS
from dashboard.compare.cached import marginal_tables


def _result(methods):
    schema = BUILT_IN_SCHEMAS["adult"]()
    runs = pd.DataFrame({"method": methods, "rows_released": [1000.0] * len(methods)})
    return SimpleNamespace(runs=runs, parameters={"schema": schema.to_dict(), "epsilons": [1.0]})


def test_mst_shows_the_labels_pairs_and_the_schemas_bins():
    tables = marginal_tables(_result(["Raw table", "MST", "MST"]))
    assert list(tables) == ["MST"]
    workload, bins = tables["MST"]
    assert len(workload) == 14 and workload["marginal"].str.startswith("income x ").all()
    assert set(workload["share of epsilon"]) == {"1/14"}
    gain = bins.set_index("column").loc["capital_gain"]
    assert gain["from"] == "the schema's public cuts" and gain["bins"].startswith("0, 1-999, ")


def test_aim_shows_its_workload_chosen_round_by_round():
    workload, _ = marginal_tables(_result(["AIM"]))["AIM"]
    assert set(workload["share of epsilon"]) == {"chosen round by round (AIM)"}


def test_nothing_to_show_without_mst_or_aim():
    assert marginal_tables(_result(["Raw table", "kRR"])) == {}
