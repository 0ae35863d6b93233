"""Compiled tree construction: split search, criteria and the depth-first builder.

Layers, as in scikit-learn's tree module:

* criterion: running weighted statistics of the two children (class counts or
  target sums) with an O(1) update when one sample changes side, and a cheap proxy
  of the impurity improvement used to rank candidates;
* split search (:func:`_best_split`): for each sampled feature, sort the node's
  values and sweep. Linear features (lift / timelike) sweep a threshold like CART.
  Circular features sweep a line through the origin through a half-turn: points are
  sorted by direction angle modulo pi and each changes side exactly once, so every
  distinct partition is scored in O(m log m). Radial features (one coordinate of an
  H or S component) sweep exactly like a lift feature;
* boundary (:func:`_place_boundary`): the chosen partition's maximum-margin line
  (curvedtrees.trees._margin), after which the node's samples are partitioned with the
  very predicate used at prediction time, so training and routing agree by
  construction;
* builder (:func:`build_tree`): depth-first, node 0 the root, nodes numbered in the
  order they are created (which is also the order their splits were chosen).

Everything here is compiled with numba and releases the GIL, so forests can train
trees in threads.

A fit compiles only the code of its own task. The compiled functions receive the task
as arguments that are an array or None: ``y_code`` (None in regression), ``y_value``
(None in classification), ``entropy`` (None unless the criterion is entropy), and
``geometry`` and ``radius`` (None without radial features). Each task's code is guarded
by ``is not None`` on the argument that is None in the other tasks: numba resolves a
test of a None argument before it types the code and drops the dead branch (it resolves
none on an array or a number), so a gini classifier without radial features compiles no
regression, entropy or radial code. Compiling is most of a cold first fit.
"""

from __future__ import annotations

import math
import threading

import numpy as np
from numba import njit

from ._features import CIRCULAR, LIFT, RADIAL, TIMELIKE
from ._interrupt import BuildCancelled, new_cancel_flag, run_interruptible
from ._jit import inner_kernel  # kernels with no Python entry point: never call them from Python
from ._margin import circular_direction, hyperbolic_threshold, lift_threshold, radial_threshold
from ._sort import sort_with_index

GINI, ENTROPY, SQUARED_ERROR = 0, 1, 2
CRITERIA = {"gini": GINI, "entropy": ENTROPY, "log_loss": ENTROPY, "squared_error": SQUARED_ERROR}

# Impurity at or below this is treated as pure (scikit-learn's EPSILON): the node
# becomes a leaf instead of searching for a split that cannot improve anything.
_PURE = np.finfo(np.float64).eps
_RAND_R_MAX = 0x7FFFFFFF
_MASK32 = 0xFFFFFFFF
_NO_SPLIT = -1
_CANCELLED = -2  # _best_split's feature when the cancel flag was raised during the search
# build_tree's status: the tree is complete, or the build stopped at a raised cancel flag.
BUILT, CANCELLED = 0, 1
# Columns of the builder's node tables (see _build_tree).
_LEFT, _RIGHT, _FEATURE, _N_NODE = 0, 1, 2, 3
_INT_FIELDS = 4
_THRESHOLD, _NORMAL_I, _NORMAL_J, _IMPURITY, _W_NODE, _PLANE_MARGIN, _IMPROVEMENT = 0, 1, 2, 3, 4, 5, 6
_FLOAT_FIELDS = 7


# --------------------------------------------------------------------------- RNG
@inner_kernel
def _rand_int(state, low, high):
    """Uniform integer in ``[low, high)`` from a 32-bit xorshift held in ``state[0]``.

    A private generator per tree (seeded from ``random_state``) keeps results
    independent of threads and of any global random state.
    """
    seed = state[0]
    seed ^= (seed << 13) & _MASK32
    seed ^= seed >> 17
    seed ^= (seed << 5) & _MASK32
    state[0] = seed
    return low + (seed % (_RAND_R_MAX + 1)) % (high - low)


# --------------------------------------------------------------------- criterion
@njit(cache=True, nogil=True, inline="always")
def _xlogx(x):
    # 0 log 0 = 0 by continuity; weights are never negative.
    return x * math.log(x) if x > 0.0 else 0.0


@inner_kernel
def _node_impurity(y_code, y_value, entropy, stats, weight, sum_sq):
    """Impurity of a node from its class weights (or target sum) and total weight.

    ``y_code``, ``y_value`` and ``entropy`` select the criterion (see the module's docstring).
    """
    if weight <= 0.0:
        return 0.0
    if y_code is not None and entropy is None:  # gini
        acc = 0.0
        for c in range(stats.shape[0]):
            acc += stats[c] * stats[c]
        return 1.0 - acc / (weight * weight)
    if y_code is not None and entropy is not None:
        acc = 0.0
        for c in range(stats.shape[0]):
            if stats[c] > 0.0:
                p = stats[c] / weight
                acc -= p * math.log2(p)
        return acc
    if y_value is not None:  # squared error
        mean = stats[0] / weight
        # Variance as E[y^2] - E[y]^2 can come out a hair below zero through rounding.
        return max(sum_sq / weight - mean * mean, 0.0)
    return 0.0  # not reached: y_code or y_value is an array


