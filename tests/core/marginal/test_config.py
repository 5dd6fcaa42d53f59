"""core.marginal.config: MST's and AIM's workload, one-way marginals and budget split come from the
public schema, n and epsilon alone, and the ledger says what was measured.

No OpenDP release here: the configuration is checked as data, and the release path is spied on
where it picks the configuration (tiny tables, well under a second).
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from core.marginal import synthesizer
from core.marginal.config import (
    AIM,
    AIM_MAX_ROUNDS,
    ALGORITHMS,
    MST,
    MST_DEFAULTS,
    MarginalConfig,
    aim_rounds,
    marginal_config,
)
from core.marginal.domain import marginal_domain
from core.marginal.synthesizer import marginal_ledger
from core.privacy.schema import PublicSchema
from core.privacy.schema_columns import ColumnSchema


@pytest.fixture
def schema() -> PublicSchema:
    return PublicSchema((
        ColumnSchema("gain", "numeric", lower=0, upper=1000, integer=True, cuts=(1, 100)),
        ColumnSchema("job", "categorical", categories=("a", "b")),
        ColumnSchema("age", "numeric", lower=0, upper=100),
        ColumnSchema("y", "categorical", categories=("no", "yes")),
    ), label="y")


def test_mst_measures_the_labels_pairs_with_no_one_way_marginal(schema):
    config = marginal_config(schema, n=100, epsilon=1.0)
    assert config.algorithm == MST and config.label == "y"
    assert config.workload == (("y", "gain"), ("y", "job"), ("y", "age"))
    assert config.oneway == "unkeyed" and config.rounds is None and config.sampling == "sample"


def test_mst_is_opendps_fixed_workload_of_those_pairs(schema):
    import opendp.prelude as dp

    algo = marginal_config(schema, n=100, epsilon=1.0).opendp_algorithm(synthesizer.fit_model)
    assert isinstance(algo, dp.mbi.Fixed) and algo.oneway == "unkeyed"
    assert [q.by for q in algo.queries] == [("y", "gain"), ("y", "job"), ("y", "age")]
    assert {q.weight for q in algo.queries} == {1.0}  # an equal split


def test_aim_takes_the_same_workload_with_its_rounds_capped(schema):
    import opendp.prelude as dp

    config = marginal_config(schema, algorithm=AIM, n=100, epsilon=1.0)
    assert config.workload == marginal_config(schema, n=100, epsilon=1.0).workload
    assert config.rounds == aim_rounds(4) == 4 and aim_rounds(500) == AIM_MAX_ROUNDS
    algo = config.opendp_algorithm(synthesizer.fit_model)
    assert isinstance(algo, dp.mbi.AIM) and algo.rounds == 4 and algo.oneway == "unkeyed"


def test_opendps_defaults_are_kept_as_the_anchor(schema):
    import opendp.prelude as dp

    config = marginal_config(schema, algorithm=MST_DEFAULTS, n=100, epsilon=1.0)
    assert (config.workload, config.oneway, config.sampling) == ((), "all", "round")
    algo = config.opendp_algorithm(synthesizer.fit_model)
    assert type(algo) is dp.mbi.MST and algo.oneway == "all"


def test_without_a_released_label_mst_chooses_its_tree(schema):
    config = marginal_config(schema, columns=["gain", "job"], n=100, epsilon=1.0)
    assert config.label is None and config.workload == () and config.oneway == "all"


def test_the_configuration_depends_on_the_schema_n_and_epsilon_only(schema, monkeypatch):
    """Two different tables with one schema and one size get one configuration: the release path
    (measure_marginals) is spied on where it hands the configuration to OpenDP."""
    seen = []

    def spy(names, sizes, epsilon, config, contributions, estimator=None):
        seen.append(config)
        return lambda frame: None

    monkeypatch.setattr(synthesizer, "_measurement", spy)
    domain = marginal_domain(schema)
    rng = np.random.default_rng(0)
    first = pd.DataFrame({"gain": rng.integers(0, 5, 30), "job": rng.choice(["a", "b"], 30),
                          "age": rng.uniform(0, 100, 30), "y": rng.choice(["no", "yes"], 30)})
    second = pd.DataFrame({"gain": rng.integers(500, 1000, 30), "job": ["b"] * 30,
                           "age": np.full(30, 99.0), "y": ["yes"] * 30})
    for frame in (first, second):
        synthesizer.measure_marginals(domain, frame, 1.0, MST)
    assert seen[0] == seen[1] == marginal_config(schema, n=30, epsilon=1.0)


def test_the_ledger_names_the_workload(schema):
    config = marginal_config(schema, n=100, epsilon=0.5)
    ledger = marginal_ledger(config, 0.5, schema)
    label = ledger.entries[0].label
    assert ledger.is_dp and ledger.total() == (0.5, 0.0)
    assert "3 noisy 2-way marginals of the label 'y'" in label and "no one-way marginals" in label
    aim = marginal_ledger(marginal_config(schema, algorithm=AIM, n=100, epsilon=0.5), 0.5, schema)
    assert "AIM over a workload of the 3 2-way marginals of the label 'y'" in aim.entries[0].label
    anchor = marginal_ledger(marginal_config(schema, algorithm=MST_DEFAULTS, n=100, epsilon=0.5), 0.5, schema)
    assert "one-way marginals of every column" in anchor.entries[0].label


def test_the_workload_rows_say_each_marginals_share(schema):
    rows = marginal_config(schema, n=100, epsilon=1.0).workload_rows()
    assert [r["marginal"] for r in rows] == ["y x gain", "y x job", "y x age"]
    assert {r["share of epsilon"] for r in rows} == {"1/3"}


@pytest.mark.parametrize("kwargs, error", [
    ({"algorithm": "PrivBayes"}, ValueError), ({"algorithm": 1}, TypeError), ({"n": 0}, ValueError),
    ({"n": 2.0}, TypeError), ({"epsilon": 0.0}, ValueError), ({"columns": ["nope"]}, ValueError),
    ({"columns": "job"}, TypeError), ({"columns": []}, ValueError),
])
def test_bad_arguments_are_refused(schema, kwargs, error):
    with pytest.raises(error):
        marginal_config(schema, **{"n": 100, "epsilon": 1.0, **kwargs})


def test_a_schema_is_required():
    with pytest.raises(TypeError):
        marginal_config({"y": ("no", "yes")}, n=10, epsilon=1.0)


def test_every_configuration_is_hashable_and_listed(schema):
    configs = {marginal_config(schema, algorithm=a, n=100, epsilon=1.0) for a in ALGORITHMS}
    assert len(configs) == len(ALGORITHMS) and all(isinstance(c, MarginalConfig) for c in configs)
