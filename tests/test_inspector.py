"""The Inspector's node selection: the Node box and clicks on the diagram pick a node at once."""

from __future__ import annotations

import base64
import json

import numpy as np
import pytest
from conftest import assert_clean, charts, start
from streamlit.testing.v1 import AppTest


def _inspector() -> AppTest:
    return start("pages/4_Inspector.py")


def _diagram(at: AppTest) -> dict:
    return charts(at)[0]


def _array(value) -> np.ndarray:
    """A trace's array as Plotly writes it: a list, or typed binary data."""
    if isinstance(value, dict):
        return np.frombuffer(base64.b64decode(value["bdata"]), dtype=np.dtype(value["dtype"]))
    return np.asarray(value)


def _ringed(at: AppTest) -> list[int]:
    """Node ids under the 'selected node' halo of the diagram."""
    spec = _diagram(at)
    nodes = next(t for t in spec["data"] if t.get("name") == "nodes")
    halo = next(t for t in spec["data"] if t.get("name") == "selected node")
    x, y, ids = _array(nodes["x"]), _array(nodes["y"]), _array(nodes["customdata"])
    hx, hy = _array(halo["x"]), _array(halo["y"])
    return [int(c) for a, b, c in zip(x, y, ids) if np.any((np.abs(hx - a) < 1e-9) & (np.abs(hy - b) < 1e-9))]


def test_the_first_pick_in_the_node_box_after_a_page_load_counts():
    at = _inspector()
    box = next(s for s in at.selectbox if s.label == "Node")
    pick = box.options[2]
    box.set_value(pick).run()
    assert_clean(at)
    shown = [str(m.value) for m in at.markdown if str(m.value).startswith("**Node ")]
    assert shown and shown[0].startswith(f"**Node {pick}:")
    assert _ringed(at) == [int(pick)]


def test_a_click_on_the_diagram_selects_the_node_and_rings_it_in_the_same_run():
    at = _inspector()
    nodes = next(t for t in _diagram(at)["data"] if t.get("name") == "nodes")
    target = int(_array(nodes["customdata"])[3])
    at.session_state["insp_diagram"] = {"selection": {"points": [{"customdata": target}], "point_indices": [3]}}
    at.run()
    assert_clean(at)
    assert _ringed(at) == [target]
    shown = [str(m.value) for m in at.markdown if str(m.value).startswith("**Node ")]
    assert shown[0].startswith(f"**Node {target}:")


def test_selecting_a_node_does_not_dim_the_others():
    at = _inspector()
    nodes = next(t for t in _diagram(at)["data"] if t.get("name") == "nodes")
    assert nodes["unselected"]["marker"]["opacity"] == 1.0


def _labels(at: AppTest) -> tuple[dict, list[str]]:
    nodes = next(t for t in _diagram(at)["data"] if t.get("name") == "nodes")
    return nodes, [str(s) for s in nodes.get("text") or [] if s]


def test_picking_a_deep_node_draws_its_path_from_the_root_in_the_selection_colour():
    at = _inspector()
    box = next(s for s in at.selectbox if s.label == "Node")
    leaf = max(int(v) for v in box.options)  # the last node numbered depth-first: a leaf
    box.set_value(str(leaf)).run()
    assert_clean(at)
    spec = _diagram(at)
    path = next(t for t in spec["data"] if t.get("name") == "selected path")
    assert len(_array(path["x"])) >= 3  # at least the edge into the leaf
    assert _ringed(at) == [leaf]


def test_lecture_mode_writes_the_diagram_and_the_class_bars_larger():
    plain = _inspector()
    lecture = start("pages/4_Inspector.py", query={"lecture": "1"})
    assert_clean(lecture)
    (small, _), (large, texts) = _labels(plain), _labels(lecture)
    assert small["textfont"]["size"] >= 11 and large["textfont"]["size"] > small["textfont"]["size"]
    assert texts, "the lecture diagram still names its nodes"
    # In a lecture the class bars follow the slide (diagram and picture): find them by their type.
    (bars,) = [spec for spec in charts(lecture) if spec["data"][0].get("type") == "bar"]
    assert bars["data"][0]["textfont"]["size"] == large["textfont"]["size"]


def _sphere_inspector(lecture: bool) -> AppTest:
    """The Inspector on the sphere demo's data and tree (state carried by the link), in lecture mode or not."""
    data = {
        "cov_scale": 0.25,
        "n_classes": 5,
        "n_clusters": 10,
        "n_samples": 600,
        "seed": 1,
        "signature": "S2",
        "source": "synthetic",
        "task": "classification",
        "title": "Mixture on the sphere",
    }
    model = {"family": "product_tree", "params": {"max_depth": 6, "pairs": "base"}, "seed": 0, "test_size": 0.25}
    query = {"data": json.dumps(data), "model": json.dumps(model), "view": "sphere:0:0-1-2:poincare"}
    at = start(query=query | ({"lecture": "1"} if lecture else {}), timeout=180)
    at.switch_page("pages/4_Inspector.py").run()
    assert_clean(at)
    return at


