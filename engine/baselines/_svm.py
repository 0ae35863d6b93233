"""scikit-learn's SVC / SVR on a precomputed product Laplacian kernel (positive semi-definite by construction)."""

from __future__ import annotations

from numbers import Real
from typing import ClassVar

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.svm import SVC, SVR
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted

from ..manifolds.signature import Signature
from ._common import _component_weights, _product_manifold, _validate_fit, _validate_predict, _working_rows


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
        total += weights[c] * space.cdist(A[:, component.slice], B[:, component.slice])
    total *= -float(gamma)
    return np.exp(total, out=total)


class _ProductSVM(BaseEstimator):
    # scikit-learn's declarative checks, run by _validate_params() at the start of fit;
    # C and epsilon are checked by the SVC / SVR inside.
    _parameter_constraints: ClassVar[dict] = {
        "signature": "no_validation",  # resolved, with its own messages, by Signature.resolve
        "component_weights": "no_validation",  # checked against the signature by _component_weights
        # closed="neither" with no upper bound also refuses infinity (and NaN, outside every Interval).
        "gamma": [StrOptions({"scale"}), Interval(Real, 0.0, None, closed="neither")],
    }

    def _resolve_gamma(self, X, weights):
        if isinstance(self.gamma, str):
            # 1 / mean summed distance over (a deterministic subsample of) training pairs,
            # so that a typical kernel value is exp(-1).
            sample = X[:: max(1, X.shape[0] // 500)]
            sig = self.signature_
            manifold = _product_manifold(sig)
            total = np.zeros((len(sample), len(sample)))
            for c, (component, space) in enumerate(zip(sig.components, manifold.components)):
                total += weights[c] * space.cdist(sample[:, component.slice])
            mean = total.sum() / max(1, len(sample) * (len(sample) - 1))
            return 1.0 / mean if mean > 0 else 1.0
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

    Examples
    --------
    >>> from curvedtrees import ProductSVMClassifier, make_classification
    >>> X, y = make_classification("H2 x S2", n_samples=200, n_classes=3, random_state=0)
    >>> model = ProductSVMClassifier(signature="H2 x S2").fit(X, y)
    >>> model.predict(X[:4]).shape
    (4,)
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
        self._validate_params()
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

    Examples
    --------
    >>> from curvedtrees import ProductSVMRegressor, make_regression
    >>> X, y = make_regression("S2 x E1", n_samples=200, random_state=0)
    >>> ProductSVMRegressor(signature="S2 x E1").fit(X, y).predict(X[:2]).shape
    (2,)
    """

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
        self._validate_params()
        X, y = _validate_fit(self, X, y, regressor=True)
        return self._fit_svm(X, y, sample_weight, self._make_svm())

    def predict(self, X):
        """Predicted targets, shape (n_samples,)."""
        check_is_fitted(self)
        return self.svm_.predict(self._test_gram(X))
