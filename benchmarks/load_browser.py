"""The browser phase of the load benchmark: 16 Chromium tabs open CDP-LR at once.

Headless Chromium (Debian's, through Playwright) on the same cores as the server: the
page-load wall time is mostly the browser's, so the server's and the browser's CPU seconds
are reported beside it (``benchmarks/bench_load.py`` runs it in full mode).
"""
from __future__ import annotations

import os
import shutil
import statistics
import time
from pathlib import Path

CHROMIUM = os.environ.get("PUX_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
ARGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--disable-dev-shm-usage"]


def process_tree(pid: int) -> list[int]:
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


def cpu_seconds(pids: list[int]) -> dict[int, float]:
    out = {}
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # ended meanwhile
        out[pid] = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return out


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


def browser_loads(url: str, server_pid: int) -> dict:
    """16 Chromium tabs open CDP-LR at once (see :func:`page_loads`)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            return page_loads(browser, url, 16, 3, server_pid=server_pid)
        finally:
            browser.close()


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
    pids = process_tree(server_pid) if server_pid else []
    cpu0, t0 = cpu_seconds(pids), time.monotonic()
    browser0 = cpu_seconds(_browser_pids())
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
        cpu1 = cpu_seconds(pids)
        out["server_cpu_s_during_loads"] = round(sum(cpu1[p] - cpu0[p] for p in cpu0.keys() & cpu1.keys()), 2)
        out["wall_s_of_loads"] = round(time.monotonic() - t0, 2)
    browser1 = cpu_seconds(_browser_pids())
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
