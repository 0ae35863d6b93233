"""The fitted tree: parallel node arrays, routing and prediction.

Node 0 is the root; a leaf has ``children_left == children_right == -1``. Nodes are
numbered in the order the builder created them (depth-first, left child first),
which is also the order in which their splits were chosen, so "the first k splits"
are the internal nodes with the k smallest ids.

Routing has one rule, the compiled predicate of the builder (``_builder._goes_left``):
:meth:`Tree.apply` and :meth:`Tree.decision_path` run it compiled, and
:meth:`Tree.goes_left` is the same comparison on whole columns, for the questions a
picture asks of one node (which cells reach it, which side they take), so that pictures
and predictions agree on every row, boundary rows included. :meth:`Tree.route` answers
for the tree stopped after its first ``k`` splits.
"""

from __future__ import annotations

import numpy as np
from scipy import sparse

from ._builder import apply_tree, decision_path_tree, pack_nodes
from ._features import CIRCULAR, LIFT, RADIAL, TIMELIKE, SplitFeatures
from ._margin import geodesic_margin

__all__ = ["Tree", "node_margins"]


def node_margins(features, children_left, feature, plane_margin) -> np.ndarray:
    """Each split's margin as a geodesic distance, from the margin its search measured.

    Parameters
    ----------
    features : SplitFeatures
    children_left, feature : ndarray of shape (node_count,), int64
        The node arrays (``children_left == -1``: a leaf).
    plane_margin : ndarray of shape (node_count,), float64
        What the split search returned: ``|<x, n>|`` in the plane for the paper's
        splits (:func:`~curvedtrees.trees._margin.geodesic_margin` converts it), the
        geodesic distance itself for radial splits (``_margin.radial_threshold``).

    Returns
    -------
    margin : ndarray of shape (node_count,), float64
        NaN at the leaves.
    """
    internal = children_left != -1
    f = np.where(internal, feature, 0)
    radial = internal & (features.kind[f] == RADIAL)
    converted = geodesic_margin(np.where(internal, plane_margin, 0.0), features.geometry[f], features.radius[f])
    return np.where(internal, np.where(radial, plane_margin, converted), np.nan)


