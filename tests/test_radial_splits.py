"""Radial splits (``splits="geodesic+radial"``): balls about the origin of H, caps of S.

A radial split thresholds one ambient coordinate (``x_0`` of H, any ``x_k`` of S) and
places the threshold halfway between the two neighbouring rows in the geometry's own
distance (the distance from the origin, the angle from the axis pole). These tests hold
it to the issue's "done when": depth-1 trees as accurate as the labels allow, thresholds
equal to a brute-force midpoint, the sides' convexity, one routing rule, model files,
text; and the default (``splits="geodesic"``) unchanged.
"""

from __future__ import annotations

import hashlib
import json

import numpy as np
import pytest
from curvedtrees import io
from curvedtrees.boosting import ProductGradientBoostingClassifier, ProductGradientBoostingRegressor
from curvedtrees.manifolds import ProductManifold
from curvedtrees.trees import (
    ProductDecisionTreeClassifier,
    ProductDecisionTreeRegressor,
    ProductRandomForestClassifier,
    ProductRandomForestRegressor,
    SplitFeatures,
    count_planes,
    export_text,
)
from curvedtrees.trees.kernels import RADIAL, next_node
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV
from sklearn.utils._param_validation import InvalidParameterError

RADIAL_SPLITS = "geodesic+radial"


def _hyperbolic(n, K=-1.0, scale=0.8, seed=0):
    """Points of H2 (curvature K) with their distance from the origin."""
    R = 1.0 / np.sqrt(-K)
    rng = np.random.default_rng(seed)
    v = rng.normal(size=(n, 2)) * scale * R  # distances in units of the radius
    d = np.linalg.norm(v, axis=1)
    u = v / d[:, None]
    X = np.column_stack([R * np.cosh(d / R), R * np.sinh(d / R)[:, None] * u])
    return X, d


def _sphere(n, K=1.0, seed=0):
    """Uniform points of S2 (curvature K)."""
    R = 1.0 / np.sqrt(K)
    rng = np.random.default_rng(seed)
    v = rng.normal(size=(n, 3))
    return R * v / np.linalg.norm(v, axis=1, keepdims=True)


@pytest.mark.parametrize("K", [-1.0, -0.25, -4.0])
def test_a_ball_about_the_origin_is_one_split(K):
    X, d = _hyperbolic(500, K=K, seed=1)
    R = 1.0 / np.sqrt(-K)
    y = (d > 0.9 * R).astype(int)
    radial = ProductDecisionTreeClassifier(signature=f"H2({K})", max_depth=1, splits=RADIAL_SPLITS).fit(X, y)
    geodesic = ProductDecisionTreeClassifier(signature=f"H2({K})", max_depth=1).fit(X, y)
    assert radial.score(X, y) == 1.0  # noiseless labels: every row
    assert geodesic.score(X, y) < 0.9  # a line through the origin cannot draw a ball
    assert radial.tree_.features.kind[radial.tree_.feature[0]] == RADIAL


@pytest.mark.parametrize("axis", [0, 1, 2])
def test_a_cap_about_any_axis_pole_is_one_split(axis):
    X = _sphere(600, K=0.5, seed=2)
    R = np.sqrt(2.0)
    theta = np.arccos(np.clip(X[:, axis] / R, -1, 1))
    y = (theta < 0.7).astype(int)
    radial = ProductDecisionTreeClassifier(signature="S2(0.5)", max_depth=1, splits=RADIAL_SPLITS).fit(X, y)
    geodesic = ProductDecisionTreeClassifier(signature="S2(0.5)", max_depth=1).fit(X, y)
    assert radial.score(X, y) == 1.0
    assert geodesic.score(X, y) < radial.score(X, y)
    node_plane = radial.tree_.feature[0]
    assert radial.tree_.features.kind[node_plane] == RADIAL
    assert radial.tree_.features.local_j[node_plane] == axis


