"""Live in a room (issue 41, item 4): every page's first chart and the end of its main action,
measured in headless Chromium at 1280x720, cold and warm, on the built-in sample and on an upload.

Two real servers (``streamlit run dashboard/app.py`` on a free 127.0.0.1 port, headless),
one after the other, on the same fresh ``PUX_WARM_DIR`` (a temporary directory, 0700):

1. **cold** - ``PUX_WARMUP=0`` and an empty warm directory: each page's first visit after the
   server started (pages are visited one after another, so a later page may find what an
   earlier one computed in the server's memory: that is what a room's first visitor meets too).
2. **warm** - ``PUX_WARMUP=1`` (the default): the benchmark waits until the warm-up says it is
   done (``<PUX_WARM_DIR>/*/status.json`` with ``"state": "done"``, or ``pux warm-up done in N s``
   on the server's stderr), at most 6 minutes from the server's start, and records its seconds
   and whether it met the issue's 5 minutes; when no signal comes, the visits are still
   measured and labelled "warm-up not signalled".

In each phase every page of :data:`dashboard.navigation.SECTIONS` is opened by its URL path in
a fresh browser context (a new session, the page's default built-in sample), Compare once more
with ``?present=true``; then a CSV written at run time from a public table that ships with
statsmodels (ANES 1996, :func:`write_upload`) is uploaded on the Data page as a user does
(upload, label, sensitive attribute, public ranges typed and "Confirm as public knowledge"),
and every page is visited again in that session through the sidebar (a URL would open a new
session, without the upload). Uploads are never warm-cached: they are measured once per
server and labelled so.

Per visit, a probe in the page (:data:`PROBE_JS`, every 100 ms, in ms from the navigation or
the click) records:

* **first chart**: the first Plotly (``.js-plotly-plot`` with its svg drawn) or Vega
  (``.vega-embed`` / ``stVegaLiteChart`` with its canvas or svg) element of this run (not a
  stale one of the page before) with a size, and its top y in px (the viewport, never scrolled);
* **main action done**: the page's title drawn and the app idle for 1 s in a row - no script
  running, no "Running" / "Stop" in the status widget, no ``stProgress`` bar, no spinner, no
  Stop / "Leave the queue" button (a live job's view), no "Waiting for a free worker" - plus,
  for the Tour, its step's header (its first step has no chart). The time recorded is when
  that idle began. IMPOSTER's main action is its detection (training waits for its button).

Each wait is capped (120 s, 60 s with ``--quick``); a timeout is recorded as ``"timeout"``
in the status field and ``None`` as the time, never as a number. Beside the figures: the
load average before and after each phase, the CPU seconds the server (and its job processes)
and the browser spent on each visit, and the issue's targets as booleans (:func:`targets`).
The markdown table (:func:`markdown_table`) is printed to stdout and kept in the result.
"""
from __future__ import annotations

import glob
import json
import os
import re
import shutil
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.load_browser import ARGS as CHROMIUM_ARGS, CHROMIUM
from benchmarks.present_server import Server, browser_pids, tree_cpu

