"""Hyperbolic space in the hyperboloid (Lorentz) model.

Points satisfy ``x0^2 - |x_s|^2 = R^2`` with ``x0 > 0`` and ``R = 1 / sqrt(-K)``;
``x_s = x[..., 1:]`` is the spatial part. The Minkowski inner product is
``<u, v>_L = -u0 v0 + u_s . v_s``.

Numerical design. Far from the origin (radius 30 means ``x0 ~ 5e12``) the
textbook formulas cancel catastrophically: ``acosh(-<x, y>_L)`` and the
Minkowski norm of ``y - x`` subtract numbers of size ``x0^2`` to get a result
of size ``d^2``. Every formula below works from the spatial parts only and in
polar terms (``sinh r = |x_s| / R``), where all terms are positive:

* distance, from the hyperbolic law of cosines rewritten with half-angles::

      sinh^2(d / 2R) = sinh^2((r1 - r2) / 2) + sinh r1 sinh r2 sin^2(theta / 2)

  with ``sin(theta / 2) = |x_s/|x_s| - y_s/|y_s|| / 2`` and ``r1 - r2`` from the
  ``asinh`` subtraction identity (no cancellation near zero distance);
* the tangent metric, ``<u, v> = u_perp . v_perp + a_u a_v R^2 / x0^2`` where
  ``a_u`` is the component of ``u_s`` along ``x_s`` (exact for tangent vectors);
* parallel transport, through the origin (both legs are exact rescalings of the
  radial component) followed by the holonomy rotation of the geodesic triangle;
* the time coordinate of every output point is recomputed as
  ``sqrt(R^2 + |x_s|^2)`` and that of every output tangent vector from
  tangency (``u0 = x_s . u_s / x0``), so outputs lie on the manifold to
  rounding and inputs' time coordinates are never subtracted.

The kernels ``_unit_*`` work on the unit hyperboloid (``K = -1``); the class
scales by ``R`` (the map ``x -> x / R`` is an isometry up to the factor ``R``).
"""

from __future__ import annotations

import numpy as np

from ._base import ComponentManifold
from ._common import format_number, format_rows, row_blocks, row_dot, row_norm, safe_divide, sinhc

__all__ = ["Hyperbolic"]


# ------------------------------------------------------------------ unit kernels
def _time(xs):
    """Time coordinate of the unit-hyperboloid point with spatial part ``xs``."""
    return np.sqrt(1.0 + row_dot(xs, xs))


def _direction(xs):
    """(|xs|, xs / |xs|), with direction 0 at the origin (where it is undefined)."""
    norm = row_norm(xs)
    return norm, safe_divide(xs, norm[..., None])


def _unit_half_chord(xs, ys):
    """``sinh^2(d / 2)`` for unit-hyperboloid points with spatial parts ``xs``, ``ys``.

    ``d`` is the geodesic distance; see the module docstring for the formula.
    Differences of nearby quantities are never taken after rounding: the
    difference of the radii and of the directions both come from ``xs - ys``::

        |a| - |b| = (a - b).(a + b) / (|a| + |b|)
        a/|a| - b/|b| = ((a - b) - (b/|b|) (|a| - |b|)) / |a|

    The larger-norm point plays ``a`` so the result is symmetric in its arguments.
    """
    na, nb = row_norm(xs), row_norm(ys)
    swap = (nb > na)[..., None]
    a, b = np.where(swap, ys, xs), np.where(swap, xs, ys)
    na, nb = np.maximum(na, nb), np.minimum(na, nb)
    diff, total = a - b, a + b
    ca, cb = np.sqrt(1.0 + na * na), np.sqrt(1.0 + nb * nb)  # cosh r1, cosh r2
    # sinh(r1 - r2) = sinh r1 cosh r2 - cosh r1 sinh r2 = (na^2 - nb^2) / (na cb + nb ca).
    dot = row_dot(diff, total)
    s = safe_divide(dot, na * cb + nb * ca)
    # sinh^2(t/2) = (cosh t - 1) / 2 = sinh^2 t / (2 (cosh t + 1)): no cancellation.
    radial = s * s / (2.0 * (1.0 + np.sqrt(1.0 + s * s)))
    # sinh r1 sinh r2 sin^2(theta/2) = na nb |a/na - b/nb|^2 / 4 = (nb / na) |w|^2 / 4.
    delta = safe_divide(dot, na + nb)  # |a| - |b|
    b_hat = safe_divide(b, nb[..., None])
    w = diff - delta[..., None] * b_hat
    angular = safe_divide(nb, na) * row_dot(w, w) / 4.0
    return radial + angular


