"""Product-space decision trees: the scikit-learn estimators.

The estimator layer only validates input, resolves parameters and wires the
layers together: :class:`~curvedtrees.trees._features.SplitFeatures` turns points into
split-plane values, :func:`~curvedtrees.trees._builder.build_tree` grows the tree, and
:class:`~curvedtrees.trees._tree.Tree` stores and routes it.
"""

from __future__ import annotations

import math
import numbers
from numbers import Integral, Real
from typing import ClassVar, Self

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin, is_classifier
from sklearn.utils._param_validation import Interval, RealNotInt, StrOptions
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import _check_sample_weight, check_is_fitted, check_random_state

from ._builder import CRITERIA, build_tree
from ._features import SPLIT_MODES, SplitFeatures
from ._interrupt import clear_fitted
from ._tree import Tree
from .kernels import validate_fit_input, validate_points

__all__ = ["ProductDecisionTreeClassifier", "ProductDecisionTreeRegressor"]

_MAX_INT = np.iinfo(np.int32).max
_UNLIMITED_DEPTH = np.iinfo(np.int32).max

# Sample weights. The criteria sum weights and square the sums (gini's sum of squared
# class weights, the node weight squared), and forests multiply weights by bootstrap
# counts of up to n_samples: weights near 1e308 overflow (NaN probabilities) and
# weights near 5e-324 square to zero (division by zero). Weights whose largest value
# lies outside [2**-200, 2**200] are divided by a power of two that brings it into
# [1, 2): exact, so the splits are those of the unscaled weights, and inside that
# range nothing changes. Then sums stay below 2**262 and their squares below 2**524.
_WEIGHT_RANGE = 2.0**200
# A positive weight below this fraction of the largest would square to a subnormal or
# zero (2**-500 squared is 2**-1000, still a normal float): refused, not silently lost.
_WEIGHT_SPAN = 2.0**-300
# Regression targets: the squared-error criterion sums w y^2 over a node; with the
# weight sums above (< 2**262) targets up to 1e100 (2**333) keep that below 2**1000.
_MAX_TARGET = 1e100


def check_sample_weight(sample_weight, X) -> np.ndarray:
    """Validated float64 weights of shape (n_samples,), rescaled by a power of two if extreme.

    Raises ValueError for NaN, infinite or negative weights, and for positive weights
    so much smaller than the largest (below ``2**-300`` of it) that the criteria would
    square them to zero; see ``_WEIGHT_RANGE`` for the rescaling.
    """
    weight = _check_sample_weight(sample_weight, X, dtype=np.float64, ensure_non_negative=True)
    largest = float(weight.max()) if weight.size else 0.0
    if largest > 0 and not 1.0 / _WEIGHT_RANGE <= largest <= _WEIGHT_RANGE:
        # frexp: largest = m 2**e with m in [0.5, 1); ldexp scales exactly (no rounding).
        weight = np.ldexp(weight, 1 - int(np.frexp(largest)[1]))
        largest = float(weight.max())
    tiny = (weight > 0) & (weight < largest * _WEIGHT_SPAN)
    if np.any(tiny):
        rows = np.flatnonzero(tiny)
        raise ValueError(
            f"sample_weight spans too many orders of magnitude: {len(rows)} positive weight(s) (rows "
            f"{', '.join(map(str, rows[:5]))}{' ...' if len(rows) > 5 else ''}) are below 2**-300 (about 5e-91) "
            "times the largest, and the split criteria would square them to zero; set them to 0 or raise them"
        )
    return weight


def check_class_labels(y: np.ndarray) -> None:
    """Refuse targets that are not class labels (scikit-learn's check, with whole floats fixed).

    scikit-learn tells discrete from continuous float labels by comparing ``y`` with
    ``y.astype(int)``, which overflows beyond 2**63, so 1e19, 2e19 and 3e19 would read as
    continuous. Finite whole numbers are class labels whatever their size, compared as
    the floats they are (never cast to int64).
    """
    if y.dtype.kind == "f" and y.ndim == 1 and np.all(np.isfinite(y)) and np.all(y == np.trunc(y)):
        return
    check_classification_targets(y)


