"""
Decision regions on the disk, the sphere, the circle and the torus
==================================================================

A model on a product predicts everywhere on it; a picture shows one component at a time,
every other component held at the data's mean. :class:`~curvedtrees.viz.RegionDisplay`
makes each picture in one call, choosing the view from the component: the Poincaré disk
for ``H2``, the sphere for ``S2``, the circle for ``S1``, the torus for two ``S1``. The
regions are shaded by the model's confidence; the points are the data, coloured by their
label (any dtype: here strings).
"""

import curvedtrees as ct
import numpy as np
from curvedtrees.viz import RegionDisplay

signature = "H2 x S2 x S1 x S1"
X, y = ct.make_classification(signature, n_samples=800, n_classes=3, random_state=0)
labels = np.array(["oak", "pine", "elm"])[y]
forest = ct.ProductRandomForestClassifier(30, signature=signature, max_depth=6, random_state=0).fit(X, labels)

# %%
# "Fit a forest and show me the disk": one call.
RegionDisplay.from_estimator(forest, X, labels, component=0)

# %%
# The sphere, turned to face the data.
RegionDisplay.from_estimator(forest, X, labels, component=1)

# %%
# A circle, and the two circles together as a torus (around the ring the first angle,
# around the tube the second).
RegionDisplay.from_estimator(forest, X, labels, component=2)

# %%
RegionDisplay.from_estimator(forest, X, labels, component=(2, 3))

# %%
# A single tree draws its split boundaries too: on the Klein disk every geodesic is a
# straight chord, so a split on ``H2`` is a straight line (on the Poincaré disk, a circular
# arc meeting the rim at right angles).
tree = ct.ProductDecisionTreeClassifier(signature=signature, max_depth=4, random_state=0).fit(X, labels)
RegionDisplay.from_estimator(tree, X, labels, component=0, view="klein")

# %%
# The display keeps what it computed: ``plot`` draws it again with another title or size,
# and ``figure_`` is the Plotly figure (to save with ``write_html``).
display = RegionDisplay.from_estimator(tree, X, labels, component=1, held="origin")
display.plot(title="The tree's sphere, the other components at their origin", height=560)
