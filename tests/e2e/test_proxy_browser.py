"""Serving behind a real proxy (``deploy/nginx.conf.template``, Debian's nginx-light): the
headers, the metrics block and the login, then the app in Chromium through the proxy with its
charts drawn and no content-security violation logged."""
from __future__ import annotations

import base64
import os
import shutil
import socket
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from tests.e2e.conftest import ROOT, _free_port, _unavailable, goto, wait_idle

pytestmark = pytest.mark.e2e

NGINX = os.environ.get("PUX_NGINX") or shutil.which("nginx") or "/usr/sbin/nginx"
USER, PASSWORD = "viewer", "a-long-test-password"
HEADERS = {"X-Frame-Options": "DENY", "X-Content-Type-Options": "nosniff"}


def _config(folder: Path, port: int, upstream: str) -> Path:
    (folder / "htpasswd").write_text(f"{USER}:{{PLAIN}}{PASSWORD}\n")
    text = (ROOT / "deploy" / "nginx.conf.template").read_text()
    for name, value in {"PUX_PROXY_PREFIX": str(folder), "PUX_PROXY_LISTEN": f"127.0.0.1:{port}",
                        "PUX_UPSTREAM": upstream, "PUX_HTPASSWD": str(folder / "htpasswd")}.items():
        text = text.replace("${" + name + "}", value)
    assert "${PUX_" not in "".join(l for l in text.splitlines(True) if not l.startswith("#"))
    if os.geteuid() == 0:  # nginx's workers would run as nobody, who cannot read the test's private folder
        text = "user root;\n" + text
    path = folder / "nginx.conf"
    path.write_text(text)
    return path


@pytest.fixture(scope="module")
def proxy_url(app_url, tmp_path_factory):
    if not Path(NGINX).is_file():
        _unavailable("nginx not found: install it with `apt-get install nginx-light` (Debian/Ubuntu)")
    folder = tmp_path_factory.mktemp("nginx")
    port = _free_port()
    config = _config(folder, port, app_url.removeprefix("http://"))
    proc = subprocess.Popen([NGINX, "-p", str(folder), "-e", str(folder / "error.log"), "-c", str(config)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.time() + 20
    while time.time() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            if proc.poll() is not None:
                pytest.fail(f"nginx exited: {proc.stderr.read().decode()[-500:]}")
            time.sleep(0.2)
    yield f"http://127.0.0.1:{port}"
    proc.terminate()
    proc.wait(timeout=10)


def _get(url: str, *, login: bool = True) -> tuple[int, dict]:
    request = urllib.request.Request(url)
    if login:
        token = base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()
        request.add_header("Authorization", f"Basic {token}")
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, dict(answer.headers)
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers)


def test_the_proxy_asks_for_a_login_blocks_metrics_and_sets_its_headers(proxy_url):
    status, headers = _get(proxy_url + "/", login=False)
    assert status == 401 and headers.get("X-Frame-Options") == "DENY"
    status, headers = _get(proxy_url + "/")
    assert status == 200
    assert {k: headers.get(k) for k in HEADERS} == HEADERS
    assert "frame-ancestors 'none'" in headers["Content-Security-Policy"]
    assert _get(proxy_url + "/_stcore/metrics")[0] == 404
    assert _get(proxy_url + "/_stcore/health")[0] == 200


def test_the_app_draws_its_charts_through_the_proxy_with_no_csp_violation(browser, proxy_url):
    context = browser.new_context(viewport={"width": 1400, "height": 1000},
                                  http_credentials={"username": USER, "password": PASSWORD})
    context.add_init_script("window.__csp = []; document.addEventListener('securitypolicyviolation',"
                            " e => window.__csp.push(e.violatedDirective + ' ' + e.blockedURI));")
    page = context.new_page()
    logged: list[str] = []
    page.on("console", lambda msg: logged.append(msg.text))
    page.set_default_timeout(60_000)
    try:
        page.goto(proxy_url)
        wait_idle(page)  # the websocket works: the app rendered and ran its script
        goto(page, "CDP-LR")
        page.locator(".js-plotly-plot").first.wait_for(timeout=180_000)
        wait_idle(page)
        violations = page.evaluate("window.__csp")
    finally:
        context.close()
    assert violations == []
    assert not [m for m in logged if "Content Security Policy" in m or "Content-Security-Policy" in m]