ROOT = Path(__file__).resolve().parents[1]
VIEWPORT = {"width": 1280, "height": 720}
#: the caps of one visit's wait, in seconds
CAP_S, QUICK_CAP_S = 120.0, 60.0
#: the longest wait for the warm-up's signal, from the server's start (the issue: done within 5 min)
WARMUP_WAIT_S, WARMUP_TARGET_S = 360.0, 300.0
#: no status.json this long after the server answers: the app is opened once (a warm-up started by
#: the first session), and after as long again the warm-up counts as not there
WARMUP_APPEAR_S = 30.0
DONE_RE = re.compile(r"pux warm-up done in ([0-9.]+) s")
#: how long the app must stay idle (with its chart drawn) to count as done, in ms; a page
#: that should draw a chart but stays idle this long without one ends with "none drawn"
IDLE_HOLD_MS, NO_CHART_HOLD_MS = 1000, 6000
CHART_SELECTOR = ".js-plotly-plot, .stPlotlyChart, .vega-embed, [data-testid=\"stVegaLiteChart\"]"
#: the issue's figures
COMPARE_FIRST_CHART_S, WARM_MAIN_CHART_S, COMPARE_TOP_PX = 10.0, 5.0, 400.0
SAMPLE, UPLOAD = "built-in sample", "upload"
UPLOAD_NAME = "anes96"
UPLOAD_LABEL, UPLOAD_SENSITIVE = "vote", "PID"
#: public ranges from the ANES 1996 codebook (statsmodels' NOTE), never from the rows
UPLOAD_RANGES = ("popul: 0, 10000; TVnews: 0, 7; selfLR: 1, 7; ClinLR: 1, 7; DoleLR: 1, 7; "
                 "age: 18, 120; educ: 1, 7; income: 1, 24")
PID_WORDS = ["Strong Democrat", "Weak Democrat", "Independent-Democrat", "Independent-Independent",
             "Independent-Republican", "Weak Republican", "Strong Republican"]


# ---------------------------------------------------------------- pure parts
def page_list() -> list[dict]:
    """Every page of the app in the navigation's order: name, URL path (the default page,
    Data, is served at ``/`` only: ``/data`` is "Page not found"), title (the sidebar's link)
    and section."""
    from dashboard.navigation import DEFAULT_PAGE, SECTIONS

    return [{"name": p.name, "path": "" if p.name == DEFAULT_PAGE else p.name, "title": p.title,
             "section": section} for section, specs in SECTIONS.items() for p in specs]


def page_marker(name: str) -> dict:
    """What "the main action ended" means on page ``name`` beyond the generic idle rule:
    ``needs`` is a CSS selector that must be there too (fresh), ``chart`` whether the page's
    first view draws a chart (the Tour's first step draws none: its header is its main view)."""
    if name == "tour":
        return {"needs": "[data-testid=\"stMain\"] h2", "chart": False,
                "note": "first step (no chart): its header drawn and idle"}
    if name == "imposter":
        return {"needs": None, "chart": True, "note": "detection (training waits for its button)"}
    if name == "compare":
        return {"needs": None, "chart": True, "note": "frontier final: no bar, no Stop left"}
    return {"needs": None, "chart": True, "note": None}


def main_seconds(record: dict) -> float | None:
    """The page's main picture: its first chart, or for a page whose first view draws none
    (the Tour's first step) the end of its main action; None when not measured or timed out."""
    if record.get("first_chart_s") is not None:
        return record["first_chart_s"]
    if not record.get("chart_expected", True):
        return record.get("done_s")
    return None


def _ok(value: float | None, limit: float) -> bool:
    return value is not None and value <= limit


def chart_top(record: dict) -> float | None:
    """The lowest of the chart's tops, when first drawn and when the page was done."""
    tops = [t for t in (record.get("chart_top_px"), record.get("chart_top_px_done")) if t is not None]
    return max(tops) if tops else None


def targets(records: list[dict], warmup: dict | None = None) -> dict:
    """The issue's goals, met or not (a timeout or a missing figure is not met).

    * Compare's first chart within 10 s cold on the built-in sample (normal and Present mode);
    * every page's main chart within 5 s when warm, on the built-in sample (uploads are never
      warm-cached), one boolean per page and one for all;
    * Compare's chart at most 400 px down, on every visit that drew it;
    * the warm-up done within 5 minutes of the server's start.
    """
    def find(**kw) -> list[dict]:
        return [r for r in records if all(r.get(k) == v for k, v in kw.items())]

    out: dict = {}
    for mode in ("normal", "present"):
        cold = find(page="compare", dataset=SAMPLE, phase="cold", mode=mode)
        key = "compare_first_chart_cold_sample_within_10_s" + ("" if mode == "normal" else "_present")
        if cold or mode == "normal":
            out[key] = bool(cold) and all(_ok(r.get("first_chart_s"), COMPARE_FIRST_CHART_S) for r in cold)
    warm = find(dataset=SAMPLE, phase="warm", mode="normal")
    per_page = {r["page"]: _ok(main_seconds(r), WARM_MAIN_CHART_S) for r in warm}
    out["warm_main_chart_within_5_s_every_page"] = bool(per_page) and all(per_page.values())
    out["warm_main_chart_within_5_s_by_page"] = per_page
    compare = [r for r in find(page="compare") if r.get("first_chart_s") is not None]
    out["compare_chart_top_at_most_400_px"] = bool(compare) and all(
        _ok(chart_top(r), COMPARE_TOP_PX) for r in compare)
    if warmup is not None:
        out["warmup_done_within_5_min"] = bool(warmup.get("within_5_min"))
    return out


