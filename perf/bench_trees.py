"""Speed and memory of product trees and forests, as ratios to scikit-learn in the same run.

The reference is scikit-learn fitting the same rows with the same number of
real-valued features (the split-plane values of the product tree), so both sides
search the same number of candidate features per node.

Goals (issue 3): fit <= 1.5x, predict <= 2x scikit-learn's DecisionTreeClassifier;
forests <= 1.5x RandomForestClassifier with the same n_jobs and faster with
n_jobs=2 than 1; peak memory of a tree fit at n = 1e6 <= 2x scikit-learn's (a
forest's: perf/bench_memory.py). Also printed: the
speed-up over the public implementation's published ~26 CPU-seconds for a depth-5
tree on 8,000 rows of S2 x E2 x H2.

Usage::

    python perf/bench_trees.py            # n = 1e4, 1e5, 1e6 (several minutes)
    python perf/bench_trees.py --quick    # n = 1e4, 1e5
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from functools import partial
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from curvedtrees.sampling import make_classification  # noqa: E402
from curvedtrees.trees import ProductDecisionTreeClassifier, ProductRandomForestClassifier  # noqa: E402
from sklearn.ensemble import RandomForestClassifier  # noqa: E402
from sklearn.tree import DecisionTreeClassifier  # noqa: E402

SIGNATURE = "S2 x E2 x H2"
PUBLISHED_REFERENCE_SECONDS = 26.0  # manify ProductSpaceDT, depth 5, n = 8000 (reference-implementations.md)


def best_of(repeats, fn):
    """Smallest wall time of ``repeats`` calls (the least disturbed by other processes)."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def data(n, seed=0):
    return make_classification(SIGNATURE, n_samples=n, n_classes=8, n_clusters=32, random_state=seed)


def bench_trees(sizes):
    print(f"\n== Decision trees, {SIGNATURE}, 8 classes: fit and predict time, ours / scikit-learn ==")
    print(
        f"{'n':>9} {'pairs':>5} {'depth':>5} {'fit ours':>9} {'fit sk':>9} {'ratio':>6} "
        f"{'pred ours':>9} {'pred sk':>9} {'ratio':>6}"
    )
    worst_fit, worst_pred = 0.0, 0.0
    for n in sizes:
        X, y = data(n)
        X_test, _ = data(min(n, 100_000), seed=1)
        repeats = 3 if n <= 100_000 else 1
        for pairs in ("base", "all"):
            ours = ProductDecisionTreeClassifier(signature=SIGNATURE, pairs=pairs, random_state=0)
            features = ours.fit(X[:100], y[:100]).split_features_
            F, F_test = features.values(X).T.copy(), features.values(X_test).T.copy()
            for depth in (5, None):
                ours.set_params(max_depth=depth)
                ref = DecisionTreeClassifier(max_depth=depth, random_state=0)
                fit_ours = best_of(repeats, partial(ours.fit, X, y, check_input=False))
                fit_ref = best_of(repeats, partial(ref.fit, F, y))
                pred_ours = best_of(repeats, partial(ours.predict, X_test, check_input=False))
                pred_ref = best_of(repeats, partial(ref.predict, F_test))
                worst_fit = max(worst_fit, fit_ours / fit_ref)
                worst_pred = max(worst_pred, pred_ours / pred_ref)
                print(
                    f"{n:>9} {pairs:>5} {depth!s:>5} {fit_ours:>8.3f}s {fit_ref:>8.3f}s {fit_ours / fit_ref:>6.2f} "
                    f"{pred_ours:>8.4f}s {pred_ref:>8.4f}s {pred_ours / pred_ref:>6.2f}"
                )
    print(f"worst fit ratio {worst_fit:.2f} (goal <= 1.5), worst predict ratio {worst_pred:.2f} (goal <= 2)")


def bench_published():
    X, y = data(10_000)
    X, y = X[:8000], y[:8000]
    tree = ProductDecisionTreeClassifier(signature=SIGNATURE, max_depth=5, random_state=0)
    start = time.process_time()
    tree.fit(X, y)
    cpu = time.process_time() - start
    print(
        f"\n== Against the public implementation's published number (depth 5, n = 8000) ==\n"
        f"ours {cpu:.4f} CPU-s vs ~{PUBLISHED_REFERENCE_SECONDS:.0f} CPU-s published: "
        f"{PUBLISHED_REFERENCE_SECONDS / cpu:,.0f}x faster (goal: three orders of magnitude)"
    )


