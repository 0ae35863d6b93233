"""Fit time of the Klein wrappers against the wrapped library's own fit, in one run.

For each backend, the wrapper's fit includes everything it does (input checks,
conversion to Klein features, the library's fit, and the maximum-margin threshold
correction). The ratio divides each wrapper fit by the library fit inside it (the
library's ``fit`` is timed during the wrapper's), the median over ``--repeats``
runs: on a shared 2-core machine the libraries' own fit times swing by up to 30%
between runs, which a separately timed reference would put into the ratio. A
separate fit of the library on the precomputed features is timed too (best of the
runs) and printed for reference. The goal (issue 4): ratio <= 1.3 at n = 100,000.

The correction's cost depends on the trees (depth, node sizes) and not on the
number of features, while the libraries' fits grow with it; ``--signatures`` runs
several signatures (the Fast-HyperDT paper's grid is H2 ... H128, 8 classes) and
prints a summary of the ratios.

Usage::

    .venv/bin/python perf/bench_klein.py                  # all backends, H4 x E2, n = 100000
    .venv/bin/python perf/bench_klein.py --n-samples 20000 --backends decision_tree xgboost
    .venv/bin/python perf/bench_klein.py --signatures H2 H4 H8 H16 "H4 x E2" --repeats 3 \
        --backends decision_tree random_forest extra_trees hist_gradient_boosting xgboost lightgbm
"""

from __future__ import annotations

import argparse
import contextlib
import pathlib
import sys
import time
import warnings

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

import numpy as np
from curvedtrees.klein import KleinCorrectionWarning, KleinTreeClassifier, klein_features
from curvedtrees.klein._backends import correct_estimator
from curvedtrees.klein._features import KleinLayout
from curvedtrees.manifolds import Signature
from curvedtrees.sampling import make_classification
from sklearn.base import clone


def backends(n_jobs: int):
    """Library models as they would be used (forest sizes kept modest so the script runs in minutes)."""
    from sklearn.ensemble import (
        ExtraTreesClassifier,
        GradientBoostingClassifier,
        HistGradientBoostingClassifier,
        RandomForestClassifier,
    )
    from sklearn.tree import DecisionTreeClassifier

    models = {
        "decision_tree": DecisionTreeClassifier(random_state=0),
        "random_forest": RandomForestClassifier(n_estimators=50, n_jobs=n_jobs, random_state=0),
        "extra_trees": ExtraTreesClassifier(n_estimators=50, n_jobs=n_jobs, random_state=0),
        "gradient_boosting": GradientBoostingClassifier(n_estimators=20, max_depth=3, random_state=0),
        "hist_gradient_boosting": HistGradientBoostingClassifier(max_iter=100, early_stopping=False, random_state=0),
    }
    try:
        import xgboost

        models["xgboost"] = xgboost.XGBClassifier(n_estimators=100, max_depth=6, n_jobs=n_jobs, random_state=0)
    except ImportError:
        print("xgboost not installed: skipped (pip install xgboost)")
    try:
        import lightgbm

        models["lightgbm"] = lightgbm.LGBMClassifier(n_estimators=100, n_jobs=n_jobs, random_state=0, verbose=-1)
    except ImportError:
        print("lightgbm not installed: skipped (pip install lightgbm)")
    return models


def _time(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


@contextlib.contextmanager
def _timing_fit(cls, record: list):
    """Append to ``record`` the duration of every ``cls.fit`` call made inside the block."""
    own = cls.__dict__.get("fit")
    inherited = cls.fit

    def fit(self, *args, **kwargs):
        start = time.perf_counter()
        try:
            return inherited(self, *args, **kwargs)
        finally:
            record.append(time.perf_counter() - start)

    cls.fit = fit
    try:
        yield
    finally:
        if own is None:
            del cls.fit
        else:
            cls.fit = own


def run_signature(signature, args):
    """Print one signature's table; return {backend: ratio}."""
    X, y = make_classification(signature, n_samples=args.n_samples, random_state=0)
    features = klein_features(X, signature)
    layout = KleinLayout(Signature.parse(signature))
    ambient = layout.to_hyperboloid(X)
    hyperbolic = layout.hyperbolic_block(ambient)
    models = backends(args.n_jobs)
    names = args.backends or list(models)
    # Compile the correction once (numba caches to disk; the first run of a fresh
    # checkout would otherwise charge compilation to the first backend).
    KleinTreeClassifier(signature=signature).fit(X[:500], y[:500])

    print(
        f"signature {signature}, n = {args.n_samples}, {features.shape[1]} features, {np.unique(y).size} classes, "
        f"{args.repeats} runs, n_jobs = {args.n_jobs}"
    )
    print(
        f"{'backend':<24}{'library fit (s)':>16}{'wrapper fit (s)':>16}{'inside it (s)':>15}{'ratio':>8}"
        f"{'correction (s)':>16}{'moved':>10}"
    )
    ratios = {}
    for name in names:
        model = models[name]
        reference, wrapped, correction = np.inf, np.inf, np.inf
        run_ratios, inner_fits = [], []
        wrapper = None
        for _ in range(args.repeats):
            library = clone(model)
            reference = min(reference, _time(lambda library=library: library.fit(features, y)))
            # The correction alone, on the model just fitted (the part the wrapper adds).
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", KleinCorrectionWarning)
                correction = min(
                    correction,
                    _time(
                        lambda library=library: correct_estimator(
                            library, features, hyperbolic, layout.feat_x0, layout.feat_radius
                        )
                    ),
                )
            wrapper = KleinTreeClassifier(clone(model), signature=signature)
            inner = []
            with warnings.catch_warnings(), _timing_fit(type(model), inner):
                warnings.simplefilter("ignore", KleinCorrectionWarning)
                total = _time(lambda wrapper=wrapper: wrapper.fit(X, y))
            (inner_fit,) = inner  # exactly one library fit per wrapper fit
            wrapped = min(wrapped, total)
            inner_fits.append(inner_fit)
            run_ratios.append(total / inner_fit)
        ratios[name] = float(np.median(run_ratios))
        print(
            f"{name:<24}{reference:>16.3f}{wrapped:>16.3f}{min(inner_fits):>15.3f}{ratios[name]:>8.2f}"
            f"{correction:>16.3f}{wrapper.n_thresholds_moved_:>10}",
            flush=True,
        )
    print(f"worst ratio {max(ratios.values()):.2f} (goal <= 1.30)\n", flush=True)
    return ratios


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n-samples", type=int, default=100_000)
    parser.add_argument("--signature", default="H4 x E2")
    parser.add_argument("--signatures", nargs="*", default=None, help="several signatures (overrides --signature)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--n-jobs", type=int, default=2)
    parser.add_argument("--backends", nargs="*", default=None, help="subset of backend names")
    args = parser.parse_args(argv)

    signatures = args.signatures or [args.signature]
    table = {signature: run_signature(signature, args) for signature in signatures}
    if len(signatures) > 1:
        names = list(next(iter(table.values())))
        print("wrapper fit / library fit")
        print(f"{'backend':<24}" + "".join(f"{s:>12}" for s in signatures))
        for name in names:
            print(f"{name:<24}" + "".join(f"{table[s][name]:>12.2f}" for s in signatures))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
