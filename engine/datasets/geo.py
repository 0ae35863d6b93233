"""Geographic datasets on the sphere: landmasses (S2) and city temperatures (S2 x S1)."""

from __future__ import annotations

import functools
from importlib import resources

import numpy as np

from ..coords import angle_to_circle, latlon_to_sphere
from ..utils import as_generator, require
from ._base import (
    Dataset,
    ParamInfo,
    register,
)

__all__ = ["TEMPERATURE_ATTRIBUTION", "coastlines", "is_land", "load_city_temperatures", "load_landmasses"]

# Package data, so an installed copy finds it wherever it lives.
LAND_MASK_PATH = resources.files("curvedtrees.data") / "land_mask_0.05deg.npz"
COASTLINES_PATH = resources.files("curvedtrees.data") / "coastlines.npz"

# Exactly the attribution the data's licence asks for; shown wherever the data is.
TEMPERATURE_ATTRIBUTION = "Temperature data (c) GeoRank.place, CC-BY-4.0, derived from CHELSA v2.1"

LANDMASS_PROVENANCE = (
    "Land/water labels from the PyPI package global-land-mask 1.0.0 (MIT licence, (c) 2019 Todd Karin), "
    "which ships the land mask of the GLOBE 1 km digital elevation model (NOAA National Geophysical Data "
    "Center, public domain). The project stores it downsampled to a 0.05 degree grid by majority vote "
    "(curvedtrees/data/land_mask_0.05deg.npz, made by scripts/build_land_mask.py), which agrees with the full mask "
    "on 99.8% of the 400 x 400 grid. The paper labelled points with Matplotlib Basemap's is_land, which "
    "calls all of Antarctica water (use antarctica_as_water=True to reproduce that)."
)


@functools.lru_cache(maxsize=1)
def _land_mask() -> tuple[np.ndarray, float]:
    """The shipped mask as a bool array (rows from 90 N southwards, columns from 180 W eastwards)."""
    if not LAND_MASK_PATH.is_file():
        raise FileNotFoundError(
            f"the land mask {LAND_MASK_PATH} is missing; rebuild it with "
            "`python scripts/build_land_mask.py` (needs pip install global-land-mask==1.0.0)"
        )
    with LAND_MASK_PATH.open("rb") as handle, np.load(handle, allow_pickle=False) as data:
        shape = tuple(int(v) for v in data["shape"])
        resolution = float(data["resolution_deg"])
        land = np.unpackbits(data["land_bits"], count=shape[0] * shape[1]).astype(bool).reshape(shape)
    land.setflags(write=False)
    return land, resolution


@functools.lru_cache(maxsize=1)
def coastlines() -> tuple[np.ndarray, np.ndarray]:
    """The world's coastlines as NaN-separated polylines (read once, then cached).

    Traced from the shipped land mask by ``scripts/build_coastlines.py`` (marching
    squares on a 0.25 degree grid, simplified to about 4,500 vertices), so they
    match the Landmasses labels.

    Returns
    -------
    lat, lon : ndarray of float32, shape (n,)
        Degrees; NaN in both marks the end of one polyline. Longitudes run from
        about -180 to a little past 180 (coasts crossing the date line are not
        cut). Read-only.
    """
    if not COASTLINES_PATH.is_file():
        raise FileNotFoundError(
            f"the coastlines {COASTLINES_PATH} are missing; rebuild them with `python scripts/build_coastlines.py`"
        )
    with COASTLINES_PATH.open("rb") as handle, np.load(handle, allow_pickle=False) as data:
        lat = np.asarray(data["lat"], dtype=np.float32)
        lon = np.asarray(data["lon"], dtype=np.float32)
    for array in (lat, lon):
        array.setflags(write=False)
    return lat, lon


