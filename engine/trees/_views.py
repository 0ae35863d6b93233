"""Fitted trees seen as other estimators: a tree stopped after its first k splits, a bare tree as a regressor.

The builder numbers nodes depth-first in the order their splits were chosen, so "the
first k splits" are the internal nodes with the k smallest ids. :func:`first_splits`
cuts a fitted tree back to them (a copy whose ``tree_`` keeps only those splits; every
other node becomes or disappears under a leaf), so replaying training is predicting with
ever larger prefixes of one tree (:meth:`Tree.route` with ``upto``, and
:meth:`Tree.nodes_after_splits` for every prefix at once, give the same nodes without a copy).

:func:`tree_regressor` makes a bare :class:`Tree` (one tree of a boosting model) a fitted
:class:`ProductDecisionTreeRegressor`, so that everything that draws or explains a product
tree takes it as it is.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

import numpy as np

from ._tree import Tree

__all__ = ["PrunedTree", "first_splits", "split_order", "tree_regressor"]


def _tree_of(tree) -> Tree:
    """The ``tree_`` of a fitted tree estimator, or ``tree`` itself."""
    return getattr(tree, "tree_", tree)


def split_order(tree) -> np.ndarray:
    """Ids of the internal nodes in the order their splits were chosen (ascending id).

    Parameters
    ----------
    tree : fitted tree estimator or its ``tree_``

    Returns
    -------
    ndarray of int64, shape (n_splits,)
    """
    return _tree_of(tree).split_order()


@dataclass
class PrunedTree:
    """A copy of a fitted tree cut back to its first ``k`` splits.

    Attributes
    ----------
    estimator : fitted tree estimator
        Predicts like the original tree stopped after ``k`` splits.
    kept : ndarray of int, shape (n_kept,)
        Original id of every node of the copy (``kept[new_id] = old_id``).
    k : int
        Number of splits kept.
    newest : int or None
        Original id of the last split kept (the newest one), None for k = 0.
    """

    estimator: object
    kept: np.ndarray
    k: int
    newest: int | None

    def to_new(self, node: int) -> int | None:
        """Id in the copy of original node ``node`` (None if it was cut away)."""
        hits = np.flatnonzero(self.kept == int(node))
        return int(hits[0]) if len(hits) else None

    def to_old(self, node: int) -> int:
        """Original id of node ``node`` of the copy."""
        return int(self.kept[int(node)])

    def restyle(self, styles: dict) -> dict:
        """Styles keyed by original ids -> keyed by the copy's ids (cut-away nodes dropped)."""
        out = {}
        for node, style in styles.items():
            new = self.to_new(node)
            if new is not None:
                out[new] = style
        return out


def _pruned_arrays(tree: Tree, k: int) -> tuple[dict, np.ndarray]:
    """The node arrays of ``tree`` stopped after its first ``k`` splits, and the kept original ids."""
    order = tree.split_order()
    keep_split = np.zeros(tree.node_count, dtype=bool)
    keep_split[order[:k]] = True
    # A node survives when all its ancestors are kept splits; ancestors have smaller
    # ids (depth-first numbering), so one forward pass decides every node.
    parents = tree.parents()
    alive = np.zeros(tree.node_count, dtype=bool)
    alive[0] = True
    for node in range(1, tree.node_count):
        alive[node] = alive[parents[node]] and keep_split[parents[node]]
    kept = np.flatnonzero(alive)
    new_id = np.full(tree.node_count, -1, dtype=np.int64)
    new_id[kept] = np.arange(len(kept))
    arrays = {name: np.array(values)[kept] for name, values in tree.to_arrays().items()}
    split = keep_split[kept]
    arrays["children_left"] = np.where(split, new_id[np.asarray(tree.children_left)[kept]], -1)
    arrays["children_right"] = np.where(split, new_id[np.asarray(tree.children_right)[kept]], -1)
    arrays["feature"] = np.where(split, arrays["feature"], -1)
    arrays["threshold"] = np.where(split, arrays["threshold"], np.nan)
    arrays["normal"] = np.where(split[:, None], arrays["normal"], 0.0)
    arrays["margin"] = np.where(split, arrays["margin"], np.nan)
    arrays["improvement"] = np.where(split, arrays["improvement"], 0.0)
    return arrays, kept


def first_splits(estimator, k: int) -> PrunedTree:
    """The tree after its first ``k`` splits.

    Parameters
    ----------
    estimator : fitted ProductDecisionTreeClassifier or ProductDecisionTreeRegressor
    k : int
        Number of splits to keep, clipped to ``[0, number of splits]``.

    Returns
    -------
    PrunedTree
        Node values are the training statistics the node had when it was a leaf
        candidate (class fractions or mean target), exactly what a tree stopped at
        that point would predict. The copy shares the estimator's parameters and
        fitted attributes; only its ``tree_`` differs.
    """
    tree = estimator.tree_
    order = tree.split_order()
    k = int(np.clip(k, 0, len(order)))
    arrays, kept = _pruned_arrays(tree, k)
    pruned = copy.copy(estimator)
    pruned.tree_ = Tree(tree.features, arrays, tree.n_outputs)
    newest = int(order[k - 1]) if k > 0 else None
    return PrunedTree(pruned, kept, k, newest)


def tree_regressor(tree: Tree, *, signature, split_features, n_features_in: int, params: dict):
    """A bare fitted :class:`Tree` as a fitted :class:`ProductDecisionTreeRegressor`.

    Its ``predict`` is the tree's first output at each row's leaf; ``apply`` and
    ``decision_path`` route through the tree's own boundaries. Nothing is copied.

    Parameters
    ----------
    tree : Tree
        Grown on ``split_features`` (one output).
    signature : Signature
    split_features : SplitFeatures
    n_features_in : int
    params : dict
        Constructor parameters of the regressor (``signature`` is set from ``signature``).

    Returns
    -------
    ProductDecisionTreeRegressor
    """
    from ._classes import ProductDecisionTreeRegressor  # _classes imports kernels, which exports this

    if tree.n_outputs != 1:
        raise ValueError(f"a regression tree has one output, this tree has {tree.n_outputs}")
    estimator = ProductDecisionTreeRegressor(signature=str(signature), **params)
    # The fitted attributes ProductDecisionTreeRegressor.fit sets.
    estimator.tree_ = tree
    estimator.signature_ = signature
    estimator.split_features_ = split_features
    estimator.n_features_in_ = int(n_features_in)
    estimator.max_features_ = split_features.n_features
    return estimator
