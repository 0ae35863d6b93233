"""Every guided lesson loads from its URL and walks through its steps without an error."""

from __future__ import annotations

import base64
import math

import numpy as np
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
        if step.splits:  # the newest split is drawn on the picture of its component
            assert any(t.get("name") == "newest split" for spec in specs for t in spec["data"]), (key, k)
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


# ------------------------------------------------------------------ lessons that show their point
def _decoded(value) -> np.ndarray:
    """A trace's coordinates as floats (Plotly writes numpy arrays as base64 ``bdata``)."""
    if isinstance(value, dict) and "bdata" in value:
        return np.frombuffer(base64.b64decode(value["bdata"]), dtype=np.dtype(value["dtype"])).astype(np.float64)
    return np.asarray([np.nan if v is None else v for v in value], dtype=np.float64)


def _klein_ratio(spec: dict, name: str, j: int) -> np.ndarray:
    """``x_j / x_0`` along a line trace named ``name`` of a Poincaré disk of axes ``(x1, x2)``."""
    trace = next(t for t in spec["data"] if t.get("name") == name and t.get("showlegend"))
    x, y = _decoded(trace["x"]), _decoded(trace["y"])
    keep = np.isfinite(x) & np.isfinite(y)
    # Poincaré p to Klein k = 2p / (1 + |p|^2), on the unit disk (H2 of curvature -1).
    return 2 * (x, y)[j - 1][keep] / (1 + x[keep] ** 2 + y[keep] ** 2)


def test_the_maximum_margin_lesson_draws_both_boundaries_of_one_split_on_one_picture():
    from ui import cache

    lesson = get_lesson("maximum-margin")
    data = cache.dataset(lesson.data)
    stump = cache.model(data, lesson.models["tree"]).estimator
    midpoint = cache.model(data, lesson.models["midpoint"]).estimator
    # Both models are one split on the same Klein coordinate; only where its boundary goes differs.
    assert stump.tree_.node_count == 3 and midpoint.estimator_.tree_.node_count == 3
    j = int(stump.tree_.coords[0][1])
    assert int(stump.tree_.coords[0][0]) == 0 and int(midpoint.estimator_.tree_.feature[0]) == j - 1
    assert np.array_equal(stump.predict(data.X), midpoint.predict(data.X))
    margin_t, midpoint_t = float(stump.tree_.threshold[0]), float(midpoint.estimator_.tree_.threshold[0])
    assert abs(margin_t - midpoint_t) > 0.2  # far from the centre the two rules disagree visibly

    at = _lesson_page({"lesson": "maximum-margin", "step": "1"})
    assert_clean(at)
    (spec,) = charts(at)
    names = {t.get("name") for t in spec["data"]}
    assert {"maximum margin (product tree)", "Klein midpoint (scikit-learn)", "nearest rows (margin)"} <= names
    # Each drawn line is where its model puts the threshold (the solid one is the product tree's).
    np.testing.assert_allclose(_klein_ratio(spec, "maximum margin (product tree)", j), margin_t, atol=2e-3)
    np.testing.assert_allclose(_klein_ratio(spec, "Klein midpoint (scikit-learn)", j), midpoint_t, atol=2e-3)
    band = [t for t in spec["data"] if t.get("type") == "heatmap"]
    assert len(band) >= 2  # the regions and the margin band over them
    (caption,) = [c.value for c in at.caption if "Solid" in c.value]  # the picture's, not the sidebar's
    assert "maximum margin (product tree)" in caption and "dashed: Klein midpoint" in caption
    at.button(key="lesson_next").click().run()
    assert_clean(at)
    (step_two,) = [c.value for c in at.caption if "Solid" in c.value]
    assert "Klein disk" in step_two and step_two != caption
    # Step 3: the Klein wrapper with maximum margin moves scikit-learn's threshold onto the product tree's.
    wrapped = cache.model(data, lesson.models["wrapped"]).estimator
    assert float(wrapped.estimator_.tree_.threshold[0]) == pytest.approx(margin_t, abs=1e-9)
    at.button(key="lesson_next").click().run()
    assert_clean(at)
    (spec,) = charts(at)
    np.testing.assert_allclose(_klein_ratio(spec, "Klein wrapper, maximum margin", j), margin_t, atol=2e-3)


def test_the_poincare_lessons_first_split_visibly_curves():
    """The first arc bulges from the straight chord between its rim points by over 5% of the disk's radius."""
    (spec,) = charts(_lesson_page({"lesson": "poincare-geodesics", "step": "2"}))
    trace = next(t for t in spec["data"] if t.get("name") == "newest split" and t.get("showlegend"))
    x, y = _decoded(trace["x"]), _decoded(trace["y"])
    keep = np.isfinite(x) & np.isfinite(y)
    points = np.column_stack([x[keep], y[keep]])
    ends = points[[0, -1]]
    chord = (ends[1] - ends[0]) / np.linalg.norm(ends[1] - ends[0])
    relative = points - ends[0]
    offsets = np.abs(chord[0] * relative[:, 1] - chord[1] * relative[:, 0])  # distance from the chord
    assert offsets.max() > 0.05


def test_lesson_captions_count_their_splits_in_words():
    from ui.text import first_splits

    assert [first_splits(k) for k in (0, 1, 3)] == ["the points alone", "the first split", "the first 3 splits"]
    at = _lesson_page({"lesson": "poincare-geodesics", "step": "2"})
    assert any(c.value.endswith("the first split") for c in at.caption)
    at.button(key="lesson_next").click().run()
    assert any(c.value.endswith("the first 3 splits") for c in at.caption)
    assert not any("(s)" in c.value for c in at.caption)
