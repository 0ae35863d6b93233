"""Structural validation of the tree models other libraries embed in Klein model files.

A Klein model file carries the wrapped library's own model: scikit-learn node arrays,
XGBoost's JSON model or LightGBM's text model. Those libraries' native loaders trust
their input: a cycle in XGBoost's ``left_children`` or a wrong tree number in
LightGBM's text crashes the process (segfault, abort) or makes ``predict`` loop
forever. So every embedded model is checked here *before* its library sees it:

* links: children in range, every child after its parent (so no cycle and no
  self-loop), every node but the root with exactly one parent (so every node is
  reached exactly once from the root);
* split features in ``[0, n_features)``; thresholds, leaf values and weights finite
  (float32-finite where the library stores float32); counts non-negative integers;
* sizes consistent: node counts, tree counts per iteration, ``num_leaves``,
  ``iteration_indptr``, ``tree_info``; classes and objective matching the wrapper;
* categorical splits, linear trees, multi-target trees, boosters other than gbtree and
  DART, and any key the checks do not know are refused with the reason, never passed
  through.

The XGBoost and LightGBM checks then *re-emit* a canonical model built from the
checked values only (:func:`canonical_xgboost`, :func:`canonical_lightgbm`); the
user's text itself never reaches the library.
"""

from __future__ import annotations

import json
import math
import re

import numpy as np

from ..io import check_output_bound
from ..limits import MAX_MODEL_OUTPUT

__all__ = [
    "canonical_lightgbm",
    "canonical_xgboost",
    "check_links",
    "check_sklearn_tree",
    "check_sklearn_values",
    "node_depths",
]

# Largest float32: XGBoost holds split conditions, leaf values and hessians as float32,
# so a float64 above it becomes infinity inside the library.
_FLOAT32_MAX = float(np.finfo(np.float32).max)
# A number as the libraries write it (no nan / inf, no Python-only forms such as "1_0").
_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")
_INTEGER = re.compile(r"[-+]?\d{1,19}")
_MAX_TREES = 100_000  # trees of one embedded model (10,000 iterations of up to 10 classes)
_MAX_LEAVES = 131_072  # LightGBM's own upper bound on num_leaves
# Children's sample weights add up to their parent's, up to the rounding of two sums
# taken in different orders (n rows: about n * 2**-53 relative); 1e-6 is far above that
# for any table that fits in memory and far below a tampered number.
_WEIGHT_SUM_RTOL = 1e-6
# The largest raw score whose exponential is finite: float64 (LightGBM, scikit-learn)
# and float32 (XGBoost) predictions of log-link objectives (Poisson, gamma, Tweedie)
# are exp(raw score); one unit below the overflow, so rounding cannot cross it.
LOG_LINK_MAX_RAW = math.log(np.finfo(np.float64).max) - 1.0
LOG_LINK_MAX_RAW_FLOAT32 = math.log(_FLOAT32_MAX) - 1.0


# ---------------------------------------------------------------- shared checks
def check_links(left: np.ndarray, right: np.ndarray, where: str) -> None:
    """Check that child arrays describe one binary tree rooted at node 0.

    Parameters
    ----------
    left, right : ndarray of shape (n_nodes,), int64
        Children of each node, ``-1`` at leaves.
    where : str
        Field path for the error message.

    Raises
    ------
    ValueError
        No nodes; a node with one child; a child out of ``[1, n_nodes)``; a child
        not after its parent (which rules out cycles and self-loops); a node with
        two parents or none (so every node is reached exactly once from the root).
    """
    n = len(left)
    if n == 0 or len(right) != n:
        raise ValueError(f"{where}: a tree needs at least one node and child arrays of equal length")
    internal = left != -1
    if np.any((left == -1) != (right == -1)):
        raise ValueError(f"{where}: every node needs either two children or none")
    children = np.concatenate([left[internal], right[internal]])
    if np.any(children < 0) or np.any(children >= n):
        raise ValueError(f"{where}: child index out of range [0, {n}) (or a negative child other than -1 for a leaf)")
    parents = np.concatenate([np.flatnonzero(internal)] * 2)
    # All three libraries number a child after its parent; requiring it makes every
    # path from the root strictly increasing, so a cycle or self-loop cannot pass.
    if np.any(children <= parents):
        raise ValueError(f"{where}: children must come after their parent (a cycle or self-loop otherwise)")
    # n - 1 distinct children, none of them the root: every other node has exactly one
    # parent, and (indices rising along each path) is reached from the root exactly once.
    if len(children) != n - 1 or len(np.unique(children)) != n - 1:
        raise ValueError(f"{where}: every node except the root needs exactly one parent")


def check_sklearn_values(values: np.ndarray, is_classifier: bool, leaves: np.ndarray, where: str) -> None:
    """Leaf and node values of a scikit-learn tree: finite; class weights non-negative with a positive sum.

    Parameters
    ----------
    values : ndarray of shape (n_nodes, 1, width)
    is_classifier : bool
    leaves : ndarray of shape (n_nodes,), bool
    where : str
    """
    if not np.all(np.isfinite(values)):
        raise ValueError(f"{where}.values must be finite (no nan or inf)")
    if is_classifier:
        if np.any(values < 0):
            raise ValueError(f"{where}.values must be non-negative class weights")
        # predict_proba divides each leaf's weights by their sum, which must be finite too
        # (two weights of 1e308 sum to inf, and inf / inf is NaN).
        with np.errstate(over="ignore"):
            sums = values[leaves].sum(axis=2)
        if np.any(sums <= 0) or not np.all(np.isfinite(sums)):
            raise ValueError(f"{where}.values must have a positive finite sum at every leaf")


def node_depths(left: np.ndarray, right: np.ndarray) -> np.ndarray:
    """Depth of every node of a tree that passed :func:`check_links` (the root has depth 0).

    Level by level from the root, one array operation per level: every node is reached
    exactly once (the links are checked), so this ends after ``max depth + 1`` levels.
    """
    depth = np.zeros(len(left), dtype=np.int64)
    level, d = np.array([0]), 0
    while level.size:
        level = level[left[level] != -1]
        level = np.concatenate([left[level], right[level]])
        d += 1
        depth[level] = d
    return depth


