"""Decision trees and random forests on products of constant-curvature spaces.

The public names below are imported lazily, so ``import engine`` stays cheap
(the app and the command-line tools only pay for what they use).
"""

from importlib import import_module

__version__ = "0.1.0"

_EXPORTS = {
    "Signature": "engine.manifolds",
    "ProductManifold": "engine.manifolds",
    "make_classification": "engine.sampling",
    "make_regression": "engine.sampling",
    "ProductDecisionTreeClassifier": "engine.trees",
    "ProductDecisionTreeRegressor": "engine.trees",
    "ProductRandomForestClassifier": "engine.trees",
    "ProductRandomForestRegressor": "engine.trees",
    "KleinTreeClassifier": "engine.klein",
    "KleinTreeRegressor": "engine.klein",
    "AmbientClassifier": "engine.baselines",
    "AmbientRegressor": "engine.baselines",
    "TangentClassifier": "engine.baselines",
    "TangentRegressor": "engine.baselines",
    "GeodesicKNNClassifier": "engine.baselines",
    "GeodesicKNNRegressor": "engine.baselines",
    "ProductPerceptronClassifier": "engine.baselines",
    "ProductSVMClassifier": "engine.baselines",
    "ProductSVMRegressor": "engine.baselines",
    "load_dataset": "engine.datasets",
    "list_datasets": "engine.datasets",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name):
    try:
        module = _EXPORTS[name]
    except KeyError:
        raise AttributeError(f"module 'engine' has no attribute {name!r}") from None
    return getattr(import_module(module), name)


def __dir__():
    return sorted(set(globals()) | set(_EXPORTS))