def _cell(record: dict, key: str, digits: int = 1) -> str:
    status = record.get(key[:-2] + "_status", "ok")
    value = record.get(key)
    if value is not None:
        return f"{value:.{digits}f}"
    if status == "timeout":
        return f"timeout (>{record.get('cap_s', CAP_S):g} s)"
    return status or "-"


def markdown_table(records: list[dict]) -> str:
    """One line per visit: page, data, phase, first chart, its top, main action done, CPU seconds."""
    lines = ["| page | data | phase | first chart (s) | chart top (px) | main action done (s) "
             "| server CPU (s) | browser CPU (s) | note |",
             "|---|---|---|---:|---:|---:|---:|---:|---|"]
    for r in records:
        page = r["page"] + (" (present)" if r.get("mode") == "present" else "")
        top = chart_top(r)
        notes = [n for n in (r.get("label"), "exception on the page" if r.get("exception") else None,
                             r.get("error")) if n]
        lines.append(
            f"| {page} | {r['dataset']} | {r['phase']} | {_cell(r, 'first_chart_s')} "
            f"| {'-' if top is None else f'{top:.0f}'} | {_cell(r, 'done_s')} "
            f"| {_num(r.get('server_cpu_s'))} | {_num(r.get('browser_cpu_s'))} | {'; '.join(notes)} |")
    return "\n".join(lines)


def _num(value) -> str:
    return "-" if value is None else f"{value:.1f}"


def targets_markdown(t: dict) -> str:
    rows = [f"- {k.replace('_', ' ')}: **{'pass' if v else 'FAIL'}**" for k, v in t.items() if isinstance(v, bool)]
    return "\n".join(rows)


def warmup_status(warm_dir: Path, stderr_text: str = "") -> dict:
    """What the warm-up says so far: the first ``*/status.json`` under ``warm_dir`` (its
    state and seconds) and the seconds of a ``pux warm-up done in N s`` line."""
    out: dict = {"state": None, "seconds": None, "stderr_done_s": None}
    for path in sorted(glob.glob(str(warm_dir / "*" / "status.json"))):
        try:
            status = json.loads(Path(path).read_text())
        except (OSError, ValueError):
            continue  # written atomically, but a reader can still meet none yet
        if isinstance(status, dict):
            out.update(state=status.get("state"), seconds=status.get("seconds"), path=Path(path).parent.name)
            break
    found = DONE_RE.search(stderr_text)
    if found:
        out["stderr_done_s"] = float(found.group(1))
    return out


def write_upload(folder: Path) -> Path:
    """``anes96.csv``: the 1996 American National Election Study sample that ships with
    statsmodels (944 respondents), with the codebook's words for the vote and the party
    (the label and the sensitive attribute) and without the derived ``logpopul``."""
    import statsmodels.api as sm

    frame = sm.datasets.anes96.load_pandas().data.drop(columns=["logpopul"])
    for col in frame.columns:
        frame[col] = frame[col].round().astype(int) if (frame[col] % 1 == 0).all() else frame[col]
    frame["vote"] = frame["vote"].map({0: "Clinton", 1: "Dole"})
    frame["PID"] = frame["PID"].map(dict(enumerate(PID_WORDS)))
    path = folder / f"{UPLOAD_NAME}.csv"
    frame.to_csv(path, index=False)
    return path


