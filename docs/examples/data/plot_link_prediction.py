"""
Link prediction on an embedded graph
====================================

A link-prediction dataset has one row per pair of nodes ``(i, j)``: the two embedded
points and their distance, on the product ``P x P x E1`` of the embedding's
signature ``P`` with itself and a line; the target says whether ``i`` and ``j``
are adjacent. :func:`curvedtrees.datasets.make_link_prediction` builds it from an
embedding, keeping the pairs of held-out nodes for testing (a random split of
pairs would leak the held-out nodes' positions).
"""

import curvedtrees as ct
import matplotlib.pyplot as plt
from curvedtrees.datasets import load_graph, make_link_prediction
from curvedtrees.embeddings import embed_graph
from sklearn.ensemble import RandomForestClassifier
from sklearn.metrics import RocCurveDisplay, f1_score, roc_auc_score

graph = load_graph("les_miserables")
embedding = embed_graph(graph.graph, "H2", n_epochs=300, random_state=0)
data = make_link_prediction(embedding, test_size=0.3, random_state=0)
X_train, X_test, y_train, y_test = data.split()
print(data.signature, data.X.shape, f"{data.y.mean():.1%} of the pairs are edges")

# %%
# The paper scores link prediction by micro-averaged F1 (few pairs are edges, so the
# ROC curve below says more about the ranking).
product = ct.ProductRandomForestClassifier(100, signature=data.signature, random_state=0).fit(X_train, y_train)
ambient = RandomForestClassifier(100, random_state=0).fit(X_train, y_train)
for name, model in [("product forest", product), ("scikit-learn forest", ambient)]:
    f1 = f1_score(y_test, model.predict(X_test), average="micro")
    auc = roc_auc_score(y_test, model.predict_proba(X_test)[:, 1])
    print(f"{name}: micro F1 {f1:.3f}, ROC AUC {auc:.3f}")

# %%
fig, ax = plt.subplots(figsize=(4.5, 4), layout="constrained")
RocCurveDisplay.from_estimator(product, X_test, y_test, ax=ax, name="product forest")
RocCurveDisplay.from_estimator(ambient, X_test, y_test, ax=ax, name="scikit-learn forest")
ax.set_title("Held-out node pairs")
plt.show()
