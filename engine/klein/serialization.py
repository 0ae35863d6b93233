"""JSON state of the Klein wrappers, without pickle (registered with :mod:`engine.io`).

What is stored for the wrapped model:

* scikit-learn DecisionTree / ExtraTree and RandomForest / ExtraTrees: every tree's
  node arrays (children, feature, threshold, impurity, counts) and leaf values, which
  rebuild ``sklearn.tree._tree.Tree`` objects through their own state protocol after
  structural checks (children in range and after their parent, every internal node
  with two children, features in range), so a crafted file cannot make the compiled
  tree code read out of bounds;
* XGBoost: the model in XGBoost's own JSON format (``save_model`` / ``load_model``);
* LightGBM: the model in LightGBM's own text format; after loading, the wrapped model
  is a :class:`LightGBMBoosterModel` (a ``lightgbm.Booster`` with the predict
  methods the wrapper needs), because LightGBM's scikit-learn classes have no public
  way to load a model.

GradientBoosting and HistGradientBoosting keep part of their fitted state in private
objects (loss, initial estimator, binning), so wrappers around them are refused with
a ``TypeError`` that says so.

:func:`to_json_dict` / :func:`from_json_dict` give the whole document (parameters
included, with the wrapped model's class and parameters); :func:`engine.io.dumps`
stores ``params`` itself and therefore needs ``estimator`` to be ``None`` or a name
such as ``"xgboost"``.
"""

from __future__ import annotations

import json
import math
import os
import tempfile

import numpy as np

from engine.io import (
    MAX_ESTIMATORS,
    decode_array,
    decode_labels,
    dumps,
    encode_array,
    encode_labels,
    loads,
    register,
)
from engine.klein._estimators import ESTIMATOR_NAMES, KleinTreeClassifier, KleinTreeRegressor
from engine.manifolds import Signature

__all__ = ["LightGBMBoosterModel", "dump_tree_model", "from_json_dict", "load_tree_model", "to_json_dict"]

_SKLEARN_TREES = {
    "DecisionTreeClassifier": ("sklearn.tree", "tree"),
    "DecisionTreeRegressor": ("sklearn.tree", "tree"),
    "ExtraTreeClassifier": ("sklearn.tree", "tree"),
    "ExtraTreeRegressor": ("sklearn.tree", "tree"),
    "RandomForestClassifier": ("sklearn.ensemble", "forest"),
    "RandomForestRegressor": ("sklearn.ensemble", "forest"),
    "ExtraTreesClassifier": ("sklearn.ensemble", "forest"),
    "ExtraTreesRegressor": ("sklearn.ensemble", "forest"),
}
_XGBOOST = ("XGBClassifier", "XGBRegressor", "XGBRFClassifier", "XGBRFRegressor")
_LIGHTGBM = ("LGBMClassifier", "LGBMRegressor")
_NODE_INT = ("left_child", "right_child", "feature", "n_node_samples")
_NODE_FLOAT = ("threshold", "impurity", "weighted_n_node_samples")
_MAX_TEXT = 150_000_000  # characters of an embedded XGBoost / LightGBM model


# ---------------------------------------------------------------- parameter values
def _encode_value(value, where):
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        value = float(value)
        # JSON has no NaN / infinity (XGBoost's missing=nan): spell them as tagged strings.
        return value if math.isfinite(value) else {"float": repr(value)}
    if isinstance(value, (list, tuple)):
        return [_encode_value(v, where) for v in value]
    if isinstance(value, dict) and all(isinstance(k, str) for k in value):
        return {"dict": {k: _encode_value(v, f"{where}.{k}") for k, v in value.items()}}
    raise TypeError(f"{where}={value!r} cannot be stored in JSON (use plain numbers, strings and an int random_state)")


def _decode_value(value, where):
    if value is None or isinstance(value, (bool, str, int, float)):
        return value
    if isinstance(value, list):
        return [_decode_value(v, where) for v in value]
    if isinstance(value, dict) and set(value) == {"float"} and value["float"] in ("nan", "inf", "-inf"):
        return float(value["float"])
    if isinstance(value, dict) and set(value) == {"dict"} and isinstance(value["dict"], dict):
        return {str(k): _decode_value(v, f"{where}.{k}") for k, v in value["dict"].items()}
    raise ValueError(f"{where}: unsupported parameter value {value!r}")