# ---------------------------------------------------------------- the probe in the page
#: runs in every document: ``window.__pux`` holds the visit's figures (ms since ``t0``)
PROBE_JS = """
(() => {
  if (window.__pux) return;
  const SEL = %(sel)s, HOLD = %(hold)d, NOCHART = %(nochart)d;
  window.__pux = {t0: 0, path: null, needs: null, chart: null, chartAt: null, chartTop: null, chartTopDone: null,
                  busySeen: false, runSeen: false, idleSince: null, readySince: null, doneAt: null, exception: false};
  // every change of the script's state, even a run shorter than one tick (a cheap page in session)
  new MutationObserver(changes => {
    const p = window.__pux;
    for (const c of changes) {
      const v = c.target.getAttribute('data-test-script-state');
      if (v === 'running' || v === 'rerunRequested') { p.busySeen = true; p.idleSince = null; p.readySince = null; }
      if (v === 'running') p.runSeen = true;
    }
  }).observe(document, {subtree: true, attributes: true, attributeFilter: ['data-test-script-state']});
  const fresh = el => !el.closest('[data-stale="true"]');
  const drawn = el => { const r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0 && !!el.querySelector('.main-svg, canvas, svg'); };
  const charts = () => [...document.querySelectorAll(SEL)].filter(el => fresh(el) && drawn(el));
  const top = list => Math.min(...list.map(el => el.getBoundingClientRect().top));
  const tick = () => {
    const p = window.__pux;
    if (p.doneAt !== null) return;
    if (p.path !== null && !location.pathname.endsWith('/' + p.path)) return;  // the click not yet answered
    const now = performance.now() - p.t0;
    const needs = p.needs || window.__puxNeeds;
    const expectChart = p.chart === null ? window.__puxChart !== false : p.chart;
    const main = document.querySelector('[data-testid="stMain"]');
    // this visit's run has begun (before it, the page left may still show its own, not yet stale)
    const titled = p.runSeen && !!main && [...main.querySelectorAll('h1')].some(fresh);
    const seen = titled ? charts() : [];
    if (p.chartAt === null && seen.length) { p.chartAt = now; p.chartTop = top(seen); }
    const app = document.querySelector('[data-testid="stApp"]');
    const s = app && app.getAttribute('data-test-script-state');
    const w = document.querySelector('[data-testid="stStatusWidget"]');
    const text = main ? main.textContent : '';
    const busy = !app || !main || !s || s === 'running' || s === 'rerunRequested' || s === 'initial'
      || (w && (w.textContent.includes('Running') || w.textContent.includes('Stop')))
      || [...document.querySelectorAll('[data-testid="stProgress"], [data-testid="stSpinner"]')].some(fresh)
      || [...main.querySelectorAll('button')].some(b => fresh(b) && /^(Stop|Leave the queue)$/.test(b.innerText.trim()))
      || /Waiting for a free worker|queued by itself as soon as there is room/.test(text)
      || !titled
      || (needs && ![...document.querySelectorAll(needs)].some(fresh));
    if (busy) { p.busySeen = true; p.idleSince = null; p.readySince = null;
                if (s === 'running') p.runSeen = true; return; }
    if (!p.busySeen) return;
    if (p.idleSince === null) p.idleSince = now;
    // a chart page is ready once its chart is drawn too (plotly's bundle may load after the
    // script ended); one that stays idle without a chart for long ends without one
    const ready = seen.length > 0 || !expectChart;
    if (ready && p.readySince === null) p.readySince = now;
    const end = ready && now - p.readySince >= HOLD ? p.readySince
      : (now - p.idleSince >= NOCHART ? p.idleSince : null);
    if (end !== null) {
      p.doneAt = end;
      if (seen.length) p.chartTopDone = top(seen);
      p.exception = [...document.querySelectorAll('[data-testid="stException"]')].some(fresh);
    }
  };
  setInterval(tick, 100);
})();
""" % {"sel": json.dumps(CHART_SELECTOR), "hold": IDLE_HOLD_MS, "nochart": NO_CHART_HOLD_MS}