@njit(cache=True, nogil=True, inline="always")
def _move(y_code, y_value, entropy, code, target, weight, stats_from, stats_to):
    """Move one sample between children; returns the changes of the two running terms.

    For gini the running term ``q`` of a child is the sum of its squared class
    weights, for entropy the sum of ``w log w`` over classes (both updated in O(1));
    regression keeps target sums only and returns zeros.
    """
    if y_value is not None:  # squared error
        stats_from[0] -= weight * target
        stats_to[0] += weight * target
        return 0.0, 0.0
    if y_code is None:
        return 0.0, 0.0  # not reached: y_code or y_value is an array
    old_f = stats_from[code]
    old_t = stats_to[code]
    new_f = old_f - weight
    new_t = old_t + weight
    stats_from[code] = new_f
    stats_to[code] = new_t
    if entropy is None:
        return new_f * new_f - old_f * old_f, new_t * new_t - old_t * old_t
    return _xlogx(new_f) - _xlogx(old_f), _xlogx(new_t) - _xlogx(old_t)


@njit(cache=True, nogil=True, inline="always")
def _proxy(y_code, y_value, entropy, stats_l, stats_r, w_l, w_r, q_l, q_r):
    """A monotone proxy of the impurity improvement (larger is better).

    Equals ``-(w_l * impurity_l + w_r * impurity_r)`` up to terms that are constant
    within a node, so it ranks candidates exactly as the improvement does.
    """
    if y_code is not None and entropy is None:  # gini
        return q_l / w_l + q_r / w_r
    if y_code is not None and entropy is not None:
        return q_l - _xlogx(w_l) + q_r - _xlogx(w_r)
    if y_value is not None:  # squared error
        return stats_l[0] * stats_l[0] / w_l + stats_r[0] * stats_r[0] / w_r
    return 0.0  # not reached: y_code or y_value is an array


@inner_kernel
def _init_q(y_code, entropy, stats):
    q = 0.0  # squared error keeps no running term
    if y_code is not None and entropy is None:  # gini
        for c in range(stats.shape[0]):
            q += stats[c] * stats[c]
    if y_code is not None and entropy is not None:
        for c in range(stats.shape[0]):
            q += _xlogx(stats[c])
    return q


# ------------------------------------------------------------------ split search
@inner_kernel
def _gather_sorted(V, f, kind, samples, start, end, keys, idx):
    """Fill ``keys/idx[0:m]`` with the node's sort keys for feature ``f``, sorted.

    Linear features sort by value. Circular features sort by direction angle modulo
    pi; points at the plane's origin are left out and their count is returned (they
    stay on the left of every line, see :func:`_goes_left`).
    """
    # int64, not Literal[int](0): a literal count would compile a second sort_with_index.
    m = np.int64(0)
    n_origin = 0
    if kind == CIRCULAR:
        for p in range(start, end):
            s = samples[p]
            angle = V[f, s]
            if angle < 0.0:
                n_origin += 1
                continue
            keys[m] = angle - math.pi if angle >= math.pi else angle
            idx[m] = s
            m += 1
    else:
        for p in range(start, end):
            s = samples[p]
            keys[m] = V[f, s]
            idx[m] = s
            m += 1
    sort_with_index(keys, idx, 0, m)
    return m, n_origin


