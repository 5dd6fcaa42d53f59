"""Dataset loading helpers of the dashboard (dashboard.shared.serving.datasets)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from core.data import export_frame, frame_to_dataset, load_sample
from core.data.export import to_csv_bytes
from dashboard.shared.serving.datasets import csv_bytes


def _table(n: int = 50) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    whole = rng.integers(0, 9, n).astype(float)
    whole[::7] = np.nan  # an integer column with empty cells: written as integers
    return pd.DataFrame({"x": rng.normal(size=n).round(3), "k": whole,
                         "=name": [("=cmd" if i % 5 == 0 else f"v{i % 3}") for i in range(n)]})


@pytest.mark.parametrize("block_rows", [1, 7, 50, 4096])
def test_csv_bytes_in_blocks_are_the_whole_tables_bytes(block_rows):
    dataset = frame_to_dataset(_table(), name="t", identifiers=[])
    assert csv_bytes(dataset, block_rows=block_rows) == to_csv_bytes(export_frame(dataset.frame))


def test_csv_bytes_of_a_sample_match_the_export():
    dataset = load_sample("census")
    assert csv_bytes(dataset, block_rows=100) == to_csv_bytes(export_frame(dataset.frame))


def test_csv_bytes_checks_the_block_size():
    dataset = frame_to_dataset(_table(), name="t", identifiers=[])
    with pytest.raises(ValueError, match="1 or more"):
        csv_bytes(dataset, block_rows=0)
    with pytest.raises(TypeError, match="int"):
        csv_bytes(dataset, block_rows=2.5)
