"""Split boundaries of one tree, drawn as true geodesics inside a picture.

A split at node ``t`` on the coordinate pair ``(i, j)`` of component ``c`` has
the boundary ``{x : normal[0] x_i + normal[1] x_j = 0}`` (``i = -1`` is the
constant lift ``x_0 = 1`` of a Euclidean component): a hyperplane through the
ambient origin. Its trace on each picture is exact and closed-form:

* Poincaré disk: an arc of the circle ``|p - c|^2 = |c|^2 - R^2`` with
  ``c = -R s / a0`` (orthogonal to the rim), or a diameter when ``a0 = 0``;
* Klein disk: the chord ``s . k = -a0 R``;
* sphere: the great circle orthogonal to the normal (on a world map and an
  orthographic globe: its latitudes and longitudes);
* circle and torus: the two antipodal angles with ``a0 cos t + a1 sin t = 0``;
* plane and line: a straight line, or a point.

A radial split (``splits="geodesic+radial"``: ``x_j <= t`` on one coordinate of an H or
S component) is not a plane through the origin, and its trace is the circle it is:

* Poincaré / Klein disk (``x_0 = t``): the circle about the centre of radius
  ``R tanh(d / 2R)`` / ``R tanh(d / R)``, ``d = R arccosh(t / R)`` the ball's radius;
* sphere, map, globe (``x_k = t``): the small circle at angle ``arccos(t / R)`` from the
  pole ``+e_k`` (none when ``x_k`` is not among the picture's axes: it is 0 on the picture);
* circle and torus: the two angles where ``x_k = t`` meets the circle;
* line (H1): the two points at distance ``d`` on either side of the origin.

A split only acts on the rows that reach its node, so each curve is sampled
densely and cut (NaN) where its points would not reach the node (the tree's own
routing, :meth:`curvedtrees.trees.Tree.reaches`): what is left is the actual piece
of the decision boundary that the split contributes.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

import numpy as np

from .. import coords
from ..manifolds.signature import Signature
from ..trees import radial_distance
from .views import (
    RIM_MARGIN,
    SPHERE_KINDS,
    View,
    ViewGrid,
    _check_view,
    _component_columns,
    torus_xyz,
    unit_to_latlon,
)

__all__ = [
    "MAX_BOUNDARY_CURVES",
    "BoundaryCurve",
    "boundary_curves",
    "klein_boundary_curves",
    "ranked_splits",
    "split_plane",
]

# Samples per boundary curve: smooth arcs at the widths the app draws (about 700 px).
N_CURVE_POINTS = 400
# Split curves a picture draws at most. A fully grown tree of a forest has thousands of splits
# (tree #0 of the landmass forest: 8,000 curves, 72 MB of figure JSON, 11 s); past a few hundred,
# the small splits deep in the tree are specks that only slow the browser down.
MAX_BOUNDARY_CURVES = 300
# Coefficients below this share of the largest one are rounding noise, not a tilt.
_COEF_EPS = 1e-12


@dataclass
class BoundaryCurve:
    """Picture coordinates of one split's boundary, NaN where the split is not active.

    Attributes
    ----------
    node : int
        Node id of the split.
    coords : dict of str to ndarray
        Same keys as :func:`curvedtrees.viz.views.project_points` (circle views also
        carry ``r``).
    """

    node: int
    coords: dict


def tree_arrays(tree):
    """The ``tree_`` arrays of a fitted tree estimator, or ``tree`` itself."""
    return getattr(tree, "tree_", tree)


def ranked_splits(tree, components=None) -> np.ndarray:
    """Internal nodes, those that hold the most training rows first.

    Ties go to the smaller id; a child never holds more rows than its parent, and its
    id is larger, so every prefix of the ranking is a tree cut back from the root.

    Parameters
    ----------
    tree : fitted tree estimator or its ``tree_``
    components : iterable of int, optional
        Only splits on these components.

    Returns
    -------
    ndarray of int64, shape (n_splits,)
    """
    t = tree_arrays(tree)
    internal = np.flatnonzero(np.asarray(t.children_left) >= 0)
    if components is not None:
        internal = internal[np.isin(np.asarray(t.component)[internal], list(components))]
    samples = np.asarray(t.n_node_samples)[internal]
    return internal[np.lexsort((internal, -samples))].astype(np.int64)


def _squeeze(picture: dict) -> dict:
    """Drop the NaNs that follow a NaN, and those at either end: the same drawing, a shorter payload.

    A clipped curve of a deep split is mostly NaN (only a short piece of it acts).
    """
    keys = list(picture)
    gap = ~np.all([np.isfinite(picture[k]) for k in keys], axis=0)
    keep = ~(gap & np.concatenate([[True], gap[:-1]]))
    finite = np.flatnonzero(~gap)
    keep[finite[-1] + 1 :] = False
    return {k: np.asarray(v)[keep] for k, v in picture.items()}


def split_plane(tree, node: int, signature) -> tuple[int, np.ndarray, float]:
    """The split at ``node`` as a linear equation on its component.

    Returns
    -------
    component : int
        Index of the component.
    a : ndarray of shape (component ambient_dim,)
        Coefficients: the boundary is ``a . x + const = 0``.
    const : float
        Constant term (non-zero only for a Euclidean lift ``i = -1``).
    """
    t = tree_arrays(tree)
    signature = Signature.parse(signature)
    c = int(t.component[node])
    comp = signature.components[c]
    i, j = (int(v) for v in np.asarray(t.coords)[node])
    n0, n1 = (float(v) for v in np.asarray(t.normal)[node])
    a = np.zeros(comp.ambient_dim)
    const = 0.0
    if i < 0:
        const = n0
    else:
        a[i] += n0
    a[j] += n1
    return c, a, const


@dataclass(frozen=True)
class _Radial:
    """One radial split in the terms of a picture: ``x_j <= t`` on component ``c`` (``comp``)."""

    c: int
    j: int
    t: float
    comp: object


def _ratio(split: _Radial) -> float:
    """``t / R`` of an S1 split, clamped to ``[-1, 1]`` as the builder clamps it (``|x_j| <= R``)."""
    return min(max(split.t / split.comp.radius, -1.0), 1.0)


def _radial_disk(view: View, split: _Radial, signature, reference, bounds, n: int):
    comp = split.comp
    R = comp.radius
    d = radial_distance("H", R, split.t)  # the ball's radius (geodesic)
    rho = R * np.tanh(d / (2 * R)) if view.model == "poincare" else R * np.tanh(d / R)
    if rho >= R * (1 - RIM_MARGIN):
        return None  # the ball reaches past what the picture draws of the disk
    phi = np.linspace(0.0, 2 * np.pi, n)
    pts = rho * np.column_stack([np.cos(phi), np.sin(phi)])
    values = np.zeros((n, comp.ambient_dim))
    values[:, 0] = R * np.cosh(d / R)  # x_0 on the circle: the threshold, as the hyperboloid has it
    values[:, view.axes[0]] = R * np.sinh(d / R) * np.cos(phi)
    values[:, view.axes[1]] = R * np.sinh(d / R) * np.sin(phi)
    return {"x": pts[:, 0], "y": pts[:, 1]}, values


def _radial_sphere(view: View, split: _Radial, signature, reference, bounds, n: int):
    comp = split.comp
    if split.j not in view.axes:
        return None  # x_j = 0 on the whole picture: the split sends all of it one way
    axis = list(view.axes).index(split.j)
    pole = np.eye(3)[axis]
    theta = radial_distance("S", comp.radius, split.t)  # the cap's angle from its pole
    u, v = np.eye(3)[(axis + 1) % 3], np.eye(3)[(axis + 2) % 3]
    t = np.linspace(0.0, 2 * np.pi, n)
    unit = np.cos(theta) * pole[None, :] + np.sin(theta) * (np.cos(t)[:, None] * u + np.sin(t)[:, None] * v)
    values = np.zeros((n, comp.ambient_dim))
    values[:, list(view.axes)] = unit * comp.radius
    if view.kind != "sphere":
        lat, lon = unit_to_latlon(unit)
        return ({"x": lon, "y": lat} if view.kind == "map" else {"lat": lat, "lon": lon}), values
    lifted = unit * 1.006  # just above the surface, as the great circles are
    return {"x": lifted[:, 0], "y": lifted[:, 1], "z": lifted[:, 2]}, values


def _radial_angles(split: _Radial) -> np.ndarray:
    """The two angles of S1 where ``x_j = t``: ``cos a = t / R`` (j = 0) or ``sin a = t / R`` (j = 1)."""
    ratio = _ratio(split)
    if split.j == 0:
        a = np.arccos(ratio)
        return np.array([a, -a])
    a = np.arcsin(ratio)
    return np.array([a, np.pi - a])


def _radial_circle(view: View, split: _Radial, signature, reference, bounds, n: int):
    angles = _radial_angles(split)
    return {"theta": np.degrees(angles)}, coords.angle_to_circle(angles, curvature=split.comp.curvature)


def _radial_torus(view: View, split: _Radial, signature, reference, bounds, n: int):
    return _torus_lines(view, split.c, _radial_angles(split), signature, n)


def _radial_line(view: View, split: _Radial, signature, reference, bounds, n: int):
    comp = split.comp
    if comp.kind != "H":
        return None
    d = radial_distance("H", comp.radius, split.t)
    p = comp.radius * np.tanh(d / (2 * comp.radius)) * np.array([-1.0, 1.0])
    values = coords.poincare_to_hyperboloid(p[:, None], curvature=comp.curvature)
    return {"x": p}, values


def _unit_perp(v: np.ndarray) -> np.ndarray:
    return np.array([-v[1], v[0]]) / np.hypot(v[0], v[1])


def _poincare_curve(a0: float, s: np.ndarray, R: float, n: int) -> np.ndarray | None:
    """Points (n, 2) of the geodesic ``a0 x0 + s . x_spatial = 0`` on the Poincaré disk."""
    s_norm = float(np.hypot(*s))
    if s_norm <= _COEF_EPS * max(abs(a0), 1.0):
        return None  # a0 x0 = 0 has no solution on the hyperboloid (x0 > 0)
    if abs(a0) <= _COEF_EPS * s_norm:
        u = _unit_perp(s)
        t = np.linspace(-R, R, n)
        return t[:, None] * u[None, :]
    c = -R * s / a0
    c2 = float(c @ c)
    if c2 <= R * R:
        return None  # |a0| >= |s|: the plane misses the hyperboloid
    r = np.sqrt(c2 - R * R)
    perp = _unit_perp(c)
    q1 = (R * R / c2) * c + (R / np.sqrt(c2)) * r * perp
    q2 = (R * R / c2) * c - (R / np.sqrt(c2)) * r * perp
    phi1 = np.arctan2(*(q1 - c)[::-1])
    phi2 = np.arctan2(*(q2 - c)[::-1])
    # The arc inside the disk is the shorter one (the centre lies outside the disk).
    delta = (phi2 - phi1 + np.pi) % (2 * np.pi) - np.pi
    phi = phi1 + np.linspace(0.0, 1.0, n) * delta
    return c[None, :] + r * np.column_stack([np.cos(phi), np.sin(phi)])


def _klein_curve(a0: float, s: np.ndarray, R: float, n: int) -> np.ndarray | None:
    """Points (n, 2) of the chord ``s . k = -a0 R`` inside the Klein disk."""
    s_norm = float(np.hypot(*s))
    if s_norm <= _COEF_EPS * max(abs(a0), 1.0):
        return None
    foot = -a0 * R * s / s_norm**2
    d = float(np.hypot(*foot))
    if d >= R:
        return None
    half = np.sqrt(R * R - d * d)
    t = np.linspace(-half, half, n)
    return foot[None, :] + t[:, None] * _unit_perp(s)[None, :]


def _great_circle(alpha: np.ndarray, n: int) -> np.ndarray | None:
    """Unit vectors (n, 3) orthogonal to ``alpha`` (a closed loop)."""
    norm = float(np.linalg.norm(alpha))
    if norm <= _COEF_EPS:
        return None
    w = alpha / norm
    helper = np.eye(3)[int(np.argmin(np.abs(w)))]
    u = np.cross(w, helper)
    u /= np.linalg.norm(u)
    v = np.cross(w, u)
    t = np.linspace(0.0, 2 * np.pi, n)
    return np.cos(t)[:, None] * u[None, :] + np.sin(t)[:, None] * v[None, :]


def _circle_angles(a: np.ndarray) -> np.ndarray | None:
    """The two angles with ``a[0] cos t + a[1] sin t = 0`` (or None)."""
    if np.hypot(a[0], a[1]) <= _COEF_EPS:
        return None
    t = np.arctan2(-a[0], a[1])
    return np.array([t, t + np.pi])


def _clip_line(alpha: np.ndarray, gamma: float, bounds: tuple, n: int) -> np.ndarray | None:
    """Points (n, 2) of ``alpha . p + gamma = 0`` inside the box ``bounds``."""
    norm = float(np.hypot(*alpha))
    if norm <= _COEF_EPS * max(abs(gamma), 1.0):
        return None
    xmin, xmax, ymin, ymax = bounds
    foot = -gamma * alpha / norm**2
    u = _unit_perp(alpha)
    lo, hi = -np.inf, np.inf
    for k, (bmin, bmax) in enumerate(((xmin, xmax), (ymin, ymax))):
        if abs(u[k]) < 1e-15:  # parallel to this pair of sides
            if not bmin <= foot[k] <= bmax:
                return None
            continue
        t1, t2 = sorted(((bmin - foot[k]) / u[k], (bmax - foot[k]) / u[k]))
        lo, hi = max(lo, t1), min(hi, t2)
    if not lo < hi:
        return None
    t = np.linspace(lo, hi, n)
    return foot[None, :] + t[:, None] * u[None, :]


@dataclass(frozen=True)
class _Split:
    """One split in the terms of a picture: its plane ``a . x + const = 0`` on component ``c``."""

    c: int
    a: np.ndarray
    const: float
    comp: object  # the component the view draws (its first)


def _disk_curve(view: View, split: _Split, signature, reference, bounds, n: int):
    comp = split.comp
    R = comp.radius
    a0, s = split.a[0], split.a[list(view.axes)]
    pts = _poincare_curve(a0, s, R, n) if view.model == "poincare" else _klein_curve(a0, s, R, n)
    if pts is None:
        return None
    # Keep the samples off the rim, where hyperboloid coordinates blow up.
    radius = np.hypot(pts[:, 0], pts[:, 1])
    scale = np.minimum(1.0, R * (1 - RIM_MARGIN) / np.maximum(radius, 1e-300))
    inside = pts * scale[:, None]
    if view.model == "poincare":
        h2 = coords.poincare_to_hyperboloid(inside, curvature=comp.curvature)
    else:
        h2 = coords.klein_to_hyperboloid(inside, curvature=comp.curvature)
    values = np.zeros((n, comp.ambient_dim))
    values[:, 0] = h2[:, 0]
    values[:, view.axes[0]] = h2[:, 1]
    values[:, view.axes[1]] = h2[:, 2]
    return {"x": pts[:, 0], "y": pts[:, 1]}, values


def _sphere_curve(view: View, split: _Split, signature, reference, bounds, n: int):
    comp = split.comp
    unit = _great_circle(split.a[list(view.axes)], n)
    if unit is None:
        return None
    values = np.zeros((n, comp.ambient_dim))
    values[:, list(view.axes)] = unit * comp.radius
    if view.kind != "sphere":
        # Flat pictures of the globe: latitude and longitude (the figure breaks lines at the date line).
        lat, lon = unit_to_latlon(unit)
        return ({"x": lon, "y": lat} if view.kind == "map" else {"lat": lat, "lon": lon}), values
    lifted = unit * 1.006  # drawn just above the surface so it is not hidden by it
    return {"x": lifted[:, 0], "y": lifted[:, 1], "z": lifted[:, 2]}, values


def _circle_curve(view: View, split: _Split, signature, reference, bounds, n: int):
    angles = _circle_angles(split.a)
    if angles is None:
        return None
    values = coords.angle_to_circle(angles, curvature=split.comp.curvature)
    return {"theta": np.degrees(angles)}, values


def _torus_curve(view: View, split: _Split, signature, reference, bounds, n: int):
    angles = _circle_angles(split.a)
    if angles is None:
        return None
    return _torus_lines(view, split.c, angles, signature, n)


def _torus_lines(view: View, c: int, angles: np.ndarray, signature, n: int):
    """The torus's circles at ``angles`` of component ``c`` (one of its two), each all the way round."""
    first, second = (signature.components[k] for k in view.components)
    other = np.linspace(-np.pi, np.pi, n)
    parts_a, parts_b = [], []
    for t in angles:
        fixed = np.full(n, t)
        if c == view.components[0]:
            parts_a += [fixed, [np.nan]]
            parts_b += [other, [np.nan]]
        else:
            parts_a += [other, [np.nan]]
            parts_b += [fixed, [np.nan]]
    ga, gb = np.concatenate(parts_a)[:-1], np.concatenate(parts_b)[:-1]
    ok = np.isfinite(ga)
    values = np.full((len(ga), first.ambient_dim + second.ambient_dim), np.nan)
    values[ok] = np.hstack(
        [
            coords.angle_to_circle(ga[ok], curvature=first.curvature),
            coords.angle_to_circle(gb[ok], curvature=second.curvature),
        ]
    )
    return torus_xyz(ga, gb, lift=0.02), values


