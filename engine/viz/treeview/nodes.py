"""One node of a fitted tree: where it acts in a picture, and what the Inspector says about it.

:func:`node_region` finds the cells of a picture that reach a node and labels the two sides of
its split (or its leaf's prediction), with a split's margin band and nearest training rows;
routing is the tree's own (:meth:`curvedtrees.trees.Tree.reaches` and
:meth:`~curvedtrees.trees.Tree.goes_left`, the compiled rule). :func:`node_details`,
:func:`split_geometry` and :func:`explain_path` are the node's and a row's path's texts.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from ...trees import describe_split, radial_distance, radial_rule
from ..views import ViewGrid, product_rows, project_points

__all__ = [
    "NodeRegion",
    "decision_path_nodes",
    "explain_path",
    "node_details",
    "node_region",
    "point_value",
    "split_geometry",
]


@dataclass
class NodeRegion:
    """Where one node acts in a picture, and where its explanations are written.

    Attributes
    ----------
    inside : ndarray of bool, shape grid.shape
        Cells whose rows reach the node (its region); False off the manifold.
    labels : list of (dict, str, str)
        Picture coordinates (as :func:`curvedtrees.viz.views.project_points` gives), text
        and hover text: for a split, one label on each side ("node 3 left (≤ 0)", the
        rule "+0.58·x0 +0.815·x2 ≤ 0" on hover), for a leaf its prediction; placed on
        the side's cell nearest to the side's centroid, so that it lies inside the side.
    band : ndarray of bool, shape grid.shape, or None
        A split's margin: the cells of its region between its boundary and the nearest
        training row on each side (None without training rows, or when the split is on
        a component the picture does not show).
    nearest : list of (dict, int, str)
        The nearest training row on each side: picture coordinates, row number, side.
    """

    inside: np.ndarray
    labels: list
    band: np.ndarray | None = None
    nearest: list = ()


def _cell_point(grid: ViewGrid, flat: int) -> dict:
    """Picture coordinates of the centre of cell ``flat`` (row-major) of ``grid``."""
    r, c = divmod(int(flat), grid.shape[1])
    kind = grid.view.kind
    if kind in ("disk", "plane"):
        return {"x": float(grid.coords["x"][c]), "y": float(grid.coords["y"][r])}
    if kind == "map":
        return {"x": float(grid.coords["lon"][c]), "y": float(grid.coords["lat"][r])}
    if kind == "ortho":
        return {"lat": float(grid.coords["lat"][r]), "lon": float(grid.coords["lon"][c])}
    if kind == "circle":
        return {"theta": float(np.asarray(grid.coords["theta"]).ravel()[flat])}
    if kind == "line":
        return {"x": float(grid.coords["x"][c])}
    corners = {k: np.asarray(grid.coords[k], dtype=np.float64)[r : r + 2, c : c + 2].mean() for k in ("vx", "vy", "vz")}
    point = np.array([corners["vx"], corners["vy"], corners["vz"]])
    if kind == "sphere":
        point = point / (np.linalg.norm(point) or 1.0) * 1.03  # above the surface, so the text is not buried
    return dict(zip("xyz", (float(v) for v in point)))


def _label_cell(grid: ViewGrid, cells: np.ndarray) -> int | None:
    """The cell of ``cells`` (flat indices) nearest to their centroid in grid index space."""
    if not len(cells):
        return None
    rows, cols = divmod(cells, grid.shape[1])
    gap = (rows - rows.mean()) ** 2 + (cols - cols.mean()) ** 2
    return int(cells[np.argmin(gap)])


def _leaf_text(estimator, node: int, shown: int, class_names) -> str:
    """ "leaf 7: b (83%)" or "leaf 7: 0.412"."""
    value = np.asarray(estimator.tree_.value[node], dtype=np.float64).ravel()
    if hasattr(estimator, "classes_"):
        names = class_names if class_names is not None else [str(c) for c in estimator.classes_]
        return f"leaf {shown}: {names[int(np.argmax(value))]} ({value.max():.0%})"
    return f"leaf {shown}: {value[0]:.4g}"


def _side_labels(tree, node: int, shown: int, grid: ViewGrid, cells: np.ndarray, left: np.ndarray) -> list:
    """A label on each side of a split (on the side's cell nearest its centroid): short text, the rule on hover."""
    i, j = (int(c) for c in tree.coords[node])
    n_i, n_j = (float(v) for v in tree.normal[node])
    first = "1" if i < 0 else f"x{i}"
    rule = f"{n_i:+.3g}·{first} {n_j:+.3g}·x{j}"
    radial = _radial_parts(tree, node)
    labels = []
    for side, mine, sign in (("left", cells[left], "≤"), ("right", cells[~left], ">")):
        cell = _label_cell(grid, mine)
        if cell is not None:
            # Short on the picture (it must fit a narrow column); the whole rule shows on hover.
            if radial is not None:
                text = f"node {shown} {side} ({radial[1] if side == 'left' else radial[2]})"
                hover = radial[0] if side == "left" else f"not ({radial[0]})"
                labels.append((_cell_point(grid, cell), text, hover))
                continue
            text = f"node {shown} {side} (≤ 0)" if side == "left" else f"node {shown} {side} (> 0)"
            labels.append((_cell_point(grid, cell), text, f"{rule} {sign} 0"))
    return labels


def _radial_parts(tree, node: int):
    """A radial split's (left rule, left's short text, right's short text), or None for other splits.

    H: "inside" / "outside" the ball about the origin; S: nearer to / farther from the pole
    than the cap's angle (the left side, ``x_k <= t``, is the far one).
    """
    radial = getattr(tree, "radial", None)
    if radial is None or not radial[node]:
        return None
    comp = tree.features.signature.components[int(tree.component[node])]
    j, t = int(tree.coords[node][1]), float(tree.threshold[node])
    value = radial_distance(comp.kind, comp.radius, t)
    if comp.kind == "H":
        return radial_rule(comp.kind, comp.radius, j, t), f"d ≤ {value:.3g}", f"d > {value:.3g}"
    return radial_rule(comp.kind, comp.radius, j, t), f"∠+x{j} ≥ {value:.3g}", f"∠+x{j} < {value:.3g}"


def node_region(
    estimator,
    node: int,
    grid: ViewGrid,
    reference: np.ndarray,
    signature,
    class_names=None,
    id_map=None,
    X_train=None,
    rows_train=None,
) -> NodeRegion:
    """The cells of a picture that reach ``node``, and labels of its two sides (or of its prediction).

    Parameters
    ----------
    estimator : fitted tree estimator
    node : int
        A node of ``estimator`` (original id through ``id_map`` in the labels).
    grid : ViewGrid
    reference : ndarray of shape (ambient_dim,)
    signature : str or Signature
    class_names : list of str, optional
    id_map : ndarray of int, optional
        Original node ids (see :class:`curvedtrees.trees.PrunedTree`), used in the labels.
    X_train : ndarray of shape (n_rows, ambient_dim), optional
        The training rows: a split's margin band and nearest rows need them.
    rows_train : ndarray of int, shape (n_rows,), optional
        Row numbers of ``X_train`` in the dataset (default 0, 1, ...).

    Returns
    -------
    NodeRegion
    """
    tree = estimator.tree_
    node = int(node)
    if not 0 <= node < tree.node_count:
        raise ValueError(f"node must be between 0 and {tree.node_count - 1}, got {node}")
    rows = product_rows(grid, reference)
    on_grid = np.flatnonzero(grid.mask)
    reach = tree.reaches(node, rows) if len(rows) else np.zeros(0, dtype=bool)
    inside = np.zeros(grid.mask.shape, dtype=bool)
    inside[on_grid[reach]] = True
    shown = node if id_map is None else int(id_map[node])
    if tree.children_left[node] < 0:
        cell = _label_cell(grid, on_grid[reach])
        text = _leaf_text(estimator, node, shown, class_names)
        labels = [] if cell is None else [(_cell_point(grid, cell), text, text)]
        return NodeRegion(inside.reshape(grid.shape), labels)
    left = tree.goes_left(node, rows[reach]) if reach.any() else np.zeros(0, dtype=bool)
    labels = _side_labels(tree, node, shown, grid, on_grid[reach], left)
    if X_train is None or int(tree.component[node]) not in grid.view.components or not reach.any():
        return NodeRegion(inside.reshape(grid.shape), labels)
    band, nearest = _margin(tree, node, grid, signature, (on_grid[reach], rows[reach], left), X_train, rows_train)
    return NodeRegion(inside.reshape(grid.shape), labels, band, nearest)


def _split_value(tree, node: int, rows: np.ndarray) -> np.ndarray:
    """``normal[0] x_i + normal[1] x_j`` of each row on the split's plane (``x_i = 1`` for a lift)."""
    plane = int(tree.feature[node])
    col_i, col_j = int(tree.features.col_i[plane]), int(tree.features.col_j[plane])
    n0, n1 = (float(v) for v in np.asarray(tree.normal)[node])
    return n0 * (1.0 if col_i < 0 else rows[:, col_i]) + n1 * rows[:, col_j]


def _margin(tree, node, grid, signature, region, X_train, rows_train):
    """A split's margin band (cells of shape ``grid.shape``) and the nearest training row on each side.

    On every component kind the geodesic distance to a split's boundary grows with
    ``|normal . x|`` (E: linearly, S: as an arcsine, H: as an arcsinh of it over a fixed
    norm), so the nearest row on a side is the one of smallest ``|normal . x|`` and the
    band is the cells on that side whose value is smaller still: no distance formula per
    geometry is needed, and the band meets the two rows exactly. Sides are the tree's
    routing. ``region`` is the node's cells: (flat indices into the grid, their rows, which go left).
    """
    on_grid, cell_rows, cell_left = region
    X_train = np.asarray(X_train, dtype=np.float64)
    reached = tree.reaches(node, X_train)
    train_left = tree.goes_left(node, X_train)
    value = _split_value(tree, node, X_train)
    cell_value = np.abs(_split_value(tree, node, cell_rows))
    band = np.zeros(grid.mask.shape, dtype=bool)
    nearest = []
    numbers = np.arange(len(X_train)) if rows_train is None else np.asarray(rows_train)
    for side, mine, cells in (("left", reached & train_left, cell_left), ("right", reached & ~train_left, ~cell_left)):
        if not mine.any():
            continue
        pick = np.flatnonzero(mine)[np.argmin(np.abs(value[mine]))]
        band[on_grid[cells & (cell_value <= abs(float(value[pick])))]] = True
        at = project_points(grid.view, signature, X_train[pick : pick + 1])
        nearest.append(({k: float(v[0]) for k, v in at.items()}, int(numbers[pick]), side))
    return band.reshape(grid.shape), nearest


def decision_path_nodes(estimator, row: np.ndarray) -> list[int]:
    """Node ids visited by one ambient row, root first."""
    row = np.asarray(row, dtype=np.float64).reshape(1, -1)
    path = estimator.decision_path(row)
    return [int(v) for v in np.sort(path.indices)]


def renumber(text: str, node: int, id_map) -> str:
    """A node's description with its id in the copy replaced by its original id (``id_map``)."""
    if id_map is None:
        return text
    return text.replace(f"node {node}:", f"node {int(id_map[node])}:", 1)


def point_value(estimator, node: int, row: np.ndarray, decimals: int = 3) -> str:
    """What the split at ``node`` compares, worked out for one row, in the terms of its rule.

    The rule's own quantity, so the row's side can be checked by eye against the threshold
    that :func:`curvedtrees.trees.describe_split` prints: ``"x2/x0 = -0.583"`` (a Klein
    threshold), ``"x1 = 0.52"`` (a Euclidean threshold), ``"+0.580·x1 -0.815·x2 = +0.213"``
    (a line through the origin; left when at most 0), ``"distance from origin 1.52 (x0 =
    2.39)"`` or ``"angle from +x2 0.61 rad (x2 = 0.82)"`` (radial splits).

    Parameters
    ----------
    estimator : fitted tree estimator
    node : int
        A split node of ``estimator.tree_``.
    row : ndarray of shape (ambient_dim,)
    decimals : int, default=3
    """
    tree = estimator.tree_
    comp = estimator.signature_.components[int(tree.component[node])]
    x = np.asarray(row, dtype=np.float64).ravel()[comp.slice]
    i, j = (int(c) for c in tree.coords[node])
    radial = getattr(tree, "radial", None)
    if radial is not None and radial[node]:
        # radial_distance reads a coordinate value the way it reads a threshold (same clamp).
        value = radial_distance(comp.kind, comp.radius, float(x[j]))
        if comp.kind == "H":
            return f"distance from origin {value:.{decimals}g} (x{j} = {x[j]:.{decimals}g})"
        return f"angle from +x{j} {value:.{decimals}g} rad (x{j} = {x[j]:.{decimals}g})"
    if tree.linear[node]:
        if comp.kind == "H":
            # The same division the routing does (x_0 >= R > 0 on the hyperboloid).
            return f"x{j}/x0 = {x[j] / x[0]:.{decimals}f}"
        return f"x{j} = {x[j]:.{decimals}g}"
    n_i, n_j = (float(v) for v in tree.normal[node])
    first, x_i = ("1", 1.0) if i < 0 else (f"x{i}", float(x[i]))
    return f"{n_i:+.{decimals}f}·{first} {n_j:+.{decimals}f}·x{j} = {n_i * x_i + n_j * float(x[j]):+.{decimals}g}"


def explain_path(estimator, row: np.ndarray, class_names=None, id_map=None) -> list[str]:
    """One sentence per node on a row's path: each split with the row's own value and the side taken, then the leaf.

    A split's sentence is its description (:func:`curvedtrees.trees.describe_split`), then
    ``"; this point: "`` and :func:`point_value`, then ``"-> left"`` or ``"-> right"``.

    Parameters
    ----------
    estimator : fitted tree estimator
    row : ndarray of shape (ambient_dim,)
    class_names : list of str, optional
    id_map : ndarray of int, optional
        Original node ids (see :class:`curvedtrees.trees.PrunedTree`), used in the sentences.
    """
    path = decision_path_nodes(estimator, row)
    left = estimator.tree_.children_left
    lines = []
    for node, child in itertools.pairwise(path):
        side = "left" if int(left[node]) == child else "right"
        own = point_value(estimator, node, row)
        lines.append(f"{renumber(describe_split(estimator, node), node, id_map)}; this point: {own} -> {side}")
    leaf = path[-1]
    text = renumber(describe_split(estimator, leaf), leaf, id_map)
    if class_names is not None and hasattr(estimator, "classes_"):
        k = int(np.argmax(estimator.tree_.value[leaf]))
        text += f" (predicts {class_names[k]})"
    lines.append(text)
    return lines


def node_details(estimator, node: int, class_names=None, id_map=None) -> dict:
    """What the inspector shows about one node.

    Returns
    -------
    dict
        ``node``, ``kind`` ("split" or "leaf"), ``samples``, ``impurity``,
        ``distribution`` (class -> fraction, classification) or ``value``
        (regression), ``prediction`` (the leaf's class with its fraction, or its mean),
        and for splits ``component``, ``plane``, ``boundary`` (the equation),
        ``geometry`` (:func:`split_geometry`), ``rule`` (engine's description),
        ``margin``, ``left``, ``right``.
    """
    tree = estimator.tree_
    node = int(node)
    if not 0 <= node < tree.node_count:
        raise ValueError(f"node must be between 0 and {tree.node_count - 1}, got {node}")
    shown = node if id_map is None else int(id_map[node])
    out = {"node": shown, "samples": int(tree.n_node_samples[node]), "impurity": float(tree.impurity[node])}
    value = np.asarray(tree.value[node], dtype=np.float64)
    if hasattr(estimator, "classes_"):
        names = class_names if class_names is not None else [str(c) for c in estimator.classes_]
        out["distribution"] = {str(n): float(v) for n, v in zip(names, value)}
        best = int(np.argmax(value))
        out["prediction"] = f"class {names[best]} ({value[best]:.0%} of the node's training rows)"
    else:
        out["value"] = float(value[0])
        out["prediction"] = f"value {value[0]:.4g} (the mean of the node's training rows)"
    out["rule"] = renumber(describe_split(estimator, node), node, id_map)
    if tree.children_left[node] < 0:
        out["kind"] = "leaf"
        return out
    comp = estimator.signature_.components[int(tree.component[node])]
    i, j = (int(c) for c in tree.coords[node])
    n_i, n_j = (float(v) for v in tree.normal[node])
    first = "1" if i < 0 else f"x{i}"
    radial = _radial_parts(tree, node)
    out.update(
        kind="split",
        component=f"{comp} (component {comp.index + 1})",
        plane=f"radial x{j}" if radial is not None else f"({first}, x{j})",
        boundary=(
            f"x{j} = {float(tree.threshold[node]):.4f}  (left: {radial[0]})"
            if radial is not None
            else f"{n_i:+.4f}·{first} {n_j:+.4f}·x{j} = 0  (left: <= 0)"
        ),
        geometry=split_geometry(estimator, node),
        margin=float(tree.margin[node]),
        left=int(tree.children_left[node]) if id_map is None else int(id_map[tree.children_left[node]]),
        right=int(tree.children_right[node]) if id_map is None else int(id_map[tree.children_right[node]]),
    )
    return out


def _angle(degrees: float) -> str:
    """An angle in (-180, 180], one decimal ("-0.0" shown as "0.0")."""
    value = (degrees + 180.0) % 360.0 - 180.0
    value = 180.0 if value == -180.0 else value
    return f"{value + 0.0:.1f}°"


def split_geometry(estimator, node: int) -> str:
    """The split of ``node`` in its picture's own geometry, as one sentence.

    H: the geodesic (the two points where it meets the rim of the disk, in degrees, for
    H2) and the plane through the hyperboloid's origin it comes from; S1: the two angles
    where the line meets the circle; S2: the great circle's pole as latitude and longitude;
    E: the threshold or the line through the origin; a radial split: the ball about the
    origin (H) or the cap about an axis pole (S) and which side is convex. The margin is in
    the units of ``dist`` (geodesic distance to the nearest training row).

    Parameters
    ----------
    estimator : fitted product tree
    node : int
        An internal node.
    """
    tree = estimator.tree_
    comp = estimator.signature_.components[int(tree.component[node])]
    i, j = (int(c) for c in tree.coords[node])
    margin = f"; margin {float(tree.margin[node]):.3g} (geodesic distance, the units of dist)"
    if _radial_parts(tree, node) is not None:
        return _radial_geometry(comp, j, float(tree.threshold[node])) + margin
    n_i, n_j = (float(v) for v in tree.normal[node])
    first = "1" if i < 0 else f"x{i}"
    plane = f"{n_i:+.3f}·{first} {n_j:+.3f}·x{j} = 0"
    # Where n_i x_i + n_j x_j = 0 meets the unit circle of the (x_i, x_j) plane: the direction
    # perpendicular to the normal, and its opposite.
    phi = np.degrees(np.arctan2(-n_i, n_j))
    if comp.kind == "E":
        if i < 0:
            text = f"{comp}: the hyperplane x{j} = {-n_i / n_j:.4g}"
        else:
            text = f"{comp}: the line through the origin at {_angle(phi)} in the (x{i}, x{j}) plane"
    elif comp.kind == "H" and i == 0:
        t = -n_i / n_j  # the Klein coordinate x_j / x_0 of the boundary
        text = f"{comp}: the geodesic x{j}/x0 = {t:.4g} (a straight chord of the Klein disk)"
        if comp.dim == 2 and abs(t) < 1.0:
            # Ideal points (cos a, sin a) of the disk with the j-th disk coordinate equal to t.
            a = np.degrees(np.arccos(t)) if j == 1 else np.degrees(np.arcsin(t))
            ends = (a, -a) if j == 1 else (a, 180.0 - a)
            text += f", meeting the rim at {_angle(ends[0])} and {_angle(ends[1])}"
        text += f"; it is the hyperboloid's section by the plane {plane} through the origin"
    elif comp.kind == "H":
        text = (
            f"{comp}: a geodesic through the centre of the disk, meeting the rim at {_angle(phi)} and "
            f"{_angle(phi + 180.0)}; it is the hyperboloid's section by the plane {plane} through the origin"
        )
    elif comp.dim == 1:
        text = f"{comp}: the diameter meeting the circle at {_angle(phi)} and {_angle(phi + 180.0)}"
    elif comp.dim == 2:
        pole = np.zeros(3)
        pole[i], pole[j] = n_i, n_j
        pole /= np.linalg.norm(pole)
        lat, lon = np.degrees(np.arcsin(np.clip(pole[2], -1.0, 1.0))), np.degrees(np.arctan2(pole[1], pole[0]))
        text = f"{comp}: the great circle whose pole is at latitude {lat + 0.0:.1f}°, longitude {_angle(lon)}"
    else:
        text = f"{comp}: the great sphere {plane}"
    return text + margin


def _radial_geometry(comp, j: int, t: float) -> str:
    """A radial split in words: the ball or cap, its radius, its circle on the pictures, which side is convex."""
    R = comp.radius
    value = radial_distance(comp.kind, R, t)
    if comp.kind == "H":
        return (
            f"{comp}: the ball about the origin of radius {value:.4g} (x0 <= {t:.4g}), a circle about the "
            f"centre of the Poincaré disk of radius {R * np.tanh(value / (2 * R)):.4g}; the ball (left) is "
            "geodesically convex, its outside (right) is not"
        )
    convex = (
        "both are hemispheres (convex)"
        if t == 0.0
        else f"the cap about {'+' if t > 0 else '-'}x{j} ({'right' if t > 0 else 'left'}) is convex, the other is not"
    )
    return (
        f"{comp}: the small circle at {value:.4g} rad from the pole +x{j} (x{j} = {t:.4g}); the left side is "
        f"the cap about -x{j} of angle {np.pi - value:.4g} rad, the right the cap about +x{j} of angle "
        f"{value:.4g} rad; {convex} (a cap is convex when at most a hemisphere)"
    )
