"""Move every threshold of a fitted tree to its maximum-margin geodesic boundary.

A Euclidean tree library fitted on Klein features ``x_j / x_0`` (H) and raw
coordinates (E) places each threshold somewhere between the largest value sent
left and the smallest value sent right, usually at their arithmetic mean. Any
threshold in that gap gives the same partition of the node's training rows; we
pick the one that maximises the smallest geodesic distance from those rows to the
boundary (the product trees' rule: for H the crossing of the nearest left and right
rows' plane values, solved exactly over a few candidate rows or by
:func:`curvedtrees.trees._margin.hyperbolic_threshold`; CART's midpoint for E), then
nudge it, if needed, so that the library's own comparison (its float precision and
its ``<`` or ``<=``) still sends every training row the same way.

Three compiled ways (numba, GIL released) to find each node's gap and candidates:

* :func:`correct_tree` sends the rows down the tree itself with the library's
  comparison, in one pass per node that partitions an index array (out of place,
  without branches), finds the gap and keeps the H candidates through a running
  window (in small nodes, by a branch-free test of every row; in large nodes on
  far-out features, by scanning the sorted rows below from the gap). Cheaper than asking
  the library for every row's leaf (XGBoost's ``pred_leaf`` costs several
  predictions) and no (n_rows, n_trees) leaf matrix. ``O(n_rows * depth)`` per
  tree: the way for deep trees. Where the model has sorted rows, a subtree whose
  nodes all hold a fair share of the rows is scanned as below instead of routed.
* :func:`correct_tree_sorted` scans each feature's rows, sorted once per model,
  outwards from a node's threshold until a row reaches the node. About the inverse of
  each node's share of the rows per node: the way for shallow trees whose nodes all
  hold a fair share (boosting).
* :func:`correct_tree_from_leaves` takes each row's leaf (from the library, for
  routing rules it cannot reproduce, such as LightGBM's zero-as-missing, or from
  :func:`route_leaves`, the plain strategy): in a depth-first order the leaves of any
  subtree are contiguous, so one counting sort of the rows by leaf lays out every
  node's rows as a contiguous block. Every row is a candidate: the exhaustive
  reference the other two are tested against.

The kernels take named records (numba compiles a ``NamedTuple`` like a tuple, and
reads its fields by name at no cost): :class:`TreeNodes`, :class:`KleinData`,
:class:`SortedTables`, :class:`RouteHints`, :class:`ScanPlan` and the tuned constants'
:class:`~curvedtrees.klein._tuning.KernelTuning`, whose values and the measurements
behind them live in :mod:`curvedtrees.klein._tuning`. The small inlined helpers keep
positional scalars: an array handed to an inlined function costs numba an atomic
reference-count update per call, that is per node.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import njit

# The product trees' boundary solvers (the same rule, so a Klein tree and a product
# tree split alike). Until curvedtrees.trees re-exports them, from their module.
from ..trees.kernels import hyperbolic_threshold, lift_threshold

__all__ = [
    "RULE_F32_LE",
    "RULE_F32_LT",
    "RULE_F64_LE",
    "KleinData",
    "RouteHints",
    "ScanPlan",
    "SortedTables",
    "TreeNodes",
    "correct_tree",
    "correct_tree_from_leaves",
    "correct_tree_sorted",
    "geodesic_margins",
    "route_leaves",
    "sort_rows",
    "x0_floors",
]


class TreeNodes(NamedTuple):
    """One tree's parallel node arrays, each of shape (n_nodes,); node 0 is the root.

    The kernels read them where the library keeps them (scikit-learn's are strided views).
    """

    left: np.ndarray  # int64 child ids, -1 at leaves
    right: np.ndarray  # int64
    feature: np.ndarray  # int64 split feature of each internal node
    threshold: np.ndarray  # float64, the library's thresholds


class KleinData(NamedTuple):
    """The rows a model was fitted on and how the library compares them (shared by its trees)."""

    FT: np.ndarray  # (n_features, n_samples) float64: the Klein features, feature-major
    HT: np.ndarray  # (n_h_columns, n_samples) float64: hyperboloid coordinates of the H components
    feat_x0: np.ndarray  # (n_features,) int64: row of HT holding x0 of each H feature; -1 for E
    feat_radius: np.ndarray  # (n_features,) float64: R = 1 / sqrt|K| of each H feature (inf for E)
    rule: int  # RULE_F64_LE, RULE_F32_LE or RULE_F32_LT


class SortedTables(NamedTuple):
    """Each feature's rows in increasing order, their features alongside (see :func:`correct_tree_sorted`).

    All arrays empty: the model has no tables (routing only).
    """

    order: np.ndarray  # (n_features, n_samples) int64
    by_feature: np.ndarray  # (n_features, n_samples, n_features + 1) float64; x0 last (H features)
    block_x0: np.ndarray  # (n_features, n_blocks) float64: smallest x0 per block of the order


class RouteHints(NamedTuple):
    """What a model's routed trees share to choose their H passes; never changes a result."""

    window_sizes: np.ndarray  # (n_features,) float64, updated in place: rows the last window read x0 for
    x0_floor: np.ndarray  # (n_h_columns, n_floor_blocks) float64: x0_floors (zeros: no floors)


class ScanPlan(NamedTuple):
    """How a routed tree may use the sorted tables (see :func:`correct_tree`)."""

    work_per_row: float  # a node's candidate scan gives up past this work per row of the node
    node_weight: np.ndarray  # (n_nodes,) float64: the library's rows or hessian mass per node; empty: no subtree scans
    subtree_cost: float  # learned scan work per unit of n / rows over a subtree's nodes
    subtree_pays: float  # scan a subtree when predicted at most this share of routing it


class _Corrected(NamedTuple):
    """The kernels' per-node results, written in place."""

    new_threshold: np.ndarray  # (n_nodes,) float64
    nearest: np.ndarray  # (n_nodes,) float64
    status: np.ndarray  # (n_nodes,) int8


class _ScanTree(NamedTuple):
    """What the scans read about a tree besides its nodes."""

    parent: np.ndarray  # (n_nodes,) int64, 0 for the root
    cutoffs: np.ndarray  # (n_nodes,) float64: _cutoff of each internal node
    in_set: np.ndarray  # (n_samples,) bool: the tree's rows


class _Scratch(NamedTuple):
    """The scans' buffers (``kept``, ``keep`` of the tree's rows, the rest of its nodes plus one)."""

    kept: np.ndarray  # (2, m) float64
    keep: np.ndarray  # (m,) bool
    stack: np.ndarray  # (n_nodes + 1,) int64
    path_feature: np.ndarray  # (n_nodes,) int64
    path_cutoff: np.ndarray  # (n_nodes,) float64
    path_left: np.ndarray  # (n_nodes,) bool


class _Path(NamedTuple):
    """The tests a row passes on its way to a node (:func:`_path_to`), and the tree's rows."""

    feature: np.ndarray
    cutoff: np.ndarray
    left: np.ndarray
    depth: int
    in_set: np.ndarray


class _Window(NamedTuple):
    """One H node's candidate window in a feature's sorted order (see :func:`_scan_window`)."""

    rows_f: np.ndarray  # (n_samples,) int64: the feature's order
    by_f: np.ndarray  # (n_samples, n_features + 1) float64: features (and x0) in that order
    f: int
    lo: float
    hi: float
    radius: float
    kept: np.ndarray  # (2, m) float64
    block_x0_f: np.ndarray  # (n_blocks,) float64


# How a library compares a row's feature value with a node's threshold.
RULE_F64_LE = 0  # float64 value <= threshold: HistGradientBoosting, LightGBM
RULE_F32_LE = 1  # float32(value) <= float64 threshold: scikit-learn trees (X is cast to float32)
RULE_F32_LT = 2  # float32(value) < float32 threshold: XGBoost ("x < split_condition" goes left)

# Candidate test slack: plane values computed as x0 (t - ratio) differ from x0 t - xj by
# a few ulps, so a row is kept when within 1e-12 relative (plus 1e-15 x0 absolute, for
# values at 0) of the bound; the exact solver prunes the extra rows again.
_CANDIDATE_SLACK = 1.0 + 1e-12
_CANDIDATE_FLOOR = 1e-15

# The hot loops index arrays with unsigned integers (np.uint64(i)): numba guards every
# signed index against Python's negative (wrap-around) indexing, a compare and select
# per access in the innermost loops. Every such index is non-negative by construction.

# Status of each internal node after correction.
STATUS_MOVED = 0
STATUS_EMPTY_SIDE = 1  # no training row on one side (cannot happen for the tree's own rows)
STATUS_INCONSISTENT = 2  # the rows do not sit on the sides the stored threshold implies: left unchanged


@njit(cache=True, nogil=True)
def _to_f32(value):
    return np.float64(np.float32(value))


@njit(cache=True, nogil=True)
def node_shares(left, weight):
    """Sum over the internal nodes of their share of the root's weight, and of its inverse.

    ``weight``: rows (or hessian mass) at each node, as the library recorded it.
    Returns ``(nan, nan)`` if the root or an internal node has no weight.
    """
    root = np.float64(weight[0])
    share_sum = 0.0
    inverse_sum = 0.0
    for node in range(left.shape[0]):
        if left[node] != -1:
            w = np.float64(weight[node])
            if not (w > 0.0 and root > 0.0):
                return np.nan, np.nan
            share_sum += w / root
            inverse_sum += root / w
    return share_sum, inverse_sum


@njit(cache=True, nogil=True)
def _preorder(left, right):
    """The nodes reachable from the root in depth-first order, left subtrees first.

    Returns ``(preorder, n_reached)``: the first ``n_reached`` entries of ``preorder``.
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
    return preorder, n_reached


@njit(cache=True, nogil=True)
def _layout(left, right, leaf, rows):
    """Depth-first node order, rows per node and the rows sorted so every node's rows are contiguous.

    Returns ``(preorder, n_reached, count, start, order)``: ``order[start[v]:start[v] + count[v]]``
    are the rows that reach node ``v``, those of its left child first.
    """
    n_nodes = left.shape[0]
    preorder, n_reached = _preorder(left, right)
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


@njit(cache=True, nogil=True, inline="always")
def _timelike_threshold(kept, left_stop, right_start, right_stop, max_pairs):
    """Maximum-margin Klein threshold of an H split from a superset of its candidate rows.

    ``kept[0]`` holds the rows' Klein ratios and ``kept[1]`` their ``x0``: left rows at
    ``[0, left_stop)``, right rows at ``[right_start, right_stop)``. They must include
    every row that can be nearest to a boundary in the gap (see :func:`_finish_node`).

    Maximising ``min(min_left (a t - b), min_right (b - a t))`` (``a = x0``, ``b = xj``,
    taken as ratio times ``x0``: the row as the library sees it) is a two-variable
    linear program whose optimum lies where one left line meets one right line; of all
    such pairs, the optimal one has the smallest crossing value
    ``(a_i b_k - a_k b_i) / (a_i + a_k)`` (any other left line below that crossing
    would cross the right line lower), and its crossing ``t = (b_i + b_k) / (a_i + a_k)``
    is the threshold: the Klein ratio of ``u + v``, as the notes on boundaries say. Rows
    that are not candidates only add pairs with larger crossing values, so any superset
    gives the same optimum. Up to ``max_pairs`` pairs (``KernelTuning.max_pairs``)
    checking every pair is exact; otherwise the product trees' bisection
    (``hyperbolic_threshold``) does it. The pair loop selects without branching: which
    pair wins is unpredictable.
    """
    n_right = right_stop - right_start
    if left_stop * n_right > max_pairs:
        ratios = np.concatenate((kept[0, :left_stop], kept[0, right_start:right_stop]))
        x0 = np.concatenate((kept[1, :left_stop], kept[1, right_start:right_stop]))
        go_left = np.arange(left_stop + n_right) < left_stop
        t, _ = hyperbolic_threshold(x0, ratios * x0, go_left)
        return t
    best_value = np.inf
    best_t = np.nan
    for i in range(left_stop):
        a_i = kept[1, i]
        b_i = kept[0, i] * a_i
        for k in range(right_start, right_stop):
            a_k = kept[1, k]
            b_k = kept[0, k] * a_k
            denominator = a_i + a_k
            value = (a_i * b_k - a_k * b_i) / denominator
            better = value < best_value
            best_t = (b_i + b_k) / denominator if better else best_t
            best_value = value if better else best_value
    return best_t


@njit(cache=True, nogil=True, inline="always")
def _finish_node(t_old, lo, hi, rule, hyperbolic, kept, left_stop, right_start, right_stop, max_pairs):
    """Place the boundary of one node from its gap and (H) a superset of its candidate rows.

    Returns ``(new_threshold, nearest, status)`` for the node: ``nearest`` is the
    nearest training row's distance to the boundary in the split's own terms (see
    :func:`geodesic_margins`), NaN unless the node moved.

    ``lo`` / ``hi``: largest value sent left and smallest sent right (float64); the
    library sees them at its own precision (rounding to float32 is monotone, so the
    rounded extremes are the extremes of the rounded values). For an H feature
    (``hyperbolic``), ``kept`` (see :func:`_timelike_threshold`) holds a set of the
    node's rows that contains every row that can be nearest to some boundary in the gap
    (the rows attaining ``lo`` and ``hi`` among them), so both the optimal threshold and
    the nearest row are those of the whole node. ``max_pairs``: see
    :func:`_timelike_threshold`. Scalars in and out: array arguments of an inlined
    function cost numba a reference-count update each (atomic), per node.
    """
    if lo == -np.inf or hi == np.inf:
        return t_old, np.nan, STATUS_EMPTY_SIDE
    if rule == RULE_F64_LE:
        lib_lo, lib_hi = lo, hi
    else:
        lib_lo, lib_hi = _to_f32(lo), _to_f32(hi)
    if rule == RULE_F32_LT:
        consistent = lib_lo < t_old <= lib_hi
    else:
        consistent = lib_lo <= t_old < lib_hi
    if not (lo < hi) or not (lib_lo < lib_hi) or not consistent:
        return t_old, np.nan, STATUS_INCONSISTENT
    if hyperbolic:
        t = _timelike_threshold(kept, left_stop, right_start, right_stop, max_pairs)
    else:
        t, _ = lift_threshold(lo, hi)
    # Keep every training row on its side under the library's own comparison.
    if rule == RULE_F32_LT:
        t = _to_f32(t)
        if t <= lib_lo:
            t = _f32_step(lib_lo, np.inf)
        if t > lib_hi:
            t = lib_hi
    else:
        if t < lib_lo:
            t = lib_lo
        if t >= lib_hi:
            t = np.nextafter(lib_hi, -np.inf)
    if not hyperbolic:
        return t, min(t - lo, hi - t), STATUS_MOVED
    smallest = np.inf
    for k in range(left_stop):
        smallest = min(smallest, abs((kept[0, k] - t) * kept[1, k]))
    for k in range(right_start, right_stop):
        smallest = min(smallest, abs((kept[0, k] - t) * kept[1, k]))
    return t, smallest, STATUS_MOVED


@njit(cache=True, nogil=True)
def geodesic_margins(nearest, feature, threshold, feat_x0, feat_radius):
    """Each node's geodesic margin from the corrected tree and the kernels' ``nearest``.

    Parameters
    ----------
    nearest : ndarray of shape (n_nodes,), float64
        As returned by the kernels: for an E split the distance ``min(t - lo, hi - t)``
        from the boundary to the nearest training row, which is its margin; for an H
        split the nearest row's plane distance ``|x_j - t x_0|`` (the hyperboloid
        coordinates of the row); NaN where the node did not move.
    feature, threshold : ndarray of shape (n_nodes,)
        The tree's split features and corrected thresholds.
    feat_x0, feat_radius : ndarray of shape (n_features,)
        As in :func:`correct_tree_from_leaves`.

    Returns
    -------
    margin : ndarray of shape (n_nodes,), float64
        The geodesic distance from each node's boundary to its nearest training row:
        ``R asinh(d / (R sqrt(1 - t^2)))`` for an H split with plane distance ``d``.

    The kernels leave this conversion out: its ``asinh`` is a library call that
    makes the traversal spill its registers, and the wrappers compute margins only
    when they are asked for.
    """
    margin = nearest.copy()
    for node in range(nearest.shape[0]):
        f = feature[node]
        if nearest[node] == nearest[node] and feat_x0[f] >= 0:
            t = threshold[node]
            radius = feat_radius[f]
            # |t| reaches 1 only when float32 rounding put a far point's ratio on the
            # ball's boundary; that boundary is at infinite distance: no finite margin.
            if t * t < 1.0:
                margin[node] = radius * math.asinh(nearest[node] / (radius * math.sqrt(1.0 - t * t)))
            else:
                margin[node] = np.nan
    return margin


@njit(cache=True, nogil=True, inline="always")
def _prune_candidates(kept, left_stop, right_start, right_stop, lo, hi, keep, direct_pairs):
    """Of the rows kept by an H pass or scan, in place, those that can be nearest.

    ``kept`` and the ranges as in :func:`_timelike_threshold`; ``keep`` is scratch of
    ``kept``'s length. Returns the new ``(left_stop, right_start, right_stop)``;
    unchanged when there are at most ``direct_pairs`` pairs (``KernelTuning``).

    With the final gap, ``B`` on each side (the smallest far-end value) is exact over
    the kept rows (the row attaining it is kept), and a kept row stays if its near-end
    value is within it. Each row's verdict is stored first and the compaction reads
    it back: a compaction whose write position depends on a verdict computed in the
    same iteration, from values just loaded, chains every iteration to the previous
    one through memory.
    """
    n_right = right_stop - right_start
    if left_stop * n_right <= direct_pairs:
        return left_stop, right_start, right_stop
    bound_left = np.inf
    for c in range(left_stop):
        bound_left = min(bound_left, kept[1, c] * (hi - kept[0, c]))
    bound_right = np.inf
    for c in range(right_start, right_stop):
        bound_right = min(bound_right, kept[1, c] * (kept[0, c] - lo))
    for c in range(left_stop):
        a = kept[1, c]
        keep[c] = a * (lo - kept[0, c]) <= bound_left * _CANDIDATE_SLACK + a * _CANDIDATE_FLOOR
    for c in range(right_start, right_stop):
        a = kept[1, c]
        keep[c] = a * (kept[0, c] - hi) <= bound_right * _CANDIDATE_SLACK + a * _CANDIDATE_FLOOR
    # In place: the write position never passes the read position.
    n_left = 0
    for c in range(left_stop):
        kept[0, n_left] = kept[0, c]
        kept[1, n_left] = kept[1, c]
        n_left += 1 if keep[c] else 0
    stop = right_start
    for c in range(right_start, right_stop):
        kept[0, stop] = kept[0, c]
        kept[1, stop] = kept[1, c]
        stop += 1 if keep[c] else 0
    return n_left, right_start, stop


@njit(cache=True, nogil=True)
def correct_tree_from_leaves(nodes, leaf, rows, data, tuning):
    """Maximum-margin thresholds for one tree, given each row's leaf (the library's routing).

    Parameters
    ----------
    nodes : TreeNodes
        The tree's ``left``, ``right`` (child ids, ``-1`` at leaves), ``feature`` and
        ``threshold`` (the library's, used to check consistency), each of shape (n_nodes,).
    leaf : ndarray of shape (m,), int64
        Leaf reached by each of the tree's training rows.
    rows : ndarray of shape (m,), int64
        Those rows' indices into the feature arrays.
    data : KleinData
        The features ``FT`` (n_features, n_samples), the H components' hyperboloid
        coordinates ``HT`` (n_h_columns, n_samples), ``feat_x0`` and ``feat_radius``
        (n_features,) and the library's ``rule``.
    tuning : KernelTuning
        Only ``max_pairs`` is read (how each H boundary is solved; both ways exact).

    Returns
    -------
    new_threshold : ndarray of shape (n_nodes,), float64
    nearest : ndarray of shape (n_nodes,), float64
        Distance from the new boundary to the nearest training row of the node (for
        an H split its plane distance: :func:`geodesic_margins` turns these into
        geodesic margins); NaN at leaves and at nodes left unchanged.
    status : ndarray of shape (n_nodes,), int8
        ``STATUS_MOVED``, ``STATUS_EMPTY_SIDE`` or ``STATUS_INCONSISTENT`` (``-1`` at leaves).
    """
    left, right, feature, threshold = nodes
    FT, HT, feat_x0, _, rule = data
    n_nodes = left.shape[0]
    new_threshold = threshold.copy()
    nearest = np.full(n_nodes, np.nan)
    status = np.full(n_nodes, -1, dtype=np.int8)
    preorder, n_reached, count, start, order = _layout(left, right, leaf, rows)
    m = rows.shape[0]
    kept = np.empty((2, m))
    for position in range(n_reached):
        node = preorder[position]
        if left[node] == -1:
            continue
        f = feature[node]
        s = start[node]
        n_left = count[left[node]]
        lo = -np.inf
        hi = np.inf
        h0 = feat_x0[f]
        for k in range(count[node]):
            r = np.uint64(order[np.uint64(s + k)])
            v = FT[f, r]
            if k < n_left:
                lo = max(lo, v)
            else:
                hi = min(hi, v)
            if h0 >= 0:  # every row is a candidate here (this path is the rare one)
                kept[0, k] = v
                kept[1, k] = HT[h0, r]
        # Not pruned: this path is also the exhaustive reference the tests check the others against.
        new_threshold[node], nearest[node], status[node] = _finish_node(
            threshold[node], lo, hi, rule, h0 >= 0, kept, n_left, n_left, count[node], tuning.max_pairs
        )
    return new_threshold, nearest, status


@njit(cache=True, nogil=True)
def route_leaves(nodes, rows, data):
    """Each row's leaf, walking it down the tree with the library's comparison (the plain strategy).

    Parameters
    ----------
    nodes : TreeNodes
    rows : ndarray of shape (m,), int64
    data : KleinData
        ``FT`` and ``rule`` are read.

    Returns
    -------
    leaf : ndarray of shape (m,), int64

    A row per walk, one comparison per level, no cutoffs and no partitions: the
    reference the tuned routing must reproduce. Raises ``ValueError`` if a walk is
    longer than the tree has nodes (a cycle in the node arrays).
    """
    left, right, feature, threshold = nodes
    FT = data.FT
    rule = data.rule
    n_nodes = left.shape[0]
    leaf = np.empty(rows.shape[0], dtype=np.int64)
    for k in range(rows.shape[0]):
        r = rows[k]
        node = 0
        steps = 0
        while left[node] != -1:
            node = left[node] if _sends_left(FT[feature[node], r], threshold[node], rule) else right[node]
            steps += 1
            if steps > n_nodes:
                raise ValueError("the tree's node arrays hold a cycle")
        leaf[k] = node
    return leaf


# FLT_MAX plus half its ulp: rounding to float32 sends this value (a tie, which goes to
# infinity) and everything beyond it to infinity.
_F32_OVERFLOW = 2.0**128 - 2.0**103


@njit(cache=True, nogil=True, inline="always")
def _f32_step(value, towards):
    """The float32 next to the float32 ``value`` in the direction of ``towards``, as a float64."""
    return np.float64(np.nextafter(np.float32(value), np.float32(towards)))


@njit(cache=True, nogil=True)
def _cutoff(t, rule):
    """The float64 ``c`` such that the library sends a finite value ``v`` left exactly when ``v <= c``.

    The passes then compare float64 values with one number per node, without the
    rule's branches and float32 conversions in their loops. Rounding to float32 (to
    nearest, ties to even) is monotone: the values it sends to at most a float32 ``T``
    are those below the midpoint ``m`` between ``T`` and the next float32, and ``m``
    itself when its tie goes to ``T``.
    """
    if rule == RULE_F64_LE or t != t:
        return t
    if rule == RULE_F32_LE:  # float32(v) <= t: T is the largest float32 not above t
        largest = _to_f32(t)
        if largest > t:
            largest = _f32_step(largest, -np.inf)
    else:  # RULE_F32_LT, t a float32: float32(v) < t means float32(v) <= the float32 below t
        if t == -np.inf:
            return -np.inf
        largest = _f32_step(t, -np.inf)
    if largest == np.inf:
        return np.inf
    if largest == -np.inf:
        return -_F32_OVERFLOW
    above = _f32_step(largest, np.inf)
    if above == np.inf:
        middle = largest + (largest - _f32_step(largest, -np.inf)) / 2.0
    else:
        middle = largest / 2.0 + above / 2.0  # exact: both are float32 values
    return middle if _to_f32(middle) <= largest else np.nextafter(middle, -np.inf)


@njit(cache=True, nogil=True, inline="always")
def _partition_gap(values, cutoff, src, dst, s, stop, write):
    """Route a node's rows ``src[s:stop]`` with the library's comparison, in one pass.

    A row goes left when its value is at most ``cutoff`` (:func:`_cutoff` of the
    node's threshold under the library's rule).

    Writes the left rows to ``dst[s:il]`` and the right rows to ``dst[il:stop]`` (when
    ``write``) and returns ``(il, lo, hi)``: the largest value sent left and the
    smallest sent right (infinite for an empty side).

    The partition is out of place and without branches, because a row's direction is
    unpredictable: both writes happen and only the row's own cursor moves, so the
    other write is overwritten later. Two rows per step with separate running
    extremes: the max/min chains, not the memory reads, limit this loop, and two
    chains run in parallel. Rounding to float32 is monotone, so the gap as the
    library sees it is that of the rounded ``lo`` and ``hi``.

    The H passes and :func:`_partition_tiny` repeat this partition step inline on
    purpose: in a shared inlined helper returning ``(il, ir, lo, hi)``, numba compiled
    the selects into branches (see BENCHMARKS.md for what that cost).
    """
    lo = -np.inf
    hi = np.inf
    lo2 = -np.inf
    hi2 = np.inf
    il = s
    ir = stop - 1
    k = s
    while k + 1 < stop:
        r = np.uint64(src[np.uint64(k)])
        r2 = np.uint64(src[np.uint64(k + 1)])
        v = values[r]
        v2 = values[r2]
        g = v <= cutoff
        g2 = v2 <= cutoff
        if write:
            dst[np.uint64(il)] = r
            dst[np.uint64(ir)] = r
        il += 1 if g else 0
        ir -= 0 if g else 1
        if write:
            dst[np.uint64(il)] = r2
            dst[np.uint64(ir)] = r2
        il += 1 if g2 else 0
        ir -= 0 if g2 else 1
        lo = max(lo, v if g else -np.inf)
        hi = min(hi, np.inf if g else v)
        lo2 = max(lo2, v2 if g2 else -np.inf)
        hi2 = min(hi2, np.inf if g2 else v2)
        k += 2
    if k < stop:
        r = np.uint64(src[np.uint64(k)])
        v = values[r]
        g = v <= cutoff
        if write:
            dst[np.uint64(il)] = r
            dst[np.uint64(ir)] = r
        il += 1 if g else 0
        lo = max(lo, v if g else -np.inf)
        hi = min(hi, np.inf if g else v)
    return il, max(lo, lo2), min(hi, hi2)


@njit(cache=True, nogil=True, inline="always")
def _partition_gap_hyperbolic(values, x0_all, cutoff, src, dst, s, stop, write, slack_per_radius, kept, warm_rows):
    """:func:`_partition_gap` for an H feature, also keeping the rows the margin needs.

    A left row ``i`` (plane value ``x0_i (t - r_i)`` with Klein ratio ``r_i``, growing
    with ``t``) can be the nearest somewhere in the gap only if its value at the near
    end ``lo`` is at most ``B``, the smallest left value at the far end ``hi``. As
    ``x0 >= R``, such a row has ``R (lo - r_i) <= B``: its ratio lies in a window of
    width ``B / R`` below ``lo``. The pass keeps a running ``lo``, ``hi`` and an upper
    bound of ``B`` (each left row read contributes ``x0 (hi' - r)`` with the running
    ``hi' >= hi``), so the window's lower edge only rises: a row outside the window
    when read is outside it for the final values too and is skipped on its ratio
    alone, the common case (no ``x0`` read). A row inside reads ``x0``, tightens the
    bound and is kept if its near-end value is within the bound. The pass starts from
    the extremes and bounds of ``warm_rows`` rows (``KernelTuning``) spread through the
    node (valid running values: they are some of the node's rows'), so the window
    starts near its final width whatever the order of the rows (rows renumbered for
    locality come in an order that follows their values). Symmetrically on the right. Every row
    that can be the nearest, and the row attaining ``B``, is kept (their tests hold with
    the final values, hence with the running ones); :func:`_prune_candidates` prunes.

    The running ``lo`` only moves on a row that is inside the window (a new largest
    left value is above the old edge), so the edges are updated there and the common
    path compares with two loop-invariant values. It does so in one comparison, one
    branch: two short-circuited tests would branch on the row's side, which is
    unpredictable, and a branch-free update of the edges would chain every row to the
    previous one.

    ``slack_per_radius`` is ``_CANDIDATE_SLACK / R``, a product where the edges move
    instead of a division in the loop.

    Far from the origin ``x0`` is much larger than ``R`` and such windows hold most
    rows (LightGBM on H16, whose points lie some 5e7 R out: 90% of a node's rows); see
    :func:`_window_side` for the windows of each row block's smallest ``x0`` used there.

    Returns ``(il, lo, hi, left_stop, right_start, n_window)``: the kept rows' ratios
    and ``x0`` in ``kept[0]`` and ``kept[1]``, the left ones at ``[0, left_stop)``, the
    right ones at ``[right_start, kept.shape[1])`` (written downwards from the end);
    ``n_window``: the rows that fell in the window (read ``x0``).
    """
    lo = -np.inf
    hi = np.inf
    bound_left = np.inf  # running upper bounds of B, left and right
    bound_right = np.inf
    # Warm start from a spread sample of the node's rows (read again below): any rows'
    # extremes and bounds are valid running values, and these are near the final ones
    # even when the rows come in an order that follows their values.
    stride = max(1, (stop - s) // warm_rows)
    for k in range(s, stop, stride):
        r = np.uint64(src[np.uint64(k)])
        v = values[r]
        g = v <= cutoff
        lo = max(lo, v if g else -np.inf)
        hi = min(hi, np.inf if g else v)
    for k in range(s, stop, stride):
        r = np.uint64(src[np.uint64(k)])
        v = values[r]
        a = x0_all[r]
        if v <= cutoff:
            bound_left = min(bound_left, a * (hi - v))
        else:
            bound_right = min(bound_right, a * (v - lo))
    edge_lo = lo - bound_left * slack_per_radius  # the window: rows with edge_lo <= ratio <= edge_hi
    edge_hi = hi + bound_right * slack_per_radius
    left_stop = 0
    right_start = kept.shape[1]
    n_window = 0
    il = s
    ir = stop - 1
    for k in range(s, stop):
        r = np.uint64(src[np.uint64(k)])
        v = values[r]
        g = v <= cutoff
        if write:
            dst[np.uint64(il)] = r
            dst[np.uint64(ir)] = r
        il += 1 if g else 0
        ir -= 0 if g else 1
        lo = max(lo, v if g else -np.inf)
        hi = min(hi, np.inf if g else v)
        if max(edge_lo - v, v - edge_hi) <= 0.0:
            n_window += 1
            a = x0_all[r]
            if g:
                bound_left = min(bound_left, a * (hi - v))
                if a * (lo - v) <= bound_left * _CANDIDATE_SLACK + a * _CANDIDATE_FLOOR:
                    kept[0, np.uint64(left_stop)] = v
                    kept[1, np.uint64(left_stop)] = a
                    left_stop += 1
            else:
                bound_right = min(bound_right, a * (v - lo))
                if a * (v - hi) <= bound_right * _CANDIDATE_SLACK + a * _CANDIDATE_FLOOR:
                    right_start -= 1
                    kept[0, np.uint64(right_start)] = v
                    kept[1, np.uint64(right_start)] = a
            edge_lo = lo - bound_left * slack_per_radius
            edge_hi = hi + bound_right * slack_per_radius
    return il, lo, hi, left_stop, right_start, n_window


@njit(cache=True, nogil=True)
def x0_floors(HT, feat_x0, feat_radius, floor_shift, floor_pays):
    """The block floors of each H component's ``x0`` (see :func:`_window_side`).

    Returns an array of shape (n_h_columns, ceil(n_samples / 2 ** floor_shift)): for
    each row of ``HT`` holding an ``x0`` whose median floor is at least ``floor_pays``
    times its radius, the smallest ``x0`` of each block of ``2 ** floor_shift`` rows;
    zeros elsewhere (no floors). ``floor_shift`` and ``floor_pays``:
    :data:`curvedtrees.klein._tuning.FLOOR_SHIFT` and ``FLOOR_PAYS``.
    """
    n = HT.shape[1]
    block = 1 << floor_shift
    n_blocks = (n + block - 1) // block
    floors = np.zeros((HT.shape[0], n_blocks))
    for f in range(feat_x0.shape[0]):
        h = feat_x0[f]
        if h < 0 or floors[h, 0] > 0.0:
            continue
        for b in range(n_blocks):
            floors[h, b] = HT[h, b * block : min(n, (b + 1) * block)].min()
        if np.median(floors[h]) < floor_pays * feat_radius[f]:
            floors[h, :] = 0.0
    return floors


@njit(cache=True, nogil=True, inline="always")
def _window_side(values, x0_all, x0_floor, floor_shift, rows, start, stop, near_end, far_end, sign, kept, cursor, step):
    """The candidates among one side's rows ``rows[start:stop]`` once the gap is final.

    For a far-out component, where windows of ``R`` (:func:`_partition_gap_hyperbolic`)
    hold most rows: ``x0_floor`` holds the smallest ``x0`` of each block of
    ``2 ** floor_shift`` consecutive rows (by row index), and a row is in the window when
    its near-end value, taken at its block's floor instead of ``R``, is within the
    running bound (``floor (d - floor_term) <= B``, which every candidate satisfies as
    ``floor <= x0``): a window of the rows' own scale (H16: 1% of a node's rows
    instead of 90%). The node is partitioned first, so each side's rows are contiguous
    and the gap's ends final: every row is tested against fixed ends with no select on its side
    (``sign * (near_end - r)`` is its distance in ratio from the near end, ``sign *
    (far_end - r)`` from the far end: ``+1`` with ``lo``, ``hi`` on the left, ``-1``
    with ``hi``, ``lo`` on the right). The test waits on nothing but the rare update of
    the bound, where a single pass's would wait on the running extremes. Used where the
    floors pay (see :func:`x0_floors`).

    Writes the kept rows to ``kept`` from ``cursor`` on, moving by ``step`` (``+1``:
    lefts up from the start, ``-1``: rights down from the end); returns the next
    cursor and the rows that fell in the window.
    """
    bound = np.inf
    limit = np.inf
    n_window = 0
    for k in range(start, stop):
        r = np.uint64(rows[np.uint64(k)])
        v = values[r]
        distance = sign * (near_end - v)
        if x0_floor[r >> np.uint64(floor_shift)] * (distance - _CANDIDATE_FLOOR) <= limit:
            n_window += 1
            a = x0_all[r]
            bound = min(bound, a * (sign * (far_end - v)))
            limit = bound * _CANDIDATE_SLACK
            if a * distance <= limit + a * _CANDIDATE_FLOOR:
                kept[0, np.uint64(cursor)] = v
                kept[1, np.uint64(cursor)] = a
                cursor += step
    return cursor, n_window


@njit(cache=True, nogil=True, inline="always")
def _side_candidates(values, x0_all, rows, start, stop, near_end, far_end, sign, kept, cursor, step):
    """The candidates among one side's rows ``rows[start:stop]``, every row's ``x0`` read, no branch.

    :func:`_window_side` without the window: once the node is partitioned, a side's
    rows are contiguous and the gap's ends final, so each row's test needs no select on
    its side and waits on nothing but the running bound (``sign``, ``near_end`` and
    ``far_end`` as there). Every row is written at the cursor, which moves only if the
    row passes the test; the row attaining the side's ``B`` passes (its near-end value
    is at most its far-end value, which is then the running bound), so the kept rows
    are a superset of the candidates. Returns the next cursor.
    """
    bound = np.inf
    for k in range(start, stop):
        r = np.uint64(rows[np.uint64(k)])
        v = values[r]
        a = x0_all[r]
        bound = min(bound, a * (sign * (far_end - v)))
        # The windowed pass's test, the floor term moved left (a * (gap - floor) saves a
        # multiply); the two differ by rounding, well within the slack.
        keep = a * (sign * (near_end - v) - _CANDIDATE_FLOOR) <= bound * _CANDIDATE_SLACK
        kept[0, np.uint64(cursor)] = v
        kept[1, np.uint64(cursor)] = a
        cursor += step if keep else 0
    return cursor


@njit(cache=True, nogil=True, inline="always")
def _sides_after_partition(values, x0_all, rows, s, il, stop, lo, hi, kept):
    """The candidates of a node whose rows ``rows[s:stop]`` are partitioned at ``il`` with gap ``(lo, hi)``.

    Lefts up from the start of ``kept``, rights down from its end (see
    :func:`_partition_gap_hyperbolic`); returns ``(left_stop, right_start)``.
    """
    m = kept.shape[1]
    if not (-np.inf < lo < hi < np.inf):
        return 0, m  # the node does not move (see _finish_node): no candidates needed
    left_stop = _side_candidates(values, x0_all, rows, s, il, lo, hi, 1.0, kept, 0, 1)
    right_end = _side_candidates(values, x0_all, rows, il, stop, hi, lo, -1.0, kept, m - 1, -1)
    return left_stop, right_end + 1


@njit(cache=True, nogil=True, inline="always")
def _sends_left(value, t, rule):
    """Whether the library sends a row with feature ``value`` left at a node of threshold ``t``."""
    if rule == RULE_F64_LE:
        return value <= t
    if rule == RULE_F32_LE:
        return np.float64(np.float32(value)) <= t
    return np.float32(value) < np.float32(t)


@njit(cache=True, nogil=True, inline="always")
def _partition_tiny(values, x0_all, t, rule, src, dst, s, stop, write, kept):
    """The H passes for a node of at most ``KernelTuning.tiny_rows`` rows, H or E: every row kept, in one pass.

    Compares each row with the threshold ``t`` under ``rule`` (no cutoff) and keeps
    every row, laid out as the H passes do (``x0_all`` is only read into ``kept``: for
    an E feature any array of the rows' length will do). Returns
    ``(il, lo, hi, left_stop, right_start)``.
    """
    lo = -np.inf
    hi = np.inf
    left_stop = 0
    right_end = kept.shape[1] - 1
    il = s
    ir = stop - 1
    for k in range(s, stop):
        r = np.uint64(src[np.uint64(k)])
        v = values[r]
        g = _sends_left(v, t, rule)
        if write:
            dst[np.uint64(il)] = r
            dst[np.uint64(ir)] = r
        il += 1 if g else 0
        ir -= 0 if g else 1
        lo = max(lo, v if g else -np.inf)
        hi = min(hi, np.inf if g else v)
        # Both slots written, one cursor moved (as the partition's writes).
        a = x0_all[r]
        kept[0, np.uint64(left_stop)] = v
        kept[1, np.uint64(left_stop)] = a
        kept[0, np.uint64(right_end)] = v
        kept[1, np.uint64(right_end)] = a
        left_stop += 1 if g else 0
        right_end -= 0 if g else 1
    return il, lo, hi, left_stop, right_end + 1


@njit(cache=True, nogil=True)
def correct_tree(nodes, rows, data, hints, tables, plan, tuning):
    """Maximum-margin thresholds for one tree, routing the rows with the library's comparison.

    Same result as :func:`correct_tree_from_leaves`, but the rows are sent down the
    tree here, node by node with the library's rule (inputs are finite, so
    missing-value routing never applies).

    Parameters
    ----------
    nodes : TreeNodes
    rows : ndarray of shape (m,), int64
        The tree's training rows (indices into ``data``'s columns).
    data : KleinData
    hints : RouteHints
        ``window_sizes`` (updated in place, shared by a model's trees: the rows the last
        windowed pass on each feature read ``x0`` for) and ``x0_floor``
        (:func:`x0_floors`). They decide which pass runs, never the result.
    tables : SortedTables
        The model's sorted rows, or empty arrays for none.
    plan : ScanPlan
        How to use the tables (below); unused without them.
    tuning : KernelTuning
        The strategies' thresholds (:mod:`curvedtrees.klein._tuning`).

    Returns
    -------
    new_threshold, nearest, status : ndarray of shape (n_nodes,)
        As in :func:`correct_tree_from_leaves`.
    scan_work, scan_units : float
        The subtree scans' work in walks and window steps (this function's unit, a row
        routed through one node, without the nodes' fixed costs) and the units they
        were predicted from (the caller learns ``plan.subtree_cost`` from their ratio).

    Notes
    -----
    Per node, one pass partitions the rows between two index buffers and finds the
    gap: :func:`_partition_gap` for an E feature; for an H feature the pass also keeps
    the rows that can be nearest to the boundary (:func:`_partition_gap_hyperbolic`
    through a window; :func:`_partition_gap`, then :func:`_sides_after_partition` for
    nodes of up to ``tuning.dense_rows`` rows or whose feature's windows are wide,
    ``tuning.dense_window_share``), which :func:`_prune_candidates` then prunes to the
    few the exact solver needs. Nodes of at most ``tuning.tiny_rows`` rows, H or E,
    take :func:`_partition_tiny`, which keeps them all. Far-out components without
    tables narrow their windows with ``hints.x0_floor`` (:func:`_window_side`).

    With the tables, a large H node whose feature's windows are wide (points far from
    the origin) is partitioned without reading ``x0`` and its candidates are found by
    scanning the sorted rows outwards from its gap (:func:`_scan_candidates`); a scan
    whose work exceeds ``plan.work_per_row`` times the node's rows stops, and the node
    takes the branch-free pass.

    Subtrees: with the tables and ``plan.node_weight``, every node below the root
    decides whether its whole subtree is cheaper to scan (:func:`_scan_subtree`: about
    ``n / rows`` positions per node, and ``tuning.node_cost``) than to route (its rows
    through every level). The node's rows are known here, its descendants' are
    estimated from their weights; the subtree is scanned when ``plan.subtree_cost``
    times the predicted units, plus the nodes' fixed costs, is at most
    ``plan.subtree_pays`` of routing's predicted work. A scan whose work exceeds
    routing's predicted work gives up and the subtree is routed. Boosted trees hold a
    few nodes of tiny shares that make scanning a whole tree a loss, while most of
    their subtrees scan for a fraction of routing.
    """
    left, right, feature, threshold = nodes
    FT, HT, feat_x0, feat_radius, rule = data
    window_sizes, x0_floor = hints
    n_nodes = left.shape[0]
    new_threshold = threshold.copy()
    nearest = np.full(n_nodes, np.nan)
    status = np.full(n_nodes, -1, dtype=np.int8)
    m = rows.shape[0]
    # The root reads the tree's rows where they are; below it, each node's rows are in
    # one of two buffers (no copy of the rows into the first).
    buffers = np.empty((2, m), dtype=np.int64)
    # A node's kept rows: lefts from the start, rights from the end (see the H passes).
    kept = np.empty((2, m))
    keep = np.empty(m, dtype=np.bool_)
    order = tables.order
    node_weight = plan.node_weight
    scans = order.shape[0] > 0
    parent = np.zeros(0, dtype=np.int64)
    cutoffs = np.zeros(0)
    in_set = np.zeros(0, dtype=np.bool_)
    if scans:
        # The scans' walks need every node's parent and cutoff; the routing reuses the
        # cutoffs. Without scans each node computes its own (computing all up front
        # was slower there).
        parent, cutoffs = _parents_and_cutoffs(left, right, threshold, rule)
    if scans:
        in_set = _row_mask(rows, order.shape[1])
    scan_tree = _ScanTree(parent, cutoffs, in_set)
    subtrees = scans and node_weight.shape[0] == n_nodes
    sub_weight = sub_inverse = sub_count = np.zeros(0)
    if subtrees:
        sub_weight, sub_inverse, sub_count = _subtree_sums(left, right, node_weight)
    scan_work = 0.0
    scan_units = 0.0
    out = _Corrected(new_threshold, nearest, status)
    # The scans' scratch (a path and a stack of up to n_nodes entries): none without them.
    scratch_nodes = n_nodes if scans else 0
    scratch = _Scratch(
        kept,
        keep,
        np.empty(scratch_nodes + 1, dtype=np.int64),
        np.empty(scratch_nodes, dtype=np.int64),
        np.empty(scratch_nodes),
        np.empty(scratch_nodes, dtype=np.bool_),
    )
    path_feature, path_cutoff, path_left = scratch.path_feature, scratch.path_cutoff, scratch.path_left
    tiny_rows = tuning.tiny_rows
    dense_rows = tuning.dense_rows
    dense_window_share = tuning.dense_window_share
    # Stack of (node, start, stop, buffer holding its rows: 0 or 1, or 2 for ``rows``);
    # a binary tree of n nodes never needs more than n + 1 entries.
    stack = np.empty((n_nodes + 1, 4), dtype=np.int64)
    stack[0, 0] = 0
    stack[0, 1] = 0
    stack[0, 2] = m
    stack[0, 3] = 2
    depth = 1
    while depth > 0:
        depth -= 1
        node = stack[depth, 0]
        s = stack[depth, 1]
        stop = stack[depth, 2]
        which = stack[depth, 3]
        if left[node] == -1:
            continue
        if subtrees and node != 0 and stop > s and node_weight[node] > 0.0:
            # rows per unit of the library's weight, from this node's actual rows
            scale = (stop - s) / node_weight[node]
            routing = scale * sub_weight[node]
            units = order.shape[1] / scale * sub_inverse[node]
            fixed = tuning.node_cost * sub_count[node]
            if plan.subtree_cost * units + fixed <= plan.subtree_pays * routing:
                complete, work = _scan_subtree(
                    node, nodes, scan_tree, tables, data, routing - fixed, scratch, out, tuning
                )
                scan_work += work
                scan_units += units
                if complete:
                    continue
        src = rows if which == 2 else buffers[which]
        below = 1 if which == 2 else 1 - which  # the buffer the children's rows go to
        dst = buffers[below]
        f = feature[node]
        # Children that are both leaves need the gap (and candidates), not the partition.
        write = left[left[node]] != -1 or left[right[node]] != -1
        hyperbolic = feat_x0[f] >= 0
        left_stop = right_start = right_stop = 0
        tiny = stop - s <= tiny_rows  # compares each row with the threshold: no cutoff
        cutoff = 0.0 if tiny else (cutoffs[node] if scans else _cutoff(threshold[node], rule))
        if tiny:
            il, lo, hi, left_stop, right_start = _partition_tiny(
                FT[f], HT[feat_x0[f]] if hyperbolic else FT[f], threshold[node], rule, src, dst, s, stop, write, kept
            )
            right_stop = m
        elif hyperbolic:
            x0_all = HT[feat_x0[f]]
            wide = (stop - s) * dense_window_share <= window_sizes[f]
            if scans and wide and stop - s > dense_rows:
                il, lo, hi = _partition_gap(FT[f], cutoff, src, dst, s, stop, write)
                found = False
                if -np.inf < lo < hi < np.inf:
                    depth_of_node = _path_to(node, left, parent, feature, cutoffs, path_feature, path_cutoff, path_left)
                    path = _Path(path_feature, path_cutoff, path_left, depth_of_node, in_set)
                    left_stop, right_start, right_stop, found = _scan_candidates(
                        lo, hi, f, feat_radius[f], tables, path, kept, (stop - s) * plan.work_per_row, tuning
                    )
                if not found:
                    if not write:  # the sides' passes read the partitioned rows
                        _partition_gap(FT[f], cutoff, src, dst, s, stop, True)
                    left_stop, right_start = _sides_after_partition(FT[f], x0_all, dst, s, il, stop, lo, hi, kept)
                    right_stop = m
            elif stop - s <= dense_rows or wide:
                il, lo, hi = _partition_gap(FT[f], cutoff, src, dst, s, stop, True)
                left_stop, right_start = _sides_after_partition(FT[f], x0_all, dst, s, il, stop, lo, hi, kept)
                right_stop = m
            else:
                # With the tables, far-out features keep windows of R: those are wide,
                # and the scans from the gap beat narrower windows (see _tuning.FLOOR_PAYS).
                floor_row = x0_floor[feat_x0[f]]
                if floor_row[0] > 0.0 and not scans:
                    # Floors: partition first (also when the children are leaves: the
                    # sides must be contiguous), then each side against the final gap.
                    il, lo, hi = _partition_gap(FT[f], cutoff, src, dst, s, stop, True)
                    left_stop, right_start, n_window = 0, m, 0
                    if -np.inf < lo < hi < np.inf:
                        shift = tuning.floor_shift
                        left_stop, n_left = _window_side(
                            FT[f], x0_all, floor_row, shift, dst, s, il, lo, hi, 1.0, kept, 0, 1
                        )
                        right_end, n_right = _window_side(
                            FT[f], x0_all, floor_row, shift, dst, il, stop, hi, lo, -1.0, kept, m - 1, -1
                        )
                        right_start, n_window = right_end + 1, n_left + n_right
                else:
                    slack_per_radius = _CANDIDATE_SLACK / feat_radius[f]
                    il, lo, hi, left_stop, right_start, n_window = _partition_gap_hyperbolic(
                        FT[f], x0_all, cutoff, src, dst, s, stop, write, slack_per_radius, kept, tuning.warm_rows
                    )
                window_sizes[f] = n_window
                right_stop = m
            if lo < hi:
                left_stop, right_start, right_stop = _prune_candidates(
                    kept, left_stop, right_start, right_stop, lo, hi, keep, tuning.direct_pairs
                )
        else:
            il, lo, hi = _partition_gap(FT[f], cutoff, src, dst, s, stop, write)
        new_threshold[node], nearest[node], status[node] = _finish_node(
            threshold[node], lo, hi, rule, hyperbolic, kept, left_stop, right_start, right_stop, tuning.max_pairs
        )
        stack[depth, 0] = right[node]
        stack[depth, 1] = il
        stack[depth, 2] = stop
        stack[depth, 3] = below
        stack[depth + 1, 0] = left[node]
        stack[depth + 1, 1] = s
        stack[depth + 1, 2] = il
        stack[depth + 1, 3] = below
        depth += 2
    return new_threshold, nearest, status, scan_work, scan_units


@njit(cache=True, nogil=True)
def _subtree_sums(left, right, weight):
    """Over each node's subtree, the sums of its internal nodes' ``weight`` and ``1 / weight``, and their number.

    Returns three arrays of shape (n_nodes,), zero at leaves; ``1 / weight`` is infinite
    for an internal node without weight, so no subtree holding one is ever scanned.
    """
    n_nodes = left.shape[0]
    preorder, n_reached = _preorder(left, right)
    sub_weight = np.zeros(n_nodes)
    sub_inverse = np.zeros(n_nodes)
    sub_count = np.zeros(n_nodes)
    for position in range(n_reached - 1, -1, -1):  # children before parents
        node = preorder[position]
        if left[node] != -1:
            w = np.float64(weight[node])
            sub_weight[node] = w + sub_weight[left[node]] + sub_weight[right[node]]
            inverse = 1.0 / w if w > 0.0 else np.inf
            sub_inverse[node] = inverse + sub_inverse[left[node]] + sub_inverse[right[node]]
            sub_count[node] = 1.0 + sub_count[left[node]] + sub_count[right[node]]
    return sub_weight, sub_inverse, sub_count


# ------------------------------------------------------------ shallow trees: sorted scans
# A scan's work is counted in correct_tree's unit, a row routed through one node:
# tuning.walk_cost per walk (one row's tests on a node's path), tuning.window_cost per
# step through an H window; tuning.node_cost, a scanned node's fixed cost, is added by
# the scan policies to their predictions and left out of the scans' budgets.


@njit(cache=True, nogil=True, inline="always")
def _path_to(node, left, parent, feature, cutoffs, path_feature, path_cutoff, path_left):
    """The tests a row passes on its way from the root to ``node``, in the arrays given.

    Writes, for each ancestor (the parent first), its feature, its cutoff and whether
    the way to ``node`` goes left; returns how many (the node's depth).
    """
    depth = 0
    child = node
    while child != 0:
        up = parent[child]
        path_feature[depth] = feature[up]
        path_cutoff[depth] = cutoffs[up]
        path_left[depth] = left[up] == child
        depth += 1
        child = up
    return depth


@njit(cache=True, nogil=True, inline="always")
def _reaches(rows_f, by_f, q, path):
    """Whether the row at position ``q`` of one feature's order reaches the node of ``path``.

    ``path``: a :class:`_Path`, the node's :func:`_path_to` and the tree's rows as a
    mask of every row (all true when the tree has them all). The row must be one of the tree's and go the tree's way at
    every ancestor; ``by_f[q]`` holds its features, read sequentially. Every test is
    made and combined without a branch: stopping at the first wrong turn (most rows
    take one or two) branched on which ancestor that is, unpredictably, and chained
    each test to the previous one's load of the parent. Even a branch that is never
    taken, such as skipping the mask for a tree of all rows, stops numba from
    compiling the loop without branches, so the mask is always read.
    """
    path_feature, path_cutoff, path_left, depth, in_set = path
    position = np.uint64(q)
    reaches = in_set[np.uint64(rows_f[position])]
    for k in range(depth):
        at = np.uint64(k)
        reaches &= (by_f[position, np.uint64(path_feature[at])] <= path_cutoff[at]) == path_left[at]
    return reaches


@njit(cache=True, nogil=True)
def _row_mask(rows, n):
    """The rows as a mask of ``n`` rows (:func:`_reaches` reads one for every row)."""
    mask = np.zeros(n, dtype=np.bool_)
    mask[rows] = True
    return mask


@njit(cache=True, nogil=True)
def _parents_and_cutoffs(left, right, threshold, rule):
    """Each node's parent (0 for the root) and each internal node's :func:`_cutoff`."""
    n_nodes = left.shape[0]
    parent = np.zeros(n_nodes, dtype=np.int64)
    cutoffs = np.empty(n_nodes)  # the library's comparison at each node, as "value <= cutoff"
    for node in range(n_nodes):
        if left[node] != -1:
            parent[left[node]] = node
            parent[right[node]] = node
            cutoffs[node] = _cutoff(threshold[node], rule)
    return parent, cutoffs


@njit(cache=True, nogil=True)
def sort_rows(F, f, x0, order_f, by_f, block_x0_f, block_shift):
    """Fill one feature's part of the sorted scans' tables (see :func:`correct_tree_sorted`).

    ``F`` of shape (n_samples, n_features) is row-major, so each row is copied from one
    place. ``order_f`` receives the rows in increasing order of ``F[:, f]``; ``by_f[q]``
    the features of row ``order_f[q]`` and, when ``x0`` is not empty, its ``x0`` last;
    ``block_x0_f[b]`` (H features) the smallest ``x0`` of the rows at positions
    ``[b * block, (b + 1) * block)`` of that order, ``block = 2 ** block_shift``
    (:data:`curvedtrees.klein._tuning.BLOCK_SHIFT`; ``block_x0_f`` has
    ``ceil(n_samples / block)`` entries).
    """
    order_f[:] = np.argsort(F[:, f])
    d = F.shape[1]
    n = order_f.shape[0]
    for q in range(n):
        r = order_f[q]
        by_f[q, :d] = F[r]
        by_f[q, d] = x0[r] if x0.shape[0] > 0 else 0.0
    if x0.shape[0] > 0:
        block = 1 << block_shift
        for b in range(block_x0_f.shape[0]):
            block_x0_f[b] = by_f[b * block : min((b + 1) * block, n), d].min()


@njit(cache=True, nogil=True)
def _scan_window(start, step, n_kept, window, path, max_work, tuning):
    """One side of an H node's candidate window in a sorted scan (see :func:`correct_tree_sorted`).

    From the row attaining ``lo`` downwards (``step = -1``) or the row attaining ``hi``
    upwards (``step = 1``), while a row could still matter: ``R`` times its distance
    in ratio from that end within the running bound on the side's far-end values. A
    row matters only if its own near-end value ``x0 * distance`` is within the bound
    too (its far-end value is larger), so that cheap test, on values stored alongside,
    comes before the walk up the tree. Rows are appended to ``kept`` (ratios in
    ``kept[0]``, ``x0`` in ``kept[1]``) from ``n_kept`` on, against the running bound;
    :func:`_prune_candidates` prunes them with the final one.

    Far from the origin ``x0`` is much larger than ``R`` and the window, bounded with
    ``R``, holds thousands of rows of which a few pass the near-end test (H8 data with
    a median ``x0`` of 6000 R: ~10,000 rows per window). Rows sorted by the feature lie
    further out the further the scan goes, so when the smallest ``x0`` of the current
    block (``2 ** tuning.block_shift`` positions, :func:`sort_rows`) fails the test at
    the current row's distance, every row left in the block fails it: the scan jumps
    to the next block.

    ``window``: a :class:`_Window`; ``path``: a :class:`_Path`. Returns ``(n_kept,
    walks, steps, complete)``: ``steps`` counts the rows tested and the blocks skipped;
    ``complete`` is ``False`` when the scan stopped because its work
    (``tuning.walk_cost`` per walk, ``tuning.window_cost`` per step) exceeded ``max_work``.
    """
    rows_f, by_f, f, lo, hi, radius, kept, block_x0_f = window
    walk_cost = tuning.walk_cost
    window_cost = tuning.window_cost
    block_shift = tuning.block_shift
    x0_column = by_f.shape[1] - 1
    near_end = lo if step < 0 else hi
    far_end = hi if step < 0 else lo
    n = by_f.shape[0]
    bound = np.inf
    walks = 0
    steps = 0
    near_rows = np.empty(1 << block_shift, dtype=np.int64)
    q = start
    while 0 <= q < n:
        if walk_cost * walks + window_cost * steps > max_work:
            return n_kept, walks, steps, False
        limit = bound * _CANDIDATE_SLACK
        block = q >> block_shift
        end = min((block + 1) << block_shift, n) if step > 0 else (block << block_shift) - 1
        distance = step * (by_f[np.uint64(q), f] - near_end)
        if radius * distance > limit:
            break
        steps += 1
        # a (d - floor) grows with x0 and with the distance d: if the block's smallest x0
        # fails "a d <= limit + a floor" here, so does every row after this one in it.
        if block_x0_f[np.uint64(block)] * (distance - _CANDIDATE_FLOOR) > limit:
            q = end
            continue
        n_near = 0
        last = False
        k = q
        while k != end:
            position = np.uint64(k)
            distance = step * (by_f[position, f] - near_end)
            if radius * distance > limit:
                last = True
                break
            a = by_f[position, x0_column]
            near_rows[np.uint64(n_near)] = k
            n_near += 1 if a * distance <= limit + a * _CANDIDATE_FLOOR else 0
            k += step
        steps += abs(k - q)
        walks += n_near
        for i in range(n_near):
            position = np.uint64(near_rows[np.uint64(i)])
            if _reaches(rows_f, by_f, position, path):
                v = by_f[position, f]
                a = by_f[position, x0_column]
                bound = min(bound, a * step * (v - far_end))
                kept[0, np.uint64(n_kept)] = v
                kept[1, np.uint64(n_kept)] = a
                n_kept += 1
        if last:
            break
        q = k
    return n_kept, walks, steps, True


@njit(cache=True, nogil=True, inline="always")
def _first_above(by_f, f, value, low):
    """The first position ``q >= low`` of one feature's order with ``by_f[q, f] > value``
    (``n`` if none): the values are sorted, so a bisection."""
    high = by_f.shape[0]
    while low < high:
        middle = (low + high) // 2
        if by_f[middle, f] <= value:
            low = middle + 1
        else:
            high = middle
    return low


@njit(cache=True, nogil=True)
def _scan_candidates(lo, hi, f, radius, tables, path, kept, max_work, tuning):
    """A routed H node's candidates, from the rows sorted by its feature.

    The node's gap ``(lo, hi)`` is known (from the partition); the scan starts at the
    last row of the order at most ``lo`` going down and at the first at least ``hi``
    going up, and keeps the rows that reach the node through each side's window (see
    :func:`_scan_window`): lefts at ``kept[:, :left_stop]``, rights at
    ``kept[:, left_stop:right_stop]``.

    ``tables``: :class:`SortedTables`; ``path``: :class:`_Path`. Returns ``(left_stop,
    right_start, right_stop, complete)``; ``complete`` is ``False`` when the work would
    exceed ``max_work`` (the caller then reads every row's ``x0``).
    """
    order, by_feature, block_x0 = tables
    by_f = by_feature[f]
    # Rows [0, below) have values <= lo, rows [above, n) values >= hi. The rows from
    # below - 1 down to the node's row attaining lo all have the value lo (and
    # likewise for hi): the scan walks through them to the node's own.
    below = _first_above(by_f, f, lo, 0)
    above = _first_above(by_f, f, np.nextafter(hi, -np.inf), below)
    window = _Window(order[f], by_f, f, lo, hi, radius, kept, block_x0[f])
    left_stop, walks, steps, complete = _scan_window(below - 1, -1, 0, window, path, max_work, tuning)
    if not complete:
        return 0, 0, 0, False
    max_work -= tuning.walk_cost * walks + tuning.window_cost * steps
    right_stop, _, _, complete = _scan_window(above, 1, left_stop, window, path, max_work, tuning)
    return left_stop, left_stop, right_stop, complete


@njit(cache=True, nogil=True, inline="always")
def _scan_node(f, cutoff, tables, path, feat_x0, feat_radius, kept, keep, tuning):
    """One node's gap and (H) candidates from the sorted rows (see :func:`correct_tree_sorted`).

    ``f`` and ``cutoff``: the node's feature and :func:`_cutoff`; ``tables``:
    :class:`SortedTables`; ``path``: the node's :class:`_Path`. Returns ``(lo, hi,
    left_stop, right_start, right_stop, walks, window_steps)``: the candidates as
    :func:`_finish_node` takes them, and the work done (rows checked against the path,
    steps through the H windows).
    """
    order, by_feature, block_x0 = tables
    rows_f = order[f]
    by_f = by_feature[f]
    n = order.shape[1]
    # Boundary: rows [0, p) go left under the library's rule (monotone in the value).
    p = _first_above(by_f, f, cutoff, 0)
    q_lo = p - 1
    while q_lo >= 0 and not _reaches(rows_f, by_f, q_lo, path):
        q_lo -= 1
    q_hi = p
    while q_hi < n and not _reaches(rows_f, by_f, q_hi, path):
        q_hi += 1
    walks = q_hi - q_lo
    window_steps = 0
    lo = by_f[q_lo, f] if q_lo >= 0 else -np.inf
    hi = by_f[q_hi, f] if q_hi < n else np.inf
    left_stop = right_start = right_stop = 0
    if feat_x0[f] >= 0 and q_lo >= 0 and q_hi < n and lo < hi:
        window = _Window(rows_f, by_f, f, lo, hi, feat_radius[f], kept, block_x0[f])
        left_stop, w_left, r_left, _ = _scan_window(q_lo, -1, 0, window, path, np.inf, tuning)
        right_stop, w_right, r_right, _ = _scan_window(q_hi, 1, left_stop, window, path, np.inf, tuning)
        walks += w_left + w_right
        window_steps += r_left + r_right
        left_stop, right_start, right_stop = _prune_candidates(
            kept, left_stop, left_stop, right_stop, lo, hi, keep, tuning.direct_pairs
        )
    return lo, hi, left_stop, right_start, right_stop, walks, window_steps


@njit(cache=True, nogil=True)
def _scan_subtree(root, nodes, scan_tree, tables, data, budget, scratch, out, tuning):
    """Every node of the subtree at ``root`` from the sorted rows, or give up past ``budget``.

    ``nodes``: :class:`TreeNodes`; ``scan_tree``: :class:`_ScanTree`; ``tables``:
    :class:`SortedTables`; ``data``: :class:`KleinData` (``feat_x0``, ``feat_radius``
    and ``rule`` are read); ``scratch``: :class:`_Scratch` (``kept`` and ``keep`` of at
    least the subtree's rows, the others of at least the tree's nodes plus one);
    ``out``: :class:`_Corrected`, written for the subtree's nodes.

    Nodes are taken depth first. Returns ``(complete, work)``, ``work`` in rows routed
    through one node (``tuning.walk_cost`` per walk, ``tuning.window_cost`` per window
    step); ``complete`` is ``False`` once the work exceeds ``budget``, and the
    subtree's nodes written so far are then to be written again by the caller.
    """
    left, right, feature, threshold = nodes
    parent, cutoffs, in_set = scan_tree
    feat_x0 = data.feat_x0
    feat_radius = data.feat_radius
    rule = data.rule
    kept, keep, stack, path_feature, path_cutoff, path_left = scratch
    new_threshold, nearest, status = out
    walk_cost = tuning.walk_cost
    window_cost = tuning.window_cost
    walks = 0
    window_steps = 0
    stack[0] = root
    depth = 1
    while depth > 0:
        depth -= 1
        node = stack[depth]
        if left[node] == -1:
            continue
        depth_of_node = _path_to(node, left, parent, feature, cutoffs, path_feature, path_cutoff, path_left)
        path = _Path(path_feature, path_cutoff, path_left, depth_of_node, in_set)
        lo, hi, left_stop, right_start, right_stop, node_walks, node_steps = _scan_node(
            feature[node], cutoffs[node], tables, path, feat_x0, feat_radius, kept, keep, tuning
        )
        walks += node_walks
        window_steps += node_steps
        work = walk_cost * walks + window_cost * window_steps
        if work > budget:
            return False, work
        new_threshold[node], nearest[node], status[node] = _finish_node(
            threshold[node],
            lo,
            hi,
            rule,
            feat_x0[feature[node]] >= 0,
            kept,
            left_stop,
            right_start,
            right_stop,
            tuning.max_pairs,
        )
        stack[depth] = right[node]
        stack[depth + 1] = left[node]
        depth += 2
    return True, walk_cost * walks + window_cost * window_steps


@njit(cache=True, nogil=True)
def correct_tree_sorted(nodes, in_set, tables, data, budget, tuning):
    """Maximum-margin thresholds for one shallow tree without routing every row.

    Routing costs ``O(n_rows)`` per tree level. But a node's gap only involves the
    node's rows whose values are nearest the threshold: in the rows sorted by the
    node's feature (shared by every tree of the model), the largest value sent left
    is that of the first row below the library's boundary that reaches the node, and
    the smallest sent right that of the first row above it. Scanning out from the
    boundary until a row reaches the node examines about the inverse of the share of
    rows the node holds (a few rows near the root, a few dozen at depth five), each a
    walk up the tree that usually stops after one or two comparisons, on features
    stored in that same sorted order (sequential reads). For an H feature the scan
    goes on through the window where candidates can lie (see
    :func:`_partition_gap_hyperbolic`): rows further out are further from the
    boundary in ratio, so once ``R (lo - r)`` exceeds the bound on the nearest row's
    far-end value, no further row can be a candidate or lower the bound, and the scan
    stops with the exact candidate set. :func:`correct_tree` scans subtrees this way too.

    Parameters
    ----------
    nodes : TreeNodes
    in_set : ndarray of shape (n_samples,) or (0,), bool
        The tree's rows (empty: every row).
    tables : SortedTables
        ``order`` (n_features, n_samples): each feature's rows in increasing order of
        value; ``by_feature`` (n_features, n_samples, n_features + 1):
        ``by_feature[f, q, :n_features]`` the features of row ``order[f, q]``, the last
        column its ``x0`` when ``f`` is an H feature; ``block_x0`` (n_features,
        ceil(n_samples / 2 ** tuning.block_shift)): the smallest ``x0`` of each block of
        each H feature's order (see :func:`sort_rows`).
    data : KleinData
        ``feat_x0``, ``feat_radius`` and ``rule`` are read (each row's ``x0`` comes from
        the tables).
    budget : float
        Largest work, in rows routed through one node (the unit of
        :func:`correct_tree`'s cost). A tree that needs more (a deep one, a node
        holding a tiny, clustered set of rows, or wide H windows from far points) is
        given up: ``ok`` is ``False`` and the caller routes it instead.
    tuning : KernelTuning

    Returns
    -------
    new_threshold, nearest, status : ndarray of shape (n_nodes,)
        As in :func:`correct_tree_from_leaves`.
    ok : bool
    work : float
        The work done, in the budget's unit.
    """
    left, right, _, threshold = nodes
    n_nodes = left.shape[0]
    n = tables.order.shape[1]
    out = _Corrected(threshold.copy(), np.full(n_nodes, np.nan), np.full(n_nodes, -1, dtype=np.int8))
    parent, cutoffs = _parents_and_cutoffs(left, right, threshold, data.rule)
    if in_set.shape[0] == 0:
        in_set = np.ones(n, dtype=np.bool_)
    # A node's candidates are among its rows: buffers of n rows never overflow.
    scratch = _Scratch(
        np.empty((2, n)),
        np.empty(n, dtype=np.bool_),
        np.empty(n_nodes + 1, dtype=np.int64),
        np.empty(n_nodes, dtype=np.int64),
        np.empty(n_nodes),
        np.empty(n_nodes, dtype=np.bool_),
    )
    ok, work = _scan_subtree(0, nodes, _ScanTree(parent, cutoffs, in_set), tables, data, budget, scratch, out, tuning)
    return out.new_threshold, out.nearest, out.status, ok, work
