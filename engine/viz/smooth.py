"""Smooth region edges on the sphere and the torus: the mesh between cell centres, cut where the prediction changes.

A sphere or torus picture predicts every grid cell at its centre and draws the cell as one
flat-coloured quad, so a region's edge steps from cell to cell. This module finds where the
edge really runs, to a small fraction of a cell, and draws a thin patch over it:

* the *dual mesh* joins the centres of neighbouring cells in triangles, two per square of
  four centres (longitudes wrap around the sphere, both angles around the torus; the two
  half-rows of cells at the poles are left to the cell mesh: they are far narrower than a
  pixel there);
* on every edge of the dual mesh whose two ends carry different labels (classes, or a
  tree's leaves for a replay), the crossing is found by bisection: a few predict calls in
  all, each on one point per such edge (:func:`find_cuts`);
* every dual triangle with a crossing is cut along the straight segments between its
  crossings (marching triangles; a triangle with three labels meets at the centroid of its
  three crossings), and each piece takes the colour of the corner it holds
  (:func:`edge_patches`).

The figure draws the patches on the surface and lowers the cell mesh just below it
(:func:`sink_depth`), so the patches cover every step of the cell mesh's edges.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from .views import TORUS_RADII, ViewGrid, product_rows, torus_xyz

__all__ = [
    "BISECTION_STEPS",
    "EdgeCuts",
    "Patches",
    "dual_edges",
    "dual_triangles",
    "edge_patches",
    "find_cuts",
    "sink_depth",
    "smooth_replay",
]

# Halvings of each cut edge: the crossing is then known to 1/64 of the edge (a cell or a
# cell's diagonal), well under a pixel at the resolutions the app draws.
BISECTION_STEPS = 5
SMOOTH_KINDS = ("sphere", "torus")


@dataclass(frozen=True)
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

    def __len__(self) -> int:
        return len(self.t)


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
def _check(grid: ViewGrid) -> None:
    if grid.view.kind not in SMOOTH_KINDS:
        raise ValueError(f"smooth region edges are drawn on the sphere and the torus, not on a {grid.view.kind}")


def _dual_mesh(grid: ViewGrid) -> tuple[np.ndarray, np.ndarray]:
    """(triangles (t, 3), edge id of each side (t, 3)) of the dual mesh; see :func:`dual_edges` for the ids."""
    _check(grid)
    rows, cols = grid.shape
    n = rows * cols
    # The sphere's rows stop at the polar rows; the torus's last row joins its first.
    n_rows = rows if grid.view.kind == "torus" else rows - 1
    r, c = np.meshgrid(np.arange(n_rows), np.arange(cols), indexing="ij")
    r, c = r.ravel(), c.ravel()
    r1, c1 = (r + 1) % rows, (c + 1) % cols
    v00, v01, v10, v11 = r * cols + c, r * cols + c1, r1 * cols + c, r1 * cols + c1
    tri = np.concatenate([np.column_stack([v00, v01, v11]), np.column_stack([v00, v11, v10])])
    # Sides in corner order (0-1, 1-2, 2-0): right of v00, up from v01, diagonal of v00; then
    # diagonal of v00, right of v10, up from v00.
    sides = np.concatenate([np.column_stack([v00, n + v01, 2 * n + v00]), np.column_stack([2 * n + v00, v10, n + v00])])
    return tri, sides


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


def _edge_table(grid: ViewGrid) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(start cell, end cell, id) of every dual edge, by id: ``direction * n_cells + start``.

    Directions: 0 to the next column (wrapping), 1 to the next row, 2 to both (the
    squares' diagonal); the sphere's top row has only the first.
    """
    _check(grid)
    rows, cols = grid.shape
    n = rows * cols
    v = np.arange(n)
    r, c = v // cols, v % cols
    ends = [r * cols + (c + 1) % cols, ((r + 1) % rows) * cols + c, ((r + 1) % rows) * cols + (c + 1) % cols]
    rising = np.ones(n, dtype=bool) if grid.view.kind == "torus" else r < rows - 1
    keep = [np.ones(n, dtype=bool), rising, rising]
    start = np.concatenate([v[k] for k in keep])
    end = np.concatenate([e[k] for e, k in zip(ends, keep)])
    ids = np.concatenate([d * n + v[k] for d, k in enumerate(keep)])
    return start, end, ids


def dual_edges(grid: ViewGrid) -> np.ndarray:
    """Every edge of :func:`dual_triangles` once, as (start cell, end cell), shape (m, 2), int64.

    In the order of their ids (``direction * n_cells + start``; directions: to the next
    column, to the next row, to both).
    """
    start, end, _ = _edge_table(grid)
    return np.column_stack([start, end])


