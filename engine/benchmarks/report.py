"""Markdown tables of benchmark summaries: Table 5's layout, comparisons with the paper, ranks, timings.

Cells are written the way the paper writes them: F1 in percent with one
decimal (``30.9 ± .5``), RMSE with three decimals (``.198 ± .002``), leading
zeros dropped; the best model of a row in bold, the second best underlined
(``<u>``), followed by the significance marks.

The paper's tables (Table 5's layout, the comparison with the paper, the ranks)
show the paper's models only; the boosting family (product gradient boosting
and its HistGradientBoosting baselines) has a table of its own
(:func:`boosting_markdown`) with its own tests.
"""

from __future__ import annotations

import math
import re

import pandas as pd

from .statistics import BOOSTING_FAMILY, ROW_KEYS, boosting_pairs, group_top_counts, rank_counts

__all__ = [
    "MIN_TRIALS_FOR_INTERVAL",
    "boosting_counts_markdown",
    "boosting_markdown",
    "check_run_name",
    "comparison_frame",
    "comparison_markdown",
    "few_trials_warning",
    "format_value",
    "markdown_table",
    "rank_markdown",
    "table5_markdown",
    "timing_markdown",
]

# A run's files are NAME.csv, NAME_summary.csv, ... inside the output folder, so a name is
# one plain file name stem: word characters, dots, plus and minus signs, starting with a
# word character (no separators, no hidden files, no leading "-" read as an option). At
# most 200 bytes in UTF-8 leaves room for the longest suffix (".partial.jsonl") under the
# usual 255-byte limit of a file name.
_RUN_NAME = re.compile(r"\w[\w.+-]*")
_RUN_NAME_BYTES = 200


def check_run_name(name) -> str:
    """Return ``name`` if it is a plain file name stem for a run's files, else raise ValueError.

    Parameters
    ----------
    name : str
        For example ``"multi-curvature"`` or ``"datasets-depth3"``. Path separators,
        ``..``, absolute paths, a leading ``.`` or ``-`` and more than 200 bytes
        are refused, so the files are always written inside the output folder.
    """
    if (
        not isinstance(name, str)
        or not _RUN_NAME.fullmatch(name)
        or ".." in name
        or len(name.encode("utf-8")) > _RUN_NAME_BYTES
    ):
        raise ValueError(
            f"{name!r} is not a plain file name stem (letters, digits, '_', '.', '+', '-', at most "
            f"{_RUN_NAME_BYTES} bytes; no path separators or '..')"
        )
    return name


_TASK_SHORT = {"classification": "C", "regression": "R", "link_prediction": "LP"}

# Below this many trials a report warns that its 95% intervals cannot compare models:
# Student's t multiplies the standard error by 12.7 at 2 trials, 4.3 at 3, 3.2 at 4 and
# 2.8 at 5 (1.98 at the paper's 100), so from 2 trials "31.2 ± 174.7" says nothing.
MIN_TRIALS_FOR_INTERVAL = 5


def few_trials_warning(n_trials: int) -> str:
    """One sentence on why the intervals of a run of ``n_trials`` trials cannot compare models."""
    from scipy.stats import t

    if n_trials < 2:
        factor = "no interval can be computed from one trial"
    else:
        factor = f"Student's t multiplies the standard error by {t.ppf(0.975, n_trials - 1):.1f}"
    return (
        f"only {n_trials} trial{'s' if n_trials != 1 else ''}: the 95% confidence intervals are too wide to compare "
        f"models ({factor}); run at least {MIN_TRIALS_FOR_INTERVAL} trials (--trials {MIN_TRIALS_FOR_INTERVAL})"
    )


def _strip_zero(text: str) -> str:
    if text.startswith("0."):
        return text[1:]
    if text.startswith("-0."):
        return "-" + text[2:]
    return text


