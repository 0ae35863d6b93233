"""The split replay played in the browser, and the framing of pictures (figure JSON, no browser).

* ``replay_regions`` gives, from one pass of the grid through the tree, exactly what
  ``first_splits(tree, k)`` predicts for every k;
* the replay figure carries one animation frame per split count, each restyling the
  regions and the boundary traces (the newest split highlighted, node ids written);
* 3-D cameras sit at the distance that fits a narrow column and face the newest split,
  the selected split or the explained point; legends lie horizontally below (above the
  slider of an animated picture).
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from curvedtrees import viz
from curvedtrees.sampling import make_classification, make_regression
from curvedtrees.trees import ProductDecisionTreeClassifier, ProductDecisionTreeRegressor
from curvedtrees.viz import figures as vf
from curvedtrees.viz.treeview import replay_steps
from test_viz import decode, surface_cells

SIG = "H2 x S2 x S1 x S1 x E2"
# One picture of each kind, on a one-component dataset (or two circles) whose depth-6 tree splits it.
CASES = {
    "disk": ("H2", viz.View("disk", (0,), (1, 2))),
    "klein": ("H2", viz.View("disk", (0,), (1, 2), "klein")),
    "sphere": ("S2", viz.View("sphere", (0,), (0, 1, 2))),
    "circle": ("S1", viz.View("circle", (0,))),
    "torus": ("S1 x S1", viz.View("torus", (0, 1))),
    "plane": ("E2", viz.View("plane", (0,), (0, 1))),
}
_FITTED = {}


def _fit(sig):
    if sig not in _FITTED:
        X, y = make_classification(sig, n_samples=600, n_classes=4, n_clusters=8, cov_scale=0.4, random_state=3)
        _FITTED[sig] = (X, y, ProductDecisionTreeClassifier(signature=sig, max_depth=6, random_state=0).fit(X, y))
    return _FITTED[sig]


@pytest.fixture(scope="module")
def fitted():
    return _fit(SIG)


@pytest.mark.parametrize("case", list(CASES))
def test_replay_frames_predict_like_the_tree_stopped_after_k_splits(case):
    SIG, view = CASES[case]
    X, _, tree = _fit(SIG)
    reference = viz.reference_point(SIG, X, "mean")
    grid = viz.view_grid(view, SIG, 40, viz.data_bounds(view, SIG, X) or None)
    replay = viz.replay_regions(tree, grid, reference)
    n_splits = len(viz.split_order(tree))
    assert replay.steps.tolist() == list(range(n_splits + 1))
    changed = 0
    for frame, k in enumerate(replay.steps):
        want = viz.predict_regions(viz.first_splits(tree, int(k)).estimator, grid, reference)
        got = replay.frames[frame]
        np.testing.assert_array_equal(got.class_index, want.class_index, err_msg=f"{view.key} k={k}")
        np.testing.assert_allclose(got.confidence, want.confidence, equal_nan=True)
        if frame and not np.array_equal(got.class_index, replay.frames[frame - 1].class_index):
            changed += 1
    assert changed >= 1  # the regions do change as splits arrive
    assert replay.newest(0) is None and replay.newest(len(replay.steps) - 1) == int(viz.split_order(tree)[-1])


def test_regression_replay_holds_the_means_of_the_cut_tree():
    X, y = make_regression("H2", n_samples=300, random_state=0)
    tree = ProductDecisionTreeRegressor(signature="H2", max_depth=4, random_state=0).fit(X, y)
    view = viz.View("disk", (0,), (1, 2))
    grid = viz.view_grid(view, "H2", 30)
    replay = viz.replay_regions(tree, grid, viz.reference_point("H2"))
    for frame, k in enumerate(replay.steps):
        want = viz.predict_regions(viz.first_splits(tree, int(k)).estimator, grid, viz.reference_point("H2"))
        np.testing.assert_allclose(replay.frames[frame].values, want.values, equal_nan=True)


def test_deep_trees_are_replayed_at_evenly_spaced_split_counts_and_bad_steps_are_refused(fitted):
    steps = replay_steps(500, 64)
    assert len(steps) == 64 and steps[0] == 0 and steps[-1] == 500 and np.all(np.diff(steps) > 0)
    assert replay_steps(10, 64).tolist() == list(range(11))
    _, _, tree = fitted
    grid = viz.view_grid(viz.View("disk", (0,), (1, 2)), SIG, 10)
    with pytest.raises(ValueError, match="replay steps must lie in"):
        viz.replay_regions(tree, grid, viz.reference_point(SIG), steps=[0, 10_000])


def _replay_figure(case, styles=None, marked=None, resolution=30):
    from ui.pictures import replay_styles

    SIG, view = CASES[case]
    X, _, tree = _fit(SIG)
    reference = viz.reference_point(SIG, X, "mean")
    grid = viz.view_grid(view, SIG, resolution, viz.data_bounds(view, SIG, X) or None)
    replay = viz.replay_regions(tree, grid, reference)
    curves = viz.boundary_curves(tree, SIG, view, reference, grid)
    names = [str(int(k)) for k in replay.steps]
    fig = viz.region_figure(
        grid,
        None,
        viz.Overlay(boundaries=curves, marked=marked, label_nodes=True),
        framing=viz.Framing(title="a title"),
        animation=viz.Animation(
            replay.frames,
            names,
            len(names) - 1,
            replay.animation().label,
            boundary_styles=replay_styles(replay, styles),
        ),
    )
    return json.loads(fig.to_json()), replay, curves


@pytest.mark.parametrize("case", list(CASES))
def test_replay_figure_has_a_frame_per_split_count_restyling_regions_and_boundaries(case):
    view = CASES[case][1]
    spec, replay, curves = _replay_figure(case)
    assert len(curves) >= 3
    frames = spec["frames"]
    assert [f["name"] for f in frames] == [str(int(k)) for k in replay.steps]
    layout = spec["layout"]
    assert layout["updatemenus"][0]["buttons"][0]["method"] == "animate"
    assert len(layout["sliders"][0]["steps"]) == len(frames)
    moving = frames[0]["traces"]
    assert moving[0] == 0 and len(moving) > 2 and all(f["traces"] == moving for f in frames)
    names = {i: spec["data"][i].get("name") for i in moving}
    newest = [i for i in moving if names[i] == "newest split"]
    labels = [i for i in moving if names[i] == "node ids"]
    assert newest and len(labels) == 1
    drawn = {c.node for c in curves}
    for frame, data in zip(range(len(frames)), frames):
        by_index = dict(zip(moving, data["data"]))
        texts = [t for t in by_index[labels[0]]["text"] if t]
        # Node ids written are exactly the splits of this frame that cross the picture.
        assert sorted(int(t) for t in texts) == sorted(n for n in replay.nodes(frame).tolist() if n in drawn)
        newest_node = replay.newest(frame)
        key = "theta" if view.kind == "circle" else "x"
        xs = decode(by_index[newest[-1]][key]).astype(np.float64)
        if newest_node in drawn:
            assert np.isfinite(xs).any(), f"frame {frame}: newest split {newest_node} not drawn"
        else:
            assert not np.isfinite(xs).any()
    # Frame 0 (no splits) draws no boundary; the last draws them all.
    first = dict(zip(moving, frames[0]["data"]))
    assert all(
        not np.isfinite(decode(first[i].get("x", first[i].get("r")) or [np.nan]).astype(float)).any()
        for i in moving[1:]
        if i not in labels
    )
    # Regions change between the first and the last frame (classes are recoloured in the browser).
    z0 = frames[0]["data"][0]
    zn = frames[-1]["data"][0]
    key = "surfacecolor" if view.kind in ("sphere", "torus") else "marker" if view.kind == "circle" else "z"
    assert json.dumps(z0[key]) != json.dumps(zn[key])
    # The title moves into the legend above the plot; the slider sits below.
    assert layout["legend"]["orientation"] == "h" and layout["legend"]["yanchor"] == "bottom"
    assert "a title" in layout["legend"]["title"]["text"] and not (layout.get("title") or {}).get("text")


def _eye(spec) -> np.ndarray:
    eye = spec["layout"]["scene"]["camera"]["eye"]
    return np.array([eye["x"], eye["y"], eye["z"]])


def test_3d_cameras_keep_the_fitting_distance_and_face_the_newest_split():
    spec, replay, curves = _replay_figure("sphere")
    eye = _eye(spec)
    assert np.linalg.norm(eye) == pytest.approx(vf.SPHERE_EYE_DISTANCE)
    newest = next(c for c in curves if c.node == replay.newest(len(replay.steps) - 1))
    xyz = np.column_stack([newest.coords[k] for k in "xyz"])
    xyz = xyz[np.isfinite(xyz).all(axis=1)]
    # The camera looks at a point of the newest split's drawn arc (up to the tilt off its plane).
    facing = eye / np.linalg.norm(eye)
    nearest = np.max(xyz @ facing / np.linalg.norm(xyz, axis=1))
    assert nearest > 0.9
    # Facing another split (the selected one) turns the camera.
    other = next(c for c in curves if c.node != newest.node and np.isfinite(c.coords["x"]).sum() > 20)
    spec2, _, _ = _replay_figure("sphere", styles={other.node: "selected"})
    eye2 = _eye(spec2)
    assert not np.allclose(eye, eye2)
    assert any(t.get("name") == "selected split" and t.get("showlegend") for t in spec2["data"])


def test_a_3d_replay_turns_its_camera_to_each_newest_split():
    spec, replay, curves = _replay_figure("sphere")
    frames = spec["frames"]
    by_node = {c.node: c for c in curves}
    turned = 0
    for f, frame in enumerate(frames):
        eye = np.array([frame["layout"]["scene"]["camera"]["eye"][k] for k in "xyz"])
        assert np.linalg.norm(eye) == pytest.approx(vf.SPHERE_EYE_DISTANCE)
        newest = replay.newest(f)
        if newest is None or newest not in by_node:
            continue
        xyz = np.column_stack([by_node[newest].coords[k] for k in "xyz"])
        xyz = xyz[np.isfinite(xyz).all(axis=1)]
        # Every frame looks at a point of its newest split's arc (up to the tilt off its plane).
        assert np.max(xyz @ (eye / np.linalg.norm(eye)) / np.linalg.norm(xyz, axis=1)) > 0.9, f
        turned += 1
    assert turned > len(frames) // 2
    assert len({json.dumps(f["layout"]["scene"]["camera"]) for f in frames}) > len(frames) // 2  # it turns


def test_replay_controls_play_pause_step_and_change_speed_and_grow_in_lecture_mode():
    spec, replay, _ = _replay_figure("disk")
    (menu,) = spec["layout"]["updatemenus"]
    labels = [b["label"] for b in menu["buttons"]]
    assert labels == ["◀ Back", "▶ Play", "❚❚ Pause", "Next ▶", "▶ ½×", "▶ 2×"]
    durations = [b["args"][1]["frame"]["duration"] for b in menu["buttons"] if b["label"].startswith("▶")]
    assert durations[1] == 2 * durations[0] and durations[2] == durations[0] // 2
    assert menu["font"]["size"] < 16
    # Back and Next go to the frames beside the one shown (here the last: Next stays), and every
    # frame's layout points them at its own neighbours, so they step from wherever the replay is.
    names = [f["name"] for f in spec["frames"]]
    assert menu["buttons"][0]["args"][0] == [names[-2]] and menu["buttons"][3]["args"][0] == [names[-1]]
    for k, frame in enumerate(spec["frames"]):
        (own,) = frame["layout"]["updatemenus"]
        assert own["buttons"][0]["args"][0] == [names[max(k - 1, 0)]], k
        assert own["buttons"][3]["args"][0] == [names[min(k + 1, len(names) - 1)]], k
        assert own["buttons"][0]["args"][1]["frame"]["duration"] == 0  # a step does not play on
    # The slider names the split shown of the tree's splits.
    current = spec["layout"]["sliders"][0]["currentvalue"]
    assert (current["prefix"], current["suffix"]) == ("Split ", f" of {len(replay.order)}")
    SIG, view = CASES["disk"]
    X, _, tree = _fit(SIG)
    grid = viz.view_grid(view, SIG, 20, viz.data_bounds(view, SIG, X) or None)
    replay = viz.replay_regions(tree, grid, viz.reference_point(SIG, X, "mean"))
    wide = json.loads(
        viz.region_figure(grid, None, framing=viz.Framing(wide=True), animation=replay.animation()).to_json()
    )
    assert wide["layout"]["updatemenus"][0]["font"]["size"] >= 16 > spec["layout"]["updatemenus"][0]["font"]["size"]
    assert wide["layout"]["sliders"][0]["currentvalue"]["font"]["size"] >= 20
    # Beside a round replay in the wide framing, the legend stands right of the picture (the slide's height
    # goes to the picture; its width has room to spare); elsewhere it lies along the picture's top.
    assert (wide["layout"]["legend"]["orientation"], wide["layout"]["legend"]["x"]) == ("v", 1.01)
    assert spec["layout"]["legend"]["orientation"] == "h"


@pytest.mark.parametrize("case", ["sphere", "torus"])
def test_3d_camera_faces_the_explained_point(case):
    sig, view = CASES[case]
    X = _fit(sig)[0]
    for row in (0, 7):
        at = viz.project_points(view, sig, X[row : row + 1])
        marked = {k: float(v[0]) for k, v in at.items()}
        spec, _, _ = _replay_figure(case, marked=marked)
        eye = _eye(spec)
        point = np.array([marked[k] for k in "xyz"])
        if view.kind == "sphere":
            assert eye / np.linalg.norm(eye) @ (point / np.linalg.norm(point)) > 0.8
            assert np.linalg.norm(eye) == pytest.approx(vf.SPHERE_EYE_DISTANCE)
        else:
            # Same azimuth as the point, seen from above.
            assert np.degrees(abs(np.angle(complex(*eye[:2]) / complex(*point[:2])))) < 1.0
            assert eye[2] > 0 and np.linalg.norm(eye) == pytest.approx(vf.TORUS_EYE_DISTANCE)


@pytest.mark.parametrize("kind", ["disk", "sphere", "torus", "circle", "plane"])
def test_still_pictures_put_a_horizontal_legend_below_the_plot(kind):
    sig, view = CASES[kind]
    X, _, tree = _fit(sig)
    grid = viz.view_grid(view, sig, 20, viz.data_bounds(view, sig, X) or None)
    regions = viz.predict_regions(tree, grid, viz.reference_point(sig))
    spec = json.loads(viz.region_figure(grid, regions, framing=viz.Framing(title="t")).to_json())
    legend = spec["layout"]["legend"]
    assert legend["orientation"] == "h" and legend["yanchor"] == "top" and legend["y"] <= 0
    if kind in ("sphere", "torus"):
        distance = vf.SPHERE_EYE_DISTANCE if kind == "sphere" else vf.TORUS_EYE_DISTANCE
        assert np.linalg.norm(_eye(spec)) == pytest.approx(distance)


def test_frame_styles_must_match_the_frames(fitted):
    _, _, tree = fitted
    view = viz.View("disk", (0,), (1, 2))
    grid = viz.view_grid(view, SIG, 10)
    replay = viz.replay_regions(tree, grid, viz.reference_point(SIG))
    with pytest.raises(ValueError, match="boundary styles"):
        viz.region_figure(grid, None, animation=viz.Animation(replay.frames, boundary_styles=[{}]))


# ------------------------------------------------------------------ explanations on the picture
@pytest.mark.parametrize("case", ["disk", "sphere", "torus", "plane"])
def test_selected_split_region_stays_bright_and_its_sides_are_labelled_with_the_rule(case):
    from curvedtrees.viz.palette import N_LEVELS

    sig, view = CASES[case]
    X, _, tree = _fit(sig)
    reference = viz.reference_point(sig, X, "mean")
    grid = viz.view_grid(view, sig, 30, viz.data_bounds(view, sig, X) or None)
    node = int(tree.tree_.children_left[0])  # a split below the root: its region is part of the picture
    assert tree.tree_.children_left[node] >= 0
    found = viz.treeview.node_region(tree, node, grid, reference, sig)
    rows = viz.product_rows(grid, reference)
    want = np.zeros(grid.mask.shape, dtype=bool)
    want[np.flatnonzero(grid.mask)[tree.tree_.reaches(node, rows)]] = True
    np.testing.assert_array_equal(found.inside.ravel(), want)
    assert 0 < found.inside.sum() < grid.mask.sum()
    texts = [t for _, t, _ in found.labels]
    assert texts == [f"node {node} left (≤ 0)", f"node {node} right (> 0)"]
    rules = [h for _, _, h in found.labels]
    assert rules[0].endswith("≤ 0") and rules[1].endswith("> 0") and rules[0][:-4] == rules[1][:-4]
    assert f"x{int(tree.tree_.coords[node][1])}" in rules[0]
    # Each label sits on a cell of its own side.
    inside_rows = rows[found.inside.ravel()[grid.mask]]
    left = tree.tree_.goes_left(node, inside_rows)
    assert left.any() and (~left).any()

    # Cells without crossings: a flat picture's heatmap then has a pixel a cell, compared cell by cell.
    regions = viz.predict_regions(tree, grid, reference, smooth=False)
    spec = json.loads(viz.region_figure(grid, regions, viz.Overlay(highlight=found)).to_json())
    labels = [t for t in spec["data"] if t.get("name") == "node labels"]
    shown = [s.replace("<b>", "").replace("</b>", "") for s in labels[0]["text"]]
    # 3-D pictures write a letter (the whole label on hover), so that no text runs past the column.
    assert len(labels) == 1 and shown == (["L", "R"] if case in ("sphere", "torus") else texts)
    assert all(t in h for t, h in zip(texts, labels[0]["hovertext"]))
    solid = case in ("sphere", "torus")
    key = "surfacecolor" if solid else "z"

    def cells(trace):
        return (surface_cells(trace) if solid else decode(trace[key])).astype(np.float64).ravel()

    codes = cells(spec["data"][0])
    level = np.mod(codes, N_LEVELS)
    outside = grid.mask & ~found.inside.ravel()
    # Every cell outside the node's region is in its class's palest shade; inside, confidence shows as before.
    assert np.all(level[outside] == 0)
    plain = json.loads(viz.region_figure(grid, regions).to_json())
    plain_codes = cells(plain["data"][0])
    np.testing.assert_array_equal(codes[found.inside.ravel()], plain_codes[found.inside.ravel()])
    assert np.any(plain_codes[outside] != codes[outside])


def test_a_line_picture_writes_a_selected_nodes_labels_on_its_strip():
    # The Inspector's picture of an H1 or E1 component: its cells have an x only, and the labels
    # once raised a KeyError on their missing y.
    X, y = make_classification("H1 x S1", n_samples=300, n_classes=3, random_state=0)
    tree = ProductDecisionTreeClassifier(signature="H1 x S1", max_depth=3, random_state=0).fit(X, y)
    view = viz.View("line", (0,))
    grid = viz.view_grid(view, "H1 x S1", 40)
    reference = viz.reference_point("H1 x S1")
    node = next(int(v) for v in np.flatnonzero(tree.tree_.children_left >= 0) if tree.tree_.component[v] == 0)
    regions = viz.predict_regions(tree, grid, reference)
    for chosen in (node, int(np.flatnonzero(tree.tree_.children_left < 0)[0])):
        found = viz.treeview.node_region(tree, chosen, grid, reference, "H1 x S1", X_train=X)
        spec = json.loads(viz.region_figure(grid, regions, viz.Overlay(highlight=found)).to_json())
        (labels,) = [t for t in spec["data"] if t.get("name") == "node labels"]
        assert len(labels["text"]) == len(found.labels) >= 1
        assert np.allclose(decode(labels["y"]), 0.5)


def test_a_selected_leaf_shows_its_prediction_in_its_region():
    sig, view = CASES["disk"]
    tree = _fit(sig)[2]
    grid = viz.view_grid(view, sig, 40)
    leaves = np.flatnonzero(tree.tree_.children_left < 0)
    reference = viz.reference_point(sig)
    found = next(
        r
        for r in (viz.treeview.node_region(tree, int(v), grid, reference, sig, ["a", "b", "c", "d"]) for v in leaves)
        if r.inside.any()
    )
    ((point, text, _),) = found.labels
    assert text.startswith("leaf ") and text.split(": ")[1][0] in "abcd" and "%" in text
    # The label's cell is in the leaf's region.
    col = int(np.argmin(abs(grid.coords["x"] - point["x"])))
    row = int(np.argmin(abs(grid.coords["y"] - point["y"])))
    assert found.inside[row, col]
    with pytest.raises(ValueError, match="node must be between"):
        viz.treeview.node_region(tree, 10_000, grid, reference, sig)


@pytest.mark.parametrize("case", ["disk", "sphere", "plane"])
def test_margin_band_reaches_the_nearest_training_row_on_each_side(case):
    from curvedtrees.viz.treeview.nodes import _split_value

    sig, view = CASES[case]
    X, _, tree = _fit(sig)
    reference = viz.reference_point(sig, X, "mean")
    grid = viz.view_grid(view, sig, 40, viz.data_bounds(view, sig, X) or None)
    node = 0
    found = viz.treeview.node_region(tree, node, grid, reference, sig, X_train=X)
    assert found.band is not None and not np.all(found.band[grid.mask.reshape(grid.shape)])
    assert [side for _, _, side in found.nearest] == ["left", "right"]
    value = _split_value(tree.tree_, node, X)
    reached, left = tree.tree_.reaches(node, X), tree.tree_.goes_left(node, X)  # the tree's own sides
    for _, row, side in found.nearest:
        mine = reached & (left if side == "left" else ~left)
        assert abs(value[row]) == pytest.approx(np.min(np.abs(value[mine])))
    # The band is the cells on each side closer to the boundary than that side's nearest row.
    rows = viz.product_rows(grid, reference)
    cells, cells_left = _split_value(tree.tree_, node, rows), tree.tree_.goes_left(node, rows)
    band = found.band.ravel()[grid.mask]
    left_limit, right_limit = (abs(value[row]) for _, row, _ in found.nearest)
    want = np.where(cells_left, np.abs(cells) <= left_limit, np.abs(cells) <= right_limit)
    np.testing.assert_array_equal(band, want)
    # The root's margin is wider than a grid cell here on the disk and the sphere (on the plane it is not).
    assert band.any() or case == "plane"
    # Cells without crossings: a flat picture's heatmap then has a pixel a cell, compared cell by cell.
    regions = viz.predict_regions(tree, grid, reference, smooth=False)
    spec = json.loads(viz.region_figure(grid, regions, viz.Overlay(highlight=found)).to_json())
    names = [t.get("name") for t in spec["data"]]
    assert ("margin" in names or case == "plane") and "nearest rows (margin)" in names


def test_an_explained_points_path_is_drawn_split_by_split_in_the_replay():
    from ui.pictures import replay_styles

    sig, view = CASES["disk"]
    X, _, tree = _fit(sig)
    grid = viz.view_grid(view, sig, 10)
    replay = viz.replay_regions(tree, grid, viz.reference_point(sig))
    path = [v for v in viz.decision_path_nodes(tree, X[5]) if tree.tree_.children_left[v] >= 0]
    assert len(path) >= 3
    frames = replay_styles(replay, dict.fromkeys(path, "path") | {path[1]: "selected"})
    for frame, styles in enumerate(frames):
        done = set(replay.nodes(frame).tolist())
        newest = replay.newest(frame)
        # Each frame marks the path's splits made so far (the newest keeps its own colour) and no others.
        assert {v for v, s in styles.items() if s == "path"} == {v for v in path if v in done} - {newest, path[1]}
        assert set(styles) == done
        if path[1] in done:
            assert styles[path[1]] == "selected"


# ------------------------------------------------------------------ compact heatmap frames
def _disk_replay_figure(model, sig="H2"):
    view = viz.View("disk", (0,), (1, 2))
    grid = viz.view_grid(view, sig, 40)
    replay = viz.replay_regions(model, grid, viz.reference_point(sig))
    styles = [{int(n): "split" for n in replay.nodes(f)} for f in range(len(replay.steps))]
    names = [str(int(k)) for k in replay.steps]
    animation = viz.Animation(replay.frames, names, boundary_styles=styles)
    return grid, replay, viz.region_figure(grid, animation=animation)


def test_flat_replays_send_one_byte_per_cell_and_keep_the_outside_clear(monkeypatch):
    _, _, tree = _fit("H2")
    grid, replay, fig = _disk_replay_figure(tree)
    spec = json.loads(fig.to_json())
    n_codes = len(tree.classes_) * viz.palette.N_LEVELS
    outside = ~grid.mask.reshape(grid.shape)
    for frame, regions in zip(spec["frames"], replay.frames):
        z = decode(frame["data"][0]["z"])
        assert z.dtype == np.uint8 and z.shape == grid.shape
        # Inside the disk, the palette's codes; outside, one code past them, drawn transparent.
        expected = viz.palette.encode_classes(
            regions.class_index,
            viz.palette.confidence_levels(
                np.nan_to_num(regions.confidence.ravel(), nan=1.0), len(tree.classes_)
            ).reshape(grid.shape),
        )
        assert np.array_equal(z[~outside], expected[~outside]) and np.all(z[outside] == n_codes)
    heat = spec["data"][0]
    assert decode(heat["z"]).dtype == np.uint8 and heat["zmax"] == n_codes + 0.5
    assert heat["colorscale"][-1][1] == viz.palette.OUTSIDE and heat["colorscale"][-3][1] != viz.palette.OUTSIDE
    # A quarter of the bytes of float32 codes with NaN outside (the regions' share of the payload).
    monkeypatch.setattr(vf.coloring, "_outside_code", lambda regions, coloring: None)
    wide = len(_disk_replay_figure(tree)[2].to_json())
    assert len(fig.to_json()) < wide / 1.8, (len(fig.to_json()), wide)


def test_a_regression_replay_on_the_disk_leaves_the_corners_clear():
    X, y = make_regression("H2", n_samples=300, random_state=0)
    tree = ProductDecisionTreeRegressor(signature="H2", max_depth=3).fit(X, y)
    grid, _, fig = _disk_replay_figure(tree)
    spec = json.loads(fig.to_json())
    outside = ~grid.mask.reshape(grid.shape)
    heat = spec["data"][0]
    for frame in spec["frames"]:
        z = decode(frame["data"][0]["z"])
        # The corners used to take step 0 of the scale (a dark square around the disk).
        assert (
            z.dtype == np.uint8
            and np.all(z[outside] == vf.coloring.VALUE_STEPS + 1)
            and z[~outside].max() <= vf.coloring.VALUE_STEPS
        )
    assert heat["zmax"] == vf.coloring.VALUE_STEPS + 1 and heat["colorscale"][-1][1] == viz.palette.OUTSIDE
    assert all(v <= vf.coloring.VALUE_STEPS for v in heat["colorbar"]["tickvals"])


def test_an_animated_disk_gives_its_legend_and_slider_their_own_room():
    # In the Inspector's 1024 px column the legend above and the slider below took the disk down to 269 px
    # across (285 px plot); with their own room and a compact legend it fills the column (292 px).
    _, _, tree = _fit("H2")
    _, _, fig = _disk_replay_figure(tree)
    layout = json.loads(fig.to_json())["layout"]
    assert layout["height"] == vf.HEIGHTS["disk"] + vf.ANIMATED_ROOM["disk"]
    assert layout["legend"]["font"]["size"] == 11 and layout["legend"]["itemwidth"] == 30
    assert layout["yaxis"]["constraintoward"] == "top"  # the disk right under the legend
    grid = viz.view_grid(viz.View("disk", (0,), (1, 2)), "H2", 20)
    still = json.loads(viz.region_figure(grid, viz.predict_regions(tree, grid, viz.reference_point("H2"))).to_json())
    assert still["layout"]["height"] == vf.HEIGHTS["disk"] and "constraintoward" not in still["layout"]["yaxis"]
