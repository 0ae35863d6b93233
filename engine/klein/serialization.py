"""JSON state of the Klein wrappers, without pickle (registered with :mod:`curvedtrees.io`).

What is stored for the wrapped model:

* scikit-learn DecisionTree / ExtraTree and RandomForest / ExtraTrees: every tree's
  node arrays (children, feature, threshold, impurity, counts) and leaf values, which
  rebuild ``sklearn.tree._tree.Tree`` objects through their own state protocol after
  structural checks (children in range and after their parent, every internal node
  with two children, features in range, finite thresholds, finite values, class
  weights non-negative with a positive sum at each leaf, non-negative counts), so a
  crafted file cannot make the compiled tree code read out of bounds or predict NaN;
* scikit-learn GradientBoosting: its regression trees (as above, one per stage and per
  class beyond binary), the initial prediction (the prior class probabilities or the
  constant of scikit-learn's dummy estimator, or ``init='zero'``), ``max_features_``,
  ``train_score_`` and the out-of-bag scores when ``subsample < 1``;
* scikit-learn HistGradientBoosting: every field of every ``TreePredictor``'s node
  records (value, count, feature, threshold, missing-value direction, children, gain,
  depth, leaf flag, bin threshold, ...), checked like the trees above (the corrected
  thresholds are stored exactly), the baseline prediction, the bin edges of the bin
  mapper and the training / validation scores. Models with categorical features are
  refused (``TypeError`` when saving, ``ValueError`` when loading);
* XGBoost: the model in XGBoost's own JSON format (``save_model`` / ``load_model``);
* LightGBM: the model in LightGBM's own text format. Both libraries' loaders trust their
  input (a cycle in the children segfaults, a wrong tree number aborts), so loading
  checks every tree and re-emits a canonical model from the checked values
  (:mod:`curvedtrees.klein._validate`); the file's own text never reaches them. After
  loading LightGBM, the wrapped model
  is a :class:`LightGBMBoosterModel` (a ``lightgbm.Booster`` with the predict
  methods the wrapper needs), because LightGBM's scikit-learn classes have no public
  way to load a model.

The two boosting families keep that state in private attributes (``_loss``,
``init_``, ``_predictors``, ``_baseline_prediction``, ``_bin_mapper``, ...). Only plain
numbers are stored; loading rebuilds the private objects through the estimator's own
helpers (``_get_loss`` for the loss from the public ``loss`` parameter, ``_init_state``
for the initial estimator), fills them with the checked arrays and makes one test
prediction. The layout is that of the scikit-learn versions in requirements.txt
(``>=1.5,<1.11``); where a scikit-learn version lays its internals out differently,
saving raises ``TypeError`` and loading ``ValueError``, both naming the installed
scikit-learn version (and the one the file was saved with), never a bare
``AttributeError``.

:func:`to_json_dict` / :func:`from_json_dict` give the whole document (parameters
included, with the wrapped model's class and parameters) as a dict; it is the document
:func:`curvedtrees.io.dumps` writes, whose registered parameter hooks store a wrapped
estimator object as its class name and parameters.
"""

from __future__ import annotations

import json
import math
import os
import re
import tempfile
from contextlib import contextmanager

import numpy as np

from ..io import (
    MAX_ESTIMATORS,
    check_output_bound,
    decode_array,
    decode_classes,
    dumps,
    encode_array,
    encode_labels,
    loads,
    register,
)
from ..manifolds import Signature
from ._estimators import ESTIMATOR_NAMES, KleinTreeClassifier, KleinTreeRegressor
from ._validate import (
    LOG_LINK_MAX_RAW,
    canonical_lightgbm,
    canonical_xgboost,
    check_links,
    check_sklearn_tree,
)

__all__ = [
    "LightGBMBoosterModel",
    "dump_estimator_spec",
    "dump_tree_model",
    "from_json_dict",
    "load_estimator_spec",
    "load_tree_model",
    "to_json_dict",
]

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
# GradientBoosting's trees are DecisionTreeRegressors (stored like the trees above);
# HistGradientBoosting's are its own TreePredictor node records.
_SKLEARN_BOOSTING = {
    "GradientBoostingClassifier": "gradient_boosting",
    "GradientBoostingRegressor": "gradient_boosting",
    "HistGradientBoostingClassifier": "hist_gradient_boosting",
    "HistGradientBoostingRegressor": "hist_gradient_boosting",
}
_XGBOOST = ("XGBClassifier", "XGBRegressor", "XGBRFClassifier", "XGBRFRegressor")
_LIGHTGBM = ("LGBMClassifier", "LGBMRegressor")
_NODE_INT = ("left_child", "right_child", "feature", "n_node_samples")
_NODE_FLOAT = ("threshold", "impurity", "weighted_n_node_samples")
_MAX_TEXT = 150_000_000  # characters of an embedded XGBoost / LightGBM model
# Parameters of a wrapped model that describe the machine it runs on, not the model
# (threads): a file may hold them (they are saved with the other parameters) but they are
# never read from it, so a file cannot make predict start thousands of threads.
_RUNTIME_PARAMS = frozenset({"n_jobs", "nthread", "num_threads", "num_thread", "nthreads"})


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
    if name in _SKLEARN_BOOSTING:
        from sklearn import ensemble

        return getattr(ensemble, name)
    if name in _XGBOOST:
        import xgboost

        return getattr(xgboost, name)
    if name in _LIGHTGBM:
        import lightgbm

        return getattr(lightgbm, name)
    supported = ", ".join([*_SKLEARN_TREES, *_SKLEARN_BOOSTING, *_XGBOOST, *_LIGHTGBM])
    raise ValueError(f"unsupported wrapped model {name!r}; serialisable: {supported}")