def _unit_dist(xs, ys):
    """Geodesic distance on the unit hyperboloid: ``2 asinh(sqrt(sinh^2(d/2)))``."""
    return 2.0 * np.arcsinh(np.sqrt(_unit_half_chord(xs, ys)))


def _unit_inner(xs, us, vs):
    """Metric ``<u, v>_L`` at ``x`` for tangent vectors, from spatial parts only.

    Split ``u_s = a_u x_hat + u_perp``; tangency gives ``u0 = a_u |x_s| / x0``, so
    ``<u, v>_L = u_perp . v_perp + a_u a_v (1 - |x_s|^2 / x0^2) = u_perp . v_perp +
    a_u a_v / x0^2``: a sum of well-conditioned terms, even when ``x0 ~ 1e12``.
    """
    _, x_hat = _direction(xs)
    x0 = _time(xs)
    a_u = row_dot(x_hat, us)
    a_v = row_dot(x_hat, vs)
    u_perp = us - a_u[..., None] * x_hat
    v_perp = vs - a_v[..., None] * x_hat
    return row_dot(u_perp, v_perp) + a_u * a_v / (x0 * x0)


def _unit_expmap(xs, us):
    """Spatial part of ``cosh(|u|) x + sinh(|u|) u / |u|`` on the unit hyperboloid."""
    t = np.sqrt(np.maximum(_unit_inner(xs, us, us), 0.0))
    return np.cosh(t)[..., None] * xs + sinhc(t)[..., None] * us


def _unit_logmap(xs, ys):
    """Spatial part of ``log_x(y)`` on the unit hyperboloid.

    The Minkowski-orthogonal projection of ``y - x`` onto ``T_x`` is
    ``v = (y - x) - 2 sinh^2(d/2) x`` (because ``<x, y - x>_L = -2 sinh^2(d/2)``),
    whose length is ``sinh d``; ``log_x(y) = d / sinh(d) * v``.
    """
    half = _unit_half_chord(xs, ys)
    d = 2.0 * np.arcsinh(np.sqrt(half))
    vs = (ys - xs) - (2.0 * half)[..., None] * xs
    return (1.0 / sinhc(d))[..., None] * vs


def _to_origin(xs, vs):
    """Parallel transport of the tangent vector ``v`` at ``x`` to the origin, as a spatial vector.

    The geodesic from ``x`` to the origin lies in the plane of ``e_0`` and
    ``x_hat = x_s / |x_s|``: tangent directions orthogonal to that plane are
    carried unchanged, and the radial unit vector at ``x`` (spatial part
    ``x0 x_hat``) becomes ``x_hat``. So ``v_s = a x_hat + v_perp`` maps to
    ``v_perp + (a / x0) x_hat``: no cancellation however far ``x`` is.
    """
    _, x_hat = _direction(xs)
    a = row_dot(x_hat, vs)
    return vs + (a / _time(xs) - a)[..., None] * x_hat


def _from_origin(ys, ws):
    """Spatial part of the parallel transport of the spatial vector ``w`` from the origin to ``y``."""
    _, y_hat = _direction(ys)
    b = row_dot(y_hat, ws)
    return ws + (b * _time(ys) - b)[..., None] * y_hat


