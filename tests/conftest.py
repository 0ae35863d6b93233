"""Shared test configuration, and the helpers of the tests that drive the app through AppTest.

The app tests import the helpers directly (``from conftest import start, assert_clean``):
pytest puts this directory on ``sys.path`` and loads this file once as ``conftest``.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from hypothesis import settings

# Under CI, property tests draw the same examples every run, so a submission's result
# does not depend on luck; locally they keep exploring new examples.
settings.register_profile("ci", derandomize=True, database=None)
if os.environ.get("CI"):
    settings.load_profile("ci")

APP = str(Path(__file__).resolve().parents[1] / "app.py")


def start(page: str | None = None, query: dict | None = None, timeout: float = 240):
    """Run the app's home page, then switch to ``page``, failing on any exception.

    Parameters
    ----------
    page : str, optional
        A page file such as ``"pages/1_Data.py"``; None stays on the home page.
    query : dict, optional
        Link parameters. Without ``page`` they are set before the home page's first run
        (the home page reads them); with ``page`` they are set after it and before the
        switch, so that the page reads them rather than the home page's own link.
    timeout : float
        Seconds each run may take (AppTest's ``default_timeout``): a guard against hangs. On a
        fresh checkout the first fits wait for numba's cold compile (over 90 s on 2 cores).

    Returns
    -------
    streamlit.testing.v1.AppTest
    """
    # Imported here: most test files never start the app, and Streamlit is an extra.
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(APP, default_timeout=timeout)
    if page is None:
        _set_query(at, query)
    at.run()
    assert_clean(at)
    if page:
        _set_query(at, query)
        at.switch_page(page).run()
        assert_clean(at)
    return at


def _set_query(at, query: dict | None) -> None:
    for key, value in (query or {}).items():
        at.query_params[key] = value


def assert_clean(at) -> None:
    """The last run raised nothing (the exceptions' texts are the failure message)."""
    assert not at.exception, [e.value for e in at.exception]


def errors(at) -> list[str]:
    """Texts of the ``st.error`` boxes of the last run."""
    return [e.value for e in at.error]


def text(at) -> str:
    """Everything the last run wrote as markdown, captions, info, success and warning boxes."""
    parts = [at.markdown, at.caption, at.info, at.success, at.warning]
    return "\n".join(str(element.value) for group in parts for element in group)


def charts(at) -> list[dict]:
    """The Plotly figures of the last run, as the JSON specs Streamlit sends the browser."""
    return [json.loads(c.proto.spec) for c in at.get("plotly_chart")]


def trace_types(spec: dict) -> set[str]:
    """Trace types of a figure spec (Plotly's default type is scatter)."""
    return {t.get("type", "scatter") for t in spec["data"]}


def param(at, key: str) -> str:
    """One link parameter of the app's URL."""
    value = at.query_params[key]
    return value[0] if isinstance(value, list) else value


# ------------------------------------------------------------------ the browser tests' browser and server
ROOT = Path(__file__).resolve().parents[1]
ARTIFACTS = ROOT / "test-artifacts"
CHROMIUM = shutil.which("chromium") or ("/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None)
# Debian's chromium headless on this sandbox: no GPU, no network but loopback, software WebGL for 3-D charts.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--enable-unsafe-swiftshader",
    "--use-angle=swiftshader",
]


def recorded_json(filename: str, indent: int = 1):
    """A module fixture's body (``yield from``): a dict its tests fill, written to ``ARTIFACTS/filename`` after them."""
    found: dict = {}
    yield found
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / filename).write_text(json.dumps(found, indent=indent))


def require_browser() -> None:
    """Skip without Debian's chromium or playwright; under CI fail instead, since CI must run them."""
    missing = []
    if CHROMIUM is None:
        missing.append("Debian's chromium (apt-get install chromium, or make browser-deps)")
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        missing.append("the playwright Python package")
    if missing:
        reason = "browser test needs " + " and ".join(missing)
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail(reason + " (CI must run the browser tests, not skip them)")
        pytest.skip(reason)


class AppServer(str):
    """The base url of a test's Streamlit server, with ``started`` (monotonic seconds) and the server's ``pid``."""

    started: float
    pid: int


@pytest.fixture(scope="module")
def browser():
    """Headless Chromium, launched before the server (a visitor's browser is already open)."""
    require_browser()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        instance = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield instance
        instance.close()


@pytest.fixture(scope="module")
def server(request, browser):
    """A Streamlit server of the app on a free port, one per test module; yields its url."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    started = time.monotonic()
    ARTIFACTS.mkdir(exist_ok=True)
    log_path = ARTIFACTS / f"streamlit-server-{request.module.__name__.rsplit('.', 1)[-1]}.log"
    log = log_path.open("wb")
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true", "--server.address",
         "127.0.0.1", "--server.port", str(port), "--browser.gatherUsageStats", "false",
         "--server.fileWatcherType", "none"],
        cwd=ROOT, stdout=log, stderr=subprocess.STDOUT,
    )  # fmt: skip
    url = AppServer(f"http://127.0.0.1:{port}")
    url.started = started
    url.pid = proc.pid
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"{url}/_stcore/health", timeout=1) as reply:
                    if reply.status == 200:
                        break
            except OSError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"streamlit did not start (see {log_path})")
            time.sleep(0.1)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()
