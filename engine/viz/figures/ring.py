"""The circle: an S1 component as a ring of ``Barpolar`` sectors, boundaries as radial strokes."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from ..boundaries import BoundaryCurve
from .coloring import BLANK, Coloring, cell_values, color_args, finite_range
from .overlays import GOLDEN
from .render import Renderer

__all__ = ["CircleRenderer"]

# Radii of the polar plot: the ring of sectors from 0.55 to 1.0, strokes across it a little past
# it, node ids and the nearest rows' rings outside it, the region labels inside.
_RING_BASE, _RING_WIDTH = 0.55, 0.45
_ID_RADIUS, _LABEL_RADIUS, _OUTER_RADIUS = 1.12, 0.78, 1.25


def _ring_marker(regions, coloring: Coloring) -> dict:
    """Sector colours as numbers on the picture's colour scale (colour strings cost Plotly a validation each:
    seconds over a replay's frames)."""
    values = cell_values(regions, coloring).ravel()
    values = np.nan_to_num(values, nan=0.0).astype(np.float32)
    color = {k: v for k, v in color_args(regions, coloring).items() if k in ("colorscale", "cmin", "cmax")}
    # An outline in the fill colour hides the hairline seams between sectors.
    return {"color": values, **color, "showscale": False, "line": {"color": values, **color, "width": 0.6}}


def _radial_segments(theta: np.ndarray) -> dict:
    """Circle boundary angles -> radial strokes across the ring (polar r, theta)."""
    r, t = [], []
    for angle in np.asarray(theta, dtype=np.float64):
        r += [0.5, 1.02, np.nan]
        t += [angle, angle, np.nan]
    return {"r": np.array(r[:-1]), "theta": np.array(t[:-1])}


class CircleRenderer(Renderer):
    """An S1 component as a ring: one sector per grid cell, angles counter-clockwise from the right."""

    kinds = ("circle",)
    trace = go.Scatterpolar
    keys = ("r", "theta")
    nearest_keys = ("theta",)

    def add_regions(self, fig) -> None:
        regions, coloring = self.scene.regions, self.scene.coloring
        theta = np.asarray(self.grid.coords["theta"], dtype=np.float64)
        width = 360.0 / len(theta)
        marker = (
            {"color": [BLANK] * len(theta), "line": {"color": [BLANK] * len(theta), "width": 0.6}}
            if regions is None
            else _ring_marker(regions, coloring)
        )
        fig.add_trace(
            go.Barpolar(
                r=np.full(len(theta), _RING_WIDTH, dtype=np.float32),
                base=_RING_BASE,
                theta=theta.astype(np.float32),
                width=width,
                marker=marker,
                hoverinfo="skip",
                showlegend=False,
                name="regions",
            )
        )
        if regions is not None and regions.task == "regression":
            lo, hi = finite_range(regions, coloring.value_range)
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

    def frame_regions(self, regions) -> list:
        # Only the colour numbers: a frame merges into the trace, which keeps its colour scale.
        values = _ring_marker(regions, self.scene.coloring)["color"]
        return [go.Barpolar(marker={"color": values, "line": {"color": values}})]

    def picture_curves(self, boundaries) -> list:
        return [BoundaryCurve(c.node, _radial_segments(c.coords["theta"])) for c in boundaries]

    def line_trace(self, joined: dict, common: dict):
        return go.Scatterpolar(r=joined["r"], theta=joined["theta"], **common)

    def points_trace(self, coords: dict, part, common: dict, test: bool):
        rows = part.rows if part.rows is not None else np.arange(len(part))
        # Spread points radially (fixed per row) so that a crowd on one angle stays visible.
        jitter = 1.08 + 0.3 * ((np.asarray(rows) * GOLDEN) % 1.0)
        return go.Scatterpolar(r=jitter.astype(np.float32), theta=np.asarray(coords["theta"], np.float32), **common)

    def marked_trace(self, marked, common: dict):
        return go.Scatterpolar(r=[_OUTER_RADIUS], theta=[float(marked["theta"])], **common)

    def id_place(self, middle: dict) -> dict:
        return {"r": _ID_RADIUS, "theta": middle["theta"]}

    def label_place(self, point: dict) -> dict:
        return dict(point, r=_LABEL_RADIUS)

    def nearest_coords(self, coords: dict) -> dict:
        n = len(coords["theta"])
        return {**coords, "r": np.full(n, _OUTER_RADIUS, dtype=np.float32)}

    def finish_layout(self, fig, curves) -> None:
        s = self.scene
        fig.update_layout(
            polar={
                "radialaxis": {"visible": False, "range": [0, 1.45]},
                "angularaxis": {"direction": "counterclockwise", "rotation": 0, "dtick": 45, "gridcolor": "#DDDDDD"},
                "bgcolor": "#FFFFFF",
                "hole": 0.0,
            },
            height=s.height,
            margin={"l": 30, "r": 30, "t": 40 if s.framing.title else 20, "b": 20},
            title=s.framing.title,
            legend={"itemsizing": "constant"},
        )
