"""Demos staged for an audience, measured in a real browser at projector sizes.

Debian's headless Chromium driven by Python Playwright, as in ``tests/test_browser_world.py``.
At 1024 x 768 and 1400 x 900, from the home page's demo buttons: the page holds still while
a demo loads (the demo buttons do not move), then the finished picture is in view whole (its
top under Streamlit's header, its bottom and the month slider above the window's bottom); the
temperature picture names the month it shows and its cities wear their true temperature of
that month, both changing as it plays; the Landmasses demo opens on the large turning globe;
the world map fills its column; no link of the home page is cut. Screenshots go to
``test-artifacts/demo-*.png``.

Skipped when Chromium or Playwright is missing, except under ``CI=true``.
"""

from __future__ import annotations

import json
import urllib.parse

import pytest
from conftest import ARTIFACTS  # the browser and server fixtures live there too

pytestmark = [pytest.mark.browser, pytest.mark.slow]

# Building the 20,000 landmass points and fitting their forest cold takes minutes on a busy machine.
TIMEOUT_MS = 400_000
SIZES = ((1024, 768), (1400, 900))

_BOXES = """() => {
  const box = e => { if (!e) return null; const b = e.getBoundingClientRect();
                     return {left: b.left, top: b.top, width: b.width, height: b.height, bottom: b.bottom}; };
  const chart = document.querySelector(".st-key-home_picture [data-testid='stPlotlyChart']");
  const header = document.querySelector("[data-testid='stHeader']");
  const gd = chart && chart.querySelector('.js-plotly-plot');
  const points = gd && gd._fullData ? gd._fullData.filter(t => t.name === 'training points') : [];
  const colour = points.length && points[0].marker ? points[0].marker.color : null;  // a typed array from bdata
  const colours = colour && (Array.isArray(colour) || ArrayBuffer.isView(colour)) ? Array.from(colour) : [];
  return {
    chart: box(chart), header: box(header), slider: box(chart && chart.querySelector('.slider-container')),
    plot: box(chart && chart.querySelector('.nsewdrag')),
    image: box(chart && chart.querySelector('.heatmaplayer image')),
    buttons: box(document.querySelector('.st-key-demo_poincare')),
    title: chart && chart.querySelector('.legendtitletext') ? chart.querySelector('.legendtitletext').textContent : '',
    current: gd && gd.layout.sliders && gd.layout.sliders.length ?
      gd.layout.sliders[0].steps[gd.layout.sliders[0].active].label : '',
    frames: gd && gd._transitionData ? gd._transitionData._frames.length : 0,
    colours: colours,
    cut: [...document.querySelectorAll('.st-key-home_links [data-testid="stPageLink"] p')]
      .filter(p => p.scrollWidth > p.clientWidth + 1).map(p => p.textContent),
  };
}"""


def _page(browser, size):
    page = browser.new_page(viewport={"width": size[0], "height": size[1]})
    page.set_default_timeout(TIMEOUT_MS)
    return page


def _idle(page):
    page.wait_for_selector("[data-testid='stApp'][data-test-connection-state='CONNECTED']")
    page.wait_for_selector("[data-testid='stApp'][data-test-script-state='notRunning']")


def _boxes(page) -> dict:
    return page.evaluate(_BOXES)


def _click_demo(page, name: str) -> list[float]:
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    """Click a demo button; the demo buttons' top before, and every 100 ms until the page has loaded the demo."""
    button = page.get_by_role("button", name=name, exact=True)
    button.scroll_into_view_if_needed()  # as a speaker would, to click it
    page.wait_for_timeout(300)
    tops = [_boxes(page)["buttons"]["top"]]  # where they are before the click
    button.click()
    try:  # a demo loaded before (cached) may be drawn before the first look
        page.wait_for_selector(
            "[data-testid='stApp'][data-test-script-state='running']", state="attached", timeout=5_000
        )
    except PlaywrightTimeout:
        pass
    while page.locator("[data-testid='stApp'][data-test-script-state='running']").count():
        boxes = _boxes(page)
        if boxes["buttons"] is not None and boxes["chart"] is not None:
            tops.append(boxes["buttons"]["top"])
        page.wait_for_timeout(100)
    _idle(page)
    page.locator(".st-key-home_picture [data-testid='stPlotlyChart'] .js-plotly-plot .main-svg").first.wait_for()
    page.wait_for_timeout(4000)  # software WebGL draws the globe, and the page scrolls it up
    return tops