def dump_estimator_spec(estimator) -> dict | str | None:
    """A wrapped estimator's parameter as JSON: None, a backend name, or ``{"class", "params"}``.

    What a wrapper's ``estimator`` parameter is stored as (the Klein wrappers', and the
    ambient and tangent baselines'); only the allow-listed tree libraries' classes.

    Raises
    ------
    ValueError
        An estimator of a class the model files do not know.
    """
    if estimator is None or isinstance(estimator, str):
        return estimator
    name = type(estimator).__name__
    _backend_class(name)  # allow-list check
    params = estimator.get_params(deep=False)
    return {"class": name, "params": {k: _encode_value(v, f"estimator.{k}") for k, v in params.items()}}


def load_estimator_spec(spec, where: str = "params.estimator"):
    """The estimator of a stored spec (untrusted: class allow-listed, parameters checked).

    Raises
    ------
    ValueError
        Naming ``where`` and what is wrong.
    """
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
    params = {k: _decode_value(v, f"{where}.{k}") for k, v in spec["params"].items() if k not in _RUNTIME_PARAMS}
    try:
        return cls(**params)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{where}: invalid parameters for {spec['class']}: {exc}") from None


# ------------------------------------------------------------ scikit-learn trees
def _dump_sklearn_tree(tree, params: dict | None = None) -> dict:
    """One tree's arrays; ``params`` replaces the tree's own parameters (GradientBoosting
    gives its trees a ``RandomState``, which has no JSON form and no effect on predictions)."""
    t = tree.tree_
    state = t.__getstate__()
    nodes = state["nodes"]
    params = tree.get_params(deep=False) if params is None else params
    out = {
        "n_features": int(t.n_features),
        "n_outputs": int(t.n_outputs),
        "n_classes": [int(c) for c in np.atleast_1d(t.n_classes)],
        "max_depth": int(state["max_depth"]),
        "max_features": int(tree.max_features_),
        "nodes": {name: encode_array(np.asarray(nodes[name])) for name in (*_NODE_INT, *_NODE_FLOAT)},
        "values": encode_array(np.asarray(state["values"], dtype=np.float64)),
        "params": {k: _encode_value(v, f"tree.{k}") for k, v in params.items()},
    }
    return out


def _check_tree_structure(left, right, feature, n_features, where):
    check_links(left, right, where)
    internal = left != -1
    if np.any(feature[internal] < 0) or np.any(feature[internal] >= n_features):
        raise ValueError(f"{where}: split feature out of range [0, {n_features})")


def _load_sklearn_tree(cls, state, is_classifier, n_features, where, n_classes=None):
    """A scikit-learn tree estimator rebuilt from its checked node arrays.

    ``n_classes`` is the wrapper's number of classes for a classifier tree (its
    ``predict_proba`` must have one column per class of the wrapper); a regression tree
    has one value per node. Every field scikit-learn reads is listed, with how it is
    checked, in :func:`curvedtrees.klein._validate.check_sklearn_tree`; ``max_features``
    (read only by a refit) must lie in ``[1, n_features]`` and the tree's parameters pass
    scikit-learn's own validation.
    """
    from sklearn.tree._tree import NODE_DTYPE, Tree

    if not isinstance(state, dict):
        raise ValueError(f"{where}: expected an object")
    if state.get("n_features") != n_features:
        raise ValueError(f"{where}: n_features must be {n_features}")
    n_outputs = state.get("n_outputs")
    stored_classes = state.get("n_classes")
    max_features = state.get("max_features")
    if n_outputs != 1 or not isinstance(stored_classes, list) or len(stored_classes) != 1:
        raise ValueError(f"{where}: single-output trees only")
    width = n_classes if is_classifier else 1
    if is_classifier and (not isinstance(width, int) or width < 1):
        raise ValueError(f"{where}: a classifier tree needs the wrapper's number of classes")
    if stored_classes != [width] or isinstance(stored_classes[0], bool):
        kind = f"{width} classes (the wrapper's)" if is_classifier else "1 value per node (a regression tree)"
        raise ValueError(f"{where}.n_classes must be [{width}]: {kind}")
    if not isinstance(max_features, int) or isinstance(max_features, bool) or not 1 <= max_features <= n_features:
        raise ValueError(f"{where}: max_features must be an integer in [1, {n_features}]")
    nodes_in = state.get("nodes")
    if not isinstance(nodes_in, dict) or set(nodes_in) != {*_NODE_INT, *_NODE_FLOAT}:
        raise ValueError(f"{where}.nodes must hold exactly {sorted({*_NODE_INT, *_NODE_FLOAT})}")
    arrays = {name: decode_array(nodes_in[name], f"{where}.nodes.{name}", "int64", 1) for name in _NODE_INT}
    arrays.update({name: decode_array(nodes_in[name], f"{where}.nodes.{name}", "float64", 1) for name in _NODE_FLOAT})
    n_nodes = len(arrays["left_child"])
    if any(len(a) != n_nodes for a in arrays.values()):
        raise ValueError(f"{where}: node arrays must have equal lengths")
    values = decode_array(state.get("values"), f"{where}.values", "float64", 3)
    if values.shape != (n_nodes, 1, width):
        raise ValueError(f"{where}.values must have shape {(n_nodes, 1, width)}")
    check_sklearn_tree(arrays, values, state.get("max_depth"), n_features, is_classifier, where)
    nodes = np.zeros(n_nodes, dtype=NODE_DTYPE)  # missing_go_to_left: 0 (inputs are never NaN)
    for name, array in arrays.items():
        nodes[name] = array
    tree = Tree(n_features, np.asarray([width], dtype=np.intp), 1)
    tree.__setstate__({"max_depth": state["max_depth"], "node_count": n_nodes, "nodes": nodes, "values": values})
    params = state.get("params")
    if not isinstance(params, dict):
        raise ValueError(f"{where}.params must be an object")
    known = set(cls().get_params(deep=False))
    if set(params) - known:
        raise ValueError(f"{where}.params: unknown parameters {sorted(set(params) - known)}")
    estimator = cls(**{k: _decode_value(v, f"{where}.params.{k}") for k, v in params.items()})
    _check_template(estimator, is_classifier, f"{where}.params")
    estimator.tree_ = tree
    estimator.n_features_in_ = n_features
    estimator.n_outputs_ = 1
    estimator.max_features_ = max_features
    if is_classifier:
        estimator.classes_ = np.arange(width)
        estimator.n_classes_ = width
    return estimator


