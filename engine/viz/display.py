"""One-call pictures of a fitted estimator, in the style of scikit-learn's displays.

:class:`RegionDisplay` draws the decision regions of one component (or a pair of circles) of a
product, with the data points and a tree's split boundaries; :class:`TreeDisplay` draws a tree
as a node-link diagram. As with :class:`sklearn.inspection.DecisionBoundaryDisplay`, the class
method ``from_estimator`` computes everything and draws it, and the display keeps what it drew
(``figure_``) and what it computed, so that :meth:`RegionDisplay.plot` can draw it again with
other framing without predicting again.

Both are built on the public picture pipeline only (:func:`~curvedtrees.viz.regions.compute_regions`,
:func:`~curvedtrees.viz.boundaries.boundary_curves`,
:func:`~curvedtrees.viz.figures.region_figure` and its records,
:func:`~curvedtrees.viz.treeview.tree_figure`). They are framed for a notebook cell or a
documentation page (about 900 px wide): the wide framing of
:class:`~curvedtrees.viz.figures.options.Framing`, not the app's narrow column.

There is no ``from_predictions``: a region picture predicts at cells of the picture that are
not data rows, so it needs the estimator itself.
"""

from __future__ import annotations

import dataclasses
import numbers

import numpy as np
from sklearn.base import is_classifier
from sklearn.utils.validation import check_is_fitted

from ..manifolds.product import ProductManifold
from ..manifolds.signature import Signature
from .boundaries import MAX_BOUNDARY_CURVES, boundary_curves
from .figures import Colors, Framing, Overlay, PointLayer, region_figure, subsample
from .figures.options import _point_values
from .palette import world_class_colors
from .regions import RegionGrid, compute_regions
from .treeview import DIAGRAM_FONT, tree_figure
from .views import View, ViewGrid, available_views, data_bounds, describe_view, facing_direction, project_points
from .views import reference_point as _reference_point

__all__ = ["MAX_POINTS", "NOTEBOOK_WIDTH", "RESOLUTIONS", "RegionDisplay", "TreeDisplay", "label_indices"]

# A notebook cell (JupyterLab, VS Code) or a documentation page's column is about this wide (px); the
# displays frame their pictures for it: Framing(wide=True), made for a column of at least 736 px.
NOTEBOOK_WIDTH = 900
# Grid resolution of each view kind by default: the cells across the picture. The figure's JSON grows
# with the square of it (see BENCHMARKS.md, "Gallery figure sizes"); these keep a region picture of
# a few hundred kB while its region edges still read smooth at NOTEBOOK_WIDTH.
RESOLUTIONS = {
    "disk": 140,
    "plane": 140,
    "line": 300,
    "map": 120,
    "ortho": 80,
    "sphere": 60,
    "torus": 60,
    "circle": 360,
}
# Data points drawn at most by default (a fixed subsample beyond): enough to see the data, light to send
# (3-D markers cost more in the browser; a turning globe sends its points once per frame).
MAX_POINTS = {"sphere": 1000, "torus": 1000, "ortho": 400}
FLAT_MAX_POINTS = 1500
# Held components: where the components a picture does not show are held.
HELD_MODES = ("mean", "origin")
# Names of a view accepted besides the view kinds: the disk in either model.
_DISK_MODELS = {"disk": "poincare", "poincare": "poincare", "klein": "klein"}


