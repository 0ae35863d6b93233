"""warm_start of the product forests: new trees only on data the kept trees can read."""

from __future__ import annotations

import numpy as np
import pytest
from curvedtrees import io
from curvedtrees.sampling import make_classification
from curvedtrees.trees import ProductRandomForestClassifier, ProductRandomForestRegressor

SIGNATURE = "H2 x S2 x E2"


@pytest.fixture(scope="module")
def mixture():
    return make_classification(SIGNATURE, n_samples=300, n_classes=3, random_state=0)


def _snapshot(forest):
    """What a refused fit must leave untouched."""
    return (
        list(forest.estimators_),
        forest.signature_,
        forest.n_features_in_,
        forest.split_features_,
        getattr(forest, "classes_", None),
    )


def _assert_unchanged(forest, before, X, proba):
    after = _snapshot(forest)
    assert after[0] == before[0] and all(a is b for a, b in zip(after[0], before[0], strict=True))
    assert after[1:4] == before[1:4]
    if before[4] is not None:
        np.testing.assert_array_equal(after[4], before[4])
    np.testing.assert_array_equal(forest.predict_proba(X), proba)
    assert io.loads(io.dumps(forest)).predict_proba(X).shape == proba.shape


def test_the_issues_signature_change_is_refused_and_the_forest_keeps_working():
    rng = np.random.default_rng(0)
    X50, y = rng.normal(size=(200, 50)), rng.integers(0, 3, 200)
    forest = ProductRandomForestClassifier(3, signature="E50", warm_start=True, random_state=0).fit(X50, y)
    proba = forest.predict_proba(X50[:5])
    before = _snapshot(forest)
    with pytest.raises(ValueError, match=r"warm_start: X has 1 columns, but the fitted forest's trees read 50"):
        forest.set_params(n_estimators=4, signature="E1").fit(X50[:, :1], y)
    _assert_unchanged(forest, before, X50[:5], proba)
    # Stable between calls (the issue saw the same row's probabilities change).
    np.testing.assert_array_equal(forest.predict_proba(X50[:5]), proba)


def test_a_changed_width_is_refused_without_a_signature():
    rng = np.random.default_rng(1)
    X, y = rng.normal(size=(150, 6)), rng.integers(0, 2, 150)
    forest = ProductRandomForestClassifier(2, warm_start=True, random_state=0).fit(X[:, :5], y)
    proba = forest.predict_proba(X[:4, :5])
    before = _snapshot(forest)
    with pytest.raises(ValueError, match="X has 6 columns, but the fitted forest's trees read 5"):
        forest.set_params(n_estimators=3).fit(X, y)
    _assert_unchanged(forest, before, X[:4, :5], proba)


def test_a_changed_signature_of_the_same_width_is_refused(mixture):
    X, y = mixture
    forest = ProductRandomForestClassifier(2, signature=SIGNATURE, warm_start=True, random_state=0).fit(X, y)
    proba = forest.predict_proba(X[:4])
    before = _snapshot(forest)
    with pytest.raises(ValueError, match=r"the signature 'E8' differs from the fitted forest's 'H2 x S2 x E2'"):
        forest.set_params(n_estimators=3, signature="E8").fit(X, y)
    _assert_unchanged(forest, before, X[:4], proba)


def test_a_changed_pairs_setting_is_refused(mixture):
    X, y = mixture
    forest = ProductRandomForestClassifier(2, signature=SIGNATURE, warm_start=True, random_state=0).fit(X, y)
    proba = forest.predict_proba(X[:4])
    before = _snapshot(forest)
    with pytest.raises(ValueError, match=r"pairs='all' differs from the fitted forest's pairs='base'"):
        forest.set_params(n_estimators=3, pairs="all").fit(X, y)
    _assert_unchanged(forest, before, X[:4], proba)


@pytest.mark.parametrize("relabel", [lambda y: y[y < 2], lambda y: np.where(y == 2, 5, y)], ids=["fewer", "other"])
def test_a_changed_class_set_is_refused(mixture, relabel):
    X, y = mixture
    forest = ProductRandomForestClassifier(2, signature=SIGNATURE, warm_start=True, random_state=0).fit(X, y)
    proba = forest.predict_proba(X[:4])
    before = _snapshot(forest)
    new_y = relabel(y)
    new_X = X[y < 2] if new_y.shape != y.shape else X
    expected = r"y has the classes \[0, 1.*but the fitted forest was grown on \[0, 1, 2\] \(3 classes\)"
    with pytest.raises(ValueError, match=expected):
        forest.set_params(n_estimators=3).fit(new_X, new_y)
    _assert_unchanged(forest, before, X[:4], proba)


def test_the_regressor_refuses_a_changed_signature_too(mixture):
    X, _ = mixture
    target = X[:, 0] - X[:, 4]
    forest = ProductRandomForestRegressor(2, signature=SIGNATURE, warm_start=True, max_depth=3, random_state=0)
    forest.fit(X, target)
    with pytest.raises(ValueError, match="signature 'E8'"):
        forest.set_params(n_estimators=3, signature="E8").fit(X, target)
    assert len(forest.estimators_) == 2 and str(forest.signature_) == SIGNATURE


def test_same_data_still_adds_trees_and_equals_one_fit(mixture):
    X, y = mixture
    steps = ProductRandomForestClassifier(2, signature=SIGNATURE, warm_start=True, random_state=3).fit(X, y)
    with pytest.raises(ValueError):
        steps.set_params(n_estimators=4, pairs="all").fit(X, y)
    steps.set_params(n_estimators=4, pairs="base").fit(X, y)
    whole = ProductRandomForestClassifier(4, signature=SIGNATURE, random_state=3).fit(X, y)
    assert len(steps.estimators_) == 4
    np.testing.assert_array_equal(steps.predict_proba(X), whole.predict_proba(X))


def test_no_new_trees_warns_as_scikit_learn_does(mixture):
    X, y = mixture
    forest = ProductRandomForestClassifier(2, signature=SIGNATURE, warm_start=True, random_state=0).fit(X, y)
    kept = list(forest.estimators_)
    with pytest.warns(UserWarning, match="without increasing n_estimators"):
        forest.fit(X, y)
    assert forest.estimators_ == kept


def test_without_warm_start_a_new_signature_refits_from_scratch(mixture):
    X, y = mixture
    forest = ProductRandomForestClassifier(2, signature=SIGNATURE, random_state=0).fit(X, y)
    forest.set_params(n_estimators=3, signature="E8").fit(X, y)
    assert len(forest.estimators_) == 3 and str(forest.signature_) == "E8"
    assert all(str(tree.signature_) == "E8" for tree in forest.estimators_)


def test_component_importances_of_an_unfitted_forest_raise_not_fitted():
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        _ = ProductRandomForestClassifier(2).component_importances_
