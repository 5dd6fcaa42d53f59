import numpy as np
import pandas as pd
from sklearn.base import clone

from core.imposter.codec import TableCodec, calibrate_shares


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
    # four rows: every numeric value is a point of its own (age 4, ratio 3 after imputation)
    assert X.shape == (4, 4 + 3 + 3 + 2)
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
    codec = TableCodec(["age", "ratio"], ["job", "flag"], bins=None).fit(frame, list(frame.columns))
    assert codec.width_ == 1 + 1 + 3 + 2  # the earlier encoding: one min-max column each
    X = codec.transform(frame)
    X[:, codec.block("age").start] = [-1.0, 2.0, 0.5, 0.0]
    back = codec.inverse(X, mode="argmax")
    assert back["age"].tolist() == [20, 65, 42, 20]


def _zero_inflated(n=2000, seed=0):
    rng = np.random.default_rng(seed)
    gain = np.where(rng.random(n) < 0.9, 0, rng.lognormal(8, 1, n).round()).astype(np.int64)
    hours = np.where(rng.random(n) < 0.5, 40, rng.integers(1, 99, n)).astype(np.int64)
    age = rng.integers(17, 90, n).astype(np.int64)
    return pd.DataFrame({"gain": gain, "hours": hours, "age": age,
                         "y": rng.choice(["<=50K", ">50K"], n, p=[0.75, 0.25])})


def _fit(frame, **kw):
    return TableCodec(["gain", "hours", "age"], ["y"], **kw).fit(frame, list(frame.columns))


def test_point_masses_get_modes_and_decode_exactly():
    frame = _zero_inflated()
    codec = _fit(frame)
    gain, hours, age = codec.block("gain"), codec.block("hours"), codec.block("age")
    assert gain.masses == (0.0,) and gain.bins == 20 and gain.width == gain.n_modes == 21
    assert 40.0 in hours.masses
    assert age.masses == () and age.width == 20
    assert abs(gain.shares[0] - (frame["gain"] == 0).mean()) < 1e-12
    assert abs(sum(gain.shares) - 1) < 1e-12
    X = codec.transform(frame)
    assert X.shape[1] == codec.width_ and set(np.unique(X)) == {0.0, 1.0}
    for b in codec.blocks_:
        assert (X[:, b.start:b.stop].sum(axis=1) == 1).all()
    back = codec.inverse(X, mode="argmax")
    for col in ("gain", "hours", "age"):
        assert back[col].dtype == frame[col].dtype
    for col, m in (("gain", 0), ("hours", 40)):
        at = frame[col] == m
        assert (back[col][at] == m).all() and (back[col][~at] != m).all()
    # a binned value decodes into its own bin: at most a bin's width away
    err = (back["age"] - frame["age"]).abs()
    assert err.max() <= (frame["age"].max() - frame["age"].min()) / 20 * 2
    assert codec.indices(["gain"]) == list(range(gain.start, gain.stop))
    # drawn inside the bins: the quantiles come back
    drawn = codec.inverse(X, rng=np.random.default_rng(0))
    for col in ("gain", "hours", "age"):
        assert np.allclose(np.quantile(drawn[col], [0.1, 0.5, 0.9]),
                           np.quantile(frame[col], [0.1, 0.5, 0.9]), rtol=0.1, atol=2)
        assert drawn[col].min() >= frame[col].min() and drawn[col].max() <= frame[col].max()


def test_sampled_modes_keep_the_zero_share():
    frame = _zero_inflated()
    codec = _fit(frame)
    X = codec.transform(frame)
    g = codec.block("gain")
    X[:, g.start:g.stop] = 0.1 / g.bins
    X[:, g.start] = 0.9
    back = codec.inverse(X, rng=np.random.default_rng(0), mode="sample")
    assert abs((back["gain"] == 0).mean() - 0.9) < 0.03
    assert back["gain"].min() >= 0 and back["gain"].max() <= frame["gain"].max()


def test_calibrate_restores_the_training_shares():
    frame = _zero_inflated()
    codec = _fit(frame)
    X = codec.transform(frame)
    y, g = codec.block("y"), codec.block("gain")
    rng = np.random.default_rng(1)
    p = rng.uniform(0.0, 0.3, len(X))  # a generator that under-produces ">50K" and zeros
    X[:, y.start:y.stop] = np.c_[1 - p, p]
    X[:, g.start:g.stop] = ((1 - p) / g.bins)[:, None]
    X[:, g.start] = p
    plain = codec.inverse(X, rng=np.random.default_rng(0))
    fixed = codec.inverse(X, rng=np.random.default_rng(0), calibrate=True)
    real_share = (frame["y"] == ">50K").mean()
    assert abs((plain["y"] == ">50K").mean() - real_share) > 0.05
    assert abs((fixed["y"] == ">50K").mean() - real_share) < 0.03
    assert abs((plain["gain"] == 0).mean() - (frame["gain"] == 0).mean()) > 0.3
    assert abs((fixed["gain"] == 0).mean() - (frame["gain"] == 0).mean()) < 0.03


def test_calibrate_shares_matches_the_target_mean():
    P = np.random.default_rng(0).dirichlet([1, 1, 1], size=500)
    Q = calibrate_shares(P, [0.6, 0.3, 0.1])
    assert np.allclose(Q.sum(axis=1), 1) and np.allclose(Q.mean(axis=0), [0.6, 0.3, 0.1], atol=1e-3)
    # the same factor for every row: odds between two columns scale by one constant
    ratio = (Q[:, 0] / Q[:, 1]) / (P[:, 0] / P[:, 1])
    assert np.allclose(ratio, ratio[0])


def test_switches_for_masses_and_bins():
    frame = _zero_inflated()
    assert _fit(frame, mass_share=None).block("gain").masses == ()
    assert _fit(frame, mass_share=None).block("gain").width == 20
    assert _fit(frame, bins=None).width_ == 3 + 2
    assert _fit(frame, bins=8).block("gain").width == 1 + 8


def test_scikit_learn_contract():
    codec = TableCodec(["age", "ratio"], ["job", "flag"], bins=5)
    assert codec.get_params() == {"numeric": ["age", "ratio"], "categorical": ["job", "flag"], "bins": 5,
                                  "mass_share": 0.05, "mass_rows": 20, "max_masses": 10}
    frame = _frame()
    fitted = clone(codec).fit(frame)
    twin = clone(fitted)
    assert twin.get_params() == codec.get_params() and not hasattr(twin, "blocks_")
    np.testing.assert_array_equal(codec.fit_transform(frame, list(frame.columns)), fitted.transform(frame))
    assert fitted.columns_ == tuple(frame.columns)


def test_inverse_without_a_generator_draws_fresh_values():
    frame = _frame()
    codec = _codec(frame)
    out = codec.inverse(codec.transform(frame))
    assert list(out.columns) == list(frame.columns) and len(out) == 4
