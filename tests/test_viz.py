"""curvedtrees.viz: region grids, geodesic split boundaries, Plotly builders (checked on their JSON), tree views."""

from __future__ import annotations

import base64
import itertools
import re

import numpy as np
import pytest
from curvedtrees import coords, viz
from curvedtrees.manifolds import ProductManifold
from curvedtrees.sampling import make_classification, make_regression
from curvedtrees.trees import ProductDecisionTreeClassifier, ProductDecisionTreeRegressor
from curvedtrees.viz.figures.coloring import region_codes
from curvedtrees.viz.palette import N_LEVELS, confidence_levels, encode_classes, region_colorscale


# ------------------------------------------------------------------ helpers
def decode(value):
    """Plotly 7 writes numpy arrays as {"dtype", "bdata", "shape"}: back to an array."""
    if isinstance(value, dict) and "bdata" in value:
        array = np.frombuffer(base64.b64decode(value["bdata"]), dtype=np.dtype(value["dtype"]))
        shape = value.get("shape")
        if shape:
            array = array.reshape([int(s) for s in str(shape).split(",")])
        return array
    return np.asarray(value, dtype=object if value and isinstance(value[0], str) else None)


def surface_cells(trace: dict) -> np.ndarray:
    """The cell values (rows, cols) of a sphere's or torus's cell surface, without its wrap and pole rows."""
    values = decode(trace["surfacecolor"])
    # The torus repeats its first row and column; the sphere its first column, and adds a row at each pole.
    rows = slice(None, -1) if values.shape[0] == values.shape[1] else slice(1, -1)
    return values[rows, :-1]


def figure_json(fig) -> dict:
    import json

    return json.loads(fig.to_json())


def traces(spec, kind):
    return [t for t in spec["data"] if t.get("type", "scatter") == kind]


@pytest.fixture(scope="module")
def h2_tree():
    X, y = make_classification("H2", n_samples=400, n_classes=4, n_clusters=8, cov_scale=0.3, random_state=0)
    return X, y, ProductDecisionTreeClassifier(signature="H2", max_depth=5, random_state=0).fit(X, y)


@pytest.fixture(scope="module")
def product_tree():
    sig = "H2 x S2 x S1 x S1 x E2"
    X, y = make_classification(sig, n_samples=500, n_classes=4, n_clusters=8, cov_scale=0.4, random_state=1)
    return sig, X, y, ProductDecisionTreeClassifier(signature=sig, max_depth=7, random_state=0).fit(X, y)


# ------------------------------------------------------------------ palette
def test_codes_pack_class_and_confidence_and_mark_outside_as_nan():
    levels = confidence_levels(np.array([0.25, 0.5, 0.8, 1.0]), n_classes=4)
    assert levels.tolist() == [0, 1, 2, 3]
    codes = encode_classes(np.array([0, 2, -1, 1]), levels)
    assert codes[0] == 0 and codes[1] == 2 * N_LEVELS + 1 and np.isnan(codes[2]) and codes[3] == N_LEVELS + 3


def test_region_colorscale_is_stepped_with_one_band_per_code():
    scale, cmin, cmax = region_colorscale(3)
    positions = [p for p, _ in scale]
    assert positions[0] == 0 and positions[-1] == 1 and positions == sorted(positions)
    assert len(scale) == 2 * 3 * N_LEVELS
    # Each band is flat: the two stops of a band carry the same colour.
    assert all(scale[2 * k][1] == scale[2 * k + 1][1] for k in range(3 * N_LEVELS))
    assert (cmin, cmax) == (-0.5, 3 * N_LEVELS - 0.5)


# ------------------------------------------------------------------ views
def test_available_views_give_the_natural_picture_per_component():
    views = viz.available_views("H2 x S2 x S1 x S1 x E2 x E1 x H1 x H4")
    kinds = [(v.kind, v.components) for v in views]
    assert kinds[:8] == [
        ("disk", (0,)),
        ("sphere", (1,)),
        ("circle", (2,)),
        ("circle", (3,)),
        ("plane", (4,)),
        ("line", (5,)),
        ("line", (6,)),
        ("disk", (7,)),
    ]
    assert ("torus", (2, 3)) in kinds


def test_view_keys_round_trip_and_bad_keys_are_rejected():
    view = viz.View("disk", (2,), (1, 3), "klein")
    assert viz.View.from_key(view.key, "S2 x E2 x H3") == view
    with pytest.raises(ValueError, match="cannot show"):
        viz.View.from_key("disk:0:1-2:poincare", "S2")
    with pytest.raises(ValueError, match="axes"):
        viz.View.from_key("disk:0:0-1:poincare", "H2")
    with pytest.raises(ValueError, match="malformed"):
        viz.View.from_key("nonsense", "H2")


def test_describe_view_states_the_slice_of_higher_dimensional_components():
    title, note = viz.describe_view(viz.View("disk", (0,), (1, 3)), "H4")
    assert "Poincar" in title and "x1 and x3" in note and "totally geodesic" in note


