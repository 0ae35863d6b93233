"""Coordinate conversions: round trips, known values, agreement of the models' distances, errors."""

import math

import numpy as np
import pytest
from curvedtrees import coords
from curvedtrees.manifolds import Hyperbolic, Spherical

H_CURVATURES = [-0.25, -1.0, -4.0]
S_CURVATURES = [0.25, 1.0, 4.0]


def hyperboloid_points(curvature, n=50, dim=3, seed=0):
    H = Hyperbolic(dim, curvature)
    return H, H.random_normal(n, std=2.0 * H.radius, random_state=seed)


@pytest.mark.parametrize("curvature", H_CURVATURES)
def test_hyperbolic_models_round_trip(curvature):
    H, X = hyperboloid_points(curvature)
    P = coords.hyperboloid_to_poincare(X, curvature)
    K = coords.hyperboloid_to_klein(X, curvature)
    assert np.all(np.linalg.norm(P, axis=1) < H.radius) and np.all(np.linalg.norm(K, axis=1) < H.radius)
    np.testing.assert_allclose(coords.poincare_to_hyperboloid(P, curvature), X, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(coords.klein_to_hyperboloid(K, curvature), X, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(coords.poincare_to_klein(P, curvature), K, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(coords.klein_to_poincare(K, curvature), P, rtol=1e-12, atol=1e-14)
    assert H.check_point(coords.poincare_to_hyperboloid(P, curvature))
    assert H.check_point(coords.klein_to_hyperboloid(K, curvature))


@pytest.mark.parametrize("curvature", H_CURVATURES)
def test_ball_radii_match_geodesic_distance(curvature):
    H = Hyperbolic(2, curvature)
    R = H.radius
    d = np.array([0.0, 0.1, 1.0, 5.0]) * R
    X = H.expmap0(np.stack([np.zeros_like(d), d, np.zeros_like(d)], axis=1))
    # A point at distance d from the origin has Poincaré radius R tanh(d / 2R) and Klein radius R tanh(d / R).
    np.testing.assert_allclose(coords.hyperboloid_to_poincare(X, curvature)[:, 0], R * np.tanh(d / (2 * R)), rtol=1e-13)
    np.testing.assert_allclose(coords.hyperboloid_to_klein(X, curvature)[:, 0], R * np.tanh(d / R), rtol=1e-13)
    np.testing.assert_allclose(coords.poincare_to_hyperboloid(np.zeros((1, 2)), curvature), [[R, 0.0, 0.0]])


@pytest.mark.parametrize("curvature", H_CURVATURES)
def test_poincare_distance_formula_matches_hyperboloid_distance(curvature):
    H, X = hyperboloid_points(curvature, seed=1)
    _, Y = hyperboloid_points(curvature, seed=2)
    R = H.radius
    p, q = coords.hyperboloid_to_poincare(X, curvature), coords.hyperboloid_to_poincare(Y, curvature)
    gap = lambda a: R**2 - np.sum(a * a, axis=1)  # noqa: E731
    poincare = R * np.arccosh(1 + 2 * R**2 * np.sum((p - q) ** 2, axis=1) / (gap(p) * gap(q)))
    np.testing.assert_allclose(H.dist(X, Y), poincare, rtol=1e-9)


@pytest.mark.parametrize("curvature", S_CURVATURES)
def test_stereographic_round_trip(curvature):
    S = Spherical(2, curvature)
    X = S.random_normal(50, std=1.0 * S.radius, random_state=0)
    P = coords.sphere_to_stereographic(X, curvature)
    np.testing.assert_allclose(coords.stereographic_to_sphere(P, curvature), X, rtol=1e-10, atol=1e-12)
    assert S.check_point(coords.stereographic_to_sphere(P * 7.0, curvature))
    np.testing.assert_allclose(coords.sphere_to_stereographic(S.origin(), curvature), [0.0, 0.0])
    # The equator (x0 = 0) maps to the circle of radius R.
    equator = np.array([[0.0, S.radius, 0.0], [0.0, 0.0, -S.radius]])
    np.testing.assert_allclose(np.linalg.norm(coords.sphere_to_stereographic(equator, curvature), axis=1), S.radius)


def test_latlon_known_values_and_round_trip():
    np.testing.assert_allclose(coords.latlon_to_sphere(0.0, 0.0), [1.0, 0.0, 0.0], atol=1e-16)
    np.testing.assert_allclose(coords.latlon_to_sphere(90.0, 123.0), [0.0, 0.0, 1.0], atol=1e-16)
    np.testing.assert_allclose(coords.latlon_to_sphere(0.0, 90.0, curvature=0.25), [0.0, 2.0, 0.0], atol=1e-15)
    rng = np.random.default_rng(0)
    latlon = np.stack([rng.uniform(-90, 90, 200), rng.uniform(-180, 180, 200)], axis=1)
    for curvature in S_CURVATURES:
        X = coords.latlon_to_sphere(latlon, curvature=curvature)
        assert X.shape == (200, 3) and Spherical(2, curvature).check_point(X)
        np.testing.assert_allclose(coords.sphere_to_latlon(X, curvature), latlon, atol=1e-10)
    np.testing.assert_allclose(coords.latlon_to_sphere(latlon[:, 0], latlon[:, 1]), coords.latlon_to_sphere(latlon))
    # Longitudes wrap; the result is in (-180, 180].
    np.testing.assert_allclose(coords.sphere_to_latlon(coords.latlon_to_sphere(10.0, 370.0)), [10.0, 10.0])
    # Great-circle distance: London - New York is about 5570 km.
    london, new_york = coords.latlon_to_sphere([[51.5074, -0.1278], [40.7128, -74.0060]])
    assert 6371.0 * Spherical(2).dist(london, new_york) == pytest.approx(5570, rel=0.01)


def test_circle_angle_round_trip():
    angles = np.linspace(-math.pi, math.pi, 101)[1:]
    for curvature in S_CURVATURES:
        X = coords.angle_to_circle(angles, curvature)
        assert Spherical(1, curvature).check_point(X)
        np.testing.assert_allclose(coords.circle_to_angle(X, curvature), angles, atol=1e-14)
    assert coords.circle_to_angle([-1.0, 0.0]) == pytest.approx(math.pi)
    np.testing.assert_allclose(coords.angle_to_circle(0.5, 4.0), [0.5 * math.cos(0.5), 0.5 * math.sin(0.5)])


def test_far_hyperbolic_points_and_the_limits_of_the_ball_models():
    H = Hyperbolic(2)
    X = H.expmap0(np.array([[0.0, 15.0, 0.0], [0.0, 0.0, -30.0]]))
    K = coords.hyperboloid_to_klein(X)
    # 15 units out the Klein radius is 1 - 2e-13: still inside the ball, and the way back keeps
    # the point to the ~1e-3 intrinsic accuracy that 13 remaining digits allow.
    assert np.linalg.norm(K[0]) < 1.0
    back = coords.klein_to_hyperboloid(K[:1])
    assert H.check_point(back) and H.dist(back, X[:1])[0] < 1e-2
    # 30 units out, 1 - 2e-26 rounds to 1: the ball models cannot hold the point, and the
    # conversion back says so instead of returning infinities.
    assert np.linalg.norm(K[1]) == pytest.approx(1.0, abs=1e-15)
    with pytest.raises(ValueError, match="inside the ball"):
        coords.klein_to_hyperboloid(K[1:])


@pytest.mark.parametrize(
    ("call", "fragment"),
    [
        (lambda: coords.poincare_to_hyperboloid([[1.0, 0.0]]), "strictly inside the ball of radius 1"),
        (lambda: coords.klein_to_hyperboloid([[0.0, 0.3], [2.0, 0.0]], curvature=-1.0), "flat indices 1"),
        (lambda: coords.poincare_to_klein([[0.0, 0.6]], curvature=-4.0), "radius 0.5"),
        (lambda: coords.klein_to_poincare([[0.0, 1.5]]), "inside the ball"),
        (lambda: coords.hyperboloid_to_poincare([[1.0, 0.0]], curvature=1.0), "negative"),
        (lambda: coords.hyperboloid_to_klein([1.0]), "at least 2 coordinates"),
        (lambda: coords.sphere_to_stereographic([[-1.0, 0.0, 0.0]]), "projection pole"),
        (lambda: coords.sphere_to_stereographic([[1.0, 0.0]], curvature=-1.0), "positive"),
        (lambda: coords.sphere_to_latlon([[1.0, 0.0]]), "must have 3 coordinates"),
        (lambda: coords.latlon_to_sphere([[91.0, 0.0]]), "[-90, 90]"),
        (lambda: coords.latlon_to_sphere(np.nan, 0.0), "finite"),
        (lambda: coords.circle_to_angle([[1.0, 0.0, 0.0]]), "must have 2 coordinates"),
        (lambda: coords.angle_to_circle([np.inf]), "finite"),
        (lambda: coords.hyperboloid_to_poincare([[np.nan, 0.0, 0.0]]), "NaN"),
        # Issue 26: the lower sheet returned [-0.5, -0.5] instead of an error.
        (lambda: coords.hyperboloid_to_klein([[-2.0, 1.0, 1.0]]), "row 0 has x0 = -2 <= 0"),
        (lambda: coords.hyperboloid_to_poincare([[-2.0, 1.0, 1.0]]), "must lie on H2 (curvature -1)"),
        (lambda: coords.hyperboloid_to_klein([[2.0, 1.0, 1.0]]), "Minkowski norm 1.41421, expected 1"),
        (lambda: coords.hyperboloid_to_poincare([[1.0, 0.0]], curvature=-4.0), "expected sqrt(1/|K|"),
        (lambda: coords.hyperboloid_to_klein([[1.0, 0.0], [1.0, 0.0], [-1.0, 0.0]]), "row 2 has x0 = -1"),
        (lambda: coords.hyperboloid_to_klein(np.inf * np.ones((1, 3))), "NaN or infinite"),
        (lambda: coords.sphere_to_stereographic([[1.0, 1.0, 0.0]]), "norm 1.41421, expected 1"),
        (lambda: coords.sphere_to_stereographic([[1.0, 0.0]], curvature=4.0), "must lie on S1 (curvature 4)"),
        (lambda: coords.sphere_to_latlon([[0.0, 0.0, 0.0]]), "zero vector has no direction"),
        (lambda: coords.circle_to_angle([[1.0, 0.0], [0.0, 0.0]]), "flat indices 1"),
        (lambda: coords.circle_to_angle([[np.nan, 1.0]]), "NaN"),
        (lambda: coords.sphere_to_latlon([[1.0, 0.0, 0.0, 0.0]]), "must have 3 coordinates"),
    ],
)
def test_conversions_reject_bad_input(call, fragment):
    with pytest.raises(ValueError) as info:
        call()
    assert fragment in str(info.value)


def test_checks_accept_valid_points_of_any_leading_shape_and_radius():
    # The checks use the manifolds' relative tolerance: far-out and rescaled points pass,
    # and a (2, 3, d) batch is read row by row (flat indices in messages).
    H = Hyperbolic(2, -0.25)
    X = H.random_normal(6, std=10.0, random_state=0).reshape(2, 3, 3)
    assert coords.hyperboloid_to_klein(X, curvature=-0.25).shape == (2, 3, 2)
    bad = X.copy()
    bad[1, 0, 0] = -bad[1, 0, 0]
    with pytest.raises(ValueError, match="row 3 has x0"):
        coords.hyperboloid_to_poincare(bad, curvature=-0.25)
    S = Spherical(2, 4.0)
    Y = S.random_normal(10, random_state=0)
    assert coords.sphere_to_stereographic(Y, curvature=4.0).shape == (10, 2)
    # Latitude and angle read the radius from each point: any nonzero vector has one.
    np.testing.assert_allclose(coords.sphere_to_latlon([[0.0, 0.0, 3.0]]), [[90.0, 0.0]])
    np.testing.assert_allclose(coords.circle_to_angle([[0.0, 5.0]]), [np.pi / 2])
