"""Browser tests: the real Streamlit server driven by headless Chromium through Playwright.

Chromium comes from Debian (``apt-get install chromium chromium-driver``); Playwright's
own browser download is never used. Without Chromium these tests skip and say how to
install it. Screenshots go to ``$PUX_SCREENSHOT_DIR`` when it is set.
"""
from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = os.environ.get("PUX_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
HOW_TO = (
    "headless Chromium not found: install it with `apt-get install chromium chromium-driver` "
    "(Debian/Ubuntu) or set PUX_CHROMIUM to a Chromium binary"
)
CHROMIUM_ARGS = [
    "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-dev-shm-usage",
]

pytestmark = pytest.mark.e2e


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _unavailable(reason: str) -> None:
    # CI sets PUX_REQUIRE_BROWSER=1: there the browser test must run, not skip
    if os.environ.get("PUX_REQUIRE_BROWSER") == "1":
        pytest.fail(reason)
    pytest.skip(reason)


@pytest.fixture(scope="session")
def chromium_path() -> str:
    if not Path(CHROMIUM).is_file():
        _unavailable(HOW_TO)
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        _unavailable("the playwright package is missing: pip install -e '.[dev]'")
    return CHROMIUM


@pytest.fixture(scope="session")
def app_url(chromium_path):
    """Start `streamlit run dashboard/app.py` on a free port; yield its URL."""
    port = _free_port()
    log = open(ROOT / ".pytest_cache" / "e2e-server.log", "w") if (ROOT / ".pytest_cache").is_dir() else subprocess.DEVNULL
    proc = subprocess.Popen(
        [
            sys.executable, "-m", "streamlit", "run", str(ROOT / "dashboard" / "app.py"),
            "--server.headless", "true", "--server.port", str(port),
            "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false",
        ],
        cwd=ROOT,
        # real child processes; no warm start (PUX_WARMUP=0) unless the environment asks for it
        env={**{k: v for k, v in os.environ.items() if k not in ("PUX_JOBS_IN_THREAD", "PUX_SPARE_CHILD")},
             "PUX_WARMUP": os.environ.get("PUX_WARMUP", "0")},
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.time() + 90
    while time.time() < deadline:
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as r:
                if r.status == 200:
                    break
        except OSError:
            time.sleep(0.5)
        if proc.poll() is not None:
            pytest.fail(f"streamlit exited with code {proc.returncode}")
    else:
        proc.kill()
        pytest.fail("streamlit did not answer within 90 s")
    yield url
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()


@pytest.fixture(scope="session")
def browser(chromium_path):
    from playwright.sync_api import sync_playwright

    pw = sync_playwright().start()
    b = pw.chromium.launch(executable_path=chromium_path, args=CHROMIUM_ARGS)
    yield b
    b.close()
    pw.stop()


@pytest.fixture
def page(browser, app_url):
    """A fresh browser page on the app's start page, with the app fully loaded."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    pg = context.new_page()
    pg.set_default_timeout(60_000)
    pg.goto(app_url)
    wait_idle(pg)
    yield pg
    context.close()


#: true when the app has run no script for 250 ms: Streamlit's own state on the app element ("rerunRequested"
#: is set the moment a widget changes, so a wait right after a click cannot pass before the
#: rerun), and no "Running" / "Stop" in the header's status widget (a live job view's fragment)
IDLE_JS = (
    "() => { const a = document.querySelector('[data-testid=\"stApp\"]');"
    " const s = a && a.getAttribute('data-test-script-state');"
    " const w = document.querySelector('[data-testid=\"stStatusWidget\"]');"
    " const busy = w && (w.textContent.includes('Running') || w.textContent.includes('Stop'));"
    " const idle = !!a && s !== 'running' && s !== 'rerunRequested' && s !== 'initial' && !busy;"
    # a page may rerun itself at once (a query parameter read, a finished setup step): idle
    # counts once it has held for a quarter of a second (checked on every animation frame)
    " const now = performance.now();"
    " if (!idle) { window.__puxIdleSince = null; return false; }"
    " if (window.__puxIdleSince == null) window.__puxIdleSince = now;"
    " return now - window.__puxIdleSince >= 250; }"
)


def wait_app_idle(pg, timeout: float = 120_000) -> None:
    """Wait until the app has run no script for 250 ms (:data:`IDLE_JS`)."""
    pg.evaluate("() => { window.__puxIdleSince = null; }")
    pg.wait_for_function(IDLE_JS, timeout=timeout)

#: true when every chart has the width of its element (plotly has laid it out after a resize)
#: and no element is moving (Streamlit's fade-in of a rerun's elements has ended)
LAID_OUT_JS = (
    "() => [...document.querySelectorAll('.js-plotly-plot')].every(p => {"
    " const s = p.querySelector('.main-svg'); if (!s) return false;"
    " return Math.abs(s.getBoundingClientRect().width - p.getBoundingClientRect().width) < 2; })"
    " && document.getAnimations().every(a => a.playState !== 'running' || a.effect?.getTiming().iterations === Infinity)"
)


def wait_laid_out(pg, timeout: float = 30_000) -> None:
    """Wait until the charts are laid out for the window's size and nothing is animating."""
    pg.wait_for_function(LAID_OUT_JS, timeout=timeout)


def wait_idle(pg, timeout: float = 120_000) -> None:
    """Wait until the app has rendered, runs no script, and has laid out its charts."""
    pg.wait_for_selector('[data-testid="stApp"]', timeout=timeout)
    # attached, not visible: presenting hides the sidebar (its CSS can arrive before a look)
    pg.wait_for_selector('[data-testid="stSidebarNav"]', state="attached", timeout=timeout)
    wait_app_idle(pg, timeout)
    wait_laid_out(pg)


def goto(pg, title: str) -> None:
    """Open a page by its title in the sidebar navigation and wait for it."""
    pg.locator('[data-testid="stSidebarNav"]').get_by_role("link", name=title, exact=True).click()
    wait_idle(pg)


def screenshot(pg, name: str) -> None:
    """Save a full-page screenshot to $PUX_SCREENSHOT_DIR when it is set."""
    folder = os.environ.get("PUX_SCREENSHOT_DIR")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        pg.screenshot(path=str(Path(folder) / f"{name}.png"), full_page=True)


def job_children() -> set[int]:
    """The process ids of the job children running on this machine (every server's), not
    the spares waiting for a job (``pux-spare``: dashboard/shared/serving/spare_child.py)."""
    found = set()
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                cmd = (proc / "cmdline").read_bytes()
                name = (proc / "comm").read_bytes().strip()
            except OSError:
                continue
            if b"dashboard.shared.serving.child" in cmd and name != b"pux-spare":
                found.add(int(proc.name))
    return found
