"""Plotly figures of decision regions, data points and split boundaries.

Pure builders: they take arrays (from :mod:`curvedtrees.viz.views`,
:mod:`curvedtrees.viz.regions`, :mod:`curvedtrees.viz.boundaries`) and return a
``plotly.graph_objects.Figure``; nothing here talks to a model or to Streamlit.

* disk, plane, line: a ``Heatmap`` (one flat cell per grid cell, NaN outside the
  disk) with the rim as a line and a 1:1 aspect ratio;
* sphere, torus: a ``Mesh3d`` with one colour per cell (``intensitymode="cell"``:
  class regions stay crisp instead of blending across a cell), float32 vertices,
  uint16 faces, uint8 colour codes;
* circle: a ring of ``Barpolar`` sectors.

Boundaries are line traces on top, so they stay sharp at any zoom; highlighted
ones get a dark underlay so they read on every class colour.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import plotly.colors as pc
import plotly.graph_objects as go

from .boundaries import BoundaryCurve
from .palette import class_colors, confidence_levels, encode_classes, region_colorscale
from .regions import RegionGrid
from .views import ViewGrid

__all__ = ["PointLayer", "confusion_figure", "region_figure", "subsample"]

# Line styles of split boundaries: (colour, width, underlay width or 0).
BOUNDARY_STYLES = {
    "split": ("rgba(25, 25, 25, 0.9)", 1.6, 0),
    "path": ("#FFFFFF", 3.0, 6.5),
    "newest": ("#FFE100", 4.5, 8.5),
}
_REGRESSION_SCALE = "Viridis"
_BLANK = "#E9ECEF"  # the manifold without a model: light grey
_HEIGHT = {"disk": 560, "plane": 560, "sphere": 600, "torus": 560, "circle": 520, "line": 260}


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
        return PointLayer({k: np.asarray(v)[index] for k, v in self.coords.items()}, pick(self.class_index),
                          pick(self.values), pick(self.is_test), pick(self.rows))


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


def _color_args(regions: RegionGrid, value_range) -> dict:
    if regions.task == "classification":
        scale, cmin, cmax = region_colorscale(len(regions.classes))
        return {"colorscale": scale, "cmin": cmin, "cmax": cmax, "showscale": False}
    lo, hi = value_range if value_range else (np.nanmin(regions.values), np.nanmax(regions.values))
    if not np.isfinite(lo) or not np.isfinite(hi) or hi <= lo:
        lo, hi = (float(lo) - 0.5, float(lo) + 0.5) if np.isfinite(lo) else (0.0, 1.0)
    return {"colorscale": _REGRESSION_SCALE, "cmin": float(lo), "cmax": float(hi), "showscale": True,
            "colorbar": {"title": {"text": "prediction"}, "thickness": 14, "len": 0.7}}


def _cell_values(regions: RegionGrid) -> np.ndarray:
    if regions.task == "classification":
        return _codes(regions)
    return regions.values.astype(np.float32)


def _point_style(points: PointLayer, colors: list[str] | None, value_range, test: bool) -> dict:
    marker = {"size": 7 if not test else 8, "symbol": "diamond" if test else "circle",
              "line": {"color": "#1A1A1A" if test else "#FFFFFF", "width": 1.2 if test else 0.9}}
    if points.class_index is not None and colors is not None:
        idx = np.asarray(points.class_index, dtype=np.int64)
        palette = np.asarray([*colors, "#7F7F7F"])
        marker["color"] = palette[np.where((idx >= 0) & (idx < len(colors)), idx, len(colors))].tolist()
    elif points.values is not None:
        lo, hi = value_range if value_range else (np.nanmin(points.values), np.nanmax(points.values))
        marker.update(color=np.asarray(points.values, dtype=np.float32), colorscale=_REGRESSION_SCALE,
                      cmin=float(lo), cmax=float(hi), showscale=False)
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
    return [(points.take(np.flatnonzero(mask)), test) for mask, test in ((~is_test, False), (is_test, True))
            if mask.any()]


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
            fig.add_trace(trace(**empty, mode="markers", name=str(name), hoverinfo="skip",
                                marker={"color": color, "size": 10, "symbol": "square"}))
    if has_points:
        fig.add_trace(trace(**empty, mode="markers", name="training point", hoverinfo="skip",
                            marker={"color": "#BBBBBB", "size": 7, "symbol": "circle",
                                    "line": {"color": "#333333", "width": 1}}))
        if has_test:
            fig.add_trace(trace(**empty, mode="markers", name="test point", hoverinfo="skip",
                                marker={"color": "#BBBBBB", "size": 7, "symbol": "diamond",
                                        "line": {"color": "#1A1A1A", "width": 1}}))


def _boundary_traces(fig, curves, styles, three_d: bool, polar: bool = False):
    """Add curves grouped by style (one trace per style, NaN-separated) so the figure stays small."""
    styles = styles or {}
    grouped: dict[str, list[BoundaryCurve]] = {}
    for curve in curves:
        grouped.setdefault(styles.get(curve.node, "split"), []).append(curve)
    # Draw plain splits first and highlights on top.
    for style in sorted(grouped, key=lambda s: list(BOUNDARY_STYLES).index(s)):
        color, width, under = BOUNDARY_STYLES[style]
        keys = list(grouped[style][0].coords)
        joined = {k: np.concatenate([np.append(np.asarray(c.coords[k], dtype=np.float64), np.nan)
                                     for c in grouped[style]]) for k in keys}
        nodes = ", ".join(str(c.node) for c in grouped[style][:20])
        name = {"split": "split boundary", "path": "splits on the path", "newest": "newest split"}[style]
        for layer_width, layer_color in ((under, "#111111"), (width, color)):
            if not layer_width:
                continue
            line = {"color": layer_color, "width": layer_width}
            common = {"mode": "lines", "line": line, "hoverinfo": "skip", "showlegend": False, "name": name}
            if polar:
                fig.add_trace(go.Scatterpolar(r=joined["r"], theta=joined["theta"], **common))
            elif three_d:
                xyz = {k: joined[k].astype(np.float32) for k in "xyz"}
                fig.add_trace(go.Scatter3d(**xyz, **common))
            else:
                fig.add_trace(go.Scatter(x=joined["x"], y=joined["y"], **common))
        fig.data[-1].update(showlegend=True, hoverinfo="name", name=name, legendgroup=style,
                            hovertext=f"nodes {nodes}")


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
        plot_bgcolor="#FFFFFF", height=height, margin={"l": 10, "r": 10, "t": 40 if title else 10, "b": 10},
        legend={"itemsizing": "constant", "bgcolor": "rgba(255,255,255,0.8)"}, title=title,
    )
    if equal:
        fig.update_yaxes(scaleanchor="x", scaleratio=1)


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

    Returns
    -------
    plotly.graph_objects.Figure
    """
    kind = grid.view.kind
    height = height or _HEIGHT[kind]
    classification = regions is not None and regions.task == "classification"
    if classification and class_names is None:
        class_names = [str(c) for c in regions.classes]
    n_classes = len(class_names) if class_names is not None else 0
    if points is not None and points.class_index is not None and class_names is None:
        n_classes = int(np.max(points.class_index)) + 1 if len(points) else 0
        class_names = [str(k) for k in range(n_classes)]
    colors = class_colors(n_classes) if n_classes else None
    if regions is not None and regions.task == "regression" and value_range is None:
        pieces = [regions.values[np.isfinite(regions.values)]]
        if points is not None and points.values is not None:
            pieces.append(np.asarray(points.values, dtype=np.float64))
        both = np.concatenate([np.ravel(p) for p in pieces])
        value_range = (float(both.min()), float(both.max())) if both.size else (0.0, 1.0)

    fig = go.Figure()
    three_d = kind in ("sphere", "torus")
    if kind in ("disk", "plane", "line"):
        _add_flat(fig, grid, regions, value_range)
    elif three_d:
        _add_mesh(fig, grid, regions, value_range)
    else:
        _add_ring(fig, grid, regions, value_range)

    if boundaries:
        if kind == "circle":
            curves = [BoundaryCurve(c.node, _radial_segments(c.coords["theta"])) for c in boundaries]
            _boundary_traces(fig, curves, styles, False, polar=True)
        elif kind == "line":
            curves = [BoundaryCurve(c.node, _vertical_segments(c.coords["x"])) for c in boundaries]
            _boundary_traces(fig, curves, styles, False)
        else:
            _boundary_traces(fig, boundaries, styles, three_d)

    parts = _split_points(points)
    for part, test in parts:
        _add_points(fig, kind, part, _point_style(part, colors, value_range, test), _hover(part, class_names, test),
                    test)
    if marked:
        _add_marked(fig, kind, marked)
    _legend_entries(fig, class_names if classification or points is not None else None, colors,
                    any(test for _, test in parts), kind, bool(parts))
    _finish_layout(fig, grid, height, title)
    return fig


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


