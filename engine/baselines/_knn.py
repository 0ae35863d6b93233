"""k nearest neighbours under the product geodesic distance."""

from __future__ import annotations

from numbers import Integral
from typing import ClassVar

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin, is_classifier
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from ._common import _encode_classes, _product_manifold, _validate_fit, _validate_predict, _working_rows


# ------------------------------------------------------------------- geodesic kNN
class _GeodesicKNN(BaseEstimator):
    # scikit-learn's declarative checks, run by _validate_params() at the start of fit.
    _parameter_constraints: ClassVar[dict] = {
        "n_neighbors": [Interval(Integral, 1, None, closed="left")],
        "signature": "no_validation",  # resolved, with its own messages, by Signature.resolve
        "weights": [StrOptions({"uniform", "distance"}), callable],
    }

    def __init__(self, n_neighbors=5, signature=None, weights="uniform"):
        self.n_neighbors = n_neighbors
        self.signature = signature
        self.weights = weights

    def fit(self, X, y):
        """Store the training points.

        Parameters
        ----------
        X : array-like of shape (n_samples, ambient_dim)
        y : array-like of shape (n_samples,)

        Returns
        -------
        self
        """
        self._validate_params()
        X, y = _validate_fit(self, X, y, regressor=not is_classifier(self))
        if not is_classifier(self):
            self._y = np.asarray(y, dtype=np.float64)
        else:
            self.classes_, self._y = _encode_classes(y)
        self._fit_X = X
        self.n_samples_fit_ = X.shape[0]
        return self

    def kneighbors(self, X, n_neighbors=None, return_distance=True):
        """Nearest training points under the product geodesic distance.

        Computed in blocks of query rows, so memory stays near scikit-learn's
        ``working_memory`` setting however many training points there are.

        Parameters
        ----------
        X : array-like of shape (n_queries, ambient_dim)
        n_neighbors : int, optional
            Defaults to the constructor's value.
        return_distance : bool, default=True

        Returns
        -------
        distances : ndarray of shape (n_queries, n_neighbors), sorted ascending
            Only if ``return_distance``.
        indices : ndarray of shape (n_queries, n_neighbors)
            Row indices into the training set.
        """
        X = _validate_predict(self, X)
        k = self.n_neighbors if n_neighbors is None else n_neighbors
        if k > self.n_samples_fit_:
            raise ValueError(
                f"Expected n_neighbors <= n_samples_fit, but n_neighbors = {k}, n_samples_fit = {self.n_samples_fit_}"
            )
        manifold = _product_manifold(self.signature_)
        n_fit = self.n_samples_fit_
        distances = np.empty((X.shape[0], k))
        indices = np.empty((X.shape[0], k), dtype=np.intp)
        step = _working_rows(n_fit)
        for start in range(0, X.shape[0], step):
            block = manifold.cdist(X[start : start + step], self._fit_X)
            if k < n_fit:
                nearest = np.argpartition(block, k - 1, axis=1)[:, :k]
            else:
                nearest = np.broadcast_to(np.arange(n_fit), (block.shape[0], n_fit)).copy()
            near_d = np.take_along_axis(block, nearest, axis=1)
            # Sort the k survivors by distance, ties by training row, so results do not
            # depend on how the block was partitioned.
            order = np.lexsort((nearest, near_d), axis=1) if near_d.ndim == 2 else None
            indices[start : start + step] = np.take_along_axis(nearest, order, axis=1)
            distances[start : start + step] = np.take_along_axis(near_d, order, axis=1)
        return (distances, indices) if return_distance else indices

    def _neighbor_weights(self, distances):
        if self.weights == "uniform":
            return np.ones_like(distances)
        if self.weights == "distance":
            # A query that coincides with training points gets exactly those points
            # (as scikit-learn does): 1/0 has no useful finite value.
            with np.errstate(divide="ignore"):
                weights = 1.0 / distances
            exact = np.isinf(weights)
            rows = exact.any(axis=1)
            weights[rows] = exact[rows].astype(np.float64)
            # Divided by each row's largest weight (the same weighted mean and votes): 1 / d
            # of a neighbour at 1e-200 is 1e200, and times a target of 1e120 it would
            # overflow to inf (and NaN once divided by the infinite total).
            return weights / weights.max(axis=1, keepdims=True)
        weights = np.asarray(self.weights(distances), dtype=np.float64)
        if weights.shape != distances.shape:
            raise ValueError(
                f"the weights callable must return an array of shape {distances.shape}, got {weights.shape}"
            )
        return weights

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = False
        return tags


