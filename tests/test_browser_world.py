"""World pictures in a real browser: the Landmasses and Temperatures demos open showing coastlines.

Debian's headless Chromium driven by Python Playwright, as in ``tests/test_browser.py``.
Each demo is opened cold from a link carrying its recipes (the demos of issue 19:
20,000 landmass points and a forest; the city temperatures with a forest), and from
the home page's demo buttons. The checks read the figure Plotly drew in the page
(its traces, slider and frames) and the pixels of the plot area. Screenshots at
1024 x 768 and 1400 x 900 go to ``test-artifacts/world-*.png``; the seconds from
opening a link to the globe being drawn are printed.

Skipped when Chromium or Playwright is missing, except under ``CI=true``.
"""

from __future__ import annotations

import io
import json
import time
import urllib.parse
import urllib.request

import numpy as np
import pytest
from conftest import ARTIFACTS  # the browser and server fixtures live there too

# Software WebGL draws a 150 x 150 globe in several seconds: the module takes a minute or two.
pytestmark = [pytest.mark.browser, pytest.mark.slow]

TIMEOUT_MS = 150_000
SIZES = ((1024, 768), (1400, 900))

LANDMASS_DATA = {
    "source": "builtin",
    "name": "landmasses",
    "params": {"n_samples": 20000, "random_state": 0},
    "title": "Landmasses",
}
LANDMASS_MODEL = {
    "family": "product_forest",
    "params": {"n_estimators": 32, "pairs": "all", "max_depth": 0, "min_samples_leaf": 1},
    "test_size": 0.25,
    "seed": 0,
}
TEMPERATURE_DATA = {"source": "builtin", "name": "city_temperatures", "params": {}, "title": "City temperatures"}
TEMPERATURE_MODEL = {
    "family": "product_forest",
    "params": {"n_estimators": 50, "pairs": "all", "min_samples_leaf": 2},
    "test_size": 0.25,
    "seed": 0,
}
GLOBE = "sphere:0:0-1-2:poincare"

# What Plotly holds for the first chart of the page: trace names, slider steps, frames and the
# regions' colour data (to see a frame change it).
_FIGURE_JS = """el => {
  const gd = el.querySelector('.js-plotly-plot');
  const full = gd._fullData[0];  // decoded arrays (gd.data may still hold the base64 payload)
  let sum = 0, count = 0;
  for (const row of (full.intensity || full.surfacecolor || full.z || [])) {
    if (typeof row === 'number') { sum += row; count += 1; } else { for (const v of row) { sum += v; count += 1; } }
  }
  return {names: gd.data.map(t => t.name), steps: (gd.layout.sliders || []).map(s => s.steps.length),
          active: (gd.layout.sliders || []).map(s => s.active),
          frames: ((gd._transitionData || {})._frames || []).map(f => f.name),
          colour: [count, sum]};
}"""


def _link(url: str, data: dict, model: dict, view: str) -> str:
    query = {
        "data": json.dumps(data, separators=(",", ":"), sort_keys=True),
        "model": json.dumps(model, separators=(",", ":"), sort_keys=True),
        "view": view,
    }
    return f"{url}/?{urllib.parse.urlencode(query)}"


def _page(browser, size):
    page = browser.new_page(viewport={"width": size[0], "height": size[1]})
    page.set_default_timeout(TIMEOUT_MS)
    return page


def _idle(page):
    page.wait_for_selector("[data-testid='stApp'][data-test-connection-state='CONNECTED']")
    page.wait_for_selector("[data-testid='stApp'][data-test-script-state='notRunning']")


def _chart(page):
    return page.locator('[data-testid="stPlotlyChart"]').first


def _wait_drawn(page, three_d: bool):
    """The chart is on screen: a WebGL canvas for the globe, the heatmap image for flat pictures."""
    _idle(page)
    if three_d:
        _chart(page).locator(".gl-container canvas").first.wait_for(state="visible")
        page.wait_for_timeout(3000)  # software WebGL draws a 150 x 150 globe a few seconds after the canvas appears
    else:
        _chart(page).locator(".heatmaplayer image").first.wait_for(state="visible")
        page.wait_for_timeout(500)


def _figure(page) -> dict:
    return _chart(page).evaluate(_FIGURE_JS)


def _painted_colours(page) -> tuple[float, np.ndarray]:
    """Share of non-white pixels in the chart, and the mean colour of those pixels."""
    from PIL import Image

    rgb = np.asarray(Image.open(io.BytesIO(_chart(page).screenshot())).convert("RGB")).astype(np.int16)
    painted = np.any(np.abs(rgb - 255) > 24, axis=2)
    return float(painted.mean()), rgb[painted].mean(axis=0)


def _shot(page, name: str):
    """The viewport with the chart in it (a first look is what the speaker sees after scrolling to it)."""
    ARTIFACTS.mkdir(exist_ok=True)
    _chart(page).scroll_into_view_if_needed()
    page.wait_for_timeout(800)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"))


def _report(capsys, line: str):
    with capsys.disabled():
        print(f"\n[browser-world] {line}", flush=True)


