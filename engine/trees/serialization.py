"""JSON state of the product trees and forests (registered with :mod:`curvedtrees.io`).

Model files are untrusted. Besides the checks of :mod:`curvedtrees.io` (types, sizes)
and :class:`~curvedtrees.trees.Tree` (child ids, split-plane ids, finite boundaries:
the indices the compiled routing reads), loading checks what the tree's numbers mean:

* hyperparameters satisfy the estimators' ``_parameter_constraints`` (a forest's
  own ones too), so a loaded model can be refitted without surprises;
* ``n_jobs`` is a setting of the machine that runs the model, not model state: it is
  neither written nor read (a loaded forest gets the default, ``n_jobs=None``), so a
  file cannot start thousands of threads;
* node values are finite; a classifier's are class fractions (non-negative, each
  node's summing to 1); node statistics (impurity, weights, counts, impurity
  decreases, margins) are finite and non-negative where they are defined. Every
  refusal names the node;
* split normals agree with the boundary they describe: a linear split's is the unit
  normal of its threshold, ``(-t, 1) / hypot(t, 1)``, as the builder computes it (the
  Inspector divides by its second entry), a circular split's has length 1;
* what the model can output is bounded: a regression tree's largest leaf, a forest's
  sum of its trees' largest leaves, at most ``MAX_MODEL_OUTPUT``.
"""

from __future__ import annotations

from numbers import Integral

import numpy as np
from sklearn.base import is_classifier
from sklearn.utils._param_validation import Interval, RealNotInt, validate_parameter_constraints

from ..io import (
    MAX_ESTIMATORS,
    check_output_bound,
    decode_array,
    decode_classes,
    encode_array,
    encode_labels,
    register,
)
from ..manifolds import Signature
from ._classes import ProductDecisionTreeClassifier, ProductDecisionTreeRegressor
from ._features import SPLIT_MODES, SplitFeatures
from ._forest import ProductRandomForestClassifier, ProductRandomForestRegressor
from ._tree import Tree

# Parameters that describe the machine a model runs on, not the model: never stored,
# ignored when an older document has them (a file asking for 20,000 threads left them
# alive and made every predict take 17 s).
RUNTIME_PARAMS = ("n_jobs",)

# A forest's own parameters (the rest are its trees', checked by the tree class). The
# number of trees is bounded like the fitted list, so a refit cannot be asked for more.
_FOREST_CONSTRAINTS = {
    "n_estimators": [Interval(Integral, 1, MAX_ESTIMATORS, closed="both")],
    "bootstrap": ["boolean"],
    "max_samples": [None, Interval(Integral, 1, None, closed="left"), Interval(RealNotInt, 0.0, 1.0, closed="right")],
    "warm_start": ["boolean"],
}

# A node's class fractions sum to 1 up to the rounding of one division per class:
# far above n_classes * 2**-53, far below any real mistake.
_FRACTION_SUM_TOL = 1e-9
# A split normal is a unit vector computed in float64 (a hypot and two divisions, or a
# sine and a cosine): a few ulps off the exact one, far inside this tolerance.
_NORMAL_TOL = 1e-12

_TREE_ARRAYS = {
    "children_left": ("int64", 1),
    "children_right": ("int64", 1),
    "feature": ("int64", 1),
    "threshold": ("float64", 1),
    "normal": ("float64", 2),
    "impurity": ("float64", 1),
    "n_node_samples": ("int64", 1),
    "weighted_n_node_samples": ("float64", 1),
    "value": ("float64", 2),
    "margin": ("float64", 1),
    "improvement": ("float64", 1),
}


def _dump_params(estimator) -> dict:
    """Constructor parameters without the runtime settings (:data:`RUNTIME_PARAMS`)."""
    return {k: v for k, v in estimator.get_params(deep=False).items() if k not in RUNTIME_PARAMS}


