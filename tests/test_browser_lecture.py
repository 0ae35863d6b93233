"""Lecture mode on a projector: every lesson step is one slide, whole, at four window sizes.

Issue 25, item 1. At 800x600, 1024x768, 1280x720 and 1400x900 each step of each lesson shows,
without scrolling, the lesson's title and the step's, the step's text, its picture(s) and the
Previous / Next buttons (their ``getBoundingClientRect`` inside ``window.innerWidth`` x
``innerHeight``); the picture fills the height the slide leaves. Steps advance by the keys a
projector clicker sends (PageDown, ArrowRight; PageUp, ArrowLeft go back), from a page scrolled
to its bottom, and each new step starts at the top. The Inspector in lecture mode shows its
diagram and its picture with the replay's controls above the fold at 1024x768.

One page per size; a lesson opens from its link and its later steps follow by key presses, so a
step is a rerun of the same session, not a new one. Screenshots of every step go to
``test-artifacts/lecture-slide-*.png``; the measured positions to ``lecture-slides.json``.
"""

from __future__ import annotations

import json

import pytest
from conftest import ARTIFACTS, recorded_json

from tests.test_browser import _idle, _page  # the browser and server fixtures are in conftest.py
from ui.lessons import LESSONS

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SIZES = [(800, 600), (1024, 768), (1280, 720), (1400, 900)]
# The picture of a step takes at least this share of the window's height (a slide's picture is as
# tall as the title, the step's words and the Previous / Next row leave: about 0.36 to 0.73 of it).
MIN_PICTURE_SHARE = 0.3

# Boxes (top, bottom, left, right) of what a slide must show, and the page's scroll offset.
_MEASURE = """() => {
  const box = el => { const b = el.getBoundingClientRect(); return [b.top, b.bottom, b.left, b.right]; };
  const all = selector => Array.from(document.querySelectorAll(selector)).map(box);
  const main = document.querySelector("[data-testid='stMain']");
  return {
    "lesson title": all(".st-key-lecture_slide h1"),
    "step title": all(".st-key-lecture_slide [data-testid='stProgress']"),
    "text": all(".st-key-lesson_text [data-testid='stMarkdownContainer']"),
    "picture": all(".st-key-lecture_slide [data-testid='stPlotlyChart'] .js-plotly-plot .main-svg:first-child"),
    "Previous": all(".st-key-lesson_back button"),
    "Next": all(".st-key-lesson_next button"),
    window: [window.innerWidth, window.innerHeight],
    scroll: Math.max(main ? main.scrollTop : 0, document.scrollingElement.scrollTop),
    progress: (document.querySelector("[data-testid='stProgress']") || {}).innerText || "",
  };
}"""


def _settled(page, n_pictures: int) -> dict:
    """The slide's boxes once the pictures are drawn and two measurements 300 ms apart agree."""
    page.wait_for_function(
        'n => document.querySelectorAll(".st-key-lecture_slide .js-plotly-plot .main-svg").length >= n',
        arg=n_pictures,
    )
    last = None
    for _ in range(40):
        page.wait_for_timeout(300)
        now = page.evaluate(_MEASURE)
        if now == last and len(now["picture"]) == n_pictures:
            return now
        last = now
    return last


def _cut(boxes: dict, n_pictures: int) -> list[str]:
    """What of a slide is missing or not wholly inside the window."""
    width, height = boxes["window"]
    problems = []
    for name in ("lesson title", "step title", "text", "picture", "Previous", "Next"):
        found = boxes[name]
        wanted = n_pictures if name == "picture" else 1
        if len(found) != wanted:
            problems.append(f"{name}: {len(found)} on the page, not {wanted}")
        for top, bottom, left, right in found:
            if top < 0 or bottom > height + 0.5 or left < 0 or right > width + 0.5:
                problems.append(f"{name} cut: top {top:.0f}, bottom {bottom:.0f}, left {left:.0f}, right {right:.0f}")
            if name == "picture" and bottom - top < MIN_PICTURE_SHARE * height:
                problems.append(f"picture small: {bottom - top:.0f} px of {height}")
    if boxes["scroll"] > 0:
        problems.append(f"the page is scrolled down {boxes['scroll']} px")
    return problems


def _step_by_key(page, key: str, expected: str) -> None:
    """Scroll the page to its bottom, press ``key``, and wait for the step named ``expected``."""
    page.evaluate(
        """() => { for (const el of [document.scrollingElement, document.querySelector("[data-testid='stMain']")])
                     if (el) el.scrollTop = el.scrollHeight; }"""
    )
    page.keyboard.press(key)
    page.locator("[data-testid='stProgress']", has_text=expected).wait_for()
    _idle(page)


@pytest.fixture(scope="module")
def measured():
    yield from recorded_json("lecture-slides.json")


