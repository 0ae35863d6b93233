"""The trees inside a product gradient-boosting model, as estimators the tree pictures draw.

A boosting model (:mod:`curvedtrees.boosting`) keeps ``trees_``: ``n_iter_`` iterations of
``n_trees_per_iteration_`` bare :class:`curvedtrees.trees.Tree` arrays (one tree per class
for three or more classes, otherwise one). The tree diagram, the replay and the boundary
pictures (:mod:`curvedtrees.viz`) take a fitted product-tree *estimator*; the model hands
each tree out as one (``tree_estimator``, a :class:`ProductDecisionTreeRegressor` whose
leaf values are that tree's contribution to the raw score, learning rate included, so its
``predict`` is exactly that contribution). Trees are numbered flat,
``index = iteration * n_trees_per_iteration_ + k``, so a single integer picks one, as for
a forest's ``estimators_``; :func:`iteration_tree` clips the number as a page's index is.

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
        The model's own ``tree_estimator``: shares the model's node arrays (nothing is
        copied); ``predict`` gives the tree's contribution to the raw score of its class,
        ``apply`` and ``decision_path`` route rows through the same stored boundaries as
        the model.
    """
    iteration, k = split_index(estimator, index)
    return estimator.tree_estimator(iteration * int(estimator.n_trees_per_iteration_) + k)


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
