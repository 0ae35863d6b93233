"""Compiled kernels (numba): pairwise distances for ``pdist``, and the rows check of ``validate``.

The distance kernels evaluate exactly the formulas of ``hyperbolic._unit_half_chord``
and ``spherical._chords`` pair by pair, so no ``(n, m, ambient_dim)`` temporaries
are needed. They stop before the transcendental step (``asinh`` / ``atan2``),
which NumPy then applies to whole blocks about ten times faster than a scalar
call per pair.

:func:`rows_clear` is the fast path of ``ProductManifold.validate``: one pass over
the rows that proves them finite and on the manifold, or hands them to the NumPy
checks, which find the reason.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

__all__ = ["ROWS_E", "ROWS_H", "ROWS_S", "hyperbolic_half_chords", "rows_clear", "spherical_chords"]


@njit(cache=True, nogil=True)
def _row_norms(A):
    out = np.empty(A.shape[0])
    for i in range(A.shape[0]):
        total = 0.0
        for k in range(A.shape[1]):
            total += A[i, k] * A[i, k]
        out[i] = math.sqrt(total)
    return out


@njit(cache=True, nogil=True)
def hyperbolic_half_chords(A, B, out):
    """``out[i, j] = sinh^2(d(A_i, B_j) / 2)`` for unit-hyperboloid spatial parts ``A`` (n, d), ``B`` (m, d)."""
    n, d = A.shape
    m = B.shape[0]
    # The loops read B[j, k] for k < d and write out[i, j]; numba does not bounds-check.
    if B.shape[1] != d or out.shape[0] != n or out.shape[1] != m:
        raise ValueError("hyperbolic_half_chords: A and B need the same width and out the shape (len(A), len(B))")
    norm_a = _row_norms(A)
    norm_b = _row_norms(B)
    cosh_a = np.sqrt(1.0 + norm_a * norm_a)
    cosh_b = np.sqrt(1.0 + norm_b * norm_b)
    for i in range(n):
        for j in range(m):
            # The larger-norm point plays ``a`` (as in the NumPy kernel, for symmetry).
            if norm_b[j] > norm_a[i]:
                a, b, na, nb, ca, cb = B[j], A[i], norm_b[j], norm_a[i], cosh_b[j], cosh_a[i]
            else:
                a, b, na, nb, ca, cb = A[i], B[j], norm_a[i], norm_b[j], cosh_a[i], cosh_b[j]
            dot = 0.0
            for k in range(d):
                dot += (a[k] - b[k]) * (a[k] + b[k])
            denominator = na * cb + nb * ca
            s = dot / denominator if denominator > 0.0 else 0.0
            half = s * s / (2.0 * (1.0 + math.sqrt(1.0 + s * s)))
            if nb > 0.0:
                b_hat_scale = dot / ((na + nb) * nb)  # delta / |b|, with delta = |a| - |b|
                ww = 0.0
                for k in range(d):
                    w = (a[k] - b[k]) - b_hat_scale * b[k]
                    ww += w * w
                half += nb / na * ww * 0.25
            out[i, j] = half


@njit(cache=True, nogil=True)
def spherical_chords(A, B, minus, plus):
    """Squared chords ``|A_i^ - B_j^|^2 |A_i|^2`` and ``|A_i^ + B_j^|^2 |A_i|^2`` for non-zero rows.

    (The common factor ``|A_i|^2`` cancels in ``atan2(sqrt(minus), sqrt(plus))``.)
    """
    n, d = A.shape
    m = B.shape[0]
    if B.shape[1] != d or minus.shape != (n, m) or plus.shape != (n, m):  # as above: no bounds checks in numba
        raise ValueError("spherical_chords: A and B need the same width, minus and plus the shape (len(A), len(B))")
    na_all = _row_norms(A)
    nb_all = _row_norms(B)
    for i in range(n):
        x = A[i]
        nx = na_all[i]
        for j in range(m):
            y = B[j]
            ny = nb_all[j]
            dot = 0.0
            for k in range(d):
                dot += (x[k] - y[k]) * (x[k] + y[k])
            y_hat_scale = dot / ((nx + ny) * ny)  # delta / |y|, with delta = |x| - |y|
            mm = 0.0
            pp = 0.0
            for k in range(d):
                correction = y_hat_scale * y[k]
                t = (x[k] - y[k]) - correction
                mm += t * t
                t = (x[k] + y[k]) + correction
                pp += t * t
            minus[i, j] = mm
            plus[i, j] = pp


# What rows_clear checks in a component: finiteness only (E, or any component when
# the manifold is not checked), the sphere's norm (S), the hyperboloid's x0 (H).
ROWS_E, ROWS_S, ROWS_H = 0, 1, 2


@njit(cache=True, nogil=True)
def rows_clear(X, kinds, starts, stops, radii, tolerances):
    """Whether every row of ``X`` is finite and, clearly, on its components.

    One pass over the rows, nothing allocated. For S, ``| |x| - R | <= tol R``; for H,
    ``|x0 - R sqrt(1 + |x_1..|^2 / R^2)| <= tol x0_expected`` (the formulas of the
    components' ``_membership``); a NaN or infinity fails these comparisons (an
    infinite H row is refused explicitly), so the S and H tests also prove their
    coordinates finite. A False means "not proven":
    the caller then runs the NumPy checks, which decide and say why.

    Parameters
    ----------
    X : ndarray of shape (n_samples, ambient_dim), float64, C-contiguous
    kinds : ndarray of shape (n_components,), int64
        ``ROWS_E``, ``ROWS_S`` or ``ROWS_H``.
    starts, stops : ndarray of shape (n_components,), int64
        Column range of each component.
    radii, tolerances : ndarray of shape (n_components,), float64
        ``1/sqrt(|K|)`` and the relative tolerance of each component.

    Returns
    -------
    bool
    """
    for r in range(X.shape[0]):
        for c in range(kinds.shape[0]):
            kind = kinds[c]
            if kind == ROWS_E:
                for k in range(starts[c], stops[c]):
                    if not math.isfinite(X[r, k]):
                        return False
            elif kind == ROWS_S:
                total = 0.0
                for k in range(starts[c], stops[c]):
                    total += X[r, k] * X[r, k]
                if not abs(math.sqrt(total) - radii[c]) <= tolerances[c] * radii[c]:
                    return False
            else:
                radius = radii[c]
                total = 0.0
                for k in range(starts[c] + 1, stops[c]):
                    scaled = X[r, k] / radius
                    total += scaled * scaled
                expected = radius * math.sqrt(1.0 + total)
                # An infinite spatial coordinate makes both sides infinite (inf <= inf): refused apart.
                if not (abs(X[r, starts[c]] - expected) <= tolerances[c] * expected and expected < math.inf):
                    return False
    return True