def check_sklearn_tree(
    arrays: dict, values: np.ndarray, max_depth, n_features: int, is_classifier: bool, where: str
) -> None:
    """Check every field of a scikit-learn ``Tree`` state that scikit-learn's compiled code trusts.

    ``sklearn.tree._tree.Tree`` (scikit-learn 1.5 to 1.10) reads, from its pickled state:

    ========================  =========================================  ==============================
    field                     read by                                    here
    ========================  =========================================  ==============================
    ``n_features``            feature indices, importances' length       checked by the caller (equal)
    ``n_classes``             ``value_stride``, ``predict_proba`` width  checked by the caller (equal
                                                                         to the wrapper's classes; 1)
    ``n_outputs``             every array's shape                        checked by the caller (1)
    ``max_depth``             ``decision_path``'s buffer                 checked: equal to the depth
                              (``n_rows * (1 + max_depth)`` entries)     recomputed from the children
    ``node_count``            every loop over nodes                      recomputed (array length)
    ``left/right_child``      every traversal                            checked: one tree, acyclic
    ``feature``               routing, importances                       checked at splits
    ``threshold``             routing                                    checked finite at splits
    ``impurity``              importances, pruning path                  checked finite
    ``n_node_samples``        display, pruning                           checked >= 0, children's sum
    ``weighted_n_node_``      importances (divides by the root's),       checked finite, > 0 at
    ``samples``               partial dependence (divides by each        splits, children's sum
                              split's), pruning                          (relative 1e-6)
    ``missing_go_to_left``    routing of NaN inputs                      not stored: 0 (inputs of the
                                                                         wrappers are validated finite)
    ``values``                predictions, ``predict_proba``             checked finite; class weights
                              (divides by each leaf's sum)               >= 0 with a finite positive sum
    ========================  =========================================  ==============================

    and, computed from them, the impurity decreases of the importances (``w impurity``
    of a node minus its children's): checked finite, also summed.

    Parameters
    ----------
    arrays : dict of ndarray
        ``left_child``, ``right_child``, ``feature``, ``n_node_samples`` (int64) and
        ``threshold``, ``impurity``, ``weighted_n_node_samples`` (float64), of equal length.
    values : ndarray of shape (n_nodes, 1, width)
    max_depth : object
        The stored ``max_depth`` (any JSON value: it must be the recomputed integer).
    n_features : int
    is_classifier : bool
    where : str

    Raises
    ------
    ValueError
        The first problem found, naming the field.
    """
    left, right, feature = arrays["left_child"], arrays["right_child"], arrays["feature"]
    check_links(left, right, where)
    internal = left != -1
    if np.any(feature[internal] < 0) or np.any(feature[internal] >= n_features):
        raise ValueError(f"{where}: split feature out of range [0, {n_features})")
    depth = int(node_depths(left, right).max())
    if not isinstance(max_depth, int) or isinstance(max_depth, bool) or max_depth != depth:
        raise ValueError(
            f"{where}: max_depth must be the tree's depth, {depth} (scikit-learn sizes decision_path's buffer by it), "
            f"got {max_depth!r}"
        )
    if not np.all(np.isfinite(arrays["threshold"][internal])):
        raise ValueError(f"{where}.nodes.threshold must be finite at every split node")
    impurity = arrays["impurity"]
    # Not required non-negative: scikit-learn's squared error is E[y^2] - E[y]^2, which
    # rounding can leave a hair below zero.
    if not np.all(np.isfinite(impurity)):
        raise ValueError(f"{where}.nodes.impurity must be finite")
    for name in ("n_node_samples", "weighted_n_node_samples"):
        if not np.all(np.isfinite(arrays[name])) or np.any(arrays[name] < 0):
            raise ValueError(f"{where}.nodes.{name} must be non-negative finite counts")
    counts, weights = arrays["n_node_samples"], arrays["weighted_n_node_samples"]
    parents = np.flatnonzero(internal)
    if np.any(counts[left[parents]] + counts[right[parents]] != counts[parents]):
        raise ValueError(f"{where}.nodes.n_node_samples: a split node's count must be its children's sum")
    if np.any(weights[parents] <= 0):
        raise ValueError(f"{where}.nodes.weighted_n_node_samples must be positive at every split node")
    children = weights[left[parents]] + weights[right[parents]]
    if np.any(np.abs(children - weights[parents]) > _WEIGHT_SUM_RTOL * weights[parents]):
        raise ValueError(f"{where}.nodes.weighted_n_node_samples: a split node's weight must be its children's sum")
    with np.errstate(over="ignore", invalid="ignore"):
        weighted = weights * impurity
        decrease = weighted[parents] - weighted[left[parents]] - weighted[right[parents]]
        total = np.abs(decrease).sum()
    if not np.all(np.isfinite(weighted)) or not np.isfinite(total):
        raise ValueError(f"{where}.nodes: weighted impurities overflow float64 (the feature importances would be NaN)")
    check_sklearn_values(values, is_classifier, ~internal, where)


def _float_list(obj, where: str, length: int | None = None, float32: bool = False) -> np.ndarray:
    if not isinstance(obj, list) or (length is not None and len(obj) != length):
        raise ValueError(f"{where} must be a list of {length if length is not None else 'some'} numbers")
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in obj):
        raise ValueError(f"{where} must hold numbers only")
    array = np.asarray(obj, dtype=np.float64)
    bound = _FLOAT32_MAX if float32 else math.inf
    if not np.all(np.abs(array) <= bound):  # also false for nan
        raise ValueError(f"{where} must be finite" + (" float32 numbers" if float32 else " numbers"))
    return array


def _int_list(obj, where: str, length: int | None, low: int, high: int) -> np.ndarray:
    if not isinstance(obj, list) or (length is not None and len(obj) != length):
        raise ValueError(f"{where} must be a list of {length if length is not None else 'some'} integers")
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in obj):
        raise ValueError(f"{where} must hold integers only")
    # Bounds first, on the Python integers: JSON integers have no size limit.
    if obj and (min(obj) < low or max(obj) > high):
        raise ValueError(f"{where} must hold integers in [{low}, {high}]")
    return np.asarray(obj, dtype=np.int64) if obj else np.zeros(0, dtype=np.int64)


