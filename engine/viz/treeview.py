"""A fitted product tree as a diagram, replayed split by split, and explained per point.

The builder numbers nodes depth-first in the order their splits were chosen, so
"the first k splits" are the internal nodes with the k smallest ids.
:func:`first_splits` cuts a fitted tree back to them (a copy whose ``tree_``
keeps only those splits; every other node becomes or disappears under a leaf),
so replaying training is predicting with ever larger prefixes of one tree.
"""

from __future__ import annotations

import copy
import itertools
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go

from .boundaries import goes_left, node_parents, reaches_node, tree_arrays
from .palette import class_colors
from .regions import RegionGrid
from .views import ViewGrid, product_rows, project_points

__all__ = [
    "DIAGRAM_WIDTH",
    "MAX_REPLAY_FRAMES",
    "PrunedTree",
    "Replay",
    "decision_path_nodes",
    "diagram_nodes",
    "distribution_figure",
    "explain_path",
    "first_splits",
    "node_details",
    "node_region",
    "replay_regions",
    "replay_steps",
    "split_geometry",
    "split_order",
    "tree_figure",
    "tree_layout",
]

_NODE_STYLE_COLORS = {"newest": "#FFE100", "path": "#FFFFFF", "selected": "#FF4FD8"}
# The tree diagram is laid out for this many pixels of plot area: the Inspector's diagram column at
# 1024 px with the sidebar open is 218 px wide, less the chart's 10 px margins. Wider charts only spread it.
DIAGRAM_WIDTH = 198
# Label font (px): 11 px is the smallest that stays legible on a projector.
DIAGRAM_FONT = 12
# Marker diameters (px): a split, a leaf, extra for a highlighted node, and its halo on top of that.
_MARKER_PX = {"split": 14, "leaf": 12, "styled": 4, "halo": 6}
# Horizontal room of a node: the largest marker, a highlighted split with its halo (24 px), and a gap.
_SLOT_PX = 24
# Vertical room of a level: a marker, a two-line label below it, and the edge to the next level.
_LEVEL_PX = 66
# Top margin per legend entry: at the narrowest width each entry takes a row of its own.
_LEGEND_ROW_PX = 20
# Width of a character of Plotly's default font in em: 0.6 is digits and most capitals; a little more
# than the average so that estimated label boxes hold the real ones.
_CHAR_EM = 0.62
_LABEL_GAP_PX = 4
# Leaf class names longer than this are cut (the whole name is on hover).
_NAME_CHARS = 9
# A replay sends every frame to the browser at once (one byte per cell each): deeper trees are
# replayed at this many evenly spaced split counts, the full tree always last.
MAX_REPLAY_FRAMES = 64


@dataclass
class PrunedTree:
    """A copy of a fitted tree cut back to its first ``k`` splits.

    Attributes
    ----------
    estimator : fitted tree estimator
        Predicts like the original tree stopped after ``k`` splits.
    kept : ndarray of int, shape (n_kept,)
        Original id of every node of the copy (``kept[new_id] = old_id``).
    k : int
        Number of splits kept.
    newest : int or None
        Original id of the last split kept (the newest one), None for k = 0.
    """

    estimator: object
    kept: np.ndarray
    k: int
    newest: int | None

    def to_new(self, node: int) -> int | None:
        """Id in the copy of original node ``node`` (None if it was cut away)."""
        hits = np.flatnonzero(self.kept == int(node))
        return int(hits[0]) if len(hits) else None

    def to_old(self, node: int) -> int:
        """Original id of node ``node`` of the copy."""
        return int(self.kept[int(node)])

    def restyle(self, styles: dict) -> dict:
        """Styles keyed by original ids -> keyed by the copy's ids (cut-away nodes dropped)."""
        out = {}
        for node, style in styles.items():
            new = self.to_new(node)
            if new is not None:
                out[new] = style
        return out


def split_order(tree) -> np.ndarray:
    """Ids of the internal nodes in the order their splits were chosen (ascending id)."""
    return np.flatnonzero(np.asarray(tree_arrays(tree).children_left) >= 0)


