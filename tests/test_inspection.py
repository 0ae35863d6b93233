"""scikit-learn's inspection contract: importances per input column, component permutation."""

import re

import numpy as np
import pandas as pd
import pytest
from curvedtrees import make_classification
from curvedtrees.boosting import ProductGradientBoostingClassifier
from curvedtrees.klein import KleinTreeClassifier
from curvedtrees.manifolds import Signature
from curvedtrees.trees import (
    ProductDecisionTreeClassifier,
    ProductRandomForestClassifier,
    ProductRandomForestRegressor,
    SplitFeatures,
)
from sklearn.base import clone
from sklearn.feature_selection import SelectFromModel
from sklearn.model_selection import GridSearchCV

SIGNATURE = "H2 x S2 x E2"


@pytest.fixture(scope="module")
def sphere_labelled():
    """Rows of H2 x S2 x E2 whose label is the sign of the sphere's x1 (column 4)."""
    X, _ = make_classification(SIGNATURE, n_samples=400, random_state=4)
    y = (X[:, 4] > 0).astype(int)
    return X, y


def column_names(signature):
    return [f"{c.name}_{c.index}_x{j}" for c in Signature.parse(signature).components for j in range(c.ambient_dim)]


@pytest.mark.parametrize("pairs", ["base", "all"])
def test_each_plane_names_the_columns_it_reads(pairs):
    features = SplitFeatures.from_signature(SIGNATURE, pairs)
    columns = features.columns()
    assert len(columns) == features.n_features
    for f, cols in enumerate(columns):
        comp = Signature.parse(SIGNATURE).components[features.component[f]]
        assert all(comp.start <= c < comp.start + comp.ambient_dim for c in cols)
        # A lift plane reads one column (the lift is no column), every other plane two.
        assert len(cols) == (1 if features.col_i[f] == -1 else 2)


def test_plane_columns_of_a_small_signature_with_radial_planes():
    features = SplitFeatures.from_signature("H2 x S1 x E1", "base", "geodesic+radial")
    assert features.names() == [
        "H2#0 (x0, x1)", "H2#0 (x0, x2)", "H2#0 radial x0", "S1#1 (x0, x1)", "S1#1 radial x0", "S1#1 radial x1",
        "E1#2 (1, x0)",
    ]  # fmt: skip
    # Ambient columns: H2 holds 0-2, S1 3-4, E1 5; a radial plane reads its one coordinate.
    assert [tuple(int(c) for c in cols) for cols in features.columns()] == [
        (0, 1), (0, 2), (0,), (3, 4), (3,), (4,), (5,)
    ]  # fmt: skip


@pytest.mark.parametrize(
    "make",
    [
        lambda: ProductDecisionTreeClassifier(signature=SIGNATURE, max_depth=4, random_state=0),
        lambda: ProductDecisionTreeClassifier(signature=SIGNATURE, pairs="all", max_depth=4, random_state=0),
        lambda: ProductRandomForestClassifier(5, signature=SIGNATURE, max_depth=4, random_state=0),
        lambda: ProductGradientBoostingClassifier(signature=SIGNATURE, max_iter=5, random_state=0),
    ],
    ids=["tree", "tree-all-pairs", "forest", "boosting"],
)
def test_importances_have_one_entry_per_input_column(make, sphere_labelled):
    X, y = sphere_labelled
    model = make().fit(X, y)
    importances = model.feature_importances_
    assert importances.shape == (model.n_features_in_,) == (X.shape[1],)
    assert importances.sum() == pytest.approx(1.0)
    assert np.all(importances >= 0)
    planes = model.plane_importances_
    assert planes.shape == (model.split_features_.n_features,)
    # Shares stay inside a split's component: the columns of a component add up to it.
    per_component = [importances[c.slice].sum() for c in model.signature_.components]
    np.testing.assert_allclose(per_component, model.component_importances_, atol=1e-12)
    assert model.component_importances_.sum() == pytest.approx(1.0)
    # The label is the sphere's x1 (column 4): the sphere's columns carry most of it.
    assert importances[3:6].sum() > 0.5
    assert np.argmax(model.component_importances_) == 1