def _backend_class(name: str):
    if name in _SKLEARN_TREES:
        module = __import__(_SKLEARN_TREES[name][0], fromlist=[name])
        return getattr(module, name)
    if name in _XGBOOST:
        import xgboost

        return getattr(xgboost, name)
    if name in _LIGHTGBM:
        import lightgbm

        return getattr(lightgbm, name)
    supported = ", ".join([*_SKLEARN_TREES, *_XGBOOST, *_LIGHTGBM])
    raise ValueError(f"unsupported wrapped model {name!r}; serialisable: {supported}")


def _dump_spec(estimator) -> dict | str | None:
    """The ``estimator`` parameter: None, a name, or a class name with its parameters."""
    if estimator is None or isinstance(estimator, str):
        return estimator
    name = type(estimator).__name__
    if name in ("GradientBoostingClassifier", "GradientBoostingRegressor") or name.startswith("HistGradientBoosting"):
        raise TypeError(
            f"a Klein wrapper around {name} cannot be saved: scikit-learn keeps its loss, initial model and binning "
            "in private objects. Use XGBoost or LightGBM for boosting that can be saved, or refit"
        )
    _backend_class(name)  # allow-list check
    params = estimator.get_params(deep=False)
    return {"class": name, "params": {k: _encode_value(v, f"estimator.{k}") for k, v in params.items()}}


def _load_spec(spec, where="params.estimator"):
    if spec is None:
        return None
    if isinstance(spec, str):
        if spec not in ESTIMATOR_NAMES:
            raise ValueError(f"{where}: unknown estimator name {spec!r}")
        return spec
    if not isinstance(spec, dict) or set(spec) != {"class", "params"} or not isinstance(spec["params"], dict):
        raise ValueError(f"{where}: expected null, a name, or an object with keys class and params")
    cls = _backend_class(spec["class"])
    known = set(cls().get_params(deep=False))
    unknown = set(spec["params"]) - known
    # LightGBM's estimators take any LightGBM parameter as a keyword (verbose, ...).
    if unknown and spec["class"] not in _LIGHTGBM:
        raise ValueError(f"{where}: unknown parameters for {spec['class']}: {sorted(unknown)}")
    params = {k: _decode_value(v, f"{where}.{k}") for k, v in spec["params"].items()}
    try:
        return cls(**params)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{where}: invalid parameters for {spec['class']}: {exc}") from None


# ------------------------------------------------------------ scikit-learn trees
def _dump_sklearn_tree(tree) -> dict:
    t = tree.tree_
    state = t.__getstate__()
    nodes = state["nodes"]
    out = {
        "n_features": int(t.n_features),
        "n_outputs": int(t.n_outputs),
        "n_classes": [int(c) for c in np.atleast_1d(t.n_classes)],
        "max_depth": int(state["max_depth"]),
        "max_features": int(tree.max_features_),
        "nodes": {name: encode_array(np.asarray(nodes[name])) for name in (*_NODE_INT, *_NODE_FLOAT)},
        "values": encode_array(np.asarray(state["values"], dtype=np.float64)),
        "params": {k: _encode_value(v, f"tree.{k}") for k, v in tree.get_params(deep=False).items()},
    }
    return out


def _check_tree_structure(left, right, feature, n_features, where):
    n = len(left)
    if n == 0:
        raise ValueError(f"{where}: a tree needs at least one node")
    internal = left != -1
    if np.any((left == -1) != (right == -1)):
        raise ValueError(f"{where}: every node needs either two children or none")
    ids = np.arange(n)
    if np.any(left[internal] <= ids[internal]) or np.any(right[internal] <= ids[internal]):
        raise ValueError(f"{where}: children must come after their parent")
    if np.any(left[internal] >= n) or np.any(right[internal] >= n):
        raise ValueError(f"{where}: child index out of range")
    children = np.concatenate([left[internal], right[internal]])
    if len(np.unique(children)) != len(children) or len(children) != n - 1:
        raise ValueError(f"{where}: every node except the root needs exactly one parent")
    if np.any(feature[internal] < 0) or np.any(feature[internal] >= n_features):
        raise ValueError(f"{where}: split feature out of range [0, {n_features})")