def first_splits(estimator, k: int) -> PrunedTree:
    """The tree after its first ``k`` splits.

    Parameters
    ----------
    estimator : fitted ProductDecisionTreeClassifier or ProductDecisionTreeRegressor
    k : int
        Number of splits to keep, clipped to ``[0, number of splits]``.

    Returns
    -------
    PrunedTree
        Node values are the training statistics the node had when it was a leaf
        candidate (class fractions or mean target), exactly what a tree stopped at
        that point would predict.
    """
    from ..trees import Tree

    tree = estimator.tree_
    order = split_order(tree)
    k = int(np.clip(k, 0, len(order)))
    keep_split = np.zeros(tree.node_count, dtype=bool)
    keep_split[order[:k]] = True
    # A node survives when all its ancestors are kept splits; ancestors have smaller
    # ids (depth-first numbering), so one forward pass decides every node.
    parents = node_parents(tree)
    alive = np.zeros(tree.node_count, dtype=bool)
    alive[0] = True
    for node in range(1, tree.node_count):
        alive[node] = alive[parents[node]] and keep_split[parents[node]]
    kept = np.flatnonzero(alive)
    new_id = np.full(tree.node_count, -1, dtype=np.int64)
    new_id[kept] = np.arange(len(kept))
    arrays = {name: np.array(values)[kept] for name, values in tree.to_arrays().items()}
    split = keep_split[kept]
    arrays["children_left"] = np.where(split, new_id[np.asarray(tree.children_left)[kept]], -1)
    arrays["children_right"] = np.where(split, new_id[np.asarray(tree.children_right)[kept]], -1)
    arrays["feature"] = np.where(split, arrays["feature"], -1)
    arrays["threshold"] = np.where(split, arrays["threshold"], np.nan)
    arrays["normal"] = np.where(split[:, None], arrays["normal"], 0.0)
    arrays["margin"] = np.where(split, arrays["margin"], np.nan)
    arrays["improvement"] = np.where(split, arrays["improvement"], 0.0)
    pruned = copy.copy(estimator)
    pruned.tree_ = Tree(tree.features, arrays, tree.n_outputs)
    newest = int(order[k - 1]) if k > 0 else None
    return PrunedTree(pruned, kept, k, newest)


def replay_steps(n_splits: int, max_frames: int = MAX_REPLAY_FRAMES) -> np.ndarray:
    """Split counts a replay shows: 0, 1, ..., n_splits, or ``max_frames`` of them evenly spaced.

    Returns
    -------
    ndarray of int64, shape (min(n_splits + 1, max_frames),)
        Increasing, from 0 to ``n_splits`` inclusive.
    """
    n_splits, max_frames = int(n_splits), max(int(max_frames), 2)
    if n_splits + 1 <= max_frames:
        return np.arange(n_splits + 1, dtype=np.int64)
    return np.unique(np.rint(np.linspace(0, n_splits, max_frames)).astype(np.int64))


@dataclass
class Replay:
    """A tree's regions over one picture after each number of splits.

    Attributes
    ----------
    frames : list of RegionGrid
        ``frames[f]`` is what the tree stopped after ``steps[f]`` splits predicts.
    steps : ndarray of int64, shape (n_frames,)
        Number of splits of each frame (see :func:`replay_steps`).
    order : ndarray of int64, shape (n_splits,)
        Node ids of the splits in the order training chose them (:func:`split_order`).
    """

    frames: list
    steps: np.ndarray
    order: np.ndarray

    def newest(self, frame: int) -> int | None:
        """Node id of the last split of frame ``frame`` (None before the first split)."""
        k = int(self.steps[frame])
        return int(self.order[k - 1]) if k > 0 else None

    def nodes(self, frame: int) -> np.ndarray:
        """Node ids of the splits of frame ``frame``, in training order."""
        return self.order[: int(self.steps[frame])]