def _largest_leaf(estimator) -> float:
    """The largest magnitude of a loaded scikit-learn tree's leaf values."""
    tree = estimator.tree_
    return float(np.abs(tree.value[tree.children_left == -1]).max())


# ------------------------------------------------ scikit-learn gradient boosting
# GradientBoosting* and HistGradientBoosting* keep what their predictions need in private
# attributes: the loss object, the initial model, the binning and the predictor trees.
# Their numbers are stored as plain arrays; the objects are rebuilt through the
# estimators' own helpers (``_get_loss``, ``_init_state``) and filled with the checked
# arrays. The attribute names are those of the scikit-learn versions in
# requirements.txt; another version that names them differently is reported as such.
_SKLEARN_PIN = ">=1.5,<1.11"
_INTERNAL_ERRORS = (AttributeError, ImportError, TypeError, KeyError, IndexError)
_VERSION_TEXT = re.compile(r"[0-9A-Za-z.+\-]{1,40}")
_HGB_FLOAT_FIELDS = ("value", "num_threshold", "gain")
# Unsigned node fields and their largest value (uint32, uint8, or flags).
_HGB_UINT_FIELDS = {
    "count": 2**32 - 1,
    "left": 2**32 - 1,
    "right": 2**32 - 1,
    "depth": 2**32 - 1,
    "bitset_idx": 2**32 - 1,
    "bin_threshold": 255,
    "missing_go_to_left": 1,
    "is_leaf": 1,
    "is_categorical": 1,
}
_HGB_FIELDS = frozenset({*_HGB_FLOAT_FIELDS, *_HGB_UINT_FIELDS, "feature_idx"})


def _sklearn_version() -> str:
    import sklearn

    return sklearn.__version__


@contextmanager
def _sklearn_internals(action: str, error: type, saved_with: str | None = None):
    """Report a failure to read or set scikit-learn's private state as a version mismatch."""
    try:
        yield
    except _INTERNAL_ERRORS as exc:
        current = _sklearn_version()
        saved = f"; the file was saved with scikit-learn {saved_with}" if saved_with and saved_with != current else ""
        raise error(
            f"cannot {action} with scikit-learn {current}{saved}: its private fitted state is not laid out as this "
            f"code expects ({type(exc).__name__}: {exc}). These models are saved and loaded with scikit-learn"
            f"{_SKLEARN_PIN} (requirements.txt)"
        ) from None


def _check_keys(state, expected, where):
    if not isinstance(state, dict) or set(state) != set(expected):
        raise ValueError(f"{where}: expected an object with the keys {sorted(expected)}")


def _check_count(value, where, low, high):
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise ValueError(f"{where} must be an integer in [{low}, {high}]")
    return value


def _saved_version(state, where) -> str:
    version = state["sklearn_version"]
    if not isinstance(version, str) or not _VERSION_TEXT.fullmatch(version):
        raise ValueError(f"{where}.sklearn_version must be a version string")
    return version


def _boosting_width(is_classifier, n_classes, minimum, where) -> int:
    """Trees per iteration: one per class for more than two classes, else one."""
    if not is_classifier:
        return 1
    if not isinstance(n_classes, int) or n_classes < minimum:
        raise ValueError(f"{where}: a boosting classifier needs at least {minimum} classes")
    return n_classes if n_classes > 2 else 1


