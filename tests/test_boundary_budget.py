"""A picture draws a bounded number of split curves: the splits that hold the most training rows."""

from __future__ import annotations

import numpy as np
import pytest
from curvedtrees import viz
from curvedtrees.sampling import make_classification
from curvedtrees.trees import ProductDecisionTreeClassifier

from ui import data as appdata
from ui import pictures, training

DISK = viz.View("disk", (0,), (1, 2), "poincare")


@pytest.fixture(scope="module")
def deep_tree():
    """A fully grown tree on a noisy mixture: far more splits than a picture draws."""
    X, y = make_classification("H2", n_samples=4000, n_classes=8, n_clusters=16, cov_scale=1.0, random_state=0)
    tree = ProductDecisionTreeClassifier(signature="H2", random_state=0).fit(X, y)
    assert tree.tree_.n_leaves - 1 > 2 * viz.boundaries.MAX_BOUNDARY_CURVES
    return tree


def test_ranked_splits_hold_the_most_rows_first_and_every_prefix_is_a_cut_back_tree(deep_tree):
    t = deep_tree.tree_
    ranked = viz.boundaries.ranked_splits(deep_tree)
    assert sorted(ranked.tolist()) == np.flatnonzero(t.children_left >= 0).tolist()
    assert np.all(np.diff(t.n_node_samples[ranked]) <= 0)
    parents = t.parents()
    position = {int(v): k for k, v in enumerate(ranked)}
    assert ranked[0] == 0 and all(position[int(parents[v])] < position[int(v)] for v in ranked[1:])


def test_boundary_curves_keep_the_largest_splits_up_to_the_budget_and_the_highlighted_ones(deep_tree):
    ref = viz.reference_point("H2")
    every = viz.boundary_curves(deep_tree, "H2", DISK, ref)
    budget = 50
    capped = viz.boundary_curves(deep_tree, "H2", DISK, ref, max_curves=budget)
    crossing = {c.node for c in every}
    expected = [int(v) for v in viz.boundaries.ranked_splits(deep_tree) if int(v) in crossing][:budget]
    assert [c.node for c in capped] == sorted(expected)
    # The curves are the same ones, drawn whole.
    same = {c.node: c for c in every}
    for curve in capped:
        for key in ("x", "y"):
            assert np.array_equal(curve.coords[key], same[curve.node].coords[key], equal_nan=True)
    deep = max(crossing - set(expected))
    kept = viz.boundary_curves(deep_tree, "H2", DISK, ref, max_curves=budget, keep={deep, 10**9})
    assert len(kept) == budget + 1 and deep in {c.node for c in kept}


def test_clipped_curves_carry_no_runs_of_nan(deep_tree):
    for curve in viz.boundary_curves(deep_tree, "H2", DISK, viz.reference_point("H2"), max_curves=100):
        gap = ~np.isfinite(curve.coords["x"])
        assert not gap[0] and not gap[-1] and not np.any(gap[1:] & gap[:-1])
        assert np.array_equal(gap, ~np.isfinite(curve.coords["y"]))


@pytest.fixture(scope="module")
def forest_picture():
    data = appdata.build_dataset(appdata.synthetic_recipe("H2", 4000, 8, seed=0, cov_scale=1.0))
    recipe = {
        "family": "product_forest",
        "params": {"n_estimators": 2, "pairs": "base", "max_depth": 0, "min_samples_leaf": 1},
        "test_size": 0.25,
        "seed": 0,
    }
    model = training.train_from_recipe(data, recipe)
    picture = pictures.Picture(DISK, "origin", 0, 60)
    return data, model, picture, pictures.regions_for(model.estimator, data, picture)


def test_a_forest_picture_draws_at_most_the_budget_and_says_so(forest_picture):
    data, model, picture, grid_regions = forest_picture
    tree = pictures.boundary_tree(model, 0)
    n_splits = len(viz.split_order(tree))
    budget = 300  # the budget of curves
    assert n_splits > 3 * budget
    layers = pictures.Layers(show_boundaries=True, tree=tree)
    fig = pictures.picture_figure(data, picture, model, grid_regions, layers=layers)
    # The plain boundaries' trace holds each curve followed by a NaN (and split by one where a curve stops
    # acting and starts again).
    (plain,) = [t for t in fig.data if t.legendgroup == "split" and t.showlegend]
    gaps = int(np.sum(~np.isfinite(np.asarray(plain.x, dtype=float))))
    assert budget <= gaps < 3 * budget
    assert len(fig.to_json()) < 4_000_000
    assert plain.name == f"{budget} of {n_splits:,} splits drawn"
    assert viz.boundaries.MAX_BOUNDARY_CURVES == budget
    note = pictures.boundary_note(tree, picture.view)
    assert note and f"{n_splits:,} splits" in note and f"the {budget}" in note


def test_a_small_tree_is_drawn_whole_with_no_note(forest_picture):
    data, model, picture, grid_regions = forest_picture
    X, y = data.X, data.y
    small = ProductDecisionTreeClassifier(signature="H2", max_depth=4, random_state=0).fit(X, y)
    assert pictures.boundary_note(small, picture.view) is None
    layers = pictures.Layers(show_boundaries=True, tree=small)
    fig = pictures.picture_figure(data, picture, model, grid_regions, layers=layers)
    assert not any(t.name and "splits drawn" in t.name for t in fig.data)
    assert any(t.name == "split boundary" and t.showlegend for t in fig.data)