@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_every_lesson_step_is_one_whole_slide(browser, server, size, measured):
    width, height = size
    page = _page(browser, width, height)
    problems = []
    try:
        for lesson in LESSONS:
            n_steps = len(lesson.steps)
            for index, step in enumerate(lesson.steps):
                expected = f"Step {index + 1} of {n_steps}"
                if index == 0:
                    page.goto(f"{server}/Lessons?lesson={lesson.key}&step=1&lecture=1")
                    _idle(page)
                    page.locator("[data-testid='stProgress']", has_text=expected).wait_for()
                else:
                    # A clicker's keys: PageDown, then the arrow key, by turns.
                    _step_by_key(page, "PageDown" if index % 2 else "ArrowRight", expected)
                n_pictures = 2 if step.compare else 1
                boxes = _settled(page, n_pictures)
                assert expected in boxes["progress"], f"{lesson.key} step {index + 1}: {boxes['progress']!r}"
                name = f"{lesson.key} step {index + 1} at {width}x{height}"
                measured[name] = boxes
                page.screenshot(path=str(ARTIFACTS / f"lecture-slide-{lesson.key}-{index + 1}-{width}x{height}.png"))
                problems += [f"{name}: {problem}" for problem in _cut(boxes, n_pictures)]
            # And back (the first lesson): PageUp and ArrowLeft go to the previous steps.
            for back, key in ((n_steps - 1, "PageUp"), (n_steps - 2, "ArrowLeft")):
                if lesson is LESSONS[0] and back >= 1:
                    _step_by_key(page, key, f"Step {back} of {n_steps}")
                    boxes = _settled(page, 2 if lesson.steps[back - 1].compare else 1)
                    if boxes["scroll"] > 0:
                        problems.append(f"{lesson.key} back to step {back} by {key}: scrolled {boxes['scroll']} px")
    finally:
        page.close()
    assert not problems, "\n".join(problems)


def test_the_keys_leave_a_typed_field_alone(browser, server):
    """An arrow key in a field moves its caret, not the lesson (here the page's own search of a select box)."""
    page = _page(browser, 1024, 768)
    try:
        page.goto(f"{server}/Lessons?lesson=poincare-geodesics&step=2&lecture=1")
        _idle(page)
        page.locator("[data-testid='stProgress']", has_text="Step 2 of 4").wait_for()
        # A text field of the page's own: the keys go to it while it has the focus.
        page.evaluate(
            """() => { const field = document.createElement('input'); field.id = 'typed'; field.value = 'abc';
                       document.querySelector("[data-testid='stMain']").prepend(field); field.focus(); }"""
        )
        page.keyboard.press("ArrowLeft")
        page.keyboard.press("PageDown")
        page.wait_for_timeout(1500)
        _idle(page)
        assert "Step 2 of 4" in page.locator("[data-testid='stProgress']").inner_text()
        # Out of the field, the same key steps the lesson.
        page.evaluate("() => document.getElementById('typed').blur()")
        page.keyboard.press("ArrowRight")
        page.locator("[data-testid='stProgress']", has_text="Step 3 of 4").wait_for()
    finally:
        page.close()


_INSPECTOR_BOXES = """() => {
  const box = el => { const b = el.getBoundingClientRect(); return [b.top, b.bottom, b.left, b.right]; };
  const one = selector => { const el = document.querySelector(selector); return el ? box(el) : null; };
  return {
    diagram: one(".st-key-insp_diagram .js-plotly-plot .main-svg:first-child"),
    picture: one(".st-key-insp_regions .js-plotly-plot .main-svg:first-child"),
    "Play button": one(".st-key-insp_regions .updatemenu-button"),
    "split slider": one(".st-key-insp_regions .slider-container"),
    buttons: (() => { const all = [...document.querySelectorAll(".st-key-insp_regions .updatemenu-button")];
                      if (!all.length) return null; const b = all.map(box);
                      return [Math.min(...b.map(v => v[0])), Math.max(...b.map(v => v[1])),
                              Math.min(...b.map(v => v[2])), Math.max(...b.map(v => v[3]))]; })(),
    "disk": (() => { const gd = document.querySelector(".st-key-insp_regions .js-plotly-plot");
                     return gd && gd._fullLayout ? [gd._fullLayout._size.h, gd._fullLayout._size.w] : null; })(),
    window: [window.innerWidth, window.innerHeight],
  };
}"""


# The smallest plot area of the Inspector's picture at each window size (its slide holds the title, the
# splits slider, the diagram beside it, the legend beside it and the replay's controls under it).
_INSPECTOR_PLOT_MIN = {(800, 600): 170, (1024, 768): 330, (1280, 720): 300, (1400, 900): 450}


@pytest.mark.parametrize(("width", "height"), list(_INSPECTOR_PLOT_MIN))
def test_the_inspector_in_lecture_mode_shows_its_diagram_and_picture_above_the_fold(browser, server, width, height):
    page = _page(browser, width, height)
    try:
        page.goto(f"{server}/Inspector?lecture=1")
        _idle(page)
        page.locator(".st-key-insp_regions .js-plotly-plot .updatemenu-button").first.wait_for()
        page.wait_for_timeout(1500)
        boxes = page.evaluate(_INSPECTOR_BOXES)
        page.screenshot(path=str(ARTIFACTS / f"lecture-inspector-{width}x{height}.png"))
        (ARTIFACTS / f"lecture-inspector-{width}x{height}.json").write_text(json.dumps(boxes, indent=1))
        assert boxes["window"] == [width, height]
        for name in ("diagram", "picture", "Play button", "split slider", "buttons"):
            assert boxes[name] is not None, f"{name} missing"
            top, bottom, left, right = boxes[name]
            assert top >= 0 and bottom <= height and left >= 0 and right <= width, f"{name} cut: {boxes[name]}"
        assert boxes["buttons"][3] <= boxes["picture"][3], f"the replay's buttons run past the chart: {boxes}"
        plot_height, plot_width = boxes["disk"]
        assert min(plot_height, plot_width) >= _INSPECTOR_PLOT_MIN[width, height], (
            f"the picture's plot area is only {plot_width} x {plot_height} px"
        )
    finally:
        page.close()