_RESET_JS = """([path, needs, chart, busySeen]) => { const p = window.__pux;
  Object.assign(p, {t0: performance.now(), path, needs, chart, chartAt: null, chartTop: null, chartTopDone: null,
                    busySeen: !!busySeen, runSeen: !!busySeen, idleSince: null, readySince: null, doneAt: null,
                    exception: false}); }"""


# ---------------------------------------------------------------- one visit
def _collect(pg, record: dict, cap: float, t0: float, server: Server, cpu0: tuple[float, float]) -> dict:
    """Wait for the probe's done (at most ``cap`` s from ``t0``) and fill ``record``."""
    from playwright.sync_api import Error as PlaywrightError

    left = max(cap - (time.monotonic() - t0), 0.1)
    try:
        pg.wait_for_function("() => window.__pux && window.__pux.doneAt !== null", timeout=left * 1000,
                             polling=100)
        done = True
    except PlaywrightError:  # a timeout, or the page gone
        done = False
    try:
        probe = pg.evaluate("() => window.__pux") or {}
    except PlaywrightError as exc:
        probe = {}
        record["error"] = f"probe unreadable: {str(exc).splitlines()[0][:120]}"
    wall = round(time.monotonic() - t0, 2)
    chart_at, done_at = probe.get("chartAt"), probe.get("doneAt")
    record["first_chart_s"] = None if chart_at is None else round(chart_at / 1000, 2)
    if chart_at is not None:
        record["first_chart_status"] = "ok"
        record["chart_top_px"] = round(probe["chartTop"])
    else:
        record["first_chart_status"] = "none drawn" if done else "timeout"
    record["done_s"] = round(done_at / 1000, 2) if done and done_at is not None else None
    record["done_status"] = "ok" if record["done_s"] is not None else "timeout"
    if probe.get("chartTopDone") is not None:
        record["chart_top_px_done"] = round(probe["chartTopDone"])
    record["exception"] = bool(probe.get("exception"))
    record["wall_s"] = wall
    record["server_cpu_s"] = round(server.cpu() - cpu0[0], 2)
    record["browser_cpu_s"] = round(tree_cpu(browser_pids(server.proc.pid)) - cpu0[1], 2)
    return record


def _cpu_now(server: Server) -> tuple[float, float]:
    return server.cpu(), tree_cpu(browser_pids(server.proc.pid))


def visit_by_url(browser, server: Server, page: dict, *, phase: str, cap: float, label: str | None,
                 present: bool = False) -> dict:
    """Open ``page`` by its URL in a fresh context (a new session on the built-in sample)."""
    marker = page_marker(page["name"])
    record = {"page": page["name"], "dataset": SAMPLE, "phase": phase, "mode": "present" if present else "normal",
              "cap_s": cap, "chart_expected": marker["chart"], "marker": marker["note"], "label": label}
    ctx = browser.new_context(viewport=VIEWPORT)
    try:
        ctx.add_init_script(f"window.__puxNeeds = {json.dumps(marker['needs'])}; "
                            f"window.__puxChart = {json.dumps(marker['chart'])};")
        ctx.add_init_script(PROBE_JS)
        pg = ctx.new_page()
        cpu0 = _cpu_now(server)
        t0 = time.monotonic()
        pg.goto(f"{server.url}/{page['path']}" + ("?present=true" if present else ""), wait_until="commit",
                timeout=cap * 1000)
        return _collect(pg, record, cap, t0, server, cpu0)
    except Exception as exc:  # noqa: BLE001 - one visit's failure is recorded, the others still run
        record.update(error=f"{type(exc).__name__}: {str(exc).splitlines()[0][:160]}", done_status="error",
                      first_chart_status=record.get("first_chart_status", "error"))
        return record
    finally:
        ctx.close()