class GeodesicKNNClassifier(ClassifierMixin, _GeodesicKNN):
    """k-nearest-neighbour classifier on the product geodesic distance.

    The distance is ``sqrt(sum_c d_c(x_c, y_c)^2)`` over the components (the
    product Riemannian metric), computed in blocks of query rows.

    Parameters
    ----------
    n_neighbors : int, default=5
    signature : str, Signature or None, default=None
        ``None`` means all-Euclidean of X's width (plain Euclidean k-NN).
    weights : {"uniform", "distance"} or callable, default="uniform"
        As in scikit-learn: equal votes, votes weighted by 1 / distance (a query
        equal to training points takes their labels), or a function mapping an
        array of distances of shape (n_queries, n_neighbors) to weights.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    signature_ : Signature
    n_samples_fit_ : int
    n_features_in_ : int

    Examples
    --------
    >>> from curvedtrees import GeodesicKNNClassifier, make_classification
    >>> X, y = make_classification("H2 x S2", n_samples=200, random_state=0)
    >>> knn = GeodesicKNNClassifier(n_neighbors=1, signature="H2 x S2").fit(X, y)
    >>> bool((knn.predict(X) == y).all())
    True
    """

    def predict_proba(self, X):
        """Weighted neighbour votes, shape (n_samples, n_classes), rows summing to 1."""
        check_is_fitted(self)
        distances, indices = self.kneighbors(X)
        weights = self._neighbor_weights(distances)
        n_classes = len(self.classes_)
        labels = self._y[indices]
        rows = np.repeat(np.arange(labels.shape[0]), labels.shape[1])
        votes = np.zeros((labels.shape[0], n_classes))
        np.add.at(votes, (rows, labels.ravel()), weights.ravel())
        total = votes.sum(axis=1, keepdims=True)
        # All-zero weights (a callable may return them) carry no vote: fall back to uniform.
        empty = total[:, 0] <= 0
        if empty.any():
            np.add.at(votes, (rows, labels.ravel()), np.repeat(empty, labels.shape[1]).astype(np.float64))
            total = votes.sum(axis=1, keepdims=True)
        return votes / total

    def predict(self, X):
        """Most voted class, shape (n_samples,) (ties go to the first class in ``classes_``)."""
        check_is_fitted(self)
        return self.classes_[np.argmax(self.predict_proba(X), axis=1)]


class GeodesicKNNRegressor(RegressorMixin, _GeodesicKNN):
    """k-nearest-neighbour regressor on the product geodesic distance.

    Parameters
    ----------
    n_neighbors : int, default=5
    signature : str, Signature or None, default=None
    weights : {"uniform", "distance"} or callable, default="uniform"
        See :class:`GeodesicKNNClassifier`.

    Attributes
    ----------
    signature_, n_samples_fit_, n_features_in_

    Examples
    --------
    >>> from curvedtrees import GeodesicKNNRegressor, make_regression
    >>> X, y = make_regression("S2", n_samples=200, random_state=0)
    >>> GeodesicKNNRegressor(n_neighbors=5, signature="S2").fit(X, y).predict(X[:3]).shape
    (3,)
    """

    def predict(self, X):
        """Weighted mean of the neighbours' targets, shape (n_samples,)."""
        check_is_fitted(self)
        distances, indices = self.kneighbors(X)
        weights = self._neighbor_weights(distances)
        total = weights.sum(axis=1)
        values = self._y[indices]
        uniform = values.mean(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            weighted = (weights * values).sum(axis=1) / total
        return np.where(total > 0, weighted, uniform)
