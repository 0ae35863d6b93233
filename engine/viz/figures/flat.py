"""Flat pictures: the Poincaré and Klein disk, the plane, the line, the world map.

Regions are a ``Heatmap`` (one flat cell per grid cell, NaN outside the disk) under line
traces; the disk has its rim as a line and a 1:1 aspect ratio, the map degrees of longitude
and latitude (equirectangular) with the coastlines.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import plotly.graph_objects as go

from ..boundaries import BoundaryCurve
from ..smooth import blend_shades, pixel_axes, raster_codes, refinement
from ..world import break_at_date_line, graticule
from .coloring import BLANK, cell_values, color_args, heatmap_color
from .framing import layout_2d
from .overlays import GOLDEN
from .render import Renderer

__all__ = ["DiskRenderer", "LineRenderer", "MapRenderer", "PlaneRenderer"]

# The margin band: the newest split's yellow, see-through.
BAND_COLOR = "rgba(255, 225, 0, 0.45)"
# Lines on the globe: coastlines above the graticule.
COAST_STYLE = {"color": "#1F2A30", "width": 1.4}
GRATICULE_STYLE = {"color": "rgba(90, 90, 90, 0.35)", "width": 1}


class FlatRenderer(Renderer):
    """A heatmap of the regions on a flat picture (disk, plane; the line and the map adapt it)."""

    compact_frames = True

    def add_regions(self, fig) -> None:
        regions, coloring = self.scene.regions, self.scene.coloring
        if regions is not None:
            x, y, z, coloring = self.region_pixels(regions)
            color = color_args(regions, coloring)
            fig.add_trace(go.Heatmap(x=x, y=y, z=z, zsmooth=False, hoverinfo="skip", **heatmap_color(color)))

    def region_pixels(self, regions):
        """(x, y, z) of the regions' heatmap: a cell a pixel, or with crossings (a still classifier's
        picture) :func:`~curvedtrees.viz.smooth.refinement` pixels a cell, the edges drawn at the crossings."""
        names = ("lon", "lat") if self.grid.view.kind == "map" else ("x", "y")
        x, y = (np.asarray(self.grid.coords[k], dtype=np.float32) for k in names)
        coloring = self.scene.coloring
        cuts = regions.cuts if regions.task == "classification" else None
        refine = refinement(self.grid)
        if cuts is None or not len(cuts) or self.scene.frames or refine == 1:
            return x, y, cell_values(regions, coloring), coloring
        # uint8 codes, cells off the manifold as a transparent code: a byte a pixel.
        coloring = dataclasses.replace(coloring, compact=True)
        fx, fy = pixel_axes(self.grid, refine)
        # Every figure of these regions draws the same pixels (a classifier's codes depend on the
        # regions alone): made once.
        fine = regions.drawn(("raster", refine), lambda: self._raster(regions, coloring, cuts, refine))
        return fx.astype(np.float32), fy.astype(np.float32), fine, coloring

    def _raster(self, regions, coloring, cuts, refine: int) -> np.ndarray:
        """The pixels: region edges at the crossings, shades blended between cell centres."""
        fine = raster_codes(self.grid, cell_values(regions, coloring), cuts.patches(self.grid), refine)
        return blend_shades(fine, regions.class_index, regions.confidence, refine, len(regions.classes))

    def frame_regions(self, regions) -> list:
        return [go.Heatmap(z=cell_values(regions, self.scene.coloring))]

    def add_band(self, fig, band: np.ndarray) -> None:
        if not band.any():
            return
        x, y = self.band_axes()
        z = np.where(band, np.float32(1.0), np.float32(np.nan))
        fig.add_trace(
            go.Heatmap(
                x=np.asarray(x, np.float32),
                y=np.asarray(y, np.float32),
                z=z,
                zsmooth=False,
                colorscale=[[0, BAND_COLOR], [1, BAND_COLOR]],
                showscale=False,
                hoverinfo="skip",
                name="margin",
            )
        )

    def band_axes(self):
        return self.grid.coords["x"], self.grid.coords["y"]

    def after_animation(self, fig) -> None:
        # A column narrower than the picture is tall: the square plot sits right under the legend,
        # and whatever height is left goes above the slider, not between legend and picture.
        fig.update_yaxes(constraintoward="top")


class DiskRenderer(FlatRenderer):
    """The Poincaré or Klein disk: regions inside the rim, the rim drawn, axes hidden."""

    kinds = ("disk",)

    def add_regions(self, fig) -> None:
        super().add_regions(fig)
        grid = self.grid
        x = np.asarray(grid.coords["x"], dtype=np.float32)
        R = float(grid.bounds[1]) if grid.bounds else float(np.max(np.abs(x)))
        t = np.linspace(0, 2 * np.pi, 361)
        if self.scene.regions is None:
            fig.add_trace(
                go.Scatter(
                    x=R * np.cos(t),
                    y=R * np.sin(t),
                    fill="toself",
                    fillcolor=BLANK,
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

    def finish_layout(self, fig, curves) -> None:
        s = self.scene
        R = float(self.grid.bounds[1]) if self.grid.bounds else 1.0
        pad = 0.03 * R
        layout_2d(fig, (-R - pad, R + pad, -R - pad, R + pad), True, s.height, s.framing.title, hide_axes=True)


class PlaneRenderer(FlatRenderer):
    """An E component's plane: regions over its data's box, with framed axes."""

    kinds = ("plane",)

    def finish_layout(self, fig, curves) -> None:
        s, grid = self.scene, self.grid
        layout_2d(fig, grid.bounds, True, s.height, s.framing.title, hide_axes=False)
        fig.update_xaxes(title={"text": f"x{grid.view.axes[0]}"}, showline=True, mirror=True, linecolor="#888")
        fig.update_yaxes(title={"text": f"x{grid.view.axes[1]}"}, showline=True, mirror=True, linecolor="#888")


class LineRenderer(FlatRenderer):
    """An E1 or H1 component as a strip: regions across it, boundaries as vertical strokes."""

    kinds = ("line",)
    legend_beside = False  # a strip: its width is the picture

    def add_regions(self, fig) -> None:
        regions, coloring = self.scene.regions, self.scene.coloring
        x = np.asarray(self.grid.coords["x"], dtype=np.float32)
        if regions is not None:
            z = cell_values(regions, coloring).reshape(1, -1)
            color = color_args(regions, coloring)
            fig.add_trace(
                go.Heatmap(
                    x=x, y=[0.0, 1.0], z=np.vstack([z, z]), zsmooth=False, hoverinfo="skip", **heatmap_color(color)
                )
            )
        else:
            lo, hi = self.grid.bounds
            fig.add_trace(
                go.Scatter(
                    x=[lo, hi, hi, lo, lo],
                    y=[0, 0, 1, 1, 0],
                    fill="toself",
                    fillcolor=BLANK,
                    mode="lines",
                    line={"color": "#999999", "width": 1},
                    hoverinfo="skip",
                    showlegend=False,
                )
            )

    def frame_regions(self, regions) -> list:
        z = cell_values(regions, self.scene.coloring)
        return [go.Heatmap(z=np.vstack([z.reshape(1, -1)] * 2))]

    def add_band(self, fig, band: np.ndarray) -> None:
        """A strip draws no margin band (its cells are one row; the boundary is a stroke)."""

    def picture_curves(self, boundaries) -> list:
        return [BoundaryCurve(c.node, _vertical_segments(c.coords["x"])) for c in boundaries]

    def points_trace(self, coords: dict, part, common: dict, test: bool):
        rows = part.rows if part.rows is not None else np.arange(len(part))
        jitter = 0.1 + 0.8 * ((np.asarray(rows) * GOLDEN) % 1.0)
        return go.Scatter(x=np.asarray(coords["x"], np.float32), y=jitter.astype(np.float32), **common)

    def marked_trace(self, marked, common: dict):
        return go.Scatter(x=[float(marked["x"])], y=[0.5], **common)

    def label_place(self, point: dict) -> dict:
        """A label on the strip's middle line (cells of a line picture have no height)."""
        return dict(point, y=0.5)

    def finish_layout(self, fig, curves) -> None:
        s = self.scene
        lo, hi = self.grid.bounds
        layout_2d(fig, (lo, hi, -0.05, 1.05), False, s.height, s.framing.title, hide_axes=False)
        fig.update_yaxes(visible=False)
        fig.update_layout(legend={"orientation": "h", "y": -0.25})

    def after_animation(self, fig) -> None:
        """The strip keeps its axes where they are."""


