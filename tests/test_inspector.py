"""The Inspector's node selection: the Node box and clicks on the diagram pick a node at once."""

from __future__ import annotations

import base64

import numpy as np
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
    bars = charts(lecture)[1]
    assert bars["data"][0]["type"] == "bar" and bars["data"][0]["textfont"]["size"] == large["textfont"]["size"]
