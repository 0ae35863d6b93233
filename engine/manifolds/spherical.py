"""Hyperspheres ``|x| = R = 1 / sqrt(K)`` in ambient coordinates.

Numerical design: every formula first normalises its points to the unit sphere
(``x / |x|``; this absorbs rounding drift) and uses expressions that stay
accurate both near zero distance and near antipodes:

* distance ``d = 2 R atan2(|x - y|, |x + y|)`` (``arccos(x . y)`` loses half the
  digits near 0 and near pi);
* ``log_x(y)`` from the projection of ``y - x`` (not of ``y``) onto ``T_x``,
  normalised by its own computed length;
* transport uses ``R^2 + x . y = |x + y|^2 / 2``.

At an antipode the geodesic is not unique: ``logmap`` and ``transp`` then use
one deterministic great circle (see ``_antipodal_direction``), so
``expmap(x, logmap(x, -x)) = -x`` still holds and no NaN appears.
"""

from __future__ import annotations

import numpy as np

from ._base import ComponentManifold
from ._common import format_number, row_blocks, row_dot, row_norm, safe_divide, sinc

__all__ = ["Spherical"]

# |x^ + y^| below which two unit vectors count as antipodal: the computed chord then
# carries no direction information (rounding leaves ~1e-16 per coordinate).
_ANTIPODE_TOL = 8 * np.finfo(np.float64).eps


def _unit(x):
    """``x / |x|`` (the zero vector, which has no direction, maps to the origin)."""
    norm = row_norm(x)[..., None]
    fallback = np.zeros(x.shape[-1])
    fallback[0] = 1.0
    return np.where(norm > 0, x / np.where(norm > 0, norm, 1.0), fallback)


def _nonzero(x):
    """C-contiguous copy of ``x`` with zero rows replaced by the unit origin (1, 0, ..., 0)."""
    x = np.array(x, dtype=np.float64, order="C")
    zero = ~np.any(x != 0, axis=-1)
    x[zero, 0] = 1.0
    return x


def _chords(x, y):
    """``(x/|x| - y/|y|, x/|x| + y/|y|)`` without rounding the normalisations first.

    With ``delta = |x| - |y| = (x - y).(x + y) / (|x| + |y|)``::

        x/|x| - y/|y| = ((x - y) - (y/|y|) delta) / |x|
        x/|x| + y/|y| = ((x + y) + (y/|y|) delta) / |x|

    so both stay accurate when they are tiny (near-equal or antipodal points).
    Zero vectors stand for the origin (they have no direction).
    """
    nx, ny = row_norm(x), row_norm(y)
    origin = np.zeros(x.shape[-1])
    origin[0] = 1.0
    x = np.where((nx > 0)[..., None], x, origin)
    y = np.where((ny > 0)[..., None], y, origin)
    nx, ny = np.where(nx > 0, nx, 1.0), np.where(ny > 0, ny, 1.0)
    diff, total = x - y, x + y
    delta = row_dot(diff, total) / (nx + ny)
    y_hat = y / ny[..., None]
    return (diff - delta[..., None] * y_hat) / nx[..., None], (total + delta[..., None] * y_hat) / nx[..., None]


def _antipodal_direction(x):
    """A unit tangent vector at the unit vector ``x``, chosen deterministically.

    ``e_k - x_k x`` normalised, for the axis ``k`` along which ``|x_k|`` is smallest
    (so the projection is far from zero). Used where the geodesic to the
    antipode is not unique.
    """
    k = np.argmin(np.abs(x), axis=-1)[..., None]
    t = -np.take_along_axis(x, k, axis=-1) * x
    np.put_along_axis(t, k, np.take_along_axis(t, k, axis=-1) + 1.0, axis=-1)
    return t / row_norm(t)[..., None]


def _unit_dist(x, y):
    """Angle between the directions of ``x`` and ``y``: ``2 atan2(|x^ - y^|, |x^ + y^|)``."""
    minus, plus = _chords(x, y)
    return 2.0 * np.arctan2(row_norm(minus), row_norm(plus))


