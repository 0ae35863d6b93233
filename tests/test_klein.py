"""Klein-model wrappers: routing is preserved, margins are maximal, inputs and curvatures agree."""

import warnings

import numpy as np
import pytest
from curvedtrees import coords
from curvedtrees.klein import (
    KleinCorrectionWarning,
    KleinTreeClassifier,
    KleinTreeRegressor,
    klein_features,
    make_backend,
)
from curvedtrees.manifolds import ProductManifold
from curvedtrees.sampling import make_classification
from sklearn.base import clone
from sklearn.ensemble import (
    ExtraTreesClassifier,
    GradientBoostingClassifier,
    GradientBoostingRegressor,
    HistGradientBoostingClassifier,
    HistGradientBoostingRegressor,
    RandomForestClassifier,
    RandomForestRegressor,
)
from sklearn.model_selection import GridSearchCV
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

SIG = "H2(-0.5) x E1 x H1(-2)"

xgboost = pytest.importorskip("xgboost")
lightgbm = pytest.importorskip("lightgbm")


@pytest.fixture(scope="module")
def data():
    manifold = ProductManifold(SIG)
    X = manifold.random_normal(600, std=1.2, random_state=0)
    y = (X[:, 1] + 0.5 * X[:, 3] > 0).astype(int) + (X[:, 5] > 0.3).astype(int) + 2 * (X[:, 2] > 0.4)
    target = np.sin(X[:, 1]) + X[:, 3] + 0.3 * X[:, 5]
    return X, y, target


def _leaves(model, features, rows=None):
    """The library's own routing of training rows (leaf ids, one column per tree)."""
    est = model.estimator_
    features = features if rows is None else features[rows]
    if hasattr(est, "get_booster"):
        return est.get_booster().predict(xgboost.DMatrix(features.astype(np.float32)), pred_leaf=True)
    if hasattr(est, "booster_"):
        return est.booster_.predict(features, pred_leaf=True)
    if hasattr(est, "apply"):
        return est.apply(features)
    # HistGradientBoosting has no apply: its raw scores change if any row changes leaf.
    return est._raw_predict(features)


CLASSIFIERS = [
    DecisionTreeClassifier(random_state=0),
    DecisionTreeClassifier(max_depth=4, random_state=0),
    RandomForestClassifier(n_estimators=8, random_state=0),
    RandomForestClassifier(n_estimators=8, max_samples=0.5, random_state=0),
    ExtraTreesClassifier(n_estimators=8, random_state=0),
    GradientBoostingClassifier(n_estimators=10, max_depth=3, random_state=0),
    HistGradientBoostingClassifier(max_iter=10, random_state=0),
    xgboost.XGBClassifier(n_estimators=10, max_depth=4, random_state=0, n_jobs=1),
    lightgbm.LGBMClassifier(n_estimators=10, num_leaves=15, random_state=0, verbose=-1, n_jobs=1),
]
REGRESSORS = [
    DecisionTreeRegressor(max_depth=6, random_state=0),
    RandomForestRegressor(n_estimators=8, random_state=0),
    GradientBoostingRegressor(n_estimators=10, random_state=0),
    HistGradientBoostingRegressor(max_iter=10, random_state=0),
    xgboost.XGBRegressor(n_estimators=10, max_depth=4, random_state=0, n_jobs=1),
    lightgbm.LGBMRegressor(n_estimators=10, num_leaves=15, random_state=0, verbose=-1, n_jobs=1),
]


def _in_bag(model, n):
    est = model.estimator_
    if isinstance(est, (RandomForestClassifier, RandomForestRegressor)):
        return [np.unique(s) for s in est.estimators_samples_]
    return None


@pytest.mark.parametrize("backend", CLASSIFIERS + REGRESSORS, ids=lambda e: type(e).__name__)
def test_no_training_row_changes_leaf(data, backend):
    X, y, target = data
    wrapper = (
        KleinTreeRegressor
        if isinstance(backend, (DecisionTreeRegressor,)) or "Regressor" in type(backend).__name__
        else KleinTreeClassifier
    )
    labels = target if wrapper is KleinTreeRegressor else y
    plain = wrapper(clone(backend), signature=SIG, max_margin=False).fit(X, labels)
    fitted = wrapper(clone(backend), signature=SIG).fit(X, labels)
    assert fitted.n_thresholds_moved_ > 0
    assert fitted.n_thresholds_kept_ == 0
    features = fitted.transform_features(X)
    bags = _in_bag(fitted, len(X))
    if bags is None:
        np.testing.assert_array_equal(_leaves(fitted, features), _leaves(plain, features))
        # Same partition of the training rows, so the same training predictions.
        np.testing.assert_array_equal(fitted.predict(X), plain.predict(X))
    else:
        # A forest tree is only bound to its own (in-bag) rows.
        for t, rows in enumerate(bags):
            before = plain.estimator_.estimators_[t].apply(features[rows].astype(np.float32))
            after = fitted.estimator_.estimators_[t].apply(features[rows].astype(np.float32))
            np.testing.assert_array_equal(after, before)


def _node_rows(tree, features):
    """Rows reaching each node of a fitted scikit-learn tree (via decision_path)."""
    path = tree.decision_path(features.astype(np.float32)).tocsc()
    return [path.indices[path.indptr[v] : path.indptr[v + 1]] for v in range(tree.tree_.node_count)]


def _hyperbolic_margin(x0, xj, t, radius):
    return np.min(radius * np.arcsinh(np.abs(xj - t * x0) / (radius * np.sqrt(1 - t * t))))


@pytest.mark.parametrize(
    "backend",
    [
        DecisionTreeClassifier(random_state=0),
        ExtraTreesClassifier(n_estimators=2, random_state=0),
        HistGradientBoostingClassifier(max_iter=3, random_state=0),
        xgboost.XGBClassifier(n_estimators=3, max_depth=4, random_state=0, n_jobs=1),
        lightgbm.LGBMClassifier(n_estimators=3, num_leaves=15, random_state=0, verbose=-1, n_jobs=1),
    ],
    ids=lambda e: type(e).__name__,
)
def test_margins_are_each_split_s_geodesic_distance_to_its_nearest_row(backend):
    # margins_ is computed on first access from what the correction kept (the nearest
    # rows' distances) and the library's own corrected trees: it must equal, node by
    # node, the distance from the boundary to the nearest row that reaches the node, found
    # here by routing every row with the library's rule (float32 rounding, < or <=).
    from curvedtrees.klein._backends import RULE_F32_LE, RULE_F32_LT, backend_for

    X, y = make_classification("H2 x E1", n_samples=800, n_classes=3, random_state=5)
    model = KleinTreeClassifier(clone(backend), signature="H2 x E1").fit(X, y)
    adapter = backend_for(model.estimator_)
    layout = model.layout_
    features = model.transform_features(X)
    ambient = layout.to_hyperboloid(X)
    n_h = n_e = 0
    for margins, arrays in zip(model.margins_, adapter.tree_arrays(), strict=True):
        left, right, feature, threshold = (np.asarray(a) for a in arrays)
        reaching = {0: np.arange(len(X))}
        while reaching:
            node, rows = reaching.popitem()
            if left[node] == -1:
                continue
            f, t = feature[node], float(threshold[node])
            values = features[rows, f]
            if adapter.rule == RULE_F32_LE:
                goes_left = values.astype(np.float32) <= t
            elif adapter.rule == RULE_F32_LT:
                goes_left = values.astype(np.float32) < np.float32(t)
            else:
                goes_left = values <= t
            reaching[left[node]], reaching[right[node]] = rows[goes_left], rows[~goes_left]
            if layout.feat_x0[f] >= 0:
                x0 = ambient[rows, layout.h_columns[layout.feat_x0[f]]]
                xj = ambient[rows, layout.h_columns[layout.feat_xj[f]]]
                expected = _hyperbolic_margin(x0, xj, t, layout.feat_radius[f])
                n_h += 1
            else:
                expected = np.min(np.abs(values - t))
                n_e += 1
            np.testing.assert_allclose(margins[node], expected, rtol=1e-9, err_msg=f"node {node}")
    assert n_h > 5 and n_e > 0


