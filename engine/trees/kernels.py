"""What the tree layers share with the other estimator families of the package.

The boosted product trees (``curvedtrees.boosting``) and the Klein correction
(``curvedtrees.klein``) reuse the product trees' split geometry, boundary rules,
routing, node arrays and input checks; boosting also hands its trees out as fitted
product regression trees (``tree_regressor``). They import them from here, never from the trees'
underscore modules, so those modules stay free to change shape; what is listed
here is the contract, and changing it means changing its users in the same commit.
It is public to the package, not part of the user-facing API (``curvedtrees.trees``
exports the estimators).
"""

import numpy as np
from sklearn.base import is_classifier
from sklearn.utils.validation import validate_data

from ..manifolds import ProductManifold, Signature
from ..manifolds.shared import COLUMN_PERMUTATION_HINT
from ._builder import _next_node as next_node
from ._builder import pack_nodes
from ._features import CIRCULAR, LIFT, RADIAL, SPLIT_MODES, TIMELIKE, SplitFeatures
from ._margin import (
    circular_direction,
    geodesic_margin,
    hyperbolic_threshold,
    lift_threshold,
    radial_gap,
    radial_threshold,
)
from ._tree import Tree, node_margins
from ._views import tree_regressor

__all__ = [
    # Plane kinds (SplitFeatures.kind): E thresholds, H Klein ratios x_j / x_0, lines through the origin,
    # and one coordinate of H or S (splits="geodesic+radial").
    "CIRCULAR",
    "LIFT",
    "RADIAL",
    # The estimators' splits values.
    "SPLIT_MODES",
    "TIMELIKE",
    "SplitFeatures",
    # The fitted node arrays, and the compiled routing of one row through packed node records.
    "Tree",
    # Maximum-margin boundaries of a chosen partition, and a plane margin as a geodesic distance.
    "circular_direction",
    "geodesic_margin",
    "hyperbolic_threshold",
    "lift_threshold",
    "next_node",
    "node_margins",
    "pack_nodes",
    "radial_gap",
    "radial_threshold",
    # A bare Tree (one tree of a boosting model) as a fitted ProductDecisionTreeRegressor.
    "tree_regressor",
    # Input checks of an estimator fitted on points of its signature.
    "validate_fit_input",
    "validate_points",
]


def validate_fit_input(estimator, X, y, *, check_input: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """Validate the training rows and targets of an estimator on product-space points.

    The checks every product-space estimator's ``fit`` starts with (the trees, the
    forests through their trees, boosting): ``y`` must be given; scikit-learn's checks
    (2-D, numeric, non-empty, ``X`` and ``y`` of equal length, numeric ``y`` for a
    regressor; they set ``n_features_in_``); then ``signature_`` is resolved
    (``Signature.resolve``: ``E<n_features>`` for ``signature=None``, the width checked)
    and the geometry layer checks finiteness (naming the row, column and component)
    and, unless ``check_input`` is False, that every row lies on the manifold.

    Parameters
    ----------
    estimator : BaseEstimator
        Has a ``signature`` parameter; gets ``signature_`` and ``n_features_in_``.
    X : array-like of shape (n_samples, ambient_dim)
    y : array-like of shape (n_samples,)
    check_input : bool, default=True

    Returns
    -------
    X : ndarray of shape (n_samples, ambient_dim), float64, C-contiguous
    y : ndarray of shape (n_samples,)
    """
    if y is None:
        raise ValueError(f"{type(estimator).__name__} requires y to be passed, but the target y is None")
    X, y = validate_data(
        estimator,
        X,
        y,
        dtype=np.float64,
        ensure_all_finite=False,
        order="C",
        y_numeric=not is_classifier(estimator),
    )
    estimator.signature_ = Signature.resolve(estimator.signature, X.shape[1])
    X = ProductManifold(estimator.signature_).validate(
        X, name="X", check_manifold=check_input, hint=COLUMN_PERMUTATION_HINT
    )
    return X, y


def validate_points(estimator, X, *, reset: bool, check_input: bool = True) -> np.ndarray:
    """Validate ``X`` as points of the estimator's signature; returns float64 rows.

    scikit-learn's checks run first (2-D, numeric, non-empty, ``n_features_in_``);
    then the geometry layer checks the width against the signature, finiteness
    (naming the row, column and component) and, unless ``check_input`` is False,
    that every row lies on the manifold.
    """
    X = validate_data(estimator, X, reset=reset, dtype=np.float64, ensure_all_finite=False, order="C")
    if reset:
        signature = Signature.resolve(estimator.signature, X.shape[1])
    else:
        signature = estimator.signature_
    return ProductManifold(signature).validate(X, name="X", check_manifold=check_input, hint=COLUMN_PERMUTATION_HINT)
