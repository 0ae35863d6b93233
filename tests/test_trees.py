"""Product decision trees and forests: exactness, equivalences, margins, parameters, robustness."""

from __future__ import annotations

import math

import numpy as np
import pytest
from curvedtrees.manifolds import ProductManifold, Signature
from curvedtrees.trees import (
    ProductDecisionTreeClassifier,
    ProductDecisionTreeRegressor,
    ProductRandomForestClassifier,
    ProductRandomForestRegressor,
    SplitFeatures,
    export_text,
)
from curvedtrees.trees._features import LIFT, TIMELIKE
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor


def _gini(y, classes):
    if len(y) == 0:
        return 0.0
    p = np.array([(y == c).mean() for c in classes])
    return 1.0 - np.sum(p**2)


def _weighted_decrease(y, left, classes):
    n = len(y)
    return n * _gini(y, classes) - left.sum() * _gini(y[left], classes) - (~left).sum() * _gini(y[~left], classes)


def _brute_force_best(X, y, features: SplitFeatures):
    """Best weighted gini decrease over every distinct line of every plane, by enumeration."""
    classes = np.unique(y)
    best = 0.0
    for f in range(features.n_features):
        xj = X[:, features.col_j[f]]
        xi = np.ones(len(X)) if features.kind[f] == LIFT else X[:, features.col_i[f]]
        if features.kind[f] in (LIFT, TIMELIKE):
            ratios = np.unique(xj / xi)
            cuts = (ratios[:-1] + ratios[1:]) / 2
            partitions = [(xj / xi) <= t for t in cuts]
        else:
            theta = np.unique(np.mod(np.arctan2(xj, xi), np.pi))
            # A line between every pair of consecutive directions, and across the wrap at pi.
            phis = [*((theta[:-1] + theta[1:]) / 2), (theta[-1] + theta[0] + np.pi) / 2]
            partitions = [(-np.sin(p) * xi + np.cos(p) * xj) <= 0 for p in phis]
        for left in partitions:
            if 0 < left.sum() < len(y):
                best = max(best, _weighted_decrease(y, left, classes))
    return best


@pytest.mark.parametrize("signature", ["H2", "S2", "E2", "H3(-0.5) x S2(2) x E2", "S1 x S1"])
@pytest.mark.parametrize("pairs", ["base", "all"])
def test_fast_search_matches_brute_force(signature, pairs):
    pm = ProductManifold(signature)
    rng = np.random.default_rng(42)
    for trial in range(15):
        X = pm.random_normal(14, std=1.5, random_state=trial)
        y = rng.integers(0, 3, 14)
        if np.unique(y).size < 2:
            continue
        tree = ProductDecisionTreeClassifier(signature=signature, pairs=pairs, max_depth=1, random_state=trial)
        tree.fit(X, y)
        expected = _brute_force_best(X, y, tree.split_features_)
        assert tree.tree_.improvement[0] == pytest.approx(expected, rel=1e-9, abs=1e-12)


# ------------------------------------------------------------ equivalences
def _same_partition(leaves_a, leaves_b):
    """True if the two leaf labelings induce the same partition of the rows."""
    pairs = set(zip(leaves_a.tolist(), leaves_b.tolist()))
    return len(pairs) == len(set(leaves_a.tolist())) == len(set(leaves_b.tolist()))


def test_euclidean_single_feature_equals_sklearn_full_depth():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 1))
    y = rng.integers(0, 3, 400)
    ours = ProductDecisionTreeClassifier(random_state=0).fit(X, y)
    ref = DecisionTreeClassifier(random_state=0).fit(X, y)
    assert _same_partition(ours.apply(X), ref.apply(X))
    X_new = rng.normal(size=(1000, 1))
    np.testing.assert_array_equal(ours.predict(X_new), ref.predict(X_new))