class MapRenderer(FlatRenderer):
    """A world map: regions over longitude (across) and latitude (up), coastlines, a graticule."""

    kinds = ("map",)
    legend_beside = False  # twice as wide as tall: its width is the picture
    compact_frames = False

    def add_regions(self, fig) -> None:
        """Regions of a world map: one heatmap cell per grid cell, longitude across, latitude up."""
        regions, coloring = self.scene.regions, self.scene.coloring
        lon = np.asarray(self.grid.coords["lon"], dtype=np.float32)
        lat = np.asarray(self.grid.coords["lat"], dtype=np.float32)
        if regions is None:
            z, color = (
                np.zeros((len(lat), len(lon)), dtype=np.uint8),
                {"colorscale": [[0, BLANK], [1, BLANK]], "cmin": 0, "cmax": 1, "showscale": False},
            )
        else:
            lon, lat, z, coloring = self.region_pixels(regions)
            color = color_args(regions, coloring)
        fig.add_trace(
            go.Heatmap(x=lon, y=lat, z=z, zsmooth=False, hoverinfo="skip", name="regions", **heatmap_color(color))
        )

    def add_world(self, fig, coastlines) -> None:
        for (lat, lon), line, name in world_lines(coastlines):
            x, y = break_at_date_line(lon, lat)
            common = {"mode": "lines", "line": line, "hoverinfo": "skip", "showlegend": False, "name": name}
            fig.add_trace(go.Scatter(x=x.astype(np.float32), y=y.astype(np.float32), **common))

    def band_axes(self):
        return self.grid.coords["lon"], self.grid.coords["lat"]

    def picture_curves(self, boundaries) -> list:
        """Boundaries cut at the date line."""
        return [
            BoundaryCurve(c.node, dict(zip("xy", break_at_date_line(c.coords["x"], c.coords["y"])))) for c in boundaries
        ]

    def points_trace(self, coords: dict, part, common: dict, test: bool):
        marker = dict(common["marker"], size=5 if not test else 6)
        return go.Scatter(
            x=np.asarray(coords["x"], np.float32),
            y=np.asarray(coords["y"], np.float32),
            **(common | {"marker": marker}),
        )

    def finish_layout(self, fig, curves) -> None:
        s = self.scene
        layout_2d(fig, (-180.0, 180.0, -90.0, 90.0), True, s.height, s.framing.title, hide_axes=False)
        degrees = {"showline": True, "mirror": True, "linecolor": "#888", "ticks": "outside", "ticksuffix": "°"}
        fig.update_xaxes(title={"text": "longitude"}, tickvals=list(range(-180, 181, 60)), **degrees)
        fig.update_yaxes(title={"text": "latitude"}, tickvals=list(range(-90, 91, 30)), **degrees)

    def after_animation(self, fig) -> None:
        """The map keeps its axes where they are."""


def world_lines(coastlines):
    """((lat, lon), line style, name) of the graticule (every 30 degrees) and the coastlines, in drawing order."""
    coast_lat, coast_lon = (np.asarray(a, dtype=np.float64) for a in coastlines)
    return (
        (graticule(30.0), GRATICULE_STYLE, "graticule"),
        ((coast_lat, coast_lon), COAST_STYLE, "coastlines"),
    )


def _vertical_segments(x: np.ndarray) -> dict:
    """Points of a line picture's boundaries -> vertical strokes across the strip."""
    xs, ys = [], []
    for value in np.asarray(x, dtype=np.float64):
        xs += [value, value, np.nan]
        ys += [0.0, 1.0, np.nan]
    return {"x": np.array(xs[:-1]), "y": np.array(ys[:-1])}
