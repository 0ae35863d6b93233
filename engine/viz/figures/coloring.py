"""How cells and points are coloured: class colours with confidence shades, or a value scale.

:func:`resolve_coloring` turns a figure's :class:`~curvedtrees.viz.figures.options.Colors`
(and its regions, frames and points) into a :class:`Coloring`; the renderers then read cell
values (:func:`cell_values`: palette codes, or values, possibly as uint8 steps) and the
trace colour arguments (:func:`color_args`) from it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import plotly.colors as pc

from ..palette import N_LEVELS, OUTSIDE, class_colors, confidence_levels, encode_classes, region_colorscale
from ..regions import RegionGrid
from .options import Colors, PointLayer

__all__ = [
    "BLANK",
    "VALUE_STEPS",
    "Coloring",
    "cell_values",
    "color_args",
    "finite_range",
    "heatmap_color",
    "point_style",
    "resolve_coloring",
]

REGRESSION_SCALE = "Viridis"
# Targets with a natural zero (temperatures in degrees C) get a diverging scale centred on it.
DIVERGING_SCALE = "RdBu_r"
BLANK = "#E9ECEF"  # the manifold without a model: light grey
# Animated regression pictures send one byte per cell and frame: values are rounded to this
# many steps of the colour range (finer than the eye tells apart on a continuous scale).
VALUE_STEPS = 250


@dataclass
class Coloring:
    """How cells and points are coloured: class colours, or a value scale and its range."""

    colors: list[str] | None = None
    scale: str = REGRESSION_SCALE
    value_range: tuple | None = None
    value_title: str = "prediction"
    quantized: bool = False  # regression values sent as uint8 steps of value_range
    # Heatmap frames (disk, plane, line) send uint8 codes, cells off the manifold as a transparent code past
    # the last one, instead of float32 with NaN: a quarter of a replay's bytes.
    compact: bool = False


def _class_names(colors: Colors, regions: RegionGrid | None, points: PointLayer | None) -> list[str] | None:
    """The names given, else the regions' classes, else 0, 1, ... for points with classes (None: no classes)."""
    if colors.class_names is not None:
        return list(colors.class_names)
    if regions is not None and regions.task == "classification":
        return [str(c) for c in regions.classes]
    if points is not None and points.class_index is not None:
        n_classes = int(np.max(points.class_index)) + 1 if len(points) else 0
        return [str(k) for k in range(n_classes)]
    return None


def _value_range(colors: Colors, regions: RegionGrid | None, frames, points: PointLayer | None):
    """The range given, else a regression's over its predictions (every frame's) and targets; centred if diverging."""
    value_range = colors.value_range
    if regions is not None and regions.task == "regression" and value_range is None:
        pieces = [r.values[np.isfinite(r.values)] for r in (frames or [regions])]
        if points is not None and points.values is not None:
            pieces.append(np.asarray(points.values, dtype=np.float64))
        both = np.concatenate([np.ravel(p) for p in pieces])
        value_range = (float(both.min()), float(both.max())) if both.size else (0.0, 1.0)
    if colors.diverging and value_range is not None:
        # Centre the scale on zero: equal reach both ways, so white means 0.
        reach = max(abs(float(value_range[0])), abs(float(value_range[1]))) or 1.0
        value_range = (-reach, reach)
    return value_range


def resolve_coloring(
    colors: Colors, regions: RegionGrid | None, frames, points: PointLayer | None, *, quantized: bool, compact: bool
) -> tuple[Coloring, list[str] | None]:
    """The coloring of a figure, and its class names (None for a regression without classes).

    Class names default to the regions' classes, or to 0, 1, ... for points with classes;
    a regression's range defaults to the predictions' (every frame's) and the points'.
    """
    class_names = _class_names(colors, regions, points)
    n_classes = len(class_names) if class_names is not None else 0
    if colors.colors is not None and len(colors.colors) != n_classes:
        raise ValueError(f"{len(colors.colors)} colours for {n_classes} classes")
    palette = (list(colors.colors) if colors.colors is not None else class_colors(n_classes)) if n_classes else None
    coloring = Coloring(
        palette,
        DIVERGING_SCALE if colors.diverging else REGRESSION_SCALE,
        _value_range(colors, regions, frames, points),
        colors.value_title or "prediction",
        quantized=quantized,
        compact=compact,
    )
    return coloring, class_names


def region_codes(regions: RegionGrid) -> np.ndarray:
    """Palette codes (class and confidence shade) of every cell, NaN off the manifold."""
    n_classes = len(regions.classes)
    levels = confidence_levels(np.nan_to_num(regions.confidence.ravel(), nan=1.0), n_classes)
    return encode_classes(regions.class_index.ravel(), levels).reshape(regions.class_index.shape)


def _outside_code(regions: RegionGrid, coloring: Coloring) -> int | None:
    """The uint8 code of cells off the manifold in compact pictures (None: NaN, as float32)."""
    if not coloring.compact:
        return None
    if regions.task == "classification":
        n_codes = max(len(regions.classes), 1) * N_LEVELS
        return n_codes if n_codes < 255 else None  # more than 63 classes keep float32 codes
    return VALUE_STEPS + 1 if coloring.quantized else None


def _with_outside(scale: str) -> list:
    """A named continuous scale over codes 0..VALUE_STEPS, then a transparent band for the outside code."""
    top = VALUE_STEPS / (VALUE_STEPS + 1)  # where code VALUE_STEPS sits once the axis ends at the outside code
    stops = [[float(p) * top, c] for p, c in pc.get_colorscale(scale)]
    edge = (VALUE_STEPS + 0.5) / (VALUE_STEPS + 1)
    return [*stops, [edge, stops[-1][1]], [edge, OUTSIDE], [1.0, OUTSIDE]]


