"""The orthographic globe: the hemisphere seen from far away, turning around its polar axis.

A ``Heatmap`` of the orthographic disk, resampled from the map grid, with one animation frame
per step of a turn: every frame restyles the same traces (regions image, graticule,
coastlines, boundaries, points, explained point) with their projection for its centre
longitude; the legend entries do not move.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from ..views import ortho_project
from ..world import graticule, ortho_image, ortho_lines
from .animation import add_controls
from .coloring import BLANK, cell_values, color_args, heatmap_color, point_style
from .flat import COAST_STYLE, GRATICULE_STYLE
from .framing import facing_latlon, layout_2d, place_legend
from .overlays import (
    BOUNDARY_NAMES,
    MARKED_MARKER,
    boundary_layers,
    grouped_boundaries,
    hover,
    legend_entries,
    split_points,
)
from .render import Renderer

__all__ = ["ORTHO_TURNS", "OrthoRenderer"]

# The orthographic globe turns in this many steps per revolution (one frame each).
ORTHO_TURNS = 12


def _ortho_points(coords: dict, centre_lat: float, centre_lon: float) -> tuple[np.ndarray, np.ndarray]:
    """Projected points, NaN on the far side (hidden), float32."""
    lat = np.atleast_1d(np.asarray(coords["lat"], dtype=np.float64))
    lon = np.atleast_1d(np.asarray(coords["lon"], dtype=np.float64))
    x, y, visible = ortho_project(lat, lon, centre_lat, centre_lon)
    return np.where(visible, x, np.nan).astype(np.float32), np.where(visible, y, np.nan).astype(np.float32)


class OrthoRenderer(Renderer):
    """An S2 component on the orthographic disk, animated by turning (its own drawing order)."""

    kinds = ("ortho",)
    quantized = True

    def __init__(self, scene):
        super().__init__(scene)
        centre_lat, centre_lon = facing_latlon(scene.framing.facing)
        # Round numbers on the slider; a tilt toward a pole beyond 35 degrees would hide the other half.
        self.centre_lat, self.centre_lon = float(np.clip(centre_lat, -35.0, 35.0)), 10.0 * round(centre_lon / 10.0)
        overlay = scene.overlay
        self.lines = [("graticule", GRATICULE_STYLE, graticule(30.0))]
        if overlay.coastlines is not None:
            coast = tuple(np.asarray(a, dtype=np.float64) for a in overlay.coastlines)
            self.lines.append(("coastlines", COAST_STYLE, coast))
        self.bounds = grouped_boundaries(overlay.boundaries, scene.styles) if overlay.boundaries else []
        self.parts = split_points(overlay.points)
        n_lat = scene.grid.shape[0]
        self.size = int(np.clip(1.2 * n_lat, 80, 180))

    def _cells(self):
        """Cell codes of the map grid (uint8) and the heatmap's colour arguments."""
        regions = self.scene.regions
        if regions is None:
            cells = np.zeros(self.grid.shape, dtype=np.uint8)
            return cells, {"colorscale": [[0, BLANK], [1, BLANK]], "cmin": 0, "cmax": 1, "showscale": False}
        cells = cell_values(regions, self.scene.coloring)
        return np.nan_to_num(cells, nan=0.0).astype(np.uint8), color_args(regions, self.scene.coloring)

    def layers(self, cells, lon0: float) -> list:
        """Trace data for one centre longitude, in the figure's trace order."""
        centre_lat, marked = self.centre_lat, self.scene.overlay.marked
        out = [go.Heatmap(z=ortho_image(cells, centre_lat, lon0, self.size, 0))]
        for _, _, (lat, lon) in self.lines:
            x, y = ortho_lines(lat, lon, centre_lat, lon0)
            out.append(go.Scatter(x=x, y=y))
        for style, joined, _ in self.bounds:
            x, y = ortho_lines(joined["lat"], joined["lon"], centre_lat, lon0)
            out += [go.Scatter(x=x, y=y) for _ in boundary_layers(style)]
        for part, _ in self.parts:
            x, y = _ortho_points(part.coords, centre_lat, lon0)
            out.append(go.Scatter(x=x, y=y))
        if marked:
            x, y = _ortho_points(marked, centre_lat, lon0)
            out.append(go.Scatter(x=x, y=y))
        return out

    def _add_moving(self, fig, first: list, color: dict) -> None:
        """The traces every frame restyles, from the first frame's data."""
        s = self.scene
        axis = ((np.arange(self.size) + 0.5) / self.size * 2.0 - 1.0).astype(np.float32)
        fig.add_trace(
            go.Heatmap(
                x=axis, y=axis, z=first[0].z, zsmooth=False, hoverinfo="skip", name="regions", **heatmap_color(color)
            )
        )
        at = 1
        for name, style, _ in self.lines:
            fig.add_trace(
                go.Scatter(
                    x=first[at].x,
                    y=first[at].y,
                    mode="lines",
                    line=style,
                    hoverinfo="skip",
                    showlegend=False,
                    name=name,
                )
            )
            at += 1
        for style, _, nodes in self.bounds:
            name = BOUNDARY_NAMES[style]
            for line, top in boundary_layers(style):
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
        for part, test in self.parts:
            marker = point_style(part, s.coloring, test)
            marker["size"] = 5 if not test else 6
            fig.add_trace(
                go.Scatter(
                    x=first[at].x,
                    y=first[at].y,
                    mode="markers",
                    marker=marker,
                    hovertext=np.asarray(hover(part, s.class_names, test), dtype=str),
                    hoverinfo="text",
                    showlegend=False,
                    name="test points" if test else "training points",
                )
            )
            at += 1
        if s.overlay.marked:
            explained = {"mode": "markers", "name": "explained point", "marker": MARKED_MARKER, "hoverinfo": "name"}
            fig.add_trace(go.Scatter(x=first[at].x, y=first[at].y, **explained))

    def draw(self) -> go.Figure:
        s = self.scene
        cells, color = self._cells()
        fig = go.Figure()
        self._add_moving(fig, self.layers(cells, self.centre_lon), color)
        n_moving = len(fig.data)
        legend_entries(
            fig,
            self,
            s.class_names if s.classification or s.overlay.points is not None else None,
            s.coloring.colors,
            any(test for _, test in self.parts),
            bool(self.parts),
        )
        # Everything outside the disk is covered in white (the resampled image is square), and the rim drawn.
        t = np.linspace(0.0, 2.0 * np.pi, 145)
        ring = " ".join(f"L {np.cos(a):.4f} {np.sin(a):.4f}" for a in t[1:])
        mask = f"M -1.2 -1.2 L 1.2 -1.2 L 1.2 1.2 L -1.2 1.2 Z M 1 0 {ring} Z"
        fig.add_shape(type="path", path=mask, fillcolor="#FFFFFF", line={"width": 0}, layer="above", fillrule="evenodd")
        fig.add_shape(type="circle", x0=-1, y0=-1, x1=1, y1=1, line={"color": "#222222", "width": 1.5}, layer="above")
        layout_2d(fig, (-1.04, 1.04, -1.04, 1.04), True, s.height, s.framing.title, hide_axes=True)
        place_legend(fig, animated=True)

        turns = [(self.centre_lon + k * 360.0 / ORTHO_TURNS + 180.0) % 360.0 - 180.0 for k in range(ORTHO_TURNS)]
        names = [f"{abs(lon):.0f}°{'E' if lon >= 0 else 'W'}" for lon in turns]
        fig.frames = [go.Frame(data=self.layers(cells, lon), traces=list(range(n_moving))) for lon in turns]
        add_controls(fig, names, 0, "centre longitude", duration=350)
        return fig
