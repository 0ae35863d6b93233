"""KleinTreeClassifier and KleinTreeRegressor: Euclidean tree libraries on hyperbolic data."""

from __future__ import annotations

from typing import Any, Self

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, MetaEstimatorMixin, RegressorMixin, clone, is_classifier
from sklearn.utils.metaestimators import available_if
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import _check_sample_weight, check_is_fitted, validate_data

from ..manifolds import Signature
from ._backends import backend_for, correct_estimator
from ._correct import geodesic_margins
from ._features import KleinLayout

__all__ = ["ESTIMATOR_NAMES", "KleinTreeClassifier", "KleinTreeRegressor", "make_backend"]

# Library models by name: estimator="xgboost" etc. (handy in the app and in JSON model files).
ESTIMATOR_NAMES = (
    "decision_tree",
    "random_forest",
    "extra_trees",
    "gradient_boosting",
    "hist_gradient_boosting",
    "xgboost",
    "lightgbm",
)


def make_backend(name: str, classifier: bool):
    """A library model with its defaults (``random_state=0`` for reproducible fits).

    Raises
    ------
    ValueError
        Unknown name.
    ImportError
        ``"xgboost"`` / ``"lightgbm"`` without the package installed; the message
        says how to install it.
    """
    if name in ("xgboost", "lightgbm"):
        try:
            # Plain imports (not importlib): a test hides the package through builtins.__import__.
            library: Any
            if name == "xgboost":
                import xgboost

                library = xgboost
            else:
                import lightgbm

                library = lightgbm
        except ImportError:
            raise ImportError(f"estimator={name!r} needs the optional package {name}: pip install {name}") from None
        if name == "xgboost":
            cls = library.XGBClassifier if classifier else library.XGBRegressor
            return cls(random_state=0)
        cls = library.LGBMClassifier if classifier else library.LGBMRegressor
        return cls(random_state=0, verbose=-1)
    from sklearn import ensemble, tree

    table = {
        "decision_tree": (tree.DecisionTreeClassifier, tree.DecisionTreeRegressor),
        "random_forest": (ensemble.RandomForestClassifier, ensemble.RandomForestRegressor),
        "extra_trees": (ensemble.ExtraTreesClassifier, ensemble.ExtraTreesRegressor),
        "gradient_boosting": (ensemble.GradientBoostingClassifier, ensemble.GradientBoostingRegressor),
        "hist_gradient_boosting": (ensemble.HistGradientBoostingClassifier, ensemble.HistGradientBoostingRegressor),
    }
    if name not in table:
        raise ValueError(f"unknown estimator name {name!r}; choose one of {', '.join(ESTIMATOR_NAMES)} or pass a model")
    return table[name][0 if classifier else 1](random_state=0)


