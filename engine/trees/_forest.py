"""Random forests of product decision trees.

As in scikit-learn: one integer seed per tree is drawn from ``random_state`` before
any tree is grown, each tree draws its bootstrap (a weight vector of counts) and its
plane order from that seed, and trees are grown in threads (the compiled builder
releases the GIL). So the result is identical for every ``n_jobs``, and the same
``random_state`` with ``warm_start`` grows the same trees as one big fit.

Forests validate the input and compute the split-plane values once, and every tree
reads them: the data is never copied per tree. Per tree, the fit holds one float64
weight per row (bootstrap counts times user weights, counted in place from draws
made in small chunks) and, for the in-bag rows, int32 row ids and the builder's
buffers (curvedtrees.trees._builder); they are freed when the tree is done.

Ctrl-C during a fit raises KeyboardInterrupt within a fraction of a second, stops
every tree's thread and leaves the forest unfitted (curvedtrees.trees._interrupt).
"""

from __future__ import annotations

import itertools
import numbers
import warnings
from typing import Self

import numpy as np
from joblib import Parallel, delayed, effective_n_jobs
from scipy import sparse
from sklearn.base import BaseEstimator, RegressorMixin, is_classifier
from sklearn.utils.validation import check_is_fitted, check_random_state

from ._builder import add_draws, build_tree, forest_accumulate, pack_forest
from ._classes import (
    _MAX_INT,
    ProbabilisticClassifierMixin,
    ProductDecisionTreeClassifier,
    ProductDecisionTreeRegressor,
    resolve_max_features,
    validate_points,
)
from ._features import LIFT, TIMELIKE
from ._interrupt import BuildCancelled, clear_fitted, new_cancel_flag, raise_flag_on_sigint
from ._tree import Tree

__all__ = ["ProductRandomForestClassifier", "ProductRandomForestRegressor"]


# Bootstrap rows are drawn this many at a time: 0.5 MB of draws at once instead of 8
# bytes per row. RandomState draws each integer on its own, so the chunks continue one
# stream and give exactly the rows of a single randint(0, n, n_draws) call.
_DRAW_CHUNK = 1 << 16
# Row ids fit in int32 below this many rows (half the memory of int64 per tree).
_INT32_ROWS = np.iinfo(np.int32).max
# From this many rows on, prediction first resolves the splits on columns that hold one
# value in every row (a region picture holds the components it does not show at a
# reference point): a few milliseconds that save every row the visits to those nodes.
_RESOLVE_ROWS = 20_000
# Prediction gives each thread at least this many rows: below it, starting a thread
# costs more than routing the rows through a 100-tree forest.
_ROWS_PER_THREAD = 4096


def _bootstrap_weights(seed: int, weight: np.ndarray, n_draws: int) -> np.ndarray:
    """A tree's weights: ``weight`` times how often each row is drawn (scikit-learn's recipe).

    Parameters
    ----------
    seed : int
    weight : ndarray of shape (n_samples,), float64
    n_draws : int

    Returns
    -------
    ndarray of shape (n_samples,), float64
    """
    random_state = check_random_state(seed)
    n_samples = weight.shape[0]
    out = np.zeros(n_samples)
    for start in range(0, n_draws, _DRAW_CHUNK):
        add_draws(random_state.randint(0, n_samples, min(_DRAW_CHUNK, n_draws - start)), out)
    out *= weight
    return out


