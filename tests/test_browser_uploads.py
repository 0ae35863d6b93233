"""An upload survives a reload of its browser tab, and no other tab reaches it (a real browser).

Debian's headless Chromium driven by Python Playwright, as in ``tests/test_browser_world.py``:
a table uploaded on the Data page and used, the tab reloaded (the dataset is still the
upload, its model retrained), another browser context without the token (the default demo),
and a link with a wrong token (a plain message). The store itself is tested in
``tests/test_kept_uploads.py``.

Skipped when Chromium or Playwright is missing, except under ``CI=true``.
"""

from __future__ import annotations

import urllib.parse

import pytest
from conftest import ARTIFACTS  # the browser and server fixtures live there too
from curvedtrees.sampling import make_classification

pytestmark = [pytest.mark.browser, pytest.mark.slow]

TIMEOUT_MS = 180_000


def _table() -> bytes:
    X, y = make_classification("H2", n_samples=60, n_classes=2, n_clusters=2, cov_scale=0.3, random_state=7)
    lines = ["x0,x1,x2,label"] + [",".join([*(f"{v:.17g}" for v in row), f"c{label}"]) for row, label in zip(X, y)]
    return ("\n".join(lines) + "\n").encode()


def _idle(page):
    page.wait_for_selector("[data-testid='stApp'][data-test-connection-state='CONNECTED']")
    page.wait_for_selector("[data-testid='stApp'][data-test-script-state='notRunning']")
    page.wait_for_timeout(300)


def _sidebar(page) -> str:
    return page.locator("[data-testid='stSidebar']").inner_text()


def test_an_upload_survives_a_reload_of_its_tab_and_no_other_tab_reaches_it(server, browser):
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    page.goto(server + "/Data")
    _idle(page)
    page.get_by_role("tab", name="Upload a file").click()
    page.locator("[data-testid='stFileUploader'] input[type='file']").set_input_files(
        files=[{"name": "my-points.csv", "mimeType": "text/csv", "buffer": _table()}]
    )
    _idle(page)
    page.get_by_role("button", name="Use this dataset").click()
    _idle(page)
    assert "my-points.csv" in _sidebar(page)
    query = urllib.parse.parse_qs(urllib.parse.urlparse(page.url).query)
    assert len(query.get("upload", [""])[0]) >= 32 and "data" not in query, page.url
    # "Use this dataset" leads on.
    assert page.get_by_role("link", name="Train a model on it").count() == 1
    assert page.get_by_role("link", name="See its decision regions").count() == 1

    page.reload()
    _idle(page)
    assert "my-points.csv" in _sidebar(page) and "Product decision tree" in _sidebar(page)
    ARTIFACTS.mkdir(exist_ok=True)
    page.wait_for_timeout(1500)  # the widgets' skeletons give way to the page
    page.screenshot(path=str(ARTIFACTS / "upload-01-after-reload-1400x900.png"))

    # Another visitor (a fresh browser context: no cookies, no URL of this tab) sees the default demo.
    other = browser.new_context(viewport={"width": 1400, "height": 900}).new_page()
    other.set_default_timeout(TIMEOUT_MS)
    other.goto(server + "/Data")
    _idle(other)
    assert "my-points.csv" not in other.content()
    # A guessed token: one plain message, and the default demo.
    other.goto(server + "/?upload=" + "A" * 32)
    _idle(other)
    other.get_by_text("not kept on the server any more").first.wait_for()
    assert "my-points.csv" not in other.content() and "Mixture on the Poincaré disk" in _sidebar(other)
    other.context.close()
    context.close()