def _add_flat(fig, grid: ViewGrid, regions, value_range):
    kind = grid.view.kind
    x = np.asarray(grid.coords["x"], dtype=np.float32)
    if kind == "line":
        y = np.array([0.5], dtype=np.float32)
    else:
        y = np.asarray(grid.coords["y"], dtype=np.float32)
    if regions is not None:
        z = _cell_values(regions)
        color = _color_args(regions, value_range)
        if kind == "line":
            z = z.reshape(1, -1)
            fig.add_trace(go.Heatmap(x=x, y=[0.0, 1.0], z=np.vstack([z, z]), zsmooth=False, hoverinfo="skip",
                                     **_heatmap_color(color)))
        else:
            fig.add_trace(go.Heatmap(x=x, y=y, z=z, zsmooth=False, hoverinfo="skip", **_heatmap_color(color)))
    if kind == "disk":
        R = float(grid.bounds[1]) if grid.bounds else float(np.max(np.abs(x)))
        t = np.linspace(0, 2 * np.pi, 361)
        if regions is None:
            fig.add_trace(go.Scatter(x=R * np.cos(t), y=R * np.sin(t), fill="toself", fillcolor=_BLANK,
                                     mode="lines", line={"color": "rgba(0,0,0,0)"}, hoverinfo="skip",
                                     showlegend=False))
        fig.add_trace(go.Scatter(x=R * np.cos(t), y=R * np.sin(t), mode="lines", hoverinfo="skip",
                                 line={"color": "#222222", "width": 2}, showlegend=False, name="rim"))
    elif kind == "line" and regions is None:
        lo, hi = grid.bounds
        fig.add_trace(go.Scatter(x=[lo, hi, hi, lo, lo], y=[0, 0, 1, 1, 0], fill="toself", fillcolor=_BLANK,
                                 mode="lines", line={"color": "#999999", "width": 1}, hoverinfo="skip",
                                 showlegend=False))


