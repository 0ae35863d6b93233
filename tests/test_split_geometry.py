"""Node text in the picture's own geometry: rim angles on the disk, poles on the sphere, angles on the circle."""

from __future__ import annotations

import re

import numpy as np
import pytest
from curvedtrees.coords import angle_to_circle, latlon_to_sphere
from curvedtrees.manifolds import ProductManifold
from curvedtrees.trees import ProductDecisionTreeClassifier
from curvedtrees.viz.treeview import node_details, split_geometry


def _degrees(text: str) -> list[float]:
    return [float(v) for v in re.findall(r"(-?\d+(?:\.\d+)?)°", text)]


def _stump(signature: str, X: np.ndarray, y: np.ndarray):
    return ProductDecisionTreeClassifier(signature=signature, max_depth=1).fit(X, y)


def test_a_hyperbolic_split_names_where_its_geodesic_meets_the_rim():
    X = ProductManifold("H2").random_normal(4000, random_state=0)
    klein = X[:, 1] / X[:, 0]
    keep = np.abs(klein - 0.3) > 0.02  # a clear gap, so the max-margin boundary sits near 0.3
    X, y = X[keep], (klein[keep] > 0.3).astype(int)
    tree = _stump("H2", X, y)
    text = split_geometry(tree, 0)
    assert re.search(r"x1/x0 = 0\.(29|30)", text) and "plane" in text and "origin" in text
    ends = sorted(_degrees(text))
    expected = np.degrees(np.arccos(0.3))
    assert ends == pytest.approx([-expected, expected], abs=1.5)
    assert "geodesic distance" in text


def test_a_sphere_split_names_its_great_circles_pole():
    rng = np.random.default_rng(1)
    lat = rng.uniform(-80, 80, 3000)
    lat = lat[np.abs(lat) > 5]
    lon = rng.uniform(-180, 180, lat.size)
    X, y = latlon_to_sphere(lat, lon), (lat > 0).astype(int)
    tree = _stump("S2", X, y)
    text = split_geometry(tree, 0)
    lat_pole = float(re.search(r"latitude (-?\d+\.\d)°", text).group(1))
    assert abs(lat_pole) == pytest.approx(90.0, abs=3.0)  # the equator's pole


def test_a_circle_split_names_its_two_angles():
    rng = np.random.default_rng(2)
    angles = rng.uniform(-np.pi, np.pi, 2000)
    angles = angles[np.abs(np.sin(angles)) > 0.1]
    X, y = angle_to_circle(angles), (np.sin(angles) > 0).astype(int)
    tree = _stump("S1", X, y)
    ends = sorted(abs(a) for a in _degrees(split_geometry(tree, 0)))
    assert ends == pytest.approx([0.0, 180.0], abs=3.0)


def test_a_euclidean_threshold_and_a_leafs_prediction():
    X = np.random.default_rng(3).normal(size=(500, 2))
    X = X[np.abs(X[:, 1] - 0.5) > 0.05]
    y = (X[:, 1] > 0.5).astype(int)
    tree = _stump("E2", X, y)
    assert re.search(r"x1 = 0\.(4|5)", split_geometry(tree, 0))
    leaf = node_details(tree, int(tree.tree_.children_left[0]))
    assert leaf["kind"] == "leaf" and leaf["prediction"].startswith("class 0 (100%")
    assert "geometry" in node_details(tree, 0)
