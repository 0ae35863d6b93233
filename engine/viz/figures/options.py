"""What a region figure draws, as a few frozen records (the arguments of :func:`region_figure`).

* :class:`Overlay`: what is drawn over the regions (data points, split boundaries with their
  styles and node ids, a highlighted node's region, margin band and labels, an explained
  point, coastlines);
* :class:`Colors`: what the colours mean (class names and colours, a regression's range,
  colour-bar title, a diverging scale);
* :class:`Framing`: how the picture sits in its column (title, height, the wide lecture
  framing, a 3-D camera's zoom and the direction it faces);
* :class:`Animation`: frames played in the browser (one per reference point, or a replay's
  one per number of splits), their names, the one shown first, what the slider sets, the
  boundaries each frame draws, and the time per frame.

A new feature of every picture is a new field of one of these records (with a default that
draws what was drawn before), read by the renderers (:mod:`curvedtrees.viz.figures.render`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from ..boundaries import BoundaryCurve
from ..regions import RegionGrid

__all__ = ["Animation", "Colors", "Framing", "Overlay", "PointLayer", "subsample"]


@dataclass
class PointLayer:
    """Data points to draw on a picture.

    Attributes
    ----------
    coords : dict of str to ndarray of shape (n,)
        From :func:`curvedtrees.viz.views.project_points`.
    class_index : ndarray of int, shape (n,), optional
        Class of each point (index into the class names); classification. Whole floats
        and booleans are taken as indices; labels (strings) raise a ValueError that says
        how to map them (:func:`curvedtrees.viz.label_indices`).
    values : ndarray of float, shape (n,), optional
        Target of each point; regression (numbers, else a ValueError).
    is_test : ndarray of bool, shape (n,), optional
        Test rows get a different marker.
    rows : ndarray of int, shape (n,), optional
        Each point's data row: in its hover text, and as the trace's ``customdata``, which a
        click on the point reports.
    """

    coords: dict
    class_index: np.ndarray | None = None
    values: np.ndarray | None = None
    is_test: np.ndarray | None = None
    rows: np.ndarray | None = None

    def __post_init__(self):
        # Checked here, where the layer is made: the renderers index colours with these arrays, and a
        # label that is not a class index (a string) would otherwise fail deep inside as a bare
        # "invalid literal for int()".
        if self.class_index is not None:
            self.class_index = _class_indices(self.class_index, len(self))
        if self.values is not None:
            self.values = _point_values(self.values, len(self))

    def __len__(self) -> int:
        return len(next(iter(self.coords.values()))) if self.coords else 0

    def take(self, index: np.ndarray) -> PointLayer:
        """The points at ``index``."""
        pick = lambda a: None if a is None else np.asarray(a)[index]  # noqa: E731
        return PointLayer(
            {k: np.asarray(v)[index] for k, v in self.coords.items()},
            pick(self.class_index),
            pick(self.values),
            pick(self.is_test),
            pick(self.rows),
        )


def _class_indices(class_index, n: int) -> np.ndarray:
    """``class_index`` as int64 class indices, or a ValueError saying what is wrong with it."""
    index = np.asarray(class_index)
    if index.ndim != 1 or len(index) != n:
        raise ValueError(f"PointLayer.class_index must have shape ({n},), one class per point; got {index.shape}")
    if index.dtype.kind in "iub":
        return index.astype(np.int64)
    if index.dtype.kind == "f" and np.isfinite(index).all() and (index == np.round(index)).all():
        return index.astype(np.int64)
    bad = next((v for v in index.tolist() if not _is_whole(v)), index.tolist()[0] if n else None)
    raise ValueError(
        "PointLayer.class_index holds class indices (integers: 0 for the first class name, 1 for the "
        f"next, ...), got {type(bad).__name__} values such as {bad!r}; map labels to indices first (the "
        "position of each label in the classes: curvedtrees.viz.label_indices(y, classes)), or draw "
        "with curvedtrees.viz.RegionDisplay.from_estimator, which takes labels of any dtype"
    )


def _is_whole(value) -> bool:
    try:
        return bool(np.isfinite(value)) and float(value) == round(float(value))
    except (TypeError, ValueError):
        return False


def _point_values(values, n: int, name: str = "PointLayer.values", hint: str = "; class labels go in class_index"):
    """``values`` as float64 targets, or a ValueError naming ``name`` and the first value that is not a number."""
    array = np.asarray(values)
    if array.ndim != 1 or len(array) != n:
        raise ValueError(f"{name} must have shape ({n},), one target per point; got {array.shape}")
    try:
        return array.astype(np.float64)
    except (TypeError, ValueError):
        row = next(i for i, v in enumerate(array.tolist()) if not _is_number(v))
        bad = array[row]
        raise ValueError(
            f"{name} holds regression targets (numbers); row {row} is {bad!r} ({type(bad).__name__}){hint}"
        ) from None


def _is_number(value) -> bool:
    try:
        float(value)
    except (TypeError, ValueError):
        return False
    return True


def subsample(n: int, max_points: int, random_state: int = 0) -> np.ndarray:
    """Sorted indices of at most ``max_points`` of ``n`` points (all when n is small).

    Large uploads would make the figure heavy to send and slow to draw; a fixed
    seed keeps the same points on every redraw.
    """
    if n <= max_points:
        return np.arange(n)
    return np.sort(np.random.default_rng(random_state).choice(n, size=max_points, replace=False))


@dataclass(frozen=True, eq=False)
class Overlay:
    """What a picture draws over its regions.

    Attributes
    ----------
    points : PointLayer, optional
    boundaries : sequence of BoundaryCurve
        From :func:`curvedtrees.viz.boundaries.boundary_curves`.
    styles : mapping of int to {"split", "path", "newest", "selected"}, optional
        Style of the boundary of each node (default ``"split"``).
    label_nodes : bool or iterable of int
        Write node ids next to drawn boundaries: True for every drawn one, or the ids of
        the nodes to label (a big tree's largest splits; ids not drawn are ignored).
    highlight : NodeRegion, optional
        From :func:`curvedtrees.viz.treeview.node_region`: the selected node's region
        keeps its colours and every other cell is drawn in its class's palest shade
        (classification, every frame); its labels (the sides of a split with the rule,
        or a leaf's prediction) are written on the picture, and a split's margin band and
        nearest training rows drawn when it has them.
    marked : mapping of str to float, optional
        Picture coordinates of one point to mark with a star (explain a point).
    coastlines : (ndarray, ndarray), optional
        NaN-separated latitudes and longitudes in degrees, each of shape (n,): the
        picture is the globe, drawn with coastlines and a graticule (sphere, map, ortho).
    compared : sequence of BoundaryCurve
        Another model's boundaries, drawn dashed over the regions (for example where a
        midpoint rule puts the split that the regions' model places at maximum margin).
    compared_name : str
        The legend's name of the dashed boundaries.
    boundary_names : mapping of str to str, optional
        Legend names of boundary styles, where a picture means more than the style's
        default name (a lesson's "maximum margin" for its highlighted split).
    """

    points: PointLayer | None = None
    boundaries: Sequence[BoundaryCurve] = ()
    styles: Mapping[int, str] | None = None
    label_nodes: bool | Iterable[int] = False
    highlight: object = None
    marked: Mapping[str, float] | None = None
    coastlines: tuple | None = None
    compared: Sequence[BoundaryCurve] = ()
    compared_name: str = "compared boundary"
    boundary_names: Mapping[str, str] | None = None


@dataclass(frozen=True)
class Colors:
    """What the colours of a picture mean.

    Attributes
    ----------
    class_names : sequence of str, optional
        Names of the classes, in class-index order (legend, hover).
    colors : sequence of str, optional
        One hex colour per class (default :func:`~curvedtrees.viz.palette.class_colors`;
        world pictures of land and water pass natural colours).
    value_range : (float, float), optional
        Shared colour range of a regression (predictions and targets).
    value_title : str, optional
        Colour-bar title of a regression (default "prediction"), such as "°C".
    diverging : bool
        Regression colours on a diverging scale centred on zero (blue below, red above).
    """

    class_names: Sequence[str] | None = None
    colors: Sequence[str] | None = None
    value_range: tuple[float, float] | None = None
    value_title: str | None = None
    diverging: bool = False


@dataclass(frozen=True)
class Framing:
    """How a picture sits in its column.

    Attributes
    ----------
    title : str, optional
    height : int, optional
        Pixels; a per-kind default otherwise (:data:`~curvedtrees.viz.figures.framing.HEIGHTS`,
        plus room for the slider of an animated picture).
    wide : bool
        The picture has a column of at least 736 px to itself (lecture mode: sidebar
        folded, one picture): a taller chart and, for the sphere and the torus, a closer
        camera, from :data:`~curvedtrees.viz.figures.framing.WIDE_FRAMING`. Off, the framing
        fits a 340 px column.
    zoom : float, optional
        A sphere's or torus's camera distance is divided by this instead (the page knows
        its column is wider than 340 px but shares the page: the Inspector in lecture mode).
    facing : ndarray of shape (3,), optional
        Unit direction the camera of a sphere (and the centre of an ortho view) looks at;
        a globe without one faces 20 N 20 E. A 3-D picture turns instead to the marked
        point, else to the boundary styled ``"selected"``, else to the one styled
        ``"newest"`` (in the shown frame), when there is one.
    """

    title: str | None = None
    height: int | None = None
    wide: bool = False
    zoom: float | None = None
    facing: np.ndarray | None = field(default=None, compare=False)

    def __post_init__(self):
        if self.zoom is not None and not float(self.zoom) > 0:
            raise ValueError(f"zoom must be a positive number, got {float(self.zoom)!r}")


@dataclass(frozen=True, eq=False)
class Animation:
    """Frames of a picture, played in the browser (a slider and play / pause buttons).

    Attributes
    ----------
    frames : sequence of RegionGrid
        Predictions over the picture's grid at several reference points (for example one
        per month), or a replay's regions after each number of splits. The regions shown
        are ``frames[active]``; an ortho view, which is animated by turning, shows that
        frame only.
    names : sequence of str, optional
        Slider labels of the frames (default 1, 2, ...); must be distinct.
    active : int
        The frame shown first (clipped to the frames).
    label : str
        What the slider sets ("month": "month: 3"), or the current value's pattern, ``{}`` standing for
        the frame's name (a replay's "Split {} of 12").
    boundary_styles : sequence of mapping of int to str, optional
        A replay: the boundaries each frame draws, node -> style; a node missing from a
        frame's mapping is not drawn in it. Each frame then restyles the boundary traces as
        well as the regions, in the browser.
    duration : int, optional
        Milliseconds per frame while playing (default 700; 450 when the frames restyle
        boundaries too, a replay's).
    """

    frames: Sequence[RegionGrid]
    names: Sequence[str] | None = None
    active: int = 0
    label: str = "frame"
    boundary_styles: Sequence[Mapping[int, str]] | None = None
    duration: int | None = None

    def __post_init__(self):
        n = len(self.frames)
        if n and (len(self.labels()) != n or len(set(self.labels())) != n):
            raise ValueError(f"{n} frames need as many distinct names, got {list(self.labels())!r}")
        if n and self.boundary_styles is not None and len(self.boundary_styles) != n:
            raise ValueError(f"{n} frames need as many boundary styles, got {len(self.boundary_styles)}")

    def labels(self) -> list[str]:
        """The slider labels: ``names``, or 1, 2, ..."""
        if self.names:
            return [str(n) for n in self.names]
        return [str(k + 1) for k in range(len(self.frames))]

    def shown(self) -> int:
        """Index of the frame shown first, inside the frames."""
        return int(np.clip(self.active, 0, len(self.frames) - 1))

    def frame_duration(self, boundaries_move: bool) -> int:
        """Milliseconds per frame while playing (``boundaries_move``: the frames restyle boundaries)."""
        if self.duration is not None:
            return int(self.duration)
        return 450 if boundaries_move else 700