def _in_view(boxes: dict, size) -> None:
    chart, header = boxes["chart"], boxes["header"]
    top = header["bottom"] if header else 0
    assert chart["top"] >= top - 2, f"the picture starts under the header: {chart} / {top}"
    assert chart["bottom"] <= size[1] + 1, f"the picture ends below the window at {size}: {chart}"
    if boxes["slider"] is not None:
        assert boxes["slider"]["bottom"] <= size[1], f"the slider is cut at {size}: {boxes['slider']}"


def _shot(page, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"))


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_a_demo_click_brings_its_finished_picture_into_view_and_holds_still_meanwhile(server, browser, size):
    page = _page(browser, size)
    page.goto(server + "/")
    _idle(page)
    assert not _boxes(page)["cut"], "home page links cut"

    tops = _click_demo(page, "Temperatures")
    assert tops and max(tops) - min(tops) <= 1, f"the page moved while the demo loaded: {sorted(set(tops))}"
    boxes = _boxes(page)
    _in_view(boxes, size)
    assert boxes["frames"] == 12 and "Jan" in boxes["title"] and boxes["current"] == "Jan", boxes["title"]
    assert boxes["chart"]["height"] >= 560  # the globe, its legend and its month slider, all on screen
    assert not boxes["cut"], f"home page links cut at {size}: {boxes['cut']}"
    _shot(page, f"demo-01-temperatures-{size[0]}x{size[1]}")

    tops = _click_demo(page, "Landmasses")
    assert tops and max(tops) - min(tops) <= 1, f"the page moved while the demo loaded: {sorted(set(tops))}"
    boxes = _boxes(page)
    _in_view(boxes, size)
    # The turning orthographic globe (frames that turn it), large: most of the chart's height.
    assert boxes["frames"] >= 12 and "turning globe" in boxes["title"], boxes["title"]
    assert boxes["plot"]["width"] >= 0.6 * boxes["chart"]["height"] and boxes["plot"]["width"] >= 380, boxes
    _shot(page, f"demo-02-landmasses-{size[0]}x{size[1]}")
    page.close()


def test_the_temperature_globe_names_its_month_and_colours_its_cities_as_it_plays(server, browser):
    size = SIZES[0]
    page = _page(browser, size)
    page.goto(server + "/")
    _idle(page)
    _click_demo(page, "Temperatures")
    january = _boxes(page)
    assert january["colours"], "the cities carry their temperatures as marker colours"
    chart = page.locator(".st-key-home_picture [data-testid='stPlotlyChart']").first
    chart.get_by_text("Play").click()
    page.wait_for_timeout(3000)
    chart.get_by_text("Pause").click()
    page.wait_for_timeout(1000)
    later = _boxes(page)
    month = later["current"]
    assert month != "Jan" and later["title"].endswith(f"in {month}"), (later["title"], later["current"])
    assert later["colours"] != january["colours"]  # the cities' colours follow the month
    _shot(page, "demo-03-temperatures-playing-1024x768")
    page.close()


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_world_map_fills_its_column(server, browser, size):
    from ui.data import DEMOS

    demo = DEMOS["landmass"]  # the Landmasses demo's own recipes, on the world map
    query = {
        "data": json.dumps(demo.data),
        "model": json.dumps(demo.model),
        "view": "map:0:0-1-2:poincare",
    }
    page = _page(browser, size)
    page.goto(f"{server}/?{urllib.parse.urlencode(query)}")
    _idle(page)
    page.locator(".st-key-home_picture [data-testid='stPlotlyChart'] .heatmaplayer image").first.wait_for()
    page.wait_for_timeout(1000)
    boxes = _boxes(page)
    chart, image = boxes["chart"], boxes["image"]
    # The map (2:1) takes most of the column's width, and the chart is little taller than the map
    # with its axes, title and legend (112 px).
    assert image["width"] >= 0.75 * chart["width"], (image, chart)
    assert chart["height"] - image["height"] <= 112 + 60, (image, chart)
    page.locator(".st-key-home_picture").scroll_into_view_if_needed()
    _shot(page, f"demo-04-world-map-{size[0]}x{size[1]}")
    page.close()
