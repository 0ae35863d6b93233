"""Traces drawn over the regions, the same on every picture: boundaries, node ids, labels, points, legend.

Each function takes the picture's renderer (:mod:`curvedtrees.viz.figures.render`) for what
differs between pictures: its trace type (``Scatter``, ``Scatter3d``, ``Scatterpolar``), its
coordinate names, and where a ring puts its texts. Boundaries are line traces on top, so
they stay sharp at any zoom; highlighted ones get a dark underlay so they read on every
class colour. Curves of one style share one NaN-separated trace, so the figure stays small.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import plotly.graph_objects as go

from ..boundaries import BoundaryCurve
from ..regions import RegionGrid
from .options import PointLayer

__all__ = [
    "BOUNDARY_STYLES",
    "COMPARED_LINES",
    "add_compared_boundaries",
    "add_frame_boundaries",
    "add_region_labels",
    "boundary_layers",
    "dimmed",
    "grouped_boundaries",
    "hover",
    "joined_curves",
    "labelled",
    "legend_entries",
    "middle",
    "node_labels",
    "split_points",
]

# Line styles of split boundaries: (colour, width, underlay width or 0).
BOUNDARY_STYLES = {
    "split": ("rgba(25, 25, 25, 0.9)", 1.6, 0),
    "path": ("#FFFFFF", 3.0, 6.5),
    "newest": ("#FFE100", 4.5, 8.5),
    "selected": ("#FF4FD8", 4.0, 8.0),  # the diagram's colour of the selected node
}
BOUNDARY_NAMES = {
    "split": "split boundary",
    "path": "splits on the path",
    "newest": "newest split",
    "selected": "selected split",
}
# Points on the line and the circle are spread across the strip (fixed per row, by the golden
# ratio) so that a crowd at one place stays visible.
GOLDEN = 0.6180339887
# The explained point: a star (a diamond in 3-D, where WebGL has no star).
MARKED_MARKER = {"symbol": "star", "size": 20, "color": "#FFE100", "line": {"color": "#111111", "width": 1.5}}


# ------------------------------------------------------------------ boundaries
def grouped_boundaries(curves, styles) -> list[tuple[str, dict, str]]:
    """(style, NaN-joined coordinates, node list text) per boundary style, plain splits first."""
    styles = styles or {}
    grouped: dict[str, list[BoundaryCurve]] = {}
    for curve in curves:
        grouped.setdefault(styles.get(curve.node, "split"), []).append(curve)
    out = []
    # Draw plain splits first and highlights on top.
    for style in sorted(grouped, key=lambda s: list(BOUNDARY_STYLES).index(s)):
        out.append((style, joined_curves(grouped[style]), ", ".join(str(c.node) for c in grouped[style][:20])))
    return out


def joined_curves(curves) -> dict:
    """The curves' coordinates end to end, a NaN after each (one line trace draws them all)."""
    keys = list(curves[0].coords)
    return {
        k: np.concatenate([np.append(np.asarray(c.coords[k], dtype=np.float64), np.nan) for c in curves]) for k in keys
    }


def boundary_layers(style: str):
    """(line dict, is_top_layer) of the layers of one boundary style: dark underlay first."""
    color, width, under = BOUNDARY_STYLES[style]
    return [({"color": c, "width": w}, top) for w, c, top in ((under, "#111111", False), (width, color, True)) if w]


def add_boundaries(fig, renderer, curves, styles, names=None) -> None:
    """Add curves grouped by style (one trace per style and layer, NaN-separated).

    ``names``: legend names of some styles, instead of :data:`BOUNDARY_NAMES`.
    """
    for style, joined, nodes in grouped_boundaries(curves, styles):
        name = (names or {}).get(style, BOUNDARY_NAMES[style])
        for line, _ in boundary_layers(style):
            common = {"mode": "lines", "line": line, "hoverinfo": "skip", "showlegend": False, "name": name}
            fig.add_trace(renderer.line_trace(joined, common))
        fig.data[-1].update(showlegend=True, hoverinfo="name", name=name, legendgroup=style, hovertext=f"nodes {nodes}")