def _params_loader(cls):
    """``load_params`` for ``cls``: drop runtime settings, validate the rest like ``fit`` does."""

    def load(params: dict) -> dict:
        params = {k: v for k, v in params.items() if k not in RUNTIME_PARAMS}
        estimator = cls(**params)
        if estimator.signature is not None:
            Signature.parse(estimator.signature)  # ValueError naming the malformed signature
        if hasattr(estimator, "n_estimators"):
            own = {k: getattr(estimator, k) for k in _FOREST_CONSTRAINTS}
            validate_parameter_constraints(_FOREST_CONSTRAINTS, own, caller_name=cls.__name__)
            if not estimator.bootstrap and estimator.max_samples is not None:
                raise ValueError(
                    "max_samples applies to bootstrap samples only: set bootstrap=True or max_samples=None"
                )
            estimator._make_tree(None)._validate_params()
        else:
            estimator._validate_params()
        return params

    return load


def _dump_common(estimator) -> dict | None:
    if not hasattr(estimator, "signature_"):
        return None
    state = {
        "n_features_in": int(estimator.n_features_in_),
        "signature": str(estimator.signature_),
        "pairs": estimator.split_features_.pairs,
    }
    # Written only for the radial variant, so a "geodesic" model's fitted state is what it
    # was before splits existed; a state without the field (every older file, whose
    # params lack "splits" too) loads as splits="geodesic".
    if estimator.split_features_.splits != "geodesic":
        state["splits"] = estimator.split_features_.splits
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
    splits = state.get("splits", "geodesic")
    if splits not in SPLIT_MODES:
        raise ValueError(f"{where}: 'splits' must be one of {list(SPLIT_MODES)} (absent means 'geodesic')")
    # Parameters may differ from the fitted planes (set_params after fit, as scikit-learn allows,
    # or a refused warm start): the model predicts with the fitted ones, as before it was saved.
    estimator.signature_ = signature
    estimator.n_features_in_ = signature.ambient_dim
    estimator.split_features_ = SplitFeatures.from_signature(signature, pairs, splits)
    if is_classifier(estimator):
        # In the int64 / float64 range, finite, distinct, at most MAX_MODEL_CLASSES.
        classes = decode_classes(state.get("classes"), f"{where}.classes")
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
    n_outputs = estimator.n_classes_ if is_classifier(estimator) else 1
    try:
        estimator.tree_ = Tree(estimator.split_features_, decoded, n_outputs)
        _check_node_numbers(estimator.tree_, is_classifier(estimator))
    except ValueError as exc:
        raise ValueError(f"{where}.tree: {exc}") from None
    if not is_classifier(estimator):
        check_output_bound(float(np.abs(estimator.tree_.value).max()), f"{where}.tree.value", "a node value")


def _first_bad(bad: np.ndarray) -> int:
    """Index of the first node flagged in a node mask (or in any column of a node table)."""
    return int(np.flatnonzero(bad.reshape(bad.shape[0], -1).any(axis=1))[0])


