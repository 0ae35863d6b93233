"""Losses of the boosted ensembles: baseline, gradients and hessians, and the loss value.

The same half losses as scikit-learn's HistGradientBoosting (``sklearn._loss``), so
that the gains, leaf values and early-stopping scores match on Euclidean data:

========================  ========  ==========================  ===========================
loss                      trees     gradient ``g``              hessian ``h``
========================  ========  ==========================  ===========================
binomial log loss         1         ``p - y``, ``p = expit(f)``  ``p (1 - p)``
multinomial log loss      K         ``p_k - [y = k]`` (softmax)  ``p_k (1 - p_k)``
squared error (half)      1         ``f - y``                   1
absolute error            1         ``sign(f - y)``             1, then each leaf is set to
                                                                the median residual
========================  ========  ==========================  ===========================

Gradients and hessians are float32 (half the memory traffic of the histogram pass,
as in scikit-learn), stored side by side (``gh[k, i] = (g, h)``): a histogram of a
node whose rows lie scattered through the data reads both from one cache line. They
are multiplied by the sample weights when there are any. Raw predictions are float64
of shape (n_trees_per_iteration, n_samples).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

__all__ = ["LOSSES", "Loss", "get_loss", "weighted_median"]


def weighted_median(values: np.ndarray, weights: np.ndarray | None) -> float:
    """Median of ``values``: ``np.median`` without weights, else the lower weighted median.

    With weights this is scikit-learn's ``_weighted_percentile(values, weights, 50)``:
    the smallest value whose cumulative weight reaches half the total.
    """
    if weights is None:
        return float(np.median(values))
    order = np.argsort(values, kind="stable")
    cumulative = np.cumsum(weights[order])
    k = int(np.searchsorted(cumulative, 0.5 * cumulative[-1]))
    return float(values[order[min(k, values.size - 1)]])


@njit(cache=True, nogil=True, parallel=True)
def _binomial_gradients(y, raw, weights, use_weights, gh):
    for i in prange(y.shape[0]):
        p = 1.0 / (1.0 + math.exp(-raw[0, i]))
        w = weights[i] if use_weights else 1.0
        gh[0, i, 0] = w * (p - y[i])
        gh[0, i, 1] = w * p * (1.0 - p)


# Rows per task of the multinomial gradients: each task keeps one small buffer of the
# row's exponentials, reused for all its rows (a buffer per row would be an allocation each).
_GRADIENT_BLOCK = 4096


@njit(cache=True, nogil=True, parallel=True)
def _multinomial_gradients(y, raw, weights, use_weights, gh):
    n_classes, n = raw.shape
    for block in prange((n + _GRADIENT_BLOCK - 1) // _GRADIENT_BLOCK):
        exps = np.empty(n_classes)
        for i in range(block * _GRADIENT_BLOCK, min(n, (block + 1) * _GRADIENT_BLOCK)):
            # Softmax with the largest score subtracted, so exp never overflows; each
            # exponential is computed once (exp is most of this loop's time).
            top = raw[0, i]
            for k in range(1, n_classes):
                top = max(top, raw[k, i])
            total = 0.0
            for k in range(n_classes):
                e = math.exp(raw[k, i] - top)
                exps[k] = e
                total += e
            w = weights[i] if use_weights else 1.0
            for k in range(n_classes):
                p = exps[k] / total
                gh[k, i, 0] = w * (p - (1.0 if y[i] == k else 0.0))
                gh[k, i, 1] = w * p * (1.0 - p)


@njit(cache=True, nogil=True, parallel=True)
def _squared_gradients(y, raw, weights, use_weights, gh):
    for i in prange(y.shape[0]):
        w = weights[i] if use_weights else 1.0
        gh[0, i, 0] = w * (raw[0, i] - y[i])
        gh[0, i, 1] = w


@njit(cache=True, nogil=True, parallel=True)
def _absolute_gradients(y, raw, weights, use_weights, gh):
    for i in prange(y.shape[0]):
        w = weights[i] if use_weights else 1.0
        gh[0, i, 0] = w if raw[0, i] > y[i] else -w
        gh[0, i, 1] = w


class Loss:
    """One loss: ``name``, how many trees per iteration, and its three computations.

    Parameters
    ----------
    name : {"log_loss", "squared_error", "absolute_error"}
    n_classes : int
        Number of classes for ``log_loss`` (binomial if 2), else 1.
    """

    def __init__(self, name: str, n_classes: int = 1):
        self.name = name
        self.n_classes = n_classes
        self.multinomial = name == "log_loss" and n_classes > 2
        self.n_trees_per_iteration = n_classes if self.multinomial else 1
        # Hessians are all 1 without weights: the histogram's row counts stand in for their sums.
        self.constant_hessian = name in ("squared_error", "absolute_error")
        self.needs_leaf_update = name == "absolute_error"

    def baseline(self, y: np.ndarray, weights: np.ndarray | None) -> np.ndarray:
        """Best constant raw prediction, shape (n_trees_per_iteration,)."""
        if self.name == "log_loss":
            eps = np.finfo(np.float64).eps  # keeps the logit / log finite for a rare class
            if self.multinomial:
                onehot = (y[:, None] == np.arange(self.n_classes)[None, :]).astype(np.float64)
                p = np.clip(np.average(onehot, axis=0, weights=weights), eps, 1 - eps)
                log_p = np.log(p)
                return log_p - log_p.mean()  # symmetric parametrisation, as scikit-learn's
            p = float(np.clip(np.average(y, weights=weights), eps, 1 - eps))
            return np.array([math.log(p / (1.0 - p))])
        if self.name == "squared_error":
            return np.array([float(np.average(y, weights=weights))])
        return np.array([weighted_median(y, weights)])

    def gradients(self, y, raw, weights, gh) -> None:
        """Fill ``gh`` (float32, shape (n_trees_per_iteration, n_samples, 2)) with each row's gradient and hessian."""
        use_weights = weights is not None
        w = weights if use_weights else np.empty(0)
        kernel = {
            "log_loss": _multinomial_gradients if self.multinomial else _binomial_gradients,
            "squared_error": _squared_gradients,
            "absolute_error": _absolute_gradients,
        }[self.name]
        kernel(y, raw, w, use_weights, gh)

    def __call__(self, y, raw, weights) -> float:
        """Mean (weighted) half loss of raw predictions of shape (n_trees_per_iteration, n_samples)."""
        if self.name == "log_loss":
            if self.multinomial:
                top = raw.max(axis=0)
                lse = top + np.log(np.exp(raw - top).sum(axis=0))
                per_row = lse - raw[y.astype(np.int64), np.arange(y.shape[0])]
            else:
                per_row = np.logaddexp(0.0, raw[0]) - y * raw[0]
        elif self.name == "squared_error":
            per_row = 0.5 * (y - raw[0]) ** 2
        else:
            per_row = np.abs(y - raw[0])
        return float(np.average(per_row, weights=weights))

    def leaf_update(self, y, raw_k, rows, weights) -> float:
        """Absolute error: the leaf value that minimises the loss on its rows (median residual)."""
        residual = y[rows] - raw_k[rows]
        return weighted_median(residual, None if weights is None else weights[rows])


LOSSES = {"classifier": ("log_loss",), "regressor": ("squared_error", "absolute_error")}


def get_loss(name: str, n_classes: int = 1) -> Loss:
    return Loss(name, n_classes)