def format_value(mean: float, ci: float | None, metric: str) -> str:
    """``"30.9 ± .5"`` for F1 (shown in percent), ``".198 ± .002"`` for RMSE."""
    if mean is None or (isinstance(mean, float) and math.isnan(mean)):
        return ""
    scale, digits = (100.0, 1) if metric == "f1_micro" else (1.0, 3)
    text = _strip_zero(f"{mean * scale:.{digits}f}")
    if ci is not None and not (isinstance(ci, float) and math.isnan(ci)):
        text += " ± " + _strip_zero(f"{ci * scale:.{digits}f}")
    return text


def markdown_table(header: list[str], rows: list[list[str]], align: list[str] | None = None) -> str:
    """A GitHub-flavoured Markdown table (pipes in cells escaped)."""
    align = align or ["l"] * len(header)
    rule = {"l": ":---", "r": "---:", "c": ":---:"}

    def line(cells):
        return "| " + " | ".join(str(c).replace("|", "\\|") for c in cells) + " |"

    return "\n".join([line(header), "| " + " | ".join(rule[a] for a in align) + " |", *map(line, rows)])


def _row_label_columns(summary):
    return [k for k in ROW_KEYS if k in summary]


def _models(summary, models):
    return list(models) if models is not None else list(dict.fromkeys(summary["model"]))


def _paper_models(summary, models):
    """``models`` (default: the summary's) without the boosting family: the columns of the paper's tables."""
    from .models import MODELS

    boosting = set(summary.loc[summary["family"] == BOOSTING_FAMILY, "model"]) if "family" in summary else set()
    # A boosting model with no row at all (the Klein wrapper on a preset whose every signature has an
    # S component) is known by its registry entry.
    boosting |= {spec.name for spec in MODELS.values() if spec.family == BOOSTING_FAMILY}
    return [m for m in _models(summary, models) if m not in boosting]


def table5_markdown(summary: pd.DataFrame, models=None, marks: bool = True) -> str:
    """The summary laid out like the paper's Table 5: one row per dataset, one column per model.

    Parameters
    ----------
    summary : DataFrame from :func:`curvedtrees.benchmarks.statistics.summarize`
    models : list of str, optional
        Column order (display names); default: order of appearance. Models of the
        boosting family are left out (see :func:`boosting_markdown`).
    marks : bool
        Append the significance marks.
    """
    models = _paper_models(summary, models)
    keys = _row_label_columns(summary)
    rows = []
    previous = {}
    for row_key, block in summary.groupby(keys, sort=False, dropna=False):
        row_key = dict(zip(keys, row_key if isinstance(row_key, tuple) else (row_key,)))
        cells = []
        # Like the paper, print a section / dataset / task label only where it changes.
        changed = False
        for key in ("section", "dataset", "task"):
            if key in row_key:
                changed = changed or previous.get(key) != row_key[key]
                shown = _TASK_SHORT.get(row_key[key], row_key[key]) if key == "task" else row_key[key]
                cells.append(shown if changed else "")
        cells.append(row_key.get("signature", ""))
        by_model = block.set_index("model")
        for model in models:
            if model not in by_model.index:
                cells.append("")
                continue
            entry = by_model.loc[model]
            text = format_value(entry["mean"], entry["ci"], entry["metric"])
            if entry["rank"] == 1:
                text = f"**{text}**"
            elif entry["rank"] == 2:
                text = f"<u>{text}</u>"
            if marks and entry.get("marks", ""):
                text += f" {entry['marks']}"
            cells.append(text)
        rows.append(cells)
        previous = row_key
    header = [k.capitalize() for k in ("section", "dataset", "task") if k in keys] + ["Signature", *models]
    align = ["l"] * (len(header) - len(models)) + ["r"] * len(models)
    return markdown_table(header, rows, align)


