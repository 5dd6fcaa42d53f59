"""What a bundle discloses, read from its files: a bundle to publish refuses a schema read from
the rows, and one built from a declared schema holds no value of the rows in any file."""
from __future__ import annotations

import io
import json
import re
import zipfile

import numpy as np
import pandas as pd
import pytest

from core.bundle.build import build_bundle
from core.bundle.disclosure import bundle_contents, check_contents, check_publishable
from core.bundle.page_config import PageConfig
from core.bundle.pages import sskm
from core.data import frame_to_dataset
from core.privacy.schema import PublicSchema
from core.privacy.schema_builtin import schema_for
from core.privacy.schema_columns import ColumnSchema

#: values that occur nowhere else: the numeric maximum of the rows, a category one record holds
MAXIMUM, RARE = 123457.891, "zq_rare_917"
SEED = 918273
#: a small SSKM_DP run (sound mode: a DP release), no baselines
SETTINGS = {"rows": 3, "cols": 3, "iterations": 1000, "init": "random", "baselines": False}


@pytest.fixture(scope="module")
def sentinels():
    rng = np.random.default_rng(0)
    n = 120
    frame = pd.DataFrame({"income": np.round(rng.uniform(100, 900, n), 3), "age": rng.integers(18, 80, n),
                          "job": rng.choice(["a", "b", "c"], n), "sex": rng.choice(["f", "m"], n),
                          "y": rng.choice([0, 1], n)})
    frame.loc[7, "income"] = MAXIMUM
    frame.loc[11, "job"] = RARE
    return frame_to_dataset(frame, name="sentinels.csv", label="y", sensitive=["sex"])


def _declared() -> PublicSchema:
    """A declared schema: public ranges and lists, neither sentinel in them."""
    return PublicSchema((ColumnSchema("income", "numeric", lower=0.0, upper=1000.0, source="declared"),
                         ColumnSchema("age", "numeric", lower=0, upper=120, integer=True, source="declared"),
                         ColumnSchema("job", "categorical", categories=("a", "b", "c"), source="declared"),
                         ColumnSchema("sex", "categorical", categories=("f", "m"), source="declared"),
                         ColumnSchema("y", "categorical", categories=(0, 1), source="declared")),
                        label="y", sensitive=("sex",))


def _config(data, schema: PublicSchema | None) -> PageConfig:
    return PageConfig(page="sskm", dataset="csv:sentinels.csv", seed=SEED, label="y", sensitive=("sex",),
                      settings=SETTINGS, schema=None if schema is None else schema.to_dict(),
                      fingerprint=data.fingerprint())


def _members(data: bytes) -> dict[str, str]:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return {n: archive.read(n).decode("utf-8") for n in archive.namelist()}


def _sentinels_in(text: str) -> list[str]:
    """Every way the sentinels could be written: as typed, the maximum's integer part alone (also
    rounded, as report.html's 6 digits would) and in exponent form. The integer parts must stand
    alone (no digit or point before, no digit after), so that a released value's decimals, which
    may hold any six digits, do not count."""
    found = [s for s in (RARE, repr(MAXIMUM), f"{MAXIMUM:.6g}", f"{MAXIMUM:.6e}", f"{MAXIMUM:e}") if s in text]
    return found + [s for s in ("123457", "123458") if re.search(rf"(?<![0-9.]){s}(?![0-9])", text)]


def test_a_bundle_to_publish_refuses_a_drafted_schema_before_any_work(sentinels, monkeypatch):
    draft = schema_for(sentinels)
    assert RARE in draft.to_json() and repr(MAXIMUM) in draft.to_json()  # what it would have published
    monkeypatch.setattr(sskm, "releases", lambda *a, **k: pytest.fail("the refusal comes before the releases"))
    with pytest.raises(ValueError) as info:
        build_bundle(_config(sentinels, None), sentinels, kind="publish")
    text = str(info.value)
    assert "5 public schema entries read from the data" in text and "'income'" in text
    assert "confirm them as public knowledge on the Data page" in text and "estimate them privately" in text
    assert "\n" not in text and RARE not in text and "123457" not in text  # one sentence, no value of the rows


