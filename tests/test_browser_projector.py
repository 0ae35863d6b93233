"""The app on a projector: at 1024x768 and 800 px wide nothing is cut, and a lesson opens from its link."""

from __future__ import annotations

import io
import json

import numpy as np
import pytest
from conftest import ARTIFACTS

from tests.test_browser import _idle, _page  # the browser and server fixtures are in conftest.py

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.mark.parametrize("size", [(1024, 768), (800, 700)])
def test_demo_buttons_keep_their_whole_labels(browser, server, size):
    url = server
    page = _page(browser, *size)
    try:
        page.goto(url)
        _idle(page)
        buttons = page.locator("[data-testid='stButton'] button", has_text="Sphere")
        buttons.first.wait_for()
        # A label is cut when its text is wider than the box that clips it (CSS ellipsis hides the
        # overflow, and the clipping box's scrollWidth does not see an inline paragraph's text).
        cut = page.evaluate(
            """() => Array.from(document.querySelectorAll("[data-testid='stMain'] [data-testid='stButton'] button"))
                .map(b => {
                    const box = b.querySelector("[data-testid='stMarkdownContainer']") || b;
                    const range = document.createRange();
                    range.selectNodeContents(box);
                    return [b.innerText, range.getBoundingClientRect().width, box.getBoundingClientRect().width];
                })
                .filter(([text, textWidth, boxWidth]) => textWidth > boxWidth + 1)
                .map(([text]) => text)"""
        )
        labels = page.locator("[data-testid='stMain'] [data-testid='stButton'] button").all_inner_texts()
        assert {"Poincaré disk", "Sphere", "Torus", "H2 x S2 x E2", "Landmasses", "Temperatures"} <= set(labels)
        assert cut == [], f"labels cut at {size}: {cut}"
    finally:
        page.close()


def test_a_lesson_opens_from_its_link_in_lecture_mode(browser, server):
    url = server
    page = _page(browser, 1024, 768)
    try:
        page.goto(f"{url}/Lessons?lesson=klein-disk&step=2&lecture=1")
        _idle(page)
        page.get_by_text("Why trees like the Klein disk").first.wait_for()
        page.wait_for_selector("[data-testid='stPlotlyChart'] .js-plotly-plot")
        assert page.get_by_text("Step 2 of 3").count() >= 1
        # Lecture mode folds the sidebar away (it is 300 px wide when open at this size).
        sidebar = page.locator("[data-testid='stSidebar']")
        width = sidebar.evaluate("element => element.getBoundingClientRect().width")
        assert width < 10
    finally:
        page.close()


def _drawn_box(page, chart) -> tuple[tuple[int, int, int, int], dict]:
    """(left, top, right, bottom) painted pixels of the WebGL drawing alone in ``chart``, and the scene's box.

    The scene's box is Plotly's plot area (``_fullLayout._size``: the chart less its margins, title and
    legend); WebGL draws nothing outside it, so a shape that reaches its edge is cut there.
    """
    from PIL import Image

    chart.locator(".gl-container canvas").first.wait_for(state="visible")
    page.wait_for_timeout(3000)  # software WebGL draws a few seconds after the canvas appears
    chart.scroll_into_view_if_needed()
    # Only what WebGL drew: hide the SVG layers (legend, title) and the app's header, which floats over a
    # chart scrolled to the top of a short window.
    page.add_style_tag(content="[data-testid='stHeader'], [data-testid='stSidebarCollapsedControl'] {display: none}")
    chart.evaluate("el => el.querySelectorAll('.main-svg').forEach(s => s.style.visibility = 'hidden')")
    page.wait_for_timeout(300)
    rgb = np.asarray(Image.open(io.BytesIO(chart.screenshot())).convert("RGB")).astype(np.int16)
    painted = np.any(np.abs(rgb - 255) > 24, axis=2)
    columns, rows = np.flatnonzero(painted.any(axis=0)), np.flatnonzero(painted.any(axis=1))
    assert len(columns), "nothing drawn"
    scene = chart.locator(".js-plotly-plot").evaluate("el => el._fullLayout._size")
    return (int(columns[0]), int(rows[0]), int(columns[-1]), int(rows[-1])), scene