def _check_template(template, is_classifier, where):
    """The wrapped model's stored parameters, checked by scikit-learn's own parameter validation."""
    from sklearn.base import is_classifier as sklearn_is_classifier

    name = type(template).__name__
    if sklearn_is_classifier(template) != is_classifier:
        raise ValueError(f"{where}: a {'classifier' if is_classifier else 'regressor'} was stored, not {name}")
    try:
        template._validate_params()
    except (TypeError, ValueError) as exc:  # InvalidParameterError is both
        raise ValueError(f"{where}: invalid parameters for {name}: {exc}") from None
    except AttributeError:
        pass  # a scikit-learn without _validate_params: fit would check them, loading does not need to


def _rebuild_loss(model, where):
    """The loss object from the public ``loss`` parameter, through the estimator's own ``_get_loss``."""
    try:
        return model._get_loss(sample_weight=None)
    except (TypeError, ValueError) as exc:  # parameters that fit would have refused (or a changed signature)
        raise ValueError(
            f"{where}: cannot build the loss {model.loss!r} with scikit-learn {_sklearn_version()}: {exc}"
        ) from None


def _smoke_test(model, n_features, action, saved_with):
    """One prediction, so that a scikit-learn with different internals fails here, with a clear message."""
    probe = np.zeros((1, n_features))
    with _sklearn_internals(action, ValueError, saved_with):
        model.predict(probe)
        if hasattr(model, "predict_proba"):
            model.predict_proba(probe)


def _dump_gradient_boosting(model) -> dict:
    from sklearn.dummy import DummyClassifier, DummyRegressor

    name = type(model).__name__
    with _sklearn_internals(f"save {name}", TypeError):
        stages = np.asarray(model.estimators_, dtype=object)
        init = model.init_
        train_score = np.asarray(model.train_score_, dtype=np.float64)
        max_features = int(model.max_features_)
        oob = None
        if hasattr(model, "oob_scores_"):
            oob = {
                "improvement": encode_array(np.asarray(model.oob_improvement_, dtype=np.float64)),
                "scores": encode_array(np.asarray(model.oob_scores_, dtype=np.float64)),
                "score": encode_array(np.asarray([model.oob_score_], dtype=np.float64)),
            }
        if isinstance(init, str) and init == "zero":
            init_state = {"kind": "zero"}
        elif type(init) is DummyClassifier and init.strategy == "prior":
            init_state = {"kind": "prior", "class_prior": encode_array(np.asarray(init.class_prior_, np.float64))}
        elif type(init) is DummyRegressor:
            init_state = {"kind": "constant", "constant": encode_array(np.asarray(init.constant_, np.float64))}
        else:
            init_state = None
    if init_state is None:
        raise TypeError(
            f"cannot save {name} with the initial estimator {init!r}: only init=None (scikit-learn's dummy "
            "estimator) and init='zero' can be stored"
        )
    return {
        "kind": "sklearn_gradient_boosting",
        "sklearn_version": _sklearn_version(),
        # GradientBoosting gives each tree its RandomState: stored as None (prediction does not use it).
        "stages": [
            [_dump_sklearn_tree(tree, {**tree.get_params(deep=False), "random_state": None}) for tree in stage]
            for stage in stages
        ],
        "init": init_state,
        "max_features": max_features,
        "train_score": encode_array(train_score),
        "oob": oob,
    }