class _KleinTree(MetaEstimatorMixin, BaseEstimator):
    def __init__(self, estimator=None, signature=None, input_model="hyperboloid", max_margin=True):
        self.estimator = estimator
        self.signature = signature
        self.input_model = input_model
        self.max_margin = max_margin

    # ------------------------------------------------------------------ helpers
    def _make_estimator(self):
        classifier = is_classifier(self)
        if self.estimator is None:
            return make_backend("decision_tree", classifier)
        if isinstance(self.estimator, str):
            return make_backend(self.estimator, classifier)
        estimator = clone(self.estimator)
        if is_classifier(estimator) != classifier:
            kind = "regressor" if classifier else "classifier"
            raise ValueError(
                f"{type(self).__name__} needs a {'classifier' if classifier else 'regressor'}, got the {kind} "
                f"{type(estimator).__name__}"
            )
        return estimator

    def _inner(self):
        if getattr(self, "estimator_", None) is not None:
            return self.estimator_
        if self.estimator is None or isinstance(self.estimator, str):
            try:
                return self._make_estimator()
            except (ImportError, ValueError):
                return None
        return self.estimator

    @property
    def layout_(self) -> KleinLayout:
        """Column layout and feature map of the fitted signature (derived, not stored)."""
        check_is_fitted(self, "signature_")
        # Rebuilt on each call (a loop over the components): caching it would change the
        # estimator's state during predict, which scikit-learn's conventions forbid.
        return KleinLayout(self.signature_, self.input_model)

    def _ambient(self, X, reset: bool):
        X = validate_data(self, X, reset=reset, dtype=np.float64, ensure_all_finite=False)
        return X

    # --------------------------------------------------------------------- fit
    def fit(self, X, y, sample_weight=None) -> Self:
        """Fit the wrapped model on Klein features, then move its thresholds to maximum-margin boundaries.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_columns)
            H components as hyperboloid, Poincaré or Klein coordinates (``input_model``),
            E components as they are, in signature order.
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), optional
            Passed to the wrapped model; rows with zero weight do not count as training
            rows of the correction.

        Returns
        -------
        self
        """
        X, y = validate_data(self, X, y, dtype=np.float64, ensure_all_finite=False, y_numeric=not is_classifier(self))
        # Poincaré and Klein inputs are intrinsic coordinates: KleinLayout checks their width.
        signature = Signature.resolve(self.signature, X.shape[1], check_width=self.input_model == "hyperboloid")
        layout = KleinLayout(signature, self.input_model)
        ambient = layout.to_hyperboloid(X)
        features = layout.features(ambient)
        estimator = self._make_estimator()
        if not is_classifier(self):
            target = y
        else:
            check_classification_targets(y)
            self.classes_, target = np.unique(y, return_inverse=True)
            self.n_classes_ = len(self.classes_)
        fit_params = {}
        if sample_weight is not None:
            sample_weight = _check_sample_weight(sample_weight, features)
            fit_params["sample_weight"] = sample_weight
        estimator.fit(features, target, **fit_params)
        self.signature_ = signature
        self.klein_feature_names_ = list(layout.feature_names)
        if self.max_margin:
            nearest, moved, kept = correct_estimator(
                estimator,
                features,
                layout.hyperbolic_block(ambient),
                layout.feat_x0,
                layout.feat_radius,
                sample_weight=sample_weight,
            )
        else:
            backend_for(estimator)  # same supported-model check with or without the correction
            nearest, moved, kept = None, 0, 0
        self.estimator_ = estimator
        self._nearest = nearest
        self._margins = None
        self.n_thresholds_moved_ = moved
        self.n_thresholds_kept_ = kept
        return self

    # ----------------------------------------------------------------- predict
    def transform_features(self, X):
        """Klein features of ``X`` as the wrapped model sees them, shape (n_samples, signature.dim)."""
        check_is_fitted(self)
        X = self._ambient(X, reset=False)
        layout = self.layout_
        return layout.features(layout.to_hyperboloid(X))

    def predict(self, X):
        """Predicted targets, shape (n_samples,)."""
        features = self.transform_features(X)
        prediction = self.estimator_.predict(features)
        if not is_classifier(self):
            return prediction
        return self.classes_[np.asarray(prediction).astype(np.intp)]

    @available_if(lambda self: self._inner() is not None and hasattr(self._inner(), "apply"))
    def apply(self, X):
        """Leaf index of each row (per tree for ensembles), as the wrapped model's ``apply``."""
        features = self.transform_features(X)
        return self.estimator_.apply(features)

    @property
    def margins_(self):
        """Per tree, the geodesic margin of each node in the library's node numbering.

        NaN at leaves and at splits left as the library made them; ``None`` when fitted
        with ``max_margin=False``. Computed on first access from the distances the
        correction found (:func:`curvedtrees.klein._correct.geodesic_margins`) and kept: the
        conversion's ``asinh`` per node would cost a fit a tenth of a deep tree's
        correction, for an attribute most fits never read.
        """
        check_is_fitted(self, "estimator_")
        if self._margins is None and self._nearest is not None:
            layout = self.layout_
            trees = backend_for(self.estimator_).tree_arrays()
            self._margins = [
                geodesic_margins(
                    nearest,
                    np.ascontiguousarray(feature, dtype=np.int64),
                    np.ascontiguousarray(threshold, dtype=np.float64),
                    layout.feat_x0,
                    layout.feat_radius,
                )
                for nearest, (_, _, feature, threshold) in zip(self._nearest, trees, strict=True)
            ]
        return self._margins

    @property
    def klein_feature_importances_(self):
        """The wrapped model's own importances, one per Klein feature (``klein_feature_names_``).

        As the library computes them (scikit-learn's and XGBoost's sum to 1, LightGBM's
        count splits); absent when the wrapped model has none (HistGradientBoosting).
        """
        check_is_fitted(self)
        return np.asarray(self.estimator_.feature_importances_, dtype=np.float64)

    @property
    def feature_importances_(self):
        """Importance per input column, shape ``(n_features_in_,)``, summing to 1.

        scikit-learn's contract, so ``SelectFromModel`` and
        ``zip(feature_names_in_, feature_importances_)`` work: each Klein feature's
        importance (``klein_feature_importances_``) is shared equally among the input
        columns it reads (the libraries' importances are per feature, without the
        thresholds that the product trees' rule weighs by) (``layout_.feature_columns()``: with hyperboloid input,
        ``x_j / x_0`` gives half to ``x_0`` and half to ``x_j``; ball coordinates and E
        columns keep their own), then normalised. All zeros when the wrapped model made
        no split.
        """
        per_column = self.klein_feature_importances_ @ self.layout_.input_shares()
        total = per_column.sum()
        return per_column / total if total > 0 else per_column

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = False
        tags.input_tags.allow_nan = False
        return tags


