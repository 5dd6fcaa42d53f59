"""Format versions: the current one passes, an older one is migrated or refused, a newer one refused."""
from __future__ import annotations

import pytest

from core.data import formats
from core.data.formats import check_format, format_version


def test_current_version_passes_unchanged():
    data = {"format": "pux-page/1", "x": 1}
    assert check_format(data, "pux-page") is data


@pytest.mark.parametrize("value, expected", [("pux-compare/1", ("pux-compare", 1)), ("pux-compare/x", None),
                                             ("pux-compare", None), (3, None)])
def test_format_version_reads_kind_and_number(value, expected):
    assert format_version(value) == expected


def test_newer_version_is_refused_with_what_to_do():
    with pytest.raises(ValueError, match="newer than this version.*upgrade"):
        check_format({"format": "pux-bundle/2"}, "pux-bundle")


def test_another_kind_is_refused_naming_the_needed_format():
    with pytest.raises(ValueError, match='"pux-solve/1"'):
        check_format({"format": "pux-compare/1"}, "pux-solve")


def test_missing_format_is_refused_naming_the_field():
    with pytest.raises(ValueError, match='needs "format": "pux-page/1"'):
        check_format({"page": "sskm"}, "pux-page")


def test_older_version_without_migration_is_refused_with_what_to_change(monkeypatch):
    monkeypatch.setitem(formats.CURRENT, "pux-page", 2)
    with pytest.raises(ValueError, match='no longer read.*"pux-page/2"'):
        check_format({"format": "pux-page/1"}, "pux-page")


def test_older_version_is_migrated_step_by_step(monkeypatch):
    monkeypatch.setitem(formats.CURRENT, "pux-page", 3)
    monkeypatch.setitem(formats.MIGRATIONS, ("pux-page", 1), lambda d: {**d, "a": 1})
    monkeypatch.setitem(formats.MIGRATIONS, ("pux-page", 2), lambda d: {**d, "b": d["a"] + 1})
    original = {"format": "pux-page/1"}
    out = check_format(original, "pux-page")
    assert out == {"format": "pux-page/3", "a": 1, "b": 2}
    assert original == {"format": "pux-page/1"}


def test_non_object_is_a_type_error():
    with pytest.raises(TypeError, match="JSON object"):
        check_format(["pux-page/1"], "pux-page")


def test_a_newer_schema_version_says_to_upgrade():
    from core.privacy.schema import PublicSchema
    from core.privacy.schema_builtin import schema_for
    from core.data import load_sample

    data = {**schema_for(load_sample("census")).to_dict(), "version": 2}
    with pytest.raises(ValueError, match="upgrade the project"):
        PublicSchema.from_dict(data)


def test_a_newer_release_sidecar_says_to_upgrade():
    import json

    import pandas as pd

    from core.privacy.ledger import PrivacyLedger
    from core.privacy.release import release_files
    from core.privacy.release_read import read_release

    ledger = PrivacyLedger()
    ledger.spend(1.0, label="x")
    files = release_files(pd.DataFrame({"a": [1, 2]}), file_name="t.csv", method="m", ledger=ledger, noise=None)
    meta = json.loads(files["t.json"])
    meta["format"] = "pux-release/2"
    with pytest.raises(ValueError, match="newer than this version"):
        read_release(files["t.csv"], sidecar=json.dumps(meta).encode())