@inner_kernel
def _best_split(
    V,
    kinds,
    samples,
    start,
    end,
    y_code,
    y_value,
    entropy,
    w,
    node_stats,
    node_weight,
    min_samples_leaf,
    max_features,
    rng,
    feat_order,
    keys,
    idx,
    stats_l,
    stats_r,
    cancel,
):
    """Search the sampled features for the best partition of ``samples[start:end]``.

    Returns ``(feature, position, proxy)``; ``feature == -1`` if no valid split exists,
    ``-2`` if ``cancel[0]`` was raised (checked after each feature's sort, the step that
    dominates a large node: about 0.1 s per feature at 10^6 rows).
    ``position`` is the number of sorted points that moved (see :func:`_partition_of`).
    """
    n_features = kinds.shape[0]
    best_feature = _NO_SPLIT
    best_pos = 0
    best_proxy = -np.inf
    n_visited = 0
    k = np.int64(0)  # (see m in _gather_sorted)
    while k < n_features and n_visited < max_features:
        # Draw the next feature without replacement (partial Fisher-Yates shuffle).
        r = _rand_int(rng, k, n_features)
        feat_order[k], feat_order[r] = feat_order[r], feat_order[k]
        f = feat_order[k]
        k += 1
        kind = kinds[f]
        m, n_origin = _gather_sorted(V, f, kind, samples, start, end, keys, idx)
        if cancel[0] != 0:
            return _CANCELLED, 0, best_proxy
        if m == 0 or (keys[m - 1] <= keys[0] and kind != CIRCULAR):
            continue  # constant feature: does not count towards max_features
        if kind == CIRCULAR and keys[m - 1] <= keys[0] and n_origin == 0:
            # One direction only: the single candidate separates the two half-lines.
            same_side = True
            first = V[f, idx[0]] >= math.pi
            for q in range(1, m):
                if (V[f, idx[q]] >= math.pi) != first:
                    same_side = False
                    break
            if same_side:
                continue
        n_visited += 1
        n_total = end - start
        # Start state: linear features with everything on the right; circular features
        # with the line just before the smallest angle (lower half-plane and origin left).
        for c in range(stats_l.shape[0]):
            stats_l[c] = 0.0
            stats_r[c] = node_stats[c]
        w_l = 0.0
        w_r = node_weight
        n_l = 0
        if kind == CIRCULAR:
            for p in range(start, end):
                s = samples[p]
                angle = V[f, s]
                if angle < 0.0 or angle >= math.pi:
                    if y_code is not None:
                        stats_l[y_code[s]] += w[s]
                        stats_r[y_code[s]] -= w[s]
                    if y_value is not None:
                        stats_l[0] += w[s] * y_value[s]
                        stats_r[0] -= w[s] * y_value[s]
                    w_l += w[s]
                    w_r -= w[s]
                    n_l += 1
        q_l = _init_q(y_code, entropy, stats_l)
        q_r = _init_q(y_code, entropy, stats_r)
        if kind == CIRCULAR and n_l >= min_samples_leaf and n_total - n_l >= min_samples_leaf:
            if w_l > 0.0 and w_r > 0.0:
                proxy = _proxy(y_code, y_value, entropy, stats_l, stats_r, w_l, w_r, q_l, q_r)
                if proxy > best_proxy:
                    best_proxy = proxy
                    best_feature = f
                    best_pos = 0
        for q in range(m - 1):
            s = idx[q]
            to_left = True
            if kind == CIRCULAR and V[f, s] >= math.pi:
                to_left = False
            code = y_code[s] if y_code is not None else 0
            target = y_value[s] if y_value is not None else 0.0
            if to_left:
                dq_r, dq_l = _move(y_code, y_value, entropy, code, target, w[s], stats_r, stats_l)
                w_l += w[s]
                w_r -= w[s]
                n_l += 1
            else:
                dq_l, dq_r = _move(y_code, y_value, entropy, code, target, w[s], stats_l, stats_r)
                w_l -= w[s]
                w_r += w[s]
                n_l -= 1
            q_l += dq_l
            q_r += dq_r
            if keys[q + 1] <= keys[q]:
                continue  # a line cannot pass between equal values
            if n_l < min_samples_leaf or n_total - n_l < min_samples_leaf:
                continue
            if w_l <= 0.0 or w_r <= 0.0:
                continue
            proxy = _proxy(y_code, y_value, entropy, stats_l, stats_r, w_l, w_r, q_l, q_r)
            if proxy > best_proxy:
                best_proxy = proxy
                best_feature = f
                best_pos = q + 1
    return best_feature, best_pos, best_proxy


# ---------------------------------------------------------------------- boundary
@njit(cache=True, nogil=True, inline="always")
def _goes_left(X, row, kind, col_i, col_j, threshold, normal_i, normal_j):
    """The routing predicate, shared by training and prediction.

    ``kind`` is a routing kind (:func:`routing_kinds`): a radial split arrives as ``LIFT``.
    """
    if kind == LIFT:
        return X[row, col_j] <= threshold
    if kind == TIMELIKE:
        return X[row, col_j] / X[row, col_i] <= threshold
    return normal_i * X[row, col_i] + normal_j * X[row, col_j] <= 0.0