def is_land(lat_deg, lon_deg) -> np.ndarray:
    """Whether points are on land, from the shipped 0.05 degree mask.

    Parameters
    ----------
    lat_deg : array-like, shape (n,)
        Latitudes in degrees, in [-90, 90].
    lon_deg : array-like, shape (n,)
        Longitudes in degrees, in [-180, 180].

    Returns
    -------
    ndarray of bool, shape (n,)
    """
    lat = np.asarray(lat_deg, dtype=np.float64)
    lon = np.asarray(lon_deg, dtype=np.float64)
    finite = np.all(np.isfinite(lat)) and np.all(np.isfinite(lon))
    if not finite or np.any(np.abs(lat) > 90) or np.any(np.abs(lon) > 180):
        raise ValueError("latitudes must be in [-90, 90] and longitudes in [-180, 180] degrees")
    land, resolution = _land_mask()
    # Same cell rule as scripts/build_land_mask.py: the cell containing the point,
    # the south pole clipped into the last row, 180 E wrapped onto 180 W.
    row = np.clip(np.floor((90.0 - lat) / resolution).astype(np.int64), 0, land.shape[0] - 1)
    col = np.floor((lon + 180.0) / resolution).astype(np.int64) % land.shape[1]
    return land[row, col]


@register(
    "landmasses",
    title="Landmasses",
    task="classification",
    signature="S2",
    summary="Land or water for points of a longitude/latitude grid on the globe (S2).",
    category="geographic",
    parameters=(
        ParamInfo("n_samples", "int", 1000, "Points drawn from the grid without replacement.", 10, 160_000, step=100),
        ParamInfo("n_grid", "int", 400, "Grid size: n_grid longitudes x n_grid latitudes.", 10, 1000, step=10),
        ParamInfo(
            "antarctica_as_water",
            "bool",
            False,
            "Label everything south of 60 S as water, like the paper's Basemap labels.",
        ),
        ParamInfo("random_state", "seed", None, "Seed for the random subset of grid points."),
    ),
)
def load_landmasses(
    n_samples: int = 1000, n_grid: int = 400, antarctica_as_water: bool = False, random_state=None
) -> Dataset:
    """Land vs water on the globe, as points on S2.

    An equirectangular grid of ``n_grid`` longitudes by ``n_grid`` latitudes (cell
    centres, so no point is repeated at the poles or the date line), a random
    subset of ``n_samples`` grid points, each labelled 1 (land) or 0 (water).

    Parameters
    ----------
    n_samples : int
        Number of rows, at most ``n_grid ** 2``.
    n_grid : int
        Grid points per axis (the paper used a 100 x 100 grid with Basemap; the
        default 400 x 400 gives finer coastlines).
    antarctica_as_water : bool
        Label latitudes below -60 degrees as water, as Basemap's ``is_land`` did
        for the paper (it has no Antarctic landmass).
    random_state : int, Generator or None

    Returns
    -------
    Dataset
        ``X`` of shape (n_samples, 3) on the unit sphere, ``y`` in {0, 1};
        ``extra["lat"]``, ``extra["lon"]`` in degrees; ``globe`` is ``(0,)``.
    """
    n_grid = int(n_grid)
    n_samples = int(n_samples)
    if n_grid < 2:
        raise ValueError(f"n_grid must be at least 2, got {n_grid}")
    if not 1 <= n_samples <= n_grid * n_grid:
        raise ValueError(f"n_samples must be in [1, n_grid**2 = {n_grid * n_grid}], got {n_samples}")
    rng = as_generator(random_state)
    pick = np.sort(rng.choice(n_grid * n_grid, size=n_samples, replace=False))
    lat_index, lon_index = np.divmod(pick, n_grid)
    lon = -180.0 + (lon_index + 0.5) * 360.0 / n_grid
    lat = -90.0 + (lat_index + 0.5) * 180.0 / n_grid
    land = is_land(lat, lon)
    if antarctica_as_water:
        land = land & (lat >= -60.0)
    return Dataset(
        X=latlon_to_sphere(lat, lon),
        y=land.astype(np.int64),
        signature="S2",
        task="classification",
        name="landmasses",
        description=(
            f"{n_samples} points of a {n_grid} x {n_grid} longitude/latitude grid, each a unit vector on the "
            "sphere S2, labelled land (1) or water (0). Lakes count as land. "
            + ("Antarctica (south of 60 S) is labelled water, as in the paper. " if antarctica_as_water else "")
            + "The paper's product random forest reached 84% F1 and k-NN 91% on its version of this task."
        ),
        provenance=LANDMASS_PROVENANCE,
        feature_names=("x", "y", "z"),
        target_names=("water", "land"),
        extra={"lat": lat, "lon": lon},
        globe=(0,),
    )


