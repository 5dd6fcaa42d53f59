"""Load test: a CDP-LR slider move while other sessions train IMPOSTER, then the tabs close.

Starts the real app (``streamlit run``) on a free loopback port and drives it with headless
Chromium (Debian's, through Playwright): ``trainers`` browser sessions open the IMPOSTER
page on the census sample and press Train; one more session opens CDP-LR and moves the
epsilon slider ``moves`` times, timing each move from the key press to the redrawn chart.
Then the training tabs close and the CPU use of the server and its children (each training
runs in a child process) is measured: the job pool's watchdog must stop every training
whose session ended, so CPU falls back to idle and the training processes are gone.

Everything stays on 127.0.0.1, the number of sessions and moves is fixed and every wait
has a time limit. Without Chromium the benchmark reports that it was skipped.
"""
from __future__ import annotations

import os
import shutil
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = os.environ.get("PUX_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
ARGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--disable-dev-shm-usage"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _tree(pid: int) -> list[int]:
    """``pid`` and every process below it (the server spawns one process per training)."""
    parent: dict[int, int] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            parent[int(stat.parent.name)] = int(fields[1])
        except (OSError, ValueError, IndexError):
            continue
    out, frontier = [pid], [pid]
    while frontier:
        kids = [p for p, pp in parent.items() if pp in frontier]
        out += kids
        frontier = kids
    return out


def _trainings(pid: int) -> int:
    """How many spawned training processes run under the server."""
    n = 0
    for child in _tree(pid)[1:]:
        try:
            cmd = Path(f"/proc/{child}/cmdline").read_bytes()
        except OSError:
            continue
        n += b"spawn_main" in cmd
    return n


def _browser_pids() -> list[int]:
    """The headless Chromium processes (they share the machine's cores with the server)."""
    out = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            if b"chromium" in cmdline.read_bytes()[:200]:
                out.append(int(cmdline.parent.name))
        except (OSError, ValueError):
            continue
    return out


def _quiet(pid: int, seconds: float) -> bool:
    """True when no training process ran under the server for ``seconds`` in a row."""
    t0 = time.monotonic()
    while time.monotonic() - t0 < seconds:
        if _trainings(pid):
            return False
        time.sleep(0.25)
    return True


def _wait_for(predicate, seconds: float) -> float | None:
    """Seconds until ``predicate()`` held (polled every 0.25 s), or None after ``seconds``."""
    t0 = time.monotonic()
    while time.monotonic() - t0 < seconds:
        if predicate():
            return round(time.monotonic() - t0, 2)
        time.sleep(0.25)
    return None


def _cpu_seconds(pids: list[int]) -> dict[int, float]:
    out = {}
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # ended meanwhile
        out[pid] = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return out


def _cpu_share(pid: int, seconds: float, *, per_process: dict | None = None) -> float:
    """Cores the server and its children used on average over ``seconds`` (1.0 = one core);
    processes that start or end within the window are left out. ``per_process`` receives
    the share of each process (by its command line's start)."""
    pids = _tree(pid)
    c0, t0 = _cpu_seconds(pids), time.monotonic()
    time.sleep(seconds)
    c1 = _cpu_seconds(pids)
    span = time.monotonic() - t0
    shares = {p: (c1[p] - c0[p]) / span for p in c0.keys() & c1.keys()}
    if per_process is not None:
        for p, share in shares.items():
            try:
                name = Path(f"/proc/{p}/cmdline").read_bytes().replace(b"\0", b" ")[:60].decode()
            except OSError:
                name = "?"
            per_process[f"{p} {'server' if p == pid else name}"] = round(share, 3)
    return sum(shares.values())


def _wait_idle(pg, timeout: float = 180_000) -> None:
    pg.wait_for_selector('[data-testid="stSidebarNav"]', timeout=timeout)
    pg.wait_for_timeout(300)
    pg.wait_for_function(
        "() => { const w = document.querySelector('[data-testid=\"stStatusWidget\"]');"
        " return !w || !(w.innerText.includes('Running') || w.innerText.includes('Stop')); }",
        timeout=timeout)


def _open(browser, url: str, title: str | None, ready: str):
    """A new tab on ``url``, then on page ``title`` (None: stay), once the text ``ready``
    shows. (Not "the app is idle": a page whose curve runs in the job pool polls it every
    second, on purpose.)"""
    ctx = browser.new_context(viewport={"width": 1300, "height": 900})
    pg = ctx.new_page()
    pg.set_default_timeout(180_000)
    pg.goto(url)
    if title is not None:
        _wait_idle(pg)
        pg.locator('[data-testid="stSidebarNav"]').get_by_role("link", name=title, exact=True).click()
    pg.get_by_text(ready, exact=True).first.wait_for()
    return ctx, pg


def run(*, quick: bool) -> dict:
    if not Path(CHROMIUM).is_file():
        return {"skipped": "headless Chromium not found (apt-get install chromium chromium-driver)"}
    from playwright.sync_api import sync_playwright

    trainers = 2 if quick else 8
    moves = 4 if quick else 10
    port = _free_port()
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    server = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", str(ROOT / "dashboard" / "app.py"),
         "--server.headless", "true", "--server.port", str(port), "--server.address", "127.0.0.1",
         "--browser.gatherUsageStats", "false"],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    out: dict = {"trainers": trainers, "moves": moves}
    try:
        for _ in range(180):
            try:
                urllib.request.urlopen(f"{url}/_stcore/health", timeout=2)
                break
            except OSError:
                time.sleep(0.5)
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            # the slider session first, so the schemes are cached before the load starts
            slider_ctx, slider = _open(browser, url, "CDP-LR", "Accuracy at epsilon = 2")
            slider.get_by_text("Accuracy at epsilon = 2").first.wait_for()
            alone = _slider_moves(slider, 3, start=2.0)
            out["slider_alone_s"] = alone
            out["cpu_idle_before_cores"] = round(_cpu_share(server.pid, 3.0), 3)
            training = []
            for i in range(trainers):
                # each trainer its own seed (through the page's link): the same inputs would
                # share one finished model, and nothing would train after the first
                ctx, pg = _open(browser, f"{url}/imposter?seed={i + 1}", None, "Train")
                pg.get_by_role("button", name="Train").click()
                training.append(ctx)
            out["seconds_until_a_training_process_runs"] = _wait_for(lambda: _trainings(server.pid) > 0, 90)
            out["cpu_training_cores"] = round(_cpu_share(server.pid, 5.0), 3)
            out["training_processes"] = _trainings(server.pid)
            loaded = _slider_moves(slider, moves, start=2.3)
            out["slider_loaded_s"] = loaded
            out["slider_loaded_median_s"] = round(statistics.median(loaded), 3)
            out["slider_alone_median_s"] = round(statistics.median(alone), 3)
            for ctx in training:
                ctx.close()
            # the watchdog checks sessions every 2 s; the job then stops its process
            t_closed = time.monotonic()
            quiet = _wait_for(lambda: _quiet(server.pid, 3.0), 90)
            out["seconds_until_no_training_for_3_s"] = None if quiet is None else round(
                time.monotonic() - t_closed - 3.0, 2)
            breakdown: dict = {}
            out["cpu_after_tabs_closed_cores"] = round(_cpu_share(server.pid, 8.0, per_process=breakdown), 3)
            out["cpu_after_tabs_closed_by_process"] = breakdown
            time.sleep(10)
            out["cpu_20_s_after_tabs_closed_cores"] = round(_cpu_share(server.pid, 8.0), 3)
            slider_ctx.close()
            out["page_load"] = page_loads(browser, url, 4 if quick else 16, 3 if quick else 5,
                                          server_pid=server.pid)
            browser.close()
    finally:
        server.terminate()
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            server.kill()
    out["target"] = ("slider median < 2 s with the trainers running; CPU falls back after the tabs close; "
                     "16 tabs opening CDP-LR at once see their bars without waiting for the curves")
    return out


