"""Coordinate conversions between the models used for plotting and for data.

Hyperbolic space (curvature ``K < 0``, ``R = 1 / sqrt(-K)``):

* hyperboloid ``x = (x0, x_s)`` with ``x0^2 - |x_s|^2 = R^2``;
* Poincaré ball of radius R: ``p = R x_s / (x0 + R)``;
* Klein ball of radius R: ``k = R x_s / x0``.

Sphere (curvature ``K > 0``, ``R = 1 / sqrt(K)``): stereographic projection from
the antipode of the origin ``(-R, 0, ..., 0)``, ``s = R x_s / (R + x0)`` (the
origin maps to 0, like the Poincaré map it mirrors). ``S2`` <-> (latitude,
longitude) in degrees with ``x = R (cos lat cos lon, cos lat sin lon, sin lat)``;
``S1`` <-> angle in radians with ``x = R (cos a, sin a)``.

All functions are vectorised over leading axes (``(..., d)`` arrays), return
float64 arrays, and raise ``ValueError`` for input they cannot convert: NaN or
infinity, a wrong number of coordinates, points outside a ball, hyperboloid points
off the upper sheet (``x0 <= 0``, the lower sheet) or off the hyperboloid, sphere
points off the sphere of radius R (within the manifolds' relative tolerance
``CHECK_RTOL``), the zero vector as an ``S2`` / ``S1`` direction, latitudes beyond
+-90.
"""

from __future__ import annotations

import math

import numpy as np

from .manifolds import CHECK_RTOL, Hyperbolic, Spherical
from .manifolds.shared import format_rows, row_dot, row_norm

__all__ = [
    "angle_to_circle",
    "circle_to_angle",
    "hyperboloid_to_klein",
    "hyperboloid_to_poincare",
    "klein_to_hyperboloid",
    "klein_to_poincare",
    "latlon_to_sphere",
    "poincare_to_hyperboloid",
    "poincare_to_klein",
    "sphere_to_latlon",
    "sphere_to_stereographic",
    "stereographic_to_sphere",
]


def _radius(curvature: float, sign: int) -> float:
    curvature = float(curvature)
    if not math.isfinite(curvature) or curvature * sign <= 0:
        kind = "negative (hyperbolic)" if sign < 0 else "positive (spherical)"
        raise ValueError(f"curvature must be finite and {kind}, got {curvature}")
    return 1.0 / math.sqrt(abs(curvature))


