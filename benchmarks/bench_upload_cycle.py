"""Server memory over upload-and-close cycles: does an upload's memory come back?

Starts the real app (``streamlit run dashboard/app.py``) on a free loopback port, writes
``bench_upload_memory``'s synthetic table (about 47 MB; 8 MB in quick mode) to a temporary
folder, and repeats ``cycles`` times (8; 3 in quick mode): a new headless Chromium tab
(Debian's, through Playwright) opens the Data page, chooses "Upload a CSV", uploads the
file through the page's uploader, waits until the page says it uses the table and has
finished drawing it, then closes the tab (a first cycle with a 0.2 MB file warms the
server up: its modules imported, "before" read after it). After each close the benchmark waits
``release_wait_s`` (the server's grace for a closed tab, see
:mod:`dashboard.shared.serving.memory`, plus a margin) and reads the memory again.

Memory is the resident set size (RSS) of the server and every process below it, read
from ``/proc``: before the first cycle, its peak during each cycle (polled every 50 ms, and
the server's own high-water mark ``VmHWM``, reset before each cycle through
``/proc/<pid>/clear_refs``), and after each cycle. Reported:

- ``peak_rise_per_file_mb``: the largest rise of a cycle's peak over the memory before that
  cycle, divided by the file's size (goal: at most 6);
- ``after_last_per_after_first``: the memory after the last cycle over the memory after the
  first (goal: at most 1.5).

Measured on the development container (2 shared cores; 47 MB file, 8 cycles; before the
first cycle about 0.21 GB):

===============================================  ==========  ===========  =============
code                                             peak rise   after 1st    after 8th /
                                                 / file      (MB)         after 1st
===============================================  ==========  ===========  =============
before (sessions never shut down, CSV download   9.13        466          4.19
in one piece, glibc's arenas)                                             (1955 MB)
closed sessions ended after 30 s, CSV in         5.30        296          1.65
blocks, loader without full copies
the same with ``MALLOC_ARENA_MAX=2`` (as         5.09        252          1.07
``make run`` starts it)
and the Data page's download made on click       4.65        237          1.01
(proposed: no copy of the CSV kept)
===============================================  ==========  ===========  =============

Rejected: ``MALLOC_MMAP_THRESHOLD_=1048576`` also gave 1.02, but made a loop of 2.4 MB
array temporaries 7 times slower. Quick mode (8 MB, 3 cycles) is a smoke test: a fixed
20-30 MB for drawing the page makes its peak per MB larger (7.8).

Everything stays on 127.0.0.1; every wait has a time limit. Without Chromium the benchmark
reports that it was skipped. The server gets the environment ``make run`` gives it
(:func:`dashboard.shared.serving.memory.server_env`: ``MALLOC_ARENA_MAX=2`` unless the environment
sets it; reported), so ``MALLOC_ARENA_MAX=16 python -m benchmarks --only upload_cycle``
measures glibc's default on this machine (8 arenas per core).
"""
from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

