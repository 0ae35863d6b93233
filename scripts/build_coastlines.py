"""Build the coastline polylines shipped as package data in ``engine/data/coastlines.npz``.

World pictures (the Landmasses and City temperatures demos, latitude/longitude
uploads) draw coastlines over the decision regions. They are traced here once
from the project's own land mask (``engine/data/land_mask_0.05deg.npz``), so the
outlines agree with the labels the models learn from, and the app never traces
anything per request and never downloads map outlines.

Steps:

1. average the 0.05 degree mask over ``block x block`` cells (the land fraction
   of each coarser cell, a smooth field in [0, 1]);
2. marching squares at level 0.5 on the cell centres, with linear interpolation
   along the square edges (the column of 180 W is repeated east of 180 E so that
   coasts crossing the date line stay in one piece);
3. chain the segments into polylines and simplify each with Douglas-Peucker;
4. drop islands and lakes whose outline spans less than ``min_extent`` degrees;
5. store latitudes and longitudes (float32, degrees) as one NaN-separated run.

Run from the repository root (numpy only; a few seconds)::

    .venv/bin/python scripts/build_coastlines.py
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

DATA = Path(__file__).resolve().parent.parent / "engine" / "data"
MASK = DATA / "land_mask_0.05deg.npz"
ASSET = DATA / "coastlines.npz"

# Marching-squares cases: corner bits (top-left 1, top-right 2, bottom-right 4, bottom-left 8) ->
# pairs of square edges (0 top, 1 right, 2 bottom, 3 left) joined by a segment. Saddles (5, 10)
# are resolved by the mean of the four corners (see _segments).
_CASES = {
    1: [(3, 0)],
    2: [(0, 1)],
    3: [(3, 1)],
    4: [(1, 2)],
    6: [(0, 2)],
    7: [(3, 2)],
    8: [(2, 3)],
    9: [(2, 0)],
    11: [(2, 1)],
    12: [(1, 3)],
    13: [(1, 0)],
    14: [(0, 3)],
}
_SADDLES = {5: ([(3, 2), (1, 0)], [(3, 0), (1, 2)]), 10: ([(0, 3), (2, 1)], [(0, 1), (2, 3)])}


def load_mask(path: Path = MASK) -> np.ndarray:
    """The shipped mask as bool, shape (3600, 7200): rows from 90 N southwards, columns from 180 W."""
    with np.load(path, allow_pickle=False) as data:
        shape = tuple(int(v) for v in data["shape"])
        return np.unpackbits(data["land_bits"], count=shape[0] * shape[1]).astype(bool).reshape(shape)


def land_fraction(land: np.ndarray, block: int) -> np.ndarray:
    """Share of land in each ``block x block`` group of cells, float32, shape (rows // block, cols // block)."""
    rows, cols = land.shape
    if rows % block or cols % block:
        raise ValueError(f"block {block} does not divide the mask shape {land.shape}")
    counts = land.reshape(rows // block, block, cols // block, block).sum(axis=(1, 3), dtype=np.int32)
    return (counts / float(block * block)).astype(np.float32)


def _segments(field: np.ndarray, level: float) -> list[tuple[tuple, tuple]]:
    """Marching-squares segments as pairs of edge keys ``("h"|"v", row, col)``.

    A horizontal key ``("h", i, j)`` is the edge from centre (i, j) to (i, j + 1); a
    vertical key ``("v", i, j)`` the edge from (i, j) to (i + 1, j). Neighbouring
    squares name a shared edge by the same key, which is what chains them.
    """
    above = field > level
    code = (above[:-1, :-1] * 1 + above[:-1, 1:] * 2 + above[1:, 1:] * 4 + above[1:, :-1] * 8).astype(np.int8)
    out = []
    for i, j in zip(*np.nonzero((code > 0) & (code < 15))):
        case = int(code[i, j])
        edge_keys = (("h", i, j), ("v", i, j + 1), ("h", i + 1, j), ("v", i, j))
        if case in _SADDLES:
            centre = field[i : i + 2, j : j + 2].mean()
            pairs = _SADDLES[case][0 if centre > level else 1]
        else:
            pairs = _CASES[case]
        out += [(edge_keys[a], edge_keys[b]) for a, b in pairs]
    return out


def _chain(segments: list[tuple[tuple, tuple]]) -> list[list[tuple]]:
    """Join segments sharing an edge key into polylines (closed rings repeat their first key)."""
    neighbours: dict[tuple, list[tuple]] = {}
    for a, b in segments:
        neighbours.setdefault(a, []).append(b)
        neighbours.setdefault(b, []).append(a)
    seen: set[frozenset] = set()
    lines = []

    def walk(start, first):
        line = [start]
        prev, cur = start, first
        seen.add(frozenset((start, first)))
        line.append(cur)
        while True:
            nxt = [k for k in neighbours[cur] if k != prev and frozenset((cur, k)) not in seen]
            if not nxt:
                return line
            prev, cur = cur, nxt[0]
            seen.add(frozenset((prev, cur)))
            line.append(cur)

    # Open lines first (from their ends: keys with one neighbour), then the rings.
    ends = [k for k, v in neighbours.items() if len(v) == 1]
    for key in ends + list(neighbours):
        for other in neighbours[key]:
            if frozenset((key, other)) not in seen:
                lines.append(walk(key, other))
    return lines


def _positions(line: list[tuple], field: np.ndarray, level: float) -> np.ndarray:
    """(row, col) fractional grid positions of a polyline's edge keys, shape (n, 2)."""
    out = np.empty((len(line), 2))
    for n, (kind, i, j) in enumerate(line):
        a = field[i, j]
        b = field[i, j + 1] if kind == "h" else field[i + 1, j]
        # Linear interpolation of the level crossing; a and b straddle the level, so b != a.
        t = (level - a) / (b - a)
        out[n] = (i, j + t) if kind == "h" else (i + t, j)
    return out


def douglas_peucker(points: np.ndarray, tolerance: float) -> np.ndarray:
    """Indices of the vertices kept by Douglas-Peucker simplification, sorted.

    Parameters
    ----------
    points : ndarray, shape (n, 2)
    tolerance : float
        Largest distance of a dropped vertex from the simplified line.
    """
    n = len(points)
    if n < 3:
        return np.arange(n)
    keep = np.zeros(n, dtype=bool)
    keep[0] = keep[-1] = True
    stack = [(0, n - 1)]
    while stack:
        lo, hi = stack.pop()
        if hi - lo < 2:
            continue
        seg = points[hi] - points[lo]
        rel = points[lo + 1 : hi] - points[lo]
        length = np.hypot(*seg)
        # A closed ring starts and ends at one point: measure distance to that point instead.
        dist = (
            np.abs(seg[0] * rel[:, 1] - seg[1] * rel[:, 0]) / length if length > 0 else np.hypot(rel[:, 0], rel[:, 1])
        )
        k = int(np.argmax(dist))
        if dist[k] > tolerance:
            mid = lo + 1 + k
            keep[mid] = True
            stack += [(lo, mid), (mid, hi)]
    return np.flatnonzero(keep)


def trace_coastlines(
    land: np.ndarray, resolution_deg: float, block: int, tolerance_deg: float, min_extent_deg: float
) -> list[np.ndarray]:
    """Coastlines of a land mask as (lat, lon) polylines in degrees.

    Parameters
    ----------
    land : ndarray of bool, shape (rows, cols)
        Rows from 90 N southwards, columns from 180 W eastwards, ``resolution_deg`` each.
    resolution_deg : float
    block : int
        Cells averaged per side before tracing.
    tolerance_deg : float
        Douglas-Peucker tolerance.
    min_extent_deg : float
        Polylines whose latitude and longitude spans are both below this are dropped.

    Returns
    -------
    list of ndarray, each of shape (n_i, 2): latitude, longitude in degrees
    """
    field = land_fraction(land, block)
    step = resolution_deg * block
    # Repeat the first column east of the last (the date line), and the edge rows beyond the poles,
    # so that no coast is cut open by the grid's border.
    field = np.concatenate([field, field[:, :1]], axis=1)
    field = np.concatenate([field[:1], field, field[-1:]], axis=0)
    level = 0.5
    lines = []
    for keys in _chain(_segments(field, level)):
        rc = _positions(keys, field, level)
        lat = 90.0 - (rc[:, 0] - 1 + 0.5) * step  # the first row is the padding above 90 N
        lon = -180.0 + (rc[:, 1] + 0.5) * step
        latlon = np.column_stack([np.clip(lat, -90.0, 90.0), lon])
        if np.ptp(latlon[:, 0]) < min_extent_deg and np.ptp(latlon[:, 1]) < min_extent_deg:
            continue
        lines.append(latlon[douglas_peucker(latlon, tolerance_deg)])
    return lines


def pack(lines: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """NaN-separated float32 latitude and longitude runs of polylines."""
    lat = np.concatenate([np.append(line[:, 0], np.nan) for line in lines])[:-1].astype(np.float32)
    lon = np.concatenate([np.append(line[:, 1], np.nan) for line in lines])[:-1].astype(np.float32)
    return lat, lon


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--block", type=int, default=5, help="mask cells averaged per side (5: 0.25 degrees)")
    parser.add_argument("--tolerance", type=float, default=0.15, help="Douglas-Peucker tolerance in degrees")
    parser.add_argument("--min-extent", type=float, default=1.0, help="smallest island or lake kept, degrees")
    parser.add_argument("--out", type=Path, default=ASSET)
    args = parser.parse_args(argv)
    with np.load(MASK, allow_pickle=False) as data:
        resolution = float(data["resolution_deg"])
    lines = trace_coastlines(load_mask(), resolution, args.block, args.tolerance, args.min_extent)
    lat, lon = pack(lines)
    np.savez_compressed(
        args.out,
        lat=lat,
        lon=lon,
        resolution_deg=np.float64(resolution * args.block),
        tolerance_deg=np.float64(args.tolerance),
        min_extent_deg=np.float64(args.min_extent),
        source=np.str_(
            "traced by scripts/build_coastlines.py from land_mask_0.05deg.npz (GLOBE via global-land-mask 1.0.0, MIT)"
        ),
    )
    n_vertices = int(np.isfinite(lat).sum())
    print(f"{len(lines)} polylines, {n_vertices} vertices, {args.out.stat().st_size / 1024:.0f} kB -> {args.out}")


if __name__ == "__main__":
    main()