def _resolve_count(value, n_samples, minimum):
    """Integer count from an int or a fraction of ``n_samples`` (scikit-learn semantics).

    ``value`` was checked by ``_parameter_constraints`` (an int >= minimum or a float in (0, 1]).
    """
    if isinstance(value, numbers.Integral):
        return int(value)
    return max(minimum, math.ceil(value * n_samples))


def resolve_max_features(max_features, n_features: int) -> int:
    """Number of split planes drawn per node."""
    if max_features is None:
        return n_features
    if isinstance(max_features, str):
        if max_features == "sqrt":
            return max(1, int(math.sqrt(n_features)))
        if max_features == "log2":
            return max(1, int(math.log2(n_features)))
        raise ValueError(f"max_features must be None, 'sqrt', 'log2', an int or a float, got {max_features!r}")
    if isinstance(max_features, numbers.Integral) and not isinstance(max_features, bool):
        if not 1 <= max_features:
            raise ValueError(f"max_features must be >= 1, got {max_features}")
        return min(int(max_features), n_features)
    if isinstance(max_features, numbers.Real) and 0.0 < max_features <= 1.0:
        return max(1, int(max_features * n_features))
    raise ValueError(
        f"max_features must be None, 'sqrt', 'log2', an int >= 1 or a float in (0, 1], got {max_features!r}"
    )


