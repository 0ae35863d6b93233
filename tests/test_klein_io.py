"""Klein wrappers saved as JSON (never pickle) and loaded back with identical predictions."""

import json
import re
import warnings

import numpy as np
import pytest
import sklearn
from curvedtrees import io
from curvedtrees.klein import (
    KleinCorrectionWarning,
    KleinTreeClassifier,
    KleinTreeRegressor,
    LightGBMBoosterModel,
    from_json_dict,
    to_json_dict,
)
from curvedtrees.manifolds import ProductManifold
from sklearn.ensemble import (
    ExtraTreesRegressor,
    GradientBoostingClassifier,
    GradientBoostingRegressor,
    HistGradientBoostingClassifier,
    HistGradientBoostingRegressor,
    RandomForestClassifier,
)
from sklearn.tree import DecisionTreeRegressor

xgboost = pytest.importorskip("xgboost")
lightgbm = pytest.importorskip("lightgbm")

SIG = "H2(-0.5) x E1"


@pytest.fixture(scope="module")
def data():
    X = ProductManifold(SIG).random_normal(300, std=1.3, random_state=0)
    y = np.array(["a", "b", "c"])[(X[:, 1] > 0).astype(int) + (X[:, 3] > 0.2)]
    return X, y, X[:, 1] * X[:, 3]


@pytest.mark.parametrize(
    "estimator",
    [
        None,
        "random_forest",
        "xgboost",
        "lightgbm",
        RandomForestClassifier(n_estimators=4, max_depth=5, random_state=1),
        xgboost.XGBClassifier(n_estimators=5, max_depth=3),
        lightgbm.LGBMClassifier(n_estimators=5, num_leaves=7, verbose=-1),
    ],
    ids=lambda e: e if isinstance(e, str) or e is None else type(e).__name__,
)
def test_classifier_round_trip(data, estimator):
    X, y, _ = data
    model = KleinTreeClassifier(estimator, signature=SIG, input_model="hyperboloid").fit(X, y)
    loaded = from_json_dict(json.loads(json.dumps(to_json_dict(model), allow_nan=False)))
    np.testing.assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))
    np.testing.assert_array_equal(loaded.predict(X), model.predict(X))
    assert loaded.n_thresholds_moved_ == model.n_thresholds_moved_
    for a, b in zip(loaded.margins_, model.margins_):
        np.testing.assert_array_equal(a, b)
    if estimator is None or isinstance(estimator, str):
        # curvedtrees.io documents store the parameters themselves: a name or None is enough.
        again = io.loads(io.dumps(model))
        np.testing.assert_array_equal(again.predict_proba(X), model.predict_proba(X))
    if "lgbm" in str(estimator).lower() or estimator == "lightgbm":
        assert isinstance(loaded.estimator_, LightGBMBoosterModel)


@pytest.mark.parametrize(
    "estimator",
    [
        DecisionTreeRegressor(max_depth=6, random_state=0),
        ExtraTreesRegressor(n_estimators=3, random_state=0),
        xgboost.XGBRegressor(n_estimators=5),
        lightgbm.LGBMRegressor(n_estimators=5, verbose=-1),
    ],
    ids=lambda e: type(e).__name__,
)
def test_regressor_round_trip(data, estimator):
    X, _, target = data
    model = KleinTreeRegressor(estimator, signature=SIG).fit(X, target)
    loaded = from_json_dict(to_json_dict(model))
    np.testing.assert_array_equal(loaded.predict(X), model.predict(X))


# --------------------------------------------- scikit-learn gradient boosting
def _boosting_predictions(model, X):
    out = [model.predict(X)]
    if hasattr(model, "predict_proba"):
        out += [model.predict_proba(X), model.decision_function(X)]
    staged = model.transform_features(X)
    out += list(model.estimator_.staged_predict(staged))
    return out


@pytest.fixture(scope="module")
def fresh():
    # Points the models never saw, spread wider than the training rows.
    return ProductManifold(SIG).random_normal(200, std=2.5, random_state=11)