def _check_node_numbers(tree: Tree, classifier: bool) -> None:
    """Refuse node numbers that would turn into NaN or nonsense outputs, naming the node.

    Runs after :class:`Tree`'s structural checks, so child and split-plane ids are valid.
    """
    internal = tree.children_left != -1
    checks = [
        ("value", ~np.isfinite(tree.value), "is not finite"),
        ("impurity", ~(tree.impurity >= 0) | ~np.isfinite(tree.impurity), "must be finite and >= 0"),
        ("n_node_samples", tree.n_node_samples < 0, "must be >= 0"),
        (
            "weighted_n_node_samples",
            ~(tree.weighted_n_node_samples >= 0) | ~np.isfinite(tree.weighted_n_node_samples),
            "must be finite and >= 0",
        ),
        # Rounding can leave a kept split's decrease a hair below zero, so only finiteness
        # is required; importances normalise these, and one NaN or inf would spoil them all.
        ("improvement", ~np.isfinite(tree.improvement), "must be finite"),
        # Informational only (NaN at leaves); a negative distance is a tampered file.
        ("margin", internal & (tree.margin < 0), "must be >= 0 at a split"),
    ]
    if classifier:
        checks.append(("value", tree.value < 0, "holds a negative class fraction"))
    for name, bad, problem in checks:
        if np.any(bad):
            node = _first_bad(bad)
            shown = getattr(tree, name)[node]
            raise ValueError(f"node {node}: {name} {problem} (got {np.array2string(np.asarray(shown))})")
    # Bounding the sum of magnitudes bounds every partial sum of the importances.
    if not np.isfinite(np.abs(tree.improvement).sum()):
        raise ValueError("improvement: the impurity decreases sum beyond float64")
    check_split_normals(tree)
    if classifier:
        total = tree.value.sum(axis=1)
        bad = np.abs(total - 1.0) > _FRACTION_SUM_TOL
        if np.any(bad):
            node = _first_bad(bad)
            raise ValueError(f"node {node}: class fractions must sum to 1, got {total[node]!r}")


def check_split_normals(tree: Tree) -> None:
    """Refuse split normals that do not describe their split, naming the node.

    Routing reads a linear split's threshold and a circular split's normal; the
    Inspector and the pictures read the normal of every split (``-n_i / n_j`` is the
    boundary of a Euclidean threshold, so a normal of (0, 0) divides by zero there). A
    linear split's normal must be the builder's ``(-t, 1) / hypot(t, 1)`` of its
    threshold ``t``; a circular split's must have length 1.
    """
    linear = np.flatnonzero(tree.linear)
    t = tree.threshold[linear]
    scale = np.hypot(t, 1.0)
    expected = np.stack([-t / scale, 1.0 / scale], axis=1)
    bad = np.zeros(tree.node_count, dtype=bool)
    bad[linear] = ~(np.abs(tree.normal[linear] - expected) <= _NORMAL_TOL).all(axis=1)
    circular = np.flatnonzero((tree.children_left != -1) & ~tree.linear)
    length = np.hypot(tree.normal[circular, 0], tree.normal[circular, 1])
    bad[circular] = ~(np.abs(length - 1.0) <= _NORMAL_TOL)
    if np.any(bad):
        node = int(np.flatnonzero(bad)[0])
        shown = np.array2string(tree.normal[node])
        if tree.linear[node]:
            raise ValueError(
                f"node {node}: normal {shown} does not match the split's threshold "
                f"{float(tree.threshold[node])!r} (a linear split's normal is (-t, 1) / hypot(t, 1))"
            )
        raise ValueError(f"node {node}: normal {shown} of a circular split must have length 1")


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
        if (
            tree.signature_ != forest.signature_
            or tree.split_features_.pairs != forest.split_features_.pairs
            or tree.split_features_.splits != forest.split_features_.splits
        ):
            raise ValueError(f"fitted.trees[{k}] has a different signature, pairs or splits than the forest")
        if is_classifier(forest) and not np.array_equal(tree.classes_, forest.classes_):
            raise ValueError(f"fitted.trees[{k}] has different classes than the forest")
        estimators.append(tree)
    if not is_classifier(forest):
        # Predictions add the trees' leaf values up before dividing by their number: their
        # largest magnitudes must sum to a bounded float64, or a prediction would overflow
        # to inf (and NaN with signs mixed).
        bound = sum(float(np.abs(t.tree_.value).max()) for t in estimators)
        check_output_bound(bound, "fitted.trees", "the trees' leaf values are too large to average: their sum")
    forest.estimators_ = estimators


for _cls in (ProductDecisionTreeClassifier, ProductDecisionTreeRegressor):
    register(_cls, _dump_tree, _load_tree, _dump_params, _params_loader(_cls))
for _cls in (ProductRandomForestClassifier, ProductRandomForestRegressor):
    register(_cls, _dump_forest, _load_forest, _dump_params, _params_loader(_cls))