def _load_sklearn_tree(cls, state, is_classifier, n_features, where):
    from sklearn.tree._tree import NODE_DTYPE, Tree

    if not isinstance(state, dict):
        raise ValueError(f"{where}: expected an object")
    if state.get("n_features") != n_features:
        raise ValueError(f"{where}: n_features must be {n_features}")
    n_outputs = state.get("n_outputs")
    n_classes = state.get("n_classes")
    max_depth = state.get("max_depth")
    max_features = state.get("max_features")
    if n_outputs != 1 or not isinstance(n_classes, list) or len(n_classes) != 1:
        raise ValueError(f"{where}: single-output trees only")
    counts = [*n_classes, max_features]
    if not all(isinstance(v, int) and not isinstance(v, bool) and v >= 1 for v in counts):
        raise ValueError(f"{where}: n_classes and max_features must be positive integers")
    if not isinstance(max_depth, int) or isinstance(max_depth, bool) or max_depth < 0:
        raise ValueError(f"{where}: max_depth must be a non-negative integer")
    nodes_in = state.get("nodes")
    if not isinstance(nodes_in, dict) or set(nodes_in) != {*_NODE_INT, *_NODE_FLOAT}:
        raise ValueError(f"{where}.nodes must hold exactly {sorted({*_NODE_INT, *_NODE_FLOAT})}")
    arrays = {name: decode_array(nodes_in[name], f"{where}.nodes.{name}", "int64", 1) for name in _NODE_INT}
    arrays.update({name: decode_array(nodes_in[name], f"{where}.nodes.{name}", "float64", 1) for name in _NODE_FLOAT})
    n_nodes = len(arrays["left_child"])
    if any(len(a) != n_nodes for a in arrays.values()):
        raise ValueError(f"{where}: node arrays must have equal lengths")
    _check_tree_structure(arrays["left_child"], arrays["right_child"], arrays["feature"], n_features, where)
    width = n_classes[0] if is_classifier else 1
    values = decode_array(state.get("values"), f"{where}.values", "float64", 3)
    if values.shape != (n_nodes, 1, width):
        raise ValueError(f"{where}.values must have shape {(n_nodes, 1, width)}")
    nodes = np.zeros(n_nodes, dtype=NODE_DTYPE)
    for name, array in arrays.items():
        nodes[name] = array
    tree = Tree(n_features, np.asarray(n_classes, dtype=np.intp), 1)
    tree.__setstate__({"max_depth": max_depth, "node_count": n_nodes, "nodes": nodes, "values": values})
    params = state.get("params")
    if not isinstance(params, dict):
        raise ValueError(f"{where}.params must be an object")
    known = set(cls().get_params(deep=False))
    if set(params) - known:
        raise ValueError(f"{where}.params: unknown parameters {sorted(set(params) - known)}")
    estimator = cls(**{k: _decode_value(v, f"{where}.params.{k}") for k, v in params.items()})
    estimator.tree_ = tree
    estimator.n_features_in_ = n_features
    estimator.n_outputs_ = 1
    estimator.max_features_ = max_features
    if is_classifier:
        estimator.classes_ = np.arange(n_classes[0])
        estimator.n_classes_ = n_classes[0]
    return estimator


# ---------------------------------------------------------------------- LightGBM
class LightGBMBoosterModel:
    """A loaded LightGBM model: ``predict`` / ``predict_proba`` on a ``lightgbm.Booster``.

    Stands in for ``LGBMClassifier`` / ``LGBMRegressor`` after loading (their fitted
    state is private); predictions are identical.

    Parameters
    ----------
    booster : lightgbm.Booster
    n_classes : int or None
        Number of classes for a classifier (labels ``0 .. n_classes - 1``); ``None`` for a regressor.
    """

    def __init__(self, booster, n_classes=None):
        self.booster_ = booster
        self.n_classes_ = n_classes
        self.n_features_in_ = booster.num_feature()

    def predict_proba(self, X):
        raw = np.asarray(self.booster_.predict(X))
        return np.column_stack([1.0 - raw, raw]) if raw.ndim == 1 else raw

    def predict(self, X):
        if self.n_classes_ is None:
            return np.asarray(self.booster_.predict(X))
        return np.argmax(self.predict_proba(X), axis=1)

    @property
    def feature_importances_(self):
        return self.booster_.feature_importance(importance_type="split")


