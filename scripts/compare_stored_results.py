"""Compare stored runs with the authors' stored per-trial results, cell by cell.

Prints, for each run, the agreement counts (|z| <= 2 combined standard errors,
see ``curvedtrees.benchmarks.reference``), the cells that disagree, the rows they
fall in, and how many disagreeing cells our own trials give by chance; writes
the Markdown of BENCHMARKS.md's "authors' stored results" section. Reads only
files in ``results/``; runs nothing.

Usage::

    python scripts/compare_stored_results.py
    python scripts/compare_stored_results.py --markdown /tmp/reference.md
    python scripts/compare_stored_results.py --update-doc BENCHMARKS.md

``--update-doc`` refreshes the blocks between ``<!-- reference-comparison begin ARGS -->``
and ``<!-- reference-comparison end ARGS -->`` (ARGS: ``counts STEM STEM ...``,
``cells STEM`` or ``printed``) and leaves the rest of the file as it is. The markers differ from
``<!-- begin KIND ARGS -->`` on purpose: ``python -m curvedtrees.benchmarks --update-doc``
fills those and stops at kinds it does not know.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import numpy as np
import pandas as pd
from curvedtrees.benchmarks.models import TREE_PARAMS
from curvedtrees.benchmarks.presets import PRESETS
from curvedtrees.benchmarks.reference import (
    AGREEMENT_Z,
    REFERENCE_PATH,
    agreement_counts,
    chance_disagreements,
    compare_with_reference,
    load_reference,
    reference_markdown,
)
from curvedtrees.benchmarks.stored import RESULTS_DIR, load_run

#: The runs at the authors' setting (their mixture, depth 5): the comparison proper.
DEPTH5_RUNS = ["multi-curvature-notebook", "single-curvature-notebook"]
#: Shown in the counts table beside them, to see what the depth does to the agreement.
OTHER_RUNS = [
    "multi-curvature-notebook-depth3",
    "single-curvature-notebook-depth4",
    "single-curvature-notebook-depth3",
]

_BLOCK = re.compile(
    r"(?P<open><!-- reference-comparison begin (?P<args>[^>]*?) -->\n)"
    r"(?P<body>.*?)"
    r"(?P<close><!-- reference-comparison end (?P=args) -->)",
    re.DOTALL,
)

_NOT_TREES = ("k-NN", "Perceptron")


def run_depth(meta: dict) -> int:
    """The trees' max_depth of a stored run: its own override, its preset's, or the paper's 5."""
    for params in (meta.get("tree_params"), getattr(PRESETS.get(meta.get("preset", "")), "tree_params", None)):
        if params and "max_depth" in params:
            return int(params["max_depth"])
    return int(TREE_PARAMS["max_depth"])


class Comparison:
    """One run compared with the reference, with its chance calibration (computed once)."""

    def __init__(self, stem, reference, directory, n_draws, random_state):
        run = load_run(stem, directory, with_results=True)
        self.stem = stem
        self.n_trials = int(run["meta"].get("n_trials", 0)) or int(run["summary"]["n_trials"].max())
        self.depth = run_depth(run["meta"])
        self.table = compare_with_reference(run["summary"], reference)
        self.counts = agreement_counts(self.table)
        results = run["results"]
        ref_trials = int(reference["n_trials"].min())
        no_perceptron = results[results["model"] != "Perceptron"] if results is not None else None
        self.chance = {}
        if results is not None:
            for label, frame in (("all", results), ("no_perceptron", no_perceptron)):
                for shared in (True, False):
                    self.chance[label, shared] = chance_disagreements(
                        frame, ref_trials, n_draws, shared_trials=shared, random_state=random_state
                    )

    @property
    def trees(self):
        return self.table[~self.table["model"].isin(_NOT_TREES)]


def _share_at_least(counts, observed):
    return float(np.mean(counts >= observed))


def _tree_offsets(trees):
    """Mean difference ours - authors of the trees and forests: F1 in points, RMSE in thousandths."""
    parts = []
    for task, scale, unit in (("classification", 100.0, "F1 points"), ("regression", 1000.0, "RMSE x1000")):
        block = trees[trees["task"] == task]
        if len(block):
            parts.append(f"{block['diff'].mean() * scale:+.1f} {unit}")
    return ", ".join(parts)