# Lecture mode promises one big picture: at 1024 px the sphere took 262 px and the torus 248 px before
# the wide framing; 480 and 610 px with it, below the fold. A step is now one slide that fits the window
# (tests/test_browser_lecture.py), the picture beside the words: about 400 and 440 px at 1024 x 768.
@pytest.mark.parametrize("size", [(800, 600), (1024, 768)])
@pytest.mark.parametrize(
    "link, smallest",
    [
        ("lesson=sphere-great-circles&step=3", {800: 220, 1024: 350}),
        ("lesson=torus-wrap&step=2", {800: 220, 1024: 380}),
    ],
)
def test_a_lecture_picture_is_big_and_whole(browser, server, size, link, smallest):
    smallest = smallest[size[0]]
    page = _page(browser, *size)
    try:
        page.goto(f"{server}/Lessons?{link}&lecture=1")
        _idle(page)
        chart = page.locator("[data-testid='stPlotlyChart']").first
        chart.locator(".js-plotly-plot").wait_for()
        (left, top, right, bottom), scene = _drawn_box(page, chart)
        page.screenshot(path=str(ARTIFACTS / f"lecture-{link.split('&')[0][7:]}-{size[0]}.png"), full_page=True)
        inside = (
            left >= scene["l"] + 3,
            top >= scene["t"] + 3,
            right <= scene["l"] + scene["w"] - 4,
            bottom <= scene["t"] + scene["h"] - 4,
        )
        where = f"{link} at {size}: drawn {left}-{right} x {top}-{bottom} in a scene {scene}"
        assert all(inside), f"clipped: {where}"
        assert right - left >= smallest, f"small: {where}"
    finally:
        page.close()


def _demo_link(signature: str, n_classes: int, seed: int, view: str) -> str:
    """The link of a home-page demo (its data, a depth-6 tree and its picture), in lecture mode."""
    from urllib.parse import urlencode

    data = {
        "cov_scale": 0.3,
        "n_classes": n_classes,
        "n_clusters": 2 * n_classes,
        "n_samples": 600,
        "seed": seed,
        "signature": signature,
        "source": "synthetic",
        "task": "classification",
        "title": signature,
    }
    model = {"family": "product_tree", "params": {"max_depth": 6, "pairs": "base"}, "seed": 0, "test_size": 0.25}
    return urlencode({"data": json.dumps(data), "model": json.dumps(model), "view": view, "res": 40, "lecture": 1})


# The Inspector's picture shares the page with the diagram: in lecture mode its camera comes closer
# (ui.pictures.LECTURE_COLUMN_ZOOM) and must still fit its 3/5 column from 800 px.
@pytest.mark.parametrize("size", [(800, 600), (1024, 768)])
@pytest.mark.parametrize(
    "demo, link",
    [
        ("sphere", _demo_link("S2", 5, 1, "sphere:0:0-1-2:poincare")),
        ("torus", _demo_link("S1 x S1", 4, 2, "torus:0-1::poincare")),
    ],
)
def test_the_inspector_picture_in_lecture_mode_is_whole(browser, server, size, demo, link):
    page = _page(browser, *size)
    try:
        page.goto(f"{server}/Inspector?{link}")
        _idle(page)
        chart = page.locator(".st-key-insp_regions [data-testid='stPlotlyChart']")
        chart.locator(".js-plotly-plot").wait_for()
        (left, top, right, bottom), scene = _drawn_box(page, chart)
        page.screenshot(path=str(ARTIFACTS / f"lecture-inspector-{demo}-{size[0]}.png"), full_page=True)
        where = f"{demo} at {size}: drawn {left}-{right} x {top}-{bottom} in a scene {scene}"
        assert left >= scene["l"] + 3 and right <= scene["l"] + scene["w"] - 4, f"clipped: {where}"
        assert top >= scene["t"] + 3 and bottom <= scene["t"] + scene["h"] - 4, f"clipped: {where}"
        # The Inspector's slide is one window tall (ui.chrome.LECTURE_CSS): at 800 x 600 the 3-D picture
        # has the height that the title, the splits slider and the replay's controls leave it.
        assert right - left >= (170 if size[0] == 800 else 300), f"small: {where}"
    finally:
        page.close()
