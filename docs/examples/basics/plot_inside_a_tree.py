"""
Inside a fitted tree: splits, margins and paths
===============================================

A fitted product tree keeps scikit-learn's layout: parallel node arrays in
``tree_`` (node 0 the root, ``-1`` for a leaf's children), plus what a product split
needs: the component, the coordinate pair ``(i, j)`` of its plane, the unit normal of
the boundary line in that plane, and the geodesic margin. ``export_text`` and
``describe_split`` put them in words; ``apply`` and ``decision_path`` route rows.
"""

import curvedtrees as ct
import matplotlib.pyplot as plt
import numpy as np
from curvedtrees.trees import describe_split, export_text
from curvedtrees.viz import RegionDisplay, TreeDisplay

signature = "H2 x S1 x E1"
X, y = ct.make_classification(signature, n_samples=500, n_classes=3, random_state=0)
tree = ct.ProductDecisionTreeClassifier(signature=signature, pairs="all", max_depth=3, random_state=0).fit(X, y)
print(export_text(tree))

# %%
# The same tree as a diagram: each split names its component, each leaf its class; hover
# a node for the split in words, its rows and its class distribution.
TreeDisplay.from_estimator(tree)

# %%
# Its regions on the ``H2`` component with every split boundary: geodesics of the
# Poincaré disk, each cut to the part that reaches its node (the other components are
# held at the data's mean).
RegionDisplay.from_estimator(tree, X, y, component=0)

# %%
# One node in a sentence, and the same numbers from the arrays.
print(describe_split(tree, 0))
arrays = tree.tree_
print(
    "component",
    arrays.component[0],
    "| plane",
    arrays.coords[0],
    "| normal",
    np.round(arrays.normal[0], 4),
    "| margin",
    round(float(arrays.margin[0]), 4),
)

# %%
# The candidate planes of this signature under ``pairs="all"``: for ``H2`` the
# timelike pairs (thresholds on the Klein coordinates ``x_j / x0``) and the
# spacelike pair; for ``S1`` its one plane, a line through the circle's centre in any
# direction; for ``E1`` the lift (a plain threshold).
print(tree.split_features_.names())

# %%
# The path of one row from the root to its leaf.
row = X[:1]
path = tree.decision_path(row).indices
print("nodes visited:", path.tolist(), "-> leaf", int(tree.apply(row)[0]))

# %%
# Every split's margin: the geodesic distance from its boundary to the nearest
# training row that reached it, by depth.
internal = arrays.children_left >= 0
depth = np.zeros(arrays.node_count, dtype=int)
for node in range(arrays.node_count):
    for child in (arrays.children_left[node], arrays.children_right[node]):
        if child >= 0:
            depth[child] = depth[node] + 1
fig, ax = plt.subplots(figsize=(5, 3), layout="constrained")
names = [str(c) for c in tree.signature_.components]
for c, name in enumerate(names):
    chosen = internal & (arrays.component == c)
    ax.scatter(depth[chosen], arrays.margin[chosen], label=name, s=40)
ax.set_xlabel("depth of the split")
ax.set_ylabel("geodesic margin")
ax.legend(title="component")
plt.show()
