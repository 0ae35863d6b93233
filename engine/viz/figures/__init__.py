"""Plotly figures of decision regions, data points and split boundaries.

Pure builders: they take arrays (from :mod:`curvedtrees.viz.views`,
:mod:`curvedtrees.viz.regions`, :mod:`curvedtrees.viz.boundaries`) and return a
``plotly.graph_objects.Figure``; nothing here talks to a model or to Streamlit.

:func:`region_figure` takes the picture's grid and regions and four records
(:mod:`~curvedtrees.viz.figures.options`): an :class:`Overlay` (points, boundaries, node
ids, a highlighted node, an explained point, coastlines), :class:`Colors`, :class:`Framing`
and an :class:`Animation`. It hands them to the renderer of the view's kind:

============================  ====================================================  ==========
kind                          renderer                                              module
============================  ====================================================  ==========
disk, plane, line, map        ``DiskRenderer``, ``PlaneRenderer``, ``LineRenderer``,  ``flat``
                              ``MapRenderer``: a ``Heatmap`` of the cells
sphere, torus                 ``SphereRenderer``, ``TorusRenderer``: a ``Surface``,  ``solid``
                              smooth region edges, a camera
circle                        ``CircleRenderer``: a ring of ``Barpolar`` sectors     ``ring``
ortho                         ``OrthoRenderer``: the turning orthographic globe      ``ortho``
============================  ====================================================  ==========

Every renderer draws through :class:`~curvedtrees.viz.figures.render.Renderer`'s order
and the shared overlays (:mod:`~curvedtrees.viz.figures.overlays`), colours
(:mod:`~curvedtrees.viz.figures.coloring`), sizes and cameras
(:mod:`~curvedtrees.viz.figures.framing`) and animation controls
(:mod:`~curvedtrees.viz.figures.animation`). A new view kind is a new ``Renderer``
subclass listed in :data:`RENDERERS`; a new overlay is a field of :class:`Overlay` drawn in
:meth:`Renderer.draw <curvedtrees.viz.figures.render.Renderer.draw>`.

World pictures (an S2 component that is the Earth) add a graticule and the coastlines, and
open facing the data. Pictures predicted at several reference points (a globe at each
month) or a replay's regions after each number of splits play as Plotly animation frames
with a slider and a play button, in the browser without a server round-trip.
"""

from __future__ import annotations

from ..regions import RegionGrid
from ..views import ViewGrid
from .confusion import confusion_figure
from .flat import DiskRenderer, LineRenderer, MapRenderer, PlaneRenderer
from .framing import ANIMATED_ROOM, HEIGHTS, SPHERE_EYE_DISTANCE, TORUS_EYE_DISTANCE, WIDE_FRAMING
from .options import Animation, Colors, Framing, Overlay, PointLayer, subsample
from .ortho import ORTHO_TURNS, OrthoRenderer
from .overlays import BOUNDARY_STYLES
from .render import Renderer, build_scene
from .ring import CircleRenderer
from .solid import SphereRenderer, TorusRenderer

__all__ = [
    "ANIMATED_ROOM",
    "BOUNDARY_STYLES",
    "HEIGHTS",
    "ORTHO_TURNS",
    "RENDERERS",
    "SPHERE_EYE_DISTANCE",
    "TORUS_EYE_DISTANCE",
    "WIDE_FRAMING",
    "Animation",
    "Colors",
    "Framing",
    "Overlay",
    "PointLayer",
    "Renderer",
    "confusion_figure",
    "region_figure",
    "renderer_for",
    "subsample",
]

# The renderer of every view kind (curvedtrees.viz.views.VIEW_KINDS).
RENDERERS: dict[str, type[Renderer]] = {
    kind: renderer
    for renderer in (
        DiskRenderer,
        PlaneRenderer,
        LineRenderer,
        MapRenderer,
        SphereRenderer,
        TorusRenderer,
        CircleRenderer,
        OrthoRenderer,
    )
    for kind in renderer.kinds
}


def renderer_for(kind: str) -> type[Renderer]:
    """The renderer class that draws pictures of ``kind``."""
    try:
        return RENDERERS[kind]
    except KeyError:
        raise ValueError(f"no renderer draws pictures of kind {kind!r}; known: {sorted(RENDERERS)}") from None


def region_figure(
    grid: ViewGrid,
    regions: RegionGrid | None = None,
    overlay: Overlay | None = None,
    *,
    colors: Colors | None = None,
    framing: Framing | None = None,
    animation: Animation | None = None,
):
    """Decision regions (or the bare manifold), points and boundaries of one view.

    Parameters
    ----------
    grid : ViewGrid
        The picture; its coordinates place the regions.
    regions : RegionGrid, optional
        Predictions over ``grid``; without them the manifold is drawn grey (or the
        shown frame of ``animation``).
    overlay : Overlay, optional
        What is drawn over the regions (nothing by default).
    colors : Colors, optional
        Class names and colours, a regression's range and colour bar.
    framing : Framing, optional
        Title, height, the wide lecture framing, a 3-D camera's zoom and facing.
    animation : Animation, optional
        Frames played in the browser: one per reference point, or a replay's.

    Returns
    -------
    plotly.graph_objects.Figure
    """
    renderer = renderer_for(grid.view.kind)
    scene = build_scene(
        renderer,
        grid,
        regions,
        overlay if overlay is not None else Overlay(),
        colors if colors is not None else Colors(),
        framing if framing is not None else Framing(),
        animation,
    )
    return renderer(scene).draw()