@pytest.mark.parametrize(
    ("estimator", "n_classes"),
    [
        pytest.param(GradientBoostingClassifier(n_estimators=4, max_depth=2, random_state=0), 2, id="gb-binary"),
        pytest.param(GradientBoostingClassifier(n_estimators=4, max_depth=2, random_state=0), 3, id="gb-3-classes"),
        pytest.param(
            GradientBoostingClassifier(loss="exponential", n_estimators=4, subsample=0.7, random_state=0),
            2,
            id="gb-exponential-subsample",
        ),
        pytest.param(GradientBoostingClassifier(n_estimators=3, init="zero", random_state=0), 3, id="gb-init-zero"),
        pytest.param(HistGradientBoostingClassifier(max_iter=4, max_leaf_nodes=6), 2, id="hgb-binary"),
        pytest.param(HistGradientBoostingClassifier(max_iter=4, max_leaf_nodes=6), 3, id="hgb-3-classes"),
        pytest.param(
            HistGradientBoostingClassifier(
                max_iter=30, early_stopping=True, n_iter_no_change=2, validation_fraction=0.3, random_state=0
            ),
            3,
            id="hgb-early-stopping",
        ),
    ],
)
def test_boosting_classifier_round_trip_is_bit_exact(data, fresh, estimator, n_classes):
    X, y, _ = data
    labels = y if n_classes == 3 else np.where(y == "a", "a", "b")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", KleinCorrectionWarning)  # subsample / early stopping
        model = KleinTreeClassifier(estimator, signature=SIG).fit(X, labels)
    assert model.n_thresholds_moved_ > 0
    loaded = io.loads(io.dumps(model))
    assert type(loaded.estimator_) is type(model.estimator_)
    for Z in (X, fresh):
        for a, b in zip(_boosting_predictions(loaded, Z), _boosting_predictions(model, Z), strict=True):
            assert np.array_equal(a, b)
    assert loaded.predict_proba(fresh).shape == (len(fresh), n_classes)
    np.testing.assert_array_equal(loaded.estimator_.train_score_, model.estimator_.train_score_)


@pytest.mark.parametrize(
    "estimator",
    [
        *(
            GradientBoostingRegressor(loss=loss, n_estimators=4, random_state=0)
            for loss in ("squared_error", "absolute_error", "huber", "quantile")
        ),
        GradientBoostingRegressor(n_estimators=4, subsample=0.6, random_state=0),
        *(
            HistGradientBoostingRegressor(loss=loss, max_iter=4, quantile=0.3 if loss == "quantile" else None)
            for loss in ("squared_error", "absolute_error", "gamma", "poisson", "quantile")
        ),
    ],
    ids=lambda e: f"{type(e).__name__}-{e.loss}" + ("-subsample" if getattr(e, "subsample", 1.0) < 1 else ""),
)
def test_boosting_regressor_round_trip_is_bit_exact(data, fresh, estimator):
    X, _, target = data
    target = np.abs(target) + 0.1  # gamma and poisson need positive targets
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", KleinCorrectionWarning)
        model = KleinTreeRegressor(estimator, signature=SIG).fit(X, target)
    assert model.n_thresholds_moved_ > 0
    loaded = io.loads(io.dumps(model))
    for Z in (X, fresh):
        for a, b in zip(_boosting_predictions(loaded, Z), _boosting_predictions(model, Z), strict=True):
            assert np.array_equal(a, b)
    # The wrapper's corrected thresholds are what was stored, to the bit.
    if hasattr(model.estimator_, "_predictors"):
        before = [p.nodes["num_threshold"] for row in model.estimator_._predictors for p in row]
        after = [p.nodes["num_threshold"] for row in loaded.estimator_._predictors for p in row]
    else:
        before = [t.tree_.threshold for t in model.estimator_.estimators_.ravel()]
        after = [t.tree_.threshold for t in loaded.estimator_.estimators_.ravel()]
    assert all(np.array_equal(a, b) for a, b in zip(before, after, strict=True))


def test_boosting_by_name_round_trips_through_engine_io(data, fresh):
    # What the app trains: the estimator given by name, library defaults.
    X, y, _ = data
    for name in ("gradient_boosting", "hist_gradient_boosting"):
        model = KleinTreeClassifier(name, signature=SIG).fit(X, y)
        loaded = io.loads(io.dumps(model))
        assert loaded.estimator == name
        assert np.array_equal(loaded.predict_proba(fresh), model.predict_proba(fresh))


def _tampered(document, change):
    bad = json.loads(json.dumps(document))
    change(bad["fitted"]["backend"])
    return bad


