"""Figure builders of curvedtrees.embeddings.plots (pure functions, no training needed)."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
import pytest
from curvedtrees.embeddings.plots import elbo_figure, embedding_figure, geodesic_samples, training_curve_figure
from curvedtrees.manifolds import ProductManifold
from curvedtrees.viz.views import available_views

SIGNATURE = "H2(-2) x S2 x E2 x S1 x S1"


@pytest.fixture(scope="module")
def points():
    return ProductManifold(SIGNATURE).random_normal(12, std=0.6, random_state=0)


def test_geodesic_samples_run_from_start_to_end_on_the_manifold(points):
    pairs = np.array([[0, 1], [2, 5], [7, 3]])
    samples = geodesic_samples(points, SIGNATURE, pairs, n_steps=9)
    assert samples.shape == (3, 9, points.shape[1])
    np.testing.assert_allclose(samples[:, 0], points[pairs[:, 0]], atol=1e-12)
    np.testing.assert_allclose(samples[:, -1], points[pairs[:, 1]], atol=1e-9)
    manifold = ProductManifold(SIGNATURE)
    assert manifold.check_point(samples.reshape(-1, points.shape[1]))
    # Equal steps along a geodesic: consecutive samples are equally far apart.
    steps = manifold.dist(samples[:, :-1].reshape(-1, points.shape[1]), samples[:, 1:].reshape(-1, points.shape[1]))
    steps = steps.reshape(3, 8)
    np.testing.assert_allclose(steps, steps[:, :1].repeat(8, axis=1), rtol=1e-6)


@pytest.mark.parametrize("view_index", range(6))
def test_embedding_figure_draws_every_view(points, view_index):
    views = available_views(SIGNATURE)
    view = views[view_index]
    labels = np.arange(12) % 3
    fig = embedding_figure(
        points, SIGNATURE, edges=np.array([[0, 1], [1, 2]]), labels=labels, label_names=["a", "b", "c"], view=view
    )
    assert isinstance(fig, go.Figure)
    names = [t.name for t in fig.data]
    assert "edges" in names and {"a", "b", "c"} <= set(names)
    drawn = sum(len(t.text) for t in fig.data if t.name in ("a", "b", "c"))
    assert drawn == 12


def test_disk_edges_are_hyperbolic_arcs_not_chords(points):
    disk = available_views(SIGNATURE)[0]
    fig = embedding_figure(points, SIGNATURE, edges=np.array([[0, 1]]), view=disk)
    edge = next(t for t in fig.data if t.name == "edges")
    x, y = np.asarray(edge.x, dtype=float), np.asarray(edge.y, dtype=float)
    x, y = x[np.isfinite(x)], y[np.isfinite(y)]
    # A Poincaré geodesic bows toward the origin: its inner samples lie strictly on
    # the origin's side of the chord between its end points.
    start, end = np.array([x[0], y[0]]), np.array([x[-1], y[-1]])
    direction = end - start

    def side(px, py):
        return direction[0] * (py - start[1]) - direction[1] * (px - start[0])

    origin_side = np.sign(side(0.0, 0.0))
    inner = side(x[1:-1], y[1:-1])
    assert origin_side != 0 and np.all(np.sign(inner) == origin_side)


def test_regression_targets_use_a_colour_scale(points):
    fig = embedding_figure(points, SIGNATURE, labels=np.linspace(0, 1, 12))
    marker = fig.data[-1].marker
    assert marker.showscale and len(marker.color) == 12


def test_training_curves():
    fig = training_curve_figure([0.6, 0.3, 0.2], total=10)
    assert fig.layout.yaxis.type == "log" and tuple(fig.layout.xaxis.range) == (0, 9)
    fig = elbo_figure([-40.0, -30.0], test_elbo=-31.0)
    assert fig.layout.yaxis.type != "log" and len(fig.layout.shapes) == 1