def test_disk_grid_cells_lie_on_the_hyperboloid_and_outside_is_masked():
    sig = "H2(-0.25)"
    grid = viz.view_grid(viz.View("disk", (0,), (1, 2)), sig, resolution=40)
    assert grid.shape == (40, 40) and grid.mask.sum() == len(grid.values)
    assert 0.7 < grid.mask.mean() < 0.8  # pi / 4 of the square
    assert ProductManifold(sig).check_point(grid.values)
    assert grid.bounds == (-2.0, 2.0, -2.0, 2.0)  # R = 2 for K = -1/4


@pytest.mark.parametrize("model", ["poincare", "klein"])
def test_disk_slice_of_h3_sets_the_chosen_axes_and_zeroes_the_rest(model):
    grid = viz.view_grid(viz.View("disk", (0,), (1, 3), model), "H3", resolution=20)
    assert np.all(grid.values[:, 2] == 0) and ProductManifold("H3").check_point(grid.values)


def test_sphere_torus_circle_grids_lie_on_their_manifolds():
    for sig, view, n_cells in (
        ("S2", viz.View("sphere", (0,), (0, 1, 2)), 30 * 30),
        ("S1 x S1", viz.View("torus", (0, 1)), 30 * 30),
        ("S1", viz.View("circle", (0,)), 60),
    ):
        grid = viz.view_grid(view, sig, resolution=30)
        assert len(grid.values) == n_cells
        assert ProductManifold(sig).check_point(viz.product_rows(grid, viz.reference_point(sig)))
    sphere = viz.view_grid(viz.View("sphere", (0,), (0, 1, 2)), "S2", resolution=30)
    assert sphere.coords["vx"].shape == (31, 31) and sphere.coords["vx"].dtype == np.float32


def test_product_rows_hold_other_components_at_the_reference():
    sig = "H2 x S2 x E2"
    X, _ = make_classification(sig, n_samples=50, n_classes=2, n_clusters=2, random_state=0)
    ref = viz.reference_point(sig, X, "point", 7)
    grid = viz.view_grid(viz.View("sphere", (1,), (0, 1, 2)), sig, resolution=10)
    rows = viz.product_rows(grid, ref)
    assert np.all(rows[:, :3] == X[7, :3]) and np.all(rows[:, 6:] == X[7, 6:])
    assert ProductManifold(sig).check_point(rows)


def test_reference_mean_is_on_the_manifold_and_origin_is_the_origin():
    sig = "H2 x S2 x E2"
    X, _ = make_classification(sig, n_samples=80, n_classes=2, n_clusters=2, random_state=0)
    mean = viz.reference_point(sig, X, "mean")
    assert ProductManifold(sig).check_point(mean[None, :])
    assert np.allclose(mean[6:], X[:, 6:].mean(axis=0))
    assert np.allclose(viz.reference_point(sig), ProductManifold(sig).origin())
    with pytest.raises(ValueError, match="row"):
        viz.reference_point(sig, X, "point", 80)


def test_project_points_uses_the_disk_models():
    X, _ = make_classification("H2", n_samples=30, n_classes=2, n_clusters=2, random_state=0)
    p = viz.project_points(viz.View("disk", (0,), (1, 2)), "H2", X)
    k = viz.project_points(viz.View("disk", (0,), (1, 2), "klein"), "H2", X)
    assert np.allclose(np.column_stack([p["x"], p["y"]]), coords.hyperboloid_to_poincare(X))
    assert np.allclose(np.column_stack([k["x"], k["y"]]), coords.hyperboloid_to_klein(X))


def test_data_bounds_pad_the_data_range():
    X = np.array([[0.0, -1.0], [2.0, 3.0]])
    xmin, xmax, ymin, ymax = viz.data_bounds(viz.View("plane", (0,), (0, 1)), "E2", X)
    assert xmin < 0 < 2 < xmax and ymin < -1 < 3 < ymax


# ------------------------------------------------------------- boundaries
def _curve_rows(curve, view, sig, model="poincare"):
    x, y = curve.coords["x"], curve.coords["y"]
    ok = np.isfinite(x)
    pts = np.column_stack([x[ok], y[ok]])
    # The curve ends on the rim (at infinity): evaluate it just inside.
    inside = pts * np.minimum(1.0, (1 - 1e-6) / np.maximum(np.hypot(pts[:, 0], pts[:, 1]), 1e-300))[:, None]
    to_h = coords.poincare_to_hyperboloid if model == "poincare" else coords.klein_to_hyperboloid
    return to_h(inside), pts


