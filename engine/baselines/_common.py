"""Helpers shared by the baseline families: input checks (signatures resolve through ``Signature.resolve``)."""

from __future__ import annotations

import numpy as np
from sklearn import get_config
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from ..manifolds.shared import COLUMN_PERMUTATION_HINT
from ..manifolds.signature import Signature


# --------------------------------------------------------------------------- helpers
def _product_manifold(sig: Signature):
    # Imported here so that importing curvedtrees.baselines stays cheap.
    from ..manifolds import ProductManifold

    return ProductManifold(sig)


def _validate_fit(estimator, X, y, *, regressor: bool, dtype=np.float64):
    """scikit-learn's input checks, then the manifold check. Sets ``signature_``."""
    # NaN / inf are left to ProductManifold.validate, whose message names the row,
    # column and component (scikit-learn's only says "Input X contains NaN").
    X, y = validate_data(estimator, X, y, dtype=dtype, y_numeric=regressor, ensure_all_finite=False)
    estimator.signature_ = Signature.resolve(estimator.signature, X.shape[1])
    X = _product_manifold(estimator.signature_).validate(X, name="X", hint=COLUMN_PERMUTATION_HINT)
    return X, y


def _validate_predict(estimator, X):
    check_is_fitted(estimator)
    X = validate_data(estimator, X, reset=False, dtype=np.float64, ensure_all_finite=False)
    return _product_manifold(estimator.signature_).validate(X, name="X", hint=COLUMN_PERMUTATION_HINT)


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
