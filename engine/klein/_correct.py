"""Move every threshold of a fitted tree to its maximum-margin geodesic boundary.

A Euclidean tree library fitted on Klein features ``x_j / x_0`` (H) and raw
coordinates (E) places each threshold somewhere between the largest value sent
left and the smallest value sent right, usually at their arithmetic mean. Any
threshold in that gap gives the same partition of the node's training rows; we
pick the one that maximises the smallest geodesic distance from those rows to the
boundary (:func:`engine.trees._margin.hyperbolic_threshold` for H, CART's
midpoint for E), then nudge it, if needed, so that the library's own comparison
(its float precision and its ``<`` or ``<=``) still sends every training row the
same way.

Rows per node without a Python loop: each training row's leaf is known (from the
library's own routing), and in a depth-first order the leaves of any subtree are
contiguous. So one counting sort of the rows by leaf lays out every node's rows as
a contiguous block ``[start, start + count)`` whose first ``count(left child)``
rows went left. The whole correction is then a few passes over each node's block:
``O(n_rows * depth)`` per tree, compiled with numba.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from engine.trees._margin import hyperbolic_threshold, lift_threshold

__all__ = ["RULE_F32_LE", "RULE_F32_LT", "RULE_F64_LE", "correct_tree"]

# How a library compares a row's feature value with a node's threshold.
RULE_F64_LE = 0  # float64 value <= threshold: HistGradientBoosting, LightGBM
RULE_F32_LE = 1  # float32(value) <= float64 threshold: scikit-learn trees (X is cast to float32)
RULE_F32_LT = 2  # float32(value) < float32 threshold: XGBoost ("x < split_condition" goes left)

# Status of each internal node after correction.
STATUS_MOVED = 0
STATUS_EMPTY_SIDE = 1  # no training row on one side (cannot happen for the tree's own rows)
STATUS_INCONSISTENT = 2  # the rows do not sit on the sides the stored threshold implies: left unchanged


@njit(cache=True, nogil=True)
def _next_up_f32(value):
    """The smallest float32 strictly greater than ``value`` (a float32-representable float)."""
    box = np.empty(1, dtype=np.float32)
    box[0] = value
    bits = box.view(np.int32)
    if box[0] == 0.0:
        bits[0] = 1  # smallest positive subnormal
    elif box[0] > 0.0:
        bits[0] += 1
    else:
        bits[0] -= 1
    return np.float64(box[0])


@njit(cache=True, nogil=True)
def _next_down_f64(value):
    """The largest float64 strictly smaller than ``value``."""
    box = np.empty(1, dtype=np.float64)
    box[0] = value
    bits = box.view(np.int64)
    if box[0] == 0.0:
        box[0] = -5e-324  # largest negative subnormal
    elif box[0] > 0.0:
        bits[0] -= 1
    else:
        bits[0] += 1
    return box[0]


@njit(cache=True, nogil=True)
def _to_f32(value):
    return np.float64(np.float32(value))


@njit(cache=True, nogil=True)
def _layout(left, right, leaf, rows):
    """Depth-first node order, rows per node and the rows sorted so every node's rows are contiguous.

    Returns ``(preorder, n_reached, count, start, order)``: ``order[start[v]:start[v] + count[v]]``
    are the rows that reach node ``v``, those of its left child first.
    """
    n_nodes = left.shape[0]
    preorder = np.empty(n_nodes, dtype=np.int64)
    stack = np.empty(n_nodes + 1, dtype=np.int64)
    stack[0] = 0
    depth = 1
    n_reached = 0
    while depth > 0:
        depth -= 1
        node = stack[depth]
        preorder[n_reached] = node
        n_reached += 1
        if left[node] != -1:
            stack[depth] = right[node]
            stack[depth + 1] = left[node]
            depth += 2
    count = np.zeros(n_nodes, dtype=np.int64)
    for r in range(leaf.shape[0]):
        node = leaf[r]
        if node < 0 or node >= n_nodes or left[node] != -1:
            raise ValueError("a row's leaf id is not a leaf of the tree")
        count[node] += 1
    for position in range(n_reached - 1, -1, -1):
        node = preorder[position]
        if left[node] != -1:
            count[node] = count[left[node]] + count[right[node]]
    start = np.zeros(n_nodes, dtype=np.int64)
    for position in range(n_reached):
        node = preorder[position]
        if left[node] != -1:
            start[left[node]] = start[node]
            start[right[node]] = start[node] + count[left[node]]
    fill = start.copy()
    order = np.empty(leaf.shape[0], dtype=np.int64)
    for r in range(leaf.shape[0]):
        node = leaf[r]
        order[fill[node]] = rows[r]
        fill[node] += 1
    return preorder, n_reached, count, start, order


@njit(cache=True, nogil=True)
def correct_tree(left, right, feature, threshold, leaf, rows, FT, HT, feat_x0, feat_xj, feat_radius, rule):
    """Maximum-margin thresholds for one tree.

    Parameters
    ----------
    left, right : ndarray of shape (n_nodes,), int64
        Child ids (``-1`` at leaves); node 0 is the root.
    feature : ndarray of shape (n_nodes,), int64
        Split feature of each internal node.
    threshold : ndarray of shape (n_nodes,), float64
        The library's thresholds (used to check consistency).
    leaf : ndarray of shape (m,), int64
        Leaf reached by each of the tree's training rows (the library's routing).
    rows : ndarray of shape (m,), int64
        Those rows' indices into the feature arrays.
    FT : ndarray of shape (n_features, n_samples), float64
        The features the library was fitted on, feature-major.
    HT : ndarray of shape (n_h_columns, n_samples), float64
        Hyperboloid coordinates of the H components, feature-major.
    feat_x0, feat_xj : ndarray of shape (n_features,), int64
        Rows of ``HT`` holding ``x_0`` and ``x_j`` of each H feature; ``-1`` for E.
    feat_radius : ndarray of shape (n_features,), float64
        ``R = 1 / sqrt|K|`` of each H feature's component (unused for E).
    rule : int
        ``RULE_F64_LE``, ``RULE_F32_LE`` or ``RULE_F32_LT``.

    Returns
    -------
    new_threshold : ndarray of shape (n_nodes,), float64
    margin : ndarray of shape (n_nodes,), float64
        Geodesic distance from the new boundary to the nearest training row of the
        node; NaN at leaves and at nodes left unchanged.
    status : ndarray of shape (n_nodes,), int8
        ``STATUS_MOVED``, ``STATUS_EMPTY_SIDE`` or ``STATUS_INCONSISTENT`` (``-1`` at leaves).
    """
    n_nodes = left.shape[0]
    new_threshold = threshold.copy()
    margin = np.full(n_nodes, np.nan)
    status = np.full(n_nodes, -1, dtype=np.int8)
    preorder, n_reached, count, start, order = _layout(left, right, leaf, rows)
    m = rows.shape[0]
    x0 = np.empty(m)
    xj = np.empty(m)
    go_left = np.empty(m, dtype=np.bool_)
    for position in range(n_reached):
        node = preorder[position]
        lchild = left[node]
        if lchild == -1:
            continue
        n_left = count[lchild]
        n_total = count[node]
        if n_left == 0 or n_left == n_total:
            status[node] = STATUS_EMPTY_SIDE
            continue
        s = start[node]
        f = feature[node]
        # The gap as the library sees it (its precision), and as float64.
        lib_lo = -np.inf
        lib_hi = np.inf
        lo = -np.inf
        hi = np.inf
        for k in range(n_total):
            v = FT[f, order[s + k]]
            lv = v if rule == RULE_F64_LE else _to_f32(v)
            if k < n_left:
                lo = max(lo, v)
                lib_lo = max(lib_lo, lv)
            else:
                hi = min(hi, v)
                lib_hi = min(lib_hi, lv)
        t_old = threshold[node]
        if rule == RULE_F32_LT:
            consistent = lib_lo < t_old <= lib_hi
        else:
            consistent = lib_lo <= t_old < lib_hi
        if not (lib_lo < lib_hi) or not consistent:
            status[node] = STATUS_INCONSISTENT
            continue
        h0 = feat_x0[f]
        if h0 >= 0:
            hj = feat_xj[f]
            for k in range(n_total):
                r = order[s + k]
                x0[k] = HT[h0, r]
                xj[k] = HT[hj, r]
                go_left[k] = k < n_left
            t, _ = hyperbolic_threshold(x0[:n_total], xj[:n_total], go_left[:n_total])
        else:
            t, _ = lift_threshold(lo, hi)
        # Keep every training row on its side under the library's own comparison.
        if rule == RULE_F32_LT:
            t = _to_f32(t)
            if t <= lib_lo:
                t = _next_up_f32(lib_lo)
            if t > lib_hi:
                t = lib_hi
        else:
            if t < lib_lo:
                t = lib_lo
            if t >= lib_hi:
                t = _next_down_f64(lib_hi)
        new_threshold[node] = t
        status[node] = STATUS_MOVED
        if h0 >= 0:
            radius = feat_radius[f]
            smallest = np.inf
            for k in range(n_total):
                smallest = min(smallest, abs(xj[k] - t * x0[k]))
            # |t| reaches 1 only when float32 rounding put a far point's ratio on the
            # ball's boundary; that boundary is at infinite distance: no finite margin.
            if t * t < 1.0:
                margin[node] = radius * math.asinh(smallest / (radius * math.sqrt(1.0 - t * t)))
        else:
            margin[node] = min(t - lo, hi - t)
    return new_threshold, margin, status
