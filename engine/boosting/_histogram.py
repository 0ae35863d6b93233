"""Compiled histograms of gradients and hessians, and the split search on them.

A node's histogram has one row per bin of every plane (``PlaneBins.bin_offsets``)
and three columns: the sum of gradients, the sum of hessians and the number of rows
in the bin. :func:`build_histograms` reads a node's rows once per plane, one byte
per row and plane (:class:`HistogramCodes`), in threads (one plane per thread, numba
``prange``; the GIL is released); the larger child of a split is the parent's
histogram minus the smaller child's (the subtraction trick), so each level of a tree
reads each row at most once per plane for half of the nodes.

:func:`find_split` scores every candidate of every plane with the second-order gain
of XGBoost and scikit-learn's HistGradientBoosting (``G^2 / (H + l2)`` summed over
the children, minus the parent's):

* linear planes: ordered bins, left = codes ``<= b``, swept left to right with
  running sums (scikit-learn's loop, its stopping rules and its tie-breaking: the
  first best bin of the first best plane);
* circular planes: ``2 B`` codes round the circle plus the origin bin. A split keeps
  the half-turn window of codes ``s .. s + B - 1`` (mod ``2 B``) on the right and
  the rest, origin rows included, on the left; windows ``s`` and ``s + B`` are the
  same line with sides swapped, so ``s = 0 .. B - 1`` covers every line once. Prefix
  sums over the circle make each window two subtractions: O(B) per plane, and an arc
  that crosses the angle 0 (or +-pi) is a window like any other.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from ..trees.kernels import CIRCULAR

__all__ = ["HistogramCodes", "build_histograms", "find_split", "node_value", "subtract_histograms"]

# scikit-learn adds this to the denominator of a leaf value so that a node whose
# hessians sum to zero (all weights zero) gets value 0 instead of a division by zero.
VALUE_EPS = 1e-15


@njit(cache=True, nogil=True, inline="always")
def node_value(sum_gradient, sum_hessian, l2_regularization):
    """Newton step of a node: ``-G / (H + l2)`` (before the learning rate)."""
    return -sum_gradient / (sum_hessian + l2_regularization + VALUE_EPS)


# Below this many (row, plane) updates a node's histogram is built on one thread:
# about 0.5 ms of work, against tens of microseconds to wake the other threads (and
# far more when other processes hold the cores).
PARALLEL_MIN_UPDATES = 100_000

# Planes have at most this many ordered (or axial) bins (max_bins <= 255), so that
# every narrow code fits in a byte.
MAX_HALF = 255


class HistogramCodes:
    """The codes as the histograms read them: one byte per row and plane.

    A plane's codes are read once per node whose histogram is built; one byte per
    row keeps a plane's codes of 10^6 rows (1 MB) in a core's L2 cache, where two
    bytes did not, and the histograms of scattered child nodes took twice as long.
    A linear plane's code (at most 254) fits as it is. A circular plane's code
    ``a + B h`` is split into the axial bin ``a`` and the half-turn bit ``h``, packed
    eight rows to a byte; the origin rows' code ``2 B`` is stored as ``a = B, h = 1``,
    so that every code is ``narrow + B h`` without a test.

    Parameters
    ----------
    codes : ndarray of shape (n_features, n_samples), uint16
        ``PlaneBins.transform``'s codes.
    kind : ndarray of shape (n_features,), int8
    half : ndarray of shape (n_features,), int64
        Ordered (or axial) bins ``B`` per plane, at most 255.

    Attributes
    ----------
    narrow : ndarray of shape (n_features, n_samples), uint8
    halves : ndarray of shape (n_features, ceil(n_samples / 8)), uint8
        Bit ``r % 8`` of byte ``r // 8``: row ``r`` lies in the second half-turn
        (circular planes; zero elsewhere).
    circular : ndarray of shape (n_features,), bool
    half : ndarray of shape (n_features,), int64
    """

    def __init__(self, codes, kind, half):
        if np.any(half > MAX_HALF):
            raise ValueError(f"at most {MAX_HALF} bins per plane, got {int(half.max())}")
        self.circular = np.asarray(kind == CIRCULAR)
        self.half = np.asarray(half, dtype=np.int64)
        n_samples = codes.shape[1]
        self.narrow = np.empty(codes.shape, dtype=np.uint8)
        self.halves = np.zeros((codes.shape[0], (n_samples + 7) // 8), dtype=np.uint8)
        _narrow_codes(codes, self.circular, self.half, self.narrow, self.halves)


@njit(cache=True, nogil=True, parallel=True)
def _narrow_codes(codes, circular, half, narrow, halves):
    for f in prange(codes.shape[0]):
        size = half[f]
        for r in range(codes.shape[1]):
            c = np.int64(codes[f, r])
            if not circular[f]:
                narrow[f, r] = c
            else:
                second = c >= size  # the second half-turn, or the origin (2 B = B + B)
                narrow[f, r] = c - size * second
                halves[f, r >> 3] |= np.uint8(second) << np.uint8(r & 7)


def build_histograms(codes, rows, start, end, gh, bin_offsets, hist, ordered, in_order=False):
    """Histogram of the rows ``rows[start:end]`` for every plane.

    Parameters
    ----------
    codes : HistogramCodes
    rows : ndarray of shape (n_samples,), int64
        Row ids, grouped by node.
    start, end : int
    gh : ndarray of shape (n_samples, 2), float32
        Gradient and hessian of each row (hessian 1 for constant hessians: a sum of
        ones is the row count exactly).
    bin_offsets : ndarray of shape (n_features + 1,), int64
    hist : ndarray of shape (n_bins_total, 3), float64
        Output: sum of gradients, sum of hessians, row count per bin. Each bin adds its
        rows in the order of ``rows``, whatever the number of threads.
    ordered : ndarray of shape (>= end - start, 2), float32
        Scratch: the node's gradients and hessians in row order, so that each plane's
        pass reads them sequentially.
    in_order : bool, default=False
        ``rows[start:end]`` is ``start .. end - 1`` (the root): ``gh`` is read in place.
    """
    if in_order:
        ordered = gh[start:end]
    else:
        _gather(rows, start, end, gh, ordered)
    work = (end - start) * (bin_offsets.shape[0] - 1)
    kernel = _histograms_threads if work >= PARALLEL_MIN_UPDATES else _histograms_serial
    kernel(codes.narrow, codes.halves, codes.circular, codes.half, rows, start, end, ordered, bin_offsets, hist)


@njit(cache=True, nogil=True)
def _gather(rows, start, end, gh, ordered):
    for i in range(end - start):
        r = rows[start + i]
        ordered[i, 0] = gh[r, 0]
        ordered[i, 1] = gh[r, 1]


@njit(cache=True, nogil=True, inline="always")
def _plane_histogram(f, narrow, halves, circular, half, rows, start, m, ordered, bin_offsets, hist):
    lo = bin_offsets[f]
    for b in range(lo, bin_offsets[f + 1]):
        hist[b, 0] = 0.0
        hist[b, 1] = 0.0
        hist[b, 2] = 0.0
    code = narrow[f]
    if circular[f]:
        bits = halves[f]
        size = np.uint64(half[f])
        for i in range(m):
            # Unsigned arithmetic: no negative-index wrap-around tests in the loop.
            r = np.uint64(rows[start + i])
            second = (np.uint64(bits[r >> np.uint64(3)]) >> (r & np.uint64(7))) & np.uint64(1)
            b = np.uint64(lo) + np.uint64(code[r]) + size * second
            hist[b, 0] += ordered[i, 0]
            hist[b, 1] += ordered[i, 1]
            hist[b, 2] += 1.0
    else:
        for i in range(m):
            b = np.uint64(lo) + np.uint64(code[np.uint64(rows[start + i])])
            hist[b, 0] += ordered[i, 0]
            hist[b, 1] += ordered[i, 1]
            hist[b, 2] += 1.0


@njit(cache=True, nogil=True, parallel=True)
def _histograms_threads(narrow, halves, circular, half, rows, start, end, ordered, bin_offsets, hist):
    for f in prange(bin_offsets.shape[0] - 1):  # one plane per thread: no two write the same bin
        _plane_histogram(f, narrow, halves, circular, half, rows, start, end - start, ordered, bin_offsets, hist)


@njit(cache=True, nogil=True)
def _histograms_serial(narrow, halves, circular, half, rows, start, end, ordered, bin_offsets, hist):
    for f in range(bin_offsets.shape[0] - 1):
        _plane_histogram(f, narrow, halves, circular, half, rows, start, end - start, ordered, bin_offsets, hist)


@njit(cache=True, nogil=True)
def subtract_histograms(parent, child, out):
    """``out = parent - child``: the sibling's histogram without reading its rows."""
    for b in range(parent.shape[0]):
        out[b, 0] = parent[b, 0] - child[b, 0]
        out[b, 1] = parent[b, 1] - child[b, 1]
        out[b, 2] = parent[b, 2] - child[b, 2]


