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
"""

from engine.klein._backends import KleinCorrectionWarning
from engine.klein._estimators import ESTIMATOR_NAMES, KleinTreeClassifier, KleinTreeRegressor, make_backend
from engine.klein._features import INPUT_MODELS, klein_features

__all__ = [
    "ESTIMATOR_NAMES",
    "INPUT_MODELS",
    "KleinCorrectionWarning",
    "KleinTreeClassifier",
    "KleinTreeRegressor",
    "klein_features",
    "make_backend",
]
