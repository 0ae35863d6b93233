"""Base class of the three constant-curvature component manifolds.

A component manifold is a thin adapter: the formulas live in small module-level
functions of ``hyperbolic.py``, ``spherical.py`` and ``euclidean.py``; the class
checks shapes, scales by the radius and offers geoopt's vocabulary.

Shapes: points and tangent vectors are arrays of shape ``(..., ambient_dim)``
(usually ``(n, ambient_dim)``); leading axes broadcast like NumPy. Row-wise
results (``dist``, ``inner``, ``norm``) drop the last axis.
"""

from __future__ import annotations

import math

import numpy as np

from ._common import CHECK_RTOL, as_generator, as_points, format_rows, row_dot

__all__ = ["ComponentManifold"]


class ComponentManifold:
    """Common interface of :class:`Hyperbolic`, :class:`Spherical` and :class:`Euclidean`.

    Attributes
    ----------
    kind : {"H", "S", "E"}
    dim : int
        Intrinsic dimension.
    curvature : float
    radius : float
        ``1 / sqrt(|curvature|)`` (``inf`` for E).
    ambient_dim : int
        ``dim + 1`` for H and S, ``dim`` for E.
    name : str
        ``"H2"``, ``"S1"``, ...
    """

    kind: str = "?"

    def __init__(self, dim: int, curvature: float):
        if isinstance(dim, bool) or not isinstance(dim, (int, np.integer)) or dim < 1:
            raise ValueError(f"dim must be a positive integer, got {dim!r}")
        curvature = float(curvature)
        if not math.isfinite(curvature):
            raise ValueError(f"curvature must be finite, got {curvature}")
        self.dim = int(dim)
        self.curvature = curvature
        self.radius = math.inf if curvature == 0 else 1.0 / math.sqrt(abs(curvature))
        self.ambient_dim = self.dim if self.kind == "E" else self.dim + 1
        self.name = f"{self.kind}{self.dim}"

    # ----------------------------------------------------------------- identity
    def __repr__(self) -> str:
        if self.kind == "E":
            return f"{type(self).__name__}({self.dim})"
        return f"{type(self).__name__}({self.dim}, curvature={self.curvature!r})"

    def __eq__(self, other) -> bool:
        return isinstance(other, ComponentManifold) and (self.kind, self.dim, self.curvature) == (
            other.kind,
            other.dim,
            other.curvature,
        )

    def __hash__(self) -> int:
        return hash((self.kind, self.dim, self.curvature))

    # ------------------------------------------------------------------ helpers
    def _points(self, x, what="x") -> np.ndarray:
        return as_points(x, self.ambient_dim, what)

    # -------------------------------------------------------- subclass formulas
    def inner(self, x, u, v=None) -> np.ndarray:
        """Riemannian inner product of tangent vectors ``u`` and ``v`` (default ``u``) at ``x``.

        Parameters
        ----------
        x : array-like, shape (..., ambient_dim)
        u, v : array-like, shape (..., ambient_dim)
            Tangent vectors at ``x`` in ambient coordinates.

        Returns
        -------
        ndarray, shape (...)

        The default is the ambient Euclidean product, the metric of spheres and flat
        space; the hyperboloid overrides it.
        """
        x = self._points(x, "x")
        u = self._points(u, "u")
        v = u if v is None else self._points(v, "v")
        return row_dot(u, v) + np.zeros(x.shape[:-1])

    def norm(self, x, u) -> np.ndarray:
        """Length of the tangent vector ``u`` at ``x``; shape ``(...)``."""
        return np.sqrt(np.maximum(self.inner(x, u), 0.0))

    def dist(self, x, y) -> np.ndarray:
        """Geodesic distance between matching rows of ``x`` and ``y``; shape ``(...)``."""
        raise NotImplementedError

    def expmap(self, x, u) -> np.ndarray:
        """Point reached from ``x`` along the geodesic with initial velocity ``u``."""
        raise NotImplementedError

    def logmap(self, x, y) -> np.ndarray:
        """Tangent vector at ``x`` pointing to ``y`` with length ``dist(x, y)`` (inverse of ``expmap``)."""
        raise NotImplementedError

    def transp(self, x, y, v) -> np.ndarray:
        """Parallel transport of the tangent vector ``v`` at ``x`` along the geodesic to ``y``."""
        raise NotImplementedError

    def projx(self, x) -> np.ndarray:
        """A point of the manifold near ``x`` (exactly ``x`` when ``x`` is on it).

        Parameters
        ----------
        x : array-like, shape (..., ambient_dim)

        Returns
        -------
        ndarray, shape (..., ambient_dim)
            A row with a NaN or infinite coordinate has no nearest point and comes
            back as a row of NaN (NaN propagates, as in NumPy), never as a valid point.
        """
        x = self._points(x, "x")
        with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
            out = self._projx(x)
        bad = ~np.isfinite(x).all(axis=-1)
        if np.any(bad):
            out[bad] = np.nan
        return out

    def _projx(self, x: np.ndarray) -> np.ndarray:
        """``projx`` of a float64 array (rows with non-finite coordinates are overwritten afterwards)."""
        raise NotImplementedError

    def proju(self, x, u) -> np.ndarray:
        """Orthogonal projection of the ambient vector ``u`` onto the tangent space at ``x``."""
        raise NotImplementedError

    def origin(self) -> np.ndarray:
        """The origin ``mu_0``: ``(R, 0, ..., 0)`` for H and S, zeros for E; shape ``(ambient_dim,)``."""
        raise NotImplementedError

    def _membership(self, x: np.ndarray, rtol: float):
        """(ok mask of shape (n,), per-row description of the failure)."""
        raise NotImplementedError

    def _pdist_squared_into(self, X: np.ndarray, Y: np.ndarray, out: np.ndarray) -> None:
        """Add the squared distances between every row of ``X`` (n, ·) and of ``Y`` (m, ·) to ``out`` (n, m)."""
        raise NotImplementedError

    # -------------------------------------------------------- shared behaviour
    def expmap0(self, u) -> np.ndarray:
        """``expmap(origin(), u)``."""
        u = self._points(u, "u")
        return self.expmap(np.broadcast_to(self.origin(), u.shape), u)

    def logmap0(self, y) -> np.ndarray:
        """``logmap(origin(), y)``."""
        y = self._points(y, "y")
        return self.logmap(np.broadcast_to(self.origin(), y.shape), y)

    def transp0(self, y, u) -> np.ndarray:
        """``transp(origin(), y, u)``: parallel transport of ``u`` (tangent at the origin) to ``y``."""
        y, u = self._points(y, "y"), self._points(u, "u")
        shape = np.broadcast_shapes(y.shape, u.shape)
        return self.transp(np.broadcast_to(self.origin(), shape), y, u)

    def cdist(self, X, Y=None) -> np.ndarray:
        """Geodesic distance of every row of ``X`` to every row of ``Y`` (scipy's and torch's ``cdist``).

        Parameters
        ----------
        X : array-like, shape (n, ambient_dim)
        Y : array-like, shape (m, ambient_dim), optional
            Defaults to ``X``.

        Returns
        -------
        ndarray, shape (n, m)
            Compiled pair-by-pair kernels (H, S) or row blocks (E) keep the
            extra memory below ``PDIST_CHUNK_BYTES``; the diagonal of
            ``cdist(X)`` is exactly 0.
        """
        X = self._points(X, "X")
        Y = X if Y is None else self._points(Y, "Y")
        if X.ndim != 2 or Y.ndim != 2:
            raise ValueError(f"cdist needs 2-D arrays, got shapes {X.shape} and {Y.shape}")
        out = np.zeros((X.shape[0], Y.shape[0]))
        self._pdist_squared_into(X, Y, out)
        return np.sqrt(out, out=out)

    def pdist(self, X, Y=None) -> np.ndarray:
        """The project's older name of :meth:`cdist` (same arguments, same ``(n, m)`` matrix).

        Unlike ``scipy.spatial.distance.pdist`` it returns the square matrix, not the
        condensed upper triangle.
        """
        return self.cdist(X, Y)

    def check_point(self, X, explain: bool = False, rtol: float = CHECK_RTOL):
        """Whether every row of ``X`` lies on this manifold.

        Parameters
        ----------
        X : array-like, shape (n, ambient_dim) or (ambient_dim,)
        explain : bool
            If true, return ``(ok, reason)`` where ``reason`` is ``None`` or a
            sentence naming the first offending rows.
        rtol : float
            Relative tolerance (see ``CHECK_RTOL``).

        Returns
        -------
        bool or (bool, str or None)
        """
        ok, reason = self._explain(X, rtol)
        return (ok, reason) if explain else ok

    def check_point_on_manifold(self, X, explain: bool = False, rtol: float = CHECK_RTOL):
        """geoopt's name of :meth:`check_point`: ``(ok, reason)`` with ``explain=True``, else ``ok``."""
        return self.check_point(X, explain=explain, rtol=rtol)

    def _explain(self, X, rtol, label=None):
        label = label or f"{self.name}"
        try:
            X = np.asarray(X, dtype=np.float64)
        except (TypeError, ValueError):
            return False, f"{label}: points must be numeric"
        if X.ndim == 1:
            X = X[None, :]
        if X.ndim != 2 or X.shape[1] != self.ambient_dim:
            return False, (
                f"{label}: expected rows of {self.ambient_dim} ambient coordinates, got an array of shape {X.shape}"
            )
        finite = np.isfinite(X).all(axis=1)
        if not finite.all():
            bad = np.flatnonzero(~finite)
            column = int(np.flatnonzero(~np.isfinite(X[bad[0]]))[0])
            value = X[bad[0], column]
            what = "a NaN" if np.isnan(value) else ("+inf" if value > 0 else "-inf")
            return False, (
                f"{label}: row {bad[0]} has {what} at coordinate {column} ({len(bad)} row(s) with NaN or "
                f"infinite coordinates: {format_rows(bad)})"
            )
        ok, describe = self._membership(X, rtol)
        if ok.all():
            return True, None
        bad = np.flatnonzero(~ok)
        reason = f"{label}: row {bad[0]} {describe(bad[0])}"
        if len(bad) > 1:
            reason += f" ({len(bad)} of {len(X)} rows are off the manifold: {format_rows(bad)})"
        return False, reason

    def random_normal(self, n: int, mean=None, std=1.0, random_state=None) -> np.ndarray:
        """Wrapped normal samples (Nagano et al. 2019).

        Draws ``v ~ N(0, diag(std^2))`` in the tangent space at the origin,
        transports it to ``mean`` and applies ``expmap(mean, .)``.

        Parameters
        ----------
        n : int
            Number of samples.
        mean : array-like, shape (ambient_dim,) or (n, ambient_dim), optional
            Defaults to the origin.
        std : float or array-like of shape (dim,)
            Standard deviation(s) in the tangent space (intrinsic units).
        random_state : None, int, Generator or RandomState

        Returns
        -------
        ndarray, shape (n, ambient_dim)
        """
        rng = as_generator(random_state)
        std = np.asarray(std, dtype=np.float64)
        if np.any(std < 0) or not np.all(np.isfinite(std)):
            raise ValueError(f"std must be finite and non-negative, got {std}")
        tangent = rng.standard_normal((int(n), self.dim)) * std
        return self._wrap_tangent(tangent, mean)

    def _embed_tangent0(self, v: np.ndarray) -> np.ndarray:
        """Intrinsic coordinates ``v`` (…, dim) -> ambient tangent vector at the origin."""
        if self.kind == "E":
            return v
        return np.concatenate([np.zeros((*v.shape[:-1], 1)), v], axis=-1)

    def _wrap_tangent(self, tangent: np.ndarray, mean) -> np.ndarray:
        """Map tangent coordinates at the origin onto the manifold around ``mean``."""
        u = self._embed_tangent0(tangent)
        if mean is None:
            return self.expmap0(u)
        mean = np.broadcast_to(self._points(mean, "mean"), u.shape)
        return self.expmap(mean, self.transp0(mean, u))