def test_the_threshold_is_the_midpoint_in_distance_from_the_origin():
    X, d = _hyperbolic(300, K=-0.5, seed=3)
    R = np.sqrt(2.0)
    y = (d > 1.1).astype(int)
    tree = ProductDecisionTreeClassifier(signature="H2(-0.5)", max_depth=1, splits=RADIAL_SPLITS).fit(X, y).tree_
    # Brute force: the farthest row inside and the nearest outside, by distance.
    d_in, d_out = d[y == 0].max(), d[y == 1].min()
    expected = R * np.cosh((d_in + d_out) / 2 / R)
    np.testing.assert_allclose(tree.threshold[0], expected, rtol=1e-9)
    # Not the ambient midpoint of x0 (which is farther out: cosh is convex).
    ambient = (R * np.cosh(d_in / R) + R * np.cosh(d_out / R)) / 2
    assert abs(tree.threshold[0] - ambient) > 1e3 * abs(tree.threshold[0] - expected)
    np.testing.assert_allclose(tree.margin[0], (d_out - d_in) / 2, rtol=1e-6)


def test_the_threshold_is_the_midpoint_in_angle_from_the_pole():
    X = _sphere(400, K=4.0, seed=4)
    R = 0.5
    theta = np.arccos(np.clip(X[:, 2] / R, -1, 1))
    y = (theta < 1.0).astype(int)
    tree = ProductDecisionTreeClassifier(signature="S2(4)", max_depth=1, splits=RADIAL_SPLITS).fit(X, y).tree_
    inside, outside = theta[y == 1].max(), theta[y == 0].min()
    np.testing.assert_allclose(tree.threshold[0], R * np.cos((inside + outside) / 2), rtol=1e-9)
    np.testing.assert_allclose(tree.margin[0], R * (outside - inside) / 2, rtol=1e-6)


def _lorentz_midpoint(a, b):
    """The geodesic midpoint of two points of the unit hyperboloid (a normalised sum)."""
    s = a + b
    norm = np.sqrt(s[:, 0] ** 2 - (s[:, 1:] ** 2).sum(axis=1))
    return s / norm[:, None]


def test_a_ball_is_convex_and_its_complement_is_not():
    X, d = _hyperbolic(400, seed=5)
    y = (d > 0.9).astype(int)
    tree = ProductDecisionTreeClassifier(signature="H2", max_depth=1, splits=RADIAL_SPLITS).fit(X, y).tree_
    assert tree.features.kind[tree.feature[0]] == RADIAL
    rng = np.random.default_rng(0)
    left = tree.goes_left(0, X)  # the fitted ball's rows, as the tree routes them
    inside, outside = X[left], X[~left]
    a, b = rng.integers(0, len(inside), (2, 2000))
    # Geodesic midpoints of two rows of the ball are routed into the ball by the fitted split.
    assert tree.goes_left(0, _lorentz_midpoint(inside[a], inside[b])).all()
    # Two outside rows on opposite sides of the origin: their geodesic passes through the ball.
    far = outside[np.argmax(outside[:, 1])], outside[np.argmin(outside[:, 1])]
    assert tree.goes_left(0, _lorentz_midpoint(far[0][None], far[1][None])).all()


def test_a_cap_smaller_than_a_hemisphere_is_convex_and_a_larger_one_is_not():
    X = _sphere(800, seed=6)
    y = (X[:, 2] > 0.3).astype(int)  # a cap about +e2, smaller than a hemisphere
    tree = ProductDecisionTreeClassifier(signature="S2", max_depth=1, splits=RADIAL_SPLITS).fit(X, y).tree_
    f = tree.feature[0]
    assert tree.features.kind[f] == RADIAL and tree.features.col_j[f] == 2 and tree.threshold[0] > 0
    left = tree.goes_left(0, X)  # x2 <= t: the larger side; the cap is the right one
    cap, rest = X[~left], X[left]
    rng = np.random.default_rng(1)
    a, b = rng.integers(0, len(cap), (2, 2000))
    s = cap[a] + cap[b]
    # Geodesic midpoints of two rows of the cap stay in the cap, as the fitted split routes them.
    assert not tree.goes_left(0, s / np.linalg.norm(s, axis=1, keepdims=True)).any()
    # Larger than a hemisphere: two rows near its rim, far apart, see their geodesic leave it.
    rim = rest[np.abs(rest[:, 2] - tree.threshold[0]) < 0.1]
    p, q = rim[np.argmax(rim[:, 0])], rim[np.argmin(rim[:, 0])]
    assert not tree.goes_left(0, ((p + q) / np.linalg.norm(p + q))[None]).any()