def replay_regions(estimator, grid: ViewGrid, reference: np.ndarray, steps=None) -> Replay:
    """The regions of the tree after its first k splits, for every k, from one pass over the grid.

    Each cell is routed once through the full tree. Stopped after k splits, the tree
    sends the cell to the first node of that path which is not one of the first k
    splits (a leaf of the full tree, or a split chosen later): that node's training
    statistics are the prediction, exactly as :func:`first_splits` would give.

    Parameters
    ----------
    estimator : fitted ProductDecisionTreeClassifier or ProductDecisionTreeRegressor
    grid : ViewGrid
    reference : ndarray of shape (ambient_dim,)
        Where the components outside the picture are held.
    steps : array-like of int, optional
        Split counts to show (default :func:`replay_steps`), each in ``[0, n_splits]``.

    Returns
    -------
    Replay
    """
    tree = estimator.tree_
    order = split_order(tree)
    steps = replay_steps(len(order)) if steps is None else np.asarray(steps, dtype=np.int64).ravel()
    if steps.size == 0 or steps.min() < 0 or steps.max() > len(order):
        raise ValueError(f"replay steps must lie in [0, {len(order)}] (the tree's splits), got {steps.tolist()}")
    n = tree.node_count
    # rank[v]: when node v's split was chosen; leaves never split.
    rank = np.full(n, np.iinfo(np.int64).max, dtype=np.int64)
    rank[order] = np.arange(len(order))
    parents = node_parents(tree)
    # owner[f, v]: the node a cell whose full-tree path passes v sits in after steps[f] splits.
    # Parents precede children, so one pass in id order settles every node for every frame.
    owner = np.zeros((len(steps), n), dtype=np.int64)
    for v in range(1, n):
        p = parents[v]
        still_split = (owner[:, p] == p) & (rank[p] < steps)
        owner[:, v] = np.where(still_split, v, owner[:, p])
    rows = product_rows(grid, reference)
    leaf = np.asarray(estimator.apply(rows), dtype=np.int64) if len(rows) else np.zeros(0, dtype=np.int64)
    value = np.asarray(tree.value, dtype=np.float64).reshape(n, -1)
    shape, mask = grid.shape, grid.mask
    frames = []
    if hasattr(estimator, "classes_"):
        classes = np.asarray(estimator.classes_)
        node_class = np.argmax(value, axis=1).astype(np.int16)
        node_conf = value.max(axis=1).astype(np.float32)
        for f in range(len(steps)):
            at = owner[f, leaf]
            index = np.full(mask.shape, -1, dtype=np.int16)
            confidence = np.full(mask.shape, np.nan, dtype=np.float32)
            index[mask], confidence[mask] = node_class[at], node_conf[at]
            frames.append(
                RegionGrid(grid, "classification", index.reshape(shape), confidence.reshape(shape), None, classes)
            )
    else:
        node_value = value[:, 0].astype(np.float32)
        for f in range(len(steps)):
            values = np.full(mask.shape, np.nan, dtype=np.float32)
            values[mask] = node_value[owner[f, leaf]]
            frames.append(RegionGrid(grid, "regression", None, None, values.reshape(shape), np.array([])))
    return Replay(frames, steps, order)


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
        Original node ids (see :class:`PrunedTree`), used in the labels.
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
    reach = reaches_node(tree, node, rows, signature) if len(rows) else np.zeros(0, dtype=bool)
    inside = np.zeros(grid.mask.shape, dtype=bool)
    inside[on_grid[reach]] = True
    shown = node if id_map is None else int(id_map[node])
    labels = []
    if tree.children_left[node] < 0:
        value = np.asarray(tree.value[node], dtype=np.float64).ravel()
        if hasattr(estimator, "classes_"):
            names = class_names if class_names is not None else [str(c) for c in estimator.classes_]
            text = f"leaf {shown}: {names[int(np.argmax(value))]} ({value.max():.0%})"
        else:
            text = f"leaf {shown}: {value[0]:.4g}"
        cell = _label_cell(grid, on_grid[reach])
        if cell is not None:
            labels.append((_cell_point(grid, cell), text, text))
    else:
        left = goes_left(tree, node, rows[reach], signature) if reach.any() else np.zeros(0, dtype=bool)
        i, j = (int(c) for c in tree.coords[node])
        n_i, n_j = (float(v) for v in tree.normal[node])
        first = "1" if i < 0 else f"x{i}"
        rule = f"{n_i:+.3g}·{first} {n_j:+.3g}·x{j}"
        for side, cells, sign in (("left", on_grid[reach][left], "≤"), ("right", on_grid[reach][~left], ">")):
            cell = _label_cell(grid, cells)
            if cell is not None:
                # Short on the picture (it must fit a narrow column); the whole rule shows on hover.
                labels.append(
                    (
                        _cell_point(grid, cell),
                        f"node {shown} {side} (≤ 0)" if side == "left" else f"node {shown} {side} (> 0)",
                        f"{rule} {sign} 0",
                    )
                )
        if X_train is not None and int(tree.component[node]) in grid.view.components and reach.any():
            return _with_margin(
                estimator,
                node,
                grid,
                reference,
                signature,
                inside,
                labels,
                rows,
                reach,
                np.asarray(X_train, dtype=np.float64),
                rows_train,
            )
    return NodeRegion(inside.reshape(grid.shape), labels)


def _split_value(tree, node: int, rows: np.ndarray, signature) -> np.ndarray:
    """``normal[0] x_i + normal[1] x_j`` of each row on the split's component (<= 0 goes left)."""
    from ..manifolds.signature import Signature

    comp = Signature.parse(signature).components[int(tree.component[node])]
    i, j = (int(v) for v in np.asarray(tree.coords)[node])
    n0, n1 = (float(v) for v in np.asarray(tree.normal)[node])
    return n0 * (1.0 if i < 0 else rows[:, comp.start + i]) + n1 * rows[:, comp.start + j]


