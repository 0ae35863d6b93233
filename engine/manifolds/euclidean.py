"""Flat Euclidean space ``R^dim`` (curvature 0): every formula is the plain one."""

from __future__ import annotations

import numpy as np
from scipy.spatial.distance import cdist

from ._base import ComponentManifold
from ._common import row_blocks, row_norm

__all__ = ["Euclidean"]


class Euclidean(ComponentManifold):
    """Euclidean space of dimension ``dim``; the ambient coordinates are the coordinates.

    Parameters
    ----------
    dim : int
    """

    kind = "E"

    def __init__(self, dim: int, curvature: float = 0.0):
        if float(curvature) != 0:
            raise ValueError(f"a Euclidean component has curvature 0, got {curvature}")
        super().__init__(dim, 0.0)

    def origin(self) -> np.ndarray:
        return np.zeros(self.ambient_dim)

    def dist(self, x, y) -> np.ndarray:
        return row_norm(self._points(y, "y") - self._points(x, "x"))

    def _pdist_squared_into(self, X, Y, out):
        # cdist returns a full block: take rows in chunks so the temporary stays bounded.
        for block in row_blocks(len(X), len(Y)):
            out[block] += cdist(X[block], Y, "sqeuclidean")

    def expmap(self, x, u) -> np.ndarray:
        return self._points(x, "x") + self._points(u, "u")

    def expmap0(self, u) -> np.ndarray:
        return self._points(u, "u").copy()

    def logmap(self, x, y) -> np.ndarray:
        return self._points(y, "y") - self._points(x, "x")

    def logmap0(self, y) -> np.ndarray:
        return self._points(y, "y").copy()

    def transp(self, x, y, v) -> np.ndarray:
        # Tangent spaces of flat space are all the same: transport is the identity.
        x, y, v = self._points(x, "x"), self._points(y, "y"), self._points(v, "v")
        return np.broadcast_to(v, np.broadcast_shapes(x.shape, y.shape, v.shape)).copy()

    def transp0(self, y, u) -> np.ndarray:
        y, u = self._points(y, "y"), self._points(u, "u")
        return np.broadcast_to(u, np.broadcast_shapes(y.shape, u.shape)).copy()

    def _projx(self, x) -> np.ndarray:
        return x.copy()

    def proju(self, x, u) -> np.ndarray:
        x, u = self._points(x, "x"), self._points(u, "u")
        return np.broadcast_to(u, np.broadcast_shapes(x.shape, u.shape)).copy()

    def _membership(self, x, rtol):
        return np.ones(len(x), dtype=bool), lambda row: "is fine"
