"""A small table for the reference tests of the paper-000 pages: a 0.9 majority class and
features of pure noise (nothing to learn), built here, never read from disk."""
from __future__ import annotations

import numpy as np
import pandas as pd


def skewed_dataset(n: int = 300, *, seed: int = 7, name: str = "skewed"):
    """``n`` rows: label 'y' with 90% 'no', four numeric noise columns and a categorical one."""
    from core.data.csv_loader import frame_to_dataset

    rng = np.random.default_rng(seed)
    y = np.array(["no"] * (n * 9 // 10) + ["yes"] * (n - n * 9 // 10))
    rng.shuffle(y)
    frame = pd.DataFrame({f"noise{i}": rng.normal(size=n).round(3) for i in range(4)})
    frame["colour"] = rng.choice(["red", "green", "blue"], size=n)
    frame["y"] = y
    return frame_to_dataset(frame, label="y", name=name)
