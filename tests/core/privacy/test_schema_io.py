"""An estimated schema's JSON keeps what the estimate cost; a "private estimate" without its cost is refused."""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from core.data import Dataset
from core.privacy.ledger import PrivacyLedger
from core.privacy.schema import PublicSchema
from core.privacy.schema_draft import draft_schema
from core.privacy.schema_estimate import estimate_schema

COST = "entries marked 'private estimate' need the estimate's cost"


@pytest.fixture(scope="module")
def estimated() -> PublicSchema:
    """A genuine estimate: private categories of 'c' and 'd' (epsilon 1, delta 1e-6; categories only, so
    that OpenDP's quantiles, whose first use loads a native library for seconds, stay out of it)."""
    rng = np.random.default_rng(1)
    frame = pd.DataFrame({"x": rng.normal(50, 10, 400), "c": rng.choice(["u", "v", "w"], 400),
                          "d": rng.choice(["p", "q"], 400)})
    data = Dataset(frame, None, (), ("x",), ("c", "d"), name="t")
    return estimate_schema(data, epsilon=1.0, delta=1e-6, columns=["c", "d"], schema=draft_schema(data),
                           random_state=0)


def test_a_genuine_estimate_round_trips_with_every_spend(estimated):
    back = PublicSchema.from_json(estimated.to_json())
    assert back == estimated and back["c"].source == back["d"].source == "private estimate"
    assert back.estimate.entries == estimated.estimate.entries  # labels, costs, noise: the same ledger
    assert back.estimate.nominal() == pytest.approx((1.0, 1e-6))
    again = PublicSchema.from_json(back.to_json())
    assert again.to_dict() == back.to_dict()  # a second round trip changes nothing
    charged = back.charge(PrivacyLedger(), ["c"])
    assert charged.is_dp and charged.nominal() == pytest.approx((1.0, 1e-6))


def test_a_file_written_before_the_spends_still_loads_with_its_cost(estimated):
    data = estimated.to_dict()
    del data["estimate"]["spends"]
    back = PublicSchema.from_dict(data)
    assert back.estimate.nominal() == pytest.approx((1.0, 1e-6)) and len(back.estimate) == 1
    assert "'c'" in back.estimate.entries[0].label and "'d'" in back.estimate.entries[0].label


@pytest.mark.parametrize("edit", [
    lambda d: d.pop("estimate"),  # the cost removed
    lambda d: d["estimate"].pop("epsilon"),  # the spend's epsilon removed
    lambda d: d["estimate"].update(epsilon=0),  # a cost of nothing
    lambda d: d.update(estimate={}),
])
def test_a_hand_edited_estimate_without_its_cost_is_refused(estimated, edit):
    data = json.loads(estimated.to_json())
    edit(data)
    with pytest.raises(ValueError, match=COST) as info:
        PublicSchema.from_dict(data)
    assert "'c', 'd'" in str(info.value) and "\n" not in str(info.value)


def test_an_entry_marked_estimated_that_no_spend_names_is_refused(estimated):
    data = estimated.to_dict()
    data["columns"].append({"name": "z", "kind": "numeric", "lower": 0, "upper": 1, "source": "private estimate"})
    with pytest.raises(ValueError, match=COST + r".*lacks for 'z'"):
        PublicSchema.from_dict(data)


def test_a_schema_marked_estimated_from_a_draft_is_refused():
    data = {"columns": [{"name": "a", "kind": "numeric", "lower": 0, "upper": 7, "source": "private estimate"}],
            "max_group_size": 3, "max_group_source": "private estimate"}
    with pytest.raises(ValueError, match=COST + r".*lacks for 'a', 'max_group_size'"):
        PublicSchema.from_dict(data)


def test_spends_that_do_not_add_up_to_the_cost_are_refused(estimated):
    data = estimated.to_dict()
    data["estimate"]["epsilon"] = 0.1
    with pytest.raises(ValueError, match="spends add up to epsilon = 1"):
        PublicSchema.from_dict(data)
    data["estimate"]["spends"] = [{"epsilon": 1.0}]
    with pytest.raises(ValueError, match="'spends' must be a list of objects with a 'label'"):
        PublicSchema.from_dict(data)
