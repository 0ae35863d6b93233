"""Every guided lesson loads from its URL and walks through its steps without an error."""

from __future__ import annotations

import math

import pytest
from conftest import assert_clean, charts, start
from streamlit.testing.v1 import AppTest

from ui.lessons import LESSONS, get_lesson
from ui.pictures import LECTURE_COLUMN_ZOOM, resolve_view


def _lesson_page(query: dict) -> AppTest:
    return start("pages/5_Lessons.py", query, timeout=180)


def test_there_are_at_least_five_lessons_with_valid_pictures():
    assert len(LESSONS) >= 5 and len({lesson.key for lesson in LESSONS}) == len(LESSONS)
    from ui.data import build_dataset

    for lesson in LESSONS:
        signature = build_dataset(lesson.data).signature
        for step in lesson.steps:
            for view, model in [(step.view, step.model), *([step.compare] if step.compare else [])]:
                assert resolve_view(signature, view).key == view, (lesson.key, view)
                assert model in lesson.models


def test_the_index_lists_every_lesson():
    at = _lesson_page({})
    shown = "\n".join(str(m.value) for m in at.markdown)
    assert all(lesson.title in shown for lesson in LESSONS)


@pytest.mark.slow
@pytest.mark.parametrize("key", [lesson.key for lesson in LESSONS])
def test_each_lesson_loads_from_its_url_and_steps_through(key):
    lesson = get_lesson(key)
    at = _lesson_page({"lesson": key, "step": "1"})
    for k, step in enumerate(lesson.steps):
        assert step.title in str(at.get("progress")[0].proto.text)
        specs = charts(at)
        assert len(specs) == (2 if step.compare else 1)
        if step.splits:  # the newest split is drawn on the picture
            assert any(t.get("name") == "newest split" for t in specs[0]["data"]), (key, k)
        if k < len(lesson.steps) - 1:
            at.button(key="lesson_next").click().run()
            assert_clean(at)
            assert at.query_params["step"] == [str(k + 2)] or at.query_params["step"] == str(k + 2)


def test_a_step_out_of_range_or_an_unknown_lesson_is_harmless():
    at = _lesson_page({"lesson": "poincare-geodesics", "step": "99"})
    assert "Step 4 of 4" in str(at.get("progress")[0].proto.text)
    at = _lesson_page({"lesson": "no-such-lesson"})
    assert any("Lessons" == str(t.value) for t in at.title)


def test_lecture_mode_is_part_of_the_link_and_survives_the_steps():
    at = _lesson_page({"lesson": "sphere-great-circles", "step": "1"})
    at.button(key="lesson_lecture").click().run()
    assert at.query_params["lecture"] in ("1", ["1"])
    assert any("1.35rem" in str(m.value) and "lecture_slide" in str(m.value) for m in at.markdown)
    at.button(key="lesson_next").click().run()
    assert at.query_params["lecture"] in ("1", ["1"]) and at.query_params["step"] in ("2", ["2"])


def _camera_distance(spec: dict) -> float:
    eye = spec["layout"]["scene"]["camera"]["eye"]
    return math.hypot(eye["x"], eye["y"], eye["z"])


def test_lecture_mode_draws_a_single_picture_big_and_keeps_two_pictures_framed_for_their_column():
    from curvedtrees.viz import figures

    height, zoom, _lift = figures.WIDE_FRAMING["sphere"]
    (plain,) = charts(_lesson_page({"lesson": "sphere-great-circles", "step": "3"}))
    (big,) = charts(_lesson_page({"lesson": "sphere-great-circles", "step": "3", "lecture": "1"}))
    assert plain["layout"]["height"] < big["layout"]["height"] == height
    assert _camera_distance(plain) == pytest.approx(figures.SPHERE_EYE_DISTANCE)
    assert _camera_distance(big) == pytest.approx(figures.SPHERE_EYE_DISTANCE / zoom)
    # A step with two pictures side by side: each has half the slide, framed for a column of its width.
    disk, sphere = charts(_lesson_page({"lesson": "product-components", "step": "2", "lecture": "1"}))
    assert disk["layout"]["height"] < figures.WIDE_FRAMING["disk"][0]
    assert sphere["layout"]["height"] < height
    assert _camera_distance(sphere) == pytest.approx(figures.SPHERE_EYE_DISTANCE / LECTURE_COLUMN_ZOOM)
    _, plain_sphere = charts(_lesson_page({"lesson": "product-components", "step": "2"}))
    assert _camera_distance(plain_sphere) == pytest.approx(figures.SPHERE_EYE_DISTANCE)


def test_a_lecture_step_is_a_slide_with_previous_and_next_beside_its_title_and_keys_to_step_it():
    at = _lesson_page({"lesson": "poincare-geodesics", "step": "2", "lecture": "1"})
    css = "\n".join(str(m.value) for m in at.markdown if "<style>" in str(m.value))
    assert ".st-key-lecture_slide" in css and "100vh" in css and ".st-key-lecture_stage" in css
    # Previous and Next come before the step's words and picture, so they are on screen with the title.
    keys = [b.key for b in at.button]
    assert keys.index("lesson_back") < keys.index("lesson_all") and keys.index("lesson_next") < keys.index("lesson_all")
    assert at.button(key="lesson_back").disabled is False and at.button(key="lesson_next").disabled is False
    # The keys' script names the buttons it presses and the step (a new step runs it again).
    (keys_script,) = [f.proto.srcdoc for f in at.get("iframe") if "keydown" in f.proto.srcdoc]
    assert ".st-key-lesson_next button" in keys_script and ".st-key-lesson_back button" in keys_script
    assert "PageDown" in keys_script and "ArrowRight" in keys_script and "poincare-geodesics-2" in keys_script
    at.button(key="lesson_next").click().run()
    assert any("poincare-geodesics-3" in f.proto.srcdoc for f in at.get("iframe"))
    assert at.query_params["step"] in ("3", ["3"]) and at.query_params["lecture"] in ("1", ["1"])