def _with_margin(estimator, node, grid, reference, signature, inside, labels, rows, reach, X_train, rows_train):
    """A split's region with its margin band and the nearest training row on each side.

    On every component kind the geodesic distance to a split's boundary grows with
    ``|normal . x|`` (E: linearly, S: as an arcsine, H: as an arcsinh of it over a fixed
    norm), so the nearest row on a side is the one of smallest ``|normal . x|`` and the
    band is the cells on that side whose value is smaller still: no distance formula per
    geometry is needed, and the band meets the two rows exactly.
    """
    tree = estimator.tree_
    reached = reaches_node(tree, node, X_train, signature)
    value = _split_value(tree, node, X_train, signature)
    cell_value = _split_value(tree, node, rows[reach], signature)
    on_grid = np.flatnonzero(grid.mask)[reach]
    band = np.zeros(grid.mask.shape, dtype=bool)
    nearest = []
    numbers = np.arange(len(X_train)) if rows_train is None else np.asarray(rows_train)
    for side, mine in (("left", reached & (value <= 0)), ("right", reached & (value > 0))):
        if not mine.any():
            continue
        pick = np.flatnonzero(mine)[np.argmin(np.abs(value[mine]))]
        reach_value = abs(float(value[pick]))
        cells = (cell_value <= 0) if side == "left" else (cell_value > 0)
        band[on_grid[cells & (np.abs(cell_value) <= reach_value)]] = True
        at = project_points(grid.view, signature, X_train[pick : pick + 1])
        nearest.append(({k: float(v[0]) for k, v in at.items()}, int(numbers[pick]), side))
    return NodeRegion(inside.reshape(grid.shape), labels, band.reshape(grid.shape), nearest)


def tree_layout(tree) -> tuple[np.ndarray, np.ndarray]:
    """Diagram positions: leaves evenly spaced left to right, parents centred over children.

    Returns
    -------
    x : ndarray of float, shape (n_nodes,)
    depth : ndarray of int, shape (n_nodes,)
    """
    t = tree_arrays(tree)
    left = np.asarray(t.children_left)
    right = np.asarray(t.children_right)
    n = len(left)
    depth = np.zeros(n, dtype=np.int64)
    for node in range(n):  # parents precede children
        if left[node] >= 0:
            depth[left[node]] = depth[right[node]] = depth[node] + 1
    x = np.zeros(n)
    # In-order leaf numbering through an explicit stack (trees can be deep).
    counter = 0
    stack = [0]
    while stack:
        node = stack.pop()
        if left[node] < 0:
            x[node] = counter
            counter += 1
        else:
            stack.append(int(right[node]))
            stack.append(int(left[node]))
    for node in range(n - 1, -1, -1):  # children before parents
        if left[node] >= 0:
            x[node] = 0.5 * (x[left[node]] + x[right[node]])
    return x, depth


def decision_path_nodes(estimator, row: np.ndarray) -> list[int]:
    """Node ids visited by one ambient row, root first."""
    row = np.asarray(row, dtype=np.float64).reshape(1, -1)
    path = estimator.decision_path(row)
    return [int(v) for v in np.sort(path.indices)]


def _short_label(estimator, node: int, class_names) -> str:
    tree = estimator.tree_
    if tree.children_left[node] < 0:
        value = tree.value[node]
        if class_names is not None:
            return str(class_names[int(np.argmax(value))])
        return f"{value[0]:.3g}"
    comp = estimator.signature_.components[int(tree.component[node])]
    i, j = (int(c) for c in tree.coords[node])
    first = "1" if i < 0 else f"x{i}"
    return (
        f"{comp.name}·{comp.index + 1} ({first},x{j})"
        if _repeated(estimator, comp.name)
        else (f"{comp.name} ({first},x{j})")
    )


def _repeated(estimator, name: str) -> bool:
    return sum(c.name == name for c in estimator.signature_.components) > 1


def _renumber(text: str, node: int, id_map) -> str:
    if id_map is None:
        return text
    return text.replace(f"node {node}:", f"node {int(id_map[node])}:", 1)