def counts_markdown(comparisons) -> str:
    """One line per run: depth, cells that agree, and the same for trees and forests alone."""
    header = [
        "Run", "Depth", "Cells", "Agree", "Disagree (perceptron)", "Trees and forests agree",
        "Trees and forests, mean ours - authors",
    ]  # fmt: skip
    lines = ["| " + " | ".join(header) + " |", "| :--- | ---: | ---: | ---: | ---: | ---: | :--- |"]
    for c in comparisons:
        total = c.counts.iloc[-1]
        trees = c.trees
        lines.append(
            f"| `{c.stem}` | {c.depth} | {total.cells} | {total.agree} "
            f"| {total.disagree} ({total.disagree_perceptron}) "
            f"| {int(trees['agree'].sum())} of {len(trees)} | {_tree_offsets(trees)} |"
        )
    return "\n".join(lines)


def summary_sentence(c: Comparison) -> str:
    total = c.counts.iloc[-1]
    by_task = "; ".join(f"{r.task} {r.agree} of {r.cells}" for r in c.counts.iloc[:-1].itertuples(index=False))
    text = (
        f"`{c.stem}` ({c.n_trials} trials, depth {c.depth}): **{total.agree} of {total.cells} cells agree within "
        f"{AGREEMENT_Z:g} combined standard errors** with the authors' stored results ({by_task}); "
        f"{total.disagree} disagree, {total.disagree_perceptron} of them the perceptron's."
    )
    if c.chance:
        n_draws = len(c.chance["all", True])
        observed = total.disagree - total.disagree_perceptron
        per_row = c.chance["no_perceptron", False]
        text += (
            f" Without the perceptron (an independent implementation), {observed} of "
            f"{total.cells - _perceptron_cells(c)} disagree. For scale: {n_draws} times, 10 of our own trials per "
            f"row (each row its own, as the authors' files give each row its own seeds) were compared the same way "
            f"with the row's other trials; without the perceptron they disagreed in a median of "
            f"{np.median(per_row):.0f} cells (95th percentile {np.percentile(per_row, 95):.0f}), and in at least "
            f"{observed} in {_share_at_least(per_row, observed):.0%} of the draws."
        )
    return text


def _perceptron_cells(c):
    return int((c.table["model"] == "Perceptron").sum())


def disagreeing_markdown(c: Comparison) -> str:
    off = c.table[~c.table["agree"]]
    if off.empty:
        return "Every cell agrees."
    return reference_markdown(off.sort_values(["task", "signature", "model"], kind="stable"))


def cells_markdown(c: Comparison) -> str:
    return "\n\n".join(
        [
            summary_sentence(c),
            "Cells that disagree:",
            disagreeing_markdown(c),
            f"<details><summary>All {len(c.table)} cells of <code>{c.stem}</code></summary>",
            reference_markdown(c.table),
            "</details>",
        ]
    )


def rows_report(c: Comparison) -> pd.DataFrame:
    """Per dataset row with a disagreeing cell: how many cells disagree, k-NN's z, the trees' mean z."""
    rows = []
    for (task, signature), block in c.table.groupby(["task", "signature"], sort=False):
        if block["agree"].all():
            continue
        knn = block.loc[block["model"] == "k-NN", "z"]
        trees = block.loc[~block["model"].isin(_NOT_TREES), "z"]
        rows.append(
            {
                "task": task,
                "signature": signature,
                "disagree": int((~block["agree"]).sum()),
                "models": ", ".join(block.loc[~block["agree"], "model"]),
                "knn_z": float(knn.iloc[0]) if len(knn) else np.nan,
                "trees_mean_z": float(trees.mean()) if len(trees) else np.nan,
            }
        )
    return pd.DataFrame(rows)


