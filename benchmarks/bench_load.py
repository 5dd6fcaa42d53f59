"""Load test: sliders stay fast while sessions train, jobs are shared fairly, tabs close.

One real server (``streamlit run`` on a free loopback port) with ``PUX_JOB_LOG`` set, so
the job pool writes when each job was queued, when its page first showed its wait, when it
started and ended (:mod:`dashboard.shared.serving.job_pool`). Sessions speak Streamlit's websocket
protocol without a browser (:mod:`benchmarks.load_client`): what is timed is the server,
as the issue measured it, and 8 sessions do not need 8 browsers on the same 2 cores.

1. **Idle training** - one session presses Train on IMPOSTER with the page's defaults
   (census sample, 100 epochs) on an otherwise idle server: the reference.
2. **Sliders, idle then under load** - ``sliders`` sessions on CDP-LR move the epsilon slider
   (one step, then about ``think`` = 1 s, each session from its own value so that some values
   are new to the cache, their starts spread over ``think``): first alone for 60 s (the idle
   reference), then for 120 s while 2 sessions train with the defaults, pressed together at
   its start (with one job slot the second waits for the first; ``PUX_LOAD_SLOTS`` sets the
   server's slots to measure another policy). Each phase has its own page seed, so each starts with a cache
   cold for its slider values. A move is timed from the rerun request to the chart
   titled "Accuracy at epsilon = X"; no chart within 10 s, an exception on the page or a
   dropped connection is an error. A training is timed from its press to "Training
   finished". The load average is taken at the end of each phase.
3. **Fairness** - session A sets ``hog_epochs`` epochs (the issue's client asked for 1,000;
   250 here, 150 quick, to keep the run short) and presses Train, then runs the theta sweep,
   the lambda sweep and the audit (the page's other jobs: one running, three waiting, the
   most a session may have waiting). Session B then presses Train with the defaults; A opens
   Compare, whose comparison (a fourth waiting job) is refused with the reason on the page.
   B's real wait (the log: first shown to started) is set against the wait its page first
   showed; B must start before A's next job. A leaves once B runs.
4. **Closing** - every session closes; the watchdog must stop their jobs (no training
   process left) and the CPU falls back.
5. **Page loads** (full mode only) - 16 Chromium tabs open CDP-LR at once (issue 9's figure).

Over the whole run the log gives each session's most jobs running at once (the rule: 1),
and every wait a page showed against the real one. Every wait has a time limit; everything
stays on 127.0.0.1.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

from benchmarks.load_browser import CHROMIUM, browser_loads, cpu_seconds as _cpu_seconds, process_tree as _tree

ROOT = Path(__file__).resolve().parents[1]
SLIDER = "epsilon (privacy budget of training)"
TRAINED = "Training finished after"
WAITING = re.compile(r"Waiting for a free worker: (\d+)\w\w in line(?:, about (\d+) s)?")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _trainings(pid: int) -> int:
    """How many job processes (trainings, curves: dashboard.shared.serving.child) run under the
    server; the spare waiting for a job (``pux-spare``, spare_child.py) is not one."""
    n = 0
    for child in _tree(pid)[1:]:
        try:
            cmd = Path(f"/proc/{child}/cmdline").read_bytes()
            name = Path(f"/proc/{child}/comm").read_bytes().strip()
        except OSError:
            continue
        n += b"dashboard.shared.serving.child" in cmd and name != b"pux-spare"
    return n


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


# ---------------------------------------------------------------- the job log
def _events(path: Path) -> list[dict]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _jobs(events: list[dict]) -> dict[int, dict]:
    """Per job: its kind, pool, session, units of work and the time of each of its events."""
    out: dict[int, dict] = {}
    for e in events:
        job = out.setdefault(e["job"], {"kind": e["kind"], "session": e["session"], "pool": e.get("pool")})
        job.setdefault(e["event"], e["t"])
        if e["event"] == "queued":
            job["units"] = e.get("units")
        if e["event"] == "shown":
            job["shown_wait"] = e.get("wait")
    return out


def _most_running_per_session(events: list[dict]) -> int:
    """The most jobs of one session that ran at once in one pool, over the whole log."""
    now: dict = {}
    most = 0
    for e in sorted(events, key=lambda e: e["t"]):
        key = (e["session"], e.get("pool"))
        if e["session"] is None or e["event"] not in ("started", "ended"):
            continue
        now[key] = now.get(key, 0) + (1 if e["event"] == "started" else -1)
        most = max(most, now[key])
    return most


def _shown_against_real(jobs: dict[int, dict]) -> list[dict]:
    """Every job whose page showed a wait of a second or more: the wait shown, the real one."""
    out = []
    for job in jobs.values():
        shown, wait = job.get("shown"), job.get("shown_wait")
        if shown is None or wait is None or wait < 1 or "started" not in job:
            continue
        real = job["started"] - shown
        out.append({"kind": job["kind"], "shown_s": round(wait, 1), "real_s": round(real, 1),
                    "real_over_shown": round(real / wait, 2)})
    return out


def _training_runs(jobs: dict[int, dict], rows: int = 3000) -> list[dict]:
    """Every IMPOSTER training that ran to its end: its epochs and seconds from start to end
    (the pace of the machine at that time: the other figures are read against it)."""
    out = []
    for job in sorted(jobs.values(), key=lambda j: j.get("started", 0)):
        if job["kind"] == "imposter-training" and "started" in job and "ended" in job and job.get("units"):
            epochs = round(job["units"] / rows)
            seconds = job["ended"] - job["started"]
            out.append({"epochs": epochs, "run_s": round(seconds, 1),
                        "s_per_100_epochs": round(100 * seconds / epochs, 1)})
    return out


def _pool_idle(log: Path, timeout: float = 90.0) -> float | None:
    """Seconds until every job in the log has ended or left the line (None after ``timeout``)."""
    def idle() -> bool:  # a refused job was never queued
        jobs = _jobs(_events(log))
        return all("ended" in j or "left" in j or "refused" in j for j in jobs.values())
    return _wait_for(idle, timeout)


# ---------------------------------------------------------------- sessions
def _viewer(url: str, page: str, *, query: str = "", widget: str | None = None, text: str | None = None,
            timeout: float = 240.0):
    from benchmarks.load_client import Viewer

    v = Viewer(url, page, query=query)
    v.rerun()
    if widget is not None and not v.wait_widget(widget, timeout):
        raise RuntimeError(f"{page}: no {widget!r} within {timeout:.0f} s ({v.errors})")
    if text is not None and v.wait_text(text, timeout=timeout) is None:
        raise RuntimeError(f"{page}: no {text!r} within {timeout:.0f} s ({v.errors})")
    return v


def _train(v, *, epochs: int | None = None) -> float:
    """Press Train (with ``epochs`` set first); the time of the press."""
    v.settle()
    if epochs is not None:
        v.set_value("Epochs", epochs)
    return v.rerun(press="Train")


def _trained(v, pressed: float, timeout: float) -> float | None:
    """Seconds from ``pressed`` until the page says the training finished."""
    got = v.wait_text(TRAINED, since=pressed, timeout=timeout)
    return None if got is None else round(got[0] - pressed, 2)


def _slide(v, start: float, stop: threading.Event, think: float, times: list, errors: list, *,
           seed: int, offset: float) -> None:
    """After ``offset`` seconds, move the slider one step, wait for its chart, think (a
    uniform draw between half and one and a half ``think``); until ``stop``. Viewers are not
    in step: eight sessions that all move at the same instant would measure the queue of
    the burst, not the server."""
    from core.runtime.randomness import check_random_state

    rng = check_random_state(seed)
    value = start
    stop.wait(offset)
    while not stop.is_set():
        value = round(value + 0.1, 1) if value < 9.8 else 1.0
        v.forget()
        v.set_value(SLIDER, [value])
        sent = v.rerun()
        got = v.wait_text(f"Accuracy at epsilon = {value:g}", since=sent, timeout=10.0, kinds=("plotly_chart",))
        if got is None:
            errors.append(f"no chart for epsilon {value:g} within 10 s")
        else:
            times.append(got[0] - sent)
        stop.wait(think * float(rng.uniform(0.5, 1.5)))


def _stats(times: list[float]) -> dict:
    if not times:
        return {"moves": 0}
    ordered = sorted(times)
    q = statistics.quantiles(ordered, n=100, method="inclusive") if len(ordered) > 1 else ordered * 99
    return {"moves": len(ordered), "median_ms": round(1000 * statistics.median(ordered)),
            "p90_ms": round(1000 * q[89]), "p95_ms": round(1000 * q[94]), "max_ms": round(1000 * ordered[-1])}


# ---------------------------------------------------------------- phases
def _idle_training(url: str) -> dict:
    v = _viewer(url, "imposter", query="seed=101", widget="Train")
    pressed = _train(v)
    took = _trained(v, pressed, 400)
    v.close()
    return {"press_to_finished_s": took}


def _keep_training(v, stop: threading.Event, took: list, *, first_epochs: int = 100, repeat: bool = False) -> None:
    """Train with the defaults; with ``repeat``, again (one epoch more each time: the same
    inputs would be served from the finished trainings at once) until ``stop``. Each
    press-to-finished time goes to ``took`` (None: it never ran, or did not finish within
    900 s). The issue's run trains once per session (``repeat`` False): in a trial run the
    second press of a session did not start within 120 s, which is not yet understood."""
    k = 0
    while not stop.is_set() and (repeat or k == 0):
        pressed = _train(v, epochs=None if k == 0 else first_epochs + k)
        if v.wait_text("Training: iteration", since=pressed, timeout=120) is None:
            took.append(None)  # it never ran (refused, or served finished): a failure, not a time
            break
        took.append(_trained(v, pressed, 900))
        k += 1


def _sliding(url: str, *, sliders: int, think: float, seconds: float, trainers: int, seed: int,
             idle_s: float = 0.0) -> dict:
    """``sliders`` sessions move the CDP-LR slider for ``seconds`` (one move about every
    ``think`` seconds each, the page's seed ``seed``: each phase meets a cache cold for its
    values) while ``trainers`` sessions train IMPOSTER with the defaults again and again."""
    viewers = [_viewer(url, "cdp_lr", query=f"seed={seed}", text="Accuracy at epsilon = 2") for _ in range(sliders)]
    trainers_ = [_viewer(url, "imposter", query=f"seed={i + 1}", widget="Train") for i in range(trainers)]
    stop, times, errors = threading.Event(), [], []
    threads = [threading.Thread(target=_slide, args=(v, 1.0 + 0.3 * i, stop, think, times, errors),
                                kwargs=dict(seed=i, offset=think * i / sliders), daemon=True)
               for i, v in enumerate(viewers)]
    took: list[list] = [[] for _ in trainers_]
    training = [threading.Thread(target=_keep_training, args=(v, stop, t), daemon=True)
                for v, t in zip(trainers_, took)]
    t0 = time.monotonic()
    for t in threads + training:
        t.start()
    stop.wait(seconds)
    stop.set()
    for t in threads:
        t.join(15)
    span = time.monotonic() - t0
    load = os.getloadavg()
    for t in training:  # the trainings under way end
        t.join(900)
    errors += [e for v in viewers + trainers_ for e in v.errors]
    for v in viewers + trainers_:
        v.close()
    out = {"slider_sessions": sliders, "training_sessions": trainers, "think_s": think, "seconds": round(span, 1),
           "page_seed": seed, "moves_per_s": round(len(times) / span, 2), **_stats(times), "errors": len(errors),
           "error_examples": errors[:3], "load_average_1_5_15": [round(x, 2) for x in load]}
    if trainers:
        flat = [t for each in took for t in each]
        out["trainings_press_to_finished_s"] = flat
        if idle_s and flat and all(flat):
            out["training_over_idle"] = [round(t / idle_s, 2) for t in flat]
    return out


def _fairness(url: str, *, hog_epochs: int, log: Path) -> dict:
    a = _viewer(url, "imposter", query="seed=201", widget="Train")
    b = _viewer(url, "imposter", query="seed=202", widget="Train")
    a_wall = time.time() - 1.0
    a_pressed = _train(a, epochs=hog_epochs)
    if a.wait_text("Training: iteration", since=a_pressed, timeout=120) is None:
        raise RuntimeError(f"A's training never started ({a.errors})")
    for button in ("Run the theta sweep", "Run the lambda sweep", "Run the audit"):
        a.settle()
        a.rerun(press=button)
        a.settle()
    time.sleep(3.0)  # A's training some seconds in: its pace is known
    b_pressed = _train(b)
    shown = b.wait_for(lambda t: WAITING.search(t) is not None, since=b_pressed, timeout=60)
    a.settle()
    a_left = a.goto("compare")  # its comparison would be A's fourth waiting job: refused, with the reason
    refused = a.wait_text("Not queued", since=a_left, timeout=120)

    def trainings() -> tuple[dict | None, dict | None]:
        found = [j for j in _jobs(_events(log)).values() if j["kind"] == "imposter-training"
                 and j.get("queued", 0) >= a_wall]
        if len(found) < 2:
            return None, None
        a_job = max(found, key=lambda j: j["units"])  # the longest is A's
        return a_job, next((j for j in found if j["session"] != a_job["session"]), None)

    _wait_for(lambda: "started" in (trainings()[1] or {}), 600)
    a.close()  # A leaves once B runs: the watchdog stops A's jobs
    b_trained = _trained(b, b_pressed, 300)
    b.close()
    jobs = _jobs(_events(log))
    a_job, b_job = trainings()
    a_next = [j for j in jobs.values() if j["session"] == a_job["session"] and j["pool"] == a_job["pool"]
              and j.get("queued", 0) > a_job["queued"]]
    out = {"hog_epochs": hog_epochs, "hog_jobs_queued": 1 + len(a_next),
           "hog_refused_text": None if refused is None else refused[1][:300],
           "other_first_text": None if shown is None else WAITING.search(shown[1]).group(0),
           "other_press_to_finished_s": b_trained}
    if b_job and "shown" in b_job and "started" in b_job and b_job.get("shown_wait"):
        real = b_job["started"] - b_job["shown"]
        out.update(other_wait_shown_s=round(b_job["shown_wait"], 1), other_wait_real_s=round(real, 1),
                   other_real_over_shown=round(real / b_job["shown_wait"], 2))
    started = [j["started"] for j in a_next if "started" in j]
    out["other_started_before_hogs_next_job"] = bool(b_job and "started" in b_job
                                                     and all(t > b_job["started"] for t in started))
    return out


def _closing(server_pid: int, log: Path) -> dict:
    """After every session closed: seconds until no job is left and no training process runs,
    and the CPU then."""
    t0 = time.monotonic()
    idle = _pool_idle(log, 90)
    quiet = _wait_for(lambda: _quiet(server_pid, 3.0), 90)
    out = {"seconds_until_every_job_ended": idle,
           "seconds_until_no_training_for_3_s": None if quiet is None else round(time.monotonic() - t0 - 3.0, 2)}
    breakdown: dict = {}
    out["cpu_after_sessions_closed_cores"] = round(_cpu_share(server_pid, 5.0, per_process=breakdown), 3)
    out["cpu_after_sessions_closed_by_process"] = breakdown
    return out


def _slots() -> int:
    """The server's job slots: ``PUX_LOAD_SLOTS`` when set (to measure another policy), else its default."""
    from dashboard.shared.serving.jobs import MAX_RUNNING

    value = os.environ.get("PUX_LOAD_SLOTS", "")
    return int(value) if value.isdigit() and int(value) > 0 else MAX_RUNNING


