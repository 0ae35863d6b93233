"""Pinned boosted ensembles: a speed change must not change a single bit of a fit.

Each case fits a small ensemble (binary and multiclass classifiers, regressors with
both losses; lift, timelike and circular planes; sample weights; bin thresholds;
early stopping on a validation set; enough rows for the threaded histogram kernels)
and hashes every node array of every tree together with the raw predictions of
held-out rows. A change that reorders a floating-point sum changes the digest: re-pin
deliberately (``python tests/test_boosting_pins.py`` prints the new digests) and say
why in the commit.

Floats enter the digest rounded to ``DECIMALS`` places: the sampler's cosh, sinh and
arctan2 are numpy's, which may move a last bit between releases (a fresh install takes
the newest in range), and a pin must catch our changes, not theirs. A reordered sum
still moves a threshold, a leaf value or a prediction by far more than that, or changes
a split.
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

DECIMALS = 9

PINS = {
    "binary-all-planes": "4fdb6f521180aca405d8ff63d752094b91bffc4edfe45fee212a985e88f54fbc",
    "multiclass-weighted": "5143afff22961f2f6957bb784e16b6ecfd322e0a68f7fdd22a60a0113630a11f",
    "binary-bins": "af75f035fb29ff7108ed366dbfe639f155027a9b383321c6607abff5d4174699",
    "binary-threads": "68746ce836caa4aa5a3f4fbf6b61f78d862a39b6cbc58311689216baa88c5f17",
    "early-stopping": "2c6c3bbd763934b7f1889d5d346937a8d874207ff4e93c8e13b9e6aea056f37a",
    "squared-weighted": "18ac636f3959abebff688ff9e9873af73505aea227b22af5608698d0223ba08c",
    "absolute": "e4e084d3131ec40a95746e0422161bedeb17a1452d30e13b3ad0f7633ed72a5b",
}


def _stable(array) -> bytes:
    """The bytes of ``array``, floats rounded to ``DECIMALS`` places (and -0.0 made 0.0)."""
    array = np.asarray(array)
    if array.dtype.kind == "f":
        array = np.round(array.astype(np.float64), DECIMALS) + 0.0
    return np.ascontiguousarray(array).tobytes()


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
    h.update(_stable(model.baseline_))
    for iteration in model.trees_:
        for tree in iteration:
            for array in TREE_ARRAYS:
                h.update(_stable(getattr(tree, array)))
    h.update(_stable(model._raw_predict(X_test)))
    h.update(np.int64(model.n_iter_).tobytes())
    return h.hexdigest()


@pytest.mark.parametrize("name", sorted(CASES))
def test_boosted_ensembles_are_pinned_bit_for_bit(name):
    assert digest(name) == PINS[name], f"case {name!r} no longer fits the pinned ensemble"


if __name__ == "__main__":
    for case in CASES:
        print(f'    "{case}": "{digest(case)}",')