@inner_kernel
def _place_boundary(X, V, f, kind, col_i, col_j, position, m, keys, idx, coord, side, geometry, radius):
    """Maximum-margin boundary inducing the partition found by the sweep.

    ``keys/idx[0:m]`` must hold the feature's sorted keys (:func:`_gather_sorted`);
    ``coord`` (float64) and ``side`` (bool) are scratch buffers of at least ``m``
    entries. The keys are read first and then overwritten with the second coordinate
    of the points, so a node needs one extra float per row here, not two.
    ``geometry`` and ``radius`` are ``SplitFeatures.geometry`` and ``.radius`` (read by
    radial features), or None when no feature is radial.
    Returns ``(threshold, normal_i, normal_j, plane_margin)``; a radial feature's margin
    is already the geodesic distance (``Tree.from_builder`` does not convert it).
    """
    if kind == LIFT:
        t, margin = lift_threshold(keys[position - 1], keys[position])
        scale = math.hypot(t, 1.0)
        return t, -t / scale, 1.0 / scale, margin
    if radius is not None and kind == RADIAL:
        t, margin = radial_threshold(keys[position - 1], keys[position], geometry[f], radius[f])
        # The lift's normal of "x_j <= t" in the plane (1, x_j): the same check of model
        # files and the same reading by the pictures apply.
        scale = math.hypot(t, 1.0)
        return t, -t / scale, 1.0 / scale, margin
    if position == 0:
        # The wrap-around gap: directions between the largest angle (minus pi) and the smallest.
        phi_a = keys[m - 1] - math.pi
        phi_b = keys[0]
    else:
        phi_a = keys[position - 1]
        phi_b = keys[position]
    xi = coord[:m]
    xj = keys[:m]
    go_left = side[:m]
    if kind == TIMELIKE:
        for q in range(m):
            xi[q] = X[idx[q], col_i]
            xj[q] = X[idx[q], col_j]
            go_left[q] = q < position
        t, margin = hyperbolic_threshold(xi, xj, go_left)
        scale = math.hypot(t, 1.0)
        return t, -t / scale, 1.0 / scale, margin
    for q in range(m):
        xi[q] = X[idx[q], col_i]
        xj[q] = X[idx[q], col_j]
        # Left = lower half-plane, flipped for the points the line has passed.
        go_left[q] = (V[f, idx[q]] >= math.pi) != (q < position)
    phi, margin = circular_direction(xi, xj, go_left, phi_a, phi_b)
    return np.nan, -math.sin(phi), math.cos(phi), margin


# ----------------------------------------------------------------------- builder
@inner_kernel
def _grow(arr, new_size):
    out = np.empty((new_size,) + arr.shape[1:], dtype=arr.dtype)  # noqa: RUF005 (numba has no starred tuples)
    # An element-wise copy of the C-ordered rows, not ``out[:n] = arr``: numba compiles a slice
    # assignment's shape-mismatch message (string formatting), seconds of a cold first fit.
    flat_in = arr.reshape(-1)
    flat_out = out.reshape(-1)
    for k in range(flat_in.shape[0]):
        flat_out[k] = flat_in[k]
    return out


@inner_kernel
def _node_stats(samples, start, end, y_code, y_value, w, stats):
    for c in range(stats.shape[0]):
        stats[c] = 0.0
    weight = 0.0
    sum_sq = 0.0
    for p in range(start, end):
        s = samples[p]
        weight += w[s]
        if y_code is not None:
            stats[y_code[s]] += w[s]
        if y_value is not None:
            stats[0] += w[s] * y_value[s]
            sum_sq += w[s] * y_value[s] * y_value[s]
    return weight, sum_sq


