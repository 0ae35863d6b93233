"""The conventions shared by every estimator family and the geometry (issue 17).

One signature rule (``Signature.resolve``), geoopt's names on the manifolds
(``cdist``, ``check_point_on_manifold``), and scikit-learn's declarative parameter
checks instead of hand-written ones.
"""

from __future__ import annotations

import numpy as np
import pytest
from curvedtrees.baselines import (
    AmbientClassifier,
    GeodesicKNNClassifier,
    GeodesicKNNRegressor,
    ProductPerceptronClassifier,
    ProductSVMClassifier,
    ProductSVMRegressor,
    TangentRegressor,
)
from curvedtrees.boosting import ProductGradientBoostingClassifier, ProductGradientBoostingRegressor
from curvedtrees.klein import KleinTreeClassifier, KleinTreeRegressor
from curvedtrees.manifolds import Hyperbolic, ProductManifold, Signature, Spherical
from curvedtrees.trees import ProductDecisionTreeClassifier, ProductRandomForestClassifier, ProductRandomForestRegressor
from sklearn.base import is_classifier
from sklearn.utils._param_validation import InvalidParameterError

SIG = "H2 x S2 x E2"
# The width message of Signature.resolve, for X of 7 columns.
TOO_NARROW = r"X has 7 columns, but signature 'H2 x S2 x E2' needs 8 ambient coordinates \(H2: 3, S2: 3, E2: 2\)"


def _points(n=30, seed=0):
    X = ProductManifold(SIG).random_normal(n, random_state=seed)
    return X, np.arange(n) % 2


# ------------------------------------------------------------------ Signature.resolve
def test_resolve_makes_none_euclidean_of_the_data_width():
    assert Signature.resolve(None, 5) == Signature.parse("E5")


def test_resolve_checks_the_width_and_names_each_component():
    with pytest.raises(ValueError, match=TOO_NARROW + "$"):
        Signature.resolve(SIG, 7)


def test_resolve_says_when_intrinsic_coordinates_were_given():
    with pytest.raises(ValueError, match="6 is the intrinsic dimension"):
        Signature.resolve(SIG, 6)


def test_resolve_turns_a_wrong_type_into_a_value_error():
    with pytest.raises(ValueError, match="a signature must be a string"):
        Signature.resolve(3, 3)


@pytest.mark.parametrize(
    "estimator",
    [
        ProductDecisionTreeClassifier(signature=SIG),
        ProductRandomForestClassifier(2, signature=SIG),
        GeodesicKNNClassifier(signature=SIG),
        ProductPerceptronClassifier(signature=SIG),
        ProductSVMClassifier(signature=SIG),
        AmbientClassifier(signature=SIG),
    ],
    ids=lambda e: type(e).__name__,
)
def test_every_family_refuses_a_wrong_width_with_the_same_message(estimator):
    X, y = _points()
    with pytest.raises(ValueError, match=TOO_NARROW):
        estimator.fit(X[:, :7], y)


# ------------------------------------------------------------------ geoopt's names
@pytest.mark.parametrize("space", [Hyperbolic(2, -0.5), Spherical(2, 2.0), ProductManifold(SIG)], ids=str)
def test_cdist_is_the_matrix_of_row_distances_and_pdist_its_alias(space):
    rng = np.random.default_rng(0)
    X = space.random_normal(7, random_state=rng)
    Y = space.random_normal(4, random_state=rng)
    D = space.cdist(X, Y)
    assert D.shape == (7, 4)
    np.testing.assert_allclose(D, space.dist(X[:, None, :], Y[None, :, :]), rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(space.pdist(X, Y), D)
    assert np.all(np.diag(space.cdist(X)) == 0.0)


@pytest.mark.parametrize("space", [Hyperbolic(2), Spherical(2), ProductManifold(SIG)], ids=str)
def test_check_point_on_manifold_answers_like_check_point(space):
    X = space.random_normal(5, random_state=0)
    assert bool(space.check_point_on_manifold(X))
    bad = X.copy()
    bad[2, 0] += 0.5
    ok, reason = space.check_point_on_manifold(bad, explain=True)
    assert not ok
    assert (ok, reason) == space.check_point(bad, explain=True)
    assert "row 2" in reason


# ------------------------------------------------------------------ scikit-learn's conventions
@pytest.mark.parametrize(
    ("estimator", "expected"),
    [
        (ProductDecisionTreeClassifier(), True),
        (GeodesicKNNClassifier(), True),
        (GeodesicKNNRegressor(), False),
        (ProductSVMRegressor(), False),
        (TangentRegressor(), False),
        (AmbientClassifier(), True),
        (ProductRandomForestClassifier(), True),
        (ProductRandomForestRegressor(), False),
        (ProductGradientBoostingClassifier(), True),
        (ProductGradientBoostingRegressor(), False),
        (KleinTreeClassifier(), True),
        (KleinTreeRegressor(), False),
    ],
    ids=lambda e: type(e).__name__ if not isinstance(e, bool) else str(e),
)
def test_the_kind_of_estimator_is_read_from_scikit_learns_tags(estimator, expected):
    assert is_classifier(estimator) is expected
    assert not hasattr(estimator, "_is_classifier") and not hasattr(estimator, "_regressor")


@pytest.mark.parametrize(
    ("estimator", "parameter"),
    [
        (GeodesicKNNClassifier(n_neighbors=0), "n_neighbors"),
        (GeodesicKNNRegressor(weights="nearest"), "weights"),
        (ProductPerceptronClassifier(max_iter=0), "max_iter"),
        (ProductPerceptronClassifier(shuffle="yes"), "shuffle"),
        (ProductSVMClassifier(gamma=float("inf")), "gamma"),
        (ProductSVMRegressor(gamma="auto"), "gamma"),
        (ProductDecisionTreeClassifier(max_depth=0), "max_depth"),
        (ProductDecisionTreeClassifier(min_impurity_decrease=-1.0), "min_impurity_decrease"),
    ],
    ids=lambda v: v if isinstance(v, str) else type(v).__name__,
)
def test_bad_parameters_are_refused_by_the_declared_constraints(estimator, parameter):
    X, y = _points()
    with pytest.raises(InvalidParameterError, match=f"The '{parameter}' parameter of {type(estimator).__name__}"):
        estimator.fit(X, y)