# ------------------------------------------------------------------ labels
def label_indices(y, classes) -> np.ndarray:
    """The position of every label of ``y`` in ``classes``: labels of any dtype as class indices.

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        Labels: strings, integers, floats, booleans or a pandas categorical, as the estimator
        was fitted on (an integer label and the same whole float are the same class).
    classes : array-like of shape (n_classes,)
        An estimator's ``classes_``.

    Returns
    -------
    ndarray of int64, shape (n_samples,)

    Raises
    ------
    ValueError
        When ``y`` is not one-dimensional, or holds missing labels or labels that are not
        among ``classes`` (the message names a few and counts the rows).

    Examples
    --------
    >>> from curvedtrees.viz import label_indices
    >>> label_indices(["b", "a", "b"], classes=["a", "b"]).tolist()
    [1, 0, 1]
    >>> label_indices([1.0, 0.0], classes=[0, 1]).tolist()
    [1, 0]
    """
    labels = np.asarray(y, dtype=object)
    if labels.ndim != 1:
        raise ValueError(f"y must be one-dimensional, one label per row; got shape {labels.shape}")
    lookup = {}
    for index, label in enumerate(np.asarray(classes, dtype=object).tolist()):
        lookup.setdefault(_plain(label), index)
    out = np.empty(len(labels), dtype=np.int64)
    missing = []
    for row, label in enumerate(labels.tolist()):
        found = lookup.get(_plain(label))
        if found is None:
            missing.append(row)
            found = -1
        out[row] = found
    if missing:
        shown = sorted({repr(labels[row]) for row in missing[:200]})[:5]
        raise ValueError(
            f"y holds {len(missing)} label(s) that are not among the estimator's classes_ "
            f"{_few(classes)}: {', '.join(shown)} (first at row {missing[0]}); pass the labels the "
            "estimator was fitted on (missing labels cannot be drawn: drop those rows)"
        )
    return out


def _plain(label):
    """A label as a hashable Python value that compares across dtypes (numpy scalars, whole floats)."""
    if isinstance(label, np.generic):
        label = label.item()
    if isinstance(label, float) and label.is_integer():
        return int(label)
    return label


def _few(values, n: int = 6) -> str:
    values = list(np.asarray(values, dtype=object).tolist())
    shown = ", ".join(repr(v) for v in values[:n])
    return f"[{shown}{', ...' if len(values) > n else ''}]"


# ------------------------------------------------------------------ estimators
def _signature(estimator, signature) -> Signature:
    """The signature of the estimator's input: ``signature`` if given, else its ``signature_``."""
    if signature is None:
        signature = getattr(estimator, "signature_", None)
    if signature is None:
        raise ValueError(
            f"{type(estimator).__name__} has no signature_ (curvedtrees' estimators set one when fitted): "
            "pass signature=, the signature of the ambient coordinates it was fitted on, e.g. 'H2 x E1'"
        )
    input_model = getattr(estimator, "input_model", "hyperboloid")
    if input_model != "hyperboloid":
        raise ValueError(
            f"{type(estimator).__name__} reads H components as {input_model!r} coordinates; a region "
            "picture predicts ambient (hyperboloid) rows: fit it with input_model='hyperboloid'"
        )
    return Signature.parse(signature)


def _single_tree(estimator, tree: int, what: str):
    """The product tree ``tree`` of ``estimator`` (itself when it is one), or a ValueError."""
    if hasattr(getattr(estimator, "tree_", None), "normal"):
        return estimator
    if not isinstance(tree, numbers.Integral) or isinstance(tree, bool):
        raise ValueError(f"tree must be an integer (a tree's index), got {tree!r}")
    tree = int(tree)
    if hasattr(estimator, "tree_estimator"):
        try:
            return estimator.tree_estimator(tree)
        except IndexError as error:
            raise ValueError(f"tree: {error}") from None
    trees = getattr(estimator, "estimators_", None)
    if trees is not None and len(trees) and hasattr(getattr(trees[0], "tree_", None), "normal"):
        if not 0 <= tree < len(trees):
            raise ValueError(f"tree must be between 0 and {len(trees) - 1} for this forest, got {tree}")
        return trees[tree]
    raise ValueError(f"{type(estimator).__name__} has no product trees to {what}")


