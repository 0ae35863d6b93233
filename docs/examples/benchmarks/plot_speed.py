"""
How fast is a product tree?
===========================

The split search is compiled (numba) and sorts every split plane once per node, as
scikit-learn's CART does. This example times a product tree against scikit-learn's
tree on the same rows (the same 8 columns, as plain features), in CPU seconds, in
one process, so that the ratio is what counts; the first fit of a process also
compiles the kernels (cached on disk for later processes), so it is done before
timing. The measured ratios of the full benchmark scripts (``perf/``) are in the
README and ``BENCHMARKS.md``.
"""

import time

import curvedtrees as ct
import matplotlib.pyplot as plt
from curvedtrees.trees import warm_up
from sklearn.tree import DecisionTreeClassifier

warm_up()  # compile (or load from numba's cache) before timing


def cpu_seconds(model, X, y, repeat=3):
    """The smallest CPU time of ``repeat`` fits (the least disturbed by other work)."""
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        model.fit(X, y)
        best = min(best, time.process_time() - start)
    return best


signature = "H2 x S2 x E2"
sizes = [1_000, 5_000, 20_000, 60_000]
ratios = []
for n in sizes:
    X, y = ct.make_classification(signature, n_samples=n, n_classes=8, random_state=0)
    ours = cpu_seconds(ct.ProductDecisionTreeClassifier(signature=signature, max_depth=5), X, y)
    theirs = cpu_seconds(DecisionTreeClassifier(max_depth=5), X, y)
    ratios.append(ours / theirs)
    print(f"n = {n:>6}: product tree {ours * 1e3:6.1f} ms, scikit-learn {theirs * 1e3:6.1f} ms, ratio {ratios[-1]:.2f}")

# %%
fig, ax = plt.subplots(figsize=(5, 3), layout="constrained")
ax.semilogx(sizes, ratios, "o-")
ax.axhline(1.0, color="0.6", lw=1)
ax.set_xlabel("training rows")
ax.set_ylabel("CPU time, ours / scikit-learn")
ax.set_ylim(0, max(2.0, max(ratios) * 1.1))
ax.set_title("Depth-5 tree fit on H2 x S2 x E2 (measured at build time)")
plt.show()
