"""Boosted product trees: speed and memory against LightGBM and XGBoost, and accuracy.

Speed (issue 28's goals): ``ProductGradientBoostingClassifier`` on ``S2 x E2 x H2``
fits in at most LightGBM's CPU time and predicts in at most XGBoost's (``hist``), with
one thread and with all threads, at 10^5 and 10^6 rows. The peers fit the same rows
with the same real-valued features (the split-plane values of the product trees: 6
planes with ``pairs="base"``, 10 with ``splits="geodesic+radial"``; both settings are
measured by default, ``--splits`` picks one), the same iterations, leaves (31, leaf-wise),
bins (255), learning rate (0.1) and smallest leaf (20 rows; XGBoost has no row count
and keeps its ``min_child_weight``), no early stopping. Each side predicts the same
held-out rows (as many as the fit's). Fits alternate between the sides and each
keeps its fastest run, so that other processes on the machine slow all alike; CPU
seconds (``time.process_time``: every thread, spinning included) are the measure,
wall seconds are printed beside them.

Memory (goal: a fit adds at most 1.5x what LightGBM's adds, at 10^6 rows): every fit
runs in a fresh child process, fed ``.npy`` files; after a warm-up fit on 2,000 rows
the child resets its peak resident size (``/proc/self/clear_refs``), reads ``VmRSS``,
fits and reads ``VmHWM``: the difference is everything the fit allocates (numpy,
numba, the peers' C++ heaps, every thread's buffers), as ``perf/bench_memory.py``
measures forests.

Accuracy: the multi-curvature presets (the paper's Gaussian mixtures on the eight
4-dimensional signatures, 1,000 points, 8 classes, 80/20 split) for the boosted
product trees against the product random forest (the paper's parameters), the
Klein-wrapped HistGradientBoosting (H and E components only) and HistGradientBoosting
on ambient coordinates, every model at its defaults.

Usage::

    python perf/bench_boosting.py --skip-accuracy                   # speed at 1e5, threads 1 and all
    python perf/bench_boosting.py --skip-accuracy --sizes 100000 1000000 --memory
    python perf/bench_boosting.py --skip-speed --trials 20
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from curvedtrees.benchmarks.datasets import load_gaussian_mixture  # noqa: E402
from curvedtrees.benchmarks.models import product  # noqa: E402
from curvedtrees.benchmarks.presets import MULTI_CURVATURE_SIGNATURES  # noqa: E402
from curvedtrees.boosting import ProductGradientBoostingClassifier  # noqa: E402
from curvedtrees.klein import KleinTreeClassifier  # noqa: E402
from curvedtrees.manifolds import Signature  # noqa: E402
from curvedtrees.sampling import make_classification  # noqa: E402
from curvedtrees.trees import SplitFeatures  # noqa: E402
from curvedtrees.trees.kernels import SPLIT_MODES  # noqa: E402
from sklearn.ensemble import HistGradientBoostingClassifier  # noqa: E402

sys.path.insert(0, str(ROOT / "perf"))
from bench_memory import run_child  # noqa: E402
from sklearn.model_selection import train_test_split  # noqa: E402

SIGNATURE = "S2 x E2 x H2"
FIT_GOAL, PREDICT_GOAL, MEMORY_GOAL = 1.0, 1.0, 1.5
ALL_THREADS = os.cpu_count() or 1


def make_model(
    which: str, n_classes: int, iterations: int, threads: int, signature: str = SIGNATURE, splits: str = "geodesic"
):
    """One side of the comparison with the shared parameters (``splits``: ours only)."""
    if which == "ours":
        return ProductGradientBoostingClassifier(
            signature=signature, max_iter=iterations, max_leaf_nodes=31, max_bins=255, learning_rate=0.1,
            min_samples_leaf=20, early_stopping=False, random_state=0, splits=splits,
        )  # fmt: skip
    if which == "lightgbm":
        import lightgbm

        return lightgbm.LGBMClassifier(
            n_estimators=iterations, num_leaves=31, max_depth=-1, max_bin=255, learning_rate=0.1,
            min_child_samples=20, n_jobs=threads, random_state=0, verbose=-1,
        )  # fmt: skip
    import xgboost

    return xgboost.XGBClassifier(
        n_estimators=iterations, tree_method="hist", grow_policy="lossguide", max_leaves=31, max_depth=0,
        max_bin=255, learning_rate=0.1, n_jobs=threads, random_state=0,
    )  # fmt: skip


def set_threads(threads: int) -> None:
    """Threads for numba and every OpenMP / BLAS pool of this process."""
    import numba
    from threadpoolctl import threadpool_limits

    numba.set_num_threads(threads)
    threadpool_limits(threads)


def timed(fn):
    """Wall and CPU seconds of one call (CPU time sums the threads, spinning included)."""
    wall, cpu = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - wall, time.process_time() - cpu


PEERS = ("lightgbm", "xgboost")


def time_side(model, train, test, y, ours):
    """(wall, CPU) seconds of one fit and of one prediction of ``test``."""
    kwargs = {"check_input": False} if ours else {}
    fit = timed(lambda: model.fit(train, y, **kwargs))
    pred = timed(lambda: model.predict(test, **kwargs))
    return fit, pred


def peer_features(X, splits):
    """The peers' inputs: the values of our split planes (6 with ``"geodesic"``, 10 with radial ones)."""
    return SplitFeatures.from_signature(SIGNATURE, "base", splits).values(X).T.copy()


