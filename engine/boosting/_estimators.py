"""Gradient-boosted product trees: the scikit-learn estimators.

Public API
----------
``ProductGradientBoostingClassifier(*, signature=None, pairs="base", splits="geodesic", loss="log_loss",
learning_rate=0.1, max_iter=100, max_leaf_nodes=31, max_depth=None, min_samples_leaf=20, l2_regularization=0.0,
max_bins=255, early_stopping="auto", validation_fraction=0.1, n_iter_no_change=10, tol=1e-7, thresholds="margin",
random_state=None)``

``ProductGradientBoostingRegressor(...)``: the same with ``loss="squared_error"`` or ``"absolute_error"``.

The vocabulary is scikit-learn's HistGradientBoosting; ``signature``, ``pairs`` and
``splits`` are the product trees'. Methods: ``fit(X, y, sample_weight=None, check_input=True)``,
``predict``, ``predict_proba``, ``predict_log_proba``, ``decision_function`` (classifier),
``staged_predict``, ``staged_predict_proba``, ``staged_decision_function`` (classifier),
``score``. Fitted attributes: ``trees_`` (``n_iter_`` lists of
``n_trees_per_iteration_`` :class:`curvedtrees.trees.Tree`), ``baseline_``, ``n_iter_``,
``n_trees_per_iteration_``, ``do_early_stopping_``, ``train_score_``,
``validation_score_``, ``feature_importances_`` (per input column),
``plane_importances_`` (per split plane), ``component_importances_`` (per signature
component), ``bin_thresholds_``, ``signature_``, ``split_features_``, ``classes_`` / ``n_classes_``, ``n_features_in_``.

How a fit runs
--------------
1. The rows are validated as points of the signature; with early stopping a
   validation set is split off exactly as scikit-learn does it (stratified, seeded
   from ``random_state``).
2. Every split plane's value (``SplitFeatures.values``) is binned once
   (:class:`~curvedtrees.boosting._binning.PlaneBins`): ordered bins for lift (E),
   timelike (H) and radial planes, circular bins for the others.
3. Each iteration computes the loss's gradients and hessians
   (:mod:`~curvedtrees.boosting._losses`) and grows one tree per class (softmax) or one
   tree (binary, regression) leaf-wise on the histograms
   (:mod:`~curvedtrees.boosting._grower`, :mod:`~curvedtrees.boosting._histogram`); each
   chosen split gets its maximum-margin geodesic boundary.
4. Predictions route rows through the stored boundaries (the product trees'
   predicate, bit for bit), never through bins: one compiled kernel for every tree,
   over blocks of 256 rows in threads, eight rows walking each tree side by side.

On all-Euclidean data with ``pairs="base"`` and ``thresholds="bins"`` the ensemble is
scikit-learn's ``HistGradientBoosting{Classifier,Regressor}`` with the same
parameters; with ``thresholds="margin"`` (the default) only the thresholds move,
within the gaps between the training rows.
"""

from __future__ import annotations

from numbers import Integral, Real
from typing import ClassVar

import numpy as np
from numba import njit, prange
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin, is_classifier
from sklearn.model_selection import train_test_split
from sklearn.utils._param_validation import Interval, RealNotInt, StrOptions
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import _check_sample_weight, check_is_fitted, check_random_state

from ..trees.kernels import (
    CIRCULAR,
    LIFT,
    RADIAL,
    SPLIT_MODES,
    TIMELIKE,
    SplitFeatures,
    validate_fit_input,
    validate_points,
)
from ._binning import PlaneBins
from ._grower import GrowerOptions, GrowthData, add_leaf_values, grow_tree, growth_nbytes
from ._losses import Loss

__all__ = ["ProductGradientBoostingClassifier", "ProductGradientBoostingRegressor"]

# scikit-learn turns early stopping on by itself ("auto") above this many rows.
_AUTO_EARLY_STOPPING_ROWS = 10_000

