"""Products of constant-curvature components.

A product point is the concatenation of its components' ambient rows, in
signature order; ``Signature.components[i].slice`` locates component ``i``.
Distances combine as ``sqrt(sum_i d_i^2)``; tangent vectors are concatenations
of component tangent vectors and their inner product is the sum of the
components' inner products.
"""

from __future__ import annotations

import numpy as np

from ._base import ComponentManifold
from ._common import (
    CHECK_RTOL,
    as_generator,
    as_points,
    format_rows,
)
from ._kernels import ROWS_E, ROWS_H, ROWS_S, rows_clear
from .euclidean import Euclidean
from .hyperbolic import Hyperbolic
from .signature import Component, Signature
from .spherical import Spherical

__all__ = ["COLUMN_PERMUTATION_HINT", "OffManifoldError", "ProductManifold", "manifold_for"]

# Appended by the estimators' input checks (not by uploads or datasets): the usual way to
# produce off-manifold rows from valid ones is a tool that permutes single columns.
COLUMN_PERMUTATION_HINT = (
    ". If these rows come from permuting or shuffling single columns (as "
    "sklearn.inspection.permutation_importance does), that moves points off the manifold: "
    "use curvedtrees.inspection.permutation_importance, which permutes whole components"
)


class OffManifoldError(ValueError):
    """Rows of the input that are not points of the manifold.

    A ``ValueError`` (so ``except ValueError`` keeps working), raised by
    :meth:`ProductManifold.validate` and thus by every estimator's input check; the
    message names the component, the rows and the reason. The estimators' message also
    says that permuting single columns moves points off the manifold, and names
    :func:`curvedtrees.inspection.permutation_importance`, which permutes whole
    components.

    Examples
    --------
    >>> import numpy as np
    >>> from curvedtrees.manifolds import OffManifoldError, ProductManifold
    >>> try:
    ...     ProductManifold("S2").validate(np.array([[1.0, 1.0, 0.0]]))
    ... except OffManifoldError as error:
    ...     print(type(error).__name__, isinstance(error, ValueError))
    OffManifoldError True
    """


_CLASSES = {"H": Hyperbolic, "S": Spherical, "E": Euclidean}
_ROWS_KINDS = {"H": ROWS_H, "S": ROWS_S, "E": ROWS_E}
# The compiled rows check (rows_clear) and the NumPy one (_membership) sum squares in
# different orders, so their residuals differ by up to about (width + 4) roundings. The
# compiled check passes a row only inside the tolerance minus twice that, so that every
# row it passes also passes the NumPy check; rows in the sliver between go to NumPy.
_ROUNDING = float(np.finfo(np.float64).eps)


def manifold_for(component: Component) -> ComponentManifold:
    """The component manifold (:class:`Hyperbolic`, :class:`Spherical` or :class:`Euclidean`) of a ``Component``."""
    return _CLASSES[component.kind](component.dim, component.curvature)