from benchmarks.bench_upload_memory import synthetic_csv

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = os.environ.get("PUX_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
ARGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--disable-dev-shm-usage"]
#: seconds between two reads of the memory during a cycle
_POLL_S = 0.05
#: the name of the uploaded file (the page then says "Using upload_cycle")
_NAME = "upload_cycle"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _tree(pid: int) -> list[int]:
    """``pid`` and every process below it."""
    parent: dict[int, int] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            parent[int(stat.parent.name)] = int(stat.read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
    out, frontier = [pid], [pid]
    while frontier:
        frontier = [p for p, pp in parent.items() if pp in frontier]
        out += frontier
    return out


def _wait_idle(pg, timeout: float = 180_000) -> None:
    """Until the page has drawn and runs no script."""
    pg.wait_for_selector('[data-testid="stSidebarNav"]', timeout=timeout)
    pg.wait_for_timeout(300)
    pg.wait_for_function(
        "() => { const w = document.querySelector('[data-testid=\"stStatusWidget\"]');"
        " return !w || !(w.innerText.includes('Running') || w.innerText.includes('Stop')); }",
        timeout=timeout)


def _rss_kb(pid: int, field: str = "VmRSS") -> int:
    """``field`` of ``/proc/<pid>/status`` in kB (0 when the process is gone)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def tree_rss_mb(pid: int) -> float:
    """RSS of ``pid`` and every process below it, in MB (10**6 bytes)."""
    return sum(_rss_kb(p) for p in _tree(pid)) * 1024 / 1e6


def _reset_high_water(pid: int) -> bool:
    """Reset the process's ``VmHWM`` to its current RSS (False where the kernel refuses)."""
    try:
        Path(f"/proc/{pid}/clear_refs").write_text("5")
        return True
    except OSError:
        return False


class _PeakWatch:
    """The largest :func:`tree_rss_mb` seen while the ``with`` block runs, and the server's
    own high-water mark (which catches a peak between two polls)."""

    def __init__(self, pid: int) -> None:
        self.pid, self.peak_mb, self._stop = pid, 0.0, threading.Event()
        self._thread = threading.Thread(target=self._poll, daemon=True)

    def _poll(self) -> None:
        while not self._stop.is_set():
            self.peak_mb = max(self.peak_mb, tree_rss_mb(self.pid))
            self._stop.wait(_POLL_S)

    def __enter__(self) -> "_PeakWatch":
        self.hwm_reset = _reset_high_water(self.pid)
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()
        if self.hwm_reset:  # children are few and small here: the poll covers them
            children = tree_rss_mb(self.pid) - _rss_kb(self.pid) * 1024 / 1e6
            self.peak_mb = max(self.peak_mb, _rss_kb(self.pid, "VmHWM") * 1024 / 1e6 + children)


def _release_wait_s() -> float:
    """How long the server keeps a closed tab's session, plus a margin to free it."""
    try:
        sys.path.insert(0, str(ROOT))
        from dashboard.shared.serving.memory import release_delay_s

        return release_delay_s() + 6.0
    except ImportError:  # a checkout before the change: Streamlit's own 2 minutes never free it
        return 20.0


def _upload_once(browser, url: str, path: Path, *, name: str = _NAME) -> float:
    """One cycle in a new tab; the seconds from choosing the file to the drawn page."""
    ctx = browser.new_context(viewport={"width": 1300, "height": 900})
    try:
        pg = ctx.new_page()
        pg.set_default_timeout(300_000)
        pg.goto(url)
        _wait_idle(pg)
        pg.get_by_text("Upload a CSV").click()
        _wait_idle(pg)
        t0 = time.monotonic()
        pg.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(str(path))
        pg.get_by_text(f"Using {name}:").first.wait_for(timeout=300_000)
        _wait_idle(pg, timeout=300_000)
        return round(time.monotonic() - t0, 1)
    finally:
        ctx.close()


def _server_env() -> dict[str, str]:
    """The environment ``make run`` and ``pux dashboard`` start the server with
    (:func:`dashboard.shared.serving.memory.server_env`: ``MALLOC_ARENA_MAX=2`` unless set)."""
    try:
        sys.path.insert(0, str(ROOT))
        from dashboard.shared.serving.memory import server_env

        return server_env()
    except ImportError:  # a checkout before the change
        return dict(os.environ)


def _start_server(port: int) -> subprocess.Popen:
    env = {**_server_env(), "PYTHONUNBUFFERED": "1"}
    return subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", str(ROOT / "dashboard" / "app.py"),
         "--server.headless", "true", "--server.port", str(port), "--server.address", "127.0.0.1",
         "--browser.gatherUsageStats", "false"],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def _cycles(browser, url: str, pid: int, path: Path, cycles: int, wait_s: float) -> dict:
    # warm-up: one cycle with a small file, so the app's modules are imported and "before"
    # is a server that has served an upload, not a cold one
    small = path.with_name(f"{_NAME}_warmup.csv")
    small.write_bytes(synthetic_csv(0.2))
    warm = _upload_once(browser, url, small, name=small.stem)
    time.sleep(wait_s)
    out: dict = {"warm_up_s": warm, "before_mb": round(tree_rss_mb(pid), 1), "peak_mb": [],
                 "after_mb": [], "upload_to_drawn_s": []}
    before = out["before_mb"]
    for _ in range(cycles):
        with _PeakWatch(pid) as watch:
            out["upload_to_drawn_s"].append(_upload_once(browser, url, path))
        time.sleep(wait_s)
        out["peak_mb"].append(round(max(watch.peak_mb, tree_rss_mb(pid)), 1))
        out["after_mb"].append(round(tree_rss_mb(pid), 1))
        out.setdefault("peak_rise_mb", []).append(round(out["peak_mb"][-1] - before, 1))
        before = out["after_mb"][-1]
    return out


def run(*, quick: bool) -> dict:
    if not Path(CHROMIUM).is_file():
        return {"skipped": "headless Chromium not found (apt-get install chromium chromium-driver)"}
    return measure(size_mb=8 if quick else 47, cycles=3 if quick else 8)


def measure(*, size_mb: float, cycles: int) -> dict:
    """``cycles`` upload-and-close cycles of a ``size_mb`` MB table against a fresh server."""
    from playwright.sync_api import sync_playwright

    wait_s = _release_wait_s()
    port = _free_port()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"{_NAME}.csv"
        path.write_bytes(synthetic_csv(size_mb))
        file_mb = path.stat().st_size / 1e6
        server = _start_server(port)
        url = f"http://127.0.0.1:{port}"
        try:
            for _ in range(180):
                try:
                    urllib.request.urlopen(f"{url}/_stcore/health", timeout=2)
                    break
                except OSError:
                    time.sleep(0.5)
            with sync_playwright() as pw:
                browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
                out = _cycles(browser, url, server.pid, path, cycles, wait_s)
                browser.close()
        finally:
            server.terminate()
            try:
                server.wait(timeout=15)
            except subprocess.TimeoutExpired:
                server.kill()
    rises = out["peak_rise_mb"]
    return {
        "file_mb": round(file_mb, 1), "cycles": cycles, "release_wait_s": wait_s,
        "malloc_arena_max": _server_env().get("MALLOC_ARENA_MAX"),
        **out,
        "peak_rise_per_file_mb": round(max(rises) / file_mb, 2),
        "first_peak_rise_per_file_mb": round(rises[0] / file_mb, 2),
        "after_last_per_after_first": round(out["after_mb"][-1] / out["after_mb"][0], 2),
        "target": "peak_rise_per_file_mb <= 6; after_last_per_after_first <= 1.5",
    }


if __name__ == "__main__":
    import json

    print(json.dumps(run(quick="--quick" in sys.argv), indent=2))
