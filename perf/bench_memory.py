"""Peak memory a forest fit adds, as a ratio to scikit-learn's RandomForestClassifier in the same run.

Goal (issue 16): a 12-tree forest, depth 10, on 10^6 rows of ``H2 x S2 x E2`` adds at
most 2x what scikit-learn's ``RandomForestClassifier`` adds when fitting the same rows
with the same number of real-valued features (the product forest's split-plane values,
6 columns with ``pairs="base"``), at ``n_jobs=1`` and ``n_jobs=2``.

Method. The data is generated once here and handed to the children as ``.npy`` files.
Every measurement runs in a fresh child process, so that no allocator cache, numba
memory or earlier peak of another measurement counts. The child loads its inputs,
fits once on 200 rows (numba loads or compiles its kernels, scikit-learn imports its
extensions), then resets its peak resident size (Linux: writing ``5`` to
``/proc/self/clear_refs`` sets ``VmHWM`` back to the current ``VmRSS``), reads
``VmRSS``, fits, and reads ``VmHWM``. The difference is the peak memory the fit adds
on top of the loaded inputs, everything included: numpy, numba's allocations (which
tracemalloc does not see) and the threads' buffers; resident size is process-wide, so
both threads of ``n_jobs=2`` count. ``ru_maxrss`` would not do: it cannot be reset, so
it would also hold the peak of loading and warming up.

Usage::

    python perf/bench_memory.py                  # n = 10^6, n_jobs 1 and 2 (about 2 minutes)
    python perf/bench_memory.py --n 200000       # a quicker look
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from curvedtrees.sampling import make_classification  # noqa: E402
from curvedtrees.trees import SplitFeatures  # noqa: E402

SIGNATURE = "H2 x S2 x E2"
GOAL = 2.0

_CHILD = """
import json, sys
sys.path.insert(0, {root!r})
import numpy as np
y = np.load({folder!r} + "/y.npy")
if {which!r} == "ours":
    from curvedtrees.trees import ProductRandomForestClassifier
    data = np.load({folder!r} + "/X.npy")
    def make():
        return ProductRandomForestClassifier({trees}, signature={sig!r}, max_depth={depth}, n_jobs={jobs},
                                             random_state=0)
    fit_kwargs = {{"check_input": False}}
else:
    from sklearn.ensemble import RandomForestClassifier
    data = np.load({folder!r} + "/F.npy")
    def make():
        return RandomForestClassifier({trees}, max_depth={depth}, n_jobs={jobs}, random_state=0)
    fit_kwargs = {{}}
make().fit(data[:200], y[:200], **fit_kwargs)  # compile / import before measuring
def fit():
    return make().fit(data, y, **fit_kwargs)
"""
# The end of every measuring child (perf/bench_boosting.py's too): it has loaded ``data`` and
# ``y`` and defined ``fit()``; it prints the inputs' size and the peak resident memory the fit adds.
PEAK_ADDED = """
def status_kb(field):
    for line in open("/proc/self/status"):
        if line.startswith(field + ":"):
            return int(line.split()[1])
with open("/proc/self/clear_refs", "w") as handle:
    handle.write("5")  # VmHWM := VmRSS, so the peak below is this fit's
before = status_kb("VmRSS")
model = fit()
peak = status_kb("VmHWM")
print(json.dumps({"inputs_mb": (data.nbytes + y.nbytes) / 2**20, "added_mb": (peak - before) / 1024}))
"""


def run_child(code: str, which: str) -> dict:
    """Run a measuring child (``code`` then :data:`PEAK_ADDED`) in a fresh interpreter; its JSON line."""
    out = subprocess.run([sys.executable, "-c", code + PEAK_ADDED], capture_output=True, text=True, check=False)
    if out.returncode != 0:
        raise RuntimeError(f"the {which} child failed:\n{out.stderr}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def measure(which: str, folder: str, *, trees: int, depth: int, jobs: int) -> dict:
    """Inputs and peak memory added by one fit, in a fresh child process."""
    code = _CHILD.format(root=str(ROOT), folder=folder, which=which, sig=SIGNATURE, trees=trees, depth=depth, jobs=jobs)
    return run_child(code, which)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1_000_000, help="rows (default 10^6)")
    parser.add_argument("--trees", type=int, default=12)
    parser.add_argument("--depth", type=int, default=10)
    parser.add_argument("--jobs", type=int, nargs="+", default=[1, 2])
    args = parser.parse_args()

    X, y = make_classification(SIGNATURE, n_samples=args.n, n_classes=8, n_clusters=32, random_state=0)
    F = SplitFeatures.from_signature(SIGNATURE, "base").values(X).T.copy()
    print(
        f"== Peak memory added by a forest fit: {args.trees} trees, depth {args.depth}, n = {args.n:,}, "
        f"{SIGNATURE} ({X.shape[1]} ambient columns; scikit-learn gets the {F.shape[1]} split-plane values) =="
    )
    print(f"{'n_jobs':>6} {'ours inputs':>11} {'ours adds':>9} {'sk inputs':>9} {'sk adds':>8} {'ratio':>6}")
    worst = 0.0
    with tempfile.TemporaryDirectory() as folder:
        for name, array in (("X", X), ("F", F), ("y", y)):
            np.save(Path(folder) / f"{name}.npy", array)
        del X, F
        for jobs in args.jobs:
            ours = measure("ours", folder, trees=args.trees, depth=args.depth, jobs=jobs)
            ref = measure("sklearn", folder, trees=args.trees, depth=args.depth, jobs=jobs)
            ratio = ours["added_mb"] / ref["added_mb"]
            worst = max(worst, ratio)
            print(
                f"{jobs:>6} {ours['inputs_mb']:>9.0f}MB {ours['added_mb']:>7.0f}MB {ref['inputs_mb']:>7.0f}MB "
                f"{ref['added_mb']:>6.0f}MB {ratio:>6.2f}"
            )
    print(f"worst ratio of memory added by fit {worst:.2f} (goal <= {GOAL:g})")


if __name__ == "__main__":
    main()
