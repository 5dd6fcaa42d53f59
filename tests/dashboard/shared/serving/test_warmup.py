"""The warm start (dashboard.shared.serving.warmup): off in tests, once per server, the built-in
samples only, and a page served from it shows the numbers it computes itself."""
from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from dashboard.navigation import page_file
from dashboard.shared.serving import warmup
from dashboard.shared.serving.state import DATASET_KEY, SOURCE_KEY, SOURCES
from dashboard.shared.serving.sweeps import FINISHED, SETUPS, Sweep, from_warm
from dashboard.shared.serving.warm_cache import WarmCache
from tests.dashboard.shared.serving.test_warm_cache import same

APP = Path(__file__).resolve().parents[4] / "dashboard" / "app.py"
#: the pages warmed here: fast ones, whose results are a frame and two result dataclasses
PAGES = ("correlations", "dc_fbfs")


@pytest.fixture
def fresh(monkeypatch, tmp_path):
    """Warm start on, its root in tmp_path, as if no warm-up had started in this process
    (``start_warmup`` then finds one started: no child process in a test)."""
    monkeypatch.setenv("PUX_WARMUP", "1")
    monkeypatch.setenv("PUX_WARM_DIR", str(tmp_path / "warm"))
    monkeypatch.setattr(warmup, "_STARTED", {"proc": None})
    SETUPS.clear()
    FINISHED.clear()
    yield tmp_path / "warm"
    SETUPS.clear()
    FINISHED.clear()


@pytest.fixture(scope="module")
def warmed(tmp_path_factory):
    """One warm-up run of :data:`PAGES` (in this process): its cache, status and the
    results the pages computed, by (store, key)."""
    SETUPS.clear()
    FINISHED.clear()
    cache = WarmCache(tmp_path_factory.mktemp("warm"), seed=0)
    status = warmup.run_warmup(cache, pages=PAGES)
    computed = {("setups", k): v for k, v in SETUPS.items()} | {("finished", k): v for k, v in FINISHED.items()}
    return cache, status, computed


def _page(name: str, *, upload=None) -> AppTest:
    at = AppTest.from_file(str(APP), default_timeout=120)
    at.run()
    if upload is not None:  # the table as an upload would leave it in the session
        at.session_state[SOURCE_KEY] = SOURCES[1]
        at.session_state[DATASET_KEY] = upload
    at.switch_page(page_file(name))
    return at.run()


def _jobs(at: AppTest) -> dict:
    return dict(at.session_state["pux_sweep_jobs"]) if "pux_sweep_jobs" in at.session_state else {}


def _shown(at: AppTest) -> list:
    """What the page shows: its texts, tables and charts."""
    return ([m.value for m in at.markdown] + [c.value for c in at.caption]
            + [d.value.to_json() for d in at.dataframe] + [m.value for m in at.metric]
            + [str(getattr(e, "proto", "")) for e in at.get("plotly_chart")]
            + [str(getattr(e, "proto", "")) for e in at.get("arrow_vega_lite_chart")])


def test_warm_start_is_off_with_pux_warmup_0(monkeypatch, tmp_path):
    monkeypatch.setenv("PUX_WARMUP", "0")
    monkeypatch.setenv("PUX_WARM_DIR", str(tmp_path))
    monkeypatch.setattr(warmup, "_STARTED", {})
    monkeypatch.setattr(warmup.subprocess, "Popen", lambda *a, **k: pytest.fail("a warm-up was started"))
    assert warmup.start_warmup() is None and warmup.server_cache() is None
    assert warmup.warmup_status() == {"state": "off"} and not any(tmp_path.iterdir())