# ------------------------------------------------------------------ views
def _component_list(component, signature: Signature) -> tuple[int, ...]:
    parts = component if isinstance(component, (tuple, list)) else (component,)
    n = len(signature.components)
    out = []
    for part in parts:
        if not isinstance(part, numbers.Integral) or isinstance(part, bool) or not 0 <= int(part) < n:
            raise ValueError(f"component must be a component's index, 0 to {n - 1} for {signature}; got {component!r}")
        out.append(int(part))
    if not 1 <= len(out) <= 2:
        raise ValueError(f"component is one index, or two for a torus; got {component!r}")
    return tuple(out)


def _default_kind(signature: Signature, index: int) -> str:
    """The kind of the component's natural picture: its view in :func:`available_views`."""
    return next(v.kind for v in available_views(signature, max_tori=0) if v.components == (index,))


def _torus_partner(signature: Signature, first: int) -> int:
    circles = [c.index for c in signature.components if c.kind == "S" and c.dim == 1 and c.index != first]
    later = [c for c in circles if c > first]
    if not circles:
        raise ValueError(f"a torus view needs two S1 components; {signature} has no other S1 beside component {first}")
    return (later or circles)[0]


def _default_axes(kind: str, comp) -> tuple[int, ...]:
    if kind == "disk":
        return (1, 2)
    if kind in ("sphere", "map", "ortho"):
        return (0, 1, 2)
    if kind == "plane":
        return (0, 1)
    if kind == "line" and comp.kind == "E":
        return (0,)
    return ()


def _offered(signature: Signature, index: int) -> str:
    comp = signature.components[index]
    kinds = {
        "H": ["disk", "klein"] if comp.dim >= 2 else ["line"],
        "S": ["sphere", "map", "ortho"] if comp.dim >= 2 else ["circle", "torus"],
        "E": ["plane"] if comp.dim >= 2 else ["line"],
    }[comp.kind]
    return f"component {index} ({comp}) can be drawn as: {', '.join(kinds)}"


def _resolve_view(signature, component=0, view=None) -> View:
    """The :class:`View` that ``component`` and ``view`` name (the component's natural one by default)."""
    signature = Signature.parse(signature)
    if isinstance(view, View):
        describe_view(view, signature)  # raises the view's own ValueError when it does not fit
        return view
    comps = _component_list(component, signature)
    if view is not None and not isinstance(view, str):
        raise ValueError(f"view must be a view kind (a str) or a View, got {type(view).__name__}")
    kind = view if view is not None else ("torus" if len(comps) == 2 else _default_kind(signature, comps[0]))
    model = _DISK_MODELS.get(kind, "poincare")
    kind = "disk" if kind in _DISK_MODELS else kind
    if kind == "torus" and len(comps) == 1:
        comps = (comps[0], _torus_partner(signature, comps[0]))
    if kind != "torus" and len(comps) == 2:
        raise ValueError(f"two components make a torus view, not a {kind!r} view")
    comp = signature.components[comps[0]]
    chosen = View(kind, comps, _default_axes(kind, comp), model)
    try:
        describe_view(chosen, signature)
    except ValueError as error:
        raise ValueError(f"{error}; {_offered(signature, comps[0])}") from None
    return chosen


def _reference(signature: Signature, X: np.ndarray | None, held) -> np.ndarray:
    """The ambient point at which the components outside the picture are held."""
    if isinstance(held, str):
        if held not in HELD_MODES:
            raise ValueError(f"held must be 'mean', 'origin', a row of X (int) or a point; got {held!r}")
        if held == "origin" or X is None or len(X) == 0:
            return _reference_point(signature)
        return _reference_point(signature, X, "mean")
    if isinstance(held, numbers.Integral) and not isinstance(held, bool):
        if X is None:
            raise ValueError("held as a row number needs X")
        return _reference_point(signature, X, "point", int(held))
    point = np.asarray(held, dtype=np.float64)
    if point.shape != (signature.ambient_dim,):
        raise ValueError(
            f"held as a point must have shape ({signature.ambient_dim},), the ambient row of {signature}; "
            f"got {point.shape}"
        )
    return ProductManifold(signature).validate(point[None, :], name="held")[0]


