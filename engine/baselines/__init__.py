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

from . import serialization as _serialization  # noqa: F401  (registers with curvedtrees.io)
from ._knn import GeodesicKNNClassifier, GeodesicKNNRegressor
from ._perceptron import ProductPerceptronClassifier, perceptron_kernel, perceptron_normalisers
from ._svm import ProductSVMClassifier, ProductSVMRegressor, product_laplacian_kernel
from ._wrappers import AmbientClassifier, AmbientRegressor, TangentClassifier, TangentRegressor

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
]
