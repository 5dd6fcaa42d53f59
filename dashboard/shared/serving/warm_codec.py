"""The warm cache's codec: a value as tagged JSON plus numpy arrays, and back. Never pickle.

:func:`encode` turns a value into JSON-able data whose arrays it puts in ``arrays`` (saved in
an ``.npz`` and loaded with ``allow_pickle=False``); :func:`decode` rebuilds it. It takes

- None, bool, int, float, str; list, tuple, dict (any encodable keys), set, frozenset;
- numpy arrays and scalars of any dtype but ``object``;
- pandas DataFrame, Series and Index (RangeIndex, MultiIndex): numeric, bool, datetime,
  categorical, extension (``string``, ``Int64``...) and object columns of encodable values;
- the project's result dataclasses named in :data:`ALLOWED`, rebuilt from that list by name
  (fields named with ``_``, private memos, are left out and rebuilt from their defaults).

Anything else raises TypeError (the value is then not cached). Decoding never imports a
name a file gives: a tag or class outside this module's lists raises ValueError.
"""
from __future__ import annotations

import dataclasses
import importlib
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["ALLOWED", "encode", "decode"]

#: the result dataclasses the cache may hold: name in the file -> "module:class" (ours only)
ALLOWED: dict[str, str] = {
    "Dataset": "core.data.dataset:Dataset",
    "DCFBFSResult": "core.cdp.dc_fbfs:DCFBFSResult",
    "SchemeSetup": "core.cdp.baselines:SchemeSetup",
    "PublishingSetup": "core.cdp.publishing:PublishingSetup",
    "CountRelease": "core.cdp.publishing:CountRelease",
    "Query": "core.cdp.queries:Query",
    "GroupBound": "core.cdp.dp_reading:GroupBound",
    "Reference": "core.cdp.sweeps:Reference",
    "PublicSchema": "core.privacy.schema:PublicSchema",
    "ColumnSchema": "core.privacy.schema_columns:ColumnSchema",
    "SensitivityReport": "core.correlation.records:SensitivityReport",
    "DetectionResult": "core.imposter.detection:DetectionResult",
    "ComparisonResult": "core.compare.result:ComparisonResult",
    "Claim": "core.claims.claim:Claim",
    "AuditResult": "core.audit.result:AuditResult",
    "CDPStory": "core.papers.stories:CDPStory",
    "ImposterStory": "core.papers.stories:ImposterStory",
    "SSKMStory": "core.papers.stories:SSKMStory",
    "CompareStory": "core.papers.stories:CompareStory",
}
_BY_PATH = {path: name for name, path in ALLOWED.items()}
_PLAIN = (str, int, float, bool)
_MAX_DEPTH = 64


def _class(name: str) -> type:
    """The allowed dataclass ``name`` (ValueError for any other name)."""
    if name not in ALLOWED:
        raise ValueError(f"{name!r} is not an allowed result class.")
    module, qualname = ALLOWED[name].split(":")
    return getattr(importlib.import_module(module), qualname)


def _array(value: np.ndarray, arrays: dict) -> dict:
    if value.dtype.hasobject:
        raise TypeError("an array of Python objects is not cached.")
    ref = f"a{len(arrays)}"
    arrays[ref] = value
    return {"$nd": ref}


def encode(value: Any, arrays: dict, depth: int = 0) -> Any:
    """``value`` as JSON-able data; its arrays go into ``arrays`` (name -> ndarray).

    Raises
    ------
    TypeError
        A value (or part of one) the codec does not take.
    """
    if depth > _MAX_DEPTH:
        raise TypeError("the value is nested too deeply.")
    if value is None or type(value) in _PLAIN:
        return value
    d = depth + 1
    if isinstance(value, np.generic):
        if value.dtype.kind in "biuf":  # inline: one array per number would cost a file member each
            return {"$np": value.dtype.str, "v": value.item()}
        return {"$scalar": _array(np.asarray(value), arrays)}
    if isinstance(value, np.ndarray):
        return _array(value, arrays)
    if type(value) in (list, tuple, set, frozenset):
        tag = {list: "$list", tuple: "$tuple", set: "$set", frozenset: "$frozenset"}[type(value)]
        return {tag: [encode(v, arrays, d) for v in value]}
    if type(value) is dict:
        return {"$dict": [[encode(k, arrays, d), encode(v, arrays, d)] for k, v in value.items()]}
    if isinstance(value, pd.DataFrame):
        return _frame(value, arrays, d)
    if isinstance(value, pd.Series):
        return {"$series": _values(value, arrays, d), "index": _index(value.index, arrays, d),
                "name": encode(value.name, arrays, d)}
    if isinstance(value, pd.Index):
        return _index(value, arrays, d)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return _dataclass(value, arrays, d)
    raise TypeError(f"a {type(value).__name__} is not cached.")


