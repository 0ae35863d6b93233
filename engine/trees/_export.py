"""Plain-text description of a fitted product tree, one line per node."""

from __future__ import annotations

import numpy as np
from sklearn.utils.validation import check_is_fitted

from ..manifolds.shared import check_int

__all__ = ["describe_split", "export_text"]


def describe_split(estimator, node: int, decimals: int = 3, *, feature_names=None, class_names=None) -> str:
    """One sentence describing node ``node`` of a fitted product tree.

    Examples: ``"node 3: component H2, plane (x0, x2), Klein threshold x2/x0 <= -0.410,
    margin 0.12, 214 samples"``, ``"node 7: leaf, class 2 (p=0.930), 41 samples"``, and for
    the radial splits of ``splits="geodesic+radial"``, in the geometry's own units (the
    left side's rule): ``"node 1: component H2, radial, distance from origin <= 1.23 (x0 <=
    1.86), margin 0.05, 90 samples"`` or ``"... radial, angle from +x2 >= 0.8 rad (x2 <=
    0.697) ..."``.

    Parameters
    ----------
    estimator : fitted ProductDecisionTreeClassifier or ProductDecisionTreeRegressor
    node : int
        Node id in ``estimator.tree_``.
    decimals : int, default=3
        Digits after the point of thresholds, normals and probabilities (significant
        digits of margins, E thresholds and regression values).
    feature_names : sequence of str of length n_features_in_, optional
        Names of the input columns; a plane is then named by its columns' names
        instead of the component's local coordinates ``x0, x1, ...``.
    class_names : sequence of str of length n_classes_, optional
        Names of the classes in the order of ``classes_`` (classifiers only).
    """
    check_is_fitted(estimator, "tree_")
    feature_names = _check_feature_names(estimator, feature_names)
    class_names = _check_class_names(estimator, class_names)
    return _describe(estimator, int(node), int(decimals), feature_names, class_names)