def _load_gradient_boosting(state, template, is_classifier, n_features, n_classes, where):
    from sklearn.tree import DecisionTreeRegressor

    name = type(template).__name__
    _check_keys(state, ("kind", "sklearn_version", "stages", "init", "max_features", "train_score", "oob"), where)
    saved_with = _saved_version(state, where)
    _check_template(template, is_classifier, f"{where} ({name})")
    width = _boosting_width(is_classifier, n_classes, 2, where)
    stages = state["stages"]
    if not isinstance(stages, list) or not 1 <= len(stages) <= MAX_ESTIMATORS:
        raise ValueError(f"{where}.stages must be a list of 1 to {MAX_ESTIMATORS} boosting stages")
    trees = np.empty((len(stages), width), dtype=object)
    for i, stage in enumerate(stages):
        if not isinstance(stage, list) or len(stage) != width:
            raise ValueError(f"{where}.stages[{i}] must be a list of {width} trees (one per class beyond binary)")
        for k, tree in enumerate(stage):
            trees[i, k] = _load_sklearn_tree(
                DecisionTreeRegressor, tree, False, n_features, f"{where}.stages[{i}][{k}]"
            )
    # What predict reads besides the trees: learning_rate (the parameter, validated above),
    # init_ (the prior or constant below), the loss (rebuilt from the parameter) and the
    # counts set below; max_features_, train_score_ and the out-of-bag scores only inform.
    max_features = _check_count(state["max_features"], f"{where}.max_features", 1, n_features)
    train_score = decode_array(state["train_score"], f"{where}.train_score", "float64", 1)
    if train_score.shape != (len(stages),):
        raise ValueError(f"{where}.train_score must have one entry per stage ({len(stages)})")
    oob = state["oob"]
    if (oob is not None) != (template.subsample < 1.0):
        raise ValueError(f"{where}.oob must be stored exactly when subsample < 1 (subsample={template.subsample})")
    if oob is not None:
        _check_keys(oob, ("improvement", "scores", "score"), f"{where}.oob")
        oob_improvement = decode_array(oob["improvement"], f"{where}.oob.improvement", "float64", 1)
        oob_scores = decode_array(oob["scores"], f"{where}.oob.scores", "float64", 1)
        oob_score = decode_array(oob["score"], f"{where}.oob.score", "float64", 1)
        if oob_improvement.shape != (len(stages),) or oob_scores.shape != (len(stages),) or oob_score.shape != (1,):
            raise ValueError(f"{where}.oob: improvement and scores need one entry per stage, score one number")
    init = state["init"]
    kind = "zero" if template.init == "zero" else ("prior" if is_classifier else "constant")
    if not isinstance(init, dict) or init.get("kind") != kind:
        raise ValueError(f"{where}.init must be of kind {kind!r} for init={template.init!r}")
    if kind == "prior":
        _check_keys(init, ("kind", "class_prior"), f"{where}.init")
        prior = decode_array(init["class_prior"], f"{where}.init.class_prior", "float64", 1)
        if prior.shape != (n_classes,) or not np.all((prior >= 0) & (prior <= 1)):
            raise ValueError(f"{where}.init.class_prior must be {n_classes} probabilities in [0, 1]")
    elif kind == "constant":
        _check_keys(init, ("kind", "constant"), f"{where}.init")
        constant = decode_array(init["constant"], f"{where}.init.constant", "float64", 2)
        if constant.shape != (1, 1) or not np.all(np.isfinite(constant)):
            raise ValueError(f"{where}.init.constant must be one finite number, shape (1, 1)")
    else:
        _check_keys(init, ("kind",), f"{where}.init")
    # Every raw score is the initial one plus learning_rate times one leaf of each stage's
    # tree. scikit-learn clips the prior to [eps, 1 - eps] (float32's eps) before taking
    # its logit or log, so the initial score's magnitude is at most log(1 / eps).
    initial = {"zero": 0.0, "prior": math.log(1.0 / np.finfo(np.float32).eps)}.get(kind)
    if kind == "constant":
        initial = float(np.abs(constant).max())
    stages_bound = sum(max(_largest_leaf(tree) for tree in stage) for stage in trees)
    check_output_bound(
        initial + float(template.learning_rate) * stages_bound,
        where,
        f"the initial score plus learning_rate ({template.learning_rate!r}) times the stages' largest leaves",
    )

    action = f"rebuild {name}"
    model = template
    with _sklearn_internals(action, ValueError, saved_with):
        model.n_features_in_ = n_features
        if is_classifier:
            model.classes_ = np.arange(n_classes)
            model.n_classes_ = n_classes
        model.n_trees_per_iteration_ = width
        model._loss = _rebuild_loss(model, where)
        model._init_state()  # the estimator's own choice of initial model for its loss
        if kind == "prior":
            dummy = model.init_
            dummy._strategy = dummy.strategy
            dummy.sparse_output_ = False
            dummy.n_outputs_ = 1
            dummy.classes_ = np.arange(n_classes, dtype=np.float64)  # fitted on the float-encoded labels
            dummy.n_classes_ = n_classes
            dummy.class_prior_ = prior
            dummy.n_features_in_ = n_features
        elif kind == "constant":
            dummy = model.init_
            dummy.constant_ = constant
            dummy.n_outputs_ = 1
            dummy.n_features_in_ = n_features
        model.estimators_ = trees
        model.train_score_ = train_score
        model.n_estimators_ = len(stages)
        model.max_features_ = max_features
        if oob is not None:
            model.oob_improvement_ = oob_improvement
            model.oob_scores_ = oob_scores
            model.oob_score_ = np.float64(oob_score[0])
    _smoke_test(model, n_features, action, saved_with)
    return model


def _dump_hist_gradient_boosting(model) -> dict:
    name = type(model).__name__
    with _sklearn_internals(f"save {name}", TypeError):
        categorical = model.is_categorical_ is not None or model._preprocessor is not None
        predictors = [list(iteration) for iteration in model._predictors]
        nodes = [[p.nodes for p in iteration] for iteration in predictors]
        mapper = model._bin_mapper
        bin_thresholds = [np.asarray(t, dtype=np.float64) for t in mapper.bin_thresholds_]
        n_bins_non_missing = np.asarray(mapper.n_bins_non_missing_)
        baseline = np.asarray(model._baseline_prediction, dtype=np.float64)
        train_score = np.asarray(model.train_score_, dtype=np.float64)
        validation_score = np.asarray(model.validation_score_, dtype=np.float64)
        early_stopping = bool(model.do_early_stopping_)
        with_sample_weight = bool(getattr(model, "_fitted_with_sw", False))
        categorical = categorical or any(np.any(n["is_categorical"]) for row in nodes for n in row)
    if categorical:
        raise TypeError(
            f"cannot save {name} with categorical features: its category encoder and bitsets have no stored form "
            "(the Klein correction refuses categorical splits too); use numeric features"
        )
    return {
        "kind": "sklearn_hist_gradient_boosting",
        "sklearn_version": _sklearn_version(),
        "predictors": [[{"nodes": {f: encode_array(n[f]) for f in n.dtype.names}} for n in row] for row in nodes],
        "baseline_prediction": encode_array(baseline),
        "bin_mapper": {
            "n_bins_non_missing": encode_array(n_bins_non_missing),
            "bin_thresholds": [encode_array(t) for t in bin_thresholds],
        },
        "train_score": encode_array(train_score),
        "validation_score": encode_array(validation_score),
        "do_early_stopping": early_stopping,
        "fitted_with_sample_weight": with_sample_weight,
    }


