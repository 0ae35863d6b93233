"""Speed of prediction: product forests and trees against scikit-learn, and heavy region pictures.

Every ratio divides our time by scikit-learn's on the same rows with the same number
of real-valued features (the ambient coordinates), measured in the same run, so the
load of a shared machine cancels out. Goals (issue 19, "Heavy regions fast"):

* forest ``predict_proba`` at most 2x scikit-learn's ``RandomForestClassifier`` at the
  same ``n_jobs``;
* a depth-5 tree's ``predict`` with the default input checks (``check_input=True``:
  finite and on the manifold) at most 2x scikit-learn's tree;
* a 50-tree forest on 20,000 points of S2, a 300 x 300 sphere picture (grid and
  predictions) in at most 2 s; a 100-tree forest over 10^6 grid points in at most 5 s.

The old per-tree path (every tree's ``tree_.predict``, summed) is timed as well, to
show what the compiled forest kernel gains.

Usage::

    python perf/bench_predict.py [--n-jobs 1 2] [--repeat 3] [--quick]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from curvedtrees import viz  # noqa: E402
from curvedtrees.sampling import make_classification  # noqa: E402
from curvedtrees.trees import ProductDecisionTreeClassifier, ProductRandomForestClassifier  # noqa: E402
from sklearn.ensemble import RandomForestClassifier  # noqa: E402
from sklearn.tree import DecisionTreeClassifier  # noqa: E402


def best(*functions, repeat: int) -> list[float]:
    """Smallest wall time of each function over ``repeat`` rounds, after one untimed call each.

    The functions take turns within every round, so a change in the machine's load
    (other users of a shared machine) reaches all of them alike.
    """
    for function in functions:
        function()
    times = [[] for _ in functions]
    for _ in range(repeat):
        for function, spent in zip(functions, times):
            start = time.perf_counter()
            function()
            spent.append(time.perf_counter() - start)
    return [min(spent) for spent in times]


def per_tree(forest, X):
    """The old forest path: every tree's leaf values, summed one array per tree."""
    return np.sum([tree.tree_.predict(X) for tree in forest.estimators_], axis=0) / len(forest.estimators_)


def forest_section(args) -> tuple:
    signature = "S2 x E2 x H2"
    X, y = make_classification(signature, n_samples=args.train + args.rows, n_classes=8, random_state=0)
    train, rows = slice(0, args.train), slice(args.train, None)
    ours = ProductRandomForestClassifier(args.trees, signature=signature, n_jobs=2, random_state=0).fit(
        X[train], y[train]
    )
    theirs = RandomForestClassifier(args.trees, n_jobs=2, random_state=0).fit(X[train], y[train])
    Xr = np.ascontiguousarray(X[rows])
    print(
        f"\n== forest predict_proba: {args.trees} trees (unlimited depth) fitted on {args.train:,} rows of "
        f"{signature} ({X.shape[1]} features), predicting {len(Xr):,} rows, 8 classes, best of {args.repeat}"
    )
    print(f"{'n_jobs':>6s} {'ours':>8s} {'sklearn':>8s} {'ratio':>6s} {'old per-tree path':>18s}")
    ratios = []
    for n_jobs in args.n_jobs:
        ours.set_params(n_jobs=n_jobs)
        theirs.set_params(n_jobs=n_jobs)
        if n_jobs == 1:
            t_ours, t_sk, t_old = best(
                lambda: ours.predict_proba(Xr),
                lambda: theirs.predict_proba(Xr),
                lambda: per_tree(ours, Xr),
                repeat=args.repeat,
            )
        else:
            (t_ours, t_sk), t_old = (
                best(lambda: ours.predict_proba(Xr), lambda: theirs.predict_proba(Xr), repeat=args.repeat),
                float("nan"),
            )
        ratios.append(t_ours / t_sk)
        old = f"{t_old:17.3f}s" if np.isfinite(t_old) else f"{'-':>18s}"
        print(f"{n_jobs:6d} {t_ours:7.3f}s {t_sk:7.3f}s {t_ours / t_sk:5.2f}x {old}")
    return ratios, (ours, theirs, X[train])


