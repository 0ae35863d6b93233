"""The Side by side page and the export buttons in a real browser (Debian's Chromium, Python Playwright).

Opens the page from the sidebar's own navigation (Home first), moves the left depth
slider and sees only the left side retrain, switches the right side to the Klein disk,
and downloads the left picture as standalone HTML and as an SVG at lecture size: the
files are made on click (Streamlit's deferred download data), which AppTest cannot
press. Screenshots go to ``test-artifacts/``. Skipped without Chromium or Playwright,
except under ``CI=true``.
"""

from __future__ import annotations

import time

import pytest
from conftest import ARTIFACTS  # the browser and server fixtures live there too

pytestmark = [pytest.mark.browser, pytest.mark.slow]

TIMEOUT_MS = 120_000


def _idle(page):
    page.wait_for_selector("[data-testid='stApp'][data-test-connection-state='CONNECTED']")
    time.sleep(0.5)  # a rerun that a click started may not have flagged itself yet
    page.wait_for_selector("[data-testid='stApp'][data-test-script-state='notRunning']")


def _titles(page) -> list[str]:
    # Plotly draws a title after the chart's container is visible: wait until both pictures have one.
    page.wait_for_function("document.querySelectorAll('[data-testid=\"stPlotlyChart\"] .gtitle').length >= 2")
    # SVG text has no inner text; its content joins the title's lines with zero-width spaces.
    return [
        text.replace("\u200b", " ").strip()
        for text in page.locator('[data-testid="stPlotlyChart"] .gtitle').all_text_contents()
    ]


def test_side_by_side_retrains_one_side_and_exports_its_picture(server, browser, tmp_path):
    from ui.export import static_export_available

    page = browser.new_page(viewport={"width": 1400, "height": 1700}, accept_downloads=True)
    page.set_default_timeout(TIMEOUT_MS)
    page.goto(server + "/")
    _idle(page)
    sidebar = page.locator('[data-testid="stSidebar"]')
    # The app draws its own page list after the page's first elements: wait for it before reading it.
    sidebar.get_by_role("link", name="Side by side").wait_for(state="visible")
    links = sidebar.get_by_role("link").all_inner_texts()
    assert links[0].split()[-1] == "Home" and not any(text.split()[-1] == "app" for text in links)
    sidebar.get_by_role("link", name="Side by side").click()
    page.get_by_role("heading", name="Side by side").wait_for(state="visible")
    _idle(page)
    page.locator('[data-testid="stPlotlyChart"] .js-plotly-plot').nth(1).wait_for(state="visible")
    left, right = _titles(page)[:2]
    assert left.startswith("Product tree, depth 4") and left.endswith("on the Poincaré disk")
    assert right.startswith("Product forest, depth 8") and right.endswith("on the Poincaré disk")
    page.screenshot(path=str(ARTIFACTS / "side-by-side-1400.png"))

    # The left depth slider: one step down retrains the left side; the right keeps its forest.
    page.get_by_role("slider").nth(1).focus()
    page.keyboard.press("ArrowLeft")
    page.get_by_text("Product tree, depth 3").first.wait_for(state="visible")
    _idle(page)
    assert page.get_by_text("depth at most 3", exact=False).count() == 1
    assert page.get_by_text("depth at most 8", exact=False).count() == 1

    # Klein on the right side only.
    page.locator('[data-testid="stRadio"]').nth(1).get_by_text("Klein").click()
    page.locator(".gtitle", has_text="Klein disk").first.wait_for(state="visible")
    _idle(page)
    left, right = _titles(page)[:2]
    assert "Poincaré disk" in left and "Klein disk" in right
    page.screenshot(path=str(ARTIFACTS / "side-by-side-klein-1400.png"))

    # Downloads, made when clicked.
    buttons = page.locator('[data-testid="stDownloadButton"]')
    with page.expect_download() as info:
        buttons.filter(has_text="Interactive HTML").first.click()
    html = tmp_path / "picture.html"
    info.value.save_as(html)
    assert info.value.suggested_filename == "product-tree-depth-3-h2-component-1-on-the-poincare-disk.html"
    text = html.read_text(encoding="utf-8")
    assert "Plotly.newPlot" in text and "<script src=" not in text
    if static_export_available():
        with page.expect_download() as info:
            buttons.filter(has_text="SVG").first.click()
        svg = tmp_path / "picture.svg"
        info.value.save_as(svg)
        image = svg.read_text(encoding="utf-8")
        assert image.startswith("<svg") and 'width="1920"' in image and 'height="1080"' in image
    else:
        assert buttons.filter(has_text="SVG").first.locator("button").is_disabled()
    page.close()
