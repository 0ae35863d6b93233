"""Split features: which coordinate planes a product tree may cut, and their values.

Every split of a product tree lives in one component and one plane spanned by two of
that component's ambient coordinates ``(i, j)``. Its boundary is a line through the
origin of that plane: the trace of a homogeneous hyperplane whose normal lies in
``span(e_i, e_j)``, which cuts H, S and E into geodesically convex halves.

A plane is searched in one of four ways (``FeatureKind``):

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
``RADIAL``
    Only with ``splits="geodesic+radial"``: a threshold on ONE ambient coordinate of
    an H or S component, which a line through the origin cannot express. On H
    (radius ``R``) the coordinate is ``x_0 = R cosh(d / R)``, ``d`` the distance from
    the origin: ``x_0 <= t`` is a closed ball about the origin (geodesically convex),
    its complement is not convex. On S (radius ``R``) there is one per ambient axis
    ``k``, ``x_k = R cos(theta)`` with ``theta`` the angle from the pole ``+e_k``:
    ``x_k > t`` is the open cap about ``+e_k`` of angular radius ``theta_t``, and
    ``x_k <= t`` the closed cap about ``-e_k``; a cap is convex when it is at most a
    hemisphere, so the cap about ``+e_k`` is convex for ``t >= 0`` and the one about
    ``-e_k`` for ``t <= 0`` (at ``t = 0`` both are hemispheres: the geodesic split
    through ``e_k``'s equator). Searched like a lift plane (one sorted sweep over the
    coordinate); only the threshold differs: the midpoint in the geometry's own
    distance (``curvedtrees.trees._margin.radial_threshold``). Routing is the lift's
    comparison ``x_j <= t``. E components get none (a threshold on an E coordinate is
    already a lift plane). Balls about other centres and horospheres (their limits at
    infinity, HoroRF's splits) are not searched: their centres form a continuum,
    so an exact search costs far more than one sort per plane; see docs/user_guide.
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
    "RADIAL",
    "SPLIT_MODES",
    "TIMELIKE",
    "SplitFeatures",
    "count_planes",
]

# Packed routing records hold a kind in two bits; radial splits are packed as LIFT (_builder.routing_kinds).
LIFT, TIMELIKE, CIRCULAR, RADIAL = 0, 1, 2, 3
KIND_NAMES = {LIFT: "lift", TIMELIKE: "timelike", CIRCULAR: "circular", RADIAL: "radial"}
# The estimators' ``splits`` values: the paper's planes through the origin, or those plus
# the radial thresholds of every H and S component.
SPLIT_MODES = ("geodesic", "geodesic+radial")
# Geometry of the component a feature belongs to, used to turn a margin measured in
# the plane into a geodesic distance (see curvedtrees.trees._margin.geodesic_margin).
GEOMETRY_CODES = {"E": 0, "H": 1, "S": 2}
ORIGIN_ANGLE = -1.0  # marks a point whose projection is the plane's origin

_PAIR_MODES = ("base", "all")

# Limits checked before anything is allocated (their reasons are in curvedtrees.limits,
# where every input limit lives; the names stay importable from here).
MAX_SPLIT_FEATURES = limits.MAX_SPLIT_FEATURES
MAX_VALUES_BYTES = limits.MAX_VALUES_BYTES


def count_planes(signature, pairs: str = "base", splits: str = "geodesic") -> int:
    """Number of split planes of ``signature`` under ``pairs``, without building them.

    E components have ``n`` lift planes (plus ``n (n - 1) / 2`` with ``"all"``); H and S
    components (``n`` ambient coordinates) have ``n - 1`` with ``"base"`` and
    ``n (n - 1) / 2`` with ``"all"``. ``splits="geodesic+radial"`` adds one radial
    plane per H component and ``n`` per S component.
    """
    if pairs not in _PAIR_MODES:
        raise ValueError(f"pairs must be 'base' or 'all', got {pairs!r}")
    _check_splits(splits)
    total = 0
    if splits != "geodesic":
        total += sum(len(_radial_axes(comp)) for comp in Signature.parse(signature).components)
    for comp in Signature.parse(signature).components:
        n = comp.ambient_dim
        if pairs == "all":
            total += n * (n - 1) // 2 + (n if comp.kind == "E" else 0)
        else:
            total += n if comp.kind == "E" else n - 1
    return total


def _check_splits(splits) -> None:
    if not isinstance(splits, str) or splits not in SPLIT_MODES:
        raise ValueError(f"splits must be 'geodesic' or 'geodesic+radial', got {splits!r}")


def _radial_axes(comp) -> list[int]:
    """The coordinates of ``comp`` that get a radial plane: ``x_0`` of H, every axis of S."""
    if comp.kind == "H":
        return [0]
    if comp.kind == "S":
        return list(range(comp.ambient_dim))
    return []


@dataclass(frozen=True)
class SplitFeatures:
    """The candidate split planes of a signature, as parallel arrays.

    Attributes
    ----------
    signature : Signature
    pairs : {"base", "all"}
    kind : ndarray of shape (n_features,), int8
        ``LIFT``, ``TIMELIKE``, ``CIRCULAR`` or ``RADIAL``.
    component : ndarray of shape (n_features,), int64
        Index of the component in the signature.
    local_i, local_j : ndarray of shape (n_features,), int64
        The coordinate pair inside the component (``local_i = -1``: the lift, and a
        radial plane, which reads ``x_j`` alone).
    col_i, col_j : ndarray of shape (n_features,), int64
        The same pair as columns of the ambient row (``col_i = -1``: the lift or radial).
    geometry : ndarray of shape (n_features,), int8
        0 for E, 1 for H, 2 for S components.
    radius : ndarray of shape (n_features,), float64
        ``1 / sqrt|K|`` of the component (``inf`` for E).
    splits : {"geodesic", "geodesic+radial"}
        Whether the radial planes are among the candidates (listed last in each component).
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
    splits: str = "geodesic"

    @classmethod
    def from_signature(cls, signature, pairs: str = "base", splits: str = "geodesic") -> SplitFeatures:
        """Enumerate the split planes of ``signature``.

        ``pairs="base"`` gives ``(0, j)`` for every other coordinate ``j`` of H and S
        components and the lift pairs of E (plain thresholds); ``pairs="all"`` gives
        every pair ``i < j`` of a component's coordinates, the lift included for E.
        ``splits="geodesic+radial"`` appends each H and S component's radial planes
        after its other planes (``"geodesic"``, the default, lists exactly the planes it
        always did, in the same order).
        """
        signature = Signature.parse(signature)
        n_planes = count_planes(signature, pairs, splits)
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
            if splits != "geodesic":
                for j in _radial_axes(comp):
                    rows.append((RADIAL, comp.index, -1, j, -1, comp.start + j, GEOMETRY_CODES[comp.kind], comp.radius))
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
            splits=splits,
        )

    @property
    def n_features(self) -> int:
        return len(self.kind)

    def names(self) -> list[str]:
        """Readable names such as ``"H2#0 (x0, x2)"``, ``"E2#1 (1, x1)"`` or ``"S2#2 radial x1"``."""
        out = []
        for kind, comp_index, i, j in zip(self.kind, self.component, self.local_i, self.local_j):
            comp = self.signature.components[comp_index]
            if kind == RADIAL:
                out.append(f"{comp.name}#{comp_index} radial x{j}")
                continue
            first = "1" if i == -1 else f"x{i}"
            out.append(f"{comp.name}#{comp_index} ({first}, x{j})")
        return out

    def columns(self) -> list[tuple[int, ...]]:
        """The ambient columns each plane reads, in plane order.

        A lift plane reads one column (``x_j``; the lift ``1`` is no column), every other
        plane the two columns ``(x_i, x_j)`` of its pair.
        """
        return [(int(j),) if i == -1 else (int(i), int(j)) for i, j in zip(self.col_i, self.col_j)]

    def values_nbytes(self, n_samples: int) -> int:
        """Bytes of the array :meth:`values` returns for ``n_samples`` rows."""
        return 8 * self.n_features * int(n_samples)

    def check_memory(self, n_samples: int, nbytes: int | None = None, held: str = "the values") -> None:
        """Refuse, before anything is allocated, a fit's per-plane arrays above ``MAX_VALUES_BYTES``.

        Parameters
        ----------
        n_samples : int
        nbytes : int, optional
            What the fit holds for its planes (default :meth:`values_nbytes`: the trees'
            values array; gradient boosting passes its bin codes and angles).
        held : str
            What those bytes are, for the message.

        Raises
        ------
        ValueError
            Stating the estimate in GiB, the number of planes and rows, and what to
            change (``pairs="base"``, fewer rows).
        """
        nbytes = self.values_nbytes(n_samples) if nbytes is None else int(nbytes)
        if nbytes <= MAX_VALUES_BYTES:
            return
        message = (
            f"pairs={self.pairs!r} on '{self.signature}' with {int(n_samples):,} rows needs "
            f"{nbytes / 2**30:.1f} GiB for {held} of {self.n_features:,} split planes, above the limit of "
            f"{MAX_VALUES_BYTES / 2**30:g} GiB (curvedtrees.limits.MAX_VALUES_BYTES)"
        )
        if self.pairs == "all":
            n_base = count_planes(self.signature, "base")
            # The bytes scale with the planes: the base pairs' share of the same estimate.
            message += (
                f"; use pairs='base' ({n_base:,} planes, {nbytes * n_base / self.n_features / 2**30:.2f} GiB) "
                "or fewer rows"
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
            ``x_j`` for lift and radial features, ``x_j / x_0`` for timelike features, and the
            direction angle in ``[0, 2 pi)`` (or ``-1`` at the origin) for circular
            features. Stored feature-major so that one feature's values are contiguous.
        """
        n_samples = X.shape[0]
        self.check_memory(n_samples)
        out = np.empty((self.n_features, n_samples), dtype=np.float64)
        for f in range(self.n_features):
            xj = X[:, self.col_j[f]]
            if self.kind[f] == LIFT or self.kind[f] == RADIAL:
                # Radial planes sort by the coordinate itself, the value routing compares
                # (it is monotone in the distance or angle the threshold is placed in).
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