def _heatmap_color(color: dict) -> dict:
    out = {"colorscale": color["colorscale"], "zmin": color["cmin"], "zmax": color["cmax"],
           "showscale": color["showscale"]}
    if "colorbar" in color:
        out["colorbar"] = color["colorbar"]
    return out


def _add_mesh(fig, grid: ViewGrid, regions, value_range):
    rows, cols = grid.shape
    vx, vy, vz = (np.asarray(grid.coords[k], dtype=np.float32).ravel() for k in ("vx", "vy", "vz"))
    i, j, k = _mesh_faces(rows, cols)
    lighting = {"ambient": 0.9, "diffuse": 0.25, "specular": 0.02, "roughness": 0.9, "fresnel": 0.0}
    common = {"x": vx, "y": vy, "z": vz, "i": i, "j": j, "k": k, "hoverinfo": "skip", "lighting": lighting,
              "flatshading": True, "showlegend": False, "name": "regions"}
    if regions is None:
        fig.add_trace(go.Mesh3d(**common, color=_BLANK))
        return
    cell = _cell_values(regions).ravel()
    cell = np.concatenate([cell, cell])  # two triangles per cell, in _mesh_faces order
    color = _color_args(regions, value_range)
    if regions.task == "classification":
        cell = np.nan_to_num(cell, nan=0.0).astype(np.uint8)
    fig.add_trace(go.Mesh3d(**common, intensity=cell, intensitymode="cell", **color))


