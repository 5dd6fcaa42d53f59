"""Every long function of core that reports progress can also be stopped (core.runtime.progress).

Found by walking core, so a new function with ``progress`` is checked without being listed:
each public function and method that takes ``progress`` also takes ``stop``. A few cheap
cases then check the behaviour: a set event raises Stopped, an unset one changes nothing.
"""
from __future__ import annotations

import importlib
import inspect
import pkgutil
import threading

import numpy as np
import pytest

import core
from core.cdp.sensitivity import record_matrix
from core.correlation.maximal_information import mic_pairs
from core.correlation.records import correlated_sensitivity
from core.data import load_sample
from core.imposter.detection import nmi_scores
from core.privacy.schema_estimate import estimate_schema
from core.runtime.progress import Stopped

#: the protocol's own helpers take a callback to wrap, not work to stop
PROTOCOL = "core.runtime.progress"


def _callables(obj, module: str):
    """(qualified name, function) of a public function, or of a class's public methods."""
    if inspect.isfunction(obj):
        yield f"{module}.{obj.__name__}", obj
    elif inspect.isclass(obj):
        for name, member in vars(obj).items():
            func = getattr(member, "__func__", member)  # staticmethod / classmethod
            if not name.startswith("_") and inspect.isfunction(func):
                yield f"{module}.{obj.__name__}.{name}", func


def _taking_progress() -> dict:
    found = {}
    for info in pkgutil.walk_packages(core.__path__, "core."):
        if info.name == PROTOCOL:
            continue
        module = importlib.import_module(info.name)
        for name, obj in vars(module).items():
            if name.startswith("_") or getattr(obj, "__module__", None) != module.__name__:
                continue
            for path, func in _callables(obj, module.__name__):
                if "progress" in inspect.signature(func).parameters:
                    found[path] = func
    return found


TAKING_PROGRESS = _taking_progress()


def test_the_walk_finds_the_long_functions():
    names = {path.rsplit(".", 1)[1] for path in TAKING_PROGRESS}
    assert {"dc_fbfs", "detect_implicit", "estimate_schema", "map_tasks", "sweep", "fit"} <= names


@pytest.mark.parametrize("path", sorted(TAKING_PROGRESS))
def test_every_function_with_progress_takes_stop(path):
    params = inspect.signature(TAKING_PROGRESS[path]).parameters
    assert "stop" in params, f"{path} takes progress but no stop"
    assert params["stop"].default is None
    assert params["stop"].kind in (inspect.Parameter.KEYWORD_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)


@pytest.fixture(scope="module")
def census():
    return load_sample("census")


@pytest.fixture(scope="module")
def records(census):
    return record_matrix(census).X


def _set() -> threading.Event:
    event = threading.Event()
    event.set()
    return event


def test_a_set_event_stops_before_the_work(census, records):
    with pytest.raises(Stopped):
        estimate_schema(census, epsilon=1.0, columns=["age"], random_state=0, stop=_set())
    with pytest.raises(Stopped):
        correlated_sensitivity(records, stop=_set())
    with pytest.raises(Stopped):
        mic_pairs(records, [(0, 1), (1, 2)], max_rows=300, random_state=0, stop=_set())


def test_an_unset_event_changes_nothing(records):
    pairs = [(0, 1), (1, 2), (0, 2)]
    plain = mic_pairs(records, pairs, max_rows=500, random_state=0)
    watched = mic_pairs(records, pairs, max_rows=500, random_state=0, stop=threading.Event())
    np.testing.assert_array_equal(plain, watched)
    a = correlated_sensitivity(records)
    b = correlated_sensitivity(records, stop=threading.Event())
    assert (a.correlated, a.group) == (b.correlated, b.group)
    np.testing.assert_array_equal(a.per_record, b.per_record)


def test_an_event_set_during_the_work_ends_it_at_the_next_report(census):
    stop, seen = threading.Event(), []

    def progress(fraction: float, message: str) -> None:
        seen.append(message)
        stop.set()

    with pytest.raises(Stopped):
        nmi_scores(census.frame, "sex", progress=progress, stop=stop)
    assert len(seen) == 1