def _describe(estimator, node, decimals, feature_names, class_names, show_weights=False) -> str:
    tree = estimator.tree_
    samples = int(tree.n_node_samples[node])
    if tree.children_left[node] == -1:
        weights = ""
        if show_weights:
            mass = float(tree.weighted_n_node_samples[node])
            if hasattr(estimator, "classes_"):
                shown = ", ".join(f"{w:.{decimals}f}" for w in tree.value[node] * mass)
                weights = f", weights [{shown}]"
            else:
                weights = f", weight {mass:.{decimals}f}"
        if hasattr(estimator, "classes_"):
            k = int(np.argmax(tree.value[node]))
            label = class_names[k] if class_names is not None else estimator.classes_[k]
            p = tree.value[node, k]
            return f"node {node}: leaf, class {label} (p={p:.{decimals}f}), {samples} samples{weights}"
        return f"node {node}: leaf, value {tree.value[node, 0]:.{decimals}g}, {samples} samples{weights}"
    comp = estimator.signature_.components[tree.component[node]]
    i, j = (int(c) for c in tree.coords[node])

    def name(local: int) -> str:
        return f"x{local}" if feature_names is None else feature_names[comp.start + local]

    first = "1" if i == -1 else name(i)
    where = f"component {comp.name}" + (f" (#{comp.index})" if _ambiguous(estimator, comp.name) else "")
    if getattr(tree, "radial", None) is not None and tree.radial[node]:
        rule = radial_rule(comp.kind, comp.radius, j, float(tree.threshold[node]), decimals, name=name(j))
        return f"node {node}: {where}, radial, {rule}, margin {tree.margin[node]:.{decimals}g}, {samples} samples"
    if tree.linear[node]:
        if comp.kind == "H":
            rule = f"Klein threshold {name(j)}/{name(0)} <= {tree.threshold[node]:.{decimals}f}"
        else:
            rule = f"threshold {name(j)} <= {tree.threshold[node]:.{decimals}g}"
    else:
        n_i, n_j = tree.normal[node]
        angle = np.degrees(np.arctan2(-n_i, n_j)) % 180.0
        rule = f"line at {angle:.1f} deg, normal ({n_i:.{decimals}f}, {n_j:.{decimals}f})"
    return (
        f"node {node}: {where}, plane ({first}, {name(j)}), {rule}, margin {tree.margin[node]:.{decimals}g}, "
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


def radial_rule(kind: str, radius: float, j: int, threshold: float, decimals: int = 3, *, name=None) -> str:
    """The left side of a radial split in words, e.g. ``"distance from origin <= 1.23 (x0 <= 1.86)"``.

    ``name`` is how to call the coordinate ``x_j`` (default ``"x{j}"``; export_text passes
    the column's name when given ``feature_names``).
    """
    value = radial_distance(kind, radius, threshold)
    column = f"x{j}" if name is None else name
    if kind == "H":
        return f"distance from origin <= {value:.{decimals}g} ({column} <= {threshold:.{decimals}g})"
    # x_k <= t is the set of points at least theta_t from the pole +e_k.
    return f"angle from +{column} >= {value:.{decimals}g} rad ({column} <= {threshold:.{decimals}g})"


def _ambiguous(estimator, name: str) -> bool:
    return sum(c.name == name for c in estimator.signature_.components) > 1


def _check_feature_names(estimator, feature_names):
    if feature_names is None:
        return None
    if isinstance(feature_names, str):
        raise ValueError("feature_names must be a sequence of column names, not one string")
    names = [str(n) for n in feature_names]
    if len(names) != estimator.n_features_in_:
        raise ValueError(
            f"feature_names has {len(names)} names, but the tree was fitted on {estimator.n_features_in_} columns "
            f"(signature '{estimator.signature_}')"
        )
    return names


def _check_class_names(estimator, class_names):
    if class_names is None:
        return None
    if not hasattr(estimator, "classes_"):
        raise ValueError("class_names applies to classifiers only; this tree is a regressor")
    if isinstance(class_names, str):
        raise ValueError("class_names must be a sequence of class names, not one string")
    names = [str(n) for n in class_names]
    if len(names) != len(estimator.classes_):
        raise ValueError(
            f"class_names has {len(names)} names, but the tree has {len(estimator.classes_)} classes "
            f"({', '.join(str(c) for c in estimator.classes_[:10])}{', ...' if len(estimator.classes_) > 10 else ''})"
        )
    return names


def export_text(
    decision_tree,
    *,
    feature_names=None,
    class_names=None,
    max_depth=10,
    spacing=3,
    decimals=3,
    show_weights=False,
) -> str:
    """Describe the nodes of a fitted product tree, indented by depth.

    scikit-learn's :func:`sklearn.tree.export_text`, with each node described by
    :func:`describe_split` (component, plane, boundary, margin, samples).

    Parameters
    ----------
    decision_tree : ProductDecisionTreeClassifier or ProductDecisionTreeRegressor
        A fitted tree (a forest's trees are its ``estimators_``; a boosting model's
        ``tree_estimator(i)``).
    feature_names : sequence of str of length n_features_in_, optional
        Names of the input columns (for example ``decision_tree.feature_names_in_``);
        planes are named by them instead of the component's ``x0, x1, ...``.
    class_names : sequence of str of length n_classes_, optional
        Names of the classes in the order of ``classes_`` (classifiers only).
    max_depth : int, default=10
        Nodes below this depth are not shown; each cut subtree is one line
        ``truncated branch of depth d``.
    spacing : int, default=3
        Width of one level of indentation after its ``|``.
    decimals : int, default=3
        Digits of the numbers (see :func:`describe_split`).
    show_weights : bool, default=False
        Add each leaf's weighted samples (per class for a classifier).

    Returns
    -------
    str
        One line per node in depth-first order; a left child holds the rows with
        ``normal . (x_i, x_j) <= 0`` (for linear planes: ``x_j / x_i <= threshold``; for
        radial splits the rule shown).

    Raises
    ------
    ValueError
        A name list of the wrong length or a negative ``max_depth``, ``decimals`` or
        a ``spacing`` below 1.
    TypeError
        An ensemble instead of one tree.

    Examples
    --------
    >>> from curvedtrees import ProductDecisionTreeClassifier, make_classification
    >>> from curvedtrees.trees import export_text
    >>> X, y = make_classification("H2 x E1", n_samples=200, random_state=0)
    >>> tree = ProductDecisionTreeClassifier(signature="H2 x E1", max_depth=2).fit(X, y)
    >>> names = ["t", "u", "v", "w"]
    >>> print(export_text(tree, feature_names=names, max_depth=0).splitlines()[1])
    |   left: truncated branch of depth 1
    """
    ensemble = hasattr(decision_tree, "estimators_") or hasattr(decision_tree, "trees_")
    if ensemble and not hasattr(decision_tree, "tree_"):
        raise TypeError(
            f"export_text describes one tree, got the ensemble {type(decision_tree).__name__}; pass one of its "
            "trees (a forest's estimators_[i], a boosting model's tree_estimator(i))"
        )
    check_is_fitted(decision_tree, "tree_")
    feature_names = _check_feature_names(decision_tree, feature_names)
    class_names = _check_class_names(decision_tree, class_names)
    max_depth = check_int(max_depth, "max_depth", 0)
    spacing = check_int(spacing, "spacing", 1)
    decimals = check_int(decimals, "decimals", 0)
    indent = "|" + " " * spacing
    tree = decision_tree.tree_
    lines = []
    stack = [(0, 0, "")]
    while stack:
        node, depth, side = stack.pop()
        prefix = indent * depth + side
        if depth > max_depth:
            lines.append(f"{prefix}truncated branch of depth {_subtree_depth(tree, node)}")
            continue
        lines.append(prefix + _describe(decision_tree, node, decimals, feature_names, class_names, bool(show_weights)))
        if tree.children_left[node] != -1:
            stack.append((int(tree.children_right[node]), depth + 1, "right: "))
            stack.append((int(tree.children_left[node]), depth + 1, "left: "))
    return "\n".join(lines)


def _subtree_depth(tree, node: int) -> int:
    """Depth of the subtree under ``node`` (a leaf: 0)."""
    deepest = 0
    stack = [(node, 0)]
    while stack:
        v, d = stack.pop()
        deepest = max(deepest, d)
        if tree.children_left[v] != -1:
            stack.extend(((int(tree.children_left[v]), d + 1), (int(tree.children_right[v]), d + 1)))
    return deepest