class BaseProductTree(BaseEstimator):
    """Shared machinery of the product decision trees (not public)."""

    # scikit-learn's declarative parameter checks (``_validate_params`` at the start of
    # fit): NaN and infinity fall outside every Interval, so they are refused by name.
    _parameter_constraints: ClassVar[dict] = {
        "signature": "no_validation",  # parsed, with its own messages, by Signature.parse
        "pairs": [StrOptions({"base", "all"})],
        "splits": [StrOptions(set(SPLIT_MODES))],
        "criterion": [StrOptions({"gini", "entropy", "log_loss"})],
        "max_depth": [Interval(Integral, 1, None, closed="left"), None],
        "min_samples_split": [
            Interval(Integral, 2, None, closed="left"),
            Interval(RealNotInt, 0.0, 1.0, closed="right"),
        ],
        "min_samples_leaf": [
            Interval(Integral, 1, None, closed="left"),
            Interval(RealNotInt, 0.0, 1.0, closed="right"),
        ],
        "min_impurity_decrease": [Interval(Real, 0.0, None, closed="left")],
        "max_features": [
            Interval(Integral, 1, None, closed="left"),
            Interval(RealNotInt, 0.0, 1.0, closed="right"),
            StrOptions({"sqrt", "log2"}),
            None,
        ],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        *,
        signature=None,
        pairs="base",
        splits="geodesic",
        criterion="gini",
        max_depth=None,
        min_samples_split=2,
        min_samples_leaf=1,
        min_impurity_decrease=0.0,
        max_features=None,
        random_state=None,
    ):
        self.signature = signature
        self.pairs = pairs
        self.splits = splits
        self.criterion = criterion
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.min_impurity_decrease = min_impurity_decrease
        self.max_features = max_features
        self.random_state = random_state

    # --------------------------------------------------------------- fitting
    def _validate_params_for(self, n_samples: int) -> dict:
        """The builder's parameters for ``n_samples`` rows.

        Called after ``_validate_params()`` (in ``_prepare_fit``), so every value already
        satisfies ``_parameter_constraints``; this only turns fractions into counts.
        """
        max_depth = _UNLIMITED_DEPTH if self.max_depth is None else int(self.max_depth)
        min_samples_leaf = _resolve_count(self.min_samples_leaf, n_samples, 1)
        min_samples_split = _resolve_count(self.min_samples_split, n_samples, 2)
        min_samples_split = max(min_samples_split, 2 * min_samples_leaf)
        return {
            "criterion": CRITERIA[self.criterion],
            "max_depth": max_depth,
            "min_samples_split": min_samples_split,
            "min_samples_leaf": min_samples_leaf,
            "min_impurity_decrease": float(self.min_impurity_decrease),
        }

    def _prepare_fit(self, X, y, sample_weight, check_input):
        """Validate inputs and set the data-derived attributes shared with forests."""
        self._validate_params()
        X, y = validate_fit_input(self, X, y, check_input=check_input)
        if is_classifier(self):
            check_class_labels(y)
            self.classes_, y_code = np.unique(y, return_inverse=True)
            self.n_classes_ = len(self.classes_)
            y_code = y_code.astype(np.int64)
            y_value = np.zeros(1)
        else:
            y_value = np.ascontiguousarray(y, dtype=np.float64)
            if not np.all(np.isfinite(y_value)):
                raise ValueError("Input y contains NaN or inf")
            too_large = np.abs(y_value) > _MAX_TARGET
            if np.any(too_large):
                row = int(np.flatnonzero(too_large)[0])
                raise ValueError(
                    f"regression targets must be at most {_MAX_TARGET:g} in magnitude (the squared-error criterion "
                    f"squares them), got {y_value[row]:g} at row {row}; divide y by a constant"
                )
            y_code = np.zeros(1, dtype=np.int64)
        sample_weight = check_sample_weight(sample_weight, X)
        self.split_features_ = SplitFeatures.from_signature(self.signature_, self.pairs, self.splits)
        self.split_features_.check_memory(X.shape[0])
        return X, y_code, y_value, sample_weight

    def _grow(self, X, V, y_code, y_value, weight, params, max_features, seed) -> Tree:
        """Grow one tree on the rows with non-zero weight."""
        features = self.split_features_
        samples = np.flatnonzero(weight > 0).astype(np.int64)
        if samples.size == 0:
            raise ValueError("every sample has zero weight: nothing to fit")
        classifier = is_classifier(self)
        n_outputs = self.n_classes_ if classifier else 1
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
            classifier,
            params["criterion"],
            params["max_depth"],
            params["min_samples_split"],
            params["min_samples_leaf"],
            params["min_impurity_decrease"],
            max_features,
            seed,
            geometry=features.geometry,
            radius=features.radius,
        )
        return Tree.from_builder(features, raw, n_outputs, classifier)

    def fit(self, X, y, sample_weight=None, check_input=True) -> Self:
        """Grow the tree.

        Parameters
        ----------
        X : array-like of shape (n_samples, ambient_dim)
            Points in ambient coordinates of ``signature``.
        y : array-like of shape (n_samples,)
            Class labels (whole-number floats of any size count as labels), or
            regression targets (finite, at most 1e100 in magnitude).
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative finite weights; rows of weight zero are ignored. Only their
            ratios matter: if the largest lies outside ``[2**-200, 2**200]`` they are
            first divided by a power of two that brings it into ``[1, 2)`` (exact, so
            the tree is the same), and ``tree_.weighted_n_node_samples`` and
            ``tree_.improvement`` are then in those units. Positive weights below
            ``2**-300`` times the largest are refused.
        check_input : bool, default=True
            Check that every row lies on the manifold (shape and finiteness are
            always checked).

        Returns
        -------
        self
        """
        X, y_code, y_value, weight = self._prepare_fit(X, y, sample_weight, check_input)
        params = self._validate_params_for(X.shape[0])
        max_features = resolve_max_features(self.max_features, self.split_features_.n_features)
        seed = int(check_random_state(self.random_state).randint(1, _MAX_INT))
        try:
            V = self.split_features_.values(X)
            self.tree_ = self._grow(X, V, y_code, y_value, weight, params, max_features, seed)
        except KeyboardInterrupt:
            clear_fitted(self)  # Ctrl-C stops the build (see _interrupt): unfitted, not half-fitted
            raise
        self.max_features_ = max_features
        return self

    # ------------------------------------------------------------- inference
    def _validate_X_predict(self, X, check_input=True):
        check_is_fitted(self, "tree_")
        return validate_points(self, X, reset=False, check_input=check_input)

    def apply(self, X, check_input=True):
        """Index of the leaf each row ends up in, shape (n_samples,)."""
        return self.tree_.apply(self._validate_X_predict(X, check_input))

    def decision_path(self, X, check_input=True):
        """Sparse indicator of shape (n_samples, n_nodes) of the nodes each row visits."""
        return self.tree_.decision_path(self._validate_X_predict(X, check_input))

    def get_depth(self) -> int:
        """Depth of the tree (a single leaf has depth 0)."""
        check_is_fitted(self, "tree_")
        return self.tree_.max_depth

    def get_n_leaves(self) -> int:
        """Number of leaves."""
        check_is_fitted(self, "tree_")
        return self.tree_.n_leaves

    @property
    def plane_importances_(self) -> np.ndarray:
        """Normalised total impurity decrease per split plane, shape (n_split_features,).

        The planes are listed by ``split_features_.names()``; the ambient columns each
        reads by ``split_features_.columns()``. All zeros for a tree without splits.
        """
        check_is_fitted(self, "tree_")
        return self.tree_.feature_importances()

    @property
    def feature_importances_(self) -> np.ndarray:
        """Normalised total impurity decrease per input column, shape ``(n_features_in_,)``.

        scikit-learn's contract: one entry per column of ``X`` (so
        ``zip(feature_names_in_, feature_importances_)`` and ``SelectFromModel`` work),
        summing to 1, or all zeros for a tree without splits. A split reads one or two
        columns (``split_features_.columns()``) and its decrease is shared in proportion
        to the squared components of its boundary's unit normal, i.e. to how much the
        side a row falls on depends on each column (:meth:`Tree.column_importances`):
        a cut along one axis credits that column alone, a 45-degree line half each. See
        ``plane_importances_`` for one number per split plane and
        ``component_importances_`` for one per signature component.
        """
        check_is_fitted(self, "tree_")
        return self.tree_.column_importances()

    @property
    def component_importances_(self) -> np.ndarray:
        """Normalised total impurity decrease per signature component, shape (n_components,)."""
        check_is_fitted(self, "tree_")
        out = np.zeros(len(self.signature_))
        np.add.at(out, self.split_features_.component, self.plane_importances_)
        return out

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = False
        return tags