@njit(cache=True, nogil=True)
def _build_tree(
    X,
    V,
    kinds,
    col_i,
    col_j,
    geometry,
    radius,
    y_code,
    y_value,
    entropy,
    w,
    samples,
    n_outputs,
    max_depth,
    min_samples_split,
    min_samples_leaf,
    min_impurity_decrease,
    max_features,
    seed,
    cancel,
):
    """The compiled builder behind :func:`build_tree`: its arrays and limits, the task as None arguments.

    ``y_code`` (None in regression), ``y_value`` (None in classification), ``entropy``
    (None but for the entropy criterion), ``geometry`` and ``radius`` (None without
    radial features) select the code compiled (see the module's docstring).

    ``cancel`` is an int8 array of shape (1,) that another thread may set to non-zero:
    it is read before every node and after every feature's sort, and a raised flag
    stops the build. Returns ``(status, int_nodes, float_nodes, value)``: ``status`` is
    ``BUILT`` or ``CANCELLED`` (then the tables hold the nodes made so far and must be
    discarded), the tables have one row per node and the columns named by ``_LEFT`` ...
    ``_N_NODE`` and ``_THRESHOLD`` ... ``_IMPROVEMENT``, ``value`` is (n_nodes, n_outputs).
    """
    n_samples = samples.shape[0]
    capacity = 64
    # Every array is made by np.empty with a dtype class and grown by _grow on 1-D arrays
    # only (2-D ones through a flat view): each other spelling (np.full, np.zeros,
    # np.arange, np.array, a 2-D _grow) is one more function numba compiles on a cold
    # first fit, about 0.1 CPU-s each. Every node's fields are written when it is made,
    # so nothing needs an initial fill.
    # Node fields in three tables, not eleven arrays: each array is typed, grown and copied
    # out separately, so fewer arrays compile faster (build_tree splits the columns).
    int_nodes = np.empty((capacity, _INT_FIELDS), np.int64)
    float_nodes = np.empty((capacity, _FLOAT_FIELDS), np.float64)
    value = np.empty((capacity, n_outputs), np.float64)

    n_features = kinds.shape[0]
    feat_order = np.empty(n_features, np.int64)
    for k in range(n_features):
        feat_order[k] = k
    # Per-tree buffers of one entry per in-bag row: sort keys, row ids (the rows' own
    # dtype, int32 in forests) and the boundary's scratch (see _place_boundary).
    keys = np.empty(n_samples, np.float64)
    idx = np.empty_like(samples)
    coord = np.empty(n_samples, np.float64)
    side = np.empty(n_samples, np.bool_)
    # Zeroed by _node_stats and the split search before each use.
    stats = np.empty(n_outputs, np.float64)
    stats_l = np.empty(n_outputs, np.float64)
    stats_r = np.empty(n_outputs, np.float64)
    rng = np.empty(1, np.int64)
    rng[0] = seed & _MASK32 if seed & _MASK32 != 0 else 1

    total_weight = 0.0
    for p in range(n_samples):
        total_weight += w[samples[p]]

    # Stack of (start, end, depth, parent, is_left); right pushed first so the left
    # child is built first and node ids follow a preorder, as in scikit-learn.
    stack = np.empty((64, 5), dtype=np.int64)
    stack[0, 0] = 0
    stack[0, 1] = n_samples
    stack[0, 2] = 0
    stack[0, 3] = -1
    stack[0, 4] = 0
    top = 1
    node_count = 0
    status = BUILT
    while top > 0:
        if cancel[0] != 0:
            status = CANCELLED
            break
        top -= 1
        start = stack[top, 0]
        end = stack[top, 1]
        depth = stack[top, 2]
        parent = stack[top, 3]
        is_left = stack[top, 4]

        if node_count == capacity:
            capacity *= 2
            int_nodes = _grow(int_nodes.reshape(-1), _INT_FIELDS * capacity).reshape((capacity, _INT_FIELDS))
            float_nodes = _grow(float_nodes.reshape(-1), _FLOAT_FIELDS * capacity).reshape((capacity, _FLOAT_FIELDS))
            value = _grow(value.reshape(-1), n_outputs * capacity).reshape((capacity, n_outputs))
        node = node_count
        node_count += 1
        int_nodes[node, _LEFT] = -1
        int_nodes[node, _RIGHT] = -1
        int_nodes[node, _FEATURE] = -1
        float_nodes[node, _THRESHOLD] = np.nan
        float_nodes[node, _NORMAL_I] = 0.0
        float_nodes[node, _NORMAL_J] = 0.0
        float_nodes[node, _PLANE_MARGIN] = np.nan
        float_nodes[node, _IMPROVEMENT] = 0.0
        if parent >= 0:
            if is_left:
                int_nodes[parent, _LEFT] = node
            else:
                int_nodes[parent, _RIGHT] = node

        weight, sum_sq = _node_stats(samples, start, end, y_code, y_value, w, stats)
        node_impurity = _node_impurity(y_code, y_value, entropy, stats, weight, sum_sq)
        float_nodes[node, _IMPURITY] = node_impurity
        int_nodes[node, _N_NODE] = end - start
        float_nodes[node, _W_NODE] = weight
        for c in range(n_outputs):
            value[node, c] = stats[c]

        m_node = end - start
        if depth >= max_depth or m_node < min_samples_split or m_node < 2 * min_samples_leaf or node_impurity <= _PURE:
            continue

        f, position, _ = _best_split(
            V,
            kinds,
            samples,
            start,
            end,
            y_code,
            y_value,
            entropy,
            w,
            stats,
            weight,
            min_samples_leaf,
            max_features,
            rng,
            feat_order,
            keys,
            idx,
            stats_l,
            stats_r,
            cancel,
        )
        if f == _CANCELLED:
            status = CANCELLED
            break
        if f == _NO_SPLIT:
            continue
        kind = kinds[f]
        m, _ = _gather_sorted(V, f, kind, samples, start, end, keys, idx)
        t, n_i, n_j, margin = _place_boundary(
            X, V, f, kind, col_i[f], col_j[f], position, m, keys, idx, coord, side, geometry, radius
        )

        # Partition with the routing predicate itself: left rows first, stable order. A radial
        # split routes as a lift does (a threshold on x_j); only its boundary differs.
        route = LIFT if kind == RADIAL else kind
        n_left = 0
        for p in range(start, end):
            if _goes_left(X, samples[p], route, col_i[f], col_j[f], t, n_i, n_j):
                idx[n_left] = samples[p]
                n_left += 1
        n_right = 0
        for p in range(start, end):
            if not _goes_left(X, samples[p], route, col_i[f], col_j[f], t, n_i, n_j):
                idx[n_left + n_right] = samples[p]
                n_right += 1
        if n_left == 0 or n_right == 0:
            continue  # rounding put every row on one side: no usable split
        for q in range(m_node):
            samples[start + q] = idx[q]
        mid = start + n_left

        w_l, sq_l = _node_stats(samples, start, mid, y_code, y_value, w, stats_l)
        w_r, sq_r = _node_stats(samples, mid, end, y_code, y_value, w, stats_r)
        imp_l = _node_impurity(y_code, y_value, entropy, stats_l, w_l, sq_l)
        imp_r = _node_impurity(y_code, y_value, entropy, stats_r, w_r, sq_r)
        gain = weight * node_impurity - w_l * imp_l - w_r * imp_r
        # scikit-learn's rule: the weighted impurity decrease, as a fraction of the whole
        # training weight, must reach min_impurity_decrease (eps absorbs rounding).
        if gain / total_weight + _PURE < min_impurity_decrease:
            continue
        if n_left < min_samples_leaf or n_right < min_samples_leaf:
            continue

        int_nodes[node, _FEATURE] = f
        float_nodes[node, _THRESHOLD] = t
        float_nodes[node, _NORMAL_I] = n_i
        float_nodes[node, _NORMAL_J] = n_j
        float_nodes[node, _PLANE_MARGIN] = margin
        float_nodes[node, _IMPROVEMENT] = gain

        if top + 2 > stack.shape[0]:
            stack = _grow(stack.reshape(-1), 10 * stack.shape[0]).reshape((2 * stack.shape[0], 5))
        stack[top, 0] = mid
        stack[top, 1] = end
        stack[top, 2] = depth + 1
        stack[top, 3] = node
        stack[top, 4] = 0
        top += 1
        stack[top, 0] = start
        stack[top, 1] = mid
        stack[top, 2] = depth + 1
        stack[top, 3] = node
        stack[top, 4] = 1
        top += 1

    return status, int_nodes[:node_count].copy(), float_nodes[:node_count].copy(), value[:node_count].copy()