def _grow_tree(forest, template, seed, X, V, y_code, y_value, weight, params, max_features, n_draws, cancel):
    """Grow one tree of ``forest`` from its seed (bootstrap counts, then plane order).

    ``cancel`` is the forest's shared flag: a raised flag skips the tree or stops its
    build (BuildCancelled).
    """
    if cancel[0] != 0:
        raise BuildCancelled("the forest fit was cancelled")
    tree = forest._make_tree(seed)
    tree.n_features_in_ = template.n_features_in_
    tree.signature_ = template.signature_
    tree.split_features_ = template.split_features_
    tree.max_features_ = max_features
    if is_classifier(forest):
        tree.classes_ = template.classes_
        tree.n_classes_ = template.n_classes_
    if forest.bootstrap:
        weight = _bootstrap_weights(seed, weight, n_draws)
    tree_seed = int(check_random_state(seed).randint(1, _MAX_INT))
    samples = np.flatnonzero(weight > 0)
    if samples.size == 0:
        raise ValueError("every sample has zero weight: nothing to fit")
    if X.shape[0] <= _INT32_ROWS:
        samples = samples.astype(np.int32)
    features = template.split_features_
    n_outputs = template.n_classes_ if is_classifier(forest) else 1
    raw = build_tree(
        X,
        V,
        features.kind,
        features.col_i,
        features.col_j,
        y_code,
        y_value,
        weight,
        samples,
        n_outputs,
        is_classifier(forest),
        params["criterion"],
        params["max_depth"],
        params["min_samples_split"],
        params["min_samples_leaf"],
        params["min_impurity_decrease"],
        max_features,
        tree_seed,
        cancel=cancel,
        geometry=features.geometry,
        radius=features.radius,
    )
    tree.tree_ = Tree.from_builder(features, raw, n_outputs, is_classifier(forest))
    return tree


def resolve_constant_splits(nodes, roots, X):
    """Skip the splits whose columns hold the same value in every row of ``X``.

    Such a split sends every row to the same child, so parents (and roots) are
    pointed past it to that child; each row reaches the leaf it reached before.
    The test is the routing kernel's own float operation on the shared value.

    Parameters
    ----------
    nodes, roots
        From :func:`pack_forest` (not modified).
    X : ndarray of shape (n_samples, ambient_dim), float64

    Returns
    -------
    nodes, roots
        The same arrays when no column is constant, else rerouted copies.
    """
    first = X[0]
    # Bit patterns, not values: -0.0 and 0.0 compare equal but may route differently.
    constant = np.all(X.view(np.int64) == first.view(np.int64), axis=0)
    if not constant.any():
        return nodes, roots
    left, right = nodes["left"].astype(np.int64), nodes["right"].astype(np.int64)
    internal = left != -1
    kind = nodes["col_i"] & 3
    threshold_only = kind == LIFT  # x_j <= a (radial splits are packed as LIFT): col_i is not read
    uses_i = internal & ~threshold_only
    col_i = np.where(uses_i, nodes["col_i"] >> 2, 0)
    col_j = np.where(internal, nodes["col_j"], 0)
    fixed = internal & constant[col_j] & (~uses_i | constant[col_i])
    if not fixed.any():
        return nodes, roots
    xi, xj, a, b = first[col_i], first[col_j], nodes["a"], nodes["b"]
    with np.errstate(all="ignore"):  # values of the unused branches and of leaves
        goes_left = np.where(threshold_only, xj <= a, np.where(kind == TIMELIKE, xj / xi <= a, a * xi + b * xj <= 0.0))
    target = np.arange(left.shape[0])
    target[fixed] = np.where(goes_left, left, right)[fixed]
    while True:  # pointer jumping: each pass halves the remaining chains of resolved splits
        jumped = target[target]
        if np.array_equal(jumped, target):
            break
        target = jumped
    out = nodes.copy()
    out["left"][internal] = target[left[internal]]
    out["right"][internal] = target[right[internal]]
    return out, target[roots]


def _short(labels: np.ndarray) -> str:
    """A class list for a message, cut after a few labels."""
    shown = ", ".join(repr(label.item() if hasattr(label, "item") else label) for label in labels[:6])
    return f"[{shown}{', ...' if labels.size > 6 else ''}] ({labels.size} classes)"


