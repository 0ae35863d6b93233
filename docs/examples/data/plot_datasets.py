"""
A tour of the offline datasets
==============================

:func:`curvedtrees.list_datasets` lists every registered dataset with its signature,
task and parameters; :func:`curvedtrees.load_dataset` loads one by name. Nothing is
downloaded: the data ship inside pinned packages (networkx, statsmodels,
world-temperature-data, scikit-learn), inside this package (the land mask) or are
generated. Each :class:`~curvedtrees.datasets.Dataset` carries its description and
provenance, and its own train/test split rule (groups, or a fixed test set, where a
random split would leak).
"""

import curvedtrees as ct
import matplotlib.pyplot as plt
import pandas as pd
from sklearn.ensemble import RandomForestClassifier, RandomForestRegressor

pd.DataFrame(
    [
        {
            "name": info.name,
            "signature": str(info.signature),
            "task": info.task,
            "parameters": ", ".join(p.name for p in info.parameters),
        }
        for info in ct.list_datasets()
    ]
)

# %%
# Three of them, each with a product forest and a scikit-learn forest on the same
# ambient coordinates, scored on the dataset's own split.
rows = []
for name, params in [
    ("landmasses", {"n_samples": 2000, "random_state": 0}),
    ("city_temperatures", {"n_cities": 120, "random_state": 0}),
    ("traffic", {"n_samples": 2000, "random_state": 0}),
]:
    data = ct.load_dataset(name, **params)
    X_train, X_test, y_train, y_test = data.split(random_state=0)
    classify = data.is_classifier_task
    product = (ct.ProductRandomForestClassifier if classify else ct.ProductRandomForestRegressor)(
        50, signature=data.signature, random_state=0
    ).fit(X_train, y_train)
    ambient = (RandomForestClassifier if classify else RandomForestRegressor)(50, random_state=0).fit(X_train, y_train)
    metric = "accuracy" if classify else "R^2"
    rows.append(
        {
            "dataset": name,
            "signature": str(data.signature),
            "metric": metric,
            "product forest": product.score(X_test, y_test),
            "scikit-learn forest": ambient.score(X_test, y_test),
        }
    )
    print(f"{name}: {data.provenance[:110]}...")
pd.DataFrame(rows).round(3)

# %%
# The landmasses, drawn from the latitude and longitude the loader keeps in
# ``extra`` (a plain scatter plot; the globe pictures are :mod:`curvedtrees.viz`'s).
land = ct.load_dataset("landmasses", n_samples=3000, random_state=0)
fig, ax = plt.subplots(figsize=(7, 3.5), layout="constrained")
ax.scatter(land.extra["lon"], land.extra["lat"], c=land.y, s=3, cmap="Paired")
ax.set_xlabel("longitude")
ax.set_ylabel("latitude")
ax.set_aspect("equal")
ax.set_title(f"{land.n_samples} points on S2: {', '.join(land.target_names)}")
plt.show()
