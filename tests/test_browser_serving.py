"""Leaving a heavy page stops its work: a real browser opens a heavy link, closes it, and the server goes quiet.

A share link asks for a forest of 500 trees with every split plane tried at every node
on 20,000 points (within the work budget: about 45 estimated CPU-seconds). The page
starts it in the server's worker pool and waits for it; the test closes the tab while the
job runs and then watches the server's whole process tree (the server, the pool's
template, the job) with psutil: the job's process must be gone within a few seconds, the
tree must use almost no CPU afterwards, and its resident memory must come back to what
it was before the link was opened. The numbers are printed and saved to
``test-artifacts/serving-disconnect.json``.
"""

from __future__ import annotations

import json
import time
import urllib.parse

import psutil
import pytest
from conftest import ARTIFACTS

pytestmark = [pytest.mark.browser, pytest.mark.slow]

TIMEOUT_MS = 120_000
HEAVY_DATA = {"source": "synthetic", "signature": "H2 x S2 x E2", "n_samples": 20000, "n_classes": 8, "seed": 1,
              "task": "classification", "n_clusters": 16, "cov_scale": 0.35}  # fmt: skip
HEAVY_MODEL = {"family": "product_forest", "params": {"n_estimators": 500, "pairs": "all", "max_features": "all",
               "max_depth": 10}, "test_size": 0.25, "seed": 0}  # fmt: skip


def _tree(pid: int) -> list[psutil.Process]:
    server = psutil.Process(pid)
    return [server, *server.children(recursive=True)]


def _cpu(pid: int) -> float:
    total = 0.0
    for proc in _tree(pid):
        try:
            t = proc.cpu_times()
            total += t.user + t.system + t.children_user + t.children_system
        except psutil.Error:
            pass
    return total


def _rss(pid: int) -> int:
    total = 0
    for proc in _tree(pid):
        try:
            total += proc.memory_info().rss
        except psutil.Error:
            pass
    return total


def _jobs(pid: int) -> list[psutil.Process]:
    """The pool's job processes: children of its template (``python -m ui.worker_template``)."""
    found = []
    for proc in _tree(pid)[1:]:
        try:
            if "ui.worker_template" in " ".join(proc.cmdline()):
                found += [c for c in proc.children() if c.status() != psutil.STATUS_ZOMBIE]
        except psutil.Error:
            pass
    return found


def _idle(page):
    page.wait_for_selector("[data-testid='stApp'][data-test-connection-state='CONNECTED']")
    page.wait_for_selector("[data-testid='stApp'][data-test-script-state='notRunning']")


def test_closing_a_heavy_link_stops_its_job_and_the_server_goes_quiet(server, browser, capsys):
    pid = server.pid
    # A first visit starts the worker pool's template and warms the server; then the quiet baseline.
    page = browser.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    page.goto(server + "/")
    page.locator('[data-testid="stPlotlyChart"] .heatmaplayer image').first.wait_for(state="visible")
    _idle(page)
    page.close()
    time.sleep(5)
    rss_before = _rss(pid)
    cpu_start = _cpu(pid)
    time.sleep(5)
    idle_rate = (_cpu(pid) - cpu_start) / 5

    query = urllib.parse.urlencode({"data": json.dumps(HEAVY_DATA), "model": json.dumps(HEAVY_MODEL)})
    page = browser.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    page.goto(f"{server}/?{query}")
    page.get_by_text("Training the model").first.wait_for(state="visible")
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:  # the job has really started working
        running = _jobs(pid)
        if running and sum(p.cpu_times().user for p in running) > 3:
            break
        time.sleep(0.2)
    assert running, "the heavy link's job never ran"
    rss_during = _rss(pid)
    closed = time.monotonic()
    page.close()
    while _jobs(pid) and time.monotonic() - closed < 30:
        time.sleep(0.1)
    stopped_after = time.monotonic() - closed
    assert not _jobs(pid), "the job still runs 30 s after its page was closed"
    time.sleep(2)
    cpu_after = _cpu(pid)
    time.sleep(10)
    rate_after = (_cpu(pid) - cpu_after) / 10
    rss_after = _rss(pid)
    numbers = {
        "job_stopped_after_close_s": round(stopped_after, 2),
        "cpu_rate_idle_before": round(idle_rate, 3),
        "cpu_rate_after_close": round(rate_after, 3),
        "tree_rss_before_mib": round(rss_before / 2**20),
        "tree_rss_during_mib": round(rss_during / 2**20),
        "tree_rss_after_mib": round(rss_after / 2**20),
    }
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / "serving-disconnect.json").write_text(json.dumps(numbers, indent=2))
    with capsys.disabled():
        print(f"\n[serving] {numbers}", flush=True)
    assert stopped_after < 5, f"the job ran on for {stopped_after:.1f} s after its page was closed"
    assert rate_after < 0.2, f"the server used {rate_after:.2f} CPU-s per second after the page was closed"
    assert rss_after < rss_before + 100 * 2**20, f"the server kept {(rss_after - rss_before) / 2**20:.0f} MiB"


def test_a_server_that_is_gone_is_named_plainly(server, browser):
    # Last in the module: it stops the module's server.
    import os
    import signal

    from ui.chrome import SERVER_GONE_TEXT

    page = browser.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    page.goto(server + "/")
    page.locator('[data-testid="stPlotlyChart"] .heatmaplayer image').first.wait_for(state="visible")
    _idle(page)
    assert page.locator("#ct-server-gone").count() == 0  # connected: no banner
    os.kill(server.pid, signal.SIGKILL)
    banner = page.locator("#ct-server-gone")
    banner.wait_for(state="visible", timeout=60_000)
    assert banner.inner_text() == SERVER_GONE_TEXT
    assert "internet" not in banner.inner_text()
    page.close()
