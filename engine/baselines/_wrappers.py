"""Ambient and tangent-plane baselines: any scikit-learn model on ambient or tangent coordinates."""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, MetaEstimatorMixin, RegressorMixin, clone, is_classifier
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted

from ._common import _encode_classes, _product_manifold, _validate_fit, _validate_predict


# ------------------------------------------------------------- ambient and tangent
class _FeatureWrapper(MetaEstimatorMixin, BaseEstimator):
    """Shared code of the ambient and tangent baselines: features -> wrapped estimator."""

    def __init__(self, estimator=None, signature=None):
        self.estimator = estimator
        self.signature = signature

    def _default_estimator(self):
        # A fixed random_state: scikit-learn trees break ties between equally good
        # splits at random, and a baseline should give the same model on every fit.
        return DecisionTreeClassifier(random_state=0) if is_classifier(self) else DecisionTreeRegressor(random_state=0)

    def _features(self, X):
        raise NotImplementedError

    def _inner(self):
        # Explicit None checks: ensembles define __len__, so an unfitted forest is falsy.
        if getattr(self, "estimator_", None) is not None:
            return self.estimator_
        return self.estimator if self.estimator is not None else self._default_estimator()

    def fit(self, X, y, sample_weight=None):
        """Fit the wrapped estimator on the features of ``X``.

        Parameters
        ----------
        X : array-like of shape (n_samples, ambient_dim)
            Points in ambient coordinates.
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), optional
            Passed to the wrapped estimator's ``fit``.

        Returns
        -------
        self
        """
        X, y = _validate_fit(self, X, y, regressor=not is_classifier(self))
        estimator = clone(self.estimator) if self.estimator is not None else self._default_estimator()
        target = y
        if is_classifier(self):
            self.classes_, target = _encode_classes(y)
        fit_params = {} if sample_weight is None else {"sample_weight": sample_weight}
        estimator.fit(self._features(X), target, **fit_params)
        self.estimator_ = estimator
        return self

    def transform_features(self, X):
        """The features the wrapped estimator sees.

        Parameters
        ----------
        X : array-like of shape (n_samples, ambient_dim)

        Returns
        -------
        ndarray of shape (n_samples, n_model_features)
        """
        return self._features(_validate_predict(self, X))

    def predict(self, X):
        """Predicted targets, shape (n_samples,)."""
        check_is_fitted(self)
        features = self.transform_features(X)
        prediction = self.estimator_.predict(features)
        if not is_classifier(self):
            return prediction
        return self.classes_[np.asarray(prediction, dtype=np.intp)]

    @available_if(lambda self: hasattr(self._inner(), "predict_proba"))
    def predict_proba(self, X):
        """Class probabilities, shape (n_samples, n_classes), columns in ``classes_`` order."""
        check_is_fitted(self)
        features = self.transform_features(X)
        return self.estimator_.predict_proba(features)

    @available_if(lambda self: hasattr(self._inner(), "decision_function"))
    def decision_function(self, X):
        """The wrapped estimator's decision function on the features of ``X``."""
        check_is_fitted(self)
        features = self.transform_features(X)
        return self.estimator_.decision_function(features)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = False
        return tags


class _AmbientMixin:
    def _features(self, X):
        return X


class _TangentMixin:
    def _features(self, X):
        # The tangent space at the origin of H and S is {v : v_0 = 0}: drop that
        # identically-zero coordinate so the model sees exactly `dim` features per component.
        tangent = _product_manifold(self.signature_).logmap0(X)
        keep = np.ones(tangent.shape[1], dtype=bool)
        for component in self.signature_.components:
            if component.kind != "E":
                keep[component.start] = False
        return tangent[:, keep]


class AmbientClassifier(_AmbientMixin, ClassifierMixin, _FeatureWrapper):
    """A Euclidean classifier on the raw ambient coordinates.

    Parameters
    ----------
    estimator : scikit-learn classifier, default=None
        The model to fit (cloned). ``None``: ``DecisionTreeClassifier(random_state=0)``.
    signature : str, Signature or None, default=None
        Signature of the product manifold; ``None`` means all-Euclidean of X's width.
        Only used to check that the rows lie on the manifold.

    Attributes
    ----------
    estimator_ : fitted estimator (trained on label-encoded targets)
    classes_ : ndarray of shape (n_classes,)
    signature_ : Signature
    n_features_in_ : int

    Examples
    --------
    >>> from sklearn.tree import DecisionTreeClassifier
    >>> from curvedtrees import AmbientClassifier, make_classification
    >>> X, y = make_classification("S2", n_samples=200, random_state=0)
    >>> model = AmbientClassifier(DecisionTreeClassifier(max_depth=3), signature="S2").fit(X, y)
    >>> model.predict(X[:3]).shape
    (3,)
    """


class AmbientRegressor(_AmbientMixin, RegressorMixin, _FeatureWrapper):
    """A Euclidean regressor on the raw ambient coordinates.

    Parameters
    ----------
    estimator : scikit-learn regressor, default=None
        The model to fit (cloned). ``None``: ``DecisionTreeRegressor(random_state=0)``.
    signature : str, Signature or None, default=None
        Signature of the product manifold; ``None`` means all-Euclidean of X's width.

    Attributes
    ----------
    estimator_ : fitted estimator
    signature_ : Signature
    n_features_in_ : int

    Examples
    --------
    >>> from sklearn.linear_model import Ridge
    >>> from curvedtrees import AmbientRegressor, make_regression
    >>> X, y = make_regression("H2 x E1", n_samples=200, random_state=0)
    >>> AmbientRegressor(Ridge(), signature="H2 x E1").fit(X, y).predict(X[:2]).shape
    (2,)
    """


class TangentClassifier(_TangentMixin, ClassifierMixin, _FeatureWrapper):
    """A Euclidean classifier on the tangent space at the product origin.

    Each row is mapped by the logarithmic map at the origin of every component
    (``(R, 0, ..., 0)`` for H and S, zeros for E); the identically-zero first
    coordinate of H and S tangent vectors is dropped, so the model sees
    ``signature.dim`` features.

    Parameters
    ----------
    estimator : scikit-learn classifier, default=None
        ``None``: ``DecisionTreeClassifier(random_state=0)``.
    signature : str, Signature or None, default=None
        ``None`` means all-Euclidean of X's width (the tangent map is then the identity).

    Attributes
    ----------
    estimator_, classes_, signature_, n_features_in_

    Examples
    --------
    >>> from sklearn.tree import DecisionTreeClassifier
    >>> from curvedtrees import TangentClassifier, make_classification
    >>> X, y = make_classification("H2 x S2", n_samples=200, random_state=0)
    >>> model = TangentClassifier(DecisionTreeClassifier(max_depth=3), signature="H2 x S2").fit(X, y)
    >>> model.predict(X[:3]).shape
    (3,)
    """


class TangentRegressor(_TangentMixin, RegressorMixin, _FeatureWrapper):
    """A Euclidean regressor on the tangent space at the product origin.

    See :class:`TangentClassifier` for the features.

    Parameters
    ----------
    estimator : scikit-learn regressor, default=None
        ``None``: ``DecisionTreeRegressor(random_state=0)``.
    signature : str, Signature or None, default=None

    Examples
    --------
    >>> from sklearn.linear_model import Ridge
    >>> from curvedtrees import TangentRegressor, make_regression
    >>> X, y = make_regression("H2 x S2", n_samples=200, random_state=0)
    >>> TangentRegressor(Ridge(), signature="H2 x S2").fit(X, y).predict(X[:2]).shape
    (2,)
    """
