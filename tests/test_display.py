"""curvedtrees.viz.RegionDisplay / TreeDisplay: one call per picture, every view, labels of any dtype, clear errors."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from curvedtrees import viz
from curvedtrees.boosting import ProductGradientBoostingClassifier
from curvedtrees.sampling import make_classification, make_regression
from curvedtrees.trees import (
    ProductDecisionTreeClassifier,
    ProductDecisionTreeRegressor,
    ProductRandomForestClassifier,
)
from curvedtrees.viz import RegionDisplay, TreeDisplay
from curvedtrees.viz.figures.framing import WIDE_FRAMING
from sklearn.exceptions import NotFittedError
from sklearn.tree import DecisionTreeClassifier

SIGNATURE = "H2 x S2 x E2 x S1 x S1 x E1"
NAMES = np.array(["cat", "dog", "eel"])


@pytest.fixture(scope="module")
def data():
    X, y = make_classification(SIGNATURE, n_samples=240, n_classes=3, random_state=0)
    return X, y


@pytest.fixture(scope="module")
def tree(data):
    X, y = data
    return ProductDecisionTreeClassifier(signature=SIGNATURE, max_depth=4, random_state=0).fit(X, NAMES[y])


@pytest.fixture(scope="module")
def forest(data):
    X, y = data
    return ProductRandomForestClassifier(4, signature=SIGNATURE, max_depth=3, random_state=0).fit(X, y)


def spec(display) -> dict:
    return json.loads(display.figure_.to_json())


def names_of(display) -> list[str]:
    return [t.get("name") for t in spec(display)["data"]]


# ------------------------------------------------------------------ views
@pytest.mark.parametrize(
    ("component", "view", "kind", "model", "trace"),
    [
        (0, None, "disk", "poincare", "heatmap"),
        (0, "klein", "disk", "klein", "heatmap"),
        (1, None, "sphere", "poincare", "surface"),
        (1, "map", "map", "poincare", "heatmap"),
        (1, "ortho", "ortho", "poincare", None),
        (2, None, "plane", "poincare", "heatmap"),
        (3, None, "circle", "poincare", "barpolar"),
        ((3, 4), None, "torus", "poincare", "surface"),
        (3, "torus", "torus", "poincare", "surface"),
        (5, None, "line", "poincare", "heatmap"),
    ],
)
def test_every_view_is_one_call(tree, data, component, view, kind, model, trace):
    X, y = data
    display = RegionDisplay.from_estimator(tree, X, NAMES[y], component=component, view=view, resolution=16)
    assert display.view.kind == kind and display.view.model == model
    if kind == "torus":
        assert display.view.components == (3, 4)
    figure = spec(display)
    assert trace is None or any(t["type"] == trace for t in figure["data"])
    # The title says what is drawn, and the classes are the estimator's, by name.
    assert viz.describe_view(display.view, SIGNATURE)[0] in json.dumps(figure["layout"], ensure_ascii=False)
    legend = {t.get("name") for t in figure["data"] if t.get("showlegend", True)}
    assert kind == "ortho" or {"cat", "dog", "eel"} <= legend


def test_h1_component_is_a_line():
    X, y = make_classification("H1 x E1", n_samples=80, random_state=0)
    model = ProductDecisionTreeClassifier(signature="H1 x E1", max_depth=2).fit(X, y)
    assert RegionDisplay.from_estimator(model, X, y, resolution=20).view.kind == "line"


def test_a_view_object_chooses_the_axes():
    X, y = make_classification("S3", n_samples=80, random_state=0)
    model = ProductDecisionTreeClassifier(signature="S3", max_depth=2).fit(X, y)
    view = viz.View("sphere", (0,), (1, 2, 3))
    assert RegionDisplay.from_estimator(model, X, y, view=view, resolution=12).view == view


def test_framed_for_a_notebook_cell(tree, data):
    X, y = data
    display = RegionDisplay.from_estimator(tree, X, NAMES[y], component=1, resolution=12)
    layout = spec(display)["layout"]
    # The wide framing (a column of 736 px or more), width left to the cell.
    assert layout["height"] == WIDE_FRAMING["sphere"][0]
    assert "width" not in layout
    camera = layout["scene"]["camera"]["eye"]
    assert np.linalg.norm(list(camera.values())) < 2.05  # closer than the app's narrow column's camera
    display.plot(width=900, height=700, title="mine")
    layout = spec(display)["layout"]
    assert (layout["width"], layout["height"], layout["title"]["text"]) == (900, 700, "mine")


# ------------------------------------------------------------------ labels of any dtype
@pytest.mark.parametrize(
    "labels",
    [
        lambda y: y,
        lambda y: y.astype(np.float64),
        lambda y: NAMES[y],
        lambda y: pd.Series(pd.Categorical(NAMES[y])),
        lambda y: list(NAMES[y]),
    ],
    ids=["int", "float", "str", "categorical", "list"],
)
def test_labels_of_any_dtype_colour_the_points(data, labels):
    X, y = data
    fitted = labels(y)
    model = ProductDecisionTreeClassifier(signature=SIGNATURE, max_depth=3).fit(X, fitted)
    display = RegionDisplay.from_estimator(model, X, fitted, resolution=12, max_points=1000)
    points = display.overlay.points
    assert len(points) == len(X)
    # Each point's class index names its own label.
    classes = np.asarray(model.classes_)
    assert [str(c) for c in classes[points.class_index]] == [str(v) for v in np.asarray(fitted, dtype=object)]
    assert display.colors.class_names == [str(c) for c in classes]


def test_bool_labels(data):
    X, y = data
    flag = y == 1
    model = ProductDecisionTreeClassifier(signature=SIGNATURE, max_depth=2).fit(X, flag)
    display = RegionDisplay.from_estimator(model, X, flag, resolution=12)
    assert display.colors.class_names == ["False", "True"]
    assert (display.overlay.points.class_index == flag[display.overlay.points.rows]).all()


def test_float_labels_match_integer_classes(tree, data):
    X, y = data
    model = ProductDecisionTreeClassifier(signature=SIGNATURE, max_depth=2).fit(X, y)
    display = RegionDisplay.from_estimator(model, X, y.astype(np.float32), resolution=12)
    assert (display.overlay.points.class_index == y[display.overlay.points.rows]).all()


def test_label_indices():
    assert viz.label_indices(np.array(["b", "a"]), ["a", "b"]).tolist() == [1, 0]
    assert viz.label_indices([2.0, 0], np.array([0, 2])).tolist() == [1, 0]


def test_regression_targets():
    X, target = make_regression("H2 x E1", n_samples=120, random_state=0)
    model = ProductDecisionTreeRegressor(signature="H2 x E1", max_depth=3).fit(X, target)
    display = RegionDisplay.from_estimator(model, X, pd.Series(target), resolution=16)
    assert display.regions.task == "regression"
    np.testing.assert_allclose(display.overlay.points.values, target[display.overlay.points.rows])
    with pytest.raises(ValueError, match=r"y holds regression targets \(numbers\); row 0 is 'a'"):
        RegionDisplay.from_estimator(model, X, np.array(["a"] * len(X), dtype=object), resolution=8)


def test_class_names_rename_the_legend(tree, data):
    X, y = data
    display = RegionDisplay.from_estimator(tree, X, NAMES[y], resolution=12, class_names=["Cat", "Dog", "Eel"])
    assert {"Cat", "Dog", "Eel"} <= set(names_of(display))
    with pytest.raises(ValueError, match="class_names has 2 names for the estimator's 3 classes"):
        display.plot(class_names=["a", "b"])


# ------------------------------------------------------------------ errors
def test_labels_not_among_the_classes(tree, data):
    X, y = data
    wrong = NAMES[y].astype(object)
    wrong[5] = "fox"
    with pytest.raises(ValueError, match=r"1 label\(s\) that are not among the estimator's classes_ .*'fox' .*row 5"):
        RegionDisplay.from_estimator(tree, X, wrong, resolution=8)
    with pytest.raises(ValueError, match="not among the estimator's classes_"):
        RegionDisplay.from_estimator(tree, X, y, resolution=8)  # integers for a tree fitted on strings
    missing = NAMES[y].astype(object)
    missing[0] = None
    with pytest.raises(ValueError, match=r"None .*row 0"):
        RegionDisplay.from_estimator(tree, X, missing, resolution=8)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"y": NAMES[:3]}, "y has 3 labels for the 240 rows of X"),
        ({"component": 6}, r"component must be a component's index, 0 to 5"),
        ({"component": (0, 1, 2)}, "component is one index, or two for a torus"),
        ({"component": 0, "view": "sphere"}, r"cannot show the component H2; component 0 \(H2\) can be drawn as: disk"),
        ({"component": 1, "view": "globe"}, "unknown view kind 'globe'"),
        ({"component": (0, 1), "view": "disk"}, "two components make a torus view"),
        ({"component": (0, 1)}, "a torus view needs two different S1 components"),
        ({"held": "median"}, "held must be 'mean', 'origin', a row of X"),
        ({"held": 999}, "reference row must be between 0 and 239"),
        ({"held": np.zeros(3)}, r"held as a point must have shape \(13,\)"),
        ({"held": np.zeros(13)}, r"held has points off the manifold .*row 0 has x0 = 0 <= 0"),
        ({"resolution": 2}, "resolution must be an integer between 4 and 2000"),
        ({"boundaries": "yes"}, "boundaries must be 'auto', True, False or a tree's index"),
        ({"max_points": -1}, "max_points must be a non-negative integer"),
    ],
)
def test_bad_arguments_say_what_is_wrong(tree, data, kwargs, message):
    X, y = data
    kwargs = {"y": NAMES[y], "resolution": 8, **kwargs}
    with pytest.raises(ValueError, match=message):
        RegionDisplay.from_estimator(tree, X, **kwargs)


def test_torus_needs_a_second_circle():
    X, y = make_classification("S1 x E1", n_samples=80, random_state=0)
    model = ProductDecisionTreeClassifier(signature="S1 x E1", max_depth=2).fit(X, y)
    with pytest.raises(ValueError, match="has no other S1 beside component 0"):
        RegionDisplay.from_estimator(model, X, y, view="torus")


def test_bad_x_and_unfitted_estimators(tree, data):
    X, y = data
    with pytest.raises(ValueError, match="X"):
        RegionDisplay.from_estimator(tree, X[:, :5])
    with pytest.raises(NotFittedError):
        RegionDisplay.from_estimator(ProductDecisionTreeClassifier(signature=SIGNATURE), X)
    with pytest.raises(ValueError, match="y colours the points of X: pass X with it"):
        RegionDisplay.from_estimator(tree, None, NAMES[y])


def test_scikit_learn_estimators_need_the_signature(data):
    X, y = data
    model = DecisionTreeClassifier(max_depth=3, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match=r"DecisionTreeClassifier has no signature_ .*pass signature="):
        RegionDisplay.from_estimator(model, X, y)
    display = RegionDisplay.from_estimator(model, X, y, signature=SIGNATURE, resolution=12)
    assert display.regions.task == "classification" and display.overlay.boundaries == []


def test_klein_wrappers_on_other_input_models_are_refused():
    from curvedtrees.coords import hyperboloid_to_poincare
    from curvedtrees.klein import KleinTreeClassifier

    X, y = make_classification("H2", n_samples=80, random_state=0)
    model = KleinTreeClassifier(DecisionTreeClassifier(max_depth=2), signature="H2", input_model="poincare")
    model.fit(hyperboloid_to_poincare(X), y)
    with pytest.raises(ValueError, match="reads H components as 'poincare' coordinates"):
        RegionDisplay.from_estimator(model)


def test_point_layer_refuses_labels_that_are_not_class_indices():
    coords = {"x": np.zeros(3), "y": np.zeros(3)}
    with pytest.raises(ValueError, match=r"class_index holds class indices .*str values such as 'a'"):
        viz.PointLayer(coords, class_index=np.array(["a", "b", "a"]))
    with pytest.raises(ValueError, match=r"class_index must have shape \(3,\)"):
        viz.PointLayer(coords, class_index=np.zeros(2, dtype=int))
    with pytest.raises(ValueError, match=r"PointLayer\.values holds regression targets"):
        viz.PointLayer(coords, values=np.array(["a", "b", "c"], dtype=object))
    layer = viz.PointLayer(coords, class_index=np.array([0.0, 2.0, 1.0]))
    assert layer.class_index.dtype == np.int64 and layer.class_index.tolist() == [0, 2, 1]
    assert viz.PointLayer(coords, class_index=[True, False, True]).class_index.tolist() == [1, 0, 1]


# ------------------------------------------------------------------ boundaries, points, size
def test_boundaries_auto_for_a_tree_not_a_forest(tree, forest, data):
    X, y = data
    assert RegionDisplay.from_estimator(tree, X, NAMES[y], resolution=12).overlay.boundaries
    assert not RegionDisplay.from_estimator(forest, X, y, resolution=12).overlay.boundaries
    drawn = RegionDisplay.from_estimator(forest, X, y, resolution=12, boundaries=2).overlay.boundaries
    expected = viz.boundary_curves(forest.estimators_[2], SIGNATURE, viz.View("disk", (0,), (1, 2)), _mean(X))
    assert [c.node for c in drawn] == [c.node for c in expected]
    with pytest.raises(ValueError, match="tree must be between 0 and 3 for this forest, got 4"):
        RegionDisplay.from_estimator(forest, X, y, resolution=8, boundaries=4)
    assert not RegionDisplay.from_estimator(tree, X, NAMES[y], resolution=12, boundaries=False).overlay.boundaries


def _mean(X):
    return viz.reference_point(SIGNATURE, X, "mean")


def test_held_modes(tree, data):
    X, y = data
    mean = RegionDisplay.from_estimator(tree, X, NAMES[y], resolution=8)
    np.testing.assert_allclose(mean.reference, _mean(X))
    origin = RegionDisplay.from_estimator(tree, X, NAMES[y], resolution=8, held="origin")
    np.testing.assert_allclose(origin.reference, viz.reference_point(SIGNATURE))
    row = RegionDisplay.from_estimator(tree, X, NAMES[y], resolution=8, held=7)
    np.testing.assert_allclose(row.reference, X[7])
    point = RegionDisplay.from_estimator(tree, X, NAMES[y], resolution=8, held=X[3])
    np.testing.assert_allclose(point.reference, X[3])
    # Without data the other components are held at their origin, and no points are drawn.
    bare = RegionDisplay.from_estimator(tree, resolution=8)
    np.testing.assert_allclose(bare.reference, viz.reference_point(SIGNATURE))
    assert bare.overlay.points is None


def test_points_are_subsampled(tree, data):
    X, y = data
    display = RegionDisplay.from_estimator(tree, X, NAMES[y], component=1, resolution=8, max_points=50)
    assert len(display.overlay.points) == 50
    default = RegionDisplay.from_estimator(tree, X, NAMES[y], component=1, resolution=8)
    assert len(default.overlay.points) == len(X)  # under the default cap


def test_default_resolution_keeps_figures_light(forest, data):
    X, y = data
    # The disk's heatmap has several pixels a cell, its region edges drawn at the crossings (issue 25).
    for component, view, limit in ((0, None, 600_000), (1, None, 400_000), (1, "ortho", 800_000)):
        display = RegionDisplay.from_estimator(forest, X, y, component=component, view=view)
        assert display.grid.shape[1] <= viz.display.RESOLUTIONS[display.view.kind] * 2
        assert len(display.figure_.to_json()) < limit


def test_coastlines_draw_the_world(data):
    X, y = make_classification("S2", n_samples=80, random_state=0)
    labels = np.array(["water", "land"])[y % 2]
    model = ProductDecisionTreeClassifier(signature="S2", max_depth=2).fit(X, labels)
    lat = np.array([0.0, 10.0, np.nan, 20.0])
    lon = np.array([0.0, 10.0, np.nan, 30.0])
    display = RegionDisplay.from_estimator(model, X, labels, view="map", resolution=12, coastlines=(lat, lon))
    assert "coastlines" in [trace.get("name") for trace in spec(display)["data"]]
    assert display.colors.colors == viz.world_class_colors(["land", "water"])
    with pytest.raises(ValueError, match="coastlines' lat and lon must be 1-D of one length"):
        display.plot(coastlines=(lat, lon[:2]))


def test_a_display_shows_as_its_figure(tree, data):
    X, y = data
    display = RegionDisplay.from_estimator(tree, X, NAMES[y], resolution=8)
    html = display._repr_html_()
    assert "plotly-graph-div" in html and "on the Poincar" in html
    assert display._repr_mimebundle_().keys() == display.figure_._repr_mimebundle_().keys()


# ------------------------------------------------------------------ the tree display
def test_tree_display_of_a_tree_forest_and_boosting(tree, forest, data):
    X, y = data
    one = TreeDisplay.from_estimator(tree, title="a tree")
    nodes = next(t for t in one.figure_.data if t.name == "nodes")
    assert len(nodes.x) == tree.tree_.node_count  # every node fits 900 px
    assert "a tree" in json.dumps(spec(one)["layout"]["title"])
    assert {"cat", "dog", "eel"} <= set(nodes.text)  # leaves labelled by class name
    third = TreeDisplay.from_estimator(forest, tree=3)
    assert third.estimator is forest.estimators_[3]
    boosted = ProductGradientBoostingClassifier(max_iter=3, signature=SIGNATURE, max_depth=2).fit(X, y)
    shown = TreeDisplay.from_estimator(boosted, tree=1)
    assert shown.estimator.tree_.node_count > 1
    with pytest.raises(ValueError, match=r"tree: tree index must be an integer in \[0, 9\)"):
        TreeDisplay.from_estimator(boosted, tree=9)
    with pytest.raises(ValueError, match="tree must be an integer"):
        TreeDisplay.from_estimator(forest, tree="first")
    with pytest.raises(ValueError, match="DecisionTreeClassifier has no product trees to draw"):
        TreeDisplay.from_estimator(DecisionTreeClassifier().fit(X, y))
    with pytest.raises(NotFittedError):
        TreeDisplay.from_estimator(ProductDecisionTreeClassifier())


def test_the_gallery_draws_pictures_through_the_displays():
    from pathlib import Path

    examples = sorted((Path(__file__).resolve().parents[1] / "docs" / "examples").rglob("*.py"))
    texts = {path.name: path.read_text(encoding="utf-8") for path in examples}
    # The many-call pipeline stays behind the displays in the gallery.
    for name, text in texts.items():
        for call in ("region_figure(", "predict_regions(", "view_grid(", "tree_figure("):
            assert call not in text, f"docs/examples/{name} calls {call[:-1]}: use RegionDisplay / TreeDisplay"
    drawing = [name for name, text in texts.items() if "RegionDisplay.from_estimator(" in text]
    assert {"plot_regions.py", "plot_globe.py", "plot_tree_forest_boosting.py"} <= set(drawing)
    assert "TreeDisplay.from_estimator(" in texts["plot_inside_a_tree.py"]


def test_dataframes_and_pipelines(data):
    import warnings

    from sklearn.pipeline import make_pipeline

    X, y = data
    frame = pd.DataFrame(X, columns=[f"x{i}" for i in range(X.shape[1])])
    model = ProductDecisionTreeClassifier(signature=SIGNATURE, max_depth=3).fit(frame, NAMES[y])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no "X does not have valid feature names" from the grid's rows
        display = RegionDisplay.from_estimator(model, frame, pd.Series(NAMES[y]), component=2, resolution=12)
    assert display.view.kind == "plane" and len(display.overlay.points) == len(X)
    pipeline = make_pipeline(ProductDecisionTreeClassifier(signature=SIGNATURE, max_depth=3)).fit(X, y)
    shown = RegionDisplay.from_estimator(pipeline, X, y, signature=SIGNATURE, resolution=12)
    assert shown.colors.class_names == ["0", "1", "2"] and shown.overlay.boundaries == []