def build_tree(
    X,
    V,
    kinds,
    col_i,
    col_j,
    y_code,
    y_value,
    w,
    samples,
    n_outputs,
    is_classifier,
    criterion,
    max_depth,
    min_samples_split,
    min_samples_leaf,
    min_impurity_decrease,
    max_features,
    seed,
    cancel=None,
    geometry=None,
    radius=None,
):
    """Grow a tree depth-first on ``samples`` (rows with non-zero weight); Ctrl-C stops it.

    Parameters
    ----------
    X : ndarray of shape (n_samples, ambient_dim)
    V : ndarray of shape (n_features, n_samples)
        Feature values (curvedtrees.trees._features.SplitFeatures.values).
    kinds, col_i, col_j : ndarray of shape (n_features,)
    y_code : ndarray of shape (n_samples,), int64
        Class codes (classification; ignored otherwise).
    y_value : ndarray of shape (n_samples,), float64
        Targets (regression; ignored otherwise).
    w : ndarray of shape (n_samples,), float64
        Sample weights (bootstrap counts times user weights).
    samples : ndarray of shape (n_in_bag,), int64 or int32
        Rows to grow on; reordered in place.
    n_outputs : int
        Number of classes (classification) or 1.
    cancel : ndarray of shape (1,), int8, optional
        A flag shared with other threads (:func:`new_cancel_flag`): raising it stops
        the build within a fraction of a second. Forests share one among their trees.
    geometry, radius : ndarray of shape (n_features,), optional
        ``SplitFeatures.geometry`` and ``.radius``: where radial thresholds are placed.
        Required when ``kinds`` holds a radial feature; otherwise they default to E's.

    Returns
    -------
    Node arrays: children_left, children_right, feature, threshold, normal (n, 2),
    impurity, n_node_samples, weighted_n_node_samples, value (n, n_outputs) holding
    class weights or target sums, plane_margin, improvement (weighted impurity
    decrease of each split, for importances).

    Raises
    ------
    KeyboardInterrupt
        Ctrl-C while the build runs in the main thread: the compiled builder runs in a
        worker thread while the main thread waits in short slices, so Python can run
        its SIGINT handler; the handler's KeyboardInterrupt raises the flag, the
        builder stops at its next check and the interrupt propagates.
    BuildCancelled
        The flag was raised by someone else (another tree of the same forest).
    """
    if cancel is None:
        cancel = new_cancel_flag()
    if is_classifier != (criterion != SQUARED_ERROR):
        raise ValueError(f"build_tree: criterion {criterion} does not fit is_classifier={is_classifier}")
    if np.any(kinds == RADIAL):
        if geometry is None or radius is None:
            raise ValueError("build_tree: radial features need their geometry and radius")
        if geometry.shape[0] != kinds.shape[0] or radius.shape[0] != kinds.shape[0]:
            raise ValueError("build_tree: geometry and radius need one entry per feature")  # indexed by f, unchecked
    else:
        geometry = radius = None  # no radial code compiled (see the module's docstring)
    # The task as None arguments, for the same reason.
    entropy = True if criterion == ENTROPY else None
    if not is_classifier:
        y_code = None
    else:
        y_value = None
    args = (
        X,
        V,
        kinds,
        col_i,
        col_j,
        geometry,
        radius,
        y_code,
        y_value,
        entropy,
        w,
        samples,
        n_outputs,
        max_depth,
        min_samples_split,
        min_samples_leaf,
        min_impurity_decrease,
        max_features,
        seed,
        cancel,
    )
    if threading.current_thread() is threading.main_thread():
        status, int_nodes, float_nodes, value = run_interruptible(_build_tree, args, cancel)
    else:
        # Signals only ever reach the main thread; whoever runs this thread owns the flag.
        status, int_nodes, float_nodes, value = _build_tree(*args)
    if status != BUILT or cancel[0] != 0:
        raise BuildCancelled("the tree build was cancelled")
    # Contiguous columns, as the node arrays of a Tree are stored.
    ints = [np.ascontiguousarray(int_nodes[:, k]) for k in range(_INT_FIELDS)]
    floats = [np.ascontiguousarray(float_nodes[:, k]) for k in range(_FLOAT_FIELDS)]
    return (
        ints[_LEFT],
        ints[_RIGHT],
        ints[_FEATURE],
        floats[_THRESHOLD],
        np.ascontiguousarray(float_nodes[:, _NORMAL_I : _NORMAL_J + 1]),
        floats[_IMPURITY],
        ints[_N_NODE],
        floats[_W_NODE],
        value,
        floats[_PLANE_MARGIN],
        floats[_IMPROVEMENT],
    )


