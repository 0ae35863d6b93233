"""JSON state of the product trees and forests (registered with :mod:`curvedtrees.io`)."""

from __future__ import annotations

import numpy as np

from ..io import MAX_ESTIMATORS, decode_array, decode_labels, encode_array, encode_labels, register
from ..manifolds import Signature
from ._classes import ProductDecisionTreeClassifier, ProductDecisionTreeRegressor
from ._features import SplitFeatures
from ._forest import ProductRandomForestClassifier, ProductRandomForestRegressor
from ._tree import Tree

_TREE_ARRAYS = {
    "children_left": ("int64", 1), "children_right": ("int64", 1), "feature": ("int64", 1),
    "threshold": ("float64", 1), "normal": ("float64", 2), "impurity": ("float64", 1),
    "n_node_samples": ("int64", 1), "weighted_n_node_samples": ("float64", 1), "value": ("float64", 2),
    "margin": ("float64", 1), "improvement": ("float64", 1),
}


def _dump_common(estimator) -> dict | None:
    if not hasattr(estimator, "signature_"):
        return None
    state = {
        "n_features_in": int(estimator.n_features_in_),
        "signature": str(estimator.signature_),
        "pairs": estimator.split_features_.pairs,
    }
    if hasattr(estimator, "classes_"):
        state["classes"] = encode_labels(estimator.classes_)
    return state


def _load_common(estimator, state: dict, where: str) -> None:
    if not isinstance(state.get("signature"), str):
        raise ValueError(f"{where}: 'signature' must be a string")
    try:
        signature = Signature.parse(state["signature"])
    except ValueError as exc:
        raise ValueError(f"{where}: {exc}") from None
    n_features_in = state.get("n_features_in")
    if n_features_in != signature.ambient_dim:
        raise ValueError(f"{where}: n_features_in must equal the signature's ambient_dim {signature.ambient_dim}")
    pairs = state.get("pairs")
    if pairs not in ("base", "all"):
        raise ValueError(f"{where}: 'pairs' must be 'base' or 'all'")
    estimator.signature_ = signature
    estimator.n_features_in_ = signature.ambient_dim
    estimator.split_features_ = SplitFeatures.from_signature(signature, pairs)
    if estimator._is_classifier:
        classes = decode_labels(state.get("classes"), f"{where}.classes")
        if classes.size == 0 or np.unique(classes).size != classes.size:
            raise ValueError(f"{where}: classes must be distinct and non-empty")
        estimator.classes_ = classes
        estimator.n_classes_ = classes.size


def _dump_tree(estimator) -> dict | None:
    state = _dump_common(estimator)
    if state is None:
        return None
    state["max_features"] = int(estimator.max_features_)
    state["tree"] = {name: encode_array(array) for name, array in estimator.tree_.to_arrays().items()}
    return state


def _load_tree(estimator, state: dict, where: str = "fitted") -> None:
    _load_common(estimator, state, where)
    max_features = state.get("max_features")
    if not isinstance(max_features, int) or not 1 <= max_features <= estimator.split_features_.n_features:
        raise ValueError(f"{where}: 'max_features' must be an integer in [1, {estimator.split_features_.n_features}]")
    estimator.max_features_ = max_features
    arrays = state.get("tree")
    if not isinstance(arrays, dict) or set(arrays) != set(_TREE_ARRAYS):
        raise ValueError(f"{where}.tree must hold exactly the arrays {sorted(_TREE_ARRAYS)}")
    decoded = {
        name: decode_array(arrays[name], f"{where}.tree.{name}", dtype, ndim)
        for name, (dtype, ndim) in _TREE_ARRAYS.items()
    }
    n_outputs = estimator.n_classes_ if estimator._is_classifier else 1
    try:
        estimator.tree_ = Tree(estimator.split_features_, decoded, n_outputs)
    except ValueError as exc:
        raise ValueError(f"{where}.tree: {exc}") from None


def _dump_forest(forest) -> dict | None:
    state = _dump_common(forest)
    if state is None:
        return None
    state["trees"] = [_dump_tree(tree) for tree in forest.estimators_]
    return state


def _load_forest(forest, state: dict) -> None:
    _load_common(forest, state, "fitted")
    trees = state.get("trees")
    if not isinstance(trees, list) or not 1 <= len(trees) <= MAX_ESTIMATORS:
        raise ValueError(f"fitted.trees must be a list of 1 to {MAX_ESTIMATORS} trees")
    estimators = []
    for k, tree_state in enumerate(trees):
        if not isinstance(tree_state, dict):
            raise ValueError(f"fitted.trees[{k}] must be an object")
        tree = forest._make_tree(None)
        _load_tree(tree, tree_state, f"fitted.trees[{k}]")
        if tree.signature_ != forest.signature_ or tree.split_features_.pairs != forest.split_features_.pairs:
            raise ValueError(f"fitted.trees[{k}] has a different signature or pairs than the forest")
        if forest._is_classifier and not np.array_equal(tree.classes_, forest.classes_):
            raise ValueError(f"fitted.trees[{k}] has different classes than the forest")
        estimators.append(tree)
    forest.estimators_ = estimators


for _cls in (ProductDecisionTreeClassifier, ProductDecisionTreeRegressor):
    register(_cls, _dump_tree, _load_tree)
for _cls in (ProductRandomForestClassifier, ProductRandomForestRegressor):
    register(_cls, _dump_forest, _load_forest)
