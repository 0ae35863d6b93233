"""Figure JSON of the app's pictures, written one file per figure, to compare two versions of the code.

The pictures are built through the functions the pages call (``ui.pictures.picture_figure``,
``replay_for``, ``regions_for``, the ``curvedtrees.viz`` builders), with the arguments the
pages pass (``draw`` mirrors ``ui.widgets.show_picture`` without Streamlit): every view kind
(Poincaré and Klein disk, plane, line, circle, sphere, torus, world map, orthographic globe),
classification and regression, with points, boundaries, node ids, a highlighted node with its
margin band, an explained point; the home page's demos (``ui.data.DEMOS``); every lesson step
(``ui.lessons.LESSONS``, in normal and lecture framing); replays on the disk, the sphere and the
torus of a tree, a forest's tree and a boosted tree; the world pictures (landmasses on the globe,
map and turning globe, temperatures animated by month); wide and zoomed framing; the tree diagram
and a node's class distribution; and the Inspector's texts (a node's details, a point's path).

Usage::

    python scripts/figure_catalogue.py write OUT_DIR [--only SUBSTRING]
    python scripts/figure_catalogue.py compare DIR_A DIR_B

``write`` stores ``NAME.json``: the figure's ``to_json()`` exactly as Plotly writes it (texts:
``json.dumps`` with sorted keys). ``compare`` counts the files that are byte-identical, and those
identical after the one normalisation it applies (every JSON object's keys sorted, since the
order in which a builder sets properties does not change the figure), and lists the others with
the first traces or layout keys that differ.

The script adds the repository to the end of ``sys.path``: run it with ``PYTHONPATH`` pointing
at another checkout (its ``ui`` and a ``curvedtrees`` link to its ``engine``) to write that
checkout's figures.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.append(str(ROOT))  # after PYTHONPATH: another checkout given there wins

import numpy as np  # noqa: E402

# ------------------------------------------------------------------ models of the catalogue
_TREE = {"family": "product_tree", "params": {"max_depth": 4, "min_samples_leaf": 5}, "test_size": 0.25, "seed": 0}
_FOREST = {
    "family": "product_forest",
    "params": {"n_estimators": 4, "max_depth": 5, "min_samples_leaf": 3},
    "test_size": 0.25,
    "seed": 0,
}
_BOOSTING = {
    "family": "product_boosting",
    "params": {"max_iter": 6, "max_leaf_nodes": 8, "min_samples_leaf": 5},
    "test_size": 0.25,
    "seed": 0,
}


class Catalogue:
    """Builds and caches the datasets and models, and writes every figure."""

    def __init__(self, out: Path | None, only: str | None = None):
        from ui import data as appdata
        from ui import training

        self.appdata, self.training = appdata, training
        self.out, self.only = out, only
        self._data: dict = {}
        self._models: dict = {}
        self.count = 0

    # --------------------------------------------------------------- inputs
    def data(self, recipe: dict):
        key = json.dumps(recipe, sort_keys=True)
        if key not in self._data:
            self._data[key] = self.appdata.build_dataset(recipe)
        return self._data[key]

    def model(self, data, recipe: dict):
        key = (data.hash, json.dumps(recipe, sort_keys=True))
        if key not in self._models:
            self._models[key] = self.training.train_from_recipe(data, recipe)
        return self._models[key]

    def wanted(self, name: str) -> bool:
        return self.only is None or self.only in name

    # --------------------------------------------------------------- outputs
    def figure(self, name: str, fig) -> None:
        self.count += 1
        if self.out is not None:
            text = json.dumps({"error": fig.message}) if isinstance(fig, Failed) else fig.to_json()
            (self.out / f"{name}.json").write_text(text)

    def text(self, name: str, value) -> None:
        self.count += 1
        if self.out is not None:
            (self.out / f"{name}.json").write_text(json.dumps(value, sort_keys=True, default=str, indent=1))


# ------------------------------------------------------------------ the pages' calls
@dataclass(frozen=True)
class Failed:
    """A picture whose builder raised (the page shows the error): the exception, kept for the comparison."""

    message: str


# The cases name their options as the pages chose them; picture_figure takes them in two records.
_LAYER_OPTIONS = (
    "show_points",
    "show_boundaries",
    "tree",
    "styles",
    "boundary_nodes",
    "marked_row",
    "label_nodes",
    "highlight_node",
    "replay_frame",
)
_FRAMING_OPTIONS = ("title", "height", "wide", "zoom")


def figure(data, picture, model=None, grid_regions=None, **options):
    """``ui.pictures.picture_figure`` with the options the pages pass (or what it raised)."""
    from curvedtrees import viz

    from ui import pictures

    replay = options.pop("replay", None)
    layers = pictures.Layers(**{k: options.pop(k) for k in _LAYER_OPTIONS if k in options})
    framing = viz.Framing(**{k: options.pop(k) for k in _FRAMING_OPTIONS if k in options})
    if options:
        raise TypeError(f"unknown picture options {sorted(options)}")
    source = replay if replay is not None else grid_regions
    try:
        return pictures.picture_figure(data, picture, model, source, layers=layers, framing=framing)
    except Exception as exc:  # the page turns it into a message; the catalogue keeps it to compare
        return Failed(f"{type(exc).__name__}: {exc}")


def draw(
    data, picture, model=None, *, estimator=None, show_points=None, show_boundaries=None, replay_k=None, **options
):
    """What ``ui.widgets.show_picture`` draws (the same defaults and calls, without Streamlit's caches)."""
    from curvedtrees import viz

    from ui import pictures

    auto_points, auto_bounds = pictures.default_layers(data, model, estimator)
    auto_bounds = auto_bounds or options.get("tree") is not None
    options["show_points"] = auto_points if show_points is None else bool(show_points)
    options["show_boundaries"] = auto_bounds if show_boundaries is None else bool(show_boundaries)
    title, _ = viz.describe_view(picture.view, data.signature)
    grid_regions = None
    est = estimator if estimator is not None else (model.estimator if model is not None else None)
    tree = options.get("tree")
    if replay_k is not None and tree is not None:
        replay = pictures.replay_for(tree, data, picture)
        options["replay"] = replay
        options["replay_frame"] = int(abs(replay.steps - int(replay_k)).argmin())
    elif est is not None:
        grid_regions = pictures.regions_for(est, data, picture)
    return figure(data, picture, model, grid_regions, title=title, **options)


def _picture(view, ref_mode="origin", ref_row=0, resolution=150):
    from ui.pictures import Picture

    return Picture(view, ref_mode, ref_row, resolution)


# ------------------------------------------------------------------ the cases
def home_demos(cat: Catalogue) -> None:
    """Home page: every demo on its own view and every other view of it, and the Data page's previews."""
    from curvedtrees import viz

    from ui.data import DEMOS
    from ui.pictures import globe_components, resolve_view

    for key, demo in DEMOS.items():
        if not cat.wanted(f"home-{key}"):
            continue
        data = cat.data(demo.data)
        model = cat.model(data, demo.model)
        first = resolve_view(data.signature, demo.view, globe=globe_components(data))
        views = [first] + [v for v in viz.available_views(data.signature, globe=globe_components(data)) if v != first]
        for view in views:
            cat.figure(f"home-{key}-{view.key}", draw(data, _picture(view), model))
            if view.kind == "disk":
                klein = view.with_model("klein")
                cat.figure(f"home-{key}-{klein.key}", draw(data, _picture(klein), model))
        cat.figure(
            f"data-{key}-preview",
            draw(data, _picture(first, resolution=150), None, show_boundaries=False, height=430),
        )
        cat.figure(
            f"data-{key}-upload",
            draw(data, _picture(viz.available_views(data.signature)[0], resolution=60), None, show_boundaries=False,
                 height=380),
        )  # fmt: skip


def regions_page(cat: Catalogue) -> None:
    """Regions page: boundaries and points toggled, a forest's and a boosted model's tree, lecture width."""
    from curvedtrees import viz

    from ui.data import DEMOS, synthetic_recipe
    from ui.pictures import boundary_note, boundary_tree, globe_components, resolve_view

    for key in ("poincare", "sphere", "torus", "product"):
        if not cat.wanted(f"regions-{key}"):
            continue
        demo = DEMOS[key]
        data = cat.data(demo.data)
        model = cat.model(data, demo.model)
        view = resolve_view(data.signature, demo.view)
        for points in (False, True):
            for bounds in (False, True):
                for wide in (False, True):
                    name = f"regions-{key}-{view.key}-p{int(points)}-b{int(bounds)}-w{int(wide)}"
                    fig = draw(data, _picture(view), model, show_points=points, show_boundaries=bounds, wide=wide)
                    cat.figure(name, fig)
        cat.figure(
            f"regions-{key}-{view.key}-mean-res60",
            draw(data, _picture(view, "mean", 0, 60), model, show_boundaries=True),
        )
        cat.figure(
            f"regions-{key}-{view.key}-row7",
            draw(data, _picture(view, "point", 7, 80), model, show_boundaries=True),
        )
        cat.text(f"regions-{key}-note", boundary_note(boundary_tree(model), view))
    # A forest and a boosted model: the boundaries of one of their trees over the ensemble's regions.
    for label, sig, n_classes, recipe in (
        ("forest", "H2 x S2", 3, _FOREST),
        ("boosted", "H2 x S2", 3, _BOOSTING),
        ("boosted2", "S2", 2, _BOOSTING),
    ):
        if not cat.wanted(f"regions-{label}"):
            continue
        data = cat.data(synthetic_recipe(sig, 400, n_classes, seed=5, cov_scale=0.3))
        model = cat.model(data, recipe)
        for view in viz.available_views(data.signature):
            for index in (0, 1):
                tree = boundary_tree(model, index)
                name = f"regions-{label}-{view.key}-tree{index}"
                cat.figure(name, draw(data, _picture(view), model, show_boundaries=True, tree=tree))
            cat.figure(f"regions-{label}-{view.key}-auto", draw(data, _picture(view), model))
    # World pictures with a forest's tree drawn: the budget of curves names itself in the legend.
    if cat.wanted("regions-landmass"):
        demo = DEMOS["landmass"]
        data = cat.data(demo.data)
        model = cat.model(data, demo.model)
        for view in viz.available_views(data.signature, globe=globe_components(data)):
            tree = boundary_tree(model, 3)
            for wide in (False, True):
                name = f"regions-landmass-{view.key}-tree3-w{int(wide)}"
                cat.figure(name, draw(data, _picture(view), model, show_boundaries=True, tree=tree, wide=wide))
            cat.text(f"regions-landmass-{view.key}-note", boundary_note(tree, view))


def regression(cat: Catalogue) -> None:
    """Regression on every view kind (disk, circle, line, plane, sphere, torus), with marks and highlights."""
    from curvedtrees import viz

    from ui.data import synthetic_recipe
    from ui.pictures import boundary_tree

    for sig in ("H2 x S1", "H1 x E1", "E2 x S2", "S1 x S1"):
        tag = sig.replace(" ", "")
        if not cat.wanted(f"regression-{tag}"):
            continue
        data = cat.data(synthetic_recipe(sig, 300, 3, task="regression", seed=2))
        model = cat.model(data, _TREE)
        tree = boundary_tree(model)
        for view in viz.available_views(data.signature):
            base = f"regression-{tag}-{view.key}"
            cat.figure(base, draw(data, _picture(view, resolution=80), model))
            cat.figure(
                f"{base}-marked-labels",
                draw(data, _picture(view, resolution=80), model, tree=tree, marked_row=5, label_nodes=True),
            )
            cat.figure(
                f"{base}-highlight-split",
                draw(data, _picture(view, resolution=80), model, tree=tree, highlight_node=0, styles={0: "selected"}),
            )
            leaf = int(np.flatnonzero(tree.tree_.children_left < 0)[0])
            cat.figure(f"{base}-highlight-leaf", draw(data, _picture(view, resolution=80), model, tree=tree,
                                                      highlight_node=leaf))  # fmt: skip


def classification_views(cat: Catalogue) -> None:
    """Classification on the plane, the line, the circle and a 3-D slice, with every overlay."""
    from curvedtrees import viz

    from ui.data import synthetic_recipe
    from ui.pictures import boundary_tree

    for sig in ("E2 x S1", "H1 x S1", "H3 x S3", "E3"):
        tag = sig.replace(" ", "")
        if not cat.wanted(f"views-{tag}"):
            continue
        data = cat.data(synthetic_recipe(sig, 300, 3, seed=6))
        model = cat.model(data, _TREE)
        tree = boundary_tree(model)
        path = {int(v): "path" for v in viz.decision_path_nodes(tree, data.X[11])}
        for view in viz.available_views(data.signature):
            base = f"views-{tag}-{view.key}"
            for ref in ("origin", "mean"):
                cat.figure(f"{base}-{ref}", draw(data, _picture(view, ref, 0, 70), model, show_points=True))
            cat.figure(
                f"{base}-everything",
                draw(
                    data,
                    _picture(view, resolution=70),
                    model,
                    tree=tree,
                    styles=path | {1: "selected"},
                    marked_row=11,
                    label_nodes=True,
                    highlight_node=1,
                    show_points=True,
                ),
            )
            cat.figure(f"{base}-only-nodes", draw(data, _picture(view, resolution=70), model, tree=tree,
                                                 boundary_nodes=[0, 1, 2], label_nodes=True))  # fmt: skip
            cat.figure(f"{base}-zoom", draw(data, _picture(view, resolution=70), model, tree=tree, zoom=1.4))
            cat.figure(f"{base}-bare", draw(data, _picture(view, resolution=70), None))
            cat.figure(f"{base}-height", draw(data, _picture(view, resolution=70), model, height=333, wide=True))


def lessons(cat: Catalogue) -> None:
    """Every lesson step as the Lessons page draws it, in normal and lecture framing."""
    from curvedtrees import viz

    from ui.lessons import LESSONS
    from ui.pictures import boundary_tree, resolve_view

    def lesson_picture(data, models, view_key, model_name, splits, wide):
        # pages/5_Lessons.py: picture()
        model = models[model_name]
        view = resolve_view(data.signature, view_key)
        shown = _picture(view, "origin", 0, 150)
        tree = boundary_tree(model)
        if splits == 0:
            return draw(data, shown, None, wide=wide)
        if tree is not None and splits is not None:
            pruned = viz.first_splits(tree, splits)
            styles = pruned.restyle({pruned.newest: "newest"}) if pruned.newest is not None else {}
            return draw(data, shown, model, estimator=pruned.estimator, tree=pruned.estimator, styles=styles, wide=wide)
        return draw(data, shown, model, wide=wide)

    for lesson in LESSONS:
        if not cat.wanted(f"lesson-{lesson.key}"):
            continue
        data = cat.data(lesson.data)
        models = {name: cat.model(data, recipe) for name, recipe in lesson.models.items()}
        for index, step in enumerate(lesson.steps):
            name = f"lesson-{lesson.key}-{index + 1}"
            if step.compare is None:
                for wide in (False, True):
                    fig = lesson_picture(data, models, step.view, step.model, step.splits, wide)
                    cat.figure(f"{name}-w{int(wide)}", fig)
            else:
                cat.figure(f"{name}-left", lesson_picture(data, models, step.view, step.model, step.splits, False))
                cat.figure(
                    f"{name}-right", lesson_picture(data, models, step.compare[0], step.compare[1], step.splits, False)
                )


def inspector(cat: Catalogue) -> None:
    """The Inspector: diagram, node details, distribution, and the replay picture with its highlights."""
    from curvedtrees import viz

    from ui.boosted_trees import is_boosted
    from ui.data import DEMOS, synthetic_recipe
    from ui.pictures import LECTURE_COLUMN_ZOOM, boundary_note, boundary_tree, resolve_view

    cases = []
    for key in ("poincare", "sphere", "torus", "product"):
        demo = DEMOS[key]
        cases.append((f"tree-{key}", demo.data, demo.model, demo.view, 0))
    forest_data = synthetic_recipe("S2 x H2", 400, 3, seed=5, cov_scale=0.3)
    cases.append(("forest-sphere", forest_data, _FOREST, "sphere:0:0-1-2:poincare", 2))
    cases.append(("forest-disk", forest_data, _FOREST, "disk:1:1-2:poincare", 1))
    torus_data = synthetic_recipe("S1 x S1", 300, 3, seed=2, cov_scale=0.3)
    cases.append(("boosted-torus", torus_data, _BOOSTING, "torus:0-1::poincare", 4))
    cases.append(("boosted-disk", synthetic_recipe("H2", 300, 2, seed=7), _BOOSTING, "disk:0:1-2:poincare", 3))
    cases.append(("boosted-sphere", forest_data, _BOOSTING, "sphere:0:0-1-2:poincare", 5))
    for label, data_recipe, model_recipe, view_key, tree_index in cases:
        if not cat.wanted(f"inspector-{label}"):
            continue
        data = cat.data(data_recipe)
        model = cat.model(data, model_recipe)
        tree = boundary_tree(model, tree_index)
        view = resolve_view(data.signature, view_key)
        n_splits = len(viz.split_order(tree))
        class_names = data.class_names if hasattr(tree, "classes_") else None
        leaf = int(np.flatnonzero(tree.tree_.children_left < 0)[-1])
        for k, row, node, lecture in (
            (n_splits, None, 0, False),
            (min(3, n_splits), 4, 0, False),
            (n_splits, 9, leaf, True),
            (min(1, n_splits), None, 0, True),
        ):
            name = f"inspector-{label}-k{k}-r{row}-n{node}-l{int(lecture)}"
            pruned = viz.first_splits(tree, k)
            kept = [int(v) for v in pruned.kept]
            node = node if node in kept else kept[0]
            styles = {}
            if row is not None:
                for v in viz.decision_path_nodes(pruned.estimator, data.X[row]):
                    styles[pruned.to_old(v)] = "path"
            if pruned.newest is not None:
                styles[pruned.newest] = "newest"
            size = {"width": 266, "font_size": 15} if lecture else {}
            if not lecture:
                size = {"width": viz.treeview.DIAGRAM_WIDTH, "font_size": viz.treeview.DIAGRAM_FONT}
            diagram = viz.tree_figure(
                pruned.estimator, class_names, styles=styles, id_map=pruned.kept, selected=int(node), **size
            )
            cat.figure(f"{name}-diagram", diagram)
            details = viz.node_details(pruned.estimator, pruned.to_new(node), class_names, id_map=pruned.kept)
            cat.text(f"{name}-details", details)
            if "distribution" in details:
                dist = viz.treeview.distribution_figure(details["distribution"], font_size=size["font_size"])
                cat.figure(f"{name}-distribution", dist)
            if row is not None:
                lines = viz.explain_path(pruned.estimator, data.X[row], class_names, id_map=pruned.kept)
                cat.text(f"{name}-path", lines)
            picture = _picture(view, "origin", 0, 120)
            picture_styles = {}
            if row is not None:
                picture_styles = dict.fromkeys(viz.decision_path_nodes(tree, data.X[row]), "path")
            if details["kind"] == "split":
                picture_styles[int(node)] = "selected"
            fig = draw(
                data,
                picture,
                model,
                estimator=tree,
                tree=tree,
                styles=picture_styles,
                marked_row=row,
                replay_k=k,
                label_nodes=True,
                highlight_node=int(node),
                zoom=LECTURE_COLUMN_ZOOM if lecture else None,
            )
            cat.figure(f"{name}-picture", fig)
            cat.text(f"{name}-note", [boundary_note(tree, view, replay=True), is_boosted(model.estimator)])
        # The full tree's diagram without a width (every node drawn) and with a fixed height.
        cat.figure(f"inspector-{label}-diagram-all", viz.tree_figure(tree, class_names, width=None, height=500))
        # A lesson-style still: the first splits drawn over the pruned tree's own regions.
        pruned = viz.first_splits(tree, min(2, n_splits))
        styles = pruned.restyle({pruned.newest: "newest"}) if pruned.newest is not None else {}
        cat.figure(
            f"inspector-{label}-pruned-still",
            draw(data, _picture(view, resolution=90), model, estimator=pruned.estimator, tree=pruned.estimator,
                 styles=styles),
        )  # fmt: skip


def world(cat: Catalogue) -> None:
    """Landmasses on the globe, the map and the turning globe; temperatures by month; side by side."""
    from curvedtrees import viz

    from ui.data import DEMOS
    from ui.pictures import globe_components

    for key in ("landmass", "temperatures"):
        if not cat.wanted(f"world-{key}"):
            continue
        demo = DEMOS[key]
        data = cat.data(demo.data)
        model = cat.model(data, demo.model)
        for view in viz.available_views(data.signature, globe=globe_components(data)):
            if view.kind not in ("sphere", "map", "ortho"):
                continue
            for wide in (False, True):
                cat.figure(f"world-{key}-{view.key}-w{int(wide)}", draw(data, _picture(view), model, wide=wide))
            cat.figure(f"world-{key}-{view.key}-res60-marked", draw(data, _picture(view, resolution=60), model,
                                                                   marked_row=12, show_points=True))  # fmt: skip
            cat.figure(f"world-{key}-{view.key}-bare", draw(data, _picture(view, resolution=60), None))


def side_by_side(cat: Catalogue) -> None:
    """The Side by side page: a model's picture with a two-line title."""
    from curvedtrees import viz

    from ui import pictures
    from ui.data import DEMOS

    for key in ("poincare", "product"):
        if not cat.wanted(f"sbs-{key}"):
            continue
        demo = DEMOS[key]
        data = cat.data(demo.data)
        model = cat.model(data, demo.model)
        for view in viz.available_views(data.signature)[:2]:
            picture = _picture(view, "origin", 0, 100)
            grid_regions = pictures.regions_for(model.estimator, data, picture)
            title = f"Product tree, depth 6<br><sup>{viz.describe_view(view, data.signature)[0]}</sup>"
            cat.figure(f"sbs-{key}-{view.key}", figure(data, picture, model, grid_regions, title=title))


def engine_builders(cat: Catalogue) -> None:
    """The viz builders called directly (as perf/ and the Train page do): regions, replays, a confusion matrix."""
    from curvedtrees import viz
    from curvedtrees.trees import ProductDecisionTreeClassifier, ProductDecisionTreeRegressor

    from ui.data import DEMOS

    if not cat.wanted("engine"):
        return
    data = cat.data(DEMOS["product"].data)
    X, y, signature = data.X, data.y, data.signature
    clf = ProductDecisionTreeClassifier(signature=signature, max_depth=5, random_state=0).fit(X, y)
    reg = ProductDecisionTreeRegressor(signature=signature, max_depth=4, random_state=0).fit(X, X[:, 1])
    reference = viz.reference_point(signature, X, "mean")
    for est, task in ((clf, "clf"), (reg, "reg")):
        for view in viz.available_views(signature):
            grid = viz.view_grid(view, signature, 64, viz.data_bounds(view, signature, X) or None)
            regions = viz.predict_regions(est, grid, reference)
            curves = viz.boundary_curves(est, signature, view, reference, grid)
            points = viz.PointLayer(viz.project_points(view, signature, X), class_index=data.class_index())
            overlay = viz.Overlay(points=points, boundaries=curves)
            cat.figure(f"engine-{task}-{view.key}", viz.region_figure(grid, regions, overlay))
            styles = {int(c.node): "path" for c in curves[:2]}
            cat.figure(
                f"engine-{task}-{view.key}-styled",
                viz.region_figure(
                    grid,
                    regions,
                    viz.Overlay(boundaries=curves, styles=styles, label_nodes={0, 1}),
                    framing=viz.Framing(title="styled", zoom=1.2),
                ),
            )
            if view.kind != "line":
                replay = viz.smooth_replay(est, viz.replay_regions(est, grid, reference), reference)
                styles_per_frame = [
                    {int(n): ("newest" if i == len(replay.nodes(f)) - 1 else "split") for i, n in
                     enumerate(replay.nodes(f))}
                    for f in range(len(replay.steps))
                ]  # fmt: skip
                animation = viz.Animation(
                    replay.frames,
                    names=[str(int(s)) for s in replay.steps],
                    active=2,
                    label="splits",
                    boundary_styles=styles_per_frame,
                )
                cat.figure(
                    f"engine-{task}-{view.key}-replay",
                    viz.region_figure(grid, None, viz.Overlay(boundaries=curves), animation=animation),
                )
    cat.figure("engine-confusion", viz.confusion_figure(np.array([[5, 1], [2, 7]]), ["a", "b"], title="confusion"))
    cat.figure("engine-confusion-empty-row", viz.confusion_figure(np.array([[0, 0], [2, 7]]), ["a", "b"]))


SECTIONS = (
    home_demos,
    regions_page,
    regression,
    classification_views,
    lessons,
    inspector,
    world,
    side_by_side,
    engine_builders,
)


# ------------------------------------------------------------------ comparison
def _sorted(value):
    return json.dumps(json.loads(value), sort_keys=True)


def _first_differences(a: str, b: str, limit: int = 4) -> list[str]:
    """Which traces (by index and name), frames or layout keys differ, after sorting keys."""
    left, right = json.loads(a), json.loads(b)
    out = []
    if isinstance(left, dict) and "data" in left:
        if len(left["data"]) != len(right.get("data", [])):
            out.append(f"{len(left['data'])} traces against {len(right.get('data', []))}")
        for k, (ta, tb) in enumerate(zip(left["data"], right.get("data", []))):
            if ta != tb:
                keys = sorted(key for key in set(ta) | set(tb) if ta.get(key) != tb.get(key))
                out.append(f"trace {k} ({ta.get('type')} {ta.get('name')!r}): {keys}")
        la, lb = left.get("layout", {}), right.get("layout", {})
        keys = sorted(key for key in set(la) | set(lb) if la.get(key) != lb.get(key))
        if keys:
            out.append(f"layout: {keys}")
        if left.get("frames") != right.get("frames"):
            out.append("frames")
    elif left != right:
        out.append("value")
    return out[:limit]


def compare(dir_a: Path, dir_b: Path) -> int:
    names_a = {p.name for p in dir_a.glob("*.json")}
    names_b = {p.name for p in dir_b.glob("*.json")}
    both = sorted(names_a & names_b)
    identical = normalised = 0
    differing = []
    for name in both:
        a, b = (dir_a / name).read_text(), (dir_b / name).read_text()
        if a == b:
            identical += 1
        elif _sorted(a) == _sorted(b):
            normalised += 1
        else:
            differing.append((name, _first_differences(a, b)))
    print(f"{len(both)} outputs in both directories ({len(names_a)} in {dir_a}, {len(names_b)} in {dir_b})")
    print(f"  byte-identical:                     {identical}")
    print(f"  identical with every key sorted:    {normalised}")
    print(f"  different:                          {len(differing)}")
    for name in sorted(names_a ^ names_b):
        print(f"  only in {'A' if name in names_a else 'B'}: {name}")
    for name, where in differing:
        print(f"  {name}: {'; '.join(where)}")
    return 0 if not differing and names_a == names_b else 1


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    write = sub.add_parser("write", help="write every figure's JSON into a directory")
    write.add_argument("out", type=Path)
    write.add_argument("--only", help="only cases whose name contains this")
    cmp = sub.add_parser("compare", help="compare two directories written by 'write'")
    cmp.add_argument("a", type=Path)
    cmp.add_argument("b", type=Path)
    args = parser.parse_args(argv)
    if args.command == "compare":
        return compare(args.a, args.b)
    args.out.mkdir(parents=True, exist_ok=True)
    import curvedtrees

    print(f"curvedtrees from {Path(curvedtrees.__file__).parent}")
    cat = Catalogue(args.out, args.only)
    for section in SECTIONS:
        started = time.process_time()
        before = cat.count
        section(cat)
        spent = time.process_time() - started
        print(f"{section.__name__}: {cat.count - before} outputs, {spent:.1f} CPU-s", flush=True)
    print(f"{cat.count} outputs written to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