def _dataclass(value: Any, arrays: dict, depth: int) -> dict:
    cls = type(value)
    name = _BY_PATH.get(f"{cls.__module__}:{cls.__qualname__}")
    if name is None:
        raise TypeError(f"the dataclass {cls.__qualname__} is not in the allow-list.")
    # a field named with "_" is a private memo (models fitted later, say): rebuilt from its default
    fields = {f.name: encode(getattr(value, f.name), arrays, depth) for f in dataclasses.fields(value)
              if not f.name.startswith("_")}
    return {"$dc": name, "fields": fields}


def _frame(frame: pd.DataFrame, arrays: dict, depth: int) -> dict:
    return {"$frame": [_values(frame.iloc[:, i], arrays, depth) for i in range(frame.shape[1])],
            "columns": _index(frame.columns, arrays, depth), "index": _index(frame.index, arrays, depth),
            "attrs": encode(dict(frame.attrs), arrays, depth)}


def _index(index: pd.Index, arrays: dict, depth: int) -> dict:
    if isinstance(index, pd.RangeIndex):
        return {"$range": [index.start, index.stop, index.step], "name": encode(index.name, arrays, depth)}
    if isinstance(index, pd.MultiIndex):
        return {"$multi": [_index(index.get_level_values(i), arrays, depth) for i in range(index.nlevels)],
                "names": encode(list(index.names), arrays, depth)}
    return {"$index": _values(index, arrays, depth), "name": encode(index.name, arrays, depth)}


def _values(values: pd.Series | pd.Index, arrays: dict, depth: int) -> dict:
    """One column's values (a Series or an Index) with their dtype."""
    dtype = values.dtype
    if isinstance(dtype, pd.CategoricalDtype):
        return {"$cat": _array(np.asarray(values.array.codes), arrays),
                "categories": _index(dtype.categories, arrays, depth), "ordered": bool(dtype.ordered)}
    if isinstance(dtype, np.dtype) and not dtype.hasobject:
        return {"$col": _array(values.to_numpy(), arrays)}
    mask = np.asarray(pd.isna(values), dtype=bool)
    items = list(values)
    if isinstance(dtype, pd.StringDtype) or (dtype == object and all(
            (v is None) if m else type(v) is str for v, m in zip(items, mask))):
        text = ["" if m else v for v, m in zip(items, mask)]
        out = {"$str": _strings(text, arrays), "mask": _array(mask, arrays)}
        if isinstance(dtype, pd.StringDtype):
            out.update(storage=dtype.storage, nan=dtype.na_value is not pd.NA)
        return out
    numpy_dtype = getattr(dtype, "numpy_dtype", None)
    if numpy_dtype is not None and numpy_dtype.kind in "biuf":  # Int64, Float64, boolean
        data = values.to_numpy(dtype=numpy_dtype, na_value=0)
        return {"$masked": _array(data, arrays), "mask": _array(mask, arrays), "dtype": str(dtype)}
    items = [None if m and dtype != object else v for v, m in zip(items, mask)]
    return {"$obj" if dtype == object else "$ext": [encode(v, arrays, depth) for v in items],
            "dtype": str(dtype)}


def _strings(text: list[str], arrays: dict) -> dict:
    """Strings as one UTF-8 buffer and their lengths in bytes (two arrays, however many)."""
    raw = [t.encode("utf-8", "surrogatepass") for t in text]
    return {"utf8": _array(np.frombuffer(b"".join(raw), dtype=np.uint8), arrays),
            "lengths": _array(np.array([len(r) for r in raw], dtype=np.int64), arrays)}


def _unstrings(data: dict, arrays: dict) -> list[str]:
    blob = arrays[data["utf8"]["$nd"]].tobytes()
    ends = np.cumsum(arrays[data["lengths"]["$nd"]]).tolist()
    starts = [0] + ends[:-1]
    return [blob[a:b].decode("utf-8", "surrogatepass") for a, b in zip(starts, ends)]


def _missing(value: Any) -> bool:
    try:
        return bool(pd.isna(value))
    except (TypeError, ValueError):
        return False