def comparison_frame(summary: pd.DataFrame, paper: pd.DataFrame) -> pd.DataFrame:
    """Our cells beside the paper's Table 5 cells (joined on section, dataset, task, signature, model).

    Returns
    -------
    pandas.DataFrame
        Row keys, model, metric, mean, ci, paper_mean, paper_ci, diff (ours -
        paper), outside_paper_ci (|diff| > paper_ci) and incompatible (|diff| >
        sqrt(ci^2 + paper_ci^2): the two means differ by more than their joint
        95% uncertainty).
    """
    keys = [*_row_label_columns(summary), "model"]
    ours = summary[[*keys, "metric", "mean", "ci", "marks"]]
    theirs = paper[[*keys, "mean", "ci", "marks"]].rename(
        columns={"mean": "paper_mean", "ci": "paper_ci", "marks": "paper_marks"}
    )
    joined = ours.merge(theirs, on=keys, how="left")
    joined["diff"] = joined["mean"] - joined["paper_mean"]
    joined["outside_paper_ci"] = joined["diff"].abs() > joined["paper_ci"]
    joint = (joined["ci"] ** 2 + joined["paper_ci"] ** 2) ** 0.5
    joined["incompatible"] = joined["diff"].abs() > joint
    return joined


def comparison_markdown(summary: pd.DataFrame, paper: pd.DataFrame, models=None) -> str:
    """Table 5's layout with two lines per row: ours, then the paper's.

    A cell of ours outside the paper's confidence interval is flagged with ▲
    (above) or ▼ (below); ``!`` marks a difference larger than the two
    intervals combined (``sqrt(ci^2 + paper_ci^2)``). The boosting family is left out.
    """
    models = _paper_models(summary, models)
    joined = comparison_frame(summary, paper)
    keys = _row_label_columns(summary)
    # Name the dataset only when the rows come from more than one (the synthetic tables are all "Gaussian").
    named = "dataset" in summary and summary["dataset"].nunique() > 1
    rows = []
    for row_key, block in joined.groupby(keys, sort=False, dropna=False):
        row_key = dict(zip(keys, row_key if isinstance(row_key, tuple) else (row_key,)))
        label = [_TASK_SHORT.get(row_key.get("task"), row_key.get("task", "")), row_key.get("signature", "")]
        if named:
            label.insert(0, row_key["dataset"])
        by_model = block.set_index("model")
        ours, theirs = [*label, "ours"], [""] * len(label) + ["paper"]
        for model in models:
            if model not in by_model.index:
                ours.append("")
                theirs.append("")
                continue
            entry = by_model.loc[model]
            text = format_value(entry["mean"], entry["ci"], entry["metric"])
            if entry["outside_paper_ci"]:
                text += " ▲" if entry["diff"] > 0 else " ▼"
            if entry["incompatible"]:
                text += "!"
            ours.append(text)
            theirs.append(format_value(entry["paper_mean"], entry["paper_ci"], entry["metric"]))
        rows += [ours, theirs]
    header = ["Dataset"] * named + ["Task", "Signature", "", *models]
    return markdown_table(header, rows, ["l"] * (len(header) - len(models)) + ["r"] * len(models))


def rank_markdown(summary: pd.DataFrame, models=None) -> str:
    """Mean rank and top-1 / top-2 counts per model, and the product models' top-k counts per task.

    The paper's models only: the summary ranks them among themselves, as the
    paper's Table 1 does, and the boosting family is left out.
    """
    paper_rows = summary[summary["family"] != BOOSTING_FAMILY] if "family" in summary else summary
    counts = rank_counts(paper_rows)
    models = [m for m in _paper_models(summary, models) if m in counts.index]
    rows = [
        [m, int(counts.loc[m, "n_rows"]), f"{counts.loc[m, 'mean_rank']:.2f}", int(counts.loc[m, "top1"]),
         int(counts.loc[m, "top2"])]
        for m in models
    ]  # fmt: skip
    text = markdown_table(["Model", "Rows", "Mean rank", "Top-1", "Top-2"], rows, ["l", "r", "r", "r", "r"])
    if (paper_rows["group"] == "product").any():
        top = group_top_counts(paper_rows, "product")
        rows = [
            [task, int(r["rows"]), _count(r["top1"], r["rows"]), _count(r["top2"], r["rows"])]
            for task, r in top.iterrows()
        ]
        text += "\n\nProduct DT or RF among the top k (as in the paper's Table 1):\n\n"
        text += markdown_table(["Task", "Rows", "#Top-1", "#Top-2"], rows, ["l", "r", "r", "r"])
    return text


