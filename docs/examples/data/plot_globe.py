"""
Land and water on the globe
===========================

The Landmasses dataset samples points on the Earth (``S2``) labelled land or water. A
forest learns the coastlines from them; its regions are drawn on the sphere, on a flat
world map, each one :class:`~curvedtrees.viz.RegionDisplay` call, with the real
coastlines on top (land and water get natural colours).
"""

import curvedtrees as ct
import numpy as np
from curvedtrees.datasets.geo import coastlines
from curvedtrees.viz import RegionDisplay

land = ct.load_dataset("landmasses", n_samples=3000, random_state=0)
names = np.array(["water", "land"])[land.y]
forest = ct.ProductRandomForestClassifier(40, signature=land.signature, max_depth=10, random_state=0)
forest.fit(land.X, names)
print(f"training accuracy {forest.score(land.X, names):.3f} on {len(names)} points")

# %%
# The sphere.
RegionDisplay.from_estimator(forest, land.X, names, coastlines=coastlines(), max_points=400)

# %%
# An equirectangular world map: longitude across, latitude up. Points are fewer than the
# rows (``max_points``) so the regions stay visible.
RegionDisplay.from_estimator(forest, land.X, names, view="map", coastlines=coastlines(), max_points=400)

# %%
# ``view="ortho"`` draws a turning orthographic globe instead (Play turns it around the
# polar axis in the browser); it sends the coastlines once per frame, so it weighs about
# 0.9 MB and is left out of this page.
