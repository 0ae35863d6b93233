"""
Product trees against the papers' baselines
===========================================

:mod:`curvedtrees.baselines` holds the comparison models of the mixed-curvature
paper with the same interface as the product trees: a scikit-learn model on the
ambient coordinates or on the tangent space at the origin, k nearest neighbours
under the product's geodesic distance, the product-space perceptron and an SVM
with a positive semi-definite product kernel.
"""

import curvedtrees as ct
import matplotlib.pyplot as plt
import pandas as pd
from sklearn.model_selection import cross_val_score
from sklearn.tree import DecisionTreeClassifier

signature = "H2 x S2"
X, y = ct.make_classification(signature, n_samples=600, n_classes=4, random_state=2)
models = {
    "product tree": ct.ProductDecisionTreeClassifier(signature=signature, max_depth=5, random_state=0),
    "ambient tree": ct.AmbientClassifier(DecisionTreeClassifier(max_depth=5, random_state=0), signature=signature),
    "tangent tree": ct.TangentClassifier(DecisionTreeClassifier(max_depth=5, random_state=0), signature=signature),
    "geodesic 5-NN": ct.GeodesicKNNClassifier(n_neighbors=5, signature=signature),
    "product perceptron": ct.ProductPerceptronClassifier(signature=signature, random_state=0),
    "product SVM": ct.ProductSVMClassifier(signature=signature),
}
scores = {name: cross_val_score(model, X, y, cv=3) for name, model in models.items()}
table = pd.DataFrame({"mean": {n: s.mean() for n, s in scores.items()}, "std": {n: s.std() for n, s in scores.items()}})
table.round(3)

# %%
fig, ax = plt.subplots(figsize=(6.5, 3.2), layout="constrained")
ax.barh(list(scores), table["mean"], xerr=table["std"], color="#4c72b0")
ax.invert_yaxis()
ax.set_xlabel("3-fold accuracy")
ax.set_title(f"{signature}, 4 classes")
plt.show()