def test_thresholds_are_maximum_margin(data):
    X, y, _ = data
    model = KleinTreeClassifier(DecisionTreeClassifier(max_depth=5, random_state=0), signature=SIG).fit(X, y)
    plain = KleinTreeClassifier(DecisionTreeClassifier(max_depth=5, random_state=0), signature=SIG, max_margin=False)
    plain.fit(X, y)
    tree = model.estimator_.tree_
    features = model.transform_features(X)
    ambient = model.layout_.to_hyperboloid(X)
    rows_of = _node_rows(model.estimator_, features)
    layout = model.layout_
    checked = 0
    for node in np.flatnonzero(tree.children_left != -1):
        f = tree.feature[node]
        rows = rows_of[node]
        left = features[rows, f] <= tree.threshold[node]
        if layout.feat_x0[f] < 0:
            continue  # E splits: see test_euclidean_thresholds_are_cart_midpoints
        col0 = layout.h_columns[layout.feat_x0[f]]
        colj = layout.h_columns[layout.feat_xj[f]]
        x0, xj = ambient[rows, col0], ambient[rows, colj]
        radius = layout.feat_radius[f]
        lo, hi = features[rows[left], f].max(), features[rows[~left], f].min()
        best = _hyperbolic_margin(x0, xj, tree.threshold[node], radius)
        np.testing.assert_allclose(best, model.margins_[0][node], rtol=1e-9)
        # No threshold in the gap does better (grid search), and the library's midpoint does worse or equal.
        grid = np.linspace(lo, hi, 401)[1:-1]
        assert all(_hyperbolic_margin(x0, xj, t, radius) <= best * (1 + 1e-9) for t in grid)
        assert _hyperbolic_margin(x0, xj, plain.estimator_.tree_.threshold[node], radius) <= best * (1 + 1e-9)
        # Equidistant: the nearest rows on both sides are at the same geodesic distance.
        side_l = _hyperbolic_margin(x0[left], xj[left], tree.threshold[node], radius)
        side_r = _hyperbolic_margin(x0[~left], xj[~left], tree.threshold[node], radius)
        np.testing.assert_allclose(side_l, side_r, rtol=1e-6)
        checked += 1
    assert checked >= 5


def test_euclidean_thresholds_are_cart_midpoints(data):
    X, y, _ = data
    model = KleinTreeClassifier(DecisionTreeClassifier(max_depth=5, random_state=0), signature=SIG).fit(X, y)
    plain = KleinTreeClassifier(DecisionTreeClassifier(max_depth=5, random_state=0), signature=SIG, max_margin=False)
    plain.fit(X, y)
    euclidean = [f for f, name in enumerate(model.klein_feature_names_) if name.startswith("E")]
    internal = model.estimator_.tree_.children_left != -1
    on_e = internal & np.isin(model.estimator_.tree_.feature, euclidean)
    assert on_e.any()
    np.testing.assert_allclose(
        model.estimator_.tree_.threshold[on_e], plain.estimator_.tree_.threshold[on_e], rtol=1e-6, atol=1e-7
    )