def test_lecture_mode_brings_the_inspector_sphere_closer():
    from curvedtrees.viz import figures

    from ui.pictures import LECTURE_COLUMN_ZOOM

    distances = []
    for lecture in (False, True):
        (scene,) = [spec["layout"]["scene"] for spec in charts(_sphere_inspector(lecture)) if "scene" in spec["layout"]]
        eye = scene["camera"]["eye"]
        distances.append(float(np.linalg.norm([eye["x"], eye["y"], eye["z"]])))
    assert distances[0] == pytest.approx(figures.SPHERE_EYE_DISTANCE)
    assert distances[1] == pytest.approx(figures.SPHERE_EYE_DISTANCE / LECTURE_COLUMN_ZOOM)
    assert LECTURE_COLUMN_ZOOM > 1.2


def _big_tree_inspector() -> AppTest:
    """The Inspector on a depth-9 tree of a noisy mixture on H2: far more splits than ids a picture can hold."""
    data = {
        "cov_scale": 1.0,
        "n_classes": 6,
        "n_clusters": 12,
        "n_samples": 1500,
        "seed": 0,
        "signature": "H2",
        "source": "synthetic",
        "task": "classification",
        "title": "Noisy H2",
    }
    model = {
        "family": "product_tree",
        "params": {"criterion": "gini", "max_depth": 9, "min_samples_leaf": 1, "pairs": "base"},
        "seed": 0,
        "test_size": 0.25,
    }
    at = start(query={"data": json.dumps(data), "model": json.dumps(model)}, timeout=180)
    at.switch_page("pages/4_Inspector.py").run()
    assert_clean(at)
    return at


def test_a_big_tree_writes_the_ids_of_its_largest_splits_and_the_highlighted_ones():
    from curvedtrees import viz

    from ui.pictures import MAX_NODE_LABELS

    at = _big_tree_inspector()
    box = next(s for s in at.selectbox if s.label == "Node")
    deep = max(int(v) for v in box.options)  # the last node numbered depth-first: deep in the tree
    box.set_value(str(deep)).run()
    assert_clean(at)
    tree = at.session_state["ct:model"].estimator  # the page's tree (ui.state keeps it under this key)
    ranked = [int(v) for v in viz.boundaries.ranked_splits(tree)]
    assert len(ranked) > 3 * MAX_NODE_LABELS
    largest = set(ranked[:MAX_NODE_LABELS])
    picture = charts(at)[-1]
    (labels,) = [t for t in picture["data"] if t.get("name") == "node ids"]
    written = {int(s) for s in labels["text"] if s}
    # Of the splits the picture draws, the largest ones and the selected node's (a leaf here: no curve).
    assert 10 <= len(written) <= MAX_NODE_LABELS + 1
    assert written <= largest | {deep}
    # Each replay frame restyles that trace: it writes, of the splits it draws, only those ids too.
    index = picture["data"].index(labels)
    per_frame = []
    for frame in picture["frames"]:
        at_labels = [t for i, t in zip(frame["traces"], frame["data"]) if i == index]
        assert len(at_labels) == 1
        per_frame.append({int(s) for s in at_labels[0]["text"] if s})
    assert all(ids <= largest | {deep} for ids in per_frame)
    assert max(len(ids) for ids in per_frame) == len(written)


def test_a_click_on_a_point_of_the_picture_explains_that_point():
    at = _inspector()
    assert at.toggle(key="insp_explain").value is False
    # The picture's points carry their data rows: a click reports one (here, as the browser would).
    picture = charts(at)[-1]
    points = next(t for t in picture["data"] if t.get("name") == "training points")
    row = int(_array(points["customdata"])[5])
    at.session_state["insp_regions"] = {"selection": {"points": [{"customdata": row, "curve_number": 3}]}}
    at.run()
    assert_clean(at)
    assert at.toggle(key="insp_explain").value is True and at.number_input(key="insp_row").value == row
    assert any(str(m.value).startswith(f"**Path of row {row}**") for m in at.markdown)
    assert any(t.get("name") == "explained point" for t in charts(at)[-1]["data"])
    # The click counts once: the row box moves on from it, and a click on a region cell (no row) is ignored.
    at.number_input(key="insp_row").set_value(2).run()
    assert any(str(m.value).startswith("**Path of row 2**") for m in at.markdown)
    at.session_state["insp_regions"] = {"selection": {"points": [{"curve_number": 0, "z": 1}]}}
    at.run()
    assert_clean(at)
    assert any(str(m.value).startswith("**Path of row 2**") for m in at.markdown)


def test_picked_row_reads_only_a_clicked_points_own_row():
    from ui.pictures import picked_row

    assert picked_row({"selection": {"points": [{"customdata": 7}]}}, 10) == 7
    assert picked_row({"selection": {"points": [{"customdata": [4]}]}}, 10) == 4
    assert picked_row({"selection": {"points": [{"customdata": 12}]}}, 10) is None  # not a row of this data
    assert picked_row({"selection": {"points": [{"customdata": True}, {"customdata": "3"}]}}, 10) is None
    assert picked_row({"selection": {"points": []}}, 10) is None and picked_row(None, 10) is None