def test_default_splits_are_the_papers_and_unchanged():
    X = ProductManifold("H2 x S2 x E1").random_normal(300, random_state=0)
    y = np.random.default_rng(0).integers(0, 3, 300)
    plain = ProductDecisionTreeClassifier(signature="H2 x S2 x E1", random_state=0).fit(X, y)
    explicit = ProductDecisionTreeClassifier(signature="H2 x S2 x E1", splits="geodesic", random_state=0).fit(X, y)
    for name, array in plain.tree_.to_arrays().items():
        np.testing.assert_array_equal(array, explicit.tree_.to_arrays()[name], err_msg=name)
    # The same fit as before splits= existed (the parent of the commit that added it, run
    # beside this code on the same install): the integer arrays byte for byte, the floats to
    # 10 decimals, since the sampler's cosh and sinh may move a last bit between numpy releases.
    digest = hashlib.sha256()
    for name, array in sorted(plain.tree_.to_arrays().items()):
        digest.update(name.encode())
        stable = np.round(array, 10) + 0.0 if array.dtype.kind == "f" else array  # + 0.0: no -0.0
        digest.update(np.ascontiguousarray(stable).tobytes())
    assert digest.hexdigest()[:16] == "a7f3e808dbe78128"
    assert not np.any(plain.split_features_.kind == RADIAL)
    features = SplitFeatures.from_signature("H2 x S2 x E1", "base", RADIAL_SPLITS)
    # One radial plane for H, one per ambient axis of S, none for E; the others unchanged.
    assert features.n_features == plain.split_features_.n_features + 1 + 3
    assert count_planes("H2 x S2 x E1", "base", RADIAL_SPLITS) == features.n_features
    assert features.names()[2:4] == ["H2#0 radial x0", "S2#1 (x0, x1)"]


def test_bad_splits_values_are_refused_by_name():
    X, d = _hyperbolic(50)
    for bad in ("radial", "geodesic+horospheres", None):
        with pytest.raises(InvalidParameterError, match="splits"):
            ProductDecisionTreeClassifier(signature="H2", splits=bad).fit(X, d > 1)
        with pytest.raises(InvalidParameterError, match="splits"):
            ProductRandomForestClassifier(3, signature="H2", splits=bad).fit(X, d > 1)
    with pytest.raises(ValueError, match="splits must be"):
        SplitFeatures.from_signature("H2", "base", "radial")


def _compiled_left(tree, node, X):
    int_part, float_part = tree._route_args()
    return np.array([next_node(X, r, node, int_part, float_part) == tree.children_left[node] for r in range(len(X))])


def test_goes_left_apply_and_the_forest_route_radial_rows_alike():
    sig = "H2 x S2"
    X = ProductManifold(sig).random_normal(400, random_state=1)
    y = (X[:, 0] > 1.5).astype(int) + 2 * (X[:, 5] > 0.5)
    forest = ProductRandomForestClassifier(8, signature=sig, splits=RADIAL_SPLITS, max_depth=5, random_state=0)
    forest.fit(X, y)
    checked = 0
    for est in forest.estimators_:
        tree = est.tree_
        for node in np.flatnonzero(tree.radial):
            col = int(tree.features.col_j[tree.feature[node]])
            t = tree.threshold[node]
            rows = np.repeat(X[:30], 3, axis=0)
            rows[:, col] = np.tile([t, np.nextafter(t, -np.inf), np.nextafter(t, np.inf)], 30)  # on the boundary
            both = np.concatenate([X[:40], rows])
            assert np.array_equal(tree.goes_left(int(node), both), _compiled_left(tree, int(node), both))
            checked += 1
    assert checked >= 8
    # The forest's packed routing (one table, every tree) equals the trees one by one.
    per_tree = np.mean([est.predict_proba(X) for est in forest.estimators_], axis=0)
    np.testing.assert_allclose(forest.predict_proba(X), per_tree, rtol=0, atol=1e-15)
    # Rows that hold the S2 component fixed (a region picture) resolve constant splits the same way.
    held = X.copy()
    held[:, 3:] = X[0, 3:]
    held = np.concatenate([held] * 60)  # above the row count where constant splits are resolved
    per_tree = np.mean([est.predict_proba(held) for est in forest.estimators_], axis=0)
    np.testing.assert_allclose(forest.predict_proba(held), per_tree, rtol=0, atol=1e-15)


