"""The present benchmark's server and processes (``benchmarks/bench_present.py``): a real
``streamlit run`` on a free loopback port with its own logs, and the CPU seconds of its
process tree and of the browser's."""
from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from benchmarks.load_browser import process_tree

ROOT = Path(__file__).resolve().parents[1]


def _stat(pid: int) -> list[str] | None:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None


def tree_cpu(pids: list[int]) -> float:
    """CPU seconds of ``pids`` with their reaped children (a job process that ended counts)."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0
    for pid in pids:
        fields = _stat(pid)
        if fields:
            total += sum(int(f) for f in fields[11:15])
    return total / tick


def _cmdline(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()[:300]
    except OSError:
        return b""


def browser_pids(server_pid: int | None) -> list[int]:
    """The Chromium processes this benchmark started (under this process, not the server's)."""
    server = set(process_tree(server_pid)) if server_pid else set()
    return [p for p in process_tree(os.getpid())[1:] if p not in server and b"chrom" in _cmdline(p)]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """``streamlit run dashboard/app.py`` on a free loopback port, with its own logs."""

    def __init__(self, workdir: Path, name: str, env: dict):
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.stderr_path = workdir / f"server-{name}.err"
        self.stdout_path = workdir / f"server-{name}.out"
        full = {k: v for k, v in os.environ.items() if k != "PUX_JOBS_IN_THREAD"}
        full.update(env, PYTHONUNBUFFERED="1")
        self.started = time.monotonic()
        with open(self.stdout_path, "wb") as out, open(self.stderr_path, "wb") as err:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "streamlit", "run", str(ROOT / "dashboard" / "app.py"),
                 "--server.headless", "true", "--server.port", str(self.port), "--server.address", "127.0.0.1",
                 "--browser.gatherUsageStats", "false"],
                cwd=ROOT, env=full, stdout=out, stderr=err)
        self.ready_s = self._wait_health(90.0)

    def _wait_health(self, seconds: float) -> float:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"streamlit exited with code {self.proc.returncode}: {self.stderr()[-2000:]}")
            try:
                with urllib.request.urlopen(f"{self.url}/_stcore/health", timeout=2) as r:
                    if r.status == 200:
                        return round(time.monotonic() - self.started, 2)
            except OSError:
                time.sleep(0.3)
        raise RuntimeError(f"streamlit did not answer within {seconds:.0f} s")

    def stderr(self) -> str:
        try:
            return self.stderr_path.read_text(errors="replace")
        except OSError:
            return ""

    def since_start(self) -> float:
        return time.monotonic() - self.started

    def cpu(self) -> float:
        return tree_cpu(process_tree(self.proc.pid))

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=15)