def _unit_transp(xs, ys, vs):
    """Spatial part of the parallel transport of ``v`` (tangent at ``x``) to ``y``.

    The textbook ``v + <y, v>_L / (1 - <x, y>_L) (x + y)`` subtracts terms of size
    ``x0 |v|`` (relative error ~1e-16 x0^2: 1e-3 fifteen units out). Instead the
    transport goes through the origin, whose legs are exact (``_to_origin``,
    ``_from_origin``), and corrects by the holonomy of the geodesic triangle
    (origin, x, y): a rotation of the plane spanned by ``x_hat`` and ``y_hat`` by
    minus the triangle's area ``A`` (Gauss-Bonnet with K = -1), where

        tan(A / 2) = p sin(theta) / (1 - p cos(theta)),  p = tanh(r_x / 2) tanh(r_y / 2),

    with ``theta`` the angle between ``x_hat`` and ``y_hat`` and every term computed
    without cancellation (``1 - p`` from ``x0 y0 - |x_s||y_s| = (1 + |x_s|^2 + |y_s|^2) /
    (x0 y0 + |x_s||y_s|)``, the half-angle from the chords of the directions).
    """
    nx, x_hat = _direction(xs)
    ny = row_norm(ys)
    cx, cy = _time(xs), _time(ys)
    # Chords of the directions: y^ - x^ = ((y - x) - x^ (|y| - |x|)) / |y|, and likewise y^ + x^.
    delta = safe_divide(row_dot(ys - xs, ys + xs), nx + ny)  # |y_s| - |x_s|
    minus = safe_divide((ys - xs) - delta[..., None] * x_hat, ny[..., None])
    plus = safe_divide((ys + xs) + delta[..., None] * x_hat, ny[..., None])
    # Half-chords of unit vectors lie in [0, 1]. When |y_s| (or |x_s|) is below the rounding of
    # the other, the chords above are a rounding error divided by it and can be huge; clipped,
    # the triangle is flat (p ~ |x_s||y_s| ~ 0), so its area, hence the rotation, is ~0 as it should be.
    sin_half = np.minimum(row_norm(minus) / 2.0, 1.0)
    cos_half = np.minimum(row_norm(plus) / 2.0, 1.0)
    p = nx * ny / ((cx + 1.0) * (cy + 1.0))
    one_minus_p = ((1.0 + nx * nx + ny * ny) / (cx * cy + nx * ny) + cx + cy + 1.0) / ((cx + 1.0) * (cy + 1.0))
    area = 2.0 * np.arctan2(p * 2.0 * sin_half * cos_half, one_minus_p + p * 2.0 * sin_half * sin_half)
    # Orthonormal basis (x^, e2) of the triangle's plane; e2 = 0 (no rotation) when the triangle is flat.
    e2 = minus - row_dot(minus, x_hat)[..., None] * x_hat
    e2 = safe_divide(e2, row_norm(e2)[..., None])
    w = _to_origin(xs, vs)
    w1, w2 = row_dot(w, x_hat), row_dot(w, e2)
    shrink = -2.0 * np.sin(-area / 2.0) ** 2  # cos(phi) - 1 without cancellation, phi = -area
    turn = np.sin(-area)
    w = w + (shrink * w1 - turn * w2)[..., None] * x_hat + (shrink * w2 + turn * w1)[..., None] * e2
    return _from_origin(ys, w)


