"""Geometry of the H / S / E components and their products.

Four kinds of checks: geometric identities (symmetry, triangle inequality,
expmap(logmap) = id, dist(x, expmap(x, v)) = |v|, transport is an isometry,
projections are idempotent); numerical stability at the hard places (zero
distance, antipodes, hyperbolic points 30 units out) against a 100-digit
mpmath oracle; agreement with geoopt as an independent implementation; and
input validation with messages that say what and where.
"""

import math
import warnings

import curvedtrees.manifolds._common as common
import mpmath as mp
import numpy as np
import pytest
import torch
from curvedtrees.manifolds import (
    CHECK_RTOL,
    Euclidean,
    Hyperbolic,
    ProductManifold,
    Signature,
    Spherical,
    manifold_for,
)
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

with warnings.catch_warnings():
    # geoopt decorates its kernels with torch.jit.script, deprecated in recent torch releases.
    warnings.simplefilter("ignore", DeprecationWarning)
    import geoopt

CURVATURES = [0.25, 1.0, 4.0]
COMPONENTS = (
    [Hyperbolic(2, -k) for k in CURVATURES]
    + [Hyperbolic(3, -1.0), Hyperbolic(1, -2.0)]
    + [Spherical(2, k) for k in CURVATURES]
    + [Spherical(1, 1.0), Spherical(3, 0.5)]
    + [Euclidean(2), Euclidean(3)]
)
PRODUCTS = ["H2 x S2 x E2", "H2(-0.5) x S1(2) x E3", "(S1)^3", "H3(-4) x H2", "S2(0.25) x E1"]
ALL = COMPONENTS + [ProductManifold(s) for s in PRODUCTS]


def ids(m):
    return repr(m)


def sample(M, n, seed, std=1.0):
    """Points spread over a few radii of ``M`` (well inside the cut locus for S)."""
    return M.random_normal(n, std=std, random_state=seed)


def tangent(M, x, seed, length=None):
    """Random tangent vectors at ``x``; fixed ``length`` if given."""
    rng = np.random.default_rng(seed)
    u = M.proju(x, rng.standard_normal(x.shape))
    if length is not None:
        u = u * (length / M.norm(x, u))[:, None]
    return u


def radius_of(M):
    if isinstance(M, ProductManifold):
        return min(c.radius for c in M.components)
    return M.radius


# --------------------------------------------------------------------------- identities
@pytest.mark.parametrize("M", ALL, ids=ids)
def test_random_points_and_origin_lie_on_the_manifold(M):
    X = sample(M, 50, 0)
    assert X.shape == (50, M.ambient_dim)
    assert M.check_point(X)
    assert M.check_point(M.origin())
    assert np.allclose(M.dist(M.origin(), M.origin()), 0.0)


@pytest.mark.parametrize("M", ALL, ids=ids)
def test_distance_is_a_metric(M):
    X, Y, Z = sample(M, 40, 1), sample(M, 40, 2), sample(M, 40, 3)
    dxy, dyx = M.dist(X, Y), M.dist(Y, X)
    assert np.all(dxy >= 0)
    np.testing.assert_allclose(dxy, dyx, rtol=1e-13, atol=1e-15)
    assert np.all(M.dist(X, X) == 0)
    assert np.all(M.dist(X, Z) <= dxy + M.dist(Y, Z) + 1e-12)


@pytest.mark.parametrize("M", ALL, ids=ids)
def test_expmap_inverts_logmap(M):
    X, Y = sample(M, 40, 4), sample(M, 40, 5)
    U = M.logmap(X, Y)
    np.testing.assert_allclose(M.norm(X, U), M.dist(X, Y), rtol=1e-11, atol=1e-13)
    assert np.all(M.dist(M.expmap(X, U), Y) <= 1e-10 * (1 + M.dist(X, Y)))
    np.testing.assert_allclose(M.proju(X, U), U, atol=1e-10 * (1 + np.abs(U).max()))


@pytest.mark.parametrize("M", ALL, ids=ids)
def test_geodesics_have_the_length_of_their_velocity(M):
    X = sample(M, 40, 6)
    lengths = np.random.default_rng(7).uniform(0, 3.0, 40) * min(1.0, radius_of(M))
    V = tangent(M, X, 8, lengths)
    np.testing.assert_allclose(M.dist(X, M.expmap(X, V)), lengths, rtol=1e-11, atol=1e-13)
    assert M.check_point(M.expmap(X, V))
    np.testing.assert_allclose(M.logmap(X, M.expmap(X, V)), V, atol=1e-10)


@pytest.mark.parametrize("M", ALL, ids=ids)
def test_parallel_transport_is_an_isometry_between_tangent_spaces(M):
    X, Y = sample(M, 40, 9), sample(M, 40, 10)
    U, V = tangent(M, X, 11), tangent(M, X, 12)
    TU, TV = M.transp(X, Y, U), M.transp(X, Y, V)
    np.testing.assert_allclose(M.inner(Y, TU, TV), M.inner(X, U, V), rtol=1e-10, atol=1e-11)
    np.testing.assert_allclose(M.proju(Y, TU), TU, atol=1e-10 * (1 + np.abs(TU).max()))
    np.testing.assert_allclose(M.transp(Y, X, TU), U, atol=1e-9 * (1 + np.abs(U).max()))
    # Transporting the velocity of the geodesic gives minus the velocity of the reverse geodesic.
    np.testing.assert_allclose(M.transp(X, Y, M.logmap(X, Y)), -M.logmap(Y, X), atol=1e-9)


