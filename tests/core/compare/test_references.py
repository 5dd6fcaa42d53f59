"""Compare's MSE reference (core.compare.references) and SSKM_DP's draw one random release."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from core.compare.context import RunContext
from core.compare.references import references
from core.data import Dataset
from core.privacy.schema import PublicSchema
from core.privacy.schema_columns import ColumnSchema
from core.runtime.randomness import display_rng
from core.sskm.references import RANDOM, random_release, table_levels, table_references
from core.sskm.scaled_table import ScaledTable

SCHEMA = PublicSchema((ColumnSchema("age", "numeric", lower=18.0, upper=90.0, source="declared"),
                       ColumnSchema("sex", "categorical", categories=("f", "m"), source="declared"),
                       ColumnSchema("job", "categorical", categories=("a", "b", "c", "d"), source="declared")),
                      label=None, sensitive=(), name="random release")


def _frame(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"age": rng.integers(18, 91, n).astype(float), "sex": rng.choice(["f", "m"], n),
                         "job": rng.choice(["a", "b", "c", "d"], n, p=[0.7, 0.1, 0.1, 0.1])})


def _context(seed: int) -> RunContext:
    train = Dataset(_frame(400, 1), label=None, sensitive=(), numeric=("age",), categorical=("sex", "job"))
    return RunContext(train, _frame(100, 2), None, seed, schema=SCHEMA)


def test_compare_and_sskm_give_one_random_release_mse_for_one_table_and_seed():
    ctx = _context(7)
    compare = references(ctx, 0, models=False)["mse"]
    table = ScaledTable(_frame(400, 1), schema=SCHEMA)  # the table SSKM_DP would publish
    sskm = table_references(table, repetitions=1, random_state=display_rng(7, "random release"))
    random = sskm.loc[sskm["reference"] == RANDOM].iloc[0]
    assert compare["random"] == pytest.approx(float(random["mse_mean"]), abs=1e-12)
    assert "each category uniformly over its list" in compare["random_words"]
    # another seed, another draw, the same function on both sides
    other = references(_context(8), 0, models=False)["mse"]["random"]
    assert other != compare["random"]


def test_a_random_release_draws_categories_on_their_codes_never_between_two():
    table = ScaledTable(_frame(400, 1), schema=SCHEMA)
    levels = table_levels(table)
    assert levels == [None, 3, 5]  # the declared categories and (other)
    R, loss = random_release(table.X, levels, random_state=np.random.default_rng(0))
    assert R.shape == table.X.shape and loss == pytest.approx(float(((table.X - R) ** 2).sum(axis=1).mean()))
    assert set(np.round(R[:, 1] * 2, 9)) == {0.0, 1.0, 2.0}
    assert set(np.round(R[:, 2] * 4, 9)) == {0.0, 1.0, 2.0, 3.0, 4.0}
    again, _ = random_release(table.X, levels, random_state=np.random.default_rng(0))
    assert np.array_equal(R, again)
    with pytest.raises(ValueError, match="one entry per column"):
        random_release(table.X, levels[:2], random_state=0)
