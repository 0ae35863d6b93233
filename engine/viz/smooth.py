"""Smooth region edges on the sphere and the torus: the mesh between cell centres, cut where the prediction changes.

A sphere or torus picture predicts every grid cell at its centre and draws the cells as a
surface through their centres (one colour value each, blended between neighbours), so a
region's edge would blur or step from cell to cell. This module finds where the edge really
runs, to a small fraction of a cell, and draws a thin patch over it:

* the *dual mesh* joins the centres of neighbouring cells in triangles, two per square of
  four centres (longitudes wrap around the sphere, both angles around the torus; the two
  half-rows of cells at the poles are left to the cells: they are far narrower than a
  pixel there);
* on every edge of the dual mesh whose two ends carry different labels (classes, or a
  tree's leaves for a replay), the crossing is found by bisection: a few predict calls in
  all, each on one point per such edge (:func:`find_cuts`); a classifier's picture spends
  as many as its size affords (:func:`affordable_steps`) and a forest's then interpolates its
  votes inside the last bracket (:func:`find_class_cuts`);
* every dual triangle with a crossing is cut along the straight segments between its
  crossings (marching triangles; a triangle with three labels meets at the centroid of its
  three crossings), and each piece takes the colour of the corner it holds; the other
  triangle of a square with a crossing is drawn whole (:func:`edge_patches`).

The figure draws the patches on the surface and lowers the cells just below it
(:func:`sink_depth`), so the patches cover every blend of the cells across a region's edge.

Flat pictures (the Poincaré and Klein disks, the plane, the world map; ``FLAT_KINDS``) use the
same crossings and pieces in picture coordinates, without wrapping and without the cells off
the manifold; their heatmap is drawn :func:`refinement` pixels a cell and each pixel whose
centre lies in a piece takes the piece's colour (:func:`raster_codes`), so the edges step by a
quarter of a cell at the default resolution instead of a whole one. Their confidence shades
blend between cell centres as the sphere's do (:func:`blend_shades`): each pixel keeps its
class and takes the shade of the confidence interpolated from the cells around it that draw
the same class, so a shade's edge no longer steps from cell to cell either.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import numpy as np

from .palette import N_LEVELS, confidence_levels
from .views import TORUS_RADII, ViewGrid, product_rows, torus_xyz, unit_to_latlon

__all__ = [
    "BISECTION_STEPS",
    "EdgeCuts",
    "Patches",
    "affordable_steps",
    "blend_shades",
    "dual_edges",
    "dual_triangles",
    "edge_patches",
    "find_class_cuts",
    "find_cuts",
    "pixel_axes",
    "raster_codes",
    "refinement",
    "sink_depth",
    "smooth_replay",
]

# Halvings of each cut edge: the crossing is then known to 1/64 of the edge (a cell or a
# cell's diagonal), well under a pixel at the resolutions the app draws.
BISECTION_STEPS = 5
SMOOTH_KINDS = ("sphere", "torus")
# Flat pictures whose regions are drawn finer than their cells, the pieces rasterised (:func:`raster_codes`).
FLAT_KINDS = ("disk", "plane", "map")
# A flat picture's cells are split into pixels, about this many up the picture (600 x 600 on a disk,
# 600 x 1200 on the world map: a byte a pixel, under 1 MB of JSON), at most MAX_REFINE a cell.
FLAT_PIXELS = 600
MAX_REFINE = 4
# The predict rows a picture may spend on its crossings: this share of its cells, priced in trees
# of a reference 50-tree forest (issue 25: a 50-tree picture costs at most twice a 50-tree forest's
# predict of its cells). A single tree affords every bisection step; a large forest, where every
# extra row costs 50 trees, spends at most a tenth of its grid and finishes by interpolation.
EXTRA_ROW_SHARE = 0.1
REFERENCE_TREES = 50
# The budget grows with the cells up to a grid of this many (200 x 200): a finer grid's cut edges
# are shorter, and its rows along them reach the trees' deepest leaves, at several times the cost
# of an average row. A 50-tree globe at 300 x 300 (7,700 cut edges) interpolates its votes between
# the cell centres, two thirds of a pixel apart on the app's globe.
BUDGET_CELLS = 40_000


@dataclass(frozen=True, eq=False)
class EdgeCuts:
    """Where the label changes along the edges of a picture's dual mesh.

    Attributes
    ----------
    edges : ndarray of int64, shape (m, 2)
        The two cells (row-major indices of the grid) at the ends of each cut edge, as
        :func:`dual_edges` lists them.
    t : ndarray of float32, shape (m,)
        Where the label changes, as a share of the way from ``edges[:, 0]`` to ``edges[:, 1]``.
    ids : ndarray of int64, shape (m,)
        Each edge's id (``direction * n_cells + edges[:, 0]``, see :func:`dual_edges`), increasing.
    """

    edges: np.ndarray
    t: np.ndarray
    ids: np.ndarray
    _pieces: dict = field(default_factory=dict, init=False, repr=False)

    def __len__(self) -> int:
        return len(self.t)

    def patches(self, grid: ViewGrid) -> Patches:
        """:func:`edge_patches` of these crossings over ``grid`` (the grid they were found on), built once.

        A picture's figure is built again for every change of its overlay or framing; its pieces
        stay the same.
        """
        if "patches" not in self._pieces:
            self._pieces["patches"] = edge_patches(grid, self)
        return self._pieces["patches"]


@dataclass
class Patches:
    """Pieces of the cut dual triangles, ready for a ``Mesh3d``.

    Attributes
    ----------
    x, y, z : ndarray of float32, shape (n_vertices,)
    i, j, k : ndarray of uint16 or uint32, shape (n_triangles,)
    source : ndarray of int64, shape (n_triangles,)
        The cell whose colour each triangle takes (the corner of the dual triangle it holds).
    """

    x: np.ndarray
    y: np.ndarray
    z: np.ndarray
    i: np.ndarray
    j: np.ndarray
    k: np.ndarray
    source: np.ndarray

    def __len__(self) -> int:
        return len(self.source)


# ----------------------------------------------------------------- the dual mesh
def _check(grid: ViewGrid, flat: bool = False) -> None:
    if grid.view.kind not in SMOOTH_KINDS + (FLAT_KINDS if flat else ()):
        where = "the sphere, the torus and flat pictures" if flat else "the sphere and the torus"
        raise ValueError(f"smooth region edges are drawn on {where}, not on a {grid.view.kind}")


def _flat(grid: ViewGrid) -> bool:
    return grid.view.kind in FLAT_KINDS


def _square_rows(grid: ViewGrid) -> int:
    """Rows of squares of four centres: the sphere's stop at the polar rows; the torus's last row joins its first."""
    return grid.shape[0] if grid.view.kind == "torus" else grid.shape[0] - 1


def _dual_mesh(grid: ViewGrid, squares: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(triangles (t, 3), edge id of each side (t, 3)) of the dual mesh; see :func:`dual_edges` for the ids.

    ``squares`` (indices ``r * cols + c`` of squares' first corners) keeps those squares only:
    their first triangles, then their second ones.
    """
    _check(grid, flat=True)
    rows, cols = grid.shape
    n = rows * cols
    if squares is None:
        squares = np.arange(_square_rows(grid) * cols)
    r, c = np.divmod(np.asarray(squares, dtype=np.int64), cols)
    r1, c1 = (r + 1) % rows, (c + 1) % cols
    v00, v01, v10, v11 = r * cols + c, r * cols + c1, r1 * cols + c, r1 * cols + c1
    tri = np.concatenate([np.column_stack([v00, v01, v11]), np.column_stack([v00, v11, v10])])
    # Sides in corner order (0-1, 1-2, 2-0): right of v00, up from v01, diagonal of v00; then
    # diagonal of v00, right of v10, up from v00.
    sides = np.concatenate([np.column_stack([v00, n + v01, 2 * n + v00]), np.column_stack([2 * n + v00, v10, n + v00])])
    return tri, sides


