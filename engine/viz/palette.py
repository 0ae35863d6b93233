"""Class colours and the colour scales that encode class and confidence in one number.

A region picture colours each grid cell by its predicted class and fades the
colour toward white where the model is unsure. Plotly heatmaps and surfaces take
one scalar per cell and a colour scale, so class and confidence are packed into
one small integer ``code = class_index * N_LEVELS + level``, with a stepped
colour scale that has one flat band per code: cells stay crisp (no blending
between neighbouring classes) and the payload is one byte per cell.
"""

from __future__ import annotations

import numpy as np
import plotly.colors as pc

__all__ = [
    "N_LEVELS",
    "OUTSIDE",
    "class_colors",
    "confidence_levels",
    "encode_classes",
    "region_colorscale",
    "rgba",
    "world_class_colors",
]

# Four shades per class: enough to read "sure" against "unsure" at a glance,
# few enough that each band stays distinct on screen.
N_LEVELS = 4
# Opacity of each shade over a white background (least to most confident).
_LEVEL_ALPHA = (0.30, 0.50, 0.72, 0.95)
# Cells off the manifold (a disk's square corners) when codes travel as uint8 rather than NaN.
OUTSIDE = "rgba(255, 255, 255, 0)"


def class_colors(n_classes: int) -> list[str]:
    """``n_classes`` distinct hex colours (Tableau 10, then Dark 24, then repeated).

    Parameters
    ----------
    n_classes : int

    Returns
    -------
    list of str, length n_classes
    """
    if n_classes <= 10:
        base = pc.qualitative.D3
    else:
        base = pc.qualitative.Dark24
    return [_to_hex(base[k % len(base)]) for k in range(int(n_classes))]


# Natural colours of land and water on world pictures (class labels "land" and "water"):
# an olive green that reads as vegetation and stays distinct from the ocean blue when paled.
LAND_COLOR = "#6E9A3C"
WATER_COLOR = "#2F72B8"


def world_class_colors(class_names) -> list[str] | None:
    """Natural colours for land/water labels (land green, water blue), None for any other classes.

    Parameters
    ----------
    class_names : sequence of str or None

    Returns
    -------
    list of str (one hex colour per class) or None
    """
    if class_names is None:
        return None
    names = [str(n).strip().lower() for n in class_names]
    if sorted(names) != ["land", "water"]:
        return None
    return [LAND_COLOR if n == "land" else WATER_COLOR for n in names]


def _to_hex(color: str) -> str:
    if color.startswith("#"):
        return color.upper()
    r, g, b = pc.unlabel_rgb(color)
    return f"#{int(r):02X}{int(g):02X}{int(b):02X}"


def rgba(color: str, alpha: float) -> str:
    """``"rgba(r, g, b, alpha)"`` for a hex colour."""
    r, g, b = pc.hex_to_rgb(color)
    return f"rgba({r}, {g}, {b}, {alpha:.3f})"


def _blend_white(color: str, alpha: float) -> str:
    """The opaque colour seen when ``color`` at ``alpha`` lies on white."""
    r, g, b = pc.hex_to_rgb(color)
    mix = [round(alpha * c + (1.0 - alpha) * 255) for c in (r, g, b)]
    return f"rgb({mix[0]}, {mix[1]}, {mix[2]})"


def confidence_levels(confidence: np.ndarray, n_classes: int) -> np.ndarray:
    """Quantise winning-class probabilities into ``N_LEVELS`` shades.

    Parameters
    ----------
    confidence : ndarray of shape (n,)
        Probability of the predicted class, between ``1 / n_classes`` and 1.
    n_classes : int

    Returns
    -------
    ndarray of shape (n,), dtype uint8, values in ``0 .. N_LEVELS - 1``
    """
    confidence = np.asarray(confidence, dtype=np.float64)
    floor = 1.0 / max(int(n_classes), 1)
    # Rescale so a uniform guess maps to 0 and certainty to 1; with one class there
    # is nothing to be unsure about.
    span = max(1.0 - floor, 1e-12)  # avoids 0/0 when n_classes == 1
    scaled = np.clip((confidence - floor) / span, 0.0, 1.0)
    scaled = np.where(np.isfinite(scaled), scaled, 1.0)
    return np.minimum((scaled * N_LEVELS).astype(np.int64), N_LEVELS - 1).astype(np.uint8)


def encode_classes(class_index: np.ndarray, levels: np.ndarray | None = None) -> np.ndarray:
    """Pack class index and confidence level into one code per cell.

    Parameters
    ----------
    class_index : ndarray of int, any shape
        Index into the model's classes; negative marks cells outside the picture.
    levels : ndarray of uint8, same shape, optional
        Confidence levels from :func:`confidence_levels`; full confidence if omitted.

    Returns
    -------
    ndarray of float32, same shape: ``class_index * N_LEVELS + level``, NaN where
    ``class_index < 0`` (Plotly leaves NaN cells transparent).
    """
    class_index = np.asarray(class_index)
    if levels is None:
        levels = np.full(class_index.shape, N_LEVELS - 1, dtype=np.uint8)
    code = class_index.astype(np.float32) * N_LEVELS + np.asarray(levels, dtype=np.float32)
    return np.where(class_index < 0, np.float32(np.nan), code).astype(np.float32)


def region_colorscale(
    n_classes: int, colors: list[str] | None = None, outside: bool = False
) -> tuple[list[list], float, float]:
    """Stepped colour scale for :func:`encode_classes` codes.

    Parameters
    ----------
    n_classes : int
    colors : list of str, optional
        One hex colour per class (default :func:`class_colors`).
    outside : bool
        Add one transparent band after the last code, for :data:`OUTSIDE` cells sent as
        ``n_classes * N_LEVELS`` (uint8 codes have no NaN).

    Returns
    -------
    colorscale : list of [position, colour]
        One flat band per code, ``n_classes * N_LEVELS`` bands (one more with ``outside``).
    cmin, cmax : float
        Colour-axis limits that put every integer code in the middle of its band.
    """
    colors = list(colors) if colors is not None else class_colors(n_classes)
    n_codes = max(int(n_classes), 1) * N_LEVELS
    n_bins = n_codes + (1 if outside else 0)
    scale = []
    for code in range(n_bins):
        color = OUTSIDE if code == n_codes else _blend_white(colors[code // N_LEVELS], _LEVEL_ALPHA[code % N_LEVELS])
        scale.append([code / n_bins, color])
        scale.append([(code + 1) / n_bins, color])
    return scale, -0.5, n_bins - 0.5