def test_landmass_demo_opens_on_a_globe_with_coastlines(server, browser, capsys):
    for n, size in enumerate(SIZES):
        page = _page(browser, size)
        started = time.monotonic()
        page.goto(_link(server, LANDMASS_DATA, LANDMASS_MODEL, GLOBE))
        _wait_drawn(page, three_d=True)
        _report(
            capsys,
            f"Landmasses link at {size[0]}x{size[1]} -> globe drawn: {time.monotonic() - started:.1f} s"
            + (" (includes building the data and fitting the forest)" if n == 0 else " (cached)"),
        )
        figure = _figure(page)
        assert "coastlines" in figure["names"] and "graticule" in figure["names"]
        assert "training points" not in figure["names"]  # 20,000 points would hide the map: off at first
        assert "split boundary" not in figure["names"]  # one tree's splits say little about a forest
        share, mean = _painted_colours(page)
        # The camera leaves room around the globe so that it fits narrow columns (about 0.6 of the
        # chart's height): a drawn globe paints about a seventh of the chart or more, a blank one none.
        assert share > 0.08, f"only {share:.0%} of the chart is drawn"
        assert mean[2] > mean[0] and mean[1] > mean[0], mean  # water blue and land green, not orange
        _shot(page, f"world-01-landmasses-globe-{size[0]}x{size[1]}")
        page.close()


def test_temperature_demo_shows_coastlines_and_plays_the_months(server, browser, capsys):
    page = None
    for size in SIZES:
        page = _page(browser, size)
        started = time.monotonic()
        page.goto(_link(server, TEMPERATURE_DATA, TEMPERATURE_MODEL, GLOBE))
        _wait_drawn(page, three_d=True)
        _report(capsys, f"Temperatures link at {size[0]}x{size[1]} -> globe drawn: {time.monotonic() - started:.1f} s")
        figure = _figure(page)
        assert "coastlines" in figure["names"]
        assert figure["steps"] == [12] and figure["active"] == [0]
        assert figure["frames"][:2] == ["Jan", "Feb"] and len(figure["frames"]) == 12
        assert "Jan" in _chart(page).inner_text()
        _shot(page, f"world-02-temperatures-globe-{size[0]}x{size[1]}")
    # Play runs through the months in the browser: the slider moves and the globe's colours change.
    january = _figure(page)["colour"]
    _chart(page).get_by_text("Play").click()
    page.wait_for_timeout(3500)
    _chart(page).get_by_text("Pause").click()
    page.wait_for_timeout(1500)
    later = _figure(page)
    assert later["active"][0] > 0, later["active"]
    assert later["colour"][0] == january[0] > 1000 and later["colour"][1] != january[1]
    _shot(page, "world-03-temperatures-playing-1400x900")
    page.close()


@pytest.mark.parametrize(("view", "name"), [("map:0:0-1-2:poincare", "map"), ("ortho:0:0-1-2:poincare", "ortho")])
def test_landmass_world_map_and_turning_globe(server, browser, view, name):
    page = _page(browser, SIZES[1])
    page.goto(_link(server, LANDMASS_DATA, LANDMASS_MODEL, view))
    _wait_drawn(page, three_d=False)
    figure = _figure(page)
    assert "coastlines" in figure["names"] and "graticule" in figure["names"]
    if name == "ortho":
        assert len(figure["frames"]) >= 12 and figure["steps"] == [len(figure["frames"])]
    share, mean = _painted_colours(page)
    assert share > 0.2 and mean[2] > mean[0], (share, mean)
    _shot(page, f"world-04-landmasses-{name}-1400x900")
    page.close()


@pytest.mark.parametrize(("button", "months"), [("Landmasses", False), ("Temperatures", True)])
def test_home_page_demo_buttons_open_world_pictures_with_coastlines(server, browser, button, months):
    page = _page(browser, SIZES[0])
    page.goto(server + "/")
    _idle(page)
    page.get_by_role("button", name=button, exact=True).click()
    page.wait_for_timeout(500)
    # Landmasses opens on the turning orthographic globe (flat, its frames turn it), Temperatures on the
    # 3-D globe playing through the months.
    _wait_drawn(page, three_d=months)
    figure = _figure(page)
    assert "coastlines" in figure["names"]
    assert (figure["frames"][:1] == ["Jan"]) == months and len(figure["frames"]) >= 12
    _shot(page, f"world-05-home-{button.lower()}-1024x768")
    page.close()


def test_regions_page_opens_the_world_map_without_points_or_boundaries(server, browser):
    page = _page(browser, SIZES[1])
    page.goto(_link(server, LANDMASS_DATA, LANDMASS_MODEL, "map:0:0-1-2:poincare"))
    _wait_drawn(page, three_d=False)
    page.locator('[data-testid="stSidebar"]').get_by_role("link", name="Regions").click()
    page.get_by_role("heading", name="Decision regions").wait_for(state="visible")
    _wait_drawn(page, three_d=False)
    assert not page.get_by_role("switch", name="Show data points").is_checked()
    assert not page.get_by_role("switch", name="Show split boundaries").is_checked()
    figure = _figure(page)
    assert "coastlines" in figure["names"] and "training points" not in figure["names"]
    assert "world map" in _chart(page).inner_text()
    _shot(page, "world-06-regions-map-1400x900")
    page.close()