# -------------------------------------------------------------------- fitted state
def dump_tree_model(estimator) -> dict:
    """JSON state of a fitted tree model (scikit-learn trees and forests, XGBoost, LightGBM)."""
    name = type(estimator).__name__
    if name in _SKLEARN_TREES:
        if _SKLEARN_TREES[name][1] == "tree":
            return {"kind": "sklearn_tree", "tree": _dump_sklearn_tree(estimator)}
        return {"kind": "sklearn_forest", "trees": [_dump_sklearn_tree(t) for t in estimator.estimators_]}
    if name in _XGBOOST:
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "model.json")
            estimator.save_model(path)
            with open(path, encoding="utf-8") as handle:
                return {"kind": "xgboost", "model": handle.read()}
    if name in _LIGHTGBM or isinstance(estimator, LightGBMBoosterModel):
        booster = estimator.booster_
        return {"kind": "lightgbm", "model": booster.model_to_string()}
    raise TypeError(f"cannot save a model wrapping {name}")


def load_tree_model(state, template, is_classifier, n_features, n_classes, where="fitted.backend"):
    """Rebuild a model saved by :func:`dump_tree_model` into ``template`` (an unfitted model of the same class)."""
    if not isinstance(state, dict):
        raise ValueError(f"{where}: expected an object")
    kind = state.get("kind")
    if kind == "sklearn_tree":
        cls = type(template) if template is not None else None
        if cls is None or type(template).__name__ not in _SKLEARN_TREES:
            raise ValueError(f"{where}: the stored tree needs a scikit-learn tree estimator parameter")
        return _load_sklearn_tree(cls, state.get("tree"), is_classifier, n_features, f"{where}.tree")
    if kind == "sklearn_forest":
        if template is None or _SKLEARN_TREES.get(type(template).__name__, ("", ""))[1] != "forest":
            raise ValueError(f"{where}: the stored forest needs a scikit-learn forest estimator parameter")
        trees = state.get("trees")
        if not isinstance(trees, list) or not 1 <= len(trees) <= MAX_ESTIMATORS:
            raise ValueError(f"{where}.trees must be a list of 1 to {MAX_ESTIMATORS} trees")
        tree_cls = type(template.estimator)
        forest = template
        forest.estimators_ = [
            _load_sklearn_tree(tree_cls, t, is_classifier, n_features, f"{where}.trees[{i}]")
            for i, t in enumerate(trees)
        ]
        forest.estimator_ = tree_cls()
        forest.n_features_in_ = n_features
        forest.n_outputs_ = 1
        if is_classifier:
            forest.classes_ = np.arange(n_classes)
            forest.n_classes_ = n_classes
        return forest
    model = state.get("model")
    if not isinstance(model, str) or len(model) > _MAX_TEXT:
        raise ValueError(f"{where}.model must be the library's model text (at most {_MAX_TEXT} characters)")
    if kind == "xgboost":
        if template is None or type(template).__name__ not in _XGBOOST:
            raise ValueError(f"{where}: the stored XGBoost model needs an XGBoost estimator parameter")
        try:
            json.loads(model)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{where}.model is not XGBoost JSON: {exc}") from None
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "model.json")
            with open(path, "w", encoding="utf-8") as handle:
                handle.write(model)
            try:
                template.load_model(path)
            except Exception as exc:  # XGBoostError and friends: report as a bad file
                raise ValueError(f"{where}: XGBoost could not load the model: {exc}") from None
        return template
    if kind == "lightgbm":
        from lightgbm import Booster

        try:
            booster = Booster(model_str=model)
        except Exception as exc:  # LightGBMError: report as a bad file
            raise ValueError(f"{where}: LightGBM could not load the model: {exc}") from None
        if booster.num_feature() != n_features:
            raise ValueError(f"{where}: the LightGBM model has {booster.num_feature()} features, expected {n_features}")
        return LightGBMBoosterModel(booster, n_classes if is_classifier else None)
    raise ValueError(f"{where}: unknown kind {kind!r}")


def _dump_fitted(model) -> dict | None:
    if not hasattr(model, "estimator_"):
        return None
    state = {
        "n_features_in": int(model.n_features_in_),
        "signature": str(model.signature_),
        "n_thresholds_moved": int(model.n_thresholds_moved_),
        "n_thresholds_kept": int(model.n_thresholds_kept_),
        "margins": None if model.margins_ is None else [encode_array(m) for m in model.margins_],
        "backend": dump_tree_model(model.estimator_),
    }
    if hasattr(model, "classes_"):
        state["classes"] = encode_labels(model.classes_)
    return state