#: set in every page of the page-load phase: when the bars first show, in ms since navigation
_SHOWN_AT = """
new MutationObserver((_, obs) => {
  if (document.body && document.body.innerText.includes('Accuracy at epsilon = 2')) {
    window.__shownAt = performance.now(); obs.disconnect();
  }
}).observe(document, {subtree: true, childList: true, characterData: true});
"""


def page_loads(browser, url: str, sessions: int, moves: int, *, server_pid: int | None = None) -> dict:
    """``sessions`` tabs open CDP-LR at once (a class opening the teacher's link); seconds
    until each shows its bars, then one of them moves the slider ``moves`` times while the
    others stay open (their curves wait in the job pool).

    The browser runs on the same cores as the server, so the CPU seconds of the server (and
    its children) during the loads are reported too: what the server itself spent."""
    pids = _tree(server_pid) if server_pid else []
    cpu0, t0 = _cpu_seconds(pids), time.monotonic()
    browser0 = _cpu_seconds(_browser_pids())
    contexts, pages = [], []
    for _ in range(sessions):
        ctx = browser.new_context(viewport={"width": 1300, "height": 900})
        ctx.add_init_script(_SHOWN_AT)
        pg = ctx.new_page()
        pg.set_default_timeout(300_000)
        pg.goto(f"{url}/cdp_lr", wait_until="commit")
        contexts.append(ctx)
        pages.append(pg)
    loads = []
    for pg in pages:
        pg.wait_for_function("() => window.__shownAt !== undefined", timeout=300_000, polling=200)
        loads.append(round(pg.evaluate("() => window.__shownAt") / 1000, 2))
    out = {"sessions": sessions, "page_load_s": loads,
           "page_load_median_s": round(statistics.median(loads), 2), "page_load_max_s": max(loads)}
    if pids:
        cpu1 = _cpu_seconds(pids)
        out["server_cpu_s_during_loads"] = round(sum(cpu1[p] - cpu0[p] for p in cpu0.keys() & cpu1.keys()), 2)
        out["wall_s_of_loads"] = round(time.monotonic() - t0, 2)
    browser1 = _cpu_seconds(_browser_pids())
    out["browser_cpu_s_during_loads"] = round(sum(browser1[p] - browser0.get(p, 0.0) for p in browser1), 2)
    slider = pages[-1]
    moved = _slider_moves(slider, moves, start=2.0)
    out["slider_s"] = moved
    out["slider_median_s"] = round(statistics.median(moved), 3)
    for ctx in contexts:
        ctx.close()
    return out


def _slider_moves(pg, n: int, *, start: float) -> list[float]:
    """Move the epsilon slider one step (0.1) ``n`` times; seconds until the chart shows it."""
    times = []
    value = start
    slider = pg.get_by_role("slider").first
    for _ in range(n):
        value = round(value + 0.1, 1)
        slider.focus()
        t0 = time.monotonic()
        pg.keyboard.press("ArrowRight")
        label = f"{value:g}"
        pg.get_by_text(f"Accuracy at epsilon = {label}", exact=True).first.wait_for(timeout=120_000)
        times.append(round(time.monotonic() - t0, 3))
    return times