@pytest.mark.parametrize(
    "estimator",
    [
        ProductDecisionTreeClassifier(signature="H2 x S2", splits=RADIAL_SPLITS, max_depth=4, random_state=0),
        ProductDecisionTreeRegressor(signature="H2 x S2", splits=RADIAL_SPLITS, random_state=0),
        ProductRandomForestClassifier(3, signature="H2 x S2", splits=RADIAL_SPLITS, random_state=0),
        ProductRandomForestRegressor(3, signature="H2 x S2", splits=RADIAL_SPLITS, random_state=0),
    ],
    ids=lambda e: type(e).__name__,
)
def test_model_files_keep_the_radial_splits(estimator):
    X = ProductManifold("H2 x S2").random_normal(200, random_state=2)
    y = (X[:, 0] > 1.4).astype(int) + (X[:, 4] > 0.2)
    est = clone(estimator).fit(X, y)
    text = io.dumps(est)
    loaded = io.loads(text)
    assert loaded.split_features_.splits == RADIAL_SPLITS and loaded.get_params()["splits"] == RADIAL_SPLITS
    np.testing.assert_array_equal(loaded.predict(X), est.predict(X))
    document = json.loads(text)
    document["fitted"]["splits"] = "geodesic+horospheres"
    with pytest.raises(ValueError, match="'splits' must be one of"):
        io.loads(json.dumps(document))


def test_older_files_without_splits_load_as_geodesic():
    X = ProductManifold("H2").random_normal(100, random_state=3)
    y = (X[:, 1] > 0).astype(int)
    est = ProductDecisionTreeClassifier(signature="H2", random_state=0).fit(X, y)
    document = json.loads(io.dumps(est))
    assert "splits" not in document["fitted"]  # a geodesic model's fitted state is as before
    del document["params"]["splits"]  # what a file written before the switch holds
    loaded = io.loads(json.dumps(document))
    assert loaded.splits == "geodesic" and loaded.split_features_.splits == "geodesic"
    np.testing.assert_array_equal(loaded.predict(X), est.predict(X))


def test_a_forest_file_whose_trees_disagree_on_splits_is_refused():
    X = ProductManifold("H2").random_normal(100, random_state=3)
    y = (X[:, 0] > 1.3).astype(int)
    forest = ProductRandomForestClassifier(2, signature="H2", random_state=0).fit(X, y)
    document = json.loads(io.dumps(forest))
    document["fitted"]["trees"][1]["splits"] = RADIAL_SPLITS  # its plane ids stay valid: only the check sees it
    with pytest.raises(ValueError, match="different signature, pairs or splits"):
        io.loads(json.dumps(document))


def test_export_text_speaks_in_distances_and_angles():
    X, d = _hyperbolic(200, seed=7)
    y = (d > 0.9).astype(int)
    tree = ProductDecisionTreeClassifier(signature="H2", max_depth=1, splits=RADIAL_SPLITS).fit(X, y)
    d_t = np.arccosh(tree.tree_.threshold[0])
    assert f"radial, distance from origin <= {d_t:.3g} (x0 <= {tree.tree_.threshold[0]:.3g})" in export_text(tree)
    S = _sphere(300, seed=8)
    y = (S[:, 1] > 0.6).astype(int)
    tree = ProductDecisionTreeClassifier(signature="S2", max_depth=1, splits=RADIAL_SPLITS).fit(S, y)
    theta = np.arccos(tree.tree_.threshold[0])
    assert f"radial, angle from +x1 >= {theta:.3g} rad (x1 <= " in export_text(tree)


