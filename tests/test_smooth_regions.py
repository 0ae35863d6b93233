"""Smooth region edges on the sphere and the torus (issue 18, item 4).

The pictures colour cells flat, so a region's edge used to step from cell to cell. The
figure now lays patches cut at the crossings found by bisection over the edges. These tests
measure, on the figure JSON the browser gets, how far the drawn edges lie from the model's
exact boundary (a known great circle, a known angle), in grid cells: the old per-cell
colouring is off by a third of a cell on average and most of a cell at worst; the patches
by a few hundredths.
"""

from __future__ import annotations

import base64
import json

import numpy as np
import pytest
from curvedtrees import viz
from curvedtrees.sampling import make_classification
from curvedtrees.trees import ProductDecisionTreeClassifier, ProductDecisionTreeRegressor
from curvedtrees.viz import smooth
from curvedtrees.viz.figures.solid import mesh_faces
from curvedtrees.viz.palette import N_LEVELS, confidence_levels
from scipy.spatial import cKDTree

RESOLUTION = 150  # the app's default
SPHERE = viz.View("sphere", (0,), (0, 1, 2))
TORUS = viz.View("torus", (0, 1))


def decode(value) -> np.ndarray:
    if isinstance(value, dict) and "bdata" in value:
        arr = np.frombuffer(base64.b64decode(value["bdata"]), dtype=np.dtype(value["dtype"]))
        return arr.reshape(value["shape"]) if "shape" in value and isinstance(value["shape"], list) else arr
    return np.asarray(value)


def spec_of(fig) -> dict:
    return json.loads(fig.to_json())


def meshes(trace: dict) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(vertices (n, 3) float64, triangles (m, 3) int64, class of each triangle) of a Mesh3d trace."""
    xyz = np.column_stack([decode(trace[k]).astype(np.float64) for k in "xyz"])
    tri = np.column_stack([decode(trace[k]).astype(np.int64) for k in "ijk"])
    return xyz, tri, decode(trace["intensity"]).astype(np.int64) // N_LEVELS


def class_edges(xyz: np.ndarray, tri: np.ndarray, cls: np.ndarray) -> np.ndarray:
    """Both ends (k, 2, 3) of every mesh edge between two triangles of different classes.

    Vertices are matched by position (rounded), so pieces that do not share vertex ids
    still meet.
    """
    _, key = np.unique(np.round(xyz, 5), axis=0, return_inverse=True)
    key = key.ravel()
    ends = np.concatenate([tri[:, [0, 1]], tri[:, [1, 2]], tri[:, [2, 0]]])
    owner = np.tile(np.arange(len(tri)), 3)
    pair = np.sort(key[ends], axis=1)
    order = np.lexsort((pair[:, 1], pair[:, 0]))
    pair, ends, owner = pair[order], ends[order], owner[order]
    same = np.all(pair[1:] == pair[:-1], axis=1)
    differ = same & (cls[owner[1:]] != cls[owner[:-1]])
    return xyz[ends[1:][differ]]


def cell_mesh(regions) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The cells drawn flat, one colour each (what the pictures drew before the edges were smoothed)."""
    grid = regions.grid
    xyz = np.column_stack([np.asarray(grid.coords[k], dtype=np.float64).ravel() for k in ("vx", "vy", "vz")])
    i, j, k = mesh_faces(*grid.shape)
    cls = regions.class_index.ravel().astype(np.int64)
    return xyz, np.column_stack([i, j, k]).astype(np.int64), np.concatenate([cls, cls])


def drawn_edges(spec: dict) -> np.ndarray:
    """Ends of the visible class edges: the patches'."""
    (found,) = [t for t in spec["data"] if t.get("name") == "region edges"]
    return class_edges(*meshes(found))


def fit_split(signature: str, label) -> ProductDecisionTreeClassifier:
    """A one-split tree on points labelled by ``label(X)``: its boundary is known exactly."""
    X, _ = make_classification(signature, n_samples=800, n_classes=2, n_clusters=4, cov_scale=2.0, random_state=0)
    tree = ProductDecisionTreeClassifier(signature=signature, max_depth=1).fit(X, label(X).astype(int))
    assert tree.tree_.node_count == 3
    return tree