def decode(data: Any, arrays: dict, depth: int = 0) -> Any:
    """The value :func:`encode` described (``arrays``: the npz's arrays by name).

    Raises
    ------
    ValueError, KeyError, TypeError
        The description is not one :func:`encode` writes (the caller treats it as a miss).
    """
    if depth > _MAX_DEPTH:
        raise ValueError("the description is nested too deeply.")
    if data is None or type(data) in _PLAIN:
        return data
    if not isinstance(data, dict):
        raise ValueError("not a tagged description.")
    d = depth + 1
    if "$nd" in data:
        return arrays[data["$nd"]]
    if "$np" in data:
        dtype = np.dtype(data["$np"])
        if dtype.kind not in "biuf":
            raise ValueError("not a number's dtype.")
        return dtype.type(data["v"])
    if "$scalar" in data:
        return decode(data["$scalar"], arrays, d)[()]
    for tag, kind in (("$list", list), ("$tuple", tuple), ("$set", set), ("$frozenset", frozenset)):
        if tag in data:
            return kind(decode(v, arrays, d) for v in data[tag])
    if "$dict" in data:
        return {decode(k, arrays, d): decode(v, arrays, d) for k, v in data["$dict"]}
    if "$frame" in data:
        return _unframe(data, arrays, d)
    if "$series" in data:
        values = _unvalues(data["$series"], arrays, d)
        return pd.Series(values, index=_unindex(data["index"], arrays, d), name=decode(data["name"], arrays, d),
                         dtype=_kept(values), copy=False)
    if "$dc" in data:
        return _undataclass(data, arrays, d)
    return _unindex(data, arrays, d)


def _undataclass(data: dict, arrays: dict, depth: int) -> Any:
    cls = _class(data["$dc"])
    values = {k: decode(v, arrays, depth) for k, v in data["fields"].items()}
    known = {f.name: f for f in dataclasses.fields(cls)}
    if set(values) - set(known):
        raise ValueError(f"fields unknown to {cls.__qualname__}.")
    obj = cls(**{k: v for k, v in values.items() if known[k].init})
    for k, v in values.items():
        if not known[k].init:
            object.__setattr__(obj, k, v)
    return obj


def _unframe(data: dict, arrays: dict, depth: int) -> pd.DataFrame:
    columns = _unindex(data["columns"], arrays, depth)
    index = _unindex(data["index"], arrays, depth)
    parts = [_unvalues(v, arrays, depth) for v in data["$frame"]]
    if len(parts) != len(columns):
        raise ValueError("the frame's columns and values disagree.")
    frame = pd.concat([pd.Series(p, index=index, dtype=_kept(p), copy=False) for p in parts], axis=1) if parts else \
        pd.DataFrame(index=index)
    frame.columns = columns
    frame.attrs.update(decode(data.get("attrs", {"$dict": []}), arrays, depth))
    return frame


def _unindex(data: dict, arrays: dict, depth: int) -> pd.Index:
    if "$range" in data:
        start, stop, step = (int(v) for v in data["$range"])
        return pd.RangeIndex(start, stop, step, name=decode(data["name"], arrays, depth))
    if "$multi" in data:
        levels = [_unindex(level, arrays, depth) for level in data["$multi"]]
        return pd.MultiIndex.from_arrays(levels, names=decode(data["names"], arrays, depth))
    if "$index" in data:
        values = _unvalues(data["$index"], arrays, depth)
        return pd.Index(values, name=decode(data["name"], arrays, depth), dtype=_kept(values), copy=False)
    raise ValueError("unknown tag in the description.")


def _kept(values: Any) -> Any:
    """``object`` for an object array (pandas would otherwise infer ``str`` for its strings)."""
    return object if isinstance(values, np.ndarray) and values.dtype == object else None


def _unvalues(data: dict, arrays: dict, depth: int) -> Any:
    if "$col" in data:
        return decode(data["$col"], arrays, depth)
    if "$cat" in data:
        return pd.Categorical.from_codes(decode(data["$cat"], arrays, depth),
                                         categories=_unindex(data["categories"], arrays, depth),
                                         ordered=bool(data["ordered"]))
    if "$str" in data:
        mask = decode(data["mask"], arrays, depth)
        items = np.array(_unstrings(data["$str"], arrays), dtype=object)
        items[mask] = None
        if "storage" not in data:
            return items
        return pd.array(items, dtype=pd.StringDtype(storage=str(data["storage"]),
                                                   na_value=np.nan if data["nan"] else pd.NA))
    if "$masked" in data:
        values = pd.array(decode(data["$masked"], arrays, depth), dtype=pd.api.types.pandas_dtype(data["dtype"]))
        values[decode(data["mask"], arrays, depth)] = pd.NA
        return values
    items = [decode(v, arrays, depth) for v in (data.get("$obj") if "$obj" in data else data["$ext"])]
    if "$obj" in data:
        out = np.empty(len(items), dtype=object)
        for i, v in enumerate(items):  # one by one: a list element stays one element
            out[i] = v
        return out
    return pd.array(items, dtype=pd.api.types.pandas_dtype(data["dtype"]))