@njit(cache=True, nogil=True)
def add_draws(draws, counts):
    """``counts[r] += 1`` for every row ``r`` in ``draws`` (bootstrap counts, in place)."""
    for k in range(draws.shape[0]):
        counts[draws[k]] += 1.0


# ---------------------------------------------------------------------- routing
def routing_kinds(kinds: np.ndarray) -> np.ndarray:
    """Plane kinds as the routers read them: a radial split is a threshold on ``x_j``, a ``LIFT``.

    The packed records hold these, so the compiled routers (:func:`apply_tree`,
    :func:`forest_accumulate`) know three kinds and pay nothing for radial splits.
    """
    return np.where(kinds == RADIAL, LIFT, kinds)


def pack_nodes(children_left, children_right, feature, kinds, col_i, col_j, threshold, normal):
    """Node records for routing: one row per node keeps each visit within a cache line.

    Returns ``int_part`` of shape (n_nodes, 4): left, right, kind, col_i, with col_j in
    a fifth column, and ``float_part`` of shape (n_nodes, 3): threshold, normal.
    """
    n = children_left.shape[0]
    internal = children_left != -1
    f = np.where(internal, feature, 0)
    int_part = np.zeros((n, 5), dtype=np.int64)
    int_part[:, 0] = children_left
    int_part[:, 1] = children_right
    int_part[:, 2] = np.where(internal, routing_kinds(kinds[f]), 0)
    int_part[:, 3] = np.where(internal, col_i[f], 0)
    int_part[:, 4] = np.where(internal, col_j[f], 0)
    float_part = np.zeros((n, 3))
    float_part[:, 0] = threshold
    float_part[:, 1:] = normal
    return int_part, float_part


@njit(cache=True, nogil=True, inline="always")
def _next_node(X, r, node, int_part, float_part):
    if _goes_left(
        X,
        r,
        int_part[node, 2],
        int_part[node, 3],
        int_part[node, 4],
        float_part[node, 0],
        float_part[node, 1],
        float_part[node, 2],
    ):
        return int_part[node, 0]
    return int_part[node, 1]


@njit(cache=True, nogil=True)
def apply_tree(X, int_part, float_part):
    """Leaf index of every row of ``X`` (ambient coordinates); nodes from :func:`pack_nodes`."""
    n = X.shape[0]
    out = np.empty(n, dtype=np.int64)
    for r in range(n):
        node = 0
        while int_part[node, 0] != -1:
            node = _next_node(X, r, node, int_part, float_part)
        out[r] = node
    return out


@njit(cache=True, nogil=True)
def decision_path_tree(X, int_part, float_part, max_len):
    """CSR arrays (indptr, indices) of the nodes each row visits, root first."""
    n = X.shape[0]
    indptr = np.zeros(n + 1, dtype=np.int64)
    indices = np.empty(n * max_len, dtype=np.int64)
    pos = 0
    for r in range(n):
        node = 0
        while True:
            indices[pos] = node
            pos += 1
            if int_part[node, 0] == -1:
                break
            node = _next_node(X, r, node, int_part, float_part)
        indptr[r + 1] = pos
    return indptr, indices[:pos].copy()