def explain_path(estimator, row: np.ndarray, class_names=None, id_map=None) -> list[str]:
    """One sentence per node on a row's path: each split with the side taken, then the leaf.

    Parameters
    ----------
    estimator : fitted tree estimator
    row : ndarray of shape (ambient_dim,)
    class_names : list of str, optional
    id_map : ndarray of int, optional
        Original node ids (see :class:`PrunedTree`), used in the sentences.
    """
    from ..trees import describe_split

    path = decision_path_nodes(estimator, row)
    left = estimator.tree_.children_left
    lines = []
    for node, child in itertools.pairwise(path):
        side = "left" if int(left[node]) == child else "right"
        lines.append(f"{_renumber(describe_split(estimator, node), node, id_map)} -> {side}")
    leaf = path[-1]
    text = _renumber(describe_split(estimator, leaf), leaf, id_map)
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
    from ..trees import describe_split

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
    out["rule"] = _renumber(describe_split(estimator, node), node, id_map)
    if tree.children_left[node] < 0:
        out["kind"] = "leaf"
        return out
    comp = estimator.signature_.components[int(tree.component[node])]
    i, j = (int(c) for c in tree.coords[node])
    n_i, n_j = (float(v) for v in tree.normal[node])
    first = "1" if i < 0 else f"x{i}"
    out.update(
        kind="split",
        component=f"{comp} (component {comp.index + 1})",
        plane=f"({first}, x{j})",
        boundary=f"{n_i:+.4f}·{first} {n_j:+.4f}·x{j} = 0  (left: <= 0)",
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
    E: the threshold or the line through the origin. The margin is in the units of
    ``dist`` (geodesic distance to the nearest training row).

    Parameters
    ----------
    estimator : fitted product tree
    node : int
        An internal node.
    """
    tree = estimator.tree_
    comp = estimator.signature_.components[int(tree.component[node])]
    i, j = (int(c) for c in tree.coords[node])
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
    return f"{text}; margin {float(tree.margin[node]):.3g} (geodesic distance, the units of dist)"


def distribution_figure(distribution: dict, height: int | None = None, font_size: float = DIAGRAM_FONT):
    """Horizontal bars of a node's class fractions, each in its class colour.

    Parameters
    ----------
    distribution : dict of str to float
        Class name -> fraction, in the classes' order (``node_details(...)["distribution"]``).
    height : int, optional
        Pixels; by default a row per class, tall enough for ``font_size``.
    font_size : float
        Pixels of the class names, the axis and the percentages.
    """
    names = list(distribution)
    colors = class_colors(len(names))
    fractions = [distribution[n] for n in names]
    fig = go.Figure(
        go.Bar(
            x=fractions,
            y=names,
            orientation="h",
            marker_color=colors,
            hovertemplate="%{y}: %{x:.1%}<extra></extra>",
            # Beside the bar at the axis' font size: inside a short bar Plotly would shrink it unreadably.
            text=[f"{v:.0%}" if v >= 0.005 else "" for v in fractions],
            textposition="outside",
            textfont={"size": font_size},
            cliponaxis=False,
        )
    )
    fig.update_layout(
        height=height or int(40 + len(names) * (font_size + 10)),
        margin={"l": 10, "r": 10, "t": 10, "b": 10},
        plot_bgcolor="#FFFFFF",
        font={"size": font_size},
        # Room right of a full bar for its "100%".
        xaxis={
            "range": [0, 1.2],
            "tickvals": [0, 0.5, 1],
            "tickformat": ".0%",
            "title": None,
            "tickfont": {"size": font_size},
        },
        yaxis={"autorange": "reversed", "type": "category", "tickfont": {"size": font_size}},
        showlegend=False,
    )
    return fig


def _hidden_counts(left: np.ndarray, right: np.ndarray) -> np.ndarray:
    """Number of nodes strictly below every node, shape (n_nodes,)."""
    n = len(left)
    below = np.zeros(n, dtype=np.int64)
    for node in range(n - 1, -1, -1):  # children have larger ids than their parent
        if left[node] >= 0:
            below[node] = 2 + below[left[node]] + below[right[node]]
    return below


def _tidy_layout(root: int, left: np.ndarray, right: np.ndarray, is_open: np.ndarray) -> tuple[dict, float]:
    """Positions of the drawn nodes, in slots: nodes of one level at least one slot apart.

    A compact tidy layout (Reingold and Tilford's idea, without threading): each subtree
    keeps, for every level below its root, its leftmost and rightmost position; two
    sibling subtrees are pushed apart until no level has them closer than one slot, and
    the parent sits midway. Subtrees under a closed node are not drawn.

    Returns
    -------
    x : dict of int to float
        Position of every drawn node (the root at 0).
    width : float
        Slots spanned by the drawing, ``max(x) - min(x) + 1``.
    """
    offset: dict[int, float] = {}  # a child's position relative to its parent
    contour: dict[int, tuple[list, list]] = {}
    # Post-order through an explicit stack (trees can be deeper than Python's recursion allows).
    stack = [(root, False)]
    while stack:
        node, done = stack.pop()
        if is_open[node] and not done:
            stack += [(node, True), (int(right[node]), False), (int(left[node]), False)]
            continue
        if not is_open[node]:
            contour[node] = ([0.0], [0.0])
            continue
        a, b = int(left[node]), int(right[node])
        (a_lo, a_hi), (b_lo, b_hi) = contour.pop(a), contour.pop(b)
        gap = max(ah - bl for ah, bl in zip(a_hi, b_lo)) + 1.0
        offset[a], offset[b] = -gap / 2.0, gap / 2.0
        lo, hi = [0.0], [0.0]
        for d in range(max(len(a_lo), len(b_lo))):
            lows = ([a_lo[d] - gap / 2.0] if d < len(a_lo) else []) + ([b_lo[d] + gap / 2.0] if d < len(b_lo) else [])
            highs = ([a_hi[d] - gap / 2.0] if d < len(a_hi) else []) + ([b_hi[d] + gap / 2.0] if d < len(b_hi) else [])
            lo.append(min(lows))
            hi.append(max(highs))
        contour[node] = (lo, hi)
    lo, hi = contour[root]
    x = {root: 0.0}
    order = [root]
    for node in order:  # pre-order: parents are placed before their children
        if is_open[node]:
            for child in (int(left[node]), int(right[node])):
                x[child] = x[node] + offset[child]
                order.append(child)
    return x, max(hi) - min(lo) + 1.0


def diagram_nodes(tree, selected: int | None = None, keep=(), max_slots: int | None = None) -> np.ndarray:
    """Which internal nodes the diagram opens (draws the children of), for a tree too wide to draw whole.

    The root-to-node paths of ``selected`` and of every node of ``keep`` are always open
    (their siblings drawn, closed); then the selected node's subtree opens level by level,
    then the rest of the tree (shallow and large nodes first), each node only if the
    drawing still fits ``max_slots`` nodes side by side. A closed internal node stands
    for its hidden subtree.

    Parameters
    ----------
    tree : fitted tree estimator or its ``tree_``
    selected : int, optional
        Node whose path and subtree matter most (default: the root).
    keep : iterable of int
        Nodes that must be drawn (the newest split, an explained row's path).
    max_slots : int, optional
        How many nodes fit side by side; None opens every node.

    Returns
    -------
    ndarray of bool, shape (n_nodes,)
        True for the internal nodes whose children are drawn.
    """
    t = tree_arrays(tree)
    left, right = np.asarray(t.children_left), np.asarray(t.children_right)
    internal = left >= 0
    if max_slots is None:
        return internal.copy()
    parents = node_parents(t)
    is_open = np.zeros(len(left), dtype=bool)
    for node in [0 if selected is None else int(selected), *(int(v) for v in keep)]:
        node = int(parents[node])
        while node >= 0:
            is_open[node] = True
            node = int(parents[node])
    depth = np.zeros(len(left), dtype=np.int64)
    for node in np.flatnonzero(internal):  # parents precede children
        depth[left[node]] = depth[right[node]] = depth[node] + 1
    samples = np.asarray(t.n_node_samples)
    # Breadth-first: first the selected node's subtree, then what remains of the tree.
    start = 0 if selected is None else int(selected)
    queue = [start]
    rest = [int(v) for v in np.lexsort((-samples, depth)) if internal[v]]
    drawn = np.zeros(len(left), dtype=bool)
    drawn[0] = True
    for node in np.flatnonzero(is_open):  # parents precede children
        drawn[left[node]] = drawn[right[node]] = True
    tried = np.zeros(len(left), dtype=bool)
    for source in (queue, rest):
        for node in source:  # ``queue`` grows while it is read; ``rest`` lists parents before children
            if not internal[node] or tried[node] or not drawn[node]:
                continue
            tried[node] = True
            if not is_open[node]:
                is_open[node] = True
                if _tidy_layout(0, left, right, is_open)[1] > max_slots:
                    is_open[node] = False  # a node that does not fit now never will: opening only widens
                    continue
            drawn[left[node]] = drawn[right[node]] = True
            if source is queue:
                queue += [int(left[node]), int(right[node])]
    return is_open


def _node_names(estimator, class_names) -> list[str]:
    """A short name per node for the diagram: the split's component, or the leaf's class or value."""
    tree = estimator.tree_
    names = []
    for node in range(tree.node_count):
        if tree.children_left[node] < 0:
            value = tree.value[node]
            text = str(class_names[int(np.argmax(value))]) if class_names is not None else f"{value[0]:.3g}"
        else:
            comp = estimator.signature_.components[int(tree.component[node])]
            text = f"{comp.name}·{comp.index + 1}" if _repeated(estimator, comp.name) else comp.name
        names.append(text if len(text) <= _NAME_CHARS else text[: _NAME_CHARS - 1] + "…")
    return names


def _label_width(text: str, font: float) -> float:
    """Pixels a label's widest line takes (Plotly's default font: digits and capitals about 0.6 em)."""
    return max(len(line) for line in text.split("<br>")) * _CHAR_EM * font


def _fit_labels(texts: list, x_px: np.ndarray, level: np.ndarray, order: list, font: float) -> list[str]:
    """Keep each label, in ``order``, only if it overlaps no label kept on its level before it."""
    taken: dict[int, list] = {}
    shown = [""] * len(texts)
    for node in order:
        if not texts[node]:
            continue
        half = _label_width(texts[node], font) / 2.0 + _LABEL_GAP_PX / 2.0
        span = (x_px[node] - half, x_px[node] + half)
        spans = taken.setdefault(int(level[node]), [])
        if all(span[1] <= a or b <= span[0] for a, b in spans):
            spans.append(span)
            shown[node] = texts[node]
    return shown


def tree_figure(
    estimator,
    class_names=None,
    styles: dict | None = None,
    id_map: np.ndarray | None = None,
    height: int | None = None,
    selected: int | None = None,
    width: int | None = DIAGRAM_WIDTH,
    font_size: float = DIAGRAM_FONT,
) -> go.Figure:
    """The tree as a node-link diagram (root on top, left children to the left), legible at any depth.

    A tree too wide for ``width`` pixels is drawn around the selected node: the path from
    the root to it (each sibling a closed node), its subtree as far as it fits, then the
    rest of the tree as far as it fits (:func:`diagram_nodes`). A closed node stands for
    its subtree (a triangle labelled "+n", the number of nodes hidden under it); clicking
    it selects it, which opens it. Nodes of a level are at least one slot
    (``_SLOT_PX``) apart, so no markers overlap at ``width``; a node's label (its id and
    the split's component, or a leaf's class) is written only where it overlaps no label
    of higher priority (the selected node, its path, the other highlights, then shallow
    nodes first); every node has its full description on hover.

    Parameters
    ----------
    estimator : fitted tree estimator (possibly a :class:`PrunedTree`'s estimator)
    class_names : list of str, optional
        Classification: names in class-index order (leaf colours and labels).
    styles : dict of int to {"newest", "path", "selected"}, optional
        Highlight of nodes, keyed by *original* node id; these nodes are always drawn.
    id_map : ndarray of int, optional
        Original id of each node of ``estimator`` (``PrunedTree.kept``); identity
        by default. Node ids shown and returned in ``customdata`` are original ids.
    height : int, optional
        Pixels; by default it grows with the number of levels drawn.
    selected : int, optional
        The selected node (original id): ringed (unless ``styles`` gives it another
        highlight), its path from the root drawn in the selection colour, its subtree
        opened first. Default: the node styled "selected" in ``styles``, else none (the
        diagram opens from the root).
    width : int or None
        Pixels of plot area the diagram is laid out for (the Inspector's diagram column
        at 1024 px); None draws every node, however many.
    font_size : float
        Pixels of the labels and the legend (larger for a lecture).

    Returns
    -------
    plotly.graph_objects.Figure
        Node markers (trace "nodes") carry their original id in ``customdata`` (for
        selection); the selected node's path is the trace "selected path".
    """
    tree = estimator.tree_
    n = tree.node_count
    ids = np.arange(n) if id_map is None else np.asarray(id_map)
    to_new = {int(old): new for new, old in enumerate(ids)}
    styles = styles or {}
    if selected is None:
        selected = next((node for node, style in styles.items() if style == "selected"), None)
    chosen = to_new.get(int(selected)) if selected is not None else None
    left = np.asarray(tree.children_left)
    right = np.asarray(tree.children_right)
    internal = left >= 0
    keep = [to_new[int(node)] for node in styles if int(node) in to_new]
    max_slots = None if width is None else max(int(width) // _SLOT_PX, 1)
    is_open = diagram_nodes(tree, chosen, keep, max_slots)
    xs, n_slots = _tidy_layout(0, left, right, is_open)
    drawn = np.array(sorted(xs), dtype=np.int64)
    x = np.array([xs[v] for v in drawn])
    parents = node_parents(tree)
    depth = np.zeros(n, dtype=np.int64)
    for node in np.flatnonzero(internal):
        depth[left[node]] = depth[right[node]] = depth[node] + 1
    level = depth[drawn]
    closed = internal[drawn] & ~is_open[drawn]  # drawn splits standing for a hidden subtree
    hidden = _hidden_counts(left, right)[drawn]
    classification = hasattr(estimator, "classes_")
    if classification and class_names is None:
        class_names = [str(c) for c in estimator.classes_]
    node_style = {v: styles.get(int(ids[v])) for v in range(n)}
    if chosen is not None and node_style[chosen] is None:
        node_style[chosen] = "selected"  # a node that is also the newest split or on the explained path keeps that halo
    path_to_chosen = set()
    node = chosen
    while node is not None and node >= 0:
        path_to_chosen.add(int(node))
        node = int(parents[node]) if parents[node] >= 0 else None

    fig = go.Figure()
    # Edges in one trace (NaN-separated); the selected node's path and the highlighted path drawn over them.
    position = dict(zip(drawn.tolist(), x.tolist()))
    plain, marked, chosen_path = ([], []), ([], []), ([], [])
    for node in drawn[is_open[drawn]]:
        for child in (int(left[node]), int(right[node])):
            if child in path_to_chosen:
                target = chosen_path
            elif node_style[int(node)] in ("path", "newest") and node_style[child] in ("path", "newest"):
                target = marked
            else:
                target = plain
            target[0].extend([position[int(node)], position[child], None])
            target[1].extend([-depth[node], -depth[child], None])
    fig.add_trace(
        go.Scatter(
            x=plain[0],
            y=plain[1],
            mode="lines",
            line={"color": "#9A9A9A", "width": 1.2},
            hoverinfo="skip",
            showlegend=False,
            name="edges",
        )
    )
    for (ex, ey), color, name in (
        (marked, "#111111", "path"),
        (chosen_path, _NODE_STYLE_COLORS["selected"], "selected path"),
    ):
        if ex:
            fig.add_trace(
                go.Scatter(
                    x=ex,
                    y=ey,
                    mode="lines",
                    line={"color": color, "width": 4},
                    hoverinfo="skip",
                    showlegend=False,
                    name=name,
                )
            )

    value = np.asarray(tree.value)
    if classification:
        colors = np.asarray(class_colors(len(class_names)))
        fill = colors[np.argmax(value, axis=1)][drawn]
    else:
        fill = value[:, 0].astype(np.float32)[drawn]
    from ..trees import describe_split

    hover = []
    for v, is_closed, count in zip(drawn, closed, hidden):
        text = _renumber(describe_split(estimator, int(v)), int(v), ids)
        if is_closed:
            text += f"<br>{count} nodes below are hidden: click to open this subtree"
        hover.append(text)
    styled = np.array([node_style[int(v)] is not None for v in drawn], dtype=bool)
    sizes = np.where(internal[drawn], _MARKER_PX["split"], _MARKER_PX["leaf"]) + np.where(
        styled, _MARKER_PX["styled"], 0
    )
    marker = {
        "size": sizes.astype(float),
        "line": {"color": "#222222", "width": np.where(styled, 3.0, 1.0)},
        "symbol": ["triangle-down" if c else "circle" if internal[v] else "square" for v, c in zip(drawn, closed)],
    }
    if classification:
        marker["color"] = fill.tolist()
    else:
        marker.update(
            color=fill, colorscale="Viridis", showscale=True, colorbar={"title": {"text": "value"}, "thickness": 12}
        )
    # Labels only where they fit at ``width``: the selected node and its path first, then the other highlights,
    # then level by level; every node keeps its description on hover.
    names = _node_names(estimator, class_names)
    texts = []
    for v, is_closed, count in zip(drawn, closed, hidden):
        if is_closed:
            texts.append(f"{int(ids[v])}<br>+{count}")
        elif internal[v]:
            texts.append(f"{int(ids[v])}<br>{names[v]}")
        else:
            texts.append(names[v])
    span = max(n_slots, 1)
    plot_px = float(width if width is not None else n_slots * _SLOT_PX)
    x_px = (x - x.min() + 0.5) * plot_px / span
    rank = [
        (0 if int(v) == chosen else 1 if int(v) in path_to_chosen else 2 if styled[k] else 3, level[k], k)
        for k, v in enumerate(drawn)
    ]
    text = _fit_labels(texts, x_px, level, [k for *_, k in sorted(rank)], font_size)
    fig.add_trace(
        go.Scatter(
            x=x,
            y=-level,
            mode="markers+text",
            marker=marker,
            text=text,
            textposition="bottom center",
            textfont={"size": font_size, "color": "#111111"},
            hovertext=hover,
            hoverinfo="text",
            customdata=ids[drawn].astype(np.int64),
            showlegend=False,
            name="nodes",
            # A click selects a node in the app; Plotly would dim every other node until the next click.
            selected={"marker": {"opacity": 1.0}},
            unselected={"marker": {"opacity": 1.0}},
        )
    )
    # Halo markers behind highlighted nodes, in the highlight colour.
    for style, color in _NODE_STYLE_COLORS.items():
        picked = [k for k, v in enumerate(drawn) if node_style[int(v)] == style]
        if picked:
            fig.add_trace(
                go.Scatter(
                    x=x[picked],
                    y=-level[picked],
                    mode="markers",
                    hoverinfo="skip",
                    marker={
                        "size": sizes[picked] + _MARKER_PX["halo"],
                        "color": color,
                        "line": {"color": "#111111", "width": 1.5},
                    },
                    unselected={"marker": {"opacity": 1.0}},
                    name={"newest": "newest split", "path": "decision path", "selected": "selected node"}[style],
                    showlegend=True,
                )
            )
            # Move the halo below the node markers.
            fig.data = (fig.data[-1], *fig.data[:-1])
    if closed.any():
        fig.add_trace(
            go.Scatter(
                x=[None],
                y=[None],
                mode="markers",
                name="hidden subtree (click)",
                hoverinfo="skip",
                marker={
                    "symbol": "triangle-down",
                    "size": _MARKER_PX["split"],
                    "color": "#BBBBBB",
                    "line": {"color": "#222222", "width": 1},
                },
            )
        )
    max_level = int(level.max()) if len(level) else 0
    scale = max(font_size / DIAGRAM_FONT, 1.0)  # larger labels need taller rows and levels
    top = 10 + int(_LEGEND_ROW_PX * scale) * sum(bool(t.showlegend) for t in fig.data)
    fig.update_layout(
        height=height or int(top + _LEVEL_PX * scale * (max_level + 1) + 10),
        xaxis={"visible": False, "range": [float(x.min()) - 0.5, float(x.min()) - 0.5 + span], "fixedrange": False},
        # Room below the deepest level for its two-line labels.
        yaxis={"visible": False, "range": [-max_level - 0.6, 0.35]},
        plot_bgcolor="#FFFFFF",
        margin={"l": 10, "r": 10, "t": top, "b": 10},
        legend={"orientation": "h", "y": 1.0, "yanchor": "bottom", "x": 0.0, "font": {"size": font_size}},
    )
    return fig
