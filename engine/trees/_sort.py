"""In-place sort of a key array with a companion index array (compiled).

The split search sorts the node's feature values once per feature per node, as
scikit-learn's BestSplitter does. Sorting in place into preallocated buffers avoids
an allocation per call, which matters for the many small nodes of deep trees.
Introsort: quicksort with a median-of-three pivot and a three-way partition (fast
on the many equal keys of gridded or duplicated data), insertion sort below a small
size, and heapsort when the recursion gets too deep.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ._jit import inner_kernel

__all__ = ["sort_with_index"]

_SMALL = 16  # insertion sort wins below this many elements
# The helpers have no Python entry point and must not be called from Python (inner_kernel);
# sort_with_index keeps one, for the tests and Python callers.


@njit(cache=True, nogil=True, inline="always")
def _swap(keys, idx, a, b):
    keys[a], keys[b] = keys[b], keys[a]
    idx[a], idx[b] = idx[b], idx[a]


@inner_kernel
def _insertion_sort(keys, idx, lo, hi):
    for i in range(lo + 1, hi):
        key = keys[i]
        item = idx[i]
        j = i - 1
        while j >= lo and keys[j] > key:
            keys[j + 1] = keys[j]
            idx[j + 1] = idx[j]
            j -= 1
        keys[j + 1] = key
        idx[j + 1] = item


@inner_kernel
def _sift_down(keys, idx, lo, start, end):
    root = start
    while True:
        child = 2 * root + 1
        if child >= end:
            return
        if child + 1 < end and keys[lo + child] < keys[lo + child + 1]:
            child += 1
        if keys[lo + root] < keys[lo + child]:
            _swap(keys, idx, lo + root, lo + child)
            root = child
        else:
            return


@inner_kernel
def _heapsort(keys, idx, lo, hi):
    n = hi - lo
    for start in range(n // 2 - 1, -1, -1):
        _sift_down(keys, idx, lo, start, n)
    for end in range(n - 1, 0, -1):
        _swap(keys, idx, lo, lo + end)
        # np.int64(0), not 0: a literal start would compile a second _sift_down.
        _sift_down(keys, idx, lo, np.int64(0), end)


@inner_kernel
def _median3(keys, lo, hi):
    a = keys[lo]
    b = keys[(lo + hi) // 2]
    c = keys[hi - 1]
    if a < b:
        if b < c:
            return b
        return c if a < c else a
    if a < c:
        return a
    return c if b < c else b


@njit(cache=True, nogil=True)
def sort_with_index(keys, idx, lo, hi):
    """Sort ``keys[lo:hi]`` ascending in place, applying the same permutation to ``idx``.

    Raises ValueError unless ``0 <= lo`` and ``hi`` is within both arrays (numba does not
    bounds-check, so a bad range would read and write outside them).
    """
    if lo < 0 or hi > keys.shape[0] or hi > idx.shape[0]:
        raise ValueError("sort_with_index: the range [lo, hi) must lie within keys and idx")
    n = hi - lo
    if n < 2:
        return
    max_depth = 2 * int(np.log2(n) + 1)
    # Explicit stack of (lo, hi, depth) ranges: the larger side of each partition is
    # pushed and the loop continues on the smaller one, so at most log2(n) ranges wait.
    stack = np.empty((3 * 64 + 3 * max_depth, 3), dtype=np.int64)
    top = 0
    stack[0, 0] = lo
    stack[0, 1] = hi
    stack[0, 2] = max_depth
    top = 1
    while top > 0:
        top -= 1
        a = stack[top, 0]
        b = stack[top, 1]
        depth = stack[top, 2]
        while b - a > _SMALL:
            if depth == 0:
                _heapsort(keys, idx, a, b)
                a = b
                break
            depth -= 1
            pivot = _median3(keys, a, b)
            # Three-way partition: [a, lt) < pivot, [lt, gt) == pivot, [gt, b) > pivot.
            lt = a
            i = a
            gt = b
            while i < gt:
                if keys[i] < pivot:
                    _swap(keys, idx, i, lt)
                    lt += 1
                    i += 1
                elif keys[i] > pivot:
                    gt -= 1
                    _swap(keys, idx, i, gt)
                else:
                    i += 1
            if lt - a < b - gt:
                stack[top, 0] = gt
                stack[top, 1] = b
                stack[top, 2] = depth
                top += 1
                b = lt
            else:
                stack[top, 0] = a
                stack[top, 1] = lt
                stack[top, 2] = depth
                top += 1
                a = gt
        if b - a > 1:
            _insertion_sort(keys, idx, a, b)
