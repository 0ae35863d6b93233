"""Speed of the mixture sampler and of pairwise distances, with references from the same run.

* Sampling: ``make_classification("H2 x S2 x E2", n_samples=100_000)``; goal
  (issue 2): under one second. Reference: scikit-learn's Euclidean
  ``make_classification`` with the same rows, 8 features, 8 classes and 32
  clusters (4 per class).
* ``pdist`` of the product manifold (chunked, bounded memory) against SciPy's
  Euclidean ``cdist`` on the same ambient rows: the price of geodesic distances.

Usage::

    python perf/bench_sampling.py [--n 100000] [--repeat 5]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from curvedtrees.manifolds import ProductManifold  # noqa: E402
from curvedtrees.sampling import make_classification, make_regression  # noqa: E402
from scipy.spatial.distance import cdist  # noqa: E402
from sklearn.datasets import make_classification as sklearn_make_classification  # noqa: E402

SIGNATURE = "H2 x S2 x E2"


def best_time(function, repeat: int) -> float:
    """Smallest wall time of ``repeat`` calls (after one warm-up call)."""
    function()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=100_000, help="rows to sample (default 100000)")
    parser.add_argument("--repeat", type=int, default=5, help="timed repetitions, best kept (default 5)")
    parser.add_argument("--pdist-n", type=int, default=4_000, help="rows for the pairwise-distance timing")
    args = parser.parse_args()

    ours = best_time(lambda: make_classification(SIGNATURE, n_samples=args.n, random_state=0), args.repeat)
    regression = best_time(lambda: make_regression(SIGNATURE, n_samples=args.n, random_state=0), args.repeat)
    reference = best_time(
        lambda: sklearn_make_classification(
            n_samples=args.n,
            n_features=8,
            n_informative=8,
            n_redundant=0,
            n_classes=8,
            n_clusters_per_class=4,
            random_state=0,
        ),
        args.repeat,
    )
    verdict = "OK" if ours < 1.0 else "TOO SLOW"
    print(f"make_classification({SIGNATURE!r}, n_samples={args.n}): {ours * 1e3:.1f} ms  [goal < 1000 ms: {verdict}]")
    print(f"make_regression({SIGNATURE!r}, n_samples={args.n}):     {regression * 1e3:.1f} ms")
    print(f"scikit-learn make_classification (Euclidean, 8 features):  {reference * 1e3:.1f} ms")
    print(f"ratio ours / scikit-learn: {ours / reference:.2f}x")

    M = ProductManifold(SIGNATURE)
    X, _ = make_classification(SIGNATURE, n_samples=args.pdist_n, random_state=1)
    geodesic = best_time(lambda: M.pdist(X), max(1, args.repeat // 2))
    euclidean = best_time(lambda: cdist(X, X), max(1, args.repeat // 2))
    print(
        f"pdist {args.pdist_n} x {args.pdist_n} on {SIGNATURE!r}: {geodesic * 1e3:.0f} ms; "
        f"scipy cdist (Euclidean, same rows): {euclidean * 1e3:.0f} ms; ratio {geodesic / euclidean:.1f}x"
    )


if __name__ == "__main__":
    main()