def _check_X(X, signature: Signature) -> np.ndarray | None:
    if X is None:
        return None
    return ProductManifold(signature).validate(X, name="X")


# ------------------------------------------------------------------ the region display
class _ShowsFigure:
    """A display shows itself as its ``figure_`` (in a notebook cell, a gallery page, ``show()``)."""

    def show(self, *args, **kwargs):
        """Show ``figure_`` (``plotly.graph_objects.Figure.show``)."""
        return self.figure_.show(*args, **kwargs)

    def _repr_html_(self):
        return self.figure_._repr_html_()

    def _repr_mimebundle_(self, include=None, exclude=None, **kwargs):
        return self.figure_._repr_mimebundle_(include=include, exclude=exclude, **kwargs)


class RegionDisplay(_ShowsFigure):
    """The decision regions of a fitted estimator on one component of its product.

    Make one with :meth:`from_estimator`; it predicts the picture's grid, draws it, and keeps
    both (the attributes below), so :meth:`plot` can draw it again with another title or
    framing. A display shows itself in a notebook cell (and in a sphinx-gallery page) as its
    figure.

    Parameters
    ----------
    grid : ViewGrid
        The picture's cells.
    regions : RegionGrid
        The estimator's predictions over ``grid``.
    signature : Signature
    overlay : Overlay, optional
        Points and boundaries drawn over the regions.
    colors : Colors, optional
        Class names and colours.
    reference : ndarray of shape (ambient_dim,), optional
        Where the components outside the picture are held.
    X : ndarray of shape (n_samples, ambient_dim), optional
        The data (a sphere's camera faces it).

    Attributes
    ----------
    figure_ : plotly.graph_objects.Figure
        The figure, once :meth:`plot` has run.
    view : View
        Which part of the product the picture shows (``grid.view``).
    """

    def __init__(
        self, *, grid: ViewGrid, regions: RegionGrid, signature, overlay=None, colors=None, reference=None, X=None
    ):
        self.grid = grid
        self.regions = regions
        self.signature = Signature.parse(signature)
        self.overlay = overlay if overlay is not None else Overlay()
        self.colors = colors if colors is not None else Colors()
        self.reference = reference
        self.X = X

    @property
    def view(self) -> View:
        return self.grid.view

    @classmethod
    def from_estimator(
        cls,
        estimator,
        X=None,
        y=None,
        *,
        component=0,
        view=None,
        held="mean",
        resolution=None,
        boundaries="auto",
        max_points=None,
        signature=None,
        **kwargs,
    ):
        """Predict a picture of one component and draw it, with the data and split boundaries.

        Parameters
        ----------
        estimator : fitted estimator
            A classifier (its ``predict_proba`` shades the regions by confidence) or a
            regressor on ambient rows of ``signature``: curvedtrees' trees, forests,
            boosting, baselines and Klein wrappers, or any estimator with ``signature=``.
        X : array-like of shape (n_samples, ambient_dim), optional
            Data drawn as points (at most ``max_points`` of them) and used to hold the other
            components at their mean, to bound a plane's picture and to face a sphere.
        y : array-like of shape (n_samples,), optional
            Colours of the points: class labels of any dtype (strings, integers, floats, a
            pandas categorical) among the estimator's ``classes_``, or a regressor's targets.
            Without it the points are drawn grey.
        component : int or (int, int)
            Index of the component drawn (0 for the first); two S1 components make a torus.
        view : str or View, optional
            ``"disk"`` (the Poincaré disk; ``"klein"`` for the Klein disk), ``"sphere"``,
            ``"map"`` (equirectangular), ``"ortho"`` (turning globe), ``"circle"``,
            ``"torus"`` (with the next S1 component when ``component`` is one index),
            ``"plane"`` or ``"line"``. Default: the component's natural picture (disk for
            H2, sphere for S2, circle for S1, plane for E2, line for one dimension). A
            :class:`View` also chooses the axes of a higher-dimensional component (and then
            ``component`` is ignored).
        held : {"mean", "origin"}, int or array-like of shape (ambient_dim,)
            Where every other component is held: at the data's mean (per component; the
            origin without ``X``), at its origin, at row ``held`` of ``X``, or at a point.
        resolution : int, optional
            Cells across the picture (default :data:`RESOLUTIONS` of the view kind; the
            figure's size grows with its square).
        boundaries : "auto", bool or int
            Draw the split boundaries of one tree: True for the estimator itself or its
            first tree, an int for tree ``boundaries`` of a forest or boosted model
            (``estimators_[i]``, ``tree_estimator(i)``). "auto": for a single tree only (one
            tree's splits say little about a forest's or a boosted model's regions).
        max_points : int, optional
            Points drawn at most (a fixed random subsample beyond); default 1,500, 1,000 on
            a sphere or torus, 400 on a turning globe (:data:`MAX_POINTS`).
        signature : str or Signature, optional
            The signature of ``X``'s columns (default: the estimator's ``signature_``).
        **kwargs
            Passed to :meth:`plot`: ``title``, ``class_names``, ``coastlines``, ``height``,
            ``width``, ``framing``.

        Returns
        -------
        RegionDisplay
            With ``figure_`` drawn.

        Examples
        --------
        >>> import curvedtrees as ct
        >>> from curvedtrees.viz import RegionDisplay
        >>> X, y = ct.make_classification("H2 x S2", n_samples=200, random_state=0)
        >>> forest = ct.ProductRandomForestClassifier(10, signature="H2 x S2", max_depth=4, random_state=0).fit(X, y)
        >>> disk = RegionDisplay.from_estimator(forest, X, y, component=0, resolution=40)
        >>> sphere = RegionDisplay.from_estimator(forest, X, y, component=1, resolution=20)
        >>> disk.view.kind, sphere.view.kind
        ('disk', 'sphere')
        """
        check_is_fitted(estimator)
        signature = _signature(estimator, signature)
        picture = _resolve_view(signature, component, view)
        X = _check_X(X, signature)
        points = _point_layer(estimator, picture, signature, X, y, max_points)
        reference = _reference(signature, X, held)
        resolution = _resolution(picture.kind, resolution)
        bounds = data_bounds(picture, signature, X) or None
        regions = compute_regions(estimator, signature, picture, reference, resolution, bounds)
        grid = regions.grid
        curves = _curves(estimator, boundaries, signature, picture, reference, grid)
        colors = Colors(class_names=_class_names(estimator, None))
        overlay = Overlay(points=points, boundaries=curves)
        display = cls(
            grid=grid, regions=regions, signature=signature, overlay=overlay, colors=colors, reference=reference, X=X
        )
        return display.plot(**kwargs)

    def plot(self, *, title=None, class_names=None, coastlines=None, height=None, width=None, framing=None):
        """Draw the picture into ``figure_``.

        Parameters
        ----------
        title : str, optional
            Default: what the picture shows (:func:`describe_view`).
        class_names : sequence of str, optional
            Names of the classes in ``classes_`` order (default ``str`` of each class).
        coastlines : (ndarray, ndarray), optional
            Latitudes and longitudes (NaN-separated degrees) of coastlines to draw on an S2
            component that is the Earth, such as ``curvedtrees.datasets.geo.coastlines()``;
            land and water then get natural colours (classes named "land" and "water").
        height : int, optional
            Pixels (default the wide framing's height of the view kind).
        width : int, optional
            Pixels; by default the figure fills its container (a notebook cell, a page).
        framing : Framing, optional
            All of the framing at once (``title`` and ``height`` then apply on top); default
            ``Framing(wide=True)``, made for a column of at least 736 px.

        Returns
        -------
        RegionDisplay
            ``self``.
        """
        if class_names is not None:
            names = _checked_names(class_names, self.regions.classes)
            self.colors = dataclasses.replace(self.colors, class_names=names)
        if coastlines is not None:
            self.overlay = dataclasses.replace(self.overlay, coastlines=_coastlines(coastlines))
            names = self.colors.class_names
            self.colors = dataclasses.replace(self.colors, colors=world_class_colors(names) if names else None)
        framing = framing if framing is not None else Framing(wide=True)
        if title is None and framing.title is None:
            title = describe_view(self.view, self.signature)[0]
        facing = framing.facing
        if facing is None and self.view.kind in ("sphere", "ortho") and self.X is not None:
            facing = facing_direction(self.view, self.signature, self.X)
        framing = dataclasses.replace(
            framing,
            title=title if title is not None else framing.title,
            height=height if height is not None else framing.height,
            facing=facing,
        )
        self.figure_ = region_figure(self.grid, self.regions, self.overlay, colors=self.colors, framing=framing)
        if width is not None:
            self.figure_.update_layout(width=int(width))
        return self


