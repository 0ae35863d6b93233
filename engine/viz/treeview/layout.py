"""Where a tree diagram puts its nodes: which subtrees it opens, a tidy layout, labels that fit.

A diagram is laid out for a column of a given width in pixels: :func:`diagram_nodes` opens
the selected node's path and subtree and then as much of the rest as fits, :func:`tidy_layout`
places the drawn nodes at least one slot apart on every level, and :func:`fit_labels` keeps a
label only where it overlaps no label of higher priority. :func:`tree_layout` is the plain
layout of a whole tree (leaves evenly spaced).
"""

from __future__ import annotations

import numpy as np

from ..boundaries import tree_arrays

__all__ = [
    "DIAGRAM_FONT",
    "DIAGRAM_WIDTH",
    "LEGEND_ROW_PX",
    "LEVEL_PX",
    "MARKER_PX",
    "SLOT_PX",
    "diagram_nodes",
    "fit_labels",
    "hidden_counts",
    "node_depths",
    "node_names",
    "tidy_layout",
    "tree_layout",
]

# The tree diagram is laid out for this many pixels of plot area: the Inspector's diagram column at
# 1024 px with the sidebar open is 218 px wide, less the chart's 10 px margins. Wider charts only spread it.
DIAGRAM_WIDTH = 198
# Label font (px): 11 px is the smallest that stays legible on a projector.
DIAGRAM_FONT = 12
# Marker diameters (px): a split, a leaf, extra for a highlighted node, and its halo on top of that.
MARKER_PX = {"split": 14, "leaf": 12, "styled": 4, "halo": 6}
# Horizontal room of a node: the largest marker, a highlighted split with its halo (24 px), and a gap.
SLOT_PX = 24
# Vertical room of a level: a marker, a two-line label below it, and the edge to the next level.
LEVEL_PX = 66
# Top margin per legend entry: at the narrowest width each entry takes a row of its own.
LEGEND_ROW_PX = 20
# Width of a character of Plotly's default font in em: 0.6 is digits and most capitals; a little more
# than the average so that estimated label boxes hold the real ones.
_CHAR_EM = 0.62
_LABEL_GAP_PX = 4
# Leaf class names longer than this are cut (the whole name is on hover).
_NAME_CHARS = 9


def node_depths(left: np.ndarray, right: np.ndarray) -> np.ndarray:
    """Depth of every node (the root 0), shape (n_nodes,)."""
    depth = np.zeros(len(left), dtype=np.int64)
    for node in np.flatnonzero(left >= 0):  # parents precede children
        depth[left[node]] = depth[right[node]] = depth[node] + 1
    return depth


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
    depth = node_depths(left, right)
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


def hidden_counts(left: np.ndarray, right: np.ndarray) -> np.ndarray:
    """Number of nodes strictly below every node, shape (n_nodes,)."""
    n = len(left)
    below = np.zeros(n, dtype=np.int64)
    for node in range(n - 1, -1, -1):  # children have larger ids than their parent
        if left[node] >= 0:
            below[node] = 2 + below[left[node]] + below[right[node]]
    return below


def tidy_layout(root: int, left: np.ndarray, right: np.ndarray, is_open: np.ndarray) -> tuple[dict, float]:
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
    parents = t.parents()
    is_open = np.zeros(len(left), dtype=bool)
    for node in [0 if selected is None else int(selected), *(int(v) for v in keep)]:
        node = int(parents[node])
        while node >= 0:
            is_open[node] = True
            node = int(parents[node])
    depth = node_depths(left, right)
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
                if tidy_layout(0, left, right, is_open)[1] > max_slots:
                    is_open[node] = False  # a node that does not fit now never will: opening only widens
                    continue
            drawn[left[node]] = drawn[right[node]] = True
            if source is queue:
                queue += [int(left[node]), int(right[node])]
    return is_open


def node_names(estimator, class_names) -> list[str]:
    """A short name per node for the diagram: the split's component, or the leaf's class or value."""
    tree = estimator.tree_
    names = []
    for node in range(tree.node_count):
        if tree.children_left[node] < 0:
            value = tree.value[node]
            text = str(class_names[int(np.argmax(value))]) if class_names is not None else f"{value[0]:.3g}"
        else:
            comp = estimator.signature_.components[int(tree.component[node])]
            repeated = sum(c.name == comp.name for c in estimator.signature_.components) > 1
            text = f"{comp.name}·{comp.index + 1}" if repeated else comp.name
        names.append(text if len(text) <= _NAME_CHARS else text[: _NAME_CHARS - 1] + "…")
    return names


def _label_width(text: str, font: float) -> float:
    """Pixels a label's widest line takes (Plotly's default font: digits and capitals about 0.6 em)."""
    return max(len(line) for line in text.split("<br>")) * _CHAR_EM * font


def fit_labels(texts: list, x_px: np.ndarray, level: np.ndarray, order: list, font: float) -> list[str]:
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