@pytest.mark.parametrize("M", ALL, ids=ids)
def test_projections_are_idempotent(M):
    X = sample(M, 30, 13)
    noisy = X + 0.01 * np.random.default_rng(14).standard_normal(X.shape)
    P = M.projx(noisy)
    assert M.check_point(P)
    np.testing.assert_allclose(M.projx(P), P, rtol=1e-14, atol=1e-14)
    np.testing.assert_allclose(M.projx(X), X, rtol=1e-12, atol=1e-14)
    U = M.proju(X, noisy)
    # The Minkowski projection subtracts terms of size x0 |u|: relative error ~ 1e-16 x0^2.
    np.testing.assert_allclose(M.proju(X, U), U, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("M", ALL, ids=ids)
def test_maps_at_the_origin_match_the_general_maps(M):
    Y = sample(M, 30, 15)
    origin = np.broadcast_to(M.origin(), Y.shape)
    np.testing.assert_allclose(M.logmap0(Y), M.logmap(origin, Y), atol=1e-12)
    U = M.logmap0(Y)
    np.testing.assert_allclose(M.expmap0(U), M.expmap(origin, U), atol=1e-12)
    np.testing.assert_allclose(M.expmap0(U), Y, atol=1e-11)
    V = tangent(M, origin, 16)
    np.testing.assert_allclose(M.transp0(Y, V), M.transp(origin, Y, V), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("M", ALL, ids=ids)
def test_pdist_matches_rowwise_dist_in_every_chunk(M, monkeypatch):
    X, Y = sample(M, 23, 16), sample(M, 17, 17)
    monkeypatch.setattr(common, "PDIST_CHUNK_BYTES", 1)  # Euclidean blocks of one row
    D = M.pdist(X, Y)
    assert D.shape == (23, 17)
    np.testing.assert_allclose(D, M.dist(X[:, None, :], Y[None, :, :]), rtol=1e-13, atol=1e-15)
    D = M.pdist(X)
    assert np.all(np.diag(D) == 0)
    np.testing.assert_allclose(D, D.T, rtol=1e-13, atol=1e-15)


def test_pdist_on_a_larger_set_and_at_hard_places():
    M = ProductManifold("H2 x S2 x E2")
    X = M.random_normal(600, random_state=0)
    D = M.pdist(X)
    rows = [0, 17, 599]
    np.testing.assert_allclose(D[rows], M.dist(X[rows][:, None, :], X[None, :, :]), rtol=1e-13)
    # The compiled kernels use the same stable formulas as ``dist``: far points, near pairs, antipodes.
    H = Hyperbolic(2)
    far = far_points(H, 30.0, 5, 0)
    near = H.expmap(far, tangent(H, far, 1, 1e-3))
    # (30 units out the stored points are only defined to ~1e-16 x0 ~ 1e-3; the two evaluation
    # orders agree far better than that.)
    np.testing.assert_allclose(H.pdist(far, near), H.dist(far[:, None], near[None]), rtol=1e-12, atol=1e-6)
    S = Spherical(2, 4.0)
    Y = S.random_normal(5, random_state=2)
    Z = np.concatenate([-Y, Y + 1e-13, np.zeros((1, 3))])
    np.testing.assert_allclose(S.pdist(Y, Z), S.dist(Y[:, None], Z[None]), rtol=1e-12, atol=1e-16)


def test_product_distance_combines_component_distances():
    M = ProductManifold("H2(-0.5) x S1(2) x E3")
    X, Y = M.random_normal(30, random_state=1), M.random_normal(30, random_state=2)
    parts = [c.dist(a, b) for c, a, b in zip(M.components, M.factorize(X), M.factorize(Y))]
    np.testing.assert_allclose(M.dist(X, Y), np.sqrt(sum(p**2 for p in parts)), rtol=1e-14)
    np.testing.assert_allclose(M.component_dist(X, Y), np.stack(parts, axis=1))
    assert np.array_equal(M.pack(M.factorize(X)), X)
    assert [p.shape[1] for p in M.factorize(X)] == [3, 2, 3]
    with pytest.raises(ValueError, match="3 arrays"):
        M.pack(M.factorize(X)[:2])


def test_product_attributes():
    M = ProductManifold("H2 x S2(0.5) x E2")
    assert M.signature == Signature.parse("H2 x S2(0.5) x E2")
    assert [type(c) for c in M.components] == [Hyperbolic, Spherical, Euclidean]
    assert M.components[1] == Spherical(2, 0.5)
    assert (M.dim, M.ambient_dim) == (6, 8)
    assert M.slices == (slice(0, 3), slice(3, 6), slice(6, 8))
    np.testing.assert_allclose(M.origin(), [1, 0, 0, 2**0.5, 0, 0, 0, 0])
    assert M == ProductManifold([(-1, 2), (0.5, 2), (0, 2)]) and hash(M) == hash(ProductManifold(M.signature))
    assert repr(M) == "ProductManifold('H2 x S2(0.5) x E2')"
    assert manifold_for(M.signature.components[0]) == Hyperbolic(2)


def test_component_constructors_reject_wrong_curvatures_and_dims():
    with pytest.raises(ValueError, match="negative"):
        Hyperbolic(2, 1.0)
    with pytest.raises(ValueError, match="positive"):
        Spherical(2, -1.0)
    with pytest.raises(ValueError, match="curvature 0"):
        Euclidean(2, 1.0)
    with pytest.raises(ValueError, match="dim"):
        Spherical(0)
    with pytest.raises(ValueError, match="finite"):
        Hyperbolic(2, -math.inf)


def test_methods_reject_arrays_of_the_wrong_width():
    with pytest.raises(ValueError, match="3 ambient coordinates"):
        Hyperbolic(2).dist(np.zeros((4, 2)), np.zeros((4, 2)))
    with pytest.raises(ValueError, match="8 ambient coordinates"):
        ProductManifold("H2 x S2 x E2").expmap0(np.zeros(7))


# ------------------------------------------------------------------------- random_normal
def test_random_normal_is_reproducible_and_centred_on_mean():
    M = ProductManifold("H2 x S2 x E2")
    a = M.random_normal(20, random_state=3)
    assert np.array_equal(a, M.random_normal(20, random_state=3))
    assert not np.array_equal(a, M.random_normal(20, random_state=4))
    mean = M.expmap0(np.array([0, 1.0, 0.5, 0, 0.3, -0.2, 5, -5]))
    near = M.random_normal(2000, mean=mean, std=0.01, random_state=5)
    assert M.check_point(near)
    assert np.all(M.dist(near, mean) < 0.1)
    # Tangent coordinates at the mean are N(0, std^2): mean squared length = dim * std^2.
    lengths = M.norm(np.broadcast_to(mean, near.shape), M.logmap(np.broadcast_to(mean, near.shape), near))
    assert np.mean(lengths**2) == pytest.approx(6 * 0.01**2, rel=0.1)


def test_random_normal_per_dimension_std_and_errors():
    M = ProductManifold("E2 x E1")
    X = M.random_normal(4000, std=[1.0, 0.0, 3.0], random_state=0)
    np.testing.assert_allclose(X.std(axis=0), [1.0, 0.0, 3.0], atol=0.1)
    with pytest.raises(ValueError, match="std"):
        M.random_normal(3, std=-1.0)
    with pytest.raises(ValueError, match="random_state"):
        M.random_normal(3, random_state="seed")


def test_random_state_accepts_generators_and_random_states():
    H = Hyperbolic(2)
    g = np.random.default_rng(0)
    first, second = H.random_normal(3, random_state=g), H.random_normal(3, random_state=g)
    assert not np.array_equal(first, second)
    legacy = np.random.RandomState(0)
    assert np.array_equal(
        H.random_normal(3, random_state=np.random.RandomState(0)), H.random_normal(3, random_state=legacy)
    )
    state = np.random.get_state()[1].copy()  # noqa: NPY002 - checking that global state is untouched
    H.random_normal(3, random_state=1)
    assert np.array_equal(np.random.get_state()[1], state)  # noqa: NPY002


# ------------------------------------------------------------------------------ stability
def far_points(H, radius, n, seed):
    """Points exactly ``radius`` from the origin of ``H`` in random directions."""
    rng = np.random.default_rng(seed)
    directions = rng.standard_normal((n, H.dim))
    directions /= np.linalg.norm(directions, axis=1, keepdims=True)
    return H.expmap0(np.concatenate([np.zeros((n, 1)), radius * directions], axis=1))


@pytest.mark.parametrize("curvature", [-0.25, -1.0, -4.0])
def test_hyperbolic_points_thirty_units_out(curvature):
    H = Hyperbolic(2, curvature)
    X = far_points(H, 30.0, 20, 0)
    assert np.all(X[:, 0] > 1e6 * H.radius)
    assert H.check_point(X)
    np.testing.assert_allclose(H.dist(H.origin(), X), 30.0, rtol=1e-14)
    np.testing.assert_allclose(H.norm(np.broadcast_to(H.origin(), X.shape), H.logmap0(X)), 30.0, rtol=1e-14)
    np.testing.assert_allclose(H.expmap0(H.logmap0(X)), X, rtol=1e-13)
    # Opposite directions: the geodesic passes through the origin.
    opposite = H.expmap0(-H.logmap0(X))
    np.testing.assert_allclose(H.dist(X, opposite), 60.0, rtol=1e-13)
    np.testing.assert_allclose(H.logmap(X, H.origin()), -H.transp(H.origin(), X, H.logmap0(X)), rtol=1e-9)


# At 30 units numpy 2.4.6's cosh and sinh (last bits of the stored points) left 1.3e-6 relative.
@pytest.mark.parametrize(("radius", "tolerance"), [(15.0, 1e-12), (30.0, 5e-6)])
def test_hyperbolic_radial_distance_far_out(radius, tolerance):
    H = Hyperbolic(2)
    X = far_points(H, radius, 10, 1)
    further = H.expmap0(H.logmap0(X) * ((radius + 2.0) / radius))
    # Two units further along the same ray while x0 grows by a factor e^2 (~1e13 at radius 30).
    # Rounding the stored coordinates (~1e-16 x0) perturbs the true distance between them by
    # ~(1e-16 x0)^2 x0 / 2: negligible at 15 units, ~1e-7 at 30 units; we stay within that.
    for x, y in zip(X, further):
        assert H.dist(x, y) == pytest.approx(mp_hyperbolic_dist(x, y, H.radius), rel=tolerance)
    np.testing.assert_allclose(H.dist(X, further), 2.0, rtol=tolerance)


def test_hyperbolic_far_points_pass_check_point_but_perturbed_ones_do_not():
    H = Hyperbolic(3)
    X = far_points(H, 30.0, 10, 1)
    bad = X.copy()
    bad[4, 0] *= 1 + 1e-4
    ok, reason = H.check_point(bad, explain=True)
    assert not ok and "row 4" in reason and "x0" in reason


@pytest.mark.parametrize("radius", [0.0, 1.0, 5.0, 15.0])
@pytest.mark.parametrize("step", [1e-12, 1e-7, 1e-3])
def test_hyperbolic_tiny_distances_keep_relative_accuracy(radius, step):
    H = Hyperbolic(3)
    X = far_points(H, radius, 10, 2) if radius else np.tile(H.origin(), (10, 1))
    V = tangent(H, X, 3, step)
    Y = H.expmap(X, V)
    # The stored coordinates of Y are rounded to ~1e-16 |Y|, which limits how well Y can sit
    # ``step`` away from X; the exact distance between the stored points is checked against
    # mpmath in test_hyperbolic_distance_against_high_precision.
    atol = 4e-16 * X[:, 0].max()
    np.testing.assert_allclose(H.dist(X, Y), H.norm(X, H.logmap(X, Y)), rtol=1e-9, atol=atol)
    np.testing.assert_allclose(H.dist(X, Y), step, rtol=1e-9, atol=atol)


def mp_hyperbolic_dist(x, y, radius):
    with mp.workdps(100):
        xs = [mp.mpf(float(v)) for v in x[1:]]
        ys = [mp.mpf(float(v)) for v in y[1:]]
        r2 = mp.mpf(radius) ** 2
        x0 = mp.sqrt(r2 + sum(v * v for v in xs))
        y0 = mp.sqrt(r2 + sum(v * v for v in ys))
        z = (x0 * y0 - sum(a * b for a, b in zip(xs, ys))) / r2
        return float(mp.mpf(radius) * mp.acosh(z))


def mp_sphere_dist(x, y, radius):
    with mp.workdps(60):
        xs = [mp.mpf(float(v)) for v in x]
        ys = [mp.mpf(float(v)) for v in y]
        nx = mp.sqrt(sum(v * v for v in xs))
        ny = mp.sqrt(sum(v * v for v in ys))
        minus = mp.sqrt(sum((a / nx - b / ny) ** 2 for a, b in zip(xs, ys)))
        plus = mp.sqrt(sum((a / nx + b / ny) ** 2 for a, b in zip(xs, ys)))
        return float(mp.mpf(radius) * 2 * mp.atan2(minus, plus))


@pytest.mark.parametrize("curvature", [-0.25, -1.0, -4.0])
def test_hyperbolic_distance_against_high_precision(curvature):
    H = Hyperbolic(3, curvature)
    rng = np.random.default_rng(4)
    for radius in [0.5, 3.0, 10.0]:
        X = far_points(H, radius * H.radius, 6, rng)
        for step in [1e-10, 1e-5, 0.1, 2.0, 20.0]:
            Y = H.expmap(X, tangent(H, X, rng, step * H.radius))
            for x, y in zip(X, Y):
                assert H.dist(x, y) == pytest.approx(mp_hyperbolic_dist(x, y, H.radius), rel=1e-12)


@pytest.mark.parametrize("curvature", [0.25, 1.0, 4.0])
def test_sphere_distance_near_zero_and_antipodes(curvature):
    S = Spherical(2, curvature)
    R = S.radius
    X = S.random_normal(8, std=2.0, random_state=5)
    for angle in [1e-12, 1e-6, 1.0, math.pi - 1e-4, math.pi - 1e-9, math.pi]:
        Y = S.expmap(X, tangent(S, X, 6, angle * R))
        for x, y in zip(X, Y):
            assert S.dist(x, y) == pytest.approx(mp_sphere_dist(x, y, R), rel=1e-12)
        if angle < math.pi:
            # Y's stored coordinates are rounded to ~1e-16 R: that bounds how exactly it sits at ``angle``.
            np.testing.assert_allclose(S.dist(X, Y), angle * R, rtol=1e-9, atol=4e-16 * R)
            np.testing.assert_allclose(S.expmap(X, S.logmap(X, Y)), Y, atol=1e-8 * R)
    np.testing.assert_allclose(S.dist(X, -X), math.pi * R, rtol=1e-15)
    # At the exact antipode the geodesic is not unique: logmap picks one great circle and
    # transport follows the same circle (flipping the component along it).
    U = S.logmap(X, -X)
    np.testing.assert_allclose(S.norm(X, U), math.pi * R, rtol=1e-15)
    np.testing.assert_allclose(S.proju(X, U), U, atol=1e-15 * R)
    np.testing.assert_allclose(S.expmap(X, U), -X, atol=1e-15 * R)
    V = tangent(S, X, 7)
    T = S.transp(X, -X, V)
    np.testing.assert_allclose(S.inner(X, T, T), S.inner(X, V, V), rtol=1e-14)
    np.testing.assert_allclose(T, -S.transp(X, -X, -V))
    np.testing.assert_allclose(S.transp(X, -X, U), -S.logmap(-X, X), atol=1e-14 * R)


def test_circle_transport_to_the_antipode_reverses_the_vector():
    S = Spherical(1)
    x = np.array([[1.0, 0.0], [0.6, 0.8]])
    v = np.array([[0.0, 2.0], [-0.8, 0.6]])
    np.testing.assert_allclose(S.transp(x, -x, v), -v, atol=1e-15)
    nearly = S.expmap(x, v * (math.pi - 1e-9) / np.linalg.norm(v, axis=1, keepdims=True))
    np.testing.assert_allclose(S.transp(x, nearly, v), -v, atol=1e-6)


def test_no_warnings_at_degenerate_inputs():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        H, S, E = Hyperbolic(2), Spherical(2), Euclidean(2)
        o = H.origin()
        assert H.dist(o, o) == 0 and np.all(H.logmap(o, o) == 0) and np.all(H.expmap(o, np.zeros(3)) == o)
        assert np.all(H.transp(o, o, np.zeros(3)) == 0)
        assert S.dist(S.origin(), S.origin()) == 0 and np.all(S.logmap(S.origin(), S.origin()) == 0)
        np.testing.assert_allclose(S.projx(np.zeros(3)), S.origin())
        np.testing.assert_allclose(H.projx(np.array([-5.0, 0, 0])), o)
        assert E.dist(np.zeros(2), np.zeros(2)) == 0


def test_hyperbolic_exponential_map_refuses_to_overflow():
    H = Hyperbolic(2, -4.0)
    with pytest.raises(ValueError, match="range of float64 for 1 row"):
        H.expmap0(np.array([[0.0, 1.0, 0.0], [0.0, 400.0, 0.0]]))
    with pytest.raises(ValueError, match="700 radii"):
        H.expmap(H.origin(), np.array([0.0, 0.0, 1e4]))


# --------------------------------------------------------------------------- hypothesis
finite = st.floats(-1.0, 1.0, allow_nan=False)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(["H", "S"]),
    st.floats(0.05, 20.0),
    st.integers(1, 4),
    st.lists(st.floats(-1.0, 1.0), min_size=15, max_size=15),
    st.floats(0.0, 1.0),
    st.floats(0.0, 1.0),
)
def test_properties_over_curvatures_and_radii(kind, magnitude, dim, raw, spread_x, spread_y):
    M = Hyperbolic(dim, -magnitude) if kind == "H" else Spherical(dim, magnitude)
    raw = np.array(raw)
    # Intrinsic radii up to 12 R (x0 ~ 8e4 R) for H; anywhere on the sphere for S.
    limit = 12.0 if kind == "H" else 3.0
    ux = np.concatenate([[0.0], raw[:dim] * limit * spread_x]) * M.radius
    uy = np.concatenate([[0.0], raw[5 : 5 + dim] * limit * spread_y]) * M.radius
    uz = np.concatenate([[0.0], raw[10 : 10 + dim]]) * M.radius
    x, y, z = M.expmap0(ux), M.expmap0(uy), M.expmap0(uz)
    assert M.check_point(np.stack([x, y, z]))
    dxy = M.dist(x, y)
    assert dxy == pytest.approx(M.dist(y, x), rel=1e-12, abs=1e-14)
    assert M.dist(x, z) <= dxy + M.dist(y, z) + 1e-9 * M.radius
    if kind == "S" and dxy > math.pi * M.radius * (1 - 1e-6):
        return  # the cut locus: logmap is not defined there
    u = M.logmap(x, y)
    # Far from the origin ambient coordinates are ill-conditioned: rounding a tangent vector of
    # ambient size ~x0 |u| moves it by ~1e-16 x0 |u| intrinsically, and the geodesic spreads that
    # by cosh(d). These bounds are that conditioning, not slack in the formulas.
    scale = max(1.0, float(np.abs(np.stack([x, y])).max()) / M.radius)
    growth = math.cosh(dxy / M.radius) if kind == "H" else 1.0
    assert M.norm(x, u) == pytest.approx(dxy, rel=1e-9, abs=1e-12 * M.radius * scale)
    assert M.dist(M.expmap(x, u), y) <= (1e-12 + 1e-15 * scale * growth) * M.radius * (1 + dxy / M.radius)
    v = M.proju(x, np.concatenate([[0.0], raw[:dim]]) + 0.5)
    w = M.transp(x, y, v)
    assert M.inner(y, w, w) == pytest.approx(M.inner(x, v, v), rel=1e-9 + 1e-15 * scale, abs=1e-10)


@settings(max_examples=80, deadline=None)
@given(
    st.floats(0.01, 100.0),
    st.integers(1, 5),
    # Squared distances underflow below ~1e-154 (as any sum of squares does): stay above 1e-12.
    st.one_of(st.just(0.0), st.floats(1e-12, 30.0)),
    st.one_of(st.just(0.0), st.floats(1e-12, 30.0)),
    st.lists(st.floats(-1.0, 1.0), min_size=10, max_size=10),
)
def test_hyperbolic_properties_out_to_thirty_radii(magnitude, dim, r1, r2, raw):
    # Points r radii from the origin in arbitrary directions: x0 up to 5e12 R. Distances from the
    # origin are exact; any two points satisfy both triangle inequalities through the origin.
    H = Hyperbolic(dim, -magnitude)
    raw = np.array(raw)
    d1, d2 = raw[:dim], raw[5 : 5 + dim]
    assume(np.linalg.norm(d1) > 1e-3)
    d1 = d1 / np.linalg.norm(d1)
    d2 = d2 / np.linalg.norm(d2) if np.linalg.norm(d2) > 1e-3 else d1
    R = H.radius
    x = H.expmap0(np.concatenate([[0.0], r1 * R * d1]))
    y = H.expmap0(np.concatenate([[0.0], r2 * R * d2]))
    assert H.check_point(np.stack([x, y]))
    assert H.dist(H.origin(), x) == pytest.approx(r1 * R, rel=1e-13, abs=1e-300)
    dxy = H.dist(x, y)
    # Symmetric to rounding: the polar half-angle form treats its arguments in order, so
    # swapping them can move the last bit (hypothesis found a 1-ulp case).
    assert dxy == pytest.approx(H.dist(y, x), rel=4 * np.finfo(float).eps, abs=1e-300)
    assert dxy <= (r1 + r2) * R * (1 + 1e-12)
    assert dxy >= abs(r1 - r2) * R * (1 - 1e-12) - 1e-15 * R


# ------------------------------------------------------------------------------- geoopt
def to_torch(a):
    return torch.as_tensor(np.ascontiguousarray(a), dtype=torch.float64)


def rel_err(ours, theirs):
    """Largest error relative to the size of the reference values (row-wise for vectors)."""
    theirs = np.asarray(theirs)
    ours = np.asarray(ours)
    if theirs.ndim == 1:
        return float(np.max(np.abs(ours - theirs) / np.maximum(np.abs(theirs), 1e-300)))
    return float(np.max(np.linalg.norm(ours - theirs, axis=-1) / np.linalg.norm(theirs, axis=-1)))


def lorentz(curvature):
    # geoopt's Lorentz(k) is the hyperboloid <x, x>_L = -k, i.e. k = R^2 = 1 / |K|.
    return geoopt.Lorentz(k=torch.tensor(1.0 / abs(curvature), dtype=torch.float64))


def transport_via_logmaps(G, x, y, v):
    """Parallel transport from geoopt's logmaps: ``v - <l, v> / d^2 (l + l')`` (valid in H and S)."""
    forward, backward = G.logmap(x, y), G.logmap(y, x)
    d2 = (forward * forward).sum(-1, keepdim=True) if isinstance(G, geoopt.Sphere) else G.dist(x, y, keepdim=True) ** 2
    inner = G.inner(x, forward, v, keepdim=True)
    return (v - inner / d2 * (forward + backward)).numpy()


@pytest.mark.parametrize("curvature", [-0.25, -1.0, -4.0])
def test_hyperbolic_agrees_with_geoopt_lorentz(curvature):
    H = Hyperbolic(3, curvature)
    L = lorentz(curvature)
    X = H.random_normal(40, std=1.5 * H.radius, random_state=0)
    Y = H.random_normal(40, std=1.5 * H.radius, random_state=1)
    x, y = to_torch(X), to_torch(Y)
    assert L.check_point_on_manifold(x)
    assert rel_err(H.dist(X, Y), L.dist(x, y).numpy()) < 1e-9
    U = H.logmap(X, Y)
    assert rel_err(U, L.logmap(x, y).numpy()) < 1e-9
    assert rel_err(H.inner(X, U, U), L.inner(x, to_torch(U), to_torch(U)).numpy()) < 1e-9
    V = tangent(H, X, 20, H.radius)
    assert rel_err(H.expmap(X, V), L.expmap(x, to_torch(V)).numpy()) < 1e-9
    assert rel_err(H.transp(X, Y, V), L.transp(x, y, to_torch(V)).numpy()) < 1e-9
    assert rel_err(H.logmap0(Y), L.logmap0(y).numpy()) < 1e-9
    assert rel_err(H.expmap0(H.logmap0(Y)), L.expmap0(to_torch(H.logmap0(Y))).numpy()) < 1e-9
    A = np.random.default_rng(3).standard_normal(X.shape)
    assert rel_err(H.proju(X, A), L.proju(x, to_torch(A)).numpy()) < 1e-9
    lifted = A + np.array([3.0, 0, 0, 0])
    assert rel_err(H.projx(lifted), L.projx(to_torch(lifted)).numpy()) < 1e-12
    np.testing.assert_allclose(H.origin(), L.origin(4, dtype=torch.float64).numpy())


@pytest.mark.parametrize("curvature", [-0.25, -1.0, -4.0])
def test_hyperbolic_points_fifteen_units_out_agree_with_geoopt(curvature):
    # 15 units is 7.5 to 30 radii: x0 up to 5e12 R. geoopt's closed forms for distance and for
    # the maps at the origin stay accurate there (its logmap / expmap / transp between two far
    # points cancel catastrophically, so those are checked against mpmath below instead).
    H = Hyperbolic(3, curvature)
    L = lorentz(curvature)
    far = far_points(H, 15.0, 30, 0)
    near = H.random_normal(30, std=H.radius, random_state=1)
    other = far_points(H, 15.0, 30, 2)
    for X, Y in [(far, near), (near, far), (far, other)]:
        assert rel_err(H.dist(X, Y), L.dist(to_torch(X), to_torch(Y)).numpy()) < 1e-9
    y = to_torch(far)
    assert rel_err(H.dist(H.origin(), far), L.dist0(y).numpy()) < 1e-9
    assert rel_err(H.logmap0(far), L.logmap0(y).numpy()) < 1e-9
    assert rel_err(H.expmap0(H.logmap0(far)), L.expmap0(to_torch(H.logmap0(far))).numpy()) < 1e-9
    assert rel_err(H.projx(far * [1.1, 1, 1, 1]), L.projx(y * torch.tensor([1.1, 1, 1, 1])).numpy()) < 1e-12


def mp_hyperbolic_logmap(x, y, radius):
    """log_x(y) on the hyperboloid of radius ``radius``, in 100-digit arithmetic."""
    with mp.workdps(100):
        R2 = mp.mpf(radius) ** 2
        xs = [mp.mpf(float(v)) for v in x[1:]]
        ys = [mp.mpf(float(v)) for v in y[1:]]
        xv = [mp.sqrt(R2 + sum(v * v for v in xs)), *xs]
        yv = [mp.sqrt(R2 + sum(v * v for v in ys)), *ys]
        z = (xv[0] * yv[0] - sum(a * b for a, b in zip(xs, ys))) / R2  # cosh(d / R)
        d = mp.sqrt(R2) * mp.acosh(z)
        direction = [b - z * a for a, b in zip(xv, yv)]
        length = mp.sqrt(R2) * mp.sinh(d / mp.sqrt(R2))
        return np.array([float(d * v / length) for v in direction])


@pytest.mark.parametrize("curvature", [-0.25, -1.0])
def test_hyperbolic_logmap_fifteen_units_out_against_high_precision(curvature):
    H = Hyperbolic(2, curvature)
    X = far_points(H, 15.0, 8, 3)
    Y = np.concatenate([far_points(H, 15.0, 4, 4), H.random_normal(4, std=H.radius, random_state=5)])
    U = H.logmap(X, Y)
    oracle = np.stack([mp_hyperbolic_logmap(x, y, H.radius) for x, y in zip(X, Y)])
    assert rel_err(U, oracle) < 1e-9


def mp_hyperbolic_transp(x, y, v, radius):
    """``v + <y, v>_L / (R^2 - <x, y>_L) (x + y)`` in 100-digit arithmetic (time coordinates exact)."""
    with mp.workdps(100):
        R2 = mp.mpf(radius) ** 2
        xs, ys, vs = ([mp.mpf(float(t)) for t in a[1:]] for a in (x, y, v))
        x0 = mp.sqrt(R2 + sum(t * t for t in xs))
        y0 = mp.sqrt(R2 + sum(t * t for t in ys))
        v0 = sum(a * b for a, b in zip(xs, vs)) / x0
        yv = -y0 * v0 + sum(a * b for a, b in zip(ys, vs))
        xy = -x0 * y0 + sum(a * b for a, b in zip(xs, ys))
        c = yv / (R2 - xy)
        return np.array([float(v0 + c * (x0 + y0))] + [float(b + c * (a + d)) for a, b, d in zip(xs, vs, ys)])


@pytest.mark.parametrize("curvature", [-0.25, -1.0, -4.0])
@pytest.mark.parametrize(("radius", "tolerance"), [(5.0, 1e-12), (15.0, 1e-9)])
def test_hyperbolic_transport_far_out_against_high_precision(curvature, radius, tolerance):
    # Transport goes through the origin plus a holonomy rotation, so it keeps full accuracy where
    # the textbook formula (and geoopt's) loses ~1e-16 x0^2: 1e-3 at 15 units.
    H = Hyperbolic(3, curvature)
    X = far_points(H, radius * H.radius, 8, 6)
    Y = np.concatenate([far_points(H, radius * H.radius, 4, 7), H.random_normal(4, std=H.radius, random_state=8)])
    V = tangent(H, X, 9, H.radius)
    oracle = np.stack([mp_hyperbolic_transp(x, y, v, H.radius) for x, y, v in zip(X, Y, V)])
    assert rel_err(H.transp(X, Y, V), oracle) < tolerance


@pytest.mark.parametrize("curvature", [0.25, 1.0, 4.0])
def test_sphere_agrees_with_geoopt_sphere(curvature):
    S = Spherical(3, curvature)
    R = S.radius
    # geoopt.Sphere is the unit sphere; a sphere of radius R is its image under x -> R x.
    G = geoopt.Sphere()
    X, Y = S.random_normal(40, std=1.2 * R, random_state=0), S.random_normal(40, std=1.2 * R, random_state=1)
    x, y = to_torch(X / R), to_torch(Y / R)
    assert rel_err(S.dist(X, Y), R * G.dist(x, y).numpy()) < 1e-9
    U = S.logmap(X, Y)
    assert rel_err(U, R * G.logmap(x, y).numpy()) < 1e-9
    V = tangent(S, X, 2, 1.0 * R)
    assert rel_err(S.expmap(X, V), R * G.expmap(x, to_torch(V / R)).numpy()) < 1e-9
    # geoopt.Sphere.transp is a projection (a vector transport), not parallel transport.
    assert rel_err(S.transp(X, Y, V), transport_via_logmaps(G, x, y, to_torch(V))) < 1e-9
    A = np.random.default_rng(3).standard_normal(X.shape)
    assert rel_err(S.projx(A), R * G.projx(to_torch(A)).numpy()) < 1e-12
    assert rel_err(S.proju(X, A), G.proju(x, to_torch(A)).numpy()) < 1e-9


@pytest.mark.parametrize("curvature", [-4.0, -1.0, -0.25, 0.25, 1.0, 4.0])
def test_distances_agree_with_geoopt_stereographic_model(curvature):
    from curvedtrees import coords

    M = Hyperbolic(2, curvature) if curvature < 0 else Spherical(2, curvature)
    # geoopt.Stereographic(k) is the kappa-stereographic model of curvature k (a Poincaré ball of
    # radius 1/sqrt(-k) for k < 0, the stereographic projection of the sphere for k > 0).
    G = geoopt.Stereographic(k=torch.tensor(curvature, dtype=torch.float64))
    # geoopt keeps ball points 1e-5 away from the boundary, so stay within ~10 radii of the origin.
    if curvature < 0:
        X = M.random_normal(40, std=2.0 * M.radius, random_state=0)
        Y = M.random_normal(40, std=2.0 * M.radius, random_state=1)
        to_ball = coords.hyperboloid_to_poincare
    else:
        X = M.random_normal(40, std=0.8 * M.radius, random_state=0)
        Y = M.random_normal(40, std=0.8 * M.radius, random_state=1)
        to_ball = coords.sphere_to_stereographic
    p, q = to_torch(to_ball(X, curvature)), to_torch(to_ball(Y, curvature))
    assert rel_err(M.dist(X, Y), G.dist(p, q).numpy()) < 1e-9
    assert rel_err(M.dist(M.origin(), Y), G.dist0(q).numpy()) < 1e-9
    # expmap0: the conformal factor of the ball at 0 is 2, so a tangent vector u at the
    # hyperboloid / sphere origin corresponds to u_s / 2 in the ball.
    U = M.logmap0(Y)
    assert rel_err(to_ball(M.expmap0(U), curvature), G.expmap0(to_torch(U[:, 1:] / 2)).numpy()) < 1e-9


# ------------------------------------------------------------------------- check_point
def test_check_point_explains_each_failing_component():
    M = ProductManifold("H2 x S2 x E2")
    X = M.random_normal(30, random_state=0)
    assert M.check_point(X, explain=True) == (True, None)
    bad = X.copy()
    bad[17, 3:6] *= 1.31
    ok, reason = M.check_point(bad, explain=True)
    assert not ok
    assert reason == "component 2 (S2): row 17 has norm 1.31, expected 1 +- 1e-6 relative"
    bad[[2, 5], 0] = -bad[[2, 5], 0]
    ok, reason = M.check_point(bad, explain=True)
    assert reason.startswith("component 1 (H2): row 2 has x0 = ")
    assert "2 of 30 rows" in reason and "2, 5" in reason and "component 2 (S2): row 17" in reason
    assert M.check_point(bad) is False


def test_check_point_tolerance_is_relative():
    S = Spherical(2, 1e-4)  # radius 100
    x = S.origin() * (1 + 0.5 * CHECK_RTOL)
    assert S.check_point(x)
    assert not S.check_point(S.origin() * (1 + 3 * CHECK_RTOL))
    assert S.check_point(S.origin() * (1 + 3 * CHECK_RTOL), rtol=1e-5)
    H = Hyperbolic(2)
    off = H.origin() + np.array([0.01, 0, 0])
    ok, reason = H.check_point(off, explain=True)
    assert not ok and "row 0" in reason and "curvature -1" in reason


def test_check_point_reports_shape_and_nan_problems():
    M = ProductManifold("H2 x S2")
    ok, reason = M.check_point(np.zeros((3, 5)), explain=True)
    assert not ok and "6 ambient coordinates" in reason
    X = M.random_normal(4, random_state=0)
    X[1, 4] = np.nan
    ok, reason = M.check_point(X, explain=True)
    assert not ok and "component 2 (S2): row 1 has a NaN" in reason
    assert Euclidean(2).check_point([[1e300, -1e300]])


@pytest.mark.parametrize("M", ALL, ids=ids)
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf], ids=str)
def test_projx_propagates_nan_instead_of_inventing_a_point(M, bad):
    X = sample(M, 6, 21)
    slices = M.slices if isinstance(M, ProductManifold) else (slice(0, M.ambient_dim),)
    noisy = X + 0.01
    for row, block in enumerate(slices):  # one bad coordinate in a different block per row
        noisy[row, block.stop - 1] = bad
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        P = M.projx(noisy)
    for row, block in enumerate(slices):
        assert np.all(np.isnan(P[row, block])), (row, P[row])
        others = np.ones(M.ambient_dim, dtype=bool)
        others[block] = False
        assert np.all(np.isfinite(P[row, others]))
    clean = slice(len(slices), None)
    np.testing.assert_array_equal(P[clean], M.projx(noisy[clean]))
    assert np.all(np.isnan(M.projx(noisy[0])[slices[0]]))  # a single point too