@njit(cache=True, nogil=True, inline="always")
def _gain(loss_node, g_l, h_l, g_r, h_r, l2):
    # Loss of a node at its Newton value is G * value = -G^2 / (H + l2); the gain is
    # the parent's loss minus the children's (XGBoost eq. 7, scikit-learn's _split_gain).
    return loss_node - g_l * node_value(g_l, h_l, l2) - g_r * node_value(g_r, h_r, l2)


@njit(cache=True, nogil=True)
def find_split(hist, kinds, half, bin_offsets, sum_gradient, sum_hessian, n_rows, l2, min_samples_leaf, min_hessian):
    """Best split of a node from its histogram.

    Parameters
    ----------
    hist : ndarray of shape (n_bins_total, 3), float64
    kinds : ndarray of shape (n_features,), int8
    half : ndarray of shape (n_features,), int64
        Ordered (or axial) bins ``B`` per plane.
    bin_offsets : ndarray of shape (n_features + 1,), int64
    sum_gradient, sum_hessian : float
        The node's sums (hessian sum = row count for constant hessians).
    n_rows : int
    l2 : float
    min_samples_leaf : int
    min_hessian : float
        Smallest hessian sum of a child (scikit-learn's ``min_hessian_to_split``).

    Returns
    -------
    gain : float
        ``-1`` when no split is valid (no candidate with a positive gain).
    feature, position : int
        The plane, and the last bin sent left (linear) or the window's first code (circular).
    g_left, h_left : float
        Gradient and hessian sums of the left child.
    n_left : int
    """
    loss_node = sum_gradient * node_value(sum_gradient, sum_hessian, l2)
    best_gain = -1.0
    best_feature = -1
    best_position = 0
    best_g = 0.0
    best_h = 0.0
    best_n = 0
    n_features = kinds.shape[0]
    for f in range(n_features):
        lo = bin_offsets[f]
        if kinds[f] != CIRCULAR:
            g_l = 0.0
            h_l = 0.0
            n_l = 0
            for b in range(half[f] - 1):
                g_l += hist[lo + b, 0]
                h_l += hist[lo + b, 1]
                n_l += int(hist[lo + b, 2])
                n_r = n_rows - n_l
                if n_l < min_samples_leaf:
                    continue
                if n_r < min_samples_leaf:
                    break  # the right child only shrinks from here
                h_r = sum_hessian - h_l
                if h_l < min_hessian:
                    continue
                if h_r < min_hessian:
                    break  # hessians are non-negative: the right sum only shrinks
                g_r = sum_gradient - g_l
                gain = _gain(loss_node, g_l, h_l, g_r, h_r, l2)
                if gain > best_gain and gain > 0.0:
                    best_gain = gain
                    best_feature = f
                    best_position = b
                    best_g = g_l
                    best_h = h_l
                    best_n = n_l
        else:
            size = half[f]
            # Prefix sums once round the circle (origin bin excluded). Windows start at
            # s < B, so s + B - 1 < 2 B: none wraps past the last code.
            pg = np.zeros(2 * size + 1)
            ph = np.zeros(2 * size + 1)
            pn = np.zeros(2 * size + 1, dtype=np.int64)
            for k in range(2 * size):
                b = lo + k
                pg[k + 1] = pg[k] + hist[b, 0]
                ph[k + 1] = ph[k] + hist[b, 1]
                pn[k + 1] = pn[k] + int(hist[b, 2])
            for s in range(size):
                n_r = pn[s + size] - pn[s]
                n_l = n_rows - n_r
                if n_l < min_samples_leaf or n_r < min_samples_leaf:
                    continue
                h_r = ph[s + size] - ph[s]
                h_l = sum_hessian - h_r
                if h_l < min_hessian or h_r < min_hessian:
                    continue
                g_r = pg[s + size] - pg[s]
                g_l = sum_gradient - g_r
                gain = _gain(loss_node, g_l, h_l, g_r, h_r, l2)
                if gain > best_gain and gain > 0.0:
                    best_gain = gain
                    best_feature = f
                    best_position = s
                    best_g = g_l
                    best_h = h_l
                    best_n = n_l
    return best_gain, best_feature, best_position, best_g, best_h, best_n