def bench_speed(sizes, n_classes_list, iterations, repeats, threads_list, splits_list):
    print(
        f"\n== Fit and predict, {SIGNATURE} (6 planes, 10 with radial splits), {iterations} iterations, "
        "31 leaves, 255 bins: CPU seconds (wall seconds) =="
    )
    print(
        f"{'splits':>15} {'threads':>7} {'n':>9} {'classes':>7} | {'fit ours':>14} {'LightGBM':>14} {'XGBoost':>14} "
        f"{'/LGBM':>6} | {'pred ours':>14} {'LightGBM':>14} {'XGBoost':>14} {'/XGB':>6}"
    )
    worst = {}
    for splits, threads in [(s, t) for s in splits_list for t in threads_list]:
        set_threads(threads)
        for n in sizes:
            for n_classes in n_classes_list:
                X, y = make_classification(SIGNATURE, n_samples=n, n_classes=n_classes, n_clusters=32, random_state=0)
                X_test, _ = make_classification(SIGNATURE, n_samples=n, n_classes=n_classes, random_state=1)
                F, F_test = peer_features(X, splits), peer_features(X_test, splits)
                models = {
                    which: make_model(which, n_classes, iterations, threads, splits=splits)
                    for which in ("ours", *PEERS)
                }
                models["ours"].fit(X[:2000], y[:2000])  # compiles (or loads) the kernels outside the timing
                fit = {which: [] for which in models}
                pred = {which: [] for which in models}
                for _ in range(repeats if n <= 100_000 else 1):
                    for which, model in models.items():
                        train, test = (X, X_test) if which == "ours" else (F, F_test)
                        fit_time, pred_time = time_side(model, train, test, y, which == "ours")
                        fit[which].append(fit_time)
                        pred[which].append(pred_time)
                fit = {k: min(v, key=lambda t: t[1]) for k, v in fit.items()}
                pred = {k: min(v, key=lambda t: t[1]) for k, v in pred.items()}
                fit_ratio = fit["ours"][1] / fit["lightgbm"][1]
                pred_ratio = pred["ours"][1] / pred["xgboost"][1]
                worst["fit"] = max(worst.get("fit", 0.0), fit_ratio)
                worst["predict"] = max(worst.get("predict", 0.0), pred_ratio)

                def cell(t):
                    return f"{t[1]:>6.2f} ({t[0]:>5.2f})"

                print(
                    f"{splits:>15} {threads:>7} {n:>9} {n_classes:>7} | {cell(fit['ours'])} {cell(fit['lightgbm'])} "
                    f"{cell(fit['xgboost'])} {fit_ratio:>6.2f} | {cell(pred['ours'])} {cell(pred['lightgbm'])} "
                    f"{cell(pred['xgboost'])} {pred_ratio:>6.2f}",
                    flush=True,
                )
    print(
        f"worst CPU-time ratios: fit / LightGBM {worst['fit']:.2f} (goal <= {FIT_GOAL:g}), "
        f"predict / XGBoost {worst['predict']:.2f} (goal <= {PREDICT_GOAL:g})"
    )


