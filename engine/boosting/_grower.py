"""Leaf-wise growth of one boosted tree on the binned split planes.

As scikit-learn's HistGradientBoosting grower: the root's histogram is built from
all rows, then the leaf whose best split has the largest gain is split next, until
``max_leaf_nodes`` leaves exist, no leaf has a split with a positive gain, or the
leaves reach ``max_depth`` or hold fewer than ``2 * min_samples_leaf`` rows. Of two
new children only the smaller one's histogram is built from its rows; the larger
one's is the parent's minus the smaller's.

A split chosen on bins is then given its geometric boundary
(:func:`place_boundary`): by default the maximum-margin boundary between the node's
nearest training rows on the two sides (``curvedtrees.trees._margin``, the product
trees' rule), so predictions do not depend on where bin edges fell; or, with
``thresholds="bins"``, the bin edge itself (scikit-learn's threshold). Both send
every training row of the node to the side its code says.

The fitted tree is a :class:`curvedtrees.trees.Tree` (one output: the leaf's
contribution to the raw score, learning rate included), so routing, importances and
the JSON format's structural checks are the product trees' own.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from ..trees.kernels import (
    CIRCULAR,
    LIFT,
    TIMELIKE,
    Tree,
    circular_direction,
    geodesic_margin,
    hyperbolic_threshold,
    lift_threshold,
)
from ._binning import rotated_axial
from ._histogram import build_histograms, find_split, node_value, subtract_histograms

__all__ = ["GrowerOptions", "grow_tree"]

# scikit-learn's min_hessian_to_split: a child whose hessians sum to less is not
# created (with log loss, a nearly pure child would get a huge Newton step).
MIN_HESSIAN_TO_SPLIT = 1e-3


@njit(cache=True, nogil=True, inline="always")
def _code_goes_left(code, circular, half, position):
    """Side of a code: ordered ``code <= position``; circular: outside the half-turn window."""
    if circular:
        if code == 2 * half:
            return True  # the plane's origin lies on every line through it
        return (code + 2 * half - position) % (2 * half) >= half
    return code <= position


@njit(cache=True, nogil=True)
def partition_rows(codes, rows, start, end, f, circular, half, position, buffer):
    """Stable partition of ``rows[start:end]`` by a split on bins; returns the first right position."""
    n_left = 0
    n_right = 0
    code = codes[f]
    for i in range(start, end):
        r = rows[i]
        # Written to both places, kept by one counter: no branch to mispredict on the
        # coin-flip side of each row. rows[start + n_left] is never ahead of i.
        left = _code_goes_left(code[r], circular, half, position)
        rows[start + n_left] = r
        buffer[n_right] = r
        n_left += left
        n_right += 1 - left
    for k in range(n_right):
        rows[start + n_left + k] = buffer[k]
    return start + n_left


# Only rows with x0 >= this fraction of the radius R are assumed; on the hyperboloid
# x0 >= R exactly, and half of it leaves room for rows validated within a relative
# tolerance (CHECK_RTOL) or passed with check_input=False.
_X0_FLOOR = 0.5


@njit(cache=True, nogil=True)
def _timelike_bins(
    X, code, rows, start, mid, end, col_i, col_j, last_left, first_right, thresholds, thr_lo, half, radius
):
    """Codes whose rows may be nearest to a timelike boundary: ``(keep_left, keep_right)``.

    ``hyperbolic_threshold`` keeps a left row only if its value at ``t_lo``,
    ``x0 (t_lo - rho)``, is at most the smallest left value at ``t_hi``; rows of the
    bins next to the split bound that smallest value above (``U``), and a row in a bin
    whose upper edge is ``e`` has a value of at least ``x0_min (t_lo - e)``. So only left
    codes whose edge reaches ``t_lo - U / x0_min`` can hold candidates (mirrored on the
    right). The pruned rows could not be nearest anywhere: the result is unchanged.
    """
    t_lo = -np.inf
    t_hi = np.inf
    near = np.empty(end - start, dtype=np.int64)  # positions of the two bins' rows
    n_near = 0
    for i in range(start, end):
        r = rows[i]
        c = code[r]
        if i < mid and c == last_left:
            t_lo = max(t_lo, X[r, col_j] / X[r, col_i])
            near[n_near] = i
            n_near += 1
        elif i >= mid and c == first_right:
            t_hi = min(t_hi, X[r, col_j] / X[r, col_i])
            near[n_near] = i
            n_near += 1
    upper_left = np.inf
    upper_right = np.inf
    for q in range(n_near):
        i = near[q]
        r = rows[i]
        if i < mid:
            upper_left = min(upper_left, t_hi * X[r, col_i] - X[r, col_j])
        else:
            upper_right = min(upper_right, X[r, col_j] - t_lo * X[r, col_i])
    x0_min = _X0_FLOOR * radius
    reach_left = t_lo - upper_left / x0_min
    reach_right = t_hi + upper_right / x0_min
    keep_left = last_left
    while keep_left > 0 and thresholds[thr_lo + keep_left - 1] >= reach_left:
        keep_left -= 1  # the bin below ends at or above the reach: its rows may count
    keep_right = first_right
    while keep_right < half - 1 and thresholds[thr_lo + keep_right] <= reach_right:
        keep_right += 1
    return keep_left, keep_right


@njit(cache=True, nogil=True)
def place_boundary(
    X,
    V,
    codes,
    counts,
    rows,
    start,
    mid,
    end,
    f,
    kind,
    col_i,
    col_j,
    cut,
    half,
    position,
    thresholds,
    thr_lo,
    radius,
    plane_radius,
    max_margin,
):
    """Boundary of a split whose left rows are ``rows[start:mid]`` and right rows ``rows[mid:end]``.

    Parameters
    ----------
    X : ndarray of shape (n_samples, ambient_dim)
    V : ndarray of shape (n_features, n_samples)
        Plane values (``SplitFeatures.values``).
    codes : ndarray of shape (n_features, n_samples), uint16
    counts : ndarray of shape (n_bins,)
        The node's row count per bin of plane ``f`` (its histogram's count column).
    f, kind, col_i, col_j : int
        The plane and its kind and ambient columns.
    cut : float
        The plane's rotation before binning (circular planes).
    half, position : int
        The plane's ordered (or axial) bin count and the split's bin (or window start).
    thresholds : ndarray
        The plane's inner bin thresholds start at ``thresholds[thr_lo]``.
    radius : float
        ``1 / sqrt|K|`` of the plane's component (bounds ``x_0`` below on H).
    plane_radius : ndarray of shape (n_samples,)
        Circular planes: each row's distance ``hypot(x_i, x_j)`` from the plane's origin.
    max_margin : bool
        Maximum-margin boundary (True) or the bin edge (False).

    Returns
    -------
    threshold, normal_i, normal_j, plane_margin : float
        As the product trees store them: ``threshold`` on ``x_j`` (lift) or ``x_j / x_0``
        (timelike), NaN for circular planes; the unit normal of the line in the plane;
        the smallest ``|<x, n>|`` over the node's rows (see ``_margin.geodesic_margin``).
    """
    m = end - start
    if kind != CIRCULAR:
        # The extreme values of each side lie in its occupied bin nearest the split (the
        # node's histogram says which): read only the rows of those two bins.
        last_left = position
        while last_left > 0 and counts[last_left] == 0.0:
            last_left -= 1
        first_right = position + 1
        while first_right < half - 1 and counts[first_right] == 0.0:
            first_right += 1
    if kind == LIFT:
        lo = -np.inf
        hi = np.inf
        for i in range(start, end):
            r = rows[i]
            c = codes[f, r]
            if i < mid and c == last_left:
                lo = max(lo, V[f, r])
            elif i >= mid and c == first_right:
                hi = min(hi, V[f, r])
        if max_margin:
            t, margin = lift_threshold(lo, hi)
        else:
            t = thresholds[thr_lo + position]
            margin = min(t - lo, hi - t)
        scale = math.hypot(t, 1.0)
        return t, -t / scale, 1.0 / scale, margin
    if kind == TIMELIKE:
        if max_margin:
            keep_left, keep_right = _timelike_bins(
                X,
                codes[f],
                rows,
                start,
                mid,
                end,
                col_i,
                col_j,
                last_left,
                first_right,
                thresholds,
                thr_lo,
                half,
                radius,
            )
        else:
            keep_left, keep_right = 0, half  # every row counts towards the margin
        x0 = np.empty(m)
        xj = np.empty(m)
        go_left = np.empty(m, dtype=np.bool_)
        k = 0
        for i in range(start, end):
            r = rows[i]
            c = codes[f, r]
            if (i < mid and c >= keep_left) or (i >= mid and c <= keep_right):
                x0[k] = X[r, col_i]
                xj[k] = X[r, col_j]
                go_left[k] = i < mid
                k += 1
        if max_margin:
            t, margin = hyperbolic_threshold(x0[:k], xj[:k], go_left[:k])
        else:
            t = thresholds[thr_lo + position]
            smallest = np.inf
            for q in range(k):
                smallest = min(smallest, abs(xj[q] - t * x0[q]))
            margin = smallest / math.sqrt(1.0 - t * t)
        scale = math.hypot(t, 1.0)
        return t, -t / scale, 1.0 / scale, margin
    # Circular: the feasible directions lie between the largest axial key below the
    # split's boundary and the smallest one above it (across the cut if a side is empty).
    # Those keys sit in the occupied axial bins next to the boundary: find the bins from
    # the codes, then read the keys of their rows only.
    code = codes[f]
    a_below, a_above, a_min, a_max = -1, half, half, -1
    for a in range(half):
        if counts[a] + counts[a + half] > 0.0:  # rows at the origin (code 2 half) never count
            a_min = min(a_min, a)
            a_max = max(a_max, a)
            if a < position:
                a_below = max(a_below, a)
            else:
                a_above = min(a_above, a)
    below = -np.inf
    above = np.inf
    smallest = np.inf
    largest = -np.inf
    near = np.empty(end - start, dtype=np.int64)  # rows of the bins next to the boundary
    n_near = 0
    for i in range(start, end):
        r = rows[i]
        c = np.int64(code[r])
        if c == 2 * half:
            continue
        a = c - half if c >= half else c
        if a == a_below or a == a_above or a == a_min or a == a_max:
            near[n_near] = r
            n_near += 1
            v = rotated_axial(V[f, r], cut)[1]
            if a == a_below:
                below = max(below, v)
            if a == a_above:
                above = min(above, v)
            if a == a_min:
                smallest = min(smallest, v)
            if a == a_max:
                largest = max(largest, v)
    if a_below < 0:
        below = largest - math.pi
    if a_above >= half:
        above = smallest + math.pi
    if max_margin:
        keep = _circular_candidates(
            X,
            V[f],
            code,
            rows,
            start,
            end,
            col_i,
            col_j,
            half,
            near[:n_near],
            below,
            above,
            cut,
            thresholds,
            thr_lo,
            plane_radius,
        )
        k = keep.shape[0]
        xi = np.empty(k)
        xj = np.empty(k)
        go_left = np.empty(k, dtype=np.bool_)
        for q in range(k):
            r = rows[keep[q]]
            xi[q] = X[r, col_i]
            xj[q] = X[r, col_j]
            go_left[q] = keep[q] < mid
        phi, margin = circular_direction(xi, xj, go_left, below + cut, above + cut)
    else:
        phi = cut + (0.0 if position == 0 else thresholds[thr_lo + position - 1])
        n_i = -math.sin(phi)
        n_j = math.cos(phi)
        margin = np.inf
        for i in range(start, end):
            r = rows[i]
            if X[r, col_i] != 0.0 or X[r, col_j] != 0.0:
                margin = min(margin, abs(n_i * X[r, col_i] + n_j * X[r, col_j]))
    return np.nan, -math.sin(phi), math.cos(phi), margin


# A row's distance bound is computed from rounded angles and radii; shrinking it by
# this factor keeps it below the true distance, so no row that can be nearest is dropped.
_BOUND_SLACK = 1.0 - 1e-9


@njit(cache=True, nogil=True)
def _axial_gap(lo, hi, arc_lo, arc_hi):
    """Smallest angle (mod pi) between the interval ``[lo, hi]`` and the arc ``[arc_lo, arc_hi]``."""
    for shift in (-math.pi, 0.0, math.pi):
        if lo <= arc_hi + shift and arc_lo + shift <= hi:
            return 0.0
    best = math.pi / 2
    for x in (lo, hi):
        for y in (arc_lo, arc_hi):
            d = abs(x - y) % math.pi
            best = min(best, d, math.pi - d)
    return best


@njit(cache=True, nogil=True)
def _circular_candidates(
    X, angle, code, rows, start, end, col_i, col_j, half, near, below, above, cut, thresholds, thr_lo, plane_radius
):
    """Positions in ``rows`` of the rows that may be nearest to a circular boundary.

    A row at distance ``r`` from the plane's origin, whose direction is at least
    ``delta`` (mod pi) from every direction of the feasible arc, is at least
    ``r sin(delta)`` from every line in it; the rows of the bins next to the boundary
    bound the best margin above (``U``: the smallest of their largest distances over
    the arc). A row whose bound exceeds ``U`` is never the nearest, so
    ``circular_direction`` gives the same line without it. ``near`` holds the row ids
    of the bins next to the boundary.
    """
    arc_a = below + cut
    arc_b = above + cut
    upper = np.inf
    for q in range(near.shape[0]):
        r = near[q]
        x, y = X[r, col_i], X[r, col_j]
        # The row's largest distance over the arc: at an end, or its radius where the
        # distance peaks inside the arc (the side does not matter for a bound).
        da = abs(-math.sin(arc_a) * x + math.cos(arc_a) * y)
        db = abs(-math.sin(arc_b) * x + math.cos(arc_b) * y)
        peak_direction = rotated_axial(angle[r], cut)[1] + math.pi / 2
        if _axial_gap(peak_direction, peak_direction, below, above) == 0.0:
            upper = min(upper, math.hypot(x, y))
        else:
            upper = min(upper, max(da, db))
    bound = np.empty(half)
    for a in range(half):
        lo = 0.0 if a == 0 else thresholds[thr_lo + a - 1]
        hi = math.pi if a == half - 1 else thresholds[thr_lo + a]
        bound[a] = math.sin(_axial_gap(lo, hi, below, above)) * _BOUND_SLACK
    keep = np.empty(end - start, dtype=np.int64)
    k = 0
    for i in range(start, end):
        r = rows[i]
        c = np.int64(code[r])
        if c == 2 * half:
            continue
        a = c - half if c >= half else c
        if plane_radius[r] * bound[a] <= upper:
            keep[k] = i
            k += 1
    return keep[:k]


@njit(cache=True, nogil=True)
def add_leaf_values(raw, rows, starts, ends, values):
    """``raw[rows[starts[k]:ends[k]]] += values[k]`` for every leaf ``k``."""
    for k in range(starts.shape[0]):
        for i in range(starts[k], ends[k]):
            raw[rows[i]] += values[k]


class GrowerOptions:
    """The tree-shape parameters, resolved (see the estimators for their meaning)."""

    def __init__(self, max_leaf_nodes, max_depth, min_samples_leaf, l2_regularization, learning_rate, max_margin):
        self.max_leaf_nodes = max_leaf_nodes
        self.max_depth = max_depth
        self.min_samples_leaf = min_samples_leaf
        self.l2_regularization = l2_regularization
        self.learning_rate = learning_rate
        self.max_margin = max_margin


class GrowthData:
    """What every tree of a fit reads: rows, plane values, codes and bins.

    Parameters
    ----------
    X : ndarray of shape (n_samples, ambient_dim), float64
    V : ndarray of shape (n_features, n_samples), float64
    codes : ndarray of shape (n_features, n_samples), uint16
    features : SplitFeatures
    bins : PlaneBins
    """

    def __init__(self, X, V, codes, features, bins):
        self.X = X
        self.V = V
        self.codes = codes
        self.features = features
        self.bins = bins
        self.rows = np.arange(X.shape[0], dtype=np.int64)
        self.buffer = np.empty(X.shape[0], dtype=np.int64)
        # Each row's distance from the origin of every circular plane (bounds its distance
        # from a line through that origin); linear planes get an empty placeholder.
        self.plane_radius = [
            np.hypot(X[:, features.col_i[f]], X[:, features.col_j[f]]) if features.kind[f] == CIRCULAR else np.empty(0)
            for f in range(features.n_features)
        ]


class _Node:
    __slots__ = ("depth", "end", "gain", "hist", "id", "split", "start", "sum_g", "sum_h", "value")

    def __init__(self, node_id, start, end, depth, sum_g, sum_h, value):
        self.id = node_id
        self.start = start
        self.end = end
        self.depth = depth
        self.sum_g = sum_g
        self.sum_h = sum_h
        self.value = value
        self.hist = None
        self.split = None
        self.gain = -1.0


def grow_tree(
    data: GrowthData, gradients: np.ndarray, hessians: np.ndarray, constant_hessian: bool, options: GrowerOptions
):
    """Grow one tree on the gradients and hessians of every row.

    Parameters
    ----------
    data : GrowthData
    gradients, hessians : ndarray of shape (n_samples,), float32
    constant_hessian : bool
        Every hessian is 1 (``hessians`` is not read).
    options : GrowerOptions

    Returns
    -------
    tree : Tree
        Values at the leaves are ``learning_rate`` times the Newton step.
    leaves : ndarray of shape (n_leaves, 3), int64
        ``(start, end, node)`` of each leaf: its training rows are
        ``data.rows[start:end]`` (valid until the next tree is grown).
    """
    bins, features, codes = data.bins, data.features, data.codes
    rows = data.rows
    rows[:] = np.arange(rows.shape[0])
    n = rows.shape[0]
    n_bins = int(bins.bin_offsets[-1])
    msl = options.min_samples_leaf
    l2 = options.l2_regularization
    arrays = {
        name: [] for name in ("left", "right", "feature", "threshold", "normal", "n", "h", "value", "margin", "gain")
    }

    def new_node(start, end, depth, sum_g, sum_h, value):
        node = _Node(len(arrays["left"]), start, end, depth, sum_g, sum_h, value)
        for name, item in (
            ("left", -1),
            ("right", -1),
            ("feature", -1),
            ("threshold", np.nan),
            ("normal", (0.0, 0.0)),
            ("n", end - start),
            ("h", sum_h),
            ("value", value),
            ("margin", np.nan),
            ("gain", 0.0),
        ):
            arrays[name].append(item)
        return node

    splittable: list[_Node] = []
    leaves: list[_Node] = []

    def consider(node, hist):
        node.hist = hist
        result = find_split(
            hist,
            bins.kind,
            bins.half,
            bins.bin_offsets,
            node.sum_g,
            node.sum_h,
            node.end - node.start,
            l2,
            msl,
            MIN_HESSIAN_TO_SPLIT,
        )
        if result[0] <= 0.0:
            node.hist = None
            leaves.append(node)
        else:
            node.gain = result[0]
            node.split = result
            splittable.append(node)

    hist = np.empty((n_bins, 3))
    build_histograms(codes, rows, 0, n, gradients, hessians, constant_hessian, bins.bin_offsets, hist)
    first = slice(bins.bin_offsets[0], bins.bin_offsets[1])
    sum_g = float(hist[first, 0].sum())
    sum_h = float(n if constant_hessian else hist[first, 1].sum())
    # scikit-learn gives the root the value 0: a tree that cannot split adds nothing.
    root = new_node(0, n, 0, sum_g, sum_h, 0.0)
    if n < 2 * msl or sum_h < MIN_HESSIAN_TO_SPLIT:
        leaves.append(root)
    else:
        consider(root, hist)

    order: list[int] = []  # node ids in the order their splits were chosen (the Inspector replays them so)
    while splittable:
        k = max(range(len(splittable)), key=lambda i: splittable[i].gain)  # first of equal gains
        node = splittable.pop(k)
        gain, f, position, g_left, h_left, _n_left = node.split
        circular = bins.kind[f] == CIRCULAR
        half = int(bins.half[f])
        mid = partition_rows(codes, rows, node.start, node.end, f, circular, half, position, data.buffer)
        lo_bin, hi_bin = bins.bin_offsets[f], bins.bin_offsets[f + 1]
        threshold, normal_i, normal_j, plane_margin = place_boundary(
            data.X,
            data.V,
            codes,
            node.hist[lo_bin:hi_bin, 2],
            rows,
            node.start,
            mid,
            node.end,
            f,
            int(features.kind[f]),
            int(features.col_i[f]),
            int(features.col_j[f]),
            float(bins.cut[f]),
            half,
            position,
            bins.thresholds,
            int(bins.thr_offsets[f]),
            float(features.radius[f]),
            data.plane_radius[f],
            options.max_margin,
        )
        depth = node.depth + 1
        left = new_node(node.start, mid, depth, g_left, h_left, node_value(g_left, h_left, l2))
        g_right, h_right = node.sum_g - g_left, node.sum_h - h_left
        right = new_node(mid, node.end, depth, g_right, h_right, node_value(g_right, h_right, l2))
        i = node.id
        order.append(i)
        arrays["left"][i], arrays["right"][i], arrays["feature"][i] = left.id, right.id, f
        arrays["threshold"][i], arrays["normal"][i] = threshold, (normal_i, normal_j)
        arrays["margin"][i], arrays["gain"][i] = plane_margin, gain
        parent_hist, node.hist = node.hist, None

        n_leaf_nodes = len(leaves) + len(splittable) + 2
        if options.max_leaf_nodes is not None and n_leaf_nodes == options.max_leaf_nodes:
            leaves.extend([left, right, *splittable])
            for other in splittable:
                other.hist = None
            splittable.clear()
            continue
        if options.max_depth is not None and depth == options.max_depth:
            leaves.extend([left, right])
            continue
        split_left = left.end - left.start >= 2 * msl
        split_right = right.end - right.start >= 2 * msl
        if not split_left:
            leaves.append(left)
        if not split_right:
            leaves.append(right)
        if split_left or split_right:
            small, large = (left, right) if left.end - left.start < right.end - right.start else (right, left)
            small_hist = np.empty((n_bins, 3))
            build_histograms(
                codes, rows, small.start, small.end, gradients, hessians, constant_hessian, bins.bin_offsets, small_hist
            )
            subtract_histograms(parent_hist, small_hist, parent_hist)  # the parent's buffer becomes the sibling's
            hists = {small.id: small_hist, large.id: parent_hist}
            if split_left:
                consider(left, hists[left.id])
            if split_right:
                consider(right, hists[right.id])

    count = len(arrays["left"])
    internal = np.asarray(arrays["left"], dtype=np.int64) != -1
    feature = np.asarray(arrays["feature"], dtype=np.int64)
    f_safe = np.where(internal, feature, 0)
    plane_margin = np.asarray(arrays["margin"], dtype=np.float64)
    margin = np.where(
        internal,
        geodesic_margin(np.where(internal, plane_margin, 0.0), features.geometry[f_safe], features.radius[f_safe]),
        np.nan,
    )
    tree_arrays = {
        "children_left": np.asarray(arrays["left"], dtype=np.int64),
        "children_right": np.asarray(arrays["right"], dtype=np.int64),
        "feature": feature,
        "threshold": np.asarray(arrays["threshold"], dtype=np.float64),
        "normal": np.asarray(arrays["normal"], dtype=np.float64).reshape(count, 2),
        "impurity": np.zeros(count),
        "n_node_samples": np.asarray(arrays["n"], dtype=np.int64),
        "weighted_n_node_samples": np.asarray(arrays["h"], dtype=np.float64),
        "value": options.learning_rate * np.asarray(arrays["value"], dtype=np.float64).reshape(count, 1),
        "margin": margin,
        "improvement": np.asarray(arrays["gain"], dtype=np.float64),
    }
    tree_arrays, new_id = _split_order_numbering(tree_arrays, order)
    tree = Tree(features, tree_arrays, 1, check=False)
    leaf_table = np.array([(leaf.start, leaf.end, new_id[leaf.id]) for leaf in leaves], dtype=np.int64).reshape(-1, 3)
    return tree, leaf_table


def _split_order_numbering(tree_arrays: dict, order: list[int]) -> tuple[dict, np.ndarray]:
    """Renumber nodes: internal nodes in the order they were split, then the leaves.

    Leaf-wise growth numbers nodes as they are created, not as they are split; the product
    trees number splits in the order training chose them, which the Inspector's replay
    relies on. A node is split after its parent, so parents still precede children.

    Returns
    -------
    arrays : dict
        The tree arrays in the new order, children renumbered.
    new_id : ndarray of shape (node_count,), int64
        New id of each old id.
    """
    left = np.asarray(tree_arrays["children_left"])
    count = left.shape[0]
    old = np.concatenate([np.asarray(order, dtype=np.int64), np.flatnonzero(left == -1)])
    new_id = np.empty(count, dtype=np.int64)
    new_id[old] = np.arange(count)
    out = {name: np.asarray(values)[old] for name, values in tree_arrays.items()}
    for name in ("children_left", "children_right"):
        child = out[name]
        out[name] = np.where(child >= 0, new_id[np.maximum(child, 0)], -1)
    return out, new_id