# A compared model's boundaries: dashed black over a white underlay, readable on every class colour
# and distinct from the solid split boundaries at projector size.
COMPARED_LINES = ({"color": "#FFFFFF", "width": 6.0}, {"color": "#111111", "width": 3.0, "dash": "dash"})


def add_compared_boundaries(fig, renderer, curves, name: str) -> None:
    """Another model's boundaries (``Overlay.compared``), dashed, one trace per layer, in the legend once."""
    if not curves:
        return
    joined = joined_curves(curves)
    for line in COMPARED_LINES:
        common = {"mode": "lines", "line": line, "hoverinfo": "skip", "showlegend": False, "name": name}
        fig.add_trace(renderer.line_trace(joined, common))
    fig.data[-1].update(showlegend=True, hoverinfo="name", name=name, legendgroup="compared")


def _coords_kwargs(renderer, joined: dict) -> dict:
    """Trace coordinates of NaN-joined curves (float32)."""
    return {k: np.asarray(joined[k], dtype=np.float32) for k in renderer.keys}


def middle(curve: BoundaryCurve) -> dict | None:
    """The drawn sample halfway along a curve's visible part (a point on it, never an average)."""
    keys = list(curve.coords)
    finite = np.flatnonzero(np.all([np.isfinite(np.asarray(curve.coords[k], dtype=np.float64)) for k in keys], axis=0))
    if not len(finite):
        return None
    at = finite[len(finite) // 2]
    return {k: float(np.asarray(curve.coords[k])[at]) for k in keys}


def labelled(curves, label_nodes) -> set[int]:
    """Node ids to write on the picture: every drawn curve's (True), none (False), or those listed."""
    if label_nodes is True:
        return {c.node for c in curves}
    if label_nodes is False or label_nodes is None:
        return set()
    return {int(v) for v in label_nodes}


def node_labels(renderer, curves, nodes, first: bool):
    """Node ids written at the middle of each drawn boundary (one text trace)."""
    places = [(c.node, middle(c)) for c in curves if c.node in nodes]
    places = [(node, renderer.id_place(m)) for node, m in places if m is not None]
    coords = {k: np.array([m[k] for _, m in places] or [np.nan], dtype=np.float32) for k in renderer.keys}
    text = [str(node) for node, _ in places] or [""]
    trace = renderer.trace(**coords, text=text)
    if first:
        trace.update(
            mode="text", hoverinfo="skip", showlegend=False, name="node ids", textfont={"size": 13, "color": "#111111"}
        )
        if not renderer.three_d:
            trace.update(textfont={"size": 13, "color": "#111111", "shadow": "1px 1px 2px #FFFFFF"})
    return trace


def _frame_boundary_data(renderer, curves, styles: dict, first: bool, listed=()) -> list:
    """Traces of one frame's boundaries: every style's layers in a fixed order, empty when unused."""
    drawn = [c for c in curves if c.node in styles]
    grouped = {style: (joined, nodes) for style, joined, nodes in grouped_boundaries(drawn, styles)} if drawn else {}
    keys = list(curves[0].coords)
    empty = {k: np.array([np.nan]) for k in keys}
    out = []
    for style in BOUNDARY_STYLES:
        joined, nodes = grouped.get(style, (empty, ""))
        for line, top in boundary_layers(style):
            trace = renderer.trace(**_coords_kwargs(renderer, joined), hovertext=f"nodes {nodes}" if top else None)
            if first:
                trace.update(
                    mode="lines",
                    line=line,
                    name=BOUNDARY_NAMES[style],
                    legendgroup=style,
                    showlegend=top and style in listed,
                    hoverinfo="name" if top else "skip",
                )
            out.append(trace)
    return out


def add_frame_boundaries(fig, renderer, curves, frame_styles, active: int, labelled_ids: set):
    """Boundary traces a replay restyles frame by frame; returns (their trace indices, data per frame).

    Each frame writes the ids of ``labelled_ids`` nodes among the boundaries it draws.
    """
    start = len(fig.data)
    # The legend lists the styles some frame uses (a replay without an explained point has no path).
    listed = {style for styles in frame_styles for style in styles.values()}
    for trace in _frame_boundary_data(renderer, curves, frame_styles[active], first=True, listed=listed):
        fig.add_trace(trace)
    if labelled_ids:
        fig.add_trace(node_labels(renderer, curves, set(frame_styles[active]) & labelled_ids, first=True))
    indices = list(range(start, len(fig.data)))
    per_frame = []
    for styles in frame_styles:
        data = _frame_boundary_data(renderer, curves, styles, first=False)
        if labelled_ids:
            data.append(node_labels(renderer, curves, set(styles) & labelled_ids, first=False))
        per_frame.append(data)
    return indices, per_frame


# ------------------------------------------------------------------ a highlighted node
def dimmed(regions: RegionGrid, inside: np.ndarray) -> RegionGrid:
    """A copy whose cells outside ``inside`` have the lowest confidence: their class's palest shade."""
    confidence = np.where(inside.reshape(regions.confidence.shape), regions.confidence, np.float32(0.0))
    return dataclasses.replace(regions, confidence=confidence.astype(np.float32))


def add_region_labels(fig, renderer, labels) -> None:
    """Texts written on the picture (the selected node's sides, or a leaf's prediction), one trace."""
    points = [renderer.label_place(p) for p, _, _ in labels]
    coords = {k: np.array([p[k] for p in points], dtype=np.float32) for k in renderer.keys}
    font = {"size": 13, "color": "#111111"}
    if not renderer.three_d:
        font["shadow"] = "0px 0px 3px #FFFFFF"
    texts = [t for _, t, _ in labels]
    if renderer.three_d:
        # WebGL draws 3-D text inside the scene, where a long label near the rim would run past the
        # column's edge: a letter on the surface, the whole label on hover.
        texts = ["L" if " left " in t else "R" if " right " in t else "leaf" for t in texts]
    fig.add_trace(
        renderer.trace(
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


def add_nearest_rows(fig, renderer, highlight) -> None:
    """A split's nearest training row on each side, as ringed markers (when the picture places them)."""
    keys = renderer.nearest_keys
    if not (highlight.nearest and all(k in highlight.nearest[0][0] for k in keys)):
        return
    coords = renderer.nearest_coords(
        {k: np.array([p[k] for p, _, _ in highlight.nearest], dtype=np.float32) for k in keys}
    )
    hover_texts = [f"nearest training row on the {side}: row {row}" for _, row, side in highlight.nearest]
    marker = {
        "symbol": "circle-open",
        "size": 18 if not renderer.three_d else 9,
        "color": "#111111",
        "line": {"width": 3},
    }
    fig.add_trace(
        renderer.trace(
            **coords,
            mode="markers",
            marker=marker,
            hovertext=hover_texts,
            hoverinfo="text",
            name="nearest rows (margin)",
            showlegend=True,
        )
    )


# ------------------------------------------------------------------ points and legend
def hover(points: PointLayer, class_names: list[str] | None, test: bool) -> list[str]:
    """Hover text of each point: its row, train or test, and its class or target."""
    rows = points.rows if points.rows is not None else np.arange(len(points))
    which = "test" if test else "train"
    if points.class_index is not None and class_names is not None:
        names = [class_names[i] if 0 <= i < len(class_names) else "?" for i in np.asarray(points.class_index)]
        return [f"row {r} · {which} · {n}" for r, n in zip(rows, names)]
    if points.values is not None:
        return [f"row {r} · {which} · y = {v:.4g}" for r, v in zip(rows, np.asarray(points.values))]
    return [f"row {r}" for r in rows]


def split_points(points: PointLayer | None):
    """(points, is_test) of the training points and of the test points, those that exist."""
    if points is None or len(points) == 0:
        return []
    is_test = np.zeros(len(points), dtype=bool) if points.is_test is None else np.asarray(points.is_test, bool)
    return [
        (points.take(np.flatnonzero(mask)), test) for mask, test in ((~is_test, False), (is_test, True)) if mask.any()
    ]


def legend_entries(fig: go.Figure, renderer, class_names, colors, has_test: bool, has_points: bool):
    """Legend-only traces: one square per class, and the train / test marker shapes."""
    trace, empty = renderer.trace, {k: [None] for k in renderer.keys}
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
