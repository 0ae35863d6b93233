"""Decision trees and random forests on product manifolds.

Layers (one module each, as in scikit-learn's tree module):

* ``_features``: which coordinate planes a tree may cut, and the values it sorts;
* ``_margin``: the maximum-margin boundary of a chosen partition;
* ``_sort`` and ``_builder``: compiled split search, criteria and tree growth;
* ``_tree``: the fitted node arrays, routing and prediction;
* ``_classes`` and ``_forest``: the scikit-learn estimators;
* ``_views``: a fitted tree stopped after its first k splits (``first_splits``), and a bare
  tree as a fitted regressor (boosting's trees);
* ``_export``: text descriptions of a fitted tree.
"""

from ..utils import watch_compiles
from . import serialization as _serialization  # noqa: F401  (registers with curvedtrees.io)
from ._classes import ProductDecisionTreeClassifier, ProductDecisionTreeRegressor
from ._export import describe_split, export_text, radial_distance, radial_rule
from ._features import SplitFeatures, count_planes
from ._forest import ProductRandomForestClassifier, ProductRandomForestRegressor
from ._tree import Tree
from ._views import PrunedTree, first_splits, split_order

__all__ = [
    "ProductDecisionTreeClassifier",
    "ProductDecisionTreeRegressor",
    "ProductRandomForestClassifier",
    "ProductRandomForestRegressor",
    "PrunedTree",
    "SplitFeatures",
    "Tree",
    "count_planes",
    "describe_split",
    "export_text",
    "first_splits",
    "radial_distance",
    "radial_rule",
    "split_order",
]


def warm_up() -> None:
    """Compile the tree kernels once (numba caches them on disk for later processes).

    The first fit of each kind in a fresh checkout otherwise pays its compilation; ``make run``
    calls this before starting the app, and the app runs it again in a background
    thread when a server starts (``ui.warmup``), so a fit never times compilation.
    """
    import numpy as np

    from ..manifolds import ProductManifold
    from ..utils import quiet_compiles

    with quiet_compiles():
        signature = "H2 x S2 x E2"
        X = ProductManifold(signature).random_normal(64, random_state=0)
        y = np.arange(64) % 3
        # The builder compiles one variant per task (gini, entropy, squared error), with or
        # without radial splits (see curvedtrees.trees._builder); these are the ones the
        # estimators' defaults and the app use.
        for pairs in ("base", "all"):
            ProductDecisionTreeClassifier(signature=signature, pairs=pairs).fit(X, y).predict(X)
            ProductDecisionTreeClassifier(signature=signature, pairs=pairs, criterion="entropy").fit(X, y)
            ProductDecisionTreeRegressor(signature=signature, pairs=pairs).fit(X, y.astype(float)).predict(X)
        ProductDecisionTreeClassifier(signature=signature).fit(X, y).decision_path(X)
        ProductDecisionTreeClassifier(signature=signature, splits="geodesic+radial").fit(X, y)
        ProductDecisionTreeRegressor(signature=signature, splits="geodesic+radial").fit(X, y.astype(float))
        # Forests grow on int32 row ids (half the memory per tree): builders of their own;
        # their prediction routes every tree in one kernel (forest_accumulate).
        for splits in ("geodesic", "geodesic+radial"):
            ProductRandomForestClassifier(2, signature=signature, splits=splits, n_jobs=1).fit(X, y).predict_proba(X)
            ProductRandomForestRegressor(2, signature=signature, splits=splits, n_jobs=1).fit(X, y.astype(float))


watch_compiles()  # a fit that compiles says so once, naming curvedtrees.warm_up
