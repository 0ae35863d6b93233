"""Pinned boosted ensembles: a speed change must not change a single bit of a fit.

Each case fits a small ensemble (binary and multiclass classifiers, regressors with
both losses; lift, timelike and circular planes; sample weights; bin thresholds;
early stopping on a validation set; enough rows for the threaded histogram kernels)
and hashes every node array of every tree together with the raw predictions of
held-out rows. A change that reorders a floating-point sum changes the digest: re-pin
deliberately (``python tests/test_boosting_pins.py`` prints the new digests) and say
why in the commit.
"""

from __future__ import annotations

import hashlib

import numpy as np
import pytest
from curvedtrees.boosting import ProductGradientBoostingClassifier, ProductGradientBoostingRegressor
from curvedtrees.sampling import make_classification

TREE_ARRAYS = (
    "children_left",
    "children_right",
    "feature",
    "threshold",
    "normal",
    "value",
    "margin",
    "n_node_samples",
    "weighted_n_node_samples",
    "improvement",
)

# name: (estimator, signature, n_samples, n_classes, weighted, parameters)
CASES = {
    "binary-all-planes": ("classifier", "S2 x E2 x H2", 3000, 2, False, dict(pairs="all")),
    "multiclass-weighted": ("classifier", "H3 x S2 x E1", 3000, 4, True, dict(max_leaf_nodes=15)),
    "binary-bins": ("classifier", "S2 x H2", 2000, 2, False, dict(thresholds="bins", max_bins=40)),
    "binary-threads": ("classifier", "S2 x E2 x H2", 40_000, 2, False, dict(max_iter=8)),
    "early-stopping": (
        "classifier",
        "H2 x S2",
        3000,
        3,
        False,
        dict(max_iter=60, early_stopping=True, n_iter_no_change=3, validation_fraction=0.2),
    ),
    "squared-weighted": ("squared_error", "S2 x E2 x H2", 3000, 5, True, dict(pairs="all", max_depth=4)),
    "absolute": ("absolute_error", "H2 x S1 x E1", 2000, 5, False, dict(min_samples_leaf=7)),
}

PINS = {
    "binary-all-planes": "869e0f93d32571ac737b5966c5de27af5e6ef6e0b8bf6b0e18a2781fbea4bfa9",
    "multiclass-weighted": "15c0cab5599ce1484bcc84b0db8a99c285256a3a527d6da4f8d1bbba9397e1fb",
    "binary-bins": "3e8b77421afd669515a99bf184a83e8bf9d266bd935fdb01d781ca4d15a04524",
    "binary-threads": "6a50fa2a6059fcf742c94827e52a516de8290daf4f80f4189d1b90d5bddc06b4",
    "early-stopping": "adea2b3579d451090eefb66fdfef0e737924096aadbf0caa96d206885ee6f17f",
    "squared-weighted": "78383c225aef38b1c2ffb7f0c837906f6ef5a057d3c57a1e3740a934ca525347",
    "absolute": "cf8f226fe2e6acd03539e924fa76abb7c3ddb985e200ac32ddf2754ef10d16d0",
}


def digest(name: str) -> str:
    """SHA-256 of every tree array of case ``name`` and of its raw predictions on held-out rows."""
    kind, signature, n, n_classes, weighted, params = CASES[name]
    X, y = make_classification(signature, n_samples=n, n_classes=n_classes, n_clusters=12, random_state=7)
    X_test, _ = make_classification(signature, n_samples=1500, n_classes=n_classes, random_state=8)
    weight = np.random.default_rng(9).uniform(0.2, 3.0, n) if weighted else None
    params = {"max_iter": 12, "early_stopping": False, "random_state": 0, **params}
    if kind == "classifier":
        model = ProductGradientBoostingClassifier(signature=signature, **params)
    else:
        model = ProductGradientBoostingRegressor(signature=signature, loss=kind, **params)
        y = y.astype(np.float64) + np.random.default_rng(10).normal(0.0, 0.3, n)
    model.fit(X, y, sample_weight=weight)
    h = hashlib.sha256()
    h.update(np.ascontiguousarray(model.baseline_, dtype=np.float64).tobytes())
    for iteration in model.trees_:
        for tree in iteration:
            for array in TREE_ARRAYS:
                h.update(np.ascontiguousarray(getattr(tree, array)).tobytes())
    h.update(np.ascontiguousarray(model._raw_predict(X_test), dtype=np.float64).tobytes())
    h.update(np.int64(model.n_iter_).tobytes())
    return h.hexdigest()


@pytest.mark.parametrize("name", sorted(CASES))
def test_boosted_ensembles_are_pinned_bit_for_bit(name):
    assert digest(name) == PINS[name], f"case {name!r} no longer fits the pinned ensemble"


if __name__ == "__main__":
    for case in CASES:
        print(f'    "{case}": "{digest(case)}",')