def _add_ring(fig, grid: ViewGrid, regions, value_range):
    theta = np.asarray(grid.coords["theta"], dtype=np.float64)
    width = 360.0 / len(theta)
    if regions is None:
        colors = [_BLANK] * len(theta)
    elif regions.task == "classification":
        scale = region_colorscale(len(regions.classes))[0]
        codes = _codes(regions).ravel()
        colors = [scale[2 * int(c)][1] if np.isfinite(c) else _BLANK for c in codes]
    else:
        values = regions.values.ravel()
        lo, hi = value_range if value_range else (np.nanmin(values), np.nanmax(values))
        scale = pc.get_colorscale(_REGRESSION_SCALE)
        span = (hi - lo) or 1.0
        colors = [pc.sample_colorscale(scale, float(np.clip((v - lo) / span, 0, 1)))[0] for v in values]
    fig.add_trace(go.Barpolar(r=np.full(len(theta), 0.45, dtype=np.float32), base=0.55,
                              theta=theta.astype(np.float32), width=width,
                              # An outline in the fill colour hides the hairline seams between sectors.
                              marker={"color": colors, "line": {"color": colors, "width": 0.6}},
                              hoverinfo="skip", showlegend=False, name="regions"))
    if regions is not None and regions.task == "regression":
        # Barpolar has no colour bar of its own: an invisible marker trace carries it.
        fig.add_trace(go.Scatterpolar(r=[None], theta=[None], mode="markers", showlegend=False, hoverinfo="skip",
                                      marker={"colorscale": _REGRESSION_SCALE, "cmin": float(lo), "cmax": float(hi),
                                              "color": [float(lo)], "showscale": True,
                                              "colorbar": {"title": {"text": "prediction"}, "thickness": 14}}))


def _add_points(fig, kind: str, part: PointLayer, marker: dict, hover: list[str], test: bool):
    name = "test points" if test else "training points"
    common = {"mode": "markers", "marker": marker, "hovertext": hover, "hoverinfo": "text", "showlegend": False,
              "name": name}
    c = part.coords
    if kind in ("sphere", "torus"):
        marker = dict(marker, size=3.5 if not test else 4.5, line={"color": "#222222", "width": 0.5})
        fig.add_trace(go.Scatter3d(x=np.asarray(c["x"], np.float32), y=np.asarray(c["y"], np.float32),
                                   z=np.asarray(c["z"], np.float32), **(common | {"marker": marker})))
    elif kind == "circle":
        rows = part.rows if part.rows is not None else np.arange(len(part))
        # Spread points radially (fixed per row) so that a crowd on one angle stays visible.
        jitter = 1.08 + 0.3 * ((np.asarray(rows) * 0.6180339887) % 1.0)
        fig.add_trace(go.Scatterpolar(r=jitter.astype(np.float32), theta=np.asarray(c["theta"], np.float32),
                                      **common))
    elif kind == "line":
        rows = part.rows if part.rows is not None else np.arange(len(part))
        jitter = 0.1 + 0.8 * ((np.asarray(rows) * 0.6180339887) % 1.0)
        fig.add_trace(go.Scatter(x=np.asarray(c["x"], np.float32), y=jitter.astype(np.float32), **common))
    else:
        fig.add_trace(go.Scatter(x=np.asarray(c["x"], np.float32), y=np.asarray(c["y"], np.float32), **common))