def test_a_declared_schema_publishes_no_value_of_the_rows_in_any_file(sentinels):
    bundle = build_bundle(_config(sentinels, _declared()), sentinels, kind="publish")
    files = _members(bundle.data)
    assert {"README.md", "bundle.json", "config.json", "report.html", "result.json", "rerun.py",
            "rerun.ipynb"} <= set(files) and any(n.startswith("releases/") and n.endswith(".csv") for n in files)
    for name, text in files.items():
        assert not _sentinels_in(text), (name, _sentinels_in(text))
        assert str(SEED) not in text and sentinels.fingerprint() not in text, name
    disclosure = bundle.manifest["disclosure"]
    assert disclosure.startswith("To publish") and "5 entries, none read from the data" in disclosure
    assert "no seed, no number computed on the private rows and no data file" in disclosure
    assert "1 released table(s) (differentially private; drawn from fresh operating-system entropy)" in disclosure
    assert disclosure in files["README.md"] and bundle.ledger.is_dp


def test_a_colleague_bundle_says_its_exact_statistics_are_inside(sentinels):
    bundle = build_bundle(_config(sentinels, None), sentinels)  # the draft: the sidecar carries 4 entries
    files = _members(bundle.data)
    disclosure = bundle.manifest["disclosure"]
    assert disclosure.startswith("For a colleague") and "exact statistics of the private rows" in disclosure
    assert "4 schema entries read from the data" in disclosure and "the data's fingerprint" in disclosure
    assert "the seed of every seeded number" in disclosure and "not the private table itself" in disclosure
    assert "NOT differentially private" in disclosure and not bundle.ledger.is_dp
    assert any(_sentinels_in(text) for text in files.values())  # the search finds what is there


def test_a_bundle_to_publish_drops_the_numbers_and_report_it_is_handed(sentinels):
    bundle = build_bundle(_config(sentinels, _declared()), sentinels, kind="publish",
                          numbers={"maximum": MAXIMUM}, report_html=f"<p>{RARE}</p>")
    assert not any(_sentinels_in(text) for text in _members(bundle.data).values())


def test_a_group_size_read_from_the_data_is_refused_too():
    schema = PublicSchema((ColumnSchema("a", "numeric", lower=0, upper=1, source="declared"),),
                          max_group_size=3, max_group_source="read from data")
    with pytest.raises(ValueError, match=r"1 public schema entry read from the data \('max_group_size'\)"):
        check_publishable(schema)
    check_publishable(PublicSchema(schema.columns, max_group_size=3))  # declared: fine


def test_the_contents_are_read_from_the_files():
    schema = {"columns": [{"name": "a", "source": "read from data"}, {"name": "b", "source": "declared"}]}
    files = {"config.json": json.dumps({"seed": 4, "fingerprint": None, "schema": schema,
                                        "settings": {"noise_seed": 2}}).encode(),
             "result.json": json.dumps({"numbers": {"x": 1.5, "rows": [{"y": 2, "ok": True}]}}).encode(),
             "releases/t.csv": b"x\r\n1\r\n",
             "releases/t.json": json.dumps({"is_dp": False, "private": False, "public_schema": schema}).encode(),
             "data/t.csv": b"a,b\n1,2\n"}
    c = bundle_contents(files)
    assert (c.numbers, c.fingerprint, c.data_files, c.read_from_data) == (2, False, ("data/t.csv",), ("a",))
    assert c.seeds == ("config.json seed", "config.json setting 'noise_seed'", "releases/t.json (drawn from a seed)")
    assert (c.releases, c.releases_dp, c.releases_fresh, c.schema_entries) == (1, 0, 0, 2)
    with pytest.raises(ValueError, match="A bundle to publish would hold exact statistics"):
        check_contents("publish", c)
    check_contents("colleague", c)
    assert bundle_contents({"config.json": b'{"seed": null}', "result.json": b'{"releases": []}'}).exact == []


def test_pux_bundle_publish_refuses_a_drafted_schema_in_one_line(sentinels, tmp_path, capsys):
    from dashboard import cli

    sentinels.frame.to_csv(tmp_path / "sentinels.csv", index=False)
    config = tmp_path / "page.json"
    config.write_text(_config(sentinels, None).to_json())
    out = tmp_path / "out" / "public.zip"
    code = cli.main(["bundle", "--config", str(config), "--out", str(out), "--publish",
                     "--csv", str(tmp_path / "sentinels.csv")])
    err = capsys.readouterr().err
    assert code == 1 and not out.exists() and not out.parent.exists()
    assert err.startswith("pux: A bundle to publish cannot carry 5 public schema entries read from the data")
    assert err.count("\n") == 1 and "Traceback" not in err