def _start_server(port: int, log: Path) -> subprocess.Popen:
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "PUX_JOB_LOG": str(log), "PUX_MAX_JOBS": str(_slots()),
           "PUX_WARMUP": "0"}
    server = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", str(ROOT / "dashboard" / "app.py"),
         "--server.headless", "true", "--server.port", str(port), "--server.address", "127.0.0.1",
         "--browser.gatherUsageStats", "false"],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(180):
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2)
            break
        except OSError:
            time.sleep(0.5)
    return server


def _targets(out: dict) -> dict:
    """Each goal of issue 27 item 4, met or not, from the figures above."""
    load, fair = out.get("slider_under_load", {}), out.get("fairness", {})
    idle_p95 = out.get("slider_idle", {}).get("p95_ms")
    idle = out.get("idle_training", {}).get("press_to_finished_s")
    trained = load.get("trainings_press_to_finished_s") or [None]
    first, worst = (None, None) if None in trained else (min(trained), max(trained))
    ratio = fair.get("other_real_over_shown")
    return {
        "slider_p95_at_most_300_ms": load.get("p95_ms") is not None and load["p95_ms"] <= 300,
        "slider_p95_at_most_3x_idle": bool(load.get("p95_ms") and idle_p95 and load["p95_ms"] <= 3 * idle_p95),
        "slider_no_errors": load.get("errors") == 0,
        "default_training_under_load_within_3x_idle": bool(first and idle and first <= 3 * idle),
        # pressed together with the other on one slot: it waits for that training first
        "the_training_that_waited_within_3x_idle": bool(worst and idle and worst <= 3 * idle),
        "wait_shown_within_2x_of_real": ratio is not None and 0.5 <= ratio <= 2.0,
        "one_running_job_per_session": out.get("most_running_jobs_of_one_session") == 1,
        "other_session_before_the_hogs_next_job": bool(fair.get("other_started_before_hogs_next_job")),
        "hogs_further_job_refused_in_words": bool(fair.get("hog_refused_text")),
    }


