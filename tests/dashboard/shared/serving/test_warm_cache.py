"""The warm start's disk cache (dashboard.shared.serving.warm_cache and warm_codec)."""
from __future__ import annotations

import dataclasses
import io
import logging
import os
import pickle

import numpy as np
import pandas as pd
import pytest

from dashboard.shared.serving import warm_cache
from dashboard.shared.serving.warm_cache import WarmCache, core_hash, key_folder
from dashboard.shared.serving.warm_codec import decode, encode

KEY = ("association", "ed532214bc5d1c32", "pearson", None, 0, 0.8, ("a", "b"))


def same(a, b, path: str = "value") -> None:
    """Deep equality: same types, same numbers (NaN equal to NaN), same dtypes and index."""
    if isinstance(a, pd.DataFrame):
        pd.testing.assert_frame_equal(a, b, check_exact=True)
    elif isinstance(a, pd.Series):
        pd.testing.assert_series_equal(a, b, check_exact=True)
    elif isinstance(a, pd.Index):
        pd.testing.assert_index_equal(a, b, exact=True)
    elif isinstance(a, np.ndarray):
        assert type(b) is np.ndarray and a.dtype == b.dtype and a.shape == b.shape, path
        assert np.array_equal(a, b, equal_nan=a.dtype.kind in "fc"), path
    elif dataclasses.is_dataclass(a):
        assert type(a) is type(b), path
        for f in dataclasses.fields(a):
            if not f.name.startswith("_"):
                same(getattr(a, f.name), getattr(b, f.name), f"{path}.{f.name}")
    elif isinstance(a, (list, tuple, set, frozenset)):
        assert type(a) is type(b) and len(a) == len(b), path
        for i, (x, y) in enumerate(zip(sorted(a, key=repr) if isinstance(a, (set, frozenset)) else a,
                                       sorted(b, key=repr) if isinstance(b, (set, frozenset)) else b)):
            same(x, y, f"{path}[{i}]")
    elif isinstance(a, dict):
        assert type(b) is dict and list(a) == list(b), path
        for k in a:
            same(a[k], b[k], f"{path}[{k!r}]")
    elif isinstance(a, float) and np.isnan(a):
        assert type(b) is type(a) and np.isnan(b), path
    else:
        assert type(a) is type(b) and a == b, (path, a, b)


def roundtrip(value):
    arrays: dict = {}
    data = encode(value, arrays)
    out = io.BytesIO()
    np.savez(out, allow_pickle=False, **arrays)
    out.seek(0)
    with np.load(out, allow_pickle=False) as npz:
        return decode(data, {k: npz[k] for k in npz.files})


def _frame() -> pd.DataFrame:
    idx = pd.Index(["r1", "r2", "r3"], name="row")
    return pd.DataFrame({
        "i": np.array([1, 2, 3], dtype=np.int32), "f": [0.5, np.nan, -np.inf], "b": [True, False, True],
        "cat": pd.Categorical(["x", "y", "x"], categories=["y", "x"], ordered=True),
        "s": pd.array(["a", None, "c"], dtype="string"), "n": pd.array([1, None, 3], dtype="Int64"),
        "o": ["u", None, 2.5], "os": pd.Series(["u", None, "w"], dtype=object, index=idx),
        "d": pd.Series(["é", np.nan, ""], dtype="str", index=idx), "F": pd.array([0.1, None, 3.0], dtype="Float64"),
        "t": pd.to_datetime(["2020-01-01", "2021-06-30", "2022-12-31"]), 7: [1.0, 2.0, 3.0],
    }, index=idx)


@pytest.mark.parametrize("value", [
    np.arange(12, dtype=np.float32).reshape(3, 4), np.array([True, False]), np.array(["ab", "c"]),
    np.array(["2020-01-01"], dtype="datetime64[D]"), np.zeros((0, 3)), np.float64(np.nan), np.int64(7),
], ids=["float2d", "bool", "unicode", "datetime", "empty", "nan-scalar", "int-scalar"])
def test_arrays_and_scalars_round_trip(value):
    same(value, roundtrip(value))


def test_frames_keep_their_dtypes_index_and_columns():
    frame = _frame()
    frame.attrs["note"] = "kept"
    back = roundtrip(frame)
    same(frame, back)
    assert back.attrs == {"note": "kept"} and list(back.dtypes.astype(str)) == list(frame.dtypes.astype(str))
    multi = frame.set_index(["i", "b"])
    same(multi, roundtrip(multi))
    same(frame["f"], roundtrip(frame["f"]))
    same(pd.DataFrame(), roundtrip(pd.DataFrame()))


def test_nested_values_and_result_dataclasses_round_trip():
    from core.cdp.queries import Query
    from core.cdp.sweeps import Reference

    value = {("m", 0.5): [1, 2.5, None, "s", True], "t": (np.arange(3), {"x": _frame()}), 3: frozenset({1, 2}),
             "q": Query(conditions=(("age", 1.0, 5.0),)), "r": Reference("guess", 0.5, 0.4, 0.6, 100), "big": 2**70}
    same(value, roundtrip(value))


@pytest.mark.parametrize("value", [object(), np.array([1, "a"], dtype=object), {"f": lambda: 1},
                                   logging.getLogger("x")])
def test_values_that_are_not_data_are_refused(value):
    with pytest.raises(TypeError):
        encode(value, {})


def test_a_dataclass_outside_the_allow_list_is_refused_both_ways():
    @dataclasses.dataclass
    class Mine:
        x: int

    with pytest.raises(TypeError):
        encode(Mine(1), {})
    with pytest.raises(ValueError):
        decode({"$dc": "os:system", "fields": {}}, {})


