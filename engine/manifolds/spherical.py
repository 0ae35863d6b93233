"""Hyperspheres ``|x| = R = 1 / sqrt(K)`` in ambient coordinates.

Numerical design: every formula first normalises its points to the unit sphere
(``x / |x|``; this absorbs rounding drift) and uses expressions that stay
accurate both near zero distance and near antipodes:

* distance ``d = 2 R atan2(|x - y|, |x + y|)`` (``arccos(x . y)`` loses half the
  digits near 0 and near pi);
* ``log_x(y)`` from the projection of ``y - x`` (not of ``y``) onto ``T_x``,
  normalised by its own computed length;
* transport uses ``R^2 + x . y = |x + y|^2 / 2``.

At an exact antipode the geodesic is not unique: ``logmap`` returns the zero
vector there and ``transp`` returns ``v`` unchanged (the transport along one of
the great circles through both points). Both are documented choices, not NaNs.
"""

from __future__ import annotations

import numpy as np

from engine.manifolds._base import ComponentManifold
from engine.manifolds._common import row_dot, row_norm, safe_divide, sinc

__all__ = ["Spherical"]


def _unit(x):
    """``x / |x|`` (the zero vector, which has no direction, maps to the origin)."""
    norm = row_norm(x)[..., None]
    fallback = np.zeros(x.shape[-1])
    fallback[0] = 1.0
    return np.where(norm > 0, x / np.where(norm > 0, norm, 1.0), fallback)


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

    def inner(self, x, u, v=None) -> np.ndarray:
        x = self._points(x, "x")
        u = self._points(u, "u")
        v = u if v is None else self._points(v, "v")
        return row_dot(u, v) + np.zeros(x.shape[:-1])

    def dist(self, x, y) -> np.ndarray:
        return self.radius * _unit_dist(self._points(x, "x"), self._points(y, "y"))

    def _pdist_block(self, x, y):
        return self.radius * _unit_dist(x[:, None, :], y[None, :, :])

    def expmap(self, x, u) -> np.ndarray:
        """``cos(|u|/R) x + R sin(|u|/R) u / |u|``, renormalised onto the sphere."""
        x = _unit(self._points(x, "x"))
        u = self._points(u, "u") / self.radius
        t = row_norm(u)
        return self.radius * _unit(np.cos(t)[..., None] * x + sinc(t)[..., None] * u)

    def logmap(self, x, y) -> np.ndarray:
        x = self._points(x, "x")
        y = self._points(y, "y")
        minus, plus = _chords(y, x)
        distance = 2.0 * np.arctan2(row_norm(minus), row_norm(plus))
        x = _unit(x)
        # Projection of y^ - x^ onto T_x; its length is sin(d) (computed, not assumed, so
        # the direction stays right near the antipode where sin(d) -> 0).
        v = minus - row_dot(x, minus)[..., None] * x
        scale = safe_divide(distance, row_norm(v))
        return self.radius * scale[..., None] * v

    def transp(self, x, y, v) -> np.ndarray:
        """``v - 2 (y . v) / |x + y|^2 (x + y)`` on the unit sphere."""
        x = _unit(self._points(x, "x"))
        y = _unit(self._points(y, "y"))
        v = self._points(v, "v")
        total = x + y
        # y . v = (y - x) . v for v tangent at x: small, and accurate, when y is near x.
        coefficient = safe_divide(2.0 * row_dot(y - x, v), row_dot(total, total))
        return v - coefficient[..., None] * total

    def projx(self, x) -> np.ndarray:
        """``R x / |x|``: the nearest point of the sphere (the origin for ``x = 0``)."""
        return self.radius * _unit(self._points(x, "x"))

    def proju(self, x, u) -> np.ndarray:
        x = _unit(self._points(x, "x"))
        u = self._points(u, "u")
        return u - row_dot(x, u)[..., None] * x

    def _membership(self, x, rtol):
        norms = row_norm(x)
        ok = np.abs(norms - self.radius) <= rtol * self.radius

        def describe(row):
            return f"has norm {norms[row]:.6g}, expected {self.radius:.6g} +- {rtol:g} relative"

        return ok, describe
