"""Product gradient boosting through the whole stack: the Train page family, regions, model files,
the trees the Inspector draws, the Compare page and the benchmark presets."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import curvedtrees.benchmarks.stored as stored
import numpy as np
import pytest
from curvedtrees import io as model_io
from curvedtrees import viz
from curvedtrees.benchmarks import MODELS, PRESETS, get_models, get_preset, run_benchmark, summarize
from curvedtrees.benchmarks.datasets import gaussian_mixture
from curvedtrees.benchmarks.paper import load_paper_table5
from curvedtrees.benchmarks.report import (
    boosting_markdown,
    comparison_markdown,
    rank_markdown,
    table5_markdown,
    timing_markdown,
    write_report,
)
from curvedtrees.benchmarks.statistics import pairwise_tests
from curvedtrees.boosting import ProductGradientBoostingClassifier, ProductGradientBoostingRegressor
from curvedtrees.sampling import make_classification, make_regression
from curvedtrees.trees import ProductDecisionTreeRegressor
from streamlit.testing.v1 import AppTest

from ui.boosted_trees import boosting_summary, is_boosted, iteration_tree, split_index, tree_count, tree_label
from ui.training import FAMILIES, families_for, normalise_recipe

APP = str(Path(__file__).resolve().parents[1] / "app.py")
FAMILY = "product_boosting"


def start(page: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    at.run()
    assert_clean(at)
    at.switch_page(page).run()
    assert_clean(at)
    return at


def assert_clean(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]


def charts(at: AppTest) -> list[dict]:
    return [json.loads(c.proto.spec) for c in at.get("plotly_chart")]


def model(at: AppTest):
    return at.session_state["ct:model"]


def train_boosting(at: AppTest, **params) -> AppTest:
    at.selectbox(key="train_family").set_value(FAMILY).run()
    assert_clean(at)
    for name, value in params.items():
        widget = at.selectbox if isinstance(value, (str, bool)) else at.number_input
        widget(key=f"train_{FAMILY}_{name}").set_value(value)
    at.button(key="FormSubmitter:train_form-Train").click().run()
    assert_clean(at)
    return at


@pytest.fixture(scope="module")
def multiclass():
    X, y = make_classification("H2 x S2 x E2", n_samples=300, n_classes=3, n_clusters=6, random_state=0)
    gb = ProductGradientBoostingClassifier(
        signature="H2 x S2 x E2", pairs="all", max_iter=6, max_leaf_nodes=8, random_state=0
    ).fit(X, y)
    return X, y, gb


# ------------------------------------------------------------------ the family
def test_the_family_is_offered_for_every_task_and_signature_with_the_engines_defaults():
    for task in ("classification", "regression"):
        assert FAMILY in [f.key for f in families_for(task, "H2 x S2 x E2")]
    family = FAMILIES[FAMILY]
    assert [p.name for p in family.params] == ["learning_rate", "max_iter", "max_leaf_nodes", "max_depth",
                                               "min_samples_leaf", "l2_regularization", "max_bins",
                                               "early_stopping", "pairs", "splits"]  # fmt: skip
    assert all(p.help for p in family.params)
    built = family.build("classification", "H2 x S2", family.defaults("classification"), 7)
    assert isinstance(built, ProductGradientBoostingClassifier)
    # The form's defaults are the estimator's (max_depth 0 stands for None, "no limit").
    engine_defaults = ProductGradientBoostingClassifier().get_params()
    for name, value in built.get_params().items():
        if name not in ("signature", "random_state"):
            assert value == engine_defaults[name], name
    assert (built.random_state, built.signature) == (7, "H2 x S2")
    assert isinstance(family.build("regression", "E2", {}, 0), ProductGradientBoostingRegressor)


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"learning_rate": 0.0}, "learning_rate must be between"),
        ({"max_iter": 501}, "max_iter must be between 1 and 500"),
        ({"max_leaf_nodes": 1}, "max_leaf_nodes must be between 2"),
        ({"max_bins": 256}, "max_bins must be between 2 and 255"),
        ({"max_depth": 2.5}, "max_depth must be a whole number"),
        ({"l2_regularization": float("nan")}, "l2_regularization must be finite"),
        ({"early_stopping": "sometimes"}, "early_stopping must be one of"),
        ({"n_estimators": 10}, "has no parameter 'n_estimators'"),
    ],
)
def test_recipes_from_links_are_checked_parameter_by_parameter(params, message):
    with pytest.raises(ValueError, match=message):
        normalise_recipe({"family": FAMILY, "params": params}, "classification", "H2")


def test_a_recipe_survives_the_json_of_a_link():
    recipe = normalise_recipe(
        {"family": FAMILY, "params": {"early_stopping": False, "max_depth": 3}}, "regression", "S2"
    )
    again = normalise_recipe(json.loads(json.dumps(recipe)), "regression", "S2")
    assert again == recipe and again["params"]["early_stopping"] is False
    built = FAMILIES[FAMILY].build("regression", "S2", again["params"], again["seed"])
    assert (built.early_stopping, built.max_depth, built.max_leaf_nodes) == (False, 3, 31)


# ------------------------------------------------------------------ the pages
def test_train_regions_and_model_file_round_trip():
    at = start("pages/2_Train.py")
    data = at.session_state["ct:data"]
    train_boosting(at, max_iter=12, max_leaf_nodes=6, early_stopping=False)
    record = model(at)
    gb = record.estimator
    assert isinstance(gb, ProductGradientBoostingClassifier) and record.recipe["family"] == FAMILY
    assert (gb.n_iter_, gb.max_leaf_nodes, gb.early_stopping) == (12, 6, False)
    assert 0.0 <= record.metrics["accuracy"] <= 1.0 and "confusion" in record.metrics
    captions = [str(c.value) for c in at.caption]
    assert boosting_summary(gb) in captions and "12 boosting iterations" in boosting_summary(gb)
    options = at.selectbox(key=f"train_{FAMILY}_early_stopping")
    assert [options.format_func(o) for o in options.options] == ["auto", "on", "off"]

    # Regions: the ensemble's own predictions, without one tree's boundaries drawn over them.
    at.switch_page("pages/3_Regions.py").run()
    assert_clean(at)
    spec = charts(at)[0]
    heatmaps = [t for t in spec["data"] if t.get("type") == "heatmap"]
    assert heatmaps and not any(t.get("name") == "split boundary" for t in spec["data"])
    shown = {v for row in heatmaps[0]["z"] for v in row if v is not None}
    assert len(shown) >= 2  # more than one class region on the disk

    # The model file: download, upload, the same predictions.
    at.switch_page("pages/2_Train.py").run()
    assert any(b.label.startswith("Download the model") for b in at.get("download_button"))
    saved = at.session_state["ct:model_json"][record.model_id]
    assert json.loads(saved)["estimator"] == "ProductGradientBoostingClassifier"
    at.file_uploader(key="train_upload").set_value(("gb.json", saved.encode(), "application/json"))
    at.run()
    assert_clean(at)
    loaded = model(at)
    assert loaded.source == "uploaded" and loaded.model_id != record.model_id
    assert loaded.recipe["family"] == FAMILY and isinstance(loaded.estimator, ProductGradientBoostingClassifier)
    np.testing.assert_array_equal(loaded.estimator.predict_proba(data.X), gb.predict_proba(data.X))
    assert loaded.metrics["accuracy"] == pytest.approx(float(np.mean(gb.predict(data.X) == data.y)))


def test_a_regression_model_trains_and_draws_regions():
    at = start("pages/1_Data.py")
    at.radio(key="syn_task").set_value("regression").run()
    at.button(key="syn_go").click().run()
    assert_clean(at)
    data = at.session_state["ct:data"]
    assert data.task == "regression"
    at.switch_page("pages/2_Train.py").run()
    train_boosting(at, max_iter=5)
    record = model(at)
    assert isinstance(record.estimator, ProductGradientBoostingRegressor) and record.estimator.n_iter_ == 5
    assert np.isfinite(record.metrics["rmse"]) and "r2" in record.metrics
    at.switch_page("pages/3_Regions.py").run()
    assert_clean(at)
    heatmaps = [t for t in charts(at)[0]["data"] if t.get("type") == "heatmap"]
    values = [v for row in heatmaps[0]["z"] for v in row if v is not None]
    assert len(set(values)) > 1  # the predicted values vary over the picture


def test_the_compare_page_offers_and_runs_it():
    at = start("pages/7_Compare.py")
    at.radio(key="cmp_source").set_value("mixture").run()
    at.text_input(key="cmp_signature").set_value("H2 x S2").run()
    at.select_slider(key="cmp_n_samples").set_value(200).run()
    box = at.multiselect(key="cmp_models")
    assert "Product GB" in box.options  # options show the models' names
    box.set_value(["product_rf", "product_gb"])
    at.slider(key="cmp_trials").set_value(2)
    at.button[0].click().run()
    assert_clean(at)
    table = at.dataframe[0].value
    assert list(table["model"]) == ["Product RF", "Product GB"] and all(" ± " in s for s in table["score"])


# ------------------------------------------------------- the trees inside a model
def test_the_trees_add_up_to_the_models_raw_score(multiclass):
    X, _, gb = multiclass
    assert is_boosted(gb) and tree_count(gb) == 6 * 3
    raw = np.tile(gb.baseline_, (len(X), 1))
    for index in range(tree_count(gb)):
        tree = iteration_tree(gb, index)
        assert isinstance(tree, ProductDecisionTreeRegressor)
        iteration, k = split_index(gb, index)
        assert tree.tree_ is gb.trees_[iteration][k]
        raw[:, k] += tree.predict(X)
    np.testing.assert_allclose(raw, gb.decision_function(X), rtol=0, atol=1e-12)


def test_binary_and_regression_models_have_one_tree_per_iteration():
    X, y = make_classification("S2", n_samples=200, n_classes=2, n_clusters=4, random_state=2)
    binary = ProductGradientBoostingClassifier(signature="S2", max_iter=4, random_state=0).fit(X, y)
    total = binary.baseline_[0] + sum(iteration_tree(binary, i).predict(X) for i in range(tree_count(binary)))
    np.testing.assert_allclose(total, binary.decision_function(X), atol=1e-12)
    assert tree_count(binary) == 4 and tree_label(binary, 2) == "Tree of iteration 2"
    Xr, yr = make_regression("E2", n_samples=150, random_state=0)
    reg = ProductGradientBoostingRegressor(signature="E2", max_iter=3, random_state=0).fit(Xr, yr)
    total = reg.baseline_[0] + sum(iteration_tree(reg, i).predict(Xr) for i in range(3))
    np.testing.assert_allclose(total, reg.predict(Xr), atol=1e-12)


def test_tree_numbers_labels_and_summaries(multiclass):
    _, _, gb = multiclass
    assert split_index(gb, 7) == (2, 1)
    assert split_index(gb, -5) == (0, 0) and split_index(gb, 10**6) == (5, 2)  # clipped like a forest's index
    assert tree_label(gb, 7) == f"Tree of iteration 2 (class '{gb.classes_[1]}')"
    assert tree_label(gb, 7, class_names=["a", "b", "c"]) == "Tree of iteration 2 (class 'b')"
    assert boosting_summary(gb) == "6 boosting iterations, 18 trees (one per class and iteration, 3 classes)."
    stopped = ProductGradientBoostingClassifier(
        signature="H2 x S2 x E2", max_iter=500, early_stopping=True, n_iter_no_change=2, random_state=0
    )
    X, y = make_classification("H2 x S2 x E2", n_samples=300, n_classes=3, n_clusters=6, random_state=0)
    stopped.fit(X, y)
    assert stopped.n_iter_ < 500 and "early stopping ended training before max_iter = 500" in boosting_summary(stopped)


def test_the_viz_draws_a_boosted_tree_diagram_replay_details_and_boundaries(multiclass):
    X, _, gb = multiclass
    tree = iteration_tree(gb, 4)
    n_splits = len(viz.split_order(tree))
    assert n_splits == tree.tree_.n_leaves - 1 >= 1
    nodes = next(t for t in viz.tree_figure(tree).data if t.name == "nodes")
    assert len(nodes.x) == tree.tree_.node_count
    assert nodes.marker.colorbar.title.text == "value"  # coloured by each leaf's contribution, not by class
    pruned = viz.first_splits(tree, 1)
    assert pruned.estimator.tree_.node_count == 3
    details = viz.node_details(tree, 0)
    assert details["kind"] == "split" and "margin" in details["geometry"] and "value" in details
    path = viz.explain_path(tree, X[0])
    assert path[-1].startswith("node ") and "leaf" in path[-1]
    signature = gb.signature_
    root_component = int(tree.tree_.component[0])
    view = next(v for v in viz.available_views(signature) if root_component in v.components)
    grid = viz.view_grid(view, signature, 40)
    reference = X[0]
    replay = viz.replay_regions(tree, grid, reference)
    assert replay.frames[-1].task == "regression" and len(replay.steps) == n_splits + 1
    # The last frame of the replay is the tree itself: its contribution on the grid.
    full = viz.predict_regions(tree, grid, reference)
    assert np.isfinite(full.values).any()
    np.testing.assert_allclose(replay.frames[-1].values, full.values, rtol=1e-6)
    curves = viz.boundary_curves(tree, signature, view, reference, grid, nodes=[0])
    assert len(curves) >= 1  # the root's split crosses the picture of the component it cuts


# --------------------------------------------------------------------- model files
def test_a_model_file_loads_in_a_fresh_interpreter_that_never_imported_boosting():
    X, y = make_classification("H2 x S2", n_samples=150, n_classes=3, n_clusters=3, random_state=0)
    gb = ProductGradientBoostingClassifier(signature="H2 x S2", max_iter=3, random_state=0).fit(X, y)
    code = (
        "import sys, json, numpy as np\n"
        "import curvedtrees.io as io\n"
        "before = 'curvedtrees.boosting' in sys.modules\n"
        "request = json.loads(sys.stdin.read())\n"
        "model = io.loads(request['model'])\n"
        "print(json.dumps([before, type(model).__name__, model.predict_proba(np.array(request['X'])).tolist()]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        input=json.dumps({"model": model_io.dumps(gb), "X": X[:20].tolist()}),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    before, name, proba = json.loads(done.stdout.strip().splitlines()[-1])
    assert before is False and name == "ProductGradientBoostingClassifier"
    np.testing.assert_allclose(proba, gb.predict_proba(X[:20]), rtol=0, atol=1e-15)


# ----------------------------------------------------------------------- benchmarks
def test_every_preset_but_the_sklearn_one_runs_boosting_beside_the_forests():
    spec = MODELS["product_gb"]
    # Boosting is its own family: outside the paper's tree and forest sets, tested in its own table.
    assert (spec.name, spec.group, spec.family) == ("Product GB", "boosting", "boosting")
    for name, preset in PRESETS.items():
        assert ("product_gb" in preset.models) == (name != "tiny-sklearn"), name
    built = spec.build("classification", "H2 x S2", 3)
    assert isinstance(built, ProductGradientBoostingClassifier)
    assert (built.pairs, built.max_iter, built.max_depth, built.random_state) == ("all", 100, None, 3)
    assert isinstance(spec.build("regression", "H2", 0), ProductGradientBoostingRegressor)
    # A depth override (the depth-3 presets, --max-depth) reaches boosting; forest-only settings do not.
    specs = {spec.name: spec for spec in get_preset("multi-curvature-notebook-depth3").model_specs()}
    depth3 = specs["Product GB"].build("classification", "H2", 0)
    assert depth3.max_depth == 3 and depth3.min_samples_leaf == 20


def test_a_small_run_puts_boosting_in_every_table():
    preset = get_preset("tiny")
    results = run_benchmark(preset.datasets(n_samples=120), preset.model_specs(), n_trials=2, random_state=0)
    assert (results["error"] == "").all()
    summary = summarize(results)
    rows = summary[summary["model"] == "Product GB"]
    assert len(rows) == 4 and rows["mean"].notna().all()
    models = list(dict.fromkeys(summary["model"]))
    assert models[-3:] == ["Product GB", "Ambient HGB", "Klein HGB"]
    # The paper's tables keep the paper's models; boosting has its own table with its own tests.
    assert table5_markdown(summary, models).splitlines()[0].endswith("| Product DT | Product RF |")
    assert "Product GB" not in comparison_markdown(summary, load_paper_table5(), models)
    assert "Product GB" not in rank_markdown(summary, models)
    assert "| Product GB |" in timing_markdown(summary, models)
    table = boosting_markdown(summary, pairwise_tests(results)).splitlines()
    assert table[0].startswith(
        "| Task | Signature | Product GB | Product RF | Ambient HGB | Klein HGB | − Product RF |"
    )
    assert len(table) == 2 + 4  # header, alignment, one row per (task, signature) of the tiny preset
    # Ranks: the paper's models among themselves; the Compare page ranks every model the user picked.
    assert summary.loc[summary["family"] == "boosting", "rank"].isna().all()
    assert summarize(results, rank_all=True)["rank"].notna().all()


def test_the_benchmarks_page_shows_a_stored_run_with_boosting_and_reruns_it(tmp_path, monkeypatch):
    mixture = gaussian_mixture("H4", "classification", section="Synthetic (multi-K)", n_samples=120)
    results = run_benchmark([mixture], get_models(["knn", "product_rf", "product_gb"]), n_trials=3)
    results.attrs["wall_seconds"] = 1.0
    write_report(results, tmp_path, "multi-curvature", "a tiny stand-in for the stored preset")
    monkeypatch.setattr(stored, "RESULTS_DIR", tmp_path)
    at = start("pages/8_Benchmarks.py")
    text = "\n".join(m.value for m in at.markdown)
    assert "| Section | Dataset | Task | Signature | k-NN | Product RF |" in text
    assert "| Task | Signature | Product GB | Product RF | − Product RF |" in text  # the Boosting tab
    at.selectbox(key="bench_preset").set_value("tiny").run()
    at.slider(key="bench_trials").set_value(1)
    at.button[0].click().run()
    assert_clean(at)
    rerun = at.session_state["ct:bench_rerun"]["results"]
    assert "Product GB" in set(rerun["model"]) and (rerun["error"] == "").all()


def test_the_inspector_shows_a_chosen_iteration_and_class_of_a_boosted_model():
    at = start("pages/2_Train.py")
    train_boosting(at, max_iter=4, max_leaf_nodes=5, early_stopping=False)
    gb = model(at).estimator
    at.switch_page("pages/4_Inspector.py").run()
    assert_clean(at)
    assert not any("is not one" in str(i.value) for i in at.info)
    at.number_input(key="insp_tree").set_value(2).run()
    assert_clean(at)
    if gb.n_trees_per_iteration_ > 1:
        box = next(s for s in at.selectbox if s.label == "Class")
        box.set_value(box.options[-1]).run()
        assert_clean(at)
    diagram = charts(at)[0]
    nodes = next(t for t in diagram["data"] if t.get("name") == "nodes")
    assert nodes["x"] is not None  # the chosen tree's diagram is drawn
    assert any("iteration 2" in str(c.value) for c in at.caption)