_BOOSTING_LEGEND = (
    "Product gradient boosting (not in the paper) against the product random forest and its "
    "HistGradientBoosting baselines: mean ± 95% interval, then the difference of means (boosting minus "
    "the other; F1 in points, RMSE as is) with its Bonferroni-adjusted Wilcoxon p-value (signed-rank test "
    "over the paired trials, corrected over this family's comparisons in the row: 3, or 2 where the Klein "
    "wrapper does not apply). ▲: boosting significantly better (adjusted p < .05); ▼: significantly worse. "
    "n/a: the model does not apply (the Klein wrapper has no model of a sphere)."
)
# A model the run holds but a row does not: it does not apply there (or the task is not its own).
_NOT_APPLICABLE = "n/a"


def _boosting_pairs(summary: pd.DataFrame, pairs: pd.DataFrame) -> pd.DataFrame:
    if pairs is None or pairs.empty or "comparison" not in pairs:
        return pd.DataFrame(columns=[*ROW_KEYS, "model_a", "model_b"])
    return pairs[pairs["comparison"] == BOOSTING_FAMILY]


def _p_text(p: float) -> str:
    if p is None or (isinstance(p, float) and math.isnan(p)):
        return "p n/a"
    if p < 0.001:
        return "p < .001"
    return "p " + _strip_zero(f"{p:.3f}") if p < 1 else "p 1"


def _difference_text(entry, metric: str) -> str:
    """``"+5.3 (p .002) ▲"``: boosting minus the other model, adjusted p, and the verdict."""
    diff = entry["mean_a"] - entry["mean_b"]
    text = format_value(diff, None, metric)
    text = text if text.startswith("-") else "+" + text
    text += f" ({_p_text(entry['p_adjusted'])})"
    if bool(entry["significant"]) and entry["winner"]:
        text += " ▲" if entry["winner"] == entry["model_a"] else " ▼"
    return text


def boosting_markdown(summary: pd.DataFrame, pairs: pd.DataFrame) -> str:
    """The boosting family's table: one row per dataset, the models' scores, then boosting's differences.

    Parameters
    ----------
    summary : DataFrame from :func:`curvedtrees.benchmarks.statistics.summarize`
    pairs : DataFrame from :func:`curvedtrees.benchmarks.statistics.pairwise_tests`
        Its ``"boosting"`` comparisons are read.

    Returns
    -------
    str
        A Markdown table, or a sentence when the run has no boosting comparisons.
    """
    tests = _boosting_pairs(summary, pairs)
    if tests.empty:
        return "This run has no product gradient boosting to compare."
    keys = _row_label_columns(summary)
    info = summary.drop_duplicates("model").set_index("model")[["group", "family"]]
    models = list(dict.fromkeys(summary["model"]))
    boosted = list(dict.fromkeys(tests["model_a"]))
    opponents = [m for m in dict.fromkeys(b for a, b in boosting_pairs(models, info)) if m in set(tests["model_b"])]
    named = "dataset" in summary and summary["dataset"].nunique() > 1
    rows = []
    for row_key, block in summary.groupby(keys, sort=False, dropna=False):
        row_key = dict(zip(keys, row_key if isinstance(row_key, tuple) else (row_key,)))
        by_model = block.set_index("model")
        metric = block["metric"].iloc[0]
        mask = pd.Series(True, index=tests.index)
        for key in keys:
            mask &= tests[key] == row_key[key]
        row_tests = tests[mask]
        label = [_TASK_SHORT.get(row_key.get("task"), row_key.get("task", "")), row_key.get("signature", "")]
        if named:
            label.insert(0, row_key["dataset"])
        cells = []
        for model in [*boosted, *opponents]:
            entry = by_model.loc[model] if model in by_model.index else None
            cells.append(
                _NOT_APPLICABLE if entry is None else format_value(entry["mean"], entry["ci"], entry["metric"])
            )
        for a in boosted:
            for b in opponents:
                test = row_tests[(row_tests["model_a"] == a) & (row_tests["model_b"] == b)]
                cells.append(_NOT_APPLICABLE if test.empty else _difference_text(test.iloc[0], metric))
        rows.append([*label, *cells])
    versus = [f"{a} − {b}" if len(boosted) > 1 else f"− {b}" for a in boosted for b in opponents]
    header = ["Dataset"] * named + ["Task", "Signature", *boosted, *opponents, *versus]
    n_labels = 2 + named
    return markdown_table(header, rows, ["l"] * n_labels + ["r"] * (len(header) - n_labels))


