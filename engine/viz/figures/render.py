"""The renderer of one kind of picture: a base class that draws, and hooks each kind fills in.

:func:`build_scene` resolves a figure's records once (the frame shown, a highlighted node's
dimmed regions, class names, colours and the value range, the chart's size) into a
:class:`Scene`; a :class:`Renderer` subclass then draws it. The base class's :meth:`Renderer.draw`
is the order every picture is drawn in (regions, world lines, boundaries, node ids, points, the
highlighted node's margin and labels, the explained point, legend entries, layout, animation
frames, legend placement); a kind overrides the hooks where it differs, such as how its
regions are traced (:meth:`Renderer.add_regions`), where points and texts sit, and its layout.
A picture that draws in another order altogether (the turning orthographic globe) overrides
:meth:`Renderer.draw`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np
import plotly.graph_objects as go

from ..regions import RegionGrid
from ..views import ViewGrid
from .animation import add_controls, add_frames
from .coloring import Coloring, point_style, resolve_coloring
from .framing import frame_size, place_legend
from .options import Animation, Colors, Framing, Overlay
from .overlays import (
    MARKED_MARKER,
    add_boundaries,
    add_compared_boundaries,
    add_frame_boundaries,
    add_nearest_rows,
    add_region_labels,
    dimmed,
    hover,
    labelled,
    legend_entries,
    node_labels,
    split_points,
)

__all__ = ["Renderer", "Scene", "build_scene"]


@dataclass
class Scene:
    """A figure's records, resolved for drawing.

    Attributes
    ----------
    grid : ViewGrid
    regions : RegionGrid or None
        The regions shown (an animation's shown frame; a highlighted node's dimmed).
    overlay : Overlay
    coloring : Coloring
    class_names : list of str or None
    styles : dict of int to str or None
        The boundary styles shown (a replay's: those of the shown frame).
    framing : Framing
    height : int
    zoom : float
    lift : float
        A 3-D camera's look point below the scene's centre (scene units).
    animation : Animation or None
    frames : list of RegionGrid
        Empty for a still picture; dimmed like ``regions``.
    active : int
        The frame shown first.
    """

    grid: ViewGrid
    regions: RegionGrid | None
    overlay: Overlay
    coloring: Coloring
    class_names: list | None
    styles: dict | None
    framing: Framing
    height: int
    zoom: float
    lift: float
    animation: Animation | None = None
    frames: list = field(default_factory=list)
    active: int = 0

    @property
    def kind(self) -> str:
        return self.grid.view.kind

    @property
    def classification(self) -> bool:
        return self.regions is not None and self.regions.task == "classification"

    @property
    def boundary_styles(self):
        """A replay's boundaries per frame (None for a still or a picture predicted at several references)."""
        return self.animation.boundary_styles if self.frames else None


def build_scene(renderer: type[Renderer], grid, regions, overlay, colors: Colors, framing: Framing, animation):
    """Resolve a figure's records for ``renderer`` (see :class:`Scene`)."""
    kind = grid.view.kind
    frames = list(animation.frames) if animation is not None and animation.frames else []
    height, zoom, lift = frame_size(framing, kind, bool(frames))
    styles, active = overlay.styles, 0
    if frames:
        active = animation.shown()
        regions = regions if regions is not None else frames[active]
        if animation.boundary_styles is not None:
            styles = animation.boundary_styles[active]
    highlight = overlay.highlight
    if highlight is not None and regions is not None and regions.task == "classification":
        regions = dimmed(regions, highlight.inside)
        frames = [dimmed(r, highlight.inside) for r in frames]
    coloring, class_names = resolve_coloring(
        colors,
        regions,
        frames,
        overlay.points,
        quantized=bool(frames) or renderer.quantized,
        compact=bool(frames) and renderer.compact_frames,
    )
    return Scene(
        grid,
        regions,
        overlay,
        coloring,
        class_names,
        styles,
        framing,
        height,
        zoom,
        lift,
        animation=animation,
        frames=frames,
        active=active,
    )


class Renderer:
    """Draws one kind of picture from a :class:`Scene`.

    Class attributes say what the kind's overlays are made of: ``trace`` (the Plotly
    trace type of its points, lines and texts), ``keys`` (their coordinates),
    ``three_d`` (texts are letters and markers smaller, inside a WebGL scene),
    ``compact_frames`` (animation frames send uint8 codes, cells off the manifold as a
    transparent code), ``quantized`` (regression values always as uint8 steps).
    """

    kinds: ClassVar[tuple[str, ...]] = ()
    trace: ClassVar[type] = go.Scatter
    keys: ClassVar[tuple[str, ...]] = ("x", "y")
    nearest_keys: ClassVar[tuple[str, ...]] = ("x", "y")
    three_d: ClassVar[bool] = False
    compact_frames: ClassVar[bool] = False
    # A round picture: in a wide framing, a replay's legend goes beside it (framing.place_legend).
    legend_beside: ClassVar[bool] = True
    quantized: ClassVar[bool] = False

    def __init__(self, scene: Scene):
        self.scene = scene
        self.grid = scene.grid

    # ------------------------------------------------------------------ the drawing
    def draw(self) -> go.Figure:
        """The figure: regions, overlays, layout and animation, in this order."""
        s = self.scene
        fig = go.Figure()
        self.add_regions(fig)
        if s.overlay.coastlines is not None:
            self.add_world(fig, s.overlay.coastlines)
        curves = self.picture_curves(s.overlay.boundaries) if s.overlay.boundaries else []
        moving = self._add_boundaries(fig, curves)
        if s.overlay.compared:
            add_compared_boundaries(fig, self, self.picture_curves(s.overlay.compared), s.overlay.compared_name)
        parts = split_points(s.overlay.points)
        for part, test in parts:
            self.add_points(fig, part, point_style(part, s.coloring, test), hover(part, s.class_names, test), test)
        self._add_highlight(fig)
        if s.overlay.marked:
            self.add_marked(fig, s.overlay.marked)
        legend_entries(
            fig,
            self,
            s.class_names if s.classification or s.overlay.points is not None else None,
            s.coloring.colors,
            any(test for _, test in parts),
            bool(parts),
        )
        self.finish_layout(fig, curves)
        animated = bool(s.frames) and s.regions is not None
        if animated:
            add_frames(fig, self, s.frames, moving, self.frame_layouts(curves))
            duration = s.animation.frame_duration(boundaries_move=moving is not None)
            add_controls(fig, s.animation.labels(), s.active, s.animation.label, duration, large=s.framing.wide)
        place_legend(fig, animated, beside=animated and s.framing.wide and self.legend_beside)
        if animated:
            self.after_animation(fig)
        return fig

    def _add_boundaries(self, fig, curves):
        """Boundary traces and node ids; a replay's restyled per frame (returns what its frames restyle)."""
        s = self.scene
        ids = labelled(curves, s.overlay.label_nodes)
        if curves and s.boundary_styles is not None:
            return add_frame_boundaries(fig, self, curves, s.boundary_styles, s.active, ids)
        if curves:
            add_boundaries(fig, self, curves, s.styles, s.overlay.boundary_names)
            if ids:
                fig.add_trace(node_labels(self, curves, ids, first=True))
        return None

    def _add_highlight(self, fig) -> None:
        """The highlighted node's margin band and nearest rows, and its labels."""
        highlight = self.scene.overlay.highlight
        if highlight is None:
            return
        if getattr(highlight, "band", None) is not None:
            self.add_band(fig, np.asarray(highlight.band).reshape(self.grid.shape))
            add_nearest_rows(fig, self, highlight)
        if highlight.labels:
            add_region_labels(fig, self, highlight.labels)

    # ------------------------------------------------------------------ hooks
    def add_regions(self, fig) -> None:
        """The regions (or the bare manifold) as the picture's first traces."""
        raise NotImplementedError

    def frame_layouts(self, curves) -> list | None:
        """Layout changes of each animation frame (a 3-D replay's camera), or None."""
        return None

    def regions_traces(self) -> list[int]:
        """Indices of the traces an animation frame restyles with its regions."""
        return [0]

    def frame_regions(self, regions: RegionGrid) -> list:
        """The data of :meth:`regions_traces` for one animation frame."""
        raise NotImplementedError

    def add_world(self, fig, coastlines) -> None:
        """Graticule and coastlines, on pictures that can show the globe (others draw none)."""

    def picture_curves(self, boundaries) -> list:
        """Boundaries in the coordinates the picture's line traces draw."""
        return list(boundaries)

    def line_trace(self, joined: dict, common: dict):
        """One trace of NaN-joined boundary curves."""
        return go.Scatter(x=joined["x"], y=joined["y"], **common)

    def add_points(self, fig, part, marker: dict, hover_text: list[str], test: bool) -> None:
        """Training (or test) points."""
        common = {
            "mode": "markers",
            "marker": marker,
            "hovertext": np.asarray(hover_text, dtype=str),  # an array: Plotly checks a list string by string
            "hoverinfo": "text",
            "showlegend": False,
            "name": "test points" if test else "training points",
        }
        if part.rows is not None:
            # Each point's data row, which a click on it reports (the app explains the clicked point).
            common["customdata"] = np.asarray(part.rows, dtype=np.int32)
        fig.add_trace(self.points_trace(part.coords, part, common, test))

    def points_trace(self, coords: dict, part, common: dict, test: bool):
        return go.Scatter(x=np.asarray(coords["x"], np.float32), y=np.asarray(coords["y"], np.float32), **common)

    def add_marked(self, fig, marked) -> None:
        """The explained point."""
        common = {
            "mode": "markers",
            "marker": MARKED_MARKER,
            "name": "explained point",
            "showlegend": True,
            "hoverinfo": "name",
        }
        fig.add_trace(self.marked_trace(marked, common))

    def marked_trace(self, marked, common: dict):
        return go.Scatter(x=[float(marked["x"])], y=[float(marked["y"])], **common)

    def add_band(self, fig, band: np.ndarray) -> None:
        """A split's margin band (cells of shape ``grid.shape``); pictures without a band draw none."""

    def id_place(self, middle: dict) -> dict:
        """Where a node id is written, from the middle of its boundary."""
        return middle

    def label_place(self, point: dict) -> dict:
        """Where a region label is written, from its cell's picture coordinates."""
        return point

    def nearest_coords(self, coords: dict) -> dict:
        """Trace coordinates of the nearest rows' markers, from their picture coordinates."""
        return coords

    def finish_layout(self, fig, curves) -> None:
        """Axes or scene, height, margins and title."""
        raise NotImplementedError

    def after_animation(self, fig) -> None:
        """Layout an animated picture changes once its slider and legend are placed."""