def _plane_curve(view: View, split: _Split, signature, reference, bounds, n: int):
    comp, a, ax = split.comp, split.a, list(view.axes)
    # The component's coordinates outside the picture are held at the reference.
    rest = [k for k in range(comp.ambient_dim) if k not in ax]
    gamma = (
        split.const + float(a[rest] @ reference[comp.start + np.asarray(rest, dtype=np.int64)]) if rest else split.const
    )
    pts = _clip_line(a[ax], gamma, bounds, n)
    if pts is None:
        return None
    return {"x": pts[:, 0], "y": pts[:, 1]}, pts


def _line_curve(view: View, split: _Split, signature, reference, bounds, n: int):
    """One point: where the split meets the line (H1 through its Klein coordinate, E1 at a threshold)."""
    comp, a = split.comp, split.a
    if comp.kind == "H":
        if abs(a[1]) <= _COEF_EPS:
            return None
        k = -comp.radius * a[0] / a[1]
        if abs(k) >= comp.radius:
            return None
        p = coords.klein_to_poincare(np.array([[k]]), curvature=comp.curvature)[0, 0]
        values = coords.poincare_to_hyperboloid(np.array([[p]]), curvature=comp.curvature)
        return {"x": np.array([p])}, values
    ax = view.axes[0]
    rest = [k for k in range(comp.ambient_dim) if k != ax]
    gamma = split.const + (float(a[rest] @ reference[comp.start + np.asarray(rest, dtype=np.int64)]) if rest else 0.0)
    if abs(a[ax]) <= _COEF_EPS:
        return None
    x = -gamma / a[ax]
    if bounds and not bounds[0] <= x <= bounds[1]:
        return None
    return {"x": np.array([x])}, np.array([[x]])