def _int_text(value, where: str, low: int, high: int) -> int:
    if not isinstance(value, str) or not _INTEGER.fullmatch(value) or not low <= int(value) <= high:
        raise ValueError(f"{where} must be an integer in [{low}, {high}] (as text)")
    return int(value)


def _check_keys(obj, required, where: str, optional=()) -> None:
    if not isinstance(obj, dict):
        raise ValueError(f"{where} must be an object")
    missing = set(required) - set(obj)
    unknown = set(obj) - set(required) - set(optional)
    if missing or unknown:
        raise ValueError(
            f"{where}: expected the keys {sorted(required)}"
            + (f"; missing {sorted(missing)}" if missing else "")
            + (f"; not understood, so refused: {sorted(unknown)}" if unknown else "")
        )


def _classes_plan(is_classifier: bool, n_classes: int | None, where: str) -> int:
    """Outputs per iteration: the number of classes beyond two, else one."""
    if not is_classifier:
        return 1
    if not isinstance(n_classes, int) or n_classes < 2:
        raise ValueError(f"{where}: a classifier model needs at least two classes")
    return n_classes if n_classes > 2 else 1


# ---------------------------------------------------------------------- XGBoost
_XGB_CLASSIFIER_OBJECTIVES = ("binary:logistic", "binary:logitraw", "binary:hinge", "multi:softprob", "multi:softmax")
_XGB_REGRESSOR_OBJECTIVES = (
    "reg:squarederror",
    "reg:squaredlogerror",
    "reg:logistic",
    "reg:pseudohubererror",
    "reg:absoluteerror",
    "reg:quantileerror",
    "reg:gamma",
    "reg:tweedie",
    "count:poisson",
)
# The objectives' parameter groups (every value a number written as text).
_XGB_OBJECTIVE_GROUPS = (
    "reg_loss_param",
    "softmax_multiclass_param",
    "pseudo_huber_param",
    "quantile_loss_param",
    "tweedie_regression_param",
    "poisson_regression_param",
)
_XGB_TREE_KEYS = (
    "base_weights",
    "categories",
    "categories_nodes",
    "categories_segments",
    "categories_sizes",
    "default_left",
    "id",
    "left_children",
    "loss_changes",
    "parents",
    "right_children",
    "split_conditions",
    "split_indices",
    "split_type",
    "sum_hessian",
    "tree_param",
)
_XGB_PARAM_NAME = re.compile(r"[a-z_]{1,40}")
_XGB_PARAM_VALUE = re.compile(r"\[?" + _NUMBER.pattern + r"(?:," + _NUMBER.pattern + r")*\]?")
_XGB_ROOT_PARENT = 2147483647  # XGBoost's marker for the root's parent (int32 max)
_XGB_FEATURE_TYPES = ("float", "int", "i", "q")


def _xgb_number_text(value, where: str) -> list[float]:
    """A number or a bracketed list of numbers written as text (base_score, quantile_alpha)."""
    if not isinstance(value, str) or len(value) > 10_000 or not _XGB_PARAM_VALUE.fullmatch(value):
        raise ValueError(f"{where} must be a number or a list of numbers written as text")
    numbers = [float(v) for v in value.strip("[]").split(",")]
    if not all(abs(v) <= _FLOAT32_MAX for v in numbers):
        raise ValueError(f"{where} must be finite")
    return numbers


def _xgb_tree(tree, index: int, n_features: int, where: str) -> dict:
    """One XGBoost tree, every field checked or recomputed, as the canonical dict re-emitted.

    What XGBoost's ``LoadModel`` reads of a tree and what is done with it here:
    ``left_children`` / ``right_children`` (traversal: checked, one acyclic tree);
    ``parents`` (recomputed from the children); ``split_indices`` (checked in range at
    splits, 0 at leaves); ``split_conditions`` (the threshold at a split, the leaf value at a
    leaf: checked float32-finite; the leaves bounded with the other trees' by
    :func:`_xgb_output_bound`); ``default_left`` (checked 0 or 1); ``base_weights``,
    ``loss_changes``, ``sum_hessian`` (node weight, gain and cover, read by the importances
    and SHAP: checked float32-finite, cover non-negative); ``split_type`` and the four
    ``categories`` arrays (checked all zero / empty: categorical splits are refused);
    ``id`` (checked: the tree's position); ``tree_param`` (``num_nodes`` checked against
    the arrays, ``num_deleted`` 0, ``num_feature`` the wrapper's, ``size_leaf_vector`` 0
    or 1).
    """
    _check_keys(tree, _XGB_TREE_KEYS, where)
    param = tree["tree_param"]
    _check_keys(param, ("num_deleted", "num_feature", "num_nodes", "size_leaf_vector"), f"{where}.tree_param")
    n = _int_text(param["num_nodes"], f"{where}.tree_param.num_nodes", 1, 2**31 - 2)
    if _int_text(param["num_deleted"], f"{where}.tree_param.num_deleted", 0, n) != 0:
        raise ValueError(f"{where}.tree_param.num_deleted must be 0: trees with deleted nodes are refused")
    if _int_text(param["num_feature"], f"{where}.tree_param.num_feature", 0, 2**31 - 1) != n_features:
        raise ValueError(f"{where}.tree_param.num_feature must be {n_features}")
    if param["size_leaf_vector"] not in ("0", "1"):
        raise ValueError(f"{where}.tree_param.size_leaf_vector must be 0 or 1: multi-target trees are refused")
    if tree["id"] != index or isinstance(tree["id"], bool):
        raise ValueError(f"{where}.id must be {index}")
    for key in ("categories", "categories_nodes", "categories_segments", "categories_sizes"):
        if tree[key] != []:
            raise ValueError(f"{where}.{key} must be empty: categorical splits are refused (use numeric features)")
    left = _int_list(tree["left_children"], f"{where}.left_children", n, -(2**31), 2**31 - 1)
    right = _int_list(tree["right_children"], f"{where}.right_children", n, -(2**31), 2**31 - 1)
    check_links(left, right, where)
    leaf = left == -1
    split_type = _int_list(tree["split_type"], f"{where}.split_type", n, -(2**31), 2**31 - 1)
    if np.any(split_type != 0):
        raise ValueError(f"{where}.split_type must be 0 everywhere: categorical splits are refused")
    feature = _int_list(tree["split_indices"], f"{where}.split_indices", n, -(2**31), 2**31 - 1)
    if np.any(feature[~leaf] < 0) or np.any(feature[~leaf] >= n_features):
        raise ValueError(f"{where}.split_indices: split feature out of range [0, {n_features})")
    default_left = _int_list(tree["default_left"], f"{where}.default_left", n, 0, 1)
    conditions = _float_list(tree["split_conditions"], f"{where}.split_conditions", n, float32=True)
    weights = _float_list(tree["base_weights"], f"{where}.base_weights", n, float32=True)
    gains = _float_list(tree["loss_changes"], f"{where}.loss_changes", n, float32=True)
    hessian = _float_list(tree["sum_hessian"], f"{where}.sum_hessian", n, float32=True)
    if np.any(hessian < 0):
        raise ValueError(f"{where}.sum_hessian must be non-negative")
    _int_list(tree["parents"], f"{where}.parents", n, -(2**31), 2**31 - 1)  # recomputed below, checked for shape
    parents = np.full(n, _XGB_ROOT_PARENT, dtype=np.int64)
    internal = np.flatnonzero(~leaf)
    parents[left[internal]] = internal
    parents[right[internal]] = internal
    return {
        "base_weights": weights.tolist(),
        "categories": [],
        "categories_nodes": [],
        "categories_segments": [],
        "categories_sizes": [],
        "default_left": default_left.tolist(),
        "id": index,
        "left_children": left.tolist(),
        "loss_changes": gains.tolist(),
        "parents": parents.tolist(),
        "right_children": right.tolist(),
        "split_conditions": conditions.tolist(),
        "split_indices": np.where(leaf, 0, feature).tolist(),
        "split_type": [0] * n,
        "sum_hessian": hessian.tolist(),
        "tree_param": {
            "num_deleted": "0",
            "num_feature": str(n_features),
            "num_nodes": str(n),
            "size_leaf_vector": param["size_leaf_vector"],
        },
    }