def test_projx_ignores_no_coordinate_not_even_x0():
    # x0 is recomputed from the spatial part, but a NaN x0 still makes the row NaN.
    assert np.all(np.isnan(Hyperbolic(2).projx([np.nan, 0.3, 0.4])))
    assert np.all(np.isnan(Spherical(1).projx([np.nan, 1.0])))  # the zero-norm fallback must not kick in


def test_check_point_names_nan_and_infinity_with_the_coordinate():
    M = ProductManifold("H2 x S2 x E2")
    X = M.random_normal(5, random_state=1)
    X[3, 1] = np.nan
    X[4, 4] = -np.inf
    X[2, 7] = np.inf
    ok, reason = M.check_point(X, explain=True)
    assert not ok
    assert "component 1 (H2): row 3 has a NaN at coordinate 1" in reason
    assert "component 2 (S2): row 4 has -inf at coordinate 1" in reason
    assert "component 3 (E2): row 2 has +inf at coordinate 1" in reason
    ok, reason = Spherical(2).check_point(np.array([[np.nan, 0.0, 1.0], [1.0, 0.0, np.nan]]), explain=True)
    assert not ok and reason.startswith("S2: row 0 has a NaN at coordinate 0 (2 row(s)") and "0, 1" in reason


# ---------------------------------------------------------------------------- validate
@pytest.fixture
def product():
    return ProductManifold("H2 x S2 x E2")


