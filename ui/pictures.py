"""Region pictures for the app's dataset and model: one call from a page to a figure.

Pure module (no Streamlit): composes :mod:`curvedtrees.viz` for a ``DataRecord`` and a
``ModelRecord``. The grid prediction (the expensive part) is separate
(:func:`regions_for`) so the app can cache it by model id and view.

World pictures: an S2 component that the dataset marks as the Earth
(``Dataset.globe``: landmasses, city temperatures, latitude/longitude uploads) is
drawn with coastlines and a graticule, in natural colours for land and water, and
can also be shown on a flat world map and a turning orthographic globe. When the
product has a circle beside the globe whose steps the data makes plain (the
months of the temperatures), the picture is predicted at every step and plays
through them in the browser (:func:`frame_steps`).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from curvedtrees import coords, viz

from ui.boosted_trees import is_boosted, iteration_tree

__all__ = [
    "LECTURE_COLUMN_ZOOM",
    "MAX_NODE_LABELS",
    "MAX_POINTS",
    "MAX_STEPS",
    "FrameSteps",
    "Layers",
    "Picture",
    "PictureRegions",
    "boundary_note",
    "boundary_tree",
    "default_layers",
    "frame_steps",
    "globe_components",
    "is_world",
    "labelled_nodes",
    "picked_row",
    "picture_figure",
    "reference_note",
    "regions_for",
    "replay_for",
    "replay_styles",
    "resolve_layers",
    "resolve_view",
    "view_choices",
    "world_coastlines",
]

# Points drawn per picture: enough to see the data, few enough to keep the page
# light (3-D markers cost more in the browser; an orthographic globe sends them once per frame).
MAX_POINTS = {"flat": 3000, "3d": 1500, "ortho": 1000}
REFERENCE_MODES = ("origin", "mean", "point")
# A circle beside the globe is animated when its data takes at most this many angles (steps).
MAX_STEPS = 24
# Above this many rows a picture opens without its points (they would hide the regions).
MANY_POINTS = 5000
# A replay sends every frame's boundaries to the browser at once (each frame repeats the curves of the
# splits it has): the replay of a tree with more splits than this draws fewer curves than a still
# picture, with fewer samples each (still smooth at about 3 px per sample across a 700 px disk).
# Inspector, a fully grown tree of 3,700 splits at resolution 120: 681 MB of JSON in 39 s with every
# curve, 20 MB in 3 s with 300 curves of 400 samples, 9.8 MB (4.9 MB of it the regions) in 2.5 s with these.
REPLAY_MAX_CURVES = 120
REPLAY_CURVE_POINTS = 200
# Node ids a picture writes at most, besides highlighted nodes': past about 30, ids overlap into an
# unreadable heap (a depth-7 tree's 120 ids did); the largest splits are the ones a class talks about.
MAX_NODE_LABELS = 30
# Camera zoom of the Inspector's 3-D picture in lecture mode: its column (3/5 of the page, sidebar
# folded) is at least 432 px from an 800 px window, against the 340 px the default framing fits.
LECTURE_COLUMN_ZOOM = 1.4


@dataclass(frozen=True)
class Picture:
    """What to draw: a view, where other components sit, and the grid size."""

    view: viz.View
    ref_mode: str = "origin"
    ref_row: int = 0
    resolution: int = 150

    def reference(self, data) -> np.ndarray:
        return viz.reference_point(data.signature, data.X, self.ref_mode, self.ref_row)

    def key(self, data) -> tuple:
        """Hashable description (cache key together with the model id)."""
        ref = tuple(np.round(self.reference(data), 12).tolist())
        return self.view.key, ref, int(self.resolution)


class PictureRegions(NamedTuple):
    """Predictions of one picture: the grid, its regions, and the frames of an animated one."""

    grid: viz.ViewGrid
    regions: viz.RegionGrid
    frames: tuple = ()
    frame_names: tuple = ()
    active: int = 0


@dataclass(frozen=True)
class FrameSteps:
    """The steps of a circle outside the picture at which a world picture is predicted and played.

    Attributes
    ----------
    component : int
        Index of the S1 component.
    angles : tuple of float
        Radians, one per frame.
    names : tuple of str
        Slider labels ("Jan", ...).
    label : str
        What the slider sets.
    """

    component: int
    angles: tuple
    names: tuple
    label: str


def globe_components(data) -> tuple[int, ...]:
    """The S2 components of ``data`` that are the Earth (``Dataset.globe``; empty for older records)."""
    return tuple(getattr(data.dataset, "globe", ()) or ())


def is_world(data, view: viz.View) -> bool:
    """Whether ``view`` draws a component of ``data`` that is the globe."""
    return view.kind in viz.views.SPHERE_KINDS and view.components[0] in globe_components(data)


def world_coastlines():
    """The shipped coastlines ``(lat, lon)`` (NaN-separated degrees), read once."""
    from curvedtrees.datasets.geo import coastlines

    return coastlines()


def view_choices(signature, globe=()) -> list[tuple[str, viz.View]]:
    """(label, view) for every picture the signature offers (world maps for ``globe`` components)."""
    out = []
    for view in viz.available_views(signature, globe=globe):
        title, _ = viz.describe_view(view, signature)
        out.append((title, view))
    return out


def frame_steps(data, view: viz.View) -> FrameSteps | None:
    """The circle steps a world picture plays through, or None.

    A globe (sphere or map) in a product with an S1 component is predicted at
    each step of that circle when the dataset names the steps
    (``extra["circle_steps"]``, such as the temperatures' months) or when its data
    takes at most ``MAX_STEPS`` distinct angles. An orthographic globe is
    animated by turning instead, so it gets none.
    """
    if view.kind not in ("sphere", "map") or not is_world(data, view):
        return None
    signature = data.signature
    circles = [c for c in signature.components if c.kind == "S" and c.dim == 1 and c.index not in view.components]
    if not circles:
        return None
    comp = circles[0]
    extra = getattr(data.dataset, "extra", None) or {}
    declared = (extra.get("circle_steps") or {}).get(comp.index)
    if declared:
        names = tuple(str(n) for n in declared)
        angles = tuple(2.0 * np.pi * k / len(names) for k in range(len(names)))
        label = "month" if len(names) == 12 else f"{comp.name} (component {comp.index + 1})"
        return FrameSteps(comp.index, angles, names, label)
    angles = np.unique(np.round(coords.circle_to_angle(data.X[:, comp.slice], curvature=comp.curvature), 9))
    if not 2 <= len(angles) <= MAX_STEPS:
        return None
    names = tuple(f"{np.degrees(a):.0f}°" for a in angles)
    if len(set(names)) != len(names):
        names = tuple(f"{np.degrees(a):.2f}°" for a in angles)
    return FrameSteps(
        comp.index, tuple(float(a) for a in angles), names, f"angle of {comp.name} (component {comp.index + 1})"
    )


def _step_references(data, reference: np.ndarray, steps: FrameSteps) -> tuple[list[np.ndarray], int]:
    """The reference point at every step, and the step nearest to the reference itself (shown first)."""
    comp = data.signature.components[steps.component]
    held = float(coords.circle_to_angle(reference[comp.slice][None, :], curvature=comp.curvature)[0])
    gaps = [abs((a - held + np.pi) % (2.0 * np.pi) - np.pi) for a in steps.angles]
    refs = []
    for angle in steps.angles:
        ref = np.array(reference, dtype=np.float64)
        ref[comp.slice] = coords.angle_to_circle(np.array([angle]), curvature=comp.curvature)[0]
        refs.append(ref)
    return refs, int(np.argmin(gaps))


def default_layers(data, model, estimator=None) -> tuple[bool, bool]:
    """(show points, show split boundaries) when the user has not chosen.

    Points hide the regions of a large dataset (without a model they are all
    there is to see); the boundaries drawn are those of one tree, which say
    little about a forest's averaged regions or a boosted model's summed ones.

    Parameters
    ----------
    data : DataRecord
    model : ModelRecord or None
    estimator : fitted estimator, optional
        What the picture predicts with, when not ``model.estimator`` (the
        Inspector draws a single pruned tree of a forest).
    """
    estimator = estimator if estimator is not None else (model.estimator if model is not None else None)
    if estimator is None:
        return True, False
    return len(data.X) <= MANY_POINTS, getattr(estimator, "estimators_", None) is None and not is_boosted(estimator)


def resolve_view(signature, key: str | None, globe=()) -> viz.View:
    """The view named by ``key`` if it fits the signature, else the first one."""
    views = viz.available_views(signature, globe=globe)
    if key:
        try:
            return viz.View.from_key(key, signature)
        except ValueError:
            pass
    return views[0]


def regions_for(estimator, data, picture: Picture) -> PictureRegions:
    """Grid and predictions of one picture (at every step of :func:`frame_steps` when it has any).

    Returns
    -------
    PictureRegions
        ``(grid, regions)`` first, so it unpacks like a pair's first two items;
        ``frames`` holds one RegionGrid per step, ``regions`` the one shown first.
    """
    bounds = viz.data_bounds(picture.view, data.signature, data.X) or None
    grid = viz.view_grid(picture.view, data.signature, picture.resolution, bounds)
    reference = picture.reference(data)
    steps = frame_steps(data, picture.view)
    if steps is None:
        return PictureRegions(grid, viz.predict_regions(estimator, grid, reference))
    references, active = _step_references(data, reference, steps)
    frames = tuple(viz.predict_frames(estimator, grid, references))
    return PictureRegions(grid, frames[active], frames, steps.names, active)


def replay_for(tree, data, picture: Picture) -> viz.Replay:
    """The regions of ``tree`` after each number of its splits over one picture (one pass over the grid)."""
    bounds = viz.data_bounds(picture.view, data.signature, data.X) or None
    grid = viz.view_grid(picture.view, data.signature, picture.resolution, bounds)
    reference = picture.reference(data)
    # Sphere and torus replays share one set of smooth edge pieces, recoloured per frame.
    return viz.smooth_replay(tree, viz.replay_regions(tree, grid, reference), reference)


def replay_styles(replay: viz.Replay, styles: dict | None = None) -> list[dict]:
    """The boundaries each frame of a replay draws: its splits, the newest highlighted.

    ``styles`` (node -> "path" or "selected", original ids) mark nodes in every frame
    that has their split; the selected node keeps its colour even when it is the newest.
    """
    styles = styles or {}
    out = []
    for frame in range(len(replay.steps)):
        drawn = {int(node): "split" for node in replay.nodes(frame)}
        newest = replay.newest(frame)
        if newest is not None:
            drawn[newest] = "newest"
        for node, style in styles.items():
            if int(node) in drawn and style in ("path", "selected"):
                if style == "path" and drawn[int(node)] == "newest":
                    continue
                drawn[int(node)] = style
        out.append(drawn)
    return out


def boundary_tree(model, tree_index: int = 0):
    """The single tree whose splits can be drawn, or None.

    A product tree itself; tree ``tree_index`` of a product forest; or, of a product
    gradient-boosting model, tree ``tree_index = iteration * n_trees_per_iteration_ + k``
    (:func:`ui.boosted_trees.iteration_tree`: a regression tree of raw-score contributions).
    """
    if model is None:
        return None
    est = model.estimator if hasattr(model, "estimator") else model
    if hasattr(est, "tree_") and hasattr(est.tree_, "normal"):
        return est
    if is_boosted(est):
        return iteration_tree(est, tree_index)
    trees = getattr(est, "estimators_", None)
    if trees is not None and len(trees) and hasattr(trees[0], "tree_") and hasattr(trees[0].tree_, "normal"):
        return trees[int(np.clip(tree_index, 0, len(trees) - 1))]
    return None


def boundary_note(tree, view: viz.View, replay: bool = False) -> str | None:
    """A sentence saying which splits of ``tree`` a picture draws, when it cannot draw them all (else None).

    A picture draws at most ``viz.boundaries.MAX_BOUNDARY_CURVES`` split curves (a replay of a
    big tree ``REPLAY_MAX_CURVES``) besides highlighted ones: those of the splits that hold the
    most training rows.
    """
    if tree is None:
        return None
    total = len(viz.boundaries.ranked_splits(tree, view.components))
    big_replay = replay and len(viz.split_order(tree)) > REPLAY_MAX_CURVES
    budget = REPLAY_MAX_CURVES if big_replay else viz.boundaries.MAX_BOUNDARY_CURVES
    if total <= budget:
        return None
    return (
        f"The tree has {total:,} splits on this picture: the {budget} that hold the most training rows are drawn "
        "(the tree cut back from its root), and any highlighted ones, so that the picture stays quick to draw."
    )


def labelled_nodes(tree, view: viz.View, keep=(), limit: int = MAX_NODE_LABELS) -> set[int] | bool:
    """Which split ids a picture of ``tree`` writes: all (True) when at most ``limit``, else the largest.

    Parameters
    ----------
    tree : fitted tree estimator or its ``tree_``
    view : viz.View
        Only splits on its components count (the others draw no curve).
    keep : iterable of int
        Highlighted nodes (selected, a point's path): always labelled.
    limit : int
        Labels besides those of ``keep``.

    Returns
    -------
    True, or a set of node ids: the ``limit`` splits that hold the most training rows
    (:func:`viz.boundaries.ranked_splits`) and ``keep``.
    """
    ranked = viz.boundaries.ranked_splits(tree, view.components)
    if len(ranked) <= limit:
        return True
    return {int(v) for v in ranked[:limit]} | {int(v) for v in keep}


def _count_in_legend(fig, curves, tree, view: viz.View, keep, budget: int) -> None:
    """Name the plain boundaries' legend entry "n of N splits drawn" when the budget left some out."""
    total = len(viz.boundaries.ranked_splits(tree, view.components))
    if total <= budget or sum(c.node not in keep for c in curves) < budget:
        return
    for trace in fig.data:
        if trace.name == "split boundary" and trace.showlegend:
            trace.name = f"{len(curves):,} of {total:,} splits drawn"


def reference_note(data, picture: Picture) -> str | None:
    """A sentence saying where the other components are held (None for a one-component signature)."""
    signature = data.signature
    shown = set(picture.view.components)
    others = [c for c in signature.components if c.index not in shown]
    slice_e = any(signature.components[c].kind == "E" and signature.components[c].dim > 2 for c in shown)
    if not others and not slice_e:
        return None
    steps = frame_steps(data, picture.view)
    if steps is not None:
        others = [c for c in others if c.index != steps.component]
        played = (
            f"The picture plays through the {steps.label}s ({steps.names[0]} to {steps.names[-1]}) of "
            f"{signature.components[steps.component]} (component {steps.component + 1}): use the slider or "
            "Play below it."
        )
        if not others and not slice_e:
            return played
    names = ", ".join(f"{c} (component {c.index + 1})" for c in others) or "the other coordinates"
    if picture.ref_mode == "origin":
        where = "at their origin"
    elif picture.ref_mode == "mean":
        where = (
            "at the data's mean (per component: the Lorentzian centroid for H, the normalised mean "
            "direction for S, the mean for E)"
        )
    else:
        where = f"at data row {picture.ref_row}"
    held = f"{names} held {where}; the regions are a slice of the product model."
    return f"{played} {held}" if steps is not None else held


def _points(data, model, view, max_points: int, steps: FrameSteps | None = None) -> viz.PointLayer:
    coords = viz.project_points(view, data.signature, data.X)
    is_test = np.zeros(len(data.X), dtype=bool)
    if model is not None and getattr(model, "source", "trained") == "trained" and len(model.test_idx):
        is_test[model.test_idx] = True
    rows = np.arange(len(data.X))
    if steps is not None:
        # A picture that plays through a circle's steps marks where the data is, one grey point per
        # place: each place has a row per step, and their colours belong to different frames.
        comp = data.signature.components[view.components[0]]
        _, first = np.unique(np.round(data.X[:, comp.slice], 9), axis=0, return_index=True)
        layer = viz.PointLayer(coords, is_test=is_test, rows=rows).take(np.sort(first))
    elif data.task == "classification":
        layer = viz.PointLayer(coords, class_index=data.class_index(), is_test=is_test, rows=rows)
    else:
        layer = viz.PointLayer(coords, values=np.asarray(data.y, dtype=np.float64), is_test=is_test, rows=rows)
    return layer.take(viz.subsample(len(layer), max_points))


@dataclass(frozen=True)
class Layers:
    """What a picture draws over its regions, as the pages choose it.

    Attributes
    ----------
    show_points, show_boundaries : bool, optional
        Default to :func:`default_layers` (boundaries also whenever ``tree`` is given).
    tree : fitted tree estimator, optional
        Whose split boundaries to draw (default: :func:`boundary_tree` of the model).
        Not drawn on a picture that plays through frames (they hold for one frame), except
        a replay of this tree.
    styles : dict of node -> style, optional
        Boundary styles (original node ids): "path", "newest", "selected".
    boundary_nodes : iterable of int, optional
        Only these nodes' boundaries.
    marked_row : int, optional
        Data row to mark with a star (explain a point).
    label_nodes : bool
        Write node ids next to the boundaries: every split's when the picture has at
        most ``MAX_NODE_LABELS``, else the largest splits' and the highlighted ones'
        (:func:`labelled_nodes`).
    highlight_node : int, optional
        A node of ``tree`` whose region stays bright (every other cell pale), with its
        two sides labelled with the rule (a split) or its prediction (a leaf).
    replay_frame : int, optional
        The frame a replay shows first (default: the last, the whole tree).
    compared_tree : fitted estimator, optional
        Another model whose split boundaries are drawn dashed over the regions: a product
        tree, or a Klein wrapper of one scikit-learn decision tree (a lesson sets the
        midpoint rule's boundary beside the maximum-margin one). A figure shared between
        sessions names it in its model key (:func:`ui.widgets.show_picture`).
    compared_name : str
        The legend's name of the dashed boundaries.
    boundary_names : dict of str to str, optional
        Legend names of boundary styles (``viz.Overlay.boundary_names``).
    """

    show_points: bool | None = None
    show_boundaries: bool | None = None
    tree: object = None
    styles: dict | None = None
    boundary_nodes: tuple | None = None
    marked_row: int | None = None
    label_nodes: bool = False
    highlight_node: int | None = None
    replay_frame: int | None = None
    compared_tree: object = None
    compared_name: str = "compared boundary"
    boundary_names: dict | None = None

    def keep(self) -> set[int]:
        """The highlighted nodes, drawn whatever the budget of curves."""
        keep = {int(v) for v in (self.styles or {})}
        return keep | ({int(self.highlight_node)} if self.highlight_node is not None else set())


def resolve_layers(layers: Layers, data, model, estimator=None) -> Layers:
    """``layers`` with its points and boundaries decided: :func:`default_layers` where the page did not choose.

    Boundaries are drawn by default also whenever ``layers.tree`` is given (a tree passed in is meant
    to be drawn). ``estimator``: what the picture predicts with, when not the model's.
    """
    auto_points, auto_bounds = default_layers(data, model, estimator)
    auto_bounds = auto_bounds or layers.tree is not None
    return dataclasses.replace(
        layers,
        show_points=auto_points if layers.show_points is None else bool(layers.show_points),
        show_boundaries=auto_bounds if layers.show_boundaries is None else bool(layers.show_boundaries),
    )


def _shown(data, picture: Picture, source, layers: Layers):
    """(grid, regions, animation or None, steps or None) of what ``source`` gives a picture.

    ``source`` is a :class:`viz.Replay` (its frames restyle the boundaries: :func:`replay_styles`),
    a :class:`PictureRegions` (or its first two items, ``(grid, regions)``), or None: the bare
    manifold on a coarse grid. ``steps`` are the circle's steps a picture plays through.
    """
    if isinstance(source, viz.Replay):
        animation = source.animation(replay_styles(source, layers.styles), layers.replay_frame)
        regions = animation.frames[animation.active]
        return regions.grid, regions, animation, None
    if source is None:
        bounds = viz.data_bounds(picture.view, data.signature, data.X) or None
        return viz.view_grid(picture.view, data.signature, min(picture.resolution, 60), bounds), None, None, None
    if not isinstance(source, PictureRegions):
        source = PictureRegions(*source)
    if not source.frames:
        return source.grid, source.regions, None, None
    steps = frame_steps(data, picture.view)
    label = steps.label if steps is not None else "frame"
    animation = viz.Animation(tuple(source.frames), tuple(source.frame_names), int(source.active), label)
    return source.grid, source.regions, animation, steps


def _curves(data, picture: Picture, grid, tree, layers: Layers, replay) -> tuple[list, int]:
    """The boundary curves a picture of ``tree`` draws, and the budget they were drawn within."""
    big_replay = replay is not None and len(replay.order) > REPLAY_MAX_CURVES
    budget = REPLAY_MAX_CURVES if big_replay else viz.boundaries.MAX_BOUNDARY_CURVES
    curves = viz.boundary_curves(
        tree,
        data.signature,
        picture.view,
        picture.reference(data),
        grid,
        nodes=layers.boundary_nodes,
        max_curves=budget,
        n_points=REPLAY_CURVE_POINTS if big_replay else viz.boundaries.N_CURVE_POINTS,
        keep=layers.keep(),
    )
    return curves, budget


def picked_row(event, n_rows: int) -> int | None:
    """The data row of the point a click on a picture selected, or None.

    ``event`` is the chart's selection state (``st.plotly_chart(on_select="rerun")``): the
    points traces carry each point's row as ``customdata`` (``viz.PointLayer.rows``); a click
    on a region cell, a boundary or a label carries none. A row outside ``0 .. n_rows - 1``
    (a picture of other data) is ignored.
    """
    points = ((event or {}).get("selection") or {}).get("points") or []
    for point in points:
        value = point.get("customdata") if isinstance(point, dict) else None
        if isinstance(value, list | tuple) and len(value) == 1:
            value = value[0]
        if isinstance(value, bool) or not isinstance(value, int | float) or not float(value).is_integer():
            continue
        if 0 <= int(value) < n_rows:
            return int(value)
    return None


def _compared_curves(data, picture: Picture, grid, estimator) -> list:
    """The split boundaries of ``layers.compared_tree`` in a picture (none when there is no such tree)."""
    if estimator is None:
        return []
    if hasattr(getattr(estimator, "tree_", None), "normal"):
        return viz.boundary_curves(
            estimator,
            data.signature,
            picture.view,
            picture.reference(data),
            grid,
            max_curves=viz.boundaries.MAX_BOUNDARY_CURVES,
        )
    return viz.boundaries.klein_boundary_curves(estimator, picture.view, picture.reference(data), grid)


def _marked(data, view, row: int | None) -> dict | None:
    """Picture coordinates of data row ``row`` (None when there is none)."""
    if row is None or not 0 <= row < len(data.X):
        return None
    pos = viz.project_points(view, data.signature, data.X[row : row + 1])
    return {k: float(v[0]) for k, v in pos.items()}


def _colors(data, shown, world: bool) -> viz.Colors:
    """Class names, a regression's range over the targets and the ``shown`` regions, world colours."""
    value_range = None
    if data.task == "regression":
        y = np.asarray(data.y, dtype=np.float64)
        value_range = (float(np.min(y)), float(np.max(y)))
        for regions in shown:
            finite = regions.values[np.isfinite(regions.values)]
            if finite.size:
                value_range = (min(value_range[0], float(finite.min())), max(value_range[1], float(finite.max())))
    unit = (getattr(data.dataset, "extra", None) or {}).get("target_unit")
    value_title = f"predicted {unit}" if unit else None
    if not world:
        return viz.Colors(data.class_names, None, value_range, value_title)
    # Targets of both signs on the globe (temperatures) get a scale that is white at zero.
    diverging = value_range is not None and value_range[0] < 0 < value_range[1]
    return viz.Colors(data.class_names, viz.world_class_colors(data.class_names), value_range, value_title, diverging)


def _highlight(data, model, tree, grid, picture: Picture, node: int):
    """The region of ``node`` of ``tree`` in the picture, with the margin band of the training rows."""
    train = np.ones(len(data.X), dtype=bool)
    if model is not None and getattr(model, "source", "trained") == "trained" and len(model.test_idx):
        train[model.test_idx] = False
    train_rows = np.flatnonzero(train)
    return viz.treeview.node_region(
        tree,
        node,
        grid,
        picture.reference(data),
        data.signature,
        class_names=data.class_names,
        X_train=data.X[train_rows],
        rows_train=train_rows,
    )


def _picture_points(data, model, view, layers: Layers, steps) -> viz.PointLayer | None:
    """The data points a picture draws (places only on a picture that plays through a circle's steps)."""
    if not layers.show_points:
        return None
    # A turning globe holds the circle at one step, but its points come from every step: places only.
    places = steps or (
        frame_steps(data, viz.View("sphere", view.components, view.axes)) if view.kind == "ortho" else None
    )
    size = "ortho" if view.kind == "ortho" else "3d" if view.kind in ("sphere", "torus") else "flat"
    return _points(data, model, view, MAX_POINTS[size], places)


def picture_figure(data, picture: Picture, model=None, source=None, *, layers: Layers | None = None, framing=None):
    """The figure of one picture.

    Parameters
    ----------
    data : DataRecord
    picture : Picture
    model : ModelRecord, optional
        Supplies the train/test split of the points.
    source : PictureRegions, (ViewGrid, RegionGrid), viz.Replay or None
        What the regions are: :func:`regions_for` (cached by the app; with frames when the
        picture plays through a circle's steps), or :func:`replay_for` of ``layers.tree``
        (the picture plays the tree's splits one by one in the browser: regions and
        boundaries per frame, ``layers.styles`` as in :func:`replay_styles`). Without one
        the bare manifold is drawn with the points.
    layers : Layers, optional
        What is drawn over the regions.
    framing : viz.Framing, optional
        Title, height, the wide lecture framing, a 3-D camera's zoom (the facing direction
        of a sphere or an orthographic globe is the data's).

    Returns
    -------
    plotly.graph_objects.Figure
    """
    view, layers = picture.view, layers if layers is not None else Layers()
    layers = resolve_layers(layers, data, model, layers.tree)
    grid, regions, animation, steps = _shown(data, picture, source, layers)
    replay = source if isinstance(source, viz.Replay) else None
    tree, curves, budget = layers.tree, [], viz.boundaries.MAX_BOUNDARY_CURVES
    if layers.show_boundaries and (animation is None or replay is not None):
        tree = tree if tree is not None else boundary_tree(model)
        if tree is not None:
            curves, budget = _curves(data, picture, grid, tree, layers, replay)
    highlight = None
    if layers.highlight_node is not None and tree is not None and regions is not None:
        highlight = _highlight(data, model, tree, grid, picture, layers.highlight_node)
    world = is_world(data, view)
    compared = _compared_curves(data, picture, grid, layers.compared_tree) if layers.show_boundaries else []
    overlay = viz.Overlay(
        points=_picture_points(data, model, view, layers, steps),
        boundaries=curves,
        styles=layers.styles,
        label_nodes=labelled_nodes(tree, view, layers.keep()) if layers.label_nodes and curves else False,
        highlight=highlight,
        marked=_marked(data, view, layers.marked_row),
        coastlines=world_coastlines() if world else None,
        compared=compared,
        compared_name=layers.compared_name,
        boundary_names=layers.boundary_names,
    )
    places = _step_targets(data, view, overlay.points, steps, animation)
    if places is not None:  # the places wear their true value of the month shown, on the field's scale
        overlay = dataclasses.replace(
            overlay, points=dataclasses.replace(overlay.points, values=places[animation.active])
        )
    framing = framing if framing is not None else viz.Framing()
    if view.kind in ("sphere", "ortho"):
        framing = dataclasses.replace(framing, facing=viz.facing_direction(view, data.signature, data.X))
    shown = animation.frames if animation is not None else ((regions,) if regions is not None else ())
    fig = viz.region_figure(
        grid, regions, overlay, colors=_colors(data, shown, world), framing=framing, animation=animation
    )
    if curves:
        _count_in_legend(fig, curves, tree, view, layers.keep(), budget)
    if steps is not None and animation is not None:
        _name_steps(fig, data, steps, animation, places, overlay.points)
    return fig


# ---- world pictures that play through a circle's steps (the temperatures' months)
def _step_targets(data, view, points, steps, animation) -> np.ndarray | None:
    """The target of each drawn place at every step, shape (n_steps, n_points); None unless regression.

    A place has one row per step (a city's temperature each month); a place without a row at some
    step gets NaN there.
    """
    if points is None or steps is None or animation is None or data.task != "regression" or points.rows is None:
        return None
    place = data.signature.components[view.components[0]]
    circle = data.signature.components[steps.component]
    _, owner = np.unique(np.round(data.X[:, place.slice], 9), axis=0, return_inverse=True)
    owner = owner.ravel()
    angles = coords.circle_to_angle(data.X[:, circle.slice], curvature=circle.curvature)
    turns = np.asarray(steps.angles, dtype=np.float64)
    # The step nearest to each row's angle, around the circle (MAX_STEPS columns at most).
    step = np.abs((angles[:, None] - turns[None, :] + np.pi) % (2.0 * np.pi) - np.pi).argmin(axis=1)
    table = np.full((len(turns), int(owner.max()) + 1), np.nan)
    table[step, owner] = np.asarray(data.y, dtype=np.float64)
    return table[:, owner[np.asarray(points.rows)]]


def _name_steps(fig, data, steps, animation, places, points) -> None:
    """Each frame names its step in the picture's title, and recolours the places with that step's values."""
    extra = getattr(data.dataset, "extra", None) or {}
    unit = extra.get("target_unit")
    title = fig.layout.legend.title.text if fig.layout.legend.title.text else None
    base = f"Predicted {unit}" if unit and data.task == "regression" else (title or "").replace("<b>", "")
    base = base.replace("</b>", "")

    def named(name: str) -> str:
        return f"<b>{base} in {name}</b>" if unit else f"<b>{base} · {steps.label} {name}</b>"

    fig.update_layout(legend={"title": {"text": named(animation.labels()[animation.active])}})
    traces, colours = [], []
    if places is not None and points is not None:
        is_test = np.zeros(len(points), bool) if points.is_test is None else np.asarray(points.is_test, bool)
        for index, trace in enumerate(fig.data):
            part = {"training points": ~is_test, "test points": is_test}.get(trace.name)
            if part is not None and part.any():
                traces.append(index)
                colours.append((type(trace), part))
    frames = []
    for k, (frame, name) in enumerate(zip(fig.frames, animation.labels())):
        recoloured = [kind(marker={"color": places[k][part].astype(np.float32)}) for kind, part in colours]
        frames.append(
            type(frame)(
                data=[*frame.data, *recoloured],
                traces=[*frame.traces, *traces],
                name=frame.name,
                layout={"legend": {"title": {"text": named(name)}}},
            )
        )
    fig.frames = frames
