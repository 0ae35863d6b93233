"""Plotly figures of decision regions, data points and split boundaries.

Pure builders: they take arrays (from :mod:`curvedtrees.viz.views`,
:mod:`curvedtrees.viz.regions`, :mod:`curvedtrees.viz.boundaries`) and return a
``plotly.graph_objects.Figure``; nothing here talks to a model or to Streamlit.

* disk, plane, line: a ``Heatmap`` (one flat cell per grid cell, NaN outside the
  disk) with the rim as a line and a 1:1 aspect ratio;
* sphere, torus: a ``Mesh3d`` with one colour per cell (``intensitymode="cell"``:
  class regions stay crisp instead of blending across a cell), float32 vertices,
  uint16 faces, uint8 colour codes; a classifier's regions (with
  :attr:`~curvedtrees.viz.regions.RegionGrid.cuts`) get a second ``Mesh3d``, "region
  edges", of the cells' neighbourhoods cut along the exact crossings
  (:mod:`curvedtrees.viz.smooth`), drawn on the surface with the cell mesh just below
  it, so region edges are smooth rather than stepped; a replay restyles its colours,
  frames predicted at other reference points their pieces too;
* circle: a ring of ``Barpolar`` sectors;
* map: a ``Heatmap`` over longitude and latitude (equirectangular);
* ortho: a ``Heatmap`` of the orthographic disk, resampled from the map grid,
  with animation frames that turn the globe around its polar axis.

World pictures (an S2 component that is the Earth) add a graticule and the
coastlines (passed in as latitude/longitude arrays, drawn slightly above a 3-D
globe), and open facing the data. Pictures predicted at several reference
points (a globe at each month) carry them as Plotly animation frames with a
slider and a play button, played in the browser without a server round-trip.

Boundaries are line traces on top, so they stay sharp at any zoom; highlighted
ones get a dark underlay so they read on every class colour.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import plotly.colors as pc
import plotly.graph_objects as go

from .boundaries import BoundaryCurve
from .palette import N_LEVELS, OUTSIDE, class_colors, confidence_levels, encode_classes, region_colorscale
from .regions import RegionGrid
from .smooth import Patches, edge_patches, sink_depth
from .views import TORUS_RADII, ViewGrid, ortho_project, torus_xyz
from .world import DEFAULT_FACING, break_at_date_line, graticule, latlon_xyz, ortho_image, ortho_lines

__all__ = ["PointLayer", "confusion_figure", "region_figure", "subsample"]

# Line styles of split boundaries: (colour, width, underlay width or 0).
BOUNDARY_STYLES = {
    "split": ("rgba(25, 25, 25, 0.9)", 1.6, 0),
    "path": ("#FFFFFF", 3.0, 6.5),
    "newest": ("#FFE100", 4.5, 8.5),
    "selected": ("#FF4FD8", 4.0, 8.0),  # the diagram's colour of the selected node
}
_REGRESSION_SCALE = "Viridis"
# Targets with a natural zero (temperatures in degrees C) get a diverging scale centred on it.
_DIVERGING_SCALE = "RdBu_r"
_BLANK = "#E9ECEF"  # the manifold without a model: light grey
_HEIGHT = {"disk": 560, "plane": 560, "sphere": 520, "map": 520, "ortho": 600, "torus": 480, "circle": 520, "line": 260}
# Plotly draws a 3-D scene with a fixed vertical field of view, so a shape's drawn width follows
# the chart's height, not its width: from these distances the sphere and the torus take about
# 0.6 of the height, which fits a column as narrow as 0.65 of the height (a 340 px column at the
# heights above) without clipping left and right.
SPHERE_EYE_DISTANCE = 2.05
TORUS_EYE_DISTANCE = 2.85
# A picture that has a wide column to itself (``wide=True``: lecture mode, sidebar folded, one column,
# so at least 736 px from an 800 px window) is taller and its 3-D camera closer: the eye distance is
# divided by ``zoom``. So close to a torus, perspective draws its near rim larger and lower than its far
# rim: the camera looks ``lift`` (scene units) below the centre to bring the drawing back to the middle.
# Measured at 736 px (800 x 600 in lecture mode): the sphere 480 px across in a 560 px high scene
# (38 px to spare above and below), the torus 610 x 445 px in a 736 x 501 px scene (64 px to spare on
# each side, 24 above and 32 below). The disk and the plane keep their square plot and grow with the height.
WIDE_FRAMING = {
    "disk": (640, 1.0, 0.0),
    "plane": (640, 1.0, 0.0),
    "circle": (600, 1.0, 0.0),
    "sphere": (640, 1.45, 0.0),
    "torus": (580, 1.9, -0.2),
}
# Camera elevation over a torus (height over horizontal distance): both angles stay readable.
_TORUS_EYE_SLOPE = 0.71
# A sphere's camera looks at a split's boundary from a point tilted this far toward its pole, so
# the great circle reads as a curve crossing the face rather than a rim or a straight line.
_SPLIT_TILT = 0.3
# Pixels an animated picture adds to its height for the legend above and the slider with its buttons
# below (about 130 px), so that the disk or the 3-D scene keeps most of its room. Measured at 1400 x 900 in
# the Inspector (a 556 px column): the disk was 324 px across at 560 px, 427 px at 660 with the compact legend.
_ANIMATED_ROOM = {"sphere": 120, "torus": 120, "disk": 100, "plane": 100}
# Animated regression pictures send one byte per cell and frame: values are rounded to this
# many steps of the colour range (finer than the eye tells apart on a continuous scale).
_VALUE_STEPS = 250
# Lines on a 3-D globe sit just above its surface so that the mesh does not hide them, below
# the split boundaries (1.006) and the points (1.015).
_COAST_LIFT, _GRID_LIFT = 1.004, 1.002
_COAST_STYLE = {"color": "#1F2A30", "width": 1.4}
_GRATICULE_STYLE = {"color": "rgba(90, 90, 90, 0.35)", "width": 1}
# The orthographic globe turns in this many steps per revolution (one frame each).
ORTHO_TURNS = 12


@dataclass
class PointLayer:
    """Data points to draw on a picture.

    Attributes
    ----------
    coords : dict of str to ndarray of shape (n,)
        From :func:`curvedtrees.viz.views.project_points`.
    class_index : ndarray of int, shape (n,), optional
        Class of each point (index into the class names); classification.
    values : ndarray of float, shape (n,), optional
        Target of each point; regression.
    is_test : ndarray of bool, shape (n,), optional
        Test rows get a different marker.
    rows : ndarray of int, shape (n,), optional
        Row numbers shown on hover.
    """

    coords: dict
    class_index: np.ndarray | None = None
    values: np.ndarray | None = None
    is_test: np.ndarray | None = None
    rows: np.ndarray | None = None

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


def subsample(n: int, max_points: int, random_state: int = 0) -> np.ndarray:
    """Sorted indices of at most ``max_points`` of ``n`` points (all when n is small).

    Large uploads would make the figure heavy to send and slow to draw; a fixed
    seed keeps the same points on every redraw.
    """
    if n <= max_points:
        return np.arange(n)
    return np.sort(np.random.default_rng(random_state).choice(n, size=max_points, replace=False))


# ------------------------------------------------------------------ helpers
def _codes(regions: RegionGrid) -> np.ndarray:
    n_classes = len(regions.classes)
    levels = confidence_levels(np.nan_to_num(regions.confidence.ravel(), nan=1.0), n_classes)
    return encode_classes(regions.class_index.ravel(), levels).reshape(regions.class_index.shape)


@dataclass
class _Coloring:
    """How cells and points are coloured: class colours, or a value scale and its range."""

    colors: list[str] | None = None
    scale: str = _REGRESSION_SCALE
    value_range: tuple | None = None
    value_title: str = "prediction"
    quantized: bool = False  # regression values sent as uint8 steps of value_range
    # Heatmap frames (disk, plane, line) send uint8 codes, cells off the manifold as a transparent code past
    # the last one, instead of float32 with NaN: a quarter of a replay's bytes.
    compact: bool = False


def _outside_code(regions: RegionGrid, coloring: _Coloring) -> int | None:
    """The uint8 code of cells off the manifold in compact pictures (None: NaN, as float32)."""
    if not coloring.compact:
        return None
    if regions.task == "classification":
        n_codes = max(len(regions.classes), 1) * N_LEVELS
        return n_codes if n_codes < 255 else None  # more than 63 classes keep float32 codes
    return _VALUE_STEPS + 1 if coloring.quantized else None


def _with_outside(scale: str) -> list:
    """A named continuous scale over codes 0.._VALUE_STEPS, then a transparent band for the outside code."""
    top = _VALUE_STEPS / (_VALUE_STEPS + 1)  # where code _VALUE_STEPS sits once the axis ends at the outside code
    stops = [[float(p) * top, c] for p, c in pc.get_colorscale(scale)]
    edge = (_VALUE_STEPS + 0.5) / (_VALUE_STEPS + 1)
    return [*stops, [edge, stops[-1][1]], [edge, OUTSIDE], [1.0, OUTSIDE]]


def _color_args(regions: RegionGrid, coloring: _Coloring) -> dict:
    outside = _outside_code(regions, coloring)
    if regions.task == "classification":
        scale, cmin, cmax = region_colorscale(len(regions.classes), coloring.colors, outside=outside is not None)
        return {"colorscale": scale, "cmin": cmin, "cmax": cmax, "showscale": False}
    lo, hi = _finite_range(regions, coloring.value_range)
    colorbar = {"title": {"text": coloring.value_title}, "thickness": 14, "len": 0.7}
    if coloring.quantized:
        ticks = _nice_ticks(lo, hi)
        colorbar |= {"tickvals": [float(_quantize(t, lo, hi)) for t in ticks], "ticktext": [f"{t:g}" for t in ticks]}
        return {
            "colorscale": coloring.scale if outside is None else _with_outside(coloring.scale),
            "cmin": 0.0,
            "cmax": float(_VALUE_STEPS if outside is None else outside),
            "showscale": True,
            "colorbar": colorbar,
        }
    return {"colorscale": coloring.scale, "cmin": float(lo), "cmax": float(hi), "showscale": True, "colorbar": colorbar}


def _finite_range(regions: RegionGrid, value_range) -> tuple[float, float]:
    lo, hi = value_range if value_range else (np.nanmin(regions.values), np.nanmax(regions.values))
    if not np.isfinite(lo) or not np.isfinite(hi) or hi <= lo:
        lo, hi = (float(lo) - 0.5, float(lo) + 0.5) if np.isfinite(lo) else (0.0, 1.0)
    return float(lo), float(hi)


def _quantize(values, lo: float, hi: float) -> np.ndarray:
    """Values as uint8 steps 0.._VALUE_STEPS of [lo, hi] (NaN -> 0; NaN cells are never on a globe)."""
    scaled = (np.nan_to_num(np.asarray(values, dtype=np.float64), nan=lo) - lo) / (hi - lo) * _VALUE_STEPS
    return np.clip(np.rint(scaled), 0, _VALUE_STEPS).astype(np.uint8)


def _nice_ticks(lo: float, hi: float) -> list[float]:
    """About six round numbers inside [lo, hi] for a colour bar."""
    raw = (hi - lo) / 6.0
    magnitude = 10.0 ** np.floor(np.log10(raw))
    step = magnitude * min((1, 2, 5, 10), key=lambda m: abs(m * magnitude - raw))
    return [float(t) for t in np.arange(np.ceil(lo / step) * step, hi + 1e-9 * step, step)]


def _cell_values(regions: RegionGrid, coloring: _Coloring) -> np.ndarray:
    outside = _outside_code(regions, coloring)
    if regions.task == "classification":
        codes = _codes(regions)
        return codes if outside is None else np.where(np.isnan(codes), outside, codes).astype(np.uint8)
    if coloring.quantized:
        steps = _quantize(regions.values, *_finite_range(regions, coloring.value_range))
        return steps if outside is None else np.where(np.isnan(regions.values), outside, steps).astype(np.uint8)
    return regions.values.astype(np.float32)


def _point_style(
    points: PointLayer, colors: list[str] | None, value_range, test: bool, scale: str = _REGRESSION_SCALE
) -> dict:
    marker = {
        "size": 7 if not test else 8,
        "symbol": "diamond" if test else "circle",
        "line": {"color": "#1A1A1A" if test else "#FFFFFF", "width": 1.2 if test else 0.9},
    }
    if points.class_index is not None and colors is not None:
        idx = np.asarray(points.class_index, dtype=np.int64)
        palette = np.asarray([*colors, "#7F7F7F"])
        marker["color"] = palette[np.where((idx >= 0) & (idx < len(colors)), idx, len(colors))].tolist()
    elif points.values is not None:
        lo, hi = value_range if value_range else (np.nanmin(points.values), np.nanmax(points.values))
        marker.update(
            color=np.asarray(points.values, dtype=np.float32),
            colorscale=scale,
            cmin=float(lo),
            cmax=float(hi),
            showscale=False,
        )
    else:
        marker["color"] = "#4C4C4C"
    return marker


def _hover(points: PointLayer, class_names: list[str] | None, test: bool) -> list[str]:
    rows = points.rows if points.rows is not None else np.arange(len(points))
    which = "test" if test else "train"
    if points.class_index is not None and class_names is not None:
        names = [class_names[i] if 0 <= i < len(class_names) else "?" for i in np.asarray(points.class_index)]
        return [f"row {r} · {which} · {n}" for r, n in zip(rows, names)]
    if points.values is not None:
        return [f"row {r} · {which} · y = {v:.4g}" for r, v in zip(rows, np.asarray(points.values))]
    return [f"row {r}" for r in rows]


def _split_points(points: PointLayer | None):
    if points is None or len(points) == 0:
        return []
    is_test = np.zeros(len(points), dtype=bool) if points.is_test is None else np.asarray(points.is_test, bool)
    return [
        (points.take(np.flatnonzero(mask)), test) for mask, test in ((~is_test, False), (is_test, True)) if mask.any()
    ]


def _legend_entries(fig: go.Figure, class_names, colors, has_test: bool, kind: str, has_points: bool):
    """Legend-only traces: one square per class, and the train / test marker shapes."""
    if kind in ("sphere", "torus"):
        trace, empty = go.Scatter3d, {"x": [None], "y": [None], "z": [None]}
    elif kind == "circle":
        trace, empty = go.Scatterpolar, {"r": [None], "theta": [None]}
    else:
        trace, empty = go.Scatter, {"x": [None], "y": [None]}
    if class_names is not None and colors is not None:
        for name, color in zip(class_names, colors):
            fig.add_trace(
                trace(
                    **empty,
                    mode="markers",
                    name=str(name),
                    hoverinfo="skip",
                    marker={"color": color, "size": 10, "symbol": "square"},
                )
            )
    if has_points:
        fig.add_trace(
            trace(
                **empty,
                mode="markers",
                name="training point",
                hoverinfo="skip",
                marker={"color": "#BBBBBB", "size": 7, "symbol": "circle", "line": {"color": "#333333", "width": 1}},
            )
        )
        if has_test:
            fig.add_trace(
                trace(
                    **empty,
                    mode="markers",
                    name="test point",
                    hoverinfo="skip",
                    marker={
                        "color": "#BBBBBB",
                        "size": 7,
                        "symbol": "diamond",
                        "line": {"color": "#1A1A1A", "width": 1},
                    },
                )
            )


def _grouped_boundaries(curves, styles) -> list[tuple[str, dict, str]]:
    """(style, NaN-joined coordinates, node list text) per boundary style, plain splits first."""
    styles = styles or {}
    grouped: dict[str, list[BoundaryCurve]] = {}
    for curve in curves:
        grouped.setdefault(styles.get(curve.node, "split"), []).append(curve)
    out = []
    # Draw plain splits first and highlights on top.
    for style in sorted(grouped, key=lambda s: list(BOUNDARY_STYLES).index(s)):
        keys = list(grouped[style][0].coords)
        joined = {
            k: np.concatenate([np.append(np.asarray(c.coords[k], dtype=np.float64), np.nan) for c in grouped[style]])
            for k in keys
        }
        out.append((style, joined, ", ".join(str(c.node) for c in grouped[style][:20])))
    return out


def _boundary_layers(style: str):
    """(line dict, is_top_layer) of the layers of one boundary style: dark underlay first."""
    color, width, under = BOUNDARY_STYLES[style]
    return [({"color": c, "width": w}, top) for w, c, top in ((under, "#111111", False), (width, color, True)) if w]


_BOUNDARY_NAMES = {
    "split": "split boundary",
    "path": "splits on the path",
    "newest": "newest split",
    "selected": "selected split",
}


def _boundary_traces(fig, curves, styles, three_d: bool, polar: bool = False):
    """Add curves grouped by style (one trace per style, NaN-separated) so the figure stays small."""
    for style, joined, nodes in _grouped_boundaries(curves, styles):
        name = _BOUNDARY_NAMES[style]
        for line, _ in _boundary_layers(style):
            common = {"mode": "lines", "line": line, "hoverinfo": "skip", "showlegend": False, "name": name}
            if polar:
                fig.add_trace(go.Scatterpolar(r=joined["r"], theta=joined["theta"], **common))
            elif three_d:
                xyz = {k: joined[k].astype(np.float32) for k in "xyz"}
                fig.add_trace(go.Scatter3d(**xyz, **common))
            else:
                fig.add_trace(go.Scatter(x=joined["x"], y=joined["y"], **common))
        fig.data[-1].update(showlegend=True, hoverinfo="name", name=name, legendgroup=style, hovertext=f"nodes {nodes}")


def _mesh_faces(rows: int, cols: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Two triangles per cell of a (rows + 1) x (cols + 1) vertex grid, cell order row-major."""
    r, c = np.meshgrid(np.arange(rows), np.arange(cols), indexing="ij")
    v00 = (r * (cols + 1) + c).ravel()
    v01, v10 = v00 + 1, v00 + cols + 1
    v11 = v10 + 1
    dtype = np.uint16 if (rows + 1) * (cols + 1) < 2**16 else np.uint32
    i = np.concatenate([v00, v00]).astype(dtype)
    j = np.concatenate([v01, v11]).astype(dtype)
    k = np.concatenate([v11, v10]).astype(dtype)
    return i, j, k