# The boundary of a split on each kind of picture (sphere, map and ortho share the great circle).
_CURVES = {
    "disk": _disk_curve,
    **dict.fromkeys(SPHERE_KINDS, _sphere_curve),
    "circle": _circle_curve,
    "torus": _torus_curve,
    "plane": _plane_curve,
    "line": _line_curve,
}
# A radial split's boundary on each picture (no E picture: E components have none).
_RADIAL_CURVES = {
    "disk": _radial_disk,
    **dict.fromkeys(SPHERE_KINDS, _radial_sphere),
    "circle": _radial_circle,
    "torus": _radial_torus,
    "line": _radial_line,
}


def _curve(view: View, signature: Signature, node: int, tree, reference: np.ndarray, bounds, n: int):
    """(picture coords dict, view-column values (m, c)) of one split, or None."""
    radial = getattr(tree, "radial", None)
    if radial is not None and radial[node]:
        c = int(tree.component[node])
        if c not in view.components or view.kind not in _RADIAL_CURVES:
            return None
        split = _Radial(c, int(tree.coords[node][1]), float(tree.threshold[node]), signature.components[c])
        return _RADIAL_CURVES[view.kind](view, split, signature, reference, bounds, n)
    c, a, const = split_plane(tree, node, signature)
    if c not in view.components:
        return None
    split = _Split(c, a, const, signature.components[view.components[0]])
    return _CURVES[view.kind](view, split, signature, reference, bounds, n)


