"""The server is local by default and quiet at start (README, "Serving it to others").

One server is started the way ``make run`` starts it (its command line from the Makefile,
headless, on a free port, from the repository root so .streamlit/config.toml applies); the
test reads which addresses its listening sockets are bound to. A few seconds: the app's
script runs only when a browser connects, and none does.
"""
from __future__ import annotations

import os
import shlex
import shutil
import socket
import subprocess
import sys
import time
import tomllib
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CONFIG = ROOT / ".streamlit" / "config.toml"
LOOPBACK = {"127.0.0.1", "::1", "::ffff:127.0.0.1"}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _make_run_command(port: int) -> list[str]:
    """The command ``make run`` runs (``make -n``: printed, not run), with this port."""
    if shutil.which("make") is None:
        pytest.skip("make is not installed; the Makefile's run command cannot be read")
    out = subprocess.run(["make", "-n", "-s", "run", f"PORT={port}"], cwd=ROOT, capture_output=True,
                         text=True, timeout=30, check=True).stdout
    line = next(line for line in out.splitlines() if "streamlit run" in line)
    cmd = shlex.split(line)
    cmd[0] = str(ROOT / cmd[0]) if not os.path.isabs(cmd[0]) else cmd[0]
    if not os.path.exists(cmd[0]):  # a checkout whose venv lives elsewhere: the same streamlit
        cmd[:1] = [sys.executable, "-m", "streamlit"]
    return cmd + ["--server.headless", "true"]


def _listening_addresses(port: int, pid: int) -> set[str]:
    """The local addresses of the sockets listening on ``port`` (psutil, else /proc/net)."""
    try:
        import psutil
    except ImportError:
        psutil = None
    if psutil is not None:
        conns = psutil.Process(pid).net_connections(kind="inet")
        return {c.laddr.ip for c in conns if c.status == psutil.CONN_LISTEN and c.laddr.port == port}
    found = set()
    for name, width in (("tcp", 8), ("tcp6", 32)):
        path = Path("/proc/net") / name
        if not path.exists():
            continue
        for row in path.read_text().splitlines()[1:]:
            fields = row.split()
            addr, hexport = fields[1].split(":")
            if int(hexport, 16) == port and fields[3] == "0A":  # 0A: LISTEN
                raw = bytes.fromhex(addr)
                packed = b"".join(raw[i:i + 4][::-1] for i in range(0, len(raw), 4))
                found.add(socket.inet_ntop(socket.AF_INET if width == 8 else socket.AF_INET6, packed))
    if not found:
        pytest.skip("neither psutil nor /proc/net is available to read the bound address")
    return found


@pytest.fixture(scope="module")
def make_run_server(tmp_path_factory):
    port = _free_port()
    log = tmp_path_factory.mktemp("server") / "server.log"
    with open(log, "w") as out:
        proc = subprocess.Popen(_make_run_command(port), cwd=ROOT, stdout=out, stderr=subprocess.STDOUT)
    try:
        deadline = time.time() + 60
        while time.time() < deadline:
            if proc.poll() is not None:
                pytest.fail("the server stopped at start: " + log.read_text()[-2000:])
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=1) as r:
                    if r.status == 200:
                        break
            except OSError:
                time.sleep(0.2)
        else:
            pytest.fail("the server did not answer within 60 s: " + log.read_text()[-2000:])
        time.sleep(0.3)  # the start banner is printed just after the socket opens
        yield port, proc.pid, log.read_text()
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


def test_make_run_listens_on_the_loopback_interface_only(make_run_server):
    port, pid, _ = make_run_server
    addresses = _listening_addresses(port, pid)
    assert addresses and addresses <= LOOPBACK, addresses


def test_make_run_names_no_network_or_external_url_at_start(make_run_server):
    _, _, banner = make_run_server
    assert "External URL" not in banner and "Network URL" not in banner  # no external-IP lookup
    assert "URL: http://localhost:" in banner


#: Streamlit's start banner with its external-IP lookup replaced by a counter.
_PROBE = """
import sys
from streamlit import config, net_util
from streamlit.web import bootstrap
config.get_config_options(force_reparse=True,
                          options_from_flags={"server.address": sys.argv[1], "server.headless": True})
calls = []
net_util.get_external_ip = lambda: calls.append(1) or None
bootstrap._print_url(False)
print("external-ip lookups:", len(calls))
"""


def _external_lookups(cwd: Path, address: str) -> int:
    out = subprocess.run([sys.executable, "-c", _PROBE, address], cwd=cwd, capture_output=True, text=True,
                         timeout=60, check=True).stdout
    return int(out.rsplit("external-ip lookups:", 1)[1])


def test_start_asks_no_outside_host_even_when_opened_to_every_interface():
    assert _external_lookups(ROOT, "0.0.0.0") == 0  # the repo's config.toml applies


def test_the_probe_sees_the_lookup_without_the_repos_config(tmp_path):
    assert _external_lookups(tmp_path, "0.0.0.0") == 1  # Streamlit's default: asks checkip.amazonaws.com


def test_config_binds_to_loopback_and_calls_no_outside_host():
    config = tomllib.loads(CONFIG.read_text(encoding="utf-8"))
    assert config["server"]["address"] == "127.0.0.1"
    # set, so Streamlit never asks checkip.amazonaws.com for the external IP
    assert config["browser"]["serverAddress"] == "localhost"
    assert config["browser"]["gatherUsageStats"] is False


def test_makefile_run_defaults_to_loopback_and_takes_one_setting_to_open_it():
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert "ADDRESS ?= 127.0.0.1" in makefile
    assert "--server.address $(ADDRESS)" in makefile


def test_readme_tells_an_operator_how_to_serve_others():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Serving it to others", 1)[1].split("\n## ", 1)[0]
    for needed in ("ADDRESS=0.0.0.0", "authentication", "/_stcore/metrics", "serverAddress"):
        assert needed in section, needed


def test_the_address_reader_sees_a_socket_open_to_every_interface():
    with socket.socket() as s:
        s.bind(("0.0.0.0", 0))
        s.listen()
        port = s.getsockname()[1]
        assert _listening_addresses(port, os.getpid()) == {"0.0.0.0"}
