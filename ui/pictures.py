"""Region pictures for the app's dataset and model: one call from a page to a figure.

Pure module (no Streamlit): composes :mod:`curvedtrees.viz` for a ``DataRecord`` and a
``ModelRecord``. The grid prediction (the expensive part) is separate
(:func:`regions_for`) so the app can cache it by model id and view.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from curvedtrees import viz

__all__ = ["MAX_POINTS", "Picture", "boundary_tree", "picture_figure", "reference_note", "regions_for",
           "resolve_view", "view_choices"]

# Points drawn per picture: enough to see the data, few enough to keep the page
# light (3-D markers cost more in the browser).
MAX_POINTS = {"flat": 3000, "3d": 1500}
REFERENCE_MODES = ("origin", "mean", "point")


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


def view_choices(signature) -> list[tuple[str, viz.View]]:
    """(label, view) for every picture the signature offers."""
    out = []
    for view in viz.available_views(signature):
        title, _ = viz.describe_view(view, signature)
        out.append((title, view))
    return out


def resolve_view(signature, key: str | None) -> viz.View:
    """The view named by ``key`` if it fits the signature, else the first one."""
    views = viz.available_views(signature)
    if key:
        try:
            return viz.View.from_key(key, signature)
        except ValueError:
            pass
    return views[0]


def regions_for(estimator, data, picture: Picture):
    """Grid and predictions of one picture: (ViewGrid, RegionGrid)."""
    bounds = viz.data_bounds(picture.view, data.signature, data.X) or None
    grid = viz.view_grid(picture.view, data.signature, picture.resolution, bounds)
    return grid, viz.predict_regions(estimator, grid, picture.reference(data))


def boundary_tree(model, tree_index: int = 0):
    """The single tree whose splits can be drawn (a tree, or one tree of a product forest), or None."""
    if model is None:
        return None
    est = model.estimator if hasattr(model, "estimator") else model
    if hasattr(est, "tree_") and hasattr(est.tree_, "normal"):
        return est
    trees = getattr(est, "estimators_", None)
    if trees is not None and len(trees) and hasattr(trees[0], "tree_") and hasattr(trees[0].tree_, "normal"):
        return trees[int(np.clip(tree_index, 0, len(trees) - 1))]
    return None


def reference_note(data, picture: Picture) -> str | None:
    """A sentence saying where the other components are held (None for a one-component signature)."""
    signature = data.signature
    shown = set(picture.view.components)
    others = [c for c in signature.components if c.index not in shown]
    slice_e = any(signature.components[c].kind == "E" and signature.components[c].dim > 2 for c in shown)
    if not others and not slice_e:
        return None
    names = ", ".join(f"{c} (component {c.index + 1})" for c in others) or "the other coordinates"
    if picture.ref_mode == "origin":
        where = "at their origin"
    elif picture.ref_mode == "mean":
        where = ("at the data's mean (per component: the Lorentzian centroid for H, the normalised mean "
                 "direction for S, the mean for E)")
    else:
        where = f"at data row {picture.ref_row}"
    return f"{names} held {where}; the regions are a slice of the product model."


def _points(data, model, view, max_points: int) -> viz.PointLayer:
    coords = viz.project_points(view, data.signature, data.X)
    is_test = np.zeros(len(data.X), dtype=bool)
    if model is not None and getattr(model, "source", "trained") == "trained" and len(model.test_idx):
        is_test[model.test_idx] = True
    if data.task == "classification":
        layer = viz.PointLayer(coords, class_index=data.class_index(), is_test=is_test, rows=np.arange(len(data.X)))
    else:
        layer = viz.PointLayer(coords, values=np.asarray(data.y, dtype=np.float64), is_test=is_test,
                               rows=np.arange(len(data.X)))
    return layer.take(viz.subsample(len(data.X), max_points))


def picture_figure(
    data,
    picture: Picture,
    model=None,
    grid_regions=None,
    show_points: bool = True,
    show_boundaries: bool = True,
    tree=None,
    styles: dict | None = None,
    boundary_nodes=None,
    marked_row: int | None = None,
    title: str | None = None,
    height: int | None = None,
):
    """The figure of one picture.

    Parameters
    ----------
    data : DataRecord
    picture : Picture
    model : ModelRecord, optional
        Supplies the train/test split of the points.
    grid_regions : (ViewGrid, RegionGrid), optional
        From :func:`regions_for` (cached by the app); without them the bare
        manifold is drawn with the points.
    tree : fitted tree estimator, optional
        Whose split boundaries to draw (default: :func:`boundary_tree` of ``model``).
    styles : dict of node -> style, optional
    boundary_nodes : iterable of int, optional
        Only these nodes' boundaries.
    marked_row : int, optional
        Data row to mark with a star.

    Returns
    -------
    plotly.graph_objects.Figure
    """
    view = picture.view
    signature = data.signature
    if grid_regions is not None:
        grid, regions = grid_regions
    else:
        bounds = viz.data_bounds(view, signature, data.X) or None
        grid = viz.view_grid(view, signature, min(picture.resolution, 60), bounds)
        regions = None
    three_d = view.kind in ("sphere", "torus")
    points = _points(data, model, view, MAX_POINTS["3d" if three_d else "flat"]) if show_points else None
    curves = []
    if show_boundaries:
        tree = tree if tree is not None else boundary_tree(model)
        if tree is not None:
            curves = viz.boundary_curves(tree, signature, view, picture.reference(data), grid, nodes=boundary_nodes)
    marked = None
    if marked_row is not None and 0 <= marked_row < len(data.X):
        pos = viz.project_points(view, signature, data.X[marked_row:marked_row + 1])
        marked = {k: float(v[0]) for k, v in pos.items()}
    value_range = None
    if data.task == "regression":
        y = np.asarray(data.y, dtype=np.float64)
        value_range = (float(np.min(y)), float(np.max(y)))
        if regions is not None:
            finite = regions.values[np.isfinite(regions.values)]
            if finite.size:
                value_range = (min(value_range[0], float(finite.min())), max(value_range[1], float(finite.max())))
    return viz.region_figure(grid, regions, points, curves, styles=styles, marked=marked,
                             class_names=data.class_names, value_range=value_range, title=title, height=height)