# ---------------------------------------------------------------- forest routing
# A forest's nodes in one table of 32-byte records, two to a cache line (pack_nodes's
# two tables cost two lines per visited node): children, the split's columns with its
# routing kind in their low bits (routing_kinds: a radial split is packed as LIFT), and
# two floats, (threshold, 0) for linear splits and the normal (n_i, n_j) for circular
# ones, so that each test is the exact float operation of _goes_left and the forest
# routes every row as its trees do one by one.
NODE_RECORD = np.dtype(
    [
        ("left", np.int32),
        ("right", np.int32),
        ("col_i", np.int32),
        ("col_j", np.int32),
        ("a", np.float64),
        ("b", np.float64),
    ]
)
# Rows are routed a block at a time, tree after tree: one tree's nodes (at most a few
# hundred KB for trees grown on 10^4 rows) stay in cache while the block's rows walk it,
# and the block's rows and outputs stream through in order. Measured on 200,000 rows
# through 100 trees of 4,700 nodes (8 columns, 8 classes): blocks of 8,192 rows took
# 2.3 s, of 65,536 1.8 s, all rows at once 1.7 s; blocks bound the working set for
# 10^6-row pictures (65,536 rows of 8 columns and 8 classes: 8 MB).
_FOREST_BLOCK = 65536


def pack_forest(trees):
    """Every tree's routing records in one flat table, for :func:`forest_accumulate`.

    Parameters
    ----------
    trees : sequence of Tree

    Returns
    -------
    nodes : ndarray of shape (total_nodes,), dtype NODE_RECORD
        Child ids in the flat numbering; at a leaf ``left == -1`` and ``right`` is the
        leaf's row in ``leaf_values``. ``col_i`` holds ``4 * col_i + kind``.
    roots : ndarray of shape (n_trees,), int64
        Flat id of each tree's root.
    leaf_values : ndarray of shape (total_leaves, n_outputs), float64
        The leaves' values only (about half the nodes), in flat node order.
    """
    sizes = np.array([tree.node_count for tree in trees], dtype=np.int64)
    if sizes.sum() >= np.iinfo(np.int32).max:
        raise ValueError(f"the forest has {sizes.sum()} nodes; prediction supports fewer than 2**31")
    roots = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
    nodes = np.zeros(int(sizes.sum()), dtype=NODE_RECORD)
    leaf_values = []
    n_leaves = 0
    for tree, root in zip(trees, roots):
        f = tree.features
        part = nodes[root : root + tree.node_count]
        leaf = tree.children_left == -1
        internal = ~leaf
        feature = np.where(internal, tree.feature, 0)
        kind = np.where(internal, routing_kinds(f.kind[feature]), 0)
        circular = internal & (kind == CIRCULAR)
        part["left"] = np.where(leaf, -1, tree.children_left + root)
        part["right"] = np.where(leaf, n_leaves + np.cumsum(leaf) - 1, tree.children_right + root)
        part["col_i"] = np.where(internal, 4 * f.col_i[feature] + kind, 0)
        part["col_j"] = np.where(internal, f.col_j[feature], 0)
        part["a"] = np.where(circular, tree.normal[:, 0], np.where(internal, tree.threshold, 0.0))
        part["b"] = np.where(circular, tree.normal[:, 1], 0.0)
        n_leaves += int(leaf.sum())
        leaf_values.append(tree.value[leaf])
    return nodes, roots, np.ascontiguousarray(np.concatenate(leaf_values))


@njit(cache=True, nogil=True)
def forest_accumulate(X, start, stop, nodes, roots, leaf_values, out, block_rows=_FOREST_BLOCK):
    """``out[r] += value of r's leaf`` in every tree, tree by tree, for rows ``start <= r < stop``.

    Trees are added in order, so ``out`` (zeros on entry) holds exactly what summing
    the per-tree predictions in tree order gives. Releases the GIL: callers split the
    rows between threads.

    Parameters
    ----------
    X : ndarray of shape (n_samples, ambient_dim), float64
    start, stop : int
    nodes, roots, leaf_values
        From :func:`pack_forest`.
    out : ndarray of shape (n_samples, n_outputs), float64
    block_rows : int
    """
    n_outputs = leaf_values.shape[1]
    for block in range(start, stop, block_rows):
        end = min(block + block_rows, stop)
        for t in range(roots.shape[0]):
            root = roots[t]
            for r in range(block, end):
                node = root
                record = nodes[node]
                while record.left != -1:
                    kind = record.col_i & 3
                    xj = X[r, record.col_j]
                    if kind == LIFT:
                        goes_left = xj <= record.a
                    elif kind == TIMELIKE:
                        goes_left = xj / X[r, record.col_i >> 2] <= record.a
                    else:
                        goes_left = record.a * X[r, record.col_i >> 2] + record.b * xj <= 0.0
                    node = record.left if goes_left else record.right
                    record = nodes[node]
                leaf = record.right
                for k in range(n_outputs):
                    out[r, k] += leaf_values[leaf, k]