def test_klein_tree_matches_product_tree_split_for_split():
    trees = pytest.importorskip("curvedtrees.trees")
    signature = "H3(-0.7)"
    X = ProductManifold(signature).random_normal(400, std=1.0, random_state=5)
    y = ((X[:, 1] > 0.1) ^ (X[:, 2] + X[:, 3] > 0)).astype(int) + (X[:, 3] > 0.5)
    product = trees.ProductDecisionTreeClassifier(signature=signature, max_depth=4, random_state=0).fit(X, y)
    klein = KleinTreeClassifier(DecisionTreeClassifier(max_depth=4, random_state=0), signature=signature).fit(X, y)
    # Same partition of the training rows into leaves (leaf ids may be numbered differently).
    pairs = set(zip(product.apply(X).tolist(), klein.apply(X).tolist()))
    assert len(pairs) == len(set(product.apply(X).tolist())) == len(set(klein.apply(X).tolist()))
    # Same thresholds at the same splits (both trees number nodes depth-first).
    a, b = product.tree_, klein.estimator_.tree_
    internal = a.children_left != -1
    np.testing.assert_array_equal(a.children_left, b.children_left)
    np.testing.assert_array_equal(a.coords[internal, 1] - 1, b.feature[internal])
    np.testing.assert_allclose(a.threshold[internal], b.threshold[internal], rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(a.margin[internal], klein.margins_[0][internal], rtol=1e-6)


def test_input_models_give_identical_models(data):
    X, y, _ = data
    manifold = ProductManifold(SIG)
    parts = manifold.factorize(X)
    curvatures = [-0.5, 0.0, -2.0]
    poincare = np.column_stack([coords.hyperboloid_to_poincare(p, k) if k else p for p, k in zip(parts, curvatures)])
    klein = np.column_stack([coords.hyperboloid_to_klein(p, k) if k else p for p, k in zip(parts, curvatures)])
    models = [
        KleinTreeClassifier(RandomForestClassifier(n_estimators=5, random_state=0), signature=SIG, input_model=m).fit(
            data_, y
        )
        for m, data_ in (("hyperboloid", X), ("poincare", poincare), ("klein", klein))
    ]
    reference = models[0]
    for model, data_ in zip(models[1:], (poincare, klein)):
        np.testing.assert_allclose(model.transform_features(data_), reference.transform_features(X), rtol=1e-12)
        for a, b in zip(model.estimator_.estimators_, reference.estimator_.estimators_):
            np.testing.assert_array_equal(a.tree_.children_left, b.tree_.children_left)
            np.testing.assert_array_equal(a.tree_.feature, b.tree_.feature)
            np.testing.assert_allclose(a.tree_.threshold, b.tree_.threshold, rtol=1e-12, atol=1e-15)
        np.testing.assert_array_equal(model.predict(data_), reference.predict(X))
    # The features are x_j / x_0: the Klein coordinate divided by the radius.
    np.testing.assert_allclose(klein_features(klein, SIG, "klein")[:, :2], klein[:, :2] * np.sqrt(0.5), rtol=1e-12)


@pytest.mark.parametrize("curvature", [-0.05, -1.0, -7.0])
def test_any_curvature(curvature):
    signature = f"H2({curvature})"
    X = ProductManifold(signature).random_normal(300, std=1.5, random_state=2)
    y = (X[:, 1] > 0).astype(int) + (X[:, 2] > 0.2)
    for backend in (DecisionTreeClassifier(random_state=0), xgboost.XGBClassifier(n_estimators=10, n_jobs=1)):
        model = KleinTreeClassifier(backend, signature=signature).fit(X, y)
        margins = np.concatenate(model.margins_)
        moved = margins[np.isfinite(margins)]
        assert moved.size > 0 and np.all(moved > 0)
        assert model.score(X, y) > 0.9
        assert np.all(np.isfinite(model.predict_proba(X)))


def test_far_points_and_float32_crowding():
    # Points 15 units from the origin have Klein ratios within 1e-12 of +-1, beyond float32's
    # resolution: splits there must still keep every row on its side.
    signature = "H1"
    distance = np.concatenate([np.linspace(-16, -12, 40), np.linspace(-1, 1, 40), np.linspace(12, 16, 40)])
    X = np.column_stack([np.cosh(distance), np.sinh(distance)])
    y = (np.arange(len(distance)) % 3 == 0).astype(int)
    backends = (
        DecisionTreeClassifier(random_state=0),
        xgboost.XGBClassifier(n_estimators=10, n_jobs=1),
        lightgbm.LGBMClassifier(n_estimators=10, min_child_samples=2, verbose=-1, n_jobs=1),
    )
    for backend in backends:
        model = KleinTreeClassifier(clone(backend), signature=signature).fit(X, y)
        plain = KleinTreeClassifier(clone(backend), signature=signature, max_margin=False).fit(X, y)
        np.testing.assert_array_equal(model.predict(X), plain.predict(X))


def test_clone_get_params_and_grid_search(data):
    X, y, _ = data
    model = KleinTreeClassifier(DecisionTreeClassifier(random_state=0), signature=SIG)
    params = model.get_params()
    assert params["signature"] == SIG and "estimator__max_depth" in params
    copy = clone(model)
    assert copy.get_params()["estimator__max_depth"] is None and copy.estimator is not model.estimator
    search = GridSearchCV(model, {"estimator__max_depth": [2, 6], "max_margin": [True, False]}, cv=3).fit(X, y)
    assert search.best_params_["estimator__max_depth"] == 6
    assert search.best_estimator_.n_thresholds_moved_ > 0 or not search.best_params_["max_margin"]


def test_sample_weight_zero_rows_are_not_training_rows(data):
    X, y, _ = data
    weight = np.ones(len(X))
    weight[::3] = 0.0
    model = KleinTreeClassifier(DecisionTreeClassifier(random_state=0), signature=SIG).fit(X, y, sample_weight=weight)
    assert model.n_thresholds_kept_ == 0
    plain = KleinTreeClassifier(DecisionTreeClassifier(random_state=0), signature=SIG, max_margin=False)
    plain.fit(X, y, sample_weight=weight)
    rows = np.flatnonzero(weight > 0)
    np.testing.assert_array_equal(model.apply(X[rows]), plain.apply(X[rows]))


def test_warns_when_rows_are_not_recorded(data):
    X, y, _ = data
    with pytest.warns(KleinCorrectionWarning, match="all rows"):
        KleinTreeClassifier(
            GradientBoostingClassifier(n_estimators=5, subsample=0.5, random_state=0), signature=SIG
        ).fit(X, y)
    with pytest.warns(KleinCorrectionWarning, match="all rows"):
        KleinTreeClassifier(xgboost.XGBClassifier(n_estimators=3, subsample=0.5), signature=SIG).fit(X, y)
    with pytest.warns(KleinCorrectionWarning, match="all rows"):
        KleinTreeClassifier(
            lightgbm.LGBMClassifier(n_estimators=3, subsample=0.5, subsample_freq=1, verbose=-1), signature=SIG
        ).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error", KleinCorrectionWarning)
        KleinTreeClassifier(RandomForestClassifier(n_estimators=3, random_state=0), signature=SIG).fit(X, y)


def test_bad_input(data):
    X, y, _ = data
    with pytest.raises(ValueError, match=r"spherical.*product trees"):
        KleinTreeClassifier(signature="H2 x S2").fit(np.zeros((3, 6)), [0, 1, 0])
    with pytest.raises(ValueError, match="needs 6"):
        KleinTreeClassifier(signature=SIG).fit(X[:, :5], y)
    missing = X.copy()
    missing[4, 3] = np.inf
    with pytest.raises(ValueError, match="row 4"):
        KleinTreeClassifier(signature=SIG).fit(missing, y)
    bad = X.copy()
    bad[7, 0] += 0.1
    with pytest.raises(ValueError, match="row 7"):
        KleinTreeClassifier(signature=SIG).fit(bad, y)
    ball = np.column_stack([np.full(4, 0.5), np.full(4, 1.5), np.zeros(4), np.zeros(4)])  # norm 1.58 > R = 1.41
    with pytest.raises(ValueError, match="outside the open Poincaré ball"):
        KleinTreeClassifier(signature="H2(-0.5) x E1 x H1(-2)", input_model="poincare").fit(ball, [0, 1, 0, 1])
    with pytest.raises(ValueError, match="input_model"):
        KleinTreeClassifier(signature=SIG, input_model="upper_half").fit(X, y)
    with pytest.raises(ValueError, match="cannot correct"):
        KleinTreeClassifier(estimator=_NotATree(), signature=SIG).fit(X, y)
    with pytest.raises(ValueError, match="needs a classifier"):
        KleinTreeClassifier(DecisionTreeRegressor(), signature=SIG).fit(X, y)
    with pytest.raises(ValueError, match="unknown estimator name"):
        KleinTreeClassifier("catboost", signature=SIG).fit(X, y)


def test_missing_optional_package_says_how_to_install(monkeypatch):
    import builtins

    real_import = builtins.__import__

    def fake_import(name, *args, **kwargs):
        if name == "xgboost":
            raise ImportError("no xgboost here")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", fake_import)
    with pytest.raises(ImportError, match="pip install xgboost"):
        make_backend("xgboost", classifier=True)


class _NotATree:
    """A classifier the wrapper cannot correct."""

    _estimator_type = "classifier"

    def get_params(self, deep=True):
        return {}

    def set_params(self, **params):
        return self

    def fit(self, X, y):
        return self

    def __sklearn_tags__(self):
        from sklearn.utils import ClassifierTags, Tags, TargetTags

        return Tags(
            estimator_type="classifier", target_tags=TargetTags(required=True), classifier_tags=ClassifierTags()
        )


def test_lightgbm_zero_as_missing_uses_lightgbms_own_routing(data):
    # With zero_as_missing, rows at exactly 0 go the default way, not by value: the
    # correction then takes leaves from LightGBM and leaves such splits unchanged.
    X, y, _ = data
    X = X.copy()
    X[::5, 3] = 0.0  # the E1 coordinate: exact zeros
    backend = lightgbm.LGBMClassifier(n_estimators=8, num_leaves=15, zero_as_missing=True, verbose=-1, n_jobs=1)
    fitted = KleinTreeClassifier(clone(backend), signature=SIG).fit(X, y)
    plain = KleinTreeClassifier(clone(backend), signature=SIG, max_margin=False).fit(X, y)
    assert fitted.n_thresholds_moved_ > 0
    features = fitted.transform_features(X)
    np.testing.assert_array_equal(_leaves(fitted, features), _leaves(plain, features))


def test_lightgbm_model_text_is_read_and_rewritten_in_place():
    # The adapter reads LightGBM's trees from its text model (one pass for all trees)
    # and splices new thresholds into it; the header's tree_sizes must follow each
    # block's new length, or LightGBM cannot find the trees. Single-leaf trees have
    # empty lines; a line with the wrong number of values is an error.
    from curvedtrees.klein._backends import _LightGBMModel

    rng = np.random.default_rng(0)
    X = rng.normal(size=(2000, 3))
    y = (X[:, 0] + X[:, 1] ** 2 > 0.5).astype(int) + (X[:, 2] > 0)
    booster = lightgbm.LGBMClassifier(n_estimators=6, num_leaves=7, verbose=-1, n_jobs=1).fit(X, y).booster_
    text = booster.model_to_string()
    model = _LightGBMModel(text)
    assert model.original_sizes_match() and len(model.trees) == 18
    for t, tree in enumerate(booster.dump_model()["tree_info"]):
        splits = []
        stack = [tree["tree_structure"]]
        while stack:
            node = stack.pop()
            if "split_index" in node:
                splits.append((node["split_index"], node["split_feature"], node["threshold"]))
                stack += [node["left_child"], node["right_child"]]
        _, feature, threshold = (np.array(v) for v in zip(*sorted(splits)))
        n_internal = model.trees[t]["n_internal"]
        assert n_internal == len(splits)
        np.testing.assert_array_equal(model.trees[t]["arrays"][2][:n_internal], feature)
        np.testing.assert_array_equal(model.trees[t]["arrays"][3][:n_internal], threshold)
        assert model.trees[t]["node_weight"][0] == 2000  # internal_count of the root
    # New thresholds (longer and shorter decimals): LightGBM loads the text and uses them.
    moved = [tree["arrays"][3] + rng.normal(0, 1e-3, len(tree["arrays"][3])) for tree in model.trees]
    rewritten = _LightGBMModel(model.text(moved))
    assert rewritten.original_sizes_match()
    for tree, new in zip(rewritten.trees, moved):
        np.testing.assert_array_equal(tree["arrays"][3][: tree["n_internal"]], new[: tree["n_internal"]])
    reloaded = lightgbm.Booster(model_str=model.text(moved))
    assert reloaded.num_trees() == 18
    # The same thresholds give the same predictions.
    same = lightgbm.Booster(model_str=model.text([tree["arrays"][3] for tree in model.trees]))
    np.testing.assert_array_equal(same.predict(X), booster.predict(X))
    # A stump that found no split: empty lines, no arrays to correct.
    stump = lightgbm.LGBMClassifier(n_estimators=1, min_child_samples=5000, verbose=-1).fit(X, y > 0).booster_
    (single,) = _LightGBMModel(stump.model_to_string()).trees
    assert single["n_internal"] == 0
    broken = text.replace("\nleft_child=", "\nleft_child=0 ", 1)
    with pytest.raises(ValueError, match="'left_child' does not have one value per node"):
        _LightGBMModel(broken)
    with pytest.raises(ValueError, match="'threshold' holds a non-number"):
        _LightGBMModel(text.replace("\nthreshold=", "\nthreshold=x", 1))


def test_pairwise_solver_matches_bisection():
    # The exact pairwise solve used for small candidate sets agrees with the product
    # trees' bisection, including points far from the origin (large x0).
    from curvedtrees.klein._correct import _timelike_threshold
    from curvedtrees.klein._tuning import MAX_PAIRS
    from curvedtrees.trees._margin import hyperbolic_threshold

    rng = np.random.default_rng(3)
    for trial in range(200):
        n = int(rng.integers(2, 14))
        distance = rng.normal(0, 1 + 4 * (trial % 3), n)
        spread = rng.normal(0, 1, n)
        x0 = np.cosh(distance) * np.cosh(spread)  # hyperboloid H2: (x0, x1, x2)
        x1 = np.sinh(distance) * np.cosh(spread)
        ratio = x1 / x0
        order = np.argsort(ratio)
        cut = int(rng.integers(1, n))
        go_left = np.zeros(n, dtype=bool)
        go_left[order[:cut]] = True
        if ratio[go_left].max() >= ratio[~go_left].min():
            continue
        lefts_first = np.argsort(~go_left, kind="stable")  # the layout the pairwise solver takes
        kept = np.stack([ratio[lefts_first], x0[lefts_first]])
        t_pairs = _timelike_threshold(kept, cut, cut, n, MAX_PAIRS)
        t_bisect, _ = hyperbolic_threshold(x0, x1, go_left)
        np.testing.assert_allclose(t_pairs, t_bisect, rtol=1e-9, atol=1e-12)


def _far_mixture(random_state, n_samples=3000):
    """A mixture reaching far from the origin, its layout, Klein features and hyperboloid block."""
    from curvedtrees.klein._features import KleinLayout
    from curvedtrees.manifolds import Signature
    from curvedtrees.sampling import make_classification

    signature = "H2 x E1 x H2(-4)"
    X, y = make_classification(signature, n_samples=n_samples, n_classes=4, random_state=random_state)
    layout = KleinLayout(Signature.parse(signature))
    HT = layout.hyperbolic_block(layout.to_hyperboloid(X))
    assert HT.max() > 1e4  # far points present
    return X, y, layout, klein_features(X, signature), HT


@pytest.mark.parametrize(
    "backend",
    [
        DecisionTreeClassifier(random_state=0),
        ExtraTreesClassifier(n_estimators=3, random_state=0),
        xgboost.XGBClassifier(n_estimators=4, max_depth=6, random_state=0, n_jobs=1),
    ],
    ids=lambda e: type(e).__name__,
)
def test_pruned_candidates_give_the_exhaustive_result(backend, monkeypatch):
    # correct_tree keeps only the rows near each gap (a running window in large nodes,
    # each side's rows read without a branch in small ones); the leaf-based path takes
    # every row of the node as a candidate. On a mixture reaching 15 units from the
    # origin (x0 up to ~1e6, where the window's bound matters most), deep and shallow
    # trees, '<=' and '<' rules, both must give the same thresholds and margins.
    from curvedtrees.klein._backends import backend_for
    from curvedtrees.klein._tuning import DENSE_ROWS

    _, y, layout, features, HT = _far_mixture(random_state=1, n_samples=3 * DENSE_ROWS)
    model = clone(backend).fit(features, y)
    n_hyperbolic_nodes, n_windowed = _check_h_passes_against_the_exhaustive_path(
        model, layout, features, HT, monkeypatch
    )
    assert n_hyperbolic_nodes > 20
    assert n_windowed >= len(backend_for(model).jobs(features, None))  # both H passes ran


def test_large_nodes_above_two_leaves_give_the_exhaustive_result(monkeypatch):
    # A node whose children are both leaves is not partitioned into the row buffers
    # (nothing reads them); a large one's two-pass candidate search (its feature's
    # windows wide, or a scan that gave up) reads the partition, so it must make it.
    from curvedtrees.klein._tuning import DENSE_ROWS

    _, y, layout, features, HT = _far_mixture(random_state=4, n_samples=6 * DENSE_ROWS)
    features = features.copy()
    features[:, layout.feat_x0 < 0] = 0.0  # only H splits
    model = DecisionTreeClassifier(max_depth=2, random_state=0).fit(features, y)
    tree = model.tree_
    above_leaves = (tree.children_left != -1) & (tree.children_left[tree.children_left] == -1)
    above_leaves &= tree.children_left[np.maximum(tree.children_right, 0)] == -1
    assert np.any(above_leaves & (tree.n_node_samples > DENSE_ROWS))
    n_hyperbolic_nodes, _ = _check_h_passes_against_the_exhaustive_path(model, layout, features, HT, monkeypatch)
    assert n_hyperbolic_nodes == 3


def _check_h_passes_against_the_exhaustive_path(model, layout, features, HT, monkeypatch):
    """Route every tree of ``model`` with each H pass forced in turn; compare with the leaf-based path.

    Returns the internal H nodes checked and those of more than ``DENSE_ROWS`` rows.
    """
    from curvedtrees.klein import _tuning
    from curvedtrees.klein._backends import _route, _SortedRows, backend_for
    from curvedtrees.klein._correct import KleinData, RouteHints, correct_tree_from_leaves
    from curvedtrees.klein._tuning import DENSE_ROWS, kernel_tuning

    tuning = kernel_tuning()
    floor_block = 2**tuning.floor_shift
    n_samples = len(features)
    tables = _SortedRows(features, HT, layout.feat_x0)
    adapter = backend_for(model)
    data = KleinData(np.ascontiguousarray(features.T), HT, layout.feat_x0, layout.feat_radius, adapter.rule)
    no_floors = np.zeros((HT.shape[0], -(-n_samples // floor_block)))
    floors_on = no_floors.copy()
    for h in np.unique(layout.feat_x0[layout.feat_x0 >= 0]):
        padded = np.full(floors_on.shape[1] * floor_block, np.inf)
        padded[:n_samples] = HT[h]
        floors_on[h] = padded.reshape(-1, floor_block).min(axis=1)
    leaves = _leaves(type("M", (), {"estimator_": model})(), features)
    leaves = np.asarray(leaves).reshape(n_samples, -1).astype(np.int64)
    jobs = adapter.jobs(features, None)
    assert len(jobs) == leaves.shape[1]
    n_hyperbolic_nodes = n_windowed = 0
    for t, job in enumerate(jobs):
        exhaustive = correct_tree_from_leaves(job.nodes, leaves[:, t], job.rows, data, tuning)
        # Large nodes take the windowed pass unless their feature's last window was wide
        # (window_sizes): no window seen yet (windows of R, or of each row block's
        # smallest x0), and every window wide (all partitioned, then each side read
        # without a branch; with the sorted rows, scanned from the gap, or, with no work
        # allowed to the scans, the same two passes after a scan that gives up).
        for window_sizes, floors, sorted_rows, scan_work in (
            (np.zeros(features.shape[1]), no_floors, None, 1.0),
            (np.zeros(features.shape[1]), floors_on, None, 1.0),
            (np.full(features.shape[1], np.inf), no_floors, None, 1.0),
            (np.full(features.shape[1], np.inf), no_floors, tables, 1.0),
            (np.full(features.shape[1], np.inf), no_floors, tables, 0.0),
        ):
            monkeypatch.setattr(_tuning, "SCAN_WORK_PER_ROW", scan_work)
            routed = _route(job, data, RouteHints(window_sizes, floors), tuning, sorted_rows)
            _assert_same_correction(routed, exhaustive)
        hyperbolic = (job.left != -1) & (layout.feat_x0[np.maximum(job.feature, 0)] >= 0)
        n_hyperbolic_nodes += int(np.sum(hyperbolic))
        n_windowed += int(np.sum(hyperbolic & (_rows_per_node(job.left, job.right, leaves[:, t]) > DENSE_ROWS)))
    return n_hyperbolic_nodes, n_windowed


def _klein_data(features, HT, layout, rule):
    from curvedtrees.klein._correct import KleinData

    return KleinData(np.ascontiguousarray(features.T), HT, layout.feat_x0, layout.feat_radius, rule)


def _route_hints(features, HT, layout, tuning):
    """Fresh window sizes and the x0 floors, as a fit starts with them."""
    from curvedtrees.klein._correct import RouteHints, x0_floors

    floors = x0_floors(HT, layout.feat_x0, layout.feat_radius, tuning.floor_shift, tuning.floor_pays)
    return RouteHints(np.zeros(features.shape[1]), floors)


def _route_plainly(job, features, HT, layout, rule):
    """``correct_tree`` with neither sorted rows nor a plan: the routing the other paths must reproduce."""
    from curvedtrees.klein._backends import _NO_TABLES, _NO_WEIGHTS
    from curvedtrees.klein._correct import ScanPlan, correct_tree
    from curvedtrees.klein._tuning import kernel_tuning

    tuning = kernel_tuning()
    data = _klein_data(features, HT, layout, rule)
    plan = ScanPlan(1.0, _NO_WEIGHTS, 0.0, 0.0)
    return correct_tree(
        job.nodes, job.rows, data, _route_hints(features, HT, layout, tuning), _NO_TABLES, plan, tuning
    )[:3]


def _assert_same_correction(result, reference):
    """Two corrections of one tree agree: statuses exactly, thresholds and nearest distances to rounding.

    Thresholds to rounding because the exhaustive path solves large candidate sets by
    bisection and the pruned ones by checking every pair; nearest distances to 1e-9
    for the cancellation in ``x_j - t x_0`` at large ``x0``.
    """
    np.testing.assert_array_equal(result[2], reference[2])
    np.testing.assert_allclose(result[0], reference[0], rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(result[1], reference[1], rtol=1e-9)


def _rows_per_node(left, right, leaf):
    """Training rows reaching each node, from each row's leaf (children have larger ids)."""
    count = np.bincount(leaf, minlength=len(left))
    for node in range(len(left) - 1, -1, -1):
        if left[node] != -1:
            count[node] = count[left[node]] + count[right[node]]
    return count


@pytest.mark.parametrize(
    "backend",
    [
        lightgbm.LGBMClassifier(n_estimators=3, num_leaves=15, random_state=0, verbose=-1, n_jobs=1),
        HistGradientBoostingClassifier(max_iter=3, max_depth=4, random_state=0),
        xgboost.XGBClassifier(n_estimators=3, max_depth=3, random_state=0, n_jobs=1),
        RandomForestClassifier(n_estimators=3, max_depth=4, random_state=0),  # in-bag rows only
    ],
    ids=lambda e: type(e).__name__,
)
def test_sorted_scans_give_the_routed_result(backend):
    # Shallow trees find each node's gap by scanning the rows sorted by the node's
    # feature outwards from the threshold (correct_tree_sorted) instead of routing
    # every row; both must agree exactly, for '<=' (float64 and float32) and '<'
    # rules, far points, and trees trained on a subset of the rows.
    from curvedtrees.klein._backends import _SortedRows, backend_for
    from curvedtrees.klein._correct import correct_tree_sorted
    from curvedtrees.klein._tuning import kernel_tuning

    X, y, layout, features, HT = _far_mixture(random_state=2)
    model = clone(backend).fit(features, y)
    adapter = backend_for(model)
    data = _klein_data(features, HT, layout, adapter.rule)
    tuning = kernel_tuning()
    tables = _SortedRows(features, HT, layout.feat_x0, threads=2).tables
    n_compared = 0
    for job in adapter.jobs(features, None):
        in_set = np.zeros(0, dtype=bool)
        if len(job.rows) != len(X):
            in_set = np.zeros(len(X), dtype=bool)
            in_set[job.rows] = True
        *scanned, ok, work = correct_tree_sorted(job.nodes, in_set, tables, data, 10.0**12, tuning)
        assert work > 0
        routed = _route_plainly(job, features, HT, layout, adapter.rule)
        assert ok
        _assert_same_correction(scanned, routed)
        n_compared += int(np.sum(routed[2] == 0))
        # A budget too small for the tree gives up rather than answer.
        if job.left[0] != -1:
            assert not correct_tree_sorted(job.nodes, in_set, tables, data, 0.0, tuning)[3]
    assert n_compared > 10


@pytest.mark.parametrize(
    "backend",
    [
        xgboost.XGBClassifier(n_estimators=3, max_depth=6, random_state=0, n_jobs=1),
        lightgbm.LGBMClassifier(n_estimators=3, random_state=0, verbose=-1, n_jobs=1),
        HistGradientBoostingClassifier(max_iter=3, random_state=0),
        RandomForestClassifier(n_estimators=3, max_depth=8, random_state=0),  # in-bag rows only
    ],
    ids=lambda e: type(e).__name__,
)
def test_subtree_scans_give_the_routed_result(backend):
    # A routed tree scans a subtree's nodes from the sorted rows instead of routing
    # them when its node weights predict that this pays, and a scan that runs over
    # its budget gives up and the subtree is routed. The weights only steer these
    # choices: with the library's own and with random ones, scanning wherever the
    # budget allows, thresholds, margins and statuses must be those of routing alone.
    from curvedtrees.klein._backends import _SortedRows, backend_for
    from curvedtrees.klein._correct import ScanPlan, correct_tree
    from curvedtrees.klein._tuning import kernel_tuning

    _, y, layout, features, HT = _far_mixture(random_state=3)
    model = clone(backend).fit(features, y)
    adapter = backend_for(model)
    data = _klein_data(features, HT, layout, adapter.rule)
    tuning = kernel_tuning()
    tables = _SortedRows(features, HT, layout.feat_x0).tables
    rng = np.random.default_rng(0)
    scan_units = 0.0
    for job in adapter.jobs(features, None):
        hints = _route_hints(features, HT, layout, tuning)
        routed = _route_plainly(job, features, HT, layout, adapter.rule)
        for weight in (np.asarray(job.node_weight, dtype=np.float64), rng.uniform(0.01, 1.0, len(job.left))):
            plan = ScanPlan(1.0, np.ascontiguousarray(weight), 0.0, np.inf)  # scan wherever the budget allows
            *scanned, work, units = correct_tree(job.nodes, job.rows, data, hints, tables, plan, tuning)
            _assert_same_correction(scanned, routed)
            assert (work > 0) == (units > 0)
            scan_units += units
    assert scan_units > 0


def test_depth_bound_rules_out_only_trees_the_node_shares_rule_out(monkeypatch):
    # _scan_costs rules deep trees out from their node count and depth alone (a lower
    # bound on sum 1 / share); it must never rule out a tree that the node shares accept.
    from curvedtrees.klein import _backends

    X, y = _mixture_far()
    features = klein_features(X, "H2 x E1")
    n_ruled_out = n_accepted = 0
    for depth in (1, 2, 3, 4, 6, 8, 12, 16, None):
        for leaf in (1, 2, 5, 20):
            tree = DecisionTreeClassifier(max_depth=depth, min_samples_leaf=leaf, random_state=0).fit(features, y)
            (job,) = _backends.backend_for(tree).jobs(features, None)
            with monkeypatch.context() as patch:
                patch.setattr(_backends, "node_shares", None)  # the bound alone, or a TypeError
                try:
                    bounded = _backends._scan_costs(job)
                except TypeError:
                    bounded = "needs the shares"
            job.max_depth = None
            exact = _backends._scan_costs(job)
            if bounded is None:
                n_ruled_out += 1
                assert exact is None, (depth, leaf)
            elif exact is not None:
                n_accepted += 1
    assert n_ruled_out >= 2 and n_accepted >= 4


def test_wrapper_scans_shallow_trees_and_routes_deep_ones(monkeypatch):
    # The choice is made per tree from the library's node counts (and by a back-off
    # while scans do not pay); scanned or routed, the model is the same.
    from curvedtrees.klein import _backends, _tuning

    X, y = _mixture_far()
    shallow = lightgbm.LGBMClassifier(n_estimators=5, num_leaves=7, random_state=0, verbose=-1, n_jobs=1)
    features = klein_features(X, "H2 x E1")
    jobs = _backends.backend_for(clone(shallow).fit(features, y)).jobs(features, None)
    assert any(_backends._scan_costs(job) is not None for job in jobs)
    deep = DecisionTreeClassifier(random_state=0).fit(features, y)
    assert _backends._scan_costs(_backends.backend_for(deep).jobs(features, None)[0]) is None
    stump_like = DecisionTreeClassifier(max_depth=2, random_state=0).fit(features, y)
    assert _backends._scan_costs(_backends.backend_for(stump_like).jobs(features, None)[0]) is not None
    with monkeypatch.context() as patch:
        patch.setattr(_tuning, "SCAN_PAYS", np.inf)  # scan every eligible tree
        scanned = KleinTreeClassifier(clone(shallow), signature="H2 x E1").fit(X, y)
    with monkeypatch.context() as patch:
        patch.setattr(_backends._SortedRows, "fits", classmethod(lambda cls, F: False))  # route every tree
        routed = KleinTreeClassifier(clone(shallow), signature="H2 x E1").fit(X, y)
    assert len(scanned.margins_) == len(routed.margins_)
    for scanned_margin, routed_margin in zip(scanned.margins_, routed.margins_):
        np.testing.assert_allclose(scanned_margin, routed_margin, rtol=1e-9, equal_nan=True)
    np.testing.assert_allclose(scanned.predict_proba(X), routed.predict_proba(X), rtol=1e-12)
    new = scanned.transform_features(X)
    np.testing.assert_array_equal(_leaves(scanned, new), _leaves(routed, new))


@pytest.mark.parametrize(
    "backend",
    [
        ExtraTreesClassifier(n_estimators=4, random_state=0),
        RandomForestClassifier(n_estimators=4, max_depth=8, random_state=0),  # in-bag rows only
        xgboost.XGBClassifier(n_estimators=2, max_depth=6, random_state=0, n_jobs=1),
        lightgbm.LGBMClassifier(n_estimators=2, random_state=0, verbose=-1, n_jobs=1),
        lightgbm.LGBMClassifier(n_estimators=2, zero_as_missing=True, random_state=0, verbose=-1, n_jobs=1),
    ],
    ids=["ExtraTrees", "RandomForest", "XGBoost", "LightGBM", "LightGBM-leaves"],
)
def test_rows_renumbered_for_locality_give_the_same_model(backend, monkeypatch):
    # The correction may renumber the rows along a space-filling curve so that a
    # node's rows sit close in memory; only the speed may change, never a threshold,
    # a margin or a leaf (the library's leaves, where it gives them, stay aligned).
    from curvedtrees.klein import _tuning

    X, y = _mixture_far()
    models = {}
    for renumber in (False, True):
        with monkeypatch.context() as patch:
            patch.setattr(_tuning, "RENUMBER_BYTES", 0 if renumber else np.inf)
            patch.setattr(_tuning, "RENUMBER_VISITS", 0.0)
            models[renumber] = KleinTreeClassifier(clone(backend), signature="H2 x E1").fit(X, y)
    plain, renumbered = models[False], models[True]
    assert plain.n_thresholds_moved_ == renumbered.n_thresholds_moved_ > 0
    for a, b in zip(plain.margins_, renumbered.margins_):
        np.testing.assert_allclose(a, b, rtol=1e-12, equal_nan=True)
    np.testing.assert_array_equal(plain.predict_proba(X), renumbered.predict_proba(X))
    features = plain.transform_features(X)
    np.testing.assert_array_equal(_leaves(plain, features), _leaves(renumbered, features))


def test_locality_order_is_a_permutation_that_keeps_neighbours_together():
    from curvedtrees.klein._rows import locality_order, relabel_rows

    rng = np.random.default_rng(0)
    F = rng.normal(size=(20000, 3))
    order = locality_order(F)
    np.testing.assert_array_equal(np.sort(order), np.arange(len(F)))
    np.testing.assert_array_equal(locality_order(F, threads=2), order)  # threads only split the work
    # Consecutive rows in the new order are far closer than consecutive rows before.
    step_before = np.linalg.norm(np.diff(F, axis=0), axis=1).mean()
    step_after = np.linalg.norm(np.diff(F[order], axis=0), axis=1).mean()
    assert step_after < step_before / 5
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    rows = np.array([3, 10, 11, 500, 19999])
    np.testing.assert_array_equal(relabel_rows(rows, rank), np.sort(rank[rows]))
    np.testing.assert_array_equal(relabel_rows(rows, rank, keep_order=True), rank[rows])
    assert locality_order(F[:1]).tolist() == [0]


def test_x0_floors_are_block_minima_of_far_components_only():
    # The windowed pass narrows a far-out component's windows with the smallest x0 of
    # each block of rows; near the origin the floors do not pay and are left out (zeros).
    from curvedtrees.klein._correct import x0_floors
    from curvedtrees.klein._tuning import FLOOR_PAYS, FLOOR_SHIFT

    floor_block = 2**FLOOR_SHIFT
    rng = np.random.default_rng(0)
    n = 5 * floor_block + 7  # a last, partial block
    far = 2.0 * FLOOR_PAYS * (1.0 + rng.random(n))  # radius 1: every block floor >= 2 * FLOOR_PAYS
    near = 1.0 + rng.random(n)
    HT = np.stack([far, rng.normal(size=n), near, rng.normal(size=n)])
    floors = x0_floors(HT, np.array([0, 2, -1]), np.array([1.0, 1.0, 1.0]), FLOOR_SHIFT, FLOOR_PAYS)
    assert floors.shape == (4, 6)
    padded = np.full(6 * floor_block, np.inf)
    padded[:n] = far
    np.testing.assert_array_equal(floors[0], padded.reshape(6, -1).min(axis=1))
    assert not floors[1:].any()
    # the same far component at a larger radius is no longer far
    assert not x0_floors(HT, np.array([0]), np.array([2.0 * FLOOR_PAYS]), FLOOR_SHIFT, FLOOR_PAYS).any()


def test_cutoff_reproduces_each_library_comparison_exactly():
    # The passes compare float64 values with one cutoff per node; for every rule that
    # must send exactly the values the library sends left, including values on and next
    # to float32 rounding boundaries (ties go to even), zeros, subnormals and overflow.
    # The tiny nodes' pass compares each row under the rule itself (_sends_left): the same.
    from curvedtrees.klein._correct import RULE_F32_LE, RULE_F32_LT, RULE_F64_LE, _cutoff, _sends_left
    from numba import njit

    @njit
    def sends_left(values, threshold, rule):
        return np.array([_sends_left(value, threshold, rule) for value in values])

    rng = np.random.default_rng(0)
    f32 = np.float32
    grid = np.concatenate([rng.normal(0, 1, 300), rng.normal(0, 1e-40, 50), [0.0, -0.0, 1e-45, -1e-45, 3.4e38]])
    thresholds = []
    for value in grid:
        below, above = np.nextafter(f32(value), f32(-np.inf)), np.nextafter(f32(value), f32(np.inf))
        thresholds += [value, float(f32(value)), float(below), float(above), float(f32(value)) / 2 + float(above) / 2]
    max32 = float(np.finfo(np.float32).max)
    thresholds += [max32, -max32, np.inf, -np.inf, 2.0**128 - 2.0**103, -(2.0**128 - 2.0**103), 1e300, -1e300]
    thresholds = np.array(thresholds)
    values = np.unique(np.concatenate([thresholds[np.isfinite(thresholds)], grid]))
    # every float64 value near each threshold, on both sides of each float32 midpoint
    values = np.unique(np.concatenate([values, np.nextafter(values, np.inf), np.nextafter(values, -np.inf)]))
    with np.errstate(over="ignore"):
        as32 = values.astype(np.float32).astype(np.float64)
    n_checked = 0
    for t in thresholds:
        with np.errstate(over="ignore"):
            t32 = float(f32(t))  # XGBoost stores float32 thresholds
        for rule, threshold, reference in (
            (RULE_F64_LE, t, values <= t),
            (RULE_F32_LE, t, as32 <= t),
            (RULE_F32_LT, t32, as32 < t32),
        ):
            sent_left = values <= _cutoff(threshold, rule)
            np.testing.assert_array_equal(sent_left, reference, err_msg=f"threshold {threshold!r}, rule {rule}")
            np.testing.assert_array_equal(sends_left(values, threshold, rule), reference, err_msg=f"{threshold!r}")
            n_checked += 1
    assert n_checked > 4000


def test_scan_policy_learns_what_scans_cost_from_the_model_s_own_scans():
    import math

    from curvedtrees.klein._backends import _ScanPolicy
    from curvedtrees.klein._tuning import SCAN_COST_LEARNING as _SCAN_COST_LEARNING
    from curvedtrees.klein._tuning import SCAN_COST_PRIOR as _SCAN_COST_PRIOR
    from curvedtrees.klein._tuning import SCAN_PAYS as _SCAN_PAYS

    policy = _ScanPolicy(_SCAN_COST_PRIOR, _SCAN_PAYS)
    routing = 1000.0
    # Predicted work k * sum 1/share against _SCAN_PAYS of the routing cost, k from the prior.
    limit = _SCAN_PAYS * routing / _SCAN_COST_PRIOR
    assert policy.should_scan(0.99 * limit, routing, 0)
    assert not policy.should_scan(1.01 * limit, routing, 0)
    # Cheap scans (k = 4) lower the estimate towards 4, geometrically.
    for count in range(1, 6):
        policy.record(work=40.0, inverse_shares=10.0)
        expected = 4.0 * (_SCAN_COST_PRIOR / 4.0) ** ((1 - _SCAN_COST_LEARNING) ** count)
        assert math.isclose(policy.cost, expected, rel_tol=1e-12)
    assert policy.should_scan(2.0 * limit, routing, 0)  # trees with more small nodes now scan
    # Scans that give up (work as large as routing) raise it again: such trees are routed.
    for _ in range(40):
        policy.record(work=routing, inverse_shares=limit)
    assert math.isclose(policy.cost, _SCAN_COST_PRIOR / _SCAN_PAYS, rel_tol=1e-4)
    assert not policy.should_scan(0.6 * limit, routing, 0)


def _mixture_far():
    from curvedtrees.sampling import make_classification

    return make_classification("H2 x E1", n_samples=20000, n_classes=3, random_state=4)


def test_xgboost_model_bytes_are_read_as_ubjson_typed_arrays():
    # XGBoost's binary model is UBJSON; the adapter reads each tree's arrays from it and
    # patches the split conditions in place. Keys may spell their length with any
    # integer marker; an array that is not a typed, counted container, or that runs past
    # the end, is an error, not a silent skip.
    from curvedtrees.klein._backends import _ubj_typed_arrays

    values = np.array([1.5, -2.0, 0.25], dtype=">f4")
    for marker in (b"i\x10", b"U\x10", b"L" + (16).to_bytes(8, "big")):
        blob = b"{" + marker + b"split_conditions" + b"[$d#i\x03" + values.tobytes() + b"}"
        [(offset, found)] = _ubj_typed_arrays(blob, "split_conditions")
        np.testing.assert_array_equal(found, values)
        assert blob[offset : offset + 12] == values.tobytes()
    assert _ubj_typed_arrays(b"{}", "split_conditions") == []
    with pytest.raises(ValueError, match="not a typed array"):
        _ubj_typed_arrays(b"{i\x10split_conditions[d]}", "split_conditions")
    with pytest.raises(ValueError, match="runs past the end"):
        _ubj_typed_arrays(b"{i\x10split_conditions[$d#i\x09" + values.tobytes() + b"}", "split_conditions")


def test_warm_up_compiles_every_way_of_finding_rows():
    # make run calls warm_up so the app's first Klein fit does not wait for numba.
    import curvedtrees.klein
    from curvedtrees.klein import _correct

    curvedtrees.klein.warm_up()
    for kernel in (_correct.correct_tree, _correct.correct_tree_sorted, _correct.correct_tree_from_leaves):
        # scikit-learn's strided node arrays and the other libraries' contiguous ones
        layouts = {signature[0].types[0].layout for signature in kernel.signatures}  # TreeNodes' left
        assert {"A", "C"} <= layouts, (kernel.__name__, layouts)


# ------------------------------------------------------------ the plain strategy
# Off and extreme values of every tuned constant (curvedtrees.klein._tuning): each
# sends nodes down other passes, scans or solvers, and none may change a result.
_TUNINGS = {
    "tuned": {},
    "small": {
        "TINY_ROWS": 0,
        "DENSE_ROWS": 0,
        "DENSE_WINDOW_SHARE": np.inf,  # windows never count as wide: windowed passes
        "WARM_ROWS": 1,
        "MAX_PAIRS": 0,  # every H boundary by bisection
        "DIRECT_PAIRS": 0,  # every candidate set pruned
        "FLOOR_PAYS": 0.0,  # x0 floors for every H component
        "FLOOR_SHIFT": 2,
        "BLOCK_SHIFT": 2,
        "SCAN_PAYS": 0.0,
        "SUBTREE_PAYS": 0.0,
        "RENUMBER_BYTES": 0,  # rows renumbered
        "RENUMBER_VISITS": 0.0,
    },
    "large": {
        "TINY_ROWS": 40,
        "DENSE_ROWS": 10**9,  # every H node partitioned first, then both sides read
        "MAX_PAIRS": 10**6,  # pairs checked directly
        "DIRECT_PAIRS": 10**6,
        "BLOCK_SHIFT": 9,
        "SCAN_PAYS": np.inf,  # every eligible tree and subtree scanned
        "SUBTREE_PAYS": np.inf,
        "SCAN_MAX_INVERSE": np.inf,
        "SCAN_WORK_PER_ROW": 0.0,  # every candidate scan of a routed node gives up
    },
    "wide": {"DENSE_WINDOW_SHARE": 0.0, "SCAN_PAYS": np.inf, "SUBTREE_PAYS": np.inf, "SCAN_WORK_PER_ROW": 10.0},
}

_PLAIN_BACKENDS = [
    DecisionTreeClassifier(random_state=0),
    ExtraTreesClassifier(n_estimators=3, random_state=0),
    RandomForestClassifier(n_estimators=3, max_depth=8, random_state=0),  # in-bag rows only
    HistGradientBoostingClassifier(max_iter=4, random_state=0),
    xgboost.XGBClassifier(n_estimators=4, max_depth=6, random_state=0, n_jobs=2),  # '<' on float32
    lightgbm.LGBMClassifier(n_estimators=4, random_state=0, verbose=-1, n_jobs=2),
]


def _corrected_trees(model):
    """Each corrected tree's thresholds as the library stores them, and the wrapper's margins."""
    from curvedtrees.klein._backends import backend_for

    arrays = backend_for(model.estimator_).tree_arrays()
    thresholds = [np.asarray(tree[3], dtype=np.float64).copy() for tree in arrays]
    return thresholds, [np.asarray(m) for m in model.margins_]


def _mixture_of(signature):
    if signature == "far":
        X, y, *_ = _far_mixture(random_state=6, n_samples=6000)
        return X, y, "H2 x E1 x H2(-4)"
    X, y = make_classification(signature, n_samples=3000, n_classes=4, random_state=7)
    return X, y, signature


@pytest.mark.parametrize("signature", ["H2", "H4 x E2", "far"])
@pytest.mark.parametrize("backend", _PLAIN_BACKENDS, ids=lambda e: type(e).__name__)
def test_every_strategy_gives_the_plain_strategy_s_thresholds(backend, signature, monkeypatch):
    # plain_strategy() walks every row to its leaf and solves every node from all of
    # its rows: no renumbering, scans, windows, floors or pruning. The tuned fit, and
    # fits with each tuned constant at an extreme (other passes, solvers, scans), must
    # give the same thresholds (statuses exactly; to rounding, as the exhaustive path
    # solves large candidate sets by bisection and the pruned ones pair by pair), the
    # same margins (to the rounding a threshold's rounding makes at large x0) and the
    # same leaf for every training row.
    from curvedtrees.klein import _tuning

    X, y, signature = _mixture_of(signature)
    with _tuning.plain_strategy():
        plain = KleinTreeClassifier(clone(backend), signature=signature).fit(X, y)
    assert not _tuning.FORCE_PLAIN  # restored
    plain_thresholds, plain_margins = _corrected_trees(plain)
    features = plain.transform_features(X)
    assert plain.n_thresholds_moved_ > 0 and plain.n_thresholds_kept_ == 0
    for name, values in _TUNINGS.items():
        with monkeypatch.context() as patch:
            for constant, value in values.items():
                assert hasattr(_tuning, constant), constant
                patch.setattr(_tuning, constant, value)
            tuned = KleinTreeClassifier(clone(backend), signature=signature).fit(X, y)
        assert tuned.n_thresholds_moved_ == plain.n_thresholds_moved_, name
        thresholds, margins = _corrected_trees(tuned)
        assert len(thresholds) == len(plain_thresholds)
        for t, (a, b, ma, mb) in enumerate(zip(thresholds, plain_thresholds, margins, plain_margins)):
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-15, err_msg=f"{name}, tree {t}")
            # A threshold's rounding moves a far row's distance |x_j - t x_0| by x_0 times as much.
            np.testing.assert_allclose(ma, mb, rtol=1e-8, equal_nan=True, err_msg=f"{name}, tree {t}")
        np.testing.assert_array_equal(_leaves(tuned, features), _leaves(plain, features), err_msg=name)


def test_plain_strategy_bypasses_every_tuned_path(monkeypatch):
    # Under the switch, no routed pass, scan or renumbering runs (each replaced here
    # by a trap): only the leaves walk and the exhaustive solve. Without it, the same
    # traps are hit, so they sit where the tuned fit goes.
    from curvedtrees.klein import _backends, _tuning

    X, y = make_classification("H2 x E1", n_samples=20000, n_classes=3, random_state=4)
    model = xgboost.XGBClassifier(n_estimators=3, max_depth=6, random_state=0, n_jobs=1)

    def trap(*args, **kwargs):
        raise AssertionError("a tuned path ran")

    with monkeypatch.context() as patch:
        for name in ("correct_tree", "correct_tree_sorted", "locality_order", "x0_floors"):
            patch.setattr(_backends, name, trap)
        with _tuning.plain_strategy():
            plain = KleinTreeClassifier(clone(model), signature="H2 x E1").fit(X, y)
        with pytest.raises(AssertionError, match="a tuned path ran"):
            KleinTreeClassifier(clone(model), signature="H2 x E1").fit(X, y)
    assert plain.n_thresholds_moved_ > 0
    # plain_strategy restores the flag on errors too
    with pytest.raises(RuntimeError), _tuning.plain_strategy():
        raise RuntimeError("inside the block")
    assert not _tuning.FORCE_PLAIN


def test_plain_leaves_are_the_library_s_own():
    # route_leaves, the plain strategy's routing, against each library's own leaves.
    from curvedtrees.klein._backends import backend_for
    from curvedtrees.klein._correct import KleinData, route_leaves

    X, y, layout, features, HT = _far_mixture(random_state=8)
    n_trees = 0
    for backend in (
        ExtraTreesClassifier(n_estimators=2, random_state=0),
        xgboost.XGBClassifier(n_estimators=2, max_depth=6, random_state=0, n_jobs=1),
        lightgbm.LGBMClassifier(n_estimators=2, random_state=0, verbose=-1, n_jobs=1),
    ):
        model = clone(backend).fit(features, y)
        adapter = backend_for(model)
        data = KleinData(np.ascontiguousarray(features.T), HT, layout.feat_x0, layout.feat_radius, adapter.rule)
        leaves = np.asarray(_leaves(type("M", (), {"estimator_": model})(), features)).reshape(len(X), -1)
        for t, job in enumerate(adapter.jobs(features, None)):
            ours = route_leaves(job.nodes, np.arange(len(X), dtype=np.int64), data)
            if hasattr(model, "booster_"):  # LightGBM numbers leaves after the internal nodes
                ours = ours - (len(job.left) - 1) // 2
            np.testing.assert_array_equal(ours, leaves[:, t])
            n_trees += 1
    assert n_trees == 2 + 2 * 4 + 2 * 4  # boosting: a tree per class (4) and round


def test_kernel_tuning_reads_the_module_s_current_values(monkeypatch):
    # Kernel constants reach the compiled code as a record built at each fit, not as
    # compiled-in globals that numba's cache would keep after an edit of _tuning.py.
    from curvedtrees.klein import _tuning

    monkeypatch.setattr(_tuning, "DENSE_ROWS", 123)
    monkeypatch.setattr(_tuning, "WALK_COST", 7)
    tuning = _tuning.kernel_tuning()
    assert tuning.dense_rows == 123 and isinstance(tuning.dense_rows, int)
    assert tuning.walk_cost == 7.0 and isinstance(tuning.walk_cost, float)
    for field in tuning._fields:
        assert hasattr(_tuning, field.upper()), field
