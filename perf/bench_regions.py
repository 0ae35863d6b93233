"""Speed of a region picture: grid, one predict call, boundaries and the Plotly figure, per view.

Goal (issue 5): a 150 x 150 grid computes and builds in about a second. For each
picture of the product demo (``H2 x S2 x S1 x S1 x E2``, a depth-8 product tree
and a 50-tree product forest) it prints the time of each stage and, as the
reference measured in the same run, the model's own ``predict_proba`` on the
same number of rows: the ratio says what the picture costs beyond predicting.

Usage::

    python perf/bench_regions.py [--resolution 150] [--repeat 3]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from curvedtrees import viz  # noqa: E402
from curvedtrees.sampling import make_classification  # noqa: E402
from curvedtrees.trees import ProductDecisionTreeClassifier, ProductRandomForestClassifier  # noqa: E402

SIGNATURE = "H2 x S2 x S1 x S1 x E2"


def best(function, repeat: int) -> tuple[float, object]:
    """Smallest wall time of ``repeat`` calls (after one warm-up) and the last result."""
    result = function()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        result = function()
        times.append(time.perf_counter() - start)
    return min(times), result


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--resolution", type=int, default=150)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)

    X, y = make_classification(SIGNATURE, n_samples=2000, n_classes=6, n_clusters=12, cov_scale=0.4, random_state=0)
    models = {
        "tree (depth 8)": ProductDecisionTreeClassifier(signature=SIGNATURE, max_depth=8, random_state=0).fit(X, y),
        "forest (50 trees)": ProductRandomForestClassifier(50, signature=SIGNATURE, max_depth=8, random_state=0).fit(
            X, y
        ),
    }
    reference = viz.reference_point(SIGNATURE, X, "mean")
    print(f"{SIGNATURE}, {len(X)} training rows, grid {args.resolution} x {args.resolution}, best of {args.repeat}")
    print(
        f"{'model':18s} {'view':8s} {'cells':>6s} {'grid+predict':>12s} {'boundaries':>10s} {'figure+json':>11s} "
        f"{'total':>7s} {'predict only':>12s} {'ratio':>6s}"
    )
    worst = 0.0
    for name, model in models.items():
        tree = model if hasattr(model, "tree_") else model.estimators_[0]
        for view in viz.available_views(SIGNATURE):
            bounds = viz.data_bounds(view, SIGNATURE, X) or None

            def regions(view=view, bounds=bounds, model=model):
                return viz.compute_regions(model, SIGNATURE, view, reference, args.resolution, bounds)

            t_regions, grid_regions = best(regions, args.repeat)
            grid = grid_regions.grid

            def curves(view=view, grid=grid, tree=tree):
                return viz.boundary_curves(tree, SIGNATURE, view, reference, grid)

            t_curves, found = best(curves, args.repeat)
            points = viz.PointLayer(viz.project_points(view, SIGNATURE, X), class_index=y)

            def figure(grid=grid, grid_regions=grid_regions, found=found, points=points):
                return viz.region_figure(grid, grid_regions, viz.Overlay(points=points, boundaries=found)).to_json()

            t_figure, _ = best(figure, args.repeat)
            rows = viz.product_rows(grid, reference)
            t_predict, _ = best(lambda rows=rows, model=model: model.predict_proba(rows), args.repeat)
            total = t_regions + t_curves + t_figure
            worst = max(worst, total)
            print(
                f"{name:18s} {view.kind:8s} {len(rows):6d} {t_regions:11.3f}s {t_curves:9.3f}s {t_figure:10.3f}s "
                f"{total:6.3f}s {t_predict:11.3f}s {total / t_predict:5.1f}x"
            )
    print(f"slowest picture: {worst:.3f} s (goal: about 1 s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
