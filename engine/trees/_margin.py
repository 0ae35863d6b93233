"""Maximum-margin boundaries for a chosen split.

Once the split search has chosen a partition of a node's points by a line through
the origin of a coordinate plane, many lines induce that same partition. We store
the one that maximises the smallest geodesic distance from the node's points to the
boundary hypersurface.

Every geometry's distance from a point ``x`` to a homogeneous hyperplane with unit
normal ``n`` is a monotone function of ``|<x, n>|``:

* S (radius R): ``R asin(|<x, n>| / R)``;
* H (radius R): ``R asinh(|<x, n>_L| / R)`` with the Minkowski product and ``n``
  spacelike with ``<n, n>_L = 1``;
* E: ``|<x, n>|`` (for a lift pair, the distance to the threshold ``|x_j - t|``).

So the search can maximise the smallest *plane value* ``|<x, n>|`` and convert the
result to a geodesic distance once (:func:`geodesic_margin`). Three cases:

* lift pairs (E): the optimum is CART's midpoint between the two adjacent values;
* timelike pairs (H, ``i = 0``): for the boundary ``x_j = t x_0`` the plane value is
  ``|x_j - t x_0| / sqrt(1 - t^2)``. On the feasible interval the smallest value on
  the left grows with ``t`` and the smallest on the right shrinks, and the shared
  denominator cancels, so the optimum solves
  ``min_left (t a - b) = min_right (b - t a)`` (``a = x_0``, ``b = x_j``), a monotone
  piecewise-linear equation solved by bisection on a pruned set of points;
* circular pairs: for a line with direction ``phi`` the plane value of a point at
  polar coordinates ``(r, alpha)`` is ``r |sin(alpha - phi)|``. On the feasible arc
  every term is a positive, concave sinusoid, so their minimum is concave and a
  golden-section search finds its maximum; both ends of the line count.

A radial split (``splits="geodesic+radial"``) thresholds one ambient coordinate and is
not a plane through the origin; its boundary is a sphere about the origin (H) or a small
circle about an axis pole (S), and a point's geodesic distance to it is the difference
of radii measured along the radial geodesic through the point: ``|d - d_t|`` on H
(``d = R arccosh(x_0 / R)``), ``R |theta - theta_t|`` on S (``theta = arccos(x_k / R)``).
So its maximum-margin boundary sits halfway between the two neighbouring rows in that
distance (:func:`radial_threshold`): no search at all, the margin is already geodesic.

In each case a first pass prunes the points that cannot be nearest anywhere on the
feasible interval, so the exact search runs on a handful of points.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

__all__ = [
    "circular_direction",
    "geodesic_margin",
    "hyperbolic_threshold",
    "lift_threshold",
    "radial_gap",
    "radial_threshold",
]

# Iteration caps: bisection halves the interval, golden section shrinks it by 0.618;
# both reach the spacing of float64 well before these counts and stop early there.
_BISECTION_STEPS = 200
_GOLDEN_STEPS = 200
_INV_PHI = (math.sqrt(5.0) - 1.0) / 2.0


@njit(cache=True, nogil=True)
def lift_threshold(v_lo, v_hi):
    """CART's midpoint between two adjacent values (the maximum-margin threshold in E).

    Returns ``(t, margin)`` with ``v_lo <= t < v_hi``.
    """
    # Halve before adding so the sum cannot overflow; if rounding lands the midpoint
    # on v_hi (adjacent floats), use v_lo so that "x <= t" still sends v_lo left and
    # v_hi right, as scikit-learn does.
    t = v_lo / 2.0 + v_hi / 2.0
    if t >= v_hi or not math.isfinite(t):
        t = v_lo
    return t, min(t - v_lo, v_hi - t)


@njit(cache=True, nogil=True)
def _radial_distance(x, geometry, radius):
    """The geodesic radius of a row from its radial coordinate (see :func:`radial_threshold`)."""
    if geometry == 1:
        # x_0 >= R on the hyperboloid, up to the rounding of the row (check_point's
        # tolerance): a ratio a hair below 1 is a point at the origin, not a NaN.
        return radius * math.acosh(max(x / radius, 1.0))
    # |x_k| <= R on the sphere, up to rounding: clip so that acos stays defined.
    return radius * math.acos(min(max(x / radius, -1.0), 1.0))


@njit(cache=True, nogil=True)
def radial_threshold(v_lo, v_hi, geometry, radius):
    """Maximum-margin threshold of a radial split between two adjacent coordinates.

    Parameters
    ----------
    v_lo, v_hi : float
        The largest coordinate on the left and the smallest on the right (``v_lo < v_hi``):
        ``x_0`` of an H component, ``x_k`` of an S component.
    geometry : int
        1 for H, 2 for S (``GEOMETRY_CODES``).
    radius : float
        ``R = 1 / sqrt|K|`` of the component.

    Returns
    -------
    t : float
        The threshold on the coordinate, ``v_lo <= t < v_hi``: H's ``R cosh(d_mid / R)`` with
        ``d_mid`` the mean of the two distances from the origin, S's ``R cos(theta_mid)``
        with ``theta_mid`` the mean of the two angles from the pole ``+e_k``.
    margin : float
        The geodesic distance from the boundary to the nearer of the two rows (half the
        gap in distance or in angle times ``R``), the smallest over the node's rows since
        the others lie farther out along their radial geodesics.
    """
    d_lo = _radial_distance(v_lo, geometry, radius)
    d_hi = _radial_distance(v_hi, geometry, radius)
    # Halve before adding, as lift_threshold does, so the sum cannot overflow.
    d_mid = d_lo / 2.0 + d_hi / 2.0
    if geometry == 1:
        t = radius * math.cosh(d_mid / radius)
    else:
        t = radius * math.cos(d_mid / radius)
    # The coordinate is monotone in the distance, so in exact arithmetic v_lo < t < v_hi;
    # acosh / acos are ill-conditioned where the rows crowd the origin or a pole and the
    # round trip can land outside. Then, like CART on adjacent floats, keep "x <= t"
    # sending v_lo left and v_hi right by taking t = v_lo.
    if not (v_lo <= t < v_hi) or not math.isfinite(t):
        t = v_lo
    return t, radial_gap(t, v_lo, v_hi, geometry, radius)


@njit(cache=True, nogil=True)
def radial_gap(t, v_lo, v_hi, geometry, radius):
    """Geodesic margin of the radial threshold ``t`` between the coordinates ``v_lo <= t < v_hi``.

    The distance (H) or arc (S) from the boundary ``x = t`` to the nearer of the two rows,
    which is the smallest over the node's rows (see :func:`radial_threshold`); gradient
    boosting's ``thresholds="bins"`` measures its bin edges with it.
    """
    d_t = _radial_distance(t, geometry, radius)
    d_lo = _radial_distance(v_lo, geometry, radius)
    d_hi = _radial_distance(v_hi, geometry, radius)
    return max(min(abs(d_t - d_lo), abs(d_hi - d_t)), 0.0)


@njit(cache=True, nogil=True)
def hyperbolic_threshold(x0, xj, go_left):
    """Maximum-margin Klein threshold for a timelike split of hyperbolic points.

    Parameters
    ----------
    x0, xj : ndarray of shape (m,)
        Timelike coordinate (positive) and the split coordinate of the node's points.
    go_left : ndarray of shape (m,), bool
        The chosen partition: ``True`` for points with ``xj / x0 <= t``.

    Returns
    -------
    t : float
        The threshold on ``xj / x0`` (the Klein coordinate), strictly between the
        largest ratio on the left and the smallest on the right when they differ.
    plane_margin : float
        ``min |xj - t x0| / sqrt(1 - t^2)`` over the points: ``R sinh(d / R)`` for the
        geodesic margin ``d`` on a hyperboloid of radius ``R``.
    """
    m = x0.shape[0]
    # Every loop below reads xj[k] and go_left[k] for k < m: check once per call (the
    # builder passes arrays it made with m entries; numba does not bounds-check).
    if xj.shape[0] != m or go_left.shape[0] != m:
        raise ValueError("hyperbolic_threshold: x0, xj and go_left must have the same length")
    t_lo = -np.inf
    t_hi = np.inf
    for k in range(m):
        v = xj[k] / x0[k]
        if go_left[k]:
            t_lo = max(t_lo, v)
        else:
            t_hi = min(t_hi, v)
    if not (t_lo < t_hi):
        return t_lo, 0.0
    # Upper bounds for the smallest value on each side anywhere on [t_lo, t_hi]: every
    # left term t a - b grows with t, so min_left <= its value at t_hi; symmetric for right.
    upper_left = np.inf
    upper_right = np.inf
    for k in range(m):
        if go_left[k]:
            upper_left = min(upper_left, t_hi * x0[k] - xj[k])
        else:
            upper_right = min(upper_right, xj[k] - t_lo * x0[k])
    # A point can be the nearest somewhere only if its smallest value on the interval
    # (at the near end) is below that bound.
    cand = np.empty(m, dtype=np.int64)
    n_cand = np.int64(0)  # int64, not Literal[int](0): one compiled _timelike_gap
    for k in range(m):
        if go_left[k]:
            if t_lo * x0[k] - xj[k] <= upper_left:
                cand[n_cand] = k
                n_cand += 1
        elif xj[k] - t_hi * x0[k] <= upper_right:
            cand[n_cand] = k
            n_cand += 1
    lo = t_lo
    hi = t_hi
    for _ in range(_BISECTION_STEPS):
        mid = lo / 2.0 + hi / 2.0
        if mid <= lo or mid >= hi:
            break
        gap = _timelike_gap(mid, x0, xj, go_left, cand, n_cand)
        if gap < 0.0:
            lo = mid
        elif gap > 0.0:
            hi = mid
        else:
            lo = mid
            hi = mid
            break
    t = lo / 2.0 + hi / 2.0
    if not (t_lo < t < t_hi):
        t = lo if t_lo < lo < t_hi else t_lo / 2.0 + t_hi / 2.0
    if not (t < t_hi):
        t = t_lo  # adjacent floats: keep "ratio <= t" sending the left side left
    smallest = np.inf
    for c in range(n_cand):
        k = cand[c]
        smallest = min(smallest, abs(xj[k] - t * x0[k]))
    return t, smallest / math.sqrt(1.0 - t * t)


@njit(cache=True, nogil=True)
def _timelike_gap(t, x0, xj, go_left, cand, n_cand):
    """``min_left (t x0 - xj) - min_right (xj - t x0)`` over the candidates (increasing in t)."""
    left = np.inf
    right = np.inf
    for c in range(n_cand):
        k = cand[c]
        if go_left[k]:
            left = min(left, t * x0[k] - xj[k])
        else:
            right = min(right, xj[k] - t * x0[k])
    return left - right


@njit(cache=True, nogil=True)
def circular_direction(xi, xj, go_left, phi_a, phi_b):
    """Maximum-margin direction of a line through the origin of a coordinate plane.

    Parameters
    ----------
    xi, xj : ndarray of shape (m,)
        The node's points projected onto the plane. Points at the origin are ignored
        (they lie on every line through it).
    go_left : ndarray of shape (m,), bool
        The chosen partition: ``True`` where ``-sin(phi) xi + cos(phi) xj <= 0``.
    phi_a, phi_b : float
        The feasible arc of directions (``phi_a < phi_b``, at most ``pi`` apart): every
        direction strictly inside induces the chosen partition.

    Returns
    -------
    phi : float
        Direction of the boundary line; its unit normal is ``(-sin phi, cos phi)``.
    plane_margin : float
        ``min |<p, n>|`` over the points with a non-zero projection.
    """
    m = xi.shape[0]
    if xj.shape[0] != m or go_left.shape[0] != m:  # read for k < m below; numba does not bounds-check
        raise ValueError("circular_direction: xi, xj and go_left must have the same length")
    # Upper bound on the objective: the smallest, over points, of each point's largest
    # value on the arc (endpoint or, where the sinusoid peaks inside the arc, its radius).
    upper = np.inf
    for k in range(m):
        if xi[k] == 0.0 and xj[k] == 0.0:
            continue
        da = _line_distance(xi[k], xj[k], go_left[k], phi_a)
        db = _line_distance(xi[k], xj[k], go_left[k], phi_b)
        slope_a = _line_slope(xi[k], xj[k], go_left[k], phi_a)
        slope_b = _line_slope(xi[k], xj[k], go_left[k], phi_b)
        if slope_a <= 0.0:
            peak = da
        elif slope_b >= 0.0:
            peak = db
        else:
            peak = math.hypot(xi[k], xj[k])
        upper = min(upper, peak)
    # Each term is concave on the arc, so its smallest value is at an endpoint: a point
    # whose endpoint minimum exceeds the bound is never the nearest.
    cand = np.empty(m, dtype=np.int64)
    n_cand = np.int64(0)  # (as in hyperbolic_threshold)
    for k in range(m):
        if xi[k] == 0.0 and xj[k] == 0.0:
            continue
        da = _line_distance(xi[k], xj[k], go_left[k], phi_a)
        db = _line_distance(xi[k], xj[k], go_left[k], phi_b)
        if min(da, db) <= upper:
            cand[n_cand] = k
            n_cand += 1
    if n_cand == 0:
        return phi_a / 2.0 + phi_b / 2.0, 0.0
    lo = phi_a
    hi = phi_b
    c = hi - _INV_PHI * (hi - lo)
    d = lo + _INV_PHI * (hi - lo)
    fc = _circular_objective(c, xi, xj, go_left, cand, n_cand)
    fd = _circular_objective(d, xi, xj, go_left, cand, n_cand)
    for _ in range(_GOLDEN_STEPS):
        if not (lo < c < d < hi):
            break
        if fc < fd:
            lo = c
            c = d
            fc = fd
            d = lo + _INV_PHI * (hi - lo)
            fd = _circular_objective(d, xi, xj, go_left, cand, n_cand)
        else:
            hi = d
            d = c
            fd = fc
            c = hi - _INV_PHI * (hi - lo)
            fc = _circular_objective(c, xi, xj, go_left, cand, n_cand)
    phi = lo / 2.0 + hi / 2.0
    if not (phi_a < phi < phi_b):
        phi = phi_a / 2.0 + phi_b / 2.0
    return phi, max(_circular_objective(phi, xi, xj, go_left, cand, n_cand), 0.0)


@njit(cache=True, nogil=True)
def _line_distance(xi, xj, left, phi):
    """Signed plane value ``s <p, n>`` with ``n = (-sin phi, cos phi)``; positive on the arc."""
    value = -math.sin(phi) * xi + math.cos(phi) * xj
    return -value if left else value


@njit(cache=True, nogil=True)
def _line_slope(xi, xj, left, phi):
    """Derivative of :func:`_line_distance` with respect to ``phi``."""
    value = -math.cos(phi) * xi - math.sin(phi) * xj
    return -value if left else value


@njit(cache=True, nogil=True)
def _circular_objective(phi, xi, xj, go_left, cand, n_cand):
    smallest = np.inf
    for c in range(n_cand):
        k = cand[c]
        smallest = min(smallest, _line_distance(xi[k], xj[k], go_left[k], phi))
    return smallest


def geodesic_margin(plane_margin, geometry, radius):
    """Geodesic distance from a plane value ``|<x, n>|`` (vectorised).

    Parameters
    ----------
    plane_margin : array-like
        Smallest ``|<x, n>|`` over a node's points, with ``n`` a unit normal
        (Euclidean for S and E, Minkowski-unit for H).
    geometry : array-like of int
        0 for E, 1 for H, 2 for S.
    radius : array-like of float
        ``1 / sqrt|K|`` of the component (ignored for E).
    """
    plane_margin = np.asarray(plane_margin, dtype=np.float64)
    geometry = np.broadcast_to(geometry, plane_margin.shape)
    radius = np.broadcast_to(np.asarray(radius, dtype=np.float64), plane_margin.shape)
    out = plane_margin.copy()
    with np.errstate(divide="ignore", invalid="ignore"):
        hyper = geometry == 1
        out[hyper] = radius[hyper] * np.arcsinh(plane_margin[hyper] / radius[hyper])
        sphere = geometry == 2
        # |<x, n>| <= R on a sphere of radius R; rounding can push the ratio past 1.
        out[sphere] = radius[sphere] * np.arcsin(np.minimum(plane_margin[sphere] / radius[sphere], 1.0))
    return out