@register(
    "city_temperatures",
    title="City temperatures",
    task="regression",
    signature="S2 x S1",
    summary="Monthly mean temperature of 270 cities: city on S2, month on S1.",
    category="geographic",
    parameters=(
        ParamInfo("n_cities", "int", 270, "Number of cities (a random subset when fewer than 270).", 2, 270),
        ParamInfo("random_state", "seed", None, "Seed for the subset of cities."),
    ),
    requires=("world_temperature_data",),
)
def load_city_temperatures(n_cities: int = 270, random_state=None) -> Dataset:
    """Monthly mean air temperature of world cities on S2 x S1.

    One row per (city, month): the city as a unit vector on S2 from its latitude
    and longitude, the month ``m`` in 0..11 as ``(cos 2 pi m / 12, sin 2 pi m / 12)``
    on S1, the target the 1981-2010 mean temperature in degrees Celsius.
    ``groups`` holds the city index so that a split can keep each city's twelve
    months together.

    Parameters
    ----------
    n_cities : int
        Number of cities, at most 270 (all of them by default).
    random_state : int, Generator or None
        Seed for the subset when ``n_cities < 270``.

    Returns
    -------
    Dataset
        ``X`` of shape (12 n_cities, 5), ``y`` in degrees C, ``groups`` the city
        index; ``extra`` has the city names, countries, latitudes, longitudes and
        month of every row, the month names of the S1 component's twelve steps
        (``circle_steps``, keyed by component index) and ``target_unit``.
        ``globe`` is ``(0,)``: the S2 component is the Earth.

    Raises
    ------
    ImportError
        When ``world-temperature-data`` is not installed (with the pip command).
    """
    wtd = require("world_temperature_data", "The city temperature dataset")
    records = wtd.cities()
    n_cities = int(n_cities)
    if not 1 <= n_cities <= len(records):
        raise ValueError(f"n_cities must be in [1, {len(records)}], got {n_cities}")
    if n_cities < len(records):
        rng = as_generator(random_state)
        keep = np.sort(rng.choice(len(records), size=n_cities, replace=False))
        records = [records[i] for i in keep]
    months = list(records[0]["monthly"])  # "jan".."dec" in calendar order
    n_months = len(months)
    lat = np.repeat([r["lat"] for r in records], n_months)
    lon = np.repeat([r["lon"] for r in records], n_months)
    month = np.tile(np.arange(n_months), len(records))
    temperature = np.array([r["monthly"][m] for r in records for m in months], dtype=np.float64)
    X = np.hstack([latlon_to_sphere(lat, lon), angle_to_circle(2.0 * np.pi * month / n_months)])
    return Dataset(
        X=X,
        y=temperature,
        signature="S2 x S1",
        task="regression",
        name="city_temperatures",
        description=(
            f"Monthly mean near-surface air temperature (1981-2010 normals, degrees Celsius) of {len(records)} "
            "cities worldwide. A row is one city and one month: the city as a unit vector on the sphere S2 from "
            "its latitude and longitude, the month m = 0..11 as the angle 2 pi m / 12 on the circle S1. "
            "Split by city (the groups) to test on cities the model never saw. The paper used a similar table "
            "of ~400 cities from Wikipedia."
        ),
        provenance=(
            TEMPERATURE_ATTRIBUTION
            + ". Shipped in the PyPI package world-temperature-data 0.1.0 (monthly normals 1981-2010 derived "
            "from CHELSA v2.1 by GeoRank.place; licence CC-BY-4.0)."
        ),
        groups=np.repeat(np.arange(len(records)), n_months),
        feature_names=("city_x", "city_y", "city_z", "month_cos", "month_sin"),
        extra={
            "city": np.repeat([r["city"] for r in records], n_months),
            "country": np.repeat([r["country_iso2"] for r in records], n_months),
            "lat": lat,
            "lon": lon,
            "month": month,
            "attribution": TEMPERATURE_ATTRIBUTION,
            # For pictures: the month circle's twelve steps (angle 2 pi m / 12) and the target's unit.
            "circle_steps": {1: tuple(m.capitalize() for m in months)},
            "target_unit": "°C",
        },
        globe=(0,),
    )