@pytest.mark.parametrize("model", ["poincare", "klein"])
def test_disk_boundaries_solve_the_split_equation_and_have_the_right_shape(h2_tree, model):
    _X, _y, tree = h2_tree
    view = viz.View("disk", (0,), (1, 2), model)
    curves = viz.boundary_curves(tree, "H2", view, viz.reference_point("H2"), clip=False)
    assert len(curves) == tree.get_n_leaves() - 1  # every split of an H2 tree is visible
    for curve in curves:
        rows, pts = _curve_rows(curve, view, "H2", model)
        _, a, const = viz.split_plane(tree, curve.node, "H2")
        assert np.max(np.abs(rows @ a + const) / np.linalg.norm(rows, axis=1)) < 1e-6
        if model == "klein":  # chords: collinear points
            d = pts - pts[0]
            assert np.max(np.abs(d[:, 0] * d[-1, 1] - d[:, 1] * d[-1, 0])) < 1e-9
        elif abs(a[0]) > 1e-9:  # Poincaré arcs: circles orthogonal to the rim, |c|^2 = r^2 + R^2
            c = -a[1:] / a[0]
            r = np.hypot(*(pts - c).T)
            assert np.ptp(r) < 1e-9 and abs(c @ c - r[0] ** 2 - 1.0) < 1e-9