# ------------------------------------------------------------------------ class
class Hyperbolic(ComponentManifold):
    """Hyperbolic space of curvature ``K < 0`` in the hyperboloid model.

    Parameters
    ----------
    dim : int
        Intrinsic dimension; points have ``dim + 1`` ambient coordinates, the
        timelike coordinate first.
    curvature : float, default -1.0
        Negative sectional curvature ``K``; the hyperboloid is
        ``x0^2 - |x_s|^2 = 1 / |K|``.

    Notes
    -----
    Tangent vectors are ambient vectors ``u`` with ``<x, u>_L = 0``. Methods
    that take a tangent vector read only its spatial part ``u[..., 1:]`` (the
    time coordinate is fixed by tangency), and every returned tangent vector
    has its time coordinate set by tangency.

    Examples
    --------
    >>> H = Hyperbolic(2)
    >>> x = H.expmap0([0.0, 30.0, 0.0])          # 30 units from the origin
    >>> float(H.dist(H.origin(), x))
    30.0
    """

    kind = "H"

    def __init__(self, dim: int, curvature: float = -1.0):
        if not float(curvature) < 0:
            raise ValueError(f"a hyperbolic component needs a negative curvature, got {curvature}")
        super().__init__(dim, curvature)

    # ------------------------------------------------------------ conversions
    def _unit(self, x, what):
        """Spatial part of ``x`` divided by ``R`` (unit-hyperboloid coordinates)."""
        return self._points(x, what)[..., 1:] / self.radius

    def _point(self, unit_s):
        """Ambient point of radius R from a unit spatial part (time recomputed)."""
        return self.radius * np.concatenate([_time(unit_s)[..., None], unit_s], axis=-1)

    def _reachable(self, compute, *args):
        """Run an exponential map; a ValueError instead of inf when the result overflows float64.

        cosh(t) overflows beyond t ~ 710: no float64 point lies ~710 radii from the origin.
        """
        with np.errstate(over="ignore", invalid="ignore"):
            unit_s = compute(*args)
            point = self._point(unit_s)
        bad = ~np.isfinite(point).all(axis=-1)
        if np.any(bad):
            rows = np.flatnonzero(np.reshape(bad, -1))
            raise ValueError(
                f"{self.name}: the exponential map leaves the range of float64 for {len(rows)} row(s) "
                f"(flat indices {format_rows(rows)}); points ~700 radii ({700 * self.radius:g} units) or more "
                "from the origin cannot be represented in ambient coordinates"
            )
        return point

    def _tangent(self, unit_xs, us):
        """Ambient tangent vector at the point with unit spatial part ``unit_xs``."""
        u0 = row_dot(unit_xs, us) / _time(unit_xs)
        return np.concatenate([u0[..., None], us], axis=-1)

    # -------------------------------------------------------------- vocabulary
    def origin(self) -> np.ndarray:
        point = np.zeros(self.ambient_dim)
        point[0] = self.radius
        return point

    def inner(self, x, u, v=None) -> np.ndarray:
        xs = self._unit(x, "x")
        us = self._points(u, "u")[..., 1:]
        vs = us if v is None else self._points(v, "v")[..., 1:]
        return _unit_inner(xs, us, vs)

    def dist(self, x, y) -> np.ndarray:
        return self.radius * _unit_dist(self._unit(x, "x"), self._unit(y, "y"))

    def _pdist_squared_into(self, X, Y, out):
        from ._kernels import hyperbolic_half_chords  # compiled on first use

        A, B = X[:, 1:] / self.radius, Y[:, 1:] / self.radius
        for block in row_blocks(len(A), len(B)):
            half = np.empty((block.stop - block.start, len(B)))
            hyperbolic_half_chords(A[block], B, half)
            distance = np.arcsinh(np.sqrt(half, out=half), out=half)
            distance *= 2.0 * self.radius
            out[block] += np.square(distance, out=distance)

    def expmap(self, x, u) -> np.ndarray:
        xs = self._unit(x, "x")
        us = self._points(u, "u")[..., 1:] / self.radius
        return self._reachable(_unit_expmap, xs, us)

    def expmap0(self, u) -> np.ndarray:
        # At the origin x_s = 0: exp_0(u) has spatial part sinh(|u|) u / |u|.
        us = self._points(u, "u")[..., 1:] / self.radius
        return self._reachable(lambda v: sinhc(row_norm(v))[..., None] * v, us)

    def logmap(self, x, y) -> np.ndarray:
        xs = self._unit(x, "x")
        ys = self._unit(y, "y")
        xs, ys = np.broadcast_arrays(xs, ys)
        return self.radius * self._tangent(xs, _unit_logmap(xs, ys))

    def logmap0(self, y) -> np.ndarray:
        # At the origin: log_0(y) = (0, asinh(|y_s|) y_s / |y_s|) on the unit hyperboloid.
        ys = self._unit(y, "y")
        norm = row_norm(ys)
        scale = safe_divide(np.arcsinh(norm), norm, fill=1.0)
        return self.radius * np.concatenate([np.zeros((*ys.shape[:-1], 1)), scale[..., None] * ys], axis=-1)

    def transp(self, x, y, v) -> np.ndarray:
        xs = self._unit(x, "x")
        ys = self._unit(y, "y")
        vs = self._points(v, "v")[..., 1:]
        xs, ys, vs = np.broadcast_arrays(xs, ys, vs)
        return self._tangent(ys, _unit_transp(xs, ys, vs))

    def transp0(self, y, u) -> np.ndarray:
        # From the origin the transport is exact and cheap (see ``_from_origin``).
        ys = self._unit(y, "y")
        us = self._points(u, "u")[..., 1:]
        ys, us = np.broadcast_arrays(ys, us)
        return self._tangent(ys, _from_origin(ys, us))

    def _projx(self, x) -> np.ndarray:
        """Keep the spatial coordinates and set ``x0 = sqrt(R^2 + |x_s|^2)``.

        The hyperboloid is the graph of that function over the spatial
        coordinates, so this is the nearest manifold point along the time axis
        (geoopt's convention), defined for every input. The Euclidean-nearest
        point is not used: it needs a root search and is not even unique (for
        ``(x0, 0, ..., 0)`` with ``x0 > 2R`` a whole ring is nearest). A row with a
        NaN or infinite coordinate, ``x0`` included, gives a row of NaN (``projx``).
        """
        return self._point(x[..., 1:] / self.radius)

    def proju(self, x, u) -> np.ndarray:
        """``u + <x, u>_L / R^2 x``: the Minkowski-orthogonal projection onto ``T_x``."""
        x = self._points(x, "x")
        u = self._points(u, "u")
        inner = row_dot(x[..., 1:], u[..., 1:]) - x[..., 0] * u[..., 0]
        us = u[..., 1:] + (inner / self.radius**2)[..., None] * x[..., 1:]
        xs = x[..., 1:] / self.radius
        xs, us = np.broadcast_arrays(xs, us)
        return self._tangent(xs, us)

    def _membership(self, x, rtol):
        # Compare x0 with the value the spatial part implies, relative to its size:
        # an error of rtol * x0 in x0 is an intrinsic (radial) error of about rtol * R.
        expected = self.radius * _time(x[:, 1:] / self.radius)
        ok = np.abs(x[:, 0] - expected) <= rtol * expected

        def describe(row):
            x0 = x[row, 0]
            if x0 <= 0:
                return (
                    f"has x0 = {format_number(x0)} <= 0; hyperboloid points have a positive first (timelike) coordinate"
                )
            message = (
                f"has x0 = {format_number(x0)}, expected sqrt(1/|K| + |x_1..|^2) = {format_number(expected[row])} "
                f"+- {format_number(rtol)} relative (curvature {format_number(self.curvature)}"
            )
            # The Minkowski norm is only informative where x0^2 - |x_s|^2 keeps some digits.
            if x0 < 1e4 * self.radius:
                minkowski = np.sqrt(abs(x0**2 - row_dot(x[row, 1:], x[row, 1:])))
                message += f"; Minkowski norm {format_number(minkowski)}, expected {format_number(self.radius)}"
            return message + ")"

        return ok, describe
