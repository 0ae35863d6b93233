"""The compiled forest prediction and the one-pass input check give the old results exactly.

The old paths are the reference: a forest's output is the sum of its trees'
``tree_.predict`` in tree order divided by the number of trees, and ``validate``
accepts exactly the rows the NumPy membership checks (``check_point``) accept,
with the same messages for the rest.
"""

from __future__ import annotations

import curvedtrees as ct
import numpy as np
import pytest
from curvedtrees.manifolds import ProductManifold
from curvedtrees.manifolds._kernels import rows_clear
from curvedtrees.trees import ProductRandomForestClassifier, ProductRandomForestRegressor
from curvedtrees.trees._builder import pack_forest
from curvedtrees.trees._forest import _ROWS_PER_THREAD

SIGNATURES = ["S2", "H2", "H2 x S2 x E2", "S1 x E1 x H3(-0.5) x S2(2)"]


def per_tree_mean(forest, X):
    """The old forest path: every tree's leaf values, summed in tree order."""
    return np.sum([tree.tree_.predict(X) for tree in forest.estimators_], axis=0) / len(forest.estimators_)


def many_rows(signature, n, seed):
    """``n`` points of ``signature`` spread wider than the training data (more leaves reached)."""
    return ProductManifold(signature).random_normal(n, std=1.5, random_state=seed)


@pytest.mark.parametrize("signature", SIGNATURES)
@pytest.mark.parametrize("pairs", ["base", "all"])
def test_forest_classifier_matches_the_per_tree_path(signature, pairs):
    X, y = ct.make_classification(signature, n_samples=600, n_classes=4, random_state=1)
    forest = ProductRandomForestClassifier(7, signature=signature, pairs=pairs, random_state=0).fit(X, y)
    # More rows than one thread takes, so that n_jobs=2 splits them.
    rows = many_rows(signature, 2 * _ROWS_PER_THREAD + 123, seed=2)
    expected = per_tree_mean(forest, rows)
    for n_jobs in (1, 2):
        forest.set_params(n_jobs=n_jobs)
        np.testing.assert_array_equal(forest.predict_proba(rows), expected)
    np.testing.assert_array_equal(forest.predict(rows), forest.classes_[np.argmax(expected, axis=1)])


@pytest.mark.parametrize("signature", SIGNATURES)
def test_forest_regressor_matches_the_per_tree_path(signature):
    X, y = ct.make_regression(signature, n_samples=500, random_state=3)
    forest = ProductRandomForestRegressor(5, signature=signature, max_depth=9, random_state=0, n_jobs=2).fit(X, y)
    rows = many_rows(signature, 2 * _ROWS_PER_THREAD + 7, seed=4)
    np.testing.assert_array_equal(forest.predict(rows), per_tree_mean(forest, rows)[:, 0])


def test_packed_tables_follow_refits_and_warm_start():
    signature = "H2 x S2"
    X, y = ct.make_classification(signature, n_samples=300, random_state=0)
    forest = ProductRandomForestClassifier(3, signature=signature, random_state=0, warm_start=True).fit(X, y)
    first = forest.predict_proba(X)
    forest.set_params(n_estimators=6).fit(X, y)  # three more trees: the cached tables must grow
    np.testing.assert_array_equal(forest.predict_proba(X), per_tree_mean(forest, X))
    assert not np.array_equal(forest.predict_proba(X), first)
    forest.set_params(warm_start=False, random_state=1).fit(X, y)  # a refit: new trees, same count
    np.testing.assert_array_equal(forest.predict_proba(X), per_tree_mean(forest, X))


def test_prediction_leaves_the_estimator_and_the_model_file_alone():
    signature = "S2 x E1"
    X, y = ct.make_classification(signature, n_samples=300, random_state=0)
    forest = ProductRandomForestClassifier(4, signature=signature, random_state=0).fit(X, y)
    before = dict(forest.__dict__)
    text_before = ct.dumps(forest)
    proba = forest.predict_proba(X)
    assert forest.__dict__.keys() == before.keys()  # scikit-learn's rule: predict adds no attribute
    assert ct.dumps(forest) == text_before  # the packed tables are not part of the model file
    assert "_routing" not in text_before
    loaded = ct.loads(text_before)
    np.testing.assert_array_equal(loaded.predict_proba(X), proba)


def test_pack_forest_flat_numbering():
    signature = "H2 x E1"
    X, y = ct.make_classification(signature, n_samples=200, random_state=0)
    forest = ProductRandomForestClassifier(3, signature=signature, max_depth=3, random_state=0).fit(X, y)
    trees = [tree.tree_ for tree in forest.estimators_]
    nodes, roots, leaf_values = pack_forest(trees)
    sizes = [tree.node_count for tree in trees]
    assert nodes.shape == (sum(sizes),)
    np.testing.assert_array_equal(roots, np.cumsum([0, *sizes[:-1]]))
    assert leaf_values.shape == (sum(tree.n_leaves for tree in trees), forest.n_classes_)
    leaf = nodes["left"] == -1
    np.testing.assert_array_equal(nodes["right"][leaf], np.arange(leaf.sum()))  # leaves index their values
    internal = ~leaf
    assert np.all(nodes["left"][internal] > np.flatnonzero(internal))  # children point forward, flat ids
    assert np.all(nodes["right"][internal] < sum(sizes))