def test_one_warm_up_per_server_however_many_sessions_ask(monkeypatch, tmp_path):
    monkeypatch.setenv("PUX_WARMUP", "1")
    monkeypatch.setenv("PUX_WARM_DIR", str(tmp_path))
    monkeypatch.setenv("PUX_DATA_DIR", str(tmp_path))
    monkeypatch.setattr(warmup, "_STARTED", {})
    monkeypatch.setattr(warmup, "_import_pages", lambda: None)
    started = []

    class Child:
        returncode = 0

        def __init__(self, args, **kwargs):
            started.append((args, kwargs))

        def poll(self):
            return 0

        def wait(self, timeout=None):
            return 0

    monkeypatch.setattr(warmup.subprocess, "Popen", Child)
    threads = [threading.Thread(target=warmup.start_warmup) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(started) == 1
    args, kwargs = started[0]
    assert args[1:] == ["-m", "dashboard.shared.serving.warmup"]
    env = kwargs["env"]
    assert env["PUX_WARMUP"] == "0" and env["OMP_NUM_THREADS"] == "1" and "PUX_DATA_DIR" not in env


def test_a_key_already_warmed_is_not_computed_again(monkeypatch, tmp_path):
    monkeypatch.setenv("PUX_WARMUP", "1")
    monkeypatch.setenv("PUX_WARM_DIR", str(tmp_path))
    monkeypatch.setattr(warmup, "_STARTED", {})
    monkeypatch.setattr(warmup.subprocess, "Popen", lambda *a, **k: pytest.fail("computed again"))
    monkeypatch.setattr(warmup, "_import_pages", lambda: None)
    WarmCache(tmp_path, seed=0).write_status({"state": "done", "seconds": 12.0})
    assert warmup.start_warmup() is None
    assert warmup.warmup_status()["state"] == "done"


def test_the_server_says_when_the_warm_up_is_done(tmp_path, capsys):
    cache = WarmCache(tmp_path)
    cache.write_status({"state": "done", "seconds": 42.4})

    class Ended:
        returncode = 0

        def wait(self):
            return 0

    warmup._announce(Ended(), cache)
    assert f"pux warm-up done in 42 s ({cache.folder})" in capsys.readouterr().err


def test_a_warm_up_writes_its_results_and_status_done(warmed):
    cache, status, computed = warmed
    assert status["state"] == "done" and set(status["pages"]) == set(PAGES)
    assert all(isinstance(s, float) for s in status["pages"].values()), status["pages"]
    assert cache.read_status()["state"] == "done" and status["seconds"] >= 0
    assert cache.folder.stat().st_mode & 0o777 == 0o700
    kinds = {type(v).__name__ for v in computed.values()}
    assert {"DataFrame", "SensitivityReport", "DCFBFSResult"} <= kinds, kinds
    for (name, key), value in computed.items():  # every result, read back, is the computed one
        same(value, cache.get(name, key), repr(key)[:60])


@pytest.mark.parametrize("page", PAGES)
def test_a_page_served_from_the_warm_cache_shows_the_numbers_it_computes(warmed, fresh, monkeypatch, page):
    cache, _, computed = warmed
    monkeypatch.setenv("PUX_WARM_DIR", str(cache.root))
    monkeypatch.setenv("PUX_WARMUP", "0")  # first the page computing everything itself
    itself = _page(page)
    assert _jobs(itself)
    monkeypatch.setenv("PUX_WARMUP", "1")
    SETUPS.clear()
    FINISHED.clear()
    warm = _page(page)
    assert not warm.exception and not _jobs(warm)  # nothing computed: every step came from disk
    shown = _shown(warm)
    assert shown == _shown(itself)
    assert sum(len(s) > 1000 for s in shown) >= 1, "no chart or table compared"
    for key, value in SETUPS.items():
        same(computed[("setups", key)], value)


def test_an_upload_never_reads_the_warm_cache_even_with_the_samples_content(warmed, fresh, monkeypatch):
    from core.data import load_sample

    cache, _, _ = warmed
    monkeypatch.setenv("PUX_WARM_DIR", str(cache.root))
    before = sorted(p.name for p in cache.entries())
    at = _page("correlations", upload=load_sample("supplier"))
    assert not at.exception and _jobs(at)  # computed, not read, though the content is the sample's
    assert sorted(p.name for p in cache.entries()) == before  # and nothing written


def test_from_warm_reads_only_for_a_built_in_sample(warmed, fresh, monkeypatch):
    cache, _, computed = warmed
    monkeypatch.setenv("PUX_WARM_DIR", str(cache.root))
    key = next(k for (name, k) in computed if name == "setups")
    sweep = Sweep(key, lambda progress: None, in_process=True)
    assert from_warm(sweep, builtin=False) is sweep and key not in SETUPS
    from_warm(sweep, builtin=True)
    assert key in SETUPS


def test_the_tour_reads_its_stories_from_the_warm_cache(fresh, monkeypatch):
    from dashboard.tour import cached as tour

    tour.clear()
    WarmCache(fresh, seed=0).put("tour", "cdp", {"kept": 1.5})  # what a warm-up wrote
    monkeypatch.setitem(tour.STORIES, "cdp", (lambda **kw: pytest.fail("computed"), "CDP"))
    assert tour.story_ready("cdp") and tour.story("cdp") == {"kept": 1.5}
    tour.clear()


def test_outside_a_session_nothing_counts_as_a_built_in_sample():
    from dashboard.shared.serving.state import builtin_sample_in_use

    assert builtin_sample_in_use() is False


def _state(pid: int) -> str:
    return open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0]


@pytest.mark.skipif(not os.path.exists("/proc/self/stat"), reason="reads process states from /proc (Linux)")
def test_the_warm_up_is_paused_while_a_users_job_runs_and_goes_on_after():
    import subprocess
    import sys
    import time

    proc = subprocess.Popen([sys.executable, "-c", "import time\nwhile True: time.sleep(0.01)"])
    busy = {"now": True}
    seen = {}

    def watch():
        time.sleep(0.6)
        seen["busy"] = _state(proc.pid)  # T: stopped
        busy["now"] = False
        time.sleep(0.6)
        seen["idle"] = _state(proc.pid)
        proc.kill()

    threading.Thread(target=watch).start()
    paused = warmup.pause_while_busy(proc, busy=lambda: busy["now"], every=0.05)
    assert seen["busy"] == "T" and seen["idle"] in "RS" and 0.4 < paused < 1.5


def test_a_warm_up_with_a_failed_page_is_partial_and_says_which(monkeypatch, tmp_path, capsys):
    def warm(name, *, timeout):
        if name == "sskm":
            raise RuntimeError("boom")

    monkeypatch.setattr(warmup, "_warm_page", warm)
    cache = WarmCache(tmp_path)
    status = warmup.run_warmup(cache, pages=("publishing", "sskm"))
    assert status["state"] == "partial" and status["pages"]["sskm"] == "failed: RuntimeError"

    class Ended:
        returncode = 0

        def wait(self):
            return 0

    warmup._announce(Ended(), cache)
    assert "without sskm" in capsys.readouterr().err
