"""Gradient-boosted product trees (second-order, histogram-based, leaf-wise).

Layers (one module each, as in scikit-learn's HistGradientBoosting):

* ``_binning``: bins of every split plane, once per fit (ordered for lift and
  timelike planes, circular half-turn-symmetric for the others);
* ``_histogram``: compiled histograms of gradients and hessians and the split
  search, including half-turn windows on circular planes;
* ``_grower``: leaf-wise growth of one tree and the maximum-margin boundaries;
* ``_losses``: log loss (binomial, multinomial), squared and absolute error;
* ``_estimators``: :class:`ProductGradientBoostingClassifier` and
  :class:`ProductGradientBoostingRegressor`;
* ``serialization``: JSON model files through :mod:`curvedtrees.io`.
"""

from ..utils import watch_compiles
from . import serialization as _serialization  # noqa: F401  (registers with curvedtrees.io)
from ._binning import PlaneBins
from ._estimators import ProductGradientBoostingClassifier, ProductGradientBoostingRegressor

__all__ = ["PlaneBins", "ProductGradientBoostingClassifier", "ProductGradientBoostingRegressor", "warm_up"]


def warm_up() -> None:
    """Compile the boosting kernels once (numba caches them on disk for later processes)."""
    import numpy as np

    from ..manifolds import ProductManifold
    from ..utils import quiet_compiles

    with quiet_compiles():
        signature = "H2 x S2 x E2"
        X = ProductManifold(signature).random_normal(64, random_state=0)
        y = np.arange(64) % 3
        for pairs in ("base", "all"):
            ProductGradientBoostingClassifier(signature=signature, pairs=pairs, max_iter=2).fit(X, y).predict(X)
            ProductGradientBoostingClassifier(signature=signature, pairs=pairs, max_iter=2).fit(X, y % 2).predict(X)
            ProductGradientBoostingRegressor(signature=signature, pairs=pairs, max_iter=2).fit(X, y * 1.0).predict(X)


watch_compiles()  # a fit that compiles says so once, naming curvedtrees.warm_up
