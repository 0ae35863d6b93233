"""Bins of the split planes, computed once before boosting.

Every split plane of a product tree (:class:`curvedtrees.trees.SplitFeatures`) has a
value per row: ``x_j`` (lift, E), ``x_j / x_0`` (timelike, H) or a direction angle
``theta`` in ``[0, 2 pi)`` (circular). Boosting replaces each value by a small integer
code so that a node's statistics fit in a histogram.

Linear planes (lift, timelike)
    Ordered bins with scikit-learn's HistGradientBoosting thresholds: the midpoints
    between distinct values when there are at most ``max_bins`` of them, else the
    distinct inner percentiles (``method="averaged_inverted_cdf"``). Code ``b`` means
    ``thresholds[b - 1] < value <= thresholds[b]``, as in scikit-learn.
Circular planes
    A line through the origin splits the plane's directions into two half-turns, so
    the bins must be symmetric under a half-turn. The *axial* key ``v`` (the angle
    modulo pi) is binned like a linear value into ``B`` bins, and the code is
    ``a + B h`` where ``a`` is the axial bin and ``h = 1`` for the second half-turn:
    codes ``0 .. 2B - 1`` go once round the circle and code ``c + B`` is the antipode
    of code ``c``. A split keeps ``B`` consecutive codes (a half-turn) on one side.
    Before binning, the angles are rotated so that the axial cut at ``v = 0`` falls
    in the middle of the widest gap between the keys: the bins, and so the candidate
    splits, then turn with the data, and a rotation of the component leaves the model
    unchanged. Rows that project onto the plane's origin (angle ``-1``) lie on every
    line and always go left: they get their own code ``2B``, outside every window.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numba import njit, prange

from ..trees.kernels import CIRCULAR

__all__ = ["PlaneBins", "circular_cut", "linear_thresholds"]

# scikit-learn clips bin thresholds to this, so that an infinite value at predict
# time still compares; kept identical so Euclidean bins equal HistGradientBoosting's.
ALMOST_INF = 1e300
# HistGradientBoosting bins a random subsample of at most this many rows.
BINNING_SUBSAMPLE = 200_000
TWO_PI = 2.0 * math.pi
# Rows whose plane values are computed at once when coding a fit's rows: a few MB of
# values at a time instead of 8 bytes per row and plane for the whole fit.
TRANSFORM_ROWS = 32768


def linear_thresholds(values: np.ndarray, max_bins: int, weights: np.ndarray | None = None) -> np.ndarray:
    """Inner bin thresholds of one ordered value (scikit-learn 1.9's rule).

    Parameters
    ----------
    values : ndarray of shape (n_samples,), float64
    max_bins : int
    weights : ndarray of shape (n_samples,) or None
        Rows of weight zero are left out; the others weigh the percentiles.

    Returns
    -------
    thresholds : ndarray of shape (n_bins - 1,), float64
        Increasing: the midpoints between distinct values when there are at most
        ``max_bins`` of them, else the distinct inner percentiles
        (``method="averaged_inverted_cdf"``).
    """
    if weights is not None:
        keep = weights != 0
        values, weights = values[keep], weights[keep]
        order = np.argsort(values, kind="stable")
        values = values[order]
    else:
        values = np.sort(values)
    # Distinct values of the sorted array without sorting it again (np.unique would).
    distinct = values[np.concatenate(([True], values[1:] != values[:-1]))] if values.size else values
    if distinct.size <= 1:
        return np.empty(0)
    if distinct.size <= max_bins:
        thresholds = (distinct[:-1] + distinct[1:]) / 2.0
    else:
        percentiles = np.linspace(0, 100, num=max_bins + 1)[1:-1]
        if weights is None:
            thresholds = np.percentile(values, percentiles, method="averaged_inverted_cdf")
        else:
            thresholds = _weighted_percentiles(values, weights[order], percentiles)
        thresholds = np.unique(thresholds)
    return np.minimum(thresholds, ALMOST_INF)


def _weighted_percentiles(sorted_values, weights, percentiles):
    """Averaged inverted CDF with weights: where the cumulative weight first reaches
    each percentile, averaged with the next value when it lands exactly on it."""
    cumulative = np.cumsum(weights)
    targets = percentiles / 100.0 * cumulative[-1]
    lower = np.minimum(np.searchsorted(cumulative, targets, side="left"), sorted_values.size - 1)
    upper = np.minimum(np.searchsorted(cumulative, targets, side="right"), sorted_values.size - 1)
    return (sorted_values[lower] + sorted_values[upper]) / 2.0


def circular_cut(angles: np.ndarray) -> float:
    """Where the axial circle is cut: the middle of the widest gap between the keys.

    Parameters
    ----------
    angles : ndarray of shape (m,)
        Direction angles in ``[0, 2 pi)`` (rows at the origin already removed).

    Returns
    -------
    cut : float in ``[0, pi)``
        Ties between equally wide gaps go to the first in angle order.
    """
    keys = np.unique(np.where(angles >= math.pi, angles - math.pi, angles))
    if keys.size == 0:
        return 0.0
    if keys.size == 1:
        return float((keys[0] + math.pi / 2) % math.pi)
    gaps = np.empty(keys.size)
    gaps[:-1] = np.diff(keys)
    gaps[-1] = keys[0] + math.pi - keys[-1]  # the gap across v = 0 (mod pi)
    k = int(np.argmax(gaps))
    if k == keys.size - 1:
        return float(((keys[-1] + keys[0] + math.pi) / 2.0) % math.pi)
    return float(keys[k] / 2.0 + keys[k + 1] / 2.0)


@njit(cache=True, nogil=True, inline="always")
def rotated_axial(theta, cut):
    """``(h, v)`` of an angle after turning it by ``-cut``: half-turn flag and axial key in ``[0, pi)``."""
    t = theta - cut
    if t < 0.0:
        t += TWO_PI
    if t >= TWO_PI:
        t -= TWO_PI
    if t >= math.pi:
        return 1, t - math.pi
    return 0, t


@njit(cache=True, nogil=True, inline="always")
def _bin_of(thresholds, lo, hi, value):
    """Number of thresholds in ``thresholds[lo:hi]`` strictly below ``value``.

    A binary search whose step is a multiply instead of a branch: the comparisons
    of successive rows are unpredictable, and a mispredicted branch per halving cost
    more than the whole search.
    """
    base = lo
    n = hi - lo
    while n > 1:
        half = n >> 1
        # Every threshold up to base + half - 1 is below value: the answer is past them.
        base += half * (thresholds[base + half - 1] < value)
        n -= half
    if n == 1:
        base += thresholds[base] < value
    return base - lo


@njit(cache=True, nogil=True, parallel=True)
def _transform(V, kinds, cuts, thresholds, thr_offsets, codes):
    n_features, n_samples = V.shape
    for f in prange(n_features):
        lo = thr_offsets[f]
        hi = thr_offsets[f + 1]
        half = hi - lo + 1
        if kinds[f] == CIRCULAR:
            for r in range(n_samples):
                theta = V[f, r]
                if theta < 0.0:
                    codes[f, r] = 2 * half  # at the plane's origin: always left
                else:
                    h, v = rotated_axial(theta, cuts[f])
                    codes[f, r] = _bin_of(thresholds, lo, hi, v) + half * h
        else:
            for r in range(n_samples):
                codes[f, r] = _bin_of(thresholds, lo, hi, V[f, r])


def _binning_subset(n_samples: int, random_state, weights):
    """The rows binning reads for large inputs (None: all of them).

    scikit-learn's rule: above ``BINNING_SUBSAMPLE`` rows, draw that many with replacement
    (weights as frequencies), then bin the draws unweighted.
    """
    if n_samples <= BINNING_SUBSAMPLE:
        return None
    p = None if weights is None else weights / weights.sum()
    return random_state.choice(n_samples, BINNING_SUBSAMPLE, p=p, replace=True)


@dataclass(frozen=True)
class PlaneBins:
    """Bin thresholds of every split plane, as flat arrays for the compiled kernels.

    Attributes
    ----------
    kind : ndarray of shape (n_features,), int8
        Plane kinds (``curvedtrees.trees._features`` LIFT / TIMELIKE / CIRCULAR).
    cut : ndarray of shape (n_features,), float64
        Rotation of each circular plane's angles before binning (0 for linear planes).
    thresholds : ndarray of shape (n_thresholds,), float64
        Every plane's inner thresholds, concatenated (axial keys for circular planes).
    thr_offsets : ndarray of shape (n_features + 1,), int64
        Plane ``f`` owns ``thresholds[thr_offsets[f]:thr_offsets[f + 1]]``.
    half : ndarray of shape (n_features,), int64
        Number of ordered (or axial) bins ``B`` of each plane.
    bin_offsets : ndarray of shape (n_features + 1,), int64
        Plane ``f`` owns histogram rows ``bin_offsets[f]:bin_offsets[f + 1]``: ``B`` of
        them for a linear plane, ``2 B + 1`` for a circular one (the last: origin rows).
    """

    kind: np.ndarray
    cut: np.ndarray
    thresholds: np.ndarray
    thr_offsets: np.ndarray
    half: np.ndarray
    bin_offsets: np.ndarray

    @classmethod
    def fit(
        cls,
        V: np.ndarray,
        kind: np.ndarray,
        max_bins: int,
        random_state: np.random.RandomState,
        weights: np.ndarray | None = None,
    ) -> PlaneBins:
        """Thresholds of every plane from the values of (a subsample of) the rows.

        Parameters
        ----------
        V : ndarray of shape (n_features, n_samples), float64
            Plane values (``SplitFeatures.values``).
        kind : ndarray of shape (n_features,), int8
        max_bins : int
            At most this many ordered (or axial) bins per plane, 2 to 255.
        random_state : RandomState
            Draws the subsample of ``BINNING_SUBSAMPLE`` rows for large inputs.
        weights : ndarray of shape (n_samples,) or None
            Sample weights: they weigh the percentiles, or the subsample's draws.
        """
        subset = _binning_subset(V.shape[1], random_state, weights)
        if subset is not None:
            V, weights = V[:, subset], None
        pieces, cuts = [], []
        for f in range(V.shape[0]):
            values = V[f]
            if kind[f] == CIRCULAR:
                on_plane = values >= 0.0
                angles = values[on_plane]
                if weights is not None:
                    angles = angles[weights[on_plane] != 0]
                cut = circular_cut(angles)
                axial = _axial_keys(angles, cut)
                w = None if weights is None else weights[on_plane][weights[on_plane] != 0]
                pieces.append(linear_thresholds(axial, max_bins, w))
                cuts.append(cut)
            else:
                pieces.append(linear_thresholds(values, max_bins, weights))
                cuts.append(0.0)
        return cls.from_arrays(kind, np.asarray(cuts, dtype=np.float64), pieces)

    @classmethod
    def fit_rows(cls, features, X, max_bins, random_state, weights=None) -> PlaneBins:
        """:meth:`fit` on the plane values of the rows of ``X``, computed only for the rows it bins.

        Parameters
        ----------
        features : SplitFeatures
        X : ndarray of shape (n_samples, ambient_dim), float64
        max_bins, random_state, weights
            As in :meth:`fit`, which this equals (the same subsample is drawn).
        """
        subset = _binning_subset(X.shape[0], random_state, weights)
        if subset is not None:
            X, weights = X[subset], None
        return cls.fit(features.values(X), features.kind, max_bins, random_state, weights)

    def transform_rows(self, features, X, circular_values):
        """Codes of the rows of ``X``, computing their plane values a block of rows at a time.

        Parameters
        ----------
        features : SplitFeatures
        X : ndarray of shape (n_samples, ambient_dim), float64
        circular_values : ndarray of shape (n_circular, n_samples), float64
            Output: the values (angles) of the circular planes, in plane order.

        Returns
        -------
        codes : ndarray of shape (n_features, n_samples), uint16
            As :meth:`transform` of all the values, without holding them all.
        """
        n_samples = X.shape[0]
        codes = np.empty((self.n_features, n_samples), dtype=np.uint16)
        circular = np.flatnonzero(self.kind == CIRCULAR)
        for lo in range(0, n_samples, TRANSFORM_ROWS):
            hi = min(n_samples, lo + TRANSFORM_ROWS)
            V = features.values(X[lo:hi])
            _transform(V, self.kind, self.cut, self.thresholds, self.thr_offsets, codes[:, lo:hi])
            circular_values[:, lo:hi] = V[circular]
        return codes

    @classmethod
    def from_arrays(cls, kind, cut, pieces) -> PlaneBins:
        """Assemble from per-plane threshold arrays."""
        kind = np.asarray(kind, dtype=np.int8)
        sizes = np.array([p.size for p in pieces], dtype=np.int64)
        thr_offsets = np.zeros(len(pieces) + 1, dtype=np.int64)
        np.cumsum(sizes, out=thr_offsets[1:])
        half = sizes + 1
        n_bins = np.where(kind == CIRCULAR, 2 * half + 1, half)
        bin_offsets = np.zeros(len(pieces) + 1, dtype=np.int64)
        np.cumsum(n_bins, out=bin_offsets[1:])
        thresholds = np.concatenate(pieces).astype(np.float64) if pieces else np.empty(0)
        return cls(kind, np.asarray(cut, dtype=np.float64), thresholds, thr_offsets, half, bin_offsets)

    @property
    def n_features(self) -> int:
        return self.kind.shape[0]

    def plane_thresholds(self, f: int) -> np.ndarray:
        """Inner thresholds of plane ``f`` (axial keys after the cut for circular planes)."""
        return self.thresholds[self.thr_offsets[f] : self.thr_offsets[f + 1]]

    def transform(self, V: np.ndarray) -> np.ndarray:
        """Codes of every plane value.

        Parameters
        ----------
        V : ndarray of shape (n_features, n_samples), float64

        Returns
        -------
        codes : ndarray of shape (n_features, n_samples), uint16
            Feature-major, like ``V``: a node's histogram reads one plane at a time.
        """
        codes = np.empty(V.shape, dtype=np.uint16)
        _transform(np.ascontiguousarray(V), self.kind, self.cut, self.thresholds, self.thr_offsets, codes)
        return codes


@njit(cache=True, nogil=True)
def _axial_keys_kernel(angles, cut, out):
    for k in range(angles.shape[0]):
        out[k] = rotated_axial(angles[k], cut)[1]


def _axial_keys(angles: np.ndarray, cut: float) -> np.ndarray:
    """Axial keys ``v`` of angles turned by ``-cut`` (the same arithmetic as the codes)."""
    out = np.empty(angles.shape[0])
    _axial_keys_kernel(np.ascontiguousarray(angles), cut, out)
    return out