def printed_markdown(reference: pd.DataFrame) -> str:
    """The authors' stored results beside their own printed Table 5, per section, task and model kind.

    The paper's ± is read as a standard error (BENCHMARKS.md, difference 1), so
    z = (stored - printed) / sqrt(se_stored^2 + printed_pm^2) and a cell agrees at |z| <= 2.
    """
    from curvedtrees.benchmarks.paper import load_paper_table5

    printed = load_paper_table5()[["section", "task", "signature", "model", "mean", "ci"]]
    joined = reference.merge(printed, on=["section", "task", "signature", "model"], suffixes=("", "_printed"))
    joined["z"] = (joined["mean"] - joined["mean_printed"]) / np.sqrt(joined["standard_error"] ** 2 + joined["ci"] ** 2)
    joined["kind"] = joined["model"].where(joined["model"].isin(_NOT_TREES), "trees and forests")
    lines = [
        "| Section | Task | Models | Cells | Agree | Mean stored - printed | Median stored SE / printed ± |",
        "| :--- | :--- | :--- | ---: | ---: | ---: | ---: |",
    ]
    for (section, task, kind), block in joined.groupby(["section", "task", "kind"], sort=False):
        scale, unit = (100.0, "F1 points") if task == "classification" else (1000.0, "RMSE x1000")
        lines.append(
            f"| {section} | {task} | {kind} | {len(block)} | {int((block['z'].abs() <= AGREEMENT_Z).sum())} "
            f"| {(block['mean'] - block['mean_printed']).mean() * scale:+.1f} {unit} "
            f"| {(block['standard_error'] / block['ci']).median():.1f} |"
        )
    return "\n".join(lines)


def fill(text: str, comparisons: dict, reference: pd.DataFrame) -> str:
    """``text`` with every reference-comparison block refreshed."""

    def refresh(match):
        args = match.group("args").split()
        kind, stems = args[0], args[1:]
        missing = [s for s in stems if s not in comparisons]
        if missing:
            raise ValueError(f"block '{match.group('args')}': run(s) {', '.join(missing)} not compared")
        if kind == "printed" and not stems:
            return match.group("open") + printed_markdown(reference) + "\n" + match.group("close")
        if kind == "counts":
            body = counts_markdown([comparisons[s] for s in stems])
        elif kind == "cells" and len(stems) == 1:
            body = cells_markdown(comparisons[stems[0]])
        else:
            raise ValueError(f"block '{match.group('args')}': expected 'printed', 'counts STEM ...' or 'cells STEM'")
        return match.group("open") + body + "\n" + match.group("close")

    return _BLOCK.sub(refresh, text)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", nargs="+", default=DEPTH5_RUNS + OTHER_RUNS, help="stored run names")
    parser.add_argument("--reference", default=str(REFERENCE_PATH), help="the authors' means (CSV)")
    parser.add_argument("--results", default=str(RESULTS_DIR), help="folder of the stored runs")
    parser.add_argument("--draws", type=int, default=1000, help="random splits of our trials for the chance counts")
    parser.add_argument("--seed", type=int, default=0, help="random_state of those splits")
    parser.add_argument("--markdown", help="write the Markdown blocks to this file")
    parser.add_argument("--update-doc", help="refresh the reference-comparison blocks of this Markdown file")
    args = parser.parse_args(argv)
    try:
        reference = load_reference(args.reference)
        comparisons = {s: Comparison(s, reference, args.results, args.draws, args.seed) for s in args.runs}
    except (OSError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    pd.set_option("display.width", 160)
    for c in comparisons.values():
        print(f"== {c.stem} (depth {c.depth}, {c.n_trials} trials)")
        if c.table.attrs["only_ours"] or c.table.attrs["only_reference"]:
            print(f"   unmatched: {len(c.table.attrs['only_ours'])} of ours, "
                  f"{len(c.table.attrs['only_reference'])} of the reference's")  # fmt: skip
        print(c.counts.to_string(index=False))
        print(summary_sentence(c))
        if c.chance:
            shared = c.chance["no_perceptron", True]
            print(
                f"(with the same 10 trials in every row, as our common seeds would give: median "
                f"{np.median(shared):.0f}, 95th percentile {np.percentile(shared, 95):.0f})"
            )
        report = rows_report(c)
        if not report.empty:
            print(report.round(2).to_string(index=False))
        print()
    print(counts_markdown(list(comparisons.values())))
    print()
    print("The authors' stored results beside their printed Table 5:")
    print(printed_markdown(reference))
    markdown = "\n\n".join(
        [counts_markdown(list(comparisons.values())), printed_markdown(reference)]
        + [cells_markdown(c) for c in comparisons.values()]
    )
    if args.markdown:
        Path(args.markdown).write_text(markdown + "\n", encoding="utf-8")
    if args.update_doc:
        path = Path(args.update_doc)
        try:
            text = path.read_text(encoding="utf-8")
            path.write_text(fill(text, comparisons, reference), encoding="utf-8")
        except (OSError, ValueError) as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