def boundary_curves(
    tree,
    signature,
    view: View,
    reference: np.ndarray,
    grid: ViewGrid | None = None,
    nodes=None,
    n_points: int = N_CURVE_POINTS,
    clip: bool = True,
    max_curves: int | None = None,
    keep=(),
) -> list[BoundaryCurve]:
    """Every split boundary of one tree that crosses the picture, as a geodesic (or the largest ones).

    Parameters
    ----------
    tree : fitted tree estimator or its ``tree_``
        Needs ``children_left``, ``children_right``, ``component``, ``coords``,
        ``normal``.
    signature : str or Signature
    view : View
    reference : ndarray of shape (ambient_dim,)
        Where the components outside the picture are held.
    grid : ViewGrid, optional
        Supplies plane / line bounds (defaults to [-1, 1]).
    nodes : iterable of int, optional
        Only these nodes (default: every internal node).
    n_points : int
        Samples per curve.
    clip : bool
        Cut each curve to the part whose points reach its node (the part that
        is a real decision boundary); ``False`` draws whole geodesics. A clipped
        curve keeps one NaN between its pieces and none at its ends.
    max_curves : int, optional
        Draw at most this many curves besides ``keep``: those of the splits that
        hold the most training rows (:func:`ranked_splits`), the tree cut back
        from the root. Default: no limit (see :data:`MAX_BOUNDARY_CURVES`).
    keep : iterable of int
        Nodes drawn whatever ``max_curves`` says (highlighted splits).

    Returns
    -------
    list of BoundaryCurve
        In node order; splits on other components, and splits whose plane
        misses the picture, are left out.
    """
    signature = Signature.parse(signature)
    _check_view(view, signature)
    t = tree_arrays(tree)
    reference = np.asarray(reference, dtype=np.float64)
    is_split = np.asarray(t.children_left) >= 0
    internal = np.flatnonzero(is_split)
    keep = {int(v) for v in keep if 0 <= int(v) < len(is_split) and is_split[int(v)]}
    if max_curves is not None:
        # Highlighted splits first (never counted against the budget), then the largest ones.
        ranked = ranked_splits(t, view.components)
        internal = np.concatenate([np.array(sorted(keep), dtype=np.int64), ranked[~np.isin(ranked, list(keep))]])
    if nodes is not None:
        wanted = {int(v) for v in nodes}
        internal = np.array([v for v in internal if int(v) in wanted], dtype=np.int64)
    bounds = _bounds(view, grid)
    columns = _component_columns(view, signature)
    curves = []
    budget = np.inf if max_curves is None else int(max_curves)
    for node in internal:
        if node not in keep and budget <= 0:
            break  # ``keep`` comes first: only budgeted splits remain
        found = _curve(view, signature, int(node), t, reference, bounds, int(n_points))
        if found is None:
            continue
        picture, values = found
        if clip:
            picture = _cut_to_reach(picture, values, reference, columns, partial(t.reaches, int(node)))
            if picture is None:
                continue
        curves.append(BoundaryCurve(int(node), picture))
        budget -= int(node) not in keep
    return sorted(curves, key=lambda c: c.node)