def _cut_squares(grid: ViewGrid, ids: np.ndarray) -> np.ndarray:
    """The squares (first-corner indices, increasing) with a side or diagonal among the edge ``ids``."""
    rows, cols = grid.shape
    n = rows * cols
    direction, start = np.divmod(np.asarray(ids, dtype=np.int64), n)
    r, c = np.divmod(start, cols)
    # An edge to the next column bounds the square above its start and the one below; an edge to
    # the next row, the square right of it and the one left; a diagonal, its own square.
    below = np.where(direction == 0, r - 1, r)
    left = np.where(direction == 1, (c - 1) % cols, c)
    square_r = np.concatenate([r, below])
    square_c = np.concatenate([c, left])
    if grid.view.kind == "torus":
        square_r %= rows
    keep = (square_r >= 0) & (square_r < _square_rows(grid))
    if _flat(grid):
        keep &= square_c < cols - 1  # no square past the last column (nor, wrapped, left of the first)
    return np.unique(square_r[keep] * cols + square_c[keep])


def dual_triangles(grid: ViewGrid) -> np.ndarray:
    """Triangles between neighbouring cell centres, two per square of four.

    Parameters
    ----------
    grid : ViewGrid
        A sphere (rows: latitude, columns: longitude, which wraps) or torus (both wrap) grid.

    Returns
    -------
    ndarray of int64, shape (n_triangles, 3)
        Row-major cell indices; each square ``(r, c), (r, c+1), (r+1, c+1), (r+1, c)`` is cut
        along its diagonal from ``(r, c)`` to ``(r+1, c+1)``.
    """
    return _dual_mesh(grid)[0]


