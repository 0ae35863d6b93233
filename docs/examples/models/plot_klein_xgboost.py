"""
XGBoost on hyperbolic data with the Klein wrapper
=================================================

A split of a product tree on the hyperbolic coordinate pair ``(x0, x_j)`` is a
threshold on the Klein coordinate ``x_j / x0``. So any Euclidean tree library can
search such splits on Klein features; :class:`~curvedtrees.klein.KleinTreeClassifier`
then moves every threshold to the maximum-margin geodesic boundary, keeping every
training row in its leaf (the Fast-HyperDT paper's wrapper).

Here XGBoost learns on ``H4 x E2`` data: on the raw ambient coordinates, on Klein
features with XGBoost's own thresholds (``max_margin=False``), and wrapped.
"""

import curvedtrees as ct
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from curvedtrees.klein import klein_features
from sklearn.model_selection import train_test_split
from xgboost import XGBClassifier

signature = "H4 x E2"
X, y = ct.make_classification(signature, n_samples=3000, n_classes=4, random_state=0)
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=0)


def booster():
    return XGBClassifier(n_estimators=60, max_depth=4, learning_rate=0.2, n_jobs=1, random_state=0)


ambient = booster().fit(X_train, y_train)
plain = ct.KleinTreeClassifier(booster(), signature=signature, max_margin=False).fit(X_train, y_train)
wrapped = ct.KleinTreeClassifier(booster(), signature=signature).fit(X_train, y_train)
pd.DataFrame(
    {
        "model": ["XGBoost on ambient coordinates", "XGBoost on Klein features", "Klein wrapper (max margin)"],
        "test accuracy": [m.score(X_test, y_test) for m in (ambient, plain, wrapped)],
    }
).round(3)

# %%
# The features XGBoost saw: ``x_j / x0`` for the four spatial coordinates of ``H4``
# (each in (-1, 1)), then the two Euclidean coordinates.
print(wrapped.klein_feature_names_)
print(np.round(klein_features(X[:2], signature), 3))
print("thresholds moved:", wrapped.n_thresholds_moved_, "kept:", wrapped.n_thresholds_kept_)

# %%
# ``margins_`` holds, for every tree, each split's geodesic distance to the nearest
# training row that reached it (NaN at leaves; ``None`` with ``max_margin=False``,
# which leaves XGBoost's thresholds, each a float32 step from a training value).
margins = np.concatenate([tree_margins[np.isfinite(tree_margins)] for tree_margins in wrapped.margins_])
print(f"{margins.size} splits, median margin {np.median(margins):.3g}")
fig, ax = plt.subplots(figsize=(6, 3.2), layout="constrained")
ax.hist(margins, bins=np.logspace(np.log10(max(margins.min(), 1e-6)), np.log10(margins.max()), 40))
ax.set_xscale("log")
ax.set_xlabel("geodesic margin of a split (maximum-margin thresholds)")
ax.set_ylabel("splits")
plt.show()
