"""
From a graph embedding to node classification
=============================================

Zachary's karate club (shipped with networkx) is embedded into the hyperbolic plane
by minimising the distortion of its shortest-path distances
(:func:`curvedtrees.embeddings.embed_graph`, Riemannian Adam through geoopt, with a
learned curvature). A product forest then predicts each member's faction from the
embedded point alone.
"""

import curvedtrees as ct
import matplotlib.pyplot as plt
import numpy as np
import plotly.graph_objects as go
from curvedtrees import coords
from curvedtrees.datasets import load_graph
from curvedtrees.embeddings import embed_graph
from sklearn.model_selection import StratifiedKFold, cross_val_score

graph = load_graph("karate_club")
result = embed_graph(graph.graph, "H2", n_epochs=300, random_state=0)
print(f"learned signature {result.signature}; distortion {result.distortion:.3f}; mAP {result.map:.3f}")

# %%
# The training: distortion ``D_avg`` after every epoch.
fig, ax = plt.subplots(figsize=(5, 3), layout="constrained")
ax.plot(result.distortion_history)
ax.set_xlabel("epoch")
ax.set_ylabel("average distortion")
plt.show()

# %%
# The embedding on the Poincaré disk of the learned curvature, with the club's edges
# (drawn straight here, for brevity) and the two factions as colours.
curvature = result.signature.components[0].curvature
disk = coords.hyperboloid_to_poincare(result.X, curvature)
radius = 1 / np.sqrt(-curvature)
faction = np.array([graph.y[node] for node in result.nodes])
index = {node: row for row, node in enumerate(result.nodes)}
edge_x, edge_y = [], []
for u, v in graph.graph.edges():
    edge_x += [disk[index[u], 0], disk[index[v], 0], None]
    edge_y += [disk[index[u], 1], disk[index[v], 1], None]
angle = np.linspace(0, 2 * np.pi, 200)
figure = go.Figure(
    [
        go.Scatter(
            x=radius * np.cos(angle), y=radius * np.sin(angle), mode="lines", line_color="#999", name="boundary"
        ),
        go.Scatter(x=edge_x, y=edge_y, mode="lines", line={"color": "#ccc", "width": 1}, name="edges"),
        go.Scatter(
            x=disk[:, 0],
            y=disk[:, 1],
            mode="markers",
            marker={"size": 9, "color": faction, "colorscale": "Bluered"},
            text=[f"member {node}" for node in result.nodes],
            name="members",
        ),
    ]
)
figure.update_layout(height=480, width=520, yaxis={"scaleanchor": "x"}, showlegend=False, margin={"t": 10, "b": 10})
figure  # noqa: B018 (the gallery shows a block's last expression)

# %%
# Node classification: the embedded points are the features, the faction the target.
# :func:`curvedtrees.datasets.load_graph_embedding` does both steps in one call and
# returns a :class:`~curvedtrees.datasets.Dataset`.
forest = ct.ProductRandomForestClassifier(50, signature=result.signature, random_state=0)
scores = cross_val_score(forest, result.X, faction, cv=StratifiedKFold(4, shuffle=True, random_state=0))
print(f"4-fold accuracy of the product forest: {scores.mean():.3f} +- {scores.std():.3f}")
