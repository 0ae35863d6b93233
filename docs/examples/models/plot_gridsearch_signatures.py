"""
Choosing a signature with GridSearchCV
======================================

``signature`` is an ordinary estimator parameter, so scikit-learn's model selection
searches over it like over ``max_depth``. The candidates must fit the data: a
product component may be replaced by a Euclidean one of the same width (``E``
accepts any coordinates), never by a manifold the points are not on.

Here the data lie on ``H2 x S2``; the grid compares that signature with the ones that
treat either component, or both, as flat.
"""

import curvedtrees as ct
import matplotlib.pyplot as plt
import pandas as pd
from sklearn.model_selection import GridSearchCV

X, y = ct.make_classification("H2 x S2", n_samples=1000, n_classes=4, random_state=1)
grid = GridSearchCV(
    ct.ProductDecisionTreeClassifier(max_depth=4, random_state=0),
    param_grid={"signature": ["H2 x S2", "E3 x S2", "H2 x E3", "E6"], "pairs": ["base", "all"]},
    cv=5,
)
grid.fit(X, y)
print("best:", grid.best_params_, f"accuracy {grid.best_score_:.3f}")

# %%
# Every candidate's cross-validated accuracy. Which one wins depends on the draw and
# on the model: compare the differences with the spread over the folds before
# reading much into them.
results = pd.DataFrame(grid.cv_results_)[["param_signature", "param_pairs", "mean_test_score", "std_test_score"]]
results.sort_values("mean_test_score", ascending=False).round(3)

# %%
fig, ax = plt.subplots(figsize=(6, 3.5), layout="constrained")
for pairs, marker in [("base", "o"), ("all", "s")]:
    part = results[results.param_pairs == pairs]
    ax.errorbar(
        part.param_signature.astype(str),
        part.mean_test_score,
        yerr=part.std_test_score,
        fmt=marker,
        capsize=3,
        label=f'pairs="{pairs}"',
    )
ax.set_ylabel("5-fold accuracy")
ax.set_title("Depth-4 trees on H2 x S2 data")
ax.legend()
plt.show()
