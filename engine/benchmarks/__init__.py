"""Benchmarks: the paper's protocol (many seeded trials, paired significance tests) on any models and datasets.

Public API
----------
- :func:`run_benchmark` (datasets x models x trials -> tidy DataFrame), locally
  with joblib or on a Dask cluster (``client=`` / ``scheduler=``);
- :class:`ModelSpec`, :class:`DatasetSpec`, :class:`BenchmarkData`: the plug-in
  records; :data:`MODELS` / :func:`get_models` (the paper's eight models and
  a few extras) and :func:`gaussian_mixture` (the paper's synthetic data);
- :data:`PRESETS`, :func:`get_preset`, :func:`run_preset`: named setups;
- :func:`summarize`, :func:`pairwise_tests`, :func:`significance_marks`,
  :func:`rank_counts`, :func:`group_top_counts`, :func:`confidence_interval`:
  statistics;
- :func:`table5_markdown`, :func:`comparison_markdown`, :func:`write_report`:
  reports; :func:`load_paper_table5`: the paper's numbers;
- :mod:`.reference`: our stored runs beside the authors' stored per-trial results
  (``compare_with_reference``, ``chance_disagreements``).

Command line: ``python -m curvedtrees.benchmarks --preset NAME --trials N --out DIR``.
"""

from ..utils import require

# Fail on import with the extra to install, not with a bare ModuleNotFoundError deep inside.
require("pandas", "curvedtrees.benchmarks (tables of results)")

from .datasets import gaussian_mixture
from .models import MODELS, PAPER_MODELS, get_models
from .paper import load_paper_table5
from .presets import PRESETS, Preset, get_preset, run_preset
from .report import comparison_markdown, table5_markdown, write_report
from .runner import RESULT_COLUMNS, run_benchmark, score, trial_seeds
from .specs import GROUP_MARKS, TASKS, BenchmarkData, DatasetSpec, ModelSpec
from .statistics import (
    confidence_interval,
    group_top_counts,
    pairwise_tests,
    rank_counts,
    significance_marks,
    summarize,
    wilcoxon_p_value,
)

__all__ = [
    "GROUP_MARKS",
    "MODELS",
    "PAPER_MODELS",
    "PRESETS",
    "RESULT_COLUMNS",
    "TASKS",
    "BenchmarkData",
    "DatasetSpec",
    "ModelSpec",
    "Preset",
    "comparison_markdown",
    "confidence_interval",
    "gaussian_mixture",
    "get_models",
    "get_preset",
    "group_top_counts",
    "load_paper_table5",
    "pairwise_tests",
    "rank_counts",
    "run_benchmark",
    "run_preset",
    "score",
    "significance_marks",
    "summarize",
    "table5_markdown",
    "trial_seeds",
    "wilcoxon_p_value",
    "write_report",
]