class ProbabilisticClassifierMixin(ClassifierMixin):
    """``predict`` and ``predict_log_proba`` from ``predict_proba`` (trees and forests)."""

    def predict(self, X, check_input=True):
        """Class with the largest probability, shape (n_samples,)."""
        proba = self.predict_proba(X, check_input)
        return self.classes_[np.argmax(proba, axis=1)]

    def predict_log_proba(self, X):
        """Logarithm of ``predict_proba`` (``-inf`` for classes a leaf never saw)."""
        with np.errstate(divide="ignore"):
            return np.log(self.predict_proba(X))


class ProductDecisionTreeClassifier(ProbabilisticClassifierMixin, BaseProductTree):
    """A decision tree on a product of hyperbolic, spherical and Euclidean spaces.

    Each split cuts one component along a coordinate plane ``(x_i, x_j)`` of its
    ambient space with a line through the origin of that plane: the trace of a
    homogeneous hyperplane, so both sides are geodesically convex. Among all lines
    that induce the chosen partition of the training rows, the stored one has the
    largest geodesic margin. On all-Euclidean data with ``pairs="base"`` it is
    scikit-learn's CART.

    Parameters
    ----------
    signature : str, Signature, list of (curvature, dim) or None, default=None
        The product manifold, e.g. ``"H2 x S2 x E2"``. ``None``: Euclidean with one
        dimension per column.
    pairs : {"base", "all"}, default="base"
        Split planes per component: ``"base"`` pairs coordinate 0 (the timelike
        coordinate of H, the pole of S, the constant lift of E) with every other
        coordinate; ``"all"`` uses every pair of coordinates.
    splits : {"geodesic", "geodesic+radial"}, default="geodesic"
        ``"geodesic"``: the paper's splits, lines through the origin of a coordinate
        plane (both sides geodesically convex). ``"geodesic+radial"`` adds radial
        splits, a threshold on one ambient coordinate placed halfway in the geometry's
        own distance: on each H component the distance from the origin (the left side,
        ``x_0 <= t``, is a ball about the origin: convex; its complement is not), on each
        S component the angle from each axis pole (caps: a side is convex when it is
        at most a hemisphere). E components get nothing new. See
        :class:`~curvedtrees.trees.SplitFeatures`.
    criterion : {"gini", "entropy", "log_loss"}, default="gini"
    max_depth : int or None, default=None
    min_samples_split : int or float, default=2
    min_samples_leaf : int or float, default=1
    min_impurity_decrease : float, default=0.0
        A split is kept only if it decreases the weighted impurity by at least this
        fraction of the total training weight.
    max_features : int, float, {"sqrt", "log2"} or None, default=None
        Number of split planes drawn (without replacement) per node.
    random_state : int, RandomState instance or None, default=None
        Controls the order in which planes are drawn (ties go to the first drawn).

    Attributes
    ----------
    tree_ : Tree
        The fitted node arrays (see :class:`curvedtrees.trees.Tree`).
    classes_ : ndarray of shape (n_classes,)
    n_classes_ : int
    n_features_in_ : int
    signature_ : Signature
    split_features_ : SplitFeatures
        The candidate split planes.
    max_features_ : int
    feature_importances_ : ndarray of shape (n_features_in_,)
        Impurity-decrease importance per input column, summing to 1 (all zeros
        without splits); a split's share goes to the columns it reads in proportion to
        the squared components of its boundary's unit normal.
    plane_importances_ : ndarray of shape (n_split_features,)
        The same per split plane (``split_features_.names()``).
    component_importances_ : ndarray of shape (n_components,)

    Examples
    --------
    >>> from curvedtrees import ProductDecisionTreeClassifier, make_classification
    >>> X, y = make_classification("H2 x S2", n_samples=200, random_state=0)
    >>> tree = ProductDecisionTreeClassifier(signature="H2 x S2", max_depth=3).fit(X, y)
    >>> tree.get_depth() <= 3
    True
    """

    def predict_proba(self, X, check_input=True):
        """Class fractions of the leaf each row reaches, shape (n_samples, n_classes)."""
        X = self._validate_X_predict(X, check_input)
        return self.tree_.predict(X)


