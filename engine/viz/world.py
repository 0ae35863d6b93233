"""Geometry of world pictures: graticules, coastlines on the sphere, the map and the orthographic globe.

Pure numpy helpers used by :mod:`curvedtrees.viz.figures` for S2 components that
are the Earth (``Dataset.globe``). Coastlines themselves are data
(:func:`curvedtrees.datasets.geo.coastlines`); the figures take them as arrays.

Lines are NaN-separated runs of latitude and longitude in degrees, the format
Plotly draws as one trace with gaps.
"""

from __future__ import annotations

import functools

import numpy as np

from .views import _ortho_unproject_turn, _turned_longitude, ortho_project

__all__ = [
    "DEFAULT_FACING",
    "break_at_date_line",
    "graticule",
    "latlon_xyz",
    "ortho_image",
    "ortho_lines",
]

# Where a globe opens when the data has no mean direction (points all over the sphere, as
# the Landmasses grid): 20 N 20 E shows Africa, Europe and western Asia.
DEFAULT_FACING = (20.0, 20.0)


def graticule(step: float = 30.0, samples_per_degree: float = 0.5) -> tuple[np.ndarray, np.ndarray]:
    """Meridians and parallels every ``step`` degrees as NaN-separated lines.

    Parallels stop short of the poles (a parallel at +-90 is a point); meridians run
    from -90 to 90.

    Returns
    -------
    lat, lon : ndarray of float64, shape (n,)
    """
    lats, lons = [], []
    n_merid = max(int(180 * samples_per_degree), 2) + 1
    for lon in np.arange(-180.0, 180.0, step):
        lats += [np.linspace(-90.0, 90.0, n_merid), [np.nan]]
        lons += [np.full(n_merid, lon), [np.nan]]
    n_par = max(int(360 * samples_per_degree), 2) + 1
    for lat in np.arange(-90.0 + step, 90.0, step):
        lats += [np.full(n_par, lat), [np.nan]]
        lons += [np.linspace(-180.0, 180.0, n_par), [np.nan]]
    return np.concatenate(lats)[:-1], np.concatenate(lons)[:-1]


def latlon_xyz(lat, lon, radius: float = 1.0) -> dict:
    """3-D points (float32) of latitudes and longitudes on a sphere of ``radius``; NaN stays NaN.

    Parameters
    ----------
    lat, lon : array-like of shape (n,)
        Degrees.
    radius : float
        A little above 1 lifts lines off the unit globe so that its surface does not hide them.

    Returns
    -------
    dict with ``x``, ``y``, ``z`` : ndarray of float32, shape (n,)
    """
    phi, lam = np.radians(np.asarray(lat, dtype=np.float64)), np.radians(np.asarray(lon, dtype=np.float64))
    return {
        "x": (radius * np.cos(phi) * np.cos(lam)).astype(np.float32),
        "y": (radius * np.cos(phi) * np.sin(lam)).astype(np.float32),
        "z": (radius * np.sin(phi)).astype(np.float32),
    }


def break_at_date_line(lon, lat) -> tuple[np.ndarray, np.ndarray]:
    """Insert a gap wherever a line jumps across the date line (a step of more than 180 degrees).

    A flat map would otherwise draw a stroke across the whole world.

    Returns
    -------
    lon, lat : ndarray of float64, shape (n + number of jumps,)
    """
    lon, lat = np.asarray(lon, dtype=np.float64), np.asarray(lat, dtype=np.float64)
    if len(lon) < 2:
        return lon, lat
    jumps = np.flatnonzero(np.abs(np.diff(lon)) > 180.0) + 1
    return np.insert(lon, jumps, np.nan), np.insert(lat, jumps, np.nan)


def _squeeze_gaps(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Drop NaNs that follow a NaN (and leading ones): the same drawing, a shorter payload."""
    gap = ~np.isfinite(x)
    keep = ~(gap & np.concatenate([[True], gap[:-1]]))
    return x[keep], y[keep]


def ortho_lines(lat, lon, centre_lat: float, centre_lon: float) -> tuple[np.ndarray, np.ndarray]:
    """Lines on the orthographic globe: projected, the far side cut away.

    Parameters
    ----------
    lat, lon : array-like of shape (n,)
        NaN-separated lines, degrees.
    centre_lat, centre_lon : float

    Returns
    -------
    x, y : ndarray of float32 (at most n long)
    """
    x, y, visible = ortho_project(lat, lon, centre_lat, centre_lon)
    x = np.where(visible, x, np.nan)
    y = np.where(visible, y, np.nan)
    x, y = _squeeze_gaps(x, y)
    return x.astype(np.float32), y.astype(np.float32)


def ortho_image(cells: np.ndarray, centre_lat: float, centre_lon: float, size: int, outside) -> np.ndarray:
    """Resample a latitude-longitude grid of cell values onto the orthographic disk.

    Parameters
    ----------
    cells : ndarray, shape (n_lat, n_lon)
        Values of equal cells from 90 S (row 0) northwards and from 180 W (column 0)
        eastwards (a ``map`` :class:`~curvedtrees.viz.views.ViewGrid`).
    centre_lat, centre_lon : float
        Degrees.
    size : int
        Pixels per side of the square picture of the disk [-1, 1]^2.
    outside : scalar
        Value of pixels outside the disk.

    Returns
    -------
    ndarray, shape (size, size), dtype of ``cells``
        Row 0 at y = -1 (south at the bottom, as a heatmap draws it); each pixel
        takes the value of the cell under its centre (nearest cell, so classes stay crisp).
    """
    n_lat, n_lon = cells.shape
    inside, row, turn = _ortho_pixels(int(size), float(centre_lat), n_lat)
    lon = _turned_longitude(turn, centre_lon)
    col = np.clip(((lon + 180.0) / 360.0 * n_lon).astype(np.int64), 0, n_lon - 1)
    out = np.full((size, size), outside, dtype=cells.dtype)
    out[inside] = cells[row, col]
    return out


@functools.lru_cache(maxsize=8)
def _ortho_pixels(size: int, centre_lat: float, n_lat: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The pixels of :func:`ortho_image` inside the disk, their cells' rows and their angles east of the centre.

    They do not depend on the centre longitude: the frames of a turning globe (and every figure
    of its size and tilt) share them, and only shift the longitudes.
    """
    axis = (np.arange(size) + 0.5) / size * 2.0 - 1.0
    gx, gy = np.meshgrid(axis, axis)
    lat, turn = _ortho_unproject_turn(gx, gy, centre_lat)
    inside = np.isfinite(lat)
    row = np.clip(((lat[inside] + 90.0) / 180.0 * n_lat).astype(np.int64), 0, n_lat - 1)
    found = (inside, row, turn[inside])
    for array in found:
        array.flags.writeable = False
    return found