class Tree:
    """Array representation of a fitted product tree.

    Attributes
    ----------
    node_count : int
    children_left, children_right : ndarray of shape (node_count,), int64
        Child ids, ``-1`` at leaves.
    feature : ndarray of shape (node_count,), int64
        Index of the split plane in ``features`` (``-1`` at leaves).
    component : ndarray of shape (node_count,), int64
        Signature component of the split (``-1`` at leaves).
    coords : ndarray of shape (node_count, 2), int64
        The ambient coordinate pair ``(i, j)`` of the split plane, counted inside the
        component; ``i = -1`` is the constant lift ``x_0 = 1`` of a Euclidean
        component. ``(-1, -1)`` at leaves.
    normal : ndarray of shape (node_count, 2), float64
        Unit normal ``(n_i, n_j)`` of the boundary line in the plane: a row goes left
        iff ``n_i x_i + n_j x_j <= 0`` (with ``x_i = 1`` for the lift). Zeros at leaves.
    threshold : ndarray of shape (node_count,), float64
        For linear splits (``linear``), the same boundary as a threshold: a row goes
        left iff ``x_j / x_i <= threshold`` (the Klein coordinate for H, ``x_j`` for
        E), or, for a radial split, ``x_j <= threshold``. NaN for circular splits and
        leaves. Routing uses the threshold where one exists, so Euclidean trees
        reproduce scikit-learn's comparisons exactly.
    linear : ndarray of shape (node_count,), bool
        Whether the split is a threshold (lift, timelike or radial), not a line's direction.
    radial : ndarray of shape (node_count,), bool
        Whether the split is radial (a ball about the origin of H, a cap about an axis
        pole of S; ``splits="geodesic+radial"``).
    impurity : ndarray of shape (node_count,), float64
    n_node_samples : ndarray of shape (node_count,), int64
        Training rows (distinct in-bag rows for forests) that reached the node.
    weighted_n_node_samples : ndarray of shape (node_count,), float64
    value : ndarray of shape (node_count, n_outputs), float64
        Class fractions (classifiers) or the mean target (regressors).
    margin : ndarray of shape (node_count,), float64
        Geodesic distance from the stored boundary to the nearest training row of
        the node (NaN at leaves). Rows that project onto the plane's origin lie on
        every boundary of that plane and are not counted.
    improvement : ndarray of shape (node_count,), float64
        Weighted impurity decrease of each split (zero at leaves).
    features : SplitFeatures
        The candidate planes the tree was grown on.
    """

    def __init__(self, features: SplitFeatures, arrays: dict, n_outputs: int, check: bool = True):
        self.features = features
        self.n_outputs = int(n_outputs)
        self.children_left = np.ascontiguousarray(arrays["children_left"], dtype=np.int64)
        self.children_right = np.ascontiguousarray(arrays["children_right"], dtype=np.int64)
        self.feature = np.ascontiguousarray(arrays["feature"], dtype=np.int64)
        self.threshold = np.ascontiguousarray(arrays["threshold"], dtype=np.float64)
        self.normal = np.ascontiguousarray(arrays["normal"], dtype=np.float64).reshape(-1, 2)
        self.impurity = np.ascontiguousarray(arrays["impurity"], dtype=np.float64)
        self.n_node_samples = np.ascontiguousarray(arrays["n_node_samples"], dtype=np.int64)
        self.weighted_n_node_samples = np.ascontiguousarray(arrays["weighted_n_node_samples"], dtype=np.float64)
        self.value = np.ascontiguousarray(arrays["value"], dtype=np.float64).reshape(-1, self.n_outputs)
        self.margin = np.ascontiguousarray(arrays["margin"], dtype=np.float64)
        self.improvement = np.ascontiguousarray(arrays["improvement"], dtype=np.float64)
        if check:  # arrays from a file are untrusted; the builder's own output is not re-checked
            self._check_structure()
        internal = self.children_left != -1
        f = np.where(internal, self.feature, 0)
        self.component = np.where(internal, features.component[f], -1)
        self.coords = np.where(
            internal[:, None], np.stack([features.local_i[f], features.local_j[f]], axis=1), -1
        ).astype(np.int64)
        self.linear = internal & (features.kind[f] != CIRCULAR)
        self.radial = internal & (features.kind[f] == RADIAL)
        self._packed = None  # routing records, built on first use (see _route_args)
        self._parents: np.ndarray | None = None  # parent ids, built on first use (see parents)

    @classmethod
    def from_builder(cls, features, raw, n_outputs, is_classifier):
        """Wrap the tuple returned by ``build_tree``; converts sums to fractions / means."""
        (left, right, feature, threshold, normal, impurity, n_node, w_node, value, plane_margin, improvement) = raw
        with np.errstate(invalid="ignore", divide="ignore"):
            if is_classifier:
                totals = value.sum(axis=1, keepdims=True)
                value = np.where(totals > 0, value / np.where(totals > 0, totals, 1.0), 0.0)
            else:
                value = value / np.where(w_node > 0, w_node, 1.0)[:, None]
        margin = node_margins(features, left, feature, plane_margin)
        arrays = {
            "children_left": left,
            "children_right": right,
            "feature": feature,
            "threshold": threshold,
            "normal": normal,
            "impurity": impurity,
            "n_node_samples": n_node,
            "weighted_n_node_samples": w_node,
            "value": value,
            "margin": margin,
            "improvement": improvement,
        }
        return cls(features, arrays, n_outputs, check=False)

    def _check_structure(self):
        """Reject inconsistent arrays (they may come from an untrusted model file)."""
        n = self.children_left.shape[0]
        if n == 0:
            raise ValueError("a tree needs at least one node")
        for name in (
            "children_right",
            "feature",
            "threshold",
            "impurity",
            "n_node_samples",
            "weighted_n_node_samples",
            "margin",
            "improvement",
        ):
            if getattr(self, name).shape != (n,):
                raise ValueError(f"tree array {name!r} has shape {getattr(self, name).shape}, expected ({n},)")
        if self.normal.shape != (n, 2) or self.value.shape != (n, self.n_outputs):
            raise ValueError("tree arrays 'normal' or 'value' have the wrong shape")
        left, right = self.children_left, self.children_right
        internal = left != -1
        if np.any((right != -1) != internal):
            raise ValueError("every node must have either two children or none")
        ids = np.arange(n)
        # Children come after their parent (depth-first numbering), which also rules out cycles.
        if np.any(internal & ((left <= ids) | (right <= ids) | (left >= n) | (right >= n))):
            raise ValueError("child ids must point forward to existing nodes")
        children = np.concatenate([left[internal], right[internal]])
        if children.size != np.unique(children).size or (n > 1 and children.size != n - 1):
            raise ValueError("every node except the root must have exactly one parent")
        n_features = self.features.n_features
        if np.any(internal & ((self.feature < 0) | (self.feature >= n_features))):
            raise ValueError(f"split features must lie in [0, {n_features})")
        f = np.where(internal, self.feature, 0)
        linear = internal & (self.features.kind[f] != CIRCULAR)
        circular = internal & ~linear
        if not np.all(np.isfinite(self.threshold[linear])) or not np.all(np.isfinite(self.normal[circular])):
            raise ValueError("split boundaries must be finite")

    # ---------------------------------------------------------------- queries
    @property
    def node_count(self) -> int:
        return self.children_left.shape[0]

    @property
    def n_leaves(self) -> int:
        return int(np.sum(self.children_left == -1))

    @property
    def max_depth(self) -> int:
        depth = np.zeros(self.node_count, dtype=np.int64)
        for node in range(self.node_count):  # parents precede children
            if self.children_left[node] != -1:
                depth[self.children_left[node]] = depth[node] + 1
                depth[self.children_right[node]] = depth[node] + 1
        return int(depth.max())

    def _route_args(self):
        # Packed once per tree and reused: routing reads one record per visited node.
        if getattr(self, "_packed", None) is None:
            f = self.features
            self._packed = pack_nodes(
                self.children_left,
                self.children_right,
                self.feature,
                f.kind,
                f.col_i,
                f.col_j,
                self.threshold,
                self.normal,
            )
        return self._packed

    def apply(self, X: np.ndarray) -> np.ndarray:
        """Leaf id of each row of ``X`` (validated ambient coordinates, float64)."""
        return apply_tree(X, *self._route_args())

    def decision_path(self, X: np.ndarray) -> sparse.csr_matrix:
        """Indicator matrix of shape (n_samples, node_count) of the nodes each row visits."""
        indptr, indices = decision_path_tree(X, *self._route_args(), self.max_depth + 1)
        data = np.ones(indices.shape[0], dtype=np.intp)
        return sparse.csr_matrix((data, indices, indptr), shape=(X.shape[0], self.node_count))

    def predict(self, X: np.ndarray) -> np.ndarray:
        """Node values at the leaves of the rows: shape (n_samples, n_outputs)."""
        return self.value[self.apply(X)]

    # ---------------------------------------------------------------- one node's questions
    def parents(self) -> np.ndarray:
        """Parent of every node, -1 for the root: ndarray of int64, shape (node_count,)."""
        parent = getattr(self, "_parents", None)
        if parent is None:
            parent = np.full(self.node_count, -1, dtype=np.int64)
            internal = np.flatnonzero(self.children_left != -1)
            parent[self.children_left[internal]] = internal
            parent[self.children_right[internal]] = internal
            self._parents = parent
        return parent

    def goes_left(self, node: int, X: np.ndarray) -> np.ndarray:
        """Which rows of ``X`` the split at ``node`` sends to its left child.

        The builder's predicate on whole columns, the same float operations in the same
        order: a lift or radial plane compares ``x_j <= threshold``, a timelike plane the Klein ratio
        ``x_j / x_0 <= threshold``, a circular plane ``n_i x_i + n_j x_j <= 0``. So a row on
        a boundary goes where :meth:`apply` sends it.

        Parameters
        ----------
        node : int
            An internal node.
        X : ndarray of shape (n_rows, ambient_dim), float64
            Ambient coordinates (rows are not validated here).

        Returns
        -------
        ndarray of bool, shape (n_rows,)
        """
        node = int(node)
        if not 0 <= node < self.node_count or self.children_left[node] == -1:
            raise ValueError(f"node {node} is not a split of this tree (it has {self.node_count} nodes)")
        plane = int(self.feature[node])
        kind = int(self.features.kind[plane])
        xj = X[:, int(self.features.col_j[plane])]
        if kind == LIFT or kind == RADIAL:
            return xj <= self.threshold[node]
        xi = X[:, int(self.features.col_i[plane])]
        if kind == TIMELIKE:
            return xj / xi <= self.threshold[node]
        return self.normal[node, 0] * xi + self.normal[node, 1] * xj <= 0.0

    def reaches(self, node: int, X: np.ndarray) -> np.ndarray:
        """Which rows of ``X`` are routed through ``node`` (every split above it sends them its way).

        Returns
        -------
        ndarray of bool, shape (n_rows,)
        """
        node = int(node)
        if not 0 <= node < self.node_count:
            raise ValueError(f"node must be between 0 and {self.node_count - 1}, got {node}")
        parents = self.parents()
        ok = np.ones(len(X), dtype=bool)
        child, parent = node, int(parents[node])
        while parent >= 0:
            side = self.goes_left(parent, X)
            ok &= side if self.children_left[parent] == child else ~side
            child, parent = parent, int(parents[parent])
        return ok

    # ---------------------------------------------------------------- the first k splits
    def split_order(self) -> np.ndarray:
        """Ids of the internal nodes in the order their splits were chosen (ascending id), int64."""
        return np.flatnonzero(self.children_left >= 0).astype(np.int64)

    def nodes_after_splits(self, steps) -> np.ndarray:
        """Where every node's rows are when the tree stops after ``steps[f]`` splits.

        Stopped after k splits, the tree sends a row to the first node of its full path
        that is not among the first k splits (a leaf, or a split chosen later), and
        predicts that node's training statistics (see :func:`curvedtrees.trees.first_splits`).

        Parameters
        ----------
        steps : array-like of int, shape (n_steps,)
            Split counts, each in ``[0, number of splits]``.

        Returns
        -------
        ndarray of int64, shape (n_steps, node_count)
            ``out[f, v]``: the node where a row whose full path passes ``v`` stops after
            ``steps[f]`` splits; ``out[f][self.apply(X)]`` routes ``X`` for every step at once.
        """
        order = self.split_order()
        steps = np.asarray(steps, dtype=np.int64).ravel()
        if steps.size and (steps.min() < 0 or steps.max() > len(order)):
            raise ValueError(f"split counts must lie in [0, {len(order)}] (the tree's splits), got {steps.tolist()}")
        n = self.node_count
        # rank[v]: when node v's split was chosen; leaves never split.
        rank = np.full(n, np.iinfo(np.int64).max, dtype=np.int64)
        rank[order] = np.arange(len(order))
        parents = self.parents()
        # Parents precede children, so one pass in id order settles every node for every step.
        owner = np.zeros((len(steps), n), dtype=np.int64)
        for v in range(1, n):
            p = parents[v]
            still_split = (owner[:, p] == p) & (rank[p] < steps)
            owner[:, v] = np.where(still_split, v, owner[:, p])
        return owner

    def route(self, X: np.ndarray, upto: int | None = None) -> np.ndarray:
        """The node each row of ``X`` reaches: its leaf, or where it stops after the first ``upto`` splits.

        Parameters
        ----------
        X : ndarray of shape (n_rows, ambient_dim), float64
            Validated ambient coordinates, as for :meth:`apply`.
        upto : int, optional
            Stop after this many splits (in ``[0, number of splits]``); None: the whole tree.

        Returns
        -------
        ndarray of int64, shape (n_rows,)
            Node ids of this tree.
        """
        leaves = self.apply(X)
        if upto is None:
            return leaves
        return self.nodes_after_splits([int(upto)])[0][leaves]

    def feature_importances(self, normalize: bool = True) -> np.ndarray:
        """Total weighted impurity decrease per split feature (plane)."""
        out = np.zeros(self.features.n_features)
        internal = self.children_left != -1
        np.add.at(out, self.feature[internal], self.improvement[internal])
        total = out.sum()
        if normalize and total > 0:
            out /= total
        return out

    def column_importances(self, normalize: bool = True) -> np.ndarray:
        """Total weighted impurity decrease per ambient column, shape (signature.ambient_dim,).

        A split reads one or two columns, and its decrease is shared in proportion to how
        much its boundary depends on each: the squared components of the unit normal
        ``n`` of its line ``n_i x_i + n_j x_j = 0`` (the gradient of the decision
        function ``n . x``). A line along an axis gives everything to the one column it
        cuts, a 45-degree line half to each. A timelike split ``x_j / x_0 <= t`` has the
        normal ``(-t, 1) / sqrt(1 + t^2)``: ``x_0`` gets ``t^2 / (1 + t^2)``. Lift and
        radial splits threshold one column (the lift ``1`` is no column), which gets all.
        """
        features = self.features
        out = np.zeros(features.signature.ambient_dim)
        nodes = np.flatnonzero(self.children_left != -1)
        f = self.feature[nodes]
        gain = self.improvement[nodes]
        kind = features.kind[f]
        share_i = np.zeros(len(nodes))
        timelike = kind == TIMELIKE
        t2 = np.square(self.threshold[nodes[timelike]])
        share_i[timelike] = t2 / (1.0 + t2)
        circular = kind == CIRCULAR
        n2 = np.square(self.normal[nodes[circular]])
        norm2 = n2.sum(axis=1)
        # A zero normal cannot come from a fit (the builder stores a unit vector); a model
        # file could hold one: then the split counts as the plane's two columns equally.
        share_i[circular] = np.where(norm2 > 0, n2[:, 0] / np.where(norm2 > 0, norm2, 1.0), 0.5)
        col_i = features.col_i[f]
        two = col_i >= 0  # lift and radial planes have col_i = -1: one column
        np.add.at(out, features.col_j[f], gain * (1.0 - share_i))
        np.add.at(out, col_i[two], gain[two] * share_i[two])
        total = out.sum()
        if normalize and total > 0:
            out /= total
        return out

    def to_arrays(self) -> dict:
        """The stored arrays (what serialisation writes)."""
        return {
            "children_left": self.children_left,
            "children_right": self.children_right,
            "feature": self.feature,
            "threshold": self.threshold,
            "normal": self.normal,
            "impurity": self.impurity,
            "n_node_samples": self.n_node_samples,
            "weighted_n_node_samples": self.weighted_n_node_samples,
            "value": self.value,
            "margin": self.margin,
            "improvement": self.improvement,
        }