class Spherical(ComponentManifold):
    """Hypersphere of curvature ``K > 0`` (radius ``1 / sqrt(K)``) in ``R^(dim + 1)``.

    Parameters
    ----------
    dim : int
        Intrinsic dimension (``S1`` is a circle, ``S2`` the usual sphere).
    curvature : float, default 1.0
        Positive sectional curvature ``K``.

    Notes
    -----
    The origin is ``(R, 0, ..., 0)``. Tangent vectors at ``x`` are ambient
    vectors orthogonal to ``x``.
    """

    kind = "S"

    def __init__(self, dim: int, curvature: float = 1.0):
        if not float(curvature) > 0:
            raise ValueError(f"a spherical component needs a positive curvature, got {curvature}")
        super().__init__(dim, curvature)

    def origin(self) -> np.ndarray:
        point = np.zeros(self.ambient_dim)
        point[0] = self.radius
        return point

    def dist(self, x, y) -> np.ndarray:
        return self.radius * _unit_dist(self._points(x, "x"), self._points(y, "y"))

    def _pdist_squared_into(self, X, Y, out):
        from ._kernels import spherical_chords  # compiled on first use

        # The kernel needs non-zero rows; a zero vector stands for the origin, as in ``dist``.
        A, B = _nonzero(X), _nonzero(Y)
        for block in row_blocks(len(A), len(B), buffers=2):
            minus = np.empty((block.stop - block.start, len(B)))
            plus = np.empty_like(minus)
            spherical_chords(A[block], B, minus, plus)
            angle = np.arctan2(np.sqrt(minus, out=minus), np.sqrt(plus, out=plus), out=minus)
            angle *= 2.0 * self.radius
            out[block] += np.square(angle, out=angle)

    def expmap(self, x, u) -> np.ndarray:
        """``cos(|u|/R) x + R sin(|u|/R) u / |u|``, renormalised onto the sphere."""
        x = _unit(self._points(x, "x"))
        u = self._points(u, "u") / self.radius
        t = row_norm(u)
        return self.radius * _unit(np.cos(t)[..., None] * x + sinc(t)[..., None] * u)

    def logmap(self, x, y) -> np.ndarray:
        """Tangent vector at ``x`` of length ``dist(x, y)`` pointing along the geodesic to ``y``.

        At (numerically) antipodal points every great circle through ``x`` reaches
        ``y``; the one through :func:`_antipodal_direction` is returned, so
        ``expmap(x, logmap(x, y))`` is still ``y``.
        """
        x = self._points(x, "x")
        y = self._points(y, "y")
        minus, plus = _chords(y, x)
        distance = 2.0 * np.arctan2(row_norm(minus), row_norm(plus))
        x = _unit(x)
        # Projection of y^ - x^ onto T_x; its length is sin(d) (computed, not assumed, so
        # the direction stays right near the antipode where sin(d) -> 0).
        v = minus - row_dot(x, minus)[..., None] * x
        antipodal = (row_norm(plus) <= _ANTIPODE_TOL)[..., None]
        v = np.where(antipodal, _antipodal_direction(x), v)
        scale = safe_divide(distance, row_norm(v))
        return self.radius * scale[..., None] * v

    def transp(self, x, y, v) -> np.ndarray:
        """``v - (y^ . v) / (1 + x^ . y^) (x^ + y^)`` with ``x^ = x / |x|``, ``y^ = y / |y|``.

        At antipodal points the transport is along the great circle that
        ``logmap`` picks: ``v - 2 (v . t) t`` with ``t = _antipodal_direction(x)``
        (for ``S1`` that is ``-v``, the only answer).
        """
        v = self._points(v, "v")
        minus, plus = _chords(self._points(y, "y"), self._points(x, "x"))
        x = _unit(self._points(x, "x"))
        # y^ . v = (y^ - x^) . v for v tangent at x: small, and accurate, when y is near x;
        # 1 + x^ . y^ = |x^ + y^|^2 / 2 has no cancellation.
        coefficient = safe_divide(2.0 * row_dot(minus, v), row_dot(plus, plus))
        moved = v - coefficient[..., None] * plus
        t = _antipodal_direction(x)
        flipped = v - 2.0 * row_dot(v, t)[..., None] * t
        return np.where((row_norm(plus) <= _ANTIPODE_TOL)[..., None], flipped, moved)

    def _projx(self, x) -> np.ndarray:
        """``R x / |x|``: the nearest point of the sphere (the origin for ``x = 0``; NaN rows stay NaN)."""
        return self.radius * _unit(x)

    def proju(self, x, u) -> np.ndarray:
        x = _unit(self._points(x, "x"))
        u = self._points(u, "u")
        return u - row_dot(x, u)[..., None] * x

    def _membership(self, x, rtol):
        norms = row_norm(x)
        ok = np.abs(norms - self.radius) <= rtol * self.radius

        def describe(row):
            return (
                f"has norm {format_number(norms[row])}, expected {format_number(self.radius)} "
                f"+- {format_number(rtol)} relative"
            )

        return ok, describe