# The learning rate scales each leaf's Newton step. scikit-learn's advice is "use 1 for
# no shrinkage": above 1 every step overshoots its leaf's minimiser, above 2 the raw
# scores of squared error diverge geometrically (3 reached 5e38 in 200 iterations),
# and 1e308 made the first leaves infinite and the probabilities NaN. So (0, 1].
_MAX_LEARNING_RATE = 1.0
# Sample weights multiply the float32 gradients and hessians: a weight of 1e308 is inf
# in float32 and turns the leaves into NaN. Weights whose largest value lies outside
# [2**-64, 2**64] are divided by a power of two that brings it into [1, 2), as the
# product trees rescale theirs (exact, so the model is the one of the unscaled weights
# whenever those do not overflow; inside the range nothing changes), and a weight
# times a log-loss gradient then stays far below float32's 2**128.
_WEIGHT_RANGE = 2.0**64


def _rescaled_weights(weight: np.ndarray) -> np.ndarray:
    """``weight`` divided by a power of two when its largest value lies outside the range above."""
    largest = float(weight.max()) if weight.size else 0.0
    if largest > 0 and not 1.0 / _WEIGHT_RANGE <= largest <= _WEIGHT_RANGE:
        weight = np.ldexp(weight, 1 - int(np.frexp(largest)[1]))  # exact: only the exponent changes
    return weight


# Rows predicted together, tree by tree: a tree's records (a few kB) stay in the L1 cache
# while the block's rows walk it, and the block's row values (256 rows of 15 values:
# 30 kB) stay beside them.
_PREDICT_BLOCK = 256
# Rows walked through a tree side by side: their paths are independent chains of loads
# and compares that the core overlaps, where one row at a time waits on each node.
# _predict_raw spells out its eight lanes (n0 .. n7) and pads each block by this many rows.
_INTERLEAVE = 8
assert _INTERLEAVE == 8, "_predict_raw walks exactly eight rows side by side"

# A node as prediction reads it: ``a * u[i1] + b * u[i2] <= c`` over a row's values
# ``u`` (its split-plane values, a 0, then its ambient coordinates), then ``left``
# or ``right``. One predicate without a branch on the plane kind; a leaf sends both
# ways to itself, so that every row of a tree takes ``depth`` steps and no step asks
# whether it has arrived.
PREDICT_RECORD = np.dtype(
    [
        ("i1", np.int32),
        ("i2", np.int32),
        ("left", np.int32),
        ("right", np.int32),
        ("a", np.float64),
        ("b", np.float64),
        ("c", np.float64),
    ]
)


# ---- plane kinds at prediction: the only place that knows them ----
# A linear plane (lift, timelike) compares the row's plane value with the threshold:
# ``1 * v + 0 * 0 <= t``, which is ``v <= t`` exactly for every v (infinities and NaN
# included); a circular plane compares ``n_i x_i + n_j x_j <= 0``, the product trees'
# own expression. A new kind that thresholds a value of the row adds its value here
# and is packed like the linear kinds.
@njit(cache=True, nogil=True, inline="always")
def _plane_value(X, r, kind, col_i, col_j):
    """The value a linear plane thresholds, as the trees' routing computes it (0 for circular planes)."""
    if kind == LIFT or kind == RADIAL:  # both threshold one coordinate, as the trees' routing does
        return X[r, col_j]
    if kind == TIMELIKE:
        return X[r, col_j] / X[r, col_i]
    return 0.0


def _pack_records(tree, features, root, part):
    """One tree's records into ``part`` (its slice of the flat table), children offset by ``root``."""
    n_planes = features.n_features
    zero = n_planes  # the row values' slot that holds 0
    leaf = tree.children_left == -1
    internal = ~leaf
    f = np.where(internal, tree.feature, 0)
    circular = internal & (features.kind[f] == CIRCULAR)
    ids = np.arange(tree.node_count) + root
    part["left"] = np.where(leaf, ids, tree.children_left + root)
    part["right"] = np.where(leaf, ids, tree.children_right + root)
    part["i1"] = np.where(circular, n_planes + 1 + features.col_i[f], np.where(leaf, zero, f))
    part["i2"] = np.where(circular, n_planes + 1 + features.col_j[f], zero)
    part["a"] = np.where(circular, tree.normal[:, 0], np.where(leaf, 0.0, 1.0))
    part["b"] = np.where(circular, tree.normal[:, 1], 0.0)
    part["c"] = np.where(circular | leaf, 0.0, tree.threshold)