# ------------------------------------------------------------------ input checks
@pytest.mark.parametrize("signature", ["H2 x S2 x E2", "H3(-0.3) x S1(4)", "H8", "S16(0.5)"])
def test_one_pass_check_accepts_exactly_what_numpy_accepts(signature):
    M = ProductManifold(signature)
    rng = np.random.default_rng(0)
    X = M.random_normal(4000, std=3.0, random_state=1)
    # Relative errors spread around the tolerance (1e-6), in one coordinate of one component per row.
    factors = 1.0 + rng.choice([-1, 1], size=len(X)) * rng.uniform(0.5e-6, 1.5e-6, size=len(X))
    for s in M.slices:
        column = s.start + rng.integers(0, s.stop - s.start, size=len(X))
        X[np.arange(len(X)), column] *= np.where(rng.random(len(X)) < 0.5, factors, 1.0)
    for row in range(len(X)):
        one = X[row : row + 1]
        ok = M.check_point(one)
        if ok:
            np.testing.assert_array_equal(M.validate(one), one)
        else:
            with pytest.raises(ValueError, match="off the manifold"):
                M.validate(one)
            assert not rows_clear(one, *M._rows_tables(True, 1e-6))
    # Whole arrays: the fast path says yes only when every row passes the NumPy check.
    passing = np.array([bool(M.check_point(X[r : r + 1])) for r in range(len(X))])
    assert 0 < passing.sum() < len(X)
    assert rows_clear(X[passing], *M._rows_tables(True, 1e-6))
    assert not rows_clear(X, *M._rows_tables(True, 1e-6))


def test_one_pass_check_keeps_every_message():
    M = ProductManifold("H2 x S2 x E2")
    X = M.random_normal(50, random_state=0)
    bad = X.copy()
    bad[7, 6] = np.nan
    with pytest.raises(ValueError, match=r"X contains NaN at row 7, column 6 \(component 3, E2, coordinate 0\)"):
        M.validate(bad)
    bad = X.copy()
    bad[3, 0] = -np.inf
    with pytest.raises(ValueError, match=r"contains -inf at row 3, column 0 \(component 1, H2"):
        M.validate(bad, check_manifold=False)
    bad = X.copy()
    bad[[4, 9], 3:6] *= 1.01
    ok, reason = M.check_point(bad, explain=True)
    assert not ok
    with pytest.raises(ValueError) as error:
        M.validate(bad)
    assert str(error.value) == f"X has points off the manifold 'H2 x S2 x E2': {reason}"
    bad = X.copy()
    bad[2, 0] = -bad[2, 0]  # the lower sheet of the hyperboloid
    with pytest.raises(ValueError, match=r"row 2 has x0 = .* <= 0"):
        M.validate(bad)
    # Without the manifold check only finiteness counts.
    np.testing.assert_array_equal(M.validate(bad, check_manifold=False), bad)


@pytest.mark.parametrize("value", [np.nan, np.inf, -np.inf])
def test_rows_clear_refuses_non_finite_values_in_every_kind(value):
    M = ProductManifold("H2 x S2 x E2")
    X = M.random_normal(20, random_state=0)
    for check in (True, False):
        tables = M._rows_tables(check, 1e-6)
        assert rows_clear(X, *tables)
        for column in range(M.ambient_dim):
            bad = X.copy()
            bad[11, column] = value
            assert not rows_clear(bad, *tables), (check, column)


# ------------------------------------------------------- constant columns (pictures)
@pytest.mark.parametrize("signature", ["S2 x E2 x H2", "H2 x S1 x S1", "E1 x H3(-0.5) x S2(2)"])
def test_picture_rows_route_as_before_when_held_splits_are_resolved(signature, monkeypatch):
    from curvedtrees import viz
    from curvedtrees.trees import _forest

    monkeypatch.setattr(_forest, "_RESOLVE_ROWS", 1)  # resolve on every call, whatever its size
    X, y = ct.make_classification(signature, n_samples=800, n_classes=4, random_state=0)
    forest = ProductRandomForestClassifier(8, signature=signature, pairs="all", random_state=0).fit(X, y)
    reference = viz.reference_point(signature, X, "mean")
    for view in viz.available_views(signature):
        grid = viz.view_grid(view, signature, 40, viz.data_bounds(view, signature, X) or None)
        rows = viz.product_rows(grid, reference)
        np.testing.assert_array_equal(forest.predict_proba(rows), per_tree_mean(forest, rows))


def test_resolved_splits_are_skipped_and_signed_zeros_are_not_constant():
    from curvedtrees.trees._forest import resolve_constant_splits

    signature = "E1 x E1"
    X = np.array([[x, y] for x in np.linspace(-1, 1, 12) for y in np.linspace(-1, 1, 12)])
    y = (X[:, 0] > 0).astype(int) + 2 * (X[:, 1] > 0)
    forest = ProductRandomForestClassifier(
        3, signature=signature, bootstrap=False, max_features=None, random_state=0
    ).fit(X, y)
    nodes, roots, _ = forest._routing_tables()
    rows = np.column_stack([np.linspace(-1, 1, 50), np.full(50, 0.3)])  # column 1 held at 0.3
    resolved, new_roots = resolve_constant_splits(nodes, roots, rows)
    reachable = set()
    stack = list(new_roots)
    while stack:
        node = int(stack.pop())
        reachable.add(node)
        if resolved["left"][node] != -1:
            stack += [resolved["left"][node], resolved["right"][node]]
    # No reachable split reads the held column any more; every split on column 0 is kept.
    internal = [n for n in reachable if resolved["left"][n] != -1]
    assert internal and all(resolved["col_j"][n] == 0 for n in internal)
    assert any(nodes["col_j"][n] == 1 for n in range(len(nodes)) if nodes["left"][n] != -1)
    np.testing.assert_array_equal(nodes, forest._routing_tables()[0])  # the cached tables are untouched
    signed = rows.copy()
    signed[::2, 1], signed[1::2, 1] = 0.0, -0.0
    same, same_roots = resolve_constant_splits(nodes, roots, signed)
    assert same is nodes and same_roots is roots
