"""scikit-learn's estimator checks and JSON serialisation of the product trees."""

from __future__ import annotations

import json

import numpy as np
import pytest
from curvedtrees import io
from curvedtrees.manifolds import ProductManifold
from curvedtrees.trees import (
    ProductDecisionTreeClassifier,
    ProductDecisionTreeRegressor,
    ProductRandomForestClassifier,
    ProductRandomForestRegressor,
)
from sklearn.utils.estimator_checks import parametrize_with_checks

# A bootstrap draws rows, so weights are not equivalent to repeated rows in a forest:
# scikit-learn marks the same check as an expected failure for its own forests.
FOREST_XFAIL = {
    "check_sample_weight_equivalence_on_dense_data": "bootstrap: weights are not repeated rows",
}


@parametrize_with_checks(
    [
        ProductDecisionTreeClassifier(random_state=0),
        ProductDecisionTreeRegressor(random_state=0),
        ProductRandomForestClassifier(n_estimators=5, random_state=0),
        ProductRandomForestRegressor(n_estimators=5, random_state=0),
    ],
    expected_failed_checks=lambda est: FOREST_XFAIL if hasattr(est, "n_estimators") else {},
)
def test_sklearn_compatible(estimator, check):
    check(estimator)


SIGNATURE = "S2 x H2(-0.5) x E1"


@pytest.fixture(scope="module")
def data():
    X = ProductManifold(SIGNATURE).random_normal(300, random_state=0)
    labels = np.array(["north", "south", "east"])[np.random.default_rng(0).integers(0, 3, 300)]
    return X, labels


@pytest.mark.parametrize(
    "estimator",
    [
        ProductDecisionTreeClassifier(signature=SIGNATURE, pairs="all", max_depth=6, random_state=1),
        ProductDecisionTreeRegressor(signature=SIGNATURE, random_state=1),
        ProductRandomForestClassifier(4, signature=SIGNATURE, random_state=1),
        ProductRandomForestRegressor(4, signature=SIGNATURE, max_samples=0.5, random_state=1),
    ],
    ids=lambda e: type(e).__name__,
)
def test_json_round_trip_is_exact(estimator, data):
    X, labels = data
    y = labels if hasattr(estimator, "predict_proba") else np.arange(len(X), dtype=float) ** 0.5
    estimator.fit(X, y)
    text = io.dumps(estimator)
    assert "pickle" not in text
    restored = io.loads(text)
    assert type(restored) is type(estimator)
    assert restored.get_params() == estimator.get_params()
    X_new = ProductManifold(SIGNATURE).random_normal(200, random_state=5)
    np.testing.assert_array_equal(restored.predict(X_new), estimator.predict(X_new))
    if hasattr(estimator, "predict_proba"):
        np.testing.assert_array_equal(restored.predict_proba(X_new), estimator.predict_proba(X_new))
    assert io.dumps(restored) == text


def test_unfitted_round_trip():
    restored = io.loads(io.dumps(ProductDecisionTreeClassifier(signature="H2", max_depth=3)))
    assert restored.get_params()["max_depth"] == 3 and not hasattr(restored, "tree_")


def _fitted_document(data):
    X, labels = data
    tree = ProductDecisionTreeClassifier(signature=SIGNATURE, max_depth=3, random_state=0).fit(X, labels)
    return json.loads(io.dumps(tree))


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda d: d.update(format="other"), "not a model document"),
        (lambda d: d.update(version=99), "version"),
        (lambda d: d.update(estimator="subprocess.Popen"), "unknown estimator"),
        (lambda d: d["params"].update(evil="x"), "unknown parameters"),
        (lambda d: d["fitted"].update(signature="H2 x Q1"), "malformed signature"),
        (lambda d: d["fitted"]["tree"]["children_left"]["data"].__setitem__(0, 0), "child ids"),
        (lambda d: d["fitted"]["tree"]["feature"]["data"].__setitem__(0, 999), "split features"),
        (lambda d: d["fitted"]["tree"]["threshold"]["data"].pop(), "data must be a list"),
        (lambda d: d["fitted"]["tree"]["value"].update(shape=[10**9, 10**3]), "exceed the limit"),
        (lambda d: d["fitted"]["tree"]["normal"]["data"].__setitem__(0, "rm -rf"), "not a number"),
        (lambda d: d["fitted"]["classes"].update(values=[1, 1, 2]), "classes"),
        (lambda d: d.update(fitted=[1, 2]), "'fitted' must be an object"),
    ],
)
def test_hostile_documents_are_rejected(data, mutate, message):
    document = _fitted_document(data)
    mutate(document)
    with pytest.raises(ValueError, match=message):
        io.loads(json.dumps(document))


@pytest.mark.parametrize("text", ["", "{", "[1, 2]", '{"format": NaN}', b"\xff\xfe", "null"])
def test_garbage_is_rejected(text):
    with pytest.raises(ValueError):
        io.loads(text)


def test_random_state_instances_cannot_be_stored():
    tree = ProductDecisionTreeClassifier(random_state=np.random.RandomState(0))
    with pytest.raises(TypeError, match="random_state"):
        io.dumps(tree)
