"""Decision trees and random forests on products of constant-curvature spaces.

The public names below are imported lazily, so ``import curvedtrees`` stays cheap
(the app and the command-line tools only pay for what they use). Type checkers do
not run ``__getattr__``: the ``TYPE_CHECKING`` block gives them the same names from
their submodules, so ``ct.ProductRandomForestClassifier`` is the real class to them.
"""

from importlib import import_module
from typing import TYPE_CHECKING

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

# A literal list (not computed) so that type checkers read it; tests/test_typing.py checks
# that it names what _EXPORTS and the TYPE_CHECKING imports name, and warm_up (defined below).
__all__ = [
    "AmbientClassifier",
    "AmbientRegressor",
    "GeodesicKNNClassifier",
    "GeodesicKNNRegressor",
    "KleinTreeClassifier",
    "KleinTreeRegressor",
    "ProductDecisionTreeClassifier",
    "ProductDecisionTreeRegressor",
    "ProductGradientBoostingClassifier",
    "ProductGradientBoostingRegressor",
    "ProductManifold",
    "ProductPerceptronClassifier",
    "ProductRandomForestClassifier",
    "ProductRandomForestRegressor",
    "ProductSVMClassifier",
    "ProductSVMRegressor",
    "Signature",
    "TangentClassifier",
    "TangentRegressor",
    "dumps",
    "list_datasets",
    "load_dataset",
    "loads",
    "make_classification",
    "make_regression",
    "warm_up",
]

if TYPE_CHECKING:
    # Never executed: the redundant aliases mark explicit re-exports for pyright and mypy.
    from .baselines import AmbientClassifier as AmbientClassifier
    from .baselines import AmbientRegressor as AmbientRegressor
    from .baselines import GeodesicKNNClassifier as GeodesicKNNClassifier
    from .baselines import GeodesicKNNRegressor as GeodesicKNNRegressor
    from .baselines import ProductPerceptronClassifier as ProductPerceptronClassifier
    from .baselines import ProductSVMClassifier as ProductSVMClassifier
    from .baselines import ProductSVMRegressor as ProductSVMRegressor
    from .baselines import TangentClassifier as TangentClassifier
    from .baselines import TangentRegressor as TangentRegressor
    from .boosting import ProductGradientBoostingClassifier as ProductGradientBoostingClassifier
    from .boosting import ProductGradientBoostingRegressor as ProductGradientBoostingRegressor
    from .datasets import list_datasets as list_datasets
    from .datasets import load_dataset as load_dataset
    from .io import dumps as dumps
    from .io import loads as loads
    from .klein import KleinTreeClassifier as KleinTreeClassifier
    from .klein import KleinTreeRegressor as KleinTreeRegressor
    from .manifolds import ProductManifold as ProductManifold
    from .manifolds import Signature as Signature
    from .sampling import make_classification as make_classification
    from .sampling import make_regression as make_regression
    from .trees import ProductDecisionTreeClassifier as ProductDecisionTreeClassifier
    from .trees import ProductDecisionTreeRegressor as ProductDecisionTreeRegressor
    from .trees import ProductRandomForestClassifier as ProductRandomForestClassifier
    from .trees import ProductRandomForestRegressor as ProductRandomForestRegressor


def __getattr__(name):
    try:
        module = _EXPORTS[name]
    except KeyError:
        raise AttributeError(f"module 'curvedtrees' has no attribute {name!r}") from None
    return getattr(import_module(module), name)


def __dir__():
    return sorted(set(globals()) | set(_EXPORTS))


def warm_up() -> None:
    """Compile the kernels that tree, forest and gradient-boosting fits and predictions use.

    numba compiles each kernel on its first call and caches it on disk, so the first fit
    after installing (or after the source changes) pays the compilation, 7-10 CPU-seconds
    for a tree, and later processes load the kernels in well under a second. A tree's
    builder is compiled once per task (gini, entropy, squared error; with or without
    radial splits; trees and forests), so this, which compiles every variant the
    estimators' defaults and the app use, takes about a minute of CPU. Call this
    once after installing, or at the start of a long-lived process (a server, a notebook's
    first cell) to pay it before the first fit; a fit that compiles logs a notice naming
    this function once. The Klein wrappers' kernels have their own
    ``curvedtrees.klein.warm_up``.

    Examples
    --------
    >>> import curvedtrees as ct
    >>> ct.warm_up()  # seconds at most once the kernels are cached
    """
    from .boosting import warm_up as warm_up_boosting
    from .trees import warm_up as warm_up_trees
    from .utils import quiet_compiles

    with quiet_compiles():
        warm_up_trees()
        warm_up_boosting()