def visit_by_sidebar(pg, server: Server, page: dict, *, phase: str, cap: float, label: str | None) -> dict:
    """Open ``page`` through the sidebar's link in the session ``pg`` holds (the upload stays)."""
    marker = page_marker(page["name"])
    record = {"page": page["name"], "dataset": UPLOAD, "phase": phase, "mode": "normal", "cap_s": cap,
              "chart_expected": marker["chart"], "marker": marker["note"], "label": label}
    try:
        link = pg.locator('[data-testid="stSidebarNav"]').get_by_role("link", name=page["title"], exact=True)
        link.wait_for(timeout=30_000)
        cpu0 = _cpu_now(server)
        pg.evaluate(_RESET_JS, [page["path"], marker["needs"], marker["chart"]])
        t0 = time.monotonic()
        link.click()
        return _collect(pg, record, cap, t0, server, cpu0)
    except Exception as exc:  # noqa: BLE001
        record.update(error=f"{type(exc).__name__}: {str(exc).splitlines()[0][:160]}", done_status="error",
                      first_chart_status=record.get("first_chart_status", "error"))
        return record


def _act(pg, cap: float, action=None) -> bool:
    """``action()`` (a widget change on the Data page), then the probe's done for the rerun it
    started (reset first: a rerun that ends before the wait begins still counts). An action
    that starts no rerun within 5 s counts as answered by the page as it is."""
    from playwright.sync_api import Error as PlaywrightError

    pg.evaluate(_RESET_JS, [None, None, False, action is None])  # no action: idle now counts
    if action is not None:
        action()
        try:
            pg.wait_for_function("() => window.__pux.busySeen", timeout=5_000, polling=100)
        except PlaywrightError:
            pg.evaluate("() => { window.__pux.busySeen = true; window.__pux.runSeen = true; }")
    try:
        pg.wait_for_function("() => window.__pux.doneAt !== null", timeout=cap * 1000, polling=100)
        return True
    except PlaywrightError:
        return False


def _pick(pg, box: str, option: str) -> None:
    """Choose ``option`` in the selectbox or multiselect labelled ``box``, as a user does."""
    combo = pg.get_by_role("combobox", name=box, exact=True)
    combo.click()
    pg.keyboard.type(option)  # the list is virtualised: a later option is drawn once typed
    pg.get_by_role("option", name=option, exact=True).click()
    if combo.get_attribute("aria-expanded") == "true":  # a multiselect's list stays open
        pg.keyboard.press("Escape")


def upload(browser, server: Server, csv: Path, cap: float) -> tuple[object, object, dict]:
    """A session with ``csv`` uploaded on the Data page, its label and sensitive attribute
    chosen, public ranges typed and the schema confirmed; (context, page, what it took)."""
    ctx = browser.new_context(viewport=VIEWPORT)
    ctx.add_init_script(PROBE_JS)
    pg = ctx.new_page()
    pg.set_default_timeout(cap * 1000)
    out: dict = {"file": csv.name}
    t0 = time.monotonic()
    pg.goto(f"{server.url}/", wait_until="commit")
    pg.wait_for_function("() => window.__pux && window.__pux.doneAt !== null", timeout=cap * 1000, polling=100)
    _act(pg, cap, lambda: pg.get_by_text("Upload a CSV").click())
    t1 = time.monotonic()
    _act(pg, cap, lambda: pg.locator('[data-testid="stFileUploaderDropzoneInput"]').first.set_input_files(str(csv)))
    pg.get_by_text(f"Using {UPLOAD_NAME}").first.wait_for(timeout=cap * 1000)
    _act(pg, cap)
    out["upload_to_read_s"] = round(time.monotonic() - t1, 2)
    steps = {}
    t = time.monotonic()
    _act(pg, cap, lambda: _pick(pg, "Label (predicted)", UPLOAD_LABEL))
    steps["label_s"], t = round(time.monotonic() - t, 2), time.monotonic()
    _act(pg, cap, lambda: _pick(pg, "Sensitive attributes", UPLOAD_SENSITIVE))
    steps["sensitive_s"], t = round(time.monotonic() - t, 2), time.monotonic()
    ranges = pg.get_by_label("Public ranges (optional): column: lower, upper; ...", exact=True)
    ranges.fill(UPLOAD_RANGES)
    _act(pg, cap, lambda: ranges.press("Enter"))
    steps["ranges_s"], t = round(time.monotonic() - t, 2), time.monotonic()
    _act(pg, cap, lambda: pg.get_by_role("button", name="Confirm as public knowledge").click())
    steps["confirm_s"] = round(time.monotonic() - t, 2)
    out["steps"] = steps
    main = pg.locator('[data-testid="stMain"]').inner_text()
    out["schema_public"] = "read from your data - not private" not in main
    out["roles"] = f"label {UPLOAD_LABEL}, sensitive {UPLOAD_SENSITIVE}" if f"label {UPLOAD_LABEL}" in main else None
    out["setup_s"] = round(time.monotonic() - t0, 2)
    return ctx, pg, out