_CHILD = """
import json, sys
sys.path.insert(0, {root!r})
sys.path.insert(0, {perf!r})
import numpy as np
from bench_boosting import make_model, set_threads
set_threads({threads})
y = np.load({folder!r} + "/y.npy")
data = np.load({folder!r} + ("/X.npy" if {which!r} == "ours" else "/F.npy"))
kwargs = {{"check_input": False}} if {which!r} == "ours" else {{}}
def model():
    return make_model({which!r}, {classes}, {iterations}, {threads}, splits={splits!r})
model().fit(data[:2000], y[:2000], **kwargs)  # warm up
def fit():
    return model().fit(data, y, **kwargs)
"""


def measure_memory(which, folder, *, classes, iterations, threads, splits):
    """Inputs and peak memory one fit adds, in a fresh child process."""
    code = _CHILD.format(
        root=str(ROOT), perf=str(ROOT / "perf"), folder=folder, which=which, classes=classes,
        iterations=iterations, threads=threads, splits=splits,
    )  # fmt: skip
    return run_child(code, which)


def bench_memory(n, n_classes_list, iterations, threads_list, splits_list):
    print(f"\n== Peak memory a fit adds, n = {n:,}, {iterations} iterations (MB; inputs loaded before) ==")
    print(f"{'splits':>15} {'threads':>7} {'classes':>7} {'ours':>8} {'LightGBM':>8} {'XGBoost':>8} {'/LGBM':>6}")
    worst = 0.0
    for splits, n_classes in [(s, c) for s in splits_list for c in n_classes_list]:
        X, y = make_classification(SIGNATURE, n_samples=n, n_classes=n_classes, n_clusters=32, random_state=0)
        F = peer_features(X, splits)
        with tempfile.TemporaryDirectory() as folder:
            for name, array in (("X", X), ("F", F), ("y", y)):
                np.save(Path(folder) / f"{name}.npy", array)
            for threads in threads_list:
                added = {
                    which: measure_memory(
                        which, folder, classes=n_classes, iterations=iterations, threads=threads, splits=splits
                    )["added_mb"]
                    for which in ("ours", *PEERS)
                }
                ratio = added["ours"] / added["lightgbm"]
                worst = max(worst, ratio)
                print(
                    f"{splits:>15} {threads:>7} {n_classes:>7} {added['ours']:>8.0f} {added['lightgbm']:>8.0f} "
                    f"{added['xgboost']:>8.0f} {ratio:>6.2f}",
                    flush=True,
                )
    print(f"worst ratio of memory added by a fit / LightGBM {worst:.2f} (goal <= {MEMORY_GOAL:g})")


def _models(signature, seed):
    has_sphere = any(c.kind == "S" for c in Signature.parse(signature).components)
    models = {
        "Boosted (ours)": ProductGradientBoostingClassifier(signature=signature, pairs="all", random_state=seed),
        "Product RF": product("classification", signature, seed, forest=True),
        "Ambient HGB": HistGradientBoostingClassifier(random_state=seed),
    }
    if not has_sphere:
        models["Klein HGB"] = KleinTreeClassifier(
            HistGradientBoostingClassifier(random_state=seed), signature=signature
        )
    return models


