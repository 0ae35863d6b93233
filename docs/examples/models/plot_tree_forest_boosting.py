"""
Tree, forest and boosting on four signatures
============================================

The three product-space model families on the same data: one
:class:`~curvedtrees.trees.ProductDecisionTreeClassifier`, a
:class:`~curvedtrees.trees.ProductRandomForestClassifier` and a
:class:`~curvedtrees.boosting.ProductGradientBoostingClassifier`, each scored by
3-fold cross-validation on Gaussian mixtures (the mixed-curvature paper's
benchmark data) on four signatures.
"""

import curvedtrees as ct
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from curvedtrees.viz import RegionDisplay
from sklearn.model_selection import cross_val_score

signatures = ["H2", "S2", "H2 x S2", "H2 x S2 x E2"]
models = {
    "tree (depth 5)": lambda sig: ct.ProductDecisionTreeClassifier(signature=sig, max_depth=5, random_state=0),
    "forest (20 trees)": lambda sig: ct.ProductRandomForestClassifier(20, signature=sig, max_depth=8, random_state=0),
    "boosting (40 iterations)": lambda sig: ct.ProductGradientBoostingClassifier(
        signature=sig, max_iter=40, learning_rate=0.15, random_state=0
    ),
}

rows = []
for signature in signatures:
    X, y = ct.make_classification(signature, n_samples=600, n_classes=4, random_state=0)
    for name, make in models.items():
        scores = cross_val_score(make(signature), X, y, cv=3)
        rows.append({"signature": signature, "model": name, "mean": scores.mean(), "std": scores.std()})
table = pd.DataFrame(rows)
table.pivot(index="signature", columns="model", values="mean").loc[signatures].round(3)

# %%
# The same numbers as bars, with the spread over the three folds.
fig, ax = plt.subplots(figsize=(7, 3.5), layout="constrained")
width = 0.26
for k, name in enumerate(models):
    part = table[table.model == name].set_index("signature").loc[signatures]
    ax.bar(np.arange(len(signatures)) + (k - 1) * width, part["mean"], width, yerr=part["std"], label=name)
ax.set_xticks(np.arange(len(signatures)), signatures)
ax.set_ylabel("3-fold accuracy")
ax.set_ylim(0, 1)
ax.legend(loc="lower left", fontsize="small")
plt.show()

# %%
# What the three learn on ``H2``: the regions of each, fitted on the same 600 points,
# one :class:`~curvedtrees.viz.RegionDisplay` call each. The tree's regions are
# polygons of geodesics; the forest averages many such trees into softer, rounder
# regions; boosting adds up small trees of raw scores.
X, y = ct.make_classification("H2", n_samples=600, n_classes=4, random_state=0)
fitted = {name: make("H2").fit(X, y) for name, make in models.items()}
RegionDisplay.from_estimator(fitted["tree (depth 5)"], X, y, title="tree (depth 5)", boundaries=False)

# %%
RegionDisplay.from_estimator(fitted["forest (20 trees)"], X, y, title="forest (20 trees)")

# %%
RegionDisplay.from_estimator(fitted["boosting (40 iterations)"], X, y, title="boosting (40 iterations)")
