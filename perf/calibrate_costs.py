"""The cost model against measurements: every estimate of ``curvedtrees.costs`` beside what the work took.

``curvedtrees.costs`` estimates CPU seconds, peak memory and the size of a result from a
request's parameters, before anything runs; the app refuses requests whose estimate
exceeds the budgets of ``curvedtrees.limits``. Its constants were measured with this
script, which runs a grid of fits, samplers and embeddings (each in a fresh child
process) and prints, for each, the estimate, the measurement and their ratio.

Method. Each case runs in its own child: it builds its inputs, runs the work once on a
tiny input (numba loads its kernels, libraries import), then measures the work itself:
CPU time from ``resource.getrusage`` (every thread of the process), peak memory as the
rise of the resident size's high-water mark (``VmHWM``, reset by writing 5 to
``/proc/self/clear_refs`` just before), and the result's size as the bytes of its NumPy
arrays (models: their pickled size, close to their arrays' bytes; the pickle is
measured, never loaded). CPU time, not wall time, so a machine shared
with other work gives the same answers (within the few per cent that cache contention
costs). The goal is agreement within a factor of two (ratios 0.5-2): the estimates decide
what is refused, and the app's workers stop a job only at ``JOB_CPU_GRACE`` (2x) above its
budget.

Usage::

    python perf/calibrate_costs.py          # the whole grid (about 3 minutes)
    python perf/calibrate_costs.py --quick  # one case per family (about 40 s)
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# (label, family, parameters); "quick" cases first in each family.
CASES = [
    ("tree H2 x S2 x E2, depth 6, 20,000 rows", "fit", {"cls": "ProductDecisionTreeClassifier",
     "params": {"max_depth": 6}, "signature": "H2 x S2 x E2", "n": 20000, "classes": 5}, True),
    ("tree E20 pairs=all, no depth limit, 8,000 rows", "fit", {"cls": "ProductDecisionTreeClassifier",
     "params": {"pairs": "all"}, "signature": "E20", "n": 8000, "classes": 5}, False),
    ("tree S9 pairs=all, 20 classes, 8,000 rows", "fit", {"cls": "ProductDecisionTreeClassifier",
     "params": {"pairs": "all"}, "signature": "S9", "n": 8000, "classes": 20}, False),
    ("forest 32 trees S2 pairs=all (the landmass demo's shape), 15,000 rows", "fit", {
     "cls": "ProductRandomForestClassifier", "params": {"n_estimators": 32, "pairs": "all"}, "signature": "S2",
     "n": 15000, "classes": 2}, True),
    ("forest 4 trees S99 pairs=all max_features=all, 2,000 rows", "fit", {
     "cls": "ProductRandomForestClassifier", "params": {"n_estimators": 4, "pairs": "all", "max_features": None},
     "signature": "S99", "n": 2000, "classes": 5}, False),
    ("forest 50 trees H2 x S2 x E2 depth 8, 5,000 rows", "fit", {"cls": "ProductRandomForestClassifier",
     "params": {"n_estimators": 50, "max_depth": 8}, "signature": "H2 x S2 x E2", "n": 5000, "classes": 5}, False),
    ("boosting 100 iterations H2 x S2 x E2, 5 classes, 20,000 rows", "fit", {
     "cls": "ProductGradientBoostingClassifier", "params": {"early_stopping": False}, "signature": "H2 x S2 x E2",
     "n": 20000, "classes": 5}, True),
    ("boosting 30 iterations S9 pairs=all, 2 classes, 10,000 rows", "fit", {
     "cls": "ProductGradientBoostingClassifier", "params": {"max_iter": 30, "pairs": "all", "early_stopping": False},
     "signature": "S9", "n": 10000, "classes": 2}, False),
    ("k-NN k=5, 15,000 rows, predict 5,000", "fit", {"cls": "GeodesicKNNClassifier", "params": {},
     "signature": "H2 x S2 x E2", "n": 15000, "classes": 5, "predict": 5000}, True),
    ("k-NN k=200, 15,000 rows, predict 5,000", "fit", {"cls": "GeodesicKNNClassifier",
     "params": {"n_neighbors": 200}, "signature": "H2 x S2 x E2", "n": 15000, "classes": 5, "predict": 5000}, False),
    ("perceptron 50 passes, 2,000 rows, 5 classes", "fit", {"cls": "ProductPerceptronClassifier", "params": {},
     "signature": "H2 x S2 x E2", "n": 2000, "classes": 5}, True),
    ("perceptron 1,000 passes, 1,500 rows, 3 classes", "fit", {"cls": "ProductPerceptronClassifier",
     "params": {"max_iter": 1000}, "signature": "H2 x S2", "n": 1500, "classes": 3}, False),
    ("SVM, 3,000 rows, 5 classes", "fit", {"cls": "ProductSVMClassifier", "params": {},
     "signature": "H2 x S2 x E2", "n": 3000, "classes": 5}, True),
    ("ambient tree, 20,000 rows", "fit", {"cls": "AmbientClassifier", "params": {}, "signature": "H2 x S2 x E2",
     "n": 20000, "classes": 5}, False),
    ("Klein decision tree H2 x E2, 20,000 rows", "fit", {"cls": "KleinTreeClassifier",
     "params": {"estimator": "decision_tree"}, "signature": "H2 x E2", "n": 20000, "classes": 5}, True),
    ("Klein random forest H2 x E2, 5,000 rows", "fit", {"cls": "KleinTreeClassifier",
     "params": {"estimator": "random_forest"}, "signature": "H2 x E2", "n": 5000, "classes": 5}, False),
    ("sampler H2 x S2 x E2, 20,000 points", "sample", {"signature": "H2 x S2 x E2", "n": 20000, "clusters": 10}, True),
    ("sampler H300, 2,000 points, 20 clusters", "sample", {"signature": "H300", "n": 2000, "clusters": 20}, False),
    ("embedding karate club in S2 x E2 x H2, 300 epochs", "dataset", {"name": "karate_club",
     "params": {"signature": "S2 x E2 x H2", "n_epochs": 300}}, True),
    ("embedding random tree 300 nodes in H2, 100 epochs", "dataset", {"name": "random_tree",
     "params": {"n_nodes": 300, "n_epochs": 100}}, False),
    ("embedding random tree 500 nodes in H2, 50 epochs", "dataset", {"name": "random_tree",
     "params": {"n_nodes": 500, "n_epochs": 50}}, False),
    ("embedding random tree 300 nodes in H30, 50 epochs", "dataset", {"name": "random_tree",
     "params": {"n_nodes": 300, "n_epochs": 50, "signature": "H30"}}, False),
    ("embedding random tree 200 nodes in H8 x S8, 50 epochs x 2 restarts", "dataset", {"name": "random_tree",
     "params": {"n_nodes": 200, "n_epochs": 50, "n_restarts": 2, "signature": "H8 x S8"}}, False),
    ("digits VAE, 5 epochs", "dataset", {"name": "digits_latents", "params": {"n_epochs": 5}}, False),
]  # fmt: skip

_CHILD = r"""
import json, pickle, resource, sys
case = json.loads(sys.argv[1])

