"""Smooth region edges on flat pictures: the Poincaré and Klein disks, the plane, the world map (issue 25, item 4).

A flat picture's regions were a heatmap of one pixel a cell, so a region's edge stepped from cell
to cell. A classifier's picture now finds the crossings of its class changes between cell centres
(as on the sphere) and draws its heatmap several pixels a cell, each pixel near an edge coloured
by the piece of its square of centres it lies in. These tests measure, on the figure JSON the
browser gets, how far the drawn edges (between neighbouring pixels of different classes) lie
from the model's exact boundary, in grid cells at the default resolution, before and after.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from curvedtrees import coords, viz
from curvedtrees.sampling import make_classification
from curvedtrees.trees import ProductDecisionTreeClassifier
from curvedtrees.viz import smooth
from curvedtrees.viz.palette import N_LEVELS, confidence_levels
from test_viz import decode

RESOLUTION = 150  # the app's default


def fit_split(signature: str, label) -> ProductDecisionTreeClassifier:
    """A one-split tree on points labelled by ``label(X)``: its boundary is known exactly."""
    X, _ = make_classification(signature, n_samples=800, n_classes=2, n_clusters=4, cov_scale=1.0, random_state=0)
    tree = ProductDecisionTreeClassifier(signature=signature, max_depth=1).fit(X, label(X).astype(int))
    assert tree.tree_.node_count == 3
    return tree


def picture_to_ambient(view: viz.View, xy: np.ndarray) -> np.ndarray:
    """Picture points (n, 2) -> ambient points of the component (H2 on the hyperboloid, S2 unit vectors)."""
    if view.kind == "disk":
        to = coords.poincare_to_hyperboloid if view.model == "poincare" else coords.klein_to_hyperboloid
        return to(xy)
    return coords.latlon_to_sphere(xy[:, 1], xy[:, 0])


def distance(view: viz.View, plane, xy: np.ndarray, cell: float) -> np.ndarray:
    """First-order distance (in cells) of picture points from the boundary ``a . x + c = 0``: |f| / |grad f|."""
    a, const = plane
    h = 1e-4 * cell

    def f(points):
        return picture_to_ambient(view, points) @ a + const

    value = f(xy)
    dx, dy = np.array([h, 0.0]), np.array([0.0, h])
    grad = np.column_stack([(f(xy + dx) - f(xy - dx)) / (2 * h), (f(xy + dy) - f(xy - dy)) / (2 * h)])
    return np.abs(value) / np.linalg.norm(grad, axis=1) / cell


def drawn_edges(trace: dict, outside: int | None) -> np.ndarray:
    """Midpoints (k, 2) between neighbouring heatmap pixels of different classes."""
    z = decode(trace["z"]).astype(np.float64)
    x, y = decode(trace["x"]).astype(np.float64), decode(trace["y"]).astype(np.float64)
    cls = np.floor(z / N_LEVELS)
    off = ~np.isfinite(z) | ((z == outside) if outside is not None else False)
    cls[off] = -1
    out = []
    across = (cls[:, 1:] != cls[:, :-1]) & (cls[:, 1:] >= 0) & (cls[:, :-1] >= 0)
    r, c = np.nonzero(across)
    out.append(np.column_stack([(x[c] + x[c + 1]) / 2, y[r]]))
    up = (cls[1:] != cls[:-1]) & (cls[1:] >= 0) & (cls[:-1] >= 0)
    r, c = np.nonzero(up)
    out.append(np.column_stack([x[c], (y[r] + y[r + 1]) / 2]))
    return np.concatenate(out)


def disk_case(model: str):
    tree = fit_split("H2", lambda X: 0.8 * X[:, 1] - 0.5 * X[:, 2] > 0.6)
    return tree, "H2", viz.View("disk", (0,), (1, 2), model)


def map_case():
    normal = np.array([0.6, -0.3, 0.74])
    return fit_split("S2", lambda X: X @ normal > 0), "S2", viz.View("map", (0,), (0, 1, 2))


CASES = {"poincare": lambda: disk_case("poincare"), "klein": lambda: disk_case("klein"), "map": map_case}


@pytest.mark.parametrize("case", list(CASES))
def test_flat_region_edges_follow_the_exact_boundary(case):
    tree, signature, view = CASES[case]()
    grid = viz.view_grid(view, signature, RESOLUTION)
    reference = viz.reference_point(signature)
    _, a, const = viz.split_plane(tree, 0, signature)
    cell = (
        (grid.coords["lat"][1] - grid.coords["lat"][0])
        if view.kind == "map"
        else grid.coords["x"][1] - grid.coords["x"][0]
    )
    found = []
    for smooth_edges in (False, True):
        regions = viz.predict_regions(tree, grid, reference, smooth=smooth_edges)
        trace = json.loads(viz.region_figure(grid, regions).to_json())["data"][0]
        assert trace["type"] == "heatmap"
        outside = 2 * N_LEVELS if decode(trace["z"]).dtype == np.uint8 else None
        ends = drawn_edges(trace, outside)
        found.append(distance(view, (a, const), ends, cell))
    before, after = found
    assert len(before) > RESOLUTION // 2 and len(after) > 2 * len(before)  # the whole edge, at finer pixels
    print(f"{case}: before mean {before.mean():.3f} max {before.max():.3f}", end="; ")
    print(f"after mean {after.mean():.3f} max {after.max():.3f}")
    # Cells step up to half a cell from the boundary (on the Klein disk a split is a straight line along the
    # grid, a constant offset); pixels are a quarter of a cell, placed by the crossings (the last cell
    # inside the disk's rim, whose square reaches off the disk, keeps its step).
    assert before.mean() > 0.15 and before.max() > 0.4, (before.mean(), before.max())
    assert after.mean() < 0.08 and after.max() < 0.4, (after.mean(), after.max())
    assert after.mean() < before.mean() / 3


def test_flat_crossings_cost_a_few_predicts_and_refine_only_still_classifiers():
    tree, signature, view = CASES["poincare"]()
    grid = viz.view_grid(view, signature, 60)
    predicted = []  # rows of each predict call
    own = tree.predict_proba
    tree.predict_proba = lambda X, *args, **kwargs: predicted.append(len(X)) or own(X, *args, **kwargs)
    try:
        regions = viz.predict_regions(tree, grid, viz.reference_point(signature))
    finally:
        del tree.predict_proba
    assert regions.cuts is not None and 0 < len(regions.cuts) < 3 * 60 * 4
    # One predict of the grid's cells, then a bisection step of the cut edges alone per call.
    assert 2 <= len(predicted) <= 1 + smooth.BISECTION_STEPS, predicted
    assert all(rows == len(regions.cuts) for rows in predicted[1:]), (predicted, len(regions.cuts))
    # Off the disk no edge is cut: every cut joins two cells on it.
    assert grid.mask[regions.cuts.edges].all()
    spec = json.loads(viz.region_figure(grid, regions).to_json())
    z = decode(spec["data"][0]["z"])
    assert z.dtype == np.uint8 and z.shape == (60 * smooth.refinement(grid),) * 2 and smooth.refinement(grid) == 4
    # Animation frames stay a byte a cell.
    frames = viz.predict_frames(tree, grid, [viz.reference_point(signature)] * 2)
    assert all(f.cuts is None for f in frames)


def test_a_flat_picture_drawn_a_pixel_a_cell_finds_no_crossings_and_figures_reuse_their_pixels(monkeypatch):
    from curvedtrees.viz.figures import flat

    tree, signature, view = CASES["poincare"]()
    reference = viz.reference_point(signature)
    fine = viz.view_grid(view, signature, smooth.FLAT_PIXELS // 2 + 1)
    assert smooth.refinement(fine) == 1 and viz.predict_regions(tree, fine, reference).cuts is None
    grid = viz.view_grid(view, signature, 60)
    regions = viz.predict_regions(tree, grid, reference)
    first = json.loads(viz.region_figure(grid, regions).to_json())["data"][0]["z"]
    counted = []
    raster, patches = flat.raster_codes, smooth.edge_patches
    monkeypatch.setattr(flat, "raster_codes", lambda *a: counted.append("raster") or raster(*a))
    monkeypatch.setattr(smooth, "edge_patches", lambda *a: counted.append("patches") or patches(*a))
    again = json.loads(viz.region_figure(grid, regions, framing=viz.Framing(wide=True)).to_json())["data"][0]["z"]
    # The second figure of the same regions draws the same pixels without cutting or rasterising again.
    assert counted == [] and again == first
    # Regions of their own (a highlighted node's dimmed copy, another model's) are drawn afresh.
    viz.region_figure(grid, viz.predict_regions(tree, grid, reference)).to_json()
    assert counted == ["patches", "raster"]


# ------------------------------------------------------------------ confidence shades between cell centres
def ramp_case(refine: int = 4, n: int = 20):
    """One class whose confidence rises linearly along a diagonal: its shade edges are straight lines."""
    centres = np.arange(n, dtype=np.float64)
    gx, gy = np.meshgrid(centres, centres)

    def confidence(x, y):
        return 0.5 + 0.5 * (x + 0.6 * y) / (1.6 * (n - 1))

    class_index = np.zeros((n, n), dtype=np.int16)
    cells = confidence(gx, gy)
    blocky = np.repeat(np.repeat(palette_codes(class_index, cells, 2), refine, 0), refine, 1)
    pixels = (np.arange(n * refine) + 0.5) / refine - 0.5
    px, py = np.meshgrid(pixels, pixels)
    exact = palette_codes(np.zeros(px.shape, dtype=np.int16), confidence(px, py), 2)
    return class_index, cells, blocky, exact


def palette_codes(class_index, confidence, n_classes):
    levels = confidence_levels(confidence.ravel(), n_classes).reshape(confidence.shape)
    return (class_index.astype(np.int64) * N_LEVELS + levels).astype(np.uint8)


def test_blended_shades_follow_the_confidence_between_cell_centres():
    class_index, cells, blocky, exact = ramp_case()
    blended = smooth.blend_shades(blocky, class_index, cells, 4, 2)
    assert blended.dtype == blocky.dtype and blended.shape == blocky.shape
    # Cells put a shade's edge up to half a cell off (every pixel of a cell repeats its centre's shade);
    # blended, the edge runs where the interpolated confidence crosses the level, as it does exactly
    # for a linear ramp.
    wrong_before, wrong_after = (blocky != exact).mean(), (blended != exact).mean()
    print(f"pixels off their exact shade: cells {wrong_before:.3f}, blended {wrong_after:.3f}")
    assert wrong_before > 0.02 and wrong_after < wrong_before / 5


def test_blending_keeps_every_class_and_leaves_the_outside_alone():
    n, refine = 12, 3
    class_index = np.zeros((n, n), dtype=np.int16)
    class_index[:, n // 2 :] = 1
    class_index[0, 0] = -1  # off the manifold
    confidence = np.where(class_index == 0, 0.99, 0.51)  # class 0 sure (top shade), class 1 a toss-up
    confidence = np.where(class_index < 0, np.nan, confidence)
    outside = 2 * N_LEVELS
    cells = np.where(class_index < 0, outside, palette_codes(np.maximum(class_index, 0), np.nan_to_num(confidence), 2))
    fine = np.repeat(np.repeat(cells, refine, 0), refine, 1).astype(np.uint8)
    blended = smooth.blend_shades(fine, class_index, confidence, refine, 2)
    assert np.array_equal(blended // N_LEVELS, fine // N_LEVELS)  # no pixel changes class
    assert (blended[:refine, :refine] == outside).all()  # nor leaves the outside
    # A pixel blends only with cells of its own class: beside the other class its shade is its own.
    assert np.array_equal(blended, fine)