class ProductDecisionTreeRegressor(RegressorMixin, BaseProductTree):
    """A regression tree on a product manifold (squared error).

    Same splits and parameters as :class:`ProductDecisionTreeClassifier`, with
    ``criterion="squared_error"``; leaves predict the mean target.

    Examples
    --------
    >>> from curvedtrees import ProductDecisionTreeRegressor, make_regression
    >>> X, y = make_regression("H2 x E1", n_samples=200, random_state=0)
    >>> tree = ProductDecisionTreeRegressor(signature="H2 x E1", max_depth=4).fit(X, y)
    >>> tree.predict(X[:3]).shape, tree.get_depth() <= 4
    ((3,), True)
    """

    _parameter_constraints: ClassVar[dict] = {
        **BaseProductTree._parameter_constraints,
        "criterion": [StrOptions({"squared_error"})],
    }

    def __init__(
        self,
        *,
        signature=None,
        pairs="base",
        splits="geodesic",
        criterion="squared_error",
        max_depth=None,
        min_samples_split=2,
        min_samples_leaf=1,
        min_impurity_decrease=0.0,
        max_features=None,
        random_state=None,
    ):
        super().__init__(
            signature=signature,
            pairs=pairs,
            splits=splits,
            criterion=criterion,
            max_depth=max_depth,
            min_samples_split=min_samples_split,
            min_samples_leaf=min_samples_leaf,
            min_impurity_decrease=min_impurity_decrease,
            max_features=max_features,
            random_state=random_state,
        )

    def predict(self, X, check_input=True):
        """Mean target of the leaf each row reaches, shape (n_samples,)."""
        X = self._validate_X_predict(X, check_input)
        return self.tree_.predict(X)[:, 0]