def test_validate_returns_float64_c_contiguous(product):
    X = product.random_normal(10, random_state=0)
    out = product.validate(X)
    assert out.dtype == np.float64 and out.flags.c_contiguous
    np.testing.assert_array_equal(out, X)
    f32 = product.validate(X.astype(np.float32))
    assert f32.dtype == np.float64
    fortran = product.validate(np.asfortranarray(X))
    assert fortran.flags.c_contiguous
    assert product.validate(X.tolist()).shape == (10, 8)
    pandas = pytest.importorskip("pandas")
    assert product.validate(pandas.DataFrame(X)).shape == (10, 8)
    assert ProductManifold("E2").validate([[1, 2], [3, 4]]).dtype == np.float64


@pytest.mark.parametrize(
    ("X", "fragments"),
    [
        (np.zeros((4, 7)), ["X has 7 columns", "'H2 x S2 x E2' needs 8 ambient coordinates", "(H2: 3, S2: 3, E2: 2)"]),
        (np.zeros((4, 6)), ["6 is the intrinsic dimension"]),
        (np.zeros(8), ["2-D array", "shape (8,)", "reshape(1, -1)"]),
        (np.zeros(5), ["2-D array", "1-D array of shape (5,)"]),
        (np.zeros((2, 2, 8)), ["3-D array"]),
        (np.zeros((0, 8)), ["no rows"]),
        ([["a"] * 8], ["must be numeric", "(0, 0)", "'a'"]),
        (np.array([[1.0] * 7 + [None]], dtype=object), ["NaN at row 0, column 7"]),
        ([[1.0] * 7 + ["x"]], ["(0, 7)", "'x'"]),
        (np.zeros((2, 8), dtype=complex), ["complex"]),
        ([[1.0] * 8, [1.0] * 7], ["different lengths"]),
        (None, ["X is None"]),
    ],
)
def test_validate_rejects_malformed_input(product, X, fragments):
    with pytest.raises(ValueError) as info:
        product.validate(X)
    for fragment in fragments:
        assert fragment in str(info.value)