def _bounds(view: View, grid: ViewGrid | None) -> tuple:
    """The picture's plane / line bounds: the grid's, or [-1, 1] (each way for a plane)."""
    bounds = grid.bounds if grid is not None else None
    if bounds is None:
        bounds = (-1.0, 1.0, -1.0, 1.0) if view.kind == "plane" else (-1.0, 1.0)
    return bounds


def _cut_to_reach(picture: dict, values: np.ndarray, reference: np.ndarray, columns, reaches) -> dict | None:
    """A curve's picture coordinates, NaN where its samples do not reach its node; None when none does.

    ``values`` are the samples' view-column values (NaN off the picture), completed to whole rows
    with ``reference``; ``reaches(rows)`` is the tree's own routing (a bool per row).
    """
    finite = np.isfinite(values).all(axis=1)
    rows = np.tile(reference, (len(values), 1))
    rows[:, columns] = np.where(finite[:, None], values, 0.0)
    active = np.asarray(reaches(rows), dtype=bool) & finite
    if not active.any():
        return None
    return _squeeze({k: np.where(active, v, np.nan) for k, v in picture.items()})


def klein_boundary_curves(
    estimator, view: View, reference: np.ndarray, grid: ViewGrid | None = None, n_points: int = N_CURVE_POINTS
) -> list[BoundaryCurve]:
    """Every split boundary of a Klein-wrapped scikit-learn decision tree that crosses the picture.

    A split of the wrapped tree thresholds one Klein feature: ``x_j / x_0 <= t`` on an H
    component (the plane ``-t x_0 + x_j = 0``, a geodesic) or ``x_j <= t`` on an E component
    (a lift plane), so it is drawn exactly as a product tree's split is. Each curve is cut to
    the part whose points reach its node, by the wrapped tree's own routing (its
    ``decision_path`` on the wrapper's features), as :func:`boundary_curves` does.

    Parameters
    ----------
    estimator : fitted KleinTreeClassifier or KleinTreeRegressor
        Wrapping a scikit-learn ``DecisionTreeClassifier`` or ``DecisionTreeRegressor``
        (one tree with a ``tree_``), on hyperboloid input.
    view : View
    reference : ndarray of shape (ambient_dim,)
        Where the components outside the picture are held.
    grid : ViewGrid, optional
        Supplies plane / line bounds.
    n_points : int
        Samples per curve.

    Returns
    -------
    list of BoundaryCurve
        In node order (the wrapped tree's node ids).
    """
    inner = getattr(estimator, "estimator_", None)
    if inner is None or not hasattr(getattr(inner, "tree_", None), "feature"):
        raise ValueError("klein_boundary_curves draws a fitted Klein wrapper of one scikit-learn decision tree")
    if estimator.input_model != "hyperboloid":
        raise ValueError("klein_boundary_curves needs a Klein wrapper fitted on hyperboloid input")
    signature = estimator.signature_
    _check_view(view, signature)
    layout = estimator.layout_
    # Local coordinate j of each Klein feature: H features count x_1, x_2, ... of their
    # component, E features x_0, x_1, ... (KleinLayout's order).
    local = np.zeros(layout.n_features, dtype=np.int64)
    for c in np.unique(layout.feat_component):
        features = np.flatnonzero(layout.feat_component == c)
        local[features] = np.arange(len(features)) + (signature.components[int(c)].kind == "H")
    t = inner.tree_
    reference = np.asarray(reference, dtype=np.float64)
    bounds = _bounds(view, grid)
    columns = _component_columns(view, signature)
    curves = []
    for node in np.flatnonzero(t.children_left >= 0):
        f, threshold = int(t.feature[node]), float(t.threshold[node])
        c = int(layout.feat_component[f])
        if c not in view.components:
            continue
        comp = signature.components[c]
        a, const = np.zeros(comp.ambient_dim), 0.0
        if comp.kind == "H":
            a[0], a[local[f]] = -threshold, 1.0
        else:
            a[local[f]], const = 1.0, -threshold
        found = _CURVES[view.kind](
            view, _Split(c, a, const, signature.components[view.components[0]]), signature, reference, bounds, n_points
        )
        if found is None:
            continue
        picture, values = found

        def reaches(rows, node=int(node)):
            return inner.decision_path(estimator.transform_features(rows))[:, node].toarray().ravel() > 0

        picture = _cut_to_reach(picture, values, reference, columns, reaches)
        if picture is not None:
            curves.append(BoundaryCurve(int(node), picture))
    return curves
