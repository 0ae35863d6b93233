"""Decision trees and random forests on products of constant-curvature spaces.

The public names below are imported lazily, so ``import curvedtrees`` stays cheap
(the app and the command-line tools only pay for what they use).
"""

from importlib import import_module

__version__ = "0.1.0"

_EXPORTS = {
    "Signature": "curvedtrees.manifolds",
    "ProductManifold": "curvedtrees.manifolds",
    "make_classification": "curvedtrees.sampling",
    "make_regression": "curvedtrees.sampling",
    "ProductDecisionTreeClassifier": "curvedtrees.trees",
    "ProductDecisionTreeRegressor": "curvedtrees.trees",
    "ProductRandomForestClassifier": "curvedtrees.trees",
    "ProductRandomForestRegressor": "curvedtrees.trees",
    "ProductGradientBoostingClassifier": "curvedtrees.boosting",
    "ProductGradientBoostingRegressor": "curvedtrees.boosting",
    "KleinTreeClassifier": "curvedtrees.klein",
    "KleinTreeRegressor": "curvedtrees.klein",
    "AmbientClassifier": "curvedtrees.baselines",
    "AmbientRegressor": "curvedtrees.baselines",
    "TangentClassifier": "curvedtrees.baselines",
    "TangentRegressor": "curvedtrees.baselines",
    "GeodesicKNNClassifier": "curvedtrees.baselines",
    "GeodesicKNNRegressor": "curvedtrees.baselines",
    "ProductPerceptronClassifier": "curvedtrees.baselines",
    "ProductSVMClassifier": "curvedtrees.baselines",
    "ProductSVMRegressor": "curvedtrees.baselines",
    "dumps": "curvedtrees.io",
    "loads": "curvedtrees.io",
    "load_dataset": "curvedtrees.datasets",
    "list_datasets": "curvedtrees.datasets",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name):
    try:
        module = _EXPORTS[name]
    except KeyError:
        raise AttributeError(f"module 'curvedtrees' has no attribute {name!r}") from None
    return getattr(import_module(module), name)


def __dir__():
    return sorted(set(globals()) | set(_EXPORTS))