# How XGBoost turns base_score into the first raw score (its ProbToMargin): the logit
# for logistic objectives, the log for log-link ones, unchanged for the others.
_XGB_LOGIT_BASE = ("binary:logistic", "reg:logistic")
_XGB_LOG_BASE = ("count:poisson", "reg:gamma", "reg:tweedie")


def _xgb_output_bound(trees, info, weight_drop, base_score, objective, groups, where) -> None:
    """Refuse an XGBoost model whose raw scores could overflow float32 (or its exp, for log links).

    XGBoost adds, in float32, the base margin and one leaf (``split_conditions`` of a leaf
    node) of every tree of an output, each tree's scaled by its DART ``weight_drop``.
    """
    base = np.asarray(base_score, dtype=np.float64)
    if objective in _XGB_LOGIT_BASE:
        if not np.all((base > 0) & (base < 1)):
            raise ValueError(f"{where}.learner_model_param.base_score must be a probability in (0, 1) for {objective}")
        base = np.log(base / (1.0 - base))
    elif objective in _XGB_LOG_BASE:
        if not np.all(base > 0):
            raise ValueError(f"{where}.learner_model_param.base_score must be positive for {objective}")
        base = np.log(base)
    leaves = np.array(
        [max(abs(v) for v, child in zip(t["split_conditions"], t["left_children"]) if child == -1) for t in trees]
    )
    if weight_drop is not None:
        leaves = leaves * np.abs(weight_drop)
    per_output = np.bincount(info, weights=leaves, minlength=groups)
    bound = float(np.max(np.abs(base)) + per_output.max())
    # Half of float32's maximum: partial sums are rounded to float32 at every tree.
    check_output_bound(
        bound,
        f"{where}.gradient_booster",
        "the base margin plus every tree's largest leaf",
        min(MAX_MODEL_OUTPUT, _FLOAT32_MAX / 2),
    )
    if objective in _XGB_LOG_BASE:
        check_output_bound(
            bound,
            f"{where}.gradient_booster",
            f"the raw score of {objective} (predicted as its exp)",
            LOG_LINK_MAX_RAW_FLOAT32,
        )


def _xgb_objective(objective, is_classifier: bool, groups: int, where: str) -> dict:
    names = _XGB_CLASSIFIER_OBJECTIVES if is_classifier else _XGB_REGRESSOR_OBJECTIVES
    if not isinstance(objective, dict) or objective.get("name") not in names:
        kind = "classifier" if is_classifier else "regressor"
        raise ValueError(f"{where}.name must be one of the {kind} objectives {list(names)}")
    name = objective["name"]
    if name.startswith("multi:") != (groups > 1):
        raise ValueError(f"{where}.name {name!r} does not fit a model with {groups} outputs per iteration")
    _check_keys(objective, ("name",), where, optional=_XGB_OBJECTIVE_GROUPS)
    out = {"name": name}
    for group in (g for g in _XGB_OBJECTIVE_GROUPS if g in objective):
        params = objective[group]
        if not isinstance(params, dict) or len(params) > 20:
            raise ValueError(f"{where}.{group} must be an object of a few parameters")
        for key, value in params.items():
            if not _XGB_PARAM_NAME.fullmatch(key):
                raise ValueError(f"{where}.{group}: parameter name {key!r} not understood")
            _xgb_number_text(value, f"{where}.{group}.{key}")
        if group == "softmax_multiclass_param" and params.get("num_class") != str(groups):
            raise ValueError(f"{where}.{group}.num_class must be {groups}")
        out[group] = dict(params)
    if name.startswith("multi:") and "softmax_multiclass_param" not in out:
        raise ValueError(f"{where}.softmax_multiclass_param is missing")
    return out


