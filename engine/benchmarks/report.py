"""Markdown tables of benchmark summaries: Table 5's layout, comparisons with the paper, ranks, timings.

Cells are written the way the paper writes them: F1 in percent with one
decimal (``30.9 ± .5``), RMSE with three decimals (``.198 ± .002``), leading
zeros dropped; the best model of a row in bold, the second best underlined
(``<u>``), followed by the significance marks.
"""

from __future__ import annotations

import math
import re

import pandas as pd

from .statistics import ROW_KEYS, _ranks, group_top_counts, rank_counts

__all__ = [
    "check_run_name",
    "comparison_frame",
    "comparison_markdown",
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


def table5_markdown(summary: pd.DataFrame, models=None, marks: bool = True) -> str:
    """The summary laid out like the paper's Table 5: one row per dataset, one column per model.

    Parameters
    ----------
    summary : DataFrame from :func:`curvedtrees.benchmarks.statistics.summarize`
    models : list of str, optional
        Column order (display names); default: order of appearance.
    marks : bool
        Append the significance marks.
    """
    models = _models(summary, models)
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
    intervals combined (``sqrt(ci^2 + paper_ci^2)``).
    """
    models = _models(summary, models)
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
    """Mean rank and top-1 / top-2 counts per model, and the product models' top-k counts per task."""
    counts = rank_counts(summary)
    models = [m for m in _models(summary, models) if m in counts.index]
    rows = [
        [m, int(counts.loc[m, "n_rows"]), f"{counts.loc[m, 'mean_rank']:.2f}", int(counts.loc[m, "top1"]),
         int(counts.loc[m, "top2"])]
        for m in models
    ]  # fmt: skip
    text = markdown_table(["Model", "Rows", "Mean rank", "Top-1", "Top-2"], rows, ["l", "r", "r", "r", "r"])
    if (summary["group"] == "product").any():
        # Table 1 ranks the paper's models only: models the paper did not run (boosting) leave the count.
        paper_rows = summary[summary["group"] != "boosting"].copy()
        paper_rows["rank"] = _ranks(paper_rows, _row_label_columns(paper_rows))
        top = group_top_counts(paper_rows, "product")
        rows = [
            [task, int(r["rows"]), _count(r["top1"], r["rows"]), _count(r["top2"], r["rows"])]
            for task, r in top.iterrows()
        ]
        text += "\n\nProduct DT or RF among the top k (as in the paper's Table 1):\n\n"
        text += markdown_table(["Task", "Rows", "#Top-1", "#Top-2"], rows, ["l", "r", "r", "r"])
    return text


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
    results: pd.DataFrame, summary: pd.DataFrame, title: str, description: str = "", paper: pd.DataFrame | None = None
) -> str:
    """A complete Markdown report of one run: parameters, Table 5 layout, paper comparison, ranks, timings."""
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
    lines += [
        "## Ranks",
        "",
        rank_markdown(summary, models),
        "",
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
        benchmark_markdown(results, summary, f"Benchmark: {name}", description, paper), encoding="utf-8"
    )
    return {**paths, "summary_frame": summary}