def test_clone_grid_search_and_warm_start_know_splits():
    X, d = _hyperbolic(240, seed=9)
    y = (d > 0.9).astype(int)
    search = GridSearchCV(
        ProductDecisionTreeClassifier(signature="H2", max_depth=1), {"splits": ["geodesic", RADIAL_SPLITS]}, cv=3
    ).fit(X, y)
    assert search.best_params_ == {"splits": RADIAL_SPLITS}
    assert clone(search.best_estimator_).splits == RADIAL_SPLITS
    forest = ProductRandomForestClassifier(2, signature="H2", warm_start=True, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="warm_start: splits="):
        forest.set_params(n_estimators=4, splits=RADIAL_SPLITS).fit(X, y)


# ------------------------------------------------------------------ gradient boosting
def _stump(splits="geodesic", **params):
    """One boosted depth-1 tree that reaches its leaves' Newton steps (learning rate 1)."""
    return ProductGradientBoostingClassifier(
        splits=splits, max_iter=1, max_depth=1, learning_rate=1.0, early_stopping=False, **params
    )


def test_boosting_draws_a_ball_and_a_cap_in_one_split():
    # At most max_bins rows: every gap between distinct values is a bin edge, so the bins
    # cannot blur the labels and one split is as accurate as the labels allow.
    X, d = _hyperbolic(250, K=-0.5, seed=11)
    y = (d > 1.3).astype(int)
    radial = _stump(RADIAL_SPLITS, signature="H2(-0.5)").fit(X, y)
    assert radial.score(X, y) == 1.0
    assert _stump(signature="H2(-0.5)").fit(X, y).score(X, y) < 0.9
    tree = radial.trees_[0][0]
    assert radial.split_features_.kind[tree.feature[0]] == RADIAL
    # The maximum-margin threshold halfway in distance, as the decision tree places it.
    single = ProductDecisionTreeClassifier(signature="H2(-0.5)", max_depth=1, splits=RADIAL_SPLITS).fit(X, y)
    np.testing.assert_allclose(tree.threshold[0], single.tree_.threshold[0], rtol=1e-12)
    np.testing.assert_allclose(tree.margin[0], (d[y == 1].min() - d[y == 0].max()) / 2, rtol=1e-6)

    S = _sphere(250, seed=12)
    theta = np.arccos(np.clip(S[:, 1], -1, 1))
    y = (theta < 1.1).astype(int)
    cap = _stump(RADIAL_SPLITS, signature="S2").fit(S, y)
    assert cap.score(S, y) == 1.0
    assert _stump(signature="S2").fit(S, y).score(S, y) < 1.0
    np.testing.assert_allclose(cap.trees_[0][0].margin[0], (theta[y == 0].min() - theta[y == 1].max()) / 2, rtol=1e-6)


def test_boosting_bin_edges_of_a_radial_split_are_measured_in_distance():
    X, d = _hyperbolic(400, seed=13)
    y = (d > 1.0).astype(int)
    model = _stump(RADIAL_SPLITS, signature="H2", thresholds="bins", max_bins=16).fit(X, y)
    tree = model.trees_[0][0]
    assert model.split_features_.kind[tree.feature[0]] == RADIAL
    left = X[:, 0] <= tree.threshold[0]
    d_t = np.arccosh(tree.threshold[0])
    # The bin edge is a percentile, not the midpoint: its margin is the distance to the nearer row.
    expected = min(d_t - d[left].max(), d[~left].min() - d_t)
    np.testing.assert_allclose(tree.margin[0], expected, rtol=1e-6)