@pytest.mark.parametrize("task", ["classification", "regression"])
def test_euclidean_equals_sklearn_cart(task):
    # Tie-free: a continuous target and depth-limited trees, so no two planes give the
    # same best improvement (appendix C of the paper: lift splits are CART).
    rng = np.random.default_rng(1)
    X = rng.normal(size=(3000, 4))
    target = 2 * X[:, 0] + np.sin(3 * X[:, 1]) + X[:, 2] ** 2 + 0.3 * rng.normal(size=3000)
    X_new = rng.normal(size=(2000, 4))
    if task == "classification":
        y = np.digitize(target, np.quantile(target, [0.25, 0.5, 0.75]))
        ours = ProductDecisionTreeClassifier(signature="E4", max_depth=6, random_state=0).fit(X, y)
        ref = DecisionTreeClassifier(max_depth=6, random_state=0).fit(X, y)
    else:
        y = target
        ours = ProductDecisionTreeRegressor(signature="E4", max_depth=6, random_state=0).fit(X, y)
        ref = DecisionTreeRegressor(max_depth=6, random_state=0).fit(X, y)
    assert ours.tree_.node_count == ref.tree_.node_count
    assert _same_partition(ours.apply(X), ref.apply(X))
    np.testing.assert_allclose(ours.predict(X), ref.predict(X), rtol=1e-12)
    # On new rows, compare the top of the trees: deep nodes hold few rows, and there two
    # planes can induce the very same training partition (a tie any search may break
    # either way), after which new rows are routed differently.
    shallow = clone(ours).set_params(max_depth=4).fit(X, y)
    shallow_ref = clone(ref).set_params(max_depth=4).fit(X, y)
    np.testing.assert_allclose(shallow.predict(X_new), shallow_ref.predict(X_new), rtol=1e-12)


def test_hyperbolic_equals_sklearn_on_klein_coordinates():
    # The Fast-HyperDT theorem: timelike splits are thresholds on x_j / x_0.
    pm = ProductManifold("H3")
    # scikit-learn compares float32 values up to 1e-7, so keep Klein coordinates well
    # apart (a moderate spread and sample size) to stay tie-free.
    X = pm.random_normal(1000, std=0.8, random_state=3)
    rng = np.random.default_rng(3)
    y = (X[:, 1] / X[:, 0] + 0.5 * (X[:, 2] / X[:, 0]) ** 2 + 0.1 * rng.normal(size=1000) > 0.1).astype(int)
    # Leaves of at least 15 rows keep tiny nodes (where equal-gain ties are common) out.
    ours = ProductDecisionTreeClassifier(signature="H3", max_depth=4, min_samples_leaf=15, random_state=0).fit(X, y)
    klein = X[:, 1:] / X[:, :1]
    ref = DecisionTreeClassifier(max_depth=4, min_samples_leaf=15, random_state=0).fit(klein, y)
    assert _same_partition(ours.apply(X), ref.apply(klein))


# --------------------------------------------------------- spheres, full depth
def _circle_points(angles, radius=1.0):
    return radius * np.column_stack([np.cos(angles), np.sin(angles)])


def test_full_depth_on_s1_straddling_the_cut():
    rng = np.random.default_rng(5)
    # Clusters centred on the +-pi cut and at 0, labels alternating between neighbours.
    angles = np.concatenate([np.pi + rng.normal(0, 0.3, 200), rng.normal(0, 0.3, 200)])
    y = rng.integers(0, 3, 400)
    X = _circle_points(angles)
    tree = ProductDecisionTreeClassifier(signature="S1").fit(X, y)
    assert tree.score(X, y) == 1.0