def test_a_timelike_split_credits_its_columns_by_its_normal():
    X, _ = make_classification("H2", n_samples=200, random_state=0)
    y = (X[:, 1] / X[:, 0] > 0.1).astype(int)
    tree = ProductDecisionTreeClassifier(signature="H2", max_depth=1).fit(X, y)
    plane = int(tree.tree_.feature[0])
    assert tree.split_features_.columns()[plane] == (0, 1)
    # x1 / x0 <= t is the line -t x0 + x1 = 0: x0 gets t^2 / (1 + t^2) of it.
    t2 = tree.tree_.threshold[0] ** 2
    np.testing.assert_allclose(tree.feature_importances_, [t2 / (1 + t2), 1 / (1 + t2), 0.0])
    assert tree.feature_importances_[1] > 0.95


def test_a_circular_split_along_one_axis_credits_that_column():
    # The label is the sign of the sphere's x1: the boundary is the plane x1 = 0, whose
    # normal is the x1 axis, so x1 carries nearly all the importance, not x0 beside it.
    X, _ = make_classification("S2", n_samples=300, random_state=0)
    y = (X[:, 1] > 0).astype(int)
    tree = ProductDecisionTreeClassifier(signature="S2", max_depth=1).fit(X, y)
    n = tree.tree_.normal[0]
    i, j = tree.split_features_.columns()[int(tree.tree_.feature[0])]
    expected = np.zeros(3)
    expected[[i, j]] = np.square(n) / np.square(n).sum()
    np.testing.assert_allclose(tree.feature_importances_, expected)
    assert tree.feature_importances_[1] > 0.9


def test_a_model_without_splits_has_zero_importances():
    X, _ = make_classification(SIGNATURE, n_samples=64, random_state=0)
    y = np.zeros(64, dtype=int)
    for model in (
        ProductDecisionTreeClassifier(signature=SIGNATURE),
        ProductRandomForestClassifier(3, signature=SIGNATURE, random_state=0),
    ):
        model.fit(X, y)
        assert model.feature_importances_.shape == (X.shape[1],)
        assert not model.feature_importances_.any()


def test_select_from_model_on_a_product_forest(sphere_labelled):
    X, y = sphere_labelled
    selector = SelectFromModel(ProductRandomForestClassifier(10, signature=SIGNATURE, random_state=0)).fit(X, y)
    kept = selector.get_support(indices=True)
    assert 4 in kept and len(kept) < X.shape[1]
    assert selector.transform(X).shape == (len(X), len(kept))


def test_pandas_column_names_pair_with_importances(sphere_labelled):
    X, _ = sphere_labelled
    y = X[:, 7]  # the E2 component's second column: a lift plane, all of it to one column
    frame = pd.DataFrame(X, columns=column_names(SIGNATURE))
    forest = ProductRandomForestRegressor(5, signature=SIGNATURE, random_state=0).fit(frame, y)
    paired = dict(zip(forest.feature_names_in_, forest.feature_importances_, strict=True))
    assert list(forest.feature_names_in_) == column_names(SIGNATURE)
    assert max(paired, key=paired.get) == "E2_2_x1"
    assert paired["E2_2_x1"] > 0.9
    assert sum(paired.values()) == pytest.approx(1.0)


def test_clone_and_grid_search_still_work(sphere_labelled):
    X, y = sphere_labelled
    forest = ProductRandomForestClassifier(4, signature=SIGNATURE, random_state=0)
    search = GridSearchCV(forest, {"max_depth": [2, 4]}, cv=2).fit(X, y)
    best = search.best_estimator_
    assert best.feature_importances_.shape == (X.shape[1],)
    twin = clone(best)
    assert not hasattr(twin, "estimators_")
    np.testing.assert_allclose(twin.fit(X, y).feature_importances_, best.feature_importances_)