def test_validate_locates_non_finite_values(product):
    X = product.random_normal(10, random_state=0)
    X[3, 4] = np.nan
    X[7, 6] = np.inf
    with pytest.raises(ValueError) as info:
        product.validate(X, name="X_test")
    message = str(info.value)
    assert "X_test contains NaN at row 3, column 4 (component 2, S2, coordinate 1)" in message
    assert "2 non-finite value(s) in 2 row(s): 3, 7" in message
    X[3, 4] = 0.0
    with pytest.raises(ValueError, match=r"\+inf at row 7, column 6 \(component 3, E2, coordinate 0\)"):
        product.validate(X)


def test_validate_checks_manifold_membership(product):
    X = product.random_normal(10, random_state=0)
    X[5, 0] += 0.5
    with pytest.raises(ValueError, match=r"off the manifold 'H2 x S2 x E2': component 1 \(H2\): row 5 has x0"):
        product.validate(X)
    assert product.validate(X, check_manifold=False)[5, 0] == X[5, 0]


def test_validate_hint_for_one_dimensional_euclidean_input():
    with pytest.raises(ValueError, match=r"reshape\(-1, 1\)"):
        ProductManifold("E1").validate(np.arange(4.0))


def test_validate_rejects_sparse_input(product):
    sparse = pytest.importorskip("scipy.sparse")
    with pytest.raises(ValueError, match="sparse"):
        product.validate(sparse.csr_matrix(np.zeros((2, 8))))
