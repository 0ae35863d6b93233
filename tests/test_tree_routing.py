"""One routing rule: ``Tree.goes_left``, ``reaches`` and ``route`` agree with the compiled routing.

The pictures ask a tree which cells reach a node and which side they take
(``curvedtrees.viz``: boundaries, node regions, replays); predictions route rows through the
compiled kernels (``Tree.apply``). Both must send every row the same way, on every plane
kind (lift, timelike, circular) and on rows exactly on a boundary, where a rule written
another way (``n . x <= 0`` for a threshold split) can round to the other side.
"""

from __future__ import annotations

import numpy as np
import pytest
from curvedtrees import make_classification
from curvedtrees.boosting import ProductGradientBoostingClassifier
from curvedtrees.trees import (
    ProductDecisionTreeClassifier,
    ProductDecisionTreeRegressor,
    ProductRandomForestClassifier,
    first_splits,
    split_order,
)
from curvedtrees.trees.kernels import CIRCULAR, LIFT, TIMELIKE, next_node

SIGNATURE = "H2 x S2 x E2"


@pytest.fixture(scope="module")
def fitted():
    X, y = make_classification(SIGNATURE, n_samples=600, n_classes=4, n_clusters=8, random_state=3)
    tree = ProductDecisionTreeClassifier(signature=SIGNATURE, pairs="all", random_state=0).fit(X, y)
    return X, y, tree


def _compiled_left(tree, node: int, X: np.ndarray) -> np.ndarray:
    """The compiled kernels' own choice at ``node`` for every row (the builder's predicate)."""
    int_part, float_part = tree._route_args()
    left = int(tree.children_left[node])
    return np.array([next_node(X, r, node, int_part, float_part) == left for r in range(len(X))])


def _on_boundary(tree, node: int, X: np.ndarray) -> np.ndarray:
    """Rows of ``X`` moved onto the split's boundary at ``node``, and one float to either side of it."""
    plane = int(tree.feature[node])
    kind = int(tree.features.kind[plane])
    i, j = int(tree.features.col_i[plane]), int(tree.features.col_j[plane])
    rows = np.repeat(X, 3, axis=0)
    t = float(tree.threshold[node])
    if kind == LIFT:
        exact = np.full(len(X), t)
    elif kind == TIMELIKE:
        rows[:, i] = np.repeat(np.maximum(X[:, i], 1.0), 3)
        exact = rows[::3, i] * t  # x_j / x_i rounds back to t or next to it: both must agree
    else:
        n_i, n_j = tree.normal[node]
        scale = np.abs(X[:, i]) + 1.0
        rows[:, i] = np.repeat(n_j * scale, 3)
        exact = -n_i * scale  # n_i x_i + n_j x_j is then 0 up to one rounding
    rows[0::3, j] = exact
    rows[1::3, j] = np.nextafter(exact, -np.inf)
    rows[2::3, j] = np.nextafter(exact, np.inf)
    return rows


def test_the_tree_has_every_plane_kind(fitted):
    _, _, est = fitted
    tree = est.tree_
    kinds = {int(tree.features.kind[f]) for f in tree.feature[tree.children_left >= 0]}
    assert kinds == {LIFT, TIMELIKE, CIRCULAR}


def test_goes_left_is_the_compiled_predicate_on_data_and_on_boundaries(fitted):
    X, _, est = fitted
    tree = est.tree_
    checked = dict.fromkeys((LIFT, TIMELIKE, CIRCULAR), 0)
    for node in split_order(tree):
        rows = np.concatenate([X[:50], _on_boundary(tree, int(node), X[:40])])
        assert np.array_equal(tree.goes_left(int(node), rows), _compiled_left(tree, int(node), rows)), node
        checked[int(tree.features.kind[tree.feature[node]])] += 1
    assert min(checked.values()) >= 1, checked


