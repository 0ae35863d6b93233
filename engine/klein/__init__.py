"""Klein-model wrappers: Euclidean tree libraries on hyperbolic x Euclidean data.

Public API
----------
KleinTreeClassifier, KleinTreeRegressor
    Meta-estimators (``estimator=`` a scikit-learn, XGBoost or LightGBM tree model)
    that fit on Klein features and move every threshold to its maximum-margin
    geodesic boundary.
klein_features
    The features themselves (``x_j / x_0`` for H, raw coordinates for E).
KleinCorrectionWarning
    The library did not record which rows trained each tree.
ESTIMATOR_NAMES, make_backend
    Library models by name (``"xgboost"``, ...).
to_json_dict, from_json_dict
    Whole JSON documents (the wrapped model's class and parameters included);
    ``engine.io.dumps`` / ``loads`` work too when ``estimator`` is None or a name.
"""

from engine.klein import serialization as _serialization  # noqa: F401  (registers with engine.io)
from engine.klein._backends import KleinCorrectionWarning
from engine.klein._estimators import ESTIMATOR_NAMES, KleinTreeClassifier, KleinTreeRegressor, make_backend
from engine.klein._features import INPUT_MODELS, klein_features
from engine.klein.serialization import LightGBMBoosterModel, from_json_dict, to_json_dict

__all__ = [
    "ESTIMATOR_NAMES",
    "INPUT_MODELS",
    "KleinCorrectionWarning",
    "KleinTreeClassifier",
    "KleinTreeRegressor",
    "LightGBMBoosterModel",
    "from_json_dict",
    "klein_features",
    "make_backend",
    "to_json_dict",
]