class ProductManifold:
    """The product of the components of a signature.

    Parameters
    ----------
    signature : str, Signature or list of (curvature, dim)
        For example ``"H2 x S2 x E2"`` or ``[(-1.0, 2), (1.0, 2), (0.0, 2)]``.

    Attributes
    ----------
    signature : Signature
    components : tuple of ComponentManifold
        One manifold per factor, in signature order.
    dim, ambient_dim : int

    Notes
    -----
    Every method takes arrays of shape ``(..., ambient_dim)`` and applies the
    component formulas to the component slices; row-wise results (``dist``,
    ``inner``, ``norm``) have shape ``(...)``.

    Examples
    --------
    >>> M = ProductManifold("H2 x S2 x E2")
    >>> X = M.random_normal(5, random_state=0)
    >>> X.shape, bool(M.check_point(X))
    ((5, 8), True)
    """

    def __init__(self, signature):
        self.signature = Signature.parse(signature)
        self.components = tuple(manifold_for(c) for c in self.signature.components)
        self._slices = tuple(c.slice for c in self.signature.components)
        self._intrinsic_slices = []
        start = 0
        for component in self.components:
            self._intrinsic_slices.append(slice(start, start + component.dim))
            start += component.dim

    # ---------------------------------------------------------------- identity
    @property
    def dim(self) -> int:
        """Intrinsic dimension (sum of the components' dims)."""
        return self.signature.dim

    @property
    def ambient_dim(self) -> int:
        """Width of an ambient row."""
        return self.signature.ambient_dim

    @property
    def slices(self) -> tuple[slice, ...]:
        """Column slice of each component in an ambient row."""
        return self._slices

    def __repr__(self) -> str:
        return f"ProductManifold({str(self.signature)!r})"

    def __eq__(self, other) -> bool:
        return isinstance(other, ProductManifold) and self.signature == other.signature

    def __hash__(self) -> int:
        return hash(self.signature)

    def _label(self, index: int) -> str:
        return f"component {index + 1} ({self.components[index].name})"

    # ----------------------------------------------------------- split / join
    def _points(self, x, what="x") -> np.ndarray:
        return as_points(x, self.ambient_dim, what)

    def factorize(self, X) -> list[np.ndarray]:
        """Split ambient rows into per-component arrays (views, no copy).

        Parameters
        ----------
        X : array-like, shape (..., ambient_dim)

        Returns
        -------
        list of ndarray, one per component, shapes (..., component.ambient_dim)
        """
        X = self._points(X, "X")
        return [X[..., s] for s in self._slices]

    def pack(self, parts) -> np.ndarray:
        """Concatenate per-component arrays into ambient rows (inverse of :meth:`factorize`).

        Parameters
        ----------
        parts : sequence of array-like, one per component, shapes (..., component.ambient_dim)

        Returns
        -------
        ndarray, shape (..., ambient_dim)
        """
        parts = list(parts)
        if len(parts) != len(self.components):
            raise ValueError(f"pack needs {len(self.components)} arrays (one per component), got {len(parts)}")
        arrays = [
            as_points(part, c.ambient_dim, f"part {i} ({c.name})")
            for i, (part, c) in enumerate(zip(parts, self.components))
        ]
        shape = np.broadcast_shapes(*(a.shape[:-1] for a in arrays))
        return np.concatenate([np.broadcast_to(a, shape + a.shape[-1:]) for a in arrays], axis=-1)

    def _map(self, method: str, *arrays) -> np.ndarray:
        """Apply a component method slice by slice and pack the results."""
        points = [self._points(a, name) for a, name in zip(arrays, "xyv")]
        return self.pack(
            getattr(c, method)(*(a[..., s] for a in points)) for c, s in zip(self.components, self._slices)
        )

    # -------------------------------------------------------------- vocabulary
    def origin(self) -> np.ndarray:
        """Concatenated component origins; shape ``(ambient_dim,)``."""
        return np.concatenate([c.origin() for c in self.components])

    def inner(self, x, u, v=None) -> np.ndarray:
        """Sum of the component inner products of tangent vectors at ``x``; shape ``(...)``."""
        x, u = self._points(x, "x"), self._points(u, "u")
        v = u if v is None else self._points(v, "v")
        return sum(c.inner(x[..., s], u[..., s], v[..., s]) for c, s in zip(self.components, self._slices))

    def norm(self, x, u) -> np.ndarray:
        """Length of the tangent vector ``u`` at ``x``; shape ``(...)``."""
        return np.sqrt(np.maximum(self.inner(x, u), 0.0))

    def component_dist(self, x, y) -> np.ndarray:
        """Per-component geodesic distances, shape ``(..., n_components)``."""
        x, y = self._points(x, "x"), self._points(y, "y")
        return np.stack([c.dist(x[..., s], y[..., s]) for c, s in zip(self.components, self._slices)], axis=-1)

    def dist(self, x, y) -> np.ndarray:
        """Product distance ``sqrt(sum_i d_i(x_i, y_i)^2)`` between matching rows; shape ``(...)``."""
        return np.sqrt(np.sum(self.component_dist(x, y) ** 2, axis=-1))

    def cdist(self, X, Y=None) -> np.ndarray:
        """Product distance of every row of ``X`` to every row of ``Y``, accumulated in place (memory: the output).

        Parameters
        ----------
        X : array-like, shape (n, ambient_dim)
        Y : array-like, shape (m, ambient_dim), optional (defaults to ``X``)

        Returns
        -------
        ndarray, shape (n, m)
        """
        X = self._points(X, "X")
        Y = X if Y is None else self._points(Y, "Y")
        if X.ndim != 2 or Y.ndim != 2:
            raise ValueError(f"cdist needs 2-D arrays, got shapes {X.shape} and {Y.shape}")
        out = np.zeros((X.shape[0], Y.shape[0]))
        for component, s in zip(self.components, self._slices):
            component._pdist_squared_into(X[:, s], Y[:, s], out)
        return np.sqrt(out, out=out)

    def pdist(self, X, Y=None) -> np.ndarray:
        """The project's older name of :meth:`cdist` (same arguments, same ``(n, m)`` matrix).

        Unlike ``scipy.spatial.distance.pdist`` it returns the square matrix, not the
        condensed upper triangle.
        """
        return self.cdist(X, Y)

    def expmap(self, x, u) -> np.ndarray:
        """Component-wise exponential map; shape ``(..., ambient_dim)``."""
        return self._map("expmap", x, u)

    def logmap(self, x, y) -> np.ndarray:
        """Component-wise logarithmic map; shape ``(..., ambient_dim)``."""
        return self._map("logmap", x, y)

    def expmap0(self, u) -> np.ndarray:
        """Exponential map at the origin."""
        return self._map("expmap0", u)

    def logmap0(self, y) -> np.ndarray:
        """Logarithmic map at the origin."""
        return self._map("logmap0", y)

    def transp(self, x, y, v) -> np.ndarray:
        """Component-wise parallel transport of ``v`` from ``x`` to ``y``."""
        return self._map("transp", x, y, v)

    def transp0(self, y, u) -> np.ndarray:
        """Component-wise parallel transport of ``u`` from the origin to ``y``."""
        return self._map("transp0", y, u)

    def projx(self, x) -> np.ndarray:
        """Component-wise projection onto the manifold (see each component's ``projx``).

        Parameters
        ----------
        x : array-like, shape (..., ambient_dim)

        Returns
        -------
        ndarray, shape (..., ambient_dim)
            A component block holding a NaN or infinite coordinate comes back as NaN
            (NaN propagates, as in NumPy); ``check_point(explain=True)`` names it.
        """
        return self._map("projx", x)

    def proju(self, x, u) -> np.ndarray:
        """Component-wise projection of ambient vectors onto the tangent space at ``x``."""
        return self._map("proju", x, u)

    def random_normal(self, n: int, mean=None, std=1.0, random_state=None) -> np.ndarray:
        """Wrapped normal samples, every component drawn from one generator.

        Parameters
        ----------
        n : int
        mean : array-like, shape (ambient_dim,) or (n, ambient_dim), optional
            Defaults to the origin.
        std : float or array-like of shape (dim,)
            Tangent-space standard deviation(s), in intrinsic coordinate order.
        random_state : None, int, Generator or RandomState

        Returns
        -------
        ndarray, shape (n, ambient_dim)
        """
        rng = as_generator(random_state)
        std = np.broadcast_to(np.asarray(std, dtype=np.float64), (self.dim,))
        if np.any(std < 0) or not np.all(np.isfinite(std)):
            raise ValueError(f"std must be finite and non-negative, got {std}")
        tangent = rng.standard_normal((int(n), self.dim)) * std
        means = [None] * len(self.components) if mean is None else self.factorize(mean)
        return self.pack(
            c._wrap_tangent(tangent[:, s], m) for c, s, m in zip(self.components, self._intrinsic_slices, means)
        )

    # -------------------------------------------------------------- checking
    def check_point(self, X, explain: bool = False, rtol: float = CHECK_RTOL):
        """Whether every row of ``X`` lies on the product manifold.

        Parameters
        ----------
        X : array-like, shape (n, ambient_dim) or (ambient_dim,)
        explain : bool
            Return ``(ok, reason)``; ``reason`` lists every failing component, e.g.
            ``"component 2 (S2): row 17 has norm 1.31, expected 1 +- 1e-6 relative"``.
        rtol : float
            Relative tolerance (see ``curvedtrees.manifolds._common.CHECK_RTOL``).

        Returns
        -------
        bool or (bool, str or None)
        """
        ok, reason = self._explain(X, rtol)
        return (ok, reason) if explain else ok

    def check_point_on_manifold(self, X, explain: bool = False, rtol: float = CHECK_RTOL):
        """geoopt's name of :meth:`check_point`: ``(ok, reason)`` with ``explain=True``, else ``ok``."""
        return self.check_point(X, explain=explain, rtol=rtol)

    def _explain(self, X, rtol):
        try:
            X = np.asarray(X, dtype=np.float64)
        except (TypeError, ValueError):
            return False, "points must be numeric"
        if X.ndim == 1:
            X = X[None, :]
        if X.ndim != 2 or X.shape[1] != self.ambient_dim:
            return False, (
                f"expected rows of {self.ambient_dim} ambient coordinates ({self._widths()}), got shape {X.shape}"
            )
        reasons = []
        for index, (component, s) in enumerate(zip(self.components, self._slices)):
            ok, reason = component._explain(X[:, s], rtol, label=self._label(index))
            if not ok:
                reasons.append(reason)
        return (not reasons), ("; ".join(reasons) or None)

    def _widths(self) -> str:
        return ", ".join(f"{c.name}: {c.ambient_dim}" for c in self.components)

    def _rows_tables(self, check_manifold: bool, rtol: float) -> tuple:
        """The arguments of ``rows_clear`` after ``X``: kinds, column ranges, radii, tolerances."""
        kinds = np.array([_ROWS_KINDS[c.kind] if check_manifold else ROWS_E for c in self.components], dtype=np.int64)
        starts = np.array([s.start for s in self._slices], dtype=np.int64)
        stops = np.array([s.stop for s in self._slices], dtype=np.int64)
        radii = np.array([c.radius if c.kind != "E" else 1.0 for c in self.components], dtype=np.float64)
        tolerances = np.array([rtol - 2 * (c.ambient_dim + 4) * _ROUNDING for c in self.components])
        return kinds, starts, stops, radii, tolerances

    def validate(
        self, X, name: str = "X", check_manifold: bool = True, rtol: float = CHECK_RTOL, *, hint: str = ""
    ) -> np.ndarray:
        """Check user input and return it as a float64, C-contiguous array.

        Parameters
        ----------
        X : array-like, shape (n_samples, ambient_dim)
            Ambient coordinates (float32 and integers are accepted and converted).
        name : str
            How to call the array in error messages.
        check_manifold : bool
            Also require every row to lie on the manifold (relative tolerance ``rtol``).
        rtol : float
        hint : str, default=""
            Appended to the message of points off the manifold (the estimators pass
            ``COLUMN_PERMUTATION_HINT``).

        Returns
        -------
        ndarray of float64, shape (n_samples, ambient_dim)

        Raises
        ------
        ValueError
            Naming the problem and where: not numeric (with the offending entry),
            not 2-D, no rows, wrong width (with the width each component needs),
            NaN or infinity (row, column and component), or points off the
            manifold (component, rows and the reason): the last as
            :class:`OffManifoldError`, a ``ValueError``.
        """
        if X is None:
            raise ValueError(f"{name} is None; expected an array of shape (n_samples, {self.ambient_dim})")
        if hasattr(X, "toarray") or hasattr(X, "tocsr"):
            raise ValueError(f"{name} is a sparse matrix; {self.signature} needs a dense array of ambient coordinates")
        array = _as_numeric(X, name)
        if array.ndim != 2:
            hint = ""
            if array.ndim == 1 and self.ambient_dim == 1:
                hint = f"; for one coordinate per sample use {name}.reshape(-1, 1)"
            elif array.ndim == 1 and array.shape[0] == self.ambient_dim:
                hint = f"; for a single point use {name}.reshape(1, -1)"
            raise ValueError(
                f"{name} must be a 2-D array of shape (n_samples, {self.ambient_dim}), got a {array.ndim}-D array "
                f"of shape {array.shape}{hint}"
            )
        if array.shape[0] == 0:
            raise ValueError(f"{name} has no rows (shape {array.shape}); at least one sample is required")
        if array.shape[1] != self.ambient_dim:
            message = (
                f"{name} has {array.shape[1]} columns, but signature '{self.signature}' needs "
                f"{self.ambient_dim} ambient coordinates ({self._widths()})"
            )
            if array.shape[1] == self.dim and self.dim != self.ambient_dim:
                message += (
                    f"; {array.shape[1]} is the intrinsic dimension: give hyperboloid / sphere points in ambient "
                    "coordinates (one more column per H or S component)"
                )
            raise ValueError(message)
        array = np.ascontiguousarray(array, dtype=np.float64)
        if rows_clear(array, *self._rows_tables(check_manifold, rtol)):
            return array  # the usual case, in one pass; otherwise the checks below find the reason
        finite = np.isfinite(array)
        if not finite.all():
            rows, cols = np.nonzero(~finite)
            row, col = rows[0], cols[0]
            index = next(i for i, s in enumerate(self._slices) if s.start <= col < s.stop)
            offset = col - self._slices[index].start
            where = f"component {index + 1}, {self.components[index].name}, coordinate {offset}"
            raise ValueError(
                f"{name} contains {_describe_value(array[row, col])} at row {row}, column {col} "
                f"({where}); "
                f"{len(rows)} non-finite value(s) in {len(np.unique(rows))} row(s): {format_rows(np.unique(rows))}"
            )
        if check_manifold:
            ok, reason = self._explain(array, rtol)
            if not ok:
                raise OffManifoldError(f"{name} has points off the manifold '{self.signature}': {reason}{hint}")
        return array


def _describe_value(value: float) -> str:
    return "NaN" if np.isnan(value) else ("+inf" if value > 0 else "-inf")


def _as_numeric(X, name: str) -> np.ndarray:
    """``np.asarray(X)`` as a real numeric array, or a ValueError naming the bad entry."""
    try:
        array = np.asarray(X)
    except ValueError as error:
        raise ValueError(
            f"{name} could not be read as an array (are the rows of different lengths?): {error}"
        ) from None
    if array.dtype.kind in "biuf":
        return array
    if array.dtype.kind == "c":
        raise ValueError(f"{name} has complex values; ambient coordinates must be real")
    if array.dtype.kind in "OUS":
        try:
            return array.astype(np.float64)
        except (TypeError, ValueError):
            pass
        for position in np.ndindex(array.shape):
            try:
                float(array[position])
            except (TypeError, ValueError):
                where = ", ".join(str(p) for p in position)
                raise ValueError(f"{name} must be numeric, but the entry at ({where}) is {array[position]!r}") from None
    raise ValueError(f"{name} must be a numeric array, got dtype {array.dtype}")