def _load_hist_nodes(obj, n_features, where) -> dict:
    """Checked node arrays of one TreePredictor (leaves' children set to -1 for the structure check).

    What scikit-learn's compiled predictor reads of each node record: ``is_leaf``,
    ``left``, ``right`` (checked: one acyclic tree), ``feature_idx`` (checked in range),
    ``num_threshold`` (finite at splits), ``missing_go_to_left`` (0 or 1), ``value``
    (finite; the leaves' are added to the raw score, bounded with the baseline by the
    caller), ``is_categorical`` (0: categorical splits are refused) and ``bitset_idx``
    (read only for categorical splits); ``bin_threshold`` (at most 255) when predicting
    binned data in a fit; ``count`` by partial dependence, which divides by a split's
    count (checked positive at splits and equal to the children's sum); ``depth`` by
    ``get_max_depth`` (checked: 0 at the root, one more than the parent below it);
    ``gain`` only informs (checked finite).
    """
    _check_keys(obj, ("nodes",), where)
    fields = obj["nodes"]
    if not isinstance(fields, dict) or set(fields) != _HGB_FIELDS:
        raise ValueError(f"{where}.nodes must hold exactly the fields {sorted(_HGB_FIELDS)}")
    arrays = {f: decode_array(fields[f], f"{where}.nodes.{f}", "float64", 1) for f in _HGB_FLOAT_FIELDS}
    for f, high in (*_HGB_UINT_FIELDS.items(), ("feature_idx", n_features - 1)):
        array = decode_array(fields[f], f"{where}.nodes.{f}", "int64", 1)
        if array.size and (array.min() < 0 or array.max() > high):
            raise ValueError(f"{where}.nodes.{f} must be in [0, {high}]")
        arrays[f] = array
    n_nodes = len(arrays["value"])
    if any(len(a) != n_nodes for a in arrays.values()):
        raise ValueError(f"{where}: node arrays must have equal lengths")
    if np.any(arrays["is_categorical"]):
        raise ValueError(f"{where}: categorical splits cannot be loaded (the Klein wrapper refuses them)")
    leaf = arrays["is_leaf"].astype(bool)
    left = np.where(leaf, -1, arrays["left"])
    right = np.where(leaf, -1, arrays["right"])
    _check_tree_structure(left, right, arrays["feature_idx"], n_features, where)
    internal = ~leaf
    if not np.all(np.isfinite(arrays["num_threshold"][internal])):
        raise ValueError(f"{where}.nodes.num_threshold must be finite at every split node")
    for f in ("value", "gain"):
        if not np.all(np.isfinite(arrays[f])):
            raise ValueError(f"{where}.nodes.{f} must be finite")
    depth = arrays["depth"]
    if (
        depth[0] != 0
        or np.any(depth[left[internal]] != depth[internal] + 1)
        or np.any(depth[right[internal]] != depth[internal] + 1)
    ):
        raise ValueError(f"{where}.nodes.depth must be 0 at the root and one more than the parent's below it")
    count, parents = arrays["count"], np.flatnonzero(internal)
    if np.any(count[parents] <= 0) or np.any(count[left[parents]] + count[right[parents]] != count[parents]):
        raise ValueError(f"{where}.nodes.count must be positive at every split node and its children's sum")
    arrays["largest_leaf"] = float(np.abs(arrays["value"][leaf]).max())
    return arrays