def test_tampered_boosting_documents_are_rejected_naming_the_field(data):
    X, y, _ = data
    hist = to_json_dict(KleinTreeClassifier(HistGradientBoostingClassifier(max_iter=3), signature=SIG).fit(X, y))
    gb = to_json_dict(KleinTreeClassifier(GradientBoostingClassifier(n_estimators=3), signature=SIG).fit(X, y))

    def hist_nodes(backend):
        return backend["predictors"][1][2]["nodes"]

    cases = [
        (hist, lambda b: hist_nodes(b)["left"]["data"].__setitem__(0, 10**6), r"predictors\[1\]\[2\]: child index"),
        (hist, lambda b: hist_nodes(b)["num_threshold"]["data"].__setitem__(0, "nan"), r"num_threshold must be finite"),
        (hist, lambda b: hist_nodes(b)["feature_idx"]["data"].__setitem__(0, 3), r"nodes.feature_idx must be in"),
        (hist, lambda b: hist_nodes(b)["is_categorical"]["data"].__setitem__(0, 1), r"categorical splits"),
        (hist, lambda b: hist_nodes(b).pop("gain"), r"predictors\[1\]\[2\].nodes must hold exactly"),
        (hist, lambda b: b["predictors"][0].pop(), r"predictors\[0\] must be a list of 3 trees"),
        (hist, lambda b: b["baseline_prediction"].update(shape=[1, 1], data=[0.0]), r"baseline_prediction must be"),
        (hist, lambda b: b.pop("bin_mapper"), r"fitted.backend: expected an object with the keys"),
        (
            gb,
            lambda b: b["stages"][0][1]["nodes"]["threshold"]["data"].__setitem__(0, "nan"),
            r"stages\[0\]\[1\].nodes.threshold must be finite",
        ),
        (
            gb,
            lambda b: b["stages"][2][0]["nodes"]["right_child"]["data"].__setitem__(0, 0),
            r"stages\[2\]\[0\]: children",
        ),
        (gb, lambda b: b["init"]["class_prior"].update(shape=[2], data=[0.5, 0.5]), r"init.class_prior must be 3"),
        (gb, lambda b: b.__setitem__("max_features", 99), r"max_features must be an integer"),
        (gb, lambda b: b["train_score"].update(shape=[1], data=[1.0]), r"train_score must have one entry per stage"),
    ]
    for document, change, message in cases:
        with pytest.raises(ValueError, match=message):
            from_json_dict(_tampered(document, change))
    # Parameters are checked by scikit-learn's own validation, and the loss by the estimator.
    bad = json.loads(json.dumps(gb))
    bad["params"]["estimator"]["params"]["loss"] = "exponential"
    with pytest.raises(ValueError, match=r"cannot build the loss 'exponential'.*n_classes=3"):
        from_json_dict(bad)
    bad["params"]["estimator"]["params"]["subsample"] = "all"
    with pytest.raises(ValueError, match="The 'subsample' parameter"):
        from_json_dict(bad)


def test_changed_sklearn_internals_are_reported_with_the_version(data, monkeypatch):
    import sklearn.ensemble._hist_gradient_boosting.predictor as predictor

    X, y, _ = data
    model = KleinTreeClassifier(HistGradientBoostingClassifier(max_iter=3), signature=SIG).fit(X, y)
    document = to_json_dict(model)
    version = re.escape(f"scikit-learn {sklearn.__version__}")
    with monkeypatch.context() as patch:
        patch.delattr(predictor, "TreePredictor")
        with pytest.raises(ValueError, match=f"cannot rebuild HistGradientBoostingClassifier with {version}"):
            from_json_dict(document)
    document["fitted"]["backend"]["sklearn_version"] = "1.5.0"
    with monkeypatch.context() as patch:
        patch.delattr(predictor, "TreePredictor")
        with pytest.raises(ValueError, match=re.escape("saved with scikit-learn 1.5.0")):
            from_json_dict(document)
    with monkeypatch.context() as patch:
        patch.delattr(model.estimator_, "_bin_mapper")
        with pytest.raises(TypeError, match=f"cannot save HistGradientBoostingClassifier with {version}"):
            to_json_dict(model)
    assert np.array_equal(from_json_dict(to_json_dict(model)).predict(X), model.predict(X))


def test_categorical_hist_gradient_boosting_is_refused(data):
    X, y, _ = data
    coarse = X.copy()
    coarse[:, 3] = np.round(coarse[:, 3])  # the E1 coordinate (Klein feature 2) takes a few values
    categorical = HistGradientBoostingClassifier(max_iter=3, categorical_features=[2])
    model = KleinTreeClassifier(categorical, signature=SIG, max_margin=False).fit(coarse, y)
    with pytest.raises(TypeError, match="categorical features"):
        to_json_dict(model)
    plain = to_json_dict(KleinTreeClassifier(HistGradientBoostingClassifier(max_iter=3), signature=SIG).fit(X, y))
    plain["params"]["estimator"]["params"]["categorical_features"] = [2]
    with pytest.raises(ValueError, match="categorical_features=\\[2\\] cannot be loaded"):
        from_json_dict(plain)


