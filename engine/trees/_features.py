"""Split features: which coordinate planes a product tree may cut, and their values.

Every split of a product tree lives in one component and one plane spanned by two of
that component's ambient coordinates ``(i, j)``. Its boundary is a line through the
origin of that plane: the trace of a homogeneous hyperplane whose normal lies in
``span(e_i, e_j)``, which cuts H, S and E into geodesically convex halves.

A plane is searched in one of three ways (``FeatureKind``):

``LIFT``
    Euclidean component, ``i`` is the constant lift ``x_0 = 1``. Every point
    projects into the open half-plane ``x_0 > 0`` and lines through the origin
    are thresholds on ``x_j`` (plain CART).
``TIMELIKE``
    Hyperbolic component, ``i = 0`` (the timelike coordinate, always positive).
    Lines through the origin are thresholds on ``x_j / x_0``: the Klein coordinate.
``CIRCULAR``
    Every other plane (any spherical pair, spacelike hyperbolic pairs, Euclidean
    pairs without the lift). Points surround the origin, so the line can take any
    direction; the search sweeps it through a half-turn. The feature value is the
    direction angle ``atan2(x_j, x_i)`` in ``[0, 2 pi)``, or ``-1`` for points
    that project onto the origin (they lie on every such boundary).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import limits
from ..manifolds import Signature

__all__ = [
    "CIRCULAR",
    "GEOMETRY_CODES",
    "LIFT",
    "MAX_SPLIT_FEATURES",
    "MAX_VALUES_BYTES",
    "TIMELIKE",
    "SplitFeatures",
    "count_planes",
]

LIFT, TIMELIKE, CIRCULAR = 0, 1, 2
KIND_NAMES = {LIFT: "lift", TIMELIKE: "timelike", CIRCULAR: "circular"}
# Geometry of the component a feature belongs to, used to turn a margin measured in
# the plane into a geodesic distance (see curvedtrees.trees._margin.geodesic_margin).
GEOMETRY_CODES = {"E": 0, "H": 1, "S": 2}
ORIGIN_ANGLE = -1.0  # marks a point whose projection is the plane's origin

_PAIR_MODES = ("base", "all")

# Limits checked before anything is allocated (their reasons are in curvedtrees.limits,
# where every input limit lives; the names stay importable from here).
MAX_SPLIT_FEATURES = limits.MAX_SPLIT_FEATURES
MAX_VALUES_BYTES = limits.MAX_VALUES_BYTES


def count_planes(signature, pairs: str = "base") -> int:
    """Number of split planes of ``signature`` under ``pairs``, without building them.

    E components have ``n`` lift planes (plus ``n (n - 1) / 2`` with ``"all"``); H and S
    components (``n`` ambient coordinates) have ``n - 1`` with ``"base"`` and
    ``n (n - 1) / 2`` with ``"all"``.
    """
    if pairs not in _PAIR_MODES:
        raise ValueError(f"pairs must be 'base' or 'all', got {pairs!r}")
    total = 0
    for comp in Signature.parse(signature).components:
        n = comp.ambient_dim
        if pairs == "all":
            total += n * (n - 1) // 2 + (n if comp.kind == "E" else 0)
        else:
            total += n if comp.kind == "E" else n - 1
    return total


@dataclass(frozen=True)
class SplitFeatures:
    """The candidate split planes of a signature, as parallel arrays.

    Attributes
    ----------
    signature : Signature
    pairs : {"base", "all"}
    kind : ndarray of shape (n_features,), int8
        ``LIFT``, ``TIMELIKE`` or ``CIRCULAR``.
    component : ndarray of shape (n_features,), int64
        Index of the component in the signature.
    local_i, local_j : ndarray of shape (n_features,), int64
        The coordinate pair inside the component (``local_i = -1``: the lift).
    col_i, col_j : ndarray of shape (n_features,), int64
        The same pair as columns of the ambient row (``col_i = -1``: the lift).
    geometry : ndarray of shape (n_features,), int8
        0 for E, 1 for H, 2 for S components.
    radius : ndarray of shape (n_features,), float64
        ``1 / sqrt|K|`` of the component (``inf`` for E).
    """

    signature: Signature
    pairs: str
    kind: np.ndarray
    component: np.ndarray
    local_i: np.ndarray
    local_j: np.ndarray
    col_i: np.ndarray
    col_j: np.ndarray
    geometry: np.ndarray
    radius: np.ndarray

    @classmethod
    def from_signature(cls, signature, pairs: str = "base") -> SplitFeatures:
        """Enumerate the split planes of ``signature``.

        ``pairs="base"`` gives ``(0, j)`` for every other coordinate ``j`` of H and S
        components and the lift pairs of E (plain thresholds); ``pairs="all"`` gives
        every pair ``i < j`` of a component's coordinates, the lift included for E.
        """
        signature = Signature.parse(signature)
        n_planes = count_planes(signature, pairs)
        if n_planes > MAX_SPLIT_FEATURES:
            raise ValueError(
                f"pairs={pairs!r} on '{signature}' gives {n_planes:,} split planes, above the limit of "
                f"{MAX_SPLIT_FEATURES:,} (curvedtrees.limits.MAX_SPLIT_FEATURES)"
                + (f"; pairs='base' gives {count_planes(signature, 'base'):,}" if pairs == "all" else "")
            )
        rows = []
        for comp in signature.components:
            n = comp.ambient_dim
            if comp.kind == "E":
                plane_list = [(-1, j) for j in range(n)]
                if pairs == "all":
                    plane_list += [(i, j) for i in range(n) for j in range(i + 1, n)]
            elif pairs == "base":
                plane_list = [(0, j) for j in range(1, n)]
            else:
                plane_list = [(i, j) for i in range(n) for j in range(i + 1, n)]
            for i, j in plane_list:
                if comp.kind == "E" and i == -1:
                    kind = LIFT
                elif comp.kind == "H" and i == 0:
                    kind = TIMELIKE
                else:
                    kind = CIRCULAR
                col_i = -1 if i == -1 else comp.start + i
                rows.append((kind, comp.index, i, j, col_i, comp.start + j, GEOMETRY_CODES[comp.kind], comp.radius))
        table = list(zip(*rows))
        return cls(
            signature=signature,
            pairs=pairs,
            kind=np.asarray(table[0], dtype=np.int8),
            component=np.asarray(table[1], dtype=np.int64),
            local_i=np.asarray(table[2], dtype=np.int64),
            local_j=np.asarray(table[3], dtype=np.int64),
            col_i=np.asarray(table[4], dtype=np.int64),
            col_j=np.asarray(table[5], dtype=np.int64),
            geometry=np.asarray(table[6], dtype=np.int8),
            radius=np.asarray(table[7], dtype=np.float64),
        )

    @property
    def n_features(self) -> int:
        return len(self.kind)

    def names(self) -> list[str]:
        """Readable names such as ``"H2 (x0, x2)"`` or ``"E2 (1, x1)"``."""
        out = []
        for comp_index, i, j in zip(self.component, self.local_i, self.local_j):
            comp = self.signature.components[comp_index]
            first = "1" if i == -1 else f"x{i}"
            out.append(f"{comp.name}#{comp_index} ({first}, x{j})")
        return out

    def values_nbytes(self, n_samples: int) -> int:
        """Bytes of the array :meth:`values` returns for ``n_samples`` rows."""
        return 8 * self.n_features * int(n_samples)

    def check_memory(self, n_samples: int) -> None:
        """Refuse, before anything is allocated, a values array above ``MAX_VALUES_BYTES``.

        Raises
        ------
        ValueError
            Stating the estimate in GiB, the number of planes and rows, and what to
            change (``pairs="base"``, fewer rows).
        """
        nbytes = self.values_nbytes(n_samples)
        if nbytes <= MAX_VALUES_BYTES:
            return
        message = (
            f"pairs={self.pairs!r} on '{self.signature}' with {int(n_samples):,} rows needs "
            f"{nbytes / 2**30:.1f} GiB for the values of {self.n_features:,} split planes, above the limit of "
            f"{MAX_VALUES_BYTES / 2**30:g} GiB (curvedtrees.limits.MAX_VALUES_BYTES)"
        )
        if self.pairs == "all":
            n_base = count_planes(self.signature, "base")
            message += (
                f"; use pairs='base' ({n_base:,} planes, {8 * n_base * int(n_samples) / 2**30:.2f} GiB) or fewer rows"
            )
        else:
            message += "; use fewer rows"
        raise ValueError(message + " (max_features does not lower this: every plane's values are computed once)")

    def values(self, X: np.ndarray) -> np.ndarray:
        """Feature values used by the split search.

        Parameters
        ----------
        X : ndarray of shape (n_samples, ambient_dim), float64
            Points in ambient coordinates (already validated).

        Returns
        -------
        values : ndarray of shape (n_features, n_samples), float64
            ``x_j`` for lift features, ``x_j / x_0`` for timelike features, and the
            direction angle in ``[0, 2 pi)`` (or ``-1`` at the origin) for circular
            features. Stored feature-major so that one feature's values are contiguous.
        """
        n_samples = X.shape[0]
        self.check_memory(n_samples)
        out = np.empty((self.n_features, n_samples), dtype=np.float64)
        for f in range(self.n_features):
            xj = X[:, self.col_j[f]]
            if self.kind[f] == LIFT:
                out[f] = xj
            elif self.kind[f] == TIMELIKE:
                # Same expression as the routing at prediction time, so training rows
                # and new rows with equal coordinates land on the same side.
                np.divide(xj, X[:, self.col_i[f]], out=out[f])
            else:
                xi = X[:, self.col_i[f]]
                angle = np.arctan2(xj, xi)
                angle[angle < 0] += 2 * np.pi
                # atan2 of a tiny negative y returns -0.0 or -tiny; adding 2 pi can round
                # to exactly 2 pi, which is the same direction as 0: fold it back.
                angle[angle >= 2 * np.pi] = 0.0
                angle[(xi == 0) & (xj == 0)] = ORIGIN_ANGLE
                out[f] = angle
        return out