def cpu():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime

def status(field):
    for line in open("/proc/self/status"):
        if line.startswith(field + ":"):
            return int(line.split()[1]) * 1024

import numpy as np
kind = case["kind"]
if kind == "fit":
    import curvedtrees
    from curvedtrees.costs import estimate_cost
    from curvedtrees.sampling import make_classification
    cls = getattr(curvedtrees, case["cls"])
    X, y = make_classification(case["signature"], n_samples=case["n"], n_classes=case["classes"],
                               n_clusters=max(2 * case["classes"], 10), cov_scale=0.3, random_state=0)
    make = lambda: cls(signature=case["signature"], **case["params"])
    small = max(3 * case["classes"], 60, case["params"].get("n_neighbors", 0) + 1)
    make().fit(X[:small], y[:small]).predict(X[:5])  # kernels loaded, libraries imported
    queries = X[: case.get("predict", 0)]
    estimate = estimate_cost(make(), case["n"], case["signature"], n_classes=case["classes"], n_predict=len(queries))
    open("/proc/self/clear_refs", "w").write("5")
    rss, start = status("VmRSS"), cpu()
    model = make().fit(X, y)
    if len(queries):
        model.predict(queries)
    seconds, peak = cpu() - start, status("VmHWM") - rss
    result = len(pickle.dumps(model, protocol=5))  # our own model, measured here: never loaded
