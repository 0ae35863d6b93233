"""Cost of a region picture beside scikit-learn: server CPU time and figure JSON, per view.

Goal (issue 25, item 3): a region picture of a 50-tree forest at 300 x 300 (the sphere, the
torus, the globe, the disk) costs the server at most 2x scikit-learn's predict on the same
cells, in CPU time, and sends at most 3 MB of figure JSON. For each picture it measures, in
one process and one run:

* the picture: the grid, the model's predictions over it and its smooth region edges
  (``viz.compute_regions``), then the Plotly figure and its JSON (``region_figure(...).to_json()``,
  with as many data points as the app draws, and the coastlines on the globe), as CPU time (``time.process_time``,
  best of ``--repeat`` after one warm-up);
* the reference: a ``sklearn.ensemble.RandomForestClassifier`` of as many trees, of the same
  depth, fitted on the same rows, predicting probabilities on the same cells, timed the same way;
* the JSON's size in MB;
* "predict only": the model's own ``predict_proba`` on those cells over scikit-learn's, the
  part of the ratio that is the forest's and not the picture's.

Pictures: the product demo (``H2 x S2 x S1 x S1 x E2``, 2,000 rows, 6 classes, depth 8) on
its disk, sphere and torus, and the Landmasses globe (S2, 20,000 rows, land or water, depth 12)
as the app draws it: the 3-D globe, the world map and the orthographic turning globe (the last
two grid twice as many cells, 300 x 600, in longitude).

Usage::

    python perf/bench_regions.py [--resolution 300] [--trees 50] [--repeat 3] [--only product|globe]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from curvedtrees import viz  # noqa: E402
from curvedtrees.datasets import load_dataset  # noqa: E402
from curvedtrees.datasets.geo import coastlines  # noqa: E402
from curvedtrees.sampling import make_classification  # noqa: E402
from curvedtrees.trees import ProductRandomForestClassifier  # noqa: E402
from sklearn.ensemble import RandomForestClassifier  # noqa: E402

from ui.pictures import MAX_POINTS  # noqa: E402

PRODUCT = "H2 x S2 x S1 x S1 x E2"
GOAL_RATIO, GOAL_MB = 2.0, 3.0


def best_cpu(function, repeat: int) -> tuple[float, object]:
    """Smallest CPU time of ``repeat`` calls (after one warm-up) and the last result."""
    result = function()
    times = []
    for _ in range(repeat):
        start = time.process_time()
        result = function()
        times.append(time.process_time() - start)
    return min(times), result


def cases(only: str | None = None):
    """(name, signature, X, y, max_depth, views, coastlines) of every picture measured."""
    X, y = make_classification(PRODUCT, n_samples=2000, n_classes=6, n_clusters=12, cov_scale=0.4, random_state=0)
    views = [v for v in viz.available_views(PRODUCT) if v.kind in ("disk", "sphere", "torus")]
    if only in (None, "product"):
        yield "product", PRODUCT, X, y, 8, views, None
    if only not in (None, "globe"):
        return
    land = load_dataset("landmasses", n_samples=20000, random_state=0)
    globes = [viz.View(kind, (0,), (0, 1, 2)) for kind in ("sphere", "map", "ortho")]
    yield "landmasses", "S2", land.X, land.y, 12, globes, coastlines()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--resolution", type=int, default=300)
    parser.add_argument("--trees", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--only", choices=("product", "globe"), help="measure these pictures only")
    args = parser.parse_args(argv)
    print(f"{args.trees}-tree forests, grid {args.resolution} x {args.resolution}, CPU time, best of {args.repeat}")
    print(
        f"{'picture':18s} {'cells':>6s} {'predict+edges':>13s} {'figure+json':>11s} {'total':>7s} "
        f"{'sklearn':>8s} {'ratio':>6s} {'JSON':>8s} {'predict only':>12s}"
    )
    worst_ratio = worst_mb = 0.0
    for name, signature, X, y, depth, views, coast in cases(args.only):
        model = ProductRandomForestClassifier(args.trees, signature=signature, max_depth=depth, random_state=0)
        model.fit(X, y)
        reference_forest = RandomForestClassifier(args.trees, max_depth=depth, random_state=0).fit(X, y)
        reference = viz.reference_point(signature, X, "mean")
        for view in views:
            bounds = viz.data_bounds(view, signature, X) or None

            def regions(view=view, bounds=bounds, model=model, signature=signature, reference=reference):
                return viz.compute_regions(model, signature, view, reference, args.resolution, bounds)

            t_regions, found = best_cpu(regions, args.repeat)
            points = viz.PointLayer(viz.project_points(view, signature, X), class_index=y)
            drawn = MAX_POINTS[{"sphere": "3d", "torus": "3d", "ortho": "ortho"}.get(view.kind, "flat")]
            points = points.take(viz.subsample(len(points), drawn))
            overlay = viz.Overlay(points=points, coastlines=coast)

            def figure(found=found, overlay=overlay):
                return viz.region_figure(found.grid, found, overlay).to_json()

            t_figure, text = best_cpu(figure, args.repeat)
            rows = viz.product_rows(found.grid, reference)
            t_sklearn, _ = best_cpu(lambda rows=rows, f=reference_forest: f.predict_proba(rows), args.repeat)
            t_ours, _ = best_cpu(lambda rows=rows, model=model: model.predict_proba(rows), args.repeat)
            total, mb = t_regions + t_figure, len(text) / 1e6
            label = f"{'globe' if coast is not None else name} {view.kind}"
            worst_ratio, worst_mb = max(worst_ratio, total / t_sklearn), max(worst_mb, mb)
            print(
                f"{label:18s} {len(rows):6d} {t_regions:12.3f}s {t_figure:10.3f}s {total:6.3f}s "
                f"{t_sklearn:7.3f}s {total / t_sklearn:5.2f}x {mb:6.2f}MB {t_ours / t_sklearn:9.2f}x"
            )
    print(
        f"worst: {worst_ratio:.2f}x scikit-learn (goal: at most {GOAL_RATIO:g}x), "
        f"{worst_mb:.2f} MB of JSON (goal: at most {GOAL_MB:g} MB)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