def boosting_counts_markdown(summary: pd.DataFrame, pairs: pd.DataFrame) -> str:
    """Per task and opponent: rows where boosting is significantly better, worse, neither; mean difference.

    The mean difference is the mean over the rows of boosting's mean minus the
    opponent's (F1 in points, RMSE as is; on RMSE a negative difference favours
    boosting).
    """
    tests = _boosting_pairs(summary, pairs)
    if tests.empty:
        return "This run has no product gradient boosting to compare."
    rows = []
    for (task, a, b), block in tests.groupby(["task", "model_a", "model_b"], sort=False):
        metric = "f1_micro" if task in ("classification", "link_prediction") else "rmse"
        sign = 1 if metric == "f1_micro" else -1
        diff = block["mean_a"] - block["mean_b"]
        better = int((block["significant"].astype(bool) & (block["winner"] == a)).sum())
        worse = int((block["significant"].astype(bool) & (block["winner"] == b)).sum())
        ahead = int((sign * diff > 0).sum())
        mean = format_value(float(diff.mean()), None, metric)
        rows.append(
            [
                task.replace("_", " "),
                f"{a} vs {b}",
                len(block),
                better,
                worse,
                len(block) - better - worse,
                ahead,
                mean if mean.startswith("-") else "+" + mean,
            ]
        )
    header = ["Task", "Comparison", "Rows", "Better ▲", "Worse ▼", "No significant difference", "Ahead on mean",
              "Mean difference"]  # fmt: skip
    return markdown_table(header, rows, ["l", "l", "r", "r", "r", "r", "r", "r"])


def _count(k, n):
    return f"{int(k)} ({100 * k / n:.0f}%)" if n else "0"


def timing_markdown(summary: pd.DataFrame, models=None) -> str:
    """Mean fit and predict time per model (milliseconds), averaged over every dataset row."""
    models = _models(summary, models)
    rows = []
    for model in models:
        block = summary[summary["model"] == model]
        if block.empty:
            continue
        fit, predict = 1000 * block["fit_seconds"].mean(), 1000 * block["predict_seconds"].mean()
        rows.append([model, f"{fit:.1f}", f"{predict:.1f}"])
    return markdown_table(["Model", "Fit (ms)", "Predict (ms)"], rows, ["l", "r", "r"])


_LEGEND = (
    "F1 micro in percent (classification, link prediction) or RMSE (regression), mean ± 95% confidence "
    "interval over trials. **Bold**: best mean of the row; <u>underlined</u>: second best. Marks (Wilcoxon "
    "signed-rank, Bonferroni-corrected p < .05 within trees + k-NN + perceptron and within forests + k-NN + "
    "perceptron): * beats product models, † beats ambient models, ‡ beats tangent models, § beats k-NN, "
    "¶ beats the perceptron."
)


