"""Bundles in their two kinds: what each holds, what it discloses, what the ledger counts."""
from __future__ import annotations

import io
import json
import sys
import types
import zipfile

import pandas as pd
import pytest

from core.bundle import pages
from core.bundle.build import build_bundle
from core.bundle.page_config import PageConfig
from core.compare.config import CompareConfig
from core.data import frame_to_dataset, load_sample
from core.privacy.ledger import PrivacyLedger
from core.privacy.noise_source import NoiseSource
from tests.core.bundle.support import assert_reruns

SEED = 4321


def _fake_page() -> types.ModuleType:
    """A page that releases one DP table whose values come from the noise (and a seeded mean)."""
    module = types.ModuleType("core.bundle.pages.fake_page")
    module.TITLE = "Fake"
    module.check_settings = lambda settings: {"epsilon": 1.0, **settings}
    module.describe = lambda settings: "A fake page."

    def numbers(dataset, schema, *, seed, settings, progress=None):
        return {"mean_age": float(dataset.frame["age"].mean()), "seed_used": seed,
                "utility": {"accuracy": 0.812345, "auc": 0.876543, "balanced_accuracy": 0.734567}}

    def releases(dataset, schema, *, noise, settings):
        ledger = PrivacyLedger()
        ledger.spend(settings["epsilon"], label="fake counts")
        frame = pd.DataFrame({"count": noise.generator().integers(0, 9, size=3)})
        return [pages.BundleRelease("fake_release", "Fake counts", frame, ledger)]

    module.numbers, module.releases = numbers, releases
    return module


@pytest.fixture
def fake(monkeypatch):
    monkeypatch.setitem(pages.PAGES, "fake", "fake_page")
    monkeypatch.setitem(sys.modules, "core.bundle.pages.fake_page", _fake_page())
    data = load_sample("census")
    config = PageConfig(page="fake", dataset="census", seed=SEED, label=data.label, sensitive=tuple(data.sensitive),
                        fingerprint=data.fingerprint())
    return config, data


def _files(bundle) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(bundle.data)) as archive:
        return {n: archive.read(n) for n in archive.namelist()}


def test_colleague_bundle_holds_every_part(fake):
    config, data = fake
    files = _files(build_bundle(config, data))
    assert {"README.md", "bundle.json", "config.json", "report.html", "result.json", "rerun.py",
            "rerun.ipynb"} <= set(files)
    assert [n for n in files if n.startswith("releases/")] == [
        "releases/census-fake-release1-dp-eps1.csv", "releases/census-fake-release1-dp-eps1.json"]
    assert json.loads(files["config.json"])["seed"] == SEED
    assert json.loads(files["result.json"])["numbers"]["seed_used"] == SEED


def test_colleague_bundle_is_not_dp_in_the_ledger(fake):
    bundle = build_bundle(*fake)
    assert not bundle.ledger.is_dp and not bundle.manifest["is_dp"]
    assert "NOT differentially private" in bundle.manifest["disclosure"]


def test_publish_bundle_holds_no_seed_no_statistic_no_fingerprint(fake):
    config, data = fake
    bundle = build_bundle(config, data, kind="publish")
    files = _files(bundle)
    text = b"".join(files.values()).decode("utf-8", "replace")
    assert str(SEED) not in text
    assert f"{data.frame['age'].mean()!r}"[:8] not in text
    assert data.fingerprint() not in text
    cfg = json.loads(files["config.json"])
    assert cfg["seed"] is None and cfg["fingerprint"] is None and cfg["schema"]["columns"]
    assert "numbers" not in json.loads(files["result.json"])
    assert bundle.ledger.is_dp and bundle.ledger.total() == (1.0, 0.0)
    assert bundle.manifest["disclosure"].startswith("To publish")


def test_publish_bundle_carries_no_accuracy_or_auc_computed_on_real_rows(fake):
    config, data = fake
    colleague = b"".join(_files(build_bundle(config, data)).values()).decode("utf-8", "replace")
    assert "0.876543" in colleague  # the colleague's bundle carries the page's scores
    text = b"".join(_files(build_bundle(config, data, kind="publish")).values()).decode("utf-8", "replace")
    for exact in ("0.812345", "0.876543", "0.734567"):
        assert exact not in text


