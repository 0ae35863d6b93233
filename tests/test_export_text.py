"""export_text with scikit-learn's parameters: names, depth, spacing, weights, validation."""

import re

import numpy as np
import pytest
from curvedtrees import make_classification
from curvedtrees.trees import (
    ProductDecisionTreeClassifier,
    ProductDecisionTreeRegressor,
    ProductRandomForestClassifier,
    describe_split,
    export_text,
)

SIGNATURE = "H2 x S2 x E2"
NAMES = ["h0", "h1", "h2", "s0", "s1", "s2", "e0", "e1"]


@pytest.fixture(scope="module")
def fitted():
    X, y = make_classification(SIGNATURE, n_samples=300, n_classes=3, random_state=0)
    tree = ProductDecisionTreeClassifier(signature=SIGNATURE, max_depth=5, random_state=0).fit(X, y)
    return X, y, tree


def test_default_text_describes_every_node(fitted):
    _, _, tree = fitted
    lines = export_text(tree).splitlines()
    assert len(lines) == tree.tree_.node_count
    assert lines[0].startswith("node 0: component ")


def test_feature_names_name_the_plane_columns(fitted):
    _, _, tree = fitted
    text = export_text(tree, feature_names=NAMES)
    for node in np.flatnonzero(tree.tree_.children_left != -1):
        comp = tree.signature_.components[tree.tree_.component[node]]
        j = int(tree.tree_.coords[node][1])
        assert f"{NAMES[comp.start + j]})" in describe_split(tree, int(node), feature_names=NAMES)
    assert not re.search(r"\bx\d\b", text), "local names left although feature_names were given"


def test_class_names_replace_the_labels(fitted):
    _, _, tree = fitted
    text = export_text(tree, class_names=["red", "green", "blue"])
    leaves = [line for line in text.splitlines() if "leaf" in line]
    assert leaves and all(re.search(r"class (red|green|blue) ", line) for line in leaves)


def test_max_depth_truncates_with_the_subtree_depth(fitted):
    _, _, tree = fitted
    lines = export_text(tree, max_depth=1).splitlines()
    shown = [line for line in lines if "truncated" not in line]
    cut = [line for line in lines if "truncated" in line]
    assert len(shown) < tree.tree_.node_count and cut
    # Depth 0 and 1 shown; the depth-2 children are the cut lines, two levels indented.
    assert all(line.startswith("|   |   ") for line in cut)
    depths = sorted(int(line.rsplit(" ", 1)[1]) for line in cut)
    assert depths[-1] == tree.get_depth() - 2
    assert export_text(tree, max_depth=0).splitlines()[0].startswith("node 0:")


def test_spacing_and_decimals(fitted):
    _, _, tree = fitted
    lines = export_text(tree, spacing=1, decimals=1).splitlines()
    assert lines[1].startswith("| left: ")
    assert re.search(r"<= -?\d+\.\d(,| )|normal \(-?\d\.\d, -?\d\.\d\)", lines[0])


def test_show_weights_adds_the_weighted_class_counts(fitted):
    X, _, tree = fitted
    text = export_text(tree, show_weights=True)
    weights = [list(map(float, m.split(", "))) for m in re.findall(r"weights \[([^\]]*)\]", text)]
    assert len(weights) == tree.get_n_leaves()
    assert sum(sum(w) for w in weights) == pytest.approx(len(X), abs=0.01 * len(weights))


def test_regressor_and_weights():
    X, y = make_classification("E2", n_samples=100, random_state=1)
    tree = ProductDecisionTreeRegressor(signature="E2", max_depth=2).fit(X, y.astype(float))
    text = export_text(tree, show_weights=True, feature_names=["a", "b"])
    assert "value " in text and "weight " in text
    assert re.search(r"threshold [ab] <=", text)
    with pytest.raises(ValueError, match="classifiers only"):
        export_text(tree, class_names=["x", "y"])


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"feature_names": NAMES[:-1]}, "feature_names has 7 names, but the tree was fitted on 8 columns"),
        ({"feature_names": "h0"}, "not one string"),
        ({"class_names": ["a", "b"]}, "class_names has 2 names, but the tree has 3 classes"),
        ({"max_depth": -1}, "max_depth must be an integer >= 0"),
        ({"max_depth": 2.5}, "max_depth must be an integer >= 0"),
        ({"spacing": 0}, "spacing must be an integer >= 1"),
        ({"decimals": True}, "decimals must be an integer >= 0"),
    ],
)
def test_bad_parameters_are_named(fitted, kwargs, message):
    _, _, tree = fitted
    with pytest.raises(ValueError, match=re.escape(message)):
        export_text(tree, **kwargs)


def test_an_ensemble_is_refused_with_what_to_pass(fitted):
    X, y, _ = fitted
    forest = ProductRandomForestClassifier(2, signature=SIGNATURE, max_depth=2, random_state=0).fit(X, y)
    with pytest.raises(TypeError, match=r"estimators_\[i\]"):
        export_text(forest)
    assert export_text(forest.estimators_[0]).startswith("node 0")
