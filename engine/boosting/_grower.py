"""Leaf-wise growth of one boosted tree on the binned split planes.

As scikit-learn's HistGradientBoosting grower: the root's histogram is built from
all rows, then the leaf whose best split has the largest gain is split next, until
``max_leaf_nodes`` leaves exist, no leaf has a split with a positive gain, or the
leaves reach ``max_depth`` or hold fewer than ``2 * min_samples_leaf`` rows. Of two
new children only the smaller one's histogram is built from its rows; the larger
one's is the parent's minus the smaller's.

A split chosen on bins is then given its geometric boundary (:func:`split_node`,
which partitions the node's rows and lists the ones that can be nearest to the
boundary in the same pass): by default the maximum-margin boundary between the
node's nearest training rows on the two sides (``curvedtrees.trees._margin``, the
product trees' rule), so predictions do not depend on where bin edges fell; or, with
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
    RADIAL,
    TIMELIKE,
    Tree,
    circular_direction,
    hyperbolic_threshold,
    lift_threshold,
    node_margins,
    radial_gap,
    radial_threshold,
)
from ._binning import rotated_axial
from ._histogram import HistogramCodes, build_histograms, find_split, node_value, subtract_histograms

__all__ = ["GrowerOptions", "GrowthData", "grow_tree", "partition_rows", "split_node"]

# scikit-learn's min_hessian_to_split: a child whose hessians sum to less is not
# created (with log loss, a nearly pure child would get a huge Newton step).
MIN_HESSIAN_TO_SPLIT = 1e-3


@njit(cache=True, nogil=True, inline="always")
def _code_goes_left(code, circular, half, position):
    """Side of a code: ordered ``code <= position``; circular: outside the half-turn window.

    The window ``position .. position + half - 1`` never wraps past the last code
    (``position < half``), so two comparisons decide (a remainder per row cost more
    than the rest of the partition); the origin code ``2 half`` lies outside it: the
    plane's origin lies on every line through it and goes left.
    """
    if circular:
        return not (position <= code < position + half)
    return code <= position


@njit(cache=True, nogil=True)
def partition_rows(codes, rows, start, end, f, circular, half, position, buffer):
    """Stable partition of ``rows[start:end]`` by a split on bins; returns the first right position."""
    nothing = np.full(2 * half + 1, np.inf)  # no code's floor is below 0: no row is listed
    mid, _ = _partition_listing(
        codes[f], rows, start, end, circular, half, position, buffer, nothing, nothing, False, np.empty(0),
        np.empty((0, 0)), 0, 0, 0.0, buffer,
    )  # fmt: skip
    return mid


@njit(cache=True, nogil=True)
def _partition_listing(
    code, rows, start, end, circular, half, position, buffer, code_floor, code_bound, weighted, radius, X, col_i, col_j,
    upper, listed,
):  # fmt: skip
    """Stable partition of ``rows[start:end]`` that also lists the rows that may be nearest to the boundary.

    Parameters
    ----------
    code : ndarray of shape (n_samples,), uint16
        The split plane's codes.
    rows : ndarray of shape (n_samples,), int64
        Partitioned in place: left rows first, each side in its previous order.
    buffer : ndarray of shape (>= end - start,), int64
        Scratch for the right rows.
    code_floor, code_bound, weighted, radius, X, col_i, col_j, upper
        Row ``r`` with code ``c`` is listed when ``code_floor[c] <= upper`` and, if
        ``weighted``, ``radius_r * code_bound[c] <= upper``, where ``radius_r`` is
        ``radius[r]``, or when ``radius`` is empty :func:`row_radius` of ``X`` (computed,
        not stored: 8 bytes per row and circular plane saved). ``code_floor[c]`` must
        be at most every ``radius_r * code_bound[c]`` of the code's rows (then the radius
        is computed only for the codes that can pass). NaN is never listed.
    listed : ndarray of shape (>= end - start,), int64
        Output: the listed row ids, in the rows' order before the partition.

    Returns
    -------
    mid : int
        The first right position.
    n_listed : int
    """
    n_left = 0
    n_right = 0
    n_listed = 0
    stored = radius.shape[0] > 0
    for i in range(start, end):
        r = rows[i]
        c = code[r]
        # Written to both places, kept by one counter: no branch to mispredict on the
        # coin-flip side of each row. rows[start + n_left] is never ahead of i.
        left = _code_goes_left(c, circular, half, position)
        rows[start + n_left] = r
        buffer[n_right] = r
        n_left += left
        n_right += 1 - left
        # The listing shares the pass (the rows of a node are read once per split, not
        # once for the partition and again for the boundary); its branch is rarely taken.
        if code_floor[c] <= upper and (
            not weighted or (radius[r] if stored else row_radius(X, r, col_i, col_j)) * code_bound[c] <= upper
        ):
            listed[n_listed] = r
            n_listed += 1
    for k in range(n_right):
        rows[start + n_left + k] = buffer[k]
    return start + n_left, n_listed


# Only rows with x0 >= this fraction of the radius R are assumed; on the hyperboloid
# x0 >= R exactly, and half of it leaves room for rows validated within a relative
# tolerance (CHECK_RTOL) or passed with check_input=False.
_X0_FLOOR = 0.5


@njit(cache=True, nogil=True)
def _timelike_bins(X, code, near, last_left, col_i, col_j, first_right, thresholds, thr_lo, half, radius):
    """Codes whose rows may be nearest to a timelike boundary: ``(keep_left, keep_right)``.

    ``near`` lists the rows of the two bins next to the split (``last_left``, left, and
    ``first_right``, right). ``hyperbolic_threshold`` keeps a left row only if its value
    at ``t_lo``, ``x0 (t_lo - rho)``, is at most the smallest left value at ``t_hi``;
    rows of the bins next to the split bound that smallest value above (``U``), and a
    row in a bin whose upper edge is ``e`` has a value of at least ``x0_min (t_lo - e)``.
    So only left codes whose edge reaches ``t_lo - U / x0_min`` can hold candidates
    (mirrored on the right). The pruned rows could not be nearest anywhere: the result
    is unchanged.
    """
    t_lo = -np.inf
    t_hi = np.inf
    for q in range(near.shape[0]):
        r = near[q]
        if code[r] == last_left:
            t_lo = max(t_lo, X[r, col_j] / X[r, col_i])
        else:
            t_hi = min(t_hi, X[r, col_j] / X[r, col_i])
    upper_left = np.inf
    upper_right = np.inf
    for q in range(near.shape[0]):
        r = near[q]
        if code[r] == last_left:
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
def split_node(
    X,
    values,
    codes,
    counts,
    rows,
    start,
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
    geometry,
    radius,
    plane_radius,
    code_min_radius,
    max_margin,
    buffer,
    listed,
):
    """Partition a node's rows by a split on bins, and place the split's boundary.

    The boundary is found from the rows that can be nearest to it, listed in the same
    pass as the partition (lift and timelike planes: the rows of the two bins next to
    the split; circular planes: the rows whose distance bound reaches the best margin,
    which needs one pass before the partition).

    Parameters
    ----------
    X : ndarray of shape (n_samples, ambient_dim)
    values : ndarray of shape (n_samples,)
        Plane ``f``'s values (``SplitFeatures.values``) where the boundary reads them:
        lift, radial and circular planes (empty for timelike planes, whose boundary
        reads ``X``).
    codes : ndarray of shape (n_features, n_samples), uint16
    counts : ndarray of shape (n_bins,)
        The node's row count per bin of plane ``f`` (its histogram's count column).
    rows : ndarray of shape (n_samples,), int64
        ``rows[start:end]`` are the node's rows; partitioned in place (left rows first,
        each side in its previous order).
    f, kind, col_i, col_j : int
        The plane and its kind and ambient columns.
    cut : float
        The plane's rotation before binning (circular planes).
    half, position : int
        The plane's ordered (or axial) bin count and the split's bin (or window start).
    thresholds : ndarray
        The plane's inner bin thresholds start at ``thresholds[thr_lo]``.
    geometry : int
        The plane's component's ``GEOMETRY_CODES`` (0 E, 1 H, 2 S): where a radial
        threshold is placed.
    radius : float
        ``1 / sqrt|K|`` of the plane's component (bounds ``x_0`` below on H; a radial
        plane's distances).
    plane_radius : ndarray of shape (n_samples,) or (0,)
        Circular planes: each row's distance from the plane's origin; empty: computed
        from ``X`` (:func:`row_radius`) where needed.
    code_min_radius : ndarray of shape (2 * half + 1,)
        Circular planes: the smallest such radius of the rows of each code (over
        every row that ``rows`` can hold; infinity for a code without rows).
    max_margin : bool
        Maximum-margin boundary (True) or the bin edge (False).
    buffer, listed : ndarray of shape (>= end - start,), int64
        Scratch.

    Returns
    -------
    mid : int
        The first right position: the left child's rows are ``rows[start:mid]``.
    threshold, normal_i, normal_j, plane_margin : float
        As the product trees store them: ``threshold`` on ``x_j`` (lift, radial) or
        ``x_j / x_0`` (timelike), NaN for circular planes; the unit normal of the line in
        the plane (a radial split's is the lift's); the smallest ``|<x, n>|`` over the
        node's rows (see ``_margin.geodesic_margin``), or for a radial split the geodesic
        distance from its boundary to the nearest row.
    """
    code = codes[f]
    if kind == CIRCULAR:
        if max_margin:
            return _split_circular(
                X,
                values,
                code,
                counts,
                rows,
                start,
                end,
                col_i,
                col_j,
                cut,
                half,
                position,
                thresholds,
                thr_lo,
                plane_radius,
                code_min_radius,
                buffer,
                listed,
            )
        mid = partition_rows(codes, rows, start, end, f, True, half, position, buffer)
        phi = cut + (0.0 if position == 0 else thresholds[thr_lo + position - 1])
        n_i = -math.sin(phi)
        n_j = math.cos(phi)
        margin = np.inf
        for i in range(start, end):
            r = rows[i]
            if X[r, col_i] != 0.0 or X[r, col_j] != 0.0:
                margin = min(margin, abs(n_i * X[r, col_i] + n_j * X[r, col_j]))
        return mid, np.nan, n_i, n_j, margin
    # The extreme values of each side lie in its occupied bin nearest the split (the
    # node's histogram says which): list only the rows of those two bins.
    last_left = position
    while last_left > 0 and counts[last_left] == 0.0:
        last_left -= 1
    first_right = position + 1
    while first_right < half - 1 and counts[first_right] == 0.0:
        first_right += 1
    if kind == TIMELIKE and not max_margin:
        mid = partition_rows(codes, rows, start, end, f, False, half, position, buffer)
        t = thresholds[thr_lo + position]
        smallest = np.inf
        for i in range(start, end):  # every row counts towards the margin
            r = rows[i]
            smallest = min(smallest, abs(X[r, col_j] - t * X[r, col_i]))
        scale = math.hypot(t, 1.0)
        return mid, t, -t / scale, 1.0 / scale, smallest / math.sqrt(1.0 - t * t)
    code_floor = np.full(half, np.inf)
    code_floor[last_left] = 0.0
    code_floor[first_right] = 0.0
    mid, n_near = _partition_listing(
        code, rows, start, end, False, half, position, buffer, code_floor, code_floor, False, np.empty(0),
        np.empty((0, 0)), 0, 0, 0.0, listed,
    )  # fmt: skip
    near = listed[:n_near]
    if kind == LIFT or kind == RADIAL:
        lo = -np.inf
        hi = np.inf
        for q in range(n_near):
            r = near[q]
            if code[r] == last_left:
                lo = max(lo, values[r])
            else:
                hi = min(hi, values[r])
        if kind == RADIAL:
            # Halfway in the geometry's own distance from the origin (or angle from the pole).
            if max_margin:
                t, margin = radial_threshold(lo, hi, geometry, radius)
            else:
                t = thresholds[thr_lo + position]
                margin = radial_gap(t, lo, hi, geometry, radius)
        elif max_margin:
            t, margin = lift_threshold(lo, hi)
        else:
            t = thresholds[thr_lo + position]
            margin = min(t - lo, hi - t)
        # A radial split is routed as the lift's "x_j <= t": the same normal.
        scale = math.hypot(t, 1.0)
        return mid, t, -t / scale, 1.0 / scale, margin
    keep_left, keep_right = _timelike_bins(
        X, code, near, last_left, col_i, col_j, first_right, thresholds, thr_lo, half, radius
    )
    # The candidates, left rows first, each side in row order (the order of the rows
    # after the partition).
    if keep_left == last_left and keep_right == first_right:
        k = n_near  # only the two bins' rows, already listed
        x0 = np.empty(k)
        xj = np.empty(k)
        go_left = np.empty(k, dtype=np.bool_)
        q = 0
        for side in (True, False):
            for p in range(n_near):
                r = near[p]
                if (code[r] == last_left) == side:
                    x0[q] = X[r, col_i]
                    xj[q] = X[r, col_j]
                    go_left[q] = side
                    q += 1
    else:
        x0 = np.empty(end - start)
        xj = np.empty(end - start)
        go_left = np.empty(end - start, dtype=np.bool_)
        k = 0
        for i in range(start, end):
            r = rows[i]
            c = code[r]
            if (i < mid and c >= keep_left) or (i >= mid and c <= keep_right):
                x0[k] = X[r, col_i]
                xj[k] = X[r, col_j]
                go_left[k] = i < mid
                k += 1
    t, margin = hyperbolic_threshold(x0[:k], xj[:k], go_left[:k])
    scale = math.hypot(t, 1.0)
    return mid, t, -t / scale, 1.0 / scale, margin


@njit(cache=True, nogil=True)
def _split_circular(
    X,
    angle,
    code,
    counts,
    rows,
    start,
    end,
    col_i,
    col_j,
    cut,
    half,
    position,
    thresholds,
    thr_lo,
    plane_radius,
    code_min_radius,
    buffer,
    listed,
):
    """:func:`split_node` for a circular plane with the maximum-margin boundary.

    The feasible directions lie between the largest axial key below the split's
    boundary and the smallest one above it (across the cut if a side is empty). Those
    keys sit in the occupied axial bins next to the boundary: a first pass finds them
    and the rows of those bins, which bound the best margin above; the partition then
    lists the rows whose distance bound reaches it (see :func:`_circular_bounds`).
    """
    a_below, a_above, a_min, a_max = -1, half, half, -1
    for a in range(half):
        if counts[a] + counts[a + half] > 0.0:  # rows at the origin (code 2 half) never count
            a_min = min(a_min, a)
            a_max = max(a_max, a)
            if a < position:
                a_below = max(a_below, a)
            else:
                a_above = min(a_above, a)
    # The rows of those bins, listed without a branch per row (each row is written at
    # the end of the list, which grows only for the listed ones).
    n_near = 0
    for i in range(start, end):
        r = rows[i]
        c = np.int64(code[r])
        a = c - half if c >= half else c
        in_bins = (a == a_below) | (a == a_above) | (a == a_min) | (a == a_max)
        buffer[n_near] = r
        n_near += in_bins & (c != 2 * half)  # rows at the origin (code 2 half) never count
    below = -np.inf
    above = np.inf
    smallest = np.inf
    largest = -np.inf
    for q in range(n_near):
        r = buffer[q]
        c = np.int64(code[r])
        a = c - half if c >= half else c
        v = rotated_axial(angle[r], cut)[1]
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
    upper, code_bound = _circular_bounds(
        X, angle, col_i, col_j, half, buffer[:n_near], below, above, cut, thresholds, thr_lo
    )
    # The smallest radius of each code's rows in the whole fit bounds every row's test
    # from below: about 99% of a node's rows are then passed without reading their radius.
    code_floor = code_min_radius * code_bound
    mid, k = _partition_listing(
        code, rows, start, end, True, half, position, buffer, code_floor, code_bound, True, plane_radius, X, col_i,
        col_j, upper, listed,
    )  # fmt: skip
    xi = np.empty(k)
    xj = np.empty(k)
    go_left = np.empty(k, dtype=np.bool_)
    q = 0
    for side in (True, False):  # left rows first, each side in row order
        for p in range(k):
            r = listed[p]
            if _code_goes_left(code[r], True, half, position) == side:
                xi[q] = X[r, col_i]
                xj[q] = X[r, col_j]
                go_left[q] = side
                q += 1
    phi, margin = circular_direction(xi, xj, go_left, below + cut, above + cut)
    return mid, np.nan, -math.sin(phi), math.cos(phi), margin


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
def _circular_bounds(X, angle, col_i, col_j, half, near, below, above, cut, thresholds, thr_lo):
    """Which rows may be nearest to a circular boundary: ``(upper, code_bound)``.

    A row at distance ``r`` from the plane's origin, whose direction is at least
    ``delta`` (mod pi) from every direction of the feasible arc, is at least
    ``r sin(delta)`` from every line in it; the rows of the bins next to the boundary
    (``near``, row ids) bound the best margin above (``upper``: the smallest of their
    largest distances over the arc). A row whose bound exceeds ``upper`` is never the
    nearest, so ``circular_direction`` gives the same line without it. ``code_bound[c]``
    is ``sin(delta)`` of code ``c``'s axial bin, and NaN (never listed) for the rows at
    the plane's origin.
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
    code_bound = np.empty(2 * half + 1)
    for a in range(half):
        lo = 0.0 if a == 0 else thresholds[thr_lo + a - 1]
        hi = math.pi if a == half - 1 else thresholds[thr_lo + a]
        code_bound[a] = math.sin(_axial_gap(lo, hi, below, above)) * _BOUND_SLACK
        code_bound[a + half] = code_bound[a]
    code_bound[2 * half] = np.nan
    return upper, code_bound