def color_args(regions: RegionGrid, coloring: Coloring) -> dict:
    """``colorscale``, ``cmin``, ``cmax``, ``showscale`` (and a regression's ``colorbar``) of a regions trace."""
    outside = _outside_code(regions, coloring)
    if regions.task == "classification":
        scale, cmin, cmax = region_colorscale(len(regions.classes), coloring.colors, outside=outside is not None)
        return {"colorscale": scale, "cmin": cmin, "cmax": cmax, "showscale": False}
    lo, hi = finite_range(regions, coloring.value_range)
    colorbar = {"title": {"text": coloring.value_title}, "thickness": 14, "len": 0.7}
    if coloring.quantized:
        ticks = _nice_ticks(lo, hi)
        colorbar |= {"tickvals": [float(_quantize(t, lo, hi)) for t in ticks], "ticktext": [f"{t:g}" for t in ticks]}
        return {
            "colorscale": coloring.scale if outside is None else _with_outside(coloring.scale),
            "cmin": 0.0,
            "cmax": float(VALUE_STEPS if outside is None else outside),
            "showscale": True,
            "colorbar": colorbar,
        }
    return {"colorscale": coloring.scale, "cmin": float(lo), "cmax": float(hi), "showscale": True, "colorbar": colorbar}


def heatmap_color(color: dict) -> dict:
    """:func:`color_args` in a heatmap's words (``zmin``, ``zmax``)."""
    out = {
        "colorscale": color["colorscale"],
        "zmin": color["cmin"],
        "zmax": color["cmax"],
        "showscale": color["showscale"],
    }
    if "colorbar" in color:
        out["colorbar"] = color["colorbar"]
    return out


def finite_range(regions: RegionGrid, value_range) -> tuple[float, float]:
    """``value_range``, or the regions' own; widened to a unit interval when empty or a point."""
    lo, hi = value_range if value_range else (np.nanmin(regions.values), np.nanmax(regions.values))
    if not np.isfinite(lo) or not np.isfinite(hi) or hi <= lo:
        lo, hi = (float(lo) - 0.5, float(lo) + 0.5) if np.isfinite(lo) else (0.0, 1.0)
    return float(lo), float(hi)


def _quantize(values, lo: float, hi: float) -> np.ndarray:
    """Values as uint8 steps 0..VALUE_STEPS of [lo, hi] (NaN -> 0; NaN cells are never on a globe)."""
    scaled = (np.nan_to_num(np.asarray(values, dtype=np.float64), nan=lo) - lo) / (hi - lo) * VALUE_STEPS
    return np.clip(np.rint(scaled), 0, VALUE_STEPS).astype(np.uint8)


def _nice_ticks(lo: float, hi: float) -> list[float]:
    """About six round numbers inside [lo, hi] for a colour bar."""
    raw = (hi - lo) / 6.0
    magnitude = 10.0 ** np.floor(np.log10(raw))
    step = magnitude * min((1, 2, 5, 10), key=lambda m: abs(m * magnitude - raw))
    return [float(t) for t in np.arange(np.ceil(lo / step) * step, hi + 1e-9 * step, step)]


def cell_values(regions: RegionGrid, coloring: Coloring) -> np.ndarray:
    """What each cell sends: palette codes, values, or uint8 steps (compact: off-manifold cells as a code)."""
    outside = _outside_code(regions, coloring)
    if regions.task == "classification":
        codes = region_codes(regions)
        return codes if outside is None else np.where(np.isnan(codes), outside, codes).astype(np.uint8)
    if coloring.quantized:
        steps = _quantize(regions.values, *finite_range(regions, coloring.value_range))
        return steps if outside is None else np.where(np.isnan(regions.values), outside, steps).astype(np.uint8)
    return regions.values.astype(np.float32)


def point_style(points: PointLayer, coloring: Coloring, test: bool) -> dict:
    """The marker of data points: class colours (grey past the classes), the value scale, or dark grey."""
    colors, value_range = coloring.colors, coloring.value_range
    marker = {
        "size": 7 if not test else 8,
        "symbol": "diamond" if test else "circle",
        "line": {"color": "#1A1A1A" if test else "#FFFFFF", "width": 1.2 if test else 0.9},
    }
    if points.class_index is not None and colors is not None:
        idx = np.asarray(points.class_index, dtype=np.int64)
        # Class codes on a stepped scale (one band per class, grey past them) rather than a colour
        # string per point: Plotly checks every string of a list, 10 ms a thousand points.
        palette = [*colors, "#7F7F7F"]
        code = np.where((idx >= 0) & (idx < len(colors)), idx, len(colors))
        bands = len(palette)
        scale = [[min((k + edge) / bands, 1.0), c] for k, c in enumerate(palette) for edge in (0, 1)]
        marker.update(
            color=code.astype(np.uint8 if bands <= 256 else np.int32),
            colorscale=scale,
            cmin=-0.5,
            cmax=bands - 0.5,
            showscale=False,
        )
    elif points.values is not None:
        lo, hi = value_range if value_range else (np.nanmin(points.values), np.nanmax(points.values))
        marker.update(
            color=np.asarray(points.values, dtype=np.float32),
            colorscale=coloring.scale,
            cmin=float(lo),
            cmax=float(hi),
            showscale=False,
        )
    else:
        marker["color"] = "#4C4C4C"
    return marker