def _load_fitted(model, state: dict, where: str = "fitted") -> None:
    from engine.klein._estimators import make_backend
    from engine.klein._features import KleinLayout

    expected = {"n_features_in", "signature", "n_thresholds_moved", "n_thresholds_kept", "margins", "backend"}
    is_classifier = isinstance(model, KleinTreeClassifier)
    if is_classifier:
        expected.add("classes")
    if set(state) != expected:
        raise ValueError(f"{where}: expected the keys {sorted(expected)}")
    try:
        signature = Signature.parse(state["signature"])
        layout = KleinLayout(signature, model.input_model)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{where}.signature: {exc}") from None
    if state["n_features_in"] != layout.input_width:
        raise ValueError(f"{where}: n_features_in must be {layout.input_width} for '{signature}'")
    for key in ("n_thresholds_moved", "n_thresholds_kept"):
        if not isinstance(state[key], int) or isinstance(state[key], bool) or state[key] < 0:
            raise ValueError(f"{where}.{key} must be a non-negative integer")
    n_classes = None
    if is_classifier:
        classes = decode_labels(state["classes"], f"{where}.classes")
        if classes.size < 1 or np.unique(classes).size != classes.size:
            raise ValueError(f"{where}.classes must be distinct and non-empty")
        n_classes = classes.size
    if model.estimator is None or isinstance(model.estimator, str):
        template = make_backend(model.estimator or "decision_tree", is_classifier)
    else:
        from sklearn.base import clone

        template = clone(model.estimator)
    backend = load_tree_model(state["backend"], template, is_classifier, layout.n_features, n_classes)
    margins = state["margins"]
    if margins is not None:
        if not isinstance(margins, list) or len(margins) > 10 * MAX_ESTIMATORS:
            raise ValueError(f"{where}.margins must be a list of arrays or null")
        margins = [decode_array(m, f"{where}.margins[{i}]", "float64", 1) for i, m in enumerate(margins)]
    model.signature_ = signature
    model.n_features_in_ = layout.input_width
    model.klein_feature_names_ = list(layout.feature_names)
    model.n_thresholds_moved_ = state["n_thresholds_moved"]
    model.n_thresholds_kept_ = state["n_thresholds_kept"]
    model.margins_ = margins
    if is_classifier:
        model.classes_ = classes
        model.n_classes_ = n_classes
    model.estimator_ = backend




# ------------------------------------------------------------------ whole documents
def _dump_params(model) -> dict:
    signature = model.signature
    return {
        "estimator": _dump_spec(model.estimator),
        "signature": None if signature is None else str(Signature.parse(signature)),
        "input_model": model.input_model,
        "max_margin": bool(model.max_margin),
    }


def _load_params(params: dict) -> dict:
    """Constructor arguments from untrusted ``params`` (the wrapped estimator rebuilt from its spec)."""
    if set(params) != {"estimator", "signature", "input_model", "max_margin"}:
        raise ValueError("'params' must hold estimator, signature, input_model and max_margin")
    if params["signature"] is not None and not isinstance(params["signature"], str):
        raise ValueError("params.signature must be a string or null")
    if not isinstance(params["input_model"], str) or not isinstance(params["max_margin"], bool):
        raise ValueError("params.input_model must be a string and params.max_margin a boolean")
    return {**params, "estimator": _load_spec(params["estimator"])}


register(KleinTreeClassifier, _dump_fitted, _load_fitted, _dump_params, _load_params)
register(KleinTreeRegressor, _dump_fitted, _load_fitted, _dump_params, _load_params)


def to_json_dict(model) -> dict:
    """The model document of a Klein wrapper as a dict (``json.loads(engine.io.dumps(model))``).

    Raises
    ------
    TypeError
        For a wrapped model that cannot be saved (GradientBoosting, HistGradientBoosting)
        or a parameter that is not JSON-able.
    """
    if not isinstance(model, (KleinTreeClassifier, KleinTreeRegressor)):
        raise TypeError(f"expected a KleinTreeClassifier or KleinTreeRegressor, got {type(model).__name__}")
    return json.loads(dumps(model))


def from_json_dict(document: dict):
    """Rebuild a Klein wrapper from :func:`to_json_dict` output (untrusted input is validated).

    Raises
    ------
    ValueError
        Malformed document; the message names the field.
    """
    if not isinstance(document, dict) or document.get("estimator") not in ("KleinTreeClassifier", "KleinTreeRegressor"):
        raise ValueError("not a Klein model document: 'estimator' must be KleinTreeClassifier or KleinTreeRegressor")
    try:
        text = json.dumps(document, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"not a JSON model document: {exc}") from None
    return loads(text)