def test_put_then_get_and_the_folder_is_private(tmp_path):
    root = tmp_path / "warm"
    cache = WarmCache(root, seed=3)
    assert cache.usable and cache.put("setups", KEY, _frame())
    same(_frame(), cache.get("setups", KEY))
    assert cache.get("setups", KEY[:-1]) is None and cache.get("finished", KEY) is None
    for path in (root, cache.folder, cache.folder / "setups"):
        assert path.stat().st_mode & 0o777 == 0o700, path
    assert cache.folder.name == f"{warm_cache.package_version()}-{core_hash()[:16]}-seed3"


def test_a_folder_others_may_write_is_refused(tmp_path, caplog):
    root = tmp_path / "warm"
    root.mkdir(mode=0o700)
    os.chmod(root, 0o770)
    with caplog.at_level(logging.WARNING):
        cache = WarmCache(root)
    assert not cache.usable
    assert "not used" in caplog.text and "others may write" in caplog.text
    assert not cache.put("setups", KEY, 1) and cache.get("setups", KEY) is None
    assert not any(root.iterdir())


def test_a_folder_another_user_owns_is_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(warm_cache.os, "getuid", lambda: os.stat(tmp_path).st_uid + 1)
    assert not WarmCache(tmp_path / "warm").usable


def test_a_pickle_is_never_loaded(tmp_path):
    cache = WarmCache(tmp_path)
    assert cache.put("setups", KEY, [1, 2])
    path = cache.path("setups", KEY)
    path.write_bytes(pickle.dumps({"__meta__": "boom"}))
    assert cache.get("setups", KEY) is None
    out = io.BytesIO()  # an npz whose array holds pickled objects
    np.savez(out, __meta__=np.frombuffer(b"{}", dtype=np.uint8), a0=np.array([{"x": 1}], dtype=object))
    path.write_bytes(out.getvalue())
    assert cache.get("setups", KEY) is None


@pytest.mark.parametrize("damage", [b"", b"PK\x03\x04 truncated", b"\x00" * 64])
def test_a_corrupt_entry_is_a_miss(tmp_path, damage):
    cache = WarmCache(tmp_path)
    assert cache.put("finished", KEY, {"a": np.arange(5)})
    cache.path("finished", KEY).write_bytes(damage)
    assert cache.get("finished", KEY) is None


def test_an_entry_written_for_another_key_is_a_miss(tmp_path):
    cache = WarmCache(tmp_path)
    assert cache.put("finished", KEY, 1) and cache.put("finished", ("other",), 2)
    os.replace(cache.path("finished", ("other",)), cache.path("finished", KEY))
    assert cache.get("finished", KEY) is None


def test_a_failed_write_leaves_the_old_entry_whole(tmp_path, monkeypatch):
    from core.runtime import atomic

    cache = WarmCache(tmp_path)
    assert cache.put("setups", KEY, "old")

    def fail(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(atomic.os, "replace", fail)
    assert not cache.put("setups", KEY, "new")
    assert cache.get("setups", KEY) == "old"
    assert [p.name for p in cache.path("setups", KEY).parent.iterdir()] == [cache.path("setups", KEY).name]


def test_the_key_folder_changes_with_seed_version_and_core_sources(tmp_path):
    base = key_folder(seed=0, version="1.0", core="a" * 64)
    assert base == f"1.0-{'a' * 16}-seed0"
    assert len({base, key_folder(seed=1, version="1.0", core="a" * 64), key_folder(seed=0, version="1.1", core="a" * 64),
                key_folder(seed=0, version="1.0", core="b" * 64)}) == 4
    core = tmp_path / "core"
    (core / "sub").mkdir(parents=True)
    (core / "sub" / "m.py").write_text("x = 1\n")
    first = core_hash(core)
    (core / "sub" / "m.py").write_text("x = 2\n")
    core_hash.cache_clear()
    assert core_hash(core) != first
    assert WarmCache(tmp_path / "w", seed=0).folder != WarmCache(tmp_path / "w", seed=1).folder


def test_keys_that_are_not_plain_data_are_not_kept(tmp_path):
    cache = WarmCache(tmp_path)
    assert not cache.put("setups", ("k", object()), 1) and cache.get("setups", ("k", object())) is None
    assert not cache.put("../escape", KEY, 1)


def test_the_cache_keeps_its_bounds(tmp_path, monkeypatch):
    monkeypatch.setattr(warm_cache, "MAX_ENTRIES", 3)
    cache = WarmCache(tmp_path)
    for i in range(5):
        assert cache.put("finished", ("k", i), np.full(10, i))
        os.utime(cache.path("finished", ("k", i)), ns=(i * 10**9, i * 10**9))  # written in order
    assert len(cache.entries()) == 3 and cache.get("finished", ("k", 0)) is None
    assert cache.get("finished", ("k", 4)) is not None
    monkeypatch.setattr(warm_cache, "MAX_ENTRY_BYTES", 100)
    assert not cache.put("finished", ("big",), np.zeros(1000))


def test_old_key_folders_are_pruned(tmp_path):
    for i, core in enumerate("abcd"):
        old = WarmCache(tmp_path, seed=0, core=core * 64)
        old.put("setups", KEY, i)
        os.utime(old.folder, ns=(i * 10**9, i * 10**9))
    current = WarmCache(tmp_path, seed=0)
    assert current.prune(keep=3) == 2
    assert sorted(p.name.rsplit("-", 2)[-2][0] for p in tmp_path.iterdir() if p != current.folder) == ["c", "d"]
