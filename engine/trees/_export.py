"""Plain-text description of a fitted product tree, one line per node."""

from __future__ import annotations

import numpy as np
from sklearn.utils.validation import check_is_fitted

__all__ = ["describe_split", "export_text"]


def describe_split(estimator, node: int, decimals: int = 3) -> str:
    """One sentence describing node ``node`` of a fitted product tree.

    Examples: ``"node 3: component H2, plane (x0, x2), Klein threshold -0.41,
    margin 0.12, 214 samples"`` or ``"node 7: leaf, class 2 (p=0.93), 41 samples"``.
    """
    check_is_fitted(estimator, "tree_")
    tree = estimator.tree_
    samples = int(tree.n_node_samples[node])
    if tree.children_left[node] == -1:
        if hasattr(estimator, "classes_"):
            k = int(np.argmax(tree.value[node]))
            return (
                f"node {node}: leaf, class {estimator.classes_[k]} (p={tree.value[node, k]:.{decimals}f}), "
                f"{samples} samples"
            )
        return f"node {node}: leaf, value {tree.value[node, 0]:.{decimals}g}, {samples} samples"
    comp = estimator.signature_.components[tree.component[node]]
    i, j = (int(c) for c in tree.coords[node])
    first = "1" if i == -1 else f"x{i}"
    where = f"component {comp.name}" + (f" (#{comp.index})" if _ambiguous(estimator, comp.name) else "")
    if tree.linear[node]:
        if comp.kind == "H":
            rule = f"Klein threshold x{j}/x0 <= {tree.threshold[node]:.{decimals}f}"
        else:
            rule = f"threshold x{j} <= {tree.threshold[node]:.{decimals}g}"
    else:
        n_i, n_j = tree.normal[node]
        angle = np.degrees(np.arctan2(-n_i, n_j)) % 180.0
        rule = f"line at {angle:.1f} deg, normal ({n_i:.{decimals}f}, {n_j:.{decimals}f})"
    return (
        f"node {node}: {where}, plane ({first}, x{j}), {rule}, margin {tree.margin[node]:.{decimals}g}, "
        f"{samples} samples"
    )


def _ambiguous(estimator, name: str) -> bool:
    return sum(c.name == name for c in estimator.signature_.components) > 1


def export_text(estimator, decimals: int = 3) -> str:
    """Describe every node of a fitted product tree, indented by depth.

    Parameters
    ----------
    estimator : ProductDecisionTreeClassifier or ProductDecisionTreeRegressor
    decimals : int, default=3

    Returns
    -------
    str
        One line per node in depth-first order; a left child holds the rows with
        ``normal . (x_i, x_j) <= 0`` (for linear planes: ``x_j / x_i <= threshold``).
    """
    check_is_fitted(estimator, "tree_")
    tree = estimator.tree_
    lines = []
    stack = [(0, 0, "")]
    while stack:
        node, depth, side = stack.pop()
        lines.append("|   " * depth + side + describe_split(estimator, node, decimals))
        if tree.children_left[node] != -1:
            stack.append((int(tree.children_right[node]), depth + 1, "right: "))
            stack.append((int(tree.children_left[node]), depth + 1, "left: "))
    return "\n".join(lines)
