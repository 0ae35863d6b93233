"""A row order for the threshold correction that keeps each node's rows close in memory.

The correction sends every training row down every tree, reading each row's feature
value (and, for an H feature, its ``x0``) at every node: a random read per row per
level into arrays of several megabytes. A node's rows are close in feature space,
so numbering the rows along a space-filling curve (Z-order of the features'
approximate ranks) puts a deep node's rows in a few cache lines and lets the
hardware stream a large node's. The thresholds do not depend on the order (each
node's extremes and candidate sets are order-free), only the speed; when it pays:
:data:`curvedtrees.klein._tuning.RENUMBER_BYTES`.

The curve needs no full sort per feature: each feature is cut at the quantiles of
a strided sample into ``2 ** bits`` codes (``bits * n_features`` at most 63), the
codes' bits are interleaved into one key per row, and the keys are sorted once.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np
from numba import njit

from . import _tuning

__all__ = ["locality_order", "relabel_rows"]

# Features interleaved into the key: at most this many (the first ones), with at least
# two bits each in a 63-bit key.
_MAX_KEY_FEATURES = 31


@njit(cache=True, nogil=True)
def _z_order_keys(F, edges, bits):
    """One Z-order key per row of ``F``: each feature's code (how many of its ``edges`` the value
    reaches, by bisection) for the first ``edges.shape[0]`` features, their bits interleaved."""
    n_rows = F.shape[0]
    n_features, n_edges = edges.shape
    keys = np.empty(n_rows, dtype=np.uint64)
    codes = np.empty(n_features, dtype=np.uint64)
    one = np.uint64(1)
    for r in range(n_rows):
        for f in range(n_features):
            # Branch-free bisection (n_edges + 1 is a power of two): which way it goes is
            # unpredictable, and mispredictions took most of the time.
            value = F[r, f]
            low = 0
            half = (n_edges + 1) >> 1
            while half > 0:
                low += half if edges[f, low + half - 1] <= value else 0
                half >>= 1
            codes[f] = np.uint64(low)
        key = np.uint64(0)
        for b in range(bits - 1, -1, -1):  # most significant bits first
            for f in range(n_features):
                key = (key << one) | ((codes[f] >> np.uint64(b)) & one)
        keys[r] = key
    return keys


def locality_order(F: np.ndarray, threads: int = 1) -> np.ndarray:
    """A permutation of the rows of ``F`` (n_samples, n_features) along a Z-order curve.

    Returns ``order`` of shape (n_samples,), int64: ``F[order]`` lists the rows with
    nearby rows next to each other. Deterministic (the sample is strided; ``threads``
    only splits the work).
    """
    n, d = F.shape
    used = min(d, _MAX_KEY_FEATURES)
    sample_rows = max(2, int(_tuning.LOCALITY_SAMPLE_ROWS))
    # Bits per feature are capped where the sample's quantiles stop resolving (2 ** 12
    # codes for a sample of 4096 rows); a cell per few rows is as fine as locality
    # gets: about log2(n) bits in all.
    max_bits = int(np.log2(sample_rows))
    bits = max(1, min(max_bits, 63 // max(used, 1), -(-int(np.log2(max(n, 2))) // max(used, 1)) + 1))
    sample = np.sort(F[:: max(1, n // sample_rows), :used], axis=0)
    # Quantiles, not the value range: Klein coordinates of far points crowd near +-1.
    cuts = (np.arange(1, 2**bits) * len(sample)) >> bits
    edges = np.ascontiguousarray(sample[cuts].T, dtype=np.float64)
    F = np.ascontiguousarray(F, dtype=np.float64)
    if threads > 1 and n >= 2 * sample_rows:
        # The kernel releases the GIL: each thread takes a slice of the rows.
        bounds = np.linspace(0, n, threads + 1).astype(np.int64)
        with ThreadPoolExecutor(max_workers=threads) as pool:
            parts = list(pool.map(lambda i: _z_order_keys(F[bounds[i] : bounds[i + 1]], edges, bits), range(threads)))
        keys = np.concatenate(parts)
    else:
        keys = _z_order_keys(F, edges, bits)
    return np.argsort(keys).astype(np.int64)


def relabel_rows(rows: np.ndarray, rank: np.ndarray, keep_order: bool = False) -> np.ndarray:
    """Distinct ``rows`` under their new numbers (``rank[row]``), in increasing order unless ``keep_order``.

    A tree's rows are read in the order given at its root, which then streams through
    memory; a mask sorts them in O(n). ``keep_order`` keeps them aligned with an array
    about them (the library's leaf of each row).
    """
    relabelled = rank[rows]
    if keep_order:
        return relabelled
    mask = np.zeros(len(rank), dtype=bool)
    mask[relabelled] = True
    return np.flatnonzero(mask).astype(np.int64)
