"""Geometry of the baselines: distances, tangent features, kernels, input checks, JSON."""

import json
import re

import numpy as np
import pytest
import sklearn
from curvedtrees.baselines import (
    AmbientClassifier,
    GeodesicKNNClassifier,
    GeodesicKNNRegressor,
    ProductPerceptronClassifier,
    ProductSVMClassifier,
    ProductSVMRegressor,
    TangentClassifier,
    TangentRegressor,
    perceptron_kernel,
    perceptron_normalisers,
    product_laplacian_kernel,
)
from curvedtrees.manifolds import ProductManifold, Signature
from sklearn.linear_model import LinearRegression, LogisticRegression
from sklearn.model_selection import GridSearchCV
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

SIG = "H2(-0.5) x S2(2) x E2"


@pytest.fixture(scope="module")
def data():
    manifold = ProductManifold(SIG)
    X = manifold.random_normal(300, std=1.5, random_state=1)
    y = (X[:, 1] > 0).astype(int) + 2 * (X[:, 6] > 0)
    return X, y


def test_knn_matches_brute_force_in_small_blocks(data):
    X, y = data
    manifold = ProductManifold(SIG)
    model = GeodesicKNNClassifier(n_neighbors=7, signature=SIG).fit(X[:200], y[:200])
    # A tiny working memory forces one query row per block.
    with sklearn.config_context(working_memory=0.001):
        distances, indices = model.kneighbors(X[200:])
    full = manifold.pdist(X[200:], X[:200])
    expected = np.sort(full, axis=1)[:, :7]
    np.testing.assert_allclose(distances, expected, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(np.take_along_axis(full, indices, axis=1), expected, rtol=1e-12, atol=1e-12)


def test_knn_regressor_distance_weights_and_exact_matches(data):
    X, _ = data
    target = X[:, 0] + X[:, 7]
    model = GeodesicKNNRegressor(n_neighbors=4, signature=SIG, weights="distance").fit(X, target)
    # A query equal to a training point takes that point's target exactly.
    np.testing.assert_allclose(model.predict(X[:20]), target[:20], rtol=1e-12)
    manifold = ProductManifold(SIG)
    query = manifold.random_normal(5, random_state=9)
    d, idx = model.kneighbors(query)
    expected = (target[idx] / d).sum(axis=1) / (1.0 / d).sum(axis=1)
    np.testing.assert_allclose(model.predict(query), expected, rtol=1e-12)


def test_knn_rejects_too_many_neighbors(data):
    X, y = data
    model = GeodesicKNNClassifier(n_neighbors=50, signature=SIG).fit(X[:10], y[:10])
    with pytest.raises(ValueError, match="n_neighbors"):
        model.predict(X[:3])


def test_tangent_features_are_logmap_at_origin(data):
    X, _ = data
    model = TangentRegressor(LinearRegression(), signature=SIG).fit(X, X[:, 7])
    features = model.transform_features(X)
    assert features.shape == (len(X), Signature.parse(SIG).dim)
    # Norm of each component's tangent block = geodesic distance to that component's origin.
    manifold = ProductManifold(SIG)
    parts = manifold.factorize(X)
    origin = manifold.factorize(manifold.origin()[None, :])
    blocks = np.split(features, [2, 4], axis=1)
    for block, space, part, o in zip(blocks, manifold.components, parts, origin):
        np.testing.assert_allclose(
            np.linalg.norm(block, axis=1), space.dist(np.broadcast_to(o, part.shape), part), rtol=1e-9, atol=1e-12
        )
    # E coordinates pass through unchanged, so a linear target on them is fitted exactly.
    assert model.score(X, X[:, 7]) > 1 - 1e-9


def test_wrappers_pass_estimators_and_classes(data):
    X, y = data
    labels = np.array(["a", "b", "c", "d"])[y]
    model = AmbientClassifier(LogisticRegression(max_iter=500), signature=SIG).fit(X, labels)
    assert set(model.predict(X)) <= set(labels)
    assert model.predict_proba(X).shape == (len(X), 4)
    assert model.score(X, labels) > 0.8
    tangent = TangentClassifier(signature=SIG).fit(X, labels)
    assert tangent.score(X, labels) == 1.0  # a full-depth tree memorises its training set


def test_off_manifold_rows_are_named(data):
    X, y = data
    bad = X.copy()
    bad[17, 4] *= 1.5  # push one sphere point off S2(2)
    with pytest.raises(ValueError, match="row 17"):
        GeodesicKNNClassifier(signature=SIG).fit(bad, y)
    model = AmbientClassifier(signature=SIG).fit(X, y)
    with pytest.raises(ValueError, match="row 17"):
        model.predict(bad)
    missing = X.copy()
    missing[5, 6] = np.nan
    with pytest.raises(ValueError, match=r"NaN at row 5, column 6 \(component 3, E2"):
        AmbientClassifier(signature=SIG).fit(missing, y)
    with pytest.raises(ValueError, match="needs 8 ambient coordinates"):
        AmbientClassifier(signature=SIG).fit(X[:, :7], y)


def test_perceptron_kernel_matches_formula(data):
    X, _ = data
    sig = Signature.parse(SIG)
    norms = perceptron_normalisers(X, sig)
    weights = np.array([0.5, 2.0, 1.5])
    K = perceptron_kernel(X[:30], X[:40], sig, norms, weights)
    h, s, e = (X[:, c.slice] for c in sig.components)
    minkowski = -np.outer(h[:30, 0], h[:40, 0]) + h[:30, 1:] @ h[:40, 1:].T
    expected = (
        1.0
        + 0.5 * np.arcsin(minkowski / norms[0])
        + 2.0 * np.arcsin(np.clip(s[:30] @ s[:40].T / 0.5, -1, 1))
        + 1.5 * (e[:30] @ e[:40].T) / norms[2]
    )
    # arcsine is steep at 1 (a sphere point with itself): rounding of the inner
    # product by 1e-16 moves it by about 1e-8 there.
    np.testing.assert_allclose(K, expected, rtol=1e-12, atol=1e-7)
    off_diagonal = ~np.eye(30, 40, dtype=bool)
    np.testing.assert_allclose(K[off_diagonal], expected[off_diagonal], rtol=1e-10, atol=1e-10)
    # The Cauchy-Schwarz bound keeps every training argument inside arcsine's domain.
    assert np.abs(minkowski).max() <= norms[0]


def test_perceptron_separates_separable_data_with_and_without_gram(monkeypatch):
    manifold = ProductManifold("H2 x E1")
    X = manifold.random_normal(400, std=1.0, random_state=3)
    keep = np.abs(X[:, 1]) > 0.3  # a margin around the geodesic x_1 = 0
    X = X[keep]
    y = np.where(X[:, 1] > 0, "up", "down")
    model = ProductPerceptronClassifier(signature="H2 x E1", max_iter=200, random_state=0).fit(X, y)
    assert model.n_iter_ < 200  # converged: an epoch without mistakes
    assert model.score(X, y) == 1.0
    import curvedtrees.baselines._perceptron as baselines

    monkeypatch.setattr(baselines, "_GRAM_MAX_ROWS", 10)  # kernel rows on demand
    streamed = ProductPerceptronClassifier(signature="H2 x E1", max_iter=200, random_state=0).fit(X, y)
    np.testing.assert_array_equal(streamed.dual_coef_, model.dual_coef_)
    np.testing.assert_allclose(streamed.decision_function(X), model.decision_function(X), rtol=1e-12)


def test_perceptron_multiclass_shapes(data):
    X, y = data
    model = ProductPerceptronClassifier(signature=SIG, max_iter=5, random_state=0).fit(X, y)
    assert model.decision_function(X).shape == (len(X), 4)
    assert model.score(X, y) > 0.5
    with pytest.raises(ValueError, match="at least 2 classes"):
        ProductPerceptronClassifier(signature=SIG).fit(X, np.zeros(len(X)))


@pytest.mark.parametrize("signature", ["H3(-2)", "S2(0.5) x H2", "E2 x S1 x H1(-0.25)"])
def test_laplacian_kernel_is_positive_semidefinite(signature):
    manifold = ProductManifold(signature)
    # Points far from the origin too (std 3): large hyperbolic distances.
    X = manifold.random_normal(250, std=3.0, random_state=4)
    for gamma in (0.05, 1.0, 10.0):
        K = product_laplacian_kernel(
            X, X, signature, gamma, component_weights=np.arange(1, len(Signature.parse(signature)) + 1)
        )
        np.testing.assert_allclose(K, K.T, atol=1e-14)
        assert np.linalg.eigvalsh(K).min() > -1e-9


def test_svm_fits_curved_data_and_grid_search(data):
    X, y = data
    search = GridSearchCV(ProductSVMClassifier(signature=SIG), {"C": [0.1, 10.0]}, cv=3).fit(X, y)
    assert search.best_score_ > 0.6
    assert search.best_estimator_.predict(X).shape == (len(X),)
    regressor = ProductSVMRegressor(signature=SIG, C=10.0).fit(X, X[:, 7])
    assert regressor.score(X, X[:, 7]) > 0.8
    assert np.all(np.isfinite(regressor.predict(X)))


@pytest.mark.parametrize(
    "model",
    [
        AmbientClassifier(signature=SIG),
        TangentClassifier(signature=SIG),
        TangentRegressor(signature=SIG),
        # A wrapped tree of the caller's own (the Side by side page's depth-limited trees).
        AmbientClassifier(estimator=DecisionTreeClassifier(max_depth=3, random_state=0), signature=SIG),
        TangentRegressor(estimator=DecisionTreeRegressor(max_depth=2, min_samples_leaf=4), signature=SIG),
        GeodesicKNNClassifier(n_neighbors=3, signature=SIG, weights="distance"),
        GeodesicKNNRegressor(signature=SIG),
        ProductPerceptronClassifier(signature=SIG, component_weights=[1.0, 0.5, 2.0], max_iter=3, random_state=0),
    ],
    ids=lambda m: type(m).__name__,
)
def test_json_round_trip(data, model):
    from curvedtrees import io

    X, y = data
    labels = np.array(["p", "q", "r", "s"])[y]
    target = labels if hasattr(model, "predict_proba") or isinstance(model, ProductPerceptronClassifier) else X[:, 7]
    model.fit(X, target)
    loaded = io.loads(io.dumps(model))
    np.testing.assert_array_equal(loaded.predict(X), model.predict(X))
    assert repr(loaded.get_params(deep=False)) == repr(model.get_params(deep=False))
    if hasattr(model, "decision_function"):
        np.testing.assert_allclose(loaded.decision_function(X), model.decision_function(X), rtol=1e-12)
    # Tampered state is refused with a message naming the field.
    document = json.loads(io.dumps(model))
    document["fitted"]["signature"] = "H2 x S2 x E1"
    with pytest.raises(ValueError, match="n_features_in must be 7"):
        io.loads(json.dumps(document))


@pytest.mark.parametrize(
    ("model", "target"),
    [
        pytest.param(ProductSVMClassifier(signature=SIG), "binary", id="svc-binary"),
        pytest.param(
            ProductSVMClassifier(signature=SIG, C=3.0, gamma=0.7, component_weights=[1.0, 0.5, 2.0]),
            "labels",
            id="svc-4-classes",
        ),
        pytest.param(ProductSVMClassifier(signature=SIG, class_weight="balanced"), "codes", id="svc-balanced"),
        pytest.param(ProductSVMRegressor(signature=SIG, C=10.0), "real", id="svr"),
        pytest.param(ProductSVMRegressor(signature=SIG, epsilon=100.0), "real", id="svr-no-support-vectors"),
    ],
)
def test_svm_json_round_trip_is_bit_exact(data, model, target):
    from curvedtrees import io

    X, y = data
    X, y = X[:150], y[:150]
    targets = {
        "binary": np.array(["no", "yes"])[(y > 1).astype(int)],
        "labels": np.array(["p", "q", "r", "s"])[y],
        "codes": y,
        "real": X[:, 7] + X[:, 1],
    }
    model.fit(X, targets[target])
    fresh = ProductManifold(SIG).random_normal(120, std=2.5, random_state=12)
    text = io.dumps(model)
    loaded = io.loads(text)
    for Z in (X, fresh):
        assert np.array_equal(loaded.predict(Z), model.predict(Z))
        if hasattr(model, "decision_function"):
            assert np.array_equal(loaded.decision_function(Z), model.decision_function(Z))
    # Only the support vectors' rows are stored, re-indexed 0 .. n_SV - 1.
    n_sv = len(model.svm_.support_)
    assert json.loads(text)["fitted"]["support_vectors"]["shape"] == [n_sv, X.shape[1]]
    assert np.array_equal(loaded.svm_.support_, np.arange(n_sv))
    assert np.array_equal(loaded.svm_.n_support_, model.svm_.n_support_)
    if target in ("binary", "real"):
        assert n_sv < len(X)  # so the test sees a proper subset of the rows stored
    if target == "labels":
        assert loaded.classes_.tolist() == ["p", "q", "r", "s"]


def test_tampered_svm_documents_are_rejected_naming_the_field(data):
    from curvedtrees import io

    X, y = data
    classifier = json.loads(io.dumps(ProductSVMClassifier(signature=SIG).fit(X[:150], y[:150])))
    regressor = json.loads(io.dumps(ProductSVMRegressor(signature=SIG).fit(X[:150], X[:150, 7])))

    def bump(field):
        return lambda f: f[field]["data"].__setitem__(0, f[field]["data"][0] + 1)

    cases = [
        (classifier, bump("n_support"), "n_support must add up"),
        (classifier, lambda f: f["dual_coef"]["data"].__setitem__(3, "nan"), "dual_coef must be finite"),
        (classifier, lambda f: f["intercept"].update(shape=[2], data=[0.0, 1.0]), r"intercept must have shape \(6,\)"),
        (classifier, lambda f: f["support_vectors"]["data"].__setitem__(0, 0.5), "support_vectors has points off"),
        (classifier, lambda f: f.pop("class_weight"), "expected the keys"),
        (classifier, lambda f: f.__setitem__("gamma", -1.0), "gamma must be a positive"),
        (classifier, lambda f: f["prob_a"].update(shape=[1], data=[1.0]), "prob_a and prob_b"),
        (regressor, lambda f: f["dual_coef"].update(shape=[2, 1], data=[1.0, 2.0]), r"dual_coef must have shape"),
        (regressor, lambda f: f.__setitem__("fit_status", 2), "fit_status must be 0 or 1"),
    ]
    for document, change, message in cases:
        bad = json.loads(json.dumps(document))
        change(bad["fitted"])
        with pytest.raises(ValueError, match=message):
            io.loads(json.dumps(bad))


def test_svm_internals_changes_name_the_sklearn_version(data, monkeypatch):
    from curvedtrees import io
    from sklearn.svm._base import BaseLibSVM

    X, y = data
    model = ProductSVMClassifier(signature=SIG).fit(X[:100], y[:100])
    text = io.dumps(model)
    version = re.escape(f"scikit-learn {sklearn.__version__}")
    with monkeypatch.context() as patch:
        patch.delattr(BaseLibSVM, "_validate_for_predict")
        with pytest.raises(ValueError, match=f"cannot rebuild ProductSVMClassifier with {version}"):
            io.loads(text)
    with monkeypatch.context() as patch:
        patch.delattr(model.svm_, "_n_support")
        with pytest.raises(TypeError, match=f"cannot save ProductSVMClassifier with {version}"):
            io.dumps(model)
    assert np.array_equal(io.loads(text).predict(X), model.predict(X))