# ---------------------------------------------------------------------- Klein wrappers
KLEIN_SIGNATURE = "H2 x E2"


@pytest.fixture(scope="module")
def klein_data():
    X, _ = make_classification(KLEIN_SIGNATURE, n_samples=300, random_state=1)
    y = (X[:, 4] > np.median(X[:, 4])).astype(int)  # the E component's second column
    return X, y


@pytest.mark.parametrize("estimator", ["decision_tree", "random_forest"])
def test_klein_importances_per_input_column(estimator, klein_data):
    X, y = klein_data
    model = KleinTreeClassifier(estimator, signature=KLEIN_SIGNATURE).fit(X, y)
    per_feature = model.klein_feature_importances_
    assert per_feature.shape == (len(model.klein_feature_names_),) == (4,)
    importances = model.feature_importances_
    assert importances.shape == (model.n_features_in_,) == (5,)
    assert importances.sum() == pytest.approx(1.0)
    # x1/x0 and x2/x0 give half to x0 each; E columns keep their own.
    h = per_feature / per_feature.sum()
    np.testing.assert_allclose(importances, [h[0] / 2 + h[1] / 2, h[0] / 2, h[1] / 2, h[2], h[3]])
    assert np.argmax(importances) == 4


@pytest.mark.parametrize("input_model", ["poincare", "klein"])
def test_klein_ball_input_credits_each_feature_to_its_column(input_model):
    layout = KleinTreeClassifier(signature=KLEIN_SIGNATURE, input_model=input_model)
    X, _ = make_classification(KLEIN_SIGNATURE, n_samples=100, random_state=0)
    from curvedtrees import coords

    ball = coords.hyperboloid_to_poincare if input_model == "poincare" else coords.hyperboloid_to_klein
    Xb = np.column_stack([ball(X[:, :3]), X[:, 3:]])
    y = (Xb[:, 0] > 0).astype(int)
    model = layout.fit(Xb, y)
    assert model.layout_.feature_columns() == [(0,), (1,), (2,), (3,)]
    assert model.feature_importances_.shape == (4,)
    assert np.argmax(model.feature_importances_) == 0


def test_select_from_model_on_a_klein_wrapper(klein_data):
    X, y = klein_data
    selector = SelectFromModel(KleinTreeClassifier("random_forest", signature=KLEIN_SIGNATURE)).fit(X, y)
    kept = selector.get_support(indices=True)
    assert 4 in kept and len(kept) < X.shape[1]
    assert selector.transform(X).shape == (len(X), len(kept))


# ---------------------------------------------------------------------- permutation
def test_scikit_learns_permutation_importance_gets_the_clear_error(sphere_labelled):
    from curvedtrees.manifolds import OffManifoldError
    from sklearn.inspection import permutation_importance as sklearn_permutation_importance

    X, y = sphere_labelled
    forest = ProductRandomForestClassifier(5, signature=SIGNATURE, random_state=0).fit(X, y)
    with pytest.raises(OffManifoldError) as caught:
        sklearn_permutation_importance(forest, X, y, n_repeats=1, random_state=0)
    message = str(caught.value)
    assert "off the manifold" in message and "row" in message
    assert "permuting or shuffling single columns" in message
    assert "curvedtrees.inspection.permutation_importance" in message
    assert isinstance(caught.value, ValueError)


def test_the_klein_ball_check_is_an_off_manifold_error_with_the_hint():
    from curvedtrees.manifolds import OffManifoldError

    model = KleinTreeClassifier(signature="H2", input_model="klein")
    X = np.array([[0.1, 0.2], [0.3, -0.1], [0.9, 0.9]])
    with pytest.raises(OffManifoldError, match=r"outside the open Klein ball.*curvedtrees\.inspection"):
        model.fit(X, [0, 1, 0])