def _pack_trees(trees, features):
    """One routing table for many trees.

    Returns
    -------
    records : ndarray of shape (total_nodes,), PREDICT_RECORD
    roots, depths : ndarray of shape (n_trees,), int64
        Each tree's root (flat id) and the depth of its deepest leaf.
    values : ndarray of shape (total_nodes,), float64
        Every node's value (the leaves' are read).
    """
    sizes = np.array([tree.node_count for tree in trees], dtype=np.int64)
    if sizes.sum() >= np.iinfo(np.int32).max:
        raise ValueError(f"the ensemble has {sizes.sum()} nodes; prediction supports fewer than 2**31")
    roots = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
    records = np.zeros(int(sizes.sum()), dtype=PREDICT_RECORD)
    values = np.zeros(int(sizes.sum()))
    depths = np.empty(len(trees), dtype=np.int64)
    for t, (tree, root) in enumerate(zip(trees, roots)):
        _pack_records(tree, features, int(root), records[root : root + tree.node_count])
        values[root : root + tree.node_count] = tree.value[:, 0]
        depths[t] = tree.max_depth
    return records, roots, depths, values


@njit(cache=True, nogil=True, inline="always")
def _step(records, u, s, node):
    e = records[node]
    return e.left if e.a * u[s, e.i1] + e.b * u[s, e.i2] <= e.c else e.right