def _resolution(kind: str, resolution) -> int:
    if resolution is None:
        return RESOLUTIONS[kind]
    if not isinstance(resolution, numbers.Integral) or isinstance(resolution, bool) or not 4 <= resolution <= 2000:
        raise ValueError(f"resolution must be an integer between 4 and 2000 (cells across), got {resolution!r}")
    return int(resolution)


def _class_names(estimator, class_names) -> list[str] | None:
    if not is_classifier(estimator):
        return None
    classes = np.asarray(estimator.classes_)
    if class_names is None:
        return [str(c) for c in classes.tolist()]
    return _checked_names(class_names, classes)


def _checked_names(class_names, classes) -> list[str]:
    if isinstance(class_names, str):
        raise ValueError(f"class_names must be a sequence of names, one per class, got the string {class_names!r}")
    names = [str(n) for n in class_names]
    n_classes = len(classes) if classes is not None else 0
    if len(names) != n_classes:
        raise ValueError(f"class_names has {len(names)} names for the estimator's {n_classes} classes")
    return names


def _point_layer(estimator, view: View, signature, X, y, max_points) -> PointLayer | None:
    if max_points is None:
        max_points = MAX_POINTS.get(view.kind, FLAT_MAX_POINTS)
    if not isinstance(max_points, numbers.Integral) or isinstance(max_points, bool) or max_points < 0:
        raise ValueError(f"max_points must be a non-negative integer, got {max_points!r}")
    if X is None:
        if y is not None:
            raise ValueError("y colours the points of X: pass X with it")
        return None
    if y is not None and len(np.asarray(y, dtype=object)) != len(X):
        raise ValueError(f"y has {len(np.asarray(y, dtype=object))} labels for the {len(X)} rows of X")
    coords = project_points(view, signature, X)
    rows = np.arange(len(X))
    if y is None:
        layer = PointLayer(coords, rows=rows)
    elif is_classifier(estimator):
        layer = PointLayer(coords, class_index=label_indices(y, estimator.classes_), rows=rows)
    else:
        layer = PointLayer(coords, values=_point_values(np.asarray(y, dtype=object), len(X), "y", hint=""), rows=rows)
    return layer.take(subsample(len(layer), int(max_points)))


