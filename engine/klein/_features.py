"""Klein features of points on products of hyperbolic and Euclidean components.

For an H component of curvature ``K`` (radius ``R = 1 / sqrt|K|``) in the
hyperboloid model, the Klein feature of coordinate ``j`` is the unitless ratio
``x_j / x_0``: a product-space split on the coordinate pair ``(0, j)``, "left iff
``x_j / x_0 <= t``", is then a plain threshold on one feature, which any Euclidean
tree library can search. (In the Klein ball of radius ``R`` the same point has
coordinates ``k = R x_s / x_0``, so the feature is ``k_j / R``.) Euclidean
components are used as they are.

Input may give H components as hyperboloid points (``dim + 1`` columns, timelike
first), Poincaré ball or Klein ball coordinates (``dim`` columns each, radius
``R``); they are converted with :mod:`curvedtrees.coords` so all three describe the
same points.
"""

from __future__ import annotations

import numpy as np

from .. import coords
from ..manifolds import OffManifoldError, ProductManifold, Signature
from ..manifolds.shared import COLUMN_PERMUTATION_HINT

__all__ = ["INPUT_MODELS", "KleinLayout", "klein_features"]

INPUT_MODELS = ("hyperboloid", "poincare", "klein")


class KleinLayout:
    """How the columns of ``X`` map to hyperboloid coordinates and to Klein features.

    Parameters
    ----------
    signature : Signature
        H and E components only.
    input_model : {"hyperboloid", "poincare", "klein"}
        How ``X`` gives the H components.

    Attributes
    ----------
    input_width : int
        Columns of ``X``.
    n_features : int
        ``signature.dim``: one feature per intrinsic dimension.
    feature_names : list of str
        ``"H2#0 x1/x0"``, ``"E2#1 x0"``, ...
    feat_x0, feat_xj : ndarray of shape (n_features,), int64
        Rows of the hyperboloid block ``HT`` holding ``x_0`` and ``x_j`` for H
        features, ``-1`` for E features.
    feat_radius : ndarray of shape (n_features,), float64
        ``R`` of H features' components (``inf`` for E).
    feat_component : ndarray of shape (n_features,), int64
    """

    def __init__(self, signature: Signature, input_model: str = "hyperboloid"):
        if input_model not in INPUT_MODELS:
            raise ValueError(f"input_model must be one of {', '.join(INPUT_MODELS)}, got {input_model!r}")
        for component in signature.components:
            if component.kind == "S":
                raise ValueError(
                    f"the Klein-model wrappers support hyperbolic (H) and Euclidean (E) components only; component "
                    f"{component.index + 1} of '{signature}' is {component} (spherical, no Klein model). Use the "
                    "product trees instead: curvedtrees.trees.ProductDecisionTreeClassifier / "
                    "ProductRandomForestClassifier (and the Regressor versions) split every kind of component"
                )
        self.signature = signature
        self.input_model = input_model
        ball = input_model != "hyperboloid"
        self.input_slices = []
        start = 0
        for component in signature.components:
            width = component.dim if (ball and component.kind == "H") else component.ambient_dim
            self.input_slices.append(slice(start, start + width))
            start += width
        self.input_width = start
        self.n_features = signature.dim
        names, feat_x0, feat_xj, radius, comp_of = [], [], [], [], []
        self.h_columns = []  # ambient columns of H components, in HT row order
        for component in signature.components:
            if component.kind == "H":
                row0 = len(self.h_columns)
                self.h_columns.extend(range(component.start, component.start + component.ambient_dim))
                for j in range(1, component.ambient_dim):
                    names.append(f"{component.name}#{component.index} x{j}/x0")
                    feat_x0.append(row0)
                    feat_xj.append(row0 + j)
                    radius.append(component.radius)
                    comp_of.append(component.index)
            else:
                for j in range(component.ambient_dim):
                    names.append(f"{component.name}#{component.index} x{j}")
                    feat_x0.append(-1)
                    feat_xj.append(-1)
                    radius.append(np.inf)
                    comp_of.append(component.index)
        self.feature_names = names
        self.feat_x0 = np.asarray(feat_x0, dtype=np.int64)
        self.feat_xj = np.asarray(feat_xj, dtype=np.int64)
        self.feat_radius = np.asarray(radius, dtype=np.float64)
        self.feat_component = np.asarray(comp_of, dtype=np.int64)

    def feature_columns(self) -> list[tuple[int, ...]]:
        """The input columns (of ``X``) each Klein feature reads, in feature order.

        With hyperboloid input, ``x_j / x_0`` reads the component's columns ``x_0`` and
        ``x_j``. With Poincaré or Klein input, feature ``j`` is the point's Klein
        coordinate ``j`` over ``R``: exactly column ``j`` of a Klein input, and for a
        Poincaré input column ``j`` times a positive factor shared by the whole
        component (the map between the balls is radial), so it is credited to column
        ``j``. E features read their own column.
        """
        out = []
        for component, source in zip(self.signature.components, self.input_slices):
            if component.kind == "H" and self.input_model == "hyperboloid":
                out.extend((source.start, source.start + j) for j in range(1, component.ambient_dim))
            else:
                out.extend((source.start + j,) for j in range(component.dim))
        return out

    def input_shares(self) -> np.ndarray:
        """Each Klein feature's equal share of the input columns it reads, shape (n_features, input_width)."""
        shares = np.zeros((self.n_features, self.input_width))
        for f, cols in enumerate(self.feature_columns()):
            shares[f, list(cols)] = 1.0 / len(cols)
        return shares

    def _width_error(self, n_columns: int, name: str) -> ValueError:
        parts = ", ".join(f"{s.stop - s.start} for {c}" for c, s in zip(self.signature.components, self.input_slices))
        return ValueError(
            f"{name} has {n_columns} columns, but signature '{self.signature}' with input_model="
            f"'{self.input_model}' needs {self.input_width} ({parts})"
        )

    def to_hyperboloid(self, X: np.ndarray, name: str = "X") -> np.ndarray:
        """Ambient (hyperboloid) coordinates of the rows of ``X``, validated.

        Parameters
        ----------
        X : ndarray of shape (n_samples, input_width), float64

        Returns
        -------
        ndarray of shape (n_samples, signature.ambient_dim)
            H components with ``x_0`` recomputed from the spatial coordinates (the
            hyperboloid is the graph of ``x_0 = sqrt(R^2 + |x_s|^2)``), so hyperboloid,
            Poincaré and Klein input of the same points give the same coordinates.

        Raises
        ------
        ValueError
            Wrong width, NaN or infinity, hyperboloid points off the manifold, or ball
            coordinates outside the ball (naming the rows and the component).
        """
        if X.ndim != 2 or X.shape[1] != self.input_width:
            raise self._width_error(X.shape[1] if X.ndim == 2 else -1, name)
        manifold = ProductManifold(self.signature)
        if self.input_model == "hyperboloid":
            out = manifold.validate(X, name=name, hint=COLUMN_PERMUTATION_HINT)
        else:
            finite = np.isfinite(X)
            if not finite.all():
                rows, cols = np.nonzero(~finite)
                raise ValueError(
                    f"{name} contains NaN or infinite values ({len(np.unique(rows))} rows, first at row {rows[0]}, "
                    f"column {cols[0]})"
                )
            out = np.empty((X.shape[0], self.signature.ambient_dim))
            for component, source in zip(self.signature.components, self.input_slices):
                block = X[:, source]
                if component.kind == "E":
                    out[:, component.slice] = block
                    continue
                R = component.radius
                norms = np.sqrt(np.einsum("ij,ij->i", block, block))
                outside = np.flatnonzero(norms >= R)
                if outside.size:
                    shown = ", ".join(str(r) for r in outside[:5]) + (" ..." if outside.size > 5 else "")
                    model = "Poincaré" if self.input_model == "poincare" else "Klein"
                    raise OffManifoldError(
                        f"{name}: {outside.size} row(s) of component {component.index + 1} ({component}, curvature "
                        f"{component.curvature:g}) lie outside the open {model} ball of radius "
                        f"{R:g} (rows {shown}; largest norm {norms[outside].max():.6g}). "
                        f"{model} coordinates must have norm < 1/sqrt|K|{COLUMN_PERMUTATION_HINT}"
                    )
                convert = (
                    coords.poincare_to_hyperboloid if self.input_model == "poincare" else coords.klein_to_hyperboloid
                )
                out[:, component.slice] = convert(block, curvature=component.curvature)
            out = manifold.validate(out, name=name)
        for component in self.signature.components:
            if component.kind == "H":
                spatial = out[:, component.start + 1 : component.slice.stop]
                out[:, component.start] = np.sqrt(component.radius**2 + np.einsum("ij,ij->i", spatial, spatial))
        return out

    def features(self, ambient: np.ndarray) -> np.ndarray:
        """Klein features ``x_j / x_0`` (H) and raw coordinates (E), shape (n_samples, n_features)."""
        out = np.empty((ambient.shape[0], self.n_features))
        column = 0
        for component in self.signature.components:
            s = component.start
            if component.kind == "H":
                d = component.dim
                np.divide(ambient[:, s + 1 : s + 1 + d], ambient[:, s : s + 1], out=out[:, column : column + d])
                column += d
            else:
                out[:, column : column + component.dim] = ambient[:, component.slice]
                column += component.dim
        return out

    def hyperbolic_block(self, ambient: np.ndarray) -> np.ndarray:
        """The H components' coordinates, feature-major: shape (n_h_columns, n_samples)."""
        return np.ascontiguousarray(ambient[:, self.h_columns].T)


def klein_features(X, signature, input_model: str = "hyperboloid") -> np.ndarray:
    """Klein features of points given in any supported model.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_columns)
        H components as hyperboloid (``dim + 1`` columns), Poincaré or Klein ball
        (``dim`` columns) coordinates; E components as they are.
    signature : str or Signature
        H and E components only.
    input_model : {"hyperboloid", "poincare", "klein"}

    Returns
    -------
    ndarray of shape (n_samples, signature.dim)
        ``x_j / x_0`` for each spatial coordinate of each H component (unitless, in
        (-1, 1)), then E coordinates, in signature order.
    """
    layout = KleinLayout(Signature.parse(signature), input_model)
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2:
        raise ValueError(f"X must be a 2-D array, got shape {X.shape}")
    return layout.features(layout.to_hyperboloid(X))