def tree_section(args) -> list[float]:
    signature = "S2 x E2 x H2"
    X, y = make_classification(signature, n_samples=2 * args.tree_rows, n_classes=8, random_state=1)
    fit, rows = slice(0, args.tree_rows), slice(args.tree_rows, None)
    ours = ProductDecisionTreeClassifier(signature=signature, max_depth=5, random_state=0).fit(X[fit], y[fit])
    theirs = DecisionTreeClassifier(max_depth=5, random_state=0).fit(X[fit], y[fit])
    Xr = np.ascontiguousarray(X[rows])
    t_default, t_unchecked, t_sk = best(
        lambda: ours.predict(Xr),
        lambda: ours.predict(Xr, check_input=False),
        lambda: theirs.predict(Xr),
        repeat=args.repeat * 3,
    )
    print(f"\n== depth-5 tree predict, {len(Xr):,} rows of {signature}, best of {args.repeat * 3}")
    print(f"default (check_input=True): {1e3 * t_default:7.2f} ms  {t_default / t_sk:5.2f}x sklearn")
    print(f"check_input=False:          {1e3 * t_unchecked:7.2f} ms  {t_unchecked / t_sk:5.2f}x sklearn")
    print(f"sklearn:                    {1e3 * t_sk:7.2f} ms")
    return [t_default / t_sk]


def regions_section(args, big) -> list[float]:
    print(
        f"\n== region pictures (grid + one predict_proba), n_jobs={max(args.n_jobs)}, best of {args.repeat}; "
        "sklearn: its forest fitted on the same points predicting the same rows"
    )
    print(f"{'picture':44s} {'cells':>9s} {'ours':>8s} {'goal':>5s} {'sklearn':>8s} {'ratio':>6s}")
    signature = "S2"
    X, y = make_classification(signature, n_samples=args.region_train, n_classes=6, random_state=0)
    n_jobs = max(args.n_jobs)
    forest = ProductRandomForestClassifier(50, signature=signature, n_jobs=n_jobs, random_state=0).fit(X, y)
    sk = RandomForestClassifier(50, n_jobs=n_jobs, random_state=0).fit(X, y)
    view = viz.available_views(signature)[0]
    reference = viz.reference_point(signature, X, "mean")
    bounds = viz.data_bounds(view, signature, X) or None
    cases = [
        (
            f"50 trees, {args.region_train:,} points, S2 sphere {args.resolution}^2",
            forest,
            sk,
            signature,
            view,
            reference,
            args.resolution,
            bounds,
            2.0,
        )
    ]
    big_signature = "S2 x E2 x H2"
    big_view = viz.available_views(big_signature)[0]
    big_forest, big_sk, big_X = big
    big_reference = viz.reference_point(big_signature, big_X, "mean")
    big_forest.set_params(n_jobs=n_jobs)
    big_sk.set_params(n_jobs=n_jobs)
    cases.append(
        (
            f"{args.trees} trees, {big_signature}, {big_view.kind} {args.big_resolution}^2",
            big_forest,
            big_sk,
            big_signature,
            big_view,
            big_reference,
            args.big_resolution,
            None,
            5.0,
        )
    )
    times = []
    for name, model, reference_model, sig, v, ref, resolution, b, goal in cases:
        grid = viz.view_grid(v, sig, resolution, b)
        rows = viz.product_rows(grid, ref)
        t_ours, t_sk = best(
            lambda model=model, sig=sig, v=v, ref=ref, resolution=resolution, b=b: viz.compute_regions(
                model, sig, v, ref, resolution, b
            ),
            lambda reference_model=reference_model, rows=rows: reference_model.predict_proba(rows),
            repeat=args.repeat,
        )
        times.append(t_ours / goal)
        print(f"{name:44s} {len(rows):9,d} {t_ours:7.3f}s {goal:4.0f}s {t_sk:7.3f}s {t_ours / t_sk:5.2f}x")
    return times


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-jobs", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--trees", type=int, default=100, help="trees of the forest predict and 10^6-cell cases")
    parser.add_argument("--train", type=int, default=10_000, help="training rows of that forest")
    parser.add_argument("--rows", type=int, default=200_000, help="rows the forests predict")
    parser.add_argument("--tree-rows", type=int, default=100_000)
    parser.add_argument("--region-train", type=int, default=20_000)
    parser.add_argument("--resolution", type=int, default=300)
    parser.add_argument("--big-resolution", type=int, default=1000, help="1000 -> 10^6 grid points")
    parser.add_argument("--quick", action="store_true", help="small sizes, to check the script runs")
    args = parser.parse_args(argv)
    if args.quick:
        args.trees, args.train, args.rows, args.tree_rows = 10, 2000, 20_000, 10_000
        args.region_train, args.resolution, args.big_resolution, args.repeat = 2000, 100, 200, 1

    forest_ratios, big = forest_section(args)
    tree_ratios = tree_section(args)
    region_shares = regions_section(args, big)
    print("\n== summary")
    print(f"forest predict: {min(forest_ratios):.2f}-{max(forest_ratios):.2f}x sklearn (goal <= 2x)")
    print(f"tree predict with default checks: {tree_ratios[0]:.2f}x sklearn (goal <= 2x)")
    print(f"region pictures: {max(region_shares):.2f} of their time goals at most (goal <= 1)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