@njit(cache=True, nogil=True, parallel=True)
def _predict_raw(X, kinds, col_i, col_j, records, roots, depths, values, outputs, raw):
    """Add every listed tree's leaf value to ``raw[outputs[t], row]`` (row blocks in threads).

    Each score adds its trees' values in tree order, as a loop over rows would.
    """
    n, ambient = X.shape
    n_planes = kinds.shape[0]
    width = n_planes + ambient + 1
    for block in prange((n + _PREDICT_BLOCK - 1) // _PREDICT_BLOCK):
        lo = block * _PREDICT_BLOCK
        m = min(n, lo + _PREDICT_BLOCK) - lo
        u = np.zeros((m + _INTERLEAVE, width))  # padding rows route on zeros; never added
        for s in range(m):
            for f in range(n_planes):
                u[s, f] = _plane_value(X, lo + s, kinds[f], col_i[f], col_j[f])
            for c in range(ambient):
                u[s, n_planes + 1 + c] = X[lo + s, c]
        for t in range(roots.shape[0]):
            k = outputs[t]
            root = roots[t]
            for s in range(0, m, _INTERLEAVE):
                n0 = n1 = n2 = n3 = n4 = n5 = n6 = n7 = root
                for _ in range(depths[t]):
                    n0 = _step(records, u, s, n0)
                    n1 = _step(records, u, s + 1, n1)
                    n2 = _step(records, u, s + 2, n2)
                    n3 = _step(records, u, s + 3, n3)
                    n4 = _step(records, u, s + 4, n4)
                    n5 = _step(records, u, s + 5, n5)
                    n6 = _step(records, u, s + 6, n6)
                    n7 = _step(records, u, s + 7, n7)
                rows = min(_INTERLEAVE, m - s)
                for q, node in enumerate((n0, n1, n2, n3, n4, n5, n6, n7)):
                    if q < rows:
                        raw[k, lo + s + q] += values[node]


def _route(X, features, records, roots, depths, values, outputs, raw):
    """:func:`_predict_raw` with the planes' kinds and columns of ``features``."""
    _predict_raw(X, features.kind, features.col_i, features.col_j, records, roots, depths, values, outputs, raw)


class BaseProductGradientBoosting(BaseEstimator):
    """Shared machinery of the boosted product trees (not public)."""

    # scikit-learn's declarative parameter checks (``_validate_params`` at the start of
    # fit), HistGradientBoosting's own where the parameter is the same: NaN and infinity
    # fall outside every Interval, so they are refused by name. Each estimator adds its
    # ``loss`` options.
    _parameter_constraints: ClassVar[dict] = {
        "signature": "no_validation",  # resolved, with its own messages, by Signature.resolve
        "pairs": [StrOptions({"base", "all"})],
        "splits": [StrOptions(set(SPLIT_MODES))],
        "learning_rate": [Interval(Real, 0, _MAX_LEARNING_RATE, closed="right")],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "max_leaf_nodes": [Interval(Integral, 2, None, closed="left"), None],
        "max_depth": [Interval(Integral, 1, None, closed="left"), None],
        "min_samples_leaf": [Interval(Integral, 1, None, closed="left")],
        "l2_regularization": [Interval(Real, 0, None, closed="left")],
        "max_bins": [Interval(Integral, 2, 255, closed="both")],  # codes of 2 * 255 + 1 values fit in uint16
        "early_stopping": [StrOptions({"auto"}), "boolean"],
        "validation_fraction": [
            Interval(RealNotInt, 0, 1, closed="neither"),
            Interval(Integral, 1, None, closed="left"),
            None,
        ],
        "n_iter_no_change": [Interval(Integral, 1, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="left")],
        "thresholds": [StrOptions({"margin", "bins"})],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        *,
        signature=None,
        pairs="base",
        splits="geodesic",
        loss="log_loss",
        learning_rate=0.1,
        max_iter=100,
        max_leaf_nodes=31,
        max_depth=None,
        min_samples_leaf=20,
        l2_regularization=0.0,
        max_bins=255,
        early_stopping="auto",
        validation_fraction=0.1,
        n_iter_no_change=10,
        tol=1e-7,
        thresholds="margin",
        random_state=None,
    ):
        self.signature = signature
        self.pairs = pairs
        self.splits = splits
        self.loss = loss
        self.learning_rate = learning_rate
        self.max_iter = max_iter
        self.max_leaf_nodes = max_leaf_nodes
        self.max_depth = max_depth
        self.min_samples_leaf = min_samples_leaf
        self.l2_regularization = l2_regularization
        self.max_bins = max_bins
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.tol = tol
        self.thresholds = thresholds
        self.random_state = random_state

    def _encode_y(self, y):
        return np.ascontiguousarray(y, dtype=np.float64), 1

    # --------------------------------------------------------------- fitting
    def fit(self, X, y, sample_weight=None, check_input=True):
        """Boost trees on the rows of ``X``.

        Parameters
        ----------
        X : array-like of shape (n_samples, ambient_dim)
            Points in ambient coordinates of ``signature``.
        y : array-like of shape (n_samples,)
            Class labels or regression targets.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights; they scale each row's gradient and hessian (divided by a
            power of two first when the largest lies outside [2**-64, 2**64]).
        check_input : bool, default=True
            Check that every row lies on the manifold (shape and finiteness are
            always checked).

        Returns
        -------
        self
        """
        self._validate_params()
        X, y = validate_fit_input(self, X, y, check_input=check_input)
        if sample_weight is not None:
            sample_weight = _check_sample_weight(sample_weight, X, dtype=np.float64)
            if np.any(sample_weight < 0):
                raise ValueError("sample_weight must be non-negative")
            sample_weight = _rescaled_weights(sample_weight)
        y_fit, n_classes = self._encode_y(y)
        loss = Loss(self.loss, n_classes)
        n_samples = X.shape[0]
        rng = check_random_state(self.random_state)
        seed = rng.randint(np.iinfo(np.uint32).max, dtype="u8")  # scikit-learn's: one seed for split and bins

        self.do_early_stopping_ = (
            n_samples > _AUTO_EARLY_STOPPING_ROWS if self.early_stopping == "auto" else bool(self.early_stopping)
        )
        validation = self.do_early_stopping_ and self.validation_fraction is not None
        if validation:
            stratify = y_fit if is_classifier(self) else None
            try:
                train, val = train_test_split(
                    np.arange(n_samples), test_size=self.validation_fraction, stratify=stratify, random_state=seed
                )
            except ValueError as exc:
                raise ValueError(f"cannot split off validation_fraction={self.validation_fraction!r}: {exc}") from None
            train.sort(), val.sort()  # row order does not change a fit; sorted rows read memory in order
        else:
            train = np.arange(n_samples)
        if validation:
            X_train, y_train = X[train], y_fit[train]
            w_train = None if sample_weight is None else sample_weight[train]
        else:  # every row trains: no copies
            X_train, y_train, w_train = X, y_fit, sample_weight
        if w_train is not None and not np.any(w_train > 0):
            raise ValueError("every sample has zero weight: nothing to fit")

        self.split_features_ = SplitFeatures.from_signature(self.signature_, self.pairs, self.splits)
        features = self.split_features_
        n_rows = X_train.shape[0]
        features.check_memory(n_rows, growth_nbytes(features, n_rows), "the bin codes and angles")
        bins = PlaneBins.fit_rows(features, X_train, self.max_bins, np.random.RandomState(seed), w_train)
        self.bin_thresholds_ = bins
        data = GrowthData(X_train, features, bins)
        options = GrowerOptions(
            self.max_leaf_nodes,
            self.max_depth,
            self.min_samples_leaf,
            float(self.l2_regularization),
            float(self.learning_rate),
            self.thresholds == "margin",
        )

        n_trees = loss.n_trees_per_iteration
        self.n_trees_per_iteration_ = n_trees
        self.baseline_ = loss.baseline(y_train, w_train)
        raw = np.repeat(self.baseline_[:, None], X_train.shape[0], axis=1)
        gh = np.empty((n_trees, X_train.shape[0], 2), dtype=np.float32)  # gradient and hessian side by side
        constant_hessian = loss.constant_hessian and w_train is None
        self.trees_ = []
        train_scores, val_scores = [], []
        if validation:
            X_val, y_val = X[val], y_fit[val]
            w_val = None if sample_weight is None else sample_weight[val]
            raw_val = np.repeat(self.baseline_[:, None], X_val.shape[0], axis=1)
            val_scores.append(-loss(y_val, raw_val, w_val))
        if self.do_early_stopping_:
            train_scores.append(-loss(y_train, raw, w_train))

        for _ in range(self.max_iter):
            loss.gradients(y_train, raw, w_train, gh)
            iteration = []
            for k in range(n_trees):
                tree, leaves = grow_tree(data, gh[k], constant_hessian, options)
                if loss.needs_leaf_update:
                    for start, end, node in leaves:
                        median = loss.leaf_update(y_train, raw[k], data.rows[start:end], w_train)
                        tree.value[node, 0] = self.learning_rate * median
                add_leaf_values(
                    raw[k], data.rows, leaves[:, 0].copy(), leaves[:, 1].copy(), tree.value[leaves[:, 2], 0].copy()
                )
                iteration.append(tree)
            self.trees_.append(iteration)
            if not self.do_early_stopping_:
                continue
            train_scores.append(-loss(y_train, raw, w_train))
            if validation:
                records, roots, depths, values = _pack_trees(iteration, features)
                _route(X_val, features, records, roots, depths, values, np.arange(n_trees), raw_val)
                val_scores.append(-loss(y_val, raw_val, w_val))
            if self._should_stop(val_scores if validation else train_scores):
                break
        self.n_iter_ = len(self.trees_)
        self.train_score_ = np.asarray(train_scores)
        self.validation_score_ = np.asarray(val_scores)
        self._pack()
        return self

    def _should_stop(self, scores) -> bool:
        """scikit-learn's rule: none of the last ``n_iter_no_change`` scores beats the one before by ``tol``."""
        reference = self.n_iter_no_change + 1
        if len(scores) < reference:
            return False
        reference_score = scores[-reference] + self.tol
        return not any(score > reference_score for score in scores[-reference + 1 :])

    # ------------------------------------------------------------- inference
    def _pack(self):
        """One routing table for the whole ensemble (built at the end of a fit or a load)."""
        flat = [tree for iteration in self.trees_ for tree in iteration]
        records, roots, depths, values = _pack_trees(flat, self.split_features_)
        outputs = np.tile(np.arange(self.n_trees_per_iteration_, dtype=np.int64), len(self.trees_))
        self._packed = (records, roots, depths, values, outputs)

    def _add_raw(self, X, raw, first_iteration, end_iteration):
        """Add iterations ``first_iteration .. end_iteration - 1`` to ``raw`` (n_trees_per_iteration, n)."""
        records, roots, depths, values, outputs = self._packed
        k = self.n_trees_per_iteration_
        sel = slice(first_iteration * k, end_iteration * k)
        _route(X, self.split_features_, records, roots[sel], depths[sel], values, outputs[sel], raw)

    def _raw_predict(self, X, check_input=True):
        """Raw scores of shape (n_samples, n_trees_per_iteration)."""
        check_is_fitted(self, "trees_")
        X = validate_points(self, X, reset=False, check_input=check_input)
        raw = np.repeat(self.baseline_[:, None], X.shape[0], axis=1)
        self._add_raw(X, raw, 0, self.n_iter_)
        return raw.T

    def _staged_raw_predict(self, X, check_input=True):
        check_is_fitted(self, "trees_")
        X = validate_points(self, X, reset=False, check_input=check_input)
        raw = np.repeat(self.baseline_[:, None], X.shape[0], axis=1)
        for i in range(self.n_iter_):
            self._add_raw(X, raw, i, i + 1)
            yield raw.T.copy()

    @property
    def plane_importances_(self) -> np.ndarray:
        """Normalised total gain per split plane over all trees, shape (n_split_features,).

        The planes are listed by ``split_features_.names()``, the ambient columns each
        reads by ``split_features_.columns()``; all zeros when no tree split.
        """
        check_is_fitted(self, "trees_")
        total = np.zeros(self.split_features_.n_features)
        for iteration in self.trees_:
            for tree in iteration:
                total += tree.feature_importances(normalize=False)
        s = total.sum()
        return total / s if s > 0 else total

    @property
    def feature_importances_(self) -> np.ndarray:
        """Normalised total gain per input column, shape ``(n_features_in_,)``.

        Summing to 1 (all zeros when no tree split): each split's gain goes to the
        columns it reads in proportion to the squared components of its boundary's unit
        normal, as for the product trees (:meth:`curvedtrees.trees.Tree.column_importances`).
        """
        check_is_fitted(self, "trees_")
        total = np.zeros(self.n_features_in_)
        for iteration in self.trees_:
            for tree in iteration:
                total += tree.column_importances(normalize=False)
        s = total.sum()
        return total / s if s > 0 else total

    @property
    def component_importances_(self) -> np.ndarray:
        """Normalised total gain per signature component, shape (n_components,)."""
        importances = self.plane_importances_
        out = np.zeros(len(self.signature_))
        np.add.at(out, self.split_features_.component, importances)
        return out

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = False
        return tags

    # ------------------------------------------------------------- the trees as estimators
    def tree_estimator(self, index: int):
        """Tree number ``index`` of the ensemble as a fitted product regression tree.

        Trees are numbered flat, ``index = iteration * n_trees_per_iteration_ + k`` (``k``:
        the class of a softmax tree, else 0), as a forest's ``estimators_`` are.

        Parameters
        ----------
        index : int
            In ``[0, n_iter_ * n_trees_per_iteration_)``.

        Returns
        -------
        ProductDecisionTreeRegressor
            Shares the ensemble's node arrays (nothing is copied): ``predict`` gives the
            tree's contribution to the raw score of its class (learning rate included),
            ``apply`` and ``decision_path`` route through the same stored boundaries as
            the ensemble. Its parameters are the ensemble's ``pairs``, ``splits``,
            ``max_depth`` and ``min_samples_leaf``.
        """
        from ..trees.kernels import tree_regressor

        check_is_fitted(self, "trees_")
        per_iteration = int(self.n_trees_per_iteration_)
        n_trees = len(self.trees_) * per_iteration
        if isinstance(index, bool) or not isinstance(index, Integral) or not 0 <= index < n_trees:
            raise IndexError(f"tree index must be an integer in [0, {n_trees}), got {index!r}")
        iteration, k = divmod(int(index), per_iteration)
        params = {
            "pairs": self.pairs,
            "splits": self.splits,
            "max_depth": self.max_depth,
            "min_samples_leaf": self.min_samples_leaf,
        }
        return tree_regressor(
            self.trees_[iteration][k],
            signature=self.signature_,
            split_features=self.split_features_,
            n_features_in=self.n_features_in_,
            params=params,
        )


class ProductGradientBoostingClassifier(ClassifierMixin, BaseProductGradientBoosting):
    """Gradient-boosted product trees for classification (log loss; softmax for 3+ classes).

    Each iteration fits one tree (two classes) or one tree per class (softmax) to the
    gradients and hessians of the log loss, leaf-wise on histograms of the split
    planes' values, as scikit-learn's HistGradientBoostingClassifier does. Splits are
    the product trees' geodesically convex cuts (a line through the origin of one
    coordinate plane of one component), and each stored boundary is the one with the
    largest geodesic margin between the node's training rows on its two sides.

    Parameters
    ----------
    signature : str, Signature, list of (curvature, dim) or None, default=None
        The product manifold, e.g. ``"H2 x S2 x E2"``. ``None``: Euclidean with one
        dimension per column.
    pairs : {"base", "all"}, default="base"
        Split planes per component, as in the product trees.
    splits : {"geodesic", "geodesic+radial"}, default="geodesic"
        As in the product trees: ``"geodesic+radial"`` adds, on each H component, a
        threshold on the distance from the origin (a ball about it) and on each S
        component one on the angle from each axis pole (a cap), each binned like a
        linear plane and placed halfway in the geometry's own distance
        (``thresholds="margin"``). The default fits exactly what it always did.
    loss : {"log_loss"}, default="log_loss"
    learning_rate : float, default=0.1
        Multiplies every leaf value; in (0, 1] (1: no shrinkage).
    max_iter : int, default=100
        Boosting iterations (trees per class).
    max_leaf_nodes : int or None, default=31
    max_depth : int or None, default=None
        Depth of the deepest leaf (the root has depth 0).
    min_samples_leaf : int, default=20
    l2_regularization : float, default=0.0
        Added to each leaf's hessian sum.
    max_bins : int, default=255
        Ordered bins of a linear plane, and axial bins of a circular plane (which then
        has ``2 * max_bins`` codes round the circle).
    early_stopping : "auto" or bool, default="auto"
        ``"auto"``: on when there are more than 10,000 rows.
    validation_fraction : int, float or None, default=0.1
        Rows held out (stratified) to score early stopping; ``None``: score the training rows.
    n_iter_no_change : int, default=10
    tol : float, default=1e-7
        Stop when none of the last ``n_iter_no_change`` scores beats the one before by ``tol``.
    thresholds : {"margin", "bins"}, default="margin"
        Where a chosen split's boundary goes: the maximum-margin geodesic boundary
        between the node's nearest training rows, or the bin edge (scikit-learn's).
    random_state : int, RandomState instance or None, default=None
        Draws the validation split and the binning subsample (more than 200,000 rows).

    Attributes
    ----------
    trees_ : list of list of Tree
        ``n_iter_`` iterations of ``n_trees_per_iteration_`` trees; ``value`` holds each
        leaf's contribution to the raw score (learning rate included) and
        ``weighted_n_node_samples`` the node's hessian sum.
    baseline_ : ndarray of shape (n_trees_per_iteration_,)
        The raw score before the first tree.
    n_iter_ : int
    n_trees_per_iteration_ : int
    do_early_stopping_ : bool
    train_score_, validation_score_ : ndarray of shape (n_iter_ + 1,) or (0,)
        Negative loss before the first and after each iteration (empty without early
        stopping; ``validation_score_`` is empty without a validation set).
    bin_thresholds_ : PlaneBins
    classes_ : ndarray of shape (n_classes,)
    n_classes_ : int
    n_features_in_ : int
    signature_ : Signature
    split_features_ : SplitFeatures
    feature_importances_ : ndarray of shape (n_features_in_,)
        Gain importance per input column, summing to 1 (all zeros
        without splits); a split's share goes to the columns it reads in proportion to
        the squared components of its boundary's unit normal.
    plane_importances_ : ndarray of shape (n_split_features,)
        The same per split plane (``split_features_.names()``).
    component_importances_ : ndarray of shape (n_components,)

    Examples
    --------
    >>> from curvedtrees.boosting import ProductGradientBoostingClassifier
    >>> from curvedtrees import make_classification
    >>> X, y = make_classification("H2 x S2", n_samples=300, random_state=0)
    >>> model = ProductGradientBoostingClassifier(signature="H2 x S2", max_iter=20).fit(X, y)
    >>> model.n_iter_
    20
    """

    _parameter_constraints: ClassVar[dict] = {
        **BaseProductGradientBoosting._parameter_constraints,
        "loss": [StrOptions({"log_loss"})],
    }

    def _encode_y(self, y):
        check_classification_targets(y)
        self.classes_, codes = np.unique(y, return_inverse=True)
        self.n_classes_ = len(self.classes_)
        if self.n_classes_ < 2:
            raise ValueError(f"y has only one class ({self.classes_[0]!r}); a classifier needs at least 2 classes")
        return codes.astype(np.float64), self.n_classes_

    def decision_function(self, X, check_input=True):
        """Raw scores: shape (n_samples,) for two classes, (n_samples, n_classes) otherwise."""
        raw = self._raw_predict(X, check_input)
        return raw[:, 0] if raw.shape[1] == 1 else raw

    def staged_decision_function(self, X, check_input=True):
        """``decision_function`` after each iteration (a generator)."""
        for raw in self._staged_raw_predict(X, check_input):
            yield raw[:, 0] if raw.shape[1] == 1 else raw

    def _proba(self, raw):
        if raw.shape[1] == 1:
            p = 1.0 / (1.0 + np.exp(-raw[:, 0]))
            return np.column_stack([1.0 - p, p])
        top = raw.max(axis=1, keepdims=True)
        e = np.exp(raw - top)
        return e / e.sum(axis=1, keepdims=True)

    def predict_proba(self, X, check_input=True):
        """Class probabilities, shape (n_samples, n_classes)."""
        return self._proba(self._raw_predict(X, check_input))

    def predict_log_proba(self, X):
        """Logarithm of ``predict_proba``."""
        with np.errstate(divide="ignore"):
            return np.log(self.predict_proba(X))

    def staged_predict_proba(self, X, check_input=True):
        """``predict_proba`` after each iteration (a generator)."""
        for raw in self._staged_raw_predict(X, check_input):
            yield self._proba(raw)

    def predict(self, X, check_input=True):
        """Most probable class, shape (n_samples,)."""
        raw = self._raw_predict(X, check_input)
        return self.classes_[np.argmax(raw, axis=1) if raw.shape[1] > 1 else (raw[:, 0] > 0).astype(np.intp)]

    def staged_predict(self, X, check_input=True):
        """``predict`` after each iteration (a generator)."""
        for raw in self._staged_raw_predict(X, check_input):
            yield self.classes_[np.argmax(raw, axis=1) if raw.shape[1] > 1 else (raw[:, 0] > 0).astype(np.intp)]


class ProductGradientBoostingRegressor(RegressorMixin, BaseProductGradientBoosting):
    """Gradient-boosted product trees for regression.

    Same parameters as :class:`ProductGradientBoostingClassifier`, with
    ``loss="squared_error"`` (half squared error, the default) or
    ``"absolute_error"`` (each leaf then predicts the median residual of its rows,
    as scikit-learn does); ``thresholds``, ``signature``, ``pairs`` and ``splits`` as there.

    Examples
    --------
    >>> from curvedtrees import ProductGradientBoostingRegressor, make_regression
    >>> X, y = make_regression("H2 x S1", n_samples=300, random_state=0)
    >>> model = ProductGradientBoostingRegressor(signature="H2 x S1", max_iter=10).fit(X, y)
    >>> model.n_iter_, model.predict(X[:2]).shape
    (10, (2,))
    """

    _parameter_constraints: ClassVar[dict] = {
        **BaseProductGradientBoosting._parameter_constraints,
        "loss": [StrOptions({"squared_error", "absolute_error"})],
    }

    def __init__(
        self,
        *,
        signature=None,
        pairs="base",
        splits="geodesic",
        loss="squared_error",
        learning_rate=0.1,
        max_iter=100,
        max_leaf_nodes=31,
        max_depth=None,
        min_samples_leaf=20,
        l2_regularization=0.0,
        max_bins=255,
        early_stopping="auto",
        validation_fraction=0.1,
        n_iter_no_change=10,
        tol=1e-7,
        thresholds="margin",
        random_state=None,
    ):
        super().__init__(
            signature=signature,
            pairs=pairs,
            splits=splits,
            loss=loss,
            learning_rate=learning_rate,
            max_iter=max_iter,
            max_leaf_nodes=max_leaf_nodes,
            max_depth=max_depth,
            min_samples_leaf=min_samples_leaf,
            l2_regularization=l2_regularization,
            max_bins=max_bins,
            early_stopping=early_stopping,
            validation_fraction=validation_fraction,
            n_iter_no_change=n_iter_no_change,
            tol=tol,
            thresholds=thresholds,
            random_state=random_state,
        )

    def _encode_y(self, y):
        y = np.ascontiguousarray(y, dtype=np.float64)
        if not np.all(np.isfinite(y)):
            raise ValueError("Input y contains NaN or inf")
        return y, 1

    def predict(self, X, check_input=True):
        """Predicted targets, shape (n_samples,)."""
        return self._raw_predict(X, check_input)[:, 0]

    def staged_predict(self, X, check_input=True):
        """``predict`` after each iteration (a generator)."""
        for raw in self._staged_raw_predict(X, check_input):
            yield raw[:, 0]