class KleinTreeClassifier(ClassifierMixin, _KleinTree):
    """Any Euclidean tree classifier on hyperbolic x Euclidean data, with geodesic maximum-margin splits.

    The Fast-HyperDT wrapper (Chlenski et al.): H components are mapped to their
    Klein features ``x_j / x_0``, where a product-space split on the coordinate pair
    ``(0, j)`` is an axis-aligned threshold, so a stock library finds the splits.
    Afterwards every threshold is moved to the boundary that maximises the smallest
    geodesic distance to the training rows that reached its node (the product trees'
    rule), respecting the library's routing so that no training row changes leaf.
    On H-only data a wrapped decision tree matches
    :class:`curvedtrees.trees.ProductDecisionTreeClassifier` split for split.

    Parameters
    ----------
    estimator : estimator, str or None, default=None
        The model to wrap (cloned): a scikit-learn DecisionTree, ExtraTree,
        RandomForest, ExtraTrees, GradientBoosting or HistGradientBoosting classifier,
        an XGBoost or a LightGBM classifier; or one of the names
        ``"decision_tree", "random_forest", "extra_trees", "gradient_boosting",
        "hist_gradient_boosting", "xgboost", "lightgbm"`` (library defaults with
        ``random_state=0``). ``None``: ``DecisionTreeClassifier(random_state=0)``.
    signature : str, Signature or None, default=None
        H and E components only (S raises ``ValueError``: use the product trees).
        ``None`` means all-Euclidean of X's width.
    input_model : {"hyperboloid", "poincare", "klein"}, default="hyperboloid"
        How X gives the H components: hyperboloid points (``dim + 1`` columns,
        timelike first) or Poincaré / Klein ball coordinates of radius
        ``1 / sqrt|K|`` (``dim`` columns). Any curvature.
    max_margin : bool, default=True
        Move thresholds to maximum-margin geodesic boundaries. ``False`` keeps the
        library's thresholds (the "Euclidean tree on Klein coordinates" ablation).

    Attributes
    ----------
    estimator_ : fitted model
        Trained on label-encoded targets ``0 .. n_classes - 1``, thresholds corrected.
    classes_ : ndarray of shape (n_classes,)
    signature_ : Signature
    klein_feature_names_ : list of str
    feature_importances_ : ndarray of shape (n_features_in_,)
        The wrapped model's importances per input column, summing to 1 (each Klein
        feature's shared equally among the columns it reads).
    klein_feature_importances_ : ndarray of shape (signature_.dim,)
        The wrapped model's own importances, one per Klein feature.
    margins_ : list of ndarray or None
        Per tree, the geodesic margin of each node in the library's node numbering
        (NaN at leaves).
    n_thresholds_moved_ : int
    n_thresholds_kept_ : int
        Splits left as the library made them because the training rows did not sit
        where its threshold says (never for plain numeric data).
    n_features_in_ : int

    Warns
    -----
    KleinCorrectionWarning
        When the library does not record each tree's rows and trained on a subset
        (subsampling, bagging, an early-stopping split): the correction then uses all
        rows reaching each node.

    Notes
    -----
    Routing is the library's own: scikit-learn compares ``float32(x) <= t``, XGBoost
    ``float32(x) < t`` with a float32 ``t``, LightGBM and HistGradientBoosting
    ``x <= t`` in float64. The maximum-margin threshold is computed in float64 and then
    clamped into the gap the library sees, so every training row keeps its leaf (the
    margin can be slightly smaller than optimal where float32 rounding narrows the gap).

    The rows of each tree: rows with non-zero sample weight for a single tree, the
    in-bag rows of scikit-learn forests (``estimators_samples_``), and all rows for
    the boosting libraries, which do not record their subsamples (a warning says so
    when the library's node counts show a tree saw fewer rows).

    HistGradientBoosting is corrected honestly: it searches splits on binned
    features, but a split on bin ``b`` sends left exactly the rows whose raw value is
    at most the bin's upper edge, and prediction compares raw values with that edge.
    Any threshold between the largest raw value sent left and the smallest sent right
    reproduces the same partition of the training rows, so the edge is replaced by the
    maximum-margin threshold inside that gap. (Categorical splits are refused.)

    Examples
    --------
    >>> from sklearn.tree import DecisionTreeClassifier
    >>> from curvedtrees import KleinTreeClassifier, make_classification
    >>> X, y = make_classification("H2 x E1", n_samples=300, random_state=0)
    >>> model = KleinTreeClassifier(DecisionTreeClassifier(max_depth=4, random_state=0), signature="H2 x E1")
    >>> model.fit(X, y).klein_feature_names_
    ['H2#0 x1/x0', 'H2#0 x2/x0', 'E1#1 x0']
    >>> model.predict(X[:3]).shape, model.n_thresholds_kept_
    ((3,), 0)
    """

    def predict_proba(self, X):
        """Class probabilities of the wrapped model, shape (n_samples, n_classes)."""
        features = self.transform_features(X)
        return self.estimator_.predict_proba(features)

    @available_if(lambda self: self._inner() is not None and hasattr(self._inner(), "decision_function"))
    def decision_function(self, X):
        """The wrapped model's decision function."""
        features = self.transform_features(X)
        return self.estimator_.decision_function(features)


class KleinTreeRegressor(RegressorMixin, _KleinTree):
    """Any Euclidean tree regressor on hyperbolic x Euclidean data, with geodesic maximum-margin splits.

    See :class:`KleinTreeClassifier`; the same parameters, with regressors
    (``None``: ``DecisionTreeRegressor(random_state=0)``).

    Attributes
    ----------
    estimator_, signature_, klein_feature_names_, margins_, n_thresholds_moved_,
    n_thresholds_kept_, n_features_in_

    Examples
    --------
    >>> from curvedtrees import KleinTreeRegressor, make_regression
    >>> X, y = make_regression("H2", n_samples=200, random_state=0)
    >>> model = KleinTreeRegressor("random_forest", signature="H2").fit(X, y)
    >>> model.predict(X[:2]).shape
    (2,)
    """