def sphere_distance(points: np.ndarray, normal: np.ndarray, rows: int) -> np.ndarray:
    """Angle between points and the great circle orthogonal to ``normal``, in cell heights (180 / rows degrees)."""
    unit = points / np.linalg.norm(points, axis=1, keepdims=True)
    angle = np.arcsin(np.clip(np.abs(unit @ (normal / np.linalg.norm(normal))), 0.0, 1.0))
    return angle / (np.pi / rows)


def torus_angles(points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(ring angle, tube angle) of 3-D torus points, whatever their lift off the surface."""
    a = np.arctan2(points[:, 1], points[:, 0])
    b = np.arctan2(points[:, 2], np.hypot(points[:, 0], points[:, 1]) - viz.views.TORUS_RADII[0])
    return a, b


def circle_distance(angle: np.ndarray, boundary: float, n: int) -> np.ndarray:
    """Angular distance to the nearer of ``boundary`` and its antipode, in cells (360 / n degrees)."""
    gap = np.abs((angle - boundary + np.pi / 2) % np.pi - np.pi / 2)
    return gap / (2 * np.pi / n)


def sphere_case():
    normal = np.array([0.6, -0.3, 0.74])
    tree = fit_split("S2", lambda X: X @ normal > 0)
    _, a, _ = viz.split_plane(tree, 0, "S2")
    return tree, "S2", SPHERE, a


def errors(ends: np.ndarray, case: str, plane) -> np.ndarray:
    ends = ends.reshape(-1, 3)
    if case == "sphere":
        return sphere_distance(ends, plane, RESOLUTION)
    a, b = torus_angles(ends)
    component, angle = plane
    return circle_distance(a if component == 0 else b, angle, RESOLUTION)


def torus_case(component: int):
    def label(X):
        block = X[:, 2 * component : 2 * component + 2]
        return np.arctan2(block[:, 1], block[:, 0]) > 0.7

    tree = fit_split("S1 x S1", label)
    comp, a, _ = viz.split_plane(tree, 0, "S1 x S1")
    assert comp == component
    angle = np.arctan2(-a[0], a[1])  # a . (cos t, sin t) = 0
    return tree, "S1 x S1", TORUS, (component, angle)


CASES = {"sphere": sphere_case, "torus ring": lambda: torus_case(0), "torus tube": lambda: torus_case(1)}


@pytest.mark.parametrize("case", list(CASES))
def test_drawn_region_edges_follow_the_exact_boundary(case):
    tree, signature, view, plane = CASES[case]()
    grid = viz.view_grid(view, signature, RESOLUTION)
    reference = viz.reference_point(signature)
    kind = "sphere" if case == "sphere" else "torus"
    smooth_spec = spec_of(viz.region_figure(grid, viz.predict_regions(tree, grid, reference)))
    cells = class_edges(*cell_mesh(viz.predict_regions(tree, grid, reference, smooth=False)))
    before, after = errors(cells, kind, plane), errors(drawn_edges(smooth_spec), kind, plane)
    assert len(before) > RESOLUTION and len(after) > RESOLUTION  # the whole boundary is drawn
    # The cell mesh steps up to about a cell away from a great circle (on the torus a circle of constant
    # angle runs along a grid line, up to half a cell off); the patches stay on the boundary.
    assert before.mean() > 0.2 and before.max() > (0.5 if kind == "sphere" else 0.2), (before.mean(), before.max())
    assert after.mean() < 0.03 and after.max() < 0.1, (after.mean(), after.max())
    assert after.mean() < before.mean() / 8


# ------------------------------------------------------------------ a picture with many regions
def demo_tree(signature: str, depth: int = 6):
    """The sphere and torus demos' kind of model: five classes, a depth-6 tree."""
    X, y = make_classification(signature, n_samples=600, n_classes=5, n_clusters=5, cov_scale=0.25, random_state=1)
    return ProductDecisionTreeClassifier(signature=signature, max_depth=depth, random_state=0).fit(X, y)


def on_surface(points: np.ndarray, kind: str) -> np.ndarray:
    """3-D points moved onto the drawn surface (the cell mesh is drawn a little below it)."""
    if kind == "sphere":
        return points / np.linalg.norm(points, axis=1, keepdims=True)
    xyz = viz.views.torus_xyz(*torus_angles(points))
    return np.column_stack([xyz[k] for k in "xyz"]).astype(np.float64)


def covered(points: np.ndarray, xyz: np.ndarray, tri: np.ndarray, tol: float = 1e-3) -> np.ndarray:
    """Which points lie in some triangle of a mesh (projected onto the triangle's plane)."""
    corners = xyz[tri]  # (m, 3, 3)
    near = cKDTree(corners.mean(axis=1)).query(points, k=min(16, len(tri)))[1]
    a, b, c = (corners[near, s] for s in range(3))  # (n, k, 3)
    e1, e2, d = b - a, c - a, points[:, None, :] - a
    d11, d12, d22 = (e1 * e1).sum(-1), (e1 * e2).sum(-1), (e2 * e2).sum(-1)
    p1, p2 = (d * e1).sum(-1), (d * e2).sum(-1)
    det = np.where(np.abs(d11 * d22 - d12**2) > 0, d11 * d22 - d12**2, np.inf)  # zero-area pieces hold nothing
    u, v = (d22 * p1 - d12 * p2) / det, (d11 * p2 - d12 * p1) / det
    return ((u >= -tol) & (v >= -tol) & (u + v <= 1 + tol)).any(axis=1)


def cell_class(class_index: np.ndarray, kind: str, points: np.ndarray) -> np.ndarray:
    """The class of the grid cell under each 3-D picture point (what the cell mesh alone draws there)."""
    rows, cols = class_index.shape
    if kind == "sphere":
        unit = points / np.linalg.norm(points, axis=1, keepdims=True)
        lat, lon = viz.unit_to_latlon(unit)
        r, c = (lat + 90.0) / 180.0 * rows, (lon + 180.0) / 360.0 * cols
    else:
        a, b = torus_angles(points)
        r, c = (b + np.pi) / (2 * np.pi) * rows, (a + np.pi) / (2 * np.pi) * cols
    return class_index[np.clip(r.astype(int), 0, rows - 1), np.clip(c.astype(int), 0, cols - 1)]


def agreement(model, class_index, kind: str, signature: str, xyz, tri, drawn) -> tuple[float, float]:
    """Share of pieces (the larger 90%) whose drawn class is the model's at their centroid, and the same
    share for the cell mesh alone at those points.

    Features thinner than a cell (a sliver between two cell centres of one class) are missed by
    both; what matters is that the pieces are right nearly everywhere and far more often than cells.
    """
    area = np.linalg.norm(np.cross(xyz[tri[:, 1]] - xyz[tri[:, 0]], xyz[tri[:, 2]] - xyz[tri[:, 0]]), axis=1)
    big = area > np.quantile(area, 0.1)
    centres = xyz[tri[big]].mean(axis=1)
    truth = model_class(model, kind, signature, centres)
    return float(np.mean(truth == drawn[big])), float(np.mean(truth == cell_class(class_index, kind, centres)))


def model_class(tree, kind: str, signature: str, points: np.ndarray) -> np.ndarray:
    """The model's class index at 3-D picture points on the surface."""
    if kind == "sphere":
        values = points / np.linalg.norm(points, axis=1, keepdims=True)
    else:
        a, b = torus_angles(points)
        values = np.column_stack([np.cos(a), np.sin(a), np.cos(b), np.sin(b)])
    return np.searchsorted(tree.classes_, tree.predict(values))


@pytest.mark.parametrize("kind", ["sphere", "torus"])
def test_patches_cover_every_step_and_colour_each_piece_as_the_model_predicts(kind):
    signature, view = ("S2", SPHERE) if kind == "sphere" else ("S1 x S1", TORUS)
    tree = demo_tree(signature)
    grid = viz.view_grid(view, signature, RESOLUTION)
    regions = viz.predict_regions(tree, grid, viz.reference_point(signature))
    spec = spec_of(viz.region_figure(grid, regions))
    (patch,) = [t for t in spec["data"] if t.get("name") == "region edges"]
    assert spec["data"].index(patch) == 1 and patch["intensitymode"] == "cell"
    assert decode(patch["intensity"]).dtype == np.uint8 and patch["colorscale"] == spec["data"][0]["colorscale"]
    xyz, tri, cls = meshes(patch)
    # Every edge between two cells of different classes (the steps flat cells would draw) lies under the patches.
    steps = class_edges(*cell_mesh(regions))
    assert len(steps) > 100
    for share in (0.25, 0.75):
        points = on_surface((1 - share) * steps[:, 0] + share * steps[:, 1], kind)
        if kind == "sphere":
            # The polar rows' outer halves are left to the cells (far narrower than a pixel there).
            points = points[np.abs(points[:, 2]) < np.cos(np.pi / RESOLUTION / 2)]
        inside = covered(points, xyz, tri)
        assert inside.all(), f"{(~inside).sum()} of {len(inside)} steps uncovered"
    # Each piece shows the class the model predicts inside it, far more often than the cells did there.
    pieces, cells = agreement(tree, regions.class_index, kind, signature, xyz, tri, cls)
    assert pieces > 0.97 and 1 - pieces <= (1 - cells) / 3, (pieces, cells)
    # The cells' surface sits below the patches: the depth buffer keeps the patches on top.
    assert spec["data"][0]["type"] == "surface" and decode(spec["data"][0]["surfacecolor"]).dtype == np.uint8
    cells = np.column_stack([decode(spec["data"][0][k]).astype(np.float64).ravel() for k in "xyz"])
    if kind == "sphere":
        assert np.linalg.norm(cells, axis=1).max() < np.linalg.norm(xyz, axis=1).min()
    else:
        tube = np.hypot(np.hypot(cells[:, 0], cells[:, 1]) - viz.views.TORUS_RADII[0], cells[:, 2])
        assert tube.max() < viz.views.TORUS_RADII[1]


def test_a_region_grid_without_crossings_draws_the_cells_alone():
    # Regression, the disk, and a picture asked not to smooth: the cells alone (a surface or heatmap), no patches.
    X, y = make_classification("S2", n_samples=200, n_classes=3, random_state=0)
    regressor = ProductDecisionTreeRegressor(signature="S2", max_depth=4).fit(X, y.astype(float))
    grid = viz.view_grid(SPHERE, "S2", 40)
    values = viz.predict_regions(regressor, grid, viz.reference_point("S2"))
    assert values.cuts is None
    tree = demo_tree("S2", 4)
    plain = viz.predict_regions(tree, grid, viz.reference_point("S2"), smooth=False)
    for regions in (values, plain):
        spec = spec_of(viz.region_figure(grid, regions))
        types = [t["type"] for t in spec["data"]]
        assert types[:1] == ["surface"] and "mesh3d" not in types
    disk = viz.compute_regions(demo_tree("H2", 4), "H2", viz.View("disk", (0,), (1, 2)), viz.reference_point("H2"), 40)
    assert disk.cuts is not None  # a flat picture's crossings refine its heatmap (tests/test_smooth_flat.py)
    circle = viz.compute_regions(demo_tree("S1", 4), "S1", viz.View("circle", (0,)), viz.reference_point("S1"), 40)
    assert circle.cuts is None
    # One class everywhere: no crossing, an empty (zero-area) patch that frames can still restyle.
    one = ProductDecisionTreeClassifier(signature="S2", max_depth=1).fit(X, np.zeros(len(X), dtype=int))
    regions = viz.predict_regions(one, grid, viz.reference_point("S2"))
    assert regions.cuts is not None and len(regions.cuts) == 0
    (patch,) = [t for t in spec_of(viz.region_figure(grid, regions))["data"] if t.get("name") == "region edges"]
    assert len(decode(patch["i"])) == 1 and np.all(decode(patch["x"]) == 0)


def test_bisection_costs_a_few_predict_calls_on_the_cut_edges_only():
    tree = demo_tree("S2")
    grid = viz.view_grid(SPHERE, "S2", 80)
    reference = viz.reference_point("S2")
    labels = tree.apply(viz.product_rows(grid, reference))
    calls = []

    def classify(values):
        calls.append(len(values))
        return tree.apply(viz.product_rows(grid, reference, values))

    cuts = smooth.find_cuts(grid, labels, classify)
    edges = smooth.dual_edges(grid)
    differ = labels[edges[:, 0]] != labels[edges[:, 1]]
    assert calls == [int(differ.sum())] * smooth.BISECTION_STEPS and 0 < differ.sum() < len(edges) // 5
    assert np.array_equal(cuts.edges, edges[differ]) and cuts.t.dtype == np.float32
    # Each cell meets its next column, next row and diagonal neighbour once (the top row wraps only across).
    assert len(edges) == 3 * 80 * 80 - 2 * 80 and len(np.unique(np.sort(edges, axis=1), axis=0)) == len(edges)
    # Each triangle side names the edge between its two corners.
    tri, sides = smooth._dual_mesh(grid)
    _, ids = smooth._cut_edges(grid)
    at = np.full(3 * 80 * 80, -1)
    at[ids] = np.arange(len(ids))
    for s in range(3):
        named = np.sort(edges[at[sides[:, s]]], axis=1)
        assert np.all(at[sides[:, s]] >= 0) and np.array_equal(named, np.sort(tri[:, [s, (s + 1) % 3]], axis=1))
    assert np.all((cuts.t > 0) & (cuts.t < 1))
    # The label really changes within the bisection's tolerance on each side of every crossing.
    params = smooth._params(grid)
    start, end = params[cuts.edges[:, 0]], params[cuts.edges[:, 1]]
    tol = 2.0 ** -(smooth.BISECTION_STEPS + 1)
    before = classify(smooth._ambient(grid, smooth._lerp(grid, start, end, np.maximum(cuts.t - tol - 1e-6, 0))))
    assert np.all(before == labels[cuts.edges[:, 0]])
    with pytest.raises(ValueError, match="labels for a grid"):
        smooth.find_cuts(grid, labels[:-1], classify)
    with pytest.raises(ValueError, match="sphere and the torus"):
        smooth.find_cuts(viz.view_grid(viz.View("disk", (0,), (1, 2)), "H2", 10), labels, classify)


# ------------------------------------------------------------------ the replay
def replay_spec(kind: str, smooth_edges: bool = True):
    signature, view = ("S2", SPHERE) if kind == "sphere" else ("S1 x S1", TORUS)
    tree = demo_tree(signature)
    grid = viz.view_grid(view, signature, RESOLUTION)
    reference = viz.reference_point(signature)
    replay = viz.replay_regions(tree, grid, reference)
    if smooth_edges:
        replay = viz.smooth_replay(tree, replay, reference)
    styles = [{int(n): "split" for n in replay.nodes(f)} for f in range(len(replay.steps))]
    curves = viz.boundary_curves(tree, signature, view, reference, grid)
    fig = viz.region_figure(
        grid,
        None,
        viz.Overlay(boundaries=curves, label_nodes=True),
        animation=replay.animation(styles),
    )
    return fig.to_json(), replay, tree


@pytest.mark.parametrize("kind", ["sphere", "torus"])
def test_replay_frames_recolour_one_set_of_pieces(kind):
    text, replay, tree = replay_spec(kind)
    spec = json.loads(text)
    cuts = replay.frames[0].cuts
    assert cuts is not None and all(f.cuts is cuts for f in replay.frames)
    (patch,) = [t for t in spec["data"] if t.get("name") == "region edges"]
    at = spec["data"].index(patch)
    xyz, tri, last = meshes(patch)
    frames = spec["frames"]
    assert len(frames) == len(replay.steps)
    # Every frame restyles the same traces (regions, edges, then the boundaries), and the edges' colours only.
    assert all(f["traces"] == frames[0]["traces"] for f in frames) and frames[0]["traces"][:2] == [0, at]
    for f, frame in enumerate(frames):
        edge = frame["data"][1]
        assert set(edge) <= {"type", "intensity"}, set(edge)
        colours = decode(edge["intensity"])
        assert colours.dtype == np.uint8 and len(colours) == len(tri)
        if f in (1, len(frames) // 2, len(frames) - 1):
            # Each piece shows what the tree stopped after that many splits predicts inside it.
            pruned = viz.first_splits(tree, int(replay.steps[f])).estimator
            signature = "S2" if kind == "sphere" else "S1 x S1"
            drawn = colours // N_LEVELS
            pieces, cells = agreement(pruned, replay.frames[f].class_index, kind, signature, xyz, tri, drawn)
            assert pieces > 0.97 and 1 - pieces <= (1 - cells) / 3, (f, pieces, cells)
    assert np.array_equal(decode(frames[-1]["data"][1]["intensity"]) // N_LEVELS, last)
    assert len(np.unique(decode(frames[0]["data"][1]["intensity"]) // N_LEVELS)) == 1  # no split yet: one class


@pytest.mark.parametrize("kind", ["sphere", "torus"])
def test_smooth_edges_keep_the_figure_json_within_budget(kind):
    tree = demo_tree("S2" if kind == "sphere" else "S1 x S1")
    signature, view = ("S2", SPHERE) if kind == "sphere" else ("S1 x S1", TORUS)
    grid = viz.view_grid(view, signature, RESOLUTION)
    reference = viz.reference_point(signature)
    static = len(viz.region_figure(grid, viz.predict_regions(tree, grid, reference)).to_json())
    cells = len(viz.region_figure(grid, viz.predict_regions(tree, grid, reference, smooth=False)).to_json())
    # A default picture: the patches add at most half to the cells' surface (about 0.7 MB in all; the
    # cell mesh of faces it replaces weighed 1.2 MB).
    assert static < 1.5 * cells and static < 800_000, (static, cells)
    smooth_replay, _, _ = replay_spec(kind)
    plain_replay, _, _ = replay_spec(kind, smooth_edges=False)
    # A replay sends the pieces once and a byte per piece and frame (the boundaries' own frames weigh more).
    assert len(smooth_replay) < 1.4 * len(plain_replay), (len(smooth_replay), len(plain_replay))


def test_month_frames_of_a_classifier_send_each_frames_own_pieces():
    X, y = make_classification("S2 x S1", n_samples=600, n_classes=3, n_clusters=6, random_state=0)
    forest = ProductDecisionTreeClassifier(signature="S2 x S1", max_depth=5, random_state=0).fit(X, y)
    view = viz.View("sphere", (0,), (0, 1, 2))
    grid = viz.view_grid(view, "S2 x S1", 40)
    references = []
    for angle in (0.0, 2.0, 4.0):
        ref = viz.reference_point("S2 x S1").copy()
        ref[3:5] = [np.cos(angle), np.sin(angle)]
        references.append(ref)
    frames = viz.predict_frames(forest, grid, references)
    assert all(f.cuts is not None for f in frames) and frames[0].cuts is not frames[1].cuts
    spec = spec_of(viz.region_figure(grid, animation=viz.Animation(frames)))
    assert spec["data"][1]["name"] == "region edges"
    for frame, regions in zip(spec["frames"], frames):
        assert frame["traces"] == [0, 1]
        edge = frame["data"][1]
        tri = np.column_stack([decode(edge[k]).astype(np.int64) for k in "ijk"])
        assert len(decode(edge["intensity"])) == len(tri) and tri.max() < len(decode(edge["x"]))
        assert len(tri) == max(len(smooth.edge_patches(grid, regions.cuts)), 1)  # none: one empty piece


def test_a_fine_grid_is_predicted_coarse_to_fine_and_draws_as_the_full_predict():
    from curvedtrees.trees import ProductRandomForestClassifier
    from curvedtrees.viz import regions as regions_module

    X, y = make_classification("S2", n_samples=600, n_classes=3, n_clusters=6, random_state=0)
    forest = ProductRandomForestClassifier(8, signature="S2", max_depth=6, random_state=0).fit(X, y)
    reference = viz.reference_point("S2")
    predicted = []
    own = forest.predict_proba
    forest.predict_proba = lambda rows, *args, **kwargs: predicted.append(len(rows)) or own(rows, *args, **kwargs)
    try:
        coarse = viz.view_grid(SPHERE, "S2", regions_module.SAMPLED_FROM - 1)
        viz.predict_regions(forest, coarse, reference, smooth=False)
        assert predicted == [coarse.mask.sum()]  # below SAMPLED_FROM: every cell, once
        predicted.clear()
        grid = viz.view_grid(SPHERE, "S2", regions_module.SAMPLED_FROM)
        regions = viz.predict_regions(forest, grid, reference, smooth=False)
    finally:
        del forest.predict_proba
    n_cells = grid.mask.sum()
    # The lattice first (every SAMPLE_STRIDE-th cell each way), then fewer rows than the grid in all.
    lattice = len(regions_module._lattice(grid.shape[0], regions_module.SAMPLE_STRIDE)) ** 2
    assert predicted[0] == lattice and sum(predicted) < 0.6 * n_cells, (predicted, n_cells)
    full = forest.predict_proba(viz.product_rows(grid, reference))
    drawn = regions_module._codes(full).reshape(grid.shape)
    levels = confidence_levels(regions.confidence.ravel(), 3).reshape(grid.shape)
    sampled = regions.class_index * N_LEVELS + levels
    assert (regions.class_index.ravel() == full.argmax(axis=1)).mean() > 0.999
    # A cell's shade may come from a neighbouring sample's where a shade's patch is under the stride.
    assert (sampled == drawn).mean() > 0.97