@pytest.mark.parametrize("signature", ["S2", "S3(4)", "S2(0.25)"])
def test_full_depth_on_spheres_near_poles(signature):
    pm = ProductManifold(signature)
    rng = np.random.default_rng(6)
    sig = Signature.parse(signature)
    radius = sig.components[0].radius
    n = 500
    # Points scattered around the last coordinate's pole and around the cut of the
    # (x0, x1) plane, with random labels: every distinct point must be fitted.
    pole = np.zeros(sig.ambient_dim)
    pole[-1] = radius
    near_pole = pm.expmap(
        np.tile(pole, (n // 2, 1)), pm.proju(np.tile(pole, (n // 2, 1)), rng.normal(0, 0.05, (n // 2, sig.ambient_dim)))
    )
    cut = np.zeros(sig.ambient_dim)
    cut[0] = -radius
    near_cut = pm.expmap(
        np.tile(cut, (n // 2, 1)), pm.proju(np.tile(cut, (n // 2, 1)), rng.normal(0, 0.2, (n // 2, sig.ambient_dim)))
    )
    X = np.vstack([near_pole, near_cut])
    y = rng.integers(0, 4, n)
    tree = ProductDecisionTreeClassifier(signature=signature).fit(X, y)
    assert tree.score(X, y) == 1.0


def test_full_depth_all_pairs_on_product():
    pm = ProductManifold("S2 x E2 x H2")
    X = pm.random_normal(600, std=1.0, random_state=8)
    y = np.random.default_rng(8).integers(0, 5, 600)
    tree = ProductDecisionTreeClassifier(signature="S2 x E2 x H2", pairs="all").fit(X, y)
    assert tree.score(X, y) == 1.0


# ------------------------------------------------------------------ margins
def _distance_to_boundary(kind, radius, X, i, j, normal, threshold):
    """Geodesic distance from each row to the split's hypersurface, computed by projection.

    Independent of the tree code: the nearest point on a homogeneous hyperplane with
    unit normal n (Minkowski-unit for H) is x - <x, n> n rescaled onto the manifold.
    """
    if kind == "E":
        if i == -1:
            return np.abs(X[:, j] - threshold)
        n = np.zeros(X.shape[1])
        n[i], n[j] = normal
        return np.abs(X @ n)
    if kind == "S":
        n = np.zeros(X.shape[1])
        n[i], n[j] = normal
        proj = X - np.outer(X @ n, n)
        proj *= radius / np.linalg.norm(proj, axis=1, keepdims=True)
        cos = np.clip(np.sum(X * proj, axis=1) / radius**2, -1, 1)
        return radius * np.arccos(cos)
    # Hyperbolic.
    n = np.zeros(X.shape[1])
    if i == 0:
        n[0], n[j] = threshold, 1.0  # <x, n>_L = x_j - t x_0
        n /= math.sqrt(1.0 - threshold**2)
    else:
        n[i], n[j] = normal
    signs = np.ones(X.shape[1])
    signs[0] = -1.0
    mink = (X * signs) @ n
    proj = X - np.outer(mink, n)
    norm = np.sqrt(np.maximum(-np.sum(proj * proj * signs, axis=1), 1e-300))
    proj *= radius / norm[:, None]
    cosh = np.maximum(-np.sum(X * proj * signs, axis=1) / radius**2, 1.0)
    return radius * np.arccosh(cosh)


def _scan_best_margin(kind, radius, X, i, j, left, stored_normal, stored_threshold, linear):
    """Best smallest distance over a fine scan of boundaries inducing the same partition."""
    best = 0.0
    if linear:
        xi = np.ones(len(X)) if i == -1 else X[:, i]
        ratio = X[:, j] / xi
        lo, hi = ratio[left].max(), ratio[~left].min()
        for t in np.linspace(lo, hi, 4001)[1:-1]:
            normal = np.array([-t, 1.0]) / math.hypot(t, 1.0)
            best = max(best, _distance_to_boundary(kind, radius, X, i, j, normal, t).min())
        return best
    phi0 = math.atan2(-stored_normal[0], stored_normal[1])
    for phi in phi0 + np.linspace(-np.pi / 2, np.pi / 2, 8001):
        normal = np.array([-math.sin(phi), math.cos(phi)])
        side = (normal[0] * X[:, i] + normal[1] * X[:, j]) <= 0
        if np.array_equal(side, left):
            best = max(best, _distance_to_boundary(kind, radius, X, i, j, normal, np.nan).min())
    return best


@pytest.mark.parametrize(
    ("kind", "curvature"), [("H", 0.25), ("H", 1.0), ("H", 4.0), ("S", 0.25), ("S", 1.0), ("S", 4.0), ("E", 1.0)]
)
@pytest.mark.parametrize("dim", [2, 4, 8])
def test_stored_boundary_has_maximum_margin(kind, curvature, dim):
    k = {"H": -curvature, "S": curvature, "E": 0.0}[kind]
    signature = Signature([(kind, dim, k)])
    pm = ProductManifold(signature)
    radius = signature.components[0].radius
    rng = np.random.default_rng(dim * 10 + int(curvature * 4))
    X = pm.random_normal(60, std=0.8 * (radius if kind != "E" else 1.0), random_state=int(curvature * 8) + dim)
    y = rng.integers(0, 2, 60)
    for pairs in ("base", "all"):
        tree = ProductDecisionTreeClassifier(signature=signature, pairs=pairs, max_depth=1, random_state=0).fit(X, y)
        t = tree.tree_
        if t.node_count == 1:
            continue
        i, j = t.coords[0]
        left = tree.apply(X) == t.children_left[0]
        stored = _distance_to_boundary(kind, radius, X, i, j, t.normal[0], t.threshold[0])
        assert t.margin[0] == pytest.approx(stored.min(), rel=1e-6, abs=1e-12)
        # No training row changes side: the stored boundary induces the searched partition.
        xi = np.ones(len(X)) if i == -1 else X[:, i]
        if t.linear[0]:
            side = X[:, j] / xi <= t.threshold[0]
        else:
            side = t.normal[0, 0] * xi + t.normal[0, 1] * X[:, j] <= 0
        np.testing.assert_array_equal(side, left)
        scanned = _scan_best_margin(kind, radius, X, i, j, left, t.normal[0], t.threshold[0], t.linear[0])
        assert t.margin[0] >= scanned * (1 - 1e-9)
        assert t.margin[0] <= scanned * (1 + 1e-3) + 1e-12


def test_linear_margin_balances_both_sides_in_h4():
    pm = ProductManifold("H4")
    X = pm.random_normal(300, std=1.5, random_state=11)
    y = (X[:, 1] / X[:, 0] > 0.05).astype(int)
    tree = ProductDecisionTreeClassifier(signature="H4", max_depth=1).fit(X, y)
    t = tree.tree_
    i, j = t.coords[0]
    dist = _distance_to_boundary("H", 1.0, X, i, j, t.normal[0], t.threshold[0])
    left = tree.apply(X) == t.children_left[0]
    assert dist[left].min() == pytest.approx(dist[~left].min(), rel=1e-9)


# --------------------------------------------------------------- parameters
@pytest.fixture(scope="module")
def mixture():
    pm = ProductManifold("H2 x S2 x E2")
    X = pm.random_normal(800, std=1.0, random_state=0)
    rng = np.random.default_rng(0)
    y = (X[:, 1] / X[:, 0] + X[:, 4] + 0.5 * rng.normal(size=800) > 0).astype(int) + (X[:, 6] > 0.5)
    return X, y


def test_min_samples_leaf_bounds_every_leaf(mixture):
    X, y = mixture
    for leaf_size in (1, 7, 40):
        tree = ProductDecisionTreeClassifier(signature="H2 x S2 x E2", min_samples_leaf=leaf_size).fit(X, y)
        leaves = tree.tree_.children_left == -1
        assert tree.tree_.n_node_samples[leaves].min() >= leaf_size
    small = ProductDecisionTreeClassifier(signature="H2 x S2 x E2", min_samples_leaf=1).fit(X, y)
    large = ProductDecisionTreeClassifier(signature="H2 x S2 x E2", min_samples_leaf=40).fit(X, y)
    assert large.get_n_leaves() < small.get_n_leaves()


def test_max_samples_limits_each_bootstrap(mixture):
    X, y = mixture
    forest = ProductRandomForestClassifier(5, signature="H2 x S2 x E2", max_samples=100, random_state=0).fit(X, y)
    for tree in forest.estimators_:
        assert tree.tree_.weighted_n_node_samples[0] == pytest.approx(100)
        assert tree.tree_.n_node_samples[0] <= 100
    full = ProductRandomForestClassifier(5, signature="H2 x S2 x E2", random_state=0).fit(X, y)
    assert full.estimators_[0].tree_.weighted_n_node_samples[0] == pytest.approx(len(X))
    with pytest.raises(ValueError, match="max_samples"):
        ProductRandomForestClassifier(2, signature="H2 x S2 x E2", max_samples=10_000).fit(X, y)


def test_max_features_draws_planes_per_node(mixture):
    X, y = mixture
    n_planes = SplitFeatures.from_signature("H2 x S2 x E2").n_features
    best = ProductDecisionTreeClassifier(signature="H2 x S2 x E2", max_depth=1)
    roots_all = {best.set_params(random_state=s).fit(X, y).tree_.feature[0] for s in range(6)}
    assert len(roots_all) == 1  # every plane searched: the best root never changes
    one = ProductDecisionTreeClassifier(signature="H2 x S2 x E2", max_depth=1, max_features=1)
    roots_one = {one.set_params(random_state=s).fit(X, y).tree_.feature[0] for s in range(12)}
    assert len(roots_one) > 1  # one random plane per node
    assert one.max_features_ == 1
    forest = ProductRandomForestClassifier(2, signature="H2 x S2 x E2", random_state=0).fit(X, y)
    assert forest.estimators_[0].max_features_ == int(math.sqrt(n_planes))


def test_n_jobs_gives_identical_forests(mixture):
    X, y = mixture
    one = ProductRandomForestClassifier(8, signature="H2 x S2 x E2", n_jobs=1, random_state=4).fit(X, y)
    two = ProductRandomForestClassifier(8, signature="H2 x S2 x E2", n_jobs=2, random_state=4).fit(X, y)
    for a, b in zip(one.estimators_, two.estimators_):
        np.testing.assert_array_equal(a.tree_.feature, b.tree_.feature)
        np.testing.assert_array_equal(a.tree_.normal, b.tree_.normal)
    np.testing.assert_array_equal(one.predict_proba(X), two.predict_proba(X))


def test_warm_start_grows_the_same_trees(mixture):
    X, y = mixture
    whole = ProductRandomForestClassifier(6, signature="H2 x S2 x E2", random_state=2).fit(X, y)
    steps = ProductRandomForestClassifier(2, signature="H2 x S2 x E2", random_state=2, warm_start=True)
    for n in (2, 4, 6):
        steps.set_params(n_estimators=n).fit(X, y)
    np.testing.assert_array_equal(whole.predict_proba(X), steps.predict_proba(X))


def test_min_impurity_decrease_prunes(mixture):
    X, y = mixture
    free = ProductDecisionTreeClassifier(signature="H2 x S2 x E2", random_state=0).fit(X, y)
    pruned = ProductDecisionTreeClassifier(signature="H2 x S2 x E2", min_impurity_decrease=0.01, random_state=0)
    pruned.fit(X, y)
    assert pruned.get_n_leaves() < free.get_n_leaves()
    internal = pruned.tree_.children_left != -1
    assert np.all(pruned.tree_.improvement[internal] / len(X) >= 0.01 - 1e-12)


def test_importances_and_text(mixture):
    X, y = mixture
    tree = ProductDecisionTreeClassifier(signature="H2 x S2 x E2", max_depth=4, random_state=0).fit(X, y)
    assert tree.feature_importances_.sum() == pytest.approx(1.0)
    assert tree.component_importances_.shape == (3,)
    assert tree.component_importances_.sum() == pytest.approx(1.0)
    text = export_text(tree)
    assert text.splitlines()[0].startswith("node 0: component ")
    assert "margin" in text and "samples" in text
    forest = ProductRandomForestRegressor(4, signature="H2 x S2 x E2", random_state=0).fit(X, y.astype(float))
    assert forest.component_importances_.sum() == pytest.approx(1.0)


def test_decision_path_matches_apply(mixture):
    X, y = mixture
    tree = ProductDecisionTreeClassifier(signature="H2 x S2 x E2", max_depth=6, random_state=0).fit(X, y)
    path = tree.decision_path(X)
    leaves = tree.apply(X)
    assert np.all(path[np.arange(len(X)), leaves] == 1)
    assert np.all(path[:, 0].toarray() == 1)
    forest = ProductRandomForestClassifier(3, signature="H2 x S2 x E2", random_state=0).fit(X, y)
    indicator, ptr = forest.decision_path(X)
    assert indicator.shape == (len(X), ptr[-1])


# --------------------------------------------------------------- robustness
def test_far_hyperbolic_points():
    pm = ProductManifold("H2")
    rng = np.random.default_rng(0)
    directions = rng.normal(size=(200, 2))
    directions /= np.linalg.norm(directions, axis=1, keepdims=True)
    radii = rng.uniform(25, 30, size=200)
    tangent = np.column_stack([np.zeros(200), directions * radii[:, None]])
    X = pm.expmap0(tangent)
    y = (directions[:, 0] > 0).astype(int)
    tree = ProductDecisionTreeClassifier(signature="H2").fit(X, y)
    assert tree.score(X, y) == 1.0
    internal = tree.tree_.children_left != -1
    assert np.all(np.isfinite(tree.tree_.margin[internal]))
    assert np.all(np.isfinite(tree.tree_.threshold[internal & tree.tree_.linear]))


def test_duplicates_with_conflicting_labels():
    X = np.repeat(ProductManifold("S2").random_normal(10, random_state=1), 3, axis=0)
    y = np.tile([0, 1, 1], 10)
    tree = ProductDecisionTreeClassifier(signature="S2").fit(X, y)
    proba = tree.predict_proba(X)
    np.testing.assert_allclose(proba[:, 1], 2 / 3)


def test_constant_features_single_class_single_row():
    X = np.column_stack([np.ones(20), np.linspace(0, 1, 20)])
    y = (X[:, 1] > 0.5).astype(int)
    tree = ProductDecisionTreeClassifier().fit(X, y)
    assert tree.score(X, y) == 1.0
    assert set(tree.tree_.feature[tree.tree_.children_left != -1]) == {1}
    single_class = ProductDecisionTreeClassifier().fit(X, np.zeros(20))
    assert single_class.get_n_leaves() == 1 and np.all(single_class.predict(X) == 0)
    one_row = ProductDecisionTreeRegressor(signature="H2").fit(ProductManifold("H2").origin()[None], [3.0])
    assert one_row.predict(ProductManifold("H2").random_normal(4, random_state=0)).tolist() == [3.0] * 4
    constant = ProductDecisionTreeClassifier(signature="S1").fit(np.tile([[1.0, 0.0]], (5, 1)), [0, 1, 0, 1, 0])
    assert constant.get_n_leaves() == 1


def test_float32_is_computed_in_float64():
    pm = ProductManifold("H2 x S1")
    X = pm.random_normal(300, random_state=2)
    y = np.random.default_rng(2).integers(0, 2, 300)
    X32 = pm.projx(X.astype(np.float32).astype(np.float64)).astype(np.float32)
    tree = ProductDecisionTreeClassifier(signature="H2 x S1", random_state=0).fit(X32, y)
    assert tree.tree_.threshold.dtype == np.float64
    np.testing.assert_array_equal(tree.predict(X32), tree.predict(X32.astype(np.float64)))


def test_bad_input_is_explained():
    tree = ProductDecisionTreeClassifier(signature="H2 x S2")
    pm = ProductManifold("H2 x S2")
    X = pm.random_normal(10, random_state=0)
    y = np.arange(10) % 2
    with pytest.raises(ValueError, match="columns"):
        tree.fit(X[:, :5], y)
    bad = X.copy()
    bad[3, 4] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        tree.fit(bad, y)
    off = X.copy()
    off[7, 3:] *= 1.3
    with pytest.raises(ValueError, match="S2"):
        tree.fit(off, y)
    tree.fit(off, y, check_input=False)  # the manifold check can be skipped
    with pytest.raises(ValueError, match="malformed signature"):
        ProductDecisionTreeClassifier(signature="H2 x Q2").fit(X, y)
    with pytest.raises(ValueError, match="pairs"):
        ProductDecisionTreeClassifier(signature="H2 x S2", pairs="some").fit(X, y)


def test_clone_and_grid_search(mixture):
    X, y = mixture
    base = ProductDecisionTreeClassifier(signature="H2 x S2 x E2", random_state=0)
    assert clone(base).get_params() == base.get_params()
    search = GridSearchCV(base, {"max_depth": [2, 4], "pairs": ["base", "all"]}, cv=3).fit(X, y)
    assert search.best_params_["max_depth"] in (2, 4)
