"""Decision trees and random forests on product manifolds.

Layers (one module each, as in scikit-learn's tree module):

* ``_features``: which coordinate planes a tree may cut, and the values it sorts;
* ``_margin``: the maximum-margin boundary of a chosen partition;
* ``_sort`` and ``_builder``: compiled split search, criteria and tree growth;
* ``_tree``: the fitted node arrays, routing and prediction;
* ``_classes`` and ``_forest``: the scikit-learn estimators;
* ``_export``: text descriptions of a fitted tree.
"""

from engine.trees import serialization as _serialization  # noqa: F401  (registers with engine.io)
from engine.trees._classes import ProductDecisionTreeClassifier, ProductDecisionTreeRegressor
from engine.trees._export import describe_split, export_text
from engine.trees._features import SplitFeatures
from engine.trees._forest import ProductRandomForestClassifier, ProductRandomForestRegressor
from engine.trees._tree import Tree

__all__ = [
    "ProductDecisionTreeClassifier",
    "ProductDecisionTreeRegressor",
    "ProductRandomForestClassifier",
    "ProductRandomForestRegressor",
    "SplitFeatures",
    "Tree",
    "describe_split",
    "export_text",
]
