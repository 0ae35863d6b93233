"""
Inspection: importances per column, per component, and by permutation
======================================================================

scikit-learn's inspection tools work with the product estimators.
``feature_importances_`` has one entry per input column, so it pairs with the column
names of a DataFrame and drives ``SelectFromModel``; ``component_importances_`` adds
up each signature component. Permutation importance has to move whole components:
shuffling one column of a hyperboloid or sphere point moves it off the manifold, which
the estimators refuse, so :func:`curvedtrees.inspection.permutation_importance`
shuffles every column of a component together.
"""

import curvedtrees as ct
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from curvedtrees.inspection import permutation_importance
from sklearn.feature_selection import SelectFromModel
from sklearn.model_selection import train_test_split

signature = "H2 x S2 x E2"
X, _ = ct.make_classification(signature, n_samples=1200, random_state=0)
# The label depends on the sphere only: the side of a great circle.
y = (X[:, 4] + 0.5 * X[:, 5] > 0).astype(int)
columns = ["h0", "h1", "h2", "s0", "s1", "s2", "e0", "e1"]
frame = pd.DataFrame(X, columns=columns)
X_train, X_test, y_train, y_test = train_test_split(frame, y, test_size=0.3, random_state=0)

forest = ct.ProductRandomForestClassifier(30, signature=signature, max_depth=6, random_state=0)
forest.fit(X_train, y_train)
print(f"accuracy {forest.score(X_test, y_test):.3f}")

# %%
# Impurity importances, by column and by component
# ------------------------------------------------
# A split reads a plane of two ambient columns, ``(x0, x_j)`` of a component; its
# impurity decrease is shared by the squared components of the boundary's unit normal
# (a cut along ``x_j`` alone credits ``x_j`` alone). The per-plane numbers stay in
# ``plane_importances_``.
by_column = pd.Series(forest.feature_importances_, index=forest.feature_names_in_)
print(by_column.round(3).to_string())
print(dict(zip(forest.split_features_.names(), forest.plane_importances_.round(3), strict=True)))

selected = SelectFromModel(forest).fit(X_train, y_train).get_feature_names_out()
print("SelectFromModel keeps:", list(selected))

# %%
# Permutation importance by component
# -----------------------------------
# scikit-learn's ``permutation_importance`` would shuffle ``s1`` alone and the forest
# would refuse the rows (an ``OffManifoldError`` naming this function). Shuffling all
# three sphere columns together keeps every row on ``S2``.
result = permutation_importance(forest, X_test, y_test, n_repeats=10, random_state=0)

fig, axes = plt.subplots(1, 2, figsize=(8, 3), layout="constrained")
axes[0].bar(columns, forest.feature_importances_, color="#4c72b0")
axes[0].set_title("feature_importances_ (per column)")
axes[1].bar(
    result.component_names,
    result.importances_mean,
    yerr=result.importances_std,
    color=["#4c72b0", "#dd8452", "#55a868"],
)
axes[1].set_title("permutation importance (per component)")
axes[1].set_ylabel("accuracy drop")
plt.show()
print(np.round(result.importances_mean, 3))
