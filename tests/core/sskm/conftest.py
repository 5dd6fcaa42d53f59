"""Small data shared by the paper-003 tests."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from core.data import load_sample


@pytest.fixture(scope="session")
def census_frame() -> pd.DataFrame:
    """1,000 rows of the synthetic census sample, without the label."""
    return load_sample("census").frame.drop(columns=["income"]).head(1000).reset_index(drop=True)


@pytest.fixture(scope="session")
def blobs() -> np.ndarray:
    """600 rows in [0, 1]^4 drawn around 6 centres."""
    rng = np.random.default_rng(7)
    centres = rng.random((6, 4))
    X = centres[rng.integers(0, 6, 600)] + rng.normal(0, 0.05, (600, 4))
    return np.clip(X, 0, 1)


@pytest.fixture(scope="session")
def census_schema():
    """The census sample's shipped public schema (bounds and categories from its generator)."""
    from core.privacy.schema_builtin import schema_for

    return schema_for(load_sample("census"))