def _layout_2d(fig, extent, equal: bool, height: int, title: str | None, hide_axes: bool):
    xmin, xmax, ymin, ymax = extent
    axis = {"showgrid": False, "zeroline": False, "visible": not hide_axes}
    fig.update_layout(
        xaxis={**axis, "range": [xmin, xmax], "constrain": "domain"},
        yaxis={**axis, "range": [ymin, ymax], "constrain": "domain"},
        plot_bgcolor="#FFFFFF",
        height=height,
        margin={"l": 10, "r": 10, "t": 40 if title else 10, "b": 10},
        legend={"itemsizing": "constant", "bgcolor": "rgba(255,255,255,0.8)"},
        title=title,
    )
    if equal:
        fig.update_yaxes(scaleanchor="x", scaleratio=1)


def _place_legend(fig, animated: bool):
    """A horizontal legend that leaves the picture the column's whole width.

    Below the plot, or above it when a slider and play buttons take the space below.
    Plotly makes room for it in the margin.
    """
    if animated:
        # Small entries packed close: in a narrow column every row of legend is a row less of picture.
        where = {"y": 1.0, "yanchor": "bottom", "font": {"size": 11}, "itemwidth": 30, "tracegroupgap": 0}
        title = fig.layout.title.text
        if title:
            # A title in the margin would overlap a legend that Plotly grows into it: the legend
            # carries the title on its first line instead.
            where["title"] = {"text": f"<b>{title}</b>", "side": "top"}
            fig.update_layout(title=None, margin={"t": 10})
    else:
        where = {"y": -0.02, "yanchor": "top"}
    fig.update_layout(
        legend={
            "orientation": "h",
            "x": 0.0,
            "xanchor": "left",
            **where,
            "itemsizing": "constant",
            "bgcolor": "rgba(255,255,255,0.8)",
        }
    )