def test_publish_bundle_refuses_seeded_noise_and_data(fake):
    config, data = fake
    with pytest.raises(ValueError, match="fresh entropy"):
        build_bundle(config, data, kind="publish", noise=NoiseSource(3))
    with pytest.raises(ValueError, match="no data"):
        build_bundle(config, data, kind="publish", include_data=True)


def test_publish_of_a_page_without_releases_is_refused():
    data = load_sample("supplier")
    config = CompareConfig(dataset="supplier", methods=("Raw table",), epsilons=(1.0,), seed=1, max_rows=200,
                           repetitions=1, audit_runs=0, label=data.label)
    with pytest.raises(ValueError, match="nothing to publish"):
        build_bundle(config, data, kind="publish")


def test_unknown_kind_is_refused(fake):
    with pytest.raises(ValueError, match="kind"):
        build_bundle(*fake, kind="friends")


def test_readme_names_every_file_and_the_command(fake):
    files = _files(build_bundle(*fake))
    readme = files["README.md"].decode()
    for name in files:
        assert f"`{name}`" in readme
    assert "python rerun.py" in readme and "built-in sample 'census'" in readme


def _upload():
    frame = load_sample("census").frame.head(300)
    return frame_to_dataset(frame, name="mine.csv", label="income", sensitive=["sex"])


def _upload_config(data, **extra) -> CompareConfig:
    return CompareConfig(dataset="csv:mine.csv", methods=("Raw table", "kRR"), epsilons=(1.0,), seed=2,
                         label="income", sensitive=("sex",), repetitions=1, audit_runs=0,
                         fingerprint=data.fingerprint(), **extra)


def test_bundle_with_the_data_reruns_on_its_own(tmp_path):
    data = _upload()
    bundle = build_bundle(_upload_config(data), data, include_data=True)
    assert "data/mine.csv" in bundle.files
    assert_reruns(bundle.data, tmp_path)


def test_bundle_without_the_data_says_so_and_reruns_when_given_it(tmp_path):
    import subprocess

    data = _upload()
    bundle = build_bundle(_upload_config(data), data)
    assert "--data PATH" in bundle.manifest["data"]
    (tmp_path / "b").mkdir()
    from tests.core.bundle.support import unpack_bytes

    folder = unpack_bytes(bundle.data, tmp_path / "b")
    proc = subprocess.run([sys.executable, "rerun.py"], cwd=folder, capture_output=True, text=True)
    assert proc.returncode != 0 and "rerun with --data PATH" in proc.stderr
    data.frame.to_csv(tmp_path / "mine.csv", index=False)
    assert_reruns(bundle.data, tmp_path / "c", data_path=str(tmp_path / "mine.csv"))


def test_compare_bundle_script_and_notebook_give_its_numbers(tmp_path):
    data = load_sample("supplier")
    config = CompareConfig(dataset="supplier", methods=("Raw table", "kRR", "CDP-LR"), epsilons=(1.0,), seed=3,
                           max_rows=300, repetitions=1, audit_runs=20, label=data.label,
                           sensitive=tuple(data.sensitive))
    result = assert_reruns(build_bundle(config, data).data, tmp_path, notebook=True)
    assert {"parameters", "runs", "summary", "audits", "references"} <= set(result["numbers"])


def test_a_bundled_table_with_formulas_is_guarded_and_still_reruns(tmp_path):
    """The colleague's copy of the table runs no formula in a spreadsheet (issue 40), and the
    guard comes off exactly when the bundle is rerun (the fingerprint holds)."""
    frame = load_sample("census").frame.head(300)
    frame["occupation"] = frame["occupation"].where(frame.index % 7 != 0, '=HYPERLINK("http://evil.example")')
    frame["workclass"] = frame["workclass"].where(frame.index % 11 != 0, "'quoted")
    data = frame_to_dataset(frame, name="mine.csv", label="income", sensitive=["sex"])
    bundle = build_bundle(_upload_config(data), data, include_data=True)
    text = _files(bundle)["data/mine.csv"].decode()
    assert "'=HYPERLINK" in text and "''quoted" in text
    assert not any(cell.startswith("=") for line in text.splitlines() for cell in line.split(","))
    assert_reruns(bundle.data, tmp_path)
    from core.bundle.rerun import rerun_bundle

    (tmp_path / "mine.zip").write_bytes(bundle.data)
    assert rerun_bundle(tmp_path / "mine.zip").ok  # pux rerun, in this process