def _array(x, what: str, min_width: int = 1, width: int | None = None) -> np.ndarray:
    try:
        array = np.asarray(x, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{what} must be a numeric array") from None
    if array.ndim == 0 or array.shape[-1] < min_width or (width is not None and array.shape[-1] != width):
        need = f"{width}" if width is not None else f"at least {min_width}"
        raise ValueError(f"{what} must have {need} coordinates on its last axis, got shape {array.shape}")
    if not np.all(np.isfinite(array)):
        raise ValueError(f"{what} contains NaN or infinite values")
    return array


def _inside_ball(points: np.ndarray, radius: float, what: str) -> np.ndarray:
    """``R^2 - |p|^2`` as ``(R - |p|)(R + |p|)`` (fewer digits lost near the boundary); errors outside."""
    norms = row_norm(points)
    gap = (radius - norms) * (radius + norms)
    if np.any(gap <= 0):
        bad = np.flatnonzero(np.reshape(gap <= 0, -1))
        raise ValueError(
            f"{what} must lie strictly inside the ball of radius {radius:g}; "
            f"{len(bad)} point(s) do not (flat indices {format_rows(bad)}), largest norm {norms.max():.6g}"
        )
    return gap


def _on_manifold(X: np.ndarray, manifold, what: str) -> None:
    """Raise a ValueError naming the first point of ``X`` (shape ``(..., ambient_dim)``) off ``manifold``."""
    rows = X.reshape(-1, X.shape[-1])
    ok, reason = manifold.check_point(rows, explain=True, rtol=CHECK_RTOL)
    if not ok:
        # The reason names the row of the flattened leading axes (the flat index) after the
        # manifold's name, which the message already gives.
        reason = reason.removeprefix(f"{manifold.name}: ")
        raise ValueError(f"{what} must lie on {manifold.name} (curvature {manifold.curvature:g}); {reason}")


def _hyperboloid(X, curvature: float) -> np.ndarray:
    X = _array(X, "hyperboloid points", min_width=2)
    # The lower sheet (x0 < 0) satisfies the same equation but is no point of the model:
    # its ball images would be garbage (R x_s / (x0 + R) can divide by ~0).
    _on_manifold(X, Hyperbolic(X.shape[-1] - 1, curvature), "hyperboloid points")
    return X


def _directions(X: np.ndarray, what: str) -> None:
    """Refuse zero vectors, which have no angle (the radius is otherwise read from each point)."""
    zero = ~np.any(X != 0, axis=-1)
    if np.any(zero):
        bad = np.flatnonzero(np.reshape(zero, -1))
        raise ValueError(f"{what} must be nonzero (the zero vector has no direction): flat indices {format_rows(bad)}")


# --------------------------------------------------------------------- hyperbolic
def hyperboloid_to_poincare(X, curvature: float = -1.0) -> np.ndarray:
    """Hyperboloid ``(..., d + 1)`` -> Poincaré ball of radius R ``(..., d)``: ``R x_s / (x0 + R)``."""
    R = _radius(curvature, -1)
    X = _hyperboloid(X, curvature)
    return R * X[..., 1:] / (X[..., :1] + R)


def poincare_to_hyperboloid(P, curvature: float = -1.0) -> np.ndarray:
    """Poincaré ball ``(..., d)`` -> hyperboloid ``(..., d + 1)``.

    ``x = (R (R^2 + |p|^2), 2 R^2 p) / (R^2 - |p|^2)``.
    """
    R = _radius(curvature, -1)
    P = _array(P, "Poincaré points")
    gap = _inside_ball(P, R, "Poincaré points")
    x0 = R * (R * R + row_dot(P, P)) / gap
    return np.concatenate([x0[..., None], (2.0 * R * R / gap)[..., None] * P], axis=-1)


def hyperboloid_to_klein(X, curvature: float = -1.0) -> np.ndarray:
    """Hyperboloid ``(..., d + 1)`` -> Klein ball of radius R ``(..., d)``: ``R x_s / x0``."""
    R = _radius(curvature, -1)
    X = _hyperboloid(X, curvature)
    return R * X[..., 1:] / X[..., :1]


def klein_to_hyperboloid(K, curvature: float = -1.0) -> np.ndarray:
    """Klein ball ``(..., d)`` -> hyperboloid ``(..., d + 1)``: ``x = R (R, k) / sqrt(R^2 - |k|^2)``."""
    R = _radius(curvature, -1)
    K = _array(K, "Klein points")
    scale = R / np.sqrt(_inside_ball(K, R, "Klein points"))
    return np.concatenate([(R * scale)[..., None], scale[..., None] * K], axis=-1)


def poincare_to_klein(P, curvature: float = -1.0) -> np.ndarray:
    """Poincaré ball -> Klein ball (both radius R): ``k = 2 R^2 p / (R^2 + |p|^2)``."""
    R = _radius(curvature, -1)
    P = _array(P, "Poincaré points")
    _inside_ball(P, R, "Poincaré points")
    return (2.0 * R * R / (R * R + row_dot(P, P)))[..., None] * P


def klein_to_poincare(K, curvature: float = -1.0) -> np.ndarray:
    """Klein ball -> Poincaré ball (both radius R): ``p = R k / (R + sqrt(R^2 - |k|^2))``."""
    R = _radius(curvature, -1)
    K = _array(K, "Klein points")
    gap = _inside_ball(K, R, "Klein points")
    return (R / (R + np.sqrt(gap)))[..., None] * K


# ---------------------------------------------------------------------- spherical
def sphere_to_stereographic(X, curvature: float = 1.0) -> np.ndarray:
    """Sphere ``(..., d + 1)`` -> stereographic coordinates ``(..., d)``: ``R x_s / (R + x0)``.

    The projection is from ``(-R, 0, ..., 0)``, the antipode of the origin, which
    has no image (a ``ValueError`` names such rows).
    """
    R = _radius(curvature, +1)
    X = _array(X, "sphere points", min_width=2)
    _on_manifold(X, Spherical(X.shape[-1] - 1, curvature), "sphere points")
    denominator = R + X[..., 0]
    # Points within 1e-12 R of the projection pole would map beyond ~1e12 R: no usable image.
    pole = denominator <= 1e-12 * R
    if np.any(pole):
        bad = np.flatnonzero(np.reshape(pole, -1))
        raise ValueError(
            f"sphere points at the projection pole (-R, 0, ..., 0) have no stereographic image: flat indices "
            f"{format_rows(bad)}"
        )
    return R * X[..., 1:] / denominator[..., None]


def stereographic_to_sphere(P, curvature: float = 1.0) -> np.ndarray:
    """Stereographic ``(..., d)`` -> sphere ``(..., d + 1)``.

    ``x = (R (R^2 - |p|^2), 2 R^2 p) / (R^2 + |p|^2)``.
    """
    R = _radius(curvature, +1)
    P = _array(P, "stereographic points")
    squared = row_dot(P, P)
    denominator = R * R + squared
    norms = np.sqrt(squared)
    x0 = R * (R - norms) * (R + norms) / denominator
    return np.concatenate([x0[..., None], (2.0 * R * R / denominator)[..., None] * P], axis=-1)


def sphere_to_latlon(X, curvature: float = 1.0) -> np.ndarray:
    """``S2`` points ``(..., 3)`` -> ``(..., 2)`` array of (latitude, longitude) in degrees.

    Latitude in [-90, 90], longitude in (-180, 180]; ``atan2`` forms keep full
    accuracy at the poles. The radius is read from each point, so ``curvature``
    only has to be valid and any nonzero point is accepted (the zero vector is refused).
    """
    _radius(curvature, +1)
    X = _array(X, "S2 points", width=3)
    _directions(X, "S2 points")
    lat = np.degrees(np.arctan2(X[..., 2], np.hypot(X[..., 0], X[..., 1])))
    lon = np.degrees(np.arctan2(X[..., 1], X[..., 0]))
    return np.stack([lat, lon], axis=-1)


def latlon_to_sphere(lat, lon=None, curvature: float = 1.0) -> np.ndarray:
    """(latitude, longitude) in degrees -> ``S2`` points ``(..., 3)`` of radius ``R``.

    Parameters
    ----------
    lat : array-like
        Latitudes in [-90, 90], or an array of shape (..., 2) of (lat, lon) pairs
        when ``lon`` is omitted.
    lon : array-like, optional
        Longitudes in degrees (any value; they wrap).
    curvature : float, default 1.0
    """
    R = _radius(curvature, +1)
    if lon is None:
        pairs = _array(lat, "(latitude, longitude) pairs", width=2)
        lat, lon = pairs[..., 0], pairs[..., 1]
    else:
        lat = np.asarray(lat, dtype=np.float64)
        lon = np.asarray(lon, dtype=np.float64)
        if not (np.all(np.isfinite(lat)) and np.all(np.isfinite(lon))):
            raise ValueError("latitudes and longitudes must be finite")
    if np.any(np.abs(lat) > 90):
        bad = np.flatnonzero(np.reshape(np.abs(lat) > 90, -1))
        raise ValueError(f"latitudes must lie in [-90, 90] degrees; flat indices {format_rows(bad)} do not")
    phi, lam = np.radians(lat), np.radians(lon)
    return R * np.stack([np.cos(phi) * np.cos(lam), np.cos(phi) * np.sin(lam), np.sin(phi)], axis=-1)


def circle_to_angle(X, curvature: float = 1.0) -> np.ndarray:
    """``S1`` points ``(..., 2)`` -> angles in radians in (-pi, pi], shape ``(...)``.

    The angle of any nonzero point (its radius is not checked); the zero vector is refused.
    """
    _radius(curvature, +1)
    X = _array(X, "S1 points", width=2)
    _directions(X, "S1 points")
    return np.arctan2(X[..., 1], X[..., 0])


def angle_to_circle(angle, curvature: float = 1.0) -> np.ndarray:
    """Angles in radians ``(...)`` -> ``S1`` points ``R (cos a, sin a)``, shape ``(..., 2)``."""
    R = _radius(curvature, +1)
    angle = np.asarray(angle, dtype=np.float64)
    if not np.all(np.isfinite(angle)):
        raise ValueError("angles must be finite")
    return R * np.stack([np.cos(angle), np.sin(angle)], axis=-1)
