"""Speed and payload of the world demos (issue 19): Landmasses and City temperatures opened cold.

For each demo recipe it times building the dataset, fitting the model (the first fit in
the process, which includes numba's compilation, and a second, warm one), and for each
world picture (globe, world map, turning globe) the grid prediction, the Plotly figure
and the size of its JSON (what the browser receives). For Landmasses it also prints the
share of the picture predicted as land next to the data's land share.

Goal: a speaker's first click on a demo computes in a few seconds on this 2-core machine
(fit + picture, before the browser draws), and no picture sends more than about 2 MB.

The machine is shared: the load average is printed with the numbers, and CPU seconds
beside wall seconds.

Usage::

    python perf/bench_world.py [--resolution 150]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
from curvedtrees import viz  # noqa: E402

from ui import data as appdata  # noqa: E402
from ui import pictures, training  # noqa: E402

# The app's own world demos, as the home page opens them.
DEMOS = {demo.title: (demo.data, demo.model) for demo in (appdata.DEMOS["landmass"], appdata.DEMOS["temperatures"])}


def timed(function, *args):
    """(wall seconds, CPU seconds of this process, result) of one call."""
    wall, cpu = time.perf_counter(), time.process_time()
    result = function(*args)
    return time.perf_counter() - wall, time.process_time() - cpu, result


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--resolution", type=int, default=150, help="grid cells per side (the home page's default)")
    args = parser.parse_args(argv)
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; resolution {args.resolution}")
    for name, (data_recipe, model_recipe) in DEMOS.items():
        wall, cpu, data = timed(appdata.build_dataset, data_recipe)
        print(f"\n{name}: {len(data.X):,} rows on {data.signature}; dataset built in {wall:.2f} s (CPU {cpu:.2f} s)")
        wall, cpu, model = timed(training.train_from_recipe, data, model_recipe)
        score = ", ".join(f"{k} {model.metrics[k]:.3f}" for k in ("accuracy", "f1_macro", "r2") if k in model.metrics)
        print(f"  first fit {wall:.2f} s (CPU {cpu:.2f} s, includes compiling); {score}")
        wall, cpu, model = timed(training.train_from_recipe, data, model_recipe)
        print(f"  warm fit  {wall:.2f} s (CPU {cpu:.2f} s)")
        for kind in ("sphere", "map", "ortho"):
            picture = pictures.Picture(viz.View(kind, (0,), (0, 1, 2)), "origin", 0, args.resolution)
            t_grid, c_grid, grid_regions = timed(pictures.regions_for, model.estimator, data, picture)
            t_fig, _, fig = timed(pictures.picture_figure, data, picture, model, grid_regions)
            t_json, _, text = timed(fig.to_json)
            line = (
                f"  {kind:<6} regions {t_grid:.2f} s (CPU {c_grid:.2f}), figure {t_fig:.2f} s, JSON {t_json:.2f} s "
                f"{len(text) / 1e6:.2f} MB, {len(fig.frames)} frames"
            )
            if data.task == "classification":
                land = list(grid_regions.regions.classes).index(1)
                share = float(np.mean(grid_regions.regions.class_index == land))
                line += f"; land {share:.3f} of the picture vs {float(np.mean(data.y == 1)):.3f} of the data"
            print(line)


if __name__ == "__main__":
    main()