def test_tampered_documents_are_rejected(data):
    X, y, _ = data
    document = to_json_dict(KleinTreeClassifier(signature=SIG).fit(X, y))
    nodes = document["fitted"]["backend"]["tree"]["nodes"]
    bad = json.loads(json.dumps(document))
    bad["fitted"]["backend"]["tree"]["nodes"]["left_child"]["data"][0] = 10**6
    with pytest.raises(ValueError, match=r"child index out of range|after their parent"):
        from_json_dict(bad)
    bad = json.loads(json.dumps(document))
    internal = [i for i, v in enumerate(nodes["left_child"]["data"]) if v != -1]
    bad["fitted"]["backend"]["tree"]["nodes"]["feature"]["data"][internal[0]] = 7
    with pytest.raises(ValueError, match="feature out of range"):
        from_json_dict(bad)
    bad = json.loads(json.dumps(document))
    bad["params"]["estimator"] = {"class": "os.system", "params": {}}
    with pytest.raises(ValueError, match="unsupported wrapped model"):
        from_json_dict(bad)
    bad = json.loads(json.dumps(document))
    bad["fitted"]["signature"] = "H2 x S2"
    with pytest.raises(ValueError, match="spherical"):
        from_json_dict(bad)
    xgb_doc = to_json_dict(KleinTreeClassifier(xgboost.XGBClassifier(n_estimators=3), signature=SIG).fit(X, y))
    xgb_doc["fitted"]["backend"]["model"] = "{not json"
    with pytest.raises(ValueError, match="not XGBoost JSON"):
        from_json_dict(xgb_doc)


def test_engine_io_saves_wrappers_of_estimator_objects(data):
    # curvedtrees.io (what the app uses) stores a wrapped estimator object through the
    # registered parameter hooks, not only estimator names.
    X, y, _ = data
    model = KleinTreeClassifier(RandomForestClassifier(n_estimators=3, max_depth=4, random_state=2), signature=SIG)
    model.fit(X, y)
    restored = io.loads(io.dumps(model))
    assert isinstance(restored.estimator, RandomForestClassifier)
    assert restored.estimator.get_params()["max_depth"] == 4
    np.testing.assert_array_equal(restored.predict_proba(X), model.predict_proba(X))


@pytest.mark.parametrize(
    ("estimator", "task"),
    [
        pytest.param(xgboost.XGBRFClassifier(n_estimators=3, max_depth=3), "3-classes", id="xgb-rf"),
        pytest.param(xgboost.XGBClassifier(n_estimators=3, booster="dart"), "binary", id="xgb-dart"),
        pytest.param(xgboost.XGBClassifier(n_estimators=3, objective="multi:softmax"), "3-classes", id="xgb-softmax"),
        *(
            pytest.param(xgboost.XGBRegressor(n_estimators=3, objective=o), "regression", id=o)
            for o in ("reg:gamma", "reg:squaredlogerror", "reg:absoluteerror", "reg:tweedie", "count:poisson")
        ),
        pytest.param(
            lightgbm.LGBMClassifier(
                n_estimators=3, boosting_type="rf", bagging_fraction=0.5, bagging_freq=1, verbose=-1
            ),
            "3-classes",
            id="lgb-rf",
        ),
        pytest.param(
            lightgbm.LGBMClassifier(n_estimators=3, boosting_type="dart", verbose=-1), "3-classes", id="lgb-dart"
        ),
        pytest.param(
            lightgbm.LGBMClassifier(n_estimators=3, objective="multiclassova", verbose=-1), "3-classes", id="lgb-ova"
        ),
        pytest.param(
            lightgbm.LGBMClassifier(n_estimators=3, monotone_constraints=[1, 0, -1], verbose=-1),
            "binary",
            id="lgb-monotone",
        ),
        *(
            pytest.param(lightgbm.LGBMRegressor(n_estimators=3, objective=o, verbose=-1), "regression", id=o)
            for o in ("quantile", "huber", "gamma", "tweedie")
        ),
        pytest.param(lightgbm.LGBMRegressor(n_estimators=3, reg_sqrt=True, verbose=-1), "regression", id="sqrt"),
    ],
)
def test_library_variants_pass_the_embedded_model_checks_bit_exact(data, fresh, estimator, task):
    # The checks re-emit XGBoost's and LightGBM's models from checked values: every
    # variant the wrapper can fit must come back unrefused and predict the same bits.
    X, y, target = data
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # subsampling warnings of the correction
        if task == "regression":
            model = KleinTreeRegressor(estimator, signature=SIG).fit(X, np.abs(target) + 0.1)
        else:
            model = KleinTreeClassifier(estimator, signature=SIG).fit(X, y if task == "3-classes" else y == "a")
    loaded = io.loads(io.dumps(model))
    for Z in (X, fresh):
        assert np.array_equal(loaded.predict(Z), model.predict(Z))
        if task != "regression":
            assert np.array_equal(loaded.predict_proba(Z), model.predict_proba(Z))
