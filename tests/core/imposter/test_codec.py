import numpy as np
import pandas as pd

from core.imposter.codec import TableCodec


def _frame():
    return pd.DataFrame({
        "age": [20, 35, 50, 65],
        "ratio": [0.1, np.nan, 0.5, 0.9],
        "job": ["a", "b", None, "a"],
        "flag": [True, False, True, True],
    })


def _codec(frame):
    return TableCodec(["age", "ratio"], ["job", "flag"]).fit(frame, list(frame.columns))


def test_widths_and_ranges():
    frame = _frame()
    codec = _codec(frame)
    X = codec.transform(frame)
    assert X.shape == (4, 1 + 1 + 3 + 2)
    assert X.min() >= 0 and X.max() <= 1
    job = codec.block("job")
    assert X[:, job.start:job.stop].sum(axis=1).tolist() == [1, 1, 1, 1]


def test_round_trip_keeps_values_and_dtypes():
    frame = _frame()
    codec = _codec(frame)
    back = codec.inverse(codec.transform(frame), mode="argmax")
    assert back["age"].tolist() == [20, 35, 50, 65]
    assert back["age"].dtype == frame["age"].dtype
    assert back["job"].iloc[2] is None or pd.isna(back["job"].iloc[2])  # missing decodes to missing
    assert back["job"].iloc[[0, 1, 3]].tolist() == ["a", "b", "a"]
    assert back["flag"].dtype == bool and back["flag"].tolist() == frame["flag"].tolist()
    assert np.isclose(back["ratio"].iloc[2], 0.5)


def test_sampling_draws_categories_by_probability():
    frame = _frame()
    codec = _codec(frame)
    X = np.tile(codec.transform(frame.iloc[[0]]), (20000, 1))
    job = codec.block("job")
    X[:, job.start:job.stop] = [0.25, 0.75, 0.0]
    back = codec.inverse(X, rng=np.random.default_rng(0), mode="sample")
    share = (back["job"] == "b").mean()
    assert abs(share - 0.75) < 0.02


def test_numeric_outputs_are_clipped_to_the_training_range():
    frame = _frame()
    codec = _codec(frame)
    X = codec.transform(frame)
    X[:, codec.block("age").start] = [-1.0, 2.0, 0.5, 0.0]
    back = codec.inverse(X, mode="argmax")
    assert back["age"].tolist() == [20, 65, 42, 20]
