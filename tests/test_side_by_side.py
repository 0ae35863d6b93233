"""The Side by side page: two models of the current dataset on one picture, a depth slider per side."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from ui.data import build_dataset, synthetic_recipe
from ui.side_by_side import KINDS, describe_side, kinds_for, side_cost, side_recipe, side_recipe_text, train_side

APP = str(Path(__file__).resolve().parents[1] / "app.py")
PAGE = "pages/9_Side_by_side.py"


@pytest.fixture(scope="module")
def h2_data():
    return build_dataset(synthetic_recipe("H2", 300, 4, seed=3, cov_scale=0.3))


def open_page(query: dict | None = None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=90)
    for key, value in (query or {}).items():
        at.query_params[key] = value
    at.run()
    at.switch_page(PAGE).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def charts(at: AppTest) -> list[dict]:
    return [json.loads(c.proto.spec) for c in at.get("plotly_chart")]


def titles(at: AppTest) -> list[str]:
    return [spec["layout"]["title"]["text"] for spec in charts(at)]


def boundary_traces(spec: dict) -> int:
    """How many split-boundary line traces a picture draws (the rim and the points are other traces)."""
    return sum(1 for t in spec["data"] if t.get("name") == "split boundary")


# ------------------------------------------------------------------ the pure module
def test_side_recipes_are_checked_and_canonical():
    assert side_recipe("product_tree", 3) == {"kind": "product_tree", "max_depth": 3}
    assert side_recipe_text("ambient", 5) == '{"kind":"ambient","max_depth":5}'
    for kind, depth in (
        ("random", 3),
        ("product_tree", 0),
        ("product_tree", 13),
        ("product_tree", 2.5),
        ("product_tree", True),
        ("product_tree", "3"),
    ):
        with pytest.raises(ValueError, match=r"unknown model|depth"):
            side_recipe(kind, depth)


def test_kinds_follow_the_signature():
    from curvedtrees.manifolds import Signature

    assert kinds_for(Signature.parse("H2 x E2")) == list(KINDS)
    assert "klein" not in kinds_for(Signature.parse("S2"))
    assert {"product_tree", "product_forest", "ambient", "tangent"} <= set(kinds_for(Signature.parse("S2")))


@pytest.mark.parametrize("kind", list(KINDS))
def test_every_kind_trains_at_the_asked_depth_on_the_same_split(h2_data, kind):
    record = train_side(h2_data, side_recipe(kind, 2))
    est = record.estimator
    trees = est.estimators_ if kind == "product_forest" else [getattr(est, "estimator_", est)]
    assert max(t.get_depth() for t in trees) <= 2
    if kind == "product_forest":
        assert len(trees) == 24
    reference = train_side(h2_data, side_recipe("product_tree", 2))
    assert np.array_equal(np.sort(record.test_idx), np.sort(reference.test_idx))
    assert 0.0 <= record.metrics["accuracy"] <= 1.0
    line = describe_side(record, side_recipe(kind, 2))
    assert KINDS[kind].title in line and "depth at most 2" in line and "test accuracy" in line


def test_deeper_trees_fit_the_training_rows_better(h2_data):
    shallow = train_side(h2_data, side_recipe("product_tree", 1))
    deep = train_side(h2_data, side_recipe("product_tree", 8))
    assert shallow.estimator.get_depth() == 1 and deep.estimator.get_depth() > 1
    assert deep.metrics["train_accuracy"] > shallow.metrics["train_accuracy"]


def test_klein_on_a_sphere_is_refused_with_a_reason():
    data = build_dataset(synthetic_recipe("S2", 100, 3, seed=1))
    with pytest.raises(ValueError, match="accepts only H, E components"):
        train_side(data, side_recipe("klein", 3))


@pytest.mark.parametrize("kind", list(KINDS))
def test_every_side_is_costed_before_it_trains(h2_data, kind):
    cost = side_cost(h2_data, side_recipe(kind, 12))
    assert cost.cpu_seconds > 0 and cost.memory_bytes > 0
    cost.check()  # the page's largest side fits the default budgets
    # Deeper costs at least as much: the estimate follows the recipe, not a constant.
    assert side_cost(h2_data, side_recipe(kind, 1)).cpu_seconds <= cost.cpu_seconds


def test_a_side_over_budget_is_refused_before_training(h2_data):
    from curvedtrees.costs import Budget, BudgetExceeded

    with pytest.raises(BudgetExceeded, match=r"max_depth|n_estimators|rows"):
        side_cost(h2_data, side_recipe("product_forest", 12)).check(Budget(cpu_seconds=1e-6))
    with pytest.raises(ValueError, match="accepts only H, E components"):
        side_cost(build_dataset(synthetic_recipe("S2", 100, 3, seed=1)), side_recipe("klein", 3))


@pytest.fixture(scope="module")
def pool():
    """A worker pool of one worker (its template starts once for the module)."""
    from ui import jobs

    made = jobs.JobPool(workers=1, max_queued=2)
    yield made
    made._stopped = True
    if made._template is not None:
        made._template.kill()


@pytest.mark.slow
@pytest.mark.parametrize("kind", list(KINDS))
def test_a_side_trained_in_a_worker_equals_one_trained_here(h2_data, kind, pool):
    """The page trains in the worker pool: what comes back predicts like a local fit."""
    ticket = pool.submit("train_side", h2_data, side_recipe(kind, 3), label="training")
    assert ticket.wait(240), "the worker did not finish"
    remote = ticket.result()
    ticket.release()
    local = train_side(h2_data, side_recipe(kind, 3))
    assert np.array_equal(remote.estimator.predict(h2_data.X), local.estimator.predict(h2_data.X))
    assert remote.metrics == local.metrics and remote.data_hash == h2_data.hash


# ------------------------------------------------------------------ the page
def test_the_page_opens_on_a_tree_and_a_forest_of_the_current_data():
    at = open_page()
    specs = charts(at)
    assert len(specs) == 2
    assert all("Poincaré disk" in t for t in titles(at))
    lines = [m.value for m in at.markdown]
    assert any("**Product tree**, depth at most 4" in line for line in lines)
    assert any("**Product forest**, depth at most 8" in line and "24 trees" in line for line in lines)
    # The same grid on both sides: identical cell coordinates.
    heat = [next(t for t in s["data"] if t["type"] == "heatmap") for s in specs]
    assert heat[0]["x"] == heat[1]["x"] and heat[0]["y"] == heat[1]["y"]


def test_a_depth_slider_retrains_its_side_only():
    at = open_page()
    before = charts(at)
    at.slider(key="sbs_left_depth").set_value(1).run()
    assert not at.exception
    after = charts(at)
    assert any("**Product tree**, depth at most 1, 2 leaves" in m.value for m in at.markdown)
    assert after[0]["data"] != before[0]["data"]
    # The forest's side did not change.
    assert after[1]["data"] == before[1]["data"]


def test_klein_on_one_side_titles_that_side_the_klein_disk():
    at = open_page()
    at.radio(key="sbs_right_disk").set_value("klein").run()
    assert not at.exception
    left, right = titles(at)
    assert "Poincaré disk" in left and "Klein disk" in right and "Poincaré" not in right


@pytest.mark.parametrize("kind", ["ambient", "tangent", "klein", "product_tree"])
def test_each_model_can_be_put_beside_a_product_tree(kind):
    at = open_page()
    at.selectbox(key="sbs_right_kind").set_value(kind).run()
    assert not at.exception and not at.error
    assert any(f"**{KINDS[kind].title}**, depth at most 8" in m.value for m in at.markdown)
    assert len(charts(at)) == 2


def test_a_forest_side_draws_no_single_tree_boundaries_but_a_tree_side_does():
    at = open_page()
    tree_spec, forest_spec = charts(at)
    assert boundary_traces(tree_spec) >= 1
    assert boundary_traces(forest_spec) == 0


def test_every_picture_has_its_export_buttons():
    at = open_page()
    keys = {b.key for b in at.get("download_button")}
    for name in ("left", "right"):
        assert {f"sbs_{name}_export_{fmt}" for fmt in ("png", "svg", "html")} <= keys