def test_component_permutation_ranks_the_label_component_first(sphere_labelled):
    from curvedtrees.inspection import permutation_importance

    X, y = sphere_labelled
    forest = ProductRandomForestClassifier(10, signature=SIGNATURE, random_state=0).fit(X, y)
    result = permutation_importance(forest, X, y, n_repeats=3, random_state=0)
    assert list(result.component_names) == ["H2#0", "S2#1", "E2#2"]
    assert [c.tolist() for c in result.component_columns] == [[0, 1, 2], [3, 4, 5], [6, 7]]
    assert result.importances.shape == (3, 3)
    np.testing.assert_allclose(result.importances_mean, result.importances.mean(axis=1))
    np.testing.assert_allclose(result.importances_std, result.importances.std(axis=1))
    assert np.argmax(result.importances_mean) == 1
    assert result.importances_mean[1] > 0.3
    # Same seed, same result, whatever n_jobs; subsampled rows with weights run too.
    again = permutation_importance(forest, X, y, n_repeats=3, random_state=0, n_jobs=2)
    np.testing.assert_array_equal(again.importances, result.importances)
    sub = permutation_importance(
        forest, X, y, n_repeats=2, random_state=1, max_samples=0.5, sample_weight=np.ones(len(X))
    )
    assert np.argmax(sub.importances_mean) == 1


def test_permutation_on_dataframes_klein_and_several_metrics(klein_data):
    from curvedtrees.inspection import permutation_importance

    X, y = klein_data
    frame = pd.DataFrame(X, columns=column_names(KLEIN_SIGNATURE))
    model = KleinTreeClassifier("random_forest", signature=KLEIN_SIGNATURE).fit(frame, y)
    results = permutation_importance(model, frame, y, scoring=["accuracy", "balanced_accuracy"], random_state=0)
    assert set(results) == {"accuracy", "balanced_accuracy"}
    for result in results.values():
        assert list(result.component_names) == ["H2#0", "E2#1"]
        assert np.argmax(result.importances_mean) == 1


def test_permutation_on_a_pipeline_and_ball_input():
    from curvedtrees import coords
    from curvedtrees.inspection import component_columns, permutation_importance
    from sklearn.pipeline import make_pipeline

    X, _ = make_classification(KLEIN_SIGNATURE, n_samples=200, random_state=2)
    Xb = np.column_stack([coords.hyperboloid_to_poincare(X[:, :3]), X[:, 3:]])
    y = (Xb[:, 0] > 0).astype(int)
    pipeline = make_pipeline(KleinTreeClassifier(signature=KLEIN_SIGNATURE, input_model="poincare")).fit(Xb, y)
    assert [c.tolist() for _, c in component_columns(pipeline)] == [[0, 1], [2, 3]]
    result = permutation_importance(pipeline, Xb, y, n_repeats=2, random_state=0)
    assert np.argmax(result.importances_mean) == 0


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"n_repeats": 0}, "n_repeats must be an integer >= 1"),
        ({"max_samples": 0.0}, "max_samples must be"),
        ({"max_samples": 10_000}, "max_samples=10000 must be between 1 and the 400 rows"),
        ({"sample_weight": np.ones(3)}, "sample_weight must have shape (400,)"),
    ],
)
def test_permutation_parameters_are_checked(sphere_labelled, kwargs, message):
    from curvedtrees.inspection import permutation_importance

    X, y = sphere_labelled
    tree = ProductDecisionTreeClassifier(signature=SIGNATURE, max_depth=2).fit(X, y)
    with pytest.raises(ValueError, match=re.escape(message)):
        permutation_importance(tree, X, y, **kwargs)


def test_permutation_needs_a_fitted_signature(sphere_labelled):
    from curvedtrees.inspection import permutation_importance
    from sklearn.linear_model import LogisticRegression

    X, y = sphere_labelled
    with pytest.raises(ValueError, match="no fitted signature_"):
        permutation_importance(LogisticRegression().fit(X, y), X, y)