def _load_hist_gradient_boosting(state, template, is_classifier, n_features, n_classes, where):
    name = type(template).__name__
    keys = (
        "kind",
        "sklearn_version",
        "predictors",
        "baseline_prediction",
        "bin_mapper",
        "train_score",
        "validation_score",
        "do_early_stopping",
        "fitted_with_sample_weight",
    )
    _check_keys(state, keys, where)
    saved_with = _saved_version(state, where)
    _check_template(template, is_classifier, f"{where} ({name})")
    if template.categorical_features not in (None, "from_dtype"):
        raise ValueError(f"{where}: categorical_features={template.categorical_features!r} cannot be loaded")
    width = _boosting_width(is_classifier, n_classes, 1, where)
    rows = state["predictors"]
    if not isinstance(rows, list) or not 1 <= len(rows) <= MAX_ESTIMATORS:
        raise ValueError(f"{where}.predictors must be a list of 1 to {MAX_ESTIMATORS} iterations")
    arrays = []
    for i, row in enumerate(rows):
        if not isinstance(row, list) or len(row) != width:
            raise ValueError(f"{where}.predictors[{i}] must be a list of {width} trees (one per class beyond binary)")
        arrays.append([_load_hist_nodes(p, n_features, f"{where}.predictors[{i}][{k}]") for k, p in enumerate(row)])
    baseline = decode_array(state["baseline_prediction"], f"{where}.baseline_prediction", "float64", 2)
    if baseline.shape != (1, width) or not np.all(np.isfinite(baseline)):
        raise ValueError(f"{where}.baseline_prediction must be {width} finite numbers, shape (1, {width})")
    # A raw score is the baseline plus one leaf of every iteration's tree (the leaves hold
    # the learning rate already); Poisson and gamma losses predict its exponential.
    bound = float(np.abs(baseline).max()) + sum(max(tree.pop("largest_leaf") for tree in row) for row in arrays)
    check_output_bound(bound, where, "the baseline plus the iterations' largest leaves")
    if getattr(template, "loss", None) in ("poisson", "gamma"):
        check_output_bound(bound, where, f"the raw score of the {template.loss} loss", LOG_LINK_MAX_RAW)
    mapper_state = state["bin_mapper"]
    _check_keys(mapper_state, ("n_bins_non_missing", "bin_thresholds"), f"{where}.bin_mapper")
    max_bins = template.max_bins
    n_bins = decode_array(mapper_state["n_bins_non_missing"], f"{where}.bin_mapper.n_bins_non_missing", "int64", 1)
    if n_bins.shape != (n_features,) or np.any(n_bins < 1) or np.any(n_bins > max_bins):
        raise ValueError(f"{where}.bin_mapper.n_bins_non_missing must be {n_features} integers in [1, {max_bins}]")
    edges_in = mapper_state["bin_thresholds"]
    if not isinstance(edges_in, list) or len(edges_in) != n_features:
        raise ValueError(f"{where}.bin_mapper.bin_thresholds must be a list of {n_features} arrays")
    edges = []
    for f, edge in enumerate(edges_in):
        edge = decode_array(edge, f"{where}.bin_mapper.bin_thresholds[{f}]", "float64", 1)
        if edge.shape != (n_bins[f] - 1,) or not np.all(np.isfinite(edge)) or np.any(np.diff(edge) < 0):
            raise ValueError(
                f"{where}.bin_mapper.bin_thresholds[{f}] must be {n_bins[f] - 1} finite non-decreasing numbers"
            )
        edges.append(edge)
    scores = {}
    for key in ("train_score", "validation_score"):
        scores[key] = decode_array(state[key], f"{where}.{key}", "float64", 1)
        if len(scores[key]) not in (0, len(rows) + 1):
            raise ValueError(f"{where}.{key} must be empty or hold {len(rows) + 1} scores (one before the first tree)")
    for key in ("do_early_stopping", "fitted_with_sample_weight"):
        if not isinstance(state[key], bool):
            raise ValueError(f"{where}.{key} must be true or false")

    action = f"rebuild {name}"
    model = template
    with _sklearn_internals(action, ValueError, saved_with):
        from sklearn.ensemble._hist_gradient_boosting.binning import _BinMapper
        from sklearn.ensemble._hist_gradient_boosting.common import PREDICTOR_RECORD_DTYPE, X_BITSET_INNER_DTYPE
        from sklearn.ensemble._hist_gradient_boosting.predictor import TreePredictor

        if set(PREDICTOR_RECORD_DTYPE.names) != _HGB_FIELDS:
            raise AttributeError(f"TreePredictor node fields are {PREDICTOR_RECORD_DTYPE.names}")
        predictors = []
        for row in arrays:
            predictors.append([])
            for node_arrays in row:
                nodes = np.zeros(len(node_arrays["value"]), dtype=PREDICTOR_RECORD_DTYPE)
                for f, values in node_arrays.items():
                    nodes[f] = values
                no_bitsets = np.zeros((0, 8), dtype=X_BITSET_INNER_DTYPE)
                predictors[-1].append(TreePredictor(nodes, no_bitsets, no_bitsets.copy()))
        mapper = _BinMapper(n_bins=max_bins + 1)
        mapper.is_categorical_ = np.zeros(n_features, dtype=np.uint8)
        mapper.missing_values_bin_idx_ = max_bins
        mapper.bin_thresholds_ = edges
        mapper.n_bins_non_missing_ = n_bins.astype(np.uint32)
        model.is_categorical_ = None
        model._preprocessor = None
        model._is_categorical_remapped = None
        model.n_features_in_ = n_features
        model._n_features = n_features
        if is_classifier:
            model.classes_ = np.arange(n_classes)
        model.n_trees_per_iteration_ = width
        model._loss = _rebuild_loss(model, where)
        model._baseline_prediction = baseline
        model._bin_mapper = mapper
        model._predictors = predictors
        model.train_score_ = scores["train_score"]
        model.validation_score_ = scores["validation_score"]
        model.do_early_stopping_ = state["do_early_stopping"]
        if state["fitted_with_sample_weight"]:
            model._fitted_with_sw = True
    _smoke_test(model, n_features, action, saved_with)
    return model


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
    """JSON state of a fitted tree model (scikit-learn trees, forests and boosting, XGBoost, LightGBM)."""
    name = type(estimator).__name__
    if name in _SKLEARN_TREES:
        if _SKLEARN_TREES[name][1] == "tree":
            return {"kind": "sklearn_tree", "tree": _dump_sklearn_tree(estimator)}
        return {"kind": "sklearn_forest", "trees": [_dump_sklearn_tree(t) for t in estimator.estimators_]}
    if _SKLEARN_BOOSTING.get(name) == "gradient_boosting":
        return _dump_gradient_boosting(estimator)
    if _SKLEARN_BOOSTING.get(name) == "hist_gradient_boosting":
        return _dump_hist_gradient_boosting(estimator)
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
        tree = _load_sklearn_tree(cls, state.get("tree"), is_classifier, n_features, f"{where}.tree", n_classes)
        if not is_classifier:
            check_output_bound(_largest_leaf(tree), f"{where}.tree", "a leaf value")
        return tree
    if kind == "sklearn_forest":
        if template is None or _SKLEARN_TREES.get(type(template).__name__, ("", ""))[1] != "forest":
            raise ValueError(f"{where}: the stored forest needs a scikit-learn forest estimator parameter")
        trees = state.get("trees")
        if not isinstance(trees, list) or not 1 <= len(trees) <= MAX_ESTIMATORS:
            raise ValueError(f"{where}.trees must be a list of 1 to {MAX_ESTIMATORS} trees")
        tree_cls = type(template.estimator)
        _check_template(template, is_classifier, f"{where} ({type(template).__name__})")
        forest = template
        forest.estimators_ = [
            _load_sklearn_tree(tree_cls, t, is_classifier, n_features, f"{where}.trees[{i}]", n_classes)
            for i, t in enumerate(trees)
        ]
        if not is_classifier:
            # scikit-learn adds the trees' predictions up before dividing by their number.
            bound = sum(_largest_leaf(t) for t in forest.estimators_)
            check_output_bound(bound, f"{where}.trees", "the sum of the trees' largest leaf values")
        forest.estimator_ = tree_cls()
        forest.n_features_in_ = n_features
        forest.n_outputs_ = 1
        if is_classifier:
            forest.classes_ = np.arange(n_classes)
            forest.n_classes_ = n_classes
        return forest
    if kind in ("sklearn_gradient_boosting", "sklearn_hist_gradient_boosting"):
        family = kind[len("sklearn_") :]
        if template is None or _SKLEARN_BOOSTING.get(type(template).__name__) != family:
            label = "GradientBoosting" if family == "gradient_boosting" else "HistGradientBoosting"
            raise ValueError(f"{where}: the stored model needs a scikit-learn {label} estimator parameter")
        load = _load_gradient_boosting if family == "gradient_boosting" else _load_hist_gradient_boosting
        return load(state, template, is_classifier, n_features, n_classes, where)
    model = state.get("model")
    if not isinstance(model, str) or len(model) > _MAX_TEXT:
        raise ValueError(f"{where}.model must be the library's model text (at most {_MAX_TEXT} characters)")
    if kind == "xgboost":
        if template is None or type(template).__name__ not in _XGBOOST:
            raise ValueError(f"{where}: the stored XGBoost model needs an XGBoost estimator parameter")
        # XGBoost's loader trusts its input (a cycle in the children segfaults): it only
        # ever sees a model rebuilt from checked values.
        model = canonical_xgboost(model, n_features, is_classifier, n_classes, f"{where}.model")
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

        # LightGBM's parser trusts its input (a wrong tree number aborts the process): it
        # only ever sees a model rebuilt from checked values.
        model = canonical_lightgbm(model, n_features, is_classifier, n_classes, f"{where}.model")
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
    from ._estimators import make_backend
    from ._features import KleinLayout

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
        classes = decode_classes(state["classes"], f"{where}.classes")
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
    model._margins = margins
    model._nearest = None
    if is_classifier:
        model.classes_ = classes
        model.n_classes_ = n_classes
    model.estimator_ = backend


# ------------------------------------------------------------------ whole documents
def _dump_params(model) -> dict:
    signature = model.signature
    return {
        "estimator": dump_estimator_spec(model.estimator),
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
    return {**params, "estimator": load_estimator_spec(params["estimator"])}


register(KleinTreeClassifier, _dump_fitted, _load_fitted, _dump_params, _load_params)
register(KleinTreeRegressor, _dump_fitted, _load_fitted, _dump_params, _load_params)


def to_json_dict(model) -> dict:
    """The model document of a Klein wrapper as a dict (``json.loads(curvedtrees.io.dumps(model))``).

    Raises
    ------
    TypeError
        For a wrapped model that cannot be saved (an unsupported library,
        HistGradientBoosting with categorical features, GradientBoosting with an
        ``init`` estimator) or a parameter that is not JSON-able.
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
    except RecursionError:
        raise ValueError("not a model document: it nests deeper than any model document does") from None
    return loads(text)