def test_boundary_rows_follow_apply_through_the_whole_tree(fitted):
    X, _, est = fitted
    tree = est.tree_
    # Rows on the root's boundary and on the boundaries below it, routed end to end.
    rows = np.concatenate([_on_boundary(tree, int(node), X[:20]) for node in split_order(tree)[:12]])
    path = tree.decision_path(rows).toarray().astype(bool)
    for node in range(tree.node_count):
        assert np.array_equal(tree.reaches(node, rows), path[:, node]), node
        if tree.children_left[node] >= 0:
            here = path[:, node]
            went_left = path[here, tree.children_left[node]]
            assert np.array_equal(tree.goes_left(node, rows[here]), went_left), node


def test_reaches_of_a_leaf_is_apply(fitted):
    X, _, est = fitted
    tree = est.tree_
    leaves = tree.apply(X)
    for leaf in np.flatnonzero(tree.children_left < 0)[:20]:
        assert np.array_equal(tree.reaches(int(leaf), X), leaves == leaf)


def test_route_after_k_splits_is_the_pruned_trees_apply(fitted):
    X, _, est = fitted
    tree = est.tree_
    n_splits = len(split_order(tree))
    assert tree.nodes_after_splits([n_splits]).tolist() == [list(range(tree.node_count))]
    for k in (0, 1, 2, 5, n_splits // 2, n_splits):
        pruned = first_splits(est, k)
        assert np.array_equal(tree.route(X, upto=k), pruned.kept[pruned.estimator.apply(X)]), k
    assert np.array_equal(tree.route(X), tree.apply(X))
    with pytest.raises(ValueError, match="split counts must lie in"):
        tree.nodes_after_splits([n_splits + 1])


def test_a_leaf_sends_no_row_and_node_ids_are_checked(fitted):
    X, _, est = fitted
    tree = est.tree_
    leaf = int(np.flatnonzero(tree.children_left < 0)[0])
    with pytest.raises(ValueError, match="is not a split"):
        tree.goes_left(leaf, X)
    with pytest.raises(ValueError, match="node must be between"):
        tree.reaches(tree.node_count, X)
    assert tree.parents()[0] == -1 and (tree.parents()[1:] < np.arange(1, tree.node_count)).all()


def test_forest_trees_and_regressors_route_the_same_way():
    X, y = make_classification("S2 x E2", n_samples=300, n_classes=3, random_state=1)
    forest = ProductRandomForestClassifier(5, signature="S2 x E2", pairs="all", random_state=0).fit(X, y)
    regressor = ProductDecisionTreeRegressor(signature="S2 x E2", max_depth=5).fit(X, X[:, 0])
    for est in (*forest.estimators_, regressor):
        tree = est.tree_
        for node in split_order(tree)[:10]:
            rows = np.concatenate([X[:30], _on_boundary(tree, int(node), X[:30])])
            assert np.array_equal(tree.goes_left(int(node), rows), _compiled_left(tree, int(node), rows))


def test_boosting_hands_out_its_trees_as_fitted_regression_trees():
    X, y = make_classification("H2 x S2", n_samples=300, n_classes=3, random_state=0)
    gb = ProductGradientBoostingClassifier(signature="H2 x S2", max_iter=3, random_state=0).fit(X, y)
    raw = np.tile(gb.baseline_, (len(X), 1))
    for index in range(gb.n_iter_ * gb.n_trees_per_iteration_):
        tree = gb.tree_estimator(index)
        assert isinstance(tree, ProductDecisionTreeRegressor)
        iteration, k = divmod(index, gb.n_trees_per_iteration_)
        assert tree.tree_ is gb.trees_[iteration][k] and tree.signature_ is gb.signature_
        assert tree.get_params()["min_samples_leaf"] == gb.min_samples_leaf
        raw[:, k] += tree.predict(X)
        assert np.array_equal(tree.apply(X), tree.tree_.route(X))
    np.testing.assert_allclose(raw, gb.decision_function(X), rtol=0, atol=1e-12)
    for bad in (-1, gb.n_iter_ * gb.n_trees_per_iteration_, 1.5, True):
        with pytest.raises(IndexError, match="tree index must be an integer"):
            gb.tree_estimator(bad)
