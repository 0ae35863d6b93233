"""Split boundaries of one tree of a forest on the picture (issue 18): time and payload, capped and not.

A product forest's picture with "Boundaries of tree #0" switched on draws that tree's
split curves. A fully grown tree has thousands of splits; the picture draws at most
``viz.boundaries.MAX_BOUNDARY_CURVES`` of them (the splits that hold the most training
rows). For each case this script times building the figure (boundary curves included)
and its JSON (what Streamlit sends to the browser), and measures the JSON's size, with
the cap and, as the reference in the same run, without it. The grid prediction is the
same either way and is timed apart.

Cases: the Landmasses demo (32 fully grown trees on 15,000 training rows of S2, the
globe) and a 100-tree forest of depth 10 on a mixture on H2 (the Poincaré disk).

Goal: with the cap, a picture with boundaries builds and serialises in under 1 s more
than without boundaries, and sends at most a few MB.

Usage::

    python perf/bench_boundaries.py [--resolution 150] [--repeat 1]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from curvedtrees import viz  # noqa: E402

from ui import data as appdata  # noqa: E402
from ui import pictures, training  # noqa: E402

CASES = {
    "Landmasses demo, tree #0, globe": (
        appdata.DEMOS["landmass"].data,
        appdata.DEMOS["landmass"].model,
        viz.View("sphere", (0,), (0, 1, 2)),
    ),
    "100 trees of depth 10 on H2, tree #0, Poincaré disk": (
        appdata.synthetic_recipe("H2", 20000, 8, seed=0, cov_scale=0.5),
        {
            "family": "product_forest",
            "params": {"n_estimators": 100, "pairs": "base", "max_depth": 10, "min_samples_leaf": 1},
            "test_size": 0.25,
            "seed": 0,
        },
        viz.View("disk", (0,), (1, 2), "poincare"),
    ),
    "16 fully grown trees on a noisy mixture on H2, tree #0, Poincaré disk": (
        appdata.synthetic_recipe("H2", 20000, 8, seed=0, cov_scale=1.0),
        {
            "family": "product_forest",
            "params": {"n_estimators": 16, "pairs": "base", "max_depth": 0, "min_samples_leaf": 1},
            "test_size": 0.25,
            "seed": 0,
        },
        viz.View("disk", (0,), (1, 2), "poincare"),
    ),
}


def _whole(picture: dict) -> dict:
    return picture


def draw(data, picture, model, grid_regions, tree, budget: int, squeeze: bool) -> tuple[float, int, int]:
    """(seconds for the figure and its JSON, JSON bytes, curves drawn) with ``budget`` curves at most.

    ``squeeze=False`` keeps every sample of a clipped curve, NaN or not, as the code before the cap did.
    """
    saved = viz.boundaries.MAX_BOUNDARY_CURVES, viz.boundaries._squeeze
    viz.boundaries.MAX_BOUNDARY_CURVES = budget
    if not squeeze:
        viz.boundaries._squeeze = _whole
    try:
        start = time.perf_counter()
        layers = pictures.Layers(show_boundaries=True, tree=tree)
        fig = pictures.picture_figure(data, picture, model, grid_regions, layers=layers)
        text = fig.to_json()
        seconds = time.perf_counter() - start
    finally:
        viz.boundaries.MAX_BOUNDARY_CURVES, viz.boundaries._squeeze = saved
    n_curves = len(viz.boundary_curves(tree, data.signature, picture.view, picture.reference(data), max_curves=budget))
    return seconds, len(text), n_curves


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--resolution", type=int, default=150, help="grid cells per side (the Regions page's default)")
    parser.add_argument("--repeat", type=int, default=1, help="runs of each figure (the fastest is kept)")
    args = parser.parse_args(argv)
    cap = viz.boundaries.MAX_BOUNDARY_CURVES
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; resolution {args.resolution}; cap {cap}")
    for name, (data_recipe, model_recipe, view) in CASES.items():
        data = appdata.build_dataset(data_recipe)
        start = time.perf_counter()
        model = training.train_from_recipe(data, model_recipe)
        tree = pictures.boundary_tree(model, 0)
        n_splits = int((tree.tree_.children_left >= 0).sum())
        print(
            f"\n{name}: {len(data.X):,} rows, fit in {time.perf_counter() - start:.1f} s; "
            f"tree #0 has {n_splits:,} splits, depth {tree.get_depth()}"
        )
        picture = pictures.Picture(view, "origin", 0, args.resolution)
        start = time.perf_counter()
        grid_regions = pictures.regions_for(model.estimator, data, picture)
        print(f"  grid prediction (either way) {time.perf_counter() - start:.2f} s")
        start = time.perf_counter()
        bare = pictures.picture_figure(
            data, picture, model, grid_regions, layers=pictures.Layers(show_boundaries=False)
        )
        bare_seconds, bare_bytes = time.perf_counter() - start, len(bare.to_json())
        print(f"  without boundaries: {bare_seconds:.2f} s, JSON {bare_bytes / 1e6:.2f} MB")
        results = {}
        for label, budget, squeeze in (
            ("all splits, every sample (before)", 10**9, False),
            ("all splits, NaN runs squeezed", 10**9, True),
            (f"cap {cap}, squeezed (now)", cap, True),
        ):
            runs = [draw(data, picture, model, grid_regions, tree, budget, squeeze) for _ in range(max(args.repeat, 1))]
            seconds, size, n_curves = min(runs)
            results[label] = (seconds, size)
            print(f"  {label:<34} {n_curves:>6,} curves: {seconds:6.2f} s, JSON {size / 1e6:7.2f} MB")
        (s_all, b_all), _, (s_cap, b_cap) = results.values()
        print(f"  now / before: time {s_cap / s_all:.3f}x, JSON {b_cap / b_all:.3f}x")


if __name__ == "__main__":
    main()