@njit(cache=True, nogil=True)
def brute_force_split(codes, rows, gradients, hessians, kinds, half, l2, min_samples_leaf, min_hessian):
    """Every candidate of every plane scored from the rows themselves (for tests).

    Returns the same tuple as :func:`find_split`, enumerating candidates in the same
    order but computing each child's sums by a pass over the rows.
    """
    n = rows.shape[0]
    sum_g = 0.0
    sum_h = 0.0
    for i in range(n):
        sum_g += gradients[rows[i]]
        sum_h += hessians[rows[i]]
    loss_node = sum_g * node_value(sum_g, sum_h, l2)
    best = (-1.0, -1, 0, 0.0, 0.0, 0)
    for f in range(kinds.shape[0]):
        size = half[f]
        n_candidates = size if kinds[f] == CIRCULAR else size - 1
        for p in range(n_candidates):
            g_l = 0.0
            h_l = 0.0
            n_l = 0
            for i in range(n):
                c = codes[f, rows[i]]
                if kinds[f] == CIRCULAR:
                    left = c == 2 * size or (c - p + 2 * size) % (2 * size) >= size
                else:
                    left = c <= p
                if left:
                    g_l += gradients[rows[i]]
                    h_l += hessians[rows[i]]
                    n_l += 1
            if n_l < min_samples_leaf or n - n_l < min_samples_leaf:
                continue
            if h_l < min_hessian or sum_h - h_l < min_hessian:
                continue
            gain = _gain(loss_node, g_l, h_l, sum_g - g_l, sum_h - h_l, l2)
            if gain > best[0] and gain > 0.0:
                best = (gain, f, p, g_l, h_l, n_l)
    return best
