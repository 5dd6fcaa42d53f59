"""AppTest helpers: run the real app script and switch to a page.

Use ``open_page("cdp_lr")`` to get an ``AppTest`` already on ``cdp/cdp_lr.py``.
"""
from __future__ import annotations

import os
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from dashboard.navigation import page_file

APP = Path(__file__).resolve().parents[2] / "dashboard" / "app.py"

#: AppTest runs pages to the end: a setup step is awaited however long it takes on a slow
#: runner (tests that look at the progress set PUX_SETUP_WAIT to 0 or pass ``wait``)
os.environ.setdefault("PUX_SETUP_WAIT", "600")


def dataset_state(at: AppTest, name: str):
    """What the page keeps under ``name`` for the chosen dataset (keys ``name@<fingerprint>``:
    an audit or a prepared release belongs to the dataset it was made on)."""
    keys = [k for k in at.session_state.keys() if k.startswith(f"{name}@")]
    assert len(keys) == 1, f"expected one {name!r} for one dataset, found {keys}"
    return at.session_state[keys[0]]


def assert_clean(at: AppTest) -> None:
    """No uncaught exception and no error box on the page."""
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]


def stop_every_job() -> None:
    """Stop every job of the pools and keep nothing of them (child processes are killed)."""
    from dashboard.shared.serving.jobs import POOL, SETUP_POOL

    POOL.stop_all(abandon=True)
    SETUP_POOL.stop_all(abandon=True)


@pytest.fixture(autouse=True)
def _no_job_outlives_its_test():
    """AppTest has no runtime to tell the pool that a session ended: stop its jobs here."""
    yield
    stop_every_job()


def open_app_page(name: str = "data", *, timeout: float = 120) -> AppTest:
    """An AppTest of the app, switched to page ``name`` (for fixtures wider than a test)."""
    at = AppTest.from_file(str(APP), default_timeout=timeout)
    at.run()
    if name != "data":
        at.switch_page(page_file(name))
        at.run()
    return at


@pytest.fixture
def open_page():
    """Factory: ``open_page(name, timeout=120)`` -> AppTest on the page's file."""
    return open_app_page


@pytest.fixture
def open_page_on_public():
    """Factory: ``open_page_on_public("adult", "cdp_lr", data_dir)`` -> AppTest on that page
    after choosing the public dataset on the Data page, as a user would. The data
    directory is the operator's: it reaches the app through ``PUX_DATA_DIR`` only."""
    saved = os.environ.get("PUX_DATA_DIR")

    def _open(dataset: str, name: str, data_dir, *, timeout: float = 900) -> AppTest:
        source = {"adult": "Adult (public data)", "nltcs": "NLTCS (public data)"}[dataset]
        os.environ["PUX_DATA_DIR"] = str(data_dir)
        at = AppTest.from_file(str(APP), default_timeout=timeout)
        at.run()
        at.radio(key="data_source").set_value(source).run()
        assert at.session_state["pux_dataset"].name == dataset
        at.switch_page(page_file(name))
        at.run()
        return at

    yield _open
    if saved is None:
        os.environ.pop("PUX_DATA_DIR", None)
    else:
        os.environ["PUX_DATA_DIR"] = saved


def assert_switched_to_census(at: AppTest) -> None:
    """The page left the supplier sample (no sensitive attribute) for census, and said so."""
    assert_clean(at)
    captions = [c.value for c in at.caption]
    assert any("supplier sample marks no sensitive attribute" in c and "uses the census sample" in c
               for c in captions)
    assert any(c.startswith("Dataset **census**") for c in captions)


def finish_sweeps(at: AppTest, *, timeout: float = 300, rounds: int = 6) -> AppTest:
    """Let the page's sweep and setup jobs run to the end, then rerun it, as the live view
    would in a browser (AppTest does not run ``run_every`` fragments)."""
    for _ in range(rounds):
        jobs = at.session_state["pux_sweep_jobs"] if "pux_sweep_jobs" in at.session_state else {}
        running = [job for job in jobs.values() if job.running]
        if not running:
            return at
        for job in running:
            assert job.wait(timeout), f"{job.sweep.title} did not end"
        at.run()
    return at


@pytest.fixture
def downloads(monkeypatch):
    """``downloads(at, key)``: the bytes an AppTest page's download button (by key) hands out.

    AppTest keeps a download's data in a mock runtime it drops after each run; this records
    every file stored during the test by its id, which the button's URL names."""
    from streamlit.runtime.memory_media_file_storage import MemoryMediaFileStorage

    stored: dict[str, bytes] = {}
    original = MemoryMediaFileStorage.load_and_get_id

    def record(self, path_or_data, mimetype, kind, filename=None):
        file_id = original(self, path_or_data, mimetype, kind, filename)
        stored[file_id] = self.get_file(file_id).content
        return file_id

    monkeypatch.setattr(MemoryMediaFileStorage, "load_and_get_id", record)

    def data(at: AppTest, key: str) -> bytes:
        button = next(b for b in at.get("download_button") if b.key == key)
        file_id = button.proto.url.rsplit("/", 1)[-1].split(".", 1)[0]
        return stored[file_id]

    return data