# --------------------------------------------------- points along the dual mesh
def _wrap(angle: np.ndarray) -> np.ndarray:
    """Angles into [-pi, pi): the short way round between two cells of a circle."""
    return (angle + np.pi) % (2 * np.pi) - np.pi


def _params(grid: ViewGrid) -> np.ndarray:
    """Cell centres in the coordinates the edges are interpolated in.

    Sphere: the component's ambient block (shape (n_cells, ambient_dim), on the sphere of
    its radius). Torus: the two angles in radians (shape (n_cells, 2)).
    """
    values = np.asarray(grid.values, dtype=np.float64)
    if grid.view.kind == "sphere":
        return values
    return np.column_stack([np.arctan2(values[:, 1], values[:, 0]), np.arctan2(values[:, 3], values[:, 2])])


def _lerp(grid: ViewGrid, start: np.ndarray, end: np.ndarray, t: np.ndarray) -> np.ndarray:
    """Points a share ``t`` of the way from ``start`` to ``end`` (rows of :func:`_params`), on the surface.

    The sphere's chord is pushed back onto the sphere (the same path as the great-circle arc,
    at a slightly different pace); the torus's angles move the short way round.
    """
    t = np.asarray(t, dtype=np.float64)[:, None]
    if grid.view.kind == "sphere":
        point = (1.0 - t) * start + t * end
        radius = np.linalg.norm(start, axis=1, keepdims=True)
        return point * (radius / np.linalg.norm(point, axis=1, keepdims=True))
    return start + t * _wrap(end - start)


def _ambient(grid: ViewGrid, params: np.ndarray) -> np.ndarray:
    """View-column values (what :func:`~curvedtrees.viz.views.product_rows` takes) of points of :func:`_params`."""
    if grid.view.kind == "sphere":
        return params
    values = np.asarray(grid.values[:1], dtype=np.float64)
    r1, r2 = np.hypot(values[0, 0], values[0, 1]), np.hypot(values[0, 2], values[0, 3])
    a, b = params[:, 0], params[:, 1]
    return np.column_stack([r1 * np.cos(a), r1 * np.sin(a), r2 * np.cos(b), r2 * np.sin(b)])


def _xyz(grid: ViewGrid, params: np.ndarray) -> np.ndarray:
    """3-D picture coordinates (float64, shape (n, 3)) of points of :func:`_params`, on the drawn surface."""
    if grid.view.kind == "sphere":
        sub = params[:, list(grid.view.axes)]
        return sub / np.linalg.norm(sub, axis=1, keepdims=True)
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
    start_cell, end_cell, ids = _edge_table(grid)
    differ = labels[start_cell] != labels[end_cell]
    edges, ids = np.column_stack([start_cell[differ], end_cell[differ]]), ids[differ]
    params = _params(grid)
    start, end, first = params[edges[:, 0]], params[edges[:, 1]], labels[edges[:, 0]]
    lo, hi = np.zeros(len(edges)), np.ones(len(edges))
    for _ in range(int(n_steps) if len(edges) else 0):
        mid = 0.5 * (lo + hi)
        same = np.asarray(classify(_ambient(grid, _lerp(grid, start, end, mid)))).ravel() == first
        # Keep the label of the first end at lo and another one at hi: a change lies between.
        lo, hi = np.where(same, mid, lo), np.where(same, hi, mid)
    return EdgeCuts(edges, (0.5 * (lo + hi)).astype(np.float32), ids)


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
    _check(grid)
    n = int(np.prod(grid.shape))
    tri, side_ids = _dual_mesh(grid)
    table = np.full(3 * n, -1, dtype=np.int64)
    table[cuts.ids] = np.arange(len(cuts))
    sides = table[side_ids]  # (t, 3) index into cuts of each side, -1 where it is not cut
    cut = sides >= 0
    mixed = cut.any(axis=1)
    tri, sides, cut = tri[mixed], sides[mixed], cut[mixed]
    params = _params(grid)
    # Every vertex of the pieces: the cells (corners), the crossings, then the three-label centres.
    corners = np.unique(tri)
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
    faces, source = [], []

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
        if grid.view.kind == "sphere":
            mean = pts.mean(axis=1)
            centre_params = mean * (np.linalg.norm(pts[:, 0], axis=1) / np.linalg.norm(mean, axis=1))[:, None]
        else:
            centre_params = pts[:, 0] + _wrap(pts - pts[:, :1]).mean(axis=1)
        centre = len(corners) + len(used_cuts) + np.arange(len(m3))
        for s in range(3):
            before = (s + 2) % 3  # the side that ends at corner s
            corner, cell = v[m3, s], tri[m3, s]
            faces += [np.column_stack([corner, x[m3, s], centre]), np.column_stack([corner, centre, x[m3, before]])]
            source += [cell, cell]

    xyz = _xyz(grid, np.concatenate([params[corners], cut_params, centre_params])).astype(np.float32)
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
