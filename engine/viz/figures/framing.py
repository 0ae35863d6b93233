"""Sizes, cameras and legends: how a picture fills its column.

Plotly draws a 3-D scene with a fixed vertical field of view, so a shape's drawn width
follows the chart's height, not its width; the heights and camera distances here are
measured for the app's columns (see each constant). :func:`frame_size` reads a
:class:`~curvedtrees.viz.figures.options.Framing` for one picture kind.
"""

from __future__ import annotations

import numpy as np

from ..world import DEFAULT_FACING
from .options import Framing

__all__ = [
    "ANIMATED_ROOM",
    "HEIGHTS",
    "SPHERE_EYE_DISTANCE",
    "TORUS_EYE_DISTANCE",
    "WIDE_FRAMING",
    "eye",
    "facing_latlon",
    "frame_size",
    "layout_2d",
    "place_legend",
]

# Chart heights (px) of each picture kind in the default framing.
HEIGHTS = {"disk": 560, "plane": 560, "sphere": 520, "map": 520, "ortho": 600, "torus": 480, "circle": 520, "line": 260}
# From these distances the sphere and the torus take about 0.6 of the height, which fits a column as
# narrow as 0.65 of the height (a 340 px column at the heights above) without clipping left and right.
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
# Pixels an animated picture adds to its height for the legend above and the slider with its buttons
# below (about 130 px), so that the disk or the 3-D scene keeps most of its room. Measured at 1400 x 900 in
# the Inspector (a 556 px column): the disk was 324 px across at 560 px, 427 px at 660 with the compact legend.
ANIMATED_ROOM = {"sphere": 120, "torus": 120, "disk": 100, "plane": 100}
# Camera elevation over a torus (height over horizontal distance): both angles stay readable.
_TORUS_EYE_SLOPE = 0.71
# A sphere's camera looks at a split's boundary from a point tilted this far toward its pole, so
# the great circle reads as a curve crossing the face rather than a rim or a straight line.
_SPLIT_TILT = 0.3


def frame_size(framing: Framing, kind: str, animated: bool) -> tuple[int, float, float]:
    """(chart height in px, 3-D zoom, camera lift) of a picture of ``kind`` framed by ``framing``."""
    base_height, wide_zoom, lift = (HEIGHTS[kind], 1.0, 0.0)
    if framing.wide:
        base_height, wide_zoom, lift = WIDE_FRAMING.get(kind, (base_height, wide_zoom, lift))
    zoom = float(framing.zoom) if framing.zoom is not None else wide_zoom
    # An animated picture gives a legend above and a slider below their room on top of its picture's.
    height = framing.height or base_height + (ANIMATED_ROOM.get(kind, 0) if animated else 0)
    return height, zoom, lift


def eye(kind: str, look: dict, zoom: float = 1.0) -> dict:
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


def facing_latlon(facing) -> tuple[float, float]:
    """(latitude, longitude) in degrees of a facing direction (DEFAULT_FACING without one)."""
    if facing is None:
        return DEFAULT_FACING
    f = np.asarray(facing, dtype=np.float64)
    return float(np.degrees(np.arcsin(np.clip(f[2], -1, 1)))), float(np.degrees(np.arctan2(f[1], f[0])))


def layout_2d(fig, extent, equal: bool, height: int, title: str | None, hide_axes: bool) -> None:
    """Axes over ``extent`` (xmin, xmax, ymin, ymax), optionally at 1:1, on a white plot."""
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


def place_legend(fig, animated: bool, beside: bool = False) -> None:
    """A horizontal legend that leaves the picture the column's whole width.

    Below the plot, or above it when a slider and play buttons take the space below.
    Plotly makes room for it in the margin. ``beside``: a vertical legend right of the plot
    instead, for a round picture in a wide, short place (a lecture slide's replay, whose
    controls already take height below it): there the picture is as tall as the height
    left, and its width has room to spare.
    """
    if beside:
        where = {"orientation": "v", "x": 1.01, "y": 1.0, "yanchor": "top", "font": {"size": 11}, "tracegroupgap": 0}
    elif animated:
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
