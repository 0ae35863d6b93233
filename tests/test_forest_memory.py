"""The forest's lean per-tree state grows exactly the trees of the plain recipe.

Per tree, the forest counts bootstrap draws in place from chunks of the random stream
and grows on int32 row ids (see curvedtrees.trees._forest); these tests pin both to
scikit-learn's recipe (one randint call, bincount) and to int64 rows.
"""

from __future__ import annotations

import numpy as np
import pytest
from curvedtrees.sampling import make_classification
from curvedtrees.trees import ProductDecisionTreeClassifier
from curvedtrees.trees._builder import build_tree
from curvedtrees.trees._forest import _DRAW_CHUNK, _bootstrap_weights


@pytest.mark.parametrize("n_draws", [1, _DRAW_CHUNK - 1, _DRAW_CHUNK, 2 * _DRAW_CHUNK + 17, 3 * _DRAW_CHUNK])
def test_chunked_bootstrap_weights_match_one_randint_call(n_draws):
    n_samples = 2 * _DRAW_CHUNK + 100
    weight = np.random.default_rng(0).uniform(0.5, 2.0, n_samples)
    draws = np.random.RandomState(11).randint(0, n_samples, n_draws)
    expected = weight * np.bincount(draws, minlength=n_samples).astype(np.float64)
    np.testing.assert_array_equal(_bootstrap_weights(11, weight, n_draws), expected)


@pytest.mark.parametrize("pairs", ["base", "all"])
def test_int32_rows_grow_the_same_tree_as_int64_rows(pairs):
    X, y = make_classification("H2 x S2 x E2", n_samples=2000, n_classes=4, random_state=3)
    features = ProductDecisionTreeClassifier(signature="H2 x S2 x E2", pairs=pairs).fit(X[:50], y[:50]).split_features_
    V = features.values(X)
    weight = _bootstrap_weights(5, np.ones(X.shape[0]), X.shape[0])
    rows = np.flatnonzero(weight > 0)
    trees = []
    for dtype in (np.int64, np.int32):
        trees.append(
            build_tree(
                X,
                V,
                features.kind,
                features.col_i,
                features.col_j,
                y.astype(np.int64),
                np.zeros(1),
                weight,
                rows.astype(dtype),
                4,
                True,
                0,
                2**31 - 1,
                2,
                1,
                0.0,
                3,
                9,
            )
        )
    assert trees[0][0].shape[0] > 50
    for a, b in zip(*trees, strict=True):
        np.testing.assert_array_equal(a, b)
