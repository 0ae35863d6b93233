"""
The paper's benchmark in miniature
==================================

:func:`curvedtrees.benchmarks.run_benchmark` runs the mixed-curvature paper's
protocol: every trial draws a new dataset from its seed, splits it, fits every
model and scores it (F1 micro for classification, RMSE for regression);
:func:`~curvedtrees.benchmarks.summarize` adds confidence intervals, ranks and the
paper's significance marks (Wilcoxon signed-rank tests, Bonferroni-corrected).

The full runs (100 trials per cell, the paper's Table 5) take hours and are stored in
the repository's ``results/``; this one takes seconds: two signatures, five trials,
four models. The command line does the same at any size:
``python -m curvedtrees.benchmarks --preset tiny --trials 5 --out DIR``.
"""

import matplotlib.pyplot as plt
import numpy as np
from curvedtrees.benchmarks import gaussian_mixture, get_models, run_benchmark, summarize, table5_markdown

datasets = [
    gaussian_mixture("H2", "classification", n_samples=400),
    gaussian_mixture("H2 x S2", "classification", n_samples=400),
]
models = get_models(["product_dt", "ambient_dt", "tangent_dt", "product_rf"], tree_params={"max_depth": 5})
results = run_benchmark(datasets, models, n_trials=5, random_state=0, n_jobs=1)
results[["dataset", "signature", "model", "trial", "metric", "value", "fit_seconds"]].head(8)

# %%
# One row per (dataset, model): the mean over trials, its 95% confidence interval
# and rank.
summary = summarize(results)
summary[["signature", "model", "n_trials", "mean", "ci", "rank", "marks"]].round(3)

# %%
# The paper's Table 5 layout (marks need more trials to mean anything).
print(table5_markdown(summary))

# %%
fig, ax = plt.subplots(figsize=(6.5, 3.2), layout="constrained")
names = [m.name for m in models]
for k, (signature, part) in enumerate(results.groupby("signature", sort=False)):
    means = [part[part.model == name].value.mean() for name in names]
    spread = [part[part.model == name].value.std() for name in names]
    ax.errorbar(np.arange(len(names)) + 0.15 * k, means, yerr=spread, fmt="o", capsize=3, label=signature)
ax.set_xticks(np.arange(len(names)), names)
ax.set_ylabel("F1 micro (5 trials)")
ax.legend()
plt.show()
