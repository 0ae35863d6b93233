"""Product manifolds of hyperbolic, spherical and Euclidean components.

Public API
----------
Signature, Component
    Parse and describe signatures such as ``"H2 x S2(0.5) x E2"``;
    ``Signature.resolve(signature, n_features)`` is every estimator's rule
    (``None`` -> ``E<n_features>``, width checked).
Hyperbolic, Spherical, Euclidean
    Component manifolds (hyperboloid model, sphere, flat space) with geoopt's
    vocabulary: ``inner, norm, dist, cdist`` (the ``(n, m)`` distance matrix;
    ``pdist`` is an older alias) ``, expmap, logmap, expmap0, logmap0, transp,
    transp0, projx, proju, origin, check_point`` (also as geoopt's
    ``check_point_on_manifold``) ``, random_normal``.
ProductManifold
    Their product, plus ``factorize``, ``pack``, ``component_dist`` and
    ``validate`` (user-input checking with precise error messages).
manifold_for
    The component manifold of a ``Component``.
OffManifoldError
    The ``ValueError`` of rows that are not points of the manifold.
CHECK_RTOL
    Default relative tolerance of ``check_point`` / ``validate``.
"""

from ._base import ComponentManifold
from ._common import CHECK_RTOL
from .euclidean import Euclidean
from .hyperbolic import Hyperbolic
from .product import OffManifoldError, ProductManifold, manifold_for
from .signature import Component, Signature
from .spherical import Spherical

__all__ = [
    "CHECK_RTOL",
    "Component",
    "ComponentManifold",
    "Euclidean",
    "Hyperbolic",
    "OffManifoldError",
    "ProductManifold",
    "Signature",
    "Spherical",
    "manifold_for",
]