# ---------------------------------------------------------------- phases
def wait_warmup(server: Server, warm_dir: Path, browser, *, limit: float = WARMUP_WAIT_S,
                appear: float = WARMUP_APPEAR_S) -> dict:
    """Until the warm-up signals done (or failed), at most ``limit`` s from the server's start."""
    out: dict = {"signalled": False, "poked": False}
    deadline = server.started + limit
    appear_by = time.monotonic() + appear
    status = warmup_status(warm_dir)
    while time.monotonic() < deadline:
        status = warmup_status(warm_dir, server.stderr())
        if status["state"] in ("done", "failed") or status["stderr_done_s"] is not None:
            break
        if status["state"] is None and time.monotonic() > appear_by:
            if out["poked"]:
                break  # no status.json at all: no warm-up on this server
            # a warm-up started by the app's first session: open it once
            out["poked"] = True
            ctx = browser.new_context(viewport=VIEWPORT)
            try:
                ctx.new_page().goto(server.url, wait_until="load", timeout=60_000)
                time.sleep(5.0)
            except Exception:  # noqa: BLE001 - the poke is only a nudge
                pass
            finally:
                ctx.close()
            appear_by = time.monotonic() + appear
        time.sleep(1.0)
    since = round(server.since_start(), 1)
    done = status["state"] == "done" or status["stderr_done_s"] is not None
    out.update(status)
    out["signalled"] = done or status["state"] == "failed"
    out["done"] = done
    out["seconds_since_server_start"] = since if out["signalled"] else None
    # the issue: done within 5 minutes of the server's start (seen here within one poll of 1 s)
    out["within_5_min"] = bool(done and since <= WARMUP_TARGET_S + 2.0)
    out["label"] = None if done else ("warm-up failed" if status["state"] == "failed" else "warm-up not signalled")
    return out


def _say(what: dict) -> None:
    print(json.dumps(what, default=str), file=sys.stderr, flush=True)


