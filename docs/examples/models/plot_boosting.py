"""
Gradient boosting: iterations, early stopping and thresholds
============================================================

:class:`~curvedtrees.boosting.ProductGradientBoostingClassifier` is scikit-learn's
histogram gradient boosting on the product trees' split planes: every chosen split
is a geodesically convex cut of one component. ``staged_predict`` follows the
ensemble iteration by iteration; ``thresholds`` chooses where a split's boundary
goes: the maximum-margin geodesic boundary between the node's nearest training rows
(``"margin"``, the default) or the histogram bin's edge (``"bins"``, scikit-learn's).
"""

import curvedtrees as ct
import matplotlib.pyplot as plt
import numpy as np
from sklearn.model_selection import train_test_split

signature = "H2 x S2 x E2"
X, y = ct.make_classification(signature, n_samples=2000, n_classes=5, random_state=3)
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=0)

models = {
    thresholds: ct.ProductGradientBoostingClassifier(
        signature=signature,
        max_iter=80,
        learning_rate=0.1,
        early_stopping=False,
        thresholds=thresholds,
        random_state=0,
    ).fit(X_train, y_train)
    for thresholds in ("margin", "bins")
}

fig, ax = plt.subplots(figsize=(6, 3.5), layout="constrained")
for thresholds, model in models.items():
    test = [np.mean(pred == y_test) for pred in model.staged_predict(X_test)]
    train = [np.mean(pred == y_train) for pred in model.staged_predict(X_train)]
    (line,) = ax.plot(np.arange(1, len(test) + 1), test, label=f'test, thresholds="{thresholds}"')
    ax.plot(np.arange(1, len(train) + 1), train, ls=":", color=line.get_color(), label=f'train, "{thresholds}"')
ax.set_xlabel("iteration")
ax.set_ylabel("accuracy")
ax.legend(fontsize="small")
plt.show()

# %%
# With early stopping (on by default above 10,000 rows), a stratified tenth of the
# training rows is held out and the fit stops when ``n_iter_no_change`` iterations in
# a row do not improve its loss by ``tol``.
stopped = ct.ProductGradientBoostingClassifier(
    signature=signature, max_iter=500, early_stopping=True, n_iter_no_change=10, random_state=0
).fit(X_train, y_train)
print(f"stopped after {stopped.n_iter_} of 500 iterations; test accuracy {stopped.score(X_test, y_test):.3f}")
print(f"{stopped.n_trees_per_iteration_} trees per iteration (one per class), {len(stopped.trees_)} iterations")
