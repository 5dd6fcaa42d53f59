"""Every public class of core with ``fit`` keeps scikit-learn's estimator contract.

Found by walking core, so a new estimator is checked without being listed: ``get_params``
returns exactly its ``__init__`` parameters, ``clone`` rebuilds it, and no parameter name
ends with an underscore (scikit-learn keeps those for fitted attributes).
"""
from __future__ import annotations

import importlib
import inspect
import pkgutil

import pytest
from sklearn.base import clone

import core

#: the arguments a class needs to be built (every other parameter has a default)
REQUIRED = {
    "TableCodec": dict(numeric=["x"], categorical=["c"]),
}


def _estimators() -> dict[str, type]:
    found = {}
    for info in pkgutil.walk_packages(core.__path__, "core."):
        module = importlib.import_module(info.name)
        for name, obj in vars(module).items():
            if (inspect.isclass(obj) and obj.__module__ == module.__name__ and not name.startswith("_")
                    and callable(getattr(obj, "fit", None))):
                found[f"{obj.__module__}.{name}"] = obj
    return found


ESTIMATORS = _estimators()


def test_the_walk_finds_the_papers_estimators():
    names = {path.rsplit(".", 1)[1] for path in ESTIMATORS}
    assert {"CDPLogisticRegression", "ImposterSynthesizer", "SSKMDP", "SelfOrganizingMap", "TableCodec"} <= names


@pytest.mark.parametrize("path", sorted(ESTIMATORS))
def test_get_params_returns_the_init_parameters(path):
    cls = ESTIMATORS[path]
    est = cls(**REQUIRED.get(cls.__name__, {}))
    init = [p for p in inspect.signature(cls.__init__).parameters.values()
            if p.name != "self" and p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL)]
    assert set(est.get_params(deep=False)) == {p.name for p in init}


@pytest.mark.parametrize("path", sorted(ESTIMATORS))
def test_clone_rebuilds_it(path):
    cls = ESTIMATORS[path]
    est = cls(**REQUIRED.get(cls.__name__, {}))
    copy = clone(est)
    assert type(copy) is cls and copy.get_params(deep=False).keys() == est.get_params(deep=False).keys()


@pytest.mark.parametrize("path", sorted(ESTIMATORS))
def test_no_parameter_ends_with_an_underscore(path):
    cls = ESTIMATORS[path]
    names = [n for n in inspect.signature(cls.__init__).parameters if n != "self"]
    assert [n for n in names if n.endswith("_")] == []
