"""Baseline models for data on product manifolds, with a common scikit-learn interface.

Every estimator here takes ``X`` in ambient coordinates (the project's convention:
one row per point, components concatenated in signature order) and a ``signature``
parameter; ``signature=None`` means "all-Euclidean of X's width", which turns each
model into its plain Euclidean counterpart. Inputs are checked with
:meth:`curvedtrees.manifolds.ProductManifold.validate`, so off-manifold rows, NaN and a
wrong width raise a ``ValueError`` that names the row and the component.

Models
------
:class:`AmbientClassifier`, :class:`AmbientRegressor`
    Any scikit-learn model on the raw ambient coordinates (the papers' "ambient
    space" baseline).
:class:`TangentClassifier`, :class:`TangentRegressor`
    The logarithmic map at the product origin, then any scikit-learn model on the
    tangent coordinates (the papers' "tangent plane" baseline).
:class:`GeodesicKNNClassifier`, :class:`GeodesicKNNRegressor`
    k nearest neighbours under the product geodesic distance
    ``d(x, y) = sqrt(sum_c d_c(x_c, y_c)^2)``, computed in blocks of query rows so
    that 10^5 training points fit in bounded memory.
:class:`ProductPerceptronClassifier`
    The product-space-form kernel perceptron of Tabaghi et al. (2021), one-vs-rest.
:class:`ProductSVMClassifier`, :class:`ProductSVMRegressor`
    scikit-learn's SVC / SVR on a precomputed product kernel that is positive
    semi-definite by construction (:func:`product_laplacian_kernel`).

References
----------
Tabaghi, Pan, Chien, Peng, Milenkovic (2021), "Linear classifiers in product space
forms", arXiv:2102.10204.
"""

from __future__ import annotations

import math
import numbers

import numpy as np
from numba import njit
from sklearn import get_config
from sklearn.base import BaseEstimator, ClassifierMixin, MetaEstimatorMixin, RegressorMixin, clone
from sklearn.svm import SVC, SVR
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor
from sklearn.utils.metaestimators import available_if
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, check_random_state, validate_data

from .manifolds._common import check_int
from .manifolds.signature import Signature

__all__ = [
    "AmbientClassifier",
    "AmbientRegressor",
    "GeodesicKNNClassifier",
    "GeodesicKNNRegressor",
    "ProductPerceptronClassifier",
    "ProductSVMClassifier",
    "ProductSVMRegressor",
    "TangentClassifier",
    "TangentRegressor",
    "perceptron_kernel",
    "perceptron_normalisers",
    "product_laplacian_kernel",
    "resolve_signature",
]


# --------------------------------------------------------------------------- helpers
def resolve_signature(signature, n_features: int) -> Signature:
    """The estimator's signature, or ``E<n_features>`` when it is ``None``.

    Parameters
    ----------
    signature : None, str, Signature or list of (curvature, dim)
    n_features : int
        Width of ``X`` (ambient coordinates).

    Raises
    ------
    ValueError
        If the signature cannot be parsed or its ambient width differs from ``n_features``.
    """
    if signature is None:
        return Signature.euclidean(n_features)
    try:
        sig = Signature.parse(signature)
    except TypeError as error:
        raise ValueError(str(error)) from None
    if sig.ambient_dim != n_features:
        raise ValueError(
            f"signature {str(sig)!r} needs {sig.ambient_dim} ambient coordinates per row "
            f"({' + '.join(f'{c.ambient_dim} for {c}' for c in sig.components)}), but X has {n_features} columns"
        )
    return sig


def _product_manifold(sig: Signature):
    # Imported here so that importing curvedtrees.baselines stays cheap.
    from .manifolds import ProductManifold

    return ProductManifold(sig)


def _validate_fit(estimator, X, y, *, regressor: bool, dtype=np.float64):
    """scikit-learn's input checks, then the manifold check. Sets ``signature_``."""
    # NaN / inf are left to ProductManifold.validate, whose message names the row,
    # column and component (scikit-learn's only says "Input X contains NaN").
    X, y = validate_data(estimator, X, y, dtype=dtype, y_numeric=regressor, ensure_all_finite=False)
    estimator.signature_ = resolve_signature(estimator.signature, X.shape[1])
    X = _product_manifold(estimator.signature_).validate(X, name="X")
    return X, y


def _validate_predict(estimator, X):
    check_is_fitted(estimator)
    X = validate_data(estimator, X, reset=False, dtype=np.float64, ensure_all_finite=False)
    return _product_manifold(estimator.signature_).validate(X, name="X")


def _encode_classes(y):
    check_classification_targets(y)
    classes, encoded = np.unique(y, return_inverse=True)
    return classes, encoded.astype(np.intp)