@njit(cache=True, nogil=True, inline="always")
def row_radius(X, r, col_i, col_j):
    """A row's distance from the origin of the plane of columns ``col_i, col_j``."""
    return math.hypot(X[r, col_i], X[r, col_j])


@njit(cache=True, nogil=True)
def code_min_radius(code, X, col_i, col_j, n_codes):
    """Smallest :func:`row_radius` of the rows of each code, shape (n_codes,); infinity for a code without rows."""
    out = np.full(n_codes, np.inf)
    for r in range(code.shape[0]):
        c = code[r]
        out[c] = min(out[c], row_radius(X, r, col_i, col_j))
    return out


@njit(cache=True, nogil=True)
def code_minimum(code, values, n_codes):
    """Smallest of ``values`` over the rows of each code, shape (n_codes,); infinity for a code without rows."""
    out = np.full(n_codes, np.inf)
    for r in range(code.shape[0]):
        c = code[r]
        out[c] = min(out[c], values[r])
    return out


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


def growth_nbytes(features, n_samples: int) -> int:
    """Bytes :class:`GrowthData` holds per fit for its planes: codes, histogram codes, angles.

    Per row and plane a uint16 code and its one-byte histogram code (plus a half-turn
    bit), and per row and circular plane its float64 angle; what the fit checks with
    ``SplitFeatures.check_memory`` before binning.
    """
    n = int(n_samples)
    n_circular = int(np.count_nonzero(features.kind == CIRCULAR))
    return features.n_features * (3 * n + (n + 7) // 8) + 8 * n_circular * n


class GrowthData:
    """What every tree of a fit reads: rows, plane values, codes and bins.

    Parameters
    ----------
    X : ndarray of shape (n_samples, ambient_dim), float64
    features : SplitFeatures
    bins : PlaneBins

    Attributes
    ----------
    codes : ndarray of shape (n_features, n_samples), uint16
        Feature-major: a split reads one plane's codes. The histograms read them one
        byte per row and plane (``hist_codes``, :class:`HistogramCodes`).
    plane_values : list of ndarray of shape (n_samples,)
        What a split of each plane reads of its rows' values: a lift or radial plane's column of
        ``X`` (a view), a circular plane's angles, nothing for a timelike plane (its
        boundary reads ``X``). The values of every plane are never held at once.
    """

    def __init__(self, X, features, bins):
        self.X = X
        circular = np.flatnonzero(features.kind == CIRCULAR)
        angles = np.empty((circular.size, X.shape[0]))
        codes = bins.transform_rows(features, X, angles)
        self.codes = codes
        self.plane_values = [np.empty(0)] * features.n_features
        for f in range(features.n_features):
            if features.kind[f] == LIFT or features.kind[f] == RADIAL:
                self.plane_values[f] = X[:, features.col_j[f]]
        for k, f in enumerate(circular):
            self.plane_values[f] = angles[k]
        self.hist_codes = HistogramCodes(codes, bins.kind, bins.half)
        self.features = features
        self.bins = bins
        # Row ids in 32 bits when they fit: half the memory and traffic of the partitions.
        index = np.int32 if X.shape[0] < 2**31 else np.int64
        self.rows = np.arange(X.shape[0], dtype=index)
        # Scratch of the partitions (allocated once per fit: a fresh array per split
        # paid its page faults again at every large node).
        self.buffer = np.empty(X.shape[0], dtype=index)
        self.listed = np.empty(X.shape[0], dtype=index)
        # A gathered histogram is a smaller child's: at most half of its parent's rows.
        self.ordered = np.empty((X.shape[0] // 2 + 1, 2), dtype=np.float32)
        # Each row's distance from the origin of every circular plane (bounds its distance
        # from a line through that origin); linear planes get an empty placeholder.
        # Circular planes: the smallest distance from the plane's origin of each code's
        # rows (bounds a row's distance from a line through it); each row's own radius is
        # computed where a split needs it.
        self.code_min_radius = [
            code_min_radius(codes[f], X, int(features.col_i[f]), int(features.col_j[f]), 2 * int(bins.half[f]) + 1)
            if features.kind[f] == CIRCULAR
            else np.empty(0)
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


def grow_tree(data: GrowthData, gh: np.ndarray, constant_hessian: bool, options: GrowerOptions):
    """Grow one tree on the gradients and hessians of every row.

    Parameters
    ----------
    data : GrowthData
    gh : ndarray of shape (n_samples, 2), float32
        Each row's gradient and hessian.
    constant_hessian : bool
        Every hessian is 1: the root's hessian sum is its row count.
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
    build_histograms(data.hist_codes, rows, 0, n, gh, bins.bin_offsets, hist, data.ordered, in_order=True)
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
        half = int(bins.half[f])
        lo_bin, hi_bin = bins.bin_offsets[f], bins.bin_offsets[f + 1]
        mid, threshold, normal_i, normal_j, plane_margin = split_node(
            data.X,
            data.plane_values[f],
            codes,
            node.hist[lo_bin:hi_bin, 2],
            rows,
            node.start,
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
            int(features.geometry[f]),
            float(features.radius[f]),
            np.empty(0),
            data.code_min_radius[f],
            options.max_margin,
            data.buffer,
            data.listed,
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
                data.hist_codes, rows, small.start, small.end, gh, bins.bin_offsets, small_hist, data.ordered
            )
            subtract_histograms(parent_hist, small_hist, parent_hist)  # the parent's buffer becomes the sibling's
            hists = {small.id: small_hist, large.id: parent_hist}
            if split_left:
                consider(left, hists[left.id])
            if split_right:
                consider(right, hists[right.id])

    count = len(arrays["left"])
    feature = np.asarray(arrays["feature"], dtype=np.int64)
    margin = node_margins(
        features, np.asarray(arrays["left"], dtype=np.int64), feature, np.asarray(arrays["margin"], dtype=np.float64)
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