class BaseProductForest(BaseEstimator):
    """Shared machinery of the product random forests (not public)."""

    _tree_class = ProductDecisionTreeClassifier

    def __init__(
        self,
        n_estimators=100,
        *,
        signature=None,
        pairs="base",
        splits="geodesic",
        criterion="gini",
        max_depth=None,
        min_samples_split=2,
        min_samples_leaf=1,
        min_impurity_decrease=0.0,
        max_features="sqrt",
        bootstrap=True,
        max_samples=None,
        n_jobs=None,
        random_state=None,
        warm_start=False,
    ):
        self.n_estimators = n_estimators
        self.signature = signature
        self.pairs = pairs
        self.splits = splits
        self.criterion = criterion
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.min_impurity_decrease = min_impurity_decrease
        self.max_features = max_features
        self.bootstrap = bootstrap
        self.max_samples = max_samples
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.warm_start = warm_start

    def _make_tree(self, seed):
        return self._tree_class(
            signature=self.signature,
            pairs=self.pairs,
            splits=self.splits,
            criterion=self.criterion,
            max_depth=self.max_depth,
            min_samples_split=self.min_samples_split,
            min_samples_leaf=self.min_samples_leaf,
            min_impurity_decrease=self.min_impurity_decrease,
            max_features=self.max_features,
            random_state=seed,
        )

    def _n_bootstrap(self, n_samples: int) -> int:
        if self.max_samples is None:
            return n_samples
        if isinstance(self.max_samples, numbers.Integral) and not isinstance(self.max_samples, bool):
            if not 1 <= self.max_samples <= n_samples:
                raise ValueError(f"max_samples must be in [1, n_samples={n_samples}], got {self.max_samples}")
            return int(self.max_samples)
        if isinstance(self.max_samples, numbers.Real) and 0.0 < self.max_samples <= 1.0:
            return max(1, round(n_samples * self.max_samples))
        raise ValueError(
            f"max_samples must be None, an int in [1, n_samples] or a float in (0, 1], got {self.max_samples!r}"
        )

    def fit(self, X, y, sample_weight=None, check_input=True) -> Self:
        """Grow the forest.

        Parameters
        ----------
        X : array-like of shape (n_samples, ambient_dim)
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), default=None
        check_input : bool, default=True
            Check that every row lies on the manifold.

        Returns
        -------
        self
        """
        if not isinstance(self.n_estimators, numbers.Integral) or self.n_estimators < 1:
            raise ValueError(f"n_estimators must be an integer >= 1, got {self.n_estimators!r}")
        if not self.bootstrap and self.max_samples is not None:
            raise ValueError("max_samples applies to bootstrap samples only: set bootstrap=True or max_samples=None")
        # Everything is validated and derived on a template tree first: the forest itself
        # changes only once every tree has grown, so a refused or interrupted fit never
        # leaves it half-updated.
        template = self._make_tree(None)
        X, y_code, y_value, weight = template._prepare_fit(X, y, sample_weight, check_input)
        n_samples = X.shape[0]
        params = template._validate_params_for(n_samples)
        max_features = resolve_max_features(self.max_features, template.split_features_.n_features)
        n_draws = self._n_bootstrap(n_samples)

        warm = self.warm_start and hasattr(self, "estimators_")
        if warm:
            self._check_warm_start(template)
        kept: list = list(self.estimators_) if warm else []
        n_more = int(self.n_estimators) - len(kept)
        if n_more < 0:
            raise ValueError(
                f"n_estimators={self.n_estimators} must be at least len(estimators_)={len(kept)} "
                "when warm_start is True"
            )
        if n_more == 0:
            warnings.warn(
                "Warm-start fitting without increasing n_estimators does not fit new trees.", UserWarning, stacklevel=2
            )
            return self
        random_state = check_random_state(self.random_state)
        if kept:
            # Advance the stream past the seeds already used, so that growing in steps
            # gives the same trees as one fit.
            random_state.randint(_MAX_INT, size=len(kept))
        seeds = random_state.randint(_MAX_INT, size=n_more)

        V = template.split_features_.values(X)
        cancel = new_cancel_flag()
        try:
            with raise_flag_on_sigint(cancel):
                # Data travels as arguments, not in a closure, so that a distributed joblib
                # backend (Dask) can ship the arrays to its workers once instead of per task.
                trees = Parallel(n_jobs=self.n_jobs, prefer="threads")(
                    delayed(_grow_tree)(
                        self,
                        template,
                        int(seed),
                        X,
                        V,
                        y_code,
                        y_value,
                        weight,
                        params,
                        max_features,
                        n_draws,
                        cancel,
                    )
                    for seed in seeds
                )
        except (KeyboardInterrupt, BuildCancelled) as exc:
            cancel[0] = 1  # any tree still running stops at its next check
            clear_fitted(self)
            if isinstance(exc, KeyboardInterrupt):
                raise
            raise KeyboardInterrupt("the forest fit was cancelled") from exc

        # Fitted attributes shared with every tree.
        self.n_features_in_ = template.n_features_in_
        if hasattr(template, "feature_names_in_"):
            self.feature_names_in_ = template.feature_names_in_
        elif hasattr(self, "feature_names_in_"):
            del self.feature_names_in_
        self.signature_ = template.signature_
        self.split_features_ = template.split_features_
        if is_classifier(self):
            self.classes_ = template.classes_
            self.n_classes_ = template.n_classes_
        self.estimators_: list = kept + trees
        # The holder of the packed routing tables exists from the fit on, so that predicting
        # fills it without adding attributes (scikit-learn checks predict leaves __dict__ alone).
        self._routing: dict = {}
        return self

    def _check_warm_start(self, template) -> None:
        """Refuse to add trees grown on different data to a fitted forest.

        The kept trees route rows by their own ambient columns, split planes and
        classes; trees of another width, signature, ``pairs``, ``splits`` or class set would read
        other columns (out of bounds) or add up probabilities of other classes.
        """
        restart = "; the trees already grown cannot be combined with new ones (fit with warm_start=False to start over)"
        if template.n_features_in_ != self.n_features_in_:
            raise ValueError(
                f"warm_start: X has {template.n_features_in_} columns, but the fitted forest's trees read "
                f"{self.n_features_in_}{restart}"
            )
        if template.signature_ != self.signature_:
            raise ValueError(
                f"warm_start: the signature '{template.signature_}' differs from the fitted forest's "
                f"'{self.signature_}'{restart}"
            )
        if template.split_features_.pairs != self.split_features_.pairs:
            raise ValueError(
                f"warm_start: pairs={template.split_features_.pairs!r} differs from the fitted forest's "
                f"pairs={self.split_features_.pairs!r}{restart}"
            )
        if template.split_features_.splits != self.split_features_.splits:
            raise ValueError(
                f"warm_start: splits={template.split_features_.splits!r} differs from the fitted forest's "
                f"splits={self.split_features_.splits!r}{restart}"
            )
        if is_classifier(self) and not (
            template.classes_.shape == self.classes_.shape and np.array_equal(template.classes_, self.classes_)
        ):
            raise ValueError(
                f"warm_start: y has the classes {_short(template.classes_)}, but the fitted forest was grown on "
                f"{_short(self.classes_)}{restart}"
            )

    # ------------------------------------------------------------- inference
    def _validate_X_predict(self, X, check_input=True):
        check_is_fitted(self, "estimators_")
        return validate_points(self, X, reset=False, check_input=check_input)

    def _routing_tables(self):
        """The trees' routing records packed into flat arrays (:func:`pack_forest`), built once.

        Kept in ``_routing``, a private holder that model files do not store, and
        rebuilt whenever ``estimators_`` holds other trees (a refit or ``warm_start``).
        """
        holder = self.__dict__.get("_routing")
        if holder is None:
            holder = self._routing = {}
        trees = [estimator.tree_ for estimator in self.estimators_]
        cached = holder.get("trees")
        if cached is None or len(cached) != len(trees) or any(a is not b for a, b in zip(cached, trees)):
            holder["tables"] = pack_forest(trees)
            holder["trees"] = trees
        return holder["tables"]

    def _tree_outputs(self, X):
        """Mean of every tree's leaf values, shape (n_samples, n_outputs).

        One compiled call walks all the trees for a block of rows at a time
        (:func:`forest_accumulate`); threads (``n_jobs``) take contiguous row ranges.
        The sum runs over the trees in order, so it equals summing the trees'
        predictions one by one, whatever ``n_jobs``.
        """
        nodes, roots, leaf_values = self._routing_tables()
        n_samples = X.shape[0]
        if n_samples >= _RESOLVE_ROWS:
            nodes, roots = resolve_constant_splits(nodes, roots, X)
        out = np.zeros((n_samples, leaf_values.shape[1]))
        n_threads = max(1, min(effective_n_jobs(self.n_jobs), n_samples // _ROWS_PER_THREAD))
        bounds = np.linspace(0, n_samples, n_threads + 1).astype(np.int64)
        if n_threads == 1:
            forest_accumulate(X, 0, n_samples, nodes, roots, leaf_values, out)
        else:
            # Threads (the kernel releases the GIL) rather than numba's own parallel loops:
            # numba's fallback threading layer aborts when two app sessions predict at once.
            Parallel(n_jobs=n_threads, prefer="threads", require="sharedmem")(
                delayed(forest_accumulate)(X, int(a), int(b), nodes, roots, leaf_values, out)
                for a, b in itertools.pairwise(bounds)
            )
        out /= len(self.estimators_)
        return out

    def apply(self, X, check_input=True):
        """Leaf index of each row in each tree, shape (n_samples, n_estimators)."""
        X = self._validate_X_predict(X, check_input)
        return np.stack([tree.tree_.apply(X) for tree in self.estimators_], axis=1)

    def decision_path(self, X, check_input=True):
        """Node indicator of shape (n_samples, total nodes) and the column offsets of each tree."""
        X = self._validate_X_predict(X, check_input)
        paths = [tree.tree_.decision_path(X) for tree in self.estimators_]
        n_nodes_ptr = np.cumsum([0] + [p.shape[1] for p in paths])
        return sparse.hstack(paths).tocsr(), n_nodes_ptr

    @property
    def plane_importances_(self) -> np.ndarray:
        """Mean over trees of each tree's normalised plane importances, shape (n_split_features,).

        Trees without splits are left out (scikit-learn's rule); all zeros when every
        tree is a single leaf. Planes as in ``split_features_.names()``.
        """
        check_is_fitted(self, "estimators_")
        importances = [t.plane_importances_ for t in self.estimators_ if t.tree_.node_count > 1]
        if not importances:
            return np.zeros(self.split_features_.n_features)
        mean = np.mean(importances, axis=0)
        return mean / mean.sum()

    @property
    def feature_importances_(self) -> np.ndarray:
        """Normalised importance per input column, shape ``(n_features_in_,)``.

        The mean over trees with splits of each tree's ``feature_importances_``,
        summing to 1 (all zeros when every tree is a single leaf); each split's share
        goes to the columns it reads in proportion to the squared components of its
        boundary's unit normal (:meth:`Tree.column_importances`).
        """
        check_is_fitted(self, "estimators_")
        importances = [t.tree_.column_importances() for t in self.estimators_ if t.tree_.node_count > 1]
        if not importances:
            return np.zeros(self.n_features_in_)
        mean = np.mean(importances, axis=0)
        return mean / mean.sum()

    @property
    def component_importances_(self) -> np.ndarray:
        """Normalised importance per signature component, shape (n_components,)."""
        check_is_fitted(self, "estimators_")
        out = np.zeros(len(self.signature_))
        np.add.at(out, self.split_features_.component, self.plane_importances_)
        return out

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = False
        return tags


class ProductRandomForestClassifier(ProbabilisticClassifierMixin, BaseProductForest):
    """A random forest of :class:`ProductDecisionTreeClassifier` trees.

    Parameters
    ----------
    n_estimators : int, default=100
    signature, pairs, splits, criterion, max_depth, min_samples_split, min_samples_leaf, \
min_impurity_decrease, random_state
        As for :class:`ProductDecisionTreeClassifier`.
    max_features : int, float, {"sqrt", "log2"} or None, default="sqrt"
        Split planes drawn per node.
    bootstrap : bool, default=True
        Grow each tree on a bootstrap sample (drawn as a vector of counts).
    max_samples : int, float or None, default=None
        Bootstrap sample size: ``n_samples`` if None, a count, or a fraction.
    n_jobs : int or None, default=None
        Threads for fitting and prediction (results do not depend on it).
    warm_start : bool, default=False
        Keep the fitted trees and add ``n_estimators - len(estimators_)`` more.

    Attributes
    ----------
    estimators_ : list of ProductDecisionTreeClassifier
    classes_, n_classes_, n_features_in_, signature_, split_features_
    feature_importances_ : ndarray of shape (n_features_in_,)
        Mean impurity-decrease importance per input column, summing to 1 (all zeros
        when every tree is a single leaf); a split's share goes to the columns it reads
        in proportion to the squared components of its boundary's unit normal.
    plane_importances_ : ndarray of shape (n_split_features,)
    component_importances_ : ndarray of shape (n_components,)

    Examples
    --------
    >>> from curvedtrees import ProductRandomForestClassifier, make_classification
    >>> X, y = make_classification("H2 x S2 x E2", n_samples=300, random_state=0)
    >>> forest = ProductRandomForestClassifier(20, signature="H2 x S2 x E2", max_depth=5, random_state=0)
    >>> forest.fit(X, y).predict_proba(X[:2]).shape
    (2, 8)
    >>> len(forest.estimators_), forest.component_importances_.shape
    (20, (3,))
    """

    _tree_class = ProductDecisionTreeClassifier

    def predict_proba(self, X, check_input=True):
        """Mean of the trees' class fractions, shape (n_samples, n_classes)."""
        return self._tree_outputs(self._validate_X_predict(X, check_input))


class ProductRandomForestRegressor(RegressorMixin, BaseProductForest):
    """A random forest of :class:`ProductDecisionTreeRegressor` trees.

    Same parameters as :class:`ProductRandomForestClassifier`, with
    ``criterion="squared_error"`` and ``max_features=1.0`` by default.

    Examples
    --------
    >>> from curvedtrees import ProductRandomForestRegressor, make_regression
    >>> X, y = make_regression("S2 x S1", n_samples=200, random_state=0)
    >>> forest = ProductRandomForestRegressor(10, signature="S2 x S1", random_state=0).fit(X, y)
    >>> forest.predict(X[:4]).shape
    (4,)
    >>> bool(forest.score(X, y) > 0.5)
    True
    """

    _tree_class = ProductDecisionTreeRegressor

    def __init__(
        self,
        n_estimators=100,
        *,
        signature=None,
        pairs="base",
        splits="geodesic",
        criterion="squared_error",
        max_depth=None,
        min_samples_split=2,
        min_samples_leaf=1,
        min_impurity_decrease=0.0,
        max_features=1.0,
        bootstrap=True,
        max_samples=None,
        n_jobs=None,
        random_state=None,
        warm_start=False,
    ):
        super().__init__(
            n_estimators,
            signature=signature,
            pairs=pairs,
            splits=splits,
            criterion=criterion,
            max_depth=max_depth,
            min_samples_split=min_samples_split,
            min_samples_leaf=min_samples_leaf,
            min_impurity_decrease=min_impurity_decrease,
            max_features=max_features,
            bootstrap=bootstrap,
            max_samples=max_samples,
            n_jobs=n_jobs,
            random_state=random_state,
            warm_start=warm_start,
        )

    def predict(self, X, check_input=True):
        """Mean of the trees' predictions, shape (n_samples,)."""
        return self._tree_outputs(self._validate_X_predict(X, check_input))[:, 0]
