"""The app on a projector: at 1024x768 and 800 px wide nothing is cut, and a lesson opens from its link."""

from __future__ import annotations

import pytest

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
