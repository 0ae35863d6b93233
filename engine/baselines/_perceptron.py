"""The product-space-form kernel perceptron of Tabaghi et al. (2021), one-vs-rest."""

from __future__ import annotations

import math
from numbers import Integral
from typing import ClassVar

import numpy as np
from numba import njit
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils._param_validation import Interval
from sklearn.utils.validation import check_is_fitted, check_random_state

from ..manifolds.signature import Signature
from ._common import _component_weights, _encode_classes, _validate_fit, _validate_predict, _working_rows

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

    Examples
    --------
    >>> from curvedtrees import ProductPerceptronClassifier, make_classification
    >>> X, y = make_classification("H2 x E2", n_samples=200, n_classes=3, random_state=0)
    >>> model = ProductPerceptronClassifier(signature="H2 x E2", random_state=0).fit(X, y)
    >>> model.predict(X[:4]).shape, len(model.classes_)
    ((4,), 3)
    """

    # scikit-learn's declarative checks, run by _validate_params() at the start of fit.
    _parameter_constraints: ClassVar[dict] = {
        "signature": "no_validation",  # resolved, with its own messages, by Signature.resolve
        "component_weights": "no_validation",  # checked against the signature by _component_weights
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "shuffle": ["boolean"],
        "random_state": ["random_state"],
    }

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
        self._validate_params()
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
