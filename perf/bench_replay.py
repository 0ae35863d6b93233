"""Speed of the split replay: every frame of a depth-6 tree's replay, per picture kind.

Goal (issue 18): precomputing the frames of a depth-6 tree at the default resolution
(150) takes at most 2 s. For each picture of ``H2 x S2 x S1 x S1 x E2`` (the disk,
the Klein disk, the sphere, the circle, the torus and the plane) it prints, measured
in the same run:

* ``replay``: :func:`curvedtrees.viz.replay_regions`, the regions after every number
  of splits from one pass of the grid through the tree, then
  :func:`curvedtrees.viz.smooth_replay` (the crossings that draw smooth region edges on
  the sphere and the torus; ``smooth`` is its share);
* ``figure``: the Plotly figure with one animation frame per split count (regions,
  boundaries and node ids per frame) and its JSON, what the browser receives;
* ``per-k``: the reference, cutting the tree with ``first_splits`` and predicting the
  grid once per frame (what the server did on each step of the old slider);
* the JSON size in MB.

Usage::

    python perf/bench_replay.py [--resolution 150] [--repeat 3] [--depth 6]
"""

from __future__ import annotations

import argparse
import time

from curvedtrees import viz
from curvedtrees.sampling import make_classification
from curvedtrees.trees import ProductDecisionTreeClassifier

SIGNATURE = "H2 x S2 x S1 x S1 x E2"
GOAL_SECONDS = 2.0


def best(function, repeat: int) -> tuple[float, object]:
    """Smallest wall time of ``repeat`` calls (after one warm-up) and the last result."""
    result = function()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        result = function()
        times.append(time.perf_counter() - start)
    return min(times), result


def frame_styles(replay) -> list[dict]:
    """Every frame's splits, the newest highlighted (as the app draws them)."""
    out = []
    for frame in range(len(replay.steps)):
        styles = {int(n): "split" for n in replay.nodes(frame)}
        if replay.newest(frame) is not None:
            styles[replay.newest(frame)] = "newest"
        out.append(styles)
    return out


def measure(tree, view, X, reference, args) -> tuple[float, float, float, float, int]:
    """(replay s, of which smooth s, figure + JSON s, per-k reference s, JSON characters) of one picture."""
    grid = viz.view_grid(view, SIGNATURE, args.resolution, viz.data_bounds(view, SIGNATURE, X) or None)
    t_plain, plain = best(lambda: viz.replay_regions(tree, grid, reference), args.repeat)
    t_smooth, replay = best(lambda: viz.smooth_replay(tree, plain, reference), args.repeat)
    t_replay = t_plain + t_smooth
    curves = viz.boundary_curves(tree, SIGNATURE, view, reference, grid)
    styles = frame_styles(replay)

    def build():
        overlay = viz.Overlay(boundaries=curves, label_nodes=True)
        fig = viz.region_figure(grid, None, overlay, animation=replay.animation(styles))
        return fig.to_json()

    t_figure, text = best(build, args.repeat)
    t_per_k, _ = best(
        lambda: [
            viz.predict_regions(viz.first_splits(tree, int(k)).estimator, grid, reference, smooth=False)
            for k in replay.steps
        ],
        1,
    )
    return t_replay, t_smooth, t_figure, t_per_k, len(text)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--resolution", type=int, default=150)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--depth", type=int, default=6)
    args = parser.parse_args()

    X, y = make_classification(SIGNATURE, n_samples=4000, n_classes=6, n_clusters=12, cov_scale=0.4, random_state=0)
    tree = ProductDecisionTreeClassifier(signature=SIGNATURE, max_depth=args.depth, random_state=0).fit(X, y)
    n_splits = len(viz.split_order(tree))
    reference = viz.reference_point(SIGNATURE, X, "mean")
    views = [v for v in viz.available_views(SIGNATURE) if v.kind != "line"]
    views.insert(1, views[0].with_model("klein"))
    print(
        f"depth-{args.depth} tree, {n_splits} splits ({n_splits + 1} frames), resolution {args.resolution}, "
        f"best of {args.repeat}"
    )
    print(
        f"{'picture':<34} {'replay s':>9} {'smooth s':>9} {'figure s':>9} {'total s':>8} {'per-k s':>8} "
        f"{'per-k/replay':>13} {'JSON MB':>8}"
    )
    worst = 0.0
    for view in views:
        t_replay, t_smooth, t_figure, t_per_k, size = measure(tree, view, X, reference, args)
        total = t_replay + t_figure
        worst = max(worst, total)
        title = viz.describe_view(view, SIGNATURE)[0][:34]
        print(
            f"{title:<34} {t_replay:9.3f} {t_smooth:9.3f} {t_figure:9.3f} {total:8.3f} {t_per_k:8.3f} "
            f"{t_per_k / t_replay:13.1f} "
            f"{size / 1e6:8.2f}"
        )
    verdict = "met" if worst <= GOAL_SECONDS else "MISSED"
    print(f"slowest picture: {worst:.2f} s for replay + figure (goal <= {GOAL_SECONDS:.0f} s): {verdict}")


if __name__ == "__main__":
    main()