def run_phase(browser, workdir: Path, warm_dir: Path, csv: Path, *, phase: str, cap: float) -> dict:
    """One server: the built-in sample on every page (and Compare presenting), then the upload."""
    env = {"PUX_WARM_DIR": str(warm_dir), "PUX_WARMUP": "0" if phase == "cold" else "1"}
    out: dict = {"phase": phase, "env": env, "load_average_before": os.getloadavg()}
    server = Server(workdir, phase, env)
    out["server_ready_s"] = server.ready_s
    cpu0 = _cpu_now(server)
    records: list[dict] = []
    try:
        label = None
        if phase == "warm":
            out["warmup"] = wait_warmup(server, warm_dir, browser)
            label = out["warmup"]["label"]
            _say({"warmup": out["warmup"]})
            out["load_average_after_warmup"] = os.getloadavg()
        pages = page_list()
        for page in pages:
            records.append(visit_by_url(browser, server, page, phase=phase, cap=cap, label=label))
            _say(records[-1])
        records.append(visit_by_url(browser, server, next(p for p in pages if p["name"] == "compare"),
                                    phase=phase, cap=cap, label=label, present=True))
        _say(records[-1])
        upload_label = "upload: never warm-cached" if phase == "warm" else None
        try:
            ctx, pg, out["upload"] = upload(browser, server, csv, cap)
        except Exception as exc:  # noqa: BLE001 - the upload's failure is reported
            out["upload"] = {"error": f"{type(exc).__name__}: {str(exc).splitlines()[0][:200]}"}
            ctx = None
        if ctx is not None:
            try:
                for page in pages[1:] + pages[:1]:  # the Data page is on screen: it comes last
                    if page["name"] == "tour":  # it runs on its built-in samples, whatever is chosen
                        continue
                    records.append(visit_by_sidebar(pg, server, page, phase=phase, cap=cap, label=upload_label))
                    _say(records[-1])
            finally:
                ctx.close()
    finally:
        cpu1 = _cpu_now(server)
        out["server_cpu_s"] = round(cpu1[0] - cpu0[0], 1)
        out["browser_cpu_s"] = round(cpu1[1] - cpu0[1], 1)
        out["wall_s"] = round(server.since_start(), 1)
        server.stop()
        err = server.stderr()
        out["server_tracebacks"] = err.count("Traceback")
        if out["server_tracebacks"]:
            out["server_stderr_tail"] = err[-1500:]
        out["load_average_after"] = os.getloadavg()
    out["records"] = records
    return out


def run(*, quick: bool) -> dict:
    from playwright.sync_api import sync_playwright

    if not Path(CHROMIUM).is_file():
        raise RuntimeError("headless Chromium not found (apt-get install chromium, or set PUX_CHROMIUM)")
    cap = QUICK_CAP_S if quick else CAP_S
    workdir = Path(tempfile.mkdtemp(prefix="pux-present-"))
    warm_dir = workdir / "warm"
    warm_dir.mkdir(mode=0o700)
    csv = write_upload(workdir)
    out: dict = {"quick": quick, "cores": os.cpu_count(), "viewport": VIEWPORT, "cap_s": cap,
                 "upload_table": "statsmodels.datasets.anes96 (944 rows), written at run time",
                 "pages": [p["name"] for p in page_list()], "phases": {}}
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            try:
                for phase in ("cold", "warm"):
                    out["phases"][phase] = run_phase(browser, workdir, warm_dir, csv, phase=phase, cap=cap)
            finally:
                browser.close()
        out["warm_dir_entries"] = sorted(p.name for p in warm_dir.iterdir())
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    records = [r for ph in out["phases"].values() for r in ph["records"]]
    out["records"] = records
    out["targets"] = targets(records, out["phases"].get("warm", {}).get("warmup"))
    table = markdown_table(records)
    loads = "; ".join(f"{name}: {ph['load_average_before'][0]:.1f} before, {ph['load_average_after'][0]:.1f} after"
                      for name, ph in out["phases"].items())
    warm = out["phases"].get("warm", {}).get("warmup", {})
    note = (f"\nLoad average (1 min), {loads}. Warm-up: "
            + (f"done in {warm.get('seconds')} s" if warm.get("done") else warm.get("label") or "-") + ".\n")
    out["table_markdown"] = table + "\n" + note + "\n" + targets_markdown(out["targets"])
    print(out["table_markdown"], flush=True)
    out["goal"] = ("issue 41 item 4: Compare's first chart within 10 s cold on the built-in sample, every "
                   "page's main chart within 5 s warm, Compare's chart at most 400 px down, warm-up within 5 min")
    for ph in out["phases"].values():
        del ph["records"]  # kept once, in out["records"]
    return out