def bench_forests():
    print("\n== Random forests (max_features='sqrt', bootstrap), ours / scikit-learn, same n_jobs ==")
    print(f"{'n':>7} {'trees':>5} {'depth':>5} {'jobs':>4} {'ours':>8} {'sk':>8} {'ratio':>6}")
    for n, n_trees, depth in ((100_000, 12, 5), (100_000, 12, None), (10_000, 100, None)):
        X, y = data(n)
        features = ProductDecisionTreeClassifier(signature=SIGNATURE).fit(X[:100], y[:100]).split_features_
        F = features.values(X).T.copy()
        timings = {}
        for jobs in (1, 2):
            ours = ProductRandomForestClassifier(
                n_trees, signature=SIGNATURE, max_depth=depth, n_jobs=jobs, random_state=0
            )
            ref = RandomForestClassifier(n_trees, max_depth=depth, n_jobs=jobs, random_state=0)
            t_ours = best_of(2, partial(ours.fit, X, y, check_input=False))
            t_ref = best_of(2, partial(ref.fit, F, y))
            timings[jobs] = t_ours
            print(f"{n:>7} {n_trees:>5} {depth!s:>5} {jobs:>4} {t_ours:>7.2f}s {t_ref:>7.2f}s {t_ours / t_ref:>6.2f}")
        print(f"{'':>24}n_jobs=2 speed-up over n_jobs=1: {timings[1] / timings[2]:.2f}x")


_MEMORY_CHILD = """
import json, sys
sys.path.insert(0, {root!r})
import numpy as np
from curvedtrees.trees import ProductDecisionTreeClassifier
from sklearn.tree import DecisionTreeClassifier
y = np.load({folder!r} + "/y.npy")
if {which!r} == "ours":
    X = np.load({folder!r} + "/X.npy")
    # Compile on a few rows before measuring (numba's caches are loaded here too).
    ProductDecisionTreeClassifier(signature={sig!r}, pairs="all").fit(X[:200], y[:200])
    inputs = X.nbytes + y.nbytes
else:
    F = np.load({folder!r} + "/F.npy")
    DecisionTreeClassifier().fit(F[:200], y[:200])
    inputs = F.nbytes + y.nbytes
model = ProductDecisionTreeClassifier(signature={sig!r}, pairs="all", max_depth=5)
def status_kb(field):
    for line in open("/proc/self/status"):
        if line.startswith(field + ":"):
            return int(line.split()[1])
# Reset the peak (VmHWM) so that it measures this fit only, not imports or compilation.
with open("/proc/self/clear_refs", "w") as handle:
    handle.write("5")
before = status_kb("VmRSS")
if {which!r} == "ours":
    model.fit(X, y)
else:
    DecisionTreeClassifier(max_depth=5).fit(F, y)
peak = status_kb("VmHWM")
print(json.dumps({{"input_mb": inputs / 2**20, "peak_growth_mb": (peak - before) / 1024}}))
"""


def bench_memory(n):
    """Peak resident memory added by one fit, each library in a fresh process.

    The data is generated here and handed over in files; the child resets its peak
    resident size (Linux VmHWM) right before the fit, so the peak measures what the fit
    adds (numba's allocations included, which tracemalloc would miss).
    """
    import tempfile

    print(f"\n== Peak memory added by fit at n = {n:,} (pairs='all', depth 5), separate processes ==")
    X, y = data(n)
    model = ProductDecisionTreeClassifier(signature=SIGNATURE, pairs="all").fit(X[:100], y[:100])
    F = model.split_features_.values(X).T.copy()
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, array in (("X", X), ("F", F), ("y", y)):
            np.save(Path(tmp) / f"{name}.npy", array)
        del X, F
        for which in ("ours", "sklearn"):
            code = _MEMORY_CHILD.format(root=str(ROOT), sig=SIGNATURE, folder=tmp, which=which)
            out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
            results[which] = json.loads(out.stdout.strip().splitlines()[-1])
            print(
                f"{which:>8}: inputs {results[which]['input_mb']:.0f} MB, added by fit "
                f"{results[which]['peak_growth_mb']:.0f} MB"
            )
    total = {k: v["input_mb"] + v["peak_growth_mb"] for k, v in results.items()}
    print(
        f"inputs + fit: ours {total['ours']:.0f} MB, scikit-learn {total['sklearn']:.0f} MB, "
        f"ratio {total['ours'] / total['sklearn']:.2f} (goal <= 2)"
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="skip n = 1e6")
    parser.add_argument("--only", choices=("published", "trees", "forests", "memory"), help="run one section")
    args = parser.parse_args()
    sizes = (10_000, 100_000) if args.quick else (10_000, 100_000, 1_000_000)
    # Compile once so no timing includes numba's first-call compilation.
    X, y = data(500)
    ProductDecisionTreeClassifier(signature=SIGNATURE, pairs="all").fit(X, y).predict(X)
    sections = {
        "published": bench_published,
        "trees": lambda: bench_trees(sizes),
        "forests": bench_forests,
        "memory": lambda: bench_memory(sizes[-1]),
    }
    for name, run in sections.items():
        if args.only in (None, name):
            run()


if __name__ == "__main__":
    main()