def benchmark_markdown(
    results: pd.DataFrame,
    summary: pd.DataFrame,
    title: str,
    description: str = "",
    paper: pd.DataFrame | None = None,
    pairs: pd.DataFrame | None = None,
) -> str:
    """A complete Markdown report of one run: parameters, Table 5 layout, paper comparison, ranks, boosting, timings.

    ``pairs`` (from :func:`~curvedtrees.benchmarks.statistics.pairwise_tests`)
    gives the boosting section; without it, the tests are run here.
    """
    attrs = results.attrs
    models = attrs.get("models") or list(dict.fromkeys(summary["model"]))
    lines = [f"# {title}", ""]
    if description:
        lines += [description, ""]
    info = [
        f"trials: {attrs.get('n_trials', results['trial'].nunique())}",
        f"seed: {attrs.get('random_state', '?')}",
        f"test size: {attrs.get('test_size', '?')}",
        f"backend: {attrs.get('backend', '?')}",
    ]
    if "wall_seconds" in attrs:
        info.append(f"wall time: {attrs['wall_seconds']:.1f} s")
    if attrs.get("resumed_jobs"):
        info.append(f"resumed after an interruption ({attrs['resumed_jobs']} jobs read back from the trial log)")
    errors = int((results["error"].fillna("") != "").sum()) if "error" in results else 0
    if errors:
        info.append(f"failed fits: {errors}")
    skipped = attrs.get("skipped_models") or {}
    lines += ["Run: " + ", ".join(info) + ".", ""]
    n_trials = int(attrs.get("n_trials", results["trial"].nunique()))
    if n_trials < MIN_TRIALS_FOR_INTERVAL:
        warning = few_trials_warning(n_trials)
        lines += [f"**Warning:** {warning[0].upper()}{warning[1:]}.", ""]
    if skipped:
        lines += [
            "Models skipped because they could not be built: " + "; ".join(f"{k} ({v})" for k, v in skipped.items()),
            "",
        ]
    lines += ["## Results", "", _LEGEND, "", table5_markdown(summary, models), ""]
    if paper is not None:
        lines += [
            "## Compared with the paper's Table 5",
            "",
            "Ours above, the paper's below. ▲/▼: our mean is above/below the paper's 95% interval; "
            "!: the difference exceeds both intervals combined (sqrt(ci² + paper ci²)).",
            "",
            comparison_markdown(summary, paper, models),
            "",
        ]
    lines += ["## Ranks", "", rank_markdown(summary, models), ""]
    if "family" in summary and (summary["family"] == BOOSTING_FAMILY).any():
        if pairs is None:
            from .statistics import pairwise_tests

            pairs = pairwise_tests(results)
        lines += [
            "## Boosting",
            "",
            _BOOSTING_LEGEND,
            "",
            boosting_markdown(summary, pairs),
            "",
            boosting_counts_markdown(summary, pairs),
            "",
        ]
    lines += [
        "## Timings",
        "",
        "Mean per fit / predict call inside the workers.",
        "",
        timing_markdown(summary, models),
        "",
    ]
    return "\n".join(lines)


def write_report(
    results: pd.DataFrame, out_dir, name: str, description: str = "", paper=None, alpha=0.05, compress=False
):
    """Write a run's files into ``out_dir``.

    ``NAME.csv`` (tidy results; ``NAME.csv.gz`` with ``compress``), ``NAME_summary.csv`` (per row and model),
    ``NAME_pairs.csv`` (Wilcoxon tests), ``NAME.md`` (the report) and
    ``NAME.json`` (the run's parameters: trials, seed, backend, wall time).

    Returns
    -------
    dict
        The paths by kind (results, summary, pairs, markdown, meta) and the
        summary frame under ``"summary_frame"``.
    """
    from pathlib import Path

    from .statistics import pairwise_tests, summarize

    check_run_name(name)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    summary = summarize(results, alpha=alpha)
    pairs = pairwise_tests(results, alpha=alpha)
    paths = {
        "results": out / (f"{name}.csv.gz" if compress else f"{name}.csv"),
        "summary": out / f"{name}_summary.csv",
        "pairs": out / f"{name}_pairs.csv",
        "markdown": out / f"{name}.md",
        "meta": out / f"{name}.json",
    }
    import json

    results.to_csv(paths["results"], index=False)
    meta = {"name": name, "description": description, **results.attrs}
    paths["meta"].write_text(json.dumps(meta, indent=2, default=str) + "\n", encoding="utf-8")
    summary.to_csv(paths["summary"], index=False)
    pairs.to_csv(paths["pairs"], index=False)
    paths["markdown"].write_text(
        benchmark_markdown(results, summary, f"Benchmark: {name}", description, paper, pairs), encoding="utf-8"
    )
    return {**paths, "summary_frame": summary}