# ------------------------------------------------------------------ builders
def region_figure(
    grid: ViewGrid,
    regions: RegionGrid | None = None,
    points: PointLayer | None = None,
    boundaries: list[BoundaryCurve] = (),
    styles: dict | None = None,
    marked: dict | None = None,
    class_names: list[str] | None = None,
    value_range: tuple | None = None,
    title: str | None = None,
    height: int | None = None,
    *,
    colors: list[str] | None = None,
    coastlines: tuple | None = None,
    frames: list[RegionGrid] | None = None,
    frame_names: list[str] | None = None,
    active_frame: int = 0,
    frame_label: str = "frame",
    value_title: str | None = None,
    diverging: bool = False,
    facing: np.ndarray | None = None,
    frame_styles: list[dict] | None = None,
    label_nodes: bool | Iterable[int] = False,
    highlight=None,
    wide: bool = False,
    zoom: float | None = None,
) -> go.Figure:
    """Decision regions (or the bare manifold), points and boundaries of one view.

    Parameters
    ----------
    grid : ViewGrid
        The picture; its coordinates place the regions.
    regions : RegionGrid, optional
        Predictions over ``grid``; without them the manifold is drawn grey.
    points : PointLayer, optional
    boundaries : list of BoundaryCurve
    styles : dict of int to {"split", "path", "newest"}, optional
        Style of the boundary of each node (default ``"split"``).
    marked : dict, optional
        Picture coordinates of one point to mark with a star (explain a point).
    class_names : list of str, optional
        Names of the classes, in class-index order (legend, hover).
    value_range : (float, float), optional
        Shared colour range of a regression (predictions and targets).
    title : str, optional
    height : int, optional
        Pixels; a per-kind default otherwise.
    colors : list of str, optional
        One hex colour per class (default :func:`~curvedtrees.viz.palette.class_colors`;
        world pictures of land and water pass natural colours).
    coastlines : (ndarray, ndarray), optional
        NaN-separated latitudes and longitudes in degrees, each of shape (n,): the
        picture is the globe, drawn with coastlines and a graticule (sphere, map, ortho).
    frames : list of RegionGrid, optional
        Predictions over ``grid`` at several reference points (for example one per
        month): the figure gets one animation frame each, a slider and a play button.
        ``regions`` defaults to ``frames[active_frame]``. An ortho view, which is
        animated by turning, shows ``frames[active_frame]`` only.
    frame_names : list of str, optional
        Slider labels of the frames (default 1, 2, ...); must be distinct.
    active_frame : int
        The frame shown first.
    frame_label : str
        What the slider sets ("month").
    value_title : str, optional
        Colour-bar title of a regression (default "prediction"), such as "°C".
    diverging : bool
        Regression colours on a diverging scale centred on zero (blue below, red above).
    facing : ndarray of shape (3,), optional
        Unit direction the camera of a sphere (and the centre of an ortho view)
        looks at; a globe without one faces 20 N 20 E. A 3-D picture turns instead
        to the marked point, else to the boundary styled ``"selected"``, else to the
        one styled ``"newest"`` (in the shown frame), when there is one.
    frame_styles : list of dict of int to str, optional
        With ``frames`` (a replay, one frame per number of splits): the boundaries
        each frame draws, node -> style; a node missing from a frame's dict is not
        drawn in it. Each frame then restyles the boundary traces as well as the
        regions, in the browser.
    label_nodes : bool or iterable of int
        Write node ids next to drawn boundaries: True for every drawn one, or the ids of
        the nodes to label (a big tree's largest splits; ids not drawn are ignored).
    highlight : NodeRegion, optional
        From :func:`curvedtrees.viz.treeview.node_region`: the selected node's region
        keeps its colours and every other cell is drawn in its class's palest shade
        (classification, every frame); its labels (the sides of a split with the rule,
        or a leaf's prediction) are written on the picture.
    wide : bool
        The picture has a column of at least 736 px to itself (lecture mode: sidebar
        folded, one picture): a taller chart and, for the sphere and the torus, a closer
        camera, from :data:`WIDE_FRAMING`. Off, the framing fits a 340 px column.
    zoom : float, optional
        A sphere's or torus's camera distance is divided by this instead (the page knows
        its column is wider than 340 px but shares the page: the Inspector in lecture mode).

    Returns
    -------
    plotly.graph_objects.Figure
    """
    kind = grid.view.kind
    frames = list(frames) if frames else []
    base_height, wide_zoom, lift = (_HEIGHT[kind], 1.0, 0.0)
    if wide:
        base_height, wide_zoom, lift = WIDE_FRAMING.get(kind, (base_height, wide_zoom, lift))
    zoom = float(zoom) if zoom is not None else wide_zoom
    if not zoom > 0:
        raise ValueError(f"zoom must be a positive number, got {zoom!r}")
    # An animated picture gives a legend above and a slider below their room on top of its picture's.
    height = height or base_height + (_ANIMATED_ROOM.get(kind, 0) if frames else 0)
    if frames:
        active_frame = int(np.clip(active_frame, 0, len(frames) - 1))
        regions = regions if regions is not None else frames[active_frame]
        frame_names = [str(n) for n in frame_names] if frame_names else [str(k + 1) for k in range(len(frames))]
        if len(frame_names) != len(frames) or len(set(frame_names)) != len(frames):
            raise ValueError(f"{len(frames)} frames need as many distinct names, got {frame_names!r}")
        if frame_styles is not None and len(frame_styles) != len(frames):
            raise ValueError(f"{len(frames)} frames need as many boundary styles, got {len(frame_styles)}")
    if frame_styles is not None and frames:
        styles = frame_styles[active_frame]
    if highlight is not None and regions is not None and regions.task == "classification":
        regions = _dimmed(regions, highlight.inside)
        frames = [_dimmed(r, highlight.inside) for r in frames]
    classification = regions is not None and regions.task == "classification"
    if classification and class_names is None:
        class_names = [str(c) for c in regions.classes]
    n_classes = len(class_names) if class_names is not None else 0
    if points is not None and points.class_index is not None and class_names is None:
        n_classes = int(np.max(points.class_index)) + 1 if len(points) else 0
        class_names = [str(k) for k in range(n_classes)]
    if colors is not None and len(colors) != n_classes:
        raise ValueError(f"{len(colors)} colours for {n_classes} classes")
    colors = (list(colors) if colors is not None else class_colors(n_classes)) if n_classes else None
    if regions is not None and regions.task == "regression" and value_range is None:
        pieces = [r.values[np.isfinite(r.values)] for r in (frames or [regions])]
        if points is not None and points.values is not None:
            pieces.append(np.asarray(points.values, dtype=np.float64))
        both = np.concatenate([np.ravel(p) for p in pieces])
        value_range = (float(both.min()), float(both.max())) if both.size else (0.0, 1.0)
    if diverging and value_range is not None:
        # Centre the scale on zero: equal reach both ways, so white means 0.
        reach = max(abs(float(value_range[0])), abs(float(value_range[1]))) or 1.0
        value_range = (-reach, reach)
    coloring = _Coloring(
        colors,
        _DIVERGING_SCALE if diverging else _REGRESSION_SCALE,
        value_range,
        value_title or "prediction",
        quantized=bool(frames) or kind == "ortho",
        compact=bool(frames) and kind in ("disk", "plane", "line"),
    )
    if kind == "ortho":
        return _ortho_figure(
            grid, regions, points, boundaries, styles, marked, class_names, coloring, title, height, coastlines, facing
        )

    fig = go.Figure()
    three_d = kind in ("sphere", "torus")
    patcher = None
    if kind in ("disk", "plane", "line"):
        _add_flat(fig, grid, regions, coloring)
    elif kind == "map":
        _add_map(fig, grid, regions, coloring)
    elif three_d:
        patcher = _Patcher(grid, coloring) if regions is not None and _smooth(regions, frames) else None
        _add_mesh(fig, grid, regions, coloring, patcher)
    else:
        _add_ring(fig, grid, regions, coloring)
    if coastlines is not None and kind in ("sphere", "map"):
        _add_world_lines(fig, kind, coastlines)

    curves = _picture_curves(kind, boundaries) if boundaries else []
    labelled = _labelled(curves, label_nodes)
    moving = None  # (trace indices, data per frame) of boundaries that a replay's frames restyle
    if curves and frames and frame_styles is not None:
        moving = _add_frame_boundaries(fig, curves, frame_styles, active_frame, kind, labelled)
    elif curves:
        _boundary_traces(fig, curves, styles, three_d, polar=kind == "circle")
        if labelled:
            fig.add_trace(_node_labels(curves, labelled, kind, first=True))

    parts = _split_points(points)
    for part, test in parts:
        _add_points(
            fig,
            kind,
            part,
            _point_style(part, colors, value_range, test, coloring.scale),
            _hover(part, class_names, test),
            test,
        )
    if highlight is not None and getattr(highlight, "band", None) is not None:
        _add_margin(fig, grid, highlight)
    if highlight is not None and highlight.labels:
        _add_region_labels(fig, kind, highlight.labels)
    if marked:
        _add_marked(fig, kind, marked)
    _legend_entries(
        fig,
        class_names if classification or points is not None else None,
        colors,
        any(test for _, test in parts),
        kind,
        bool(parts),
    )
    look = _look_at(kind, marked, curves, styles, highlight) if three_d else None
    _finish_layout(
        fig, grid, height, title, facing=facing, globe=coastlines is not None, look=look, zoom=zoom, lift=lift
    )
    animated = bool(frames) and regions is not None
    if animated:
        _add_month_frames(fig, grid, frames, coloring, moving, patcher)
        _add_animation(fig, frame_names, active_frame, frame_label, duration=700 if moving is None else 450)
    _place_legend(fig, animated)
    if animated and kind in ("disk", "plane"):
        # A column narrower than the picture is tall: the square plot sits right under the legend,
        # and whatever height is left goes above the slider, not between legend and picture.
        fig.update_yaxes(constraintoward="top")
    return fig


