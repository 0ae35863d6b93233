"""Klein wrappers saved as JSON (never pickle) and loaded back with identical predictions."""

import json

import numpy as np
import pytest
from sklearn.ensemble import ExtraTreesRegressor, GradientBoostingClassifier, RandomForestClassifier
from sklearn.tree import DecisionTreeRegressor

from engine import io
from engine.klein import KleinTreeClassifier, KleinTreeRegressor, LightGBMBoosterModel, from_json_dict, to_json_dict
from engine.manifolds import ProductManifold

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
        # engine.io documents store the parameters themselves: a name or None is enough.
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


def test_unsaveable_backends_say_why(data):
    X, y, _ = data
    model = KleinTreeClassifier(GradientBoostingClassifier(n_estimators=3), signature=SIG).fit(X, y)
    with pytest.raises(TypeError, match="cannot be saved"):
        to_json_dict(model)


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
    # engine.io (what the app uses) stores a wrapped estimator object through the
    # registered parameter hooks, not only estimator names.
    X, y, _ = data
    model = KleinTreeClassifier(RandomForestClassifier(n_estimators=3, max_depth=4, random_state=2), signature=SIG)
    model.fit(X, y)
    restored = io.loads(io.dumps(model))
    assert isinstance(restored.estimator, RandomForestClassifier)
    assert restored.estimator.get_params()["max_depth"] == 4
    np.testing.assert_array_equal(restored.predict_proba(X), model.predict_proba(X))