def _working_rows(n_columns: int, bytes_per_cell: int = 8 * 4) -> int:
    """Rows per block so that ``rows x n_columns`` cells stay within a bounded working memory.

    ``bytes_per_cell`` counts the float64 temporaries alive per cell (distances,
    sort keys, a couple of intermediate arrays).
    """
    # scikit-learn's working_memory (default 1 GB) is the upper limit; blocks of at
    # most 256 MB are as fast and keep the peak well below it.
    budget = min(get_config()["working_memory"], 256) * 2**20
    return max(1, int(budget // (bytes_per_cell * max(1, n_columns))))


# ------------------------------------------------------------- ambient and tangent
class _FeatureWrapper(MetaEstimatorMixin, BaseEstimator):
    """Shared code of the ambient and tangent baselines: features -> wrapped estimator."""

    _regressor = False

    def __init__(self, estimator=None, signature=None):
        self.estimator = estimator
        self.signature = signature

    def _default_estimator(self):
        # A fixed random_state: scikit-learn trees break ties between equally good
        # splits at random, and a baseline should give the same model on every fit.
        return DecisionTreeRegressor(random_state=0) if self._regressor else DecisionTreeClassifier(random_state=0)

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
        X, y = _validate_fit(self, X, y, regressor=self._regressor)
        estimator = clone(self.estimator) if self.estimator is not None else self._default_estimator()
        target = y
        if not self._regressor:
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
        if self._regressor:
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
    """

    _regressor = True


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
    """


class TangentRegressor(_TangentMixin, RegressorMixin, _FeatureWrapper):
    """A Euclidean regressor on the tangent space at the product origin.

    See :class:`TangentClassifier` for the features.

    Parameters
    ----------
    estimator : scikit-learn regressor, default=None
        ``None``: ``DecisionTreeRegressor(random_state=0)``.
    signature : str, Signature or None, default=None
    """

    _regressor = True


# ------------------------------------------------------------------- geodesic kNN
class _GeodesicKNN(BaseEstimator):
    _regressor = False

    def __init__(self, n_neighbors=5, signature=None, weights="uniform"):
        self.n_neighbors = n_neighbors
        self.signature = signature
        self.weights = weights

    def _check_params(self):
        check_int(self.n_neighbors, "n_neighbors")
        if not (self.weights in ("uniform", "distance") or callable(self.weights)):
            raise ValueError(f"weights must be 'uniform', 'distance' or a callable, got {self.weights!r}")

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
        self._check_params()
        X, y = _validate_fit(self, X, y, regressor=self._regressor)
        if self._regressor:
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
            block = manifold.pdist(X[start : start + step], self._fit_X)
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
            return weights
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
    """

    _regressor = True

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


# ------------------------------------------------------------------------- kernels
_KIND_CODE = {"E": 0, "S": 1, "H": 2}


def _kernel_layout(sig: Signature):
    """Per-column component id and metric sign (-1 on H's timelike coordinate)."""
    column_component = np.empty(sig.ambient_dim, dtype=np.int64)
    column_sign = np.ones(sig.ambient_dim)
    kinds = np.empty(len(sig), dtype=np.int64)
    for c, component in enumerate(sig.components):
        column_component[component.slice] = c
        kinds[c] = _KIND_CODE[component.kind]
        if component.kind == "H":
            column_sign[component.start] = -1.0
    return column_component, column_sign, kinds


def _component_weights(weights, sig: Signature) -> np.ndarray:
    if weights is None:
        return np.ones(len(sig))
    weights = np.asarray(weights, dtype=np.float64).ravel()
    if weights.shape != (len(sig),) or not np.all(np.isfinite(weights)) or np.any(weights < 0):
        raise ValueError(
            f"component_weights must be {len(sig)} finite non-negative numbers (one per component of "
            f"{str(sig)!r}), got {weights.tolist()}"
        )
    return weights


def perceptron_normalisers(X, sig: Signature) -> np.ndarray:
    """Scale of each component's inner products in :func:`perceptron_kernel`.

    S: ``R^2`` (so ``<x, y> / R^2`` is the cosine of the angle, in [-1, 1]).
    H and E: the largest squared Euclidean norm of a row of that component in ``X``;
    by Cauchy-Schwarz it bounds ``|<x, y>_L|`` (H) and ``|<x, y>|`` (E) over the
    training rows, so the arcsine's argument stays in [-1, 1] without clipping there.
    """
    out = np.ones(len(sig))
    for c, component in enumerate(sig.components):
        if component.kind == "S":
            out[c] = component.radius**2
        else:
            largest = float(np.max(np.sum(X[:, component.slice] ** 2, axis=1))) if len(X) else 0.0
            # All-zero component (E at the origin): any positive scale gives the same zero kernel.
            out[c] = largest if largest > 0 else 1.0
    return out


@njit(cache=True, nogil=True)
def _perceptron_kernel_value(xa, xb, column_component, column_sign, kinds, normalisers, weights):
    n_comp = kinds.shape[0]
    inner = np.zeros(n_comp)
    for d in range(xa.shape[0]):
        inner[column_component[d]] += column_sign[d] * xa[d] * xb[d]
    value = 1.0  # constant feature: the perceptron's bias
    for c in range(n_comp):
        z = inner[c] / normalisers[c]
        if kinds[c] == 0:
            value += weights[c] * z
        else:
            # Test points farther out than every training point can exceed the
            # training bound: clip to arcsine's domain.
            z = min(1.0, max(-1.0, z))
            value += weights[c] * math.asin(z)
    return value


@njit(cache=True, nogil=True)
def _perceptron_kernel_block(A, B, column_component, column_sign, kinds, normalisers, weights):
    out = np.empty((A.shape[0], B.shape[0]))
    for i in range(A.shape[0]):
        for j in range(B.shape[0]):
            out[i, j] = _perceptron_kernel_value(A[i], B[j], column_component, column_sign, kinds, normalisers, weights)
    return out


def perceptron_kernel(A, B, signature, normalisers, component_weights=None):
    """The product-space-form perceptron kernel (after Tabaghi et al. 2021).

    ``k(x, y) = 1 + sum_c w_c k_c(x_c, y_c)`` with

    * E: ``<x, y> / s_E`` (linear kernel; ``s_E`` a fixed scale),
    * S: ``asin(<x, y> / R^2)``, the arcsine of the cosine of the angle between the
      points: a signed geodesic distance to the great sphere orthogonal to ``x``,
    * H: ``asin(<x, y>_L / s_H)`` with the Minkowski product ``<x, y>_L``
      (``s_H`` bounds ``|<x, y>_L|`` on the training rows),

    and the constant 1 acting as the bias. The E and S parts are positive
    semi-definite (the arcsine's power series has non-negative coefficients); the H
    part is not (the Minkowski product is indefinite), which the perceptron does not
    need. For a PSD product kernel use :func:`product_laplacian_kernel`.

    Parameters
    ----------
    A : ndarray of shape (n_a, ambient_dim)
    B : ndarray of shape (n_b, ambient_dim)
    signature : str or Signature
    normalisers : ndarray of shape (n_components,)
        From :func:`perceptron_normalisers` on the training rows.
    component_weights : array-like of shape (n_components,), optional
        ``w_c``; default all ones (the papers' choice).

    Returns
    -------
    ndarray of shape (n_a, n_b)
    """
    sig = Signature.parse(signature)
    column_component, column_sign, kinds = _kernel_layout(sig)
    weights = _component_weights(component_weights, sig)
    return _perceptron_kernel_block(
        np.ascontiguousarray(A, dtype=np.float64),
        np.ascontiguousarray(B, dtype=np.float64),
        column_component,
        column_sign,
        kinds,
        np.asarray(normalisers, dtype=np.float64),
        weights,
    )


# Above this many training rows the perceptron computes kernel rows on demand instead
# of holding the (n, n) Gram matrix (4096^2 float64 = 128 MB).
_GRAM_MAX_ROWS = 4096


@njit(cache=True, nogil=True)
def _perceptron_train(X, Y, gram, order, column_component, column_sign, kinds, normalisers, weights):
    """Mistake-driven kernel perceptron, all one-vs-rest problems in one pass.

    ``Y`` (n, n_problems) holds +-1 labels; ``order`` (n_epochs, n) the row order of
    each epoch; ``gram`` is the (n, n) kernel matrix or an empty (0, 0) array, in which
    case kernel rows are computed when a mistake needs them.
    Returns the mistake counts ``alpha`` (n, n_problems) and the number of epochs run.
    """
    n, n_problems = Y.shape
    alpha = np.zeros((n, n_problems))
    scores = np.zeros((n, n_problems))  # decision value of every training row, kept current
    row = np.empty(n)
    use_gram = gram.shape[0] == n
    epochs = 0
    for epoch in range(order.shape[0]):
        epochs += 1
        mistakes = 0
        for position in range(n):
            i = order[epoch, position]
            wrong = False
            for p in range(n_problems):
                # A score of exactly 0 counts as a mistake: the perceptron must commit.
                if Y[i, p] * scores[i, p] <= 0.0:
                    wrong = True
            if not wrong:
                continue
            if use_gram:
                row[:] = gram[i]
            else:
                for j in range(n):
                    row[j] = _perceptron_kernel_value(
                        X[i], X[j], column_component, column_sign, kinds, normalisers, weights
                    )
            for p in range(n_problems):
                if Y[i, p] * scores[i, p] <= 0.0:
                    alpha[i, p] += 1.0
                    mistakes += 1
                    for j in range(n):
                        scores[j, p] += Y[i, p] * row[j]
        if mistakes == 0:
            break
    return alpha, epochs


class ProductPerceptronClassifier(ClassifierMixin, BaseEstimator):
    """Kernel perceptron for product space forms (Tabaghi et al. 2021), one-vs-rest.

    The classifier for each class is ``sign(sum_i alpha_i y_i k(x_i, x))`` with the
    product kernel of :func:`perceptron_kernel`: a weighted sum, over components, of a
    linear kernel (E) and of arcsines of normalised inner products (S, H), plus a
    constant for the bias. Training is the classic mistake-driven update
    (``alpha_i += 1`` whenever row ``i`` is misclassified), visiting the rows in a
    random order each epoch, until an epoch without mistakes or ``max_iter`` epochs.
    Multi-class problems train one perceptron per class (one-vs-rest) and predict
    the class with the largest decision value; two classes train one perceptron.

    Parameters
    ----------
    signature : str, Signature or None, default=None
        ``None`` means all-Euclidean of X's width (a kernel perceptron with a linear
        kernel plus bias).
    component_weights : array-like of shape (n_components,) or None, default=None
        Relative weight of each component's kernel; ``None`` gives every component
        weight 1 (as in the mixed-curvature paper's benchmarks).
    max_iter : int, default=50
        Maximum number of epochs.
    shuffle : bool, default=True
        Visit the rows in a new random order each epoch.
    random_state : None, int or RandomState, default=None
        Seeds the visiting order.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    dual_coef_ : ndarray of shape (n_support, n_problems)
        ``alpha_i y_i`` of the rows with at least one mistake (``n_problems`` is 1 for
        two classes, else n_classes).
    support_vectors_ : ndarray of shape (n_support, ambient_dim)
    normalisers_ : ndarray of shape (n_components,)
    n_iter_ : int
        Epochs run.
    signature_, n_features_in_
    """

    def __init__(self, signature=None, component_weights=None, max_iter=50, shuffle=True, random_state=None):
        self.signature = signature
        self.component_weights = component_weights
        self.max_iter = max_iter
        self.shuffle = shuffle
        self.random_state = random_state

    def fit(self, X, y):
        """Train the perceptron(s).

        Parameters
        ----------
        X : array-like of shape (n_samples, ambient_dim)
        y : array-like of shape (n_samples,)

        Returns
        -------
        self
        """
        check_int(self.max_iter, "max_iter")
        X, y = _validate_fit(self, X, y, regressor=False)
        self.classes_, encoded = _encode_classes(y)
        if len(self.classes_) < 2:
            raise ValueError(
                f"ProductPerceptronClassifier needs samples of at least 2 classes in the data, got 1 class "
                f"({self.classes_[0]!r})"
            )
        sig = self.signature_
        weights = _component_weights(self.component_weights, sig)
        self.normalisers_ = perceptron_normalisers(X, sig)
        layout = _kernel_layout(sig)
        if len(self.classes_) == 2:
            Y = np.where(encoded == 1, 1.0, -1.0)[:, None]
        else:
            Y = np.where(encoded[:, None] == np.arange(len(self.classes_))[None, :], 1.0, -1.0)
        n = X.shape[0]
        rng = check_random_state(self.random_state)
        if self.shuffle:
            order = np.stack([rng.permutation(n) for _ in range(self.max_iter)]).astype(np.int64)
        else:
            order = np.broadcast_to(np.arange(n, dtype=np.int64), (self.max_iter, n)).copy()
        X = np.ascontiguousarray(X)
        if n <= _GRAM_MAX_ROWS:
            gram = _perceptron_kernel_block(X, X, *layout, self.normalisers_, weights)
        else:
            gram = np.empty((0, 0))
        alpha, self.n_iter_ = _perceptron_train(
            X, np.ascontiguousarray(Y), gram, order, *layout, self.normalisers_, weights
        )
        support = np.flatnonzero(alpha.any(axis=1))
        self.support_vectors_ = X[support]
        self.dual_coef_ = (alpha * Y)[support]
        self._weights = weights
        return self

    def decision_function(self, X):
        """Decision values: (n_samples,) for two classes (positive: ``classes_[1]``), else (n_samples, n_classes)."""
        check_is_fitted(self)
        X = _validate_predict(self, X)
        layout = _kernel_layout(self.signature_)
        out = np.empty((X.shape[0], self.dual_coef_.shape[1]))
        step = _working_rows(max(1, len(self.support_vectors_)), bytes_per_cell=16)
        for start in range(0, X.shape[0], step):
            block = _perceptron_kernel_block(
                np.ascontiguousarray(X[start : start + step]),
                self.support_vectors_,
                *layout,
                self.normalisers_,
                self._weights,
            )
            out[start : start + step] = block @ self.dual_coef_
        return out[:, 0] if out.shape[1] == 1 else out

    def predict(self, X):
        """Predicted classes, shape (n_samples,)."""
        check_is_fitted(self)
        scores = self.decision_function(X)
        if scores.ndim == 1:
            return self.classes_[(scores > 0).astype(np.intp)]
        return self.classes_[np.argmax(scores, axis=1)]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = False
        return tags


# ------------------------------------------------------------ product Laplacian SVM
def product_laplacian_kernel(A, B, signature, gamma, component_weights=None):
    """``exp(-gamma * sum_c w_c d_c(a_c, b_c))``: a positive semi-definite product kernel.

    Why it is PSD: on Euclidean space, on spheres and on hyperbolic spaces the
    geodesic distance is a conditionally negative definite function (Istas 2005;
    Faraut and Harzallah 1974; Feragen, Lauze and Hauberg 2015 use this to show the
    geodesic Laplacian kernel is PSD exactly on these spaces). A non-negative sum of
    conditionally negative definite functions is again one, and by Schoenberg's
    theorem ``exp(-gamma psi)`` is PSD for every ``gamma > 0`` when ``psi`` is
    conditionally negative definite. (The Gaussian ``exp(-gamma d^2)`` is *not* PSD on
    curved spaces, and neither is ``exp(-gamma d_P)`` with the L2 product distance in
    general, which is why the components' distances are added, not combined in L2.)

    Parameters
    ----------
    A : ndarray of shape (n_a, ambient_dim)
    B : ndarray of shape (n_b, ambient_dim)
    signature : str or Signature
    gamma : float
        Positive inverse length scale.
    component_weights : array-like of shape (n_components,), optional
        Non-negative ``w_c``, default ones.

    Returns
    -------
    ndarray of shape (n_a, n_b)
    """
    sig = Signature.parse(signature)
    weights = _component_weights(component_weights, sig)
    manifold = _product_manifold(sig)
    total = np.zeros((A.shape[0], B.shape[0]))
    for c, (component, space) in enumerate(zip(sig.components, manifold.components)):
        if weights[c] == 0:
            continue
        total += weights[c] * space.pdist(A[:, component.slice], B[:, component.slice])
    total *= -float(gamma)
    return np.exp(total, out=total)


class _ProductSVM(BaseEstimator):
    _regressor = False

    def _resolve_gamma(self, X, weights):
        if isinstance(self.gamma, str):
            if self.gamma != "scale":
                raise ValueError(f"gamma must be 'scale' or a positive number, got {self.gamma!r}")
            # 1 / mean summed distance over (a deterministic subsample of) training pairs,
            # so that a typical kernel value is exp(-1).
            sample = X[:: max(1, X.shape[0] // 500)]
            sig = self.signature_
            manifold = _product_manifold(sig)
            total = np.zeros((len(sample), len(sample)))
            for c, (component, space) in enumerate(zip(sig.components, manifold.components)):
                total += weights[c] * space.pdist(sample[:, component.slice])
            mean = total.sum() / max(1, len(sample) * (len(sample) - 1))
            return 1.0 / mean if mean > 0 else 1.0
        if not isinstance(self.gamma, numbers.Real) or not self.gamma > 0 or not math.isfinite(self.gamma):
            raise ValueError(f"gamma must be 'scale' or a positive number, got {self.gamma!r}")
        return float(self.gamma)

    def _gram(self, A, B):
        return product_laplacian_kernel(A, B, self.signature_, self.gamma_, self._weights)

    def _fit_svm(self, X, y, sample_weight, svm):
        weights = _component_weights(self.component_weights, self.signature_)
        self._weights = weights
        self.gamma_ = self._resolve_gamma(X, weights)
        svm.fit(self._gram(X, X), y, sample_weight=sample_weight)
        # Only the support vectors enter predictions: keep those rows, not all of X.
        self.svm_ = svm
        self.support_vectors_ = X[svm.support_]
        self._n_fit = X.shape[0]
        return self

    def _test_gram(self, X):
        """Kernel between X and the training rows, in the layout SVC expects (zeros off the support)."""
        X = _validate_predict(self, X)
        out = np.zeros((X.shape[0], self._n_fit))
        support = self.svm_.support_
        step = _working_rows(max(1, len(support)), bytes_per_cell=24)
        for start in range(0, X.shape[0], step):
            out[start : start + step, support] = self._gram(X[start : start + step], self.support_vectors_)
        return out

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = False
        return tags


class ProductSVMClassifier(ClassifierMixin, _ProductSVM):
    """Support vector classifier with a positive semi-definite product kernel.

    scikit-learn's ``SVC(kernel="precomputed")`` on the kernel of
    :func:`product_laplacian_kernel`, ``exp(-gamma * sum_c w_c d_c(x_c, y_c))``: the
    geodesic Laplacian kernel of each component, multiplied together. It is positive
    semi-definite on every product of H, S and E for every ``gamma > 0`` (see that
    function), so the SVM's quadratic program is convex and libsvm solves it
    reliably. (The SVM of Tabaghi et al. 2021 uses second-order-cone constraints
    that the mixed-curvature paper could not get to run; this is a different,
    working product-space SVM.) Multi-class: libsvm's one-vs-one.

    Parameters
    ----------
    signature : str, Signature or None, default=None
        ``None`` means all-Euclidean (a Laplacian-kernel SVM on the raw coordinates).
    C : float, default=1.0
        Inverse regularisation strength.
    gamma : "scale" or float, default="scale"
        Kernel inverse length scale; "scale" uses 1 / (mean weighted summed
        distance between training points).
    component_weights : array-like of shape (n_components,) or None, default=None
        Non-negative weight of each component's distance; ``None``: all ones.
    class_weight : dict, "balanced" or None, default=None
        As in ``SVC``.

    Notes
    -----
    For probabilities, wrap the model in
    ``sklearn.calibration.CalibratedClassifierCV`` (scikit-learn 1.9 deprecates
    ``SVC(probability=True)``).

    :func:`curvedtrees.io.dumps` stores only the support vectors (for both SVMs); after
    :func:`curvedtrees.io.loads`, ``svm_.support_`` numbers them ``0 .. n_SV - 1`` in
    ``support_vectors_`` instead of giving training-row indices. Predictions are
    identical.

    Attributes
    ----------
    classes_, svm_ (the fitted SVC), support_vectors_, gamma_, signature_, n_features_in_
    """

    def __init__(
        self,
        signature=None,
        C=1.0,
        gamma="scale",
        component_weights=None,
        class_weight=None,
    ):
        self.signature = signature
        self.C = C
        self.gamma = gamma
        self.component_weights = component_weights
        self.class_weight = class_weight

    def _make_svm(self):
        return SVC(C=self.C, kernel="precomputed", class_weight=self.class_weight)

    def fit(self, X, y, sample_weight=None):
        """Fit the SVM.

        Parameters
        ----------
        X : array-like of shape (n_samples, ambient_dim)
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), optional

        Returns
        -------
        self
        """
        X, y = _validate_fit(self, X, y, regressor=False)
        check_classification_targets(y)
        self._fit_svm(X, y, sample_weight, self._make_svm())
        self.classes_ = self.svm_.classes_
        return self

    def decision_function(self, X):
        """SVC decision values: (n_samples,) for two classes, else (n_samples, n_classes) (one-vs-rest shape)."""
        check_is_fitted(self)
        return self.svm_.decision_function(self._test_gram(X))

    def predict(self, X):
        """Predicted classes, shape (n_samples,)."""
        check_is_fitted(self)
        return self.svm_.predict(self._test_gram(X))


class ProductSVMRegressor(RegressorMixin, _ProductSVM):
    """Support vector regression with the PSD product Laplacian kernel.

    ``SVR(kernel="precomputed")`` on :func:`product_laplacian_kernel`; see
    :class:`ProductSVMClassifier` for the kernel.

    Parameters
    ----------
    signature : str, Signature or None, default=None
    C : float, default=1.0
    epsilon : float, default=0.1
        Width of the insensitive tube, in units of the target.
    gamma : "scale" or float, default="scale"
    component_weights : array-like of shape (n_components,) or None, default=None

    Attributes
    ----------
    svm_ (the fitted SVR), support_vectors_, gamma_, signature_, n_features_in_
    """

    _regressor = True

    def __init__(self, signature=None, C=1.0, epsilon=0.1, gamma="scale", component_weights=None):
        self.signature = signature
        self.C = C
        self.epsilon = epsilon
        self.gamma = gamma
        self.component_weights = component_weights

    def _make_svm(self):
        return SVR(C=self.C, epsilon=self.epsilon, kernel="precomputed")

    def fit(self, X, y, sample_weight=None):
        """Fit the SVR; returns self."""
        X, y = _validate_fit(self, X, y, regressor=True)
        return self._fit_svm(X, y, sample_weight, self._make_svm())

    def predict(self, X):
        """Predicted targets, shape (n_samples,)."""
        check_is_fitted(self)
        return self.svm_.predict(self._test_gram(X))


# ------------------------------------------------------------------ serialisation
# JSON state for curvedtrees.io (never pickle).
def _dump_signature_state(model) -> dict:
    from .io import encode_labels

    state = {"signature": str(model.signature_), "n_features_in": int(model.n_features_in_)}
    if hasattr(model, "classes_"):
        state["classes"] = encode_labels(model.classes_)
    return state


def _load_signature_state(model, state, keys, where="fitted"):
    from .io import decode_labels

    expected = {"signature", "n_features_in", *keys}
    if isinstance(model, ClassifierMixin):
        expected.add("classes")
    if not isinstance(state, dict) or set(state) != expected:
        raise ValueError(f"{where}: expected the keys {sorted(expected)}")
    if not isinstance(state["signature"], str):
        raise ValueError(f"{where}.signature must be a string")
    try:
        signature = Signature.parse(state["signature"])
    except ValueError as exc:
        raise ValueError(f"{where}.signature: {exc}") from None
    if state["n_features_in"] != signature.ambient_dim:
        raise ValueError(f"{where}: n_features_in must be {signature.ambient_dim} for '{signature}'")
    model.signature_ = signature
    model.n_features_in_ = signature.ambient_dim
    if isinstance(model, ClassifierMixin):
        classes = decode_labels(state["classes"], f"{where}.classes")
        if classes.size < 1 or np.unique(classes).size != classes.size:
            raise ValueError(f"{where}.classes must be distinct and non-empty")
        model.classes_ = classes
    return signature


def _dump_wrapper(model):
    from .klein.serialization import dump_tree_model

    if not hasattr(model, "estimator_"):
        return None
    state = _dump_signature_state(model)
    state["estimator"] = dump_tree_model(model.estimator_)
    return state


def _load_wrapper(model, state):
    from .klein.serialization import load_tree_model

    signature = _load_signature_state(model, state, {"estimator"})
    n_features = signature.ambient_dim if isinstance(model, _AmbientMixin) else signature.dim
    classifier = isinstance(model, ClassifierMixin)
    template = clone(model.estimator) if model.estimator is not None else model._default_estimator()
    n_classes = len(model.classes_) if classifier else None
    model.estimator_ = load_tree_model(
        state["estimator"], template, classifier, n_features, n_classes, "fitted.estimator"
    )


def _dump_knn(model):
    from .io import encode_array

    if not hasattr(model, "_fit_X"):
        return None
    state = _dump_signature_state(model)
    state["X"] = encode_array(model._fit_X)
    state["y"] = encode_array(model._y)
    return state


def _load_knn(model, state):
    from .io import decode_array

    signature = _load_signature_state(model, state, {"X", "y"})
    X = decode_array(state["X"], "fitted.X", "float64", 2)
    classifier = isinstance(model, ClassifierMixin)
    y = decode_array(state["y"], "fitted.y", "int64" if classifier else "float64", 1)
    if X.shape[1] != signature.ambient_dim or len(y) != len(X) or len(X) == 0:
        raise ValueError(f"fitted: X must have shape (n, {signature.ambient_dim}) with n >= 1 and y n entries")
    if classifier and (y.min() < 0 or y.max() >= len(model.classes_)):
        raise ValueError("fitted.y: encoded labels out of range")
    model._fit_X = _product_manifold(signature).validate(X, name="fitted.X")
    model._y = y
    model.n_samples_fit_ = len(X)


def _dump_perceptron(model):
    from .io import encode_array

    if not hasattr(model, "dual_coef_"):
        return None
    state = _dump_signature_state(model)
    state.update(
        support_vectors=encode_array(model.support_vectors_),
        dual_coef=encode_array(model.dual_coef_),
        normalisers=encode_array(model.normalisers_),
        n_iter=int(model.n_iter_),
    )
    return state


def _load_perceptron(model, state):
    from .io import decode_array

    signature = _load_signature_state(model, state, {"support_vectors", "dual_coef", "normalisers", "n_iter"})
    support = decode_array(state["support_vectors"], "fitted.support_vectors", "float64", 2)
    dual = decode_array(state["dual_coef"], "fitted.dual_coef", "float64", 2)
    normalisers = decode_array(state["normalisers"], "fitted.normalisers", "float64", 1)
    n_problems = 1 if len(model.classes_) == 2 else len(model.classes_)
    if support.shape[1] != signature.ambient_dim or dual.shape != (len(support), n_problems):
        raise ValueError("fitted: support_vectors and dual_coef shapes do not match the signature and classes")
    if normalisers.shape != (len(signature),) or not np.all(normalisers > 0):
        raise ValueError("fitted.normalisers must be one positive number per component")
    if not isinstance(state["n_iter"], int) or state["n_iter"] < 0:
        raise ValueError("fitted.n_iter must be a non-negative integer")
    model.support_vectors_ = np.ascontiguousarray(support)
    model.dual_coef_ = dual
    model.normalisers_ = normalisers
    model.n_iter_ = state["n_iter"]
    model._weights = _component_weights(model.component_weights, signature)


# The SVMs: scikit-learn keeps a fitted SVC / SVR's libsvm model in private attributes
# (_dual_coef_, _intercept_, _n_support, _probA, _probB, _gamma, ...) with no public way to
# load one, so those fields are stored as arrays and set by hand on a new SVC / SVR after
# checks that keep libsvm's compiled predict in bounds. Only the support vectors are
# stored, in ambient coordinates (the product kernel needs them at predict time); the
# loaded SVC is fitted "on the support vectors", so its support_ is 0 .. n_SV - 1 and
# the test kernel has one column per support vector, with the same values in the same
# order as before, hence the same predictions bit for bit.
_SKLEARN_PIN = ">=1.5,<1.11"


def _svm_version_error(action, exc, error):
    import sklearn

    return error(
        f"cannot {action} with scikit-learn {sklearn.__version__}: its SVC / SVR private fitted state is not laid "
        f"out as this code expects ({type(exc).__name__}: {exc}). These models are saved and loaded with "
        f"scikit-learn{_SKLEARN_PIN} (requirements.txt)"
    )


def _dump_svm(model):
    from .io import encode_array

    if not hasattr(model, "svm_"):
        return None
    svm = model.svm_
    name = type(model).__name__
    try:
        sparse, kernel = bool(svm._sparse), svm.kernel
        fields = {
            "n_support": encode_array(np.asarray(svm._n_support)),
            "dual_coef": encode_array(np.asarray(svm._dual_coef_, dtype=np.float64)),
            "intercept": encode_array(np.asarray(svm._intercept_, dtype=np.float64)),
            "prob_a": encode_array(np.asarray(svm._probA, dtype=np.float64)),
            "prob_b": encode_array(np.asarray(svm._probB, dtype=np.float64)),
            "fit_status": int(svm.fit_status_),
            "n_iter": encode_array(np.atleast_1d(np.asarray(svm.n_iter_))),
        }
        if isinstance(model, ClassifierMixin):
            fields["class_weight"] = encode_array(np.asarray(svm.class_weight_, dtype=np.float64))
    except AttributeError as exc:
        raise _svm_version_error(f"save {name}", exc, TypeError) from None
    if sparse or kernel != "precomputed":
        raise TypeError(f"cannot save {name}: its SVM must be dense with kernel='precomputed'")
    state = _dump_signature_state(model)
    state.update(fields, gamma=float(model.gamma_), support_vectors=encode_array(model.support_vectors_))
    return state


def _load_svm(model, state):
    from .io import decode_array

    where = "fitted"
    classifier = isinstance(model, ClassifierMixin)
    keys = {"gamma", "support_vectors", "n_support", "dual_coef", "intercept", "prob_a", "prob_b", "fit_status"}
    keys |= {"n_iter", "class_weight"} if classifier else {"n_iter"}
    signature = _load_signature_state(model, state, keys)
    gamma = state["gamma"]
    if not isinstance(gamma, (int, float)) or isinstance(gamma, bool) or not math.isfinite(gamma) or gamma <= 0:
        raise ValueError(f"{where}.gamma must be a positive finite number")
    if not isinstance(model.gamma, str) and float(model.gamma) != float(gamma):
        raise ValueError(f"{where}.gamma must equal the gamma parameter ({model.gamma!r})")
    weights = _component_weights(model.component_weights, signature)
    support_vectors = decode_array(state["support_vectors"], f"{where}.support_vectors", "float64", 2)
    n_sv = support_vectors.shape[0]
    if support_vectors.shape[1] != signature.ambient_dim:
        raise ValueError(f"{where}.support_vectors must have shape (n_support_vectors, {signature.ambient_dim})")
    if n_sv:
        support_vectors = _product_manifold(signature).validate(support_vectors, name=f"{where}.support_vectors")
    if classifier:
        n_classes = len(model.classes_)
        if n_classes < 2:
            raise ValueError(f"{where}.classes: an SVM classifier needs at least two classes")
        n_pairs = n_classes * (n_classes - 1) // 2
        shapes = {
            "n_support": (n_classes,),
            "dual_coef": (n_classes - 1, n_sv),
            "intercept": (n_pairs,),
            "n_iter": (n_pairs,),
            "class_weight": (n_classes,),
        }
    else:
        n_pairs = 1
        shapes = {"n_support": (2,), "dual_coef": (1, n_sv), "intercept": (1,), "n_iter": (1,)}
    arrays = {}
    for key, shape in shapes.items():
        kind = "int64" if key in ("n_support", "n_iter") else "float64"
        arrays[key] = decode_array(state[key], f"{where}.{key}", kind, len(shape))
        if arrays[key].shape != shape:
            raise ValueError(f"{where}.{key} must have shape {shape}, got {arrays[key].shape}")
        if kind == "float64" and not np.all(np.isfinite(arrays[key])):
            raise ValueError(f"{where}.{key} must be finite")
        if np.any(arrays[key] < 0) and key in ("n_support", "n_iter", "class_weight"):
            raise ValueError(f"{where}.{key} must be non-negative")
    n_support = arrays["n_support"]
    # One support vector count per class (libsvm's one-vs-one reads them as offsets); an
    # SVR stores its total, twice.
    if (classifier and n_support.sum() != n_sv) or (not classifier and n_support[0] != n_sv):
        raise ValueError(f"{where}.n_support must add up to the {n_sv} support vectors")
    if not classifier and n_support[1] > n_sv:
        raise ValueError(f"{where}.n_support must not exceed the {n_sv} support vectors")
    prob = [decode_array(state[key], f"{where}.{key}", "float64", 1) for key in ("prob_a", "prob_b")]
    if (
        prob[0].shape != prob[1].shape
        or prob[0].size not in (0, n_pairs)
        or not all(np.isfinite(p).all() for p in prob)
    ):
        raise ValueError(f"{where}.prob_a and prob_b must be empty or {n_pairs} finite numbers each")
    fit_status = state["fit_status"]
    if not isinstance(fit_status, int) or isinstance(fit_status, bool) or fit_status not in (0, 1):
        raise ValueError(f"{where}.fit_status must be 0 or 1")

    n_fit = max(1, n_sv)  # scikit-learn needs one kernel column even without support vectors
    svm = model._make_svm()
    dual_coef = np.ascontiguousarray(arrays["dual_coef"])
    intercept = np.ascontiguousarray(arrays["intercept"])
    try:
        svm._sparse = False
        svm.n_features_in_ = n_fit
        svm.shape_fit_ = (n_fit, n_fit)
        svm.support_ = np.arange(n_sv, dtype=np.int32)
        svm.support_vectors_ = np.empty((0, 0), dtype=np.float64)  # a precomputed kernel has none
        svm._n_support = n_support.astype(np.int32)
        svm._dual_coef_ = dual_coef
        svm._intercept_ = intercept
        svm._probA, svm._probB = prob
        svm._gamma = 0.0  # unused with a precomputed kernel
        svm.fit_status_ = state["fit_status"]
        svm._num_iter = arrays["n_iter"].astype(np.int32)
        svm._effective_probability = bool(prob[0].size)
        if classifier:
            svm.classes_ = model.classes_
            svm.class_weight_ = arrays["class_weight"]
            svm.n_iter_ = svm._num_iter
            # The public coefficients of a binary SVC have the opposite sign (scikit-learn's convention).
            flip = -1.0 if n_classes == 2 else 1.0
            svm.dual_coef_ = flip * dual_coef
            svm.intercept_ = flip * intercept
        else:
            svm.n_iter_ = int(svm._num_iter[0])
            svm.dual_coef_ = dual_coef
            svm.intercept_ = intercept.copy()
        svm.predict(np.zeros((1, n_fit)))  # a scikit-learn with other internals fails here, not later
    except (AttributeError, TypeError, KeyError, IndexError) as exc:
        raise _svm_version_error(f"rebuild {type(model).__name__}", exc, ValueError) from None
    model._weights = weights
    model.gamma_ = float(gamma)
    model.svm_ = svm
    model.support_vectors_ = np.ascontiguousarray(support_vectors)
    model._n_fit = n_fit


def _register():
    from .io import register

    for cls in (AmbientClassifier, AmbientRegressor, TangentClassifier, TangentRegressor):
        register(cls, _dump_wrapper, _load_wrapper)
    for cls in (GeodesicKNNClassifier, GeodesicKNNRegressor):
        register(cls, _dump_knn, _load_knn)
    register(ProductPerceptronClassifier, _dump_perceptron, _load_perceptron)
    for cls in (ProductSVMClassifier, ProductSVMRegressor):
        register(cls, _dump_svm, _load_svm)


_register()