def test_boosting_defaults_are_unchanged_and_the_radial_planes_are_extra():
    X = ProductManifold("H2 x S2").random_normal(300, random_state=4)
    y = (X[:, 0] > 1.5).astype(int)
    plain = ProductGradientBoostingClassifier(signature="H2 x S2", max_iter=5, random_state=0).fit(X, y)
    explicit = ProductGradientBoostingClassifier(signature="H2 x S2", max_iter=5, splits="geodesic", random_state=0)
    np.testing.assert_array_equal(explicit.fit(X, y).decision_function(X), plain.decision_function(X))
    radial = clone(explicit).set_params(splits=RADIAL_SPLITS).fit(X, y)
    assert radial.split_features_.n_features == plain.split_features_.n_features + 1 + 3
    assert radial.tree_estimator(0).get_params()["splits"] == RADIAL_SPLITS
    assert "radial, distance from origin" in export_text(radial.tree_estimator(0))
    with pytest.raises(InvalidParameterError, match="splits"):
        clone(plain).set_params(splits="radial").fit(X, y)


@pytest.mark.parametrize("cls", [ProductGradientBoostingClassifier, ProductGradientBoostingRegressor])
def test_boosting_model_files_keep_the_radial_splits(cls):
    X = ProductManifold("H2 x S2").random_normal(200, random_state=5)
    y = (X[:, 0] > 1.4).astype(int) + (X[:, 4] > 0.2)
    model = cls(signature="H2 x S2", splits=RADIAL_SPLITS, max_iter=4, random_state=0).fit(X, y)
    text = io.dumps(model)
    loaded = io.loads(text)
    assert loaded.splits == RADIAL_SPLITS and loaded.split_features_.splits == RADIAL_SPLITS
    np.testing.assert_array_equal(loaded.predict(X), model.predict(X))
    # Parameters changed after the fit (scikit-learn allows it) are saved as they are; the model
    # still predicts with the planes it was fitted on.
    model.set_params(splits="geodesic")
    reloaded = io.loads(io.dumps(model))
    assert reloaded.splits == "geodesic" and reloaded.split_features_.splits == RADIAL_SPLITS
    np.testing.assert_array_equal(reloaded.predict(X), model.predict(X))
    document = json.loads(text)
    document["fitted"]["splits"] = "geodesic+horospheres"
    with pytest.raises(ValueError, match="'splits' must be one of"):
        io.loads(json.dumps(document))


# ------------------------------------------------------------------ pictures and Inspector text
def test_a_ball_is_drawn_as_a_circle_about_the_centre_of_the_disk():
    from curvedtrees import viz

    X, d = _hyperbolic(300, K=-0.5, seed=10)
    R = np.sqrt(2.0)
    tree = ProductDecisionTreeClassifier(signature="H2(-0.5)", max_depth=1, splits=RADIAL_SPLITS)
    tree.fit(X, (d > 1.0).astype(int))
    d_t = R * np.arccosh(tree.tree_.threshold[0] / R)
    for model, expected in (("poincare", R * np.tanh(d_t / (2 * R))), ("klein", R * np.tanh(d_t / R))):
        view = viz.View("disk", (0,), (1, 2), model)
        (curve,) = viz.boundary_curves(tree, "H2(-0.5)", view, viz.reference_point("H2(-0.5)"))
        radius = np.hypot(curve.coords["x"], curve.coords["y"])
        np.testing.assert_allclose(radius[np.isfinite(radius)], expected, rtol=1e-12)
        assert np.isfinite(radius).sum() >= 100  # the whole circle: the root acts everywhere