def test_clipped_boundaries_are_where_the_prediction_changes(h2_tree):
    _X, _y, tree = h2_tree
    view = viz.View("disk", (0,), (1, 2))
    clipped = viz.boundary_curves(tree, "H2", view, viz.reference_point("H2"))
    full = viz.boundary_curves(tree, "H2", view, viz.reference_point("H2"), clip=False)
    assert sum(np.isfinite(c.coords["x"]).sum() for c in clipped) < sum(np.isfinite(c.coords["x"]).sum() for c in full)
    for curve in clipped:
        rows, _ = _curve_rows(curve, view, "H2")
        assert tree.tree_.reaches(curve.node, rows).mean() > 0.98
        # Nudging a boundary point along the split normal sends it to the two different children.
        _, a, _ = viz.split_plane(tree, curve.node, "H2")
        mid = rows[len(rows) // 2]
        eta = 1e-4 * a / np.linalg.norm(a)
        sides = [
            tree.tree_.goes_left(curve.node, ProductManifold("H2").projx(p[None, :]))[0] for p in (mid - eta, mid + eta)
        ]
        assert sides[0] != sides[1]


def test_the_boundaries_route_rows_as_the_engine_does(product_tree):
    _sig, X, _y, tree = product_tree
    path = tree.decision_path(X).toarray().astype(bool)
    for node in range(tree.tree_.node_count):
        assert np.array_equal(tree.tree_.reaches(node, X), path[:, node]), node
    # The picture helpers hold no routing rule of their own.
    assert not hasattr(viz, "goes_left") and not hasattr(viz, "reaches_node")


def test_sphere_torus_circle_plane_boundaries_solve_their_split_equations(product_tree):
    sig, X, _y, tree = product_tree
    ref = viz.reference_point(sig, X, "mean")
    counts = {}
    for view in viz.available_views(sig):
        grid = viz.view_grid(view, sig, 20, viz.data_bounds(view, sig, X) or None)
        curves = viz.boundary_curves(tree, sig, view, ref, grid, clip=False)
        counts[view.kind] = counts.get(view.kind, 0) + len(curves)
        for curve in curves:
            c, a, const = viz.split_plane(tree, curve.node, sig)
            if view.kind == "sphere":
                unit = np.column_stack([curve.coords[k] for k in "xyz"])
                assert np.allclose(np.linalg.norm(unit, axis=1), 1.006) and np.allclose(unit @ a, 0, atol=1e-9)
            elif view.kind == "circle":
                t = np.radians(curve.coords["theta"])
                assert np.allclose(a[0] * np.cos(t) + a[1] * np.sin(t), 0, atol=1e-9)
            elif view.kind == "plane":
                pts = np.column_stack([curve.coords["x"], curve.coords["y"]])
                xmin, xmax, _ymin, _ymax = grid.bounds
                assert np.all((pts[:, 0] >= xmin - 1e-9) & (pts[:, 0] <= xmax + 1e-9))
                assert np.allclose(pts @ a + const, 0, atol=1e-9)
            elif view.kind == "torus":
                assert c in view.components
    assert counts["sphere"] > 0 and counts["circle"] > 0 and counts["torus"] > 0


# ---------------------------------------------------------------- regions
def test_regions_agree_with_the_model_and_are_blank_outside_the_disk(h2_tree):
    _X, _y, tree = h2_tree
    grid = viz.view_grid(viz.View("disk", (0,), (1, 2)), "H2", resolution=30)
    regions = viz.predict_regions(tree, grid, viz.reference_point("H2"))
    flat = regions.class_index.ravel()
    assert np.all(flat[~grid.mask] == -1)
    assert np.array_equal(tree.classes_[flat[grid.mask]], tree.predict(grid.values))
    assert np.allclose(regions.confidence.ravel()[grid.mask], tree.predict_proba(grid.values).max(axis=1))


def test_regression_regions_hold_predicted_values():
    X, y = make_regression("S2", n_samples=200, n_clusters=4, random_state=0)
    model = ProductDecisionTreeRegressor(signature="S2", max_depth=4).fit(X, y)
    regions = viz.compute_regions(model, "S2", viz.View("sphere", (0,), (0, 1, 2)), viz.reference_point("S2"), 12)
    assert regions.task == "regression" and regions.values.shape == (12, 12)
    assert np.allclose(regions.values.ravel(), model.predict(regions.grid.values))


# ---------------------------------------------------------------- figures
def test_disk_figure_is_a_crisp_heatmap_with_rim_boundaries_points_and_legend(h2_tree):
    X, y, tree = h2_tree
    view = viz.View("disk", (0,), (1, 2))
    grid = viz.view_grid(view, "H2", resolution=50)
    regions = viz.predict_regions(tree, grid, viz.reference_point("H2"))
    curves = viz.boundary_curves(tree, "H2", view, viz.reference_point("H2"))
    points = viz.PointLayer(
        viz.project_points(view, "H2", X),
        class_index=np.searchsorted(tree.classes_, y),
        is_test=np.arange(len(X)) % 4 == 0,
    )
    spec = figure_json(
        viz.region_figure(
            grid,
            regions,
            viz.Overlay(points=points, boundaries=curves, styles={curves[0].node: "newest"}),
            colors=viz.Colors(class_names=["a", "b", "c", "d"]),
        )
    )
    heat = traces(spec, "heatmap")
    assert len(heat) == 1 and heat[0]["zsmooth"] is False
    z = decode(heat[0]["z"])
    # A classifier's still picture: several pixels a cell (its edges at the crossings), uint8 codes, the
    # corners off the disk a transparent code past the classes'.
    refine = viz.smooth.refinement(grid)
    assert refine > 1 and z.shape == (50 * refine, 50 * refine) and z.dtype == np.uint8
    assert z[0, 0] == 4 * N_LEVELS and z[25 * refine, 25 * refine] < 4 * N_LEVELS
    names = [t.get("name") for t in spec["data"]]
    assert {"a", "b", "c", "d", "training point", "test point", "split boundary", "newest split", "rim"} <= set(names)
    assert spec["layout"]["yaxis"]["scaleanchor"] == "x"
    boundary = next(t for t in spec["data"] if t.get("name") == "split boundary")
    assert np.isfinite(np.asarray(decode(boundary["x"]), dtype=float)).sum() > 100


def test_sphere_and_torus_figures_are_cell_coloured_surfaces_with_smooth_edges(product_tree):
    sig, _X, _y, tree = product_tree
    for view in (viz.View("sphere", (1,), (0, 1, 2)), viz.View("torus", (2, 3))):
        grid = viz.view_grid(view, sig, resolution=24)
        regions = viz.predict_regions(tree, grid, viz.reference_point(sig))
        spec = figure_json(viz.region_figure(grid, regions))
        (cells,) = traces(spec, "surface")  # the cells' surface, then the region-edge patches over it
        (edges,) = traces(spec, "mesh3d")
        assert spec["data"].index(cells) == 0 and edges["intensitymode"] == "cell"
        assert edges["name"] == "region edges" and spec["data"].index(edges) == 1
        intensity = surface_cells(cells)
        assert intensity.dtype == np.uint8 and intensity.shape == (24, 24)
        np.testing.assert_array_equal(intensity, np.nan_to_num(region_codes(regions)).astype(np.uint8))
        assert decode(cells["x"]).dtype == np.float32 and "i" not in cells
        colours = decode(edges["intensity"])
        assert colours.dtype == np.uint8 and len(colours) == len(decode(edges["i"])) > 0
        assert spec["layout"]["scene"]["xaxis"]["visible"] is False


def test_circle_figure_is_a_ring_and_regression_gets_a_colour_bar():
    X, y = make_regression("S1", n_samples=100, n_clusters=3, random_state=0)
    model = ProductDecisionTreeRegressor(signature="S1", max_depth=3).fit(X, y)
    view = viz.View("circle", (0,))
    regions = viz.compute_regions(model, "S1", view, viz.reference_point("S1"), 20)
    curves = viz.boundary_curves(model, "S1", view, viz.reference_point("S1"))
    spec = figure_json(viz.region_figure(regions.grid, regions, viz.Overlay(boundaries=curves)))
    ring = traces(spec, "barpolar")
    assert len(ring) == 1 and len(decode(ring[0]["marker"]["color"])) == 40
    assert any(t.get("marker", {}).get("showscale") for t in spec["data"])
    assert traces(spec, "scatterpolar")


def test_preview_figure_without_a_model_draws_the_bare_manifold():
    X, y = make_classification("H2", n_samples=40, n_classes=2, n_clusters=2, random_state=0)
    view = viz.View("disk", (0,), (1, 2))
    grid = viz.view_grid(view, "H2", 10)
    points = viz.PointLayer(viz.project_points(view, "H2", X), class_index=y)
    spec = figure_json(viz.region_figure(grid, None, viz.Overlay(points=points)))
    assert not traces(spec, "heatmap") and any(t.get("fill") == "toself" for t in spec["data"])


def test_confusion_figure_annotates_counts():
    spec = figure_json(viz.confusion_figure(np.array([[3, 1], [0, 4]]), ["x", "y"]))
    heat = traces(spec, "heatmap")[0]
    assert heat["text"] == [["3", "1"], ["0", "4"]] and heat["x"] == ["x", "y"]


# ------------------------------------------------------------------ trees
def test_first_k_splits_replay_training(h2_tree):
    X, _y, tree = h2_tree
    order = viz.split_order(tree)
    assert np.all(np.diff(order) > 0)
    full = viz.first_splits(tree, len(order))
    assert np.array_equal(full.estimator.predict_proba(X), tree.predict_proba(X))
    root = viz.first_splits(tree, 0)
    assert root.estimator.tree_.node_count == 1 and root.newest is None
    assert np.allclose(root.estimator.predict_proba(X[:3]), tree.tree_.value[0])
    for k in (1, 3, len(order) - 1):
        pruned = viz.first_splits(tree, k)
        internal = pruned.estimator.tree_.children_left >= 0
        assert internal.sum() == k and pruned.newest == order[k - 1]
        assert set(pruned.kept[internal].tolist()) == set(order[:k].tolist())
        # A row reaching a leaf of the cut tree sits in that node of the full tree.
        leaves = pruned.kept[pruned.estimator.apply(X)]
        assert np.all(tree.decision_path(X).toarray()[np.arange(len(X)), leaves])
        assert pruned.to_new(pruned.newest) is not None and pruned.to_old(0) == 0


def test_tree_layout_centres_parents_over_children(h2_tree):
    _, _, tree = h2_tree
    x, depth = viz.tree_layout(tree)
    left, right = tree.tree_.children_left, tree.tree_.children_right
    for node in np.flatnonzero(left >= 0):
        assert x[left[node]] < x[node] < x[right[node]] and depth[left[node]] == depth[node] + 1
    leaves = np.flatnonzero(left < 0)
    assert sorted(x[leaves].tolist()) == list(range(len(leaves)))


def test_tree_figure_highlights_and_carries_original_ids(h2_tree):
    _X, _y, tree = h2_tree
    pruned = viz.first_splits(tree, 4)
    fig = viz.tree_figure(pruned.estimator, styles={pruned.newest: "newest"}, id_map=pruned.kept)
    spec = figure_json(fig)
    nodes = next(t for t in spec["data"] if t.get("name") == "nodes")
    assert sorted(np.asarray(decode(nodes["customdata"])).tolist()) == sorted(pruned.kept.tolist())
    assert any(t.get("name") == "newest split" for t in spec["data"])


def test_node_details_and_explained_paths(h2_tree):
    X, _y, tree = h2_tree
    root = viz.node_details(tree, 0)
    assert root["kind"] == "split" and root["samples"] == len(X) and "H2" in root["component"]
    assert abs(sum(root["distribution"].values()) - 1) < 1e-9 and "= 0" in root["boundary"]
    path = viz.decision_path_nodes(tree, X[5])
    lines = viz.explain_path(tree, X[5], ["a", "b", "c", "d"])
    assert len(lines) == len(path) and "leaf" in lines[-1] and "predicts" in lines[-1]
    assert all(line.endswith(("-> left", "-> right")) for line in lines[:-1])
    with pytest.raises(ValueError, match="node"):
        viz.node_details(tree, 10_000)


@pytest.mark.parametrize(
    ("signature", "params"),
    [("H2 x S2 x E2", {}), ("H2 x S2", {"splits": "geodesic+radial"}), ("S2 x E2", {"pairs": "all"})],
)
def test_an_explained_path_gives_the_points_own_value_on_the_side_it_takes(signature, params):
    """Each split's line carries the row's value of what the rule compares, and the side agrees with it."""
    X, y = make_classification(signature, n_samples=300, n_classes=3, random_state=0)
    tree = ProductDecisionTreeClassifier(signature=signature, max_depth=4, random_state=0, **params).fit(X, y)
    number = r"([-+]?\d+(?:\.\d+)?(?:e[-+]?\d+)?)"
    checked = set()
    for row in X[:40]:
        for line in viz.explain_path(tree, row)[:-1]:
            rule, own = line.split("; this point: ")
            value, side = own.rsplit(" -> ", 1)
            if "distance from origin" in rule:  # a ball: the left side is inside the radius
                bound, got = re.search("origin <= " + number, rule)[1], re.search("origin " + number, value)[1]
                kind = "radial"
                left = float(got) <= float(bound)
            elif "angle from" in rule:  # a cap: the left side is at least the angle from the pole
                kind, bound, got = "cap", re.search(">= " + number, rule)[1], re.search("x\\d " + number, value)[1]
                left = float(got) >= float(bound)
            elif "threshold" in rule:  # a Klein or Euclidean threshold, left when at most it
                kind, bound, got = "threshold", re.search("<= " + number, rule)[1], value.rsplit("= ", 1)[1]
                left = float(got) <= float(bound)
            else:  # a line through the origin, left when the normal's product is at most 0
                kind, got = "line", value.rsplit("= ", 1)[1]
                left = float(got) <= 0
            # Printed values are rounded: a row within rounding of the boundary may print equal to it.
            if abs(float(got) - (0.0 if kind == "line" else float(bound))) > 2e-3:
                assert side == ("left" if left else "right"), line
                checked.add(kind)
    expected = {"H2 x S2 x E2": {"threshold"}, "H2 x S2": {"radial"}, "S2 x E2": {"line"}}[signature]
    assert expected <= checked, checked


# ------------------------------------------------------------------ the tree diagram at depth 8
@pytest.fixture(scope="module")
def deep_tree():
    X, y = make_classification("H2 x S2", n_samples=3000, n_classes=8, n_clusters=16, cov_scale=0.35, random_state=0)
    tree = ProductDecisionTreeClassifier(signature="H2 x S2", max_depth=8, min_samples_leaf=3, random_state=0).fit(X, y)
    assert tree.get_depth() == 8 and tree.tree_.n_leaves > 100
    return tree


# The Inspector's diagram column at 1024 px (218 px measured in the browser), less the chart's margins.
COLUMN_PX = 198


def _diagram_boxes(spec: dict, width: float = COLUMN_PX):
    """Pixel boxes of a diagram's node markers and of its visible labels, at ``width`` px of plot area.

    Labels are estimated as Plotly writes them below a marker: 0.6 em per character of the
    widest line (digits and capitals of the default font), 1.3 em per line.
    """
    layout = spec["layout"]
    nodes = next(t for t in spec["data"] if t.get("name") == "nodes")
    x, y = decode(nodes["x"]).astype(float), decode(nodes["y"]).astype(float)
    (x0, x1), (y0, y1) = layout["xaxis"]["range"], layout["yaxis"]["range"]
    margin = layout.get("margin", {})
    height = layout["height"] - margin.get("t", 100) - margin.get("b", 80)
    px = (x - x0) / (x1 - x0) * width
    py = (y1 - y) / (y1 - y0) * height
    size = decode(nodes["marker"]["size"]).astype(float) * np.ones(len(x))
    font = float(nodes["textfont"]["size"])
    markers = [(a - s / 2, b - s / 2, a + s / 2, b + s / 2) for a, b, s in zip(px, py, size)]
    labels = []
    for a, b, s, text in zip(px, py, size, nodes.get("text") or [""] * len(x)):
        if text:
            lines = str(text).split("<br>")
            w, h = 0.6 * font * max(len(line) for line in lines), 1.3 * font * len(lines)
            labels.append((a - w / 2, b + s / 2, a + w / 2, b + s / 2 + h))
    return markers, labels, font


def _overlaps(boxes) -> list:
    return [
        (i, j)
        for i, a in enumerate(boxes)
        for j, b in enumerate(boxes[:i])
        if a[0] < b[2] - 0.5 and b[0] < a[2] - 0.5 and a[1] < b[3] - 0.5 and b[1] < a[3] - 0.5
    ]


@pytest.mark.parametrize("pick", ["root", "deep leaf", "middle"])
def test_a_depth_8_diagram_is_legible_in_the_inspector_column(deep_tree, pick):
    tree = deep_tree.tree_
    leaves = np.flatnonzero(tree.children_left < 0)
    node = {"root": 0, "deep leaf": int(leaves[-1]), "middle": int(np.flatnonzero(tree.children_left >= 0)[40])}[pick]
    spec = figure_json(viz.tree_figure(deep_tree, styles={node: "selected"}))
    markers, labels, font = _diagram_boxes(spec)
    assert font >= 11
    assert len(labels) >= 12, "a legible diagram still names its nodes"
    assert _overlaps(labels) == [], "labels overlap"
    assert _overlaps(markers) == [], "node markers overlap"
    # Labels neither cover markers nor leave the chart.
    n_labels = len(labels)
    assert [(i, j) for i, j in _overlaps(labels + markers) if (i < n_labels) != (j < n_labels)] == []
    assert min(b[0] for b in labels) >= -10 and max(b[2] for b in labels) <= COLUMN_PX + 10


def test_the_diagram_highlights_the_selected_node_and_its_path(deep_tree):
    tree = deep_tree.tree_
    node = int(np.flatnonzero(tree.children_left < 0)[-1])  # a leaf at the bottom right
    parents = {
        int(c): p for p in range(tree.node_count) for c in (tree.children_left[p], tree.children_right[p]) if c >= 0
    }
    chain = [node]
    while chain[-1] in parents:
        chain.append(parents[chain[-1]])
    spec = figure_json(viz.tree_figure(deep_tree, styles={node: "selected"}))
    nodes = next(t for t in spec["data"] if t.get("name") == "nodes")
    x, y, ids = decode(nodes["x"]), decode(nodes["y"]), decode(nodes["customdata"]).astype(int)
    where = {int(i): (float(a), float(b)) for a, b, i in zip(x, y, ids)}
    assert set(chain) <= set(where), "every node of the selected path is drawn"
    halo = next(t for t in spec["data"] if t.get("name") == "selected node")
    assert list(zip(decode(halo["x"]).tolist(), decode(halo["y"]).tolist())) == [where[node]]
    # The path's edges, root to the selected node, in the selection colour and thicker than the others.
    edges = next(t for t in spec["data"] if t.get("name") == "selected path")
    ex, ey = decode(edges["x"]), decode(edges["y"])
    drawn = {(ex[k], ey[k], ex[k + 1], ey[k + 1]) for k in range(0, len(ex) - 1, 3)}
    wanted = {(*where[p], *where[c]) for c, p in itertools.pairwise(chain)}
    assert drawn == wanted
    plain = next(t for t in spec["data"] if t.get("name") == "edges")
    assert edges["line"]["width"] > plain["line"]["width"] and edges["line"]["color"] != plain["line"]["color"]


def test_a_wide_tree_hides_subtrees_behind_clickable_nodes_and_a_small_one_is_drawn_whole(deep_tree, h2_tree):
    spec = figure_json(viz.tree_figure(deep_tree))
    nodes = next(t for t in spec["data"] if t.get("name") == "nodes")
    symbols = nodes["marker"]["symbol"]
    closed = [k for k, s in enumerate(symbols) if s == "triangle-down"]
    assert closed and len(decode(nodes["x"])) < deep_tree.tree_.node_count
    assert all("hidden" in nodes["hovertext"][k] for k in closed)
    assert any(t.get("name") == "hidden subtree (click)" for t in spec["data"])
    # Selecting a closed node opens it: its children are drawn.
    pick = int(decode(nodes["customdata"])[closed[0]])
    again = next(t for t in figure_json(viz.tree_figure(deep_tree, selected=pick))["data"] if t.get("name") == "nodes")
    children = {int(deep_tree.tree_.children_left[pick]), int(deep_tree.tree_.children_right[pick])}
    assert children <= set(decode(again["customdata"]).astype(int).tolist())
    _, _, small = h2_tree
    whole = next(t for t in figure_json(viz.tree_figure(small, width=None))["data"] if t.get("name") == "nodes")
    assert len(decode(whole["x"])) == small.tree_.node_count


# ------------------------------------------------------------------ wide framing and node ids
def _eye_length(spec) -> float:
    eye = spec["layout"]["scene"]["camera"]["eye"]
    return float(np.linalg.norm([eye["x"], eye["y"], eye["z"]]))


def test_a_wide_picture_is_taller_and_its_3d_camera_closer(product_tree, h2_tree):
    sig, _X, _y, tree = product_tree
    for view, distance in (
        (viz.View("sphere", (1,), (0, 1, 2)), viz.figures.SPHERE_EYE_DISTANCE),
        (viz.View("torus", (2, 3)), viz.figures.TORUS_EYE_DISTANCE),
    ):
        grid = viz.view_grid(view, sig, resolution=16)
        regions = viz.predict_regions(tree, grid, viz.reference_point(sig))
        narrow = figure_json(viz.region_figure(grid, regions))
        wide = figure_json(viz.region_figure(grid, regions, framing=viz.Framing(wide=True)))
        height, zoom, lift = viz.figures.WIDE_FRAMING[view.kind]
        assert wide["layout"]["height"] == height > narrow["layout"]["height"]
        assert zoom > 1.2
        assert _eye_length(narrow) == pytest.approx(distance)
        assert _eye_length(wide) == pytest.approx(distance / zoom)
        # Narrow pictures look at the scene's centre (Plotly's default); a wide torus looks below it.
        assert "center" not in narrow["layout"]["scene"]["camera"]
        centre = wide["layout"]["scene"]["camera"].get("center", {"z": 0.0})
        assert centre["z"] == pytest.approx(lift)
    assert viz.figures.WIDE_FRAMING["torus"][2] < 0  # the near rim is drawn lower: the camera looks down to it
    # The disk keeps its camera-free square plot and only gets the taller chart.
    _X, _y, h2 = h2_tree
    grid = viz.view_grid(viz.View("disk", (0,), (1, 2)), "H2", resolution=16)
    regions = viz.predict_regions(h2, grid, viz.reference_point("H2"))
    assert figure_json(viz.region_figure(grid, regions, framing=viz.Framing(wide=True)))["layout"]["height"] == 640
    assert figure_json(viz.region_figure(grid, regions))["layout"]["height"] == 560


def test_a_3d_picture_can_be_zoomed_by_the_page_and_a_bad_zoom_is_refused(product_tree):
    sig, _X, _y, tree = product_tree
    grid = viz.view_grid(viz.View("sphere", (1,), (0, 1, 2)), sig, resolution=12)
    regions = viz.predict_regions(tree, grid, viz.reference_point(sig))
    spec = figure_json(viz.region_figure(grid, regions, framing=viz.Framing(zoom=1.4)))
    assert _eye_length(spec) == pytest.approx(viz.figures.SPHERE_EYE_DISTANCE / 1.4)
    assert spec["layout"]["height"] == figure_json(viz.region_figure(grid, regions))["layout"]["height"]
    for bad in (0, -1.0, float("nan")):
        with pytest.raises(ValueError, match="zoom must be a positive number"):
            viz.region_figure(grid, regions, framing=viz.Framing(zoom=bad))


def _node_id_texts(spec) -> list[str]:
    labels = [t for t in spec["data"] if t.get("name") == "node ids"]
    assert len(labels) <= 1
    return [str(s) for s in (labels[0]["text"] if labels else []) if s]


def test_label_nodes_writes_every_drawn_id_or_only_the_listed_ones(h2_tree):
    _X, _y, tree = h2_tree
    grid = viz.view_grid(viz.View("disk", (0,), (1, 2)), "H2", resolution=24)
    curves = viz.boundary_curves(tree, "H2", grid.view, viz.reference_point("H2"), grid)
    drawn = {c.node for c in curves}
    assert len(drawn) >= 6
    every = _node_id_texts(
        figure_json(viz.region_figure(grid, overlay=viz.Overlay(boundaries=curves, label_nodes=True)))
    )
    assert sorted(map(int, every)) == sorted(drawn)
    assert _node_id_texts(figure_json(viz.region_figure(grid, overlay=viz.Overlay(boundaries=curves)))) == []
    chosen = set(sorted(drawn)[:3]) | {10**6}  # an id that draws no curve is ignored
    some = _node_id_texts(
        figure_json(viz.region_figure(grid, overlay=viz.Overlay(boundaries=curves, label_nodes=chosen)))
    )
    assert sorted(map(int, some)) == sorted(drawn)[:3]


def test_a_replay_writes_only_the_listed_ids_in_every_frame(h2_tree):
    _X, _y, tree = h2_tree
    grid = viz.view_grid(viz.View("disk", (0,), (1, 2)), "H2", resolution=24)
    curves = viz.boundary_curves(tree, "H2", grid.view, viz.reference_point("H2"), grid)
    order = [c.node for c in curves]
    frame_styles = [dict.fromkeys(order[:k], "split") for k in range(1, len(order) + 1)]
    regions = viz.predict_regions(tree, grid, viz.reference_point("H2"))
    chosen = set(order[1::2])
    spec = figure_json(
        viz.region_figure(
            grid,
            overlay=viz.Overlay(boundaries=curves, label_nodes=chosen),
            animation=viz.Animation(
                [regions] * len(frame_styles), active=len(frame_styles) - 1, boundary_styles=frame_styles
            ),
        )
    )
    assert sorted(map(int, _node_id_texts(spec))) == sorted(chosen)
    for styles, frame in zip(frame_styles, spec["frames"]):
        written = [t for t in frame["data"] if t.get("text") is not None]
        assert len(written) == 1
        ids = {int(s) for s in written[0]["text"] if s}
        assert ids == chosen & set(styles)


def test_a_klein_wrapped_trees_boundaries_are_drawn_where_its_thresholds_are():
    """Each curve of a Klein-wrapped scikit-learn tree lies on its split, ``x_j / x_0 = t``, and reaches its node."""
    from curvedtrees.klein import KleinTreeClassifier
    from sklearn.tree import DecisionTreeClassifier

    X, y = make_classification("H2", n_samples=400, n_classes=3, n_clusters=6, cov_scale=0.4, random_state=0)
    model = KleinTreeClassifier(DecisionTreeClassifier(max_depth=3, random_state=0), signature="H2").fit(X, y)
    view = viz.View("disk", (0,), (1, 2), "poincare")
    curves = viz.boundaries.klein_boundary_curves(model, view, X[0])
    inner = model.estimator_.tree_
    assert {c.node for c in curves} == set(np.flatnonzero(inner.children_left >= 0).tolist())
    for curve in curves:
        x, y_ = (np.asarray(curve.coords[k], dtype=np.float64) for k in ("x", "y"))
        keep = np.isfinite(x) & np.isfinite(y_)
        keep[keep] &= np.hypot(x[keep], y_[keep]) < 1 - 1e-6  # the drawn arc ends on the rim itself
        h = coords.poincare_to_hyperboloid(np.column_stack([x[keep], y_[keep]]))
        j = int(inner.feature[curve.node]) + 1  # Klein feature f of H2 is x_(f+1) / x_0
        np.testing.assert_allclose(h[:, j] / h[:, 0], inner.threshold[curve.node], atol=1e-6)
        # Cut to the piece that acts: every drawn sample reaches the split's node.
        reached = model.estimator_.decision_path(model.transform_features(h)).toarray()[:, curve.node]
        assert reached.all() and len(h) > 10
    with pytest.raises(ValueError, match="scikit-learn decision tree"):
        viz.boundaries.klein_boundary_curves(ProductDecisionTreeClassifier(signature="H2").fit(X, y), view, X[0])