def _picture_curves(kind: str, boundaries) -> list[BoundaryCurve]:
    """Boundaries in the coordinates their traces draw: strokes across a ring or a strip, map lines cut
    at the date line."""
    if kind == "circle":
        return [BoundaryCurve(c.node, _radial_segments(c.coords["theta"])) for c in boundaries]
    if kind == "line":
        return [BoundaryCurve(c.node, _vertical_segments(c.coords["x"])) for c in boundaries]
    if kind == "map":
        return [
            BoundaryCurve(c.node, dict(zip("xy", break_at_date_line(c.coords["x"], c.coords["y"])))) for c in boundaries
        ]
    return list(boundaries)


def _trace_class(kind: str):
    return go.Scatter3d if kind in ("sphere", "torus") else go.Scatterpolar if kind == "circle" else go.Scatter


def _coords_kwargs(kind: str, joined: dict) -> dict:
    """Trace coordinates of NaN-joined curves (float32; polar r, theta for a ring)."""
    keys = ("r", "theta") if kind == "circle" else ("x", "y", "z") if kind in ("sphere", "torus") else ("x", "y")
    return {k: np.asarray(joined[k], dtype=np.float32) for k in keys}


def _middle(curve: BoundaryCurve) -> dict | None:
    """The drawn sample halfway along a curve's visible part (a point on it, never an average)."""
    keys = list(curve.coords)
    finite = np.flatnonzero(np.all([np.isfinite(np.asarray(curve.coords[k], dtype=np.float64)) for k in keys], axis=0))
    if not len(finite):
        return None
    at = finite[len(finite) // 2]
    return {k: float(np.asarray(curve.coords[k])[at]) for k in keys}


def _labelled(curves, label_nodes) -> set[int]:
    """Node ids to write on the picture: every drawn curve's (True), none (False), or those listed."""
    if label_nodes is True:
        return {c.node for c in curves}
    if label_nodes is False or label_nodes is None:
        return set()
    return {int(v) for v in label_nodes}


def _node_labels(curves, nodes, kind: str, first: bool):
    """Node ids written at the middle of each drawn boundary (one text trace)."""
    places = [(c.node, _middle(c)) for c in curves if c.node in nodes]
    places = [(node, m) for node, m in places if m is not None]
    keys = ("r", "theta") if kind == "circle" else ("x", "y", "z") if kind in ("sphere", "torus") else ("x", "y")
    if kind == "circle":
        places = [(node, {"r": 1.12, "theta": m["theta"]}) for node, m in places]
    coords = {k: np.array([m[k] for _, m in places] or [np.nan], dtype=np.float32) for k in keys}
    text = [str(node) for node, _ in places] or [""]
    trace = _trace_class(kind)(**coords, text=text)
    if first:
        trace.update(
            mode="text", hoverinfo="skip", showlegend=False, name="node ids", textfont={"size": 13, "color": "#111111"}
        )
        if kind not in ("sphere", "torus"):
            trace.update(textfont={"size": 13, "color": "#111111", "shadow": "1px 1px 2px #FFFFFF"})
    return trace


def _frame_boundary_data(curves, styles: dict, kind: str, first: bool, listed=()) -> list:
    """Traces of one frame's boundaries: every style's layers in a fixed order, empty when unused."""
    drawn = [c for c in curves if c.node in styles]
    grouped = {style: (joined, nodes) for style, joined, nodes in _grouped_boundaries(drawn, styles)} if drawn else {}
    keys = list(curves[0].coords)
    empty = {k: np.array([np.nan]) for k in keys}
    out = []
    for style in BOUNDARY_STYLES:
        joined, nodes = grouped.get(style, (empty, ""))
        for line, top in _boundary_layers(style):
            trace = _trace_class(kind)(**_coords_kwargs(kind, joined), hovertext=f"nodes {nodes}" if top else None)
            if first:
                trace.update(
                    mode="lines",
                    line=line,
                    name=_BOUNDARY_NAMES[style],
                    legendgroup=style,
                    showlegend=top and style in listed,
                    hoverinfo="name" if top else "skip",
                )
            out.append(trace)
    return out


def _add_frame_boundaries(fig, curves, frame_styles, active: int, kind: str, labelled: set):
    """Boundary traces a replay restyles frame by frame; returns (their trace indices, data per frame).

    Each frame writes the ids of ``labelled`` nodes among the boundaries it draws.
    """
    start = len(fig.data)
    # The legend lists the styles some frame uses (a replay without an explained point has no path).
    listed = {style for styles in frame_styles for style in styles.values()}
    for trace in _frame_boundary_data(curves, frame_styles[active], kind, first=True, listed=listed):
        fig.add_trace(trace)
    if labelled:
        fig.add_trace(_node_labels(curves, set(frame_styles[active]) & labelled, kind, first=True))
    indices = list(range(start, len(fig.data)))
    per_frame = []
    for styles in frame_styles:
        data = _frame_boundary_data(curves, styles, kind, first=False)
        if labelled:
            data.append(_node_labels(curves, set(styles) & labelled, kind, first=False))
        per_frame.append(data)
    return indices, per_frame


def _dimmed(regions: RegionGrid, inside: np.ndarray) -> RegionGrid:
    """A copy whose cells outside ``inside`` have the lowest confidence: their class's palest shade."""
    confidence = np.where(inside.reshape(regions.confidence.shape), regions.confidence, np.float32(0.0))
    return dataclasses.replace(regions, confidence=confidence.astype(np.float32))


_BAND_COLOR = "rgba(255, 225, 0, 0.45)"  # the newest split's yellow, see-through


def _add_margin(fig, grid: ViewGrid, highlight):
    """A split's margin band (flat pictures: a see-through heatmap; 3-D: a see-through mesh just above the
    surface) and its nearest training row on each side (ringed markers)."""
    kind = grid.view.kind
    band = np.asarray(highlight.band).reshape(grid.shape)
    if kind in ("disk", "plane", "map") and band.any():
        x = grid.coords["lon" if kind == "map" else "x"]
        y = grid.coords["lat" if kind == "map" else "y"]
        z = np.where(band, np.float32(1.0), np.float32(np.nan))
        fig.add_trace(
            go.Heatmap(
                x=np.asarray(x, np.float32),
                y=np.asarray(y, np.float32),
                z=z,
                zsmooth=False,
                colorscale=[[0, _BAND_COLOR], [1, _BAND_COLOR]],
                showscale=False,
                hoverinfo="skip",
                name="margin",
            )
        )
    elif kind in ("sphere", "torus") and band.any():
        rows, cols = grid.shape
        i, j, k = _mesh_faces(rows, cols)
        keep = np.concatenate([band.ravel(), band.ravel()])
        vx, vy, vz = (np.asarray(grid.coords[c], dtype=np.float32).ravel() for c in ("vx", "vy", "vz"))
        if kind == "sphere":
            vx, vy, vz = vx * 1.003, vy * 1.003, vz * 1.003  # above the regions, below the boundaries
        fig.add_trace(
            go.Mesh3d(
                x=vx,
                y=vy,
                z=vz,
                i=i[keep],
                j=j[keep],
                k=k[keep],
                color="#FFE100",
                opacity=0.45,
                hoverinfo="skip",
                showlegend=False,
                name="margin",
                flatshading=True,
            )
        )
    keys = ("theta",) if kind == "circle" else ("x", "y", "z") if kind in ("sphere", "torus") else ("x", "y")
    if highlight.nearest and all(k in highlight.nearest[0][0] for k in keys):
        coords = {k: np.array([p[k] for p, _, _ in highlight.nearest], dtype=np.float32) for k in keys}
        if kind == "circle":
            coords["r"] = np.full(len(highlight.nearest), 1.25, dtype=np.float32)
        hover = [f"nearest training row on the {side}: row {row}" for _, row, side in highlight.nearest]
        marker = {
            "symbol": "circle-open",
            "size": 18 if kind not in ("sphere", "torus") else 9,
            "color": "#111111",
            "line": {"width": 3},
        }
        fig.add_trace(
            _trace_class(kind)(
                **coords,
                mode="markers",
                marker=marker,
                hovertext=hover,
                hoverinfo="text",
                name="nearest rows (margin)",
                showlegend=True,
            )
        )


def _add_region_labels(fig, kind: str, labels):
    """Texts written on the picture (the selected node's sides, or a leaf's prediction), one trace."""
    keys = ("r", "theta") if kind == "circle" else ("x", "y", "z") if kind in ("sphere", "torus") else ("x", "y")
    points = [dict(p, r=0.78) if kind == "circle" else p for p, _, _ in labels]
    coords = {k: np.array([p[k] for p in points], dtype=np.float32) for k in keys}
    font = {"size": 13, "color": "#111111"}
    if kind not in ("sphere", "torus"):
        font["shadow"] = "0px 0px 3px #FFFFFF"
    texts = [t for _, t, _ in labels]
    if kind in ("sphere", "torus"):
        # WebGL draws 3-D text inside the scene, where a long label near the rim would run past the
        # column's edge: a letter on the surface, the whole label on hover.
        texts = ["L" if " left " in t else "R" if " right " in t else "leaf" for t in texts]
    fig.add_trace(
        _trace_class(kind)(
            **coords,
            text=[f"<b>{t}</b>" for t in texts],
            mode="text",
            hovertext=[f"{t}: {h}" if t != h else t for _, t, h in labels],
            hoverinfo="text",
            textfont=font,
            showlegend=False,
            name="node labels",
        )
    )


def _look_at(kind: str, marked: dict | None, curves, styles, highlight=None) -> dict | None:
    """Picture point a 3-D camera should face, and the pole of its boundary (sphere), or None.

    The explained point first, then the selected node's boundary, then its region's label
    (a selected leaf), then the newest split's boundary.
    """
    if marked:
        return {"point": np.array([marked["x"], marked["y"], marked["z"]], dtype=np.float64), "pole": None}
    styles = styles or {}
    if "selected" not in styles.values() and highlight is not None and highlight.labels:
        point = highlight.labels[0][0]
        return {"point": np.array([point[k] for k in "xyz"], dtype=np.float64), "pole": None}
    for wanted in ("selected", "newest"):
        for curve in curves:
            if styles.get(curve.node) != wanted:
                continue
            middle = _middle(curve)
            if middle is None:
                continue
            xyz = np.column_stack([np.asarray(curve.coords[k], dtype=np.float64) for k in "xyz"])
            xyz = xyz[np.isfinite(xyz).all(axis=1)]
            # Two points of a great circle (its drawn ends) span its plane: their cross product is the pole.
            pole = np.cross(xyz[0], xyz[len(xyz) // 3]) if len(xyz) > 2 else np.zeros(3)
            norm = np.linalg.norm(pole)
            pole = pole / norm * np.sign(pole[2] or 1.0) if norm > 1e-6 else None
            return {"point": np.array([middle[k] for k in "xyz"]), "pole": pole}
    return None


def _eye(kind: str, look: dict, zoom: float = 1.0) -> dict:
    """Camera position facing ``look`` from the kind's fitting distance divided by ``zoom``."""
    point = np.asarray(look["point"], dtype=np.float64)
    if kind == "torus":
        horizontal = np.hypot(point[0], point[1])
        azimuth = np.arctan2(point[1], point[0]) if horizontal > 1e-9 else -np.pi / 2
        direction = np.array([np.cos(azimuth), np.sin(azimuth), _TORUS_EYE_SLOPE])
        distance = TORUS_EYE_DISTANCE
    else:
        direction = point / (np.linalg.norm(point) or 1.0)
        if look.get("pole") is not None:
            direction = direction + _SPLIT_TILT * look["pole"]
        direction = direction / (np.linalg.norm(direction) or 1.0)
        # Not straight down a pole: the turntable camera keeps z up and spins there.
        lat = np.clip(np.arcsin(np.clip(direction[2], -1, 1)), -np.radians(70), np.radians(70))
        lon = np.arctan2(direction[1], direction[0])
        direction = np.array([np.cos(lat) * np.cos(lon), np.cos(lat) * np.sin(lon), np.sin(lat)])
        distance = SPHERE_EYE_DISTANCE
    direction = direction / np.linalg.norm(direction)
    return {k: float(v) for k, v in zip("xyz", distance / zoom * direction)}


def _radial_segments(theta: np.ndarray) -> dict:
    """Circle boundary angles -> radial strokes across the ring (polar r, theta)."""
    r, t = [], []
    for angle in np.asarray(theta, dtype=np.float64):
        r += [0.5, 1.02, np.nan]
        t += [angle, angle, np.nan]
    return {"r": np.array(r[:-1]), "theta": np.array(t[:-1])}


def _vertical_segments(x: np.ndarray) -> dict:
    xs, ys = [], []
    for value in np.asarray(x, dtype=np.float64):
        xs += [value, value, np.nan]
        ys += [0.0, 1.0, np.nan]
    return {"x": np.array(xs[:-1]), "y": np.array(ys[:-1])}


def _add_flat(fig, grid: ViewGrid, regions, coloring: _Coloring):
    kind = grid.view.kind
    x = np.asarray(grid.coords["x"], dtype=np.float32)
    if kind == "line":
        y = np.array([0.5], dtype=np.float32)
    else:
        y = np.asarray(grid.coords["y"], dtype=np.float32)
    if regions is not None:
        z = _cell_values(regions, coloring)
        color = _color_args(regions, coloring)
        if kind == "line":
            z = z.reshape(1, -1)
            fig.add_trace(
                go.Heatmap(
                    x=x, y=[0.0, 1.0], z=np.vstack([z, z]), zsmooth=False, hoverinfo="skip", **_heatmap_color(color)
                )
            )
        else:
            fig.add_trace(go.Heatmap(x=x, y=y, z=z, zsmooth=False, hoverinfo="skip", **_heatmap_color(color)))
    if kind == "disk":
        R = float(grid.bounds[1]) if grid.bounds else float(np.max(np.abs(x)))
        t = np.linspace(0, 2 * np.pi, 361)
        if regions is None:
            fig.add_trace(
                go.Scatter(
                    x=R * np.cos(t),
                    y=R * np.sin(t),
                    fill="toself",
                    fillcolor=_BLANK,
                    mode="lines",
                    line={"color": "rgba(0,0,0,0)"},
                    hoverinfo="skip",
                    showlegend=False,
                )
            )
        fig.add_trace(
            go.Scatter(
                x=R * np.cos(t),
                y=R * np.sin(t),
                mode="lines",
                hoverinfo="skip",
                line={"color": "#222222", "width": 2},
                showlegend=False,
                name="rim",
            )
        )
    elif kind == "line" and regions is None:
        lo, hi = grid.bounds
        fig.add_trace(
            go.Scatter(
                x=[lo, hi, hi, lo, lo],
                y=[0, 0, 1, 1, 0],
                fill="toself",
                fillcolor=_BLANK,
                mode="lines",
                line={"color": "#999999", "width": 1},
                hoverinfo="skip",
                showlegend=False,
            )
        )


def _add_map(fig, grid: ViewGrid, regions, coloring: _Coloring):
    """Regions of a world map: one heatmap cell per grid cell, longitude across, latitude up."""
    lon = np.asarray(grid.coords["lon"], dtype=np.float32)
    lat = np.asarray(grid.coords["lat"], dtype=np.float32)
    if regions is None:
        z, color = (
            np.zeros((len(lat), len(lon)), dtype=np.uint8),
            {"colorscale": [[0, _BLANK], [1, _BLANK]], "cmin": 0, "cmax": 1, "showscale": False},
        )
    else:
        z, color = _cell_values(regions, coloring), _color_args(regions, coloring)
    fig.add_trace(
        go.Heatmap(x=lon, y=lat, z=z, zsmooth=False, hoverinfo="skip", name="regions", **_heatmap_color(color))
    )


def _add_world_lines(fig, kind: str, coastlines):
    """Graticule (every 30 degrees) and coastlines on a 3-D globe or a flat map."""
    coast_lat, coast_lon = (np.asarray(a, dtype=np.float64) for a in coastlines)
    grid_lat, grid_lon = graticule(30.0)
    for (lat, lon), line, name, lift in (
        ((grid_lat, grid_lon), _GRATICULE_STYLE, "graticule", _GRID_LIFT),
        ((coast_lat, coast_lon), _COAST_STYLE, "coastlines", _COAST_LIFT),
    ):
        common = {"mode": "lines", "line": line, "hoverinfo": "skip", "showlegend": False, "name": name}
        if kind == "sphere":
            fig.add_trace(go.Scatter3d(**latlon_xyz(lat, lon, lift), **common))
        else:
            x, y = break_at_date_line(lon, lat)
            fig.add_trace(go.Scatter(x=x.astype(np.float32), y=y.astype(np.float32), **common))


def _heatmap_color(color: dict) -> dict:
    out = {
        "colorscale": color["colorscale"],
        "zmin": color["cmin"],
        "zmax": color["cmax"],
        "showscale": color["showscale"],
    }
    if "colorbar" in color:
        out["colorbar"] = color["colorbar"]
    return out


def _mesh_intensity(regions: RegionGrid, coloring: _Coloring) -> np.ndarray:
    cell = _cell_values(regions, coloring).ravel()
    cell = np.concatenate([cell, cell])  # two triangles per cell, in _mesh_faces order
    if regions.task == "classification":
        cell = np.nan_to_num(cell, nan=0.0).astype(np.uint8)
    return cell


_MESH_LIGHTING = {"ambient": 0.9, "diffuse": 0.25, "specular": 0.02, "roughness": 0.9, "fresnel": 0.0}
# A patch trace with nothing to draw: one triangle of zero area at the origin (hidden inside the sphere,
# in the torus's hole), so that every frame restyles the same trace with valid data.
_NO_PATCHES = Patches(
    *(np.zeros(1, dtype=np.float32),) * 3, *(np.zeros(1, dtype=np.uint16),) * 3, np.zeros(1, np.int64)
)


def _smooth(regions, frames) -> bool:
    """Whether a sphere or torus picture draws smooth region edges: classification regions with crossings."""
    shown = [r for r in (frames or [regions]) if r is not None]
    return any(r.task == "classification" and r.cuts is not None for r in shown)


class _Patcher:
    """The smooth-edge patches of a picture's regions (one build per set of crossings, shared by frames)."""

    def __init__(self, grid: ViewGrid, coloring: _Coloring):
        self.grid, self.coloring, self._built = grid, coloring, {}

    def patches(self, regions) -> Patches:
        cuts = regions.cuts if regions is not None and regions.task == "classification" else None
        if cuts is None or not len(cuts):
            return _NO_PATCHES
        if id(cuts) not in self._built:
            self._built[id(cuts)] = (cuts, edge_patches(self.grid, cuts))  # the key object kept alive with it
        return self._built[id(cuts)][1]

    def intensity(self, regions, patches: Patches) -> np.ndarray:
        """Each piece's colour code: that of the cell whose corner it holds (uint8)."""
        if patches is _NO_PATCHES:
            return np.zeros(1, dtype=np.uint8)
        codes = np.nan_to_num(_cell_values(regions, self.coloring).ravel(), nan=0.0).astype(np.uint8)
        return codes[patches.source]

    def shared(self, frames) -> bool:
        """Whether every frame's pieces are the same (a replay: one set of crossings for all)."""
        first = frames[0].cuts if frames else None
        return first is not None and all(f.cuts is first for f in frames)

    def trace(self, regions, geometry: bool = True) -> go.Mesh3d:
        patches = self.patches(regions)
        if not geometry:
            return go.Mesh3d(intensity=self.intensity(regions, patches))
        return go.Mesh3d(
            x=patches.x,
            y=patches.y,
            z=patches.z,
            i=patches.i,
            j=patches.j,
            k=patches.k,
            intensity=self.intensity(regions, patches),
        )


def _mesh_corners(grid: ViewGrid, sink: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The cell mesh's corners (float32, flattened), ``sink`` picture units below the surface."""
    if sink == 0.0:
        return tuple(np.asarray(grid.coords[k], dtype=np.float32).ravel() for k in ("vx", "vy", "vz"))
    rows, cols = grid.shape
    if grid.view.kind == "sphere":
        return tuple(
            (np.asarray(grid.coords[k], dtype=np.float64) * (1.0 - sink)).astype(np.float32).ravel()
            for k in ("vx", "vy", "vz")
        )
    # The torus grid's corners (views.view_grid): columns around the ring, rows around the tube.
    va, vb = np.meshgrid(np.linspace(-np.pi, np.pi, cols + 1), np.linspace(-np.pi, np.pi, rows + 1))
    xyz = torus_xyz(va, vb, lift=-sink / TORUS_RADII[1])
    return tuple(xyz[k].ravel() for k in "xyz")


def _add_mesh(fig, grid: ViewGrid, regions, coloring: _Coloring, patcher: _Patcher | None = None):
    """The cell mesh (trace 0) and, with a ``patcher``, the smooth-edge patches on top of it (trace 1)."""
    rows, cols = grid.shape
    vx, vy, vz = _mesh_corners(grid, sink_depth(grid) if patcher is not None else 0.0)
    i, j, k = _mesh_faces(rows, cols)
    lighting = _MESH_LIGHTING
    common = {
        "x": vx,
        "y": vy,
        "z": vz,
        "i": i,
        "j": j,
        "k": k,
        "hoverinfo": "skip",
        "lighting": lighting,
        "flatshading": True,
        "showlegend": False,
        "name": "regions",
    }
    if regions is None:
        fig.add_trace(go.Mesh3d(**common, color=_BLANK))
        return
    fig.add_trace(
        go.Mesh3d(
            **common,
            intensity=_mesh_intensity(regions, coloring),
            intensitymode="cell",
            **_color_args(regions, coloring),
        )
    )
    if patcher is not None:
        patch = patcher.trace(regions)
        patch.update(
            hoverinfo="skip",
            lighting=lighting,
            flatshading=True,
            showlegend=False,
            name="region edges",
            intensitymode="cell",
            **_color_args(regions, coloring),
        )
        fig.add_trace(patch)


def _add_month_frames(
    fig, grid: ViewGrid, frames: list[RegionGrid], coloring: _Coloring, moving=None, patcher: _Patcher | None = None
):
    """One animation frame per prediction, each restyling the regions trace (trace 0).

    ``moving``, from :func:`_add_frame_boundaries`, adds the boundary traces each frame restyles;
    a ``patcher`` adds the smooth-edge patches (trace 1): their colours only when every frame
    shares its pieces (a replay), else their pieces too.
    """
    kind = grid.view.kind
    out = []
    patch_geometry = patcher is not None and not patcher.shared(frames)
    for regions in frames:
        if kind in ("sphere", "torus"):
            data = go.Mesh3d(intensity=_mesh_intensity(regions, coloring))
            if patcher is not None:
                data = [data, patcher.trace(regions, geometry=patch_geometry)]
        elif kind == "circle":
            # Only the colour numbers: a frame merges into the trace, which keeps its colour scale.
            values = _ring_marker(regions, coloring)["color"]
            data = go.Barpolar(marker={"color": values, "line": {"color": values}})
        else:
            z = _cell_values(regions, coloring)
            data = go.Heatmap(z=np.vstack([z.reshape(1, -1)] * 2) if kind == "line" else z)
        out.append(data)
    regions_traces = [0, 1] if patcher is not None else [0]
    out = [d if isinstance(d, list) else [d] for d in out]
    if moving is None:
        fig.frames = [go.Frame(data=d, traces=regions_traces) for d in out]
    else:
        indices, per_frame = moving
        fig.frames = [
            go.Frame(data=[*d, *extra], traces=[*regions_traces, *indices]) for d, extra in zip(out, per_frame)
        ]


def _add_animation(fig, names: list[str], active: int, label: str, duration: int):
    """Name the figure's frames, and add a slider over them and play / pause buttons."""
    frames = list(fig.frames)
    fig.frames = [go.Frame(data=f.data, traces=f.traces, name=name) for f, name in zip(frames, names)]
    # redraw: WebGL and heatmap traces only change when redrawn; no transition (nothing to tween).
    still = {"frame": {"duration": 0, "redraw": True}, "mode": "immediate", "transition": {"duration": 0}}
    play = {
        "frame": {"duration": duration, "redraw": True},
        "fromcurrent": True,
        "mode": "immediate",
        "transition": {"duration": 0},
    }
    fig.update_layout(
        # Buttons on the left above the slider's rail, the current value on the right: nothing overlaps
        # in a narrow column.
        updatemenus=[
            {
                "type": "buttons",
                "direction": "left",
                "showactive": False,
                "x": 0.0,
                "y": 0.0,
                "xanchor": "left",
                "yanchor": "top",
                "pad": {"t": 6, "r": 8},
                "buttons": [
                    {"label": "▶ Play", "method": "animate", "args": [None, play]},
                    {
                        "label": "❚❚ Pause",
                        "method": "animate",
                        "args": [
                            [None],
                            {
                                "frame": {"duration": 0, "redraw": False},
                                "mode": "immediate",
                                "transition": {"duration": 0},
                            },
                        ],
                    },
                ],
            }
        ],
        sliders=[
            {
                "active": int(active),
                "x": 0.0,
                "len": 1.0,
                "y": 0.0,
                "yanchor": "top",
                "pad": {"t": 44},
                "currentvalue": {"prefix": f"{label}: ", "font": {"size": 14}, "xanchor": "right", "offset": 12},
                "steps": [{"label": name, "method": "animate", "args": [[name], still]} for name in names],
            }
        ],
    )
    fig.update_layout(margin={"b": max(int(fig.layout.margin.b or 0), 130)})


def _ring_marker(regions: RegionGrid, coloring: _Coloring) -> dict:
    """Sector colours as numbers on the picture's colour scale (colour strings cost Plotly a validation each:
    seconds over a replay's frames)."""
    values = _cell_values(regions, coloring).ravel()
    values = np.nan_to_num(values, nan=0.0).astype(np.float32)
    color = {k: v for k, v in _color_args(regions, coloring).items() if k in ("colorscale", "cmin", "cmax")}
    # An outline in the fill colour hides the hairline seams between sectors.
    return {"color": values, **color, "showscale": False, "line": {"color": values, **color, "width": 0.6}}


def _ring_colors(regions: RegionGrid, coloring: _Coloring) -> list[str]:
    if regions.task == "classification":
        scale = region_colorscale(len(regions.classes), coloring.colors)[0]
        return [scale[2 * int(c)][1] if np.isfinite(c) else _BLANK for c in _codes(regions).ravel()]
    values = regions.values.ravel()
    lo, hi = _finite_range(regions, coloring.value_range)
    scale = pc.get_colorscale(coloring.scale)
    span = (hi - lo) or 1.0
    return [pc.sample_colorscale(scale, float(np.clip((v - lo) / span, 0, 1)))[0] for v in values]


def _add_ring(fig, grid: ViewGrid, regions, coloring: _Coloring):
    theta = np.asarray(grid.coords["theta"], dtype=np.float64)
    width = 360.0 / len(theta)
    marker = (
        {"color": [_BLANK] * len(theta), "line": {"color": [_BLANK] * len(theta), "width": 0.6}}
        if regions is None
        else _ring_marker(regions, coloring)
    )
    fig.add_trace(
        go.Barpolar(
            r=np.full(len(theta), 0.45, dtype=np.float32),
            base=0.55,
            theta=theta.astype(np.float32),
            width=width,
            marker=marker,
            hoverinfo="skip",
            showlegend=False,
            name="regions",
        )
    )
    if regions is not None and regions.task == "regression":
        lo, hi = _finite_range(regions, coloring.value_range)
        # Barpolar has no colour bar of its own: an invisible marker trace carries it.
        fig.add_trace(
            go.Scatterpolar(
                r=[None],
                theta=[None],
                mode="markers",
                showlegend=False,
                hoverinfo="skip",
                marker={
                    "colorscale": coloring.scale,
                    "cmin": lo,
                    "cmax": hi,
                    "color": [lo],
                    "showscale": True,
                    "colorbar": {"title": {"text": coloring.value_title}, "thickness": 14},
                },
            )
        )


def _add_points(fig, kind: str, part: PointLayer, marker: dict, hover: list[str], test: bool):
    name = "test points" if test else "training points"
    common = {
        "mode": "markers",
        "marker": marker,
        "hovertext": hover,
        "hoverinfo": "text",
        "showlegend": False,
        "name": name,
    }
    c = part.coords
    if kind in ("sphere", "torus"):
        marker = dict(marker, size=3.5 if not test else 4.5, line={"color": "#222222", "width": 0.5})
        fig.add_trace(
            go.Scatter3d(
                x=np.asarray(c["x"], np.float32),
                y=np.asarray(c["y"], np.float32),
                z=np.asarray(c["z"], np.float32),
                **(common | {"marker": marker}),
            )
        )
    elif kind == "circle":
        rows = part.rows if part.rows is not None else np.arange(len(part))
        # Spread points radially (fixed per row) so that a crowd on one angle stays visible.
        jitter = 1.08 + 0.3 * ((np.asarray(rows) * 0.6180339887) % 1.0)
        fig.add_trace(go.Scatterpolar(r=jitter.astype(np.float32), theta=np.asarray(c["theta"], np.float32), **common))
    elif kind == "line":
        rows = part.rows if part.rows is not None else np.arange(len(part))
        jitter = 0.1 + 0.8 * ((np.asarray(rows) * 0.6180339887) % 1.0)
        fig.add_trace(go.Scatter(x=np.asarray(c["x"], np.float32), y=jitter.astype(np.float32), **common))
    else:
        if kind == "map":
            marker = dict(marker, size=5 if not test else 6)
        fig.add_trace(
            go.Scatter(
                x=np.asarray(c["x"], np.float32), y=np.asarray(c["y"], np.float32), **(common | {"marker": marker})
            )
        )


def _add_marked(fig, kind: str, marked: dict):
    marker = {"symbol": "star", "size": 20, "color": "#FFE100", "line": {"color": "#111111", "width": 1.5}}
    common = {"mode": "markers", "marker": marker, "name": "explained point", "showlegend": True, "hoverinfo": "name"}
    if kind in ("sphere", "torus"):
        fig.add_trace(
            go.Scatter3d(
                x=[float(marked["x"])],
                y=[float(marked["y"])],
                z=[float(marked["z"])],
                **(common | {"marker": dict(marker, symbol="diamond", size=9)}),
            )
        )
    elif kind == "circle":
        fig.add_trace(go.Scatterpolar(r=[1.25], theta=[float(marked["theta"])], **common))
    elif kind == "line":
        fig.add_trace(go.Scatter(x=[float(marked["x"])], y=[0.5], **common))
    else:
        fig.add_trace(go.Scatter(x=[float(marked["x"])], y=[float(marked["y"])], **common))


def _facing_latlon(facing) -> tuple[float, float]:
    """(latitude, longitude) in degrees of a facing direction (DEFAULT_FACING without one)."""
    if facing is None:
        return DEFAULT_FACING
    f = np.asarray(facing, dtype=np.float64)
    return float(np.degrees(np.arcsin(np.clip(f[2], -1, 1)))), float(np.degrees(np.arctan2(f[1], f[0])))


def _finish_layout(
    fig,
    grid: ViewGrid,
    height: int,
    title: str | None,
    facing=None,
    globe: bool = False,
    look: dict | None = None,
    zoom: float = 1.0,
    lift: float = 0.0,
):
    kind = grid.view.kind
    if kind == "disk":
        R = float(grid.bounds[1]) if grid.bounds else 1.0
        pad = 0.03 * R
        _layout_2d(fig, (-R - pad, R + pad, -R - pad, R + pad), True, height, title, hide_axes=True)
    elif kind == "plane":
        _layout_2d(fig, grid.bounds, True, height, title, hide_axes=False)
        fig.update_xaxes(title={"text": f"x{grid.view.axes[0]}"}, showline=True, mirror=True, linecolor="#888")
        fig.update_yaxes(title={"text": f"x{grid.view.axes[1]}"}, showline=True, mirror=True, linecolor="#888")
    elif kind == "map":
        _layout_2d(fig, (-180.0, 180.0, -90.0, 90.0), True, height, title, hide_axes=False)
        degrees = {"showline": True, "mirror": True, "linecolor": "#888", "ticks": "outside", "ticksuffix": "°"}
        fig.update_xaxes(title={"text": "longitude"}, tickvals=list(range(-180, 181, 60)), **degrees)
        fig.update_yaxes(title={"text": "latitude"}, tickvals=list(range(-90, 91, 30)), **degrees)
    elif kind == "line":
        lo, hi = grid.bounds
        _layout_2d(fig, (lo, hi, -0.05, 1.05), False, height, title, hide_axes=False)
        fig.update_yaxes(visible=False)
        fig.update_layout(legend={"orientation": "h", "y": -0.25})
    elif kind == "circle":
        fig.update_layout(
            polar={
                "radialaxis": {"visible": False, "range": [0, 1.45]},
                "angularaxis": {"direction": "counterclockwise", "rotation": 0, "dtick": 45, "gridcolor": "#DDDDDD"},
                "bgcolor": "#FFFFFF",
                "hole": 0.0,
            },
            height=height,
            margin={"l": 30, "r": 30, "t": 40 if title else 20, "b": 20},
            title=title,
            legend={"itemsizing": "constant"},
        )
    else:
        hidden = {"visible": False, "showbackground": False}
        if look is not None:
            eye = _eye(kind, look, zoom)
        elif kind == "sphere" and (facing is not None or globe):
            # Open facing the data (a globe without a mean direction: Africa and Europe), from a
            # little above its equator so that the poles do not fill the view.
            lat, lon = _facing_latlon(facing)
            lat = float(np.clip(lat, -35.0, 35.0))
            eye = {k: SPHERE_EYE_DISTANCE / zoom * float(v[0]) for k, v in latlon_xyz([lat], [lon]).items()}
        elif kind == "sphere":
            eye = _eye(kind, {"point": np.array([1.1, 1.1, 0.75]), "pole": None}, zoom)
        else:
            eye = _eye(kind, {"point": np.array([0.0, -1.0, 0.0]), "pole": None}, zoom)
        fig.update_layout(
            scene={
                "xaxis": hidden,
                "yaxis": hidden,
                "zaxis": hidden,
                "aspectmode": "data",
                "camera": {"eye": eye, "center": {"x": 0.0, "y": 0.0, "z": lift}} if lift else {"eye": eye},
                "dragmode": "turntable",
            },
            height=height,
            margin={"l": 0, "r": 0, "t": 40 if title else 0, "b": 0},
            title=title,
            legend={"itemsizing": "constant", "bgcolor": "rgba(255,255,255,0.8)"},
        )


# ------------------------------------------------------------ orthographic globe
def _ortho_figure(
    grid: ViewGrid,
    regions,
    points,
    boundaries,
    styles,
    marked,
    class_names,
    coloring: _Coloring,
    title,
    height,
    coastlines,
    facing,
) -> go.Figure:
    """The orthographic globe, with one animation frame per step of a turn around the polar axis.

    Every frame restyles the same traces (regions image, graticule, coastlines,
    boundaries, points, marked point) with their projection for its centre
    longitude; the legend entries do not move.
    """
    centre_lat, centre_lon = _facing_latlon(facing)
    # Round numbers on the slider; a tilt toward a pole beyond 35 degrees would hide the other half.
    centre_lat, centre_lon = float(np.clip(centre_lat, -35.0, 35.0)), 10.0 * round(centre_lon / 10.0)
    n_lat = grid.shape[0]
    size = int(np.clip(1.2 * n_lat, 80, 180))
    axis = ((np.arange(size) + 0.5) / size * 2.0 - 1.0).astype(np.float32)
    if regions is None:
        cells = np.zeros(grid.shape, dtype=np.uint8)
        color = {"colorscale": [[0, _BLANK], [1, _BLANK]], "cmin": 0, "cmax": 1, "showscale": False}
    else:
        cells = _cell_values(regions, coloring)
        cells = np.nan_to_num(cells, nan=0.0).astype(np.uint8)
        color = _color_args(regions, coloring)
    lines = [("graticule", _GRATICULE_STYLE, graticule(30.0))]
    if coastlines is not None:
        lines.append(("coastlines", _COAST_STYLE, tuple(np.asarray(a, dtype=np.float64) for a in coastlines)))
    bounds = _grouped_boundaries(boundaries, styles) if boundaries else []
    parts = _split_points(points)

    def layers(lon0: float) -> list:
        """Trace data for one centre longitude, in the figure's trace order."""
        out = [go.Heatmap(z=ortho_image(cells, centre_lat, lon0, size, 0))]
        for _, _, (lat, lon) in lines:
            x, y = ortho_lines(lat, lon, centre_lat, lon0)
            out.append(go.Scatter(x=x, y=y))
        for style, joined, _ in bounds:
            x, y = ortho_lines(joined["lat"], joined["lon"], centre_lat, lon0)
            out += [go.Scatter(x=x, y=y) for _ in _boundary_layers(style)]
        for part, _ in parts:
            x, y = _ortho_points(part.coords, centre_lat, lon0)
            out.append(go.Scatter(x=x, y=y))
        if marked:
            x, y = _ortho_points(marked, centre_lat, lon0)
            out.append(go.Scatter(x=x, y=y))
        return out

    first = layers(centre_lon)
    fig = go.Figure()
    fig.add_trace(
        go.Heatmap(
            x=axis, y=axis, z=first[0].z, zsmooth=False, hoverinfo="skip", name="regions", **_heatmap_color(color)
        )
    )
    at = 1
    for name, style, _ in lines:
        fig.add_trace(
            go.Scatter(
                x=first[at].x, y=first[at].y, mode="lines", line=style, hoverinfo="skip", showlegend=False, name=name
            )
        )
        at += 1
    for style, _, nodes in bounds:
        name = _BOUNDARY_NAMES[style]
        for line, top in _boundary_layers(style):
            fig.add_trace(
                go.Scatter(
                    x=first[at].x,
                    y=first[at].y,
                    mode="lines",
                    line=line,
                    name=name,
                    showlegend=top,
                    legendgroup=style,
                    hoverinfo="name" if top else "skip",
                    hovertext=f"nodes {nodes}" if top else None,
                )
            )
            at += 1
    for part, test in parts:
        marker = _point_style(part, coloring.colors, coloring.value_range, test, coloring.scale)
        marker["size"] = 5 if not test else 6
        fig.add_trace(
            go.Scatter(
                x=first[at].x,
                y=first[at].y,
                mode="markers",
                marker=marker,
                hovertext=_hover(part, class_names, test),
                hoverinfo="text",
                showlegend=False,
                name="test points" if test else "training points",
            )
        )
        at += 1
    if marked:
        fig.add_trace(
            go.Scatter(
                x=first[at].x,
                y=first[at].y,
                mode="markers",
                name="explained point",
                marker={"symbol": "star", "size": 20, "color": "#FFE100", "line": {"color": "#111111", "width": 1.5}},
                hoverinfo="name",
            )
        )
    n_moving = len(fig.data)
    classification = regions is not None and regions.task == "classification"
    _legend_entries(
        fig,
        class_names if classification or points is not None else None,
        coloring.colors,
        any(test for _, test in parts),
        "ortho",
        bool(parts),
    )
    # Everything outside the disk is covered in white (the resampled image is square), and the rim drawn.
    t = np.linspace(0.0, 2.0 * np.pi, 145)
    ring = " ".join(f"L {np.cos(a):.4f} {np.sin(a):.4f}" for a in t[1:])
    mask = f"M -1.2 -1.2 L 1.2 -1.2 L 1.2 1.2 L -1.2 1.2 Z M 1 0 {ring} Z"
    fig.add_shape(type="path", path=mask, fillcolor="#FFFFFF", line={"width": 0}, layer="above", fillrule="evenodd")
    fig.add_shape(type="circle", x0=-1, y0=-1, x1=1, y1=1, line={"color": "#222222", "width": 1.5}, layer="above")
    _layout_2d(fig, (-1.04, 1.04, -1.04, 1.04), True, height, title, hide_axes=True)
    _place_legend(fig, animated=True)

    turns = [(centre_lon + k * 360.0 / ORTHO_TURNS + 180.0) % 360.0 - 180.0 for k in range(ORTHO_TURNS)]
    names = [f"{abs(lon):.0f}°{'E' if lon >= 0 else 'W'}" for lon in turns]
    fig.frames = [go.Frame(data=layers(lon), traces=list(range(n_moving))) for lon in turns]
    _add_animation(fig, names, 0, "centre longitude", duration=350)
    return fig


def _ortho_points(coords: dict, centre_lat: float, centre_lon: float) -> tuple[np.ndarray, np.ndarray]:
    """Projected points, NaN on the far side (hidden), float32."""
    lat = np.atleast_1d(np.asarray(coords["lat"], dtype=np.float64))
    lon = np.atleast_1d(np.asarray(coords["lon"], dtype=np.float64))
    x, y, visible = ortho_project(lat, lon, centre_lat, centre_lon)
    return np.where(visible, x, np.nan).astype(np.float32), np.where(visible, y, np.nan).astype(np.float32)


def confusion_figure(matrix: np.ndarray, class_names: list[str], title: str | None = None) -> go.Figure:
    """Confusion matrix as an annotated heatmap (rows: true class, columns: predicted).

    Parameters
    ----------
    matrix : ndarray of int, shape (n_classes, n_classes)
    class_names : list of str
    """
    matrix = np.asarray(matrix)
    names = [str(c) for c in class_names]
    totals = matrix.sum(axis=1, keepdims=True)
    share = np.divide(matrix, totals, out=np.zeros(matrix.shape, dtype=np.float64), where=totals > 0)
    fig = go.Figure(
        go.Heatmap(
            z=share,
            x=names,
            y=names,
            colorscale="Blues",
            zmin=0,
            zmax=1,
            showscale=False,
            text=matrix.astype(str),
            texttemplate="%{text}",
            hovertemplate="true %{y}<br>predicted %{x}<br>%{text} rows<extra></extra>",
        )
    )
    size = min(80 + 42 * len(names), 640)
    fig.update_layout(
        xaxis={"title": {"text": "predicted"}, "type": "category", "side": "bottom", "showgrid": False},
        yaxis={"title": {"text": "true"}, "type": "category", "autorange": "reversed", "showgrid": False},
        height=size + 80,
        width=size + 100,
        margin={"l": 10, "r": 10, "t": 40 if title else 10, "b": 10},
        title=title,
        plot_bgcolor="#FFFFFF",
    )
    return fig