def _curves(estimator, boundaries, signature, view, reference, grid) -> list:
    is_index = isinstance(boundaries, numbers.Integral) and not isinstance(boundaries, bool)
    if not (is_index or isinstance(boundaries, bool) or (isinstance(boundaries, str) and boundaries == "auto")):
        raise ValueError(f"boundaries must be 'auto', True, False or a tree's index, got {boundaries!r}")
    single = hasattr(getattr(estimator, "tree_", None), "normal")
    if boundaries is False or (boundaries == "auto" and not single):
        return []
    drawn = _single_tree(estimator, int(boundaries) if is_index else 0, "draw boundaries of")
    return boundary_curves(drawn, signature, view, reference, grid, max_curves=MAX_BOUNDARY_CURVES)


def _coastlines(coastlines):
    if coastlines is None:
        return None
    try:
        lat, lon = (np.asarray(a, dtype=np.float64) for a in coastlines)
    except (TypeError, ValueError):
        raise ValueError("coastlines must be a pair (lat, lon) of arrays of degrees") from None
    if lat.shape != lon.shape or lat.ndim != 1:
        raise ValueError(f"coastlines' lat and lon must be 1-D of one length, got {lat.shape} and {lon.shape}")
    return lat, lon


# ------------------------------------------------------------------ the tree display
class TreeDisplay(_ShowsFigure):
    """A fitted product tree as a node-link diagram.

    Make one with :meth:`from_estimator`. Every node has its full description on hover
    (the split in words, the rows, the class distribution or value); labels are written
    where they fit.

    Parameters
    ----------
    estimator : fitted product tree estimator
        The tree drawn (a forest's or a boosted model's tree as an estimator).
    class_names : sequence of str, optional

    Attributes
    ----------
    figure_ : plotly.graph_objects.Figure
        The figure, once :meth:`plot` has run.
    """

    def __init__(self, *, estimator, class_names=None):
        self.estimator = estimator
        self.class_names = class_names

    @classmethod
    def from_estimator(cls, estimator, *, tree=0, class_names=None, title=None, font_size=DIAGRAM_FONT):
        """Draw one tree of ``estimator``: itself, or tree ``tree`` of a forest or boosted model.

        Parameters
        ----------
        estimator : fitted estimator
            A product tree, forest or gradient-boosting model.
        tree : int
            The tree of a forest (``estimators_[tree]``) or boosted model (``tree_estimator(tree)``:
            a regression tree of raw-score contributions).
        class_names : sequence of str, optional
            Names of the classes in ``classes_`` order (default ``str`` of each class).
        title : str, optional
        font_size : float
            Pixels of the labels.

        Returns
        -------
        TreeDisplay
            With ``figure_`` drawn.

        Examples
        --------
        >>> import curvedtrees as ct
        >>> from curvedtrees.viz import TreeDisplay
        >>> X, y = ct.make_classification("H2 x E1", n_samples=200, random_state=0)
        >>> tree = ct.ProductDecisionTreeClassifier(signature="H2 x E1", max_depth=3).fit(X, y)
        >>> TreeDisplay.from_estimator(tree).figure_.layout.height > 0
        True
        """
        check_is_fitted(estimator)
        drawn = _single_tree(estimator, tree, "draw")
        names = _class_names(drawn, class_names) if hasattr(drawn, "classes_") else None
        return cls(estimator=drawn, class_names=names).plot(title=title, font_size=font_size)

    def plot(self, *, title=None, width=None, height=None, font_size=DIAGRAM_FONT):
        """Draw the diagram into ``figure_``.

        Parameters
        ----------
        title : str, optional
        width : int, optional
            Pixels the diagram is laid out for (default :data:`NOTEBOOK_WIDTH`); a tree
            too wide for it opens around its root, its deeper subtrees closed ("+n").
        height : int, optional
            Pixels (default: grows with the levels drawn).
        font_size : float

        Returns
        -------
        TreeDisplay
            ``self``.
        """
        width = NOTEBOOK_WIDTH if width is None else int(width)
        # The diagram's margins are 10 px on each side (tree_figure's layout).
        fig = tree_figure(
            self.estimator, class_names=self.class_names, height=height, width=width - 20, font_size=font_size
        )
        if title:
            top = fig.layout.margin.t or 10
            fig.update_layout(title={"text": title, "y": 1.0, "yanchor": "top"}, margin={"t": top + 30})
        self.figure_ = fig
        return self