def _add_marked(fig, kind: str, marked: dict):
    marker = {"symbol": "star", "size": 20, "color": "#FFE100", "line": {"color": "#111111", "width": 1.5}}
    common = {"mode": "markers", "marker": marker, "name": "explained point", "showlegend": True,
              "hoverinfo": "name"}
    if kind in ("sphere", "torus"):
        fig.add_trace(go.Scatter3d(x=[float(marked["x"])], y=[float(marked["y"])], z=[float(marked["z"])],
                                   **(common | {"marker": dict(marker, symbol="diamond", size=9)})))
    elif kind == "circle":
        fig.add_trace(go.Scatterpolar(r=[1.25], theta=[float(marked["theta"])], **common))
    elif kind == "line":
        fig.add_trace(go.Scatter(x=[float(marked["x"])], y=[0.5], **common))
    else:
        fig.add_trace(go.Scatter(x=[float(marked["x"])], y=[float(marked["y"])], **common))


def _finish_layout(fig, grid: ViewGrid, height: int, title: str | None):
    kind = grid.view.kind
    if kind == "disk":
        R = float(grid.bounds[1]) if grid.bounds else 1.0
        pad = 0.03 * R
        _layout_2d(fig, (-R - pad, R + pad, -R - pad, R + pad), True, height, title, hide_axes=True)
    elif kind == "plane":
        _layout_2d(fig, grid.bounds, True, height, title, hide_axes=False)
        fig.update_xaxes(title={"text": f"x{grid.view.axes[0]}"}, showline=True, mirror=True, linecolor="#888")
        fig.update_yaxes(title={"text": f"x{grid.view.axes[1]}"}, showline=True, mirror=True, linecolor="#888")
    elif kind == "line":
        lo, hi = grid.bounds
        _layout_2d(fig, (lo, hi, -0.05, 1.05), False, height, title, hide_axes=False)
        fig.update_yaxes(visible=False)
        fig.update_layout(legend={"orientation": "h", "y": -0.25})
    elif kind == "circle":
        fig.update_layout(
            polar={"radialaxis": {"visible": False, "range": [0, 1.45]},
                   "angularaxis": {"direction": "counterclockwise", "rotation": 0, "dtick": 45,
                                   "gridcolor": "#DDDDDD"},
                   "bgcolor": "#FFFFFF", "hole": 0.0},
            height=height, margin={"l": 30, "r": 30, "t": 40 if title else 20, "b": 20}, title=title,
            legend={"itemsizing": "constant"},
        )
    else:
        hidden = {"visible": False, "showbackground": False}
        eye = {"x": 1.1, "y": 1.1, "z": 0.75} if kind == "sphere" else {"x": 0.0, "y": -1.55, "z": 1.1}
        fig.update_layout(
            scene={"xaxis": hidden, "yaxis": hidden, "zaxis": hidden, "aspectmode": "data",
                   "camera": {"eye": eye}, "dragmode": "turntable"},
            height=height, margin={"l": 0, "r": 0, "t": 40 if title else 0, "b": 0}, title=title,
            legend={"itemsizing": "constant", "bgcolor": "rgba(255,255,255,0.8)"},
        )


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
    fig = go.Figure(go.Heatmap(
        z=share, x=names, y=names, colorscale="Blues", zmin=0, zmax=1, showscale=False,
        text=matrix.astype(str), texttemplate="%{text}", hovertemplate="true %{y}<br>predicted %{x}<br>%{text} rows"
        "<extra></extra>",
    ))
    size = min(80 + 42 * len(names), 640)
    fig.update_layout(
        xaxis={"title": {"text": "predicted"}, "type": "category", "side": "bottom", "showgrid": False},
        yaxis={"title": {"text": "true"}, "type": "category", "autorange": "reversed", "showgrid": False},
        height=size + 80, width=size + 100, margin={"l": 10, "r": 10, "t": 40 if title else 10, "b": 10},
        title=title, plot_bgcolor="#FFFFFF",
    )
    return fig