elif kind == "sample":
    from curvedtrees.costs import estimate_sampling_cost
    from curvedtrees.sampling import make_classification
    make_classification("H2", n_samples=40, n_clusters=4, n_classes=2, random_state=0)
    estimate = estimate_sampling_cost(case["signature"], case["n"], case["clusters"])
    open("/proc/self/clear_refs", "w").write("5")
    rss, start = status("VmRSS"), cpu()
    X, y = make_classification(case["signature"], n_samples=case["n"], n_clusters=case["clusters"], n_classes=2,
                               cov_scale=0.001, random_state=0)
    seconds, peak = cpu() - start, status("VmHWM") - rss
    result = X.nbytes + y.nbytes
else:
    from curvedtrees.costs import estimate_dataset_cost
    from curvedtrees.datasets import load_dataset
    import torch  # noqa: F401  (imported before the measurement: the estimate counts it separately)
    estimate = estimate_dataset_cost(case["name"], **case["params"])
    open("/proc/self/clear_refs", "w").write("5")
    rss, start = status("VmRSS"), cpu()
    data = load_dataset(case["name"], **case["params"])
    seconds, peak = cpu() - start, status("VmHWM") - rss
    result = data.X.nbytes + data.y.nbytes
print(json.dumps({"cpu": seconds, "peak": peak, "result": result, "est_cpu": estimate.cpu_seconds,
                  "est_peak": estimate.memory_bytes, "est_result": estimate.result_bytes}))
"""


def measure(kind: str, case: dict) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, json.dumps({"kind": kind, **case})],
        capture_output=True, text=True, check=False, cwd=ROOT, timeout=1800,
        env={"OMP_NUM_THREADS": "1", "PATH": "/usr/bin:/bin"},
    )  # fmt: skip
    if done.returncode != 0:
        raise RuntimeError(done.stderr[-2000:])
    return json.loads(done.stdout.strip().splitlines()[-1])


def _ratio(estimate: float, measured: float) -> str:
    return f"{estimate / measured:5.2f}" if measured > 0 else "    -"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="one case per family")
    parser.add_argument("--only", default="", help="only the cases whose label contains this text")
    args = parser.parse_args(argv)
    cases = [c for c in CASES if (c[3] or not args.quick) and args.only in c[0]]
    print(f"{'case':72s} {'CPU est':>8s} {'meas':>7s} {'ratio':>5s}   {'peak est':>9s} {'meas':>8s} {'ratio':>5s}"
          f"   {'result est':>10s} {'meas':>8s} {'ratio':>5s}")  # fmt: skip
    ratios = []
    for label, kind, case, _ in cases:
        m = measure(kind, case)
        ratios.append(m["est_cpu"] / max(m["cpu"], 1e-9))
        mib = 2**20
        print(
            f"{label:72s} {m['est_cpu']:7.2f}s {m['cpu']:6.2f}s {_ratio(m['est_cpu'], m['cpu'])}   "
            f"{m['est_peak'] / mib:7.1f}Mi {m['peak'] / mib:6.1f}Mi {_ratio(m['est_peak'], m['peak'])}   "
            f"{m['est_result'] / mib:8.2f}Mi {m['result'] / mib:6.2f}Mi {_ratio(m['est_result'], m['result'])}",
            flush=True,
        )
    inside = sum(0.5 <= r <= 2.0 for r in ratios)
    print(f"\nCPU estimates within a factor of 2 of the measurement: {inside} of {len(ratios)} (goal: all)")
    print("Peak memory is the rise of the process's resident high-water mark (inputs excluded).")
    return 0


if __name__ == "__main__":
    sys.exit(main())