def test_a_cap_is_drawn_as_its_small_circle_on_the_sphere_the_map_the_globe_and_the_circle():
    from curvedtrees import viz

    S = _sphere(500, seed=11)
    tree = ProductDecisionTreeClassifier(signature="S2", max_depth=1, splits=RADIAL_SPLITS)
    tree.fit(S, (S[:, 0] > 0.5).astype(int))
    t = tree.tree_.threshold[0]
    ref = viz.reference_point("S2")
    (sphere,) = viz.boundary_curves(tree, "S2", viz.View("sphere", (0,), (0, 1, 2)), ref)
    np.testing.assert_allclose(sphere.coords["x"] / 1.006, t, rtol=1e-12)  # x0 = t all round
    for kind in ("map", "ortho"):
        (flat,) = viz.boundary_curves(tree, "S2", viz.View(kind, (0,), (0, 1, 2)), ref)
        lat, lon = flat.coords["y" if kind == "map" else "lat"], flat.coords["x" if kind == "map" else "lon"]
        np.testing.assert_allclose(np.cos(np.radians(lat)) * np.cos(np.radians(lon)), t, atol=1e-12)
    circle = ProductManifold("S1").random_normal(300, random_state=0)
    tree = ProductDecisionTreeClassifier(signature="S1", max_depth=1, splits=RADIAL_SPLITS)
    tree.fit(circle, (circle[:, 1] > 0.8).astype(int))
    assert tree.tree_.radial[0]
    (ring,) = viz.boundary_curves(tree, "S1", viz.View("circle", (0,), ()), viz.reference_point("S1"))
    np.testing.assert_allclose(np.sin(np.radians(ring.coords["theta"])), tree.tree_.threshold[0], atol=1e-12)
    torus = ProductManifold("S1 x S1").random_normal(300, random_state=0)
    tree = ProductDecisionTreeClassifier(signature="S1 x S1", max_depth=1, splits=RADIAL_SPLITS)
    tree.fit(torus, (torus[:, 2] > 0.8).astype(int))
    (ring,) = viz.boundary_curves(tree, "S1 x S1", viz.View("torus", (0, 1), ()), viz.reference_point("S1 x S1"))
    assert np.isfinite(ring.coords["x"]).sum() >= 2 * 300  # two circles of the torus, all the way round


def test_the_inspector_names_the_ball_and_the_cap_and_which_side_is_convex():
    from curvedtrees.viz.treeview import node_details, split_geometry

    X, d = _hyperbolic(200, seed=12)
    tree = ProductDecisionTreeClassifier(signature="H2", max_depth=1, splits=RADIAL_SPLITS).fit(X, (d > 0.9) * 1)
    details = node_details(tree, 0)
    assert details["plane"] == "radial x0" and "distance from origin <=" in details["boundary"]
    geometry = split_geometry(tree, 0)
    assert "ball about the origin" in geometry and "its outside (right) is not" in geometry
    S = _sphere(300, seed=13)
    tree = ProductDecisionTreeClassifier(signature="S2", max_depth=1, splits=RADIAL_SPLITS).fit(S, (S[:, 2] > 0.5) * 1)
    assert tree.tree_.threshold[0] > 0
    assert "the cap about +x2 (right) is convex" in split_geometry(tree, 0)


# ------------------------------------------------------------------ benchmarks
def test_the_benchmarks_know_the_radial_variants_beside_their_geodesic_models():
    from curvedtrees.benchmarks import get_models
    from curvedtrees.benchmarks.models import PRESET_MODELS, RADIAL_MODELS

    for spec_id in RADIAL_MODELS:
        geodesic_id = spec_id.removesuffix("_radial")
        spec, base = get_models([spec_id, geodesic_id])
        estimator = spec.factory("classification", "H2 x S2", 0)
        reference = base.factory("classification", "H2 x S2", 0)
        assert estimator.splits == RADIAL_SPLITS and reference.splits == "geodesic"
        # Everything else is the geodesic model's, so a paired comparison isolates the splits.
        assert {**estimator.get_params(), "splits": "geodesic"} == reference.get_params()
        assert (spec.group, spec.family) == (base.group, base.family)
    # Tree overrides reach the variants as they reach the paper's models.
    (deep,) = get_models(["product_rf_radial"], tree_params={"max_depth": 2})
    assert deep.factory("classification", "H2", 0).max_depth == 2
    assert not set(RADIAL_MODELS) & set(PRESET_MODELS)  # the presets stay the paper's
