"""``pux-page/1`` configs: checked on creation, JSON both ways, data checked against the fingerprint."""
from __future__ import annotations

import pytest

from core.bundle.configs import config_dict, read_bundle_config
from core.bundle.page_config import PageConfig, load_page_dataset
from core.compare.config import CompareConfig
from core.data import load_sample
from core.validation import DataError

SETTINGS = {"methods": ["Raw table"], "epsilons": [1.0], "repetitions": 1}


def _config(**kw) -> PageConfig:
    return PageConfig(**{"page": "compare", "dataset": "census", "seed": 1, "label": "income",
                         "sensitive": ("sex",), "settings": SETTINGS, **kw})


def test_settings_get_the_pages_defaults():
    assert _config().settings["audit_runs"] == CompareConfig(dataset="census", methods=("Raw table",),
                                                             epsilons=(1.0,), seed=0).audit_runs


def test_json_round_trip_keeps_every_field():
    config = _config(seed=None)
    assert PageConfig.from_dict(config.to_dict()) == config


def test_unknown_page_names_the_pages():
    with pytest.raises(ValueError, match="page.*sskm"):
        _config(page="nope")


def test_unknown_field_is_refused():
    with pytest.raises(ValueError, match="unknown field"):
        PageConfig.from_dict({**_config().to_dict(), "colour": "red"})


def test_a_schema_path_is_refused_in_a_page_config():
    with pytest.raises(ValueError, match="inline"):
        _config(schema="census.schema.json")


def test_compare_config_reads_as_a_compare_page_and_writes_back():
    compare = CompareConfig(dataset="census", methods=("Raw table",), epsilons=(1.0,), seed=1, label="income",
                            sensitive=("sex",), repetitions=1)
    page = read_bundle_config(compare.to_dict())
    assert page.page == "compare" and page.seed == 1
    assert config_dict(page) == compare.to_dict()


def test_other_data_than_the_fingerprints_is_refused():
    data = load_sample("census")
    with pytest.raises(DataError, match="differs from the data this bundle was made from"):
        load_page_dataset(_config(fingerprint="0" * 16))
    assert load_page_dataset(_config(fingerprint=data.with_roles(label="income", sensitive=["sex"])
                                     .without_identifiers().fingerprint())).n_rows == data.n_rows
