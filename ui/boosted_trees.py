"""The trees inside a product gradient-boosting model, as estimators the tree pictures draw.

A boosting model (:mod:`curvedtrees.boosting`) keeps ``trees_``: ``n_iter_`` iterations of
``n_trees_per_iteration_`` bare :class:`curvedtrees.trees.Tree` arrays (one tree per class
for three or more classes, otherwise one). The tree diagram, the replay and the boundary
pictures (:mod:`curvedtrees.viz`) take a fitted product-tree *estimator*, so
:func:`iteration_tree` wraps one of them in a :class:`ProductDecisionTreeRegressor`: each
boosted tree is a regression tree whose leaf values are that tree's contribution to the
raw score (learning rate included), so a regressor's ``predict`` is exactly that
contribution. Trees are numbered flat, ``index = iteration * n_trees_per_iteration_ + k``,
so a single integer picks one, as for a forest's ``estimators_``.

Pure module (no Streamlit).
"""

from __future__ import annotations

import numpy as np

__all__ = ["boosting_summary", "is_boosted", "iteration_tree", "split_index", "tree_count", "tree_label"]


def is_boosted(estimator) -> bool:
    """Whether ``estimator`` is a fitted product gradient-boosting model."""
    return hasattr(estimator, "trees_") and hasattr(estimator, "n_trees_per_iteration_")


def tree_count(estimator) -> int:
    """Number of trees of a fitted boosting model (iterations times trees per iteration)."""
    return int(estimator.n_iter_) * int(estimator.n_trees_per_iteration_)


def split_index(estimator, index: int) -> tuple[int, int]:
    """``(iteration, k)`` of flat tree number ``index``, clipped to the model's trees."""
    index = int(np.clip(int(index), 0, tree_count(estimator) - 1))
    return divmod(index, int(estimator.n_trees_per_iteration_))


def iteration_tree(estimator, index: int = 0):
    """Tree number ``index`` (see :func:`split_index`) as a fitted product regression tree.

    Parameters
    ----------
    estimator : fitted ProductGradientBoostingClassifier or ProductGradientBoostingRegressor
    index : int
        Flat tree number, clipped to ``[0, tree_count(estimator) - 1]``.

    Returns
    -------
    ProductDecisionTreeRegressor
        Shares the model's node arrays (nothing is copied); ``predict`` gives the tree's
        contribution to the raw score of its class, ``apply`` and ``decision_path`` route
        rows through the same stored boundaries as the model.
    """
    from curvedtrees.trees import ProductDecisionTreeRegressor

    iteration, k = split_index(estimator, index)
    tree = ProductDecisionTreeRegressor(
        signature=str(estimator.signature_),
        pairs=estimator.pairs,
        max_depth=estimator.max_depth,
        min_samples_leaf=estimator.min_samples_leaf,
    )
    # The fitted attributes a product tree's fit sets, taken from the model that grew this tree.
    tree.tree_ = estimator.trees_[iteration][k]
    tree.signature_ = estimator.signature_
    tree.split_features_ = estimator.split_features_
    tree.n_features_in_ = estimator.n_features_in_
    tree.max_features_ = estimator.split_features_.n_features
    return tree


def tree_label(estimator, index: int, class_names=None) -> str:
    """What a picker shows for flat tree number ``index``, e.g. ``Tree of iteration 3 (class 'b')``.

    ``class_names`` (in the order of ``estimator.classes_``) replaces the raw labels.
    """
    iteration, k = split_index(estimator, index)
    text = f"Tree of iteration {iteration}"
    if int(estimator.n_trees_per_iteration_) > 1:
        name = class_names[k] if class_names is not None else estimator.classes_[k]
        text += f" (class '{name}')"
    return text


def boosting_summary(estimator) -> str:
    """One sentence on a fitted boosting model's size and whether early stopping ended it."""
    n_iter, per = int(estimator.n_iter_), int(estimator.n_trees_per_iteration_)
    text = f"{n_iter} boosting iterations, {n_iter * per} trees"
    if per > 1:
        text += f" (one per class and iteration, {per} classes)"
    if n_iter < int(estimator.max_iter):
        text += f"; early stopping ended training before max_iter = {int(estimator.max_iter)}"
    return text + "."