def _cut_edges(grid: ViewGrid, labels: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(cells (m, 2), id (m,)) of the dual edges whose ends differ (all of them without ``labels``), by id.

    An edge's id is ``direction * n_cells + start``. Directions: 0 to the next column (wrapping
    on the sphere and the torus), 1 to the next row, 2 to both (the squares' diagonal); the
    sphere's top row has only the first, a flat picture's last column only the second.
    Compares each cell with its three forward neighbours on the (rows, cols) array of labels,
    so the work beyond one pass of the grid grows with the edges found, not with all of them.
    """
    rows, cols = grid.shape
    n = rows * cols
    if labels is None:
        differ = [np.ones((rows, cols), dtype=bool) for _ in range(3)]
        off = ~grid.mask.reshape(rows, cols)
    else:
        grid_labels = np.asarray(labels).reshape(rows, cols)
        ahead_col = np.roll(grid_labels, -1, axis=1)
        ahead_row = np.roll(grid_labels, -1, axis=0)
        ahead_both = np.roll(ahead_row, -1, axis=1)
        differ = [grid_labels != ahead_col, grid_labels != ahead_row, grid_labels != ahead_both]
        off = grid_labels < 0
    if grid.view.kind != "torus":
        differ[1][-1], differ[2][-1] = False, False  # the sphere's top row: nothing above it
    if _flat(grid):
        # A flat picture's last column has nothing to its right; cells off the manifold (the disk's
        # corners, labelled -1) bound no edge.
        differ[0][:, -1], differ[2][:, -1] = False, False
        differ = [
            d & ~off & ~np.roll(off, shift, axis=(0, 1)) for d, shift in zip(differ, ((0, -1), (-1, 0), (-1, -1)))
        ]
    starts, ids, ends = [], [], []
    for direction, found in enumerate(differ):
        start = np.flatnonzero(found)
        r, c = np.divmod(start, cols)
        r1, c1 = (r + (direction > 0)) % rows, (c + (direction != 1)) % cols
        starts.append(start)
        ends.append(r1 * cols + c1)
        ids.append(direction * n + start)
    return np.column_stack([np.concatenate(starts), np.concatenate(ends)]), np.concatenate(ids)


def dual_edges(grid: ViewGrid) -> np.ndarray:
    """Every edge of :func:`dual_triangles` once, as (start cell, end cell), shape (m, 2), int64.

    In the order of their ids (``direction * n_cells + start``; directions: to the next
    column, to the next row, to both).
    """
    _check(grid)
    return _cut_edges(grid)[0]


# --------------------------------------------------- points along the dual mesh
def _wrap(angle: np.ndarray) -> np.ndarray:
    """Angles into [-pi, pi): the short way round between two cells of a circle."""
    return (angle + np.pi) % (2 * np.pi) - np.pi


def _params(grid: ViewGrid) -> np.ndarray:
    """Cell centres in the coordinates the edges are interpolated in, one row per cell (row-major).

    Sphere, map, disk and plane: the view's columns (on the sphere of its radius, on the
    hyperboloid; NaN off the manifold). Torus: the two angles in radians (shape (n_cells, 2)).
    """
    values = np.asarray(grid.values, dtype=np.float64)
    if grid.view.kind == "torus":
        return np.column_stack([np.arctan2(values[:, 1], values[:, 0]), np.arctan2(values[:, 3], values[:, 2])])
    if len(values) == grid.mask.size:
        return values
    full = np.full((grid.mask.size, values.shape[1]), np.nan)
    full[grid.mask] = values
    return full


def _onto(grid: ViewGrid, point: np.ndarray, like: np.ndarray) -> np.ndarray:
    """Points near the manifold pushed back onto it, at the size of the points ``like``.

    A chord of the sphere scaled to its radius follows the great-circle arc; one of the
    hyperboloid (time first) scaled by its Minkowski norm follows the geodesic, straight in
    the Klein model; the plane's points stay.
    """
    if grid.view.kind in ("sphere", "map"):
        return point * (np.linalg.norm(like, axis=1, keepdims=True) / np.linalg.norm(point, axis=1, keepdims=True))
    if grid.view.kind == "disk":

        def minkowski(v):
            return v[:, :1] ** 2 - np.sum(v[:, 1:] ** 2, axis=1, keepdims=True)

        return point * np.sqrt(minkowski(like) / minkowski(point))
    return point


def _lerp(grid: ViewGrid, start: np.ndarray, end: np.ndarray, t: np.ndarray) -> np.ndarray:
    """Points a share ``t`` of the way from ``start`` to ``end`` (rows of :func:`_params`), on the surface.

    The sphere's chord is pushed back onto the sphere (the same path as the great-circle arc,
    at a slightly different pace), the hyperboloid's onto it; the torus's angles move the short
    way round.
    """
    t = np.asarray(t, dtype=np.float64)[:, None]
    if grid.view.kind == "torus":
        return start + t * _wrap(end - start)
    return _onto(grid, (1.0 - t) * start + t * end, start)


def _ambient(grid: ViewGrid, params: np.ndarray) -> np.ndarray:
    """View-column values (what :func:`~curvedtrees.viz.views.product_rows` takes) of points of :func:`_params`."""
    if grid.view.kind != "torus":
        return params
    values = np.asarray(grid.values[:1], dtype=np.float64)
    r1, r2 = np.hypot(values[0, 0], values[0, 1]), np.hypot(values[0, 2], values[0, 3])
    a, b = params[:, 0], params[:, 1]
    return np.column_stack([r1 * np.cos(a), r1 * np.sin(a), r2 * np.cos(b), r2 * np.sin(b)])


def _xyz(grid: ViewGrid, params: np.ndarray) -> np.ndarray:
    """Picture coordinates (float64) of points of :func:`_params`: (n, 3) on a solid, (n, 2) on a flat picture.

    The disk: the Poincaré or Klein model of the hyperboloid point; the map: longitude, latitude.
    """
    kind, axes = grid.view.kind, list(grid.view.axes)
    if kind in ("sphere", "map"):
        sub = params[:, axes]
        unit = sub / np.linalg.norm(sub, axis=1, keepdims=True)
        if kind == "sphere":
            return unit
        lat, lon = unit_to_latlon(unit)
        return np.column_stack([lon, lat])
    if kind == "disk":
        time, space = params[:, :1], params[:, axes]
        radius = np.sqrt(time**2 - np.sum(params[:, 1:] ** 2, axis=1, keepdims=True))
        return space * radius / (radius + time) if grid.view.model == "poincare" else space * radius / time
    if kind == "plane":
        return params[:, :2].copy()
    xyz = torus_xyz(params[:, 0], params[:, 1])
    return np.column_stack([xyz["x"], xyz["y"], xyz["z"]]).astype(np.float64)


# ------------------------------------------------------------------- crossings
def find_cuts(grid: ViewGrid, labels: np.ndarray, classify, n_steps: int = BISECTION_STEPS) -> EdgeCuts:
    """Where the label changes along every dual edge whose two cells differ, by bisection.

    Parameters
    ----------
    grid : ViewGrid
        A sphere or torus grid.
    labels : ndarray of int, shape (n_cells,)
        The label of every cell (row-major), as ``classify`` gives it at the cell's centre.
    classify : callable
        ``classify(values)`` with ``values`` of shape (m, len(grid.columns)) (the view's
        columns, as :attr:`ViewGrid.values`) returns the labels there, shape (m,).
    n_steps : int
        Halvings per edge: ``classify`` is called ``n_steps`` times, each on one point per
        cut edge.

    Returns
    -------
    EdgeCuts
        The crossing, a share of the edge, is the middle of the last interval: within
        ``2 ** -(n_steps + 1)`` of a place where the label changes.
    """
    _check(grid)
    labels = np.asarray(labels).ravel()
    if labels.shape != (int(np.prod(grid.shape)),):
        raise ValueError(f"{len(labels)} labels for a grid of {grid.shape[0]} x {grid.shape[1]} cells")
    edges, ids = _cut_edges(grid, labels)

    def probe(values):
        return np.asarray(classify(values)).ravel(), None

    lo, hi, _, _ = _bisect(grid, edges, labels[edges[:, 0]], int(n_steps), probe)
    return EdgeCuts(edges, (0.5 * (lo + hi)).astype(np.float32), ids)


def _bisect(grid: ViewGrid, edges: np.ndarray, first: np.ndarray, n_steps: int, probe, payload=None):
    """Halve every edge's bracket ``n_steps`` times, keeping the label ``first`` at its low end.

    ``probe(values)`` returns the labels at the points ``values`` (view columns) and what to
    carry along with them (an array with one row per point, or None); ``payload`` is that of
    the two ends, a pair of arrays. Returns ``(lo, hi, payload at lo, payload at hi)``.
    """
    params = _params(grid)
    start, end = params[edges[:, 0]], params[edges[:, 1]]
    lo, hi = np.zeros(len(edges)), np.ones(len(edges))
    at_lo, at_hi = payload if payload is not None else (None, None)
    for _ in range(n_steps if len(edges) else 0):
        mid = 0.5 * (lo + hi)
        found, carried = probe(_ambient(grid, _lerp(grid, start, end, mid)))
        same = found == first
        # Keep the label of the first end at lo and another one at hi: a change lies between.
        lo, hi = np.where(same, mid, lo), np.where(same, hi, mid)
        if carried is not None:
            at_lo, at_hi = np.where(same[:, None], carried, at_lo), np.where(same[:, None], at_hi, carried)
    return lo, hi, at_lo, at_hi


def affordable_steps(n_edges: int, n_cells: int, n_trees: int = 1) -> int:
    """Bisection steps a picture can afford on ``n_edges`` cut edges of ``n_cells`` cells.

    Every step predicts one row per cut edge, at ``n_trees`` trees a row; the steps together
    stay within ``EXTRA_ROW_SHARE`` of the cells' predict by a ``REFERENCE_TREES``-tree
    forest (of at most ``BUDGET_CELLS`` cells), and at most ``BISECTION_STEPS``.
    """
    budget = EXTRA_ROW_SHARE * min(n_cells, BUDGET_CELLS) * REFERENCE_TREES / max(int(n_trees), 1)
    return int(min(BISECTION_STEPS, budget // max(int(n_edges), 1)))


def find_class_cuts(grid: ViewGrid, proba: np.ndarray, predict_proba, n_trees: int = 1) -> EdgeCuts:
    """Where the predicted class changes along the dual edges: bisection, then interpolation.

    Parameters
    ----------
    grid : ViewGrid
        A sphere, torus, disk, plane or map grid.
    proba : ndarray of float, shape (n_cells, n_classes)
        The class probabilities of every cell (row-major; or of the cells on the manifold,
        ``grid.mask``); the class is their argmax.
    predict_proba : callable
        ``predict_proba(values)`` with ``values`` of shape (m, len(grid.columns)) returns
        probabilities of shape (m, n_classes).
    n_trees : int
        Trees a predicted row costs: the bisection takes :func:`affordable_steps` steps.

    Returns
    -------
    EdgeCuts
        A tree's crossing is the middle of the last bracket (within ``2 ** -(steps + 1)`` of
        the edge of the change). An ensemble's is where the two classes' votes, linear
        between the ends of the last bracket, are equal: its votes change by many small
        steps, so this finds the change well inside a bracket the budget left wide.
    """
    _check(grid, flat=True)
    proba = np.asarray(proba, dtype=np.float64)
    n_cells = int(np.prod(grid.shape))
    if proba.ndim != 2 or len(proba) not in (n_cells, int(grid.mask.sum())):
        raise ValueError(f"probabilities of shape {proba.shape} for a grid of {grid.shape[0]} x {grid.shape[1]} cells")
    if len(proba) != n_cells:  # the cells on the manifold only (a disk): the others labelled -1
        full = np.zeros((n_cells, proba.shape[1]))
        full[grid.mask] = proba
        proba = full
    labels = np.where(grid.mask, np.argmax(proba, axis=1), -1)
    edges, ids = _cut_edges(grid, labels)
    first = labels[edges[:, 0]]

    def probe(values):
        found = np.asarray(predict_proba(values), dtype=np.float64)
        return np.argmax(found, axis=1), found

    steps = affordable_steps(len(edges), len(labels), n_trees)
    lo, hi, p_lo, p_hi = _bisect(grid, edges, first, steps, probe, (proba[edges[:, 0]], proba[edges[:, 1]]))
    if n_trees <= 1:
        # A tree's probabilities are its leaves', constant up to the split: they say nothing of where
        # in the bracket it lies, whose middle is within 2 ** -(steps + 1) of it.
        return EdgeCuts(edges, (0.5 * (lo + hi)).astype(np.float32), ids)
    rows = np.arange(len(edges))
    other = np.argmax(p_hi, axis=1)
    ahead = p_lo[rows, first] - p_lo[rows, other]  # >= 0: the first class leads at lo
    behind = p_hi[rows, first] - p_hi[rows, other]  # <= 0: the other leads at hi
    gap = ahead - behind
    # Equal leads (a model without probabilities: both 1 and 0) put the crossing mid-bracket.
    share = np.where(gap > 0, ahead / np.where(gap > 0, gap, 1.0), 0.5)
    return EdgeCuts(edges, (lo + np.clip(share, 0.0, 1.0) * (hi - lo)).astype(np.float32), ids)


def sink_depth(grid: ViewGrid) -> float:
    """How far below the surface the cell mesh is drawn under the patches (picture units).

    A flat piece spanning angles ``da`` and ``db`` of a surface whose two directions bend with
    radii ``ra`` and ``rb`` dips below it by about ``(ra da**2 + rb db**2) / 8`` at most. The
    cell mesh is lowered by twice that for one cell (the sphere's radius 1 both ways; the
    torus's outer ring, its widest circle, and its tube), plus 1e-3 that the depth buffer tells
    apart at the app's camera distances, so the patches always lie on top of it: 1.6e-3 on the
    sphere and 2.6e-3 on the torus at resolution 150.
    """
    _check(grid)
    rows, cols = grid.shape
    if grid.view.kind == "sphere":
        dip = ((2 * np.pi / cols) ** 2 + (np.pi / rows) ** 2) / 8
    else:
        major, minor = TORUS_RADII
        dip = ((major + minor) * (2 * np.pi / cols) ** 2 + minor * (2 * np.pi / rows) ** 2) / 8
    return 1e-3 + 2 * dip


# ------------------------------------------------------------------ the pieces
def edge_patches(grid: ViewGrid, cuts: EdgeCuts) -> Patches:
    """The dual triangles that hold a crossing, cut along straight segments between their crossings.

    Parameters
    ----------
    grid : ViewGrid
        A sphere or torus grid.
    cuts : EdgeCuts
        From :func:`find_cuts` over the same grid.

    Returns
    -------
    Patches
        A triangle whose corners carry two labels becomes a triangle around the lone corner
        and two triangles around the other two; one with three labels becomes two triangles
        around each corner, meeting at the centroid of its three crossings. Each piece's
        colour is its corner's cell (``source``). Crossing points are shared by the
        triangles on both sides of their edge, so the patches have no cracks.
    """
    _check(grid, flat=True)
    n = int(np.prod(grid.shape))
    tri, side_ids = _dual_mesh(grid, _cut_squares(grid, cuts.ids))
    table = np.full(3 * n, -1, dtype=np.int64)
    table[cuts.ids] = np.arange(len(cuts))
    sides = table[side_ids]  # (t, 3) index into cuts of each side, -1 where it is not cut
    # A flat picture's squares can reach off the manifold (the disk's corners): those triangles are left out.
    on = grid.mask[tri].all(axis=1)
    tri, sides = tri[on], sides[on]
    cut = sides >= 0
    mixed = cut.any(axis=1)
    # The cells beneath interpolate colours across each square of four centres (a Surface): the
    # uncut triangle of a square whose other half is cut is drawn whole, in its first corner's colour.
    half = len(on) // 2
    mixed_squares = np.zeros(len(on), dtype=bool)
    mixed_squares[on] = mixed
    whole = (np.tile(mixed_squares[:half] | mixed_squares[half:], 2) & ~mixed_squares)[on]
    whole_tri = tri[whole]
    tri, sides, cut = tri[mixed], sides[mixed], cut[mixed]
    params = _params(grid)
    # Every vertex of the pieces: the cells (corners), the crossings, then the three-label centres.
    corners = np.unique(np.concatenate([tri.ravel(), whole_tri.ravel()]))
    used_cuts = np.unique(sides[cut])
    cut_params = _lerp(
        grid, params[cuts.edges[used_cuts, 0]], params[cuts.edges[used_cuts, 1]], cuts.t[used_cuts].astype(np.float64)
    )
    corner_id = np.full(n, -1, dtype=np.int64)
    corner_id[corners] = np.arange(len(corners))
    cut_id = np.full(len(cuts), -1, dtype=np.int64)
    cut_id[used_cuts] = len(corners) + np.arange(len(used_cuts))

    v = corner_id[tri]  # (m, 3) vertex ids of the corners
    x = np.where(cut, cut_id[np.where(cut, sides, 0)], -1)  # x[:, s]: crossing on side s (corner s to s + 1)
    faces, source = [corner_id[whole_tri]], [whole_tri[:, 0]]

    # Two labels: two sides cut; the corner between them stands alone. Rotate it to the front.
    m2 = np.flatnonzero(cut.sum(axis=1) == 2)
    # Corner s stands alone when both its sides are cut: side s (to s + 1) and side s - 1 (from s - 1).
    L = np.argmax(cut & np.roll(cut, 1, axis=1), axis=1)[m2]
    A, B = (L + 1) % 3, (L + 2) % 3
    vL, vA, vB = v[m2, L], v[m2, A], v[m2, B]
    xLA, xBL = x[m2, L], x[m2, B]  # side L runs from L to A, side B from B back to L
    cL, cA, cB = tri[m2, L], tri[m2, A], tri[m2, B]
    faces += [np.column_stack([vL, xLA, xBL]), np.column_stack([vA, xBL, xLA]), np.column_stack([vA, vB, xBL])]
    source += [cL, cA, cB]

    # Three labels: every side cut; the pieces meet at the centroid of the three crossings.
    m3 = np.flatnonzero(cut.sum(axis=1) == 3)
    centre_params = np.zeros((0, params.shape[1]))
    if len(m3):
        local = np.searchsorted(used_cuts, sides[m3])  # (k, 3) rows of cut_params
        pts = cut_params[local]
        if grid.view.kind != "torus":
            centre_params = _onto(grid, pts.mean(axis=1), pts[:, 0])
        else:
            centre_params = pts[:, 0] + _wrap(pts - pts[:, :1]).mean(axis=1)
        centre = len(corners) + len(used_cuts) + np.arange(len(m3))
        for s in range(3):
            before = (s + 2) % 3  # the side that ends at corner s
            corner, cell = v[m3, s], tri[m3, s]
            faces += [np.column_stack([corner, x[m3, s], centre]), np.column_stack([corner, centre, x[m3, before]])]
            source += [cell, cell]

    xyz = _xyz(grid, np.concatenate([params[corners], cut_params, centre_params])).astype(np.float32)
    if xyz.shape[1] == 2:  # a flat picture's pieces lie in its plane
        xyz = np.column_stack([xyz, np.zeros(len(xyz), dtype=np.float32)])
    faces = np.concatenate(faces) if faces else np.zeros((0, 3), dtype=np.int64)
    dtype = np.uint16 if len(xyz) < 2**16 else np.uint32
    return Patches(
        xyz[:, 0],
        xyz[:, 1],
        xyz[:, 2],
        faces[:, 0].astype(dtype),
        faces[:, 1].astype(dtype),
        faces[:, 2].astype(dtype),
        np.concatenate(source) if source else np.zeros(0, dtype=np.int64),
    )


# ------------------------------------------------------------------ flat pictures
def refinement(grid: ViewGrid) -> int:
    """Pixels a side each cell of a flat picture is drawn with: about ``FLAT_PIXELS`` up, at most ``MAX_REFINE``."""
    return int(max(1, min(MAX_REFINE, FLAT_PIXELS // max(grid.shape[0], 1))))


def pixel_axes(grid: ViewGrid, refine: int) -> tuple[np.ndarray, np.ndarray]:
    """Centres (float64) of the pixels across and up a flat picture drawn ``refine`` pixels a cell."""
    names = ("lon", "lat") if grid.view.kind == "map" else ("x", "y")
    out = []
    for name in names:
        centres = np.asarray(grid.coords[name], dtype=np.float64)
        step = (centres[-1] - centres[0]) / max(len(centres) - 1, 1)
        offsets = (np.arange(refine) + 0.5) / refine - 0.5
        out.append((centres[:, None] + offsets[None, :] * step).ravel())
    return out[0], out[1]


def raster_codes(grid: ViewGrid, codes: np.ndarray, patches: Patches, refine: int) -> np.ndarray:
    """A flat picture's colour codes ``refine`` pixels a cell, its region edges drawn at the crossings.

    Parameters
    ----------
    grid : ViewGrid
        A disk, plane or map grid.
    codes : ndarray, shape grid.shape
        Each cell's colour code.
    patches : Patches
        From :func:`edge_patches`: the pieces (in picture coordinates) of the squares of cell
        centres where the class changes; each pixel whose centre lies in a piece takes the
        piece's corner's code.
    refine : int

    Returns
    -------
    ndarray, shape (rows * refine, cols * refine), dtype of ``codes``
        Every other pixel repeats its cell's code.
    """
    codes = np.asarray(codes)
    fine = np.repeat(np.repeat(codes, refine, axis=0), refine, axis=1)
    if not len(patches):
        return fine
    px, py = pixel_axes(grid, refine)
    x0, dx, y0, dy = px[0], px[1] - px[0], py[0], py[1] - py[0]
    corners = np.stack(
        [
            np.column_stack([patches.x, patches.y])[np.asarray(k, dtype=np.int64)]
            for k in (patches.i, patches.j, patches.k)
        ],
        axis=1,
    ).astype(np.float64)
    # A piece lies within one square of four centres: refine + 1 pixels a side from its lowest corner hold it.
    reach = refine + 2
    col0 = np.floor((corners[:, :, 0].min(axis=1) - x0) / dx).astype(np.int64)
    row0 = np.floor((corners[:, :, 1].min(axis=1) - y0) / dy).astype(np.int64)
    steps = np.arange(reach)
    cols = col0[:, None, None] + steps[None, None, :]
    rows = row0[:, None, None] + steps[None, :, None]
    cols, rows = np.broadcast_arrays(cols, rows)
    inside_grid = (cols >= 0) & (cols < fine.shape[1]) & (rows >= 0) & (rows < fine.shape[0])
    cx, cy = x0 + cols * dx, y0 + rows * dy
    a, b, c = corners[:, 0], corners[:, 1], corners[:, 2]
    e1, e2 = b - a, c - a
    det = e1[:, 0] * e2[:, 1] - e1[:, 1] * e2[:, 0]
    ok = np.abs(det) > 0  # zero-area pieces hold no pixel
    safe = np.where(ok, det, 1.0)[:, None, None]
    qx, qy = cx - a[:, 0, None, None], cy - a[:, 1, None, None]
    u = (qx * e2[:, 1, None, None] - qy * e2[:, 0, None, None]) / safe
    v = (e1[:, 0, None, None] * qy - e1[:, 1, None, None] * qx) / safe
    # A pixel centre on a shared side falls in both pieces; a hair of slack leaves no pixel in neither.
    slack = 1e-9
    hit = inside_grid & ok[:, None, None] & (u >= -slack) & (v >= -slack) & (u + v <= 1 + slack)
    piece = np.broadcast_to(np.arange(len(patches))[:, None, None], hit.shape)[hit]
    fine[rows[hit], cols[hit]] = codes.ravel()[patches.source[piece]]
    return fine


def _corner_weights(n_cells: int, refine: int) -> tuple[np.ndarray, np.ndarray]:
    """For each of ``n_cells * refine`` pixels along one side: the lower of the two cell centres
    around its centre, and its weight toward the upper one (0 to 1; the outer half-cells lean on
    the last centre alone)."""
    position = (np.arange(n_cells * refine) + 0.5) / refine - 0.5  # in cells, cell k's centre at k
    lower = np.clip(np.floor(position).astype(np.int64), 0, max(n_cells - 2, 0))
    return lower, np.clip(position - lower, 0.0, 1.0)


def blend_shades(
    fine: np.ndarray, class_index: np.ndarray, confidence: np.ndarray, refine: int, n_classes: int
) -> np.ndarray:
    """A flat picture's pixels with their confidence shades blended between cell centres.

    A pixel keeps its class (its cell's, or near an edge the crossing's piece's, as
    :func:`raster_codes` drew it) and takes the shade (:func:`~curvedtrees.viz.palette.confidence_levels`)
    of the confidence interpolated bilinearly between the centres of the four cells around
    it, counting only those that draw the pixel's class (their weights renormalised): a
    shade's edge then runs between the centres, as on the sphere's surface, instead of
    stepping along the cells' sides. A pixel none of whose four cells draws its class keeps
    its shade; pixels off the manifold are left alone.

    Parameters
    ----------
    fine : ndarray of shape (rows * refine, cols * refine)
        Colour codes ``class * N_LEVELS + level`` (uint8 or float32); codes from
        ``n_classes * N_LEVELS`` up (the transparent outside code) and NaN mark pixels off
        the manifold.
    class_index : ndarray of shape (rows, cols)
        Each cell's class, negative off the manifold.
    confidence : ndarray of shape (rows, cols)
        Each cell's winning probability (NaN off the manifold).
    refine : int
        Pixels a side per cell.
    n_classes : int
        The model's classes (the shades' scale: ``1 / n_classes`` is a toss-up).

    Returns
    -------
    ndarray, like ``fine``
    """
    n_rows, n_cols = class_index.shape
    if refine <= 1 or n_rows < 2 or n_cols < 2:
        return fine
    codes = np.asarray(fine, dtype=np.float64)
    drawn = np.isfinite(codes)
    pixel_class = np.where(drawn, np.floor(np.where(drawn, codes, 0.0) / N_LEVELS), -1).astype(np.int64)
    drawn &= pixel_class < n_classes
    low_r, up_r = _corner_weights(n_rows, refine)
    low_c, up_c = _corner_weights(n_cols, refine)
    weight = np.zeros(codes.shape)
    total = np.zeros(codes.shape)
    conf = np.nan_to_num(np.asarray(confidence, dtype=np.float64), nan=0.0)
    for dr, wr in ((0, 1.0 - up_r), (1, up_r)):
        for dc, wc in ((0, 1.0 - up_c), (1, up_c)):
            rows, cols = low_r + dr, low_c + dc
            same = class_index[np.ix_(rows, cols)] == pixel_class
            w = np.where(same, wr[:, None] * wc[None, :], 0.0)
            weight += w
            total += w * conf[np.ix_(rows, cols)]
    blend = drawn & (weight > 0)
    levels = confidence_levels(total[blend] / weight[blend], n_classes)
    out = np.array(fine, copy=True)
    out[blend] = (pixel_class[blend] * N_LEVELS + levels).astype(out.dtype)
    return out


# ------------------------------------------------------------------ the replay
def smooth_replay(tree, replay, reference: np.ndarray):
    """A replay whose frames draw smooth region edges on the sphere and the torus.

    Every frame's regions are unions of the full tree's leaves, so one set of crossings
    serves them all: the edges are cut where the full tree's leaf changes (one ``apply`` per
    bisection step), and each frame colours the pieces with its own classes. The figure
    then sends the pieces once and one colour byte per piece and frame.

    Parameters
    ----------
    tree : fitted ProductDecisionTreeClassifier
        The tree :func:`~curvedtrees.viz.treeview.replay_regions` replayed.
    replay : Replay
        From :func:`~curvedtrees.viz.treeview.replay_regions`.
    reference : ndarray of shape (ambient_dim,)
        Where the components outside the picture are held (as for the replay).

    Returns
    -------
    Replay
        The same frames, each with :attr:`RegionGrid.cuts` (other pictures and regression
        replays are returned unchanged).
    """
    if not replay.frames:
        return replay
    grid = replay.frames[0].grid
    if grid.view.kind not in SMOOTH_KINDS or replay.frames[0].task != "classification":
        return replay
    reference = np.asarray(reference, dtype=np.float64)
    leaf = np.asarray(tree.apply(product_rows(grid, reference)), dtype=np.int64)
    cuts = find_cuts(grid, leaf, lambda values: tree.apply(product_rows(grid, reference, values)))
    frames = [dataclasses.replace(frame, cuts=cuts) for frame in replay.frames]
    return dataclasses.replace(replay, frames=frames)
