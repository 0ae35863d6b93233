"""Fill the generated blocks of a Markdown document (BENCHMARKS.md) from stored runs.

The prose of BENCHMARKS.md is written by hand; every number in it comes from
``results/`` through blocks such as::

    <!-- begin comparison multi-curvature -->
    (generated table)
    <!-- end comparison multi-curvature -->

``python -m curvedtrees.benchmarks --update-doc BENCHMARKS.md`` regenerates each
block's content and leaves everything else untouched. Block kinds:

- ``results STEM``: the run laid out like Table 5;
- ``comparison STEM``: the run beside the paper's Table 5 (two lines per row);
- ``ranks STEM``: ranks and top-k counts;
- ``run STEM``: one line with the run's trials, seed and wall time;
- ``agreement STEM STEM ...``: how far each run is from the paper, per model;
- ``residuals STEM``: the cells of a run that differ from the paper beyond both
  intervals (the paper's ± read as a standard error), one line each;
- ``boosting STEM``: product gradient boosting against the product random
  forest and its HistGradientBoosting baselines, with its own tests, then the
  counts per task (:func:`~curvedtrees.benchmarks.report.boosting_markdown`).
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from .paper import load_paper_table5
from .report import (
    boosting_counts_markdown,
    boosting_markdown,
    comparison_frame,
    comparison_markdown,
    markdown_table,
    rank_markdown,
    table5_markdown,
)
from .stored import load_run

__all__ = ["agreement_markdown", "fill_document", "residuals_markdown"]

_BLOCK = re.compile(
    r"(?P<open><!-- begin (?P<kind>[a-z]+) (?P<args>[^>]*?) -->\n)"
    r"(?P<body>.*?)"
    r"(?P<close><!-- end (?P=kind) (?P=args) -->)",
    re.DOTALL,
)

#: Student-t factor turning a standard error into a 95% half-width at about 100 trials.
_T95 = 1.984


def agreement_markdown(stems, directory=None, paper=None) -> str:
    """How far each run is from the paper: counts of differing cells, then mean differences per model.

    The first table counts, per run, the cells compared with the paper; those
    outside the paper's interval (|diff| > paper ±); those beyond both 95%
    intervals (|diff| > sqrt(ci² + paper ±²)); and those beyond both when the
    paper's ± is read as a standard error (its 95% half-width being 1.98 times
    larger). The next tables give the mean difference ours - paper per model:
    F1 in points, RMSE in thousandths.
    """
    paper = load_paper_table5() if paper is None else paper
    frames, models = {}, []
    for stem in stems:
        joined = comparison_frame(load_run(stem, directory)["summary"], paper).dropna(subset=["paper_mean"])
        frames[stem] = joined
        models += [m for m in dict.fromkeys(joined["model"]) if m not in models]
    counts = []
    for stem, joined in frames.items():
        se_joint = np.sqrt(joined["ci"] ** 2 + (_T95 * joined["paper_ci"]) ** 2)
        counts.append(
            [
                f"`{stem}`",
                len(joined),
                int(joined["outside_paper_ci"].sum()),
                int(joined["incompatible"].sum()),
                int((joined["diff"].abs() > se_joint).sum()),
            ]
        )
    header = ["Run", "Cells", "Outside paper ±", "Beyond both 95% CIs", "Beyond both, paper ± as SE"]
    parts = [markdown_table(header, counts, ["l", "r", "r", "r", "r"])]
    for task, unit, label in (("classification", 100.0, "F1, points"), ("regression", 1000.0, "RMSE, x1000")):
        rows = []
        for stem, joined in frames.items():
            means = joined[joined["task"] == task].groupby("model")["diff"].mean() * unit
            if means.empty:
                continue
            rows.append([f"`{stem}`", *[f"{means[m]:+.1f}" if m in means else "" for m in models]])
        if rows:
            parts.append(
                f"Mean difference ours - paper ({label}):\n\n"
                + markdown_table(["Run", *models], rows, ["l"] + ["r"] * len(models))
            )
    return "\n\n".join(parts)


def residuals_markdown(stem, directory=None, paper=None) -> str:
    """The cells of run ``stem`` beyond both 95% intervals (paper's ± read as a standard error), largest first."""
    from .report import format_value

    paper = load_paper_table5() if paper is None else paper
    joined = comparison_frame(load_run(stem, directory)["summary"], paper).dropna(subset=["paper_mean"])
    se_joint = np.sqrt(joined["ci"] ** 2 + (_T95 * joined["paper_ci"]) ** 2)
    beyond = joined[joined["diff"].abs() > se_joint].copy()
    if beyond.empty:
        return "No cell differs from the paper beyond both intervals."
    beyond["excess"] = beyond["diff"].abs() / se_joint[beyond.index]
    rows = [
        [
            r.task.replace("_", " "),
            r.signature,
            r.model,
            format_value(r.mean, r.ci, r.metric),
            format_value(r.paper_mean, r.paper_ci, r.metric),
            ("+" if r.diff > 0 else "") + format_value(r.diff, None, r.metric),
            f"{r.excess:.1f}",
        ]
        for r in beyond.sort_values(["model", "excess"], ascending=[True, False]).itertuples()
    ]
    header = ["Task", "Signature", "Model", "Ours", "Paper", "Difference", "x joint interval"]
    return markdown_table(header, rows, ["l", "l", "l", "r", "r", "r", "r"])


def _run_line(stem, directory):
    meta = load_run(stem, directory)["meta"]
    parts = [f"{meta.get('n_trials', '?')} trials", f"seed {meta.get('random_state', '?')}"]
    if meta.get("wall_seconds"):
        parts.append(f"{meta['wall_seconds']:.0f} s wall time ({meta.get('backend', '?')})")
    for addition in meta.get("added_models") or []:
        # Added later with --add-models: its time is in the total, named apart so the first run's stays readable.
        parts.append(f"{', '.join(addition.get('models', []))} added later in {addition.get('wall_seconds', 0):.0f} s")
    return f"`{stem}`: " + ", ".join(parts) + "."


def _block(kind: str, args: list[str], directory, paper: pd.DataFrame) -> str:
    if kind == "agreement":
        return agreement_markdown(args, directory, paper)
    if kind == "residuals":
        return residuals_markdown(args[0], directory, paper)
    if len(args) != 1:
        raise ValueError(f"block '{kind}' takes one run name, got {args}")
    stem = args[0]
    if kind == "run":
        return _run_line(stem, directory)
    run = load_run(stem, directory)
    summary, models = run["summary"], run["meta"].get("models")
    if kind == "results":
        return table5_markdown(summary, models)
    if kind == "comparison":
        keys = ["section", "dataset", "task", "signature"]
        rows = summary[keys].drop_duplicates().merge(paper[keys].drop_duplicates(), on=keys)
        return comparison_markdown(summary.merge(rows, on=keys), paper, models)
    if kind == "ranks":
        return rank_markdown(summary, models)
    if kind == "boosting":
        return boosting_markdown(summary, run["pairs"]) + "\n\n" + boosting_counts_markdown(summary, run["pairs"])
    raise ValueError(
        f"unknown block kind {kind!r}: expected results, comparison, ranks, run, agreement, residuals or boosting"
    )


def fill_document(text: str, directory=None, paper: pd.DataFrame | None = None) -> str:
    """``text`` with every generated block refreshed from the stored runs in ``directory``."""
    paper = load_paper_table5() if paper is None else paper

    def refresh(match):
        body = _block(match.group("kind"), match.group("args").split(), directory, paper)
        return match.group("open") + body.rstrip("\n") + "\n" + match.group("close")

    return _BLOCK.sub(refresh, text)
