"""JSON state of the boosted product trees (registered with :mod:`curvedtrees.io`).

``fitted`` holds the signature, pairs and classes as the product trees store them,
then ``baseline`` (the raw score before the first tree), ``n_trees_per_iteration``,
the scores, the bins (``cut``, ``thresholds`` and per-plane ``sizes``) and ``trees``:
``n_iter`` lists of ``n_trees_per_iteration`` trees, each the product trees' node
arrays (``children_left``, ``feature``, ``threshold``, ``normal``, ``margin``,
``value``: the leaf's raw-score contribution, ...). Documents are untrusted: every
array is rebuilt through :class:`curvedtrees.trees.Tree`'s structural checks and the
product trees' checks of node numbers (finite values and statistics, impurity
decreases, which the importances add up, finite and summing to a float64; split normals
that match their boundaries), the baseline must be finite, and every count must agree
with the others. What the model can output is bounded before any prediction: a raw
score is the baseline plus one leaf of every tree of its output (the leaves hold the
learning rate), so the baseline's magnitude plus the sum over iterations of each
iteration's largest leaf magnitude must be at most ``MAX_MODEL_OUTPUT``. The
parameters are validated as ``fit`` validates them before the estimator is built.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import is_classifier

from ..io import MAX_ESTIMATORS, check_output_bound, decode_array, encode_array, register
from ..trees.kernels import Tree
from ..trees.serialization import (
    _TREE_ARRAYS,
    _check_node_numbers,
    _dump_common,
    _load_common,
    _params_loader,
)
from ._binning import PlaneBins
from ._estimators import ProductGradientBoostingClassifier, ProductGradientBoostingRegressor

__all__: list[str] = []


def _dump(model) -> dict | None:
    state = _dump_common(model)
    if state is None:
        return None
    bins = model.bin_thresholds_
    state.update(
        {
            "n_trees_per_iteration": int(model.n_trees_per_iteration_),
            "baseline": encode_array(model.baseline_),
            "do_early_stopping": bool(model.do_early_stopping_),
            "train_score": encode_array(model.train_score_),
            "validation_score": encode_array(model.validation_score_),
            "bins": {
                "cut": encode_array(bins.cut),
                "thresholds": encode_array(bins.thresholds),
                "sizes": encode_array(np.diff(bins.thr_offsets)),
            },
            "trees": [
                [{name: encode_array(array) for name, array in tree.to_arrays().items()} for tree in iteration]
                for iteration in model.trees_
            ],
        }
    )
    return state


def _load_bins(model, state, where) -> PlaneBins:
    if not isinstance(state, dict) or set(state) != {"cut", "thresholds", "sizes"}:
        raise ValueError(f"{where} must hold exactly cut, thresholds and sizes")
    features = model.split_features_
    n = features.n_features
    cut = decode_array(state["cut"], f"{where}.cut", "float64", 1)
    sizes = decode_array(state["sizes"], f"{where}.sizes", "int64", 1)
    thresholds = decode_array(state["thresholds"], f"{where}.thresholds", "float64", 1)
    if cut.shape != (n,) or sizes.shape != (n,):
        raise ValueError(f"{where}: cut and sizes need one entry per split plane ({n})")
    if np.any(sizes < 0) or np.any(sizes > 254) or int(sizes.sum()) != thresholds.size:
        raise ValueError(f"{where}: sizes must lie in [0, 254] and add up to the number of thresholds")
    if not np.all(np.isfinite(cut)) or np.any(np.isnan(thresholds)):
        raise ValueError(f"{where}: cut must be finite and thresholds must not be NaN")
    pieces = np.split(thresholds, np.cumsum(sizes)[:-1]) if n else []
    if any(np.any(np.diff(p) < 0) for p in pieces):
        raise ValueError(f"{where}: each plane's thresholds must be increasing")
    return PlaneBins.from_arrays(features.kind, cut, pieces)


def _load(model, state: dict) -> None:
    where = "fitted"
    _load_common(model, state, where)
    n_classes = getattr(model, "n_classes_", 1)
    if is_classifier(model) and n_classes < 2:
        raise ValueError(f"{where}: a classifier needs at least 2 classes")
    expected = n_classes if n_classes > 2 else 1
    if state.get("n_trees_per_iteration") != expected:
        raise ValueError(f"{where}: n_trees_per_iteration must be {expected} for {n_classes} classes")
    baseline = decode_array(state.get("baseline"), f"{where}.baseline", "float64", 1)
    if baseline.shape != (expected,) or not np.all(np.isfinite(baseline)):
        raise ValueError(f"{where}.baseline must hold {expected} finite numbers")
    early = state.get("do_early_stopping")
    if not isinstance(early, bool):
        raise ValueError(f"{where}.do_early_stopping must be true or false")
    trees = state.get("trees")
    if not isinstance(trees, list) or not 1 <= len(trees) <= MAX_ESTIMATORS // expected:
        raise ValueError(f"{where}.trees must be a list of 1 to {MAX_ESTIMATORS // expected} iterations")
    scores = {}
    for name in ("train_score", "validation_score"):
        scores[name] = decode_array(state.get(name), f"{where}.{name}", "float64", 1)
        if scores[name].size not in (0, len(trees) + 1):
            raise ValueError(f"{where}.{name} must be empty or hold n_iter + 1 = {len(trees) + 1} scores")
    bins = _load_bins(model, state.get("bins"), f"{where}.bins")
    fitted = []
    for i, iteration in enumerate(trees):
        if not isinstance(iteration, list) or len(iteration) != expected:
            raise ValueError(f"{where}.trees[{i}] must be a list of {expected} trees")
        row = []
        for k, arrays in enumerate(iteration):
            at = f"{where}.trees[{i}][{k}]"
            if not isinstance(arrays, dict) or set(arrays) != set(_TREE_ARRAYS):
                raise ValueError(f"{at} must hold exactly the arrays {sorted(_TREE_ARRAYS)}")
            decoded = {
                name: decode_array(arrays[name], f"{at}.{name}", dtype, ndim)
                for name, (dtype, ndim) in _TREE_ARRAYS.items()
            }
            try:
                tree = Tree(model.split_features_, decoded, 1)
            except ValueError as exc:
                raise ValueError(f"{at}: {exc}") from None
            if not np.all(np.isfinite(tree.value)):
                raise ValueError(f"{at}.value must be finite (it is added to every prediction)")
            try:
                _check_node_numbers(tree, classifier=False)  # one raw-score value per node
            except ValueError as exc:
                raise ValueError(f"{at}: {exc}") from None
            row.append(tree)
        fitted.append(row)
    largest = sum(max(float(np.abs(tree.value).max()) for tree in row) for row in fitted)
    check_output_bound(
        float(np.abs(baseline).max()) + largest, f"{where}.trees", "the baseline plus every tree's largest leaf"
    )
    # The importances add every tree's impurity decreases up.
    if not np.isfinite(sum(float(np.abs(tree.improvement).sum()) for row in fitted for tree in row)):
        raise ValueError(f"{where}.trees: the impurity decreases sum beyond float64 (the importances would be NaN)")
    model.n_trees_per_iteration_ = expected
    model.baseline_ = baseline
    model.do_early_stopping_ = early
    model.train_score_ = scores["train_score"]
    model.validation_score_ = scores["validation_score"]
    model.bin_thresholds_ = bins
    model.trees_ = fitted
    model.n_iter_ = len(fitted)
    model._pack()


for _cls in (ProductGradientBoostingClassifier, ProductGradientBoostingRegressor):
    # Stored parameters are checked like fit checks them (the signature parsed, every value against
    # the class's constraints), so a tampered document fails at load, naming the parameter.
    register(_cls, _dump, _load, None, _params_loader(_cls))