def canonical_xgboost(text: str, n_features: int, is_classifier: bool, n_classes: int | None, where: str) -> str:
    """Check an XGBoost JSON model and rebuild it from the checked values.

    Parameters
    ----------
    text : str
        XGBoost's JSON model (``save_model`` to a ``.json`` file).
    n_features : int
        Klein features the wrapper feeds the model.
    is_classifier : bool
    n_classes : int or None
        Classes of the wrapper (``None`` for a regressor).
    where : str
        Field path for error messages.

    Returns
    -------
    str
        A JSON model holding only checked values, for ``load_model``.

    Raises
    ------
    ValueError
        The first problem found, naming the field.
    """
    try:
        model = json.loads(text, parse_constant=_refuse_constant)
    except ValueError as exc:
        raise ValueError(f"{where} is not XGBoost JSON: {exc}") from None
    except RecursionError:  # the parser's own guard, not a message for a user
        raise ValueError(f"{where} is not XGBoost JSON: it nests far deeper than an XGBoost model does") from None
    _check_keys(model, ("learner", "version"), where)
    version = _int_list(model["version"], f"{where}.version", 3, 0, 999)
    if version[0] < 1:
        raise ValueError(f"{where}.version must be 1.0.0 or later")
    learner = model["learner"]
    w = f"{where}.learner"
    _check_keys(
        learner,
        ("attributes", "gradient_booster", "learner_model_param", "objective"),
        w,
        optional=("feature_names", "feature_types"),
    )
    groups = _classes_plan(is_classifier, n_classes, w)

    params = learner["learner_model_param"]
    _check_keys(
        params,
        ("base_score", "boost_from_average", "num_class", "num_feature", "num_target"),
        f"{w}.learner_model_param",
    )
    num_class = _int_text(params["num_class"], f"{w}.learner_model_param.num_class", 0, 10**6)
    if num_class != (groups if groups > 1 else 0):
        raise ValueError(
            f"{w}.learner_model_param.num_class must be {groups if groups > 1 else 0}"
            f" for a {'classifier of ' + str(n_classes) + ' classes' if is_classifier else 'regressor'}"
        )
    if _int_text(params["num_feature"], f"{w}.learner_model_param.num_feature", 0, 2**31 - 1) != n_features:
        raise ValueError(f"{w}.learner_model_param.num_feature must be {n_features}")
    if params["num_target"] != "1":
        raise ValueError(f"{w}.learner_model_param.num_target must be 1: multi-target models are refused")
    if params["boost_from_average"] not in ("0", "1"):
        raise ValueError(f"{w}.learner_model_param.boost_from_average must be 0 or 1")
    base_score = _xgb_number_text(params["base_score"], f"{w}.learner_model_param.base_score")
    if len(base_score) not in (1, groups):
        raise ValueError(f"{w}.learner_model_param.base_score must hold 1 or {groups} numbers")

    objective = _xgb_objective(learner["objective"], is_classifier, groups, f"{w}.objective")

    booster = learner["gradient_booster"]
    g = f"{w}.gradient_booster"
    if not isinstance(booster, dict) or booster.get("name") not in ("gbtree", "dart"):
        raise ValueError(f"{g}.name must be 'gbtree' or 'dart' (other boosters are refused)")
    dart = booster["name"] == "dart"
    if dart:  # DART wraps a gbtree booster and adds one weight per tree
        _check_keys(booster, ("gbtree", "name", "weight_drop"), g)
        inner = booster["gbtree"]
        g = f"{g}.gbtree"
        if not isinstance(inner, dict) or inner.get("name") != "gbtree":
            raise ValueError(f"{g}.name must be 'gbtree'")
    else:
        inner = booster
    _check_keys(inner, ("model", "name"), g)
    body = inner["model"]
    b = f"{g}.model"
    _check_keys(body, ("gbtree_model_param", "iteration_indptr", "tree_info", "trees"), b, optional=("cats",))
    trees_in = body["trees"]
    if not isinstance(trees_in, list) or not 1 <= len(trees_in) <= _MAX_TREES:
        raise ValueError(f"{b}.trees must be a list of 1 to {_MAX_TREES} trees")
    n_trees = len(trees_in)
    tree_param = body["gbtree_model_param"]
    _check_keys(tree_param, ("num_parallel_tree", "num_trees"), f"{b}.gbtree_model_param")
    if _int_text(tree_param["num_trees"], f"{b}.gbtree_model_param.num_trees", 1, _MAX_TREES) != n_trees:
        raise ValueError(f"{b}.gbtree_model_param.num_trees must equal the number of trees ({n_trees})")
    parallel = _int_text(tree_param["num_parallel_tree"], f"{b}.gbtree_model_param.num_parallel_tree", 1, n_trees)
    per_iteration = parallel * groups
    if n_trees % per_iteration:
        raise ValueError(f"{b}.trees: {n_trees} trees are not whole iterations of {per_iteration}")
    n_iterations = n_trees // per_iteration
    indptr = _int_list(body["iteration_indptr"], f"{b}.iteration_indptr", n_iterations + 1, 0, n_trees)
    if not np.array_equal(indptr, np.arange(n_iterations + 1) * per_iteration):
        raise ValueError(f"{b}.iteration_indptr must step by {per_iteration} trees from 0 to {n_trees}")
    info = _int_list(body["tree_info"], f"{b}.tree_info", n_trees, 0, groups - 1)
    counts = np.zeros((n_iterations, groups), dtype=np.int64)
    np.add.at(counts, (np.arange(n_trees) // per_iteration, info), 1)
    if np.any(counts != parallel):
        raise ValueError(f"{b}.tree_info must give each output {parallel} tree(s) per iteration")
    cats = body.get("cats")
    if cats is not None and (not isinstance(cats, dict) or len(cats) > 10 or any(v != [] for v in cats.values())):
        raise ValueError(f"{b}.cats must be empty: categorical features are refused")
    trees = [_xgb_tree(t, i, n_features, f"{b}.trees[{i}]") for i, t in enumerate(trees_in)]
    weight_drop = None
    if dart:
        weight_drop = _float_list(booster["weight_drop"], f"{w}.gradient_booster.weight_drop", n_trees, float32=True)
    _xgb_output_bound(trees, info, weight_drop, base_score, objective["name"], groups, w)

    attributes = learner["attributes"]
    _check_keys(attributes, (), f"{w}.attributes", optional=("scikit_learn", "best_iteration", "best_score"))
    clean_attributes = {}
    if "scikit_learn" in attributes:
        try:
            meta = json.loads(attributes["scikit_learn"]) if isinstance(attributes["scikit_learn"], str) else None
        except (ValueError, RecursionError):
            meta = None
        kind = "classifier" if is_classifier else "regressor"
        if meta != {"_estimator_type": kind}:
            raise ValueError(f'{w}.attributes.scikit_learn must be {{"_estimator_type": "{kind}"}}')
        clean_attributes["scikit_learn"] = json.dumps(meta)
    if "best_iteration" in attributes:
        best = _int_text(attributes["best_iteration"], f"{w}.attributes.best_iteration", 0, n_iterations - 1)
        clean_attributes["best_iteration"] = str(best)
    if "best_score" in attributes:
        _xgb_number_text(attributes["best_score"], f"{w}.attributes.best_score")
        clean_attributes["best_score"] = attributes["best_score"]

    gbtree = {
        "model": {
            "gbtree_model_param": {"num_parallel_tree": str(parallel), "num_trees": str(n_trees)},
            "iteration_indptr": indptr.tolist(),
            "tree_info": info.tolist(),
            "trees": trees,
            **({"cats": {k: [] for k in cats}} if cats is not None else {}),
        },
        "name": "gbtree",
    }
    if dart:
        gbtree = {"gbtree": gbtree, "name": "dart", "weight_drop": weight_drop.tolist()}
    out_learner = {
        "attributes": clean_attributes,
        "gradient_booster": gbtree,
        "learner_model_param": {key: params[key] for key in sorted(params)},
        "objective": objective,
    }
    for key in ("feature_names", "feature_types"):
        if key in learner:
            values = learner[key]
            if not isinstance(values, list) or len(values) not in (0, n_features):
                raise ValueError(f"{w}.{key} must be empty or list {n_features} names")
            allowed = (
                (lambda v: v in _XGB_FEATURE_TYPES)
                if key == "feature_types"
                else (lambda v: isinstance(v, str) and 0 < len(v) <= 256)
            )
            if not all(allowed(v) for v in values):
                raise ValueError(
                    f"{w}.{key}: "
                    + (
                        "only numeric feature types are accepted"
                        if key == "feature_types"
                        else "names must be non-empty strings of at most 256 characters"
                    )
                )
            out_learner[key] = list(values)
    return json.dumps({"learner": out_learner, "version": version.tolist()}, allow_nan=False)


def _refuse_constant(name):
    raise ValueError(f"the non-standard JSON constant {name}")


# --------------------------------------------------------------------- LightGBM
_LGB_CLASSIFIER_OBJECTIVES = ("binary", "multiclass", "multiclassova")
_LGB_REGRESSOR_OBJECTIVES = (
    "regression",
    "regression_l1",
    "huber",
    "fair",
    "poisson",
    "quantile",
    "mape",
    "gamma",
    "tweedie",
    "cross_entropy",
    "cross_entropy_lambda",
)
# Numbers of at most 40 digits (LightGBM writes 17 significant digits) and 18-digit integers.
_LGB_NUMBER = r"-?(?:\d{1,40}(?:\.\d{0,40})?|\.\d{1,40})(?:[eE][-+]?\d{1,4})?"
_LGB_FLOAT_LINE = re.compile(rf"(?:{_LGB_NUMBER}(?: {_LGB_NUMBER})*)?")
_LGB_INT_LINE = re.compile(r"(?:-?\d{1,18}(?: -?\d{1,18})*)?")
_LGB_TOKEN = re.compile(r"([a-z_]{1,40}):(" + _NUMBER.pattern + ")")
_LGB_FEATURE_NAME = re.compile(r"\S{1,256}")
_LGB_INFO = re.compile(r"\[(" + _NUMBER.pattern + "):(" + _NUMBER.pattern + r")\]")
_LGB_HEADER_REQUIRED = (
    "version",
    "num_class",
    "num_tree_per_iteration",
    "label_index",
    "max_feature_idx",
    "objective",
    "feature_names",
    "feature_infos",
)
_LGB_HEADER_OPTIONAL = ("tree_sizes", "monotone_constraints", "average_output")
# decision_type bits: 1 categorical (refused), 2 default left, 4 and 8 the missing-value type (0 none, 1 zero, 2 nan).
_LGB_DECISION_TYPES = frozenset({0, 2, 4, 6, 8, 10})
_LGB_TREE_KEYS = (
    "num_leaves",
    "num_cat",
    "split_feature",
    "split_gain",
    "threshold",
    "decision_type",
    "left_child",
    "right_child",
    "leaf_value",
    "leaf_weight",
    "leaf_count",
    "internal_value",
    "internal_weight",
    "internal_count",
    "is_linear",
    "shrinkage",
)


def _lgb_floats(text: str, where: str, lengths) -> np.ndarray:
    # One match of the whole line (C speed) rules out nan, inf and any other spelling;
    # the count and the float64 range are checked after.
    if not _LGB_FLOAT_LINE.fullmatch(text):
        raise ValueError(f"{where} must hold plain finite numbers separated by single spaces (no nan or inf)")
    array = np.array(text.split(" ") if text else [], dtype=np.float64)
    if len(array) not in lengths:
        raise ValueError(f"{where} must hold {' or '.join(str(n) for n in sorted(set(lengths)))} numbers")
    if not np.all(np.isfinite(array)):  # 1e999 is spelled like a number
        raise ValueError(f"{where} must be finite")
    return array


def _lgb_ints(text: str, where: str, lengths, low: int, high: int) -> np.ndarray:
    if not _LGB_INT_LINE.fullmatch(text):
        raise ValueError(f"{where} must hold integers separated by single spaces")
    array = np.array(text.split(" ") if text else [], dtype=np.int64)  # at most 19 digits: no overflow
    if len(array) not in lengths:
        raise ValueError(f"{where} must hold {' or '.join(str(n) for n in sorted(set(lengths)))} integers")
    if array.size and (array.min() < low or array.max() > high):
        raise ValueError(f"{where} must hold integers in [{low}, {high}]")
    return array


def _lgb_pairs(lines: list[str], where: str) -> dict[str, str]:
    pairs: dict[str, str] = {}
    for line in lines:
        key, sep, value = line.partition("=")
        if not sep and key == "average_output":
            value = ""
        elif not sep:
            raise ValueError(f"{where}: line {line[:60]!r} not understood, so refused")
        if key in pairs:
            raise ValueError(f"{where}: {key} given twice")
        pairs[key] = value
    return pairs


def _ints_text(array: np.ndarray) -> str:
    return " ".join(str(int(v)) for v in array)


def _lgb_tree(lines: list[str], index: int, n_features: int, where: str) -> tuple[str, float]:
    """One checked tree as canonical text, and its largest leaf magnitude.

    What LightGBM's text parser reads of a tree and what is done with it here: ``Tree=``
    (checked: the tree's position); ``num_leaves`` (checked in [1, 131,072]: it sizes
    every other array); ``num_cat`` and ``is_linear`` (checked 0: categorical and linear
    trees are refused); ``split_feature`` (checked in range), ``threshold``, ``split_gain``
    (checked finite), ``decision_type`` (checked: numeric splits only), ``left_child`` /
    ``right_child`` (checked: one acyclic tree over internal nodes and leaves),
    ``leaf_value`` (checked finite; bounded with the other trees' by the caller),
    ``leaf_weight``, ``leaf_count``, ``internal_value``, ``internal_weight``,
    ``internal_count`` (checked counts and finite numbers), ``shrinkage`` (checked finite;
    informative: the leaves hold it already). ``tree_sizes`` in the header, which the
    parser reads trees by, is recomputed from the re-emitted text.
    """
    fields = _lgb_pairs(lines, where)
    _check_keys(fields, _LGB_TREE_KEYS, where)
    (num_leaves,) = _lgb_ints(fields["num_leaves"], f"{where}.num_leaves", (1,), 1, _MAX_LEAVES)
    if fields["num_cat"] != "0":
        raise ValueError(f"{where}.num_cat must be 0: categorical splits are refused (use numeric features)")
    if fields["is_linear"] != "0":
        raise ValueError(f"{where}.is_linear must be 0: linear trees are refused")
    n_int = num_leaves - 1
    _lgb_ints(fields["split_feature"], f"{where}.split_feature", (n_int,), 0, n_features - 1)
    _lgb_floats(fields["split_gain"], f"{where}.split_gain", (n_int,))
    _lgb_floats(fields["threshold"], f"{where}.threshold", (n_int,))
    decision = _lgb_ints(fields["decision_type"], f"{where}.decision_type", (n_int,), 0, 127)
    if not set(decision.tolist()) <= _LGB_DECISION_TYPES:
        raise ValueError(f"{where}.decision_type must be numeric splits (0, 2, 4, 6, 8 or 10): categorical refused")
    left = _lgb_ints(fields["left_child"], f"{where}.left_child", (n_int,), -num_leaves, max(n_int - 1, 0))
    right = _lgb_ints(fields["right_child"], f"{where}.right_child", (n_int,), -num_leaves, max(n_int - 1, 0))

    # One numbering for the link check: internal nodes 0 .. n_int - 1, then leaf j as n_int + j
    # (LightGBM writes leaf j as the child ~j = -j - 1).
    def unified(child):
        return np.where(child >= 0, child, n_int + ~child)

    links_left = np.full(n_int + num_leaves, -1, dtype=np.int64)
    links_right = links_left.copy()
    links_left[:n_int] = unified(left)
    links_right[:n_int] = unified(right)
    check_links(links_left, links_right, where)
    leaf_values = _lgb_floats(fields["leaf_value"], f"{where}.leaf_value", (num_leaves,))
    # A tree of one leaf is written without its leaf weight.
    lengths = (num_leaves, 0) if n_int == 0 else (num_leaves,)
    _lgb_floats(fields["leaf_weight"], f"{where}.leaf_weight", lengths)
    _lgb_ints(fields["leaf_count"], f"{where}.leaf_count", (num_leaves,), 0, 2**62)
    _lgb_floats(fields["internal_value"], f"{where}.internal_value", (n_int,))
    _lgb_floats(fields["internal_weight"], f"{where}.internal_weight", (n_int,))
    _lgb_ints(fields["internal_count"], f"{where}.internal_count", (n_int,), 0, 2**62)
    (shrinkage,) = _lgb_floats(fields["shrinkage"], f"{where}.shrinkage", (1,))
    # Every array line below has matched the strict number grammar and passed its checks
    # (count, range, finite), so its checked text is written back: the same float64
    # values, hence bit-exact predictions, without reformatting some 300,000 numbers.
    arrays = [f"{key}={fields[key]}" for key in _LGB_TREE_KEYS[2:14]]
    return (
        "\n".join(
            [
                f"Tree={index}",
                f"num_leaves={num_leaves}",
                "num_cat=0",
                *arrays,
                "is_linear=0",
                f"shrinkage={float(shrinkage)!r}",
            ]
        )
        + "\n\n\n",
        float(np.abs(leaf_values).max()),
    )


def _lgb_objective(text: str, is_classifier: bool, groups: int, where: str) -> str:
    name, *tokens = text.split(" ")
    allowed = _LGB_CLASSIFIER_OBJECTIVES if is_classifier else _LGB_REGRESSOR_OBJECTIVES
    if name not in allowed:
        raise ValueError(f"{where} must be one of {list(allowed)}, got {name[:40]!r}")
    if (name != "binary") != (groups > 1) and is_classifier:
        raise ValueError(f"{where}: {name!r} does not fit a model of {groups} outputs per iteration")
    clean = [name]
    for token in tokens:
        match = _LGB_TOKEN.fullmatch(token)
        if token == "sqrt" and not is_classifier:
            clean.append(token)
            continue
        if match is None or not math.isfinite(float(match.group(2))):
            raise ValueError(f"{where}: {token[:40]!r} not understood, so refused")
        if match.group(1) == "num_class" and match.group(2) != str(groups):
            raise ValueError(f"{where}: num_class must be {groups}")
        clean.append(token)
    if name.startswith("multiclass") and f"num_class:{groups}" not in clean:
        raise ValueError(f"{where}: num_class:{groups} missing")
    return " ".join(clean)


def canonical_lightgbm(text: str, n_features: int, is_classifier: bool, n_classes: int | None, where: str) -> str:
    """Check a LightGBM text model and rebuild it from the checked values.

    Parameters
    ----------
    text : str
        LightGBM's text model (``Booster.model_to_string``).
    n_features, is_classifier, n_classes, where
        As for :func:`canonical_xgboost`.

    Returns
    -------
    str
        A text model holding only checked values (header, trees with recomputed
        ``tree_sizes``; no feature importances or training parameters, which
        prediction does not read).

    Raises
    ------
    ValueError
        The first problem found, naming the field.
    """
    groups = _classes_plan(is_classifier, n_classes, where)
    head, sep, tail = text.partition("\nend of trees\n")
    if not sep or "\nend of trees\n" in tail:
        raise ValueError(f"{where}: a LightGBM text model has one 'end of trees' line")
    _lgb_tail(tail, where)
    blocks = re.split(r"\n(?=Tree=)", head)
    header_lines = [line for line in blocks[0].split("\n") if line.strip()]
    if not header_lines or header_lines[0] != "tree":
        raise ValueError(f"{where}: a LightGBM text model starts with the line 'tree'")
    header = _lgb_pairs(header_lines[1:], f"{where} header")
    _check_keys(header, _LGB_HEADER_REQUIRED, f"{where} header", optional=_LGB_HEADER_OPTIONAL)
    if header["version"] not in ("v3", "v4"):
        raise ValueError(f"{where}: version must be v3 or v4")
    num_class = _lgb_ints(header["num_class"], f"{where}.num_class", (1,), 1, 10**6)[0]
    per_iteration = _lgb_ints(header["num_tree_per_iteration"], f"{where}.num_tree_per_iteration", (1,), 1, 10**6)[0]
    if num_class != groups or per_iteration != groups:
        raise ValueError(f"{where}: num_class and num_tree_per_iteration must be {groups}")
    if header["label_index"] != "0":
        raise ValueError(f"{where}.label_index must be 0")
    if _lgb_ints(header["max_feature_idx"], f"{where}.max_feature_idx", (1,), 0, 2**31 - 1)[0] != n_features - 1:
        raise ValueError(f"{where}.max_feature_idx must be {n_features - 1} (the model has {n_features} features)")
    objective = _lgb_objective(header["objective"], is_classifier, groups, f"{where}.objective")
    names = header["feature_names"].split(" ")
    if len(names) != n_features or not all(_LGB_FEATURE_NAME.fullmatch(v) for v in names):
        raise ValueError(f"{where}.feature_names must be {n_features} names without spaces")
    infos = header["feature_infos"].split(" ")
    if len(infos) != n_features:
        raise ValueError(f"{where}.feature_infos must describe {n_features} features")
    for info in infos:
        match = _LGB_INFO.fullmatch(info)
        if info != "none" and (match is None or not all(math.isfinite(float(v)) for v in match.groups())):
            raise ValueError(f"{where}.feature_infos: {info[:60]!r} not understood (categorical features are refused)")
    extra = []
    if "monotone_constraints" in header:
        constraints = _lgb_ints(header["monotone_constraints"], f"{where}.monotone_constraints", (n_features,), -1, 1)
        extra.append(f"monotone_constraints={_ints_text(constraints)}")
    if "average_output" in header:
        if header["average_output"]:
            raise ValueError(f"{where}: average_output takes no value")
        extra.append("average_output")
    tree_blocks = blocks[1:]
    if not 1 <= len(tree_blocks) <= _MAX_TREES or len(tree_blocks) % per_iteration:
        raise ValueError(f"{where}: the model must hold whole iterations of {per_iteration} tree(s), 1 to {_MAX_TREES}")
    if "tree_sizes" in header:
        _lgb_ints(header["tree_sizes"], f"{where}.tree_sizes", (len(tree_blocks),), 1, 2**40)  # recomputed below
    trees = []
    for i, block in enumerate(tree_blocks):
        lines = [line for line in block.split("\n") if line]
        if not lines or lines[0] != f"Tree={i}":
            raise ValueError(f"{where}: tree {i} must start with the line 'Tree={i}'")
        trees.append(_lgb_tree(lines[1:], i, n_features, f"{where}.Tree={i}"))
    # A raw score adds one leaf of every tree of its class (leaf values hold the shrinkage
    # and, in the first trees, the initial score); average_output divides the sum.
    largest = np.array([leaf for _, leaf in trees])
    bound = float(np.bincount(np.arange(len(trees)) % per_iteration, weights=largest).max())
    check_output_bound(bound, where, "the sum of the trees' largest leaf values")
    name = objective.split(" ")[0]
    if name in ("poisson", "gamma", "tweedie"):
        check_output_bound(bound, where, f"the raw score of {name} (predicted as its exp)", LOG_LINK_MAX_RAW)
    trees = [text for text, _ in trees]
    lines = [
        "tree",
        f"version={header['version']}",
        f"num_class={groups}",
        f"num_tree_per_iteration={groups}",
        "label_index=0",
        f"max_feature_idx={n_features - 1}",
        f"objective={objective}",
        *extra,
        "feature_names=" + " ".join(f"Column_{j}" for j in range(n_features)),
        "feature_infos=" + " ".join(infos),
        # LightGBM reads tree i from these byte counts, so they are recomputed from the trees written.
        "tree_sizes=" + " ".join(str(len(t.encode("utf-8"))) for t in trees),
    ]
    return "\n".join(lines) + "\n\n" + "".join(trees) + "end of trees\n\npandas_categorical:null\n"


def _lgb_tail(tail: str, where: str) -> None:
    """What follows the trees is dropped, but only if understood: importances, parameters, no pandas categories."""
    section = None
    for line in tail.split("\n"):
        if not line:
            continue
        if line in ("feature_importances:", "parameters:"):
            section = line
        elif line == "end of parameters":
            section = None
        elif line.startswith("pandas_categorical:"):
            if line not in ("pandas_categorical:null", "pandas_categorical:[]"):
                raise ValueError(f"{where}: pandas categorical features are refused")
            section = "done"
        elif section == "feature_importances:" and re.fullmatch(r"\S{1,256}=\d{1,19}", line):
            continue
        elif section == "parameters:" and line.startswith("[") and line.endswith("]"):
            continue
        else:
            raise ValueError(f"{where}: line {line[:60]!r} after the trees not understood, so refused")