def _say(out: dict) -> None:
    """The figures so far, on stderr (a run cut short still tells what it measured)."""
    print(json.dumps(out, default=str), file=sys.stderr, flush=True)


def run(*, quick: bool) -> dict:
    sliders = 4 if quick else 8
    hog_epochs = 150 if quick else 250
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    workdir = Path(tempfile.mkdtemp(prefix="pux-load-"))
    log = Path(os.environ["PUX_LOAD_LOG"]) if os.environ.get("PUX_LOAD_LOG") else workdir / "jobs.jsonl"
    log.unlink(missing_ok=True)
    server = _start_server(port, log)
    out: dict = {"quick": quick, "cores": os.cpu_count(), "client": "Streamlit websocket protocol (no browser)",
                 "job_slots": _slots(),
                 "load_average_before": os.getloadavg()}
    try:
        warm = _viewer(url, "cdp_lr", text="Accuracy at epsilon = 2")  # schemes and curve cached first
        time.sleep(3.0)  # the curve's job is queued just after the bars
        _pool_idle(log, 300)
        warm.close()
        out["cpu_idle_cores"] = round(_cpu_share(server.pid, 3.0), 3)
        out["idle_training"] = _idle_training(url)
        _pool_idle(log)
        _say(out)
        out["slider_idle"] = _sliding(url, sliders=sliders, think=1.0, seconds=30 if quick else 60, trainers=0,
                                      seed=11)
        _say(out)
        out["slider_under_load"] = _sliding(
            url, sliders=sliders, think=1.0, seconds=30 if quick else 120, trainers=2, seed=12,
            idle_s=out["idle_training"]["press_to_finished_s"] or 0)
        _pool_idle(log)
        _say(out)
        out["fairness"] = _fairness(url, hog_epochs=hog_epochs, log=log)
        _say(out)
        out["closing"] = _closing(server.pid, log)
        events = _events(log)
        out["most_running_jobs_of_one_session"] = _most_running_per_session(events)
        out["waits_shown_against_real"] = _shown_against_real(_jobs(events))
        out["training_runs_in_order"] = _training_runs(_jobs(events))
        out["load_average_after"] = os.getloadavg()
        if not quick and Path(CHROMIUM).is_file():
            out["page_load"] = browser_loads(url, server.pid)
    finally:
        server.terminate()
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            server.kill()
        shutil.rmtree(workdir, ignore_errors=True)
    out["targets"] = _targets(out)
    out["goal"] = ("issues 27 item 4 and 41 item 4: slider p95 <= 300 ms and <= 3x the idle p95, no errors, with 8 "
                   "sessions moving the slider about once a second for 2 minutes while 2 train; "
                   "a default training under that load within 3x its idle time; the wait a page shows within "
                   "2x of the real wait; one running job per session, sessions in turn, a bounded line each")
    return out