def bench_accuracy(signatures, trials):
    print(f"\n== Accuracy on the multi-curvature presets ({trials} trials, 1000 points, 8 classes, 80/20) ==")
    names = ["Boosted (ours)", "Product RF", "Klein HGB", "Ambient HGB"]
    header = " ".join(f"{name:>16}" for name in names)
    print(f"{'signature':>10} {header} {'ours - RF':>14} {'ours - other':>14}")
    diffs_rf, table = [], {}
    for signature in signatures:
        scores = {name: [] for name in names}
        for trial in range(trials):
            data = load_gaussian_mixture(trial, signature, "classification")
            X_train, X_test, y_train, y_test = train_test_split(data.X, data.y, test_size=0.2, random_state=trial)
            for name, model in _models(signature, trial).items():
                scores[name].append(model.fit(X_train, y_train).score(X_test, y_test))
        table[signature] = scores
        ours = np.asarray(scores["Boosted (ours)"])
        d_rf = ours - np.asarray(scores["Product RF"])
        other = "Klein HGB" if scores["Klein HGB"] else "Ambient HGB"
        d_other = ours - np.asarray(scores[other])
        diffs_rf.append(d_rf.mean())

        def cell(values):
            if not values:
                return f"{'-':>16}"
            v = np.asarray(values)
            return f"{v.mean():>9.3f} +-{1.96 * v.std(ddof=1) / np.sqrt(v.size) if v.size > 1 else 0:.3f}"

        def diff(v):
            return f"{v.mean():>+7.3f} +-{1.96 * v.std(ddof=1) / np.sqrt(v.size) if v.size > 1 else 0:.3f}"

        print(
            f"{signature:>10} "
            + " ".join(cell(scores[name]) for name in names)
            + f" {diff(d_rf):>14} {diff(d_other):>14}",
            flush=True,
        )
    means = {name: np.mean([np.mean(table[s][name]) for s in signatures if table[s][name]]) for name in names}
    print(
        "mean over signatures: "
        + ", ".join(f"{name} {value:.3f}" for name, value in means.items())
        + " (Klein HGB: only the signatures without S)"
    )
    print(
        f"ours - product RF, mean over signatures: {np.mean(diffs_rf):+.3f}  ('ours - other' compares with "
        "Klein HGB where there is no S component, else with ambient HGB; +- is a 95% interval over trials)"
    )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100_000], help="row counts of the speed runs")
    parser.add_argument("--iterations", type=int, default=50, help="boosting iterations in the speed runs")
    parser.add_argument("--repeats", type=int, default=3, help="runs per side up to 1e5 rows (one above)")
    parser.add_argument("--classes", type=int, nargs="+", default=[2, 8], help="class counts in the speed runs")
    parser.add_argument(
        "--threads", type=int, nargs="+", default=sorted({1, ALL_THREADS}), help="thread counts (default: 1 and all)"
    )
    parser.add_argument(
        "--splits",
        nargs="+",
        default=list(SPLIT_MODES),
        choices=SPLIT_MODES,
        help="our models' splits in the speed and memory runs (default: both)",
    )
    parser.add_argument("--memory", action="store_true", help="also measure the memory a fit adds")
    parser.add_argument("--memory-rows", type=int, default=1_000_000)
    parser.add_argument("--trials", type=int, default=5, help="trials per signature in the accuracy runs")
    parser.add_argument("--signatures", nargs="+", default=list(MULTI_CURVATURE_SIGNATURES))
    parser.add_argument("--skip-speed", action="store_true")
    parser.add_argument("--skip-accuracy", action="store_true")
    args = parser.parse_args(argv)
    if not args.skip_speed:
        bench_speed(args.sizes, args.classes, args.iterations, args.repeats, args.threads, args.splits)
    if args.memory:
        bench_memory(args.memory_rows, args.classes, args.iterations, args.threads, args.splits)
    if not args.skip_accuracy:
        set_threads(ALL_THREADS)
        bench_accuracy(args.signatures, args.trials)


if __name__ == "__main__":
    main()
