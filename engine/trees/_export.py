"""Plain-text description of a fitted product tree, one line per node."""

from __future__ import annotations

import numpy as np
from sklearn.utils.validation import check_is_fitted

__all__ = ["describe_split", "export_text"]


def describe_split(estimator, node: int, decimals: int = 3) -> str:
    """One sentence describing node ``node`` of a fitted product tree.

    Examples: ``"node 3: component H2, plane (x0, x2), Klein threshold -0.41,
    margin 0.12, 214 samples"``, ``"node 7: leaf, class 2 (p=0.93), 41 samples"``, and for
    the radial splits of ``splits="geodesic+radial"``, in the geometry's own units (the
    left side's rule): ``"node 1: component H2, radial, distance from origin <= 1.23 (x0 <=
    1.86), margin 0.05, 90 samples"`` or ``"... radial, angle from +x2 >= 0.8 rad (x2 <=
    0.697) ..."``.
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
    if getattr(tree, "radial", None) is not None and tree.radial[node]:
        rule = radial_rule(comp.kind, comp.radius, j, float(tree.threshold[node]), decimals)
        return f"node {node}: {where}, radial, {rule}, margin {tree.margin[node]:.{decimals}g}, {samples} samples"
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


def radial_distance(kind: str, radius: float, threshold: float) -> float:
    """The geodesic radius of a radial threshold: distance from the origin (H), angle from +x_k (S).

    ``kind`` is ``"H"`` or ``"S"``; the result is ``R arccosh(t / R)`` or ``arccos(t / R)``
    (radians), with the ratio clamped to the coordinate's range as the builder does.
    """
    ratio = threshold / radius
    if kind == "H":
        return float(radius * np.arccosh(max(ratio, 1.0)))  # x0 >= R up to rounding
    return float(np.arccos(min(max(ratio, -1.0), 1.0)))  # |x_k| <= R up to rounding


def radial_rule(kind: str, radius: float, j: int, threshold: float, decimals: int = 3) -> str:
    """The left side of a radial split in words, e.g. ``"distance from origin <= 1.23 (x0 <= 1.86)"``."""
    value = radial_distance(kind, radius, threshold)
    if kind == "H":
        return f"distance from origin <= {value:.{decimals}g} (x0 <= {threshold:.{decimals}g})"
    # x_k <= t is the set of points at least theta_t from the pole +e_k.
    return f"angle from +x{j} >= {value:.{decimals}g} rad (x{j} <= {threshold:.{decimals}g})"


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
        ``normal . (x_i, x_j) <= 0`` (for linear planes: ``x_j / x_i <= threshold``; for
        radial splits the rule shown).
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
