"""
A first product forest
======================

Fit a random forest on the product ``H2 x S2 x E2``, score it, and see which
component its splits used. Points are given in ambient coordinates (hyperboloid for
``H2``, the unit sphere for ``S2``, plain coordinates for ``E2``), concatenated in
signature order: 3 + 3 + 2 = 8 columns.
"""

import curvedtrees as ct
import matplotlib.pyplot as plt
from sklearn.ensemble import RandomForestClassifier
from sklearn.model_selection import train_test_split

signature = "H2 x S2 x E2"
X, y = ct.make_classification(signature, n_samples=1500, n_classes=4, random_state=0)
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, random_state=0)
print(X.shape, ct.Signature.parse(signature).ambient_dim)

# %%
# The forest takes the signature as a parameter; ``pairs="all"`` lets every split use
# any pair of a component's ambient coordinates, not only pairs with coordinate 0.
forest = ct.ProductRandomForestClassifier(
    n_estimators=50, signature=signature, pairs="all", max_depth=6, random_state=0
).fit(X_train, y_train)
baseline = RandomForestClassifier(n_estimators=50, max_depth=6, random_state=0).fit(X_train, y_train)
print(f"product forest accuracy:      {forest.score(X_test, y_test):.3f}")
print(f"scikit-learn forest (ambient): {baseline.score(X_test, y_test):.3f}")

# %%
# ``component_importances_`` adds up the impurity decrease of the splits on each
# component (one number per component, summing to 1).
names = [str(component) for component in forest.signature_.components]
fig, ax = plt.subplots(figsize=(5, 3), layout="constrained")
ax.bar(names, forest.component_importances_, color=["#4c72b0", "#dd8452", "#55a868"])
ax.set_ylabel("share of impurity decrease")
ax.set_title("Which component the forest split on")
plt.show()
