"""
Saving and loading models safely
================================

:func:`curvedtrees.dumps` writes a fitted estimator as a versioned JSON document and
:func:`curvedtrees.loads` rebuilds it with identical predictions. No pickle is
involved: a model file is data, and ``loads`` checks every field before it builds
anything, so a file from a stranger can be read.
"""

import json

import curvedtrees as ct
import matplotlib.pyplot as plt
import numpy as np

signature = "H2 x S2 x E2"
X, y = ct.make_classification(signature, n_samples=600, random_state=0)
forest = ct.ProductRandomForestClassifier(20, signature=signature, max_depth=6, random_state=0).fit(X, y)

text = ct.dumps(forest)
same = ct.loads(text)
print(
    f"{len(text) / 1024:.0f} KiB of JSON; identical predictions:",
    np.array_equal(same.predict_proba(X), forest.predict_proba(X)),
)
document = json.loads(text)
print({key: document[key] for key in ("format", "version", "estimator")})

# %%
# A damaged or hostile document is refused with a message that names the field. Here a
# node's child index points outside the tree.
tampered = json.loads(text)
fitted = tampered["fitted"]
print(sorted(fitted)[:8])


def first_tree_arrays(node):
    """The first dict under ``node`` that holds a tree's ``children_left`` array."""
    if isinstance(node, dict):
        if "children_left" in node:
            return node
        children = node.values()
    elif isinstance(node, list):
        children = node
    else:
        return None
    for child in children:
        found = first_tree_arrays(child)
        if found is not None:
            return found
    return None


tree_arrays = first_tree_arrays(fitted)
tree_arrays["children_left"]["data"][0] = 10**6
try:
    ct.loads(json.dumps(tampered))
except ValueError as error:
    print("refused:", error)

# %%
# The document grows with the number of nodes. Every estimator family has a
# document: product trees, forests, boosting, Klein wrappers (with the wrapped
# library's own model format inside) and the baselines.
sizes = {}
for n_estimators in (1, 5, 10, 20, 40):
    model = ct.ProductRandomForestClassifier(n_estimators, signature=signature, max_depth=6, random_state=0)
    sizes[n_estimators] = len(ct.dumps(model.fit(X, y))) / 1024
boosted = ct.ProductGradientBoostingClassifier(signature=signature, max_iter=30, random_state=0).fit(X, y)
print(f"boosting, 30 iterations x {boosted.n_trees_per_iteration_} trees: {len(ct.dumps(boosted)) / 1024:.0f} KiB")

fig, ax = plt.subplots(figsize=(5, 3), layout="constrained")
ax.plot(list(sizes), list(sizes.values()), "o-")
ax.set_xlabel("trees in the forest (depth 6)")
ax.set_ylabel("model document (KiB)")
plt.show()
