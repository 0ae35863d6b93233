"""Build the compact land/water mask shipped as package data in ``engine/data/land_mask_0.05deg.npz``.

The landmass dataset (``curvedtrees.datasets.load_landmasses``) needs to know, for any
latitude and longitude, whether the point is on land. ``global-land-mask`` answers
that from the GLOBE 1 km grid, but importing it unpacks a 21600 x 43200 boolean
array (~0.9 GB of memory, 5-10 s). This script pays that cost once: it
downsamples the mask to a 0.05 degree grid by majority vote over 6 x 6 blocks of
GLOBE cells, bit-packs it and writes a ~130 kB ``.npz`` (no pickled objects), so
the app and the tests never import ``global_land_mask``.

Run from the repository root (needs ``pip install global-land-mask==1.0.0``)::

    .venv/bin/python scripts/build_land_mask.py

It prints the agreement between the downsampled mask and ``globe.is_land`` on the
400 x 400 grid used by the loader and on random points; the numbers are recorded
in ``assets/README.md``.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

# GLOBE cells per degree in global_land_mask's grid (21600 rows over 180 degrees).
CELLS_PER_DEGREE = 120
ASSET = Path(__file__).resolve().parent.parent / "engine" / "data" / "land_mask_0.05deg.npz"


def downsample(ocean: np.ndarray, block: int) -> np.ndarray:
    """Majority vote of land over ``block x block`` cells.

    Parameters
    ----------
    ocean : ndarray of bool, shape (21600, 43200)
        ``global_land_mask``'s mask (True = ocean), rows from 90 N southwards,
        columns from 180 W eastwards.
    block : int
        Block edge in GLOBE cells; must divide both dimensions.

    Returns
    -------
    land : ndarray of bool, shape (21600 // block, 43200 // block)
        True where at least half of the block is land (ties go to land so that
        thin coasts and small islands are not all lost).
    """
    n_rows, n_cols = ocean.shape
    if n_rows % block or n_cols % block:
        raise ValueError(f"block {block} does not divide the mask shape {ocean.shape}")
    land_rows = []
    # Row bands keep the float temporaries small (a full float64 copy would be 7 GB).
    band = 60 * block
    for start in range(0, n_rows, band):
        chunk = ~ocean[start : start + band]
        counts = chunk.reshape(chunk.shape[0] // block, block, n_cols // block, block).sum(axis=(1, 3))
        land_rows.append(2 * counts >= block * block)
    return np.concatenate(land_rows, axis=0)


def lookup(land: np.ndarray, resolution: float, lat: np.ndarray, lon: np.ndarray) -> np.ndarray:
    """Same cell rule as ``curvedtrees.datasets.geo._LandMask.is_land`` (kept in sync by hand)."""
    row = np.clip(np.floor((90.0 - lat) / resolution).astype(np.int64), 0, land.shape[0] - 1)
    col = np.floor((lon + 180.0) / resolution).astype(np.int64) % land.shape[1]
    return land[row, col]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--block", type=int, default=6, help="GLOBE cells per output cell edge (6 -> 0.05 degree)")
    parser.add_argument("--out", type=Path, default=ASSET)
    args = parser.parse_args()

    from global_land_mask import globe  # the expensive import: ~0.9 GB, 5-10 s

    ocean = globe._mask
    if ocean.shape != (180 * CELLS_PER_DEGREE, 360 * CELLS_PER_DEGREE):
        raise SystemExit(f"unexpected global_land_mask grid {ocean.shape}")
    resolution = args.block / CELLS_PER_DEGREE
    land = downsample(ocean, args.block)

    args.out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(
        args.out,
        land_bits=np.packbits(land, axis=None),
        shape=np.array(land.shape, dtype=np.int64),
        resolution_deg=np.array(resolution, dtype=np.float64),
        source=np.array("global-land-mask 1.0.0 (GLOBE 1 km mask), majority vote over blocks"),
    )

    # Agreement with the full-resolution mask, on the loader's grid and on random points.
    n_grid = 400
    lon_g = -180.0 + (np.arange(n_grid) + 0.5) * 360.0 / n_grid
    lat_g = -90.0 + (np.arange(n_grid) + 0.5) * 180.0 / n_grid
    lon_g, lat_g = (a.ravel() for a in np.meshgrid(lon_g, lat_g))
    rng = np.random.default_rng(0)
    lat_r = np.degrees(np.arcsin(rng.uniform(-1.0, 1.0, 200_000)))  # uniform on the sphere
    lon_r = rng.uniform(-180.0, 180.0, 200_000)
    for label, lat, lon in (("400x400 grid", lat_g, lon_g), ("random points on the sphere", lat_r, lon_r)):
        ref = globe.is_land(lat.copy(), lon.copy())
        agree = np.mean(lookup(land, resolution, lat, lon) == ref)
        print(f"{label}: agreement {agree:.4%}, land fraction {ref.mean():.4f}")
    print(f"wrote {args.out} ({args.out.stat().st_size / 1024:.0f} kB, grid {land.shape}, {resolution:g} degree)")


if __name__ == "__main__":
    main()
